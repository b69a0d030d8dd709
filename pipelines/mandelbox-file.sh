#!/usr/bin/env bash
# openclmandelboxsrc into a video file: VP8 in WebM (vp8enc and webmmux are in Debian's
# gstreamer1.0-plugins-good).
#   OUTPUT          the file (default $OUT_DIR/mandelbox.webm)
#   WIDTH, HEIGHT   frame size (default 640x360)
#   NUM_BUFFERS, BUILD_DIR, OUT_DIR: see common.sh; without NUM_BUFFERS, 180 frames (6 s at
#   30 frames per second: the camera turns 60 degrees at the default 10 degrees per second).
#
# outputs: mandelbox.webm
# prints: wrote
set -euo pipefail
source "$(cd "$(dirname "$0")" && pwd)/common.sh"
require_plugin openclmandelboxsrc

output=${OUTPUT:-$OUT_DIR/mandelbox.webm}
run_pipeline openclmandelboxsrc "num-buffers=${NUM_BUFFERS:-180}" \
  ! "$(video_caps 640x360 ,framerate=30/1)" ! videoconvert \
  ! vp8enc deadline=1 target-bitrate=4000000 ! webmmux ! filesink location="$output"
echo "wrote $output"
