# GPU call 1 (2026-11-29, nvidia-h200-x2): frames of the second GPU into an element kept on the
# first, by a peer copy and through host memory (GST_OPENCL_CUDA_PEERS=0): test_cuda's check,
# then the frame rate of each way against the element following the frames and decoding alone.
# Run from the repository root with build-gpu carried: bash tests/bench/results/cuda-no-peer/call1.sh
# (The run recorded in out/call1 had lib.sh's lines written out here.)
. tests/bench/results/cuda-no-peer/lib.sh
R=$OUT/d; mkdir -p $R
nvidia-smi -L > $R/gpus.txt; nvidia-smi topo -m > $R/topo.txt 2>&1
gst-inspect-1.0 nvcodec 2>/dev/null | grep -E "nvh264.*(dec|enc)" > $R/nvcodec.txt
( GST_DEBUG=opencl:4 GST_DEBUG_FILE=$R/cuda-debug.txt GST_CHECKS=test_device_follows_cuda_frames \
  timeout 240 $B/tests/test_cuda > $R/test_cuda.log 2>&1; echo "test_cuda exit $?" >> $R/test_cuda.log )
grep -h -E "reach .* by peer|pass through host" $R/cuda-debug.txt | sed 's/.*opencl //' | sort | uniq -c > $R/routes.txt
gzip -9 $R/cuda-debug.txt
line () { echo "filesrc location=/tmp/long.h264 ! h264parse ! nvh264device1dec ! $1 ! fakesink sync=false"; }
for r in 1 2 3; do
  run follow "GST_OPENCL_TUNING=0" $(line openclbilateral)
  run peer "GST_OPENCL_DEVICE=NVIDIA:0" $(line openclbilateral)
  run host "GST_OPENCL_DEVICE=NVIDIA:0 GST_OPENCL_CUDA_PEERS=0" $(line openclbilateral)
  run decode "GST_OPENCL_TUNING=0" $(line identity)
done 2>&1 | tee $R/timings.txt
cd $OUT && tar czf ../all.tgz . && rm -rf ./* && mv ../all.tgz .
