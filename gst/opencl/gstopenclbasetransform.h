/* gst-opencl: the abstract base of every element of the plugin that is a GstBaseTransform.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * It owns what every such element has: the OpenCL device and its properties (`device`,
 * `device-name`, `kernel-time`, `gl-interop`), the GstContext plumbing of the OpenCL and GL
 * contexts, start/stop of the device, the allocation queries (pools of OpenCL memory for
 * OpenCL-memory caps, GL pools for GL caps, and pools of the plugin's host-visible frames
 * offered upstream and used downstream for system memory), controlled properties synced at each
 * frame's stream time, and output sizes from video caps. The specialised bases (video filter,
 * temporal filter, transfer) and the tensor elements derive from it and keep only what is theirs;
 * frames move through gstopenclframepath.h. */
#pragma once

#include <gst/base/gstbasetransform.h>
#include <gst/video/video.h>

#include "opencl/gstopenclelement.h"
#include "opencl/gstopenclgl.h"

G_BEGIN_DECLS

#define GST_TYPE_OPENCL_BASE_TRANSFORM (gst_opencl_base_transform_get_type ())
G_DECLARE_DERIVABLE_TYPE (GstOpenCLBaseTransform, gst_opencl_base_transform, GST,
    OPENCL_BASE_TRANSFORM, GstBaseTransform)

struct _GstOpenCLBaseTransformClass
{
  GstBaseTransformClass parent_class;

  /* Whether video frames in system memory may be frames of the plugin's OpenCL memory (host
   * visible: pinned, or the device's own memory where it shares the host's): a pool of them is
   * offered upstream and used for output when downstream has no pool of its own. TRUE by
   * default; openclupload and opencldownload, whose job is the copy, set it FALSE. */
  gboolean host_frames_on_device;

  gpointer padding[8];
};

G_END_DECLS

/* For elements whose caps are the same on both sides (or that set their own rule): puts back
 * GstBaseTransform's transform_caps and fixate_caps in place of the base's any-memory rule. */
void gst_opencl_base_transform_class_keep_caps (GstOpenCLBaseTransformClass * klass);

/* The device part of the element: device (), launch (), context (); valid from start to stop. */
gst_opencl::ElementDevice & gst_opencl_base_transform_device (GstOpenCLBaseTransform * self);

/* The element's GL display and context. */
gst_opencl::GlBridge & gst_opencl_base_transform_gl (GstOpenCLBaseTransform * self);
