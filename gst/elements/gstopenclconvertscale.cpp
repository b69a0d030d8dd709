/* gst-opencl: openclconvertscale, colour conversion and scaling in one pass on an OpenCL device.
 * SPDX-License-Identifier: LGPL-2.1-or-later */

/**
 * SECTION:element-openclconvertscale
 * @title: openclconvertscale
 *
 * Converts video frames between NV12, I420, P010_10LE, GRAY8, GRAY16_LE, RGBA, BGRA, RGBx, BGRx
 * and RGBA64_LE and scales them, in one kernel pass, as `videoconvertscale` does on the CPU:
 * every output pixel (every 2x2 block of a 4:2:0 output) samples the input in its own format
 * at its own position (nearest, bilinear or bicubic), and one affine map, computed in double
 * precision from both sides' colorimetry (matrix BT.601, BT.709 or BT.2020; limited or full
 * range; depth), gives the output codes, rounded half up and saturated. 4:2:0 chroma is read and
 * written at the caps' chroma site (cosited or centred along each axis: "mpeg2", "jpeg",
 * "dv", "cosited"). With `add-borders` the picture keeps its display aspect ratio inside black
 * borders. When the caps are the same on both sides, buffers pass through untouched.
 *
 * Frames come and go in system, OpenCL or CUDA memory, and RGBA in GL memory, through the
 * plugin's frame path. See docs/openclconvertscale.md.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 videotestsrc ! video/x-raw,format=NV12,width=1920,height=1080 ! \
 *     openclconvertscale ! video/x-raw,format=RGBA,width=1280,height=720 ! \
 *     videoconvert ! autovideosink
 * ]|
 */
#include "elements/gstopenclconvertscale.h"

#include <gst/video/video.h>

#include <array>
#include <cmath>
#include <mutex>
#include <string>

#include "opencl/gstopenclframepath.h"
#include "opencl/gstopenclmemory.h"
#include "opencl/gstopenclproperties.h"
#include "opencl/gstopenclutils.h"

GST_DEBUG_CATEGORY_STATIC (gst_opencl_convert_scale_debug);
#define GST_CAT_DEFAULT gst_opencl_convert_scale_debug

/* The formats, in the order fixation falls back to when the input's is not offered. */
#define CONVERT_SCALE_FORMATS "NV12, I420, P010_10LE, GRAY8, GRAY16_LE, RGBA, BGRA, RGBx, " \
    "BGRx, RGBA64_LE"

namespace {

/* GstVideoScaleMethod's values and nicks, those the kernel has. */
enum class Method { Nearest = 0, Bilinear = 1, Cubic = 8 };

constexpr Method DEFAULT_METHOD = Method::Bilinear;
constexpr bool DEFAULT_ADD_BORDERS = true;

struct Settings
{
  Method method = DEFAULT_METHOD;
  bool add_borders = DEFAULT_ADD_BORDERS;
};

/* The formats and their FMT_* codes of kernels/convertscale.cl. */
struct FormatCode
{
  GstVideoFormat format;
  int code;
};

constexpr std::array<FormatCode, 10> FORMAT_CODES = { {
    { GST_VIDEO_FORMAT_NV12, 0 }, { GST_VIDEO_FORMAT_I420, 1 },
    { GST_VIDEO_FORMAT_P010_10LE, 2 }, { GST_VIDEO_FORMAT_GRAY8, 3 },
    { GST_VIDEO_FORMAT_GRAY16_LE, 4 }, { GST_VIDEO_FORMAT_RGBA, 5 },
    { GST_VIDEO_FORMAT_BGRA, 6 }, { GST_VIDEO_FORMAT_RGBx, 7 }, { GST_VIDEO_FORMAT_BGRx, 8 },
    { GST_VIDEO_FORMAT_RGBA64_LE, 9 } } };

int
format_code (GstVideoFormat format)
{
  for (const auto & row : FORMAT_CODES) {
    if (row.format == format)
      return row.code;
  }
  throw gst_opencl::Failure (gst_opencl::Failure::Kind::Settings, std::string ("format ") +
      gst_video_format_to_string (format) + " is not converted");
}

/* A 3x3 matrix and the helpers of the colour map. */
using Matrix = std::array<std::array<double, 3>, 3>;

Matrix
multiply (const Matrix & a, const Matrix & b)
{
  Matrix r {};
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      for (int k = 0; k < 3; k++)
        r[i][j] += a[i][k] * b[k][j];
  return r;
}

/* Kr and Kb of a side: its own matrix when it is a YUV one; a gray side takes the other side's
 * when that is YUV (so luma passes unchanged), else BT.601; a YUV side without a known matrix
 * takes GStreamer's default for its size. */
void
kr_kb (const GstVideoInfo * info, const GstVideoInfo * other, double *kr, double *kb)
{
  if (gst_video_color_matrix_get_Kr_Kb (info->colorimetry.matrix, kr, kb))
    return;
  if (GST_VIDEO_INFO_IS_GRAY (info) && GST_VIDEO_INFO_IS_YUV (other) &&
      gst_video_color_matrix_get_Kr_Kb (other->colorimetry.matrix, kr, kb))
    return;
  GstVideoColorMatrix matrix = GST_VIDEO_COLOR_MATRIX_BT601;
  if (GST_VIDEO_INFO_IS_YUV (info))
    matrix = GST_VIDEO_INFO_HEIGHT (info) >= 2160 ? GST_VIDEO_COLOR_MATRIX_BT2020 :
        GST_VIDEO_INFO_HEIGHT (info) > 576 ? GST_VIDEO_COLOR_MATRIX_BT709 :
        GST_VIDEO_COLOR_MATRIX_BT601;
  gst_video_color_matrix_get_Kr_Kb (matrix, kr, kb);
}

/* Normalised components (R G B in [0, 1], or Y in [0, 1] and Pb Pr in [-0.5, 0.5]) to R G B. */
Matrix
to_rgb (const GstVideoInfo * info, double kr, double kb)
{
  if (GST_VIDEO_INFO_IS_RGB (info))
    return Matrix { { { 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, 1 } } };
  if (GST_VIDEO_INFO_IS_GRAY (info))
    return Matrix { { { 1, 0, 0 }, { 1, 0, 0 }, { 1, 0, 0 } } };
  const double kg = 1.0 - kr - kb;
  return Matrix { { { 1, 0, 2 * (1 - kr) },
      { 1, -2 * (1 - kb) * kb / kg, -2 * (1 - kr) * kr / kg },
      { 1, 2 * (1 - kb), 0 } } };
}

Matrix
from_rgb (const GstVideoInfo * info, double kr, double kb)
{
  if (GST_VIDEO_INFO_IS_RGB (info))
    return Matrix { { { 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, 1 } } };
  const double kg = 1.0 - kr - kb;
  if (GST_VIDEO_INFO_IS_GRAY (info))
    return Matrix { { { kr, kg, kb }, { 0, 0, 0 }, { 0, 0, 0 } } };
  return Matrix { { { kr, kg, kb },
      { -kr / (2 * (1 - kb)), -kg / (2 * (1 - kb)), 0.5 },
      { 0.5, -kg / (2 * (1 - kr)), -kb / (2 * (1 - kr)) } } };
}

/* A side's code offsets and scales (GStreamer's, gst_video_color_range_offsets), components
 * beyond a gray format's one set to 0 and 1. */
void
range_of (const GstVideoInfo * info, double offset[3], double scale[3])
{
  gint o[GST_VIDEO_MAX_COMPONENTS], s[GST_VIDEO_MAX_COMPONENTS];
  gst_video_color_range_offsets (info->colorimetry.range, info->finfo, o, s);
  for (int c = 0; c < 3; c++) {
    const bool present = c < (int) GST_VIDEO_INFO_N_COMPONENTS (info);
    offset[c] = present ? o[c] : 0;
    scale[c] = present ? s[c] : 1;
  }
}

double
max_code (const GstVideoInfo * info)
{
  return (double) ((1u << GST_VIDEO_INFO_COMP_DEPTH (info, 0)) - 1);
}

/* Doubled chroma offsets from the sample's origin along x and y: 0 cosited, 1 centred. An
 * unknown site is MPEG-2's (cosited horizontally, centred vertically). */
void
chroma_offsets (const GstVideoInfo * info, int *h, int *v)
{
  GstVideoChromaSite site = GST_VIDEO_INFO_CHROMA_SITE (info);
  if (site == GST_VIDEO_CHROMA_SITE_UNKNOWN)
    site = GST_VIDEO_CHROMA_SITE_MPEG2;
  *h = (site & GST_VIDEO_CHROMA_SITE_H_COSITED) ? 0 : 1;
  *v = (site & GST_VIDEO_CHROMA_SITE_V_COSITED) ? 0 : 1;
}

/* What the negotiated caps set up. */
struct State
{
  bool passthrough = true;
  GstVideoInfo in {}, out {};
  cl::Kernel kernel;
  std::array<cl_float4, 3> rows {};
  cl_float alpha_scale = 1.0f, out_max = 255.0f;
  cl_float4 black {};
  int in_hoff = 0, in_voff = 1, out_hoff = 0, out_voff = 1;
};

/* The affine map from input codes to output codes, and the output's black. */
void
colour_map (State & state)
{
  const GstVideoInfo *in = &state.in, *out = &state.out;
  double in_kr, in_kb, out_kr, out_kb;
  kr_kb (in, out, &in_kr, &in_kb);
  kr_kb (out, in, &out_kr, &out_kb);
  double in_offset[3], in_scale[3], out_offset[3], out_scale[3];
  range_of (in, in_offset, in_scale);
  range_of (out, out_offset, out_scale);
  /* M = D_out T_out T_in D_in^-1, b = o_out - M o_in. */
  Matrix m = multiply (from_rgb (out, out_kr, out_kb), to_rgb (in, in_kr, in_kb));
  for (int i = 0; i < 3; i++) {
    double b = out_offset[i];
    for (int j = 0; j < 3; j++) {
      m[i][j] *= out_scale[i] / in_scale[j];
      b -= m[i][j] * in_offset[j];
    }
    state.rows[i] = { { (cl_float) m[i][0], (cl_float) m[i][1], (cl_float) m[i][2],
        (cl_float) b } };
  }
  state.out_max = (cl_float) max_code (out);
  state.alpha_scale = (cl_float) (max_code (out) / max_code (in));
  state.black = { { (cl_float) std::floor (out_offset[0] + 0.5), GST_VIDEO_INFO_IS_YUV (out) ?
          (cl_float) std::floor (out_offset[1] + 0.5) : 0.0f, GST_VIDEO_INFO_IS_YUV (out) ?
          (cl_float) std::floor (out_offset[2] + 0.5) : 0.0f, state.out_max } };
  chroma_offsets (in, &state.in_hoff, &state.in_voff);
  chroma_offsets (out, &state.out_hoff, &state.out_voff);
}

/* The picture's rectangle in the output: all of it, or, with borders, the largest centred one
 * of the input's display aspect ratio. */
struct Rect
{
  int x = 0, y = 0, w = 1, h = 1;
};

Rect
picture_rect (const GstVideoInfo * in, const GstVideoInfo * out, bool add_borders)
{
  Rect r;
  const int ow = GST_VIDEO_INFO_WIDTH (out), oh = GST_VIDEO_INFO_HEIGHT (out);
  r.w = ow;
  r.h = oh;
  if (!add_borders)
    return r;
  /* Display aspect ratio of the input over the output's pixel aspect ratio: the picture's
   * width over height in output pixels. */
  const double in_dar = (double) GST_VIDEO_INFO_WIDTH (in) * GST_VIDEO_INFO_PAR_N (in) /
      ((double) GST_VIDEO_INFO_HEIGHT (in) * GST_VIDEO_INFO_PAR_D (in));
  const double ratio = in_dar * GST_VIDEO_INFO_PAR_D (out) / GST_VIDEO_INFO_PAR_N (out);
  const double w_at_full_height = oh * ratio;
  if (std::fabs (w_at_full_height - ow) < 1.0)
    return r;
  if (w_at_full_height < ow) {
    r.w = CLAMP ((int) std::lround (w_at_full_height), 1, ow);
    r.x = (ow - r.w) / 2;
  } else {
    r.h = CLAMP ((int) std::lround (ow / ratio), 1, oh);
    r.y = (oh - r.h) / 2;
  }
  return r;
}

}  // namespace

struct GstOpenCLConvertScaleImpl
{
  std::mutex lock;
  Settings settings;
  State state;

  void drop_run () { state = State (); }
};

struct _GstOpenCLConvertScale
{
  GstOpenCLBaseTransform parent;
  GstOpenCLConvertScaleImpl *impl;
};

G_DEFINE_TYPE (GstOpenCLConvertScale, gst_opencl_convert_scale, GST_TYPE_OPENCL_BASE_TRANSFORM);
GST_ELEMENT_REGISTER_DEFINE (openclconvertscale, "openclconvertscale", GST_RANK_NONE,
    GST_TYPE_OPENCL_CONVERT_SCALE);

GType
gst_opencl_convert_scale_method_get_type (void)
{
  return gst_opencl::enum_type ("GstOpenCLConvertScaleMethod", {
        { (gint) Method::Nearest, "Nearest Neighbour", "nearest-neighbour" },
        { (gint) Method::Bilinear, "Bilinear (2-tap)", "bilinear" },
        { (gint) Method::Cubic, "Catmull-Rom (bicubic, 4-tap)", "catrom" },
      });
}

/* Any format and size in any memory: OpenCL, CUDA (where the device reaches it) and system
 * memory, and RGBA in GL memory. */
static GstCaps *
gst_opencl_convert_scale_transform_caps (GstBaseTransform * trans, GstPadDirection direction,
    GstCaps * caps, GstCaps * filter)
{
  const bool cuda = gst_opencl_base_transform_cuda_negotiable (GST_OPENCL_BASE_TRANSFORM (trans));
  GstCaps *result = gst_caps_new_empty ();
  for (guint i = 0; i < gst_caps_get_size (caps); i++) {
    GstStructure *any = gst_structure_copy (gst_caps_get_structure (caps, i));
    gst_structure_remove_fields (any, "format", "colorimetry", "chroma-site", "texture-target",
        nullptr);
    gst_structure_set (any, "width", GST_TYPE_INT_RANGE, 1, G_MAXINT, "height",
        GST_TYPE_INT_RANGE, 1, G_MAXINT, nullptr);
    if (gst_structure_has_field (any, "pixel-aspect-ratio"))
      gst_structure_set (any, "pixel-aspect-ratio", GST_TYPE_FRACTION_RANGE, 1, G_MAXINT,
          G_MAXINT, 1, nullptr);
    for (const char *memory : { GST_CAPS_FEATURE_MEMORY_OPENCL,
            GST_OPENCL_CAPS_FEATURE_MEMORY_CUDA, GST_CAPS_FEATURE_MEMORY_SYSTEM_MEMORY }) {
      if (!cuda && g_str_equal (memory, GST_OPENCL_CAPS_FEATURE_MEMORY_CUDA))
        continue;
      GstStructure *s = gst_structure_copy (any);
      GstCaps *formats = gst_caps_from_string ("video/x-raw, format=(string){ "
          CONVERT_SCALE_FORMATS " }");
      gst_structure_set_value (s, "format", gst_structure_get_value (
              gst_caps_get_structure (formats, 0), "format"));
      gst_caps_unref (formats);
      result = gst_caps_merge_structure_full (result, s, gst_caps_features_new (memory,
              nullptr));
    }
#ifdef HAVE_GL
    GstStructure *gl = gst_structure_copy (any);
    gst_structure_set (gl, "format", G_TYPE_STRING, "RGBA", "texture-target", G_TYPE_STRING,
        "2D", nullptr);
    result = gst_caps_merge_structure_full (result, gl, gst_caps_features_new (
            GST_CAPS_FEATURE_MEMORY_GL_MEMORY, nullptr));
#endif
    gst_structure_free (any);
  }
  if (filter) {
    GstCaps *filtered = gst_caps_intersect_full (filter, result, GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref (result);
    result = filtered;
  }
  GST_LOG_OBJECT (trans, "%s %" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT,
      direction == GST_PAD_SINK ? "sink" : "src", caps, result);
  return result;
}

/* Whether colorimetry and chroma siting carry over from `in` to `out`: both YUV, both RGB, or
 * the same format. */
static bool
same_family (const gchar * in, const gchar * out)
{
  const GstVideoFormatInfo *a = gst_video_format_get_info (gst_video_format_from_string (in));
  const GstVideoFormatInfo *b = gst_video_format_get_info (gst_video_format_from_string (out));
  if (!a || !b)
    return false;
  return g_str_equal (in, out) || (GST_VIDEO_FORMAT_INFO_IS_YUV (a) &&
      GST_VIDEO_FORMAT_INFO_IS_YUV (b)) || (GST_VIDEO_FORMAT_INFO_IS_RGB (a) &&
      GST_VIDEO_FORMAT_INFO_IS_RGB (b));
}

/* As videoconvertscale: the input's caps when downstream takes them (passthrough); else the
 * input's format, size and pixel aspect ratio where downstream leaves them open, a size fixed
 * on one side only keeping the input's display aspect ratio, and the input's colorimetry and
 * chroma site where they mean the same. OpenCL memory is preferred for a new output. */
static GstCaps *
gst_opencl_convert_scale_fixate_caps (GstBaseTransform *, GstPadDirection direction,
    GstCaps * caps, GstCaps * othercaps)
{
  GstCaps *same = gst_caps_intersect_full (othercaps, caps, GST_CAPS_INTERSECT_FIRST);
  if (!gst_caps_is_empty (same)) {
    gst_caps_unref (othercaps);
    return gst_caps_fixate (same);
  }
  gst_caps_unref (same);
  if (direction == GST_PAD_SINK)
    othercaps = gst_opencl::prefer_opencl_memory (othercaps);
  othercaps = gst_caps_truncate (othercaps);
  othercaps = gst_caps_make_writable (othercaps);
  GstStructure *out = gst_caps_get_structure (othercaps, 0);
  const GstStructure *in = gst_caps_get_structure (caps, 0);

  const gchar *in_format = gst_structure_get_string (in, "format");
  if (in_format && gst_structure_has_field (out, "format"))
    gst_structure_fixate_field_string (out, "format", in_format);

  gint in_w = 1, in_h = 1, in_par_n = 1, in_par_d = 1;
  gst_structure_get_int (in, "width", &in_w);
  gst_structure_get_int (in, "height", &in_h);
  gst_structure_get_fraction (in, "pixel-aspect-ratio", &in_par_n, &in_par_d);
  gint par_n = 1, par_d = 1;
  if (gst_structure_has_field (out, "pixel-aspect-ratio")) {
    gst_structure_fixate_field_nearest_fraction (out, "pixel-aspect-ratio", in_par_n, in_par_d);
    gst_structure_get_fraction (out, "pixel-aspect-ratio", &par_n, &par_d);
  }
  /* The picture's width over height in output pixels. */
  const double ratio = (double) in_w * in_par_n * par_d / ((double) in_h * in_par_d * par_n);
  const GValue *width = gst_structure_get_value (out, "width");
  const GValue *height = gst_structure_get_value (out, "height");
  const bool width_fixed = width && gst_value_is_fixed (width);
  const bool height_fixed = height && gst_value_is_fixed (height);
  if (width_fixed && !height_fixed) {
    gint w = 1;
    gst_structure_get_int (out, "width", &w);
    gst_structure_fixate_field_nearest_int (out, "height", MAX (1, (int) std::lround (w /
                ratio)));
  } else if (height_fixed && !width_fixed) {
    gint h = 1;
    gst_structure_get_int (out, "height", &h);
    gst_structure_fixate_field_nearest_int (out, "width", MAX (1, (int) std::lround (h *
                ratio)));
  } else if (!width_fixed && !height_fixed) {
    gst_structure_fixate_field_nearest_int (out, "height", in_h);
    gint h = in_h;
    gst_structure_get_int (out, "height", &h);
    gst_structure_fixate_field_nearest_int (out, "width", MAX (1, (int) std::lround (h *
                ratio)));
  }

  const gchar *out_format = gst_structure_get_string (out, "format");
  if (in_format && out_format && same_family (in_format, out_format)) {
    for (const char *field : { "colorimetry", "chroma-site" }) {
      const GValue *value = gst_structure_get_value (in, field);
      if (value && !gst_structure_has_field (out, field))
        gst_structure_set_value (out, field, value);
    }
  }
  return gst_caps_fixate (othercaps);
}

static void
configure (GstOpenCLConvertScale * self, gst_opencl::Device & device,
    const GstVideoInfo * in_info, const GstVideoInfo * out_info, bool passthrough)
{
  State & state = self->impl->state;
  state = State ();
  state.in = *in_info;
  state.out = *out_info;
  state.passthrough = passthrough;
  if (passthrough)
    return;
  colour_map (state);
  /* The kernel's largest position numerators are about 2 (2 out + 1) in + 2 out along an axis
   * (chroma: doubled, over 8 out): 32-bit arithmetic where they fit with room to spare. */
  bool wide = false;
  for (const auto & axis : { std::make_pair (in_info->width, out_info->width),
          std::make_pair (in_info->height, out_info->height) }) {
    const guint64 in = (guint64) axis.first, out = (guint64) axis.second;
    wide = wide || 4 * (2 * out + 2) * in + 16 * out >= (guint64) G_MAXINT32 / 2;
  }
  const std::string options = "-D IN_FMT=" + std::to_string (format_code (
          GST_VIDEO_INFO_FORMAT (in_info))) + " -D OUT_FMT=" + std::to_string (format_code (
          GST_VIDEO_INFO_FORMAT (out_info))) + (wide ? " -D WIDE_POSITIONS" : "");
  state.kernel = device.kernel ("convertscale", "convert_scale", options);
  GST_INFO_OBJECT (self, "%s %dx%d -> %s %dx%d", GST_VIDEO_INFO_NAME (in_info),
      GST_VIDEO_INFO_WIDTH (in_info), GST_VIDEO_INFO_HEIGHT (in_info),
      GST_VIDEO_INFO_NAME (out_info), GST_VIDEO_INFO_WIDTH (out_info),
      GST_VIDEO_INFO_HEIGHT (out_info));
}

/* Both sides are video: the base configures the ports from the caps. */
static gboolean
gst_opencl_convert_scale_configure (GstOpenCLBaseTransform * base,
    gst_opencl::ElementDevice & device, gst_opencl::FramePorts &, GstCaps * incaps,
    GstCaps * outcaps)
{
  GstVideoInfo in_info, out_info;
  if (!gst_opencl_base_transform_configure_ports (base, incaps, outcaps, &in_info, &out_info))
    return FALSE;
  const bool passthrough = gst_caps_is_equal (incaps, outcaps);
  gst_base_transform_set_passthrough (GST_BASE_TRANSFORM (base), passthrough);
  return GST_OPENCL_GUARD (base, "cannot configure the conversion", [&]() {
    configure (GST_OPENCL_CONVERT_SCALE (base), device.device (), &in_info, &out_info,
        passthrough);
  });
}

/* The kernel's arguments of a frame's planes: offsets, strides, width and height. */
static void
set_plane_args (cl::Kernel & kernel, cl_uint first, const GstOpenCLFrame & frame)
{
  const GstVideoInfo *info = &frame.info;
  for (guint p = 0; p < 3; p++) {
    const bool present = p < GST_VIDEO_INFO_N_PLANES (info);
    kernel.setArg (first + p, (cl_int) (present ? GST_VIDEO_INFO_PLANE_OFFSET (info, p) : 0));
    kernel.setArg (first + 3 + p, (cl_int) (present ? GST_VIDEO_INFO_PLANE_STRIDE (info, p) :
            0));
  }
  kernel.setArg (first + 6, (cl_int) GST_VIDEO_INFO_WIDTH (info));
  kernel.setArg (first + 7, (cl_int) GST_VIDEO_INFO_HEIGHT (info));
}

static void
run (GstOpenCLConvertScaleImpl * impl, gst_opencl::ElementDevice & device,
    const Settings & settings, const GstOpenCLFrame & in, const GstOpenCLFrame & out)
{
  State & state = impl->state;
  const Rect rect = picture_rect (&state.in, &state.out, settings.add_borders);
  cl::Kernel & kernel = state.kernel;
  kernel.setArg (0, in.buffer);
  set_plane_args (kernel, 1, in);
  kernel.setArg (9, out.buffer);
  set_plane_args (kernel, 10, out);
  const cl_int rest[] = { rect.x, rect.y, rect.w, rect.h, state.in_hoff, state.in_voff,
    state.out_hoff, state.out_voff, (cl_int) settings.method };
  cl_uint arg = 18;
  for (cl_int value : rest)
    kernel.setArg (arg++, value);
  for (const cl_float4 & row : state.rows)
    kernel.setArg (arg++, row);
  kernel.setArg (arg++, state.alpha_scale);
  kernel.setArg (arg++, state.out_max);
  kernel.setArg (arg++, state.out_max);
  kernel.setArg (arg++, state.black);
  const int w = GST_VIDEO_INFO_WIDTH (&state.out), h = GST_VIDEO_INFO_HEIGHT (&state.out);
  const bool blocks = GST_VIDEO_INFO_FORMAT (&state.out) == GST_VIDEO_FORMAT_NV12 ||
      GST_VIDEO_INFO_FORMAT (&state.out) == GST_VIDEO_FORMAT_I420 ||
      GST_VIDEO_INFO_FORMAT (&state.out) == GST_VIDEO_FORMAT_P010_10LE;
  const cl::NDRange global = blocks ? cl::NDRange ((w + 1) / 2, (h + 1) / 2) :
      cl::NDRange (w, h);
  device.launch (kernel, global, cl::NullRange);
}

static GstFlowReturn
gst_opencl_convert_scale_transform_frames (GstOpenCLBaseTransform * base,
    gst_opencl::ElementDevice & device, gst_opencl::FramePorts & ports, GstBuffer * inbuf,
    GstBuffer * outbuf)
{
  auto *impl = GST_OPENCL_CONVERT_SCALE (base)->impl;
  Settings settings;
  {
    std::lock_guard<std::mutex> lock (impl->lock);
    settings = impl->settings;
  }
  gboolean ok = GST_OPENCL_GUARD (base, "conversion failed", [&]() {
    gst_opencl::FrameWork work (device);
    gst_opencl::FrameTrip in (device, ports.in, inbuf, gst_opencl::FrameAccess::Read);
    gst_opencl::FrameTrip out (device, ports.out, outbuf, gst_opencl::FrameAccess::Write);
    run (impl, device, settings, in.frame (), out.frame ());
    in.finish (false);
    const bool waited = out.finish (true);
    if (waited)
      ports.in.release_uploaded (false);
    work.end (waited);
  });
  return ok ? GST_FLOW_OK : GST_FLOW_ERROR;
}

static void
gst_opencl_convert_scale_init (GstOpenCLConvertScale * self)
{
  self->impl = new GstOpenCLConvertScaleImpl ();
}

static void
gst_opencl_convert_scale_class_init (GstOpenCLConvertScaleClass * klass)
{
  auto *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  auto *base_class = GST_OPENCL_BASE_TRANSFORM_CLASS (klass);

  GST_DEBUG_CATEGORY_INIT (gst_opencl_convert_scale_debug, "openclconvertscale", 0,
      "OpenCL colour conversion and scaling");

  /* Both take effect at the next frame: they are kernel arguments. */
  gst_opencl::ElementProperties<GstOpenCLConvertScale> properties (G_OBJECT_CLASS (klass));
  /**
   * GstOpenCLConvertScale:method:
   *
   * How the input is sampled: nearest-neighbour, bilinear (2x2 taps) or catrom (bicubic:
   * Catmull-Rom over 4x4 taps), edges clamped, for luma, RGB and chroma alike.
   */
  properties.add (g_param_spec_enum ("method", "Method", "The sampling method",
      GST_TYPE_OPENCL_CONVERT_SCALE_METHOD, (gint) DEFAULT_METHOD,
      gst_opencl::PROPERTY_PLAYING), &Settings::method);
  /**
   * GstOpenCLConvertScale:add-borders:
   *
   * Keep the input's display aspect ratio inside black borders when the output's differs
   * (as videoscale does); otherwise the picture is stretched over the whole output.
   */
  properties.add (g_param_spec_boolean ("add-borders", "Add borders",
      "Keep the display aspect ratio with black borders", DEFAULT_ADD_BORDERS,
      gst_opencl::PROPERTY_PLAYING), &Settings::add_borders);

  gst_element_class_set_static_metadata (GST_ELEMENT_CLASS (klass),
      "OpenCL colour conversion and scaling", "Filter/Converter/Video/Scaler",
      "Converts video between formats and sizes on an OpenCL device", "gst-opencl developers");
  gst_opencl::add_video_pad_templates (GST_ELEMENT_CLASS (klass), CONVERT_SCALE_FORMATS, true);
  gst_type_mark_as_plugin_api (GST_TYPE_OPENCL_CONVERT_SCALE_METHOD, (GstPluginAPIFlags) 0);

  trans_class->passthrough_on_same_caps = TRUE;
  gst_opencl::stop_drops_run<GstOpenCLConvertScale> (trans_class);
  trans_class->transform_caps = gst_opencl_convert_scale_transform_caps;
  trans_class->fixate_caps = gst_opencl_convert_scale_fixate_caps;
  base_class->configure = gst_opencl_convert_scale_configure;
  base_class->transform_frames = gst_opencl_convert_scale_transform_frames;
}
