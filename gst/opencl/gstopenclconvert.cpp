/* gst-opencl: colour conversion and scaling of one device frame into another.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The host's part of kernels/convertscale.cl: which program variant a pair of formats takes,
 * the affine colour map from both sides' colorimetry (in double precision), the chroma sites,
 * and the picture's rectangle in the output. */
#include "opencl/gstopenclconvert.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <cmath>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "opencl/gstopenclenv.h"
#include "opencl/gstopenclutils.h"

/* Its own category, so that a test can see which kernel converted a frame (LOG, per frame). */
GST_DEBUG_CATEGORY_STATIC (gst_opencl_convert_debug);
#define GST_CAT_DEFAULT gst_opencl_convert_debug

namespace gst_opencl {

namespace {

void
init_debug ()
{
  static std::once_flag once;
  std::call_once (once, [] () {
        GST_DEBUG_CATEGORY_INIT (gst_opencl_convert_debug, "openclconvert", 0,
            "OpenCL frame conversion (kernels/convertscale.cl)");
      });
}

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
  throw Failure (Failure::Kind::Settings, std::string ("format ") +
      gst_video_format_to_string (format) + " is not converted");
}

bool
is_420 (GstVideoFormat format)
{
  return format == GST_VIDEO_FORMAT_NV12 || format == GST_VIDEO_FORMAT_I420 ||
      format == GST_VIDEO_FORMAT_P010_10LE;
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
chroma_offsets (const GstVideoInfo * info, cl_int * h, cl_int * v)
{
  GstVideoChromaSite site = GST_VIDEO_INFO_CHROMA_SITE (info);
  if (site == GST_VIDEO_CHROMA_SITE_UNKNOWN)
    site = GST_VIDEO_CHROMA_SITE_MPEG2;
  *h = (site & GST_VIDEO_CHROMA_SITE_H_COSITED) ? 0 : 1;
  *v = (site & GST_VIDEO_CHROMA_SITE_V_COSITED) ? 0 : 1;
}

/* What follows from the two sides alone: the chroma sites (doubled offsets: input h, v,
 * output h, v), the affine map from input codes to output codes (rows m: three factors and an
 * offset), the alpha scale, the output's largest code and its black. */
struct ColourMap
{
  cl_int sites[4];
  cl_float4 m[3];
  cl_float alpha_scale, out_max;
  cl_float4 black;
};

/* Rows of three factors and an offset: output code i = sum_j m[i][j] input code j + m[i][3]. */
using AffineRows = std::array<std::array<double, 4>, 3>;

AffineRows
affine_rows (const GstVideoInfo * in, const GstVideoInfo * out)
{
  double in_kr, in_kb, out_kr, out_kb;
  kr_kb (in, out, &in_kr, &in_kb);
  kr_kb (out, in, &out_kr, &out_kb);
  double in_offset[3], in_scale[3], out_offset[3], out_scale[3];
  range_of (in, in_offset, in_scale);
  range_of (out, out_offset, out_scale);
  /* M = D_out T_out T_in D_in^-1, b = o_out - M o_in. */
  Matrix m = multiply (from_rgb (out, out_kr, out_kb), to_rgb (in, in_kr, in_kb));
  AffineRows rows {};
  for (int i = 0; i < 3; i++) {
    double b = out_offset[i];
    for (int j = 0; j < 3; j++) {
      m[i][j] *= out_scale[i] / in_scale[j];
      b -= m[i][j] * in_offset[j];
      rows[i][j] = m[i][j];
    }
    rows[i][3] = b;
  }
  return rows;
}

cl_float4
float_row (const std::array<double, 4> & row)
{
  return cl_float4 { { (cl_float) row[0], (cl_float) row[1], (cl_float) row[2],
          (cl_float) row[3] } };
}

ColourMap
colour_map (const GstVideoInfo * in, const GstVideoInfo * out)
{
  ColourMap map {};
  chroma_offsets (in, &map.sites[0], &map.sites[1]);
  chroma_offsets (out, &map.sites[2], &map.sites[3]);
  const AffineRows rows = affine_rows (in, out);
  for (int i = 0; i < 3; i++)
    map.m[i] = float_row (rows[i]);
  double out_offset[3], out_scale[3];
  range_of (out, out_offset, out_scale);
  map.out_max = (cl_float) max_code (out);
  map.alpha_scale = (cl_float) (max_code (out) / max_code (in));
  const bool yuv = GST_VIDEO_INFO_IS_YUV (out);
  map.black = cl_float4 { { (cl_float) std::floor (out_offset[0] + 0.5), yuv ?
              (cl_float) std::floor (out_offset[1] + 0.5) : 0.0f, yuv ?
              (cl_float) std::floor (out_offset[2] + 0.5) : 0.0f, map.out_max } };
  return map;
}

/* The general kernel's arguments of the map: the sites (22 to 25), the map (27 to 29), the
 * alpha scale, the output's largest code for colour and alpha (30 to 32) and its black (33). */
void
set_colour_args (cl::Kernel & kernel, const ColourMap & map)
{
  for (cl_uint i = 0; i < 4; i++)
    kernel.setArg (22 + i, map.sites[i]);
  for (cl_uint i = 0; i < 3; i++)
    kernel.setArg (27 + i, map.m[i]);
  kernel.setArg (30, map.alpha_scale);
  kernel.setArg (31, map.out_max);
  kernel.setArg (32, map.out_max);
  kernel.setArg (33, map.black);
}

/* The picture's rectangle in the output: all of it, or, with borders, the largest centred one
 * of the input picture's display aspect ratio (`source`: the whole input frame or its crop). */
PixelRect
picture_rect (const GstVideoInfo * in, const PixelRect & source, const GstVideoInfo * out,
    bool add_borders)
{
  PixelRect r;
  const int ow = GST_VIDEO_INFO_WIDTH (out), oh = GST_VIDEO_INFO_HEIGHT (out);
  r.w = ow;
  r.h = oh;
  if (!add_borders)
    return r;
  /* Display aspect ratio of the input over the output's pixel aspect ratio: the picture's
   * width over height in output pixels. */
  const double in_dar = (double) source.w * GST_VIDEO_INFO_PAR_N (in) /
      ((double) source.h * GST_VIDEO_INFO_PAR_D (in));
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

/* The kernel's arguments of a frame's planes: offsets, strides, width and height. */
void
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

/* Whether convert_unscaled converts `format` to or from a 4:2:0 one: the packed RGB formats. */
bool
is_packed_rgb (GstVideoFormat format)
{
  return format == GST_VIDEO_FORMAT_RGBA || format == GST_VIDEO_FORMAT_BGRA ||
      format == GST_VIDEO_FORMAT_RGBx || format == GST_VIDEO_FORMAT_BGRx ||
      format == GST_VIDEO_FORMAT_RGBA64_LE;
}

/* The unscaled kernels: none, runs (16 pixels of 4 or 2 rows per work-item, in 16-wide
 * vectors: what a CPU device runs as SIMD instructions) or blocks (4x4 pixels per work-item,
 * from 4:2:0 to 8-bit packed RGB: what a GPU keeps in registers). */
enum class Unscaled { None, Runs, Blocks };

/* Which unscaled kernels the pair, sizes and device take: one side 4:2:0, the other packed RGB,
 * both of one size, on a little-endian device (the kernels pack pixels into words); blocks on a
 * GPU where the pair has them, runs otherwise. GST_OPENCL_CONVERT_FAST turns them off (0) or
 * asks for runs or blocks on any device. Both do the general kernel's arithmetic with none of
 * its position and tap computation and give the same bits. */
Unscaled
unscaled_kind (Device & device, const GstVideoInfo * in, const GstVideoInfo * out)
{
  const GstVideoFormat fi = GST_VIDEO_INFO_FORMAT (in), fo = GST_VIDEO_INFO_FORMAT (out);
  const bool pair = (is_420 (fi) && is_packed_rgb (fo)) || (is_packed_rgb (fi) && is_420 (fo));
  const int asked = env::word (env::Variable::ConvertFast);  /* 0, 1, runs, blocks */
  if (!pair || in->width != out->width || in->height != out->height || asked == 0 ||
      device.cl_device.getInfo<CL_DEVICE_ENDIAN_LITTLE> () != CL_TRUE)
    return Unscaled::None;
  const bool blocks = is_420 (fi) && fo != GST_VIDEO_FORMAT_RGBA64_LE;
  const bool gpu = (device.cl_device.getInfo<CL_DEVICE_TYPE> () & CL_DEVICE_TYPE_GPU) != 0;
  return blocks && (asked == 3 || (asked == 1 && gpu)) ? Unscaled::Blocks : Unscaled::Runs;
}

/* Whether the halving kernel converts `in` to `out`: the same 8-bit RGBA or BGRA format, the
 * output half the input's width and height, the colour map the identity (`map`), and
 * GST_OPENCL_CONVERT_FAST not 0. */
bool
halves (const GstVideoInfo * in, const GstVideoInfo * out, const ColourMap & map)
{
  const GstVideoFormat format = GST_VIDEO_INFO_FORMAT (in);
  if ((format != GST_VIDEO_FORMAT_RGBA && format != GST_VIDEO_FORMAT_BGRA) ||
      GST_VIDEO_INFO_FORMAT (out) != format || env::word (env::Variable::ConvertFast) == 0 ||
      GST_VIDEO_INFO_WIDTH (in) != 2 * GST_VIDEO_INFO_WIDTH (out) ||
      GST_VIDEO_INFO_HEIGHT (in) != 2 * GST_VIDEO_INFO_HEIGHT (out) || map.alpha_scale != 1.0f)
    return false;
  for (int row = 0; row < 3; row++) {
    const float *m = map.m[row].s;
    for (int column = 0; column < 4; column++)
      if (m[column] != (column == row ? 1.0f : 0.0f))
        return false;
  }
  return true;
}

/* The conversion kernels' work-group width (groups of N x 1; 0: the driver's choice):
 * GST_OPENCL_CONVERT_GROUP's where it is set; on a GPU, four times the kernel's preferred
 * multiple (warps or wavefronts: 128 work-items on NVIDIA's, where groups of 128 took NV12 ->
 * RGBA at 3840x2160 from 0.030 to 0.026 ms and RGBA 3840x2160 -> 1920x1080 from 0.022 to
 * 0.021 ms against the driver's choice, H200, docs/openclconvertscale.md); elsewhere the
 * driver's. */
cl_uint
group_width (Device & device, const std::vector<cl::Kernel> & kernels)
{
  if (env::is_set (env::Variable::ConvertGroup))
    return (cl_uint) env::number (env::Variable::ConvertGroup);
  if ((device.cl_device.getInfo<CL_DEVICE_TYPE> () & CL_DEVICE_TYPE_GPU) == 0)
    return 0;
  size_t width = 0;
  for (const cl::Kernel & kernel : kernels) {
    if (!kernel ())
      continue;
    const size_t multiple = kernel.getWorkGroupInfo<CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE>
        (device.cl_device);
    const size_t most = kernel.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE> (device.cl_device);
    width = std::min (width == 0 ? 4 * multiple : width, std::min (4 * multiple, most));
  }
  return (cl_uint) width;
}

/* Whether a packed RGB frame's rows start on 4-byte boundaries (the unscaled kernel reads and
 * writes 8-bit pixels as words). */
bool
rows_aligned (const GstOpenCLFrame & frame)
{
  const GstVideoInfo *info = &frame.info;
  return !is_packed_rgb (GST_VIDEO_INFO_FORMAT (info)) ||
      (GST_VIDEO_INFO_PLANE_OFFSET (info, 0) % 4 == 0 &&
      GST_VIDEO_INFO_PLANE_STRIDE (info, 0) % 4 == 0);
}

/* floor (n / d), d > 0. */
gint64
floor_div (gint64 n, gint64 d)
{
  return n >= 0 ? n / d : -((-n + d - 1) / d);
}

/* One tap of the kernel's table: what its tap_of () computes for coordinate n / d on a grid
 * whose samples lo .. hi may be read, { i0, i1, the weight of i1's float bits, 0 }. */
cl_int4
tap_entry (gint64 n, gint64 d, int lo, int hi, bool nearest)
{
  cl_int4 t {};
  if (nearest) {
    t.s[0] = t.s[1] = (cl_int) CLAMP (floor_div (2 * n + d, 2 * d), (gint64) lo, (gint64) hi);
    return t;
  }
  const gint64 i = floor_div (n, d);
  const float f = (float) (n - i * d) / (float) d;
  t.s[0] = (cl_int) CLAMP (i, (gint64) lo, (gint64) hi);
  t.s[1] = (cl_int) CLAMP (i + 1, (gint64) lo, (gint64) hi);
  std::memcpy (&t.s[2], &f, sizeof f);
  return t;
}

/* The taps of one axis: the luma grid's at the output's pixels (doubled positions 2 x) and,
 * for a 4:2:0 output, its chroma sites (4 k + site), then the chroma grid's at the same
 * positions (a 4:2:0 input; zeros otherwise). `out_size` pixels, picture at `origin`, `size`
 * long; the input's picture at `first`, `length` long; the sites doubled. */
struct AxisTaps
{
  int out_size, origin, size, first, length, out_site, in_site;
  bool out_420, in_420, nearest;
};

void
append_axis_taps (const AxisTaps & a, std::vector<cl_int4> & table)
{
  const int positions = a.out_size + (a.out_420 ? (a.out_size + 1) / 2 : 0);
  const gint64 d = 2 * (gint64) a.size;
  for (int chroma = 0; chroma < 2; chroma++) {
    for (int i = 0; i < positions; i++) {
      /* The output's pixels, then (4:2:0) its chroma sites, doubled. */
      const int p2 = i < a.out_size ? 2 * i : 4 * (i - a.out_size) + a.out_site;
      const gint64 n = (gint64) (p2 - 2 * a.origin + 1) * a.length - a.size + (gint64) a.first *
          d;
      if (!chroma)
        table.push_back (tap_entry (n, d, a.first, a.first + a.length - 1, a.nearest));
      else if (a.in_420)
        table.push_back (tap_entry (2 * n - a.in_site * d, 4 * d, a.first / 2,
                (a.first + a.length - 1) / 2, a.nearest));
      else
        table.push_back (cl_int4 {});
    }
  }
}

/* The program's build options for input `in` and output `out` whose OUT_FMT is `out_code`. */
std::string
build_options (const GstVideoInfo * in, const GstVideoInfo * out, int out_code)
{
  /* The kernel's largest position numerators are about 2 (2 out + 1) in + 2 out along an axis
   * (chroma: doubled, over 8 out): 32-bit arithmetic where they fit with room to spare. */
  bool wide = false;
  for (const auto & axis : { std::make_pair (in->width, out->width),
          std::make_pair (in->height, out->height) }) {
    const guint64 in_size = (guint64) axis.first, out_size = (guint64) axis.second;
    wide = wide || 4 * (2 * out_size + 2) * in_size + 16 * out_size >= (guint64) G_MAXINT32 / 2;
  }
  /* The 4:2:0 side's chroma sites, for the unscaled kernels. */
  cl_int site_h, site_v;
  chroma_offsets (is_420 (GST_VIDEO_INFO_FORMAT (in)) ? in : out, &site_h, &site_v);
  return "-D IN_FMT=" + std::to_string (format_code (GST_VIDEO_INFO_FORMAT (in))) +
      " -D OUT_FMT=" + std::to_string (out_code) + (wide ? " -D WIDE_POSITIONS" : "") +
      " -D SITE_H=" + std::to_string (site_h) + " -D SITE_V=" + std::to_string (site_v);
}

/* FMT_TENSOR_* of kernels/convertscale.cl: F32_NHWC, F32_NCHW, F16_NHWC, F16_NCHW. */
int
tensor_code (const TensorOutput & out)
{
  return 10 + (out.planar ? 1 : 0) + (out.half ? 2 : 0);
}

}  // namespace

bool
FrameConverter::TapsKey::operator== (const TapsKey & o) const
{
  return rect.x == o.rect.x && rect.y == o.rect.y && rect.w == o.rect.w && rect.h == o.rect.h &&
      source.x == o.source.x && source.y == o.source.y && source.w == o.source.w &&
      source.h == o.source.h && method == o.method;
}

/* The tables of the kernel's sample (): x axis, then y axis. Written with a blocking write
 * when the key changes (a property or the crop changed), never per frame otherwise. */
/* Two host copies of tap tables, used in turn, each kept until its write to the device has
 * read it (the writes do not wait). Sized at configure (): filling one allocates nothing. */
struct FrameConverter::TapUploads
{
  struct Upload
  {
    std::vector<cl_int4> table;
    cl::Event written;
  };

  explicit TapUploads (size_t taps)
  {
    for (Upload & upload : uploads)
      upload.table.reserve (taps);
  }

  TapUploads (const TapUploads &) = delete;
  TapUploads & operator= (const TapUploads &) = delete;

  /* A table whose write has not ended yet (the device behind, or stopped by a kernel that never
   * ends) is handed to the write's completion, which frees it: no wait here. */
  ~TapUploads ()
  {
    for (Upload & upload : uploads) {
      if (!upload.written ())
        continue;
      try {
        if (upload.written.getInfo<CL_EVENT_COMMAND_EXECUTION_STATUS> () <= CL_COMPLETE)
          continue;
        auto *orphan = new std::vector<cl_int4> (std::move (upload.table));
        upload.written.setCallback (CL_COMPLETE, [] (cl_event, cl_int, void *data) {
              delete static_cast<std::vector<cl_int4> *> (data);
            }, orphan);
      } catch (const cl::Error & error) {
        GST_WARNING ("a tap table's write cannot be followed (%s): its host copy is kept",
            error.what ());
        new std::vector<cl_int4> (std::move (upload.table));
      }
    }
  }

  Upload & next ()
  {
    Upload & upload = uploads[turn];
    turn = (turn + 1) % uploads.size ();
    return upload;
  }

  std::array<Upload, 2> uploads;
  size_t turn = 0;
};

FrameConverter::FrameConverter () = default;
FrameConverter::~FrameConverter () = default;
FrameConverter::FrameConverter (FrameConverter &&) noexcept = default;
FrameConverter & FrameConverter::operator= (FrameConverter &&) noexcept = default;

void
FrameConverter::fill_taps (ElementDevice & device, const TapsKey & key)
{
  if (taps_filled_ && key == taps_key_)
    return;
  TapUploads::Upload & upload = tap_uploads_->next ();
  if (upload.written ()) {
    /* Written two tables ago: long done unless the crop changes every frame and the device is
     * two frames behind. */
    device.wait (upload.written);
    upload.written = cl::Event ();
  }
  std::vector<cl_int4> & table = upload.table;
  table.clear ();
  cl_int sites[4];
  chroma_offsets (&in_, &sites[0], &sites[1]);
  chroma_offsets (&out_, &sites[2], &sites[3]);
  const bool in_420 = is_420 (GST_VIDEO_INFO_FORMAT (&in_));
  const bool out_420 = is_420 (GST_VIDEO_INFO_FORMAT (&out_));
  const bool nearest = key.method == ScaleMethod::Nearest;
  append_axis_taps (AxisTaps { GST_VIDEO_INFO_WIDTH (&out_), key.rect.x, key.rect.w,
          key.source.x, key.source.w, sites[2], sites[0], out_420, in_420, nearest }, table);
  append_axis_taps (AxisTaps { GST_VIDEO_INFO_HEIGHT (&out_), key.rect.y, key.rect.h,
          key.source.y, key.source.h, sites[3], sites[1], out_420, in_420, nearest }, table);
  g_assert (table.size () == (size_t) (2 * (tx_count_ + ty_count_)));
  device.queue ().enqueueWriteBuffer (taps_, CL_FALSE, 0, table.size () * sizeof (cl_int4),
      table.data (), nullptr, &upload.written);
  taps_key_ = key;
  taps_filled_ = true;
}

bool
converts_format (GstVideoFormat format)
{
  for (const auto & row : FORMAT_CODES) {
    if (row.format == format)
      return true;
  }
  return false;
}

void
FrameConverter::configure (Device & device, const GstVideoInfo * in, const GstVideoInfo * out)
{
  reset ();
  const std::string options = build_options (in, out, format_code (GST_VIDEO_INFO_FORMAT (out)));
  init_debug ();
  general_ = { device.kernel ("convertscale", "convert_scale", options),
    device.kernel ("convertscale", "convert_scale_taps", options) };
  const ColourMap map = colour_map (in, out);
  for (cl::Kernel & kernel : general_)
    set_colour_args (kernel, map);
  const Unscaled unscaled = unscaled_kind (device, in, out);
  if (unscaled != Unscaled::None) {
    /* The same program: the unscaled kernels exist for these pairs. */
    const std::string prefix = unscaled == Unscaled::Blocks ? "convert_blocks_" :
        "convert_unscaled_";
    unscaled_[0] = device.kernel ("convertscale", prefix + "nearest", options);
    unscaled_[1] = device.kernel ("convertscale", prefix + "bilinear", options);
    for (cl::Kernel & k : unscaled_) {
      for (cl_uint i = 0; i < 3; i++)
        k.setArg (18 + i, map.m[i]);
      k.setArg (21, map.out_max);
      k.setArg (22, map.out_max);
    }
    /* Runs of 16 pixels of 4 rows (2 for a 4:2:0 output): RUN and ROWS of the kernel; blocks
     * of 4x4 (BLOCK_ROWS). */
    const int columns = unscaled == Unscaled::Blocks ? 4 : 16;
    const int rows = unscaled == Unscaled::Blocks ? 4 : is_420 (GST_VIDEO_INFO_FORMAT (in)) ? 4 :
        2;
    unscaled_global_ = cl::NDRange ((GST_VIDEO_INFO_WIDTH (out) + columns - 1) / columns,
        (GST_VIDEO_INFO_HEIGHT (out) + rows - 1) / rows);
  }
  if (halves (in, out, map)) {
    halve_ = device.kernel ("convertscale", "halve_packed", options);
    halve_global_ = cl::NDRange ((GST_VIDEO_INFO_WIDTH (out) + 3) / 4,
        GST_VIDEO_INFO_HEIGHT (out));
    GST_DEBUG ("%s -> %s: the halving kernel too", gst_video_format_to_string (
            GST_VIDEO_INFO_FORMAT (in)), gst_video_format_to_string (GST_VIDEO_INFO_FORMAT (out)));
  }
  GST_DEBUG ("%s -> %s: general kernel%s", gst_video_format_to_string (
          GST_VIDEO_INFO_FORMAT (in)), gst_video_format_to_string (GST_VIDEO_INFO_FORMAT (out)),
      unscaled == Unscaled::Blocks ? " and unscaled kernels (blocks)" : unscaled ==
      Unscaled::Runs ? " and unscaled kernels (runs)" : "");
  in_ = *in;
  out_ = *out;
  set_up_general (device);
}

void
FrameConverter::launch (ElementDevice & device, cl::Kernel & kernel, const cl::NDRange & global)
{
  /* ElementDevice::launch rounds the global size up to whole work-groups. */
  device.launch (kernel, global, group_ ? cl::NDRange (group_, 1) : cl::NullRange);
}

cl::Kernel &
FrameConverter::general (ScaleMethod method)
{
  return general_[method == ScaleMethod::Nearest || method == ScaleMethod::Bilinear ? 1 : 0];
}

void
FrameConverter::set_up_general (Device & device)
{
  group_ = group_width (device, { general_[0], general_[1], unscaled_[0], unscaled_[1],
        halve_ });
  /* One work-item per output pixel, or per 2x2 block of a 4:2:0 output. */
  const int w = GST_VIDEO_INFO_WIDTH (&out_), h = GST_VIDEO_INFO_HEIGHT (&out_);
  const bool out_420 = is_420 (GST_VIDEO_INFO_FORMAT (&out_));
  global_ = out_420 ? cl::NDRange ((w + 1) / 2, (h + 1) / 2) : cl::NDRange (w, h);
  /* Tap tables: per axis, the output's pixels and (4:2:0) chroma sites, for the luma and the
   * chroma grid. */
  tx_count_ = w + (out_420 ? (w + 1) / 2 : 0);
  ty_count_ = h + (out_420 ? (h + 1) / 2 : 0);
  const size_t tap_count = 2 * (size_t) (tx_count_ + ty_count_);
  taps_ = cl::Buffer (device.context, CL_MEM_READ_ONLY, tap_count * sizeof (cl_int4));
  tap_uploads_ = std::make_unique<TapUploads> (tap_count);
  for (cl::Kernel & kernel : general_) {
    kernel.setArg (38, taps_);
    kernel.setArg (39, tx_count_);
    kernel.setArg (40, ty_count_);
  }
}

void
FrameConverter::configure_tensor (Device & device, const GstVideoInfo * in,
    const TensorOutput & out)
{
  reset ();
  /* The tensor's values are those of a full-range 8-bit R'G'B' frame of its size. */
  GstVideoInfo rgb;
  gst_video_info_set_format (&rgb, GST_VIDEO_FORMAT_RGBx, out.width, out.height);
  rgb.colorimetry.range = GST_VIDEO_COLOR_RANGE_0_255;
  init_debug ();
  const std::string options = build_options (in, &rgb, tensor_code (out));
  general_ = { device.kernel ("convertscale", "convert_scale", options),
    device.kernel ("convertscale", "convert_scale_taps", options) };
  const ColourMap map = colour_map (in, &rgb);
  rgb_map_ = affine_rows (in, &rgb);
  /* The output's planes: NHWC one, NCHW one per channel; rows packed. */
  const gsize element_bytes = out.half ? 2 : 4;
  const gsize plane_bytes = (gsize) out.width * out.height * element_bytes;
  const cl_int row_bytes = (cl_int) ((gsize) out.width * element_bytes * (out.planar ? 1 : 3));
  for (cl::Kernel & kernel : general_) {
    set_colour_args (kernel, map);
    for (cl_uint p = 0; p < 3; p++) {
      kernel.setArg (10 + p, (cl_int) (out.planar ? p * plane_bytes : 0));
      kernel.setArg (13 + p, row_bytes);
    }
    kernel.setArg (16, (cl_int) out.width);
    kernel.setArg (17, (cl_int) out.height);
  }
  GST_DEBUG ("%s -> %dx%d %s %s tensor", gst_video_format_to_string (
          GST_VIDEO_INFO_FORMAT (in)), out.width, out.height, out.half ? "float16" : "float32",
      out.planar ? "NCHW" : "NHWC");
  in_ = *in;
  out_ = rgb;
  tensor_ = true;
  set_up_general (device);
}

bool
FrameConverter::takes_unscaled (const GstOpenCLFrame & in, const GstOpenCLFrame & out,
    ScaleMethod method, bool add_borders, const PixelRect & source) const
{
  if (!unscaled_[0] () || (method != ScaleMethod::Nearest && method != ScaleMethod::Bilinear) ||
      !rows_aligned (in) || !rows_aligned (out))
    return false;
  const int w = GST_VIDEO_INFO_WIDTH (&out_), h = GST_VIDEO_INFO_HEIGHT (&out_);
  if (GST_VIDEO_INFO_WIDTH (&in.info) != w || GST_VIDEO_INFO_HEIGHT (&in.info) != h ||
      GST_VIDEO_INFO_WIDTH (&out.info) != w || GST_VIDEO_INFO_HEIGHT (&out.info) != h ||
      source.x != 0 || source.y != 0 || source.w != w || source.h != h)
    return false;
  /* With borders, a pixel aspect ratio that differs puts the picture inside the output. */
  const PixelRect rect = picture_rect (&in_, source, &out_, add_borders);
  return rect.x == 0 && rect.y == 0 && rect.w == w && rect.h == h;
}

bool
FrameConverter::takes_halve (const GstOpenCLFrame & in, const GstOpenCLFrame & out,
    ScaleMethod method, bool add_borders, const PixelRect & source) const
{
  if (!halve_ () || method != ScaleMethod::Bilinear || !rows_aligned (in) ||
      !rows_aligned (out))
    return false;
  const int w = GST_VIDEO_INFO_WIDTH (&out_), h = GST_VIDEO_INFO_HEIGHT (&out_);
  if (GST_VIDEO_INFO_WIDTH (&in.info) != 2 * w || GST_VIDEO_INFO_HEIGHT (&in.info) != 2 * h ||
      GST_VIDEO_INFO_WIDTH (&out.info) != w || GST_VIDEO_INFO_HEIGHT (&out.info) != h ||
      source.x != 0 || source.y != 0 || source.w != 2 * w || source.h != 2 * h)
    return false;
  const PixelRect rect = picture_rect (&in_, source, &out_, add_borders);
  return rect.x == 0 && rect.y == 0 && rect.w == w && rect.h == h;
}

/* The frame through the unscaled kernel of `method` (nearest or bilinear). */
void
FrameConverter::convert_unscaled (ElementDevice & device, const GstOpenCLFrame & in,
    const GstOpenCLFrame & out, ScaleMethod method)
{
  cl::Kernel & kernel = unscaled_[method == ScaleMethod::Nearest ? 0 : 1];
  kernel.setArg (0, in.buffer);
  set_plane_args (kernel, 1, in);
  kernel.setArg (9, out.buffer);
  set_plane_args (kernel, 10, out);
  GST_LOG ("unscaled kernel");
  launch (device, kernel, unscaled_global_);
}

void
FrameConverter::convert (ElementDevice & device, const GstOpenCLFrame & in,
    const GstOpenCLFrame & out, ScaleMethod method, bool add_borders, const PixelRect * crop)
{
  const PixelRect source = crop ? *crop : PixelRect { 0, 0, GST_VIDEO_INFO_WIDTH (&in_),
    GST_VIDEO_INFO_HEIGHT (&in_) };
  if (tensor_)
    throw Failure (Failure::Kind::Failed, "the converter is configured for a tensor output");
  if (takes_unscaled (in, out, method, add_borders, source)) {
    convert_unscaled (device, in, out, method);
    return;
  }
  if (takes_halve (in, out, method, add_borders, source)) {
    set_args (halve_, in.buffer, (cl_int) GST_VIDEO_INFO_PLANE_OFFSET (&in.info, 0),
        (cl_int) GST_VIDEO_INFO_PLANE_STRIDE (&in.info, 0), out.buffer,
        (cl_int) GST_VIDEO_INFO_PLANE_OFFSET (&out.info, 0),
        (cl_int) GST_VIDEO_INFO_PLANE_STRIDE (&out.info, 0),
        (cl_int) GST_VIDEO_INFO_WIDTH (&out_), (cl_int) GST_VIDEO_INFO_HEIGHT (&out_));
    GST_LOG ("halving kernel");
    launch (device, halve_, halve_global_);
    return;
  }
  GST_LOG ("general kernel");
  cl::Kernel & kernel = general (method);
  kernel.setArg (9, out.buffer);
  set_plane_args (kernel, 10, out);
  launch_general (device, in, method, add_borders, source);
}

void
FrameConverter::launch_general (ElementDevice & device, const GstOpenCLFrame & in,
    ScaleMethod method, bool add_borders, const PixelRect & source)
{
  const PixelRect rect = picture_rect (&in_, source, &out_, add_borders);
  cl::Kernel & kernel = general (method);
  kernel.setArg (0, in.buffer);
  set_plane_args (kernel, 1, in);
  const cl_int geometry[] = { rect.x, rect.y, rect.w, rect.h };
  for (cl_uint i = 0; i < 4; i++)
    kernel.setArg (18 + i, geometry[i]);
  kernel.setArg (26, (cl_int) method);
  const cl_int picture[] = { source.x, source.y, source.w, source.h };
  for (cl_uint i = 0; i < 4; i++)
    kernel.setArg (34 + i, picture[i]);
  if (method == ScaleMethod::Nearest || method == ScaleMethod::Bilinear)
    fill_taps (device, TapsKey { rect, source, method });
  launch (device, kernel, global_);
}

void
FrameConverter::convert_tensor (ElementDevice & device, const GstOpenCLFrame & in,
    const cl::Buffer & out, const TensorNormalisation & norm, ScaleMethod method,
    bool add_borders, const PixelRect * crop)
{
  if (!tensor_)
    throw Failure (Failure::Kind::Failed, "the converter is not configured for a tensor output");
  /* value = (code - mean) scale, folded into the map; the borders' RGB 0 likewise. */
  cl::Kernel & kernel = general (method);
  cl_float4 black {};
  for (cl_uint c = 0; c < 3; c++) {
    const std::array<double, 4> & row = rgb_map_[c];
    const double scale = norm.scale[c];
    kernel.setArg (27 + c, float_row ({ { row[0] * scale, row[1] * scale, row[2] * scale,
                (row[3] - norm.mean[c]) * scale } }));
    black.s[c] = (cl_float) (-norm.mean[c] * scale);
  }
  kernel.setArg (33, black);
  kernel.setArg (9, out);
  GST_LOG ("general kernel, tensor output");
  launch_general (device, in, method, add_borders, crop ? *crop : PixelRect { 0, 0,
        GST_VIDEO_INFO_WIDTH (&in_), GST_VIDEO_INFO_HEIGHT (&in_) });
}

}  // namespace gst_opencl
