#!/usr/bin/env bash
# openclhistogram draws the histogram of every frame into its top-left corner (red, green and
# blue bars for RGB; the luma histogram for GRAY8, I420, NV12); the result goes to a window and
# to a file.
#   FORMAT   what the element receives: RGBA (default), BGRA, RGBx, BGRx, GRAY8, I420 or NV12
#   BINS     bins per channel (default 64)
#   OUTPUT   the file, Motion JPEG in AVI (default $OUT_DIR/histogram-draw.avi)
#   NUM_BUFFERS, BUILD_DIR, OUT_DIR: see common.sh. Empty NUM_BUFFERS runs until the window is
#   closed or Ctrl-C.
#
# outputs: histogram-draw.avi
set -euo pipefail
source "$(cd "$(dirname "$0")" && pwd)/common.sh"
require_plugin

format=${FORMAT:-RGBA}
bins=${BINS:-64}
output=${OUTPUT:-$OUT_DIR/histogram-draw.avi}

run_pipeline videotestsrc "${source_limit[@]}" pattern=ball background-color=0xff204060 \
  ! "video/x-raw,format=$format,width=640,height=360,framerate=30/1" \
  ! openclhistogram draw=true bins="$bins" ! tee name=t \
  t. ! queue ! videoconvert ! autovideosink \
  t. ! queue ! videoconvert ! jpegenc quality=90 ! avimux ! filesink location="$output"
echo "wrote $output"
