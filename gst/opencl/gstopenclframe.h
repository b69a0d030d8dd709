/* gst-opencl: the geometry of video planes, as device copies and transfers need it.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gst/video/video.h>

#include "opencl/gstopenclbindings.h"

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

/* Calls `copy (first_row, rows)` for the parts of a rectangular copy of `rows` rows of
 * `row_bytes` bytes between rows `pitch_a` and `pitch_b` bytes apart: once with every row, or,
 * in the one case a driver gets wrong, twice (all rows but the last, then the last). Mesa's
 * rusticl (25.0.7: src/gallium/frontends/rusticl/core/memory.rs line 723, sw_copy (), behind
 * clEnqueueReadBufferRect, clEnqueueWriteBufferRect and clEnqueueCopyBufferRect; still so in
 * 26.1) copies the rows as one block of row_bytes * rows bytes when both pitches are equal and
 * the number of ROWS equals the pitch; it means the row width. With rows narrower than the pitch that block is
 * wrong (a 1-byte-wide I420 chroma plane of 4 rows at stride 4, for one). Two parts never meet
 * that test and cost every driver one more command in that shape only. docs/testing.md. */
template <typename Copy>
void
for_each_rect_part (gsize row_bytes, gsize rows, gsize pitch_a, gsize pitch_b, Copy && copy)
{
  if (pitch_a == pitch_b && rows == pitch_a && row_bytes != pitch_a && rows > 1) {
    copy ((gsize) 0, rows - 1);
    copy (rows - 1, (gsize) 1);
  } else {
    copy ((gsize) 0, rows);
  }
}

/* Enqueues the copy of every plane of a device frame laid out as `device_info` (offsets and
 * strides) into a mapped host frame. One rectangular copy per plane, so any pair of strides
 * works. With `blocking`, returns once the last copy is done (in-order queue: every earlier
 * command is then done too). Throws cl::Error. */
void copy_frame_from_device (cl::CommandQueue & queue, const cl::Buffer & buffer,
    const GstVideoInfo * device_info, GstVideoFrame * frame, bool blocking);

}  // namespace gst_opencl
