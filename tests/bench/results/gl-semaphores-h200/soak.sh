# GPU call 8 (2026-11-29): the GL soak with semaphores (the external-memory path's default):
# 50 runs each of gl-chain, gl-sink, gl-upload and gl-decoder under the soak's watchdog.
B=build-gpu
export GST_GL_PLATFORM=egl GST_GL_WINDOW=egl-device XDG_CACHE_HOME=/tmp/cache
SOAK_RUNS=50 SOAK_LOGS=$OUT/soak timeout 560 bash tests/gl-soak.sh $B gl-chain gl-sink gl-upload gl-decoder > $OUT/soak.txt 2>&1
echo "soak status $?" >> $OUT/soak.txt
cd $OUT && tar czf ../all.tgz . && rm -rf ./* && mv ../all.tgz .
