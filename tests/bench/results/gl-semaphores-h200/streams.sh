# GPU call 5 (2026-11-29): several GL chains in one pipeline (so one GL context and one OpenCL
# context, one queue), in both orders: N x (gltestsrc ! GL memory RGBA 1080p ! openclbilateral
# radius=4 ! fakesink), N = 1, 2, 4, 8. The time of 20 frames per chain is taken from that of
# 320 (process and GL start-up), so each line is ms per frame of all chains together, over 300
# frames of each; three rounds alternating the orders.
B=build-gpu
export GST_GL_PLATFORM=egl GST_GL_WINDOW=egl-device XDG_CACHE_HOME=/tmp/cache
export GST_PLUGIN_PATH=$PWD/$B/gst GST_REGISTRY=/tmp/gst-opencl-gpu-registry.bin GST_OPENCL_TUNING=0
gst-inspect-1.0 opencl > /dev/null 2>&1
chains () {  # N FRAMES
  local line="" i
  for i in $(seq $1); do
    line="$line gltestsrc pattern=smpte num-buffers=$2 ! video/x-raw(memory:GLMemory),format=RGBA,width=1920,height=1080,framerate=30/1 ! openclbilateral radius=4 ! fakesink sync=false"
  done
  echo "$line"
}
run () {  # N FRAMES -> ns
  local a b
  a=$(date +%s%N); timeout 120 gst-launch-1.0 -q $(chains $1 $2) > /tmp/launch.txt 2>&1 || echo "status $? N=$1 frames=$2: $(tail -2 /tmp/launch.txt)" >&2
  b=$(date +%s%N); echo $(( b - a ))
}
for round in 1 2 3; do
  for order in host semaphores; do
    for n in 1 2 4 8; do
      export GST_OPENCL_GL_ORDER=$order
      short=$(run $n 20); long=$(run $n 320)
      echo "round $round order $order chains $n: $(( (long - short) / (300 * n) / 1000 )) us per frame (all chains), $(( (long - short) / 300 / 1000 )) us per frame of each chain"
    done
  done
done > $OUT/streams.txt 2>&1
cd $OUT && tar czf ../all.tgz . && rm -rf ./* && mv ../all.tgz .
