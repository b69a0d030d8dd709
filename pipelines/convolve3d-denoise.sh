#!/usr/bin/env bash
# Temporal denoising with openclconvolve3d: a moving test pattern with snow blended over it
# (a noisy clip), smoothed over 3x3 pixels and 5 frames by a Gaussian, into a file.
#   SIGMA_T   the Gaussian's standard deviation in time, in frames (default 1.5)
#   OUTPUT    the result, Motion JPEG in AVI (default $OUT_DIR/convolve3d-denoise.avi)
#   NUM_BUFFERS, BUILD_DIR, OUT_DIR: see common.sh; without NUM_BUFFERS, 150 frames.
#
# outputs: convolve3d-denoise.avi
set -euo pipefail
source "$(cd "$(dirname "$0")" && pwd)/common.sh"
require_plugin openclconvolve3d

frames=${NUM_BUFFERS:-150}
output=${OUTPUT:-$OUT_DIR/convolve3d-denoise.avi}

# The element outputs frame n once frame n + 2 has arrived, and drains the last two at EOS.
run_pipeline compositor name=noisy sink_1::alpha=0.35 \
  ! video/x-raw,format=RGBA,width=640,height=360,framerate=30/1 \
  ! openclconvolve3d kernel-width=3 kernel-height=3 kernel-depth=5 sigma-xy=0.8 \
    sigma-t="${SIGMA_T:-1.5}" \
  ! videoconvert ! jpegenc quality=90 ! avimux ! filesink location="$output" \
  videotestsrc num-buffers="$frames" pattern=ball motion=sweep \
  ! video/x-raw,width=640,height=360,framerate=30/1 ! noisy.sink_0 \
  videotestsrc num-buffers="$frames" pattern=snow \
  ! video/x-raw,width=640,height=360,framerate=30/1 ! noisy.sink_1
echo "wrote $output"
