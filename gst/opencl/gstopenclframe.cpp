/* gst-opencl: the geometry of video planes, as device copies and transfers need it.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "opencl/gstopenclframe.h"
#include "opencl/gstopenclstats.h"

#include <array>

namespace gst_opencl {

gsize
plane_row_bytes (const GstVideoInfo * info, guint plane)
{
  for (guint comp = 0; comp < GST_VIDEO_INFO_N_COMPONENTS (info); comp++) {
    if (GST_VIDEO_FORMAT_INFO_PLANE (info->finfo, comp) == plane)
      return (gsize) GST_VIDEO_INFO_COMP_WIDTH (info, comp) *
          GST_VIDEO_INFO_COMP_PSTRIDE (info, comp);
  }
  return 0;
}

gsize
plane_rows (const GstVideoInfo * info, guint plane)
{
  for (guint comp = 0; comp < GST_VIDEO_INFO_N_COMPONENTS (info); comp++) {
    if (GST_VIDEO_FORMAT_INFO_PLANE (info->finfo, comp) == plane)
      return (gsize) GST_VIDEO_INFO_COMP_HEIGHT (info, comp);
  }
  return 0;
}

namespace {

/* One rectangular copy per plane, from a device layout into a host frame. */
template <typename Enqueue>
void
for_each_plane (const GstVideoFrame * frame, const GstVideoInfo * device_info, bool blocking,
    Enqueue && enqueue)
{
  const guint planes = GST_VIDEO_FRAME_N_PLANES (frame);
  for (guint plane = 0; plane < planes; plane++) {
    const std::array<size_t, 3> device_origin { (size_t) device_info->offset[plane], 0, 0 };
    const std::array<size_t, 3> host_origin { 0, 0, 0 };
    const std::array<size_t, 3> region { plane_row_bytes (&frame->info, plane),
      plane_rows (&frame->info, plane), 1 };
    if (region[0] == 0 || region[1] == 0)
      continue;
    enqueue (plane, blocking && plane + 1 == planes, device_origin, host_origin, region);
  }
}

}  // namespace

void
copy_frame_from_device (cl::CommandQueue & queue, const cl::Buffer & buffer,
    const GstVideoInfo * device_info, GstVideoFrame * frame, bool blocking)
{
  for_each_plane (frame, device_info, blocking, [&](guint plane, bool wait,
          const std::array<size_t, 3> & device_origin,
          const std::array<size_t, 3> & host_origin, const std::array<size_t, 3> & region) {
        const size_t device_pitch = device_info->stride[plane];
        const size_t host_pitch = GST_VIDEO_FRAME_PLANE_STRIDE (frame, plane);
        for_each_rect_part (region[0], region[1], device_pitch, host_pitch,
            [&](gsize first_row, gsize rows) {
              const std::array<size_t, 3> part_device { device_origin[0], first_row, 0 };
              const std::array<size_t, 3> part_host { host_origin[0], first_row, 0 };
              const std::array<size_t, 3> part { region[0], rows, 1 };
              const bool last = first_row + rows == region[1];
              queue.enqueueReadBufferRect (buffer, wait && last ? CL_TRUE : CL_FALSE,
                  part_device, part_host, part, device_pitch, 0, host_pitch, 0,
                  GST_VIDEO_FRAME_PLANE_DATA (frame, plane));
            });
        count_transfer (false, region[0] * region[1]);
      });
}

}  // namespace gst_opencl
