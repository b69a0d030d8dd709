# What calls 2 to 4 run (the runs recorded had these lines written out in each call's script):
# up to 3 programs of the N = 1 and 8 runs with both contexts shared or the CUDA one only,
# stopping at the first with a failed row; each program's open file descriptors, threads and
# GPU memory sampled every second; its warnings kept as WARNINGS says.
#   DEBUG     GST_DEBUG of the programs
#   EXTRA     more bench_streams options
#   WARNINGS  counted: the 30 most frequent; first: the first 120 in time order, and the 150
#             log lines before the first one
B=build-gpu
export GST_PLUGIN_PATH=$PWD/$B/gst GST_REGISTRY=/tmp/reg.bin XDG_CACHE_HOME=/tmp/cache
gst-inspect-1.0 opencl >/dev/null 2>&1
plain () { sed 's/\x1b\[[0-9;]*m//g' "$1" | grep -v XDG; }
for t in 1 2 3; do
  GST_DEBUG="$DEBUG" GST_DEBUG_FILE=/tmp/dbg$t.txt timeout 280 $B/tests/bench/bench_streams --device gpu \
    --clip $B/clips/clip-1080p.h264 --loops 1 --streams 1,8 --runs 2 --modes shared,separate \
    --share-cuda $EXTRA --cases baseline,histogram,bilateral --watchdog 45 --stacks-tool $B/tools/eu-stack \
    --json $OUT/t$t.json > $OUT/t$t-log.txt 2>&1 &
  sleep 1
  while p=$(pgrep -x bench_streams | head -1); [ -n "$p" ]; do
    echo "$(date +%s) fds $(ls /proc/$p/fd 2>/dev/null | wc -l) threads $(ls /proc/$p/task 2>/dev/null | wc -l) gpu-mib $(nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader,nounits | awk -F, -v p=$p '$1==p{print $2}')" >> $OUT/t$t-samples.txt
    sleep 1
  done
  wait; echo "try $t" >> $OUT/status.txt
  echo "contexts created $(grep -c 'created OpenCL context' /tmp/dbg$t.txt)" >> $OUT/status.txt
  grep -v XDG $OUT/t$t-log.txt | grep -E "^ +[0-9]|WATCHDOG|teardown|FAILED" | head -20 >> $OUT/status.txt
  sort -k3 -n $OUT/t$t-samples.txt | tail -1 >> $OUT/status.txt
  sort -k7 -n $OUT/t$t-samples.txt | tail -1 >> $OUT/status.txt
  if [ "$WARNINGS" = first ]; then
    plain /tmp/dbg$t.txt | grep -E "WARN|ERROR" | cut -c1-400 | head -120 > $OUT/t$t-warnings.txt
    n=$(plain /tmp/dbg$t.txt | grep -n -m1 -E " (WARN|ERROR) " | cut -d: -f1)
    [ -n "$n" ] && plain /tmp/dbg$t.txt | sed -n "$((n > 150 ? n - 150 : 1)),$((n + 10))p" | cut -c1-300 > $OUT/t$t-before-first-warning.txt
  else
    plain /tmp/dbg$t.txt | grep -E "WARN|ERROR" | cut -c1-400 | sort | uniq -c | sort -rn | head -30 > $OUT/t$t-warnings.txt
  fi
  grep -q FAILED $OUT/t$t-log.txt && break
done
cat $OUT/status.txt
