# GPU call 7 (2026-11-29): is GL's own drawing what the GL chains wait for? gl-histogram (a
# 0.02 ms kernel) with gltestsrc's smpte and black patterns, and gl-histogram-drawn (glshader
# draws each frame once more before the element), host waits and semaphores, 300 frames after
# 30, 4K and 1080p.
B=build-gpu
export GST_GL_PLATFORM=egl GST_GL_WINDOW=egl-device XDG_CACHE_HOME=/tmp/cache
export GST_PLUGIN_PATH=$PWD/$B/gst GST_REGISTRY=/tmp/gst-opencl-gpu-registry.bin GST_OPENCL_TUNING=0
gst-inspect-1.0 opencl > /dev/null 2>&1
for order in host semaphores; do
  for pattern in smpte black; do
    GST_DEBUG=opencl:4 GST_OPENCL_BENCH_GL_PATTERN=$pattern GST_OPENCL_GL_ORDER=$order timeout 60 \
      $B/tests/bench/bench_pipeline --cases gl-histogram,gl-histogram-drawn \
      --sizes 3840x2160,1920x1080 --frames 300 --warmup 30 \
      --json $OUT/$pattern-$order.json > $OUT/$pattern-$order.txt 2> /tmp/log.txt
    echo "status $?" >> $OUT/$pattern-$order.txt
    grep -aE "external-memory[:,]" /tmp/log.txt | grep -v "bytes shared\|ordered\|orders" | sed 's/^.*external-memory/external-memory/' >> $OUT/$pattern-$order.txt
  done
done
cd $OUT && tar czf ../all.tgz . && rm -rf ./* && mv ../all.tgz .
