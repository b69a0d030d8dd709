/* gst-opencl: frames in another API's memory (GL textures, CUDA memory) as the frame path sees
 * them: one interface, which each kind of foreign memory implements (GlInterop in
 * gstopenclglinterop.h, CudaFrames in gstopenclcuda.h). The frame path keeps one per port whose
 * caps negotiated such memory, made from its table of routes (gstopenclframepath.cpp), and
 * never asks which kind it holds.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

#include "opencl/gstopenclelementdevice.h"
#include "opencl/gstopenclframe.h"

namespace gst_opencl {

/* One port's frames in foreign memory. Per frame, an input gives `to_device`, then the kernels
 * read the device frame, then `end_frame`; an output gives `device_frame`, the kernels write
 * it, then `from_device` (or `end_frame` when they wrote nothing). Each call returns false, or
 * does nothing, where the host must map the buffer instead (a path that does not reach this
 * buffer). Driver errors throw. */
class ForeignFrames
{
public:
  virtual ~ForeignFrames () = default;

  /* The port negotiated frames of `info` in this memory: what was made for other frames goes. */
  virtual void configure (const GstVideoInfo * info) = 0;
  /* The port stops: everything goes, the interop's path included. */
  virtual void reset () = 0;
  /* The element's OpenCL context changed: device buffers of the old one go. */
  virtual void drop_device_buffers () = 0;

  /* Input: enqueues the copy of `buffer`'s frame to the device and describes the device frame
   * in *frame. */
  virtual bool to_device (ElementDevice & device, GstBuffer * buffer,
      GstOpenCLFrame * frame) = 0;
  /* Output: the device frame the kernels write `buffer`'s frame into. */
  virtual bool device_frame (ElementDevice & device, GstBuffer * buffer,
      GstOpenCLFrame * frame) = 0;
  /* Output, once the kernels are enqueued: puts the device frame into `buffer`'s memory, where
   * the other API reads it (waits for the device where that API cannot). Returns whether the
   * host waited for the kernels (their profiling events are then complete); not where the two
   * APIs wait for each other on the device. */
  virtual bool from_device (ElementDevice & device, GstBuffer * buffer) = 0;
  /* Lets go of what to_device or device_frame took for this frame (enqueued, no wait). */
  virtual void end_frame (ElementDevice & device) = 0;
};

}  // namespace gst_opencl
