/* gst-opencl tests: the CPU reference of openclconvertscale, in double precision.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "reference/convertscale_reference.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <utility>
#include <vector>

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
picture (const GstVideoInfo * in, const Crop & crop, const GstVideoInfo * out, bool add_borders)
{
  const int ow = out->width, oh = out->height;
  Rect r { 0, 0, ow, oh };
  if (!add_borders)
    return r;
  const double ratio = (double) crop.w * in->par_n * out->par_d /
      ((double) crop.h * in->par_d * out->par_n);
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

/* One axis of a position on a component's grid: coordinate n / d, the samples lo .. hi it may
 * read, and lanczos's stretch (input samples per output sample, in [1, 8]). */
struct Axis
{
  long long n, d;
  int lo, hi;
  double stretch;
};

/* The taps of `method` along an axis: sample indices (clamped) and weights. */
std::vector<std::pair<int, double>>
taps (const Axis & a, Method method)
{
  std::vector<std::pair<int, double>> t;
  auto clamped = [&a](long long i) {
    return (int) std::clamp<long long> (i, a.lo, a.hi);
  };
  if (method == Method::Nearest) {
    t.push_back ({ clamped (floor_div (2 * a.n + a.d, 2 * a.d)), 1.0 });
    return t;
  }
  const long long i = floor_div (a.n, a.d);
  const double f = (double) (a.n - i * a.d) / a.d;
  if (method == Method::Bilinear) {
    t.push_back ({ clamped (i), 1 - f });
    t.push_back ({ clamped (i + 1), f });
  } else if (method == Method::Cubic) {
    /* Catmull-Rom over the 4 samples around the position. */
    for (int k = 0; k < 4; k++) {
      const double x = std::fabs (f - (k - 1));
      t.push_back ({ clamped (i - 1 + k), x < 1 ? 1.5 * x * x * x - 2.5 * x * x + 1 : x < 2 ?
              -0.5 * x * x * x + 2.5 * x * x - 4 * x + 2 : 0.0 });
    }
  } else {
    /* Lanczos, 2 lobes, stretched: r = ceil (2 stretch) samples each side, normalised. */
    const int r = (int) std::ceil (2 * a.stretch);
    double sum = 0;
    for (int k = -r + 1; k <= r; k++) {
      const double x = std::fabs (k - f) / a.stretch, px = G_PI * x;
      const double w = x < 1e-5 ? 1.0 : x >= 2 ? 0.0 : 2 * std::sin (px) * std::sin (px / 2) /
          (px * px);
      t.push_back ({ clamped (i + k), w });
      sum += w;
    }
    for (auto & tap : t)
      tap.second /= sum;
  }
  return t;
}

double
stretch_of (int in_size, int out_size)
{
  return std::clamp ((double) in_size / out_size, 1.0, 8.0);
}

/* Component c of the input interpolated at picture coordinates nx/dx, ny/dy (luma grid,
 * relative to the crop's origin). */
double
sample_component (const GstVideoFrame * in, const GstVideoInfo * out, const Side & s, int c,
    const Crop & crop, long long nx, long long dx, long long ny, long long dy, Method method)
{
  const GstVideoFormatInfo *finfo = in->info.finfo;
  const int w_sub = GST_VIDEO_FORMAT_INFO_W_SUB (finfo, c);
  const int h_sub = GST_VIDEO_FORMAT_INFO_H_SUB (finfo, c);
  const int dw = (int) (dx / 2), dh = (int) (dy / 2);
  /* Luma: the frame's coordinate; chroma sample k sits at luma coordinate 2 k + off / 2, and
   * its grid steps by half the luma's per output pixel (as much between 4:2:0 chroma samples
   * of the output). */
  const long long lx = nx + (long long) crop.x * dx, ly = ny + (long long) crop.y * dy;
  const int per = GST_VIDEO_FORMAT_INFO_W_SUB (out->finfo, 1) ? 1 : 2;
  const Axis ax = w_sub ? Axis { 2 * lx - s.hoff * dx, 4 * dx, crop.x / 2,
    (crop.x + crop.w - 1) / 2, stretch_of (crop.w, per * dw) } : Axis { lx, dx, crop.x,
    crop.x + crop.w - 1, stretch_of (crop.w, dw) };
  const Axis ay = h_sub ? Axis { 2 * ly - s.voff * dy, 4 * dy, crop.y / 2,
    (crop.y + crop.h - 1) / 2, stretch_of (crop.h, per * dh) } : Axis { ly, dy, crop.y,
    crop.y + crop.h - 1, stretch_of (crop.h, dh) };
  double sum = 0;
  for (const auto & ty : taps (ay, method))
    for (const auto & tx : taps (ax, method))
      sum += tx.second * ty.second * component (in, c, tx.first, ty.first);
  return sum;
}

/* R, G, B in [0, 1] (before saturation) of the input at input coordinates nx/dx, ny/dy, for
 * an output of `out`. */
void
normalised_rgb (const GstVideoFrame * in, const GstVideoInfo * out, const Side & is,
    const Crop & crop, long long nx, long long dx, long long ny, long long dy, Method method,
    double rgb[3])
{
  double e[3] = { 0, 0, 0 };
  const int n = is.gray ? 1 : 3;
  for (int c = 0; c < n; c++)
    e[c] = (sample_component (in, out, is, c, crop, nx, dx, ny, dy, method) - is.offset[c]) /
        is.scale[c];
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
}

/* The output codes (4: components and alpha) at doubled output position (px2, py2). */
void
pixel (const GstVideoFrame * in, const Side & is, const Side & os, const Rect & r,
    const Crop & crop, Method method, int px2, int py2, double code[4])
{
  if (px2 < 2 * r.x || px2 >= 2 * (r.x + r.w) || py2 < 2 * r.y || py2 >= 2 * (r.y + r.h)) {
    for (int c = 0; c < 3; c++)
      code[c] = os.yuv ? std::floor (os.offset[c] + 0.5) : 0;
    code[3] = os.max;
    return;
  }
  const long long nx = (long long) (px2 - 2 * r.x + 1) * crop.w - r.w, dx = 2LL * r.w;
  const long long ny = (long long) (py2 - 2 * r.y + 1) * crop.h - r.h, dy = 2LL * r.h;
  double rgb[3];
  normalised_rgb (in, os.info, is, crop, nx, dx, ny, dy, method, rgb);
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
  code[3] = is.alpha ? std::clamp (std::floor (sample_component (in, os.info, is, 3, crop, nx,
              dx, ny, dy, method) * os.max / is.max + 0.5), 0.0, os.max) : os.max;
}

}  // namespace

const char *
method_nick (Method method)
{
  switch (method) {
    case Method::Nearest:
      return "nearest-neighbour";
    case Method::Lanczos:
      return "lanczos";
    case Method::Cubic:
      return "catrom";
    default:
      return "bilinear";
  }
}

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
convert (const GstVideoFrame * in, GstVideoFrame * out, Method method, bool add_borders,
    const Crop * crop)
{
  const Side is = side_of (&in->info, &out->info);
  const Side os = side_of (&out->info, &in->info);
  const Crop picture_crop = crop ? *crop : Crop { 0, 0, in->info.width, in->info.height };
  const Rect r = picture (&in->info, picture_crop, &out->info, add_borders);
  const GstVideoFormatInfo *finfo = out->info.finfo;
  const int n = GST_VIDEO_INFO_N_COMPONENTS (&out->info);
  double code[4];
  for (int y = 0; y < out->info.height; y++) {
    for (int x = 0; x < out->info.width; x++) {
      pixel (in, is, os, r, picture_crop, method, 2 * x, 2 * y, code);
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
        pixel (in, is, os, r, picture_crop, method, 4 * i + os.hoff, 4 * j + os.voff,
            code);
        set_component (out, 1, i, j, (int) code[1]);
        set_component (out, 2, i, j, (int) code[2]);
      }
    }
  }
}

void
rgb_values (const GstVideoFrame * in, const GstVideoInfo * out, Method method, bool add_borders,
    int x, int y, double rgb[3], const Crop * crop)
{
  const Side is = side_of (&in->info, out);
  const Crop picture_crop = crop ? *crop : Crop { 0, 0, in->info.width, in->info.height };
  const Rect r = picture (&in->info, picture_crop, out, add_borders);
  if (x < r.x || x >= r.x + r.w || y < r.y || y >= r.y + r.h) {
    rgb[0] = rgb[1] = rgb[2] = 0;
    return;
  }
  const long long nx = (long long) (2 * (x - r.x) + 1) * picture_crop.w - r.w, dx = 2LL * r.w;
  const long long ny = (long long) (2 * (y - r.y) + 1) * picture_crop.h - r.h, dy = 2LL * r.h;
  normalised_rgb (in, out, is, picture_crop, nx, dx, ny, dy, method, rgb);
  for (int c = 0; c < 3; c++)
    rgb[c] *= 255.0;
}

Difference
compare (GstBuffer * input, const GstVideoInfo * in_info, GstBuffer * output,
    const GstVideoInfo * out_info, Method method, bool add_borders, const Crop * crop)
{
  GstBuffer *expected = gst_buffer_new_allocate (nullptr, out_info->size, nullptr);
  GstVideoFrame in, got, want;
  gboolean mapped = gst_video_frame_map (&in, in_info, input, GST_MAP_READ);
  mapped = mapped && gst_video_frame_map (&got, out_info, output, GST_MAP_READ);
  mapped = mapped && gst_video_frame_map (&want, out_info, expected, GST_MAP_WRITE);
  g_assert (mapped);
  convert (&in, &want, method, add_borders, crop);
  Difference d;
  size_t off = 0;
  for (guint c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (out_info); c++) {
    for (int y = 0; y < GST_VIDEO_FRAME_COMP_HEIGHT (&got, c); y++) {
      for (int x = 0; x < GST_VIDEO_FRAME_COMP_WIDTH (&got, c); x++) {
        const int a = component (&got, c, x, y);
        const int b = component (&want, c, x, y);
        d.samples++;
        off += a != b;
        if (std::abs (a - b) > d.worst) {
          d.worst = std::abs (a - b);
          d.where = "component " + std::to_string (c) + " at " + std::to_string (x) + "," +
              std::to_string (y) + ": " + std::to_string (a) + ", reference " +
              std::to_string (b);
        }
      }
    }
  }
  gst_video_frame_unmap (&want);
  gst_video_frame_unmap (&got);
  gst_video_frame_unmap (&in);
  gst_buffer_unref (expected);
  d.share_off = (double) off / (double) MAX (d.samples, (size_t) 1);
  return d;
}

}  // namespace convertscale_reference
