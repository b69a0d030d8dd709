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


#include "opencl/gstopenclframepath.h"
#include "opencl/gstopencllimits.h"
#include "opencl/gstopenclmemory.h"
#include "opencl/gstopenclutils.h"

#define GST_CAT_DEFAULT gst_opencl_debug

using gst_opencl::device_of;
using gst_opencl::port_of;

G_DEFINE_ABSTRACT_TYPE (GstOpenCLFilter, gst_opencl_filter, GST_TYPE_OPENCL_BASE_TRANSFORM);

static void
gst_opencl_filter_init (GstOpenCLFilter *)
{
}

static gboolean
gst_opencl_filter_set_caps (GstBaseTransform * trans, GstCaps * incaps, GstCaps * outcaps)
{
  auto *filter = GST_OPENCL_FILTER (trans);
  auto *klass = GST_OPENCL_FILTER_GET_CLASS (filter);
  GstVideoInfo in_info, out_info;
  if (!gst_opencl_base_transform_configure_ports (GST_OPENCL_BASE_TRANSFORM (trans), incaps,
          outcaps, &in_info, &out_info))
    return FALSE;
  return klass->set_info ? klass->set_info (filter, device_of (filter), &in_info, &out_info) :
      TRUE;
}

/* The base's rule (any memory in, any memory out, OpenCL memory preferred), but in place. */
static GstCaps *
gst_opencl_filter_transform_caps (GstBaseTransform * trans, GstPadDirection, GstCaps * caps,
    GstCaps * filter)
{
  /* In place (analysis), frames leave as they came: the same caps, memory included. */
  const bool cuda = gst_opencl_base_transform_cuda_negotiable (GST_OPENCL_BASE_TRANSFORM (trans));
  if (gst_base_transform_is_in_place (trans)) {
    GstCaps *same = filter ? gst_caps_intersect_full (filter, caps, GST_CAPS_INTERSECT_FIRST) :
        gst_caps_ref (caps);
    return cuda ? same : gst_opencl::without_cuda_memory (same);
  }
  return gst_opencl::transform_caps_any_memory (caps, filter, cuda);
}

static GstFlowReturn
gst_opencl_filter_transform (GstBaseTransform * trans, GstBuffer * inbuf, GstBuffer * outbuf)
{
  auto *filter = GST_OPENCL_FILTER (trans);
  auto *klass = GST_OPENCL_FILTER_GET_CLASS (filter);
  auto & device = device_of (filter);
  auto & in_port = port_of (filter, GST_PAD_SINK);

  gboolean processed = FALSE;
  gboolean ok = GST_OPENCL_GUARD (trans, "frame processing failed", [&]() {
    gst_opencl::FrameWork work (device);
    gst_opencl::FrameTrip in (device, in_port, inbuf, gst_opencl::FrameAccess::Read);
    gst_opencl::FrameTrip out (device, port_of (filter, GST_PAD_SRC), outbuf,
        gst_opencl::FrameAccess::Write);
    processed = klass->process (filter, device, &in.frame (), &out.frame ());
    if (!processed)
      return;
    in.finish (false);
    const bool waited = out.finish (true);
    if (waited)
      in_port.release_uploaded (false);
    work.end (waited);
  });
  return ok && processed ? GST_FLOW_OK : GST_FLOW_ERROR;
}

/* In-place (analysis) mode: let the subclass read (and, when it may, write) the frame on the
 * device; a host frame is read back only when the subclass drew into it (the one wait then).
 * Otherwise the host waits only when the subclass needs its results now; its frame is let go
 * once the device has read it, at a later frame. */
static GstFlowReturn
gst_opencl_filter_transform_ip (GstBaseTransform * trans, GstBuffer * buffer)
{
  auto *filter = GST_OPENCL_FILTER (trans);
  auto *klass = GST_OPENCL_FILTER_GET_CLASS (filter);
  auto & device = device_of (filter);
  auto & in_port = port_of (filter, GST_PAD_SINK);
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
    gst_opencl::FrameWork work (device);
    gst_opencl::FrameTrip frame (device, in_port, buffer, writable ?
        gst_opencl::FrameAccess::ReadWrite : gst_opencl::FrameAccess::Read);
    gboolean written = FALSE, results_now = FALSE;
    processed = klass->process_ip (filter, device, &frame.frame (), writable, &written,
        &results_now);
    if (!processed)
      return;
    bool waited = frame.finish (written && writable);
    if (!waited && results_now) {
      device.finish ();
      waited = true;
    }
    /* Uploads that have completed let their frames go (all of them after a wait). */
    in_port.release_uploaded (false);
    work.end (waited);
  });
  if (!ok || !processed)
    return GST_FLOW_ERROR;
  if (klass->after_frame && !klass->after_frame (filter, device, buffer))
    return GST_FLOW_ERROR;
  return GST_FLOW_OK;
}

static void
gst_opencl_filter_class_init (GstOpenCLFilterClass * klass)
{
  auto *trans_class = GST_BASE_TRANSFORM_CLASS (klass);

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

