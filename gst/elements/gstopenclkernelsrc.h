/* gst-opencl: openclkernelsrc, a video source whose frames a user's OpenCL kernel renders.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "opencl/gstopenclsrc.h"

G_BEGIN_DECLS

#define GST_TYPE_OPENCL_KERNEL_SRC (gst_opencl_kernel_src_get_type ())
G_DECLARE_FINAL_TYPE (GstOpenCLKernelSrc, gst_opencl_kernel_src, GST, OPENCL_KERNEL_SRC,
    GstOpenCLSrc)

GST_ELEMENT_REGISTER_DECLARE (openclkernelsrc);

G_END_DECLS
