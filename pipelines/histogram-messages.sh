#!/usr/bin/env bash
# gst-launch-1.0 -m prints every bus message: here the opencl-histogram element messages that
# openclhistogram posts, one per frame or one per INTERVAL of video. The log is also written to
# a file.
#   FORMAT     what the element receives: RGBA (default), BGRA, RGBx, BGRx, GRAY8, I420 or NV12
#   BINS       bins per channel (default 16)
#   INTERVAL   nanoseconds summed per message (default 0: every frame; 100000000 sums 3 frames)
#   LOG        the log file (default $OUT_DIR/histogram-messages.log)
#   NUM_BUFFERS, BUILD_DIR, OUT_DIR: see common.sh. Empty NUM_BUFFERS runs until Ctrl-C.
#
# outputs: histogram-messages.log
# prints: opencl-histogram, timestamp=
set -euo pipefail
source "$(cd "$(dirname "$0")" && pwd)/common.sh"
require_plugin

format=${FORMAT:-RGBA}
log=${LOG:-$OUT_DIR/histogram-messages.log}

run_pipeline -m videotestsrc "${source_limit[@]}" pattern=smpte \
  ! "video/x-raw,format=$format,width=320,height=240,framerate=30/1" \
  ! openclhistogram bins="${BINS:-16}" interval="${INTERVAL:-0}" ! fakesink | tee "$log"
echo "wrote $log"
