/* gst-opencl: brute-force bilateral filter on 8-bit frames.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * out(p) = sum_q w(p,q) I(q) / sum_q w(p,q) over the (2R+1)^2 square around p, borders clamped,
 * w = exp(-|p-q|^2 / (2 s_s^2)) * exp(-d(p,q)^2 / (2 s_r^2)).
 *
 * Both factors are folded into one exp2: the host passes log2 of the spatial factor per offset
 * (spatial_log2) and -log2(e) / (2 s_r^2) (range_scale), so a weight costs one FMA and one exp2.
 * Each work-group stages its tile plus the R-pixel apron in local memory once (clamped at the
 * frame's edges there, so the inner loops have no branches for borders); each work-item then
 * computes OUT_X horizontally adjacent outputs, reading every tile value once for all of them.
 *
 * Build options (all have defaults so the file builds on its own):
 *   CHANNELS  4 (RGBA/BGRA/RGBx/BGRx/RGBA64: channels 0-2 filtered, channel 3 copied), 2 (the
 *             interleaved chroma plane of NV12/P010: one weight from the Euclidean distance of
 *             the pair, whatever MODE says) or 1 (GRAY8/GRAY16, the luma planes of YUV formats)
 *   PLANAR    1 (CHANNELS 2 only): the pair's second channel is a plane of its own (I420's V
 *             beside U), at the offsets and strides in `second`
 *   SAMPLE_BITS 8 (bytes) or 16 (little-endian 16-bit words); rows and plane offsets in bytes
 *   SAMPLE_SHIFT 0, or 6 for P010 (10-bit codes in the high bits of each word): values are the
 *             codes (word >> 6) and results are stored as codes << 6, the low bits zero
 *   MODE      0 colour distance, 1 luma difference, 2 per channel (CHANNELS 4 only)
 *   RADIUS    0..32;  GROUP_W, GROUP_H: work-group shape;  OUT_X: outputs per work-item
 *   TILE_FLOAT 1 to keep the tile as floats, converted once when loaded (GPUs convert bytes to
 *             floats at a quarter of their arithmetic rate: per tap that was the bound); 0 to
 *             keep bytes, a quarter of the local memory, for radii whose float tile does not fit
 *   POLY_EXP2 1 to evaluate exp2 with a polynomial (CPU devices, where native_exp2 is a library
 *             call that does not vectorise); 0 for native_exp2 (GPUs have it in hardware)
 *   PRESCALED 1 (float tile, OUT_X 1, radius up to 8) for the kernel below that spends fewer
 *             instructions per tap: the tile holds the values times s = sqrt(-range_scale), so a
 *             weight's exponent is spatial - |d|^2, three FMAs from the difference (the division
 *             at the end takes s out again); for RGBA in colour and luma modes the tile's fourth
 *             lane holds 1, so the fourth lane of the weighted sum is the sum of the weights (the
 *             output's alpha is read from the frame).
 *   OUT_Y     outputs per work-item down a column (PRESCALED only; 1 otherwise)
 *   COLUMNS   1 or 2 (PRESCALED only): each work-item computes OUT_Y
 *             outputs of one column: neighbouring work-items read neighbouring tile values (no
 *             local memory bank conflicts) and each value read serves up to OUT_Y taps. The
 *             spatial terms are one scale times (dx^2 + dy^2). 1 unrolls every loop (the terms
 *             are then constants, computed once per work-item); 2 keeps the loop over tile rows
 *             (a quarter of the code or less, for the instruction cache; one add per tap).
 *   PTX_EXP2  1 on NVIDIA's driver only: exp2 as the bare hardware approximation (inline PTX
 *             ex2.approx.ftz.f32), without the denormal handling native_exp2 brings there
 */
#include "bilateral_defaults.cl"
#ifndef GROUP_W
#define GROUP_W 16
#endif
#ifndef GROUP_H
#define GROUP_H 16
#endif
#ifndef OUT_X
#define OUT_X 2
#endif

#ifndef POLY_EXP2
#define POLY_EXP2 0
#endif
#ifndef TILE_FLOAT
#define TILE_FLOAT 0
#endif

#ifndef PRESCALED
#define PRESCALED 0
#endif
#ifndef OUT_Y
#define OUT_Y 1
#endif
#if PRESCALED && !TILE_FLOAT
#error "PRESCALED needs TILE_FLOAT"
#endif
#if OUT_Y != 1 && !PRESCALED
#error "OUT_Y > 1 needs PRESCALED"
#endif

#if TILE_FLOAT
#define TILE_T value_t
#else
#define TILE_T pixel_t
#endif

#define MODE_COLOR 0
#define MODE_LUMA 1
#define MODE_PER_CHANNEL 2

#define SPAN (2 * RADIUS + 1)
#define TILE_W (GROUP_W * OUT_X + 2 * RADIUS)
#define TILE_H (GROUP_H * OUT_Y + 2 * RADIUS)

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)

#if SAMPLE_BITS == 16
typedef ushort sample_t;
#define SAMPLE ushort
#else
typedef uchar sample_t;
#define SAMPLE uchar
#endif

#if CHANNELS == 4 && SAMPLE_SHIFT != 0
#error "SAMPLE_SHIFT is for CHANNELS 1 and 2 (P010)"
#endif
#if PLANAR && CHANNELS != 2
#error "PLANAR needs CHANNELS 2"
#endif
#if CHANNELS == 4
typedef CAT (SAMPLE, 4) pixel_t;
typedef float4 value_t;
#define LOAD_PIXEL(row, x) vload4 ((x), (row))
#define STORE_PIXEL(v, row, x) vstore4 ((v), (x), (row))
#define TO_VALUE(p) convert_float4 (p)
#define TO_PIXEL(v) CAT (CAT (convert_, SAMPLE), 4_sat_rte) (v)
#elif CHANNELS == 2 && PLANAR
/* The second channel from the row of the second plane, row##_2 (SECOND_ROW declares it). */
typedef CAT (SAMPLE, 2) pixel_t;
typedef float2 value_t;
#define LOAD_PIXEL(row, x) ((pixel_t) ((row)[(x)], (row##_2)[(x)]) >> (pixel_t) (SAMPLE_SHIFT))
#define STORE_PIXEL(v, row, col) \
  do { const pixel_t p_ = (v); (row)[(col)] = p_.x; (row##_2)[(col)] = p_.y; } while (0)
#define TO_VALUE(p) convert_float2 (p)
#define TO_PIXEL(v) (CAT (CAT (convert_, SAMPLE), 2_sat_rte) (v) << (pixel_t) (SAMPLE_SHIFT))
#elif CHANNELS == 2
typedef CAT (SAMPLE, 2) pixel_t;
typedef float2 value_t;
#define LOAD_PIXEL(row, x) (vload2 ((x), (row)) >> (pixel_t) (SAMPLE_SHIFT))
#define STORE_PIXEL(v, row, x) vstore2 ((v), (x), (row))
#define TO_VALUE(p) convert_float2 (p)
#define TO_PIXEL(v) (CAT (CAT (convert_, SAMPLE), 2_sat_rte) (v) << (pixel_t) (SAMPLE_SHIFT))
#else
typedef sample_t pixel_t;
typedef float value_t;
#define LOAD_PIXEL(row, x) ((sample_t) ((row)[(x)] >> SAMPLE_SHIFT))
#define STORE_PIXEL(v, row, x) ((row)[(x)] = (v))
#define TO_VALUE(p) convert_float (p)
#define TO_PIXEL(v) ((sample_t) (CAT (CAT (convert_, SAMPLE), _sat_rte) (v) << SAMPLE_SHIFT))
#endif

/* Row y of a plane that starts `offset` bytes into the buffer, rows `stride` bytes apart. */
#define ROW(base, offset, stride, y) \
  ((__global const sample_t *) ((base) + (offset) + (size_t) (y) * (stride)))
#define OUT_ROW(base, offset, stride, y) \
  ((__global sample_t *) ((base) + (offset) + (size_t) (y) * (stride)))
/* The same row of the second plane (`second`: its offsets and strides in the source and the
 * destination), as name##_2, where there is one. */
#if PLANAR
#define SECOND_ROW(name, row_y) \
  __global const sample_t *name##_2 = ROW (src, second.x, second.y, row_y)
#define SECOND_OUT_ROW(name, row_y) \
  __global sample_t *name##_2 = OUT_ROW (dst, second.z, second.w, row_y)
#else
#define SECOND_ROW(name, row_y)
#define SECOND_OUT_ROW(name, row_y)
#endif

/* Stages the work-group's tile in local memory: its outputs and the RADIUS apron around them,
 * rows and columns clamped to the frame. Each work-item stores STORE (pixel) for its share of
 * the tile; the kernel has lx, ly, tile_x0 and tile_y0 (the tile's top left in the frame). */
#define LOAD_TILE(tile, STORE) \
  for (int ty = ly; ty < TILE_H; ty += GROUP_H) { \
    const int sy = clamp (tile_y0 + ty, 0, height - 1); \
    __global const sample_t *row = ROW (src, src_offset, src_stride, sy); \
    SECOND_ROW (row, sy); \
    for (int tx = lx; tx < TILE_W; tx += GROUP_W) { \
      const int sx = clamp (tile_x0 + tx, 0, width - 1); \
      tile[ty][tx] = STORE (LOAD_PIXEL (row, sx)); \
    } \
  }
#define AS_LOADED(pixel) (pixel)

/* Weight accumulators: one weight per neighbour, or one per colour channel. */
#if CHANNELS == 4 && MODE == MODE_PER_CHANNEL
typedef float4 weight_t;
#else
typedef float weight_t;
#endif

#if POLY_EXP2
/* 2^x for x <= 0: 2^floor(x) built in the exponent bits times a degree-4 fit of 2^f on [0, 1)
 * (relative error below 4e-6, far under what moves an 8-bit result). Below -126 the weight is
 * 2^-126, as good as zero beside the centre's weight of 1. */
#define DEFINE_POLY_EXP2(type, itype) \
  inline type poly_exp2_##type (type x) \
  { \
    x = fmax (x, (type) (-126.0f)); \
    const type whole = floor (x); \
    const type f = x - whole; \
    const type p = fma (fma (fma (fma ((type) (1.368399655e-02f), f, (type) (5.171782650e-02f)), \
                f, (type) (2.416211631e-01f)), f, (type) (6.929696206e-01f)), f, \
        (type) (1.000003590e+00f)); \
    return p * as_##type ((convert_##itype (whole) + 127) << 23); \
  }
DEFINE_POLY_EXP2 (float, int)
DEFINE_POLY_EXP2 (float4, int4)
#if CHANNELS == 4 && MODE == MODE_PER_CHANNEL
#define WEIGHT_EXP2(x) poly_exp2_float4 (x)
#else
#define WEIGHT_EXP2(x) poly_exp2_float (x)
#endif
#elif defined (PTX_EXP2) && PTX_EXP2
inline float
ptx_exp2 (float x)
{
  float y;
  asm ("ex2.approx.ftz.f32 %0, %1;" : "=f" (y) : "f" (x));
  return y;
}

inline float4
ptx_exp2_float4 (float4 x)
{
  return (float4) (ptx_exp2 (x.x), ptx_exp2 (x.y), ptx_exp2 (x.z), ptx_exp2 (x.w));
}

#if CHANNELS == 4 && MODE == MODE_PER_CHANNEL
#define WEIGHT_EXP2(x) ptx_exp2_float4 (x)

#else
#define WEIGHT_EXP2(x) ptx_exp2 (x)
#endif
#else
#define WEIGHT_EXP2(x) native_exp2 (x)
#endif

inline weight_t
range_term (value_t centre, value_t neighbour, float range_scale, float4 luma)
{
#if CHANNELS == 1
  float d = neighbour - centre;
  return d * d * range_scale;
#elif CHANNELS == 2
  float2 d = neighbour - centre;
  return dot (d, d) * range_scale;
#elif MODE == MODE_LUMA
  float d = dot (neighbour - centre, luma);
  return d * d * range_scale;
#elif MODE == MODE_PER_CHANNEL
  float4 d = neighbour - centre;
  return d * d * range_scale;
#else
  float4 d = neighbour - centre;
  return (d.x * d.x + d.y * d.y + d.z * d.z) * range_scale;
#endif
}

#if CHANNELS == 4
inline pixel_t
finish4 (float4 sum, weight_t weight_sum, sample_t alpha)
{
  float4 value = sum / weight_sum;
  pixel_t out = TO_PIXEL (value);
  out.w = alpha;
  return out;
}
#endif

#if PRESCALED

#if CHANNELS == 4 && MODE != MODE_PER_CHANNEL
#define WEIGHT_IN_W 1
#else
#define WEIGHT_IN_W 0
#endif

/* The exponent of a weight from prescaled values: spatial - d^2, d the scaled difference.
 * Plain operators, contracted under -cl-mad-enable: fma () or mad () with a negated operand
 * made NVIDIA's compiler negate in a separate instruction. */
inline weight_t
range_exponent (value_t centre, value_t neighbour, float spatial, float4 luma)
{
#if CHANNELS == 1
  float d = neighbour - centre;
  return spatial - d * d;
#elif CHANNELS == 2
  float2 d = neighbour - centre;
  float e = spatial - d.x * d.x;
  return e - d.y * d.y;
#elif MODE == MODE_LUMA
  float d = dot ((neighbour - centre).xyz, luma.xyz);
  return spatial - d * d;
#elif MODE == MODE_PER_CHANNEL
  float4 d = neighbour - centre;
  return (float4) (spatial) - d * d;
#else
  float4 d = neighbour - centre;
  float e = spatial - d.x * d.x;
  e = e - d.y * d.y;
  return e - d.z * d.z;
#endif
}

#define N_OUT (OUT_X * OUT_Y)

#ifndef COLUMNS
#define COLUMNS 0
#endif
#if OUT_X != 1 || RADIUS > 8
#error "PRESCALED (COLUMNS) needs OUT_X 1 and a radius up to 8"
#endif

__kernel __attribute__ ((reqd_work_group_size (GROUP_W, GROUP_H, 1)))
void
bilateral (__global const uchar * src, int src_offset, int src_stride,
    __global uchar * dst, int dst_offset, int dst_stride, int width, int height,
    __constant float *spatial_log2, float range_scale, float4 luma, int4 second)
{
  __local value_t tile[TILE_H][TILE_W];

  const int lx = get_local_id (0);
  const int ly = get_local_id (1);
  const int tile_x0 = (int) get_group_id (0) * GROUP_W * OUT_X - RADIUS;
  const int tile_y0 = (int) get_group_id (1) * GROUP_H * OUT_Y - RADIUS;

  /* range_scale < 0 always (sigma-range from 0.01 to 1e5: s from 85 down to 8.5e-6). */
  const float value_scale = sqrt (-range_scale);
#if WEIGHT_IN_W
  const float4 scale4 = (float4) (value_scale, value_scale, value_scale, 0.0f);
  const float4 one_w = (float4) (0.0f, 0.0f, 0.0f, 1.0f);
#endif

#if WEIGHT_IN_W
#define PRESCALE(pixel) fma (TO_VALUE (pixel), scale4, one_w)
#else
#define PRESCALE(pixel) (TO_VALUE (pixel) * value_scale)
#endif
  LOAD_TILE (tile, PRESCALE);
  barrier (CLK_LOCAL_MEM_FENCE);

  /* Tile coordinates of this work-item's first output (top left of its block). */
  const int cx = lx * OUT_X + RADIUS;
  const int cy = ly * OUT_Y + RADIUS;

  value_t centre[N_OUT];
  value_t sum[N_OUT];
#if !WEIGHT_IN_W
  weight_t weight_sum[N_OUT];
#endif
#pragma unroll
  for (int j = 0; j < OUT_Y; j++) {
#pragma unroll
    for (int k = 0; k < OUT_X; k++) {
      centre[j * OUT_X + k] = tile[cy + j][cx + k];
      sum[j * OUT_X + k] = (value_t) (0.0f);
#if !WEIGHT_IN_W
      weight_sum[j * OUT_X + k] = (weight_t) (0.0f);
#endif
    }
  }

  /* Adds tap v, at squared spatial distance `spatial` (scaled), to output j's sums. */
#if WEIGHT_IN_W
#define ADD_WEIGHT(j, w)
#else
#define ADD_WEIGHT(j, w) weight_sum[j] += (w)
#endif
#define ADD_TAP(j, v, spatial) do { \
    const weight_t w = WEIGHT_EXP2 (range_exponent (centre[j], (v), (spatial), luma)); \
    sum[j] += w * (v); \
    ADD_WEIGHT (j, w); \
  } while (0)
#if COLUMNS
  /* spatial_log2 holds scale * (dx^2 + dy^2): the scale is its value at (1, 0). */
  const float spatial_scale = RADIUS > 0 ? spatial_log2[RADIUS * SPAN + RADIUS + 1] : 0.0f;
#if COLUMNS == 2
#pragma unroll 1
  for (int r = -RADIUS; r < OUT_Y + RADIUS; r++) {
#pragma unroll
    for (int c = -RADIUS; c <= RADIUS; c++) {
      const value_t v = tile[cy + r][cx + c];
      const float spatial_x = spatial_scale * (float) (c * c);
#pragma unroll
      for (int j = 0; j < OUT_Y; j++) {
        const int dy = r - j;
        if (dy >= -RADIUS && dy <= RADIUS) {
          const float spatial = spatial_x + spatial_scale * (float) (dy * dy);
          ADD_TAP (j, v, spatial);
        }
      }
    }
  }
#else  /* COLUMNS == 1 */
#pragma unroll
  for (int r = -RADIUS; r < OUT_Y + RADIUS; r++) {
#pragma unroll
    for (int c = -RADIUS; c <= RADIUS; c++) {
      const value_t v = tile[cy + r][cx + c];
#pragma unroll
      for (int j = 0; j < OUT_Y; j++) {
        const int dy = r - j;
        if (dy >= -RADIUS && dy <= RADIUS) {
          const float spatial = spatial_scale * (float) (c * c + dy * dy);
          ADD_TAP (j, v, spatial);
        }
      }
    }
  }
#endif  /* COLUMNS == 2 */
#else
#error "PRESCALED needs COLUMNS 1 or 2"
#endif  /* COLUMNS */

  const int y0 = (int) get_group_id (1) * GROUP_H * OUT_Y + ly * OUT_Y;
  const int x0 = (int) get_group_id (0) * GROUP_W * OUT_X + lx * OUT_X;
  const float unscale = 1.0f / value_scale;
#pragma unroll
  for (int j = 0; j < OUT_Y; j++) {
    const int y = y0 + j;
    if (y >= height)
      break;
    __global sample_t *out_row = OUT_ROW (dst, dst_offset, dst_stride, y);
    SECOND_OUT_ROW (out_row, y);
#if CHANNELS == 4
    __global const sample_t *in_row = ROW (src, src_offset, src_stride, y);
#endif
#pragma unroll
    for (int k = 0; k < OUT_X; k++) {
      const int o = j * OUT_X + k;
      if (x0 + k < width) {
#if WEIGHT_IN_W
        STORE_PIXEL (finish4 (sum[o] * unscale, sum[o].w, LOAD_PIXEL (in_row, x0 + k).w),
            out_row, x0 + k);
#elif CHANNELS == 4
        STORE_PIXEL (finish4 (sum[o] * unscale, weight_sum[o], LOAD_PIXEL (in_row, x0 + k).w),
            out_row, x0 + k);
#else
        STORE_PIXEL (TO_PIXEL (sum[o] * unscale / weight_sum[o]), out_row, x0 + k);
#endif
      }
    }
  }
}

#else  /* !PRESCALED */

__kernel __attribute__ ((reqd_work_group_size (GROUP_W, GROUP_H, 1)))
void
bilateral (__global const uchar * src, int src_offset, int src_stride,
    __global uchar * dst, int dst_offset, int dst_stride, int width, int height,
    __constant float *spatial_log2, float range_scale, float4 luma, int4 second)
{
#if TILE_FLOAT
  __local value_t tile[TILE_H][TILE_W];
#define TILE_VALUE(p) (p)
#else
  __local pixel_t tile[TILE_H][TILE_W];
#define TILE_VALUE(p) TO_VALUE (p)
#endif

  const int lx = get_local_id (0);
  const int ly = get_local_id (1);
  const int tile_x0 = (int) get_group_id (0) * GROUP_W * OUT_X - RADIUS;
  const int tile_y0 = (int) get_group_id (1) * GROUP_H - RADIUS;

#if TILE_FLOAT
  LOAD_TILE (tile, TO_VALUE);
#else
  LOAD_TILE (tile, AS_LOADED);
#endif
  barrier (CLK_LOCAL_MEM_FENCE);

  /* Tile coordinates of this work-item's first output. */
  const int cx = lx * OUT_X + RADIUS;
  const int cy = ly + RADIUS;

  value_t centre[OUT_X];
  value_t sum[OUT_X];
  weight_t weight_sum[OUT_X];
#pragma unroll
  for (int k = 0; k < OUT_X; k++) {
    centre[k] = TILE_VALUE (tile[cy][cx + k]);
    sum[k] = (value_t) (0.0f);
    weight_sum[k] = (weight_t) (0.0f);
  }

  for (int dy = -RADIUS; dy <= RADIUS; dy++) {
    __constant float *spatial_row = spatial_log2 + (dy + RADIUS) * SPAN + RADIUS;
    __local const TILE_T *tile_row = &tile[cy + dy][0];
    /* Columns cx - R .. cx + OUT_X - 1 + R serve all OUT_X outputs. */
    for (int c = -RADIUS; c < OUT_X + RADIUS; c++) {
      const value_t v = TILE_VALUE (tile_row[cx + c]);
#pragma unroll
      for (int k = 0; k < OUT_X; k++) {
        const int dx = c - k;
        if (dx >= -RADIUS && dx <= RADIUS) {
          const weight_t w = WEIGHT_EXP2 (range_term (centre[k], v, range_scale, luma) +
              spatial_row[dx]);
          sum[k] += w * v;
          weight_sum[k] += w;
        }
      }
    }
  }

  const int y = (int) get_group_id (1) * GROUP_H + ly;
  const int x0 = (int) get_group_id (0) * GROUP_W * OUT_X + lx * OUT_X;
  if (y >= height)
    return;
  __global sample_t *out_row = OUT_ROW (dst, dst_offset, dst_stride, y);
  SECOND_OUT_ROW (out_row, y);
#pragma unroll
  for (int k = 0; k < OUT_X; k++) {
    if (x0 + k < width) {
#if CHANNELS == 4
      STORE_PIXEL (finish4 (sum[k], weight_sum[k], (sample_t) tile[cy][cx + k].w), out_row,
          x0 + k);
#else
      STORE_PIXEL (TO_PIXEL (sum[k] / weight_sum[k]), out_row, x0 + k);
#endif
    }
  }
}

#endif  /* PRESCALED */
