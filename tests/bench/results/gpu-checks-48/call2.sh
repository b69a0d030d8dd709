# Call 2: the suite programs call 1's 520 s cut before they ended, five at a time.
B=build-gpu
export GST_PLUGIN_PATH=$PWD/$B/gst GST_REGISTRY=/tmp/reg.bin XDG_CACHE_HOME=/tmp/cache
export GST_GL_PLATFORM=egl GST_GL_WINDOW=egl-device
mkdir -p $OUT/logs
GPU_SUITE_JOBS=5 GPU_SUITE_LOGS=$OUT/logs timeout 540 bash tests/gpu-suite.sh $B bilateral \
  histogram reliability cuda convertscale multiconvolve gl_interop > $OUT/suite.txt 2>&1
echo "suite status $?" >> $OUT/suite.txt
cat $OUT/suite.txt
tar -C $OUT -czf $OUT/all.tgz logs suite.txt && rm -rf $OUT/logs
