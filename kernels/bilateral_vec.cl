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
 * Build options (all have defaults so the file builds on its own):
 *   CHANNELS  4 (channels 0-2 filtered, channel 3 copied) or 1 (GRAY8)
 *   MODE      0 colour distance, 1 luma difference, 2 per channel (CHANNELS 4 only)
 *   RADIUS    0..32;  VEC: outputs per work-item, 8 or 16
 */
#ifndef CHANNELS
#define CHANNELS 4
#endif
#ifndef MODE
#define MODE 0
#endif
#ifndef RADIUS
#define RADIUS 4
#endif
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

/* VEC pixels starting at column x of a row, as packed words (RGBA: byte 0 in the low bits). */
inline vuint
load_pixels (__global const uchar * row, int x)
{
#if CHANNELS == 4
  __global const uchar *p = row + (size_t) x * 4;
#if VEC == 16
  return (uint16) (as_uint4 (vload16 (0, p)), as_uint4 (vload16 (1, p)),
      as_uint4 (vload16 (2, p)), as_uint4 (vload16 (3, p)));
#else
  return (uint8) (as_uint4 (vload16 (0, p)), as_uint4 (vload16 (1, p)));
#endif
#else
  return convert_vuint (vloadv (0, row + x));
#endif
}

/* The same with every column clamped into [0, width - 1] (work-items at the left/right edges). */
inline vuint
gather_pixels (__global const uchar * row, int x, int width)
{
  uint words[VEC];
  for (int i = 0; i < VEC; i++) {
    const int sx = clamp (x + i, 0, width - 1);
#if CHANNELS == 4
    words[i] = as_uint (vload4 (sx, row));
#else
    words[i] = row[sx];
#endif
  }
  return vloadv (0, words);
}

#define CHANNEL(px, c) convert_vfloat (((px) >> (8 * (c))) & 0xffu)

/* Adds one tap (the pixels px, whose spatial log2 weight is s) to the accumulators. */
#if CHANNELS == 1
#define TAP(px, s) \
  { \
    const vfloat v = convert_vfloat (px); \
    const vfloat d = v - c0; \
    const vfloat w = poly_exp2 (fma (d * d, (vfloat) range_scale, (vfloat) (s))); \
    sum0 = fma (w, v, sum0); \
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
bilateral_vec (__global const uchar * src, int src_stride,
    __global uchar * dst, int dst_stride, int width, int height,
    __constant float *spatial_log2, float range_scale, float4 luma)
{
  const int x0 = (int) get_global_id (0) * VEC;
  const int y = (int) get_global_id (1);
  if (x0 >= width || y >= height)
    return;
  const bool interior = x0 >= RADIUS && x0 + VEC - 1 + RADIUS < width;

  __global const uchar *centre_row = src + (size_t) y * src_stride;
  const vuint centre = interior ? load_pixels (centre_row, x0) :
      gather_pixels (centre_row, x0, width);
#if CHANNELS == 1
  const vfloat c0 = convert_vfloat (centre);
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
      __global const uchar *row = src + (size_t) clamp (y + dy, 0, height - 1) * src_stride;
      __constant float *spatial_row = spatial_log2 + (dy + RADIUS) * SPAN + RADIUS;
#pragma unroll
      for (int dx = -RADIUS; dx <= RADIUS; dx++) {
        const vuint px = load_pixels (row, x0 + dx);
        TAP (px, spatial_row[dx]);
      }
    }
  } else {
    for (int dy = -RADIUS; dy <= RADIUS; dy++) {
      __global const uchar *row = src + (size_t) clamp (y + dy, 0, height - 1) * src_stride;
      __constant float *spatial_row = spatial_log2 + (dy + RADIUS) * SPAN + RADIUS;
      for (int dx = -RADIUS; dx <= RADIUS; dx++) {
        const vuint px = gather_pixels (row, x0 + dx, width);
        TAP (px, spatial_row[dx]);
      }
    }
  }

#if CHANNELS == 1
  const vuint out = convert_vuint_sat_rte (sum0 / wsum0);
#elif MODE == MODE_PER_CHANNEL
  const vuint out = convert_vuint_sat_rte (sum0 / wsum0) |
      (convert_vuint_sat_rte (sum1 / wsum1) << 8) | (convert_vuint_sat_rte (sum2 / wsum2) << 16) |
      (centre & 0xff000000u);
#else
  const vuint out = convert_vuint_sat_rte (sum0 / wsum0) |
      (convert_vuint_sat_rte (sum1 / wsum0) << 8) | (convert_vuint_sat_rte (sum2 / wsum0) << 16) |
      (centre & 0xff000000u);
#endif

  __global uchar *out_row = dst + (size_t) y * dst_stride;
  if (x0 + VEC <= width) {
#if CHANNELS == 4
    __global uchar *p = out_row + (size_t) x0 * 4;
    vstore16 (as_uchar16 (out.s0123), 0, p);
    vstore16 (as_uchar16 (out.s4567), 1, p);
#if VEC == 16
    vstore16 (as_uchar16 (out.s89ab), 2, p);
    vstore16 (as_uchar16 (out.scdef), 3, p);
#endif
#else
    vstorev (CAT (convert_uchar, VEC) (out), 0, out_row + x0);
#endif
    return;
  }
  uint words[VEC];
  vstorev (out, 0, words);
  const int count = min (VEC, width - x0);
  for (int i = 0; i < count; i++) {
#if CHANNELS == 4
    vstore4 (as_uchar4 (words[i]), x0 + i, out_row);
#else
    out_row[x0 + i] = (uchar) words[i];
#endif
  }
}
