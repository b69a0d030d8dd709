# GPU call 4 (2026-11-29): the GL chain beside GL alone (gl-source: gltestsrc into fakesink) and
# GStreamer's own GL filter (gl-peer: glshader with its default shader, into fakesink; the peer
# of gl-sink), in both orders of the GL interop, two alternating rounds, 4K and 1080p.
B=build-gpu
export GST_GL_PLATFORM=egl GST_GL_WINDOW=egl-device XDG_CACHE_HOME=/tmp/cache
export GST_PLUGIN_PATH=$PWD/$B/gst GST_REGISTRY=/tmp/gst-opencl-gpu-registry.bin GST_OPENCL_TUNING=0
gst-inspect-1.0 opencl > /dev/null 2>&1
for round in 1 2; do
  for order in host semaphores; do
    GST_OPENCL_GL_ORDER=$order timeout 120 $B/tests/bench/bench_pipeline \
      --cases gl-source,gl-peer,gl-sink,gl --sizes 3840x2160,1920x1080 --frames 300 --warmup 30 \
      --json $OUT/peer-$order-$round.json > $OUT/peer-$order-$round.txt 2>&1
    echo "status $?" >> $OUT/peer-$order-$round.txt
  done
done
cd $OUT && tar czf ../all.tgz . && rm -rf ./* && mv ../all.tgz .
