/* gst-opencl: what a device can hold, checked before anything is allocated.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "opencl/gstopencllimits.h"

#include "opencl/gstopenclutils.h"

namespace gst_opencl {

void
check_frame_fits (const Device & device, const GstVideoInfo * info)
{
  if ((guint64) info->size <= device.max_alloc_bytes && info->width <= G_MAXINT / 8 &&
      info->height <= G_MAXINT / 8)
    return;
  gchar *message = g_strdup_printf ("a %dx%d frame (%" G_GSIZE_FORMAT " bytes) exceeds the "
      "largest buffer %s can allocate (%" G_GUINT64_FORMAT " bytes)", info->width,
      info->height, info->size, device.name.c_str (), (guint64) device.max_alloc_bytes);
  std::string text (message);
  g_free (message);
  throw Failure (Failure::Kind::TooLarge, text);
}

}  // namespace gst_opencl
