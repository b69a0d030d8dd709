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

#include "opencl/gstopenclelement.h"
#include "opencl/gstopenclframe.h"
#include "opencl/gstopenclgl.h"
#include "opencl/gstopenclglinterop.h"
#include "opencl/gstopencllimits.h"
#include "opencl/gstopenclmemory.h"
#include "opencl/gstopenclutils.h"

GST_DEBUG_CATEGORY_STATIC (gst_opencl_transfer_debug);
#define GST_CAT_DEFAULT gst_opencl_transfer_debug

/* Every format an element of the plugin reads or writes. */
#define TRANSFER_FORMATS "{ RGBA, BGRA, RGBx, BGRx, GRAY8, I420, NV12 }"

enum
{
  PROP_0,
  PROP_DEVICE_FIRST,
};

struct GstOpenCLTransferPrivate
{
  gst_opencl::ElementDevice device;
  GstVideoInfo in_info {};
  GstVideoInfo out_info {};
  bool in_gl = false;
  bool out_gl = false;
  gst_opencl::GlBridge gl;
  gst_opencl::GlInterop interop;  /* the GL side, when one side is GL memory */
};

G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE (GstOpenCLTransfer, gst_opencl_transfer,
    GST_TYPE_BASE_TRANSFORM);

static GstOpenCLTransferPrivate *
get_priv (GstOpenCLTransfer * self)
{
  return static_cast<GstOpenCLTransferPrivate *> (
      gst_opencl_transfer_get_instance_private (self));
}

static gboolean
to_device (GstOpenCLTransfer * self)
{
  return GST_OPENCL_TRANSFER_GET_CLASS (self)->to_device;
}

static void
gst_opencl_transfer_init (GstOpenCLTransfer * self)
{
  new (gst_opencl_transfer_get_instance_private (self)) GstOpenCLTransferPrivate ();
}

static void
gst_opencl_transfer_finalize (GObject * object)
{
  get_priv (GST_OPENCL_TRANSFER (object))->~GstOpenCLTransferPrivate ();
  G_OBJECT_CLASS (gst_opencl_transfer_parent_class)->finalize (object);
}

static void
gst_opencl_transfer_set_property (GObject * object, guint prop_id, const GValue * value,
    GParamSpec * pspec)
{
  if (!get_priv (GST_OPENCL_TRANSFER (object))->device.set_property (PROP_DEVICE_FIRST, prop_id,
          value))
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
}

static void
gst_opencl_transfer_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  if (!get_priv (GST_OPENCL_TRANSFER (object))->device.get_property (GST_ELEMENT (object),
          PROP_DEVICE_FIRST, prop_id, value))
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
}

static void
gst_opencl_transfer_set_context (GstElement * element, GstContext * context)
{
  get_priv (GST_OPENCL_TRANSFER (element))->device.set_context (element, context);
  get_priv (GST_OPENCL_TRANSFER (element))->gl.set_context (element, context);
  GST_ELEMENT_CLASS (gst_opencl_transfer_parent_class)->set_context (element, context);
}

static gboolean
gst_opencl_transfer_query (GstBaseTransform * trans, GstPadDirection direction,
    GstQuery * query)
{
  auto *priv = get_priv (GST_OPENCL_TRANSFER (trans));
  if (GST_QUERY_TYPE (query) == GST_QUERY_CONTEXT &&
      (priv->device.handle_context_query (GST_ELEMENT (trans), query) ||
          priv->gl.handle_context_query (GST_ELEMENT (trans), query)))
    return TRUE;
  return GST_BASE_TRANSFORM_CLASS (gst_opencl_transfer_parent_class)->query (trans, direction,
      query);
}

static gboolean
gst_opencl_transfer_start (GstBaseTransform * trans)
{
  auto *priv = get_priv (GST_OPENCL_TRANSFER (trans));
  return GST_OPENCL_GUARD (trans, "cannot open the OpenCL device", [&]() {
    priv->device.start (GST_ELEMENT (trans));
  });
}

static gboolean
gst_opencl_transfer_stop (GstBaseTransform * trans)
{
  auto *priv = get_priv (GST_OPENCL_TRANSFER (trans));
  priv->interop.reset ();
  priv->gl.reset ();
  priv->device.stop (GST_ELEMENT (trans));
  return TRUE;
}

/* The caps with every structure's memory feature replaced: OpenCL memory or system memory. */
static GstCaps *
with_memory_feature (GstCaps * caps, bool opencl)
{
  GstCaps *result = gst_caps_copy (caps);
  for (guint i = 0; i < gst_caps_get_size (result); i++) {
    gst_caps_set_features (result, i, gst_caps_features_new (opencl ?
            GST_CAPS_FEATURE_MEMORY_OPENCL : GST_CAPS_FEATURE_MEMORY_SYSTEM_MEMORY, nullptr));
  }
  return result;
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
    result = with_memory_feature (caps, true);
  } else {
    result = with_memory_feature (caps, false);
    result = gst_caps_merge (result, in_gl_memory (caps));
    result = gst_caps_merge (result, with_memory_feature (caps, true));
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
  auto *priv = get_priv (GST_OPENCL_TRANSFER (trans));
  if (!gst_video_info_from_caps (&priv->in_info, incaps) ||
      !gst_video_info_from_caps (&priv->out_info, outcaps)) {
    GST_ELEMENT_ERROR (trans, CORE, NEGOTIATION, ("invalid caps"),
        ("in %" GST_PTR_FORMAT ", out %" GST_PTR_FORMAT, incaps, outcaps));
    return FALSE;
  }
  /* A frame the device cannot hold is refused here, with its size, not later by a pool. */
  if (!GST_OPENCL_GUARD (trans, "cannot configure the transfer", [&]() {
        gst_opencl::check_frame_fits (priv->device.device (), &priv->in_info);
      }))
    return FALSE;
  gst_base_transform_set_passthrough (trans, gst_caps_is_equal (incaps, outcaps));
  priv->in_gl = gst_opencl::GlBridge::caps_are_gl (incaps);
  priv->out_gl = gst_opencl::GlBridge::caps_are_gl (outcaps);
  priv->interop.reset ();
  bool context_changed = false;
  return gst_opencl::configure_gl_interop (GST_ELEMENT (trans), priv->device, priv->gl,
      priv->in_gl ? &priv->interop : nullptr, &priv->in_info,
      priv->out_gl ? &priv->interop : nullptr, &priv->out_info, &context_changed);
}

static gboolean
gst_opencl_transfer_propose_allocation (GstBaseTransform * trans, GstQuery * decide_query,
    GstQuery * query)
{
  if (!GST_BASE_TRANSFORM_CLASS (gst_opencl_transfer_parent_class)->propose_allocation (trans,
          decide_query, query))
    return FALSE;
  gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, nullptr);
  return TRUE;
}

/* Output buffers in OpenCL memory come from a pool of the element's context. */
static gboolean
gst_opencl_transfer_decide_allocation (GstBaseTransform * trans, GstQuery * query)
{
  auto *priv = get_priv (GST_OPENCL_TRANSFER (trans));
  GstCaps *caps = nullptr;
  gst_query_parse_allocation (query, &caps, nullptr);
  if (caps && gst_opencl::GlBridge::caps_are_gl (caps) &&
      !priv->gl.decide_allocation (GST_ELEMENT (trans), query))
    return FALSE;
  if (!caps || !gst_opencl::caps_are_opencl_memory (caps))
    return GST_BASE_TRANSFORM_CLASS (gst_opencl_transfer_parent_class)->decide_allocation (trans,
        query);

  gboolean ok = FALSE;
  GST_OPENCL_GUARD (trans, "cannot create an OpenCL buffer pool", [&]() {
    ok = gst_opencl::decide_opencl_pool (GST_ELEMENT (trans), query, priv->device.context ());
  });
  if (!ok)
    return FALSE;
  return GST_BASE_TRANSFORM_CLASS (gst_opencl_transfer_parent_class)->decide_allocation (trans,
      query);
}

/* Enqueues the copy of one RGBA plane between device buffers with their own strides. */
static void
copy_plane (cl::CommandQueue & queue, const GstOpenCLFrame & from, const GstOpenCLFrame & to)
{
  const size_t row_bytes = (size_t) GST_VIDEO_INFO_WIDTH (&from.info) * 4;
  cl::array<size_t, 3> from_origin { (size_t) GST_VIDEO_INFO_PLANE_OFFSET (&from.info, 0), 0, 0 };
  cl::array<size_t, 3> to_origin { (size_t) GST_VIDEO_INFO_PLANE_OFFSET (&to.info, 0), 0, 0 };
  cl::array<size_t, 3> region { row_bytes, (size_t) GST_VIDEO_INFO_HEIGHT (&from.info), 1 };
  queue.enqueueCopyBufferRect (from.buffer, to.buffer, from_origin, to_origin, region,
      (size_t) GST_VIDEO_INFO_PLANE_STRIDE (&from.info, 0), 0,
      (size_t) GST_VIDEO_INFO_PLANE_STRIDE (&to.info, 0), 0);
}

/* GL texture to OpenCL memory on the device, when the interop path allows; false otherwise. */
static bool
upload_from_gl (GstOpenCLTransferPrivate * priv, GstBuffer * inbuf, GstBuffer * outbuf)
{
  GstOpenCLFrame texture;
  if (!priv->in_gl || !priv->interop.to_device (inbuf, &texture))
    return false;
  gst_opencl::DeviceFrameView view;
  if (!gst_opencl::buffer_device_frame (outbuf, priv->device.context (), true, &view)) {
    priv->interop.end_frame ();
    return false;
  }
  auto & queue = priv->device.device ().queue;
  copy_plane (queue, texture, GstOpenCLFrame { view.buffer, view.info });
  priv->interop.end_frame ();
  return true;
}

/* OpenCL memory to a GL texture on the device, when the interop path allows; false otherwise. */
static bool
download_to_gl (GstOpenCLTransferPrivate * priv, GstBuffer * inbuf, GstBuffer * outbuf)
{
  if (!priv->out_gl)
    return false;
  GstMemory *memory = gst_opencl::sole_memory (inbuf);
  gst_opencl::DeviceFrameView view;
  if (!memory || !gst_is_opencl_memory (memory) ||
      gst_opencl::opencl_memory_context (memory) != priv->device.context () ||
      !gst_opencl::buffer_device_frame (inbuf, priv->device.context (), false, &view))
    return false;
  GstOpenCLFrame texture;
  if (!priv->interop.device_frame (outbuf, &texture))
    return false;
  copy_plane (priv->device.device ().queue, GstOpenCLFrame { view.buffer, view.info }, texture);
  priv->interop.to_texture (outbuf);
  return true;
}

/* Upload: the frame goes into the memory's staging copy; the device copy follows on the queue
 * when a kernel first needs it. A GL frame is mapped on the host (downloaded) unless the
 * interop path copies it on the device. */
static void
upload (GstOpenCLTransferPrivate * priv, GstBuffer * inbuf, GstBuffer * outbuf)
{
  if (upload_from_gl (priv, inbuf, outbuf))
    return;
  GstVideoFrame in_frame, out_frame;
  if (!gst_video_frame_map (&in_frame, &priv->in_info, inbuf, GST_MAP_READ))
    throw gst_opencl::Failure (gst_opencl::Failure::Kind::Failed, "cannot map the input frame");
  if (!gst_video_frame_map (&out_frame, &priv->out_info, outbuf, GST_MAP_WRITE)) {
    gst_video_frame_unmap (&in_frame);
    throw gst_opencl::Failure (gst_opencl::Failure::Kind::Failed,
        "cannot map the output frame");
  }
  gboolean copied = gst_video_frame_copy (&out_frame, &in_frame);
  gst_video_frame_unmap (&out_frame);
  gst_video_frame_unmap (&in_frame);
  if (!copied)
    throw gst_opencl::Failure (gst_opencl::Failure::Kind::Failed, "cannot copy the frame");
}

/* Download: one rectangular read per plane from the device straight into the output frame (a
 * GL frame mapped on the host, unless the interop path writes its texture on the device). */
static void
download (GstOpenCLTransferPrivate * priv, GstBuffer * inbuf, GstBuffer * outbuf)
{
  if (download_to_gl (priv, inbuf, outbuf))
    return;
  GstMemory *memory = gst_opencl::sole_memory (inbuf);
  GstVideoFrame out_frame;
  if (!gst_video_frame_map (&out_frame, &priv->out_info, outbuf, GST_MAP_WRITE))
    throw gst_opencl::Failure (gst_opencl::Failure::Kind::Failed,
        "cannot map the output frame");
  try {
    gst_opencl::DeviceFrameView view;
    GstOpenCLContext *context = memory && gst_is_opencl_memory (memory) ?
        gst_opencl::opencl_memory_context (memory) : nullptr;
    if (context && gst_opencl::buffer_device_frame (inbuf, context, false, &view)) {
      auto & queue = gst_opencl_context_device (context).queue;
      gst_opencl::copy_frame_from_device (queue, view.buffer, &view.info, &out_frame, true);
    } else {
      /* Not device memory after all (a mixed chain): copy on the host. */
      GstVideoFrame in_frame;
      if (!gst_video_frame_map (&in_frame, &priv->in_info, inbuf, GST_MAP_READ))
        throw gst_opencl::Failure (gst_opencl::Failure::Kind::Failed,
            "cannot map the input frame");
      gst_video_frame_copy (&out_frame, &in_frame);
      gst_video_frame_unmap (&in_frame);
    }
  } catch (...) {
    gst_video_frame_unmap (&out_frame);
    throw;
  }
  gst_video_frame_unmap (&out_frame);
}

static GstFlowReturn
gst_opencl_transfer_transform (GstBaseTransform * trans, GstBuffer * inbuf, GstBuffer * outbuf)
{
  auto *self = GST_OPENCL_TRANSFER (trans);
  auto *priv = get_priv (self);
  gboolean ok = GST_OPENCL_GUARD (trans, to_device (self) ? "upload failed" : "download failed",
      [&]() {
        if (to_device (self))
          upload (priv, inbuf, outbuf);
        else
          download (priv, inbuf, outbuf);
      });
  return ok ? GST_FLOW_OK : GST_FLOW_ERROR;
}

static gboolean
gst_opencl_transfer_transform_size (GstBaseTransform *, GstPadDirection, GstCaps *, gsize,
    GstCaps * othercaps, gsize * othersize)
{
  GstVideoInfo info;
  if (!gst_video_info_from_caps (&info, othercaps))
    return FALSE;
  *othersize = info.size;
  return TRUE;
}

static void
gst_opencl_transfer_class_init (GstOpenCLTransferClass * klass)
{
  auto *gobject_class = G_OBJECT_CLASS (klass);
  auto *element_class = GST_ELEMENT_CLASS (klass);
  auto *trans_class = GST_BASE_TRANSFORM_CLASS (klass);

  GST_DEBUG_CATEGORY_INIT (gst_opencl_transfer_debug, "opencltransfer", 0,
      "OpenCL upload and download");

  gobject_class->finalize = gst_opencl_transfer_finalize;
  gobject_class->set_property = gst_opencl_transfer_set_property;
  gobject_class->get_property = gst_opencl_transfer_get_property;
  gst_opencl::ElementDevice::install_properties (gobject_class, PROP_DEVICE_FIRST);

  element_class->set_context = gst_opencl_transfer_set_context;

  trans_class->passthrough_on_same_caps = TRUE;
  trans_class->start = gst_opencl_transfer_start;
  trans_class->stop = gst_opencl_transfer_stop;
  trans_class->query = gst_opencl_transfer_query;
  trans_class->transform_caps = gst_opencl_transfer_transform_caps;
  trans_class->set_caps = gst_opencl_transfer_set_caps;
  trans_class->propose_allocation = gst_opencl_transfer_propose_allocation;
  trans_class->decide_allocation = gst_opencl_transfer_decide_allocation;
  trans_class->transform = gst_opencl_transfer_transform;
  trans_class->transform_size = gst_opencl_transfer_transform_size;

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

struct _GstOpenCLUpload
{
  GstOpenCLTransfer parent;
};

G_DEFINE_TYPE (GstOpenCLUpload, gst_opencl_upload, GST_TYPE_OPENCL_TRANSFER);
GST_ELEMENT_REGISTER_DEFINE (openclupload, "openclupload", GST_RANK_NONE,
    GST_TYPE_OPENCL_UPLOAD);

static void
gst_opencl_upload_class_init (GstOpenCLUploadClass * klass)
{
  GST_OPENCL_TRANSFER_CLASS (klass)->to_device = TRUE;
  add_transfer_templates (GST_ELEMENT_CLASS (klass), true);
  gst_element_class_set_static_metadata (GST_ELEMENT_CLASS (klass), "OpenCL upload",
      "Filter/Video", "Puts video frames into OpenCL device memory", "gst-opencl developers");
}

static void
gst_opencl_upload_init (GstOpenCLUpload *)
{
}

struct _GstOpenCLDownload
{
  GstOpenCLTransfer parent;
};

G_DEFINE_TYPE (GstOpenCLDownload, gst_opencl_download, GST_TYPE_OPENCL_TRANSFER);
GST_ELEMENT_REGISTER_DEFINE (opencldownload, "opencldownload", GST_RANK_NONE,
    GST_TYPE_OPENCL_DOWNLOAD);

static void
gst_opencl_download_class_init (GstOpenCLDownloadClass * klass)
{
  GST_OPENCL_TRANSFER_CLASS (klass)->to_device = FALSE;
  add_transfer_templates (GST_ELEMENT_CLASS (klass), false);
  gst_element_class_set_static_metadata (GST_ELEMENT_CLASS (klass), "OpenCL download",
      "Filter/Video", "Copies video frames from OpenCL device memory to system memory",
      "gst-opencl developers");
}

static void
gst_opencl_download_init (GstOpenCLDownload *)
{
}
