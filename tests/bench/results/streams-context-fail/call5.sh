# GPU call 5 (2026-11-29, nvidia-h200): call 3's runs, with module names in the stacks of a
# hung teardown (eu-stack -m), up to 2 tries.
B=build-gpu
export GST_PLUGIN_PATH=$PWD/$B/gst GST_REGISTRY=/tmp/reg.bin XDG_CACHE_HOME=/tmp/cache
gst-inspect-1.0 opencl >/dev/null 2>&1
printf '#!/bin/sh\nexec %s/%s/tools/eu-stack -m "$@"\n' "$PWD" "$B" > /tmp/stacks.sh; chmod +x /tmp/stacks.sh
for t in 1 2; do
  timeout 200 $B/tests/bench/bench_streams --device gpu --clip $B/clips/clip-1080p.h264 --loops 1 \
    --streams 1,8 --runs 2 --modes shared,separate --share-cuda --cases baseline,histogram,bilateral \
    --watchdog 30 --stacks-tool /tmp/stacks.sh --json $OUT/t$t.json > $OUT/t$t-log.txt 2>&1
  echo "try $t status $?" >> $OUT/status.txt
  [ -f $OUT/t$t.json.watchdog.txt ] && break
done
cat $OUT/status.txt
