# Call 5: the failing runs of streams-context-fail (GL as GStreamer picks it), with one GL display
# shared by the pipelines of each run (--share-gl), two programs.
B=build-gpu
export GST_PLUGIN_PATH=$PWD/$B/gst GST_REGISTRY=/tmp/reg.bin XDG_CACHE_HOME=/tmp/cache
mkdir -p $OUT/logs
gst-inspect-1.0 opencl >/dev/null 2>&1
printf '#!/bin/sh\nexec %s/%s/tools/eu-stack -m "$@"\n' "$PWD" "$B" > /tmp/stacks.sh; chmod +x /tmp/stacks.sh
for t in 1 2; do
  timeout 110 $B/tests/bench/bench_streams --device gpu --clip $B/clips/clip-1080p.h264 --loops 1 \
    --streams 1,8 --runs 2 --modes shared,separate --share-cuda --share-gl --probe-context \
    --cases baseline,histogram,bilateral --watchdog 30 --stacks-tool /tmp/stacks.sh \
    --json $OUT/logs/gl-shared-$t.json > $OUT/logs/gl-shared-$t-log.txt 2>&1
  echo "gl-shared-$t status $? failed rows $(grep -c FAILED $OUT/logs/gl-shared-$t-log.txt)" \
    "bare contexts refused $(grep PROBE $OUT/logs/gl-shared-$t-log.txt | grep -vc "was made")" >> $OUT/status.txt
done
cat $OUT/status.txt; grep -h "^ *[0-9]* *[a-z]* *[a-z]* *[0-9.]* " $OUT/logs/*-log.txt | head -30
tar -C $OUT -czf $OUT/all.tgz logs status.txt && rm -rf $OUT/logs
