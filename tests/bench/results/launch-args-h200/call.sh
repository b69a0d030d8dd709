# GPU calls (2026-11-29, nvidia-h200). 1: what setting a kernel's arguments costs a launch, with
# the buffers of a pool in turn, against one kernel object per buffer pair bound once. 2: N
# decoder pipelines with both contexts shared against one OpenCL context (so one queue) per
# pipeline with the CUDA context shared: whether queues of their own lower the element's host
# time per frame.
B=build-gpu
if [ "${1:-1}" = 1 ]; then
  mkdir -p $OUT/lc; nvidia-smi -L > $OUT/lc/gpu.txt
  for r in 1 2 3; do $B/tests/bench/bench_launch_cost --launches 4000 > $OUT/lc/launch-cost-$r.txt 2>&1; done
else
  export GST_PLUGIN_PATH=$PWD/$B/gst GST_REGISTRY=/tmp/reg.bin XDG_CACHE_HOME=/tmp/cache
  gst-inspect-1.0 opencl > /dev/null 2>&1
  $B/tests/bench/bench_streams --device gpu --clip $B/clips/clip-1080p.h264 --loops 1 \
    --streams 1,8,16 --runs 2 --modes shared,separate --share-cuda --cases baseline,histogram,bilateral \
    --json $OUT/queues.json > $OUT/queues-log.txt 2>&1
  echo "status $?" >> $OUT/queues-log.txt
fi
