#!/usr/bin/env bash
# gst-opencl: one GPU-machine session: every element benchmark with its peer, then the pipelines.
# SPDX-License-Identifier: LGPL-2.1-or-later
# Run there from the project root, with carry [".device", "build-gpu"]: build-gpu holds
# gst/libgstopencl.so, tests/bench/bench_* and libgomp.so.1 from a bench build (see README.md).
source .device/env.sh
source tests/bench/lib.sh
bench_use_plugin "$PWD/build-gpu"
export PYTHONUNBUFFERED=1
export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$PWD/build-gpu
B=build-gpu
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/gpu.txt 2>&1
python3 -c 'import torch, cv2; print(torch.__version__, cv2.__version__)' >> $OUT/gpu.txt 2>&1
{
echo "== bilateral"; timeout 120 bash tests/bench/run-bilateral.sh --no-build --build $B --peer opencl --peer-runs 300 --out $OUT/bilateral.json -- --device gpu --frames 200 --warmup 10
echo "== histogram"; timeout 120 bash tests/bench/run-histogram.sh --no-build --build $B --peer-runs 200 --out $OUT/histogram.json -- --device gpu --frames 200 --warmup 10
echo "== mandelbox"; timeout 150 $B/tests/bench/bench_mandelbox --device gpu --sizes 640x360,1920x1080,3840x2160 --frames 100 --warmup 5 --threads 16 --openmp-runs 3 --json $OUT/mandelbox.json
echo "== pipelines"; timeout 120 bash tests/bench/run-pipelines.sh --build $B --device gpu --frames 200 --runs 3 --out $OUT/pipelines.json
echo "== sort"; timeout 170 bash tests/bench/run-sort.sh --no-build --build $B --sizes 20,21,22,23,24,25,26 --peer-runs 50 --out $OUT/sort.json -- --device gpu --runs 20 --warmup 3 --cpu-runs 1 --article --article-runs 2
} > $OUT/log.txt 2>&1
tail -c 6000 $OUT/log.txt
