# GPU call 2 (2026-11-29): the two programs of the suite that call 1's 300 s did not let finish.
B=build-gpu
export XDG_CACHE_HOME=/tmp/cache
GPU_SUITE_JOBS=2 GPU_SUITE_LOGS=$OUT/suite timeout 500 bash tests/gpu-suite.sh $B reliability cuda \
  > $OUT/suite2.txt 2>&1
echo "suite status $?" >> $OUT/suite2.txt
cd $OUT && tar czf ../all.tgz . && rm -rf ./* && mv ../all.tgz .
