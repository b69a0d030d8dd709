#!/usr/bin/env bash
# A 4-filter bank with openclmulticonvolve, shown as RGBA: R = Sobel x, G = Sobel y,
# B = Laplacian, A = 3x3 Gaussian of a grey test clip, each response * 0.25 + 128. Frames are
# PNG-coded (so alpha survives) in an AVI file.
#   OUTPUT    the result (default $OUT_DIR/multiconvolve-bank.avi)
#   NUM_BUFFERS, BUILD_DIR, OUT_DIR: see common.sh; without NUM_BUFFERS, 90 frames.
#
# outputs: multiconvolve-bank.avi
set -euo pipefail
source "$(cd "$(dirname "$0")" && pwd)/common.sh"
require_plugin openclmulticonvolve

output=${OUTPUT:-$OUT_DIR/multiconvolve-bank.avi}

# Taps per filter, row by row (y), x fastest within a row.
sobel_x=(-1 0 1  -2 0 2  -1 0 1)
sobel_y=(-1 -2 -1  0 0 0  1 2 1)
laplacian=(0 1 0  1 -4 1  0 1 0)
gaussian=(0.25 0.5 0.25  0.5 1 0.5  0.25 0.5 0.25)  # sums to 4: x 0.25 + 128 spans 128..255
# The element wants the filter index fastest (KXYZ): tap 0 of all four, then tap 1, ...
taps=()
for t in $(seq 0 8); do
  taps+=("${sobel_x[t]}" "${sobel_y[t]}" "${laplacian[t]}" "${gaussian[t]}")
done
kernels="<$(IFS=,; echo "${taps[*]}")>"

run_pipeline videotestsrc num-buffers="${NUM_BUFFERS:-90}" pattern=pinwheel \
  ! video/x-raw,format=GRAY8,width=640,height=360,framerate=30/1 \
  ! openclmulticonvolve num-kernels=4 kernel-size=3 dims=2 kernels="$kernels" \
    scale=0.25 offset=128 \
  ! video/x-raw,format=RGBA ! pngenc compression-level=1 ! avimux \
  ! filesink location="$output"
echo "wrote $output"
