/* gst-opencl: openclsort, sorts arrays and the pixels of video lines on an OpenCL device.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "opencl/gstopenclbasetransform.h"

G_BEGIN_DECLS

#define GST_TYPE_OPENCL_SORT (gst_opencl_sort_get_type ())
G_DECLARE_FINAL_TYPE (GstOpenCLSort, gst_opencl_sort, GST, OPENCL_SORT,
    GstOpenCLBaseTransform)

#define GST_TYPE_OPENCL_SORT_ORDER (gst_opencl_sort_order_get_type ())
GType gst_opencl_sort_order_get_type (void);
#define GST_TYPE_OPENCL_SORT_DIRECTION (gst_opencl_sort_direction_get_type ())
GType gst_opencl_sort_direction_get_type (void);
#define GST_TYPE_OPENCL_SORT_KEY (gst_opencl_sort_key_get_type ())
GType gst_opencl_sort_key_get_type (void);

GST_ELEMENT_REGISTER_DECLARE (openclsort);

G_END_DECLS
