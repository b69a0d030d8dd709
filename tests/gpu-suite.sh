#!/usr/bin/env bash
# gst-opencl: runs the test programs on a machine without meson or Xvfb (the GPU machine), on
# its default OpenCL device (the first GPU), and ends with "N passed, N failed".
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# usage: tests/gpu-suite.sh BUILD_DIR [test ...]
#   BUILD_DIR holds gst/libgstopencl.so and tests/test_* (copied from a build here; see
#   docs/testing.md). The GL tests need a display: on the GPU machine set
#   GST_GL_PLATFORM=egl GST_GL_WINDOW=egl-device (a headless EGL display); without a display
#   they skip. `gl_soak` is tests/gl-soak.sh (every GL path SOAK_RUNS times, 50 by default,
#   under a watchdog), counted as one test. The pipeline scripts need gst-launch-1.0's plugins and are not run.
#   GPU_SUITE_JOBS=N runs N test programs at once (default 1);
#   GPU_SUITE_SPLIT=1 runs each check (GST_START_TEST in tests/test_NAME.cpp) as a program of its
#   own, counted and logged as NAME:check: a long program then ends within a call's limit when
#   jobs run at once, and a check that does not end is named;
#   GPU_SUITE_TIMEOUT=S stops a program after S seconds (default 600; status 124 is a failure);
#   each line gives the program's wall time;
#   GPU_SUITE_LOGS=DIR keeps each program's whole output as DIR/NAME.log.
#   The H.264 clips of the CUDA test are taken from BUILD_DIR/clips (tests/bench/pack-gpu.sh puts
#   them there) unless GST_OPENCL_TEST_CLIPS names another folder.
set -uo pipefail
build=$(cd "${1:?usage: gpu-suite.sh BUILD_DIR [test ...]}" && pwd)
shift
tests=("$@")
[ ${#tests[@]} -gt 0 ] || tests=(layer hostile context exit errors no_platform memory bilateral
  histogram sort sort_layer convolution_layer convolve3d multiconvolve mandelbox reliability gl
  gl_interop frame_path media kernel new_element cuda concurrent_start inflight endless_kernel
  property_fuzz meta convertscale convertscale_tensor src_formats kernel_planes
  gl_soak)
export GST_OPENCL_TEST_CLIPS=${GST_OPENCL_TEST_CLIPS:-$build/clips}
export GST_PLUGIN_PATH=$build/gst GST_REGISTRY=${TMPDIR:-/tmp}/gst-opencl-gpu-registry.bin
export CK_DEFAULT_TIMEOUT=600 GST_DEBUG=${GST_DEBUG:-*:1}
# Kernel variants: each family's default for the device, as in meson test (no timing, no cache).
export GST_OPENCL_TUNING=0
jobs=${GPU_SUITE_JOBS:-1}
limit=${GPU_SUITE_TIMEOUT:-600}
logs=${GPU_SUITE_LOGS:-$(mktemp -d)}
mkdir -p "$logs"
# Build the registry once, before programs start at the same time.
gst-inspect-1.0 opencl >/dev/null 2>&1 || true

run_one() {
  local name=$1 log=$logs/$1.log status summary
  if [ "$name" = gl_soak ]; then
    # tests/gl-soak.sh: every GL path SOAK_RUNS (50) times under a watchdog; it needs a display.
    if [ -z "${GST_GL_PLATFORM:-}${DISPLAY:-}" ]; then
      echo "SKIP  gl_soak: no display (set GST_GL_PLATFORM=egl GST_GL_WINDOW=egl-device)"
      return
    fi
    SOAK_LOGS=$logs/gl-soak timeout 3000 bash "$(dirname "$0")/gl-soak.sh" "$build" >"$log" 2>&1
    status=$?
    summary=$(tail -n 1 "$log")
    if [ "$status" -eq 0 ]; then echo "ok    gl_soak: $summary"; else
      echo "FAIL  gl_soak (status $status): $summary"
      grep -E "^(FAIL|HANG)" "$log" | head -n 10 | sed 's/^/      | /'
    fi
    return
  fi
  local program=${name%%:*} check=
  [ "$program" = "$name" ] || check=${name#*:}
  log=$logs/${name/:/.}.log
  local start=$SECONDS
  env ${check:+GST_CHECKS=$check} timeout "$limit" "$build/tests/test_$program" >"$log" 2>&1
  status=$?
  summary="$(grep -E "^[0-9]+%: Checks" "$log" | tail -n 1) ($((SECONDS - start)) s)"
  if [ "$status" -eq 77 ]; then
    echo "SKIP  $name: $(tail -n 1 "$log")"
  elif [ "$status" -eq 0 ]; then
    echo "ok    $name: $summary"
  else
    echo "FAIL  $name (status $status): $summary"
    grep -E ":[FE]:|pure virtual|terminate" "$log" | head -n 10 | sed 's/^/      | /'
  fi
}

if [ "${GPU_SUITE_SPLIT:-0}" = 1 ]; then
  sources=$(dirname "$0")
  split=()
  for name in "${tests[@]}"; do
    checks=()
    [ -f "$sources/test_$name.cpp" ] &&
      mapfile -t checks < <(grep -o 'GST_START_TEST (test_[A-Za-z0-9_]*' "$sources/test_$name.cpp" |
        cut -d'(' -f2)
    if [ ${#checks[@]} -gt 0 ]; then split+=("${checks[@]/#/$name:}"); else split+=("$name"); fi
  done
  tests=("${split[@]}")
fi

results=$(mktemp)
running=0
for name in "${tests[@]}"; do
  run_one "$name" | tee -a "$results" &
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then
    wait -n
    running=$((running - 1))
  fi
done
wait
echo "--"
passed=$(grep -c '^ok' "$results")
failed=$(grep -c '^FAIL' "$results")
skipped=$(grep -c '^SKIP' "$results")
rm -f "$results"
echo "$passed passed, $failed failed ($skipped skipped)"
[ "$failed" -eq 0 ]
