#!/usr/bin/env bash
# The camera (or a scrolling test pattern when there is none) pixel-sorted by openclsort, to a
# window.
#   VIDEO_DEVICE   the camera (default /dev/video0); videotestsrc when it does not exist
#   KEY            luma (default), red, green or blue
#   DIRECTION      columns (default here) or rows
#   ORDER          ascending (default) or descending
#   NUM_BUFFERS, BUILD_DIR: see common.sh. Empty NUM_BUFFERS runs until the window is closed
#   or Ctrl-C.
set -euo pipefail
source "$(cd "$(dirname "$0")" && pwd)/common.sh"
require_plugin openclsort

camera=${VIDEO_DEVICE:-/dev/video0}
if [ -e "$camera" ]; then
  # decodebin takes both raw and Motion JPEG cameras.
  source=(v4l2src device="$camera" "${source_limit[@]}" ! decodebin)
else
  echo "no camera at $camera: using a test pattern" >&2
  source=(videotestsrc "${source_limit[@]}" pattern=smpte horizontal-speed=3
    ! video/x-raw,width=640,height=480)
fi

run_pipeline "${source[@]}" ! videoconvert ! video/x-raw,format=RGBA \
  ! openclsort "key=${KEY:-luma}" "direction=${DIRECTION:-columns}" "order=${ORDER:-ascending}" \
  ! videoconvert ! autovideosink
