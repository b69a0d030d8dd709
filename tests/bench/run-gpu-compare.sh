#!/usr/bin/env bash
# gst-opencl: the same benchmarks with two builds of the plugin on one machine, in one call,
# then tests/bench/compare.py over the two result folders: "is any case slower than before?".
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# usage: tests/bench/run-gpu-compare.sh OLD_DIR NEW_DIR OUT_DIR
#   OLD_DIR, NEW_DIR: folders laid out as tests/bench/pack-gpu.sh makes them (gst/libgstopencl.so,
#                     tests/bench/bench_*, clips/). A benchmark program OLD_DIR lacks is taken
#                     from NEW_DIR (the programs drive the elements through GStreamer pipelines
#                     and properties both builds have).
#   OUT_DIR:          OUT_DIR/old and OUT_DIR/new (one JSON per benchmark, as run-all.sh
#                     writes), OUT_DIR/compare.md, OUT_DIR/log.txt
# Each benchmark runs with the old build and then the new one, back to back, so that both see
# the machine in the same state; the set is the part of run-all.sh that finishes in about two
# minutes per build on an H100 (element kernels, the pipelines with frames resident, on the host,
# through CUDA memory from the decoder and through GL memory).
#   COMPARE_DEVICE=cpu COMPARE_SIZES=320x240 COMPARE_FRAMES=5: a rehearsal on another device.
set -uo pipefail
dev=${COMPARE_DEVICE:-gpu}
big=${COMPARE_SIZES:-1920x1080,3840x2160}
hd=${COMPARE_SIZES:-1920x1080}
frames=${COMPARE_FRAMES:-}
here=$(cd "$(dirname "$0")" && pwd)
old=$(cd "${1:?usage: run-gpu-compare.sh OLD_DIR NEW_DIR OUT_DIR}" && pwd)
new=$(cd "${2:?usage: run-gpu-compare.sh OLD_DIR NEW_DIR OUT_DIR}" && pwd)
out=${3:?usage: run-gpu-compare.sh OLD_DIR NEW_DIR OUT_DIR}
mkdir -p "$out/old" "$out/new"
out=$(cd "$out" && pwd)
log=$out/log.txt
if [ -z "${DISPLAY:-}" ]; then
  export GST_GL_PLATFORM=${GST_GL_PLATFORM:-egl} GST_GL_WINDOW=${GST_GL_WINDOW:-egl-device}
fi
export GST_DEBUG=${GST_DEBUG:-*:1}

# program BUILD NAME: the benchmark program NAME of BUILD, else of the new build.
program () {
  if [ -x "$1/tests/bench/$2" ]; then echo "$1/tests/bench/$2"; else echo "$new/tests/bench/$2"; fi
}

# bench NAME LIMIT_S PROGRAM ARGS...: runs it with each build in turn, into old/NAME.json and
# new/NAME.json; a failure is logged and the next benchmark goes on.
bench () {
  local name=$1 limit=$2 prog=$3 side build status
  shift 3
  for side in old new; do
    if [ "$side" = old ]; then build=$old; else build=$new; fi
    echo "== $name ($side: $build)" >>"$log"
    GST_PLUGIN_PATH=$build/gst GST_REGISTRY=$out/registry-$side.bin \
      GST_OPENCL_BENCH_CLIP=$new/clips/clip-1080p.h264 \
      timeout "$limit" "$(program "$build" "$prog")" "$@" --json "$out/$side/$name.json" \
      >>"$log" 2>&1
    status=$?
    echo "$name $side: exit $status"
    [ "$status" -eq 0 ] || rm -f "$out/$side/$name.json"
  done
}

bench bilateral 60 bench_bilateral --device "$dev" --sizes "$big" --frames "${frames:-100}" --warmup 10
bench histogram 90 bench_histogram --device "$dev" --sizes "$big" --frames "${frames:-100}" --warmup 10
bench mandelbox 60 bench_mandelbox --device "$dev" --sizes "$hd" --frames "${frames:-30}" --warmup 3 \
  --openmp-runs 1
bench pipelines 90 bench_pipeline --device "$dev" --sizes "$big" \
  --cases resident,round-trip,filter-host,histogram-host,filter-pool --frames "${frames:-60}" --warmup 5
if [ -f "$new/clips/clip-1080p.h264" ]; then
  bench decode 60 bench_pipeline --device "$dev" --sizes "$hd" \
    --cases decode,decode-histogram,decode-histogram-host --frames "${frames:-250}" --warmup 20
fi
bench gl 90 bench_pipeline --device "$dev" --sizes "$big" --cases gl,gl-host \
  --frames "${frames:-60}" --warmup 5
python3 "$here/compare.py" "$out/old" "$out/new" >"$out/compare.md" 2>>"$log"
echo "compare: exit $? ($out/compare.md)"
