/* gst-opencl fuzz target: device strings (the `device` property, GST_OPENCL_DEVICE) through
 * gst_opencl::parse_device_spec. Built as a libFuzzer program by tests/fuzz/run.sh, and as a
 * replay of the stored corpus by `meson test`.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include <cstdint>
#include <cstdlib>
#include <string>

#include "opencl/gstopencldevice.h"

extern "C" int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  std::string text (reinterpret_cast<const char *> (data), size);
  auto spec = gst_opencl::parse_device_spec (text);
  if (!spec)
    return 0;
  using Kind = gst_opencl::DeviceSpec::Kind;
  /* What the parser promises of what it accepts. */
  if (spec->kind == Kind::Platform && spec->platform_substring.empty ())
    abort ();
  if (spec->kind != Kind::Platform && (!spec->platform_substring.empty () || spec->index))
    abort ();
  if (spec->index > 999999)
    abort ();
  /* Parsing is a pure function: the same text, the same spec. */
  if (!(*gst_opencl::parse_device_spec (text) == *spec))
    abort ();
  return 0;
}
