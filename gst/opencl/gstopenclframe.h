/* gst-opencl: the geometry of video planes, as device copies and transfers need it.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gst/video/video.h>

#include "opencl/gstopenclcl.h"

/* A video frame held in device memory. `info` describes the device copy: its planes lie at
 * info.offset[] with rows info.stride[] bytes apart (the strides of the mapped frame, padding
 * included), so kernels index it exactly as they would the host frame. */
struct GstOpenCLFrame
{
  cl::Buffer buffer;
  GstVideoInfo info;
};

namespace gst_opencl {

/* Bytes of pixels in one row of a plane (no padding). */
gsize plane_row_bytes (const GstVideoInfo * info, guint plane);

/* Rows of a plane. */
gsize plane_rows (const GstVideoInfo * info, guint plane);

/* Enqueues the copy of every plane of a device frame laid out as `device_info` (offsets and
 * strides) into a mapped host frame. One rectangular copy per plane, so any pair of strides
 * works. With `blocking`, returns once the last copy is done (in-order queue: every earlier
 * command is then done too). Throws cl::Error. */
void copy_frame_from_device (cl::CommandQueue & queue, const cl::Buffer & buffer,
    const GstVideoInfo * device_info, GstVideoFrame * frame, bool blocking);

}  // namespace gst_opencl
