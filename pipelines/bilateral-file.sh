#!/usr/bin/env bash
# A video file through openclbilateral into another file.
#   INPUT    the file to filter (anything decodebin can decode); when unset, a 640x360 test clip
#            is generated first ($OUT_DIR/bilateral-file-input.avi, NUM_BUFFERS frames, else 90)
#   OUTPUT   the result, Motion JPEG in AVI (default $OUT_DIR/bilateral-file.avi)
#   NUM_BUFFERS, BUILD_DIR, OUT_DIR: see common.sh. With INPUT, NUM_BUFFERS stops after N frames.
#
# outputs: bilateral-file.avi
set -euo pipefail
source "$(cd "$(dirname "$0")" && pwd)/common.sh"
require_plugin

input_clip bilateral-file-input.avi 90 pattern=ball \
  ! video/x-raw,width=640,height=360,framerate=30/1 ! jpegenc ! avimux
output=${OUTPUT:-$OUT_DIR/bilateral-file.avi}

run_pipeline filesrc location="$input" ! decodebin ! "${frame_limit[@]}" videoconvert \
  ! openclbilateral ! videoconvert ! jpegenc quality=90 ! avimux ! filesink location="$output"
echo "wrote $output"
