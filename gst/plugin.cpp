/* gst-opencl: the "opencl" plugin.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include <gst/gst.h>

#include "opencl/gstopenclmemory.h"
#include "opencl/gstopenclutils.h"

/* The elements of the list (gst/elements/meson.build): each one's registration function. */
#define GST_OPENCL_ELEMENT(name) GST_ELEMENT_REGISTER_DECLARE (name)
#include "elements/gstopenclelements.inc"
#undef GST_OPENCL_ELEMENT

static gboolean
plugin_init (GstPlugin * plugin)
{
  GST_DEBUG_CATEGORY_INIT (gst_opencl_debug, "opencl", 0, "OpenCL shared layer");

  /* Registration never touches the driver: a machine without OpenCL still loads the plugin
   * (and gst-plugin-scanner starts no driver), and the elements fail with "no OpenCL device"
   * when they start. */
  gboolean ok = TRUE;
  gst_opencl_memory_init_once ();
#define GST_OPENCL_ELEMENT(name) ok &= GST_ELEMENT_REGISTER (name, plugin);
#include "elements/gstopenclelements.inc"
#undef GST_OPENCL_ELEMENT
  return ok;
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, opencl,
    "OpenCL kernels on video frames and data", plugin_init, VERSION, "LGPL", "gst-opencl",
    "Unknown package origin")
