#!/usr/bin/env bash
# 10-bit video into openclhistogram: an HEVC Main 10 file decoded, its frames in P010_10LE (the
# format 10-bit hardware decoders give), and one opencl-histogram message per frame of the full
# 10-bit luma range, printed and written to a log.
#   INPUT    an MP4 with 10-bit HEVC video; when unset, a 640x360 Main 10 test clip is encoded
#            first with x265enc ($OUT_DIR/histogram-10bit-input.mp4, NUM_BUFFERS frames, else 60)
#   BINS     bins of the histogram (default 64)
#   LOG      the log file (default $OUT_DIR/histogram-10bit.log)
#   NUM_BUFFERS, BUILD_DIR, OUT_DIR: see common.sh. With INPUT, NUM_BUFFERS stops after N frames.
# Debian's avdec_h265 gives I420_10LE, which videoconvert turns into P010_10LE on the CPU (a
# hardware decoder such as nvh265dec gives P010_10LE itself). Needs x265enc and h265parse
# (gstreamer1.0-plugins-bad) and avdec_h265 (gstreamer1.0-libav); .ci/install-deps.sh installs them.
#
# outputs: histogram-10bit.log
# prints: opencl-histogram, timestamp=
set -euo pipefail
source "$(cd "$(dirname "$0")" && pwd)/common.sh"
require_plugin openclhistogram
require_elements x265enc h265parse avdec_h265 qtdemux mp4mux

input_clip histogram-10bit-input.mp4 60 pattern=smpte \
  ! video/x-raw,format=I420_10LE,width=640,height=360,framerate=30/1 \
  ! x265enc speed-preset=ultrafast ! h265parse ! mp4mux
log=${LOG:-$OUT_DIR/histogram-10bit.log}

run_pipeline -m filesrc location="$input" ! qtdemux ! h265parse ! avdec_h265 ! "${frame_limit[@]}" \
  videoconvert ! video/x-raw,format=P010_10LE ! openclhistogram bins="${BINS:-64}" \
  ! fakesink | tee "$log"
echo "wrote $log"
