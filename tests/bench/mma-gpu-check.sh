#!/usr/bin/env bash
# gst-opencl: one command that checks the tensor-core (mma) convolution variants on an NVIDIA GPU
# and measures them: (a) the mma tests of test_convolution_layer and test_multiconvolve on the
# GPU (each kernel case says "tensor cores" or "emulated"), (b) bench_convolve on 256^3 uint8
# with N = 1, 8 and 32 filters of 7^3, every candidate (FP32 and mma) forced in turn, median
# kernel ms, (c) the NVIDIA compiler's report (-cl-nv-verbose: registers, spills, shared memory)
# and the theoretical occupancy of every candidate, and (d) with the time left, both test
# programs in full. Everything it prints lands in OUT_DIR (summary.txt and one file per step).
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# usage: tests/bench/mma-gpu-check.sh BUILD_DIR OUT_DIR
#   BUILD_DIR holds gst/libgstopencl.so, tests/test_* and tests/bench/bench_convolve (a build
#   folder here, or what tests/bench/pack-gpu.sh packs). Needs no compiler and no network.
#   Runs in about 2 to 3 minutes on an H100; each step has its own time limit.
#   MMA_CHECK_DEVICE (default gpu) and MMA_CHECK_VOLUME (default 256) change the benchmark's
#   device and volume side (a quick run of the script itself on a CPU).
set -uo pipefail
[ $# = 2 ] || { sed -n '11,16p' "$0"; exit 2; }
device=${MMA_CHECK_DEVICE:-gpu}
volume=${MMA_CHECK_VOLUME:-256}
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "$1" && pwd)
mkdir -p "$2"
out=$(cd "$2" && pwd)
summary=$out/summary.txt
: >"$summary"
say() { echo "$*" | tee -a "$summary"; }

export GST_PLUGIN_PATH=$build/gst GST_REGISTRY=${TMPDIR:-/tmp}/gst-opencl-mma-registry.bin
export GST_DEBUG=${GST_DEBUG:-*:1}
say "mma-gpu-check: $(date -u +%FT%TZ) on $(hostname), load $(cut -d' ' -f1-3 /proc/loadavg)"
if command -v nvidia-smi >/dev/null; then
  say "$(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader)"
fi

# (a) The mma tests on the GPU, through the GPU suite's runner: test_convolution_layer's
# test_mma_strings (grammar, candidates) and test_mma_kernel (the kernel against the float64
# reference, N = 1 to 32, k = 3 to 7, each case saying "tensor cores" or "emulated"), and
# test_multiconvolve's test_mma_variants (the element with mma variants forced).
say ""
say "== (a) mma tests on the GPU"
GST_CHECKS=test_mma_strings,test_mma_kernel,test_mma_variants GPU_SUITE_LOGS=$out/tests \
  timeout 90 bash "$here/../gpu-suite.sh" "$build" convolution_layer multiconvolve 2>&1 |
  tee -a "$summary"
grep -h "^mma " "$out"/tests/*.log 2>/dev/null | tee -a "$summary"

# (b) Kernel times: each case tuned (every candidate timed, median of 3), then every mma
# candidate and the fastest FP32 one forced over 4 volumes after 1 of warm-up (the responses'
# read-back, 2.1 GB a volume for N = 32, takes most of the time). GStreamer's own messages off.
say ""
say "== (b) bench_convolve, ${volume}^3 uint8, 7^3 filters: tuned, then mma candidates and the fastest FP32 forced (median kernel ms)"
GST_DEBUG='*:0' timeout 150 "$build/tests/bench/bench_convolve" --device "$device" --no-video \
  --filters 1,8,32 --kernel-size 7 --volume "$volume" --reps 4 --warmup 1 --each-mma-variant \
  --timeout 60 --json "$out/bench-convolve.json" >"$out/bench-convolve.txt" 2>&1
echo "bench_convolve exit status $?" >>"$out/bench-convolve.txt"
# Each case as it ended (kept when a time limit cuts the run), then the tuners' timings.
grep -E "^[0-9]+\^3 uint8.*kernel median|FAILED|exit status" "$out/bench-convolve.txt" |
  sed 's/ on NVIDIA.*//' | tee -a "$summary"
grep -E "variant .*\(timed\)" "$out/bench-convolve.txt" | tee -a "$summary"

# (c) The compiler's report of every candidate.
say ""
say "== (c) NVIDIA build logs (-cl-nv-verbose) and theoretical occupancy per candidate"
timeout 60 "$build/tests/bench/bench_convolve" --compiler-report --device "$device" \
  --filters 1,8,32 --kernel-size 7 >"$out/compiler-report.txt" 2>&1
echo "compiler report exit status $?" >>"$out/compiler-report.txt"
grep -E "^== |^device|Used [0-9]+ registers|spill|occupancy|kernel: |FAILED|error" \
  "$out/compiler-report.txt" | tee -a "$summary"
# (d) With the time left (the whole run stays under 4 minutes): both test programs in full, every
# candidate of the GPU (mma included) against the reference.
if [ "$SECONDS" -lt 170 ]; then
  say ""
  say "== (d) test_convolution_layer and test_multiconvolve in full"
  GPU_SUITE_LOGS=$out/tests-full timeout $((230 - SECONDS)) bash "$here/../gpu-suite.sh" \
    "$build" convolution_layer multiconvolve 2>&1 | tee -a "$summary"
else
  say "(d) skipped: ${SECONDS} s gone"
fi
say ""
say "took ${SECONDS} s; full outputs: $out (summary.txt, tests/*.log, bench-convolve.txt/.json, compiler-report.txt)"
