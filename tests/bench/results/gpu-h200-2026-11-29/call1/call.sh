# Session 44 GPU call 1: bilateral's radius-32 RGBA64 failure and convertscale's time, per test.
B=build-gpu
export GST_PLUGIN_PATH=$PWD/$B/gst GST_REGISTRY=/tmp/reg.bin CK_DEFAULT_TIMEOUT=600 GST_OPENCL_TUNING=0
export GST_GL_PLATFORM=egl GST_GL_WINDOW=egl-device
gst-inspect-1.0 opencl > /dev/null 2>&1
mkdir -p $OUT/cs $OUT/bil
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/gpu.txt 2>&1
# 1. the failing case alone, with the layer's log
( s=$(date +%s); GST_CHECKS=test_yuv_and_16_bit_radius_and_sigmas GST_DEBUG='*:2,opencl*:4' timeout 400 $B/tests/test_bilateral 2>&1 | grep -aE 'ERROR|WARN|building|:[FE]:|Checks|radius' | cut -c1-400 | tail -600 > $OUT/bil/case.log; echo "status ${PIPESTATUS[0]} $(( $(date +%s) - s )) s" >> $OUT/bil/case.log ) &
# 2. the same by gst-launch, one frame
( for r in 32 16 8; do echo "== radius $r"; GST_DEBUG='*:2' timeout 120 gst-launch-1.0 -m videotestsrc num-buffers=2 pattern=ball ! video/x-raw,format=RGBA64_LE,width=37,height=21 ! openclbilateral radius=$r sigma-range=5000 sigma-spatial=20 ! fakesink 2>&1 | grep -v "^Got message #[0-9]* from \(pipeline\|element\).*state-changed\|stream-status\|new-clock\|latency\|async-done" | tail -15; done > $OUT/bil/launch.log 2>&1 ) &
# 3. the whole bilateral test once more
( s=$(date +%s); timeout 560 $B/tests/test_bilateral > $OUT/bil/full.log 2>&1; echo "status $? $(( $(date +%s) - s )) s" >> $OUT/bil/full.log ) &
# 4. convertscale: every test on its own, four at a time, timed, the program builds counted
cs_one () {
  local t=$1 s=$(date +%s)
  GST_CHECKS=$t GST_DEBUG='*:1,opencl:4' timeout 300 $B/tests/test_convertscale > $OUT/cs/$t.full 2>&1
  local st=$?
  echo "$t status $st $(( $(date +%s) - s )) s builds $(grep -c 'building program' $OUT/cs/$t.full) $(grep -E '^[0-9]+%: Checks' $OUT/cs/$t.full)" >> $OUT/cs/summary.txt
  grep -E ':[FE]:|building program' $OUT/cs/$t.full | cut -c1-300 | head -400 > $OUT/cs/$t.log; rm -f $OUT/cs/$t.full
}
( n=0; for t in test_every_format_pair test_scaling test_lanczos test_against_videoconvertscale test_padded_rows test_matrices_and_ranges test_chroma_sites test_crop_meta test_crop_per_frame test_crop_meta_offered test_passthrough test_round_trip test_opencl_memory test_unscaled_kernel test_work_groups; do
    cs_one $t & n=$((n+1)); [ $n -ge 4 ] && { wait -n; n=$((n-1)); }; done; wait ) &
wait
cd $OUT && tar czf cs.tgz cs && rm -rf cs
