#!/usr/bin/env bash
# openclupload and opencldownload around a chain of filters: each frame goes to the device once,
# through openclbilateral and openclhistogram (drawing) in OpenCL memory, and comes back once,
# into a video file. gst-launch-1.0 -v prints the caps of every link: those between openclupload
# and opencldownload carry memory:OpenCLMemory.
#   FORMAT          the frames' format: RGBA (default), BGRA, RGBx, BGRx or GRAY8
#   WIDTH, HEIGHT   frame size (default 640x360)
#   OUTPUT          the file, Motion JPEG in AVI (default $OUT_DIR/upload-download.avi)
#   NUM_BUFFERS, BUILD_DIR, OUT_DIR: see common.sh (default 90 frames)
#
# outputs: upload-download.avi
# prints: memory:OpenCLMemory
set -euo pipefail
source "$(cd "$(dirname "$0")" && pwd)/common.sh"
require_plugin openclupload

format=${FORMAT:-RGBA}
output=${OUTPUT:-$OUT_DIR/upload-download.avi}

run_pipeline -v videotestsrc "num-buffers=${NUM_BUFFERS:-90}" pattern=ball \
  ! "$(video_caps 640x360 ",format=$format,framerate=30/1")" \
  ! openclupload ! openclbilateral sigma-range=30 ! openclhistogram draw=true \
  ! opencldownload ! videoconvert ! jpegenc quality=90 ! avimux ! filesink location="$output"
echo "wrote $output"
