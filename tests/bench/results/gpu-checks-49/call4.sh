# Call 4 (call 5 runs it again with other limits): contexts kept for reuse
# (GST_OPENCL_CONTEXT_LINGER). One check alone, its OpenCL calls' host time counted, with
# contexts released at once (0) and kept (the default); then call 1's split suite again on the
# tree that keeps them.
source tests/bench/results/gpu-checks-49/common.sh
for linger in 0 5; do
  start=$SECONDS
  GST_OPENCL_CONTEXT_LINGER=$linger GST_CHECKS=test_truncated_buffers \
    LD_PRELOAD=$PWD/$B/tests/bench/cl_call_times.so timeout ${ALONE_LIMIT:-150} \
    $B/tests/test_reliability \
    > $OUT/logs/alone-linger-$linger.log 2>&1
  echo "linger $linger status $? $((SECONDS - start)) s $(grep Checks $OUT/logs/alone-linger-$linger.log)" >> $OUT/status.txt
  grep -E "clCreateContext|clReleaseContext|clBuildProgram" $OUT/logs/alone-linger-$linger.log >> $OUT/status.txt
done
cat $OUT/status.txt
start=$SECONDS
GPU_SUITE_SPLIT=1 GPU_SUITE_JOBS=10 GPU_SUITE_TIMEOUT=${CHECK_LIMIT:-200} \
  GPU_SUITE_LOGS=$OUT/logs/suite timeout ${SUITE_LIMIT:-300} bash tests/gpu-suite.sh $B \
  ${PROGRAMS:-histogram reliability cuda multiconvolve gl_interop gl} \
  > $OUT/suite.txt 2>&1
echo "suite status $? $((SECONDS - start)) s" >> $OUT/suite.txt
tail -n 2 $OUT/suite.txt; grep -E "^FAIL" -A3 $OUT/suite.txt | head -30
tar -C $OUT -czf $OUT/all.tgz logs suite.txt status.txt && rm -rf $OUT/logs
