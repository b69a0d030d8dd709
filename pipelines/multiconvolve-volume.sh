#!/usr/bin/env bash
# The blog experiment as a pipeline: a 256^3 uint8 volume through 8 filters of 7^3 in one pass
# with openclmulticonvolve, the N responses of each voxel written contiguously as float32:
#   filesrc blocksize=W*H*D ! other/tensors,...,types=uint8,dimensions=W:H:D
#     ! openclmulticonvolve num-kernels=N kernel-size=K dims=3 kernels-file=... ! filesink
# make-volume.py writes the volume (a noisy ball) and the filters (Gabor-like, KXYZ order).
#   SIZE          W, or WxHxD (default 256; 32 when NUM_BUFFERS is set, to keep checks fast)
#   NUM_KERNELS   N (default 8)          KERNEL_SIZE   k (default 7)
#   OUTPUT        the responses (default $OUT_DIR/multiconvolve-volume.raw; N x W x H x D x 4
#                 bytes: 512 MiB for the default)
#   NUM_BUFFERS, BUILD_DIR, OUT_DIR: see common.sh.
#
# outputs: multiconvolve-volume.raw
# prints: responses:
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/common.sh"
require_plugin openclmulticonvolve

size=${SIZE:-}
[ -n "$size" ] || { [ -n "$NUM_BUFFERS" ] && size=32 || size=256; }
if [[ $size =~ ^[0-9]+$ ]]; then
  width=$size height=$size depth=$size
elif [[ $size =~ ^([0-9]+)x([0-9]+)x([0-9]+)$ ]]; then
  width=${BASH_REMATCH[1]} height=${BASH_REMATCH[2]} depth=${BASH_REMATCH[3]}
else
  echo "error: SIZE must be W or WxHxD, not \"$size\"" >&2
  exit 2
fi
num_kernels=${NUM_KERNELS:-8}
kernel_size=${KERNEL_SIZE:-7}
volume=$OUT_DIR/volume-${width}x${height}x${depth}.raw
filters=$OUT_DIR/filters-${num_kernels}x${kernel_size}.raw
output=${OUTPUT:-$OUT_DIR/multiconvolve-volume.raw}

python3 "$here/make-volume.py" --size "${width}x${height}x${depth}" --output "$volume" \
  --filters "$num_kernels" --kernel-size "$kernel_size" --filters-output "$filters"

run_pipeline filesrc location="$volume" blocksize=$((width * height * depth)) \
  ! "other/tensors,format=static,num_tensors=1,types=uint8,dimensions=$width:$height:$depth,framerate=0/1" \
  ! openclmulticonvolve num-kernels="$num_kernels" kernel-size="$kernel_size" dims=3 \
    kernels-file="$filters" \
  ! filesink location="$output"

expected=$((num_kernels * width * height * depth * 4))
actual=$(stat -c %s "$output")
if [ "$actual" -ne "$expected" ]; then
  echo "error: $output holds $actual bytes, expected $expected" >&2
  exit 1
fi
echo "responses: $num_kernels x ${width}x${height}x${depth} float32 ($actual bytes) in $output"
