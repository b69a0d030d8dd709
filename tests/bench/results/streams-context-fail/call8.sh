# For the next GPU call (not run yet): the failing sequence with EGL and one GL display per run
# (no teardown hang then), 3 programs, each PROBE line with the CUDA primary contexts' state:
# after the contexts die, "active, synchronize 700/719" would say a fault in the context NVIDIA's
# OpenCL runs on; "synchronize 0" or "inactive" would point at a resource instead.
B=build-gpu
export GST_PLUGIN_PATH=$PWD/$B/gst GST_REGISTRY=/tmp/reg.bin XDG_CACHE_HOME=/tmp/cache
export GST_DEBUG=opencl*:2
mkdir -p $OUT/logs
gst-inspect-1.0 opencl >/dev/null 2>&1
for t in 1 2 3; do
  timeout 110 $B/tests/bench/bench_streams --device gpu --clip $B/clips/clip-1080p.h264 --loops 1 \
    --streams 1,8 --runs 2 --modes shared,separate --share-cuda --share-gl --probe-context \
    --cases baseline,histogram,bilateral --watchdog 30 --stacks-tool $B/tools/eu-stack \
    --json $OUT/logs/t$t.json > $OUT/logs/t$t-log.txt 2>&1
  echo "t$t status $? failed rows $(grep -c FAILED $OUT/logs/t$t-log.txt)" \
    "bare contexts refused $(grep PROBE $OUT/logs/t$t-log.txt | grep -vc "was made")" >> $OUT/status.txt
done
cat $OUT/status.txt; grep -h PROBE $OUT/logs/*-log.txt | sed 's/run [0-9]*//' | sort | uniq -c
tar -C $OUT -czf $OUT/all.tgz logs status.txt && rm -rf $OUT/logs
