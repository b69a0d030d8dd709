# GPU call 3 (2026-11-29): what the GL chain's frame can cost at least. GL alone (gltestsrc into
# fakesink, and through a GL filter of GStreamer's own, gleffects identity), each 4K and 1080p
# frame timed over 500 frames after 20 by gst-launch-1.0's run; and bench_pipeline's gl case in
# both orders with a black source (GST_OPENCL_BENCH_GL_PATTERN=black: the least drawing).
B=build-gpu
export GST_GL_PLATFORM=egl GST_GL_WINDOW=egl-device XDG_CACHE_HOME=/tmp/cache
export GST_PLUGIN_PATH=$PWD/$B/gst GST_REGISTRY=/tmp/gst-opencl-gpu-registry.bin GST_OPENCL_TUNING=0
gst-inspect-1.0 opencl > /dev/null 2>&1
per_frame () {  # launch line; prints ms per frame over 500 frames beyond the first 20
  local a b
  a=$(date +%s%N); timeout 60 gst-launch-1.0 -q $(echo "$1" | sed 's/NUM/20/') > /dev/null 2>&1
  b=$(date +%s%N); local short=$(( b - a ))
  a=$(date +%s%N); timeout 60 gst-launch-1.0 -q $(echo "$1" | sed 's/NUM/520/') > /dev/null 2>&1; local st=$?
  b=$(date +%s%N)
  echo "$(( (b - a - short) / 500000 ))e-3 ms (status $st): $1"
}
for size in 3840x2160 1920x1080; do
  w=${size%x*}; h=${size#*x}
  caps="video/x-raw(memory:GLMemory),format=RGBA,width=$w,height=$h,framerate=30/1"
  for pattern in smpte black; do
    per_frame "gltestsrc pattern=$pattern num-buffers=NUM ! $caps ! fakesink sync=false"
    per_frame "gltestsrc pattern=$pattern num-buffers=NUM ! $caps ! gleffects effect=identity ! fakesink sync=false"
    per_frame "gltestsrc pattern=$pattern num-buffers=NUM ! $caps ! openclbilateral radius=4 ! fakesink sync=false"
  done
done > $OUT/gl-alone.txt 2>&1
for order in host semaphores; do
  GST_OPENCL_BENCH_GL_PATTERN=black GST_OPENCL_GL_ORDER=$order timeout 90 $B/tests/bench/bench_pipeline \
    --cases gl,gl-sink --sizes 3840x2160,1920x1080 --frames 200 --warmup 20 \
    --json $OUT/gl-black-$order.json > $OUT/gl-black-$order.txt 2>&1
done
cd $OUT && tar czf ../all.tgz . && rm -rf ./* && mv ../all.tgz .
