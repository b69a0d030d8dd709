#!/usr/bin/env bash
# openclmandelboxsrc to a window: the Mandelbox turning about its vertical axis.
#   WIDTH, HEIGHT   frame size (default 640x360: a CPU device renders a few frames a second)
#   NUM_BUFFERS, BUILD_DIR: see common.sh. Empty NUM_BUFFERS runs until the window is closed
#   or Ctrl-C.
set -euo pipefail
source "$(cd "$(dirname "$0")" && pwd)/common.sh"
require_plugin openclmandelboxsrc

# The background is transparent (alpha 0); videoconvert drops alpha, so it shows black.
run_pipeline openclmandelboxsrc "${source_limit[@]}" rotation-speed=20 \
  ! "$(video_caps 640x360 ,framerate=30/1)" ! videoconvert ! autovideosink
