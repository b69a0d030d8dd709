/* gst-opencl: the part of an element's Impl that moves its own frames: elements on
 * GstOpenCLBaseTransform whose input and output differ in shape (openclsort, openclmulticonvolve)
 * reach the base class's device and its two frame ports through it.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "opencl/gstopenclbasetransform.h"
#include "opencl/gstopenclelementdevice.h"
#include "opencl/gstopenclframepath.h"

namespace gst_opencl {

struct ImplPorts
{
  explicit ImplPorts (GstOpenCLBaseTransform * base)
      : device (gst_opencl_base_transform_device (base)),
        in_port (gst_opencl_base_transform_port (base, GST_PAD_SINK)),
        out_port (gst_opencl_base_transform_port (base, GST_PAD_SRC)) {}

  /* The base class's, which also resets the ports at stop. */
  ElementDevice & device;
  FramePort & in_port;
  FramePort & out_port;

  /* The ports' staging buffers and GL interop belong to this run's context: the Impl's
   * drop_run () lets them go with the rest. */
  void drop_ports ()
  {
    in_port.reset ();
    out_port.reset ();
  }
};

}  // namespace gst_opencl
