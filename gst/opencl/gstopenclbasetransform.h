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

#include "opencl/gstopenclelementdevice.h"
#include "opencl/gstopenclframepath.h"
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

  /* Whether output pixel (x, y) is made from the input around (x, y): the output is the input's
   * picture (scaled, when the output caps' size differs), so the metas that describe where
   * things are in it (tagged `video`, `size`, `orientation`) stay true of the output and are
   * kept; see the base's transform_meta (docs/design.md, "Metas"). TRUE by default; openclsort,
   * whose pixels move along their lines, sets FALSE. Whatever it says, an output that is not
   * video, or an input that is not, keeps only the metas without tags. */
  gboolean output_keeps_geometry;
};

G_END_DECLS

/* For elements whose caps are the same on both sides (or that set their own rule): puts back
 * GstBaseTransform's transform_caps and fixate_caps in place of the base's any-memory rule. */
void gst_opencl_base_transform_class_keep_caps (GstOpenCLBaseTransformClass * klass);

/* Copies onto `output`, a new buffer, the metas of `input` that the element's output keeps,
 * as GstBaseTransform's copy_metadata does (metas tagged `memory` never, the others as the
 * class's transform_meta says): for outputs made outside GstBaseTransform's
 * prepare_output_buffer (the temporal filter's). Streaming thread. */
void gst_opencl_base_transform_copy_metas (GstOpenCLBaseTransform * self, GstBuffer * input,
    GstBuffer * output);

/* The device part of the element: device (), launch (), context (); valid from start to stop. */
gst_opencl::ElementDevice & gst_opencl_base_transform_device (GstOpenCLBaseTransform * self);


/* The element's frame ports: GST_PAD_SINK for frames in, GST_PAD_SRC for frames out (in-place
 * elements use only the sink one). Configured by gst_opencl_base_transform_configure_ports (),
 * reset at stop. */
gst_opencl::FramePort & gst_opencl_base_transform_port (GstOpenCLBaseTransform * self,
    GstPadDirection side);

/* For set_caps of video elements: reads both caps into `in_info` and `out_info` (an element
 * error when they are not video caps), refuses frames the device cannot hold, and configures the
 * ports and their GL interop. When khr-gl-sharing replaced the element's context,
 * *context_changed is set (the caller drops its own buffers). FALSE after an element error. */
gboolean gst_opencl_base_transform_configure_ports (GstOpenCLBaseTransform * self,
    GstCaps * incaps, GstCaps * outcaps, GstVideoInfo * in_info, GstVideoInfo * out_info,
    bool *context_changed = nullptr);

/* The CUDA device that is the element's OpenCL device (frames in CUDA memory reach it), or -1
 * (not started, or no such device: gst_opencl::cuda_device_of () says why). */
int gst_opencl_base_transform_cuda_device (GstOpenCLBaseTransform * self);

/* For transform_caps: whether CUDA-memory caps may be offered. Before the element starts (links
 * made in NULL state) they may, as the pad templates say; once started, only where
 * gst_opencl_base_transform_cuda_device () finds the device. */
bool gst_opencl_base_transform_cuda_negotiable (GstOpenCLBaseTransform * self);

namespace gst_opencl {

/* The same two, for an element of any class derived from GstOpenCLBaseTransform. */
template<typename Element> ElementDevice &
device_of (Element * element)
{
  return gst_opencl_base_transform_device (GST_OPENCL_BASE_TRANSFORM (element));
}

template<typename Element> FramePort &
port_of (Element * element, GstPadDirection side)
{
  return gst_opencl_base_transform_port (GST_OPENCL_BASE_TRANSFORM (element), side);
}

}  // namespace gst_opencl
