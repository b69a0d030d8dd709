/* gst-opencl: which OpenCL device an element runs on.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "opencl/gstopencldevice.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <vector>

#include "opencl/gstopenclenv.h"
#include "opencl/gstopenclutils.h"

namespace gst_opencl {

bool
DeviceSpec::operator== (const DeviceSpec & other) const
{
  return kind == other.kind && platform_substring == other.platform_substring &&
      index == other.index;
}

static std::string
lowercase (std::string text)
{
  std::transform (text.begin (), text.end (), text.begin (),
      [](unsigned char c) { return (char) std::tolower (c); });
  return text;
}

static std::string
trim (const std::string & text)
{
  const char *space = " \t\r\n";
  size_t first = text.find_first_not_of (space);
  if (first == std::string::npos)
    return "";
  size_t last = text.find_last_not_of (space);
  return text.substr (first, last - first + 1);
}

std::optional<DeviceSpec>
parse_device_spec (const std::string & raw)
{
  DeviceSpec spec;
  std::string text = trim (raw);
  if (text.empty ())
    return spec;
  std::string lower = lowercase (text);
  if (lower == "gpu") {
    spec.kind = DeviceSpec::Kind::Gpu;
    return spec;
  }
  if (lower == "cpu") {
    spec.kind = DeviceSpec::Kind::Cpu;
    return spec;
  }

  spec.kind = DeviceSpec::Kind::Platform;
  size_t colon = text.rfind (':');
  std::string name = text;
  if (colon != std::string::npos) {
    std::string digits = text.substr (colon + 1);
    if (digits.empty () || digits.size () > 6 ||
        !std::all_of (digits.begin (), digits.end (),
            [](unsigned char c) { return std::isdigit (c); }))
      return std::nullopt;
    spec.index = (unsigned) std::strtoul (digits.c_str (), nullptr, 10);
    name = text.substr (0, colon);
  }
  spec.platform_substring = trim (name);
  if (spec.platform_substring.empty ())
    return std::nullopt;
  return spec;
}

std::string
effective_device_string (const std::string & property_value)
{
  if (!trim (property_value).empty ())
    return property_value;
  return env::text (env::Variable::Device);
}

cl::Device
select_device (const std::string & property_value)
{
  const std::string text = effective_device_string (property_value);
  const auto spec = parse_device_spec (text);
  if (!spec)
    throw Failure (Failure::Kind::Settings, "malformed OpenCL device string \"" + text + "\"");
  return select_device (*spec, text);
}

std::unique_lock<std::recursive_mutex>
hold_driver ()
{
  /* Function-local: constructed on first use, and a mutex holds no OpenCL object. */
  static std::recursive_mutex driver_mutex;
  return std::unique_lock<std::recursive_mutex> (driver_mutex);
}

std::string
describe_device (const cl::Device & device)
{
  auto held = hold_driver ();
  cl::Platform platform (device.getInfo<CL_DEVICE_PLATFORM> ());
  const std::string name = trim (device.getInfo<CL_DEVICE_NAME> ());
  /* Twins (two GPUs of one model) are told apart by their index in the platform, the index a
   * "<platform>:<index>" device string takes: "NVIDIA H100 80GB HBM3 #1 (NVIDIA CUDA)". */
  std::string index;
  std::vector<cl::Device> devices;
  try {
    platform.getDevices (CL_DEVICE_TYPE_ALL, &devices);
  } catch (const cl::Error &) {
    devices.clear ();
  }
  if (devices.size () > 1) {
    int same = 0;
    for (const auto & other : devices)
      same += trim (other.getInfo<CL_DEVICE_NAME> ()) == name;
    for (size_t i = 0; same > 1 && i < devices.size (); i++)
      if (devices[i] () == device ())
        index = " #" + std::to_string (i);
  }
  return name + index + " (" + trim (platform.getInfo<CL_PLATFORM_NAME> ()) + ")";
}

static std::vector<cl::Platform>
list_platforms ()
{
  std::vector<cl::Platform> platforms;
  cl_uint count = 0;
  /* The ICD loader answers CL_PLATFORM_NOT_FOUND_KHR when no driver is registered. */
  if (clGetPlatformIDs (0, nullptr, &count) != CL_SUCCESS || count == 0)
    return platforms;
  cl::Platform::get (&platforms);
  return platforms;
}

static std::vector<cl::Device>
list_devices (const cl::Platform & platform, cl_device_type type)
{
  std::vector<cl::Device> devices;
  cl_uint count = 0;
  if (clGetDeviceIDs (platform (), type, 0, nullptr, &count) != CL_SUCCESS || count == 0)
    return devices;
  platform.getDevices (type, &devices);
  return devices;
}

static std::string
list_available (const std::vector<cl::Platform> & platforms)
{
  std::string text;
  for (const auto & platform : platforms) {
    auto devices = list_devices (platform, CL_DEVICE_TYPE_ALL);
    for (size_t i = 0; i < devices.size (); i++) {
      text += "\n  \"" + trim (platform.getInfo<CL_PLATFORM_NAME> ()) + ":" +
          std::to_string (i) + "\": " + trim (devices[i].getInfo<CL_DEVICE_NAME> ());
    }
  }
  return text.empty () ? " none" : text;
}

cl::Device
select_device (const DeviceSpec & spec, const std::string & original_text)
{
  auto held = hold_driver ();
  auto platforms = list_platforms ();
  if (platforms.empty ())
    throw Failure (Failure::Kind::NotFound,
        "no OpenCL device: no OpenCL platform is installed (is an ICD such as "
        "pocl-opencl-icd registered in /etc/OpenCL/vendors?)");

  auto first_of_type = [&](cl_device_type type) -> std::optional<cl::Device> {
    for (const auto & platform : platforms) {
      auto devices = list_devices (platform, type);
      if (!devices.empty ())
        return devices.front ();
    }
    return std::nullopt;
  };

  std::optional<cl::Device> chosen;
  switch (spec.kind) {
    case DeviceSpec::Kind::Automatic:
      chosen = first_of_type (CL_DEVICE_TYPE_GPU);
      if (!chosen)
        chosen = first_of_type (CL_DEVICE_TYPE_CPU);
      if (!chosen)
        chosen = first_of_type (CL_DEVICE_TYPE_ALL);
      if (!chosen)
        throw Failure (Failure::Kind::NotFound,
            "no OpenCL device: the installed platforms expose no device");
      return *chosen;
    case DeviceSpec::Kind::Gpu:
      chosen = first_of_type (CL_DEVICE_TYPE_GPU);
      break;
    case DeviceSpec::Kind::Cpu:
      chosen = first_of_type (CL_DEVICE_TYPE_CPU);
      break;
    case DeviceSpec::Kind::Platform:{
      std::string wanted = lowercase (spec.platform_substring);
      for (const auto & platform : platforms) {
        if (lowercase (platform.getInfo<CL_PLATFORM_NAME> ()).find (wanted) == std::string::npos)
          continue;
        auto devices = list_devices (platform, CL_DEVICE_TYPE_ALL);
        if (spec.index < devices.size ()) {
          chosen = devices[spec.index];
          break;
        }
      }
      break;
    }
  }
  if (!chosen)
    throw Failure (Failure::Kind::NotFound,
        "no OpenCL device matches \"" + original_text + "\"; available devices:" +
        list_available (platforms));
  return *chosen;
}

}  // namespace gst_opencl
