# GPU call 2 (2026-11-29, nvidia-h200-x2): test_cuda's two-GPU check again (the transfer counter
# now on from the start), then one GPU's frames into the element by its CUDA path and through
# host memory, 3 rounds. (The run recorded in out/call2 had lib.sh's lines written out here.)
. tests/bench/results/cuda-no-peer/lib.sh
R=$OUT/d2; mkdir -p $R
gst-inspect-1.0 nvcodec 2>/dev/null | grep -E "cuda" > $R/nvcodec.txt
( GST_DEBUG=opencl:4,check:5 GST_DEBUG_FILE=$R/cuda-debug.txt GST_CHECKS=test_device_follows_cuda_frames \
  timeout 240 $B/tests/test_cuda > $R/test_cuda.log 2>&1; echo "test_cuda exit $?" >> $R/test_cuda.log )
grep -h -E "reach .* by peer|pass through host|bytes uploaded" $R/cuda-debug.txt | sed 's/.*opencl //' | sort | uniq -c > $R/routes.txt
gzip -9 $R/cuda-debug.txt
line () { echo "filesrc location=/tmp/long.h264 ! h264parse ! nvh264dec ! $1 ! fakesink sync=false"; }
for r in 1 2 3; do
  run cuda-path "GST_OPENCL_TUNING=0" $(line openclbilateral)
  run cuda-semaphores "GST_OPENCL_CUDA_ORDER=semaphores" $(line openclbilateral)
  run cudadownload "GST_OPENCL_TUNING=0" $(line "cudadownload ! openclbilateral")
  run decode "GST_OPENCL_TUNING=0" $(line identity)
done 2>&1 | tee $R/timings.txt
cd $OUT && tar czf ../all.tgz . && rm -rf ./* && mv ../all.tgz .
