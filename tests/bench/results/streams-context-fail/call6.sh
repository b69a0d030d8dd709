# GPU call 6 (2026-11-29, nvidia-h200): call 5's runs with GStreamer's GL kept out
# (GST_GL_PLATFORM=glx where no X display exists: no GL context can be made, so nvh264dec
# negotiates no GL), up to 3 tries in the call's time.
B=build-gpu
export GST_PLUGIN_PATH=$PWD/$B/gst GST_REGISTRY=/tmp/reg.bin XDG_CACHE_HOME=/tmp/cache
export GST_GL_PLATFORM=glx GST_GL_WINDOW=x11
gst-inspect-1.0 opencl >/dev/null 2>&1
for t in 1 2 3; do
  timeout 45 $B/tests/bench/bench_streams --device gpu --clip $B/clips/clip-1080p.h264 --loops 1 \
    --streams 1,8 --runs 2 --modes shared,separate --share-cuda --cases baseline,histogram,bilateral \
    --watchdog 30 --json $OUT/t$t.json > $OUT/t$t-log.txt 2>&1
  echo "try $t status $? failed rows $(grep -c FAILED $OUT/t$t-log.txt)" >> $OUT/status.txt
done
cat $OUT/status.txt
