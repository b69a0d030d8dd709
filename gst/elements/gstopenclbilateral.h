/* gst-opencl: openclbilateral, an edge-preserving bilateral filter.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "opencl/gstopenclfilter.h"

G_BEGIN_DECLS

#define GST_TYPE_OPENCL_BILATERAL (gst_opencl_bilateral_get_type ())
G_DECLARE_FINAL_TYPE (GstOpenCLBilateral, gst_opencl_bilateral, GST, OPENCL_BILATERAL,
    GstOpenCLFilter)

#define GST_TYPE_OPENCL_BILATERAL_MODE (gst_opencl_bilateral_mode_get_type ())
GType gst_opencl_bilateral_mode_get_type (void);

GST_ELEMENT_REGISTER_DECLARE (openclbilateral);

G_END_DECLS
