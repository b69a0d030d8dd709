/* gst-opencl: openclconvertscale, colour conversion and scaling of video frames on an OpenCL
 * device.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "opencl/gstopenclbasetransform.h"

G_BEGIN_DECLS

#define GST_TYPE_OPENCL_CONVERT_SCALE (gst_opencl_convert_scale_get_type ())
G_DECLARE_FINAL_TYPE (GstOpenCLConvertScale, gst_opencl_convert_scale, GST,
    OPENCL_CONVERT_SCALE, GstOpenCLBaseTransform)

#define GST_TYPE_OPENCL_CONVERT_SCALE_METHOD (gst_opencl_convert_scale_method_get_type ())
GType gst_opencl_convert_scale_method_get_type (void);
#define GST_TYPE_OPENCL_CONVERT_SCALE_TENSOR_LAYOUT \
    (gst_opencl_convert_scale_tensor_layout_get_type ())
GType gst_opencl_convert_scale_tensor_layout_get_type (void);

GST_ELEMENT_REGISTER_DECLARE (openclconvertscale);

G_END_DECLS
