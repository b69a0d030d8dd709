#!/usr/bin/env bash
# gst-opencl: copies what tests/bench/run-all.sh needs from a build folder into a small folder to
# carry to the GPU machine: the plugin, the benchmark and test programs (stripped) and the OpenMP
# runtime.
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# usage: tests/bench/pack-gpu.sh BUILD_DIR OUT_DIR     (e.g. build-bench build-gpu)
# Then carry [".device", "OUT_DIR"] and run `tests/bench/run-all.sh --build OUT_DIR ...` there.
set -euo pipefail
[ $# = 2 ] || { sed -n '5,6p' "$0"; exit 2; }
build=$1
out=$2
rm -rf "$out"
mkdir -p "$out/gst" "$out/tests/bench"
cp "$build/gst/libgstopencl.so" "$out/gst/"
for program in "$build"/tests/bench/bench_*; do
  if [ -f "$program" ] && [ -x "$program" ]; then cp "$program" "$out/tests/bench/"; fi
done
# The test programs too, when the build has them, for tests/gpu-suite.sh (docs/testing.md).
for program in "$build"/tests/test_*; do
  if [ -f "$program" ] && [ -x "$program" ]; then cp "$program" "$out/tests/"; fi
done
# Libraries the test programs load from their own folder (test_exit preloads cl_release_check.so).
for library in "$build"/tests/*.so; do
  if [ -f "$library" ]; then cp "$library" "$out/tests/"; fi
done
# cl_call_times.so: preloaded to time the host side of OpenCL calls (tests/bench/README.md).
for library in "$build"/tests/bench/*.so; do
  if [ -f "$library" ]; then cp "$library" "$out/tests/bench/"; fi
done
strip --strip-unneeded "$out/gst/libgstopencl.so" "$out"/tests/bench/bench_* \
  "$out"/tests/test_* "$out"/tests/*.so 2>/dev/null || true
# The H.264 clips of the CUDA test and the decoder benchmark, where this machine can encode.
bash "$(dirname "$0")/../media/make-h264-clips.sh" "$out/clips" || echo "no clips: the CUDA test's decoder case and the decoder benchmark will skip"
# awk reads ldconfig's whole list: an early `exit` would end ldconfig with SIGPIPE, and under
# pipefail the script would stop here without a word.
gomp=$(ldconfig -p | awk '/libgomp.so.1 / && !found {print $NF; found = 1}')
if [ -n "$gomp" ]; then
  cp "$gomp" "$out/"
  echo "packed the OpenMP runtime $gomp"
else
  echo "no libgomp.so.1 here: the OpenMP peers will not start on the GPU machine"
fi
# eu-stack (elfutils), for tests/gl-soak.sh's stacks of a hung run: the GPU machine has no
# debugger. Its libraries (libdw1, libelf1) come with .device/.
mkdir -p "$out/tools"
if command -v eu-stack >/dev/null; then
  cp "$(command -v eu-stack)" "$out/tools/"
else
  fetched=$(mktemp -d)
  if (cd "$fetched" && apt-get download elfutils >/dev/null 2>&1); then
    dpkg-deb -x "$fetched"/elfutils_*.deb "$fetched/root" &&
      cp "$fetched/root/usr/bin/eu-stack" "$out/tools/"
  fi
  rm -rf "$fetched"
fi
[ -x "$out/tools/eu-stack" ] && echo "packed eu-stack" || echo "no eu-stack: stacks of hung runs from /proc only"
du -sh "$out"
echo "packed $build into $out"
