#!/usr/bin/env bash
# openclkernel running pipelines/kernels/vignette.cl, its `strength` animated while playing: a
# GstController curve on the element's child object `strength` takes it from START to END over
# the stream (kernel-vignette.py, PyGObject: Debian's python3-gst-1.0). The frames go into a
# WebM file (VP8), and the first, middle and last frames into PNG stills; the log gives the
# strength at those frames and a pixel near the corner getting darker.
#   OUTPUT          the WebM file (default $OUT_DIR/kernel-vignette.webm)
#   WIDTH, HEIGHT   frame size (default 640x360)
#   START, END      strength at the first and the last frame (default 0 and 1)
#   NUM_BUFFERS, BUILD_DIR, OUT_DIR: see common.sh; without NUM_BUFFERS, 90 frames (3 s).
# The stills are $OUT_DIR/kernel-vignette-0.png, -1.png, -2.png.
#
# A static strength needs no script:
#   gst-launch-1.0 videotestsrc ! video/x-raw,format=RGBA ! openclkernel \
#     location=pipelines/kernels/vignette.cl parameters="p,strength=0.2" strength::value=0.8 \
#     ! videoconvert ! autovideosink
#
# outputs: kernel-vignette.webm kernel-vignette-0.png kernel-vignette-1.png kernel-vignette-2.png
# prints: strength
set -euo pipefail
source "$(cd "$(dirname "$0")" && pwd)/common.sh"
require_plugin openclkernel

# The Python that has PyGObject (a pyenv shim may come first on PATH).
python=""
for candidate in python3 /usr/bin/python3; do
  if "$candidate" -c 'import gi' >/dev/null 2>&1; then
    python=$candidate
    break
  fi
done
if [ -z "$python" ]; then
  echo "error: no python3 with PyGObject (apt install python3-gst-1.0)" >&2
  exit 1
fi

output=${OUTPUT:-$OUT_DIR/kernel-vignette.webm}
command=("$python" "$REPO_ROOT/pipelines/kernel-vignette.py"
  --kernel "$REPO_ROOT/pipelines/kernels/vignette.cl" --frames "${NUM_BUFFERS:-90}"
  --width "${WIDTH:-640}" --height "${HEIGHT:-360}" --start "${START:-0}" --end "${END:-1}"
  --output "$output" --stills "$OUT_DIR/kernel-vignette-%d.png")
echo "+ ${command[*]}" >&2
"${command[@]}"
