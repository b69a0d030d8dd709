/* gst-opencl fuzz targets that reach GStreamer: one initialisation for all of them (libFuzzer
 * and the corpus replay both call LLVMFuzzerInitialize once).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include <gst/gst.h>

#include "opencl/gstopenclutils.h"

/* GStreamer logs a critical for every malformed caps structure name or value it is given. */
static void
quiet (const gchar *, GLogLevelFlags, const gchar *, gpointer)
{
}

extern "C" int
LLVMFuzzerInitialize (int *, char ***)
{
  gst_init (nullptr, nullptr);
  g_log_set_handler ("GStreamer", G_LOG_LEVEL_CRITICAL, quiet, nullptr);
  GST_DEBUG_CATEGORY_INIT (gst_opencl_debug, "opencl", 0, "OpenCL shared layer");
  return 0;
}
