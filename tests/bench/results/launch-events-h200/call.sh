# GPU call (2026-11-29): launches without profiling events on the frames kernel-time is not read
# for, and tensors in OpenCL memory. The GPU suite's programs that these changes reach, then
# bench_streams with kernel-time read at EOS only (one frame in 8 timed) against read as each
# frame leaves the element (every frame timed), alternating, 1 and 8 streams with both contexts
# shared; then one stream of each under cl_call_times (the host time of each OpenCL call).
B=build-gpu
export XDG_CACHE_HOME=/tmp/cache
nvidia-smi -L > $OUT/gpu.txt 2>&1
GPU_SUITE_JOBS=4 GPU_SUITE_LOGS=$OUT/suite timeout 300 bash tests/gpu-suite.sh $B frame_path \
  convertscale_tensor sort reliability cuda kernel endless_kernel memory multiconvolve inflight \
  > $OUT/suite.txt 2>&1
echo "suite status $?" >> $OUT/suite.txt
export GST_PLUGIN_PATH=$PWD/$B/gst GST_REGISTRY=/tmp/gst-opencl-gpu-registry.bin GST_OPENCL_TUNING=0
S="$B/tests/bench/bench_streams --device gpu --clip $B/clips/clip-1080p.h264 --loops 1 \
  --cases baseline,histogram,bilateral --modes shared --share-cuda"
for round in 1 2; do
  for read in eos each; do
    flag=; [ $read = each ] && flag=--read-kernel-time
    timeout 100 $S --streams 1,8 --runs 2 $flag --json $OUT/streams-$read-$round.json \
      > $OUT/streams-$read-$round.txt 2>&1
    echo "status $?" >> $OUT/streams-$read-$round.txt
  done
done
for read in eos each; do
  flag=; [ $read = each ] && flag=--read-kernel-time
  LD_PRELOAD=$PWD/$B/tests/bench/cl_call_times.so timeout 60 $S --streams 1 --runs 1 \
    --cases bilateral $flag > $OUT/calls-$read.txt 2>&1
  echo "status $?" >> $OUT/calls-$read.txt
done
cd $OUT && tar czf ../all.tgz . && rm -rf ./* && mv ../all.tgz .
