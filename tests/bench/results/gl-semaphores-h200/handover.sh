# GPU call 6 (2026-11-29): where the GL chain's frame goes. bench_pipeline's gl, gl-sink and
# gl-histogram (one hand-over each way and a 0.03 ms kernel) in both orders, 300 frames after
# 30, 4K and 1080p, with the external-memory backend's INFO lines (host steps, GL's time for the
# copy into and out of shared memory).
B=build-gpu
export GST_GL_PLATFORM=egl GST_GL_WINDOW=egl-device XDG_CACHE_HOME=/tmp/cache
export GST_PLUGIN_PATH=$PWD/$B/gst GST_REGISTRY=/tmp/gst-opencl-gpu-registry.bin GST_OPENCL_TUNING=0
gst-inspect-1.0 opencl > /dev/null 2>&1
for order in host semaphores; do
  for c in gl gl-sink gl-histogram; do
    GST_DEBUG=opencl:4 GST_OPENCL_GL_ORDER=$order timeout 60 $B/tests/bench/bench_pipeline \
      --cases $c --sizes 3840x2160,1920x1080 --frames 300 --warmup 30 \
      --json $OUT/$c-$order.json > $OUT/$c-$order.txt 2> /tmp/log.txt
    echo "status $?" >> $OUT/$c-$order.txt
    grep -aE "external-memory[:,]" /tmp/log.txt | sed 's/^.*external-memory/external-memory/' >> $OUT/$c-$order.txt
  done
done
cd $OUT && tar czf ../all.tgz . && rm -rf ./* && mv ../all.tgz .
