#!/usr/bin/env bash
# openclconvertscale: a test pattern in NV12 converted to RGBA and scaled on the device, in one
# kernel pass, into a video; and the same frames through P010_10LE and back to RGBA, into a PNG
# of the first frame (10-bit on the way).
#   WIDTH, HEIGHT  the input's size (default 1280x720)
#   OUT_SIZE   WIDTHxHEIGHT of the output (default 640x480: a 4:3 frame, so the 16:9 picture
#              gets black borders above and below)
#   METHOD     nearest-neighbour or bilinear (default)
#   OUTPUT     the video, Motion JPEG in AVI (default $OUT_DIR/convertscale.avi); the PNG goes
#              beside it with the extension .png
#   NUM_BUFFERS, BUILD_DIR, OUT_DIR: see common.sh (default 90 frames)
#
# outputs: convertscale.avi convertscale.png
set -euo pipefail
source "$(cd "$(dirname "$0")" && pwd)/common.sh"
require_plugin openclconvertscale

out_size=${OUT_SIZE:-640x480}
[[ $out_size =~ ^([0-9]+)x([0-9]+)$ ]] || { echo "error: OUT_SIZE must be WIDTHxHEIGHT, not \"$out_size\"" >&2; exit 2; }
method=${METHOD:-bilinear}
output=${OUTPUT:-$OUT_DIR/convertscale.avi}
snapshot=${output%.*}.png

source_line=(videotestsrc pattern=smpte horizontal-speed=2)
in_caps=$(video_caps 1280x720 ",format=NV12,framerate=30/1")
out_caps="video/x-raw,format=RGBA,width=${BASH_REMATCH[1]},height=${BASH_REMATCH[2]}"

run_pipeline "${source_line[@]}" "num-buffers=${NUM_BUFFERS:-90}" ! "$in_caps" \
  ! openclconvertscale "method=$method" ! "$out_caps" \
  ! videoconvert ! jpegenc quality=90 ! avimux ! filesink location="$output"
run_pipeline "${source_line[@]}" num-buffers=1 ! "$in_caps" \
  ! openclconvertscale "method=$method" ! video/x-raw,format=P010_10LE \
  ! openclconvertscale ! "$out_caps" ! videoconvert ! pngenc ! filesink location="$snapshot"
echo "wrote $output and $snapshot"
