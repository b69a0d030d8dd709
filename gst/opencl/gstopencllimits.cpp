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

int
nvidia_compute_capability (const cl::Device & device)
{
  /* cl_nv_device_attribute_query's CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV and _MINOR_NV, named
   * here because not every OpenCL header defines them. */
  constexpr cl_device_info MAJOR_NV = 0x4000;
  constexpr cl_device_info MINOR_NV = 0x4001;
  std::string extensions;
  if (device.getInfo (CL_DEVICE_EXTENSIONS, &extensions) != CL_SUCCESS ||
      extensions.find ("cl_nv_device_attribute_query") == std::string::npos)
    return 0;
  cl_uint major = 0, minor = 0;
  if (clGetDeviceInfo (device (), MAJOR_NV, sizeof (major), &major, nullptr) != CL_SUCCESS ||
      clGetDeviceInfo (device (), MINOR_NV, sizeof (minor), &minor, nullptr) != CL_SUCCESS)
    return 0;
  return (int) (major * 10 + minor);
}

}  // namespace gst_opencl
