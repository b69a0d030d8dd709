#!/usr/bin/env bash
# gst-opencl: runs the test programs on a machine without meson or Xvfb (the GPU machine), on
# its default OpenCL device (the first GPU), and ends with "N passed, N failed".
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# usage: tests/gpu-suite.sh BUILD_DIR [test ...]
#   BUILD_DIR holds gst/libgstopencl.so and tests/test_* (copied from a build here; see
#   docs/testing.md). The GL test and the pipeline scripts need a display and are not run.
set -uo pipefail
build=$(cd "${1:?usage: gpu-suite.sh BUILD_DIR [test ...]}" && pwd)
shift
tests=("$@")
[ ${#tests[@]} -gt 0 ] || tests=(layer context errors no_platform memory bilateral histogram
  sort sort_layer convolution_layer convolve3d multiconvolve mandelbox)
export GST_PLUGIN_PATH=$build/gst GST_REGISTRY=${TMPDIR:-/tmp}/gst-opencl-gpu-registry.bin
export CK_DEFAULT_TIMEOUT=600 GST_DEBUG=${GST_DEBUG:-*:1}
# Kernel variants: each family's default for the device, as in meson test (no timing, no cache).
export GST_OPENCL_TUNING=0
passed=0
failed=0
skipped=0
for name in "${tests[@]}"; do
  log=$(mktemp)
  timeout 600 "$build/tests/test_$name" >"$log" 2>&1
  status=$?
  summary=$(grep -E "^[0-9]+%: Checks" "$log" | tail -n 1)
  if [ "$status" -eq 77 ]; then
    echo "SKIP  $name: $(tail -n 1 "$log")"
    skipped=$((skipped + 1))
  elif [ "$status" -eq 0 ]; then
    echo "ok    $name: $summary"
    passed=$((passed + 1))
  else
    echo "FAIL  $name (status $status): $summary"
    grep -E ":[FE]:|pure virtual|terminate" "$log" | head -n 10 | sed 's/^/      | /'
    failed=$((failed + 1))
  fi
  rm -f "$log"
done
echo "$passed passed, $failed failed ($skipped skipped)"
[ "$failed" -eq 0 ]
