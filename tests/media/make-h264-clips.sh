#!/usr/bin/env bash
# gst-opencl: makes the H.264 clips of the CUDA-memory tests and benchmarks (the GPU machine
# decodes them with nvh264dec) and the MD5 of every frame as a software decoder gives it here.
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# usage: tests/media/make-h264-clips.sh OUT_DIR
# Writes OUT_DIR/clip-360p.h264 (30 frames, 640x360) with OUT_DIR/clip-360p.md5 (one line per
# decoded NV12 frame, tightly packed planes, from avdec_h264) and OUT_DIR/clip-1080p.h264 (300
# frames, 1920x1080, for the decoder benchmark). Needs x264enc (gstreamer1.0-plugins-ugly),
# h264parse (gstreamer1.0-plugins-bad) and avdec_h264 (gstreamer1.0-libav); exits 77 without
# them. H.264 decoding is exact, so any conforming decoder gives these frames bit for bit.
set -euo pipefail
out=${1:?usage: make-h264-clips.sh OUT_DIR}
mkdir -p "$out"
for element in x264enc h264parse avdec_h264; do
  gst-inspect-1.0 "$element" >/dev/null 2>&1 || { echo "no $element here"; exit 77; }
done
clip() {  # name width height frames [videotestsrc settings]
  gst-launch-1.0 -q videotestsrc ${5:-pattern=ball} num-buffers="$4" ! \
    "video/x-raw,format=I420,width=$2,height=$3,framerate=30/1" ! \
    x264enc speed-preset=veryfast bitrate=4000 key-int-max=30 ! \
    "video/x-h264,stream-format=byte-stream" ! filesink location="$out/$1.h264"
}
clip clip-360p 640 360 30
clip clip-1080p 1920 1080 300 "pattern=zone-plate kx2=20 ky2=20 kt=1"
# One MD5 per decoded frame: multifilesink writes each NV12 frame to a file of its own.
frames=$(mktemp -d)
gst-launch-1.0 -q filesrc location="$out/clip-360p.h264" ! h264parse ! avdec_h264 ! \
  videoconvert ! "video/x-raw,format=NV12" ! multifilesink location="$frames/%03d.nv12"
(cd "$frames" && md5sum ./*.nv12 | awk '{print $1}') > "$out/clip-360p.md5"
rm -rf "$frames"
echo "$(wc -l < "$out/clip-360p.md5") frames: $(ls -l "$out"/clip-*.h264 | awk '{print $5, $9}' | tr '\n' ' ')"
