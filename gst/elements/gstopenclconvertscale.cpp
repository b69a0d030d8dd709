/* gst-opencl: openclconvertscale, colour conversion and scaling in one pass on an OpenCL device.
 * SPDX-License-Identifier: LGPL-2.1-or-later */

/**
 * SECTION:element-openclconvertscale
 * @title: openclconvertscale
 *
 * Converts video frames between NV12, I420, P010_10LE, GRAY8, GRAY16_LE, RGBA, BGRA, RGBx, BGRx
 * and RGBA64_LE and scales them, in one kernel pass, as `videoconvertscale` does on the CPU: every
 * output pixel (every 2x2 block of a 4:2:0 output) samples the input in its own format at its own
 * position (nearest, bilinear, lanczos or bicubic), and one affine map, computed in double
 * precision from both sides' colorimetry (matrix BT.601, BT.709 or BT.2020; limited or full range;
 * depth), gives the output codes, rounded half up and saturated. 4:2:0 chroma is read and written
 * at the caps' chroma site (cosited or centred along each axis: "mpeg2", "jpeg", "dv", "cosited").
 * With `add-borders` the picture keeps its display aspect ratio inside black borders. A
 * GstVideoCropMeta on the input is applied: its rectangle is the picture that is converted and
 * scaled. When the caps are the same on both sides, buffers pass through untouched (with their
 * metas).
 *
 * Frames come and go in system, OpenCL or CUDA memory, and RGBA in GL memory, through the
 * plugin's frame path. See docs/openclconvertscale.md.
 *
 * The source pad also gives other/tensors for inference (as NNStreamer's tensor_converter and
 * tensor_transform): one float32 or float16 tensor of R, G, B per frame in OpenCL or system
 * memory,
 * dimensions=3:W:H:1 (tensor-layout nhwc) or W:H:3:1 (nchw), W x H from downstream or the
 * input's size; each value is (the channel's full-range 8-bit value, unrounded - tensor-mean)
 * x tensor-scale; the picture (the crop, if any) is letterboxed (add-borders, borders RGB 0) or
 * stretched.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 videotestsrc ! video/x-raw,format=NV12,width=1920,height=1080 ! \
 *     openclconvertscale ! video/x-raw,format=RGBA,width=1280,height=720 ! \
 *     videoconvert ! autovideosink
 * gst-launch-1.0 videotestsrc ! video/x-raw,format=NV12 ! openclconvertscale \
 *     tensor-mean="<123.675, 116.28, 103.53>" tensor-scale="<0.017125, 0.017507, 0.017429>" ! \
 *     other/tensors,format=static,num_tensors=1,types=float32,dimensions=3:224:224:1 ! \
 *     fakesink
 * ]|
 */
#include "elements/gstopenclconvertscale.h"

#include <gst/video/video.h>

#include <cmath>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "opencl/gstopenclconvert.h"
#include "opencl/gstopenclframepath.h"
#include "opencl/gstopenclmemory.h"
#include "opencl/gstopenclproperties.h"
#include "opencl/gstopencltensor.h"
#include "opencl/gstopenclutils.h"

GST_DEBUG_CATEGORY_STATIC (gst_opencl_convert_scale_debug);
#define GST_CAT_DEFAULT gst_opencl_convert_scale_debug

/* The formats, in the order fixation falls back to when the input's is not offered. */
#define CONVERT_SCALE_FORMATS GST_OPENCL_CONVERT_FORMATS

namespace {

using Method = gst_opencl::ScaleMethod;

/* The order of a tensor output's dimensions. */
enum class TensorLayout { Nhwc = 0, Nchw = 1 };

constexpr Method DEFAULT_METHOD = Method::Bilinear;
constexpr bool DEFAULT_ADD_BORDERS = true;
constexpr TensorLayout DEFAULT_TENSOR_LAYOUT = TensorLayout::Nhwc;

struct Settings
{
  Method method = DEFAULT_METHOD;
  bool add_borders = DEFAULT_ADD_BORDERS;
  TensorLayout tensor_layout = DEFAULT_TENSOR_LAYOUT;
  std::vector<float> tensor_mean { 0.0f, 0.0f, 0.0f };
  std::vector<float> tensor_scale { 1.0f, 1.0f, 1.0f };
};

/* What the negotiated caps set up. */
struct State
{
  bool passthrough = true;
  gst_opencl::FrameConverter converter;
  /* A tensor output: its shape, and the device buffer a frame's tensor is written to and read
   * from into an output buffer that is not OpenCL memory of the element's context (made at
   * the first such frame). */
  bool tensor_out = false;
  gst_opencl::TensorOutput tensor;
  cl::Buffer tensor_buffer;
};

/* The media type of the tensor outputs, as NNStreamer's other/tensors (the dimensions from
 * downstream, or fixated to the input's size). */
constexpr const char *TENSOR_CAPS = "other/tensors, format=(string)static, "
    "num_tensors=(int)1, types=(string){ float32, float16 }";

}  // namespace

using GstOpenCLConvertScaleImpl = gst_opencl::ElementImpl<Settings, State>;

GST_OPENCL_DEFINE_ELEMENT (GstOpenCLConvertScale, gst_opencl_convert_scale, GstOpenCLBaseTransform,
    GST_TYPE_OPENCL_BASE_TRANSFORM, GstOpenCLConvertScaleImpl, openclconvertscale,
    GST_TYPE_OPENCL_CONVERT_SCALE);

GType
gst_opencl_convert_scale_method_get_type (void)
{
  return gst_opencl::enum_type ("GstOpenCLConvertScaleMethod", {
        { (gint) Method::Nearest, "Nearest Neighbour", "nearest-neighbour" },
        { (gint) Method::Bilinear, "Bilinear (2-tap)", "bilinear" },
        { (gint) Method::Lanczos, "Lanczos (window 2, widened when scaling down)", "lanczos" },
        { (gint) Method::Cubic, "Catmull-Rom (bicubic, 4-tap)", "catrom" },
      });
}

GType
gst_opencl_convert_scale_tensor_layout_get_type (void)
{
  return gst_opencl::enum_type ("GstOpenCLConvertScaleTensorLayout", {
        { (gint) TensorLayout::Nhwc, "NHWC: R, G, B of a pixel together (dimensions=3:W:H:1)",
            "nhwc" },
        { (gint) TensorLayout::Nchw, "NCHW: a plane per channel (dimensions=W:H:3:1)", "nchw" },
      });
}

/* The input a tensor structure takes: any video, at the tensor's frame rate. */
static GstStructure *
video_of_tensor (const GstStructure * tensor)
{
  GstStructure *video = gst_structure_new_empty ("video/x-raw");
  const GValue *rate = gst_structure_get_value (tensor, "framerate");
  if (rate)
    gst_structure_set_value (video, "framerate", rate);
  return video;
}

/* The tensors a video structure gives: in OpenCL memory (written there by the kernel and left on
 * the device), then in system memory. */
static GstCaps *
tensors_of_video (const GstStructure * video)
{
  GstCaps *tensors = gst_caps_new_empty ();
  for (const char *memory : { GST_CAPS_FEATURE_MEMORY_OPENCL,
          GST_CAPS_FEATURE_MEMORY_SYSTEM_MEMORY }) {
    GstStructure *s = gst_structure_from_string (TENSOR_CAPS, nullptr);
    if (const GValue *rate = gst_structure_get_value (video, "framerate"))
      gst_structure_set_value (s, "framerate", rate);
    tensors = gst_caps_merge_structure_full (tensors, s, gst_caps_features_new (memory,
            nullptr));
  }
  return tensors;
}

/* Any format and size in any memory: OpenCL, CUDA (where the device reaches it) and system
 * memory, and RGBA in GL memory; from video, also tensors (system memory); from tensors, any
 * video. */
static GstCaps *
gst_opencl_convert_scale_transform_caps (GstBaseTransform * trans, GstPadDirection direction,
    GstCaps * caps, GstCaps * filter)
{
  const bool cuda = gst_opencl_base_transform_cuda_negotiable (GST_OPENCL_BASE_TRANSFORM (trans));
  GstCaps *result = gst_caps_new_empty ();
  GstCaps *tensors = gst_caps_new_empty ();
  for (guint i = 0; i < gst_caps_get_size (caps); i++) {
    const GstStructure *given = gst_caps_get_structure (caps, i);
    const bool from_tensor = gst_structure_has_name (given, "other/tensors");
    if (!from_tensor && direction == GST_PAD_SINK)
      tensors = gst_caps_merge (tensors, tensors_of_video (given));
    GstStructure *any = from_tensor ? video_of_tensor (given) : gst_structure_copy (given);
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
  /* After the video: a downstream taking both gets video. */
  result = gst_caps_merge (result, tensors);
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

static TensorLayout
tensor_layout_of (GstBaseTransform * trans)
{
  auto *impl = GST_OPENCL_CONVERT_SCALE (trans)->impl;
  std::lock_guard<std::mutex> lock (impl->lock);
  return impl->settings.tensor_layout;
}

/* A tensor output: float32 unless downstream takes only float16; the dimensions downstream
 * gives, else the input's size in the order of tensor-layout; the input's frame rate. */
static GstCaps *
fixate_tensor (TensorLayout layout, const GstStructure * in, GstCaps * othercaps)
{
  othercaps = gst_caps_make_writable (gst_caps_truncate (othercaps));
  GstStructure *out = gst_caps_get_structure (othercaps, 0);
  if (gst_structure_has_field (out, "types"))
    gst_structure_fixate_field_string (out, "types", "float32");
  if (!gst_structure_has_field (out, "dimensions")) {
    gint w = 1, h = 1;
    gst_structure_get_int (in, "width", &w);
    gst_structure_get_int (in, "height", &h);
    const std::string dimensions = layout == TensorLayout::Nhwc ? "3:" + std::to_string (w) +
        ":" + std::to_string (h) + ":1" : std::to_string (w) + ":" + std::to_string (h) + ":3:1";
    gst_structure_set (out, "dimensions", G_TYPE_STRING, dimensions.c_str (), nullptr);
  }
  gint rate_n = 0, rate_d = 1;
  if (gst_structure_get_fraction (in, "framerate", &rate_n, &rate_d) &&
      gst_structure_has_field (out, "framerate"))
    gst_structure_fixate_field_nearest_fraction (out, "framerate", rate_n, rate_d);
  else if (!gst_structure_has_field (out, "framerate"))
    gst_structure_set (out, "framerate", GST_TYPE_FRACTION, rate_n, rate_d, nullptr);
  return gst_caps_fixate (othercaps);
}

/* As videoconvertscale: the input's caps when downstream takes them (passthrough); else the
 * input's format, size and pixel aspect ratio where downstream leaves them open, a size fixed
 * on one side only keeping the input's display aspect ratio, and the input's colorimetry and
 * chroma site where they mean the same. OpenCL memory is preferred for a new output. */
static GstCaps *
gst_opencl_convert_scale_fixate_caps (GstBaseTransform * trans, GstPadDirection direction,
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
  if (gst_opencl::caps_are_tensors (othercaps))
    return fixate_tensor (tensor_layout_of (trans), gst_caps_get_structure (caps, 0), othercaps);
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
  state.passthrough = passthrough;
  if (passthrough)
    return;
  state.converter.configure (device, in_info, out_info);
  GST_INFO_OBJECT (self, "%s %dx%d -> %s %dx%d", GST_VIDEO_INFO_NAME (in_info),
      GST_VIDEO_INFO_WIDTH (in_info), GST_VIDEO_INFO_HEIGHT (in_info),
      GST_VIDEO_INFO_NAME (out_info), GST_VIDEO_INFO_WIDTH (out_info),
      GST_VIDEO_INFO_HEIGHT (out_info));
}

/* The tensor the caps describe, or a Failure that says what this element gives instead. */
static gst_opencl::TensorOutput
tensor_output_of (GstCaps * outcaps, TensorLayout layout)
{
  std::string why;
  const auto info = gst_opencl::tensor_info_from_caps (outcaps, &why);
  const bool nhwc = layout == TensorLayout::Nhwc;
  gst_opencl::TensorOutput tensor;
  tensor.planar = !nhwc;
  if (info) {
    tensor.half = info->type == gst_opencl::TensorType::Float16;
    tensor.width = (int) info->dimension (nhwc ? 1 : 0);
    tensor.height = (int) info->dimension (nhwc ? 2 : 1);
    bool shaped = info->dimension (nhwc ? 0 : 2) == 3 && info->dimensions.size () >= 3;
    for (gsize d = 3; d < info->dimensions.size (); d++)
      shaped = shaped && info->dimensions[d] == 1;
    if (!shaped)
      why = "the tensor is not of 3 channels (R, G, B) in the order of tensor-layout";
    else if (!tensor.half && info->type != gst_opencl::TensorType::Float32)
      why = std::string ("type ") + gst_opencl::tensor_type_name (info->type) + " is not given";
    else
      return tensor;
  }
  gchar *text = gst_caps_to_string (outcaps);
  const std::string message = "cannot give " + std::string (text) + ": " + why + "; "
      "openclconvertscale gives one float32 or float16 tensor of dimensions " +
      (nhwc ? "3:W:H:1 (tensor-layout=nhwc)" : "W:H:3:1 (tensor-layout=nchw)");
  g_free (text);
  throw gst_opencl::Failure (gst_opencl::Failure::Kind::Settings, message);
}

/* A tensor output: the input port from the input's caps (the output port, unused, as a frame of
 * the input's in system memory), the converter and the device buffer of the tensor. */
static gboolean
configure_tensor (GstOpenCLBaseTransform * base, gst_opencl::ElementDevice & device,
    GstCaps * incaps, GstCaps * outcaps)
{
  auto *self = GST_OPENCL_CONVERT_SCALE (base);
  gst_base_transform_set_passthrough (GST_BASE_TRANSFORM (base), FALSE);
  GstCaps *unused_out = gst_caps_copy (incaps);
  gst_caps_set_features (unused_out, 0, nullptr);
  GstVideoInfo in_info, unused_info;
  const gboolean ports = gst_opencl_base_transform_configure_ports (base, incaps, unused_out,
      &in_info, &unused_info);
  gst_caps_unref (unused_out);
  if (!ports)
    return FALSE;
  const TensorLayout layout = tensor_layout_of (GST_BASE_TRANSFORM (base));
  return GST_OPENCL_GUARD (base, "cannot configure the tensor output", [&]() {
    State & state = self->impl->state;
    state = State ();
    state.passthrough = false;
    state.tensor_out = true;
    state.tensor = tensor_output_of (outcaps, layout);
    gst_opencl::Device & cl_device = device.device ();
    if (state.tensor.bytes () > cl_device.max_alloc_bytes)
      throw gst_opencl::Failure (gst_opencl::Failure::Kind::TooLarge, "a tensor of " +
          std::to_string (state.tensor.bytes ()) + " bytes exceeds the largest buffer " +
          cl_device.name + " can allocate");
    state.converter.configure_tensor (cl_device, &in_info, state.tensor);
    GST_INFO_OBJECT (self, "%s %dx%d -> %dx%d %s %s tensor", GST_VIDEO_INFO_NAME (&in_info),
        GST_VIDEO_INFO_WIDTH (&in_info), GST_VIDEO_INFO_HEIGHT (&in_info), state.tensor.width,
        state.tensor.height, state.tensor.half ? "float16" : "float32",
        state.tensor.planar ? "NCHW" : "NHWC");
  });
}

/* Both sides are video: the base configures the ports from the caps. */
static gboolean
gst_opencl_convert_scale_configure (GstOpenCLBaseTransform * base,
    gst_opencl::ElementDevice & device, gst_opencl::FramePorts &, GstCaps * incaps,
    GstCaps * outcaps)
{
  if (gst_opencl::caps_are_tensors (outcaps))
    return configure_tensor (base, device, incaps, outcaps);
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

/* The input's GstVideoCropMeta, clipped to the frame (a rectangle reaching past it is clipped,
 * with a warning; an empty one is ignored); false without one. */
static bool
crop_of (GstOpenCLBaseTransform * base, GstBuffer * inbuf, const GstVideoInfo * info,
    gst_opencl::PixelRect * crop)
{
  const GstVideoCropMeta *meta = gst_buffer_get_video_crop_meta (inbuf);
  if (!meta)
    return false;
  const int w = GST_VIDEO_INFO_WIDTH (info), h = GST_VIDEO_INFO_HEIGHT (info);
  const guint x = MIN (meta->x, (guint) w - 1), y = MIN (meta->y, (guint) h - 1);
  const guint cw = MIN (meta->width, (guint) w - x), ch = MIN (meta->height, (guint) h - y);
  if (meta->width == 0 || meta->height == 0) {
    GST_WARNING_OBJECT (base, "ignoring an empty crop (%ux%u)", meta->width, meta->height);
    return false;
  }
  if (x != meta->x || y != meta->y || cw != meta->width || ch != meta->height)
    GST_WARNING_OBJECT (base, "crop %ux%u at %u,%u reaches past the %dx%d frame: clipped to "
        "%ux%u at %u,%u", meta->width, meta->height, meta->x, meta->y, w, h, cw, ch, x, y);
  *crop = gst_opencl::PixelRect { (int) x, (int) y, (int) cw, (int) ch };
  return true;
}

/* The settings' mean and scale; a Failure when either is not 3 values. */
static gst_opencl::TensorNormalisation
normalisation_of (const Settings & settings)
{
  gst_opencl::TensorNormalisation norm;
  for (const auto & [values, name, target] : { std::make_tuple (&settings.tensor_mean,
              "tensor-mean", &norm.mean), std::make_tuple (&settings.tensor_scale,
              "tensor-scale", &norm.scale) }) {
    if (values->size () != 3)
      throw gst_opencl::Failure (gst_opencl::Failure::Kind::Settings, std::string (name) +
          " needs 3 values (R, G, B), not " + std::to_string (values->size ()));
    for (int c = 0; c < 3; c++)
      (*target)[c] = (*values)[c];
  }
  return norm;
}

/* A frame into its tensor: straight into the output buffer when that is OpenCL memory of the
 * element's context (nothing waits), else into the tensor buffer, read into the output buffer
 * (the host waits for it). */
static void
convert_to_tensor (GstOpenCLBaseTransform * base, const Settings & settings,
    gst_opencl::ElementDevice & device, gst_opencl::FramePorts & ports, GstBuffer * inbuf,
    GstBuffer * outbuf)
{
  State & state = GST_OPENCL_CONVERT_SCALE (base)->impl->state;
  const gst_opencl::TensorNormalisation norm = normalisation_of (settings);
  gst_opencl::FrameWork work (device);
  gst_opencl::FrameTrip in (device, ports.in, inbuf, gst_opencl::FrameAccess::Read);
  gst_opencl::PixelRect crop;
  const bool cropped = crop_of (base, inbuf, &in.frame ().info, &crop);
  gst_opencl::DeviceFrameView on_device;
  const bool direct = gst_opencl::buffer_device_frame (outbuf, device.context (), true,
      &on_device) && on_device.info.size >= state.tensor.bytes ();
  if (!direct && !state.tensor_buffer ()) {
    /* Made at the first frame that needs it: none where every tensor is OpenCL memory. */
    state.tensor_buffer = cl::Buffer (device.device ().context, CL_MEM_WRITE_ONLY |
        CL_MEM_HOST_READ_ONLY, state.tensor.bytes ());
  }
  state.converter.convert_tensor (device, in.frame (), direct ? on_device.buffer :
      state.tensor_buffer, norm, settings.method, settings.add_borders,
      cropped ? &crop : nullptr);
  in.finish (false);
  bool waited = false;
  if (direct)
    gst_opencl::opencl_memory_written (gst_opencl::sole_memory (outbuf));
  else
    waited = gst_opencl::copy_bytes_out (device, state.tensor_buffer, outbuf,
        state.tensor.bytes ());
  if (waited)
    ports.in.release_uploaded (false);
  work.end (waited);
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
    if (impl->state.tensor_out) {
      convert_to_tensor (base, settings, device, ports, inbuf, outbuf);
      return;
    }
    gst_opencl::FrameWork work (device);
    gst_opencl::FrameTrip in (device, ports.in, inbuf, gst_opencl::FrameAccess::Read);
    gst_opencl::FrameTrip out (device, ports.out, outbuf, gst_opencl::FrameAccess::Write);
    gst_opencl::PixelRect crop;
    const bool cropped = crop_of (base, inbuf, &in.frame ().info, &crop);
    impl->state.converter.convert (device, in.frame (), out.frame (), settings.method,
        settings.add_borders, cropped ? &crop : nullptr);
    in.finish (false);
    const bool waited = out.finish (true);
    if (waited)
      ports.in.release_uploaded (false);
    work.end (waited);
  });
  return ok ? GST_FLOW_OK : GST_FLOW_ERROR;
}

/* Upstream may leave a crop to this element: it is applied, so it is offered. */
static gboolean
gst_opencl_convert_scale_propose_allocation (GstBaseTransform * trans, GstQuery * decide_query,
    GstQuery * query)
{
  if (!GST_BASE_TRANSFORM_CLASS (gst_opencl_convert_scale_parent_class)->propose_allocation
      (trans, decide_query, query))
    return FALSE;
  if (!gst_base_transform_is_passthrough (trans))
    gst_query_add_allocation_meta (query, GST_VIDEO_CROP_META_API_TYPE, nullptr);
  return TRUE;
}

/* The crop is applied: the output is the cropped picture, so its meta does not go on. Every
 * other meta follows the base's policy. */
static gboolean
gst_opencl_convert_scale_transform_meta (GstBaseTransform * trans, GstBuffer * outbuf,
    GstMeta * meta, GstBuffer * inbuf)
{
  if (meta->info->api == GST_VIDEO_CROP_META_API_TYPE)
    return FALSE;
  return GST_BASE_TRANSFORM_CLASS (gst_opencl_convert_scale_parent_class)->transform_meta
      (trans, outbuf, meta, inbuf);
}

/* Tensor outputs are plain bytes in system memory: when downstream offers no pool, one of
 * GStreamer's plain pools, so that no output buffer is allocated per frame. */
static gboolean
gst_opencl_convert_scale_decide_allocation (GstBaseTransform * trans, GstQuery * query)
{
  if (!GST_BASE_TRANSFORM_CLASS (gst_opencl_convert_scale_parent_class)->decide_allocation
      (trans, query))
    return FALSE;
  GstCaps *caps = nullptr;
  gst_query_parse_allocation (query, &caps, nullptr);
  if (!gst_opencl::caps_are_tensors (caps) || gst_query_get_n_allocation_pools (query) > 0)
    return TRUE;
  const auto tensor = gst_opencl::tensor_info_from_caps (caps, nullptr);
  if (!tensor)
    return FALSE;
  const guint size = (guint) tensor->size_bytes ();
  GstBufferPool *pool = gst_buffer_pool_new ();
  GstStructure *config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, caps, size, 2, 0);
  const gboolean ok = gst_buffer_pool_set_config (pool, config);
  if (ok)
    gst_query_add_allocation_pool (query, pool, size, 2, 0);
  gst_object_unref (pool);
  return ok;
}

/* The base's pad templates, the source's with the tensor outputs added. */
static void
add_pad_templates (GstElementClass * element_class)
{
  gst_opencl::add_video_pad_templates (element_class, CONVERT_SCALE_FORMATS, true);
  GstPadTemplate *video_src = gst_element_class_get_pad_template (element_class, "src");
  GstCaps *src = gst_pad_template_get_caps (video_src);
  GstStructure *any_rate = gst_structure_from_string (TENSOR_CAPS, nullptr);
  gst_structure_set (any_rate, "framerate", GST_TYPE_FRACTION_RANGE, 0, 1, G_MAXINT, 1,
      nullptr);
  src = gst_caps_merge (src, tensors_of_video (any_rate));
  gst_structure_free (any_rate);
  gst_element_class_add_pad_template (element_class, gst_pad_template_new ("src", GST_PAD_SRC,
          GST_PAD_ALWAYS, src));
  gst_caps_unref (src);
}

static void
gst_opencl_convert_scale_class_init (GstOpenCLConvertScaleClass * klass)
{
  auto *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  auto *base_class = GST_OPENCL_BASE_TRANSFORM_CLASS (klass);

  auto properties = gst_opencl::element_class_begin<GstOpenCLConvertScale> (klass, GST_CAT_DEFAULT,
      "openclconvertscale", "OpenCL colour conversion and scaling");

  /* Both take effect at the next frame: they are kernel arguments. */
  /**
   * GstOpenCLConvertScale:method:
   *
   * How the input is sampled: nearest-neighbour, bilinear (2x2 taps), lanczos (window of
   * 2 lobes, widened by the downscale factor up to 8, so that it also low-passes when scaling
   * down) or catrom (bicubic: Catmull-Rom over 4x4 taps), edges clamped, for luma, RGB and
   * chroma alike.
   */
  properties.add (g_param_spec_enum ("method", "Method", "The sampling method",
      GST_TYPE_OPENCL_CONVERT_SCALE_METHOD, (gint) DEFAULT_METHOD,
      gst_opencl::PROPERTY_PLAYING), &Settings::method);
  /**
   * GstOpenCLConvertScale:add-borders:
   *
   * Keep the input's display aspect ratio inside black borders when the output's differs
   * (as videoscale does); otherwise the picture is stretched over the whole output. In a
   * tensor output the borders are R = G = B = 0 before tensor-mean and tensor-scale.
   */
  properties.add (g_param_spec_boolean ("add-borders", "Add borders",
      "Keep the display aspect ratio with black borders", DEFAULT_ADD_BORDERS,
      gst_opencl::PROPERTY_PLAYING), &Settings::add_borders);

  /**
   * GstOpenCLConvertScale:tensor-layout:
   *
   * For other/tensors output: nhwc, the R, G, B values of a pixel together (NNStreamer's
   * dimensions=3:W:H:1), or nchw, a plane per channel (dimensions=W:H:3:1). The output caps
   * must have this order; W x H comes from them, or is the input's size.
   */
  properties.add (g_param_spec_enum ("tensor-layout", "Tensor layout",
      "Order of a tensor output's dimensions: nhwc (3:W:H:1) or nchw (W:H:3:1)",
      GST_TYPE_OPENCL_CONVERT_SCALE_TENSOR_LAYOUT, (gint) DEFAULT_TENSOR_LAYOUT,
      gst_opencl::PROPERTY_READY), &Settings::tensor_layout);
  /**
   * GstOpenCLConvertScale:tensor-mean:
   *
   * For other/tensors output: the mean of R, G and B, three values in 8-bit units (0 .. 255)
   * subtracted before tensor-scale multiplies, e.g. "<123.675, 116.28, 103.53>" (ImageNet).
   */
  properties.add (gst_opencl::float_array_spec ("tensor-mean", "Tensor mean",
      "Tensor output: value = (RGB in 0..255 - mean) * scale, per channel; 3 values",
      gst_opencl::PROPERTY_PLAYING), &Settings::tensor_mean);
  /**
   * GstOpenCLConvertScale:tensor-scale:
   *
   * For other/tensors output: the factors of R, G and B after tensor-mean is subtracted,
   * e.g. "<0.017125, 0.017507, 0.017429>" (ImageNet: 1 / (255 std)).
   */
  properties.add (gst_opencl::float_array_spec ("tensor-scale", "Tensor scale",
      "Tensor output: value = (RGB in 0..255 - mean) * scale, per channel; 3 values",
      gst_opencl::PROPERTY_PLAYING), &Settings::tensor_scale);

  gst_element_class_set_static_metadata (GST_ELEMENT_CLASS (klass),
      "OpenCL colour conversion and scaling", "Filter/Converter/Video/Scaler",
      "Converts video between formats and sizes, or into float tensors, on an OpenCL device",
      "gst-opencl developers");
  add_pad_templates (GST_ELEMENT_CLASS (klass));
  gst_type_mark_as_plugin_api (GST_TYPE_OPENCL_CONVERT_SCALE_METHOD, (GstPluginAPIFlags) 0);
  gst_type_mark_as_plugin_api (GST_TYPE_OPENCL_CONVERT_SCALE_TENSOR_LAYOUT,
      (GstPluginAPIFlags) 0);

  trans_class->passthrough_on_same_caps = TRUE;
  trans_class->transform_caps = gst_opencl_convert_scale_transform_caps;
  trans_class->fixate_caps = gst_opencl_convert_scale_fixate_caps;
  trans_class->decide_allocation = gst_opencl_convert_scale_decide_allocation;
  trans_class->propose_allocation = gst_opencl_convert_scale_propose_allocation;
  trans_class->transform_meta = gst_opencl_convert_scale_transform_meta;
  base_class->configure = gst_opencl_convert_scale_configure;
  base_class->transform_frames = gst_opencl_convert_scale_transform_frames;
}
