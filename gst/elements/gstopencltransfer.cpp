/* gst-opencl: openclupload and opencldownload, frames into OpenCL memory and back.
 * SPDX-License-Identifier: LGPL-2.1-or-later */

/**
 * SECTION:element-openclupload
 * @title: openclupload
 *
 * Puts video frames from system memory into OpenCL memory (caps feature
 * `memory:OpenCLMemory`), so the OpenCL elements after it work on frames that stay on the device.
 * Output buffers come from a pool: nothing is allocated per frame. The frame is copied into the
 * memory's host staging area and uploaded asynchronously, ordered by the device's in-order queue
 * before the first kernel that reads it; the element never waits on the device.
 * When downstream takes system memory, the element passes buffers through.
 *
 * RGBA frames in GL memory (`memory:GLMemory`) are taken too: their textures reach the device by
 * the best path the drivers allow (the `gl-interop` property says which; see docs/memory.md),
 * without the host where OpenCL and GL can share memory.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 videotestsrc ! video/x-raw,format=RGBA ! openclupload ! opencldownload ! \
 *     videoconvert ! autovideosink
 * gst-launch-1.0 gltestsrc ! openclupload ! openclbilateral ! opencldownload ! glimagesink
 * ]|
 */

/**
 * SECTION:element-opencldownload
 * @title: opencldownload
 *
 * Copies video frames in OpenCL memory back into system memory, one rectangular read per plane
 * straight into the output frame. The read of the last plane is the one wait for the device.
 * When downstream takes OpenCL memory, the element passes buffers through. RGBA frames can also
 * leave in GL memory (textures written by the best path the drivers allow, as `gl-interop`
 * reports).
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 videotestsrc ! openclupload ! opencldownload ! fakesink
 * ]|
 */
#include "elements/gstopencltransfer.h"

#include <gst/video/video.h>

#include "opencl/gstopenclcuda.h"
#include "opencl/gstopenclframepath.h"
#include "opencl/gstopencllimits.h"
#include "opencl/gstopenclmemory.h"
#include "opencl/gstopenclutils.h"

GST_DEBUG_CATEGORY_STATIC (gst_opencl_transfer_debug);
#define GST_CAT_DEFAULT gst_opencl_transfer_debug

using gst_opencl::device_of;
using gst_opencl::port_of;
using gst_opencl::with_memory_feature;

/* Every format an element of the plugin reads or writes. */
#define TRANSFER_FORMATS "{ RGBA, BGRA, RGBx, BGRx, ARGB, ABGR, xRGB, xBGR, GRAY8, I420, NV12, " \
    "P010_10LE, GRAY16_LE, RGBA64_LE }"

G_DEFINE_ABSTRACT_TYPE (GstOpenCLTransfer, gst_opencl_transfer, GST_TYPE_OPENCL_BASE_TRANSFORM);

static gboolean
to_device (GstOpenCLTransfer * self)
{
  return GST_OPENCL_TRANSFER_GET_CLASS (self)->to_device;
}

static void
gst_opencl_transfer_init (GstOpenCLTransfer *)
{
}

/* The same caps in GL memory, where they can be: RGBA 2D textures. */
static GstCaps *
in_gl_memory (GstCaps * caps)
{
  GstCaps *result = gst_caps_new_empty ();
#ifdef HAVE_GL
  GstCaps *gl = gst_caps_from_string ("video/x-raw(" GST_CAPS_FEATURE_MEMORY_GL_MEMORY "), "
      "format=(string)RGBA, texture-target=(string)2D");
  for (guint i = 0; i < gst_caps_get_size (caps); i++) {
    GstStructure *structure = gst_structure_copy (gst_caps_get_structure (caps, i));
    gst_structure_remove_field (structure, "texture-target");
    GstCaps *one = gst_caps_new_full (structure, nullptr);
    gst_caps_set_features (one, 0, gst_caps_features_new (GST_CAPS_FEATURE_MEMORY_GL_MEMORY,
            nullptr));
    GstCaps *both = gst_caps_intersect (one, gl);
    result = gst_caps_merge (result, both);
    gst_caps_unref (one);
  }
  gst_caps_unref (gl);
#else
  (void) caps;
#endif
  return result;
}

static GstCaps *
gst_opencl_transfer_transform_caps (GstBaseTransform * trans, GstPadDirection direction,
    GstCaps * caps, GstCaps * filter)
{
  /* An upload produces OpenCL memory and a download system or GL memory; either takes the
   * memory it produces too (passed through), and an upload takes GL memory. */
  const bool uploads = to_device (GST_OPENCL_TRANSFER (trans));
  const bool towards_device_side = (direction == GST_PAD_SINK) == uploads;
  GstCaps *result;
  if (towards_device_side) {
    result = with_memory_feature (caps, GST_CAPS_FEATURE_MEMORY_OPENCL);
  } else {
    result = with_memory_feature (caps, GST_CAPS_FEATURE_MEMORY_SYSTEM_MEMORY);
    result = gst_caps_merge (result, in_gl_memory (caps));
    /* CUDA memory where the device reaches it (nvh264dec, cudaupload, cudadownload). */
    if (gst_opencl_base_transform_cuda_negotiable (GST_OPENCL_BASE_TRANSFORM (trans)))
      result = gst_caps_merge (result, with_memory_feature (caps,
              GST_OPENCL_CAPS_FEATURE_MEMORY_CUDA));
    result = gst_caps_merge (result, with_memory_feature (caps,
            GST_CAPS_FEATURE_MEMORY_OPENCL));
  }
  if (filter) {
    GstCaps *filtered = gst_caps_intersect_full (filter, result, GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref (result);
    result = filtered;
  }
  return result;
}

static gboolean
gst_opencl_transfer_set_caps (GstBaseTransform * trans, GstCaps * incaps, GstCaps * outcaps)
{
  gst_base_transform_set_passthrough (trans, gst_caps_is_equal (incaps, outcaps));
  GstVideoInfo in_info, out_info;
  return gst_opencl_base_transform_configure_ports (GST_OPENCL_BASE_TRANSFORM (trans), incaps,
      outcaps, &in_info, &out_info);
}

/* Upload: the frame is copied into the output's OpenCL memory, on the device from GL or OpenCL
 * memory, else from the host frame (which the frame path keeps until the copy is done). */
static void
upload (GstOpenCLTransfer * self, GstBuffer * inbuf, GstBuffer * outbuf)
{
  auto & device = device_of (self);
  gst_opencl::DeviceFrameView view;
  if (!gst_opencl::buffer_device_frame (outbuf, device.context (), true, &view))
    throw gst_opencl::Failure (gst_opencl::Failure::Kind::Failed,
        "an output buffer under OpenCL-memory caps is not OpenCL memory of this element");
  gst_opencl::copy_frame_in (device, port_of (self, GST_PAD_SINK), inbuf,
      GstOpenCLFrame { view.buffer, view.info });
  gst_opencl::opencl_memory_written (gst_buffer_peek_memory (outbuf, 0));
}

/* Download: the frame goes into the output buffer, on the device for GL memory, else one read
 * per plane into the host frame. A frame that is not OpenCL memory of this element's context
 * (a mixed chain) is copied through host maps. */
static void
download (GstOpenCLTransfer * self, GstBuffer * inbuf, GstBuffer * outbuf)
{
  auto & device = device_of (self);
  gst_opencl::DeviceFrameView view;
  if (gst_opencl::buffer_device_frame (inbuf, device.context (), false, &view))
    gst_opencl::copy_frame_out (device, port_of (self, GST_PAD_SRC),
        GstOpenCLFrame { view.buffer, view.info }, outbuf);
  else
    gst_opencl::copy_frame_on_host (port_of (self, GST_PAD_SINK), inbuf,
        port_of (self, GST_PAD_SRC), outbuf);
}

static GstFlowReturn
gst_opencl_transfer_transform (GstBaseTransform * trans, GstBuffer * inbuf, GstBuffer * outbuf)
{
  auto *self = GST_OPENCL_TRANSFER (trans);
  gboolean ok = GST_OPENCL_GUARD (trans, to_device (self) ? "upload failed" : "download failed",
      [&]() {
        if (to_device (self))
          upload (self, inbuf, outbuf);
        else
          download (self, inbuf, outbuf);
      });
  return ok ? GST_FLOW_OK : GST_FLOW_ERROR;
}

static void
gst_opencl_transfer_class_init (GstOpenCLTransferClass * klass)
{
  auto *trans_class = GST_BASE_TRANSFORM_CLASS (klass);

  GST_DEBUG_CATEGORY_INIT (gst_opencl_transfer_debug, "opencltransfer", 0,
      "OpenCL upload and download");

  /* The copy is the element's job: system memory stays system memory. */
  GST_OPENCL_BASE_TRANSFORM_CLASS (klass)->host_frames_on_device = FALSE;
  trans_class->passthrough_on_same_caps = TRUE;
  /* GstBaseTransform's fixation: an upload or download offered OpenCL memory downstream does
   * not prefer it (that would make it pass frames through). */
  gst_opencl_base_transform_class_keep_caps (GST_OPENCL_BASE_TRANSFORM_CLASS (klass));
  trans_class->transform_caps = gst_opencl_transfer_transform_caps;
  trans_class->set_caps = gst_opencl_transfer_set_caps;
  trans_class->transform = gst_opencl_transfer_transform;

  gst_type_mark_as_plugin_api (GST_TYPE_OPENCL_TRANSFER, (GstPluginAPIFlags) 0);
}

/* Pad templates: system (or GL) memory on one side, OpenCL memory on the other, and either
 * passes through when both sides agree. */
static void
add_transfer_templates (GstElementClass * element_class, bool to_device)
{
  GstCaps *system = gst_caps_from_string ("video/x-raw, format=(string)" TRANSFER_FORMATS);
  GstCaps *opencl = gst_caps_from_string ("video/x-raw(" GST_CAPS_FEATURE_MEMORY_OPENCL "), "
      "format=(string)" TRANSFER_FORMATS);
  GstCaps *host_side = gst_caps_merge (gst_caps_ref (system), in_gl_memory (system));
  host_side = gst_caps_merge (host_side, with_memory_feature (system,
          GST_OPENCL_CAPS_FEATURE_MEMORY_CUDA));
  GstCaps *sink = gst_caps_merge (gst_caps_ref (to_device ? host_side : opencl),
      gst_caps_ref (to_device ? opencl : host_side));
  GstCaps *src = gst_caps_merge (gst_caps_ref (to_device ? opencl : host_side),
      gst_caps_ref (to_device ? host_side : opencl));
  gst_caps_unref (host_side);
  gst_element_class_add_pad_template (element_class,
      gst_pad_template_new ("sink", GST_PAD_SINK, GST_PAD_ALWAYS, sink));
  gst_element_class_add_pad_template (element_class,
      gst_pad_template_new ("src", GST_PAD_SRC, GST_PAD_ALWAYS, src));
  gst_caps_unref (sink);
  gst_caps_unref (src);
  gst_caps_unref (system);
  gst_caps_unref (opencl);
}

/* An upload or a download: a GstOpenCLTransfer that copies to the device when `uploads`, else back, with its pad
 * templates and metadata. */
#define DEFINE_TRANSFER(TypeName, type_name, factory, type, uploads, long_name, description) \
  struct _##TypeName \
  { \
    GstOpenCLTransfer parent; \
  }; \
  G_DEFINE_TYPE (TypeName, type_name, GST_TYPE_OPENCL_TRANSFER); \
  GST_ELEMENT_REGISTER_DEFINE (factory, #factory, GST_RANK_NONE, type); \
  static void \
  type_name##_class_init (TypeName##Class * klass) \
  { \
    GST_OPENCL_TRANSFER_CLASS (klass)->to_device = uploads; \
    add_transfer_templates (GST_ELEMENT_CLASS (klass), uploads); \
    gst_element_class_set_static_metadata (GST_ELEMENT_CLASS (klass), long_name, \
        "Filter/Video", description, "gst-opencl developers"); \
  } \
  static void \
  type_name##_init (TypeName *) \
  { \
  }

DEFINE_TRANSFER (GstOpenCLUpload, gst_opencl_upload, openclupload, GST_TYPE_OPENCL_UPLOAD, TRUE,
    "OpenCL upload", "Puts video frames into OpenCL device memory");
DEFINE_TRANSFER (GstOpenCLDownload, gst_opencl_download, opencldownload,
    GST_TYPE_OPENCL_DOWNLOAD, FALSE, "OpenCL download",
    "Copies video frames from OpenCL device memory to system memory");
