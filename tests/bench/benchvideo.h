/* gst-opencl benchmarks: what the programs that time video kernels share (header only, so that
 * benchlib itself needs no gstreamer-video).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gst/video/video.h>

namespace bench {

/* Bytes of every plane's samples in a frame of `info`, without row padding: what a kernel that
 * reads (or writes) the whole frame moves. */
inline double
frame_bytes (const GstVideoInfo * info)
{
  double bytes = 0;
  for (guint plane = 0; plane < GST_VIDEO_INFO_N_PLANES (info); plane++) {
    for (guint comp = 0; comp < GST_VIDEO_INFO_N_COMPONENTS (info); comp++) {
      if (GST_VIDEO_FORMAT_INFO_PLANE (info->finfo, comp) != plane)
        continue;
      bytes += (double) GST_VIDEO_INFO_COMP_WIDTH (info, comp) *
          GST_VIDEO_INFO_COMP_PSTRIDE (info, comp) * GST_VIDEO_INFO_COMP_HEIGHT (info, comp);
      break;
    }
  }
  return bytes;
}

}  // namespace bench
