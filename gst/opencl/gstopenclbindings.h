/* gst-opencl: the one place the Khronos C++ bindings are included, with the project's settings.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#ifndef CL_HPP_TARGET_OPENCL_VERSION
#define CL_HPP_TARGET_OPENCL_VERSION 120
#endif
#ifndef CL_HPP_MINIMUM_OPENCL_VERSION
#define CL_HPP_MINIMUM_OPENCL_VERSION 120
#endif
#ifndef CL_HPP_ENABLE_EXCEPTIONS
#define CL_HPP_ENABLE_EXCEPTIONS
#endif
#include <CL/opencl.hpp>

namespace gst_opencl {

/* The platform of a device as the C handle, whatever the version of the C++ bindings: older
 * opencl.hpp gives getInfo<CL_DEVICE_PLATFORM> () as a cl_platform_id, newer ones (2024 on) as
 * a cl::Platform. Throws cl::Error. */
inline cl_platform_id
platform_id (const cl::Device & device)
{
  cl_platform_id platform = nullptr;
  cl_int status = clGetDeviceInfo (device (), CL_DEVICE_PLATFORM, sizeof platform, &platform,
      nullptr);
  if (status != CL_SUCCESS)
    throw cl::Error (status, "clGetDeviceInfo");
  return platform;
}

/* Sets the arguments of `kernel` from 0 on to `args`, in order; each takes the type it is given
 * (cast sizes to cl_uint and the like where the kernel says so). Throws cl::Error. */
template <typename... Args>
void
set_args (cl::Kernel & kernel, const Args &... args)
{
  cl_uint index = 0;
  (kernel.setArg (index++, args), ...);
}

}  // namespace gst_opencl
