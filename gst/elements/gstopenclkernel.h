/* gst-opencl: openclkernel, a video filter that runs a user's OpenCL kernel on every frame.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "opencl/gstopenclfilter.h"

G_BEGIN_DECLS

#define GST_TYPE_OPENCL_KERNEL (gst_opencl_kernel_get_type ())
G_DECLARE_FINAL_TYPE (GstOpenCLKernel, gst_opencl_kernel, GST, OPENCL_KERNEL, GstOpenCLFilter)

GST_ELEMENT_REGISTER_DECLARE (openclkernel);

G_END_DECLS
