# Call 1: the suite programs the last session's calls cut, each check a program of its own
# (GPU_SUITE_SPLIT=1), 10 at a time, each stopped after 200 s, with each check's wall time.
B=build-gpu
export GST_GL_PLATFORM=egl GST_GL_WINDOW=egl-device XDG_CACHE_HOME=/tmp/cache
mkdir -p $OUT/logs
GPU_SUITE_SPLIT=1 GPU_SUITE_JOBS=10 GPU_SUITE_TIMEOUT=200 GPU_SUITE_LOGS=$OUT/logs \
  timeout 540 bash tests/gpu-suite.sh $B histogram reliability cuda multiconvolve gl_interop gl \
  > $OUT/suite.txt 2>&1
echo "suite status $?" >> $OUT/suite.txt
tail -n 3 $OUT/suite.txt; grep -E "^FAIL" -A3 $OUT/suite.txt | head -40
tar -C $OUT -czf $OUT/all.tgz logs suite.txt && rm -rf $OUT/logs
