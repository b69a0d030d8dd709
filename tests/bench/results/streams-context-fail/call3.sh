# GPU call 3 (2026-11-29, nvidia-h200): call 2 again, keeping the first 120 warnings and errors in
# time order (call 2 kept 30, counted). Call 2: call 1's runs again, with what the OpenCL driver reports
# of a context (pfn_notify, logged as a WARNING), GStreamer's CUDA and NVCODEC warnings, and
# each program's open file descriptors, threads and GPU memory sampled every second.
B=build-gpu
export GST_PLUGIN_PATH=$PWD/$B/gst GST_REGISTRY=/tmp/reg.bin XDG_CACHE_HOME=/tmp/cache
gst-inspect-1.0 opencl >/dev/null 2>&1
for t in 1 2 3; do
  GST_DEBUG="opencl:4,*cuda*:4,nv*:3" GST_DEBUG_FILE=/tmp/dbg$t.txt timeout 280 $B/tests/bench/bench_streams --device gpu \
    --clip $B/clips/clip-1080p.h264 --loops 1 --streams 1,8 --runs 2 --modes shared,separate \
    --share-cuda --cases baseline,histogram,bilateral --watchdog 45 --stacks-tool $B/tools/eu-stack \
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
  grep -E "WARN|ERROR" /tmp/dbg$t.txt | grep -v XDG | sed 's/\x1b\[[0-9;]*m//g' | cut -c1-400 | head -120 > $OUT/t$t-warnings.txt
  n=$(sed 's/\x1b\[[0-9;]*m//g' /tmp/dbg$t.txt | grep -v XDG | grep -n -m1 -E " (WARN|ERROR) " | cut -d: -f1)
  [ -n "$n" ] && sed 's/\x1b\[[0-9;]*m//g' /tmp/dbg$t.txt | grep -v XDG | sed -n "$((n > 150 ? n - 150 : 1)),$((n + 10))p" | cut -c1-300 > $OUT/t$t-before-first-warning.txt
  grep -q FAILED $OUT/t$t-log.txt && break
done
cat $OUT/status.txt
