/* gst-opencl: direct multi-dimensional correlation with N filters at once.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * out_n(x,y,z) = sum_{i,j,l} f_n(i,j,l) in(clamp(x+i-CX), clamp(y+j-CY), clamp(z+l-CZ))
 * with C = (K-1)/2 per axis: centred, same size, every border clamped to the edge.
 *
 * Direct convolution of volumes is limited by loads, not arithmetic, when each work-item
 * computes one output. Here each work-item computes a block of outputs: UNROLL neighbours along
 * x times ROWS neighbours along y, for FILTER_BLOCK filters (all NUM_FILTERS unless the output
 * is a tensor and the variant splits them; then NUM_FILTERS / FILTER_BLOCK work-items share
 * each output voxel, one block of filters each). For every filter row it holds the ROWS input
 * windows of UNROLL + KX - 1 values in registers, and each tap it reads is multiplied into
 * UNROLL x ROWS outputs: loads per multiply-add fall to about 1 / (UNROLL ROWS) for the filters
 * and (KX + UNROLL - 1) / (KX UNROLL FILTER_BLOCK) for the input. A plain row of outputs (ROWS
 * 1, input from global memory) instead walks the input columns one value at a time, multiplying
 * each into the outputs it feeds. Every loop inside a filter row has a compile-time trip count,
 * so the compiler unrolls it and keeps the accumulators in registers. Every layout adds the taps
 * of an output in the same order (plane, row, column), so all give the same floats.
 *
 * Filters are packed filter index fastest ("KXYZ"): f_n(i,j,l) = filters[((l*KY + j)*KX + i)*N
 * + n], so the taps of a block's filters at one position are adjacent (read four at a time when
 * the block is a multiple of four). Every work-item of a work-group reads the same tap at the
 * same time, so they suit the constant cache (FILTER_MEM 1) when they fit in it; otherwise, or
 * when the variant asks, the work-group's block is copied once into local memory (FILTER_MEM
 * 2); else they are read from global memory (FILTER_MEM 0).
 *
 * The input is read from global memory (clamped per column and row), or, with TILE, each plane
 * the work-group needs is first staged in local memory as values (converted once, borders
 * clamped while staging), and the windows are read from there, vectors of floats where the
 * alignment allows.
 *
 * The third axis is either a volume (planes plane_stride elements apart, clamped to 0..depth-1)
 * or, with TEMPORAL, a window of frames: tap l reads the ring slot slots[l], which the host
 * has already clamped to the frames that exist. The third global dimension counts planes times
 * filter blocks.
 *
 * Build options (all have defaults so the file builds on its own):
 *   KX, KY, KZ     filter size per axis (odd)          NUM_FILTERS  N
 *   UNROLL, ROWS   outputs per work-item along x, y    GROUP_X, GROUP_Y  work-group shape
 *   FILTER_BLOCK   filters per work-item (divides N; N unless OUT_MODE is 0)
 *   TILE           1: input planes staged in local memory per work-group; 2: the same in two
 *                  buffers, the next plane's values loaded into registers while the current
 *                  plane is computed (one barrier per plane, the loads' latency hidden)
 *   CHANNELS       1, 2 or 4 interleaved channels filtered alike (a plane of gray or luma
 *                  samples, interleaved chroma pairs such as NV12's UV plane, RGBA pixels)
 *   IN_FLOAT       0: uchar input (ushort with IN_SHORT), 1: float input
 *   IN_SHORT       1: ushort input (16-bit samples; IN_FLOAT 0)
 *   OUT_MODE       0: float, N responses contiguous per voxel (tensor layout)
 *                  1: float, CHANNELS per pixel (intermediate of separable passes; N = 1)
 *                  2: uchar pixels of OUT_PIXEL bytes, response n in byte n, after
 *                     value * scale + offset, rounded to nearest and saturated
 *                  3: ushort pixels of CHANNELS samples, after value * scale + offset,
 *                     rounded to nearest and saturated to 0 .. 65535; with OUT_SHIFT s > 0,
 *                     rounded to the nearest multiple of 2^s instead and saturated to
 *                     0 .. 65536 - 2^s (P010's 10 bits in the high bits of each word)
 *   OUT_PIXEL      bytes per output pixel for OUT_MODE 2 (CHANNELS 1: 1 or 4; CHANNELS 2: 2;
 *                  CHANNELS 4: 4)
 *   OUT_SHIFT      low bits left 0 in each OUT_MODE 3 sample (see above)
 *   COPY_ALPHA     1: sample 3 of each output pixel (a byte, or a ushort with OUT_MODE 3)
 *                  comes from alpha_src at the centre slot
 *   TEMPORAL       0: volume, 1: ring of frames
 *   FILTER_MEM     see above
 *
 * The input starts src_offset elements into src (a plane of a multi-plane frame); alpha_src's
 * strides are in bytes whatever the sample size. */
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
#ifndef ROWS
#define ROWS 1
#endif
#ifndef FILTER_BLOCK
#define FILTER_BLOCK NUM_FILTERS
#endif
#ifndef TILE
#define TILE 0
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
#ifndef IN_SHORT
#define IN_SHORT 0
#endif
#ifndef OUT_MODE
#define OUT_MODE 0
#endif
#ifndef OUT_PIXEL
#define OUT_PIXEL 1
#endif
#ifndef OUT_SHIFT
#define OUT_SHIFT 0
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

#if NUM_FILTERS % FILTER_BLOCK != 0 || (OUT_MODE != 0 && FILTER_BLOCK != NUM_FILTERS)
#error "FILTER_BLOCK must divide NUM_FILTERS, and equal it unless OUT_MODE is 0"
#endif
#define BLOCKS (NUM_FILTERS / FILTER_BLOCK)
/* Taps of the filters one work-group uses. */
#define BLOCK_TAPS (KX * KY * KZ * FILTER_BLOCK)
/* Input columns one work-item reads per row. */
#define SPAN_X (KX + UNROLL - 1)

#if IN_FLOAT
typedef float in_scalar_t;
#elif IN_SHORT
typedef ushort in_scalar_t;
#else
typedef uchar in_scalar_t;
#endif

#if CHANNELS == 4
typedef float4 value_t;
#define LOAD_VALUE(row, x) convert_float4 (vload4 ((x), (row)))
#define STORE_VALUE vstore4
#elif CHANNELS == 2
typedef float2 value_t;
#define LOAD_VALUE(row, x) convert_float2 (vload2 ((x), (row)))
#define STORE_VALUE vstore2
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

/* Floats between the taps of one position: the local copy holds only the block's filters. */
#if FILTER_MEM == 2
#define FILTER_STRIDE FILTER_BLOCK
#else
#define FILTER_STRIDE NUM_FILTERS
#endif
/* Taps read per load: four adjacent filters as one float4 when they stay 16-byte aligned. */
#if FILTER_BLOCK % 4 == 0 && FILTER_STRIDE % 4 == 0
#define TAP_VECTOR 4
#else
#define TAP_VECTOR 1
#endif

/* The staged input plane: TILE_H rows of TILE_PITCH values, row r and column c holding input
 * (group x origin - CX + c, group y origin - CY + r). A work-item's window starts at column
 * local x * UNROLL, so windows are read as vectors of WINDOW_VECTOR floats when UNROLL allows;
 * SPAN_PAD rounds the window up to whole vectors. */
#if CHANNELS == 1 && UNROLL % 4 == 0
#define WINDOW_VECTOR 4
#elif CHANNELS == 1 && UNROLL % 2 == 0
#define WINDOW_VECTOR 2
#else
#define WINDOW_VECTOR 1
#endif
#if TILE
#define SPAN_PAD ((SPAN_X + WINDOW_VECTOR - 1) / WINDOW_VECTOR * WINDOW_VECTOR)
#else
#define SPAN_PAD SPAN_X
#endif
#define TILE_PITCH ((GROUP_X - 1) * UNROLL + SPAN_PAD)
#define TILE_H (GROUP_Y * ROWS + KY - 1)
#define TILE_VALUES (TILE_PITCH * TILE_H)
#define GROUP_SIZE (GROUP_X * GROUP_Y)
/* Values of a plane each work-item stages. */
#define STAGE_STEPS ((TILE_VALUES + GROUP_SIZE - 1) / GROUP_SIZE)
#if TILE == 2
#define TILE_BUFFERS 2
#else
#define TILE_BUFFERS 1
#endif
/* float4s of one staged plane, and the values of one buffer (whole float4s, so the second
 * buffer stays aligned for vector reads). */
#define TILE_VECTORS ((TILE_VALUES * CHANNELS + 3) / 4)
#define TILE_BUFFER_VALUES (TILE_VECTORS * 4 / CHANNELS)
/* A plain row of outputs read straight from global memory walks the input columns one value at
 * a time instead of holding windows (fewer live values: CPU drivers, which turn every private
 * value into a vector register across work-items, run it faster). */
#define PLAIN_ROW (ROWS == 1 && !TILE)

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

#if TILE
/* Value k of this work-item's share of a staged plane (row r, column c of the tile, clamped to
 * the input); consecutive work-items take consecutive values, so the reads coalesce. */
inline value_t
stage_value (__global const in_scalar_t * plane, int t, int tile_x, int tile_y, int width,
    int height, int src_row_stride)
{
  const int r = t / TILE_PITCH;
  const int c = t - r * TILE_PITCH;
  return LOAD_VALUE (plane + (size_t) clamp (tile_y + r, 0, height - 1) * src_row_stride,
      clamp (tile_x + c, 0, width - 1));
}

/* Stages a whole plane into `dest`. Consecutive work-items stage consecutive values (coalesced
 * reads, no bank conflicts); the trip count is a constant, so the loads can be in flight
 * together. */
inline void
stage_plane (__local value_t * dest, __global const in_scalar_t * plane, int local_index,
    int tile_x, int tile_y, int width, int height, int src_row_stride)
{
#pragma unroll 8
  for (int k = 0; k < STAGE_STEPS; k++) {
    const int t = local_index + k * GROUP_SIZE;
    if (t < TILE_VALUES)
      dest[t] = stage_value (plane, t, tile_x, tile_y, width, height, src_row_stride);
  }
}
#endif

#if OUT_MODE == 3
/* The 16-bit samples of `value`: rounded to nearest and saturated, to the grid of multiples of
 * 2^OUT_SHIFT (the same rounding, ties to even, as the 8-bit output's convert_uchar_sat_rte). */
#if OUT_SHIFT
#define WORD_GRID(v) (clamp (rint ((v) * (1.0f / (1 << OUT_SHIFT))), 0.0f, \
        (float) ((1 << (16 - OUT_SHIFT)) - 1)) * (float) (1 << OUT_SHIFT))
#else
#define WORD_GRID(v) (v)
#endif
#if CHANNELS == 4
typedef ushort4 word_t;
#define TO_WORDS(v) convert_ushort4_sat_rte (WORD_GRID (v))
#elif CHANNELS == 2
typedef ushort2 word_t;
#define TO_WORDS(v) convert_ushort2_sat_rte (WORD_GRID (v))
#else
typedef ushort word_t;
#define TO_WORDS(v) convert_ushort_sat_rte (WORD_GRID (v))
#endif

inline void
store_words (value_t value, int x, __global ushort * out
#if COPY_ALPHA
    , ushort alpha
#endif
    )
{
  word_t words = TO_WORDS (value);
#if COPY_ALPHA
  words.w = alpha;
#endif
#if CHANNELS == 1
  out[x] = words;
#else
  STORE_VALUE (words, x, out);
#endif
}
#endif

__kernel __attribute__ ((reqd_work_group_size (GROUP_X, GROUP_Y, 1)))
void
convolve (__global const in_scalar_t * src, int src_row_stride, int src_plane_stride,
    int16 slots, __global uchar *dst, int dst_offset, int dst_row_stride, int dst_plane_stride,
    int width, int height, int depth, FILTER_ARG_SPACE const float *filters, float scale,
    float offset,
    __global const uchar * alpha_src, int alpha_row_stride, int alpha_plane_stride,
    int src_offset)
{
  src += src_offset;
  /* Local arrays as float4 so that vector reads from them are aligned. */
#if FILTER_MEM == 2
  __local float4 filter_storage[(BLOCK_TAPS + 3) / 4];
#endif
#if TILE
  __local float4 tile_storage[TILE_BUFFERS * TILE_VECTORS];
#endif
  const int local_x = (int) get_local_id (0);
  const int local_y = (int) get_local_id (1);
  const int local_index = local_y * GROUP_X + local_x;
  (void) local_index;           /* for the local copies only */
  const int block = (int) get_global_id (2) % BLOCKS;
  const int z = (int) get_global_id (2) / BLOCKS;

#if FILTER_MEM == 2
  __local float *local_filters = (__local float *) filter_storage;
  /* A compile-time trip count, unrolled in part: several loads in flight per work-item. */
#pragma unroll 8
  for (int k = 0; k < (BLOCK_TAPS + GROUP_SIZE - 1) / GROUP_SIZE; k++) {
    const int t = local_index + k * GROUP_SIZE;
    if (t < BLOCK_TAPS)
      local_filters[t] = filters[t / FILTER_BLOCK * NUM_FILTERS + block * FILTER_BLOCK +
          t % FILTER_BLOCK];
  }
  barrier (CLK_LOCAL_MEM_FENCE);
  FILTER_SPACE const float *f = local_filters;
#else
  FILTER_SPACE const float *f = filters + block * FILTER_BLOCK;
#endif

  const int x0 = (int) get_global_id (0) * UNROLL;
  const int y0 = (int) get_global_id (1) * ROWS;
#if TILE
  /* Every work-item stages its share of each plane, even past the edge; only the stores at
   * the end are skipped there. */
  __local value_t *tile = (__local value_t *) tile_storage;
  const int tile_x = (int) get_group_id (0) * (GROUP_X * UNROLL) - CX;
  const int tile_y = (int) get_group_id (1) * (GROUP_Y * ROWS) - CY;
#else
  /* Work-items past the edge still took part in the barrier above; now they stop. */
  if (x0 >= width || y0 >= height)
    return;
  /* Clamped input columns, the same for every row and plane. */
  int columns[SPAN_X];
#pragma unroll
  for (int c = 0; c < SPAN_X; c++)
    columns[c] = clamp (x0 + c - CX, 0, width - 1);
#endif

  value_t acc[ROWS][UNROLL][FILTER_BLOCK];
#pragma unroll
  for (int v = 0; v < ROWS; v++) {
#pragma unroll
    for (int u = 0; u < UNROLL; u++) {
#pragma unroll
      for (int n = 0; n < FILTER_BLOCK; n++)
        acc[v][u][n] = (value_t) (0.0f);
    }
  }

#if TILE == 2
  /* Plane 0 staged before the loop; plane l + 1 loaded while plane l is computed. */
  value_t staged[STAGE_STEPS];
  stage_plane (tile, src + plane_offset (z, 0, depth, src_plane_stride, slots), local_index,
      tile_x, tile_y, width, height, src_row_stride);
  barrier (CLK_LOCAL_MEM_FENCE);
#endif

  for (int l = 0; l < KZ; l++) {
#if TILE == 2
    __local const value_t *plane_tile = tile + (l & 1) * TILE_BUFFER_VALUES;
    if (l + 1 < KZ) {
      __global const in_scalar_t *next = src + plane_offset (z, l + 1, depth,
          src_plane_stride, slots);
#pragma unroll
      for (int k = 0; k < STAGE_STEPS; k++) {
        const int t = local_index + k * GROUP_SIZE;
        if (t < TILE_VALUES)
          staged[k] = stage_value (next, t, tile_x, tile_y, width, height, src_row_stride);
      }
    }
#elif TILE
    __global const in_scalar_t *plane = src + plane_offset (z, l, depth, src_plane_stride,
        slots);
    __local const value_t *plane_tile = tile;
    barrier (CLK_LOCAL_MEM_FENCE);      /* the previous plane is no longer read */
    stage_plane (tile, plane, local_index, tile_x, tile_y, width, height, src_row_stride);
    barrier (CLK_LOCAL_MEM_FENCE);
#else
    __global const in_scalar_t *plane = src + plane_offset (z, l, depth, src_plane_stride,
        slots);
#endif
    for (int j = 0; j < KY; j++) {
      FILTER_SPACE const float *f_row = f + (l * KY + j) * KX * FILTER_STRIDE;
#if PLAIN_ROW
      /* One input value at a time: the fewest live values besides the accumulators. */
      __global const in_scalar_t *row = plane + (size_t) clamp (y0 + j - CY, 0, height - 1) *
          src_row_stride;
#pragma unroll
      for (int c = 0; c < SPAN_X; c++) {
        const value_t value = LOAD_VALUE (row, columns[c]);
        /* Column c is tap i = c - u of output u. */
#pragma unroll
        for (int u = 0; u < UNROLL; u++) {
          const int i = c - u;
          if (i >= 0 && i < KX) {
#pragma unroll
            for (int n = 0; n < FILTER_BLOCK; n++)
              acc[0][u][n] = fma ((value_t) (f_row[i * FILTER_STRIDE + n]), value, acc[0][u][n]);
          }
        }
      }
#else
      /* Input windows: w[v][c] is column x0 + c - CX of the row tap j of output row v reads. */
      value_t w[ROWS][SPAN_PAD];
#pragma unroll
      for (int v = 0; v < ROWS; v++) {
#if TILE
        __local const value_t *window = plane_tile + (local_y * ROWS + v + j) * TILE_PITCH +
            local_x * UNROLL;
#if WINDOW_VECTOR == 4
#pragma unroll
        for (int c = 0; c < SPAN_PAD; c += 4) {
          const float4 q = *(__local const float4 *) (window + c);
          w[v][c] = q.s0;
          w[v][c + 1] = q.s1;
          w[v][c + 2] = q.s2;
          w[v][c + 3] = q.s3;
        }
#elif WINDOW_VECTOR == 2
#pragma unroll
        for (int c = 0; c < SPAN_PAD; c += 2) {
          const float2 q = *(__local const float2 *) (window + c);
          w[v][c] = q.s0;
          w[v][c + 1] = q.s1;
        }
#else
#pragma unroll
        for (int c = 0; c < SPAN_PAD; c++)
          w[v][c] = window[c];
#endif
#else
        __global const in_scalar_t *row = plane + (size_t) clamp (y0 + v + j - CY, 0,
            height - 1) * src_row_stride;
#pragma unroll
        for (int c = 0; c < SPAN_X; c++)
          w[v][c] = LOAD_VALUE (row, columns[c]);
#endif
      }

      /* Each tap (four filters at once where aligned) serves UNROLL x ROWS outputs. */
#pragma unroll
      for (int i = 0; i < KX; i++) {
#pragma unroll
        for (int n = 0; n < FILTER_BLOCK; n += TAP_VECTOR) {
#if TAP_VECTOR == 4
          const float4 q = ((FILTER_SPACE const float4 *) f_row)[(i * FILTER_STRIDE + n) / 4];
          const float taps[4] = { q.s0, q.s1, q.s2, q.s3 };
#else
          const float taps[1] = { f_row[i * FILTER_STRIDE + n] };
#endif
          /* Tap i of output column u reads window column u + i. */
#pragma unroll
          for (int k = 0; k < TAP_VECTOR; k++) {
#pragma unroll
            for (int v = 0; v < ROWS; v++) {
#pragma unroll
              for (int u = 0; u < UNROLL; u++)
                acc[v][u][n + k] = fma ((value_t) (taps[k]), w[v][u + i], acc[v][u][n + k]);
            }
          }
        }
      }
#endif
    }
#if TILE == 2
    /* The other buffer was last read in the plane before this one, which every work-item
     * finished before the barrier that ended it. */
    if (l + 1 < KZ) {
      __local value_t *next_tile = tile + ((l + 1) & 1) * TILE_BUFFER_VALUES;
#pragma unroll
      for (int k = 0; k < STAGE_STEPS; k++) {
        const int t = local_index + k * GROUP_SIZE;
        if (t < TILE_VALUES)
          next_tile[t] = staged[k];
      }
      barrier (CLK_LOCAL_MEM_FENCE);
    }
#endif
  }

#if OUT_MODE == 0 && FILTER_BLOCK % 4 == 0 && NUM_FILTERS % 4 == 0
  /* Four responses per store where every voxel's block starts 16 bytes aligned (the buffer's
   * base always is): a store per float would ask the memory for each 4 bytes on its own, which
   * cost an H100 up to 30% of the kernel time with 32 filters. The same for every work-item. */
  const bool vector_out = ((dst_offset | dst_row_stride | dst_plane_stride) & 3) == 0;
#endif
#pragma unroll
  for (int v = 0; v < ROWS; v++) {
    const int y = y0 + v;
    if (y >= height)
      break;
#if OUT_MODE == 0
    __global float *out = (__global float *) dst + dst_offset + (size_t) z * dst_plane_stride +
        (size_t) y * dst_row_stride + block * FILTER_BLOCK;
#if FILTER_BLOCK % 4 == 0 && NUM_FILTERS % 4 == 0
    if (vector_out) {
#pragma unroll
      for (int u = 0; u < UNROLL; u++) {
        if (x0 + u < width) {
#pragma unroll
          for (int n = 0; n < FILTER_BLOCK; n += 4)
            *(__global float4 *) (out + (size_t) (x0 + u) * NUM_FILTERS + n) =
                (float4) (acc[v][u][n], acc[v][u][n + 1], acc[v][u][n + 2], acc[v][u][n + 3]);
        }
      }
      continue;
    }
#endif
#pragma unroll
    for (int u = 0; u < UNROLL; u++) {
      if (x0 + u < width) {
#pragma unroll
        for (int n = 0; n < FILTER_BLOCK; n++)
          out[(size_t) (x0 + u) * NUM_FILTERS + n] = acc[v][u][n];
      }
    }
#elif OUT_MODE == 1
    __global float *out = (__global float *) dst + dst_offset + (size_t) z * dst_plane_stride +
        (size_t) y * dst_row_stride;
#pragma unroll
    for (int u = 0; u < UNROLL; u++) {
      if (x0 + u < width) {
#if CHANNELS != 1
        STORE_VALUE (acc[v][u][0], x0 + u, out);
#else
        out[x0 + u] = acc[v][u][0];
#endif
      }
    }
#elif OUT_MODE == 3
    __global ushort *out = (__global ushort *) dst + dst_offset + (size_t) z *
        dst_plane_stride + (size_t) y * dst_row_stride;
#if COPY_ALPHA
    __global const ushort *alpha_row = (__global const ushort *) (alpha_src +
        plane_offset (z, CZ, depth, alpha_plane_stride, slots) + (size_t) y * alpha_row_stride);
#endif
#pragma unroll
    for (int u = 0; u < UNROLL; u++) {
      const int x = x0 + u;
      if (x < width)
        store_words (acc[v][u][0] * scale + offset, x, out
#if COPY_ALPHA
            , alpha_row[(size_t) x * 4 + 3]
#endif
            );
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
        uchar4 pixel = convert_uchar4_sat_rte (acc[v][u][0] * scale + offset);
#if COPY_ALPHA
        pixel.w = alpha_row[(size_t) x * 4 + 3];
#endif
        vstore4 (pixel, x, out);
#elif CHANNELS == 2
        vstore2 (convert_uchar2_sat_rte (acc[v][u][0] * scale + offset), x, out);
#elif OUT_PIXEL == 1
        out[x] = convert_uchar_sat_rte (acc[v][u][0] * scale + offset);
#else
        /* Up to four responses as the bytes of one pixel; missing ones are 0, a missing fourth
         * (alpha) is opaque. */
        uchar bytes[OUT_PIXEL];
#pragma unroll
        for (int b = 0; b < OUT_PIXEL; b++)
          bytes[b] = b < NUM_FILTERS ? convert_uchar_sat_rte (acc[v][u][b < NUM_FILTERS ? b :
                  0] * scale + offset) : (b == 3 ? 255 : 0);
#pragma unroll
        for (int b = 0; b < OUT_PIXEL; b++)
          out[(size_t) x * OUT_PIXEL + b] = bytes[b];
#endif
      }
    }
#endif
  }
  (void) alpha_src;
  (void) alpha_row_stride;
  (void) alpha_plane_stride;
  (void) scale;
  (void) offset;
}
