/* gst-opencl fuzz target: the float arrays of the convolution elements' `kernel` / `kernels`
 * properties through gst_opencl::float_array_from_value, as GstValueArrays of whatever element
 * types an application may put in them (floats, doubles, ints, strings, nested arrays: built
 * from the input bytes, not parsed by GStreamer, whose own text parser leaks on malformed
 * nested arrays); and GST_OPENCL_VARIANT_CONVOLUTION strings through
 * gst_opencl::ConvolutionVariant::parse. The first byte picks which. Built as a libFuzzer
 * program by tests/fuzz/run.sh, and as a replay of the stored corpus by `meson test`.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include <gst/gst.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <algorithm>
#include <cstring>
#include <string>

#include "opencl/gstopenclconvolution.h"
#include "opencl/gstopenclproperties.h"
#include "opencl/gstopenclutils.h"

/* LLVMFuzzerInitialize: gst_init.cpp. */

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
    if (variant->unroll < 1 || variant->rows < 1 || variant->filter_block < 0 ||
        variant->group_x < 1 || variant->group_y < 1)
      abort ();
    /* The canonical form names every field, the memory included: it parses back to the same
     * variant. A tensor-core (mma) variant's memory is local unless it says ":global", and its
     * parse never reports a memory as given (test_mma_strings): only the variant must match. */
    bool again_memory = false;
    auto again = gst_opencl::ConvolutionVariant::parse (variant->to_string (), &again_memory);
    if (!again || (!again_memory && !variant->mma) || *again != *variant)
      abort ();
    return 0;
  }

  GValue value = G_VALUE_INIT;
  g_value_init (&value, GST_TYPE_ARRAY);
  const uint8_t *p = data + 1, *end = data + size;
  auto take = [&](void *out, size_t bytes) {
    std::memset (out, 0, bytes);
    size_t n = std::min (bytes, (size_t) (end - p));
    std::memcpy (out, p, n);
    p += n;
  };
  while (p < end) {
    const uint8_t kind = *p++ % 5;
    GValue element = G_VALUE_INIT;
    if (kind == 0) {
      float f;
      take (&f, sizeof f);
      g_value_init (&element, G_TYPE_FLOAT);
      g_value_set_float (&element, f);
    } else if (kind == 1) {
      double d;
      take (&d, sizeof d);
      g_value_init (&element, G_TYPE_DOUBLE);
      g_value_set_double (&element, d);
    } else if (kind == 2) {
      gint32 i;
      take (&i, sizeof i);
      g_value_init (&element, G_TYPE_INT);
      g_value_set_int (&element, i);
    } else if (kind == 3) {
      uint8_t length = 0;
      take (&length, 1);
      std::string text_value (reinterpret_cast<const char *> (p),
          std::min ((size_t) length, (size_t) (end - p)));
      p += text_value.size ();
      g_value_init (&element, G_TYPE_STRING);
      g_value_set_string (&element, text_value.c_str ());
    } else {
      g_value_init (&element, GST_TYPE_ARRAY);
      GValue inner = G_VALUE_INIT;
      g_value_init (&inner, G_TYPE_INT);
      g_value_set_int (&inner, 1);
      gst_value_array_append_and_take_value (&element, &inner);
    }
    /* GStreamer refuses (with a critical, and without taking it) an element whose type
     * differs from the first one's: then it is still ours to free. */
    const guint before = gst_value_array_get_size (&value);
    gst_value_array_append_and_take_value (&value, &element);
    if (gst_value_array_get_size (&value) == before)
      g_value_unset (&element);
  }
  {
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
