# GPU call (2026-11-29, nvidia-h200): the N = 1 and 8 decoder runs with both contexts shared or
# the CUDA one only, as in the run where clCreateContext failed with CL_OUT_OF_RESOURCES and
# the one where freeing 8 pipelines hung; up to 3 tries, each program's open file descriptors
# and threads sampled every second, contexts created counted from the opencl log.
B=build-gpu
export GST_PLUGIN_PATH=$PWD/$B/gst GST_REGISTRY=/tmp/reg.bin XDG_CACHE_HOME=/tmp/cache
gst-inspect-1.0 opencl >/dev/null 2>&1
ulimit -n > $OUT/ulimit.txt
for t in 1 2 3; do
  GST_DEBUG=opencl:4 GST_DEBUG_FILE=/tmp/dbg$t.txt timeout 280 $B/tests/bench/bench_streams --device gpu \
    --clip $B/clips/clip-1080p.h264 --loops 1 --streams 1,8 --runs 2 --modes shared,separate \
    --share-cuda --cases baseline,histogram,bilateral --watchdog 45 --stacks-tool $B/tools/eu-stack \
    --json $OUT/t$t.json > $OUT/t$t-log.txt 2>&1 &
  pid=$!
  while kill -0 $pid 2>/dev/null; do
    p=$(pgrep -f "bench_streams --device" | head -1)
    [ -n "$p" ] && echo "$(date +%s) fds $(ls /proc/$p/fd 2>/dev/null | wc -l) threads $(ls /proc/$p/task 2>/dev/null | wc -l)" >> $OUT/t$t-fds.txt
    sleep 1
  done
  wait $pid; echo "try $t status $?" | tee -a $OUT/status.txt
  echo "contexts created $(grep -c 'created OpenCL context' /tmp/dbg$t.txt)" >> $OUT/status.txt
  grep -v XDG $OUT/t$t-log.txt | grep -E "^ +[0-9]|WATCHDOG|teardown|FAILED" | head -20
  sort -k3 -n $OUT/t$t-fds.txt | tail -1 >> $OUT/status.txt
done
cat $OUT/status.txt
