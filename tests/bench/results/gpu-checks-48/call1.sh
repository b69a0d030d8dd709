# GPU checks of session 48, call 1 (two H200s): the two-GPU CUDA test (both halves), and the
# suite programs not run on the GPU since the kernel and CUDA changes, eight at a time.
B=build-gpu
export GST_PLUGIN_PATH=$PWD/$B/gst GST_REGISTRY=/tmp/reg.bin XDG_CACHE_HOME=/tmp/cache
export GST_GL_PLATFORM=egl GST_GL_WINDOW=egl-device SOAK_RUNS=10
mkdir -p $OUT/logs
nvidia-smi -L > $OUT/gpus.txt 2>&1
gst-inspect-1.0 opencl >/dev/null 2>&1
( GST_CHECKS=test_device_follows_cuda_frames GST_OPENCL_TEST_CLIPS=$B/clips GST_DEBUG=opencl*:4 \
    CK_DEFAULT_TIMEOUT=300 timeout 320 $B/tests/test_cuda > $OUT/logs/two-gpu.log 2>&1
  echo "two-gpu status $?" >> $OUT/status.txt ) &
GPU_SUITE_JOBS=8 GPU_SUITE_LOGS=$OUT/logs timeout 520 bash tests/gpu-suite.sh $B bilateral \
  histogram concurrent_start property_fuzz cuda frame_path convolve3d mandelbox multiconvolve \
  reliability convertscale gl_interop gl_soak > $OUT/suite.txt 2>&1
echo "suite status $?" >> $OUT/status.txt
wait
cat $OUT/status.txt $OUT/suite.txt; grep -E "Checks|two GPUs|skip" $OUT/logs/two-gpu.log | tail -5
tar -C $OUT -czf $OUT/all.tgz logs gpus.txt status.txt suite.txt && rm -rf $OUT/logs
