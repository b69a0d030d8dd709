#!/usr/bin/env bash
# openclkernelsrc running pipelines/kernels/plasma.cl: a plasma effect drawn from the element's
# width, height and time and the parameter speed, into a WebM file (VP8).
#   OUTPUT          the file (default $OUT_DIR/kernel-plasma.webm)
#   WIDTH, HEIGHT   frame size (default 640x360)
#   SPEED           the kernel's speed parameter (default 1.0; 0 is a still picture)
#   NUM_BUFFERS, BUILD_DIR, OUT_DIR: see common.sh; without NUM_BUFFERS, 180 frames (6 s).
#
# outputs: kernel-plasma.webm
# prints: wrote
set -euo pipefail
source "$(cd "$(dirname "$0")" && pwd)/common.sh"
require_plugin openclkernelsrc

output=${OUTPUT:-$OUT_DIR/kernel-plasma.webm}
run_pipeline openclkernelsrc "num-buffers=${NUM_BUFFERS:-180}" \
  location="$REPO_ROOT/pipelines/kernels/plasma.cl" parameters="p,speed=(float)${SPEED:-1.0}" \
  ! "$(video_caps 640x360 ,framerate=30/1)" ! videoconvert \
  ! vp8enc deadline=1 target-bitrate=4000000 ! webmmux ! filesink location="$output"
echo "wrote $output"
