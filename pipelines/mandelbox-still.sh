#!/usr/bin/env bash
# One still of openclmandelboxsrc as a PNG with a transparent background: the article's picture
# (animate=false, every other property at its default). docs/images/mandelbox.png comes from
#   OUTPUT=docs/images/mandelbox.png bash pipelines/mandelbox-still.sh
#   OUTPUT          the file (default $OUT_DIR/mandelbox.png)
#   WIDTH, HEIGHT   frame size (default 512x512; a square frame is the article's view)
#   BUILD_DIR, OUT_DIR: see common.sh (NUM_BUFFERS is not used: it is one frame).
#
# outputs: mandelbox.png
# prints: wrote
set -euo pipefail
source "$(cd "$(dirname "$0")" && pwd)/common.sh"
require_plugin openclmandelboxsrc

output=${OUTPUT:-$OUT_DIR/mandelbox.png}
run_pipeline openclmandelboxsrc num-buffers=1 animate=false \
  ! "$(video_caps 512x512 ,format=RGBA)" ! pngenc ! filesink location="$output"
echo "wrote $output"
