/* gst-opencl: openclhistogram, per-frame histograms on the bus and drawn on the frame.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "opencl/gstopenclfilter.h"

G_BEGIN_DECLS

#define GST_TYPE_OPENCL_HISTOGRAM (gst_opencl_histogram_get_type ())
G_DECLARE_FINAL_TYPE (GstOpenCLHistogram, gst_opencl_histogram, GST, OPENCL_HISTOGRAM,
    GstOpenCLFilter)

GST_ELEMENT_REGISTER_DECLARE (openclhistogram);

G_END_DECLS
