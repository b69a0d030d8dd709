/* gst-opencl: openclconvolve3d, a convolution over x, y and time.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "opencl/gstopencltemporalfilter.h"

G_BEGIN_DECLS

#define GST_TYPE_OPENCL_CONVOLVE3D (gst_opencl_convolve3d_get_type ())
G_DECLARE_FINAL_TYPE (GstOpenCLConvolve3D, gst_opencl_convolve3d, GST, OPENCL_CONVOLVE3D,
    GstOpenCLTemporalFilter)

#define GST_TYPE_OPENCL_CONVOLVE3D_PRESET (gst_opencl_convolve3d_preset_get_type ())
GType gst_opencl_convolve3d_preset_get_type (void);

GST_ELEMENT_REGISTER_DECLARE (openclconvolve3d);

G_END_DECLS
