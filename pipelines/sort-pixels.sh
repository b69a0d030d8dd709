#!/usr/bin/env bash
# The pixel-sorting effect: a scrolling test pattern whose pixels openclsort reorders along every
# column (or row) by luma (or one channel), into a video and a PNG of the first frame.
#   KEY        luma (default), red, green or blue
#   DIRECTION  columns (default here) or rows
#   ORDER      ascending (default) or descending
#   SIZE       WIDTHxHEIGHT of the frames (default 640x360)
#   OUTPUT     the video, Motion JPEG in AVI (default $OUT_DIR/sort-pixels.avi); the PNG goes
#              beside it with the extension .png
#   NUM_BUFFERS, BUILD_DIR, OUT_DIR: see common.sh (default 90 frames)
#
# outputs: sort-pixels.avi sort-pixels.png
set -euo pipefail
source "$(cd "$(dirname "$0")" && pwd)/common.sh"
require_plugin openclsort

key=${KEY:-luma}
direction=${DIRECTION:-columns}
order=${ORDER:-ascending}
size=${SIZE:-640x360}
[[ $size =~ ^([0-9]+)x([0-9]+)$ ]] || { echo "error: SIZE must be WIDTHxHEIGHT, not \"$size\"" >&2; exit 2; }
width=${BASH_REMATCH[1]}
height=${BASH_REMATCH[2]}
output=${OUTPUT:-$OUT_DIR/sort-pixels.avi}
snapshot=${output%.*}.png

# SMPTE bars scrolling sideways: colour bands of many
# brightnesses, so every sorted column is a stack of bands that changes from frame to frame.
source_line=(videotestsrc pattern=smpte horizontal-speed=3 animation-mode=frames)
caps="video/x-raw,format=RGBA,width=$width,height=$height,framerate=30/1"
sort_line=(openclsort "key=$key" "direction=$direction" "order=$order")

run_pipeline "${source_line[@]}" "num-buffers=${NUM_BUFFERS:-90}" ! "$caps" ! "${sort_line[@]}" \
  ! videoconvert ! jpegenc quality=90 ! avimux ! filesink location="$output"
run_pipeline "${source_line[@]}" num-buffers=1 ! "$caps" ! "${sort_line[@]}" \
  ! videoconvert ! pngenc ! filesink location="$snapshot"
echo "wrote $output and $snapshot"
