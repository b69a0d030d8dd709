#!/usr/bin/env bash
# A decoder-to-encoder transcode that stays in YUV: an H.264 file decoded, scaled to 720p and
# filtered with openclbilateral on the OpenCL device, then encoded again with x264enc into MP4.
# No CPU colour conversion: openclconvertscale scales (and converts, when FORMAT asks for
# another format than the decoder's) on the device, and x264enc takes its frames as they are.
#   INPUT    an MP4 with H.264 video; when unset, a 1280x720 test clip is encoded first
#            ($OUT_DIR/transcode-input.mp4, NUM_BUFFERS frames, else 90)
#   FORMAT   the format the filter runs in: I420 (default: what avdec_h264 gives, so no
#            conversion at all), NV12, or RGBA (converted on the device both ways)
#   SIZE     WIDTHxHEIGHT after scaling (default 1280x720)
#   OUTPUT   the result (default $OUT_DIR/transcode.mp4)
#   NUM_BUFFERS, BUILD_DIR, OUT_DIR: see common.sh. With INPUT, NUM_BUFFERS stops after N frames.
# Needs x264enc (gstreamer1.0-plugins-ugly), h264parse (gstreamer1.0-plugins-bad) and avdec_h264
# (gstreamer1.0-libav); .ci/install-deps.sh installs them.
#
# outputs: transcode.mp4
set -euo pipefail
source "$(cd "$(dirname "$0")" && pwd)/common.sh"
require_plugin openclconvertscale
require_plugin openclbilateral
require_elements x264enc h264parse avdec_h264 qtdemux mp4mux

format=${FORMAT:-I420}
case $format in
  I420 | NV12 | RGBA) ;;
  *) echo "error: FORMAT must be I420, NV12 or RGBA, not \"$format\"" >&2; exit 2 ;;
esac
size=${SIZE:-1280x720}
[[ $size =~ ^([0-9]+)x([0-9]+)$ ]] || { echo "error: SIZE must be WIDTHxHEIGHT, not \"$size\"" >&2; exit 2; }
scaled="video/x-raw,format=$format,width=${BASH_REMATCH[1]},height=${BASH_REMATCH[2]}"

input_clip transcode-input.mp4 90 pattern=ball \
  ! video/x-raw,format=I420,width=1920,height=1080,framerate=30/1 \
  ! x264enc speed-preset=ultrafast ! h264parse ! mp4mux
output=${OUTPUT:-$OUT_DIR/transcode.mp4}

# The encoder's side: x264enc takes I420 and NV12 as they are; RGBA goes back to I420 on the
# device first.
to_encoder=()
[ "$format" != RGBA ] || to_encoder=(openclconvertscale ! video/x-raw,format=I420 !)
run_pipeline filesrc location="$input" ! qtdemux ! h264parse ! avdec_h264 ! "${frame_limit[@]}" \
  openclconvertscale ! "$scaled" ! openclbilateral ! "${to_encoder[@]}" \
  x264enc speed-preset=ultrafast ! h264parse ! mp4mux ! filesink location="$output"
echo "wrote $output"
