# Session 44 GPU call 2: convertscale's unscaled test cold and warm (program builds), histogram
# in full, the GL soak briefly.
B=build-gpu
export GST_PLUGIN_PATH=$PWD/$B/gst GST_REGISTRY=/tmp/reg.bin CK_DEFAULT_TIMEOUT=600 GST_OPENCL_TUNING=0
export GST_GL_PLATFORM=egl GST_GL_WINDOW=egl-device
export XDG_CACHE_HOME=/tmp/cache2
gst-inspect-1.0 opencl > /dev/null 2>&1
( for pass in cold warm; do s=$(date +%s); GST_CHECKS=test_unscaled_kernel timeout 280 $B/tests/test_convertscale > /tmp/u.log 2>&1; st=$?
  echo "$pass: status $st $(( $(date +%s) - s )) s, programs cached $(ls $XDG_CACHE_HOME/gst-opencl/programs 2>/dev/null | wc -l) $(grep -E '^[0-9]+%: Checks' /tmp/u.log)"; done > $OUT/unscaled.txt 2>&1 ) &
( s=$(date +%s); XDG_CACHE_HOME=/tmp/cache3 timeout 500 $B/tests/test_histogram > /tmp/h.log 2>&1; echo "status $? $(( $(date +%s) - s )) s" >> /tmp/h.log; grep -aE ':[FE]:|Checks|status|ran in' /tmp/h.log > $OUT/histogram.txt ) &
( XDG_CACHE_HOME=/tmp/cache4 SOAK_RUNS=8 SOAK_LOGS=/tmp/soak timeout 500 bash tests/gl-soak.sh $B > $OUT/gl-soak.txt 2>&1; echo "status $?" >> $OUT/gl-soak.txt ) &
wait
