/* gst-opencl: which OpenCL device an element runs on.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <mutex>
#include <optional>
#include <string>

#include "opencl/gstopenclbindings.h"

namespace gst_opencl {

/* A parsed device string: "" (automatic), "gpu", "cpu" or "<platform substring>[:<index>]". */
struct DeviceSpec
{
  enum class Kind { Automatic, Gpu, Cpu, Platform };
  Kind kind = Kind::Automatic;
  std::string platform_substring;  /* Kind::Platform only, matched case-insensitively */
  unsigned index = 0;              /* device index inside the platform (Kind::Platform) */

  bool operator== (const DeviceSpec & other) const;
};

/* Parses a device string; std::nullopt when it is malformed (empty substring, bad index).
 * Pure function of its input, so it can be unit-tested and fuzzed without a driver. */
std::optional<DeviceSpec> parse_device_spec (const std::string & text);

/* The element's property if set, else GST_OPENCL_DEVICE, else automatic. */
std::string effective_device_string (const std::string & property_value);

/* Chooses a device. Throws Failure (NotFound) with "no OpenCL device" when there is no platform,
 * or with the list of existing devices when the spec matches none. */
cl::Device select_device (const DeviceSpec & spec, const std::string & original_text);

/* The device a `device` property (or a program's --device option) names: the value, else
 * GST_OPENCL_DEVICE, else automatic, parsed and chosen. Throws Failure (Settings) naming the
 * string when it is malformed, and as select_device () above when nothing matches. */
cl::Device select_device (const std::string & property_value);

/* "NVIDIA H200 (NVIDIA CUDA)" */
std::string describe_device (const cl::Device & device);

/* Held, process-wide, while the plugin lists platforms and devices, reads their properties and
 * creates contexts and queues. Drivers do not all make their first initialisation safe against
 * a second thread: PoCL 3.1 hands out its devices before their names are filled in, so two
 * pipelines started at the same moment read a null name (SIGSEGV) or find no device at all
 * (docs/reliability.md#pipelines-started-at-the-same-moment). Recursive, so that a caller may
 * hold it across select_device () and describe_device (). Never held while a kernel or a copy
 * runs: only set-up takes it. */
std::unique_lock<std::recursive_mutex> hold_driver ();

}  // namespace gst_opencl
