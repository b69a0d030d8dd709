/* gst-opencl fuzz target: the float arrays of the convolution elements' `kernel` / `kernels`
 * properties, from their text form (what gst-launch and gst_util_set_object_arg parse) through
 * gst_opencl::float_array_from_value; and GST_OPENCL_CONV_VARIANT strings through
 * gst_opencl::ConvolutionVariant::parse. The first byte picks which. Built as a libFuzzer
 * program by tests/fuzz/run.sh, and as a replay of the stored corpus by `meson test`.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include <gst/gst.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "opencl/gstopenclconvolution.h"
#include "opencl/gstopenclutils.h"

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

static bool
same_float (float a, float b)
{
  return (std::isnan (a) && std::isnan (b)) || std::memcmp (&a, &b, sizeof a) == 0;
}

extern "C" int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  if (size == 0)
    return 0;
  std::string text (reinterpret_cast<const char *> (data) + 1, size - 1);
  text = text.c_str ();

  if (data[0] & 1) {
    bool memory_given = false;
    auto variant = gst_opencl::ConvolutionVariant::parse (text, &memory_given);
    if (!variant)
      return 0;
    if (variant->unroll < 1 || variant->group_x < 1 || variant->group_y < 1)
      abort ();
    auto again = gst_opencl::ConvolutionVariant::parse (variant->to_string (), nullptr);
    if (!again || again->unroll != variant->unroll || again->group_x != variant->group_x ||
        again->group_y != variant->group_y ||
        (memory_given && again->filter_memory != variant->filter_memory))
      abort ();
    return 0;
  }

  GValue value = G_VALUE_INIT;
  g_value_init (&value, GST_TYPE_ARRAY);
  if (gst_value_deserialize (&value, text.c_str ())) {
    auto floats = gst_opencl::float_array_from_value (&value);
    if (floats.size () != gst_value_array_get_size (&value))
      abort ();
    GValue back = G_VALUE_INIT;
    g_value_init (&back, GST_TYPE_ARRAY);
    gst_opencl::float_array_to_value (floats, &back);
    auto again = gst_opencl::float_array_from_value (&back);
    if (again.size () != floats.size ())
      abort ();
    for (size_t i = 0; i < floats.size (); i++)
      if (!same_float (floats[i], again[i]))
        abort ();
    g_value_unset (&back);
  }
  g_value_unset (&value);
  return 0;
}
