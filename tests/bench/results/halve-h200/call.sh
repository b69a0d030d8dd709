# GPU call (2026-11-29): the halving kernel. bench_convertscale's rgba-scale case (RGBA
# 3840x2160 -> 1920x1080 bilinear) with the fast kernels (the halving one) and with
# GST_OPENCL_CONVERT_FAST=0 (the general kernel), alternating, two rounds each, beside the copy
# ceiling of the same call; no CPU or OpenCV peers (measured before, gpu-h200-convert3/).
B=build-gpu
export GST_PLUGIN_PATH=$PWD/$B/gst GST_REGISTRY=/tmp/reg.bin XDG_CACHE_HOME=/tmp/cache
$B/tests/bench/bench_ceilings --device gpu --runs 30 --json $OUT/ceilings.json > $OUT/ceilings.txt 2>&1
for round in 1 2; do
  for fast in 1 0; do
    GST_OPENCL_CONVERT_FAST=$fast timeout 60 $B/tests/bench/bench_convertscale --device gpu \
      --cases rgba-scale --sizes 3840x2160 --frames 200 --warmup 10 --no-cpu-peer --opencv none \
      --ceilings $OUT/ceilings.json --json $OUT/fast$fast-$round.json > $OUT/fast$fast-$round.txt 2>&1
    echo "status $?" >> $OUT/fast$fast-$round.txt
  done
done
cd $OUT && tar czf ../all.tgz . && rm -rf ./* && mv ../all.tgz .
