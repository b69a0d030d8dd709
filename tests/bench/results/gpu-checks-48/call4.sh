# Call 4: streams-context-fail/call7.sh's second part: the runs that failed in 8 of 11 programs,
# with GStreamer's GL kept out (GST_GL_PLATFORM=glx, no X display), three programs.
B=build-gpu
export GST_PLUGIN_PATH=$PWD/$B/gst GST_REGISTRY=/tmp/reg.bin XDG_CACHE_HOME=/tmp/cache
mkdir -p $OUT/logs
gst-inspect-1.0 opencl >/dev/null 2>&1
streams () { local name=$1; shift
  timeout 145 $B/tests/bench/bench_streams --device gpu --clip $B/clips/clip-1080p.h264 --loops 1 \
    --share-cuda --probe-context --watchdog 45 --stacks-tool $B/tools/eu-stack \
    --json $OUT/logs/$name.json "$@" > $OUT/logs/$name-log.txt 2>&1
  echo "$name status $? failed rows $(grep -c FAILED $OUT/logs/$name-log.txt)" \
    "bare contexts refused $(grep PROBE $OUT/logs/$name-log.txt | grep -vc "was made")" >> $OUT/status.txt; }
for t in 1 2 3; do
  GST_GL_PLATFORM=glx GST_GL_WINDOW=x11 streams no-gl-$t --streams 1,8 --runs 2 \
    --modes shared,separate --cases baseline,histogram,bilateral
done
cat $OUT/status.txt; grep -h "PROBE\|WARN" $OUT/logs/*-log.txt | sort | uniq -c | sort -rn | head -20
tar -C $OUT -czf $OUT/all.tgz logs status.txt && rm -rf $OUT/logs
