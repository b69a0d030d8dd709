/* gst-opencl: the video half of openclsort, the pixel-sorting effect.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The frame is seen as `rows` lines of `length` pixels: its rows (direction rows) or its columns
 * (direction columns). pixel_keys writes one word per pixel, key << 24 | position in the line,
 * into a rows x length grid; the grid is sorted ascending, line by line, by the shared device
 * sort (kernels/sort.cl); pixel_gather then copies each line's pixels in the order of the sorted
 * positions. Packing the position makes the sort stable: pixels of equal key keep their order.
 *
 * key = (w.x p[0] + w.y p[1] + w.z p[2] + w.w p[3] + 128) >> 8 over the pixel's bytes, with
 * weights from the host: (77, 150, 29) on R, G, B for luma, 256 on one byte for a single
 * channel or GRAY8. A descending sort packs 255 - key. Lines are at most 2^24 pixels. */

#define POSITION_BITS 24
#define POSITION_MASK ((1u << POSITION_BITS) - 1)

__kernel void
pixel_keys (__global const uchar * src, int src_stride, __global uint * words, int width,
    int height, int columns, int pixel_bytes, uint4 weights, int descending)
{
  const int x = get_global_id (0);
  const int y = get_global_id (1);
  if (x >= width || y >= height)
    return;
  __global const uchar *pixel = src + (size_t) y * src_stride + (size_t) x * pixel_bytes;
  uint sum = weights.x * pixel[0];
  if (pixel_bytes == 4)
    sum += weights.y * pixel[1] + weights.z * pixel[2] + weights.w * pixel[3];
  uint key = (sum + 128) >> 8;
  if (descending)
    key = 255 - key;
  const uint line = columns ? x : y;
  const uint position = columns ? y : x;
  const uint length = columns ? height : width;
  words[line * length + position] = key << POSITION_BITS | position;
}

__kernel void
pixel_gather (__global const uchar * src, int src_stride, __global const uint * words,
    __global uchar * dst, int dst_stride, int width, int height, int columns, int pixel_bytes)
{
  const int x = get_global_id (0);
  const int y = get_global_id (1);
  if (x >= width || y >= height)
    return;
  const uint line = columns ? x : y;
  const uint position = columns ? y : x;
  const uint length = columns ? height : width;
  const uint from = words[line * length + position] & POSITION_MASK;
  const int from_x = columns ? x : (int) from;
  const int from_y = columns ? (int) from : y;
  __global const uchar *in = src + (size_t) from_y * src_stride + (size_t) from_x * pixel_bytes;
  __global uchar *out = dst + (size_t) y * dst_stride + (size_t) x * pixel_bytes;
  if (pixel_bytes == 4)
    vstore4 (vload4 (0, in), 0, out);
  else
    out[0] = in[0];
}
