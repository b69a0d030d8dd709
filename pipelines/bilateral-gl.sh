#!/usr/bin/env bash
# openclbilateral between GL elements: frames arrive and leave as RGBA textures (GL memory).
#   NUM_BUFFERS, BUILD_DIR: see common.sh. Empty NUM_BUFFERS runs until the window is closed
#   or Ctrl-C.
set -euo pipefail
source "$(cd "$(dirname "$0")" && pwd)/common.sh"
require_plugin

run_pipeline videotestsrc "${source_limit[@]}" pattern=ball \
  ! video/x-raw,format=RGBA,width=640,height=360 ! glupload \
  ! openclbilateral ! glimagesink
