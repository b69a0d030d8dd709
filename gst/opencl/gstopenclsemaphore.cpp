/* gst-opencl: semaphores shared by OpenCL and another API (see gstopenclsemaphore.h).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "opencl/gstopenclsemaphore.h"

#include <unistd.h>

#include "opencl/gstopenclcudadriver.h"
#include "opencl/gstopenclutils.h"
#include "opencl/gstopenclvulkan.h"

namespace gst_opencl {

namespace {

/* Whether the device lists the opaque-fd semaphore type under `query`
 * (CL_DEVICE_SEMAPHORE_EXPORT_HANDLE_TYPES_KHR or _IMPORT_). */
bool
lists_opaque_fd (const cl::Device & device, cl_device_info query)
{
  cl_uint types[8] = {};
  size_t bytes = 0;
  if (clGetDeviceInfo (device (), query, sizeof types, types, &bytes) != CL_SUCCESS)
    bytes = 0;
  for (size_t i = 0; i < bytes / sizeof types[0]; i++)
    if (types[i] == kClSemaphoreHandleOpaqueFd)
      return true;
  return false;
}

bool
exports_semaphores (const cl::Device & device)
{
  const std::string extensions = device.getInfo<CL_DEVICE_EXTENSIONS> ();
  return extensions.find ("cl_khr_external_semaphore_opaque_fd") != std::string::npos &&
      lists_opaque_fd (device, kClDeviceSemaphoreExportHandleTypes);
}

}  // namespace

bool
opencl_shares_semaphores (const cl::Device & device, std::string * why)
{
  if (!ClSemaphoreCalls (device).usable ()) {
    *why = "the OpenCL platform lacks the semaphore calls";
    return false;
  }
  if (exports_semaphores (device) ||
      lists_opaque_fd (device, kClDeviceSemaphoreImportHandleTypes))
    return true;
  *why = "the OpenCL device neither exports nor imports semaphores as file descriptors";
  return false;
}

SharedClSemaphore::SharedClSemaphore (const Device & device) : calls_ (device.cl_device),
    device_ (device.cl_device ())
{
  std::string why;
  if (!opencl_shares_semaphores (device.cl_device, &why))
    throw Failure (Failure::Kind::NotFound, why);
  cl_int status = CL_SUCCESS;
  if (exports_semaphores (device.cl_device)) {
    const cl_ulong properties[] = { kClSemaphoreType, kClSemaphoreTypeBinary,
      kClSemaphoreExportHandleTypes, kClSemaphoreHandleOpaqueFd,
      kClSemaphoreExportHandleTypesEnd, 0 };
    semaphore_ = calls_.create (device.context (), properties, &status);
    if (!semaphore_ || status != CL_SUCCESS)
      throw cl::Error (status, "clCreateSemaphoreWithPropertiesKHR");
    return;
  }
  /* Vulkan makes it on the OpenCL device's GPU; OpenCL imports one file descriptor (and keeps
   * it: the import is the semaphore's). */
  vulkan_ = std::make_unique<VulkanSemaphore> (cl_device_uuid (device.cl_device));
  const int fd = vulkan_->export_fd ();
  const cl_ulong properties[] = { kClSemaphoreType, kClSemaphoreTypeBinary,
    kClSemaphoreHandleOpaqueFd, (cl_ulong) fd, 0 };
  semaphore_ = calls_.create (device.context (), properties, &status);
  if (!semaphore_ || status != CL_SUCCESS) {
    close (fd);
    throw cl::Error (status, "clCreateSemaphoreWithPropertiesKHR (a Vulkan semaphore)");
  }
}

SharedClSemaphore::~SharedClSemaphore ()
{
  if (semaphore_)
    calls_.release (semaphore_);
}

int
SharedClSemaphore::export_fd ()
{
  if (vulkan_)
    return vulkan_->export_fd ();
  int fd = -1;
  const cl_int status = calls_.handle (semaphore_, device_, kClSemaphoreHandleOpaqueFd,
      sizeof fd, &fd, nullptr);
  if (status != CL_SUCCESS || fd < 0)
    throw cl::Error (status, "clGetSemaphoreHandleForTypeKHR");
  return fd;
}

void
SharedClSemaphore::signal (cl::CommandQueue & queue)
{
  const cl_int status = calls_.signal (queue (), 1, &semaphore_, nullptr, 0, nullptr, nullptr);
  if (status != CL_SUCCESS)
    throw cl::Error (status, "clEnqueueSignalSemaphoresKHR");
}

void
SharedClSemaphore::wait (cl::CommandQueue & queue)
{
  const cl_int status = calls_.wait (queue (), 1, &semaphore_, nullptr, 0, nullptr, nullptr);
  if (status != CL_SUCCESS)
    throw cl::Error (status, "clEnqueueWaitSemaphoresKHR");
}

const char *
SharedClSemaphore::source () const
{
  return vulkan_ ? "Vulkan" : "OpenCL";
}

}  // namespace gst_opencl
