/* gst-opencl: the "opencl" plugin.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include <gst/gst.h>

#include "elements/gstopenclbilateral.h"
#include "elements/gstopenclconvolve3d.h"
#include "elements/gstopenclmulticonvolve.h"
#include "elements/gstopenclhistogram.h"
#include "elements/gstopenclkernel.h"
#include "elements/gstopenclkernelsrc.h"
#include "elements/gstopencltransfer.h"
#include "opencl/gstopenclmemory.h"
#include "elements/gstopenclmandelboxsrc.h"
#include "elements/gstopenclsort.h"
#include "opencl/gstopenclutils.h"

static gboolean
plugin_init (GstPlugin * plugin)
{
  GST_DEBUG_CATEGORY_INIT (gst_opencl_debug, "opencl", 0, "OpenCL shared layer");

  /* Registration never touches the driver: a machine without OpenCL still loads the plugin
   * (and gst-plugin-scanner starts no driver), and the elements fail with "no OpenCL device"
   * when they start. */
  gboolean ok = TRUE;
  gst_opencl_memory_init_once ();
  ok &= GST_ELEMENT_REGISTER (openclbilateral, plugin);
  ok &= GST_ELEMENT_REGISTER (openclconvolve3d, plugin);
  ok &= GST_ELEMENT_REGISTER (openclmulticonvolve, plugin);
  ok &= GST_ELEMENT_REGISTER (openclhistogram, plugin);
  ok &= GST_ELEMENT_REGISTER (openclupload, plugin);
  ok &= GST_ELEMENT_REGISTER (opencldownload, plugin);
  ok &= GST_ELEMENT_REGISTER (openclmandelboxsrc, plugin);
  ok &= GST_ELEMENT_REGISTER (openclsort, plugin);
  ok &= GST_ELEMENT_REGISTER (openclkernel, plugin);
  ok &= GST_ELEMENT_REGISTER (openclkernelsrc, plugin);
  return ok;
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, opencl,
    "OpenCL kernels on video frames and data", plugin_init, VERSION, "LGPL", "gst-opencl",
    "Unknown package origin")
