/* gst-opencl: openclupload and opencldownload, frames into OpenCL memory and back.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "opencl/gstopenclbasetransform.h"

G_BEGIN_DECLS

#define GST_TYPE_OPENCL_TRANSFER (gst_opencl_transfer_get_type ())
G_DECLARE_DERIVABLE_TYPE (GstOpenCLTransfer, gst_opencl_transfer, GST, OPENCL_TRANSFER,
    GstOpenCLBaseTransform)

struct _GstOpenCLTransferClass
{
  GstOpenCLBaseTransformClass parent_class;
  gboolean to_device;  /* upload (TRUE) or download (FALSE) */
};

#define GST_TYPE_OPENCL_UPLOAD (gst_opencl_upload_get_type ())
G_DECLARE_FINAL_TYPE (GstOpenCLUpload, gst_opencl_upload, GST, OPENCL_UPLOAD, GstOpenCLTransfer)

#define GST_TYPE_OPENCL_DOWNLOAD (gst_opencl_download_get_type ())
G_DECLARE_FINAL_TYPE (GstOpenCLDownload, gst_opencl_download, GST, OPENCL_DOWNLOAD,
    GstOpenCLTransfer)

GST_ELEMENT_REGISTER_DECLARE (openclupload);
GST_ELEMENT_REGISTER_DECLARE (opencldownload);

G_END_DECLS
