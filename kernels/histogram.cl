/* gst-opencl: per-frame histograms of one plane, and the graph drawn into the frame.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * `histogram` counts the samples of one plane into `counts` (uint, channel-major: channel c,
 * bin b at (first_channel + c) * bins + b; zeroed by the host before the first plane).
 *
 * Each work-group owns a contiguous run of `pixels_per_group` pixels (row-major over the plane)
 * and its work-items stride through it GROUP_SIZE apart, so neighbouring work-items read
 * neighbouring pixels. Counting goes to COPIES sub-histograms per work-group in local memory
 * (copy = local id % COPIES, copies of one bin side by side so they sit in different banks),
 * which divides the contention of a busy bin by COPIES. On top of that every work-item keeps,
 * per channel, the bin of its last sample and how many samples in a row fell there, and adds the
 * run with one atomic when the bin changes: a frame of one colour (the worst case for atomics,
 * every work-item on one bin) costs one local atomic per channel per work-item instead of one
 * per sample. At the end the copies are summed and each work-group adds its non-zero bins to
 * `counts` with one global atomic each.
 *
 * With GROUP_SIZE 1 (what the host picks on CPU devices, where a work-group runs on one core
 * anyway) the single work-item walks its pixels row by row and counts with plain adds into the
 * histogram it owns, cycling through its COPIES pixel by pixel so that a run of one bin makes
 * COPIES independent chains of adds instead of one.
 *
 * `draw` renders the bars of the first DRAW_CHANNELS channels into the top-left
 * draw_width x draw_height pixels of the plane (see docs/openclhistogram.md for the exact rule);
 * `fill_region` sets a rectangle of bytes (neutral chroma under the graph).
 *
 * Build options (all have defaults so the file builds on its own):
 *   PIXEL_BYTES  bytes from one pixel to the next in the plane (4, 2 or 1)
 *   CHANNELS     samples counted per pixel (1..3), at byte offsets CH0, CH1, CH2 of the pixel
 *   LUMA         1: also count Y = (299 CH0 + 587 CH1 + 114 CH2 + 500) / 1000 as channel
 *                CHANNELS (CH0..CH2 must then be red, green, blue)
 *   GROUP_SIZE   work-items per work-group;  COPIES: sub-histograms per work-group (power of 2)
 *   MAX_BINS     largest bin count (the local histograms are sized for it)
 */
#ifndef PIXEL_BYTES
#define PIXEL_BYTES 4
#endif
#ifndef CHANNELS
#define CHANNELS 3
#endif
#ifndef CH0
#define CH0 0
#endif
#ifndef CH1
#define CH1 1
#endif
#ifndef CH2
#define CH2 2
#endif
#ifndef LUMA
#define LUMA 1
#endif
#ifndef GROUP_SIZE
#define GROUP_SIZE 256
#endif
#ifndef COPIES
#define COPIES 8
#endif
#ifndef MAX_BINS
#define MAX_BINS 256
#endif

#define HIST_CHANNELS (CHANNELS + LUMA)
#define DRAW_CHANNELS CHANNELS

inline void
add_run (__local uint * hist, uint slot, uint copy, uint run)
{
  if (run)
    atomic_add (&hist[slot * COPIES + copy], run);
}

/* The samples of one pixel, and its luma when LUMA. */
inline void
read_samples (__global const uchar * pixel, uint * value)
{
  value[0] = pixel[CH0];
#if CHANNELS > 1
  value[1] = pixel[CH1];
#endif
#if CHANNELS > 2
  value[2] = pixel[CH2];
#endif
#if LUMA
  value[CHANNELS] = (299u * value[0] + 587u * value[1] + 114u * value[2] + 500u) / 1000u;
#endif
}

__kernel __attribute__ ((reqd_work_group_size (GROUP_SIZE, 1, 1)))
void
histogram (__global const uchar * frame, ulong plane_offset, int stride, int width,
    uint pixels, uint pixels_per_group, uint bins, uint bin_shift,
    __global uint * counts, uint first_channel)
{
  __local uint hist[HIST_CHANNELS * MAX_BINS * COPIES];

  const uint lid = get_local_id (0);
  const uint slots = HIST_CHANNELS * bins;
  for (uint i = lid; i < slots * COPIES; i += GROUP_SIZE)
    hist[i] = 0;
  barrier (CLK_LOCAL_MEM_FENCE);

  const uint start = get_group_id (0) * pixels_per_group;
  /* start < pixels for every launched group; the subtraction keeps the sum from overflowing. */
  const uint end = start + min (pixels_per_group, pixels - start);
  __global const uchar *plane = frame + plane_offset;
#if GROUP_SIZE == 1
  /* One work-item: walk its pixels row by row and count every sample straight into the
   * histogram it owns (a repeated bin costs a dependent add, which is cheap on a CPU core). */
  {
    uint y = start / (uint) width;
    uint x = start - y * (uint) width;
    uint p = start;
    while (p < end) {
      const uint row_end = p + min ((uint) width - x, end - p);
      __global const uchar *pixel = plane + (size_t) y * stride + (size_t) x * PIXEL_BYTES;
      for (; p < row_end; p++, pixel += PIXEL_BYTES) {
        uint value[HIST_CHANNELS];
        read_samples (pixel, value);
#pragma unroll
        for (int c = 0; c < HIST_CHANNELS; c++)
          hist[(c * bins + (value[c] >> bin_shift)) * COPIES + (p & (COPIES - 1))]++;
      }
      x = 0;
      y++;
    }
  }
#else
  const uint copy = lid & (COPIES - 1);
  uint run_bin[HIST_CHANNELS];
  uint run_length[HIST_CHANNELS];
#pragma unroll
  for (int c = 0; c < HIST_CHANNELS; c++) {
    run_bin[c] = 0;
    run_length[c] = 0;
  }
  /* One division to find the first pixel; then x and y follow the steps of GROUP_SIZE. */
  uint y = (start + lid) / (uint) width;
  uint x = start + lid - y * (uint) width;
  for (uint p = start + lid; p < end; p += GROUP_SIZE) {
    __global const uchar *pixel = plane + (size_t) y * stride + (size_t) x * PIXEL_BYTES;
    uint value[HIST_CHANNELS];
    read_samples (pixel, value);
#pragma unroll
    for (int c = 0; c < HIST_CHANNELS; c++) {
      const uint bin = value[c] >> bin_shift;
      if (bin == run_bin[c]) {
        run_length[c]++;
      } else {
        add_run (hist, c * bins + run_bin[c], copy, run_length[c]);
        run_bin[c] = bin;
        run_length[c] = 1;
      }
    }
    x += GROUP_SIZE;
    while (x >= (uint) width) {
      x -= width;
      y++;
    }
  }
#pragma unroll
  for (int c = 0; c < HIST_CHANNELS; c++)
    add_run (hist, c * bins + run_bin[c], copy, run_length[c]);
#endif
  barrier (CLK_LOCAL_MEM_FENCE);

  __global uint *out = counts + first_channel * bins;
  for (uint slot = lid; slot < slots; slot += GROUP_SIZE) {
    uint sum = 0;
    for (int k = 0; k < COPIES; k++)
      sum += hist[slot * COPIES + k];
    if (sum)
      atomic_add (&out[slot], sum);
  }
}

/* Bars of channels 0 .. DRAW_CHANNELS - 1 of `counts`, each scaled to its own tallest bin. Column
 * x shows bin x * bins / draw_width; a bar of count n is max (1, n * draw_height / peak) pixels
 * tall (0 when n is 0), standing on the bottom row of the region. Inside the region, the sample of
 * a lit channel becomes 255 and every other sample a quarter of its value (the dimmed
 * background). Every work-item of a group takes part in finding the peaks before any returns. */
__kernel void
draw (__global uchar * frame, ulong plane_offset, int stride, int draw_width, int draw_height,
    uint bins, __global const uint * counts)
{
  __local uint peak[DRAW_CHANNELS];
  const uint lid = get_local_id (1) * get_local_size (0) + get_local_id (0);
  const uint group_size = get_local_size (0) * get_local_size (1);
  if (lid < DRAW_CHANNELS)
    peak[lid] = 0;
  barrier (CLK_LOCAL_MEM_FENCE);
  for (uint i = lid; i < DRAW_CHANNELS * bins; i += group_size)
    atomic_max (&peak[i / bins], counts[i]);
  barrier (CLK_LOCAL_MEM_FENCE);

  const int x = get_global_id (0);
  const int y = get_global_id (1);
  if (x >= draw_width || y >= draw_height)
    return;
  const uint bin = (uint) x * bins / (uint) draw_width;
  const uint row_from_bottom = (uint) (draw_height - 1 - y);
  __global uchar *pixel = frame + plane_offset + (size_t) y * stride + (size_t) x * PIXEL_BYTES;
  const int offsets[3] = { CH0, CH1, CH2 };
  for (int c = 0; c < DRAW_CHANNELS; c++) {
    const uint n = counts[c * bins + bin];
    const uint bar = n ? max (1u, (uint) ((ulong) n * (ulong) draw_height / peak[c])) : 0u;
    __global uchar *sample = pixel + offsets[c];
    *sample = row_from_bottom < bar ? (uchar) 255 : (uchar) (*sample >> 2);
  }
}

__kernel void
fill_region (__global uchar * frame, ulong plane_offset, int stride, int row_bytes, int rows,
    uchar value)
{
  const int x = get_global_id (0);
  const int y = get_global_id (1);
  if (x < row_bytes && y < rows)
    frame[plane_offset + (size_t) y * stride + x] = value;
}
