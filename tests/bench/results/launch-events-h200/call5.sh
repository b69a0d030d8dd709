# GPU call 5 (2026-11-29): programs call 4's 540 s did not reach or let finish, as far as the
# session's device time allowed.
B=build-gpu
export XDG_CACHE_HOME=/tmp/cache
GPU_SUITE_JOBS=3 GPU_SUITE_LOGS=$OUT/suite5 timeout 230 bash tests/gpu-suite.sh $B src_formats \
  kernel_planes convertscale > $OUT/suite5.txt 2>&1
echo "suite status $?" >> $OUT/suite5.txt
cd $OUT && tar czf ../all.tgz . && rm -rf ./* && mv ../all.tgz .
