/* gst-opencl: what a device can hold, checked before anything is allocated.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gst/video/video.h>

#include "opencl/gstopenclcontext.h"

namespace gst_opencl {

/* Throws Failure (TooLarge) naming the frame's size, its bytes, the device and the device's
 * largest allocation when one frame of `info` cannot be one buffer on `device` (or when its
 * dimensions are beyond what kernels index with int). */
void check_frame_fits (const Device & device, const GstVideoInfo * info);

/* NVIDIA's compute capability of `device` as major * 10 + minor (80 for sm_80, 90 for sm_90),
 * read through cl_nv_device_attribute_query; 0 on other devices or when the driver does not
 * offer the extension. */
int nvidia_compute_capability (const cl::Device & device);

}  // namespace gst_opencl
