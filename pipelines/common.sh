# shellcheck shell=bash
# Sourced by every script in pipelines/. Sets, from the environment:
#   REPO_ROOT         the repository
#   BUILD_DIR         build folder whose gst/ holds libgstopencl.so (default <repo>/build)
#   GST_PLUGIN_PATH   $BUILD_DIR/gst, when that folder exists and either BUILD_DIR was given or
#                     GST_PLUGIN_PATH was unset (an installed plugin is then found the usual way)
#   NUM_BUFFERS       frames each source produces; empty = run until the stream ends or Ctrl-C
#   source_limit      array: ("num-buffers=N"), or () when NUM_BUFFERS is empty
#   OUT_DIR           where files are written (default <repo>/out, created; ./out for an
#                     installed copy of the scripts)

REPO_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

build_dir_given=${BUILD_DIR:+1}
BUILD_DIR=${BUILD_DIR:-$REPO_ROOT/build}
case $BUILD_DIR in
  /*) ;;
  *) BUILD_DIR=$PWD/$BUILD_DIR ;;
esac

# Callable again after a build has created $BUILD_DIR/gst (demo.sh does).
use_build_plugin () {
  local plugin_dir=$BUILD_DIR/gst
  [ -d "$plugin_dir" ] || return 0
  case ":${GST_PLUGIN_PATH:-}:" in
    *":$plugin_dir:"*) return 0 ;;
  esac
  if [ -n "$build_dir_given" ]; then
    export GST_PLUGIN_PATH=$plugin_dir${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}
  elif [ -z "${GST_PLUGIN_PATH+set}" ]; then
    export GST_PLUGIN_PATH=$plugin_dir
  fi
}
use_build_plugin

# Stops the script with a hint when GStreamer cannot find the element (default openclbilateral).
require_plugin () {
  local element=${1:-openclbilateral}
  if ! gst-inspect-1.0 "$element" >/dev/null 2>&1; then
    echo "error: GStreamer cannot find the element $element" \
      "(GST_PLUGIN_PATH=${GST_PLUGIN_PATH:-unset})." >&2
    echo "Build it first (meson setup build && ninja -C build), or run: bash pipelines/demo.sh" >&2
    exit 1
  fi
}

# Stops the script when GStreamer lacks one of the (non-OpenCL) elements named, saying which.
require_elements () {
  local element
  for element in "$@"; do
    gst-inspect-1.0 "$element" >/dev/null 2>&1 ||
      { echo "error: GStreamer has no $element (see the packages at the top of this script)" >&2; exit 1; }
  done
}

NUM_BUFFERS=${NUM_BUFFERS:-}
if [ -n "$NUM_BUFFERS" ] && ! [[ $NUM_BUFFERS =~ ^[0-9]+$ ]]; then
  echo "error: NUM_BUFFERS must be a number of frames or empty, not \"$NUM_BUFFERS\"" >&2
  exit 2
fi
source_limit=()
[ -z "$NUM_BUFFERS" ] || source_limit=("num-buffers=$NUM_BUFFERS")

# An installed copy of these scripts (the Debian package's
# /usr/share/doc/gstreamer1.0-opencl/examples/pipelines, no meson.build beside it) writes into
# ./out of the current folder instead.
if [ -z "${OUT_DIR:-}" ] && [ ! -f "$REPO_ROOT/meson.build" ]; then
  OUT_DIR=$PWD/out
fi
OUT_DIR=${OUT_DIR:-$REPO_ROOT/out}
mkdir -p "$OUT_DIR"
OUT_DIR=$(cd "$OUT_DIR" && pwd)

# video_caps WIDTHxHEIGHT [FIELDS]: video/x-raw caps of the frame size in WIDTH and HEIGHT (the
# default for either that is unset), FIELDS appended (",framerate=30/1").
video_caps () {
  local default_width=${1%x*} default_height=${1#*x}
  echo "video/x-raw,width=${WIDTH:-$default_width},height=${HEIGHT:-$default_height}${2:-}"
}

# Prints the pipeline (so it can be copied) and runs it. -e: Ctrl-C sends EOS, so files are
# finished properly. gst-launch-1.0 exits non-zero when the pipeline posts an error.
run_pipeline () {
  echo "+ gst-launch-1.0 -e $*" >&2
  gst-launch-1.0 -e "$@"
}

# input_clip NAME FRAMES SOURCE-ARGS...: sets `input` to $INPUT; when that is unset, to
# $OUT_DIR/NAME, encoded first from videotestsrc (NUM_BUFFERS frames, else FRAMES) with
# SOURCE-ARGS (its properties, then "! caps ! encoder ! muxer") into a filesink. Sets
# `frame_limit` (array) to an identity that ends the stream after NUM_BUFFERS frames of a given
# INPUT, else to (). Exits when the input file does not exist.
input_clip () {
  local name=$1 frames=$2
  shift 2
  input=${INPUT:-}
  frame_limit=()
  if [ -z "$input" ]; then
    input=$OUT_DIR/$name
    run_pipeline videotestsrc "num-buffers=${NUM_BUFFERS:-$frames}" "$@" \
      ! filesink location="$input"
  elif [ -n "$NUM_BUFFERS" ]; then
    frame_limit=(identity "eos-after=$NUM_BUFFERS" !)
  fi
  [ -f "$input" ] || { echo "error: INPUT file \"$input\" does not exist" >&2; exit 1; }
}
