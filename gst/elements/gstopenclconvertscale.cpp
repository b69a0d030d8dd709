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
 * ## Example launch line
 * |[
 * gst-launch-1.0 videotestsrc ! video/x-raw,format=NV12,width=1920,height=1080 ! \
 *     openclconvertscale ! video/x-raw,format=RGBA,width=1280,height=720 ! \
 *     videoconvert ! autovideosink
 * ]|
 */
#include "elements/gstopenclconvertscale.h"

#include <gst/video/video.h>

#include <cmath>
#include <mutex>
#include <string>

#include "opencl/gstopenclconvert.h"
#include "opencl/gstopenclframepath.h"
#include "opencl/gstopenclmemory.h"
#include "opencl/gstopenclproperties.h"
#include "opencl/gstopenclutils.h"

GST_DEBUG_CATEGORY_STATIC (gst_opencl_convert_scale_debug);
#define GST_CAT_DEFAULT gst_opencl_convert_scale_debug

/* The formats, in the order fixation falls back to when the input's is not offered. */
#define CONVERT_SCALE_FORMATS GST_OPENCL_CONVERT_FORMATS

namespace {

using Method = gst_opencl::ScaleMethod;

constexpr Method DEFAULT_METHOD = Method::Bilinear;
constexpr bool DEFAULT_ADD_BORDERS = true;

struct Settings
{
  Method method = DEFAULT_METHOD;
  bool add_borders = DEFAULT_ADD_BORDERS;
};

/* What the negotiated caps set up. */
struct State
{
  bool passthrough = true;
  gst_opencl::FrameConverter converter;
};

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
        { (gint) Method::Lanczos, "Lanczos (window 2, widened when scaling down)", "lanczos" },
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
  state.passthrough = passthrough;
  if (passthrough)
    return;
  state.converter.configure (device, in_info, out_info);
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
  trans_class->propose_allocation = gst_opencl_convert_scale_propose_allocation;
  trans_class->transform_meta = gst_opencl_convert_scale_transform_meta;
  base_class->configure = gst_opencl_convert_scale_configure;
  base_class->transform_frames = gst_opencl_convert_scale_transform_frames;
}
