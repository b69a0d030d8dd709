#!/usr/bin/env bash
# openclkernel running pipelines/kernels/chromakey.cl: videotestsrc's moving orange ball on
# green, keyed (the green becomes transparent) and laid by compositor over a black and white
# pinwheel, into a WebM file (VP8) and the last frame as a PNG.
#   OUTPUT          the WebM file (default $OUT_DIR/kernel-chromakey.webm)
#   STILL           the PNG of the last frame (default $OUT_DIR/kernel-chromakey.png)
#   WIDTH, HEIGHT   frame size (default 640x360)
#   KEY             the key colour, red, green, blue, alpha in 0..1 (default <0.0,1.0,0.0,1.0>)
#   TOLERANCE       chroma distance keyed fully (default 0.2)
#   SOFTNESS        distance over which alpha returns, for soft edges (default 0.1)
#   NUM_BUFFERS, BUILD_DIR, OUT_DIR: see common.sh; without NUM_BUFFERS, 90 frames (3 s).
#
# outputs: kernel-chromakey.webm kernel-chromakey.png
# prints: wrote
set -euo pipefail
source "$(cd "$(dirname "$0")" && pwd)/common.sh"
require_plugin openclkernel

frames=${NUM_BUFFERS:-90}
output=${OUTPUT:-$OUT_DIR/kernel-chromakey.webm}
still=${STILL:-$OUT_DIR/kernel-chromakey.png}
caps=$(video_caps 640x360 ,framerate=30/1)
parameters="p,key=${KEY:-<0.0,1.0,0.0,1.0>},tolerance=${TOLERANCE:-0.2},softness=${SOFTNESS:-0.1}"

# The keyed branch carries alpha (RGBA) into compositor's sink_1, drawn above sink_0.
run_pipeline compositor name=mix ! tee name=t \
  t. ! queue ! videoconvert ! vp8enc deadline=1 target-bitrate=4000000 ! webmmux \
    ! filesink location="$output" \
  t. ! queue ! videoconvert ! pngenc snapshot=false ! multifilesink location="$still" \
  videotestsrc num-buffers="$frames" pattern=pinwheel ! "$caps" ! mix.sink_0 \
  videotestsrc num-buffers="$frames" pattern=ball foreground-color=0xffff8000 \
  background-color=0xff00ff00 ! "$caps,format=RGBA" \
  ! openclkernel location="$REPO_ROOT/pipelines/kernels/chromakey.cl" parameters="$parameters" \
  ! mix.sink_1
echo "wrote $output and $still"
