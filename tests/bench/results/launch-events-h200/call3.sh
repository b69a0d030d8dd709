# GPU call 3 (2026-11-29): the GL programs on the tree where devices follow the GL context (an
# extra GL probe per caps; on one GPU, GL's and OpenCL's default device are the same).
B=build-gpu
export GST_GL_PLATFORM=egl GST_GL_WINDOW=egl-device XDG_CACHE_HOME=/tmp/cache
GPU_SUITE_JOBS=2 GPU_SUITE_LOGS=$OUT/suite3 timeout 400 bash tests/gpu-suite.sh $B gl_interop gl \
  > $OUT/suite3.txt 2>&1
echo "suite status $?" >> $OUT/suite3.txt
grep -h "GL context's GPU UUID" $OUT/suite3/*.log | sort | uniq -c > $OUT/gl-uuid.txt
cd $OUT && tar czf ../all.tgz . && rm -rf ./* && mv ../all.tgz .
