#!/usr/bin/env bash
# gst-opencl: times openclbilateral's kernel variants one by one (each forced with
# GST_OPENCL_VARIANT_BILATERAL, each with its own empty program cache) at one size and mode, so
# the tuner's candidates can be compared in one run. Prints "variant mode | bench_bilateral row".
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# usage: tests/bench/bilateral-variants.sh BUILD_DIR SIZE MODE VARIANT...
#   e.g. tests/bench/bilateral-variants.sh build-gpu 3840x2160 color tiled-float-32x8x2 \
#          columns-32x8-1x2-ptx columns-32x8-1x3-ptx
# On the GPU machine: `source .device/env.sh` first. Kernel medians of 60 frames after 5.
set -uo pipefail
[ $# -ge 4 ] || { sed -n '7,9p' "$0"; exit 2; }
build=$(cd "$1" && pwd)
size=$2
mode=$3
shift 3
export GST_PLUGIN_PATH="$build/gst"
caches=$(mktemp -d)
for variant in "$@"; do
  row=$(GST_OPENCL_VARIANT_BILATERAL=$variant XDG_CACHE_HOME="$caches/$variant" timeout 120 \
      "$build/tests/bench/bench_bilateral" --device gpu --sizes "$size" --frames 60 --warmup 5 \
      --modes "$mode" 2>&1 | grep -E "^$size +[a-z]|rror" | tail -n 1)
  echo "$variant $mode | $row"
done
rm -rf "$caches"
