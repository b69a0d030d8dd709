/* gst-opencl: memory CUDA exports and OpenCL imports (see gstopenclcudadriver.h).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "opencl/gstopenclcudadriver.h"

#include "opencl/gstopenclutils.h"

#define GST_CAT_DEFAULT gst_opencl_debug

namespace gst_opencl {

void
check_cuda (int status, const char *what)
{
  if (status != 0)
    throw Failure (Failure::Kind::Failed, std::string (what) + " failed (CUresult " +
        std::to_string (status) + ")");
}

std::string
cl_device_uuid (const cl::Device & device)
{
  unsigned char uuid[16];
  if (clGetDeviceInfo (device (), kClDeviceUuid, sizeof uuid, uuid, nullptr) != CL_SUCCESS)
    return "";
  return hex_bytes (uuid, sizeof uuid);
}

std::string
device_string_of_uuid (const std::string & uuid)
{
  if (uuid.empty ())
    return "";
  auto held = hold_driver ();
  std::vector<cl::Platform> platforms;
  cl::Platform::get (&platforms);
  for (const auto & platform : platforms) {
    std::vector<cl::Device> devices;
    try {
      platform.getDevices (CL_DEVICE_TYPE_ALL, &devices);
    } catch (const cl::Error &) {
      continue;
    }
    for (size_t index = 0; index < devices.size (); index++)
      if (cl_device_uuid (devices[index]) == uuid)
        return platform.getInfo<CL_PLATFORM_NAME> () + ":" + std::to_string (index);
  }
  return "";
}

cl::Buffer
import_external_memory (const Device & device, int fd, size_t bytes)
{
  auto create = reinterpret_cast<CreateBufferWithProperties> (
      dlsym (RTLD_DEFAULT, "clCreateBufferWithProperties"));
  if (!create)
    throw Failure (Failure::Kind::Failed, "the OpenCL loader lacks clCreateBufferWithProperties");
  const cl_ulong properties[] = { kClExternalMemoryOpaqueFd, (cl_ulong) fd,
    kClMemDeviceHandleList, (cl_ulong) (uintptr_t) device.cl_device (), kClMemDeviceHandleListEnd,
    0 };
  cl_int status = CL_SUCCESS;
  cl_mem memory = create (device.context (), properties, CL_MEM_READ_WRITE, bytes, nullptr,
      &status);
  if (!memory || status != CL_SUCCESS)
    throw Failure (Failure::Kind::Failed, "OpenCL cannot import the exported memory (error " +
        std::to_string (status) + ")");
  return cl::Buffer (memory);
}

int
cuda_device_for_uuid (const std::string & uuid, std::string * found_uuid, std::string * error)
{
  auto & cuda = CudaDriver::get ();
  if (!cuda.error ().empty ()) {
    *error = cuda.error ();
    return -1;
  }
  int count = 0;
  if (cuda.device_get_count (&count) != 0 || count <= 0) {
    *error = "the CUDA driver sees no device";
    return -1;
  }
  for (int ordinal = 0; ordinal < count; ordinal++) {
    int device = 0;
    unsigned char bytes[16];
    if (cuda.device_get (&device, ordinal) != 0 || cuda.device_get_uuid (bytes, device) != 0)
      continue;
    std::string text = hex_bytes (bytes, sizeof bytes);
    if (ordinal == 0 || text == uuid)
      *found_uuid = text;
    if (text == uuid)
      return device;
  }
  *error = "no CUDA device has the OpenCL device's UUID";
  return -1;
}

bool
cuda_allocate_exportable (int cuda_device, size_t bytes, CudaAllocation * allocation,
    std::string * error)
{
  auto & cuda = CudaDriver::get ();
  if (!cuda.error ().empty ()) {
    *error = cuda.error ();
    return false;
  }
  PrimaryContext current (cuda_device);
  if (!current.current ()) {
    *error = "cannot make the CUDA device current";
    return false;
  }
  CudaAllocationProp prop {};
  prop.type = 1;
  prop.requested_handle_types = 1;
  prop.location_type = 1;
  prop.location_id = cuda_device;
  size_t granularity = 0;
  bool ok = cuda.granularity (&granularity, &prop, 0) == 0 && granularity > 0;
  if (ok) {
    allocation->bytes = (bytes + granularity - 1) / granularity * granularity;
    ok = cuda.create (&allocation->handle, allocation->bytes, &prop, 0) == 0;
    if (ok && cuda.export_handle (&allocation->fd, allocation->handle, 1, 0) != 0) {
      cuda.release (allocation->handle);
      ok = false;
    }
  }
  if (!ok) {
    *error = "the CUDA driver cannot allocate exportable memory";
    allocation->handle = 0;
  }
  return ok;
}

void
cuda_release (const CudaAllocation & allocation)
{
  auto & cuda = CudaDriver::get ();
  if (allocation.handle && cuda.release)
    cuda.release (allocation.handle);
}

}  // namespace gst_opencl
