# GPU call 4 (2026-11-29): the whole of tests/gpu-suite.sh on the session's final tree (e413602),
# eight programs at a time, the GL soak with 8 runs a case.
B=build-gpu
export GST_GL_PLATFORM=egl GST_GL_WINDOW=egl-device XDG_CACHE_HOME=/tmp/cache SOAK_RUNS=8
GPU_SUITE_JOBS=8 GPU_SUITE_LOGS=$OUT/suite4 timeout 540 bash tests/gpu-suite.sh $B > $OUT/suite4.txt 2>&1
echo "suite status $?" >> $OUT/suite4.txt
cd $OUT && tar czf ../all.tgz . && rm -rf ./* && mv ../all.tgz .
