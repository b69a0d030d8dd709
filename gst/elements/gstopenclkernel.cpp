/* gst-opencl: openclkernel, a video filter that runs a user's OpenCL kernel on every frame.
 * SPDX-License-Identifier: LGPL-2.1-or-later */

/**
 * SECTION:element-openclkernel
 * @title: openclkernel
 *
 * Runs an OpenCL kernel of your own on every frame: the program comes from a `.cl` file
 * (`location`) or from the `source` property, and its arguments are filled by name.
 *
 * - A `__read_only image2d_t` argument is the input frame and a `__write_only image2d_t` one
 *   the output, as normalised 8-bit images: `read_imagef` gives red, green, blue, alpha in
 *   0..1 whatever the frame's byte order (for GRAY8, the grey level in `.x`; for RGBx-like
 *   formats, alpha is the padding byte).
 * - Or `__global` buffers named `src` and `dst` are the frames' bytes, with `src_stride` and
 *   `dst_stride` (int, bytes per row).
 * - On NV12, P010_10LE and I420 frames each plane is an argument of its own, by name:
 *   `src_y` and `src_uv` (NV12, P010_10LE: `CL_RG` images) or `src_u` and `src_v` (I420), and
 *   `dst_y`, ... for the output, as images (`CL_UNORM_INT8`, or `CL_UNORM_INT16` for P010_10LE,
 *   whose 10 bits are the word's high bits: a read gives word / 65535) or `__global` pointers;
 *   `src_uv_stride`, `src_uv_width`, `src_uv_height` and the like give each plane's bytes per
 *   row and size. A kernel taking `src` or `dst` on such a frame is refused, naming the planes
 *   it needs. GRAY16_LE and RGBA64_LE are `CL_UNORM_INT16` `CL_R` and `CL_RGBA` images, or
 *   ushort buffers. Nothing is converted: the output has the input's format. Once the kernel
 *   is built, negotiation offers only the formats its arguments fit (a converter upstream then
 *   converts), unless the format is forced.
 * - `width` and `height` (int: the output frame's size), `time` (float: seconds of stream time)
 *   and `frame` (int: frames this element processed) are filled by the element.
 * - Every other argument takes the field of the same name of `parameters`, checked against
 *   its type (integers for integer arguments, numbers for float and double, arrays `<a, b, c,
 *   d>` for vectors). Numeric fields are also child objects (GstChildProxy) whose `value` is
 *   controllable: `name::value=2` in gst-launch, or a GstController binding.
 *
 * One work-item runs per output pixel (luma pixel on YUV frames) unless `global-size` says
 * otherwise. The output has the input's size unless downstream asks for another size and the
 * kernel takes `width` and `height` (it then samples the input itself). Every property may
 * change while playing: a new program is built in the background and taken up at the first
 * frame after it is ready (an `opencl-kernel` element message says so); if it fails to build, a
 * warning carries the build log and the previous kernel goes on. See docs/openclkernel.md.
 *
 * On a CPU device the frames are shared with the application without a copy, so a buffer
 * kernel that indexes outside `src` or `dst` writes into the application's memory. For
 * developing kernels, `checked=true` (or GST_OPENCL_CHECKED=1) gives it copies of the frames
 * with guard zones around them instead, checked after every frame: a write outside the output
 * frame or into the input is an error naming the kernel, and the frame is not pushed. It costs
 * copies and a wait per frame; image arguments are not guarded.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 videotestsrc ! video/x-raw,format=RGBA ! \
 *     openclkernel location=pipelines/kernels/vignette.cl parameters="p,strength=0.8" ! \
 *     videoconvert ! autovideosink
 * gst-launch-1.0 videotestsrc ! video/x-raw,format=BGRx ! openclkernel source="__kernel void \
 *     invert (__read_only image2d_t in, __write_only image2d_t out) { int2 p = (int2) \
 *     (get_global_id (0), get_global_id (1)); float4 c = read_imagef (in, p); \
 *     write_imagef (out, p, (float4) (1.0f - c.xyz, c.w)); }" ! videoconvert ! autovideosink
 * ]|
 */
#include "elements/gstopenclkernel.h"

#include <new>

#include "opencl/gstopenclproperties.h"
#include "opencl/gstopencluserkernel.h"
#include "opencl/gstopenclutils.h"

GST_DEBUG_CATEGORY_STATIC (gst_opencl_kernel_debug);
#define GST_CAT_DEFAULT gst_opencl_kernel_debug

struct GstOpenCLKernelImpl : gst_opencl::UserKernelImpl
{
  GstOpenCLKernelImpl () : UserKernelImpl (false) {}

  GstClockTime stream_time = GST_CLOCK_TIME_NONE;  /* of the frame being transformed */
  guint64 frames = 0;
};

/* Formats with a normalised image layout, one plane or one per plane (gstopencluserkernel.cpp). */
#define FORMATS "RGBA, BGRA, RGBx, BGRx, ARGB, ABGR, xRGB, xBGR, GRAY8, GRAY16_LE, RGBA64_LE, " \
    "NV12, I420, P010_10LE"

GST_OPENCL_DEFINE_USER_KERNEL_ELEMENT (GstOpenCLKernel, gst_opencl_kernel, GstOpenCLFilter,
    GST_TYPE_OPENCL_FILTER, GstOpenCLKernelImpl, openclkernel, GST_TYPE_OPENCL_KERNEL);

/* The kernel is built as the element starts, so that caps negotiation knows whether it can
 * resample (it takes width and height) and a broken program fails the state change. */
static gboolean
gst_opencl_kernel_start (GstBaseTransform * trans)
{
  if (!GST_BASE_TRANSFORM_CLASS (gst_opencl_kernel_parent_class)->start (trans))
    return FALSE;
  auto *impl = GST_OPENCL_KERNEL (trans)->impl;
  impl->frames = 0;
  return GST_OPENCL_GUARD (trans, "cannot build the kernel", [&]() {
    impl->host.ensure_built (gst_opencl::device_of (trans));
  });
}

/* `caps` less the formats `host`'s kernel cannot take (a whole-frame kernel and YUV frames, a
 * plane kernel and one-plane frames). */
static GstCaps *
formats_it_takes (gst_opencl::UserKernelHost & host, GstCaps * caps)
{
  GstCaps *narrowed = gst_caps_new_empty ();
  for (guint i = 0; i < gst_caps_get_size (caps); i++) {
    GstStructure *s = gst_structure_copy (gst_caps_get_structure (caps, i));
    const GValue *formats = gst_structure_get_value (s, "format");
    GValue kept = G_VALUE_INIT;
    gst_value_list_init (&kept, 0);
    const guint n = formats && GST_VALUE_HOLDS_LIST (formats) ? gst_value_list_get_size (formats) :
        formats ? 1 : 0;
    for (guint f = 0; f < n; f++) {
      const GValue *format = GST_VALUE_HOLDS_LIST (formats) ?
          gst_value_list_get_value (formats, f) : formats;
      if (G_VALUE_HOLDS_STRING (format) && !host.takes_format (gst_video_format_from_string
              (g_value_get_string (format))))
        continue;
      gst_value_list_append_value (&kept, format);
    }
    if (formats && gst_value_list_get_size (&kept) == 1)
      gst_structure_set_value (s, "format", gst_value_list_get_value (&kept, 0));
    else if (formats)
      gst_structure_set_value (s, "format", &kept);
    const bool empty = formats && gst_value_list_get_size (&kept) == 0;
    g_value_unset (&kept);
    if (empty)
      gst_structure_free (s);
    else
      gst_caps_append_structure_full (narrowed, s, gst_caps_features_copy
          (gst_caps_get_features (caps, i)));
  }
  return narrowed;
}

/* The base's rule; the size is free on the other side when the kernel can resample. */
static GstCaps *
gst_opencl_kernel_transform_caps (GstBaseTransform * trans, GstPadDirection direction,
    GstCaps * caps, GstCaps * filter)
{
  GstCaps *sized = caps;
  if (GST_OPENCL_KERNEL (trans)->impl->host.takes_size ()) {
    sized = gst_caps_copy (caps);
    for (guint i = 0; i < gst_caps_get_size (sized); i++)
      gst_structure_set (gst_caps_get_structure (sized, i), "width", GST_TYPE_INT_RANGE, 1,
          G_MAXINT, "height", GST_TYPE_INT_RANGE, 1, G_MAXINT, nullptr);
  }
  GstCaps *result = GST_BASE_TRANSFORM_CLASS (gst_opencl_kernel_parent_class)->transform_caps
      (trans, direction, sized, filter);
  if (sized != caps)
    gst_caps_unref (sized);
  /* Only formats the kernel takes, so that a converter upstream converts YUV for a kernel of
   * whole frames; unless none is left (formats forced by a capsfilter or a source that has no
   * other): then they stay, and negotiation fails with the error naming the arguments the kernel
   * would need. */
  GstCaps *narrowed = formats_it_takes (GST_OPENCL_KERNEL (trans)->impl->host, result);
  if (gst_caps_is_empty (narrowed) && !gst_caps_is_empty (result)) {
    gst_caps_unref (narrowed);
    return result;
  }
  gst_caps_unref (result);
  return narrowed;
}

/* A free size is fixed to the other side's, so only an explicit request resamples. */
static GstCaps *
gst_opencl_kernel_fixate_caps (GstBaseTransform * trans, GstPadDirection direction,
    GstCaps * caps, GstCaps * othercaps)
{
  const GstStructure *given = gst_caps_get_structure (caps, 0);
  gint width = 0, height = 0;
  if (gst_structure_get_int (given, "width", &width) &&
      gst_structure_get_int (given, "height", &height)) {
    othercaps = gst_caps_make_writable (othercaps);
    for (guint i = 0; i < gst_caps_get_size (othercaps); i++) {
      GstStructure *s = gst_caps_get_structure (othercaps, i);
      gst_structure_fixate_field_nearest_int (s, "width", width);
      gst_structure_fixate_field_nearest_int (s, "height", height);
    }
  }
  return GST_BASE_TRANSFORM_CLASS (gst_opencl_kernel_parent_class)->fixate_caps (trans,
      direction, caps, othercaps);
}

static void
gst_opencl_kernel_before_transform (GstBaseTransform * trans, GstBuffer * buffer)
{
  GST_BASE_TRANSFORM_CLASS (gst_opencl_kernel_parent_class)->before_transform (trans, buffer);
  GstClockTime stream_time = GST_CLOCK_TIME_NONE;
  if (trans->segment.format == GST_FORMAT_TIME)
    stream_time = gst_segment_to_stream_time (&trans->segment, GST_FORMAT_TIME,
        GST_BUFFER_PTS (buffer));
  GST_OPENCL_KERNEL (trans)->impl->stream_time = stream_time;
}

static gboolean
gst_opencl_kernel_set_info (GstOpenCLFilter * filter, gst_opencl::ElementDevice & device,
    const GstVideoInfo * in_info, const GstVideoInfo * out_info)
{
  return GST_OPENCL_GUARD (filter, "cannot set up the kernel", [&]() {
    GST_OPENCL_KERNEL (filter)->impl->host.prepare (GST_ELEMENT (filter), device, in_info,
        out_info);
  });
}

static gboolean
gst_opencl_kernel_process (GstOpenCLFilter * filter, gst_opencl::ElementDevice & device,
    const GstOpenCLFrame * in, const GstOpenCLFrame * out)
{
  auto *impl = GST_OPENCL_KERNEL (filter)->impl;
  return GST_OPENCL_GUARD (filter, "cannot run the kernel", [&]() {
    impl->host.run (GST_ELEMENT (filter), device, in, *out, impl->stream_time, impl->frames++);
  });
}

static void
gst_opencl_kernel_init (GstOpenCLKernel * self)
{
  self->impl = new GstOpenCLKernelImpl ();
  self->impl->host.attach (G_OBJECT (self));
}

static void
gst_opencl_kernel_class_init (GstOpenCLKernelClass * klass)
{
  auto *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  auto *filter_class = GST_OPENCL_FILTER_CLASS (klass);

  gst_opencl::element_class_setup<GstOpenCLKernel> (klass, GST_CAT_DEFAULT, "openclkernel",
      "OpenCL user kernel");

  gst_opencl::UserKernelElement<GstOpenCLKernel>::install (G_OBJECT_CLASS (klass), false);

  trans_class->start = gst_opencl_kernel_start;
  trans_class->transform_caps = gst_opencl_kernel_transform_caps;
  trans_class->fixate_caps = gst_opencl_kernel_fixate_caps;
  trans_class->before_transform = gst_opencl_kernel_before_transform;
  filter_class->set_info = gst_opencl_kernel_set_info;
  filter_class->process = gst_opencl_kernel_process;

  gst_element_class_set_static_metadata (GST_ELEMENT_CLASS (klass), "OpenCL kernel",
      "Filter/Effect/Video", "Runs a user's OpenCL kernel on every frame",
      "gst-opencl developers");
  gst_opencl_filter_class_add_pad_templates (filter_class, FORMATS, TRUE);
}
