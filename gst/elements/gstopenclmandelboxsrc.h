/* gst-opencl: openclmandelboxsrc, a video source that ray-marches the Mandelbox.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "opencl/gstopenclsrc.h"

G_BEGIN_DECLS

#define GST_TYPE_OPENCL_MANDELBOX_SRC (gst_opencl_mandelbox_src_get_type ())
G_DECLARE_FINAL_TYPE (GstOpenCLMandelboxSrc, gst_opencl_mandelbox_src, GST, OPENCL_MANDELBOX_SRC,
    GstOpenCLSrc)

GST_ELEMENT_REGISTER_DECLARE (openclmandelboxsrc);

G_END_DECLS
