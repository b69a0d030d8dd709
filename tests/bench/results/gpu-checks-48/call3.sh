# Call 3: test_bilateral, each check in a process of its own (all at once, 280 s each), to see
# which checks end and which do not; then call 7 of streams-context-fail's first part (eight
# decoders alone, a bare OpenCL context made after each run).
B=build-gpu
export GST_PLUGIN_PATH=$PWD/$B/gst GST_REGISTRY=/tmp/reg.bin XDG_CACHE_HOME=/tmp/cache
export GST_OPENCL_TUNING=0 CK_DEFAULT_TIMEOUT=600 GST_DEBUG=*:1 OMP_NUM_THREADS=2
mkdir -p $OUT/logs
gst-inspect-1.0 opencl >/dev/null 2>&1
for t in $(grep -o 'GST_START_TEST (test_[a-z0-9_]*' tests/test_bilateral.cpp | cut -d'(' -f2); do
  ( start=$(date +%s.%N)
    GST_CHECKS=$t timeout -s ABRT 280 $B/tests/test_bilateral > $OUT/logs/$t.log 2>&1
    s=$?; echo "$t status $s $(echo "$(date +%s.%N) - $start" | bc) s $(grep Checks $OUT/logs/$t.log)" >> $OUT/bilateral.txt
  ) &
done
wait
sort -k3 $OUT/bilateral.txt
B=$B timeout 200 bash -c '
streams () { local name=$1; shift
  timeout 190 $B/tests/bench/bench_streams --device gpu --clip $B/clips/clip-1080p.h264 --loops 1 \
    --share-cuda --probe-context --watchdog 45 --stacks-tool $B/tools/eu-stack \
    --json $OUT/$name.json "$@" > $OUT/logs/$name-log.txt 2>&1
  echo "$name status $? failed rows $(grep -c FAILED $OUT/logs/$name-log.txt)" \
    "bare contexts refused $(grep PROBE $OUT/logs/$name-log.txt | grep -vc "was made")" >> $OUT/status.txt; }
streams decoders --streams 1,8 --runs 4 --cases baseline --modes shared'
cat $OUT/status.txt; grep PROBE $OUT/logs/decoders-log.txt | head
tar -C $OUT -czf $OUT/all.tgz logs bilateral.txt status.txt && rm -rf $OUT/logs
