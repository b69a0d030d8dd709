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

  /* The formats the subclass renders itself (set by gst_opencl_src_class_add_pad_template). */
  const gchar *rendered_formats;

  /* Caps are set: build kernels, size state. Called with the context ready. `info` describes
   * the frames render () writes: the caps' when the subclass renders their format, else RGBA
   * of the caps' size, which the base converts on the device into the caps' format after each
   * render (gstopenclconvert). Must not throw (wrap the body in GST_OPENCL_GUARD); return
   * FALSE after posting an error. */
  gboolean (*set_info) (GstOpenCLSrc * src, gst_opencl::ElementDevice & device,
      const GstVideoInfo * info);

  /* Enqueue the kernels that write the frame into `out` (of set_info's `info`: the output
   * buffer, or the base's RGBA frame to convert; rows info.stride[0] bytes apart),
   * through device.launch () so their time is measured. `running_time` and `stream_time` are
   * those of the frame's timestamp. After the first frame of a caps, nothing here may block,
   * allocate a device buffer or build a program. Must not throw. */
  gboolean (*render) (GstOpenCLSrc * src, gst_opencl::ElementDevice & device,
      const GstOpenCLFrame * out, GstClockTime running_time, GstClockTime stream_time);
};

/* The src pad template: the packed 4-byte `formats` the subclass renders (RGBA among them),
 * then those the base converts RGBA frames into on the device (NV12, I420, P010_10LE, GRAY8,
 * GRAY16_LE, RGBA64_LE), in OpenCL and system memory; with GL built, RGBA in GL memory as
 * well when `gl_rgba` is true; then all of them in CUDA memory (offered only where the device
 * reaches it). */
void gst_opencl_src_class_add_pad_template (GstOpenCLSrcClass * klass, const gchar * formats,
    gboolean gl_rgba);

G_END_DECLS


/* The offset of the frame being rendered: frames since start, counted on across caps changes
 * and set to the position of a seek. */
guint64 gst_opencl_src_frame_number (GstOpenCLSrc * src);

