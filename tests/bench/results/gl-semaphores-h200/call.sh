# GPU call 1 and 2 (2026-11-29; call 2 after the fix of the kernel-time read, its outputs packed
# into one archive, as the device tool returns 8 files at most): GL and OpenCL ordered by semaphores on the external-memory path.
# The GL tests (gl_interop with test_gl_orders, gl) and the CUDA tests (the semaphore room they
# now share), the GL chain timed in both orders in alternating rounds, then the GL soak.
B=build-gpu
export GST_GL_PLATFORM=egl GST_GL_WINDOW=egl-device XDG_CACHE_HOME=/tmp/cache
nvidia-smi -L > $OUT/gpu.txt 2>&1
GPU_SUITE_LOGS=$OUT/suite timeout 330 bash tests/gpu-suite.sh $B gl_interop gl cuda > $OUT/suite.txt 2>&1
echo "suite status $?" >> $OUT/suite.txt
export GST_PLUGIN_PATH=$PWD/$B/gst GST_REGISTRY=/tmp/gst-opencl-gpu-registry.bin GST_OPENCL_TUNING=0
for round in 1 2; do
  for order in host semaphores; do
    GST_OPENCL_GL_ORDER=$order GST_DEBUG=opencl:4 timeout 90 $B/tests/bench/bench_pipeline \
      --cases gl,gl-sink --sizes 3840x2160,1920x1080 --frames 200 --warmup 20 \
      --json $OUT/gl-$order-$round.json > $OUT/gl-$order-$round.txt 2> /tmp/log.txt
    echo "status $?" >> $OUT/gl-$order-$round.txt
    grep -aE "external-memory|semaphore" /tmp/log.txt | sed 's/^.*opencl[^ ]* //' | sort | uniq -c | head -20 > $OUT/gl-$order-$round.log
  done
done
SOAK_RUNS=6 SOAK_LOGS=$OUT/soak timeout 150 bash tests/gl-soak.sh $B gl-chain gl-sink gl-upload gl-decoder > $OUT/soak.txt 2>&1
echo "soak status $?" >> $OUT/soak.txt
cd $OUT && tar czf ../all.tgz . && rm -rf ./* && mv ../all.tgz .
