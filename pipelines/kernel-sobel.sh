#!/usr/bin/env bash
# openclkernel running pipelines/kernels/sobel.cl: the Sobel gradient magnitude of each frame
# as a grey image, into a WebM file (VP8) and the last frame as a PNG.
#   INPUT           a video file to filter (anything decodebin can decode); when unset,
#                   videotestsrc with PATTERN (default smpte, still bars; ball moves)
#   OUTPUT          the WebM file (default $OUT_DIR/kernel-sobel.webm)
#   STILL           the PNG of the last frame (default $OUT_DIR/kernel-sobel.png)
#   WIDTH, HEIGHT   frame size of the test pattern (default 640x360)
#   NUM_BUFFERS, BUILD_DIR, OUT_DIR: see common.sh; without NUM_BUFFERS, 90 frames of the
#   pattern, or the whole INPUT.
#
# outputs: kernel-sobel.webm kernel-sobel.png
# prints: wrote
set -euo pipefail
source "$(cd "$(dirname "$0")" && pwd)/common.sh"
require_plugin openclkernel

output=${OUTPUT:-$OUT_DIR/kernel-sobel.webm}
still=${STILL:-$OUT_DIR/kernel-sobel.png}
if [ -n "${INPUT:-}" ]; then
  [ -f "$INPUT" ] || { echo "error: INPUT file \"$INPUT\" does not exist" >&2; exit 1; }
  frame_limit=()
  [ -z "$NUM_BUFFERS" ] || frame_limit=(identity "eos-after=$NUM_BUFFERS" !)
  input=(filesrc location="$INPUT" ! decodebin ! "${frame_limit[@]}" videoconvert)
else
  input=(videotestsrc "num-buffers=${NUM_BUFFERS:-90}" "pattern=${PATTERN:-smpte}"
    ! "$(video_caps 640x360 ,framerate=30/1)" ! videoconvert)
fi

run_pipeline "${input[@]}" ! video/x-raw,format=RGBA \
  ! openclkernel location="$REPO_ROOT/pipelines/kernels/sobel.cl" ! tee name=t \
  t. ! queue ! videoconvert ! vp8enc deadline=1 target-bitrate=4000000 ! webmmux \
    ! filesink location="$output" \
  t. ! queue ! videoconvert ! pngenc snapshot=false ! multifilesink location="$still"
echo "wrote $output and $still"
