# Call 2: the five checks call 1 stopped at 200 s, all at once (five programs, not ten), with
# the host time of the OpenCL calls counted (cl_call_times.so) and the stacks of every test
# process taken at 100 and 200 s, to tell a slow check from one that waits.
source tests/bench/results/gpu-checks-49/common.sh
for pc in histogram:test_variant reliability:test_caps_changes_mid_stream \
    reliability:test_truncated_buffers reliability:test_bad_property_values \
    cuda:test_cuda_frames_match_system_memory; do
  ( p=${pc%%:*} c=${pc#*:} start=$SECONDS
    GST_CHECKS=$c LD_PRELOAD=$PWD/$B/tests/bench/cl_call_times.so timeout 290 $B/tests/test_$p \
      > $OUT/logs/$p.$c.log 2>&1
    echo "$pc status $? $((SECONDS - start)) s $(grep Checks $OUT/logs/$p.$c.log)" >> $OUT/status.txt ) &
done
for at in 100 200; do
  sleep 100
  for pid in $(pgrep -f "$B/tests/test_"); do
    echo "== $at s pid $pid $(tr '\0' ' ' < /proc/$pid/cmdline) $(grep -a GST_CHECKS /proc/$pid/environ | tr '\0' '\n' | grep ^GST_CHECKS)"
    $B/tools/eu-stack -p $pid 2>&1 | head -n 120
  done > $OUT/logs/stacks-$at.txt
done
wait
cat $OUT/status.txt
for f in $OUT/logs/*.log; do echo "== $f"; grep cl_call_times $f | sort -k4 -n -r | head -n 8; done
tar -C $OUT -czf $OUT/all.tgz logs status.txt && rm -rf $OUT/logs
