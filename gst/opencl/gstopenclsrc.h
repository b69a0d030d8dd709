/* gst-opencl: abstract base class for video sources whose frames an OpenCL kernel renders.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gst/base/gstpushsrc.h>
#include <gst/video/video.h>

#include "opencl/gstopenclcontext.h"
#include "opencl/gstopenclelementdevice.h"
#include "opencl/gstopenclframe.h"

G_BEGIN_DECLS

#define GST_TYPE_OPENCL_SRC (gst_opencl_src_get_type ())
G_DECLARE_DERIVABLE_TYPE (GstOpenCLSrc, gst_opencl_src, GST, OPENCL_SRC, GstPushSrc)

struct _GstOpenCLSrcClass
{
  GstPushSrcClass parent_class;

  /* Caps fixation aims at these (set them in class_init; 1280x720 at 30/1 unless changed). */
  gint default_width;
  gint default_height;
  gint default_fps_n;
  gint default_fps_d;

  /* Caps are set: build kernels, size state. Called with the context ready. Must not throw
   * (wrap the body in GST_OPENCL_GUARD); return FALSE after posting an error. */
  gboolean (*set_info) (GstOpenCLSrc * src, const GstVideoInfo * info);

  /* Enqueue the kernels that write the frame into `out` (rows info.stride[0] bytes apart),
   * through gst_opencl_src_launch () so their time is measured. `running_time` and `stream_time`
   * are those of the frame's timestamp. Nothing may block or allocate here. Must not throw. */
  gboolean (*render) (GstOpenCLSrc * src, const GstOpenCLFrame * out, GstClockTime running_time,
      GstClockTime stream_time);
};

/* The src pad template: the packed 4-byte `formats` the subclass renders in system memory;
 * with GL built, RGBA in GL memory as well when `gl_rgba` is true. */
void gst_opencl_src_class_add_pad_template (GstOpenCLSrcClass * klass, const gchar * formats,
    gboolean gl_rgba);

G_END_DECLS

/* The device of the running element (valid from start () to stop ()). */
gst_opencl::Device & gst_opencl_src_device (GstOpenCLSrc * src);

/* The device part of the element (ElementDevice: launches, kernel-time), start () to stop (). */
gst_opencl::ElementDevice & gst_opencl_src_element_device (GstOpenCLSrc * src);

/* The offset of the frame being rendered: frames since start, counted on across caps changes
 * and set to the position of a seek. */
guint64 gst_opencl_src_frame_number (GstOpenCLSrc * src);

/* Enqueues a kernel on the shared queue and records its event for the kernel-time property.
 * `global` is rounded up to a multiple of `local`. Throws cl::Error. */
void gst_opencl_src_launch (GstOpenCLSrc * src, const cl::Kernel & kernel,
    const cl::NDRange & global, const cl::NDRange & local);
