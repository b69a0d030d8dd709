#!/usr/bin/env bash
# The README's first command. Installs what is missing (Debian 12), builds the plugin into
# <repo>/build, then runs openclbilateral on the default device over a noisy, scrolling 1280x720
# RGBA test pattern (90 frames) into a video, saves a before/after PNG pair of one frame, and
# prints the frames per second.
#
#   SKIP_SETUP=1   skip the package check and the build (the plugin must already be built)
#   QUICK=1        SKIP_SETUP=1, and 5 frames unless NUM_BUFFERS says otherwise (for the tests)
#   NUM_BUFFERS, BUILD_DIR, OUT_DIR: see common.sh. Files go to $OUT_DIR/demo.
#
# outputs: demo/bilateral.avi demo/before.png demo/after.png
# prints: frames per second on
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

if [ -n "${QUICK:-}" ]; then
  SKIP_SETUP=1
  NUM_BUFFERS=${NUM_BUFFERS:-5}
fi
source "$here/common.sh"
frames=${NUM_BUFFERS:-90}
[ "$frames" -ge 1 ] || { echo "error: NUM_BUFFERS must be at least 1" >&2; exit 2; }

if [ -z "${SKIP_SETUP:-}" ]; then
  echo "== checking packages (.ci/install-deps.sh)"
  bash "$REPO_ROOT/.ci/install-deps.sh"
  echo "== building into $BUILD_DIR"
  [ -f "$BUILD_DIR/build.ninja" ] || meson setup "$BUILD_DIR" "$REPO_ROOT"
  ninja -C "$BUILD_DIR"
  use_build_plugin
fi
require_plugin

demo_dir=$OUT_DIR/demo
mkdir -p "$demo_dir"
rm -f "$demo_dir"/{bilateral.avi,before.png,after.png,pipeline.log,opencl.log}

caps="video/x-raw,format=RGBA,width=1280,height=720,framerate=30/1"
# SMPTE bars scrolling sideways with 12% white noise blended over them: flat areas for the filter
# to smooth and sharp edges for it to keep. The default properties (sigma-spatial 2,
# sigma-range 25) suit this noise level. Fills `mixer` (the compositor, ending in its output
# caps) and `mixer_inputs` (the two sources linked into it).
noisy_source () {
  local count=$1
  mixer=(compositor name=mix sink_1::alpha=0.12 ! "$caps")
  mixer_inputs=(
    videotestsrc "num-buffers=$count" pattern=smpte horizontal-speed=4 ! "$caps" ! mix.
    videotestsrc "num-buffers=$count" pattern=snow ! "$caps" ! mix.
  )
}

echo "== filtering $frames frames of 1280x720 RGBA (on a CPU device this takes a while)"
noisy_source "$frames"
# gst-launch's progress goes to pipeline.log (it holds the time from PLAYING to the end); the
# OpenCL log goes to opencl.log, where the element says which device it runs on.
GST_DEBUG=opencl:4 GST_DEBUG_NO_COLOR=1 GST_DEBUG_FILE="$demo_dir/opencl.log" \
  run_pipeline "${mixer[@]}" ! openclbilateral ! videoconvert ! jpegenc quality=90 ! avimux \
  ! filesink location="$demo_dir/bilateral.avi" "${mixer_inputs[@]}" >"$demo_dir/pipeline.log"

echo "== one frame before and after"
noisy_source 1
run_pipeline "${mixer[@]}" ! pngenc ! filesink location="$demo_dir/before.png" \
  "${mixer_inputs[@]}" >/dev/null
run_pipeline filesrc location="$demo_dir/before.png" ! pngdec ! video/x-raw,format=RGBA \
  ! openclbilateral ! pngenc ! filesink location="$demo_dir/after.png" >/dev/null

# The first frame passes (and the kernel is built) while the pipeline prerolls, before the clock
# gst-launch reports starts; the other frames - 1 pass in the reported time.
elapsed=$(sed -n 's/^Execution ended after \([0-9:.]*\).*/\1/p' "$demo_dir/pipeline.log" | tail -n 1)
device=$(sed -n 's/.*running on //p' "$demo_dir/opencl.log" | head -n 1)
fps=$(awk -v frames=$((frames - 1)) -v elapsed="${elapsed:-0}" 'BEGIN {
  n = split (elapsed, part, ":"); seconds = 0;
  for (i = 1; i <= n; i++) seconds = seconds * 60 + part[i];
  if (frames > 0 && seconds > 0) printf "%.1f", frames / seconds }')

shown_dir=$demo_dir
case $demo_dir in
  "$PWD"/*) shown_dir=${demo_dir#"$PWD"/} ;;
esac
echo
if [ -n "$fps" ]; then
  echo "$fps frames per second on ${device:-an unknown device}"
  echo "   (1280x720 RGBA, whole pipeline: test source, openclbilateral, JPEG encoder)"
else
  echo "too few frames to measure the rate; ran on ${device:-an unknown device}"
fi
echo
echo "Output in $shown_dir/:"
echo "  bilateral.avi          the $frames filtered frames (Motion JPEG in AVI; any video player)"
echo "  before.png, after.png  the first frame without and with the filter"
