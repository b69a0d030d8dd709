/* gst-opencl: abstract base class for video filters that run OpenCL kernels.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Per frame: the input and output frames reach the device through the frame path (where they
 * are for OpenCL memory, GL interop for GL memory, a staging buffer for host frames), the
 * subclass enqueues its kernels, and the output trip finishes: nothing to do for OpenCL memory
 * (the next reader waits for the kernels), a texture write for GL, one download for a host
 * frame (the only wait). Programs come from the context's cache.
 *
 * Analysis elements (gst_opencl_filter_set_analysis ()) run in place instead, with the same caps
 * on both sides: process_ip () reads the frame where it is (OpenCL memory) or from one upload of
 * the host frame, which is read back only when the subclass drew into it; otherwise the frame
 * goes on untouched (passthrough, no copy). */
#include "opencl/gstopenclfilter.h"

#include <new>

#include "opencl/gstopenclframepath.h"
#include "opencl/gstopencllimits.h"
#include "opencl/gstopenclmemory.h"
#include "opencl/gstopenclutils.h"

#define GST_CAT_DEFAULT gst_opencl_debug

struct GstOpenCLFilterPrivate
{
  gst_opencl::FramePort in_port;   /* in place: both ways */
  gst_opencl::FramePort out_port;
};

G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE (GstOpenCLFilter, gst_opencl_filter,
    GST_TYPE_OPENCL_BASE_TRANSFORM);

static GstOpenCLFilterPrivate *
get_priv (GstOpenCLFilter * filter)
{
  return static_cast<GstOpenCLFilterPrivate *> (gst_opencl_filter_get_instance_private (filter));
}

static gst_opencl::ElementDevice &
element_device (GstOpenCLFilter * filter)
{
  return gst_opencl_base_transform_device (GST_OPENCL_BASE_TRANSFORM (filter));
}

static void
gst_opencl_filter_init (GstOpenCLFilter * filter)
{
  new (gst_opencl_filter_get_instance_private (filter)) GstOpenCLFilterPrivate ();
}

static void
gst_opencl_filter_finalize (GObject * object)
{
  get_priv (GST_OPENCL_FILTER (object))->~GstOpenCLFilterPrivate ();
  G_OBJECT_CLASS (gst_opencl_filter_parent_class)->finalize (object);
}

static gboolean
gst_opencl_filter_stop (GstBaseTransform * trans)
{
  auto *priv = get_priv (GST_OPENCL_FILTER (trans));
  priv->in_port.reset ();
  priv->out_port.reset ();
  return GST_BASE_TRANSFORM_CLASS (gst_opencl_filter_parent_class)->stop (trans);
}

static gboolean
gst_opencl_filter_set_caps (GstBaseTransform * trans, GstCaps * incaps, GstCaps * outcaps)
{
  auto *filter = GST_OPENCL_FILTER (trans);
  auto *priv = get_priv (filter);
  auto *klass = GST_OPENCL_FILTER_GET_CLASS (filter);
  auto & device = element_device (filter);

  GstVideoInfo in_info, out_info;
  if (!gst_video_info_from_caps (&in_info, incaps) ||
      !gst_video_info_from_caps (&out_info, outcaps)) {
    GST_ELEMENT_ERROR (trans, CORE, NEGOTIATION, ("invalid caps"),
        ("in %" GST_PTR_FORMAT ", out %" GST_PTR_FORMAT, incaps, outcaps));
    return FALSE;
  }
  const bool in_place = gst_base_transform_is_in_place (trans);
  priv->in_port.configure (&in_info, gst_opencl::GlBridge::caps_are_gl (incaps));
  priv->out_port.configure (&out_info, gst_opencl::GlBridge::caps_are_gl (outcaps));
  if (!GST_OPENCL_GUARD (trans, "cannot configure the filter", [&]() {
        if (!device.started ())
          throw gst_opencl::Failure (gst_opencl::Failure::Kind::NotFound, "no OpenCL device");
        gst_opencl::check_frame_fits (device.device (), &in_info);
        gst_opencl::check_frame_fits (device.device (), &out_info);
      }))
    return FALSE;
  if (!gst_opencl::configure_ports (GST_ELEMENT (trans), device,
          gst_opencl_base_transform_gl (GST_OPENCL_BASE_TRANSFORM (trans)), &priv->in_port,
          in_place ? &priv->in_port : &priv->out_port))
    return FALSE;
  GST_DEBUG_OBJECT (trans, "in %" GST_PTR_FORMAT ", out %" GST_PTR_FORMAT, incaps, outcaps);
  return klass->set_info ? klass->set_info (filter, &in_info, &out_info) : TRUE;
}

/* The base's rule (any memory in, any memory out, OpenCL memory preferred), but in place. */
static GstCaps *
gst_opencl_filter_transform_caps (GstBaseTransform * trans, GstPadDirection, GstCaps * caps,
    GstCaps * filter)
{
  /* In place (analysis), frames leave as they came: the same caps, memory included. */
  if (gst_base_transform_is_in_place (trans))
    return filter ? gst_caps_intersect_full (filter, caps, GST_CAPS_INTERSECT_FIRST) :
        gst_caps_ref (caps);
  return gst_opencl::transform_caps_any_memory (caps, filter);
}

static GstFlowReturn
gst_opencl_filter_transform (GstBaseTransform * trans, GstBuffer * inbuf, GstBuffer * outbuf)
{
  auto *filter = GST_OPENCL_FILTER (trans);
  auto *priv = get_priv (filter);
  auto *klass = GST_OPENCL_FILTER_GET_CLASS (filter);
  auto & device = element_device (filter);

  gboolean processed = FALSE;
  gboolean ok = GST_OPENCL_GUARD (trans, "frame processing failed", [&]() {
    try {
      gst_opencl::FrameTrip in (device, priv->in_port, inbuf, gst_opencl::FrameAccess::Read);
      gst_opencl::FrameTrip out (device, priv->out_port, outbuf,
          gst_opencl::FrameAccess::Write);
      processed = klass->process (filter, &in.frame (), &out.frame ());
      if (!processed) {
        device.discard_frame ();
        return;
      }
      in.finish (false);
      const bool waited = out.finish (true);
      if (waited)
        priv->in_port.release_uploaded (false);
      device.end_frame (waited);
    } catch (...) {
      device.discard_frame ();
      throw;
    }
  });
  return ok && processed ? GST_FLOW_OK : GST_FLOW_ERROR;
}

/* In-place (analysis) mode: let the subclass read (and, when it may, write) the frame on the
 * device; a host frame is read back only when the subclass drew into it. The host waits once
 * either way: the subclass's results (read back without blocking) are complete on return. */
static GstFlowReturn
gst_opencl_filter_transform_ip (GstBaseTransform * trans, GstBuffer * buffer)
{
  auto *filter = GST_OPENCL_FILTER (trans);
  auto *priv = get_priv (filter);
  auto *klass = GST_OPENCL_FILTER_GET_CLASS (filter);
  auto & device = element_device (filter);
  if (!klass->process_ip) {
    GST_ELEMENT_ERROR (trans, CORE, NOT_IMPLEMENTED, ("no in-place processing"),
        ("%s has no process_ip", G_OBJECT_TYPE_NAME (trans)));
    return GST_FLOW_ERROR;
  }

  /* In passthrough the buffer is shared with upstream and must not be touched. */
  const bool writable = !gst_base_transform_is_passthrough (trans) &&
      gst_buffer_is_writable (buffer);
  gboolean processed = FALSE;
  gboolean ok = GST_OPENCL_GUARD (trans, "frame analysis failed", [&]() {
    try {
      gst_opencl::FrameTrip frame (device, priv->in_port, buffer, writable ?
          gst_opencl::FrameAccess::ReadWrite : gst_opencl::FrameAccess::Read);
      gboolean written = FALSE;
      processed = klass->process_ip (filter, &frame.frame (), writable, &written);
      if (!processed) {
        device.discard_frame ();
        return;
      }
      if (!frame.finish (written && writable))
        device.device ().queue.finish ();
      /* The upload is complete: the frame goes on without a reference of ours. */
      priv->in_port.release_uploaded (false);
      device.finish_frame ();
    } catch (...) {
      device.discard_frame ();
      throw;
    }
  });
  return ok && processed ? GST_FLOW_OK : GST_FLOW_ERROR;
}

static void
gst_opencl_filter_class_init (GstOpenCLFilterClass * klass)
{
  auto *gobject_class = G_OBJECT_CLASS (klass);
  auto *trans_class = GST_BASE_TRANSFORM_CLASS (klass);

  gobject_class->finalize = gst_opencl_filter_finalize;
  trans_class->stop = gst_opencl_filter_stop;
  trans_class->set_caps = gst_opencl_filter_set_caps;
  trans_class->transform = gst_opencl_filter_transform;
  /* Used only by elements that call gst_opencl_filter_set_analysis (). */
  trans_class->transform_ip = gst_opencl_filter_transform_ip;
  trans_class->transform_caps = gst_opencl_filter_transform_caps;

  gst_type_mark_as_plugin_api (GST_TYPE_OPENCL_FILTER, (GstPluginAPIFlags) 0);
}

void
gst_opencl_filter_class_add_pad_templates (GstOpenCLFilterClass * klass, const gchar * formats,
    gboolean gl_rgba)
{
  gst_opencl::add_video_pad_templates (GST_ELEMENT_CLASS (klass), formats, gl_rgba);
}

void
gst_opencl_filter_set_analysis (GstOpenCLFilter * filter, gboolean writes_frames)
{
  auto *trans = GST_BASE_TRANSFORM (filter);
  gst_base_transform_set_in_place (trans, TRUE);
  gst_base_transform_set_passthrough (trans, !writes_frames);
}

gst_opencl::Device &
gst_opencl_filter_device (GstOpenCLFilter * filter)
{
  return element_device (filter).device ();
}

void
gst_opencl_filter_launch (GstOpenCLFilter * filter, const cl::Kernel & kernel,
    const cl::NDRange & global, const cl::NDRange & local)
{
  element_device (filter).launch (kernel, global, local);
}
