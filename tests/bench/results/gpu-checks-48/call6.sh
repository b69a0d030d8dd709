# Call 6: as call 5, with GStreamer's GL kept out (GST_GL_PLATFORM=glx, no X display: the
# decoders make GStreamer's placeholder display) and that display shared, one program.
B=build-gpu
export GST_PLUGIN_PATH=$PWD/$B/gst GST_REGISTRY=/tmp/reg.bin XDG_CACHE_HOME=/tmp/cache
export GST_GL_PLATFORM=glx GST_GL_WINDOW=x11
mkdir -p $OUT/logs
gst-inspect-1.0 opencl >/dev/null 2>&1
timeout 80 $B/tests/bench/bench_streams --device gpu --clip $B/clips/clip-1080p.h264 --loops 1 \
  --streams 1,8 --runs 2 --modes shared,separate --share-cuda --share-gl --probe-context \
  --cases baseline,histogram,bilateral --watchdog 30 --stacks-tool $B/tools/eu-stack \
  --json $OUT/logs/no-gl-shared.json > $OUT/logs/no-gl-shared-log.txt 2>&1
echo "no-gl-shared status $? failed rows $(grep -c FAILED $OUT/logs/no-gl-shared-log.txt)" \
  "bare contexts refused $(grep PROBE $OUT/logs/no-gl-shared-log.txt | grep -vc "was made")" >> $OUT/status.txt
cat $OUT/status.txt
tar -C $OUT -czf $OUT/all.tgz logs status.txt && rm -rf $OUT/logs
