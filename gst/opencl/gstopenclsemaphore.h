/* gst-opencl: binary semaphores that an OpenCL queue signals and waits for, shared with another
 * API (CUDA, GL) through opaque file descriptors (cl_khr_external_semaphore_opaque_fd).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * OpenCL makes the semaphore and exports it where its driver exports semaphores; else Vulkan
 * makes one on the same GPU (gstopenclvulkan.h) and OpenCL imports it (NVIDIA's OpenCL, CUDA and
 * GL import semaphores but export none). Either way `export_fd` hands a file descriptor of the
 * same semaphore to the other API. The users keep each binary semaphore in turn: one signal,
 * then its wait, before the next signal (a second signal before the wait is lost, and that wait
 * never ends). */
#pragma once

#include <memory>
#include <string>
#include <type_traits>

#include "opencl/gstopenclbindings.h"
#include "opencl/gstopenclcontext.h"

namespace gst_opencl {

/* cl_khr_semaphore and cl_khr_external_semaphore(_opaque_fd), declared here as the extension
 * defines them (the headers of Debian 12 predate it). */
using ClSemaphore = void *;
constexpr cl_ulong kClSemaphoreType = 0x203D;
constexpr cl_ulong kClSemaphoreTypeBinary = 1;
constexpr cl_ulong kClSemaphoreExportHandleTypes = 0x203F;
constexpr cl_ulong kClSemaphoreExportHandleTypesEnd = 0;
constexpr cl_uint kClSemaphoreHandleOpaqueFd = 0x2055;
constexpr cl_uint kClDeviceSemaphoreImportHandleTypes = 0x204D;
constexpr cl_uint kClDeviceSemaphoreExportHandleTypes = 0x204E;

/* The semaphore calls of a device's platform; `usable` when it has them all. */
struct ClSemaphoreCalls
{
  using Create = ClSemaphore (CL_API_CALL *) (cl_context, const cl_ulong *, cl_int *);
  using Enqueue = cl_int (CL_API_CALL *) (cl_command_queue, cl_uint, const ClSemaphore *,
      const cl_ulong *, cl_uint, const cl_event *, cl_event *);
  using Handle = cl_int (CL_API_CALL *) (ClSemaphore, cl_device_id, cl_uint, size_t, void *,
      size_t *);
  using Release = cl_int (CL_API_CALL *) (ClSemaphore);

  Create create = nullptr;
  Enqueue wait = nullptr;
  Enqueue signal = nullptr;
  Handle handle = nullptr;
  Release release = nullptr;

  explicit ClSemaphoreCalls (const cl::Device & device)
  {
    cl_platform_id platform = platform_id (device);
    auto find = [platform] (auto & pointer, const char *name) {
      pointer = reinterpret_cast<std::remove_reference_t<decltype (pointer)>> (
          clGetExtensionFunctionAddressForPlatform (platform, name));
      return pointer != nullptr;
    };
    if (!(find (create, "clCreateSemaphoreWithPropertiesKHR") &&
            find (wait, "clEnqueueWaitSemaphoresKHR") &&
            find (signal, "clEnqueueSignalSemaphoresKHR") &&
            find (handle, "clGetSemaphoreHandleForTypeKHR") &&
            find (release, "clReleaseSemaphoreKHR")))
      create = nullptr;
  }
  bool usable () const { return create != nullptr; }
};

/* Whether OpenCL on `device` can share a semaphore as a file descriptor: it exports them, or it
 * imports them (and Vulkan may make them); `why` says why not. */
bool opencl_shares_semaphores (const cl::Device & device, std::string * why);

class VulkanSemaphore;

/* One binary semaphore of `device`'s OpenCL context, reachable by another API through
 * export_fd. */
class SharedClSemaphore
{
public:
  /* Throws Failure or cl::Error when neither OpenCL nor Vulkan can make it. */
  explicit SharedClSemaphore (const Device & device);
  ~SharedClSemaphore ();
  SharedClSemaphore (const SharedClSemaphore &) = delete;
  SharedClSemaphore & operator= (const SharedClSemaphore &) = delete;

  /* A new file descriptor of the semaphore for another API; the caller owns it until that
   * API's import takes it over. Throws. */
  int export_fd ();
  /* Enqueued on `queue`, after what is enqueued before; throw cl::Error. */
  void signal (cl::CommandQueue & queue);
  void wait (cl::CommandQueue & queue);
  /* Who made it, for the log: "OpenCL" or "Vulkan". */
  const char *source () const;

private:
  ClSemaphoreCalls calls_;
  ClSemaphore semaphore_ = nullptr;
  cl_device_id device_ = nullptr;
  std::unique_ptr<VulkanSemaphore> vulkan_;
};

}  // namespace gst_opencl
