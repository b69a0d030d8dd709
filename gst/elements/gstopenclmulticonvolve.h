/* gst-opencl: openclmulticonvolve, a bank of N filters applied in one pass.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "opencl/gstopenclbasetransform.h"

G_BEGIN_DECLS

#define GST_TYPE_OPENCL_MULTI_CONVOLVE (gst_opencl_multi_convolve_get_type ())
G_DECLARE_FINAL_TYPE (GstOpenCLMultiConvolve, gst_opencl_multi_convolve, GST,
    OPENCL_MULTI_CONVOLVE, GstOpenCLBaseTransform)

GST_ELEMENT_REGISTER_DECLARE (openclmulticonvolve);

G_END_DECLS
