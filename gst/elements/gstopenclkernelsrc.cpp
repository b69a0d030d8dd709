/* gst-opencl: openclkernelsrc, a video source whose frames a user's OpenCL kernel renders.
 * SPDX-License-Identifier: LGPL-2.1-or-later */

/**
 * SECTION:element-openclkernelsrc
 * @title: openclkernelsrc
 *
 * Renders every frame with an OpenCL kernel of your own, from a `.cl` file (`location`) or the
 * `source` property. The kernel writes the frame through a `__write_only image2d_t` argument
 * (normalised 8-bit RGBA, whatever the frame's byte order) or a `__global` buffer named `dst`
 * with `dst_stride` (int, bytes per row). The element fills `width`, `height` (int), `time`
 * (float: seconds of stream time) and `frame` (int: the frame's offset) where the kernel has
 * them; every other argument takes the field of the same name of `parameters`, whose numeric
 * fields are also controllable child objects (`name::value=`). Size and framerate are
 * negotiated (1280x720 at 30/1 unless downstream asks otherwise); with `is-live` frames come at
 * the pace of the clock. For NV12, I420, P010_10LE, GRAY8, GRAY16_LE and RGBA64_LE output the
 * kernel still writes an RGBA frame, which the element then converts on the device (as
 * openclconvertscale converts, with the negotiated colorimetry), so an encoder takes the frames
 * directly. Frames come in system or OpenCL memory, and in CUDA memory (memory:CUDAMemory,
 * copied on the device) where the device is NVIDIA's and downstream asks for it. Every property may change while playing, as for openclkernel (see
 * docs/openclkernel.md). For developing kernels, `checked=true` gives a `dst` kernel a copy of
 * the frame with guard zones around it, checked after every frame: a write outside the frame is
 * an error naming the kernel, and the frame is not pushed.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 openclkernelsrc location=pipelines/kernels/plasma.cl \
 *     parameters="p,speed=1.0" ! video/x-raw,width=640,height=360 ! videoconvert ! \
 *     autovideosink
 * gst-launch-1.0 openclkernelsrc is-live=true source="__kernel void ramp (__write_only \
 *     image2d_t out, int width, float time) { int2 p = (int2) (get_global_id (0), \
 *     get_global_id (1)); write_imagef (out, p, (float4) ((float) p.x / width, \
 *     fract (time), 0.5f, 1.0f)); }" ! glimagesink
 * ]|
 */
#include "elements/gstopenclkernelsrc.h"

#include "opencl/gstopenclproperties.h"
#include "opencl/gstopencluserkernel.h"
#include "opencl/gstopenclutils.h"

GST_DEBUG_CATEGORY_STATIC (gst_opencl_kernel_src_debug);
#define GST_CAT_DEFAULT gst_opencl_kernel_src_debug

#define FORMATS "RGBA, BGRA, RGBx, BGRx"

GST_OPENCL_DEFINE_USER_KERNEL_ELEMENT (GstOpenCLKernelSrc, gst_opencl_kernel_src, GstOpenCLSrc,
    GST_TYPE_OPENCL_SRC, gst_opencl::UserKernelImpl, openclkernelsrc, GST_TYPE_OPENCL_KERNEL_SRC);

static gboolean
gst_opencl_kernel_src_set_info (GstOpenCLSrc * src, gst_opencl::ElementDevice & device,
    const GstVideoInfo * info)
{
  return GST_OPENCL_GUARD (src, "cannot set up the kernel", [&]() {
    GST_OPENCL_KERNEL_SRC (src)->impl->host.prepare (GST_ELEMENT (src),
        device, nullptr, info);
  });
}

static gboolean
gst_opencl_kernel_src_render (GstOpenCLSrc * src, gst_opencl::ElementDevice & device,
    const GstOpenCLFrame * out, GstClockTime,
    GstClockTime stream_time)
{
  return GST_OPENCL_GUARD (src, "cannot run the kernel", [&]() {
    GST_OPENCL_KERNEL_SRC (src)->impl->host.run (GST_ELEMENT (src),
        device, nullptr, *out, stream_time,
        gst_opencl_src_frame_number (src));
  });
}

static void
gst_opencl_kernel_src_init (GstOpenCLKernelSrc * self)
{
  self->impl = new gst_opencl::UserKernelImpl (true);
  self->impl->host.attach (G_OBJECT (self));
}

static void
gst_opencl_kernel_src_class_init (GstOpenCLKernelSrcClass * klass)
{
  gst_opencl::element_class_setup<GstOpenCLKernelSrc> (klass, GST_CAT_DEFAULT, "openclkernelsrc",
      "OpenCL user kernel source");
  gst_opencl::UserKernelElement<GstOpenCLKernelSrc>::install (G_OBJECT_CLASS (klass), true);

  auto *src_class = GST_OPENCL_SRC_CLASS (klass);
  src_class->set_info = gst_opencl_kernel_src_set_info;
  src_class->render = gst_opencl_kernel_src_render;

  gst_element_class_set_static_metadata (GST_ELEMENT_CLASS (klass), "OpenCL kernel source",
      "Source/Video", "Renders every frame with a user's OpenCL kernel",
      "gst-opencl developers");
  gst_opencl_src_class_add_pad_template (src_class, FORMATS, TRUE);
}
