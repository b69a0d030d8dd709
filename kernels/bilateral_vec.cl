/* gst-opencl: bilateral filter for CPU devices, in explicit vectors.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The same filter as bilateral.cl (same window, same weights folded into one exp2 per tap), laid
 * out for a CPU's SIMD units instead of a GPU's work-items: PoCL does not vectorise the tiled
 * kernel across work-items, so here each work-item computes VEC horizontally adjacent outputs of
 * one row itself, in structure-of-arrays form. A row of VEC RGBA pixels is loaded as VEC packed
 * 32-bit words (unaligned loads, any stride), and each channel is taken out with a mask and a
 * shift, so channel c of the VEC pixels is one floatVEC and every tap is a handful of vector
 * instructions over VEC outputs. No local memory: the rows of the window stay in the CPU's
 * caches. Work-items whose window crosses the left or right edge gather their pixels with
 * clamped indices; rows are clamped for every work-item.
 *
 * Pixels of other sizes are packed words the same way: 16-bit RGBA as 64-bit words, a chroma
 * pair (NV12, P010) as 16- or 32-bit words, loaded 16 samples at a time.
 *
 * Build options (all have defaults so the file builds on its own):
 *   CHANNELS  4 (channels 0-2 filtered, channel 3 copied), 2 (interleaved chroma: one weight
 *             from the Euclidean distance of the pair, whatever MODE says) or 1 (gray, one plane)
 *   PLANAR    1 (CHANNELS 2 only): the pair's second channel is a plane of its own (I420's V
 *             beside U), at the offsets and strides in `second`
 *   SAMPLE_BITS 8 or 16 (little-endian words); plane offsets and rows in bytes
 *   SAMPLE_SHIFT 0, or 6 for P010: values are the codes (word >> 6), results stored as
 *             codes << 6 (CHANNELS 1 and 2)
 *   MODE      0 colour distance, 1 luma difference, 2 per channel (CHANNELS 4 only)
 *   RADIUS    0..32;  VEC: outputs per work-item, 8 or 16
 */
#include "bilateral_defaults.cl"
#ifndef VEC
#define VEC 16
#endif

#define MODE_COLOR 0
#define MODE_LUMA 1
#define MODE_PER_CHANNEL 2
#define SPAN (2 * RADIUS + 1)

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define vfloat CAT(float, VEC)
#define vint CAT(int, VEC)
#define vuint CAT(uint, VEC)
#define convert_vfloat CAT(convert_float, VEC)
#define convert_vint CAT(convert_int, VEC)
#define convert_vuint CAT(convert_uint, VEC)
#define convert_vuint_sat_rte CAT(CAT(convert_uint, VEC), _sat_rte)
#define as_vfloat CAT(as_float, VEC)
#define vloadv CAT(vload, VEC)
#define vstorev CAT(vstore, VEC)

#if SAMPLE_BITS == 16
typedef ushort sample_t;
#define SAMPLE ushort
#define SAMPLE_MASK 0xffffu
#else
typedef uchar sample_t;
#define SAMPLE uchar
#define SAMPLE_MASK 0xffu
#endif

/* A pixel as one unsigned word, sample 0 in the low bits: 64 bits for 16-bit RGBA, else 32
 * (narrower pixels zero-extended). */
#if CHANNELS * SAMPLE_BITS == 64
typedef ulong word_t;
#define WORD ulong
#define ALPHA_MASK 0xffff000000000000ul
#else
typedef uint word_t;
#define WORD uint
#define ALPHA_MASK 0xff000000u
#endif
#define vword CAT(WORD, VEC)
#define convert_vword_sat_rte CAT(CAT(convert_, vword), _sat_rte)

/* One pixel at column x of a row of samples (and of the second plane's row2), as a word. */
#if PLANAR
#define PIXEL_WORD(row, row2, x) ((uint) (row)[(x)] | ((uint) (row2)[(x)] << SAMPLE_BITS))
#define STORE_WORD(w, row, row2, x) \
  do { (row)[(x)] = (sample_t) (w); (row2)[(x)] = (sample_t) ((w) >> SAMPLE_BITS); } while (0)
#elif CHANNELS == 4 && SAMPLE_BITS == 16
#define PIXEL_WORD(row, row2, x) as_ulong (vload4 ((x), (row)))
#define STORE_WORD(w, row, row2, x) vstore4 (as_ushort4 (w), (x), (row))
#elif CHANNELS == 4
#define PIXEL_WORD(row, row2, x) as_uint (vload4 ((x), (row)))
#define STORE_WORD(w, row, row2, x) vstore4 (as_uchar4 (w), (x), (row))
#elif CHANNELS == 2 && SAMPLE_BITS == 16
#define PIXEL_WORD(row, row2, x) as_uint (vload2 ((x), (row)))
#define STORE_WORD(w, row, row2, x) vstore2 (as_ushort2 (w), (x), (row))
#elif CHANNELS == 2
#define PIXEL_WORD(row, row2, x) ((uint) as_ushort (vload2 ((x), (row))))
#define STORE_WORD(w, row, row2, x) vstore2 (as_uchar2 ((ushort) (w)), (x), (row))
#else
#define PIXEL_WORD(row, row2, x) ((uint) (row)[(x)])
#define STORE_WORD(w, row, row2, x) ((row)[(x)] = (sample_t) (w))
#endif

/* Multi-channel pixels are loaded and stored 16 samples (a chunk: 16 / CHANNELS pixels) at a
 * time: CHUNK_WORDS turns a chunk into words, CHUNK_SAMPLES back. */
#define N_CHUNKS (VEC * CHANNELS / 16)
#if CHANNELS == 4 && SAMPLE_BITS == 16
#define CHUNK_WORDS(v) as_ulong4 (v)
#define CHUNK_SAMPLES(w) as_ushort16 (w)
#elif CHANNELS == 4
#define CHUNK_WORDS(v) as_uint4 (v)
#define CHUNK_SAMPLES(w) as_uchar16 (w)
#elif CHANNELS == 2 && SAMPLE_BITS == 16
#define CHUNK_WORDS(v) as_uint8 (v)
#define CHUNK_SAMPLES(w) as_ushort16 (w)
#elif CHANNELS == 2
#define CHUNK_WORDS(v) convert_uint8 (as_ushort8 (v))
#define CHUNK_SAMPLES(w) as_uchar16 (convert_ushort8 (w))
#endif

/* Row y of a plane `offset` bytes into the buffer, rows `stride` bytes apart. */
#define ROW(base, offset, stride, y) \
  ((__global const sample_t *) ((base) + (offset) + (size_t) (y) * (stride)))
/* Row y of the second plane (`second`: its offsets and strides in the source and destination);
 * the first plane's again where there is none, never read then. */
#if PLANAR
#define SECOND_ROW(row_y) ROW (src, second.x, second.y, row_y)
#else
#define SECOND_ROW(row_y) ROW (src, src_offset, src_stride, row_y)
#endif

/* 2^x for x <= 0, as in bilateral.cl: 2^floor(x) in the exponent bits times a degree-4 fit. */
inline vfloat
poly_exp2 (vfloat x)
{
  x = fmax (x, (vfloat) (-126.0f));
  const vfloat whole = floor (x);
  const vfloat f = x - whole;
  const vfloat p = fma (fma (fma (fma ((vfloat) (1.368399655e-02f), f,
                  (vfloat) (5.171782650e-02f)), f, (vfloat) (2.416211631e-01f)), f,
          (vfloat) (6.929696206e-01f)), f, (vfloat) (1.000003590e+00f));
  return p * as_vfloat ((convert_vint (whole) + 127) << 23);
}

/* VEC pixels starting at column x of a row, as packed words (sample 0 in the low bits). */
inline vword
load_pixels (__global const sample_t * row, __global const sample_t * row2, int x)
{
#if PLANAR
  return CAT (convert_, vword) (vloadv (0, row + x)) |
      (CAT (convert_, vword) (vloadv (0, row2 + x)) << SAMPLE_BITS);
#elif CHANNELS == 1
  return CAT (convert_, vword) (vloadv (0, row + x));
#else
  __global const sample_t *p = row + (size_t) x * CHANNELS;
#if N_CHUNKS == 1
  return CHUNK_WORDS (vload16 (0, p));
#elif N_CHUNKS == 2
  return (vword) (CHUNK_WORDS (vload16 (0, p)), CHUNK_WORDS (vload16 (1, p)));
#else
  return (vword) (CHUNK_WORDS (vload16 (0, p)), CHUNK_WORDS (vload16 (1, p)),
      CHUNK_WORDS (vload16 (2, p)), CHUNK_WORDS (vload16 (3, p)));
#endif
#endif
}

/* The same with every column clamped into [0, width - 1] (work-items at the left/right edges). */
inline vword
gather_pixels (__global const sample_t * row, __global const sample_t * row2, int x, int width)
{
  word_t words[VEC];
  for (int i = 0; i < VEC; i++)
    words[i] = PIXEL_WORD (row, row2, clamp (x + i, 0, width - 1));
  return vloadv (0, words);
}

/* Stores VEC pixels from column x of a row (all inside the frame). */
inline void
store_pixels (vword out, __global sample_t * row, __global sample_t * row2, int x)
{
#define convert_vsample CAT (CAT (convert_, SAMPLE), VEC)
#if PLANAR
  vstorev (convert_vsample (out & SAMPLE_MASK), 0, row + x);
  vstorev (convert_vsample (out >> SAMPLE_BITS), 0, row2 + x);
#elif CHANNELS == 1
  vstorev (convert_vsample (out), 0, row + x);
#else
  __global sample_t *p = row + (size_t) x * CHANNELS;
#if N_CHUNKS == 1
  vstore16 (CHUNK_SAMPLES (out), 0, p);
#elif N_CHUNKS == 2
  vstore16 (CHUNK_SAMPLES (out.lo), 0, p);
  vstore16 (CHUNK_SAMPLES (out.hi), 1, p);
#else
  vstore16 (CHUNK_SAMPLES (out.lo.lo), 0, p);
  vstore16 (CHUNK_SAMPLES (out.lo.hi), 1, p);
  vstore16 (CHUNK_SAMPLES (out.hi.lo), 2, p);
  vstore16 (CHUNK_SAMPLES (out.hi.hi), 3, p);
#endif
#endif
}

#define CHANNEL(px, c) \
  convert_vfloat (((px) >> (SAMPLE_BITS * (c) + SAMPLE_SHIFT)) & (SAMPLE_MASK >> SAMPLE_SHIFT))
/* A one-channel pixel's value: the word itself unless shifted. */
#if SAMPLE_SHIFT
#define VALUE0(px) CHANNEL (px, 0)
#else
#define VALUE0(px) convert_vfloat (px)
#endif

/* Adds one tap (the pixels px, whose spatial log2 weight is s) to the accumulators. */
#if CHANNELS == 1
#define TAP(px, s) \
  { \
    const vfloat v = VALUE0 (px); \
    const vfloat d = v - c0; \
    const vfloat w = poly_exp2 (fma (d * d, (vfloat) range_scale, (vfloat) (s))); \
    sum0 = fma (w, v, sum0); \
    wsum0 += w; \
  }
#elif CHANNELS == 2
#define TAP(px, s) \
  { \
    const vfloat v0 = CHANNEL (px, 0), v1 = CHANNEL (px, 1); \
    const vfloat d0 = v0 - c0, d1 = v1 - c1; \
    const vfloat w = poly_exp2 (fma (fma (d0, d0, d1 * d1), (vfloat) range_scale, \
            (vfloat) (s))); \
    sum0 = fma (w, v0, sum0); sum1 = fma (w, v1, sum1); \
    wsum0 += w; \
  }
#elif MODE == MODE_PER_CHANNEL
#define TAP(px, s) \
  { \
    const vfloat v0 = CHANNEL (px, 0), v1 = CHANNEL (px, 1), v2 = CHANNEL (px, 2); \
    const vfloat d0 = v0 - c0, d1 = v1 - c1, d2 = v2 - c2; \
    const vfloat w0 = poly_exp2 (fma (d0 * d0, (vfloat) range_scale, (vfloat) (s))); \
    const vfloat w1 = poly_exp2 (fma (d1 * d1, (vfloat) range_scale, (vfloat) (s))); \
    const vfloat w2 = poly_exp2 (fma (d2 * d2, (vfloat) range_scale, (vfloat) (s))); \
    sum0 = fma (w0, v0, sum0); sum1 = fma (w1, v1, sum1); sum2 = fma (w2, v2, sum2); \
    wsum0 += w0; wsum1 += w1; wsum2 += w2; \
  }
#else
#if MODE == MODE_LUMA
inline vfloat
luma_distance2 (vfloat d0, vfloat d1, vfloat d2, float4 luma)
{
  const vfloat l = fma (d0, (vfloat) luma.x, fma (d1, (vfloat) luma.y, d2 * luma.z));
  return l * l;
}
#define DISTANCE2(d0, d1, d2) luma_distance2 (d0, d1, d2, luma)
#else
#define DISTANCE2(d0, d1, d2) fma (d0, d0, fma (d1, d1, d2 * d2))
#endif
#define TAP(px, s) \
  { \
    const vfloat v0 = CHANNEL (px, 0), v1 = CHANNEL (px, 1), v2 = CHANNEL (px, 2); \
    const vfloat d0 = v0 - c0, d1 = v1 - c1, d2 = v2 - c2; \
    const vfloat w = poly_exp2 (fma (DISTANCE2 (d0, d1, d2), (vfloat) range_scale, \
            (vfloat) (s))); \
    sum0 = fma (w, v0, sum0); sum1 = fma (w, v1, sum1); sum2 = fma (w, v2, sum2); \
    wsum0 += w; \
  }
#endif

__kernel void
bilateral_vec (__global const uchar * src, int src_offset, int src_stride,
    __global uchar * dst, int dst_offset, int dst_stride, int width, int height,
    __constant float *spatial_log2, float range_scale, float4 luma, int4 second)
{
  const int x0 = (int) get_global_id (0) * VEC;
  const int y = (int) get_global_id (1);
  if (x0 >= width || y >= height)
    return;
  const bool interior = x0 >= RADIUS && x0 + VEC - 1 + RADIUS < width;

  __global const sample_t *centre_row = ROW (src, src_offset, src_stride, y);
  __global const sample_t *centre_row2 = SECOND_ROW (y);
  const vword centre = interior ? load_pixels (centre_row, centre_row2, x0) :
      gather_pixels (centre_row, centre_row2, x0, width);
#if CHANNELS == 1
  const vfloat c0 = VALUE0 (centre);
#elif CHANNELS == 2
  const vfloat c0 = CHANNEL (centre, 0), c1 = CHANNEL (centre, 1);
  vfloat sum1 = (vfloat) (0.0f);
#else
  const vfloat c0 = CHANNEL (centre, 0), c1 = CHANNEL (centre, 1), c2 = CHANNEL (centre, 2);
  vfloat sum1 = (vfloat) (0.0f), sum2 = (vfloat) (0.0f);
#endif
  vfloat sum0 = (vfloat) (0.0f), wsum0 = (vfloat) (0.0f);
#if CHANNELS == 4 && MODE == MODE_PER_CHANNEL
  vfloat wsum1 = (vfloat) (0.0f), wsum2 = (vfloat) (0.0f);
#endif

  if (interior) {
    for (int dy = -RADIUS; dy <= RADIUS; dy++) {
      const int sy = clamp (y + dy, 0, height - 1);
      __global const sample_t *row = ROW (src, src_offset, src_stride, sy);
      __global const sample_t *row2 = SECOND_ROW (sy);
      __constant float *spatial_row = spatial_log2 + (dy + RADIUS) * SPAN + RADIUS;
#pragma unroll
      for (int dx = -RADIUS; dx <= RADIUS; dx++) {
        const vword px = load_pixels (row, row2, x0 + dx);
        TAP (px, spatial_row[dx]);
      }
    }
  } else {
    for (int dy = -RADIUS; dy <= RADIUS; dy++) {
      const int sy = clamp (y + dy, 0, height - 1);
      __global const sample_t *row = ROW (src, src_offset, src_stride, sy);
      __global const sample_t *row2 = SECOND_ROW (sy);
      __constant float *spatial_row = spatial_log2 + (dy + RADIUS) * SPAN + RADIUS;
      for (int dx = -RADIUS; dx <= RADIUS; dx++) {
        const vword px = gather_pixels (row, row2, x0 + dx, width);
        TAP (px, spatial_row[dx]);
      }
    }
  }

#define SHIFTED(value, c) (convert_vword_sat_rte (value) << (SAMPLE_BITS * (c) + SAMPLE_SHIFT))
#if CHANNELS == 1
  const vword out = SHIFTED (sum0 / wsum0, 0);
#elif CHANNELS == 2
  const vword out = SHIFTED (sum0 / wsum0, 0) | SHIFTED (sum1 / wsum0, 1);
#elif MODE == MODE_PER_CHANNEL
  const vword out = SHIFTED (sum0 / wsum0, 0) | SHIFTED (sum1 / wsum1, 1) |
      SHIFTED (sum2 / wsum2, 2) | (centre & ALPHA_MASK);
#else
  const vword out = SHIFTED (sum0 / wsum0, 0) | SHIFTED (sum1 / wsum0, 1) |
      SHIFTED (sum2 / wsum0, 2) | (centre & ALPHA_MASK);
#endif

  __global sample_t *out_row = (__global sample_t *) (dst + dst_offset +
      (size_t) y * dst_stride);
#if PLANAR
  __global sample_t *out_row2 = (__global sample_t *) (dst + second.z + (size_t) y * second.w);
#else
  __global sample_t *out_row2 = out_row;
#endif
  if (x0 + VEC <= width) {
    store_pixels (out, out_row, out_row2, x0);
    return;
  }
  word_t words[VEC];
  vstorev (out, 0, words);
  const int count = min (VEC, width - x0);
  for (int i = 0; i < count; i++)
    STORE_WORD (words[i], out_row, out_row2, x0 + i);
}
