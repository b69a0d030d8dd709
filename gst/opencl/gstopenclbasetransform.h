/* gst-opencl: the abstract base of every element of the plugin that is a GstBaseTransform.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * It owns what every such element has: the OpenCL device and its properties (`device`,
 * `device-name`, `kernel-time`, `gl-interop`), the GstContext plumbing of the OpenCL and GL
 * contexts, start/stop of the device, the allocation queries (pools of OpenCL memory for
 * OpenCL-memory caps, GL pools for GL caps, and pools of the plugin's host-visible frames
 * offered upstream and used downstream for system memory), controlled properties synced at each
 * frame's stream time, and output sizes from video caps. The specialised bases (video filter,
 * temporal filter, transfer) derive from it and keep only what is theirs; elements whose input
 * and output differ in shape implement its configure and transform_frames hooks, handed the
 * device and the frame ports. Frames move through gstopenclframepath.h. */
#pragma once

#include <gst/base/gstbasetransform.h>
#include <gst/video/video.h>

#include "opencl/gstopenclelementdevice.h"
#include "opencl/gstopenclframepath.h"
#include "opencl/gstopenclgl.h"

G_BEGIN_DECLS

/* The formats the plugin's video filters take and give: 8-bit and 16-bit RGB and grey, and the
 * YUV formats of decoders and encoders (8-bit NV12 and I420, 10-bit P010). */
#define GST_OPENCL_FILTER_FORMATS "RGBA, BGRA, RGBx, BGRx, GRAY8, GRAY16_LE, RGBA64_LE, NV12, " \
    "I420, P010_10LE"

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

  /* For elements that move their own frames (input and output differ in shape: arrays,
   * volumes, other formats or sizes), in place of GstBaseTransform's set_caps and transform,
   * which the base then implements with these two. `ports` are the element's frame ports, owned
   * by the base and reset at stop; the specialised bases move frames themselves and leave both
   * unset. Neither may throw (wrap the body in GST_OPENCL_GUARD).
   *
   * Caps are set: configure the ports for the sides that carry frames
   * (gst_opencl_base_transform_configure_ports (): video caps on either side or both), build
   * kernels on device.device () (which throws "no OpenCL device" before start), size state.
   * Return FALSE after posting an error. */
  gboolean (*configure) (GstOpenCLBaseTransform * trans, gst_opencl::ElementDevice & device,
      gst_opencl::FramePorts & ports, GstCaps * incaps, GstCaps * outcaps);

  /* Move `inbuf` to the device through ports.in, enqueue the kernels through device.launch (),
   * and move the result into `outbuf` through ports.out, the frame bracketed by one
   * gst_opencl::FrameWork. */
  GstFlowReturn (*transform_frames) (GstOpenCLBaseTransform * trans,
      gst_opencl::ElementDevice & device, gst_opencl::FramePorts & ports, GstBuffer * inbuf,
      GstBuffer * outbuf);
};

G_END_DECLS

/* For elements whose caps are the same on both sides (or that set their own rule): puts back
 * GstBaseTransform's transform_caps (the same caps, memory included; CUDA memory only where the
 * device reaches it) and fixate_caps in place of the base's any-memory rule. */
void gst_opencl_base_transform_class_keep_caps (GstOpenCLBaseTransformClass * klass);

/* Copies onto `output`, a new buffer, the metas of `input` that the element's output keeps,
 * as GstBaseTransform's copy_metadata does (metas tagged `memory` never, the others as the
 * class's transform_meta says): for outputs made outside GstBaseTransform's
 * prepare_output_buffer (the temporal filter's). Streaming thread. */
void gst_opencl_base_transform_copy_metas (GstOpenCLBaseTransform * self, GstBuffer * input,
    GstBuffer * output);

/* For set_caps (or configure) of elements with video caps on either side or both: reads the
 * video caps into `in_info` and `out_info` (an element error when they are not valid; a side of
 * tensors is left empty and its port unused), refuses frames the device cannot hold and frames
 * in CUDA memory it cannot reach, and configures the ports and their GL interop. When
 * khr-gl-sharing replaced the element's context, *context_changed is set (the caller drops its
 * own buffers). FALSE after an element error. */
gboolean gst_opencl_base_transform_configure_ports (GstOpenCLBaseTransform * self,
    GstCaps * incaps, GstCaps * outcaps, GstVideoInfo * in_info, GstVideoInfo * out_info,
    bool *context_changed = nullptr);

/* The CUDA device that is the element's OpenCL device (frames in CUDA memory reach it), or -1
 * (not started, or no such device): gst_opencl::cuda_device_of () of the element's device. */
int gst_opencl_base_transform_cuda_device (GstOpenCLBaseTransform * self);

/* For transform_caps: whether CUDA-memory caps may be offered (gst_opencl::cuda_negotiable ()
 * of the element's device). */
bool gst_opencl_base_transform_cuda_negotiable (GstOpenCLBaseTransform * self);

namespace gst_opencl {

/* The device part of the element: device (), launch (), context (); valid from start to stop.
 * The one accessor of it, for bases and elements whose virtual functions are not handed it. */
ElementDevice & device_of (GstOpenCLBaseTransform * element);

/* The element's frame ports: GST_PAD_SINK for frames in, GST_PAD_SRC for frames out (in-place
 * elements use only the sink one), for the specialised bases and the transfer elements.
 * Configured by gst_opencl_base_transform_configure_ports (), reset at stop. */
FramePort & port_of (GstOpenCLBaseTransform * element, GstPadDirection side);

/* The same two, for an element of any class derived from GstOpenCLBaseTransform. */
template<typename Element> ElementDevice &
device_of (Element * element)
{
  return device_of (GST_OPENCL_BASE_TRANSFORM (element));
}

template<typename Element> FramePort &
port_of (Element * element, GstPadDirection side)
{
  return port_of (GST_OPENCL_BASE_TRANSFORM (element), side);
}

}  // namespace gst_opencl
