/* gst-opencl: the video half of openclsort, the pixel-sorting effect.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The frame is seen as `lines` lines of `length` elements. For packed formats (RGBA, BGRA, RGBx,
 * BGRx, GRAY8, GRAY16_LE, RGBA64_LE) an element is a pixel and the lines are the frame's rows
 * (direction rows) or its columns (direction columns). For 4:2:0 formats (NV12, I420, P010_10LE)
 * an element is a block of 2x2 luma samples with the chroma sample pair of those four, and a line
 * is a pair of luma rows (or of luma columns); with an odd height (width) the last line is the
 * single last luma row (column), of 2x1 (1x2) blocks with their chroma. With an odd width (height)
 * each line ends in a half block that is not sorted: it stays where it is.
 *
 * The key kernel writes one word per element, key << 24 | position in the line, into a
 * lines x length grid; the grid is sorted ascending, line by line, by the shared device sort
 * (kernels/sort.cl); the gather kernel then copies each line's elements in the order of the
 * sorted positions. Packing the position makes the sort stable: elements of equal key keep their
 * order. Keys have 8 bits; a descending sort packs 255 - key.
 *
 * Pixel keys: key = (w.x s[0] + w.y s[1] + w.z s[2] + w.w s[3] + 128) >> 8 over the pixel's
 * samples (the high byte of each 16-bit sample), with weights from the host: (77, 150, 29) on
 * R, G, B for luma, 256 on one sample for a single channel or gray. Block keys: the rounded mean
 * of the block's luma values (the 16-bit words >> value_shift: P010's 10 bits), then >> key_shift
 * to 8 bits (P010: its top 8 bits). Lines are at most 2^24 elements. */

#define POSITION_BITS 24
#define POSITION_MASK ((1u << POSITION_BITS) - 1)

__kernel void
pixel_keys (__global const uchar * src, int src_stride, __global uint * words, int width,
    int height, int columns, int pixel_bytes, int sample_bytes, uint4 weights, int descending)
{
  const int x = get_global_id (0);
  const int y = get_global_id (1);
  if (x >= width || y >= height)
    return;
  /* The high byte of each sample (little-endian 16-bit samples). */
  __global const uchar *pixel = src + (size_t) y * src_stride + (size_t) x * pixel_bytes +
      (sample_bytes - 1);
  uint sum = weights.x * pixel[0];
  if (pixel_bytes == 4 * sample_bytes)
    sum += weights.y * pixel[sample_bytes] + weights.z * pixel[2 * sample_bytes] +
        weights.w * pixel[3 * sample_bytes];
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
  switch (pixel_bytes) {
    case 8:
      vstore8 (vload8 (0, in), 0, out);
      break;
    case 4:
      vstore4 (vload4 (0, in), 0, out);
      break;
    case 2:
      vstore2 (vload2 (0, in), 0, out);
      break;
    default:
      out[0] = in[0];
      break;
  }
}

/* The byte of sample (x, y) of a plane at `offset` with rows `stride` bytes apart. */
inline size_t
sample_at (int offset, int stride, int x, int y, int bytes)
{
  return (size_t) offset + (size_t) y * stride + (size_t) x * bytes;
}

/* Block keys of a 4:2:0 frame: one work-item per sorted block, `along` its position in the
 * line, of `blocks` = (line extent) / 2. The luma plane is at `luma_offset`, rows `luma_stride`
 * bytes apart, samples of `luma_bytes` (1 or 2, little-endian). */
__kernel void
block_keys (__global const uchar * src, int luma_offset, int luma_stride, int luma_bytes,
    int value_shift, int key_shift, __global uint * words, int width, int height, int columns,
    int blocks, int lines, int descending)
{
  const int along = get_global_id (0);
  const int line = get_global_id (1);
  if (along >= blocks || line >= lines)
    return;
  const int across_extent = columns ? width : height;
  const int across_count = 2 * line + 1 < across_extent ? 2 : 1;
  uint sum = 0;
  for (int c = 0; c < across_count; c++) {
    for (int a = 0; a < 2; a++) {
      const int x = columns ? 2 * line + c : 2 * along + a;
      const int y = columns ? 2 * along + a : 2 * line + c;
      __global const uchar *p = src + sample_at (luma_offset, luma_stride, x, y, luma_bytes);
      const uint word = luma_bytes == 2 ? (uint) p[0] | (uint) p[1] << 8 : p[0];
      sum += word >> value_shift;
    }
  }
  /* 4 samples (2 in a single-row line): the rounded mean. */
  const uint count_log2 = across_count == 2 ? 2 : 1;
  const uint mean = (sum + (1u << (count_log2 - 1))) >> count_log2;
  uint key = mean >> key_shift;
  if (descending)
    key = 255 - key;
  words[line * blocks + along] = key << POSITION_BITS | along;
}

/* Copies `bytes` bytes (at most 8). */
inline void
copy_bytes (__global const uchar * in, __global uchar * out, int bytes)
{
  for (int i = 0; i < bytes; i++)
    out[i] = in[i];
}

/* Gathers the blocks of a 4:2:0 frame in their sorted order: one work-item per block position,
 * (extent + 1) / 2 along the line, the last (half) block of an odd extent copied in place.
 * Planes: .x luma, .y and .z chroma (.z bytes 0 when the chroma is one interleaved plane);
 * `bytes` per sample of the luma plane and per chroma position of each chroma plane. */
__kernel void
block_gather (__global const uchar * src, int4 src_offsets, int4 src_strides,
    __global const uint * words, __global uchar * dst, int4 dst_offsets, int4 dst_strides,
    int4 bytes, int width, int height, int columns, int blocks, int lines)
{
  const int along = get_global_id (0);
  const int line = get_global_id (1);
  const int along_extent = columns ? height : width;
  const int across_extent = columns ? width : height;
  if (2 * along >= along_extent || line >= lines)
    return;
  const int from = along < blocks ? (int) (words[line * blocks + along] & POSITION_MASK) : along;
  for (int c = 0; c < 2 && 2 * line + c < across_extent; c++) {
    for (int a = 0; a < 2 && 2 * along + a < along_extent; a++) {
      const int across = 2 * line + c;
      const int to_x = columns ? across : 2 * along + a;
      const int to_y = columns ? 2 * along + a : across;
      const int from_x = columns ? across : 2 * from + a;
      const int from_y = columns ? 2 * from + a : across;
      copy_bytes (src + sample_at (src_offsets.x, src_strides.x, from_x, from_y, bytes.x),
          dst + sample_at (dst_offsets.x, dst_strides.x, to_x, to_y, bytes.x), bytes.x);
    }
  }
  const int to_cx = columns ? line : along, to_cy = columns ? along : line;
  const int from_cx = columns ? line : from, from_cy = columns ? from : line;
  copy_bytes (src + sample_at (src_offsets.y, src_strides.y, from_cx, from_cy, bytes.y),
      dst + sample_at (dst_offsets.y, dst_strides.y, to_cx, to_cy, bytes.y), bytes.y);
  copy_bytes (src + sample_at (src_offsets.z, src_strides.z, from_cx, from_cy, bytes.z),
      dst + sample_at (dst_offsets.z, dst_strides.z, to_cx, to_cy, bytes.z), bytes.z);
}
