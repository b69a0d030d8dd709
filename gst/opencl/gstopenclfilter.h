/* gst-opencl: abstract base class for video filters that run OpenCL kernels.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gst/video/video.h>

#include "opencl/gstopenclbasetransform.h"
#include "opencl/gstopenclframe.h"

G_BEGIN_DECLS

#define GST_TYPE_OPENCL_FILTER (gst_opencl_filter_get_type ())
G_DECLARE_DERIVABLE_TYPE (GstOpenCLFilter, gst_opencl_filter, GST, OPENCL_FILTER,
    GstOpenCLBaseTransform)

struct _GstOpenCLFilterClass
{
  GstOpenCLBaseTransformClass parent_class;

  /* Caps are set: build kernels, size state, on `device` (the element's, its context
   * ready). Must not throw (wrap the body in GST_OPENCL_GUARD); return FALSE after posting an
   * error. */
  gboolean (*set_info) (GstOpenCLFilter * filter, gst_opencl::ElementDevice & device,
      const GstVideoInfo * in_info, const GstVideoInfo * out_info);

  /* Enqueue the kernels that read `in` and write `out`, through device.launch () so their time
   * is measured. After the first frame of a caps (warm-up), nothing here may block, allocate a
   * device buffer or build a program: set_info makes them. Must not throw. */
  gboolean (*process) (GstOpenCLFilter * filter, gst_opencl::ElementDevice & device,
      const GstOpenCLFrame * in, const GstOpenCLFrame * out);

  /* In-place (analysis) mode, for elements that call gst_opencl_filter_set_analysis () in their
   * init: `frame` is the frame on the device (the buffer's own OpenCL memory, or a copy of the
   * host frame). Enqueue kernels that read it (through gst_opencl_filter_launch ()) and, only when
   * `frame_writable` is TRUE, may also write it; then set *frame_written, so a host frame is read
   * back into the buffer. Results are read back without blocking, with an event the subclass
   * waits for later (the streaming thread does not wait for the device per frame); set
   * *results_now when the subclass needs them before the frame leaves (then the base waits for
   * the queue before it returns, so after_frame finds them complete). Must not throw. */
  gboolean (*process_ip) (GstOpenCLFilter * filter, gst_opencl::ElementDevice & device,
      const GstOpenCLFrame * frame, gboolean frame_writable, gboolean * frame_written,
      gboolean * results_now);

  /* In-place mode, optional: after process_ip, once the frame's work is enqueued (and complete,
   * when it set *results_now), what the subclass does with the buffer before it leaves the
   * element (metas, reading results back). Not called for a frame that failed. Return FALSE
   * after posting an error. Must not throw. */
  gboolean (*after_frame) (GstOpenCLFilter * filter, gst_opencl::ElementDevice & device,
      GstBuffer * buffer);
};

/* Pad templates for the formats the subclass handles in system memory; with GL built, RGBA in
 * GL memory is added when `gl_rgba` is true. */
void gst_opencl_filter_class_add_pad_templates (GstOpenCLFilterClass * klass,
    const gchar * formats, gboolean gl_rgba);

G_END_DECLS

/* Switches the element to in-place (analysis) mode, with process_ip () doing the work: frames
 * pass through untouched (GstBaseTransform passthrough, no copy) unless `writes_frames`, in which
 * case they are made writable and process_ip () may draw into them. Call from the instance init,
 * and again whenever the subclass starts or stops writing (safe while playing). */
void gst_opencl_filter_set_analysis (GstOpenCLFilter * filter, gboolean writes_frames);
