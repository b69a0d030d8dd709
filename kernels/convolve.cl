/* gst-opencl: direct multi-dimensional correlation with N filters at once.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * out_n(x,y,z) = sum_{i,j,l} f_n(i,j,l) in(clamp(x+i-CX), clamp(y+j-CY), clamp(z+l-CZ))
 * with C = (K-1)/2 per axis: centred, same size, every border clamped to the edge.
 *
 * Direct convolution of volumes is limited by memory traffic, not arithmetic, when each
 * work-item computes one output. Here each work-item computes UNROLL neighbouring outputs along
 * x for all NUM_FILTERS filters: every input value it loads is multiplied into all of them
 * before the next load. The column loop has a compile-time trip count, so the compiler unrolls
 * it and the tests deciding which outputs a column feeds disappear.
 *
 * Filters are packed filter index fastest ("KXYZ"): f_n(i,j,l) = filters[((l*KY + j)*KX + i)*N
 * + n], so the N taps one input meets are adjacent. Every work-item reads the same tap at the
 * same time, so they suit the constant cache (FILTER_MEM 1) when they fit in it; otherwise they
 * are copied once per work-group into local memory (FILTER_MEM 2) or read from global memory
 * (FILTER_MEM 0).
 *
 * The third axis is either a volume (planes plane_stride elements apart, clamped to 0..depth-1)
 * or, with TEMPORAL, a window of frames: tap l reads the ring slot slots[l], which the host
 * has already clamped to the frames that exist.
 *
 * Build options (all have defaults so the file builds on its own):
 *   KX, KY, KZ     filter size per axis (odd)          NUM_FILTERS  N
 *   UNROLL         outputs per work-item along x       GROUP_X, GROUP_Y  work-group shape
 *   CHANNELS       1, or 4 (four interleaved channels filtered alike, RGBA pixels)
 *   IN_FLOAT       0: uchar input, 1: float input
 *   OUT_MODE       0: float, N responses contiguous per voxel (tensor layout)
 *                  1: float, CHANNELS per pixel (intermediate of separable passes; N = 1)
 *                  2: uchar pixels of OUT_PIXEL bytes, response n in byte n, after
 *                     value * scale + offset, rounded to nearest and saturated
 *   OUT_PIXEL      bytes per output pixel for OUT_MODE 2 (CHANNELS 1: 1 or 4; CHANNELS 4: 4)
 *   COPY_ALPHA     1: byte 3 of each output pixel comes from alpha_src at the centre slot
 *   TEMPORAL       0: volume, 1: ring of frames
 *   FILTER_MEM     see above */
#ifndef KX
#define KX 3
#endif
#ifndef KY
#define KY 3
#endif
#ifndef KZ
#define KZ 1
#endif
#ifndef NUM_FILTERS
#define NUM_FILTERS 1
#endif
#ifndef UNROLL
#define UNROLL 4
#endif
#ifndef GROUP_X
#define GROUP_X 16
#endif
#ifndef GROUP_Y
#define GROUP_Y 4
#endif
#ifndef CHANNELS
#define CHANNELS 1
#endif
#ifndef IN_FLOAT
#define IN_FLOAT 0
#endif
#ifndef OUT_MODE
#define OUT_MODE 0
#endif
#ifndef OUT_PIXEL
#define OUT_PIXEL 1
#endif
#ifndef COPY_ALPHA
#define COPY_ALPHA 0
#endif
#ifndef TEMPORAL
#define TEMPORAL 0
#endif
#ifndef FILTER_MEM
#define FILTER_MEM 1
#endif

#define CX ((KX - 1) / 2)
#define CY ((KY - 1) / 2)
#define CZ ((KZ - 1) / 2)
#define TAPS (KX * KY * KZ * NUM_FILTERS)
/* Input columns one work-item reads per row. */
#define SPAN_X (KX + UNROLL - 1)

#if IN_FLOAT
typedef float in_scalar_t;
#else
typedef uchar in_scalar_t;
#endif

#if CHANNELS == 4
typedef float4 value_t;
#define LOAD_VALUE(row, x) convert_float4 (vload4 ((x), (row)))
#else
typedef float value_t;
#define LOAD_VALUE(row, x) convert_float ((row)[(x)])
#endif

#if FILTER_MEM == 1
#define FILTER_ARG_SPACE __constant
#define FILTER_SPACE __constant
#elif FILTER_MEM == 2
#define FILTER_ARG_SPACE __global
#define FILTER_SPACE __local
#else
#define FILTER_ARG_SPACE __global
#define FILTER_SPACE __global
#endif

/* Offset in elements of input plane l for output plane z. */
inline size_t
plane_offset (int z, int l, int depth, int plane_stride, int16 slots)
{
#if TEMPORAL
  int slot_array[16];
  vstore16 (slots, 0, slot_array);
  (void) z;
  (void) depth;
  return (size_t) slot_array[l] * (size_t) plane_stride;
#else
  (void) slots;
  return (size_t) clamp (z + l - CZ, 0, depth - 1) * (size_t) plane_stride;
#endif
}

__kernel __attribute__ ((reqd_work_group_size (GROUP_X, GROUP_Y, 1)))
void
convolve (__global const in_scalar_t * src, int src_row_stride, int src_plane_stride,
    int16 slots, __global uchar *dst, int dst_offset, int dst_row_stride, int dst_plane_stride,
    int width, int height, int depth, FILTER_ARG_SPACE const float *filters, float scale,
    float offset,
    __global const uchar * alpha_src, int alpha_row_stride, int alpha_plane_stride)
{
#if FILTER_MEM == 2
  __local float local_filters[TAPS];
  const int local_index = get_local_id (1) * GROUP_X + get_local_id (0);
  for (int t = local_index; t < TAPS; t += GROUP_X * GROUP_Y)
    local_filters[t] = filters[t];
  barrier (CLK_LOCAL_MEM_FENCE);
  FILTER_SPACE const float *f = local_filters;
#else
  FILTER_SPACE const float *f = filters;
#endif

  const int x0 = (int) get_global_id (0) * UNROLL;
  const int y = (int) get_global_id (1);
  const int z = (int) get_global_id (2);
  /* Work-items past the edge still took part in the barrier above; now they stop. */
  if (x0 >= width || y >= height)
    return;

  value_t acc[UNROLL][NUM_FILTERS];
#pragma unroll
  for (int u = 0; u < UNROLL; u++) {
#pragma unroll
    for (int n = 0; n < NUM_FILTERS; n++)
      acc[u][n] = (value_t) (0.0f);
  }

  /* Clamped input columns, the same for every row and plane. */
  int columns[SPAN_X];
#pragma unroll
  for (int c = 0; c < SPAN_X; c++)
    columns[c] = clamp (x0 + c - CX, 0, width - 1);

  for (int l = 0; l < KZ; l++) {
    __global const in_scalar_t *plane = src + plane_offset (z, l, depth, src_plane_stride,
        slots);
    for (int j = 0; j < KY; j++) {
      const int sy = clamp (y + j - CY, 0, height - 1);
      __global const in_scalar_t *row = plane + (size_t) sy * src_row_stride;
      FILTER_SPACE const float *f_row = f + (l * KY + j) * KX * NUM_FILTERS;
#pragma unroll
      for (int c = 0; c < SPAN_X; c++) {
        const value_t v = LOAD_VALUE (row, columns[c]);
        /* Column c is tap i = c - u of output u. */
#pragma unroll
        for (int u = 0; u < UNROLL; u++) {
          const int i = c - u;
          if (i >= 0 && i < KX) {
#pragma unroll
            for (int n = 0; n < NUM_FILTERS; n++)
              acc[u][n] = fma ((value_t) (f_row[i * NUM_FILTERS + n]), v, acc[u][n]);
          }
        }
      }
    }
  }

#if OUT_MODE == 0
  __global float *out = (__global float *) dst + dst_offset + (size_t) z * dst_plane_stride +
      (size_t) y * dst_row_stride;
#pragma unroll
  for (int u = 0; u < UNROLL; u++) {
    if (x0 + u < width) {
#pragma unroll
      for (int n = 0; n < NUM_FILTERS; n++)
        out[(size_t) (x0 + u) * NUM_FILTERS + n] = acc[u][n];
    }
  }
#elif OUT_MODE == 1
  __global float *out = (__global float *) dst + dst_offset + (size_t) z * dst_plane_stride +
      (size_t) y * dst_row_stride;
#pragma unroll
  for (int u = 0; u < UNROLL; u++) {
    if (x0 + u < width) {
#if CHANNELS == 4
      vstore4 (acc[u][0], x0 + u, out);
#else
      out[x0 + u] = acc[u][0];
#endif
    }
  }
#else
  __global uchar *out = (__global uchar *) dst + dst_offset + (size_t) z * dst_plane_stride +
      (size_t) y * dst_row_stride;
#if COPY_ALPHA
  __global const uchar *alpha_row = alpha_src + plane_offset (z, CZ, depth,
      alpha_plane_stride, slots) + (size_t) y * alpha_row_stride;
#endif
#pragma unroll
  for (int u = 0; u < UNROLL; u++) {
    const int x = x0 + u;
    if (x < width) {
#if CHANNELS == 4
      uchar4 pixel = convert_uchar4_sat_rte (acc[u][0] * scale + offset);
#if COPY_ALPHA
      pixel.w = alpha_row[(size_t) x * 4 + 3];
#endif
      vstore4 (pixel, x, out);
#elif OUT_PIXEL == 1
      out[x] = convert_uchar_sat_rte (acc[u][0] * scale + offset);
#else
      /* Up to four responses as the bytes of one pixel; missing ones are 0, a missing fourth
       * (alpha) is opaque. */
      uchar bytes[OUT_PIXEL];
#pragma unroll
      for (int b = 0; b < OUT_PIXEL; b++)
        bytes[b] = b < NUM_FILTERS ? convert_uchar_sat_rte (acc[u][b < NUM_FILTERS ? b : 0] *
            scale + offset) : (b == 3 ? 255 : 0);
#pragma unroll
      for (int b = 0; b < OUT_PIXEL; b++)
        out[(size_t) x * OUT_PIXEL + b] = bytes[b];
#endif
    }
  }
#endif
  (void) alpha_src;
  (void) alpha_row_stride;
  (void) alpha_plane_stride;
  (void) scale;
  (void) offset;
}
