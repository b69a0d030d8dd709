# Session 44 GPU call 3: the whole convertscale program with the tests' shared contexts, on a
# cold program cache, alone; then test_unscaled_kernel again on the warm cache.
B=build-gpu
export GST_PLUGIN_PATH=$PWD/$B/gst GST_REGISTRY=/tmp/reg.bin CK_DEFAULT_TIMEOUT=600 GST_OPENCL_TUNING=0
export XDG_CACHE_HOME=/tmp/cache5
gst-inspect-1.0 opencl > /dev/null 2>&1
s=$(date +%s); timeout 450 $B/tests/test_convertscale > /tmp/c.log 2>&1; st=$?
echo "full, cold cache: status $st $(( $(date +%s) - s )) s; $(grep -aE '^[0-9]+%: Checks' /tmp/c.log)" > $OUT/convertscale.txt
grep -aE ':[FE]:' /tmp/c.log | head -20 >> $OUT/convertscale.txt
s=$(date +%s); GST_CHECKS=test_unscaled_kernel timeout 100 $B/tests/test_convertscale > /tmp/u.log 2>&1; st=$?
echo "test_unscaled_kernel, warm cache: status $st $(( $(date +%s) - s )) s; $(grep -aE '^[0-9]+%: Checks' /tmp/u.log)" >> $OUT/convertscale.txt
