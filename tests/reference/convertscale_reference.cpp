/* gst-opencl tests: the CPU reference of openclconvertscale, in double precision.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "reference/convertscale_reference.h"

#include <algorithm>
#include <cmath>

namespace convertscale_reference {

namespace {

/* A component's byte offset in its pixel. GStreamer 1.22 describes P010_10LE's V at byte 1 of
 * the 4-byte UV pair (its pack functions put it at byte 2, as the format is): taken from the
 * pixel stride of two 16-bit words instead. */
int
pixel_offset (const GstVideoFormatInfo * finfo, int c)
{
  if (GST_VIDEO_FORMAT_INFO_FORMAT (finfo) == GST_VIDEO_FORMAT_P010_10LE)
    return c == 2 ? 2 : 0;
  return GST_VIDEO_FORMAT_INFO_POFFSET (finfo, c);
}

guint8 *
component_address (const GstVideoFrame * frame, int c, int x, int y)
{
  const GstVideoFormatInfo *finfo = frame->info.finfo;
  const int plane = GST_VIDEO_FORMAT_INFO_PLANE (finfo, c);
  return static_cast<guint8 *> (frame->data[plane]) + (gsize) y *
      GST_VIDEO_FRAME_PLANE_STRIDE (frame, plane) + pixel_offset (finfo, c) +
      (gsize) x * GST_VIDEO_FORMAT_INFO_PSTRIDE (finfo, c);
}

bool
wide (const GstVideoFrame * frame, int c)
{
  const GstVideoFormatInfo *finfo = frame->info.finfo;
  return GST_VIDEO_FORMAT_INFO_DEPTH (finfo, c) + GST_VIDEO_FORMAT_INFO_SHIFT (finfo, c) > 8;
}

/* floor (n / d), d > 0. */
long long
floor_div (long long n, long long d)
{
  return n >= 0 ? n / d : -((-n + d - 1) / d);
}

struct Tap
{
  int i0, i1;
  double f;
};

Tap
tap_of (long long n, long long d, int size, Method method)
{
  Tap t;
  if (method == Method::Nearest) {
    long long i = floor_div (2 * n + d, 2 * d);
    t.i0 = t.i1 = (int) std::clamp<long long> (i, 0, size - 1);
    t.f = 0;
    return t;
  }
  long long i = floor_div (n, d);
  t.f = (double) (n - i * d) / (double) d;
  t.i0 = (int) std::clamp<long long> (i, 0, size - 1);
  t.i1 = (int) std::clamp<long long> (i + 1, 0, size - 1);
  return t;
}

struct Side
{
  const GstVideoInfo *info;
  double kr, kb;
  double offset[4], scale[4];
  double max;
  int hoff, voff;
  bool yuv, gray, alpha;
};

Side
side_of (const GstVideoInfo * info, const GstVideoInfo * other)
{
  Side s;
  s.info = info;
  s.yuv = GST_VIDEO_INFO_IS_YUV (info);
  s.gray = GST_VIDEO_INFO_IS_GRAY (info);
  s.alpha = GST_VIDEO_INFO_HAS_ALPHA (info);
  s.max = (double) ((1 << GST_VIDEO_INFO_COMP_DEPTH (info, 0)) - 1);
  if (!gst_video_color_matrix_get_Kr_Kb (info->colorimetry.matrix, &s.kr, &s.kb) &&
      !(s.gray && GST_VIDEO_INFO_IS_YUV (other) &&
          gst_video_color_matrix_get_Kr_Kb (other->colorimetry.matrix, &s.kr, &s.kb))) {
    GstVideoColorMatrix m = GST_VIDEO_COLOR_MATRIX_BT601;
    if (s.yuv)
      m = info->height >= 2160 ? GST_VIDEO_COLOR_MATRIX_BT2020 : info->height > 576 ?
          GST_VIDEO_COLOR_MATRIX_BT709 : GST_VIDEO_COLOR_MATRIX_BT601;
    gst_video_color_matrix_get_Kr_Kb (m, &s.kr, &s.kb);
  }
  gint o[GST_VIDEO_MAX_COMPONENTS], sc[GST_VIDEO_MAX_COMPONENTS];
  gst_video_color_range_offsets (info->colorimetry.range, info->finfo, o, sc);
  for (int c = 0; c < 4; c++) {
    s.offset[c] = c < (int) GST_VIDEO_INFO_N_COMPONENTS (info) ? o[c] : 0;
    s.scale[c] = c < (int) GST_VIDEO_INFO_N_COMPONENTS (info) ? sc[c] : 1;
  }
  GstVideoChromaSite site = info->chroma_site;
  if (site == GST_VIDEO_CHROMA_SITE_UNKNOWN)
    site = GST_VIDEO_CHROMA_SITE_MPEG2;
  s.hoff = (site & GST_VIDEO_CHROMA_SITE_H_COSITED) ? 0 : 1;
  s.voff = (site & GST_VIDEO_CHROMA_SITE_V_COSITED) ? 0 : 1;
  return s;
}

struct Rect
{
  int x, y, w, h;
};

Rect
picture (const GstVideoInfo * in, const GstVideoInfo * out, bool add_borders)
{
  const int ow = out->width, oh = out->height;
  Rect r { 0, 0, ow, oh };
  if (!add_borders)
    return r;
  const double ratio = (double) in->width * in->par_n * out->par_d /
      ((double) in->height * in->par_d * out->par_n);
  const double w = oh * ratio;
  if (std::fabs (w - ow) < 1.0)
    return r;
  if (w < ow) {
    r.w = std::clamp ((int) std::lround (w), 1, ow);
    r.x = (ow - r.w) / 2;
  } else {
    r.h = std::clamp ((int) std::lround (ow / ratio), 1, oh);
    r.y = (oh - r.h) / 2;
  }
  return r;
}

/* Component c of the input interpolated at input coordinates nx/dx, ny/dy (luma grid). */
double
sample_component (const GstVideoFrame * in, const Side & s, int c, long long nx, long long dx,
    long long ny, long long dy, Method method)
{
  const GstVideoFormatInfo *finfo = in->info.finfo;
  const int w_sub = GST_VIDEO_FORMAT_INFO_W_SUB (finfo, c);
  const int h_sub = GST_VIDEO_FORMAT_INFO_H_SUB (finfo, c);
  const int cw = GST_VIDEO_SUB_SCALE (w_sub, in->info.width);
  const int ch = GST_VIDEO_SUB_SCALE (h_sub, in->info.height);
  const long long ax = w_sub ? 2 * nx - s.hoff * dx : nx, bx = w_sub ? 4 * dx : dx;
  const long long ay = h_sub ? 2 * ny - s.voff * dy : ny, by = h_sub ? 4 * dy : dy;
  if (method == Method::Cubic) {
    /* Catmull-Rom over the 4x4 samples around the position, edges clamped. */
    const long long ix = floor_div (ax, bx), iy = floor_div (ay, by);
    const double fx = (double) (ax - ix * bx) / bx, fy = (double) (ay - iy * by) / by;
    auto weight = [](double f, int k) {
      const double t = std::fabs (f - (k - 1));
      return t < 1 ? 1.5 * t * t * t - 2.5 * t * t + 1 : t < 2 ? -0.5 * t * t * t + 2.5 * t * t -
          4 * t + 2 : 0.0;
    };
    double sum = 0;
    for (int j = 0; j < 4; j++) {
      const int y = (int) std::clamp<long long> (iy - 1 + j, 0, ch - 1);
      for (int i = 0; i < 4; i++) {
        const int x = (int) std::clamp<long long> (ix - 1 + i, 0, cw - 1);
        sum += weight (fx, i) * weight (fy, j) * component (in, c, x, y);
      }
    }
    return sum;
  }
  Tap tx = tap_of (ax, bx, cw, method);
  Tap ty = tap_of (ay, by, ch, method);
  const double a = component (in, c, tx.i0, ty.i0), b = component (in, c, tx.i1, ty.i0);
  const double d = component (in, c, tx.i0, ty.i1), e = component (in, c, tx.i1, ty.i1);
  const double top = a + (b - a) * tx.f, bottom = d + (e - d) * tx.f;
  return top + (bottom - top) * ty.f;
}

/* The output codes (4: components and alpha) at doubled output position (px2, py2). */
void
pixel (const GstVideoFrame * in, const Side & is, const Side & os, const Rect & r,
    Method method, int px2, int py2, double code[4])
{
  if (px2 < 2 * r.x || px2 >= 2 * (r.x + r.w) || py2 < 2 * r.y || py2 >= 2 * (r.y + r.h)) {
    for (int c = 0; c < 3; c++)
      code[c] = os.yuv ? std::floor (os.offset[c] + 0.5) : 0;
    code[3] = os.max;
    return;
  }
  const long long nx = (long long) (px2 - 2 * r.x + 1) * in->info.width - r.w, dx = 2LL * r.w;
  const long long ny = (long long) (py2 - 2 * r.y + 1) * in->info.height - r.h, dy = 2LL * r.h;
  double e[3] = { 0, 0, 0 };
  const int n = is.gray ? 1 : 3;
  for (int c = 0; c < n; c++)
    e[c] = (sample_component (in, is, c, nx, dx, ny, dy, method) - is.offset[c]) / is.scale[c];
  double rgb[3];
  if (is.gray) {
    rgb[0] = rgb[1] = rgb[2] = e[0];
  } else if (is.yuv) {
    const double kg = 1 - is.kr - is.kb;
    rgb[0] = e[0] + 2 * (1 - is.kr) * e[2];
    rgb[2] = e[0] + 2 * (1 - is.kb) * e[1];
    rgb[1] = (e[0] - is.kr * rgb[0] - is.kb * rgb[2]) / kg;
  } else {
    rgb[0] = e[0];
    rgb[1] = e[1];
    rgb[2] = e[2];
  }
  double o[3];
  if (os.yuv || os.gray) {
    const double kg = 1 - os.kr - os.kb;
    o[0] = os.kr * rgb[0] + kg * rgb[1] + os.kb * rgb[2];
    o[1] = os.gray ? 0 : (rgb[2] - o[0]) / (2 * (1 - os.kb));
    o[2] = os.gray ? 0 : (rgb[0] - o[0]) / (2 * (1 - os.kr));
  } else {
    o[0] = rgb[0];
    o[1] = rgb[1];
    o[2] = rgb[2];
  }
  for (int c = 0; c < 3; c++)
    code[c] = std::clamp (std::floor (o[c] * os.scale[c] + os.offset[c] + 0.5), 0.0, os.max);
  code[3] = is.alpha ? std::clamp (std::floor (sample_component (in, is, 3, nx, dx, ny, dy,
              method) * os.max / is.max + 0.5), 0.0, os.max) : os.max;
}

}  // namespace

void
set_component (GstVideoFrame * frame, int c, int x, int y, int value)
{
  guint8 *at = component_address (frame, c, x, y);
  const int stored = value << GST_VIDEO_FORMAT_INFO_SHIFT (frame->info.finfo, c);
  if (wide (frame, c)) {
    at[0] = (guint8) (stored & 0xff);
    at[1] = (guint8) (stored >> 8);
  } else {
    at[0] = (guint8) stored;
  }
}

int
component (const GstVideoFrame * frame, int c, int x, int y)
{
  const guint8 *at = component_address (frame, c, x, y);
  const int stored = wide (frame, c) ? at[0] | (at[1] << 8) : at[0];
  return stored >> GST_VIDEO_FORMAT_INFO_SHIFT (frame->info.finfo, c);
}

void
convert (const GstVideoFrame * in, GstVideoFrame * out, Method method, bool add_borders)
{
  const Side is = side_of (&in->info, &out->info);
  const Side os = side_of (&out->info, &in->info);
  const Rect r = picture (&in->info, &out->info, add_borders);
  const GstVideoFormatInfo *finfo = out->info.finfo;
  const int n = GST_VIDEO_INFO_N_COMPONENTS (&out->info);
  double code[4];
  for (int y = 0; y < out->info.height; y++) {
    for (int x = 0; x < out->info.width; x++) {
      pixel (in, is, os, r, method, 2 * x, 2 * y, code);
      for (int c = 0; c < n; c++) {
        if (GST_VIDEO_FORMAT_INFO_W_SUB (finfo, c) == 0)
          set_component (out, c, x, y, (int) code[c]);
      }
      /* RGBx, BGRx: the padding byte is 255, as an opaque alpha. */
      if (n == 3 && GST_VIDEO_INFO_IS_RGB (&out->info) && GST_VIDEO_FORMAT_INFO_PSTRIDE (finfo,
              0) == 4) {
        guint8 *p = static_cast<guint8 *> (out->data[0]) + (gsize) y *
            GST_VIDEO_FRAME_PLANE_STRIDE (out, 0) + (gsize) x * 4;
        const int used = GST_VIDEO_FORMAT_INFO_POFFSET (finfo, 0) +
            GST_VIDEO_FORMAT_INFO_POFFSET (finfo, 1) + GST_VIDEO_FORMAT_INFO_POFFSET (finfo, 2);
        p[6 - used] = 255;
      }
    }
  }
  if (n == 3 && GST_VIDEO_FORMAT_INFO_W_SUB (finfo, 1)) {
    const int cw = GST_VIDEO_SUB_SCALE (1, out->info.width);
    const int ch = GST_VIDEO_SUB_SCALE (1, out->info.height);
    for (int j = 0; j < ch; j++) {
      for (int i = 0; i < cw; i++) {
        pixel (in, is, os, r, method, 4 * i + os.hoff, 4 * j + os.voff, code);
        set_component (out, 1, i, j, (int) code[1]);
        set_component (out, 2, i, j, (int) code[2]);
      }
    }
  }
}

}  // namespace convertscale_reference
