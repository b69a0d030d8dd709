/* gst-opencl: openclconvertscale, colour conversion and scaling in one pass.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Built with IN_FMT and OUT_FMT, one of the FMT_* codes below (the table in
 * gst/opencl/gstopenclconvert.cpp gives the same numbers). Every output pixel (every 2x2 block
 * for 4:2:0 output) samples the input in its own format at its own position: the component codes
 * (R, G, B, A or Y, U, V; 10-bit codes for P010) are interpolated (nearest, bilinear, or
 * bicubic: Catmull-Rom over 4x4 samples; edges clamped), then one affine map `m` (3 rows of 3
 * factors and an offset, computed by the host in double precision from both sides' matrix,
 * range and depth) gives the output codes, which are rounded half up and saturated (a cubic's
 * overshoot with the rest). Positions are exact rationals: along an axis, output coordinate p
 * (given doubled, p2 = 2p, so chroma sites between pixels are integers) of the
 * picture at origin o and size D maps to input coordinate
 *   s = ((p2 - 2o + 1) S - D) / (2D)
 * (pixel centres aligned), and a 4:2:0 input's chroma sample c sits at luma coordinate
 * 2c + off/2 (off 0: cosited, 1: centred), so c = (2n - off d) / (4d) for s = n / d.
 * tests/reference/convertscale_reference.cpp is the same computation in double precision. */

#define FMT_NV12 0
#define FMT_I420 1
#define FMT_P010 2
#define FMT_GRAY8 3
#define FMT_GRAY16 4
#define FMT_RGBA 5
#define FMT_BGRA 6
#define FMT_RGBX 7
#define FMT_BGRX 8
#define FMT_RGBA64 9
/* Tensor outputs (output only): R, G, B values, not codes, as float32 or float16, NHWC
 * (interleaved) or NCHW (a plane per channel). */
#define FMT_TENSOR_F32_NHWC 10
#define FMT_TENSOR_F32_NCHW 11
#define FMT_TENSOR_F16_NHWC 12
#define FMT_TENSOR_F16_NCHW 13

#define IS_420(f) ((f) == FMT_NV12 || (f) == FMT_I420 || (f) == FMT_P010)
#define IS_GRAY(f) ((f) == FMT_GRAY8 || (f) == FMT_GRAY16)
#define HAS_ALPHA(f) ((f) == FMT_RGBA || (f) == FMT_BGRA || (f) == FMT_RGBA64)
#define IS_TENSOR(f) ((f) >= FMT_TENSOR_F32_NHWC && (f) <= FMT_TENSOR_F16_NCHW)

#define METHOD_NEAREST 0
#define METHOD_BILINEAR 1
#define METHOD_LANCZOS 4
#define METHOD_CUBIC 8

/* Lanczos: the window sinc (t) sinc (t / LANCZOS_A), |t| < LANCZOS_A, stretched along an axis by
 * the input samples per output sample when scaling down (at most LANCZOS_MAX_STRETCH), so
 * that it low-passes what it drops: at most LANCZOS_MAX_TAPS taps per axis. */
#define LANCZOS_A 2
#define LANCZOS_MAX_STRETCH 8
#define LANCZOS_MAX_TAPS (2 * LANCZOS_A * LANCZOS_MAX_STRETCH)

/* Planes: offsets and strides in bytes. */
typedef struct
{
  int offset[3];
  int stride[3];
  int width, height;
} Planes;

/* One frame's planes as kernel arguments. */
#define PLANE_ARGS(p) int p##_off0, int p##_off1, int p##_off2, int p##_str0, int p##_str1, \
    int p##_str2, int p##_w, int p##_h
#define PLANES_OF(p) (Planes) { { p##_off0, p##_off1, p##_off2 }, { p##_str0, p##_str1, \
      p##_str2 }, p##_w, p##_h }

inline float
u16_at (__global const uchar * base, int offset)
{
  return (float) (base[offset] | (base[offset + 1] << 8));
}

/* Whether a packed 8-bit frame's rows start on 4-byte boundaries, so that its pixels can be
 * read and written as whole words (one access each on a GPU instead of four byte accesses). */
inline bool
word_rows (const Planes * p)
{
  return ((p->offset[0] | p->stride[0]) & 3) == 0;
}

/* The 4 bytes of 8-bit packed pixel (x, y). */
inline uchar4
load_pixel (__global const uchar * in, const Planes * p, int x, int y)
{
  __global const uchar *at = in + p->offset[0] + y * p->stride[0] + x * 4;
  return word_rows (p) ? *(__global const uchar4 *) at : vload4 (0, at);
}

/* The input's full-resolution components at pixel (x, y): R, G, B, A, or Y (in .x). */
inline float4
read_full (__global const uchar * in, const Planes * p, int x, int y)
{
#if IN_FMT == FMT_RGBA64
  const int at = p->offset[0] + y * p->stride[0] + x * 8;
  return (float4) (u16_at (in, at), u16_at (in, at + 2), u16_at (in, at + 4),
      u16_at (in, at + 6));
#elif IN_FMT == FMT_RGBA || IN_FMT == FMT_RGBX
  return convert_float4 (load_pixel (in, p, x, y));
#elif IN_FMT == FMT_BGRA || IN_FMT == FMT_BGRX
  const uchar4 v = load_pixel (in, p, x, y);
  return (float4) (v.z, v.y, v.x, v.w);
#elif IN_FMT == FMT_GRAY16
  return (float4) (u16_at (in, p->offset[0] + y * p->stride[0] + x * 2), 0.0f, 0.0f, 0.0f);
#elif IN_FMT == FMT_P010
  return (float4) ((float) ((int) u16_at (in, p->offset[0] + y * p->stride[0] + x * 2) >> 6),
      0.0f, 0.0f, 0.0f);
#else /* GRAY8, NV12, I420: 8-bit luma */
  return (float4) ((float) in[p->offset[0] + y * p->stride[0] + x], 0.0f, 0.0f, 0.0f);
#endif
}

/* The input's chroma (U, V) at chroma sample (x, y) of a 4:2:0 input. */
inline float2
read_chroma (__global const uchar * in, const Planes * p, int x, int y)
{
#if IN_FMT == FMT_NV12
  const int at = p->offset[1] + y * p->stride[1] + x * 2;
  return (float2) (in[at], in[at + 1]);
#elif IN_FMT == FMT_I420
  return (float2) (in[p->offset[1] + y * p->stride[1] + x],
      in[p->offset[2] + y * p->stride[2] + x]);
#elif IN_FMT == FMT_P010
  const int at = p->offset[1] + y * p->stride[1] + x * 4;
  return (float2) ((float) ((int) u16_at (in, at) >> 6), (float) ((int) u16_at (in, at + 2) >> 6));
#else
  return (float2) (0.0f, 0.0f);
#endif
}

/* Position arithmetic: 32-bit where the host found the sizes small enough (WIDE_POSITIONS
 * undefined: every numerator and denominator below fits an int), else 64-bit. */
#ifdef WIDE_POSITIONS
typedef long pos_t;
#else
typedef int pos_t;
#endif

/* floor (n / d) for d > 0. */
inline pos_t
floor_div (pos_t n, pos_t d)
{
  return n >= 0 ? n / d : -((-n + d - 1) / d);
}

/* One axis of a sampling position: coordinate n / d on a grid (luma or 4:2:0 chroma samples),
 * the samples lo .. hi it may read (the picture's, or the crop's, clamped at its edges), and,
 * for lanczos, the grid's input samples per output sample (at least 1). */
typedef struct
{
  pos_t n, d;
  int lo, hi;
  float stretch;
} Axis;

/* The taps of a 2-tap or nearest sampling along an axis: i0, i1 and the weight of i1
 * (nearest: i0 == i1, the sample at floor (n / d + 1/2)). The host computes them
 * (tap_entry () in gstopenclconvert.cpp, exactly, in 64-bit integers) into a table. */
typedef struct
{
  int i0, i1;
  float f;
} Tap;

/* Catmull-Rom: the four taps around n / d (i - 1 .. i + 2, clamped) and their weights. */
typedef struct
{
  int i[4];
  float4 w;
} Taps4;

inline Taps4
cubic_of (Axis a)
{
  Taps4 t;
  const pos_t i = floor_div (a.n, a.d);
  const float f = (float) (a.n - i * a.d) / (float) a.d;
  for (int k = 0; k < 4; k++)
    t.i[k] = (int) clamp (i - 1 + k, (pos_t) a.lo, (pos_t) a.hi);
  const float f2 = f * f, f3 = f2 * f;
  t.w = (float4) (-0.5f * f3 + f2 - 0.5f * f, 1.5f * f3 - 2.5f * f2 + 1.0f,
      -1.5f * f3 + 2.0f * f2 + 0.5f * f, 0.5f * f3 - 0.5f * f2);
  return t;
}

/* Lanczos: the weights w[k] of samples first + k (unclamped), k < the count returned: the
 * window at distances (first + k - n / d) / stretch, normalised to sum 1. */
inline int
lanczos_of (Axis a, float w[LANCZOS_MAX_TAPS], int *first)
{
  const pos_t i = floor_div (a.n, a.d);
  const float f = (float) (a.n - i * a.d) / (float) a.d;
  const int r = (int) ceil (LANCZOS_A * a.stretch);
  *first = (int) i - r + 1;
  float sum = 0.0f;
  for (int k = 0; k < 2 * r; k++) {
    const float t = fabs ((float) (k - r + 1) - f) / a.stretch;
    const float pt = M_PI_F * t;
    const float wk = t < 1e-5f ? 1.0f : t >= LANCZOS_A ? 0.0f :
        LANCZOS_A * sin (pt) * sin (pt / LANCZOS_A) / (pt * pt);
    w[k] = wk;
    sum += wk;
  }
  const float norm = 1.0f / sum;
  for (int k = 0; k < 2 * r; k++)
    w[k] *= norm;
  return 2 * r;
}

/* The geometry: the picture's rectangle in the output, the input's picture (the whole frame
 * or its crop) and its chroma siting, and the method. */
typedef struct
{
  int ox, oy, dw, dh;    /* the picture's rectangle in the output */
  int sx, sy, sw, sh;    /* the input's picture: origin and size in the frame */
  int in_hoff, in_voff;  /* the input's chroma siting, doubled (0 cosited, 1 centred) */
  int method;
  /* Nearest and bilinear: the host's taps of every output position, per axis (below). */
  __global const int4 *taps;
  int tx_count, ty_count;
} Geometry;

/* A component sample of the luma (or RGB) grid, or of the 4:2:0 chroma grid in .y and .z. */
inline float4
read_grid (__global const uchar * in, const Planes * p, bool chroma, int x, int y)
{
  if (chroma) {
    const float2 c = read_chroma (in, p, x, y);
    return (float4) (0.0f, c.x, c.y, 0.0f);
  }
  return read_full (in, p, x, y);
}

/* Entry e of the host's tap table: { i0, i1, the weight of i1 as float bits, 0 }: no division
 * per pixel. */
inline Tap
tap_at (__global const int4 * taps, int e)
{
  const int4 t = taps[e];
  const Tap r = { t.x, t.y, as_float (t.z) };
  return r;
}

/* The grid at taps tx, ty: nearest (i0) or bilinear. */
inline float4
sample_taps (__global const uchar * in, const Planes * p, bool chroma, Tap tx, Tap ty,
    int method)
{
  if (method == METHOD_NEAREST)
    return read_grid (in, p, chroma, tx.i0, ty.i0);
  const float4 top = mix (read_grid (in, p, chroma, tx.i0, ty.i0),
      read_grid (in, p, chroma, tx.i1, ty.i0), tx.f);
  const float4 bottom = mix (read_grid (in, p, chroma, tx.i0, ty.i1),
      read_grid (in, p, chroma, tx.i1, ty.i1), tx.f);
  return mix (top, bottom, ty.f);
}

/* The grid interpolated at (ax, ay) with `method`, catrom or lanczos. */
inline float4
sample_grid (__global const uchar * in, const Planes * p, bool chroma, Axis ax, Axis ay,
    int method)
{
  if (method == METHOD_CUBIC) {
    const Taps4 cx = cubic_of (ax), cy = cubic_of (ay);
    float4 v = (float4) (0.0f);
    for (int r = 0; r < 4; r++) {
      const float4 row = cx.w.x * read_grid (in, p, chroma, cx.i[0], cy.i[r]) +
          cx.w.y * read_grid (in, p, chroma, cx.i[1], cy.i[r]) +
          cx.w.z * read_grid (in, p, chroma, cx.i[2], cy.i[r]) +
          cx.w.w * read_grid (in, p, chroma, cx.i[3], cy.i[r]);
      v += (r == 0 ? cy.w.x : r == 1 ? cy.w.y : r == 2 ? cy.w.z : cy.w.w) * row;
    }
    return v;
  }
  /* Lanczos. */
  float wx[LANCZOS_MAX_TAPS], wy[LANCZOS_MAX_TAPS];
  int x0, y0;
  const int nx = lanczos_of (ax, wx, &x0), ny = lanczos_of (ay, wy, &y0);
  float4 v = (float4) (0.0f);
  for (int j = 0; j < ny; j++) {
    const int y = clamp (y0 + j, ay.lo, ay.hi);
    float4 row = (float4) (0.0f);
    for (int i = 0; i < nx; i++)
      row += wx[i] * read_grid (in, p, chroma, clamp (x0 + i, ax.lo, ax.hi), y);
    v += wy[j] * row;
  }
  return v;
}

/* Lanczos's stretch along an axis: input samples per output sample, in
 * [1, LANCZOS_MAX_STRETCH]. */
inline float
stretch_of (int in_size, int out_size)
{
  return clamp ((float) in_size / (float) out_size, 1.0f, (float) LANCZOS_MAX_STRETCH);
}

/* The input's codes (.xyz: R G B or Y U V; .w alpha) at doubled output position (px2, py2),
 * entries ex, ey of the tap tables: the position in the input's picture (pixel centres
 * aligned), then in the frame. The tables hold, per axis, the luma grid's taps of every
 * position (count tx_count or ty_count), then the chroma grid's of the same positions; the y
 * axis's follow the x axis's. */
inline __attribute__ ((always_inline)) float4
sample (__global const uchar * in, const Planes * p, const Geometry * g, int px2, int py2,
    int ex, int ey, bool taps_only)
{
  if (taps_only || g->method == METHOD_NEAREST || g->method == METHOD_BILINEAR) {
    const int ty = 2 * g->tx_count;
    float4 v = sample_taps (in, p, false, tap_at (g->taps, ex), tap_at (g->taps, ty + ey),
        g->method);
#if IS_420(IN_FMT)
    const float4 c = sample_taps (in, p, true, tap_at (g->taps, g->tx_count + ex),
        tap_at (g->taps, ty + g->ty_count + ey), g->method);
    v.y = c.y;
    v.z = c.z;
#endif
    return v;
  }
  const pos_t dx = 2 * (pos_t) g->dw, dy = 2 * (pos_t) g->dh;
  const pos_t nx = (pos_t) (px2 - 2 * g->ox + 1) * g->sw - g->dw + (pos_t) g->sx * dx;
  const pos_t ny = (pos_t) (py2 - 2 * g->oy + 1) * g->sh - g->dh + (pos_t) g->sy * dy;
  const Axis ax = { nx, dx, g->sx, g->sx + g->sw - 1, stretch_of (g->sw, g->dw) };
  const Axis ay = { ny, dy, g->sy, g->sy + g->sh - 1, stretch_of (g->sh, g->dh) };
  float4 v = sample_grid (in, p, false, ax, ay, g->method);
#if IS_420(IN_FMT)
  /* Chroma sample k sits at luma coordinate 2 k + off / 2 (off doubled): k = (x - off / 2) / 2.
   * Its grid steps by half the luma's per output sample, or as much as the luma's between the
   * chroma samples of a 4:2:0 output. */
#if IS_420(OUT_FMT)
  const int per = 1;
#else
  const int per = 2;
#endif
  const Axis cx = { 2 * nx - g->in_hoff * dx, 4 * dx, g->sx / 2, (g->sx + g->sw - 1) / 2,
    stretch_of (g->sw, per * g->dw) };
  const Axis cy = { 2 * ny - g->in_voff * dy, 4 * dy, g->sy / 2, (g->sy + g->sh - 1) / 2,
    stretch_of (g->sh, per * g->dh) };
  const float4 c = sample_grid (in, p, true, cx, cy, g->method);
  v.y = c.y;
  v.z = c.z;
#endif
  return v;
}

/* One row `m` of the affine map on components a, b, c of vector type T: three fused
 * multiply-adds in a fixed order, so that the general kernel and the unscaled one (which works
 * on runs of pixels) give the same bits on every device (dot () may round otherwise). */
#define AFFINE(T, m, a, b, c) fma ((T) ((m).z), (c), fma ((T) ((m).y), (b), \
        fma ((T) ((m).x), (a), (T) ((m).w))))

/* The output codes of input codes `v`: the affine map, rounded half up and saturated. */
inline float4
convert (float4 v, const float4 m0, const float4 m1, const float4 m2, float alpha_scale,
    float out_max, float alpha_max)
{
  float4 o;
  o.x = AFFINE (float, m0, v.x, v.y, v.z);
  o.y = AFFINE (float, m1, v.x, v.y, v.z);
  o.z = AFFINE (float, m2, v.x, v.y, v.z);
#if HAS_ALPHA(IN_FMT)
  o.w = v.w * alpha_scale;
#else
  o.w = alpha_max;
#endif
#if !IS_TENSOR(OUT_FMT)
  /* A tensor's values are the map's results as they are (mean and scale folded into m). */
  o = floor (o + 0.5f);
  o.xyz = clamp (o.xyz, 0.0f, out_max);
  o.w = clamp (o.w, 0.0f, alpha_max);
#endif
  return o;
}

inline void
put_u16 (__global uchar * base, int offset, int value)
{
  base[offset] = (uchar) (value & 0xff);
  base[offset + 1] = (uchar) (value >> 8);
}

inline void
store_pixel (__global uchar * out, const Planes * p, int x, int y, uchar4 v)
{
  __global uchar *at = out + p->offset[0] + y * p->stride[0] + x * 4;
  if (word_rows (p))
    *(__global uchar4 *) at = v;
  else
    vstore4 (v, 0, at);
}

/* Writes a tensor's R, G, B values `v` of pixel (x, y): NHWC, three values per pixel in plane
 * 0; NCHW, one value in each of planes 0, 1, 2 (offsets of the channels' planes). float16 is
 * rounded to nearest even. Rows are stride[0] bytes apart. */
inline void
write_tensor (__global uchar * out, const Planes * p, int x, int y, float3 v)
{
#if OUT_FMT == FMT_TENSOR_F32_NHWC
  vstore3 (v, 0, (__global float *) (out + p->offset[0] + y * p->stride[0] + x * 12));
#elif OUT_FMT == FMT_TENSOR_F16_NHWC
  vstore_half3_rte (v, 0, (__global half *) (out + p->offset[0] + y * p->stride[0] + x * 6));
#elif OUT_FMT == FMT_TENSOR_F32_NCHW
  const int at = y * p->stride[0] + x * 4;
  *(__global float *) (out + p->offset[0] + at) = v.x;
  *(__global float *) (out + p->offset[1] + at) = v.y;
  *(__global float *) (out + p->offset[2] + at) = v.z;
#elif OUT_FMT == FMT_TENSOR_F16_NCHW
  const int at = y * p->stride[0] + x * 2;
  vstore_half_rte (v.x, 0, (__global half *) (out + p->offset[0] + at));
  vstore_half_rte (v.y, 0, (__global half *) (out + p->offset[1] + at));
  vstore_half_rte (v.z, 0, (__global half *) (out + p->offset[2] + at));
#endif
}

/* Writes full-resolution pixel (x, y) of codes `o` (packed RGB, gray, or the luma of YUV), or
 * a tensor's values. */
inline void
write_full (__global uchar * out, const Planes * p, int x, int y, float4 o)
{
#if IS_TENSOR(OUT_FMT)
  write_tensor (out, p, x, y, o.xyz);
#else
  const int4 v = convert_int4 (o);
#if OUT_FMT == FMT_RGBA64
  const int at = p->offset[0] + y * p->stride[0] + x * 8;
  put_u16 (out, at, v.x);
  put_u16 (out, at + 2, v.y);
  put_u16 (out, at + 4, v.z);
  put_u16 (out, at + 6, v.w);
#elif OUT_FMT == FMT_RGBA || OUT_FMT == FMT_RGBX
  store_pixel (out, p, x, y, convert_uchar4 (v));
#elif OUT_FMT == FMT_BGRA || OUT_FMT == FMT_BGRX
  store_pixel (out, p, x, y, convert_uchar4 ((int4) (v.z, v.y, v.x, v.w)));
#elif OUT_FMT == FMT_GRAY16
  put_u16 (out, p->offset[0] + y * p->stride[0] + x * 2, v.x);
#elif OUT_FMT == FMT_P010
  put_u16 (out, p->offset[0] + y * p->stride[0] + x * 2, v.x << 6);
#else
  out[p->offset[0] + y * p->stride[0] + x] = (uchar) v.x;
#endif
#endif
}

inline void
write_chroma (__global uchar * out, const Planes * p, int x, int y, float4 o)
{
  const int4 v = convert_int4 (o);
#if OUT_FMT == FMT_NV12
  const int at = p->offset[1] + y * p->stride[1] + x * 2;
  out[at] = (uchar) v.y;
  out[at + 1] = (uchar) v.z;
#elif OUT_FMT == FMT_I420
  out[p->offset[1] + y * p->stride[1] + x] = (uchar) v.y;
  out[p->offset[2] + y * p->stride[2] + x] = (uchar) v.z;
#elif OUT_FMT == FMT_P010
  const int at = p->offset[1] + y * p->stride[1] + x * 4;
  put_u16 (out, at, v.y << 6);
  put_u16 (out, at + 2, v.z << 6);
#endif
}

inline bool
inside (const Geometry * g, int px2, int py2)
{
  return px2 >= 2 * g->ox && px2 < 2 * (g->ox + g->dw) && py2 >= 2 * g->oy &&
      py2 < 2 * (g->oy + g->dh);
}

/* The arguments of convert_scale and convert_scale_taps. */
#define GENERAL_ARGS __global const uchar * in, PLANE_ARGS (in), __global uchar * out, \
    PLANE_ARGS (out), int ox, int oy, int dw, int dh, int in_hoff, int in_voff, int out_hoff, \
    int out_voff, int method, float4 m0, float4 m1, float4 m2, float alpha_scale, \
    float out_max, float alpha_max, float4 black, int crop_x, int crop_y, int crop_w, \
    int crop_h, __global const int4 * taps, int tx_count, int ty_count

/* One work-item per output pixel, or per 2x2 block of a 4:2:0 output (its four luma samples
 * and its chroma sample, at the output's chroma site out_hoff/2, out_voff/2 of the block).
 * `taps_only`: nearest and bilinear only (a constant, so that the compiler drops the catrom and
 * lanczos code, whose arrays and loops would cost every method registers on a GPU). */
inline __attribute__ ((always_inline)) void
general (GENERAL_ARGS, bool taps_only)
{
  const Planes ip = PLANES_OF (in);
  const Planes op = PLANES_OF (out);
  const Geometry g = { ox, oy, dw, dh, crop_x, crop_y, crop_w, crop_h, in_hoff, in_voff,
    method, taps, tx_count, ty_count };
  const int gx = get_global_id (0), gy = get_global_id (1);
#if IS_420(OUT_FMT)
  if (gx >= (out_w + 1) / 2 || gy >= (out_h + 1) / 2)
    return;
  for (int j = 0; j < 2; j++) {
    for (int i = 0; i < 2; i++) {
      const int x = 2 * gx + i, y = 2 * gy + j;
      if (x >= out_w || y >= out_h)
        continue;
      const float4 o = inside (&g, 2 * x, 2 * y) ? convert (sample (in, &ip, &g, 2 * x, 2 * y,
              x, y, taps_only), m0, m1, m2, alpha_scale, out_max, alpha_max) : black;
      write_full (out, &op, x, y, o);
    }
  }
  /* The chroma sites' entries follow the pixels'. */
  const int px2 = 4 * gx + out_hoff, py2 = 4 * gy + out_voff;
  const float4 c = inside (&g, px2, py2) ? convert (sample (in, &ip, &g, px2, py2, out_w + gx,
          out_h + gy, taps_only), m0, m1, m2, alpha_scale, out_max, alpha_max) : black;
  write_chroma (out, &op, gx, gy, c);
#else
  if (gx >= out_w || gy >= out_h)
    return;
  const float4 o = inside (&g, 2 * gx, 2 * gy) ? convert (sample (in, &ip, &g, 2 * gx, 2 * gy,
          gx, gy, taps_only), m0, m1, m2, alpha_scale, out_max, alpha_max) : black;
  write_full (out, &op, gx, gy, o);
#endif
}

#define GENERAL_PASS in, in_off0, in_off1, in_off2, in_str0, in_str1, in_str2, in_w, in_h, \
    out, out_off0, out_off1, out_off2, out_str0, out_str1, out_str2, out_w, out_h, ox, oy, dw, \
    dh, in_hoff, in_voff, out_hoff, out_voff, method, m0, m1, m2, alpha_scale, out_max, \
    alpha_max, black, crop_x, crop_y, crop_w, crop_h, taps, tx_count, ty_count

/* Every method. */
__kernel void
convert_scale (GENERAL_ARGS)
{
  general (GENERAL_PASS, false);
}

/* Nearest and bilinear (the host's choice for those methods): the same results. */
__kernel void
convert_scale_taps (GENERAL_ARGS)
{
  general (GENERAL_PASS, true);
}

/* The unscaled kernel, convert_unscaled: a 4:2:0 format to or from a packed RGB one, input and
 * output of one size, the picture filling the output, nearest or bilinear. Every input sample
 * then sits on an output pixel or halfway or a quarter between two, so the general kernel's
 * taps reduce to fixed weights in quarters per axis and parity (WEIGHTS below), its
 * interpolation is exact in float, and the same affine map and rounding give the same bits.
 * One work-item converts a run of RUN pixels of four rows (two of 4:2:0 output) with
 * vector loads, arithmetic and stores, which a CPU device runs as SIMD instructions; a run
 * that reaches past the right edge reads clamped and writes pixel by pixel. Little-endian
 * devices only (pixels are packed into words), and rows of 8-bit packed RGB start 4-byte
 * aligned (read and written as words): the host checks both. */
#define IS_PACKED(f) ((f) == FMT_RGBA || (f) == FMT_BGRA || (f) == FMT_RGBX || \
    (f) == FMT_BGRX || (f) == FMT_RGBA64)

/* Of red and blue, the channel packed first and the one packed third: blue first in BGRA, BGRX. */
#if OUT_FMT == FMT_BGRA || OUT_FMT == FMT_BGRX
#define OUT_FIRST(r, b) (b)
#define OUT_THIRD(r, b) (r)
#else
#define OUT_FIRST(r, b) (r)
#define OUT_THIRD(r, b) (b)
#endif

#if (IS_420(IN_FMT) && IS_PACKED(OUT_FMT)) || (IS_PACKED(IN_FMT) && IS_420(OUT_FMT))

#define RUN 16
/* Inlined by force, so that the weights below are constants in the arithmetic. */
#define RUN_FN inline __attribute__ ((always_inline))
#define INTERLEAVE8(e, o) ((e).s0, (o).s0, (e).s1, (o).s1, (e).s2, (o).s2, (e).s3, (o).s3, \
    (e).s4, (o).s4, (e).s5, (o).s5, (e).s6, (o).s6, (e).s7, (o).s7)

/* The integer codes of convert ()'s floor (v + 0.5) saturated to [0, max] (max a whole
 * number): truncating instead of flooring differs only below 0, which saturates to 0 either
 * way; one conversion instead of a floor, which some devices' libraries make long. */
#define ROUND_CODES(n, v, max) clamp (convert_int##n ((v) + 0.5f), 0, (max))

/* Whether plane q's rows start on 16-byte boundaries. A run's pieces (16 pixels from a column
 * that is a multiple of 16) then start on 16-byte boundaries too and are read and written as
 * aligned vectors: one access per 16 bytes on a GPU, where vload and vstore, which may assume
 * only the alignment of their element type, take one per byte. */
RUN_FN bool
aligned16 (const Planes * p, int q)
{
  return ((p->offset[q] | p->stride[q]) & 15) == 0;
}

/* 16 bytes at `at`, aligned to 16 when `aligned`. */
RUN_FN uchar16
load16 (__global const uchar * at, bool aligned)
{
  return aligned ? *(__global const uchar16 *) at : vload16 (0, at);
}

RUN_FN void
store16 (uchar16 v, __global uchar * at, bool aligned)
{
  if (aligned)
    *(__global uchar16 *) at = v;
  else
    vstore16 (v, 0, at);
}

#if IS_420(IN_FMT)
/* Rows per work-item: four share their chroma rows. */
#define ROWS 4

/* Luma codes of pixels x0 .. x0 + RUN - 1 of row y (past the width: the last pixel's). */
RUN_FN float16
luma_run (__global const uchar * in, const Planes * p, int x0, int y)
{
  __global const uchar *row = in + p->offset[0] + y * p->stride[0];
  if (x0 + RUN <= p->width) {
    const bool aligned = aligned16 (p, 0);
#if IN_FMT == FMT_P010
    const ushort16 v = (ushort16) (as_ushort8 (load16 (row + 2 * x0, aligned)),
        as_ushort8 (load16 (row + 2 * x0 + 16, aligned)));
    return convert_float16 (v >> (ushort) 6);
#else
    return convert_float16 (load16 (row + x0, aligned));
#endif
  }
  float t[RUN];
  for (int i = 0; i < RUN; i++)
    t[i] = read_full (in, p, min (x0 + i, p->width - 1), y).x;
  return vload16 (0, t);
}

/* U and V codes of chroma samples k0 - 1 + j + i (i = 0 .. 7) of chroma row y in u[j], v[j],
 * j = 0 .. 2; columns clamped to [0, cw). */
RUN_FN void
chroma_run (__global const uchar * in, const Planes * p, int k0, int y, int cw, int8 u[3],
    int8 v[3])
{
  if (k0 >= 1 && k0 + 9 <= cw) {
#if IN_FMT == FMT_NV12
    __global const uchar *row = in + p->offset[1] + y * p->stride[1] + 2 * (k0 - 1);
    if (aligned16 (p, 1) && k0 + 16 <= cw) {
      /* Samples k0 - 1 .. k0 + 8 from the three aligned pieces around 2 k0 (k0 is a multiple
       * of 8: 2 k0 of 16). */
      __global const uchar16 *at = (__global const uchar16 *) (row + 2);
      const uchar16 a = at[-1], b = at[0], c = at[1];
      const uchar16 first = (uchar16) (a.se, a.sf, b.s0, b.s1, b.s2, b.s3, b.s4, b.s5, b.s6,
          b.s7, b.s8, b.s9, b.sa, b.sb, b.sc, b.sd);
      const uchar16 last = (uchar16) (b.s2, b.s3, b.s4, b.s5, b.s6, b.s7, b.s8, b.s9, b.sa,
          b.sb, b.sc, b.sd, b.se, b.sf, c.s0, c.s1);
      u[0] = convert_int8 (first.even);
      v[0] = convert_int8 (first.odd);
      u[1] = convert_int8 (b.even);
      v[1] = convert_int8 (b.odd);
      u[2] = convert_int8 (last.even);
      v[2] = convert_int8 (last.odd);
      return;
    }
    for (int j = 0; j < 3; j++) {
      const uchar16 c = vload16 (0, row + 2 * j);
      u[j] = convert_int8 (c.even);
      v[j] = convert_int8 (c.odd);
    }
#elif IN_FMT == FMT_I420
    __global const uchar *ur = in + p->offset[1] + y * p->stride[1] + k0 - 1;
    __global const uchar *vr = in + p->offset[2] + y * p->stride[2] + k0 - 1;
    for (int j = 0; j < 3; j++) {
      u[j] = convert_int8 (vload8 (0, ur + j));
      v[j] = convert_int8 (vload8 (0, vr + j));
    }
#else
    __global const uchar *row = in + p->offset[1] + y * p->stride[1] + 4 * (k0 - 1);
    for (int j = 0; j < 3; j++) {
      const uint8 c = (uint8) (as_uint4 (vload16 (0, row + 4 * j)),
          as_uint4 (vload16 (1, row + 4 * j)));
      u[j] = convert_int8 ((c & 0xffffu) >> 6);
      v[j] = convert_int8 (c >> 22);
    }
#endif
    return;
  }
  int tu[10], tv[10];
  for (int j = 0; j < 10; j++) {
    const float2 c = read_chroma (in, p, clamp (k0 - 1 + j, 0, cw - 1), y);
    tu[j] = (int) c.x;
    tv[j] = (int) c.y;
  }
  for (int j = 0; j < 3; j++) {
    u[j] = vload8 (0, tu + j);
    v[j] = vload8 (0, tv + j);
  }
}

/* U and V of the run's pixels on output rows 2 cy0 + q (q = 0 .. 3): output row 2 cy + t
 * (t = 0, 1) weighs chroma rows cy - 1, cy, cy + 1 (clamped) by vw.s012 (t = 0) or vw.s456
 * (t = 1), each of them along x by hw.s012 (even pixels, over samples k - 1, k, k + 1) or
 * hw.s456 (odd pixels); weights in quarters, so the sums are in sixteenths: exact in float.
 * Four output rows share the four chroma rows cy0 - 1 .. cy0 + 2 read. */
RUN_FN void
chroma_of_rows (__global const uchar * in, const Planes * p, int k0, int cy0, int8 hw,
    int8 vw, float16 u[4], float16 v[4])
{
  const int cw = (p->width + 1) / 2, ch = (p->height + 1) / 2;
  int8 ue[4], uo[4], ve[4], vo[4];
  for (int r = 0; r < 4; r++) {
    /* The first row only weighs with vw.s0 and .s4, the last with .s2 and .s6. */
    if ((r == 0 && vw.s0 == 0 && vw.s4 == 0) || (r == 3 && vw.s2 == 0 && vw.s6 == 0)) {
      ue[r] = uo[r] = ve[r] = vo[r] = (int8) (0);
      continue;
    }
    int8 cu[3], cv[3];
    chroma_run (in, p, k0, clamp (cy0 - 1 + r, 0, ch - 1), cw, cu, cv);
    ue[r] = hw.s0 * cu[0] + hw.s1 * cu[1] + hw.s2 * cu[2];
    uo[r] = hw.s4 * cu[0] + hw.s5 * cu[1] + hw.s6 * cu[2];
    ve[r] = hw.s0 * cv[0] + hw.s1 * cv[1] + hw.s2 * cv[2];
    vo[r] = hw.s4 * cv[0] + hw.s5 * cv[1] + hw.s6 * cv[2];
  }
  for (int q = 0; q < 4; q++) {
    const int c = q / 2;
    const int3 w = (q % 2 == 0) ? vw.s012 : vw.s456;
    const int8 sue = w.x * ue[c] + w.y * ue[c + 1] + w.z * ue[c + 2];
    const int8 suo = w.x * uo[c] + w.y * uo[c + 1] + w.z * uo[c + 2];
    const int8 sve = w.x * ve[c] + w.y * ve[c + 1] + w.z * ve[c + 2];
    const int8 svo = w.x * vo[c] + w.y * vo[c + 1] + w.z * vo[c + 2];
    u[q] = convert_float16 ((int16) INTERLEAVE8 (sue, suo)) * 0.0625f;
    v[q] = convert_float16 ((int16) INTERLEAVE8 (sve, svo)) * 0.0625f;
  }
}

/* Writes the run's R, G, B codes (and the constant alpha) to row y. */
RUN_FN void
store_rgb_run (__global uchar * out, const Planes * p, int x0, int y, int16 r, int16 g,
    int16 b, int alpha)
{
  const int16 first = OUT_FIRST (r, b), third = OUT_THIRD (r, b);
  __global uchar *row = out + p->offset[0] + y * p->stride[0];
  if (x0 + RUN <= p->width) {
#if OUT_FMT == FMT_RGBA64
    const ulong16 px = convert_ulong16 (first) | (convert_ulong16 (g) << 16) |
        (convert_ulong16 (third) << 32) | ((ulong) alpha << 48);
    const bool aligned = aligned16 (p, 0);
    __global uchar *at = row + 8 * x0;
    store16 (as_uchar16 (px.s01), at, aligned);
    store16 (as_uchar16 (px.s23), at + 16, aligned);
    store16 (as_uchar16 (px.s45), at + 32, aligned);
    store16 (as_uchar16 (px.s67), at + 48, aligned);
    store16 (as_uchar16 (px.s89), at + 64, aligned);
    store16 (as_uchar16 (px.sab), at + 80, aligned);
    store16 (as_uchar16 (px.scd), at + 96, aligned);
    store16 (as_uchar16 (px.sef), at + 112, aligned);
#else
    const uint16 px = as_uint16 (first | (g << 8) | (third << 16) | (alpha << 24));
    /* Whole words: the host takes this kernel only where rows start 4-byte aligned. */
    if (aligned16 (p, 0)) {
      __global uint4 *at = (__global uint4 *) row + x0 / 4;
      at[0] = px.s0123;
      at[1] = px.s4567;
      at[2] = px.s89ab;
      at[3] = px.scdef;
    } else {
      vstore16 (px, 0, (__global uint *) row + x0);
    }
#endif
    return;
  }
  int tr[RUN], tg[RUN], tb[RUN];
  vstore16 (r, 0, tr);
  vstore16 (g, 0, tg);
  vstore16 (b, 0, tb);
  for (int i = 0; x0 + i < p->width; i++)
    write_full (out, p, x0 + i, y, convert_float4 ((int4) (tr[i], tg[i], tb[i], alpha)));
}

RUN_FN void
yuv_to_rgb_run (__global const uchar * in, const Planes * ip, __global uchar * out,
    const Planes * op, int x0, int gy, int8 hw, int8 vw, float4 m0, float4 m1, float4 m2,
    int out_max, int alpha)
{
  float16 u[4], v[4];
  chroma_of_rows (in, ip, x0 / 2, 2 * gy, hw, vw, u, v);
  for (int q = 0; q < 4 && 4 * gy + q < ip->height; q++) {
    const float16 l = luma_run (in, ip, x0, 4 * gy + q);
    const int16 r = ROUND_CODES (16, AFFINE (float16, m0, l, u[q], v[q]), out_max);
    const int16 g = ROUND_CODES (16, AFFINE (float16, m1, l, u[q], v[q]), out_max);
    const int16 b = ROUND_CODES (16, AFFINE (float16, m2, l, u[q], v[q]), out_max);
    store_rgb_run (out, op, x0, 4 * gy + q, r, g, b, alpha);
  }
}

#else /* packed RGB in, 4:2:0 out */
#define ROWS 2

/* R, G, B codes of pixels x0 .. x0 + RUN - 1 of row y (past the width: the last pixel's). */
RUN_FN void
rgb_run (__global const uchar * in, const Planes * p, int x0, int y, int16 * r, int16 * g,
    int16 * b)
{
  __global const uchar *row = in + p->offset[0] + y * p->stride[0];
  if (x0 + RUN <= p->width) {
#if IN_FMT == FMT_RGBA64
    __global const uchar *at = row + 8 * x0;
    const ulong16 px = (ulong16) (as_ulong2 (vload16 (0, at)), as_ulong2 (vload16 (1, at)),
        as_ulong2 (vload16 (2, at)), as_ulong2 (vload16 (3, at)), as_ulong2 (vload16 (4, at)),
        as_ulong2 (vload16 (5, at)), as_ulong2 (vload16 (6, at)), as_ulong2 (vload16 (7, at)));
    const int16 c0 = convert_int16 (px & 0xffffUL), c1 = convert_int16 ((px >> 16) & 0xffffUL);
    const int16 c2 = convert_int16 ((px >> 32) & 0xffffUL);
#else
    uint16 px;
    if (aligned16 (p, 0)) {
      __global const uint4 *at = (__global const uint4 *) row + x0 / 4;
      px = (uint16) (at[0], at[1], at[2], at[3]);
    } else {
      px = vload16 (0, (__global const uint *) row + x0);
    }
    const int16 c0 = convert_int16 (px & 0xffu), c1 = convert_int16 ((px >> 8) & 0xffu);
    const int16 c2 = convert_int16 ((px >> 16) & 0xffu);
#endif
#if IN_FMT == FMT_BGRA || IN_FMT == FMT_BGRX
    *r = c2;
    *b = c0;
#else
    *r = c0;
    *b = c2;
#endif
    *g = c1;
    return;
  }
  int tr[RUN], tg[RUN], tb[RUN];
  for (int i = 0; i < RUN; i++) {
    const float4 c = read_full (in, p, min (x0 + i, p->width - 1), y);
    tr[i] = (int) c.x;
    tg[i] = (int) c.y;
    tb[i] = (int) c.z;
  }
  *r = vload16 (0, tr);
  *g = vload16 (0, tg);
  *b = vload16 (0, tb);
}

RUN_FN void
store_luma_run (__global uchar * out, const Planes * p, int x0, int y, int16 l)
{
  __global uchar *row = out + p->offset[0] + y * p->stride[0];
  if (x0 + RUN <= p->width) {
    const bool aligned = aligned16 (p, 0);
#if OUT_FMT == FMT_P010
    const ushort16 c = convert_ushort16 (l << 6);
    store16 (as_uchar16 (c.lo), row + 2 * x0, aligned);
    store16 (as_uchar16 (c.hi), row + 2 * x0 + 16, aligned);
#else
    store16 (convert_uchar16 (l), row + x0, aligned);
#endif
    return;
  }
  int t[RUN];
  vstore16 (l, 0, t);
  for (int i = 0; x0 + i < p->width; i++)
    write_full (out, p, x0 + i, y, (float4) ((float) t[i], 0.0f, 0.0f, 0.0f));
}

RUN_FN void
store_chroma_run (__global uchar * out, const Planes * p, int k0, int y, int8 u, int8 v)
{
  const int cw = (p->width + 1) / 2;
  if (k0 + RUN / 2 <= cw) {
#if OUT_FMT == FMT_NV12
    store16 ((uchar16) INTERLEAVE8 (convert_uchar8 (u), convert_uchar8 (v)),
        out + p->offset[1] + y * p->stride[1] + 2 * k0, aligned16 (p, 1));
#elif OUT_FMT == FMT_I420
    vstore8 (convert_uchar8 (u), 0, out + p->offset[1] + y * p->stride[1] + k0);
    vstore8 (convert_uchar8 (v), 0, out + p->offset[2] + y * p->stride[2] + k0);
#else
    const ushort16 c = (ushort16) INTERLEAVE8 (convert_ushort8 (u << 6),
        convert_ushort8 (v << 6));
    vstore16 (as_uchar16 (c.lo), 0, out + p->offset[1] + y * p->stride[1] + 4 * k0);
    vstore16 (as_uchar16 (c.hi), 1, out + p->offset[1] + y * p->stride[1] + 4 * k0);
#endif
    return;
  }
  int tu[RUN / 2], tv[RUN / 2];
  vstore8 (u, 0, tu);
  vstore8 (v, 0, tv);
  for (int i = 0; k0 + i < cw; i++)
    write_chroma (out, p, k0 + i, y, (float4) (0.0f, (float) tu[i], (float) tv[i], 0.0f));
}

/* hw.s01: the weights in halves of pixels 2k and 2k + 1 (clamped) for chroma sample k; vw.s01
 * those of rows 2 gy and 2 gy + 1: the general kernel's taps at the output's chroma site. */
RUN_FN void
rgb_to_yuv_run (__global const uchar * in, const Planes * ip, __global uchar * out,
    const Planes * op, int x0, int gy, int8 hw, int8 vw, float4 m0, float4 m1, float4 m2,
    int out_max)
{
  int16 r[2], g[2], b[2];
  for (int t = 0; t < 2; t++)
    rgb_run (in, ip, x0, min (2 * gy + t, ip->height - 1), &r[t], &g[t], &b[t]);
  for (int t = 0; t < 2 && 2 * gy + t < ip->height; t++)
    store_luma_run (out, op, x0, 2 * gy + t, ROUND_CODES (16, AFFINE (float16, m0,
                convert_float16 (r[t]), convert_float16 (g[t]), convert_float16 (b[t])),
            out_max));
  const float8 cr = convert_float8 (vw.s0 * (hw.s0 * r[0].even + hw.s1 * r[0].odd) +
      vw.s1 * (hw.s0 * r[1].even + hw.s1 * r[1].odd)) * 0.25f;
  const float8 cg = convert_float8 (vw.s0 * (hw.s0 * g[0].even + hw.s1 * g[0].odd) +
      vw.s1 * (hw.s0 * g[1].even + hw.s1 * g[1].odd)) * 0.25f;
  const float8 cb = convert_float8 (vw.s0 * (hw.s0 * b[0].even + hw.s1 * b[0].odd) +
      vw.s1 * (hw.s0 * b[1].even + hw.s1 * b[1].odd)) * 0.25f;
  store_chroma_run (out, op, x0 / 2, gy, ROUND_CODES (8, AFFINE (float8, m1, cr, cg, cb),
          out_max), ROUND_CODES (8, AFFINE (float8, m2, cr, cg, cb), out_max));
}

#endif

/* The weights along one axis (hw, vw above) for the 4:2:0 side's site there (`centred`, else
 * cosited): the general kernel's taps at the unscaled positions. Nearest takes the sample at
 * floor (position + 1/2). Constants, so that the compiler drops the taps of weight 0. */
#define WEIGHTS_READ(centred, nearest) ((nearest) ? ((centred) ? \
      (int8) (0, 4, 0, 0, 0, 4, 0, 0) : (int8) (0, 4, 0, 0, 0, 0, 4, 0)) : ((centred) ? \
      (int8) (1, 3, 0, 0, 0, 3, 1, 0) : (int8) (0, 4, 0, 0, 0, 2, 2, 0)))
#define WEIGHTS_WRITE(centred, nearest) (!(centred) ? (int8) (2, 0, 0, 0, 0, 0, 0, 0) : \
    (nearest) ? (int8) (0, 2, 0, 0, 0, 0, 0, 0) : (int8) (1, 1, 0, 0, 0, 0, 0, 0))
#if IS_420(IN_FMT)
#define WEIGHTS WEIGHTS_READ
#else
#define WEIGHTS WEIGHTS_WRITE
#endif

/* One work-item per run of RUN pixels of ROWS rows: global size ((width + RUN - 1) / RUN,
 * (height + ROWS - 1) / ROWS). Input and output have the same width and height; SITE_H and SITE_V
 * (build options) are the 4:2:0 side's chroma sites, 1 centred, 0 cosited. */
RUN_FN void
unscaled (__global const uchar * in, PLANE_ARGS (in), __global uchar * out, PLANE_ARGS (out),
    bool nearest, float4 m0, float4 m1, float4 m2, float out_max, float alpha)
{
  const int8 hw = WEIGHTS (SITE_H, nearest), vw = WEIGHTS (SITE_V, nearest);
  const Planes ip = PLANES_OF (in);
  const Planes op = PLANES_OF (out);
  const int x0 = RUN * (int) get_global_id (0), gy = get_global_id (1);
  if (x0 >= in_w || ROWS * gy >= in_h)
    return;
#if IS_420(IN_FMT)
  yuv_to_rgb_run (in, &ip, out, &op, x0, gy, hw, vw, m0, m1, m2, (int) out_max, (int) alpha);
#else
  rgb_to_yuv_run (in, &ip, out, &op, x0, gy, hw, vw, m0, m1, m2, (int) out_max);
#endif
}

#define UNSCALED_ARGS(p) p##_off0, p##_off1, p##_off2, p##_str0, p##_str1, p##_str2, p##_w, \
    p##_h

#if IS_420(IN_FMT) && IS_PACKED(OUT_FMT) && OUT_FMT != FMT_RGBA64
/* The blocks kernel, for GPUs: the unscaled conversion from 4:2:0 to 8-bit packed RGB with one
 * work-item per block of 4x4 pixels (two chroma row pairs: chroma rows cy0 - 1 .. cy0 + 2 read
 * once for the four output rows, chroma samples k0 - 1 .. k0 + 2 of each), where the runs above
 * give a work-item 16x4 pixels in 16-wide vectors that a GPU holds in too many registers. Away
 * from the edges, on planes whose rows start 4-byte aligned, each row's samples are read as a
 * few aligned words rather than a byte at a time. The same weights, sums and affine map as the
 * runs and the general kernel, so the same bits. Global size ((width + 3) / 4,
 * (height + 3) / 4). */
#define BLOCK_ROWS 4

/* Whether plane q's rows start on `bytes`-byte boundaries. */
RUN_FN bool
aligned_rows (const Planes * p, int q, int bytes)
{
  return ((p->offset[q] | p->stride[q]) & (bytes - 1)) == 0;
}

/* The U and V codes of chroma samples k0 - 1 .. k0 + 2 (clamped to [0, cw)) of chroma row cy. */
RUN_FN void
block_chroma (__global const uchar * in, const Planes * p, int k0, int cy, int cw, int4 * u,
    int4 * v)
{
  /* k0 is even: the words around it are aligned where the rows are. */
  if (k0 >= 2 && k0 + 4 <= cw) {
#if IN_FMT == FMT_NV12
    if (aligned_rows (p, 1, 4)) {
      __global const uint *at = (__global const uint *) (in + p->offset[1] + cy * p->stride[1] +
          2 * k0);
      const uint a = at[-1], b = at[0], c = at[1];
      *u = convert_int4 ((uint4) (a >> 16, b, b >> 16, c) & 0xffu);
      *v = convert_int4 ((uint4) (a >> 24, b >> 8, b >> 24, c >> 8) & 0xffu);
      return;
    }
#elif IN_FMT == FMT_I420
    if (aligned_rows (p, 1, 2) && aligned_rows (p, 2, 2)) {
      const int row = cy * p->stride[1] + k0;
      __global const ushort *ua = (__global const ushort *) (in + p->offset[1] + row);
      __global const ushort *va = (__global const ushort *) (in + p->offset[2] + cy *
          p->stride[2] + k0);
      const uint3 uw = (uint3) (ua[-1], ua[0], ua[1]), vw = (uint3) (va[-1], va[0], va[1]);
      *u = convert_int4 ((uint4) (uw.x >> 8, uw.y, uw.y >> 8, uw.z) & 0xffu);
      *v = convert_int4 ((uint4) (vw.x >> 8, vw.y, vw.y >> 8, vw.z) & 0xffu);
      return;
    }
#else /* P010: a word per sample, U in the low half, codes in the top 10 bits of each half */
    if (aligned_rows (p, 1, 4)) {
      __global const uint *at = (__global const uint *) (in + p->offset[1] + cy * p->stride[1] +
          4 * k0);
      const uint4 w = (uint4) (at[-1], at[0], at[1], at[2]);
      *u = convert_int4 ((w & 0xffffu) >> 6);
      *v = convert_int4 (w >> 22);
      return;
    }
#endif
  }
  int cu[4], cv[4];
  for (int j = 0; j < 4; j++) {
    const float2 c = read_chroma (in, p, clamp (k0 - 1 + j, 0, cw - 1), cy);
    cu[j] = (int) c.x;
    cv[j] = (int) c.y;
  }
  *u = vload4 (0, cu);
  *v = vload4 (0, cv);
}

/* The luma codes of pixels x0 .. x0 + 3 of row y (past the width: the last pixel's). */
RUN_FN float4
block_luma (__global const uchar * in, const Planes * p, int x0, int y, int w)
{
  __global const uchar *row = in + p->offset[0] + y * p->stride[0];
#if IN_FMT == FMT_P010
  if (x0 + 4 <= w && aligned_rows (p, 0, 8))
    return convert_float4 (as_ushort4 (*(__global const uint2 *) (row + 2 * x0)) >> (ushort) 6);
#else
  if (x0 + 4 <= w && aligned_rows (p, 0, 4))
    return convert_float4 (*(__global const uchar4 *) (row + x0));
#endif
  float lv[4];
  for (int i = 0; i < 4; i++)
    lv[i] = read_full (in, p, min (x0 + i, w - 1), y).x;
  return vload4 (0, lv);
}

/* The packed words of pixels x0 .. x0 + 3 of output row y (only those inside the width). */
RUN_FN void
block_store (__global uchar * out, const Planes * p, int x0, int y, int w, int4 r, int4 g,
    int4 b, int alpha)
{
  const int4 first = OUT_FIRST (r, b), third = OUT_THIRD (r, b);
  const uint4 px = as_uint4 (first | (g << 8) | (third << 16) | (alpha << 24));
  __global uchar *row = out + p->offset[0] + y * p->stride[0];
  if (x0 + 4 <= w && aligned16 (p, 0)) {
    *(__global uint4 *) (row + 4 * x0) = px;
    return;
  }
  uint words[4];
  vstore4 (px, 0, words);
  for (int i = 0; i < 4 && x0 + i < w; i++)
    *(__global uint *) (row + 4 * (x0 + i)) = words[i];
}

RUN_FN void
unscaled_block (__global const uchar * in, PLANE_ARGS (in), __global uchar * out,
    PLANE_ARGS (out), bool nearest, float4 m0, float4 m1, float4 m2, float out_max, float alpha)
{
  const int8 hw = WEIGHTS (SITE_H, nearest), vw = WEIGHTS (SITE_V, nearest);
  const Planes ip = PLANES_OF (in);
  const Planes op = PLANES_OF (out);
  const int gx = get_global_id (0), gy = get_global_id (1);
  const int x0 = 4 * gx, k0 = 2 * gx, cy0 = BLOCK_ROWS / 2 * gy;
  if (x0 >= in_w || BLOCK_ROWS * gy >= in_h)
    return;
  const int cw = (in_w + 1) / 2, ch = (in_h + 1) / 2;
  /* Per chroma row cy0 - 1 + r: U and V weighed along x for pixels x0 .. x0 + 3 (in
   * quarters). */
  int4 hu[BLOCK_ROWS / 2 + 2], hv[BLOCK_ROWS / 2 + 2];
  for (int r = 0; r < BLOCK_ROWS / 2 + 2; r++) {
    int4 u, v;
    block_chroma (in, &ip, k0, clamp (cy0 - 1 + r, 0, ch - 1), cw, &u, &v);
    hu[r] = (int4) (hw.s0 * u.x + hw.s1 * u.y + hw.s2 * u.z, hw.s4 * u.x + hw.s5 * u.y +
        hw.s6 * u.z, hw.s0 * u.y + hw.s1 * u.z + hw.s2 * u.w, hw.s4 * u.y + hw.s5 * u.z +
        hw.s6 * u.w);
    hv[r] = (int4) (hw.s0 * v.x + hw.s1 * v.y + hw.s2 * v.z, hw.s4 * v.x + hw.s5 * v.y +
        hw.s6 * v.z, hw.s0 * v.y + hw.s1 * v.z + hw.s2 * v.w, hw.s4 * v.y + hw.s5 * v.z +
        hw.s6 * v.w);
  }
  for (int q = 0; q < BLOCK_ROWS && BLOCK_ROWS * gy + q < in_h; q++) {
    /* Output row 2 cy + t weighs chroma rows cy - 1 .. cy + 1 by vw.s012 (t = 0) or vw.s456. */
    const int c = q / 2;
    const int3 w = q % 2 == 0 ? vw.s012 : vw.s456;
    const float4 u = convert_float4 (w.x * hu[c] + w.y * hu[c + 1] + w.z * hu[c + 2]) *
        0.0625f;
    const float4 v = convert_float4 (w.x * hv[c] + w.y * hv[c + 1] + w.z * hv[c + 2]) *
        0.0625f;
    const int y = BLOCK_ROWS * gy + q;
    const float4 l = block_luma (in, &ip, x0, y, in_w);
    block_store (out, &op, x0, y, out_w, ROUND_CODES (4, AFFINE (float4, m0, l, u, v),
            (int) out_max), ROUND_CODES (4, AFFINE (float4, m1, l, u, v), (int) out_max),
        ROUND_CODES (4, AFFINE (float4, m2, l, u, v), (int) out_max), (int) alpha);
  }
}

__kernel void
convert_blocks_nearest (__global const uchar * in, PLANE_ARGS (in), __global uchar * out,
    PLANE_ARGS (out), float4 m0, float4 m1, float4 m2, float out_max, float alpha)
{
  unscaled_block (in, UNSCALED_ARGS (in), out, UNSCALED_ARGS (out), true, m0, m1, m2, out_max,
      alpha);
}

__kernel void
convert_blocks_bilinear (__global const uchar * in, PLANE_ARGS (in), __global uchar * out,
    PLANE_ARGS (out), float4 m0, float4 m1, float4 m2, float out_max, float alpha)
{
  unscaled_block (in, UNSCALED_ARGS (in), out, UNSCALED_ARGS (out), false, m0, m1, m2,
      out_max, alpha);
}
#endif

__kernel void
convert_unscaled_nearest (__global const uchar * in, PLANE_ARGS (in), __global uchar * out,
    PLANE_ARGS (out), float4 m0, float4 m1, float4 m2, float out_max, float alpha)
{
  unscaled (in, UNSCALED_ARGS (in), out, UNSCALED_ARGS (out), true, m0, m1, m2, out_max, alpha);
}

__kernel void
convert_unscaled_bilinear (__global const uchar * in, PLANE_ARGS (in), __global uchar * out,
    PLANE_ARGS (out), float4 m0, float4 m1, float4 m2, float out_max, float alpha)
{
  unscaled (in, UNSCALED_ARGS (in), out, UNSCALED_ARGS (out), false, m0, m1, m2, out_max,
      alpha);
}

#endif

/* The halving kernel, halve_packed: 8-bit RGBA or BGRA (the same format in and out, through
 * the identity map) halved in each direction with the bilinear method. The general kernel's
 * taps then sit halfway between two pixels on both axes (weights of one half), so each output
 * component is the mean of a 2x2 block, and its floor (v + 0.5) is (sum + 2) / 4 in integers:
 * the same bits. Four output pixels per work-item, from two rows of eight input words; the
 * components are summed in 16-bit lanes of 32-bit words, two at a time (the four sums of 8-bit
 * codes fit in 10 bits). Offsets and strides are in bytes, multiples of 4. */
#define LANE_BYTES 0x00FF00FFu

inline uint
mean_of_four (uint a, uint b, uint c, uint d)
{
  const uint even = (a & LANE_BYTES) + (b & LANE_BYTES) + (c & LANE_BYTES) +
      (d & LANE_BYTES) + 0x00020002u;
  const uint odd = ((a >> 8) & LANE_BYTES) + ((b >> 8) & LANE_BYTES) +
      ((c >> 8) & LANE_BYTES) + ((d >> 8) & LANE_BYTES) + 0x00020002u;
  return ((even >> 2) & LANE_BYTES) | (((odd >> 2) & LANE_BYTES) << 8);
}

__kernel void
halve_packed (__global const uchar * in, int in_offset, int in_stride, __global uchar * out,
    int out_offset, int out_stride, int out_w, int out_h)
{
  const int x0 = get_global_id (0) * 4, y = get_global_id (1);
  if (x0 >= out_w || y >= out_h)
    return;
  __global const uint *top = (__global const uint *) (in + in_offset + 2 * y * in_stride) +
      2 * x0;
  __global const uint *bottom = (__global const uint *) ((__global const uchar *) top +
      in_stride);
  __global uint *row = (__global uint *) (out + out_offset + y * out_stride) + x0;
  if (x0 + 4 <= out_w) {
    const uint8 t = vload8 (0, top), b = vload8 (0, bottom);
    vstore4 ((uint4) (mean_of_four (t.s0, t.s1, b.s0, b.s1),
            mean_of_four (t.s2, t.s3, b.s2, b.s3), mean_of_four (t.s4, t.s5, b.s4, b.s5),
            mean_of_four (t.s6, t.s7, b.s6, b.s7)), 0, row);
    return;
  }
  for (int i = 0; x0 + i < out_w; i++)
    row[i] = mean_of_four (top[2 * i], top[2 * i + 1], bottom[2 * i], bottom[2 * i + 1]);
}
