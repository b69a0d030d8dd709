/* gst-opencl: the CUDA driver (libcuda.so.1) and GStreamer's CUDA library
 * (libgstcuda-1.0.so.0), loaded at run time, and the memory both CUDA and OpenCL reach: device
 * allocations the CUDA driver exports as file descriptors and OpenCL imports
 * (cl_khr_external_memory_opaque_fd). The CUDA frames (gstopenclcuda.h) and the GL interop's
 * external-memory path (gstopenclglexternal.cpp) both use them.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Nothing of CUDA is needed to build: the driver's entry points and structures are declared
 * here as the driver API (cuda.h, v2 entry points) defines them. */
#pragma once

#include <gst/gst.h>

#include <dlfcn.h>

#include <string>
#include <type_traits>

#include "opencl/gstopenclbindings.h"
#include "opencl/gstopenclcontext.h"

namespace gst_opencl {

/* The CUDA driver's exportable allocations, also used by the GL interop's external-memory path. */
struct CudaAllocation
{
  unsigned long long handle = 0;
  size_t bytes = 0;
  int fd = -1;   /* exported; the caller owns it */
};
/* The CUDA ordinal whose UUID (hex) is `uuid`; -1 with `error` set. `found_uuid` gets the
 * matching UUID, or the first device's when none matches. */
int cuda_device_for_uuid (const std::string & uuid, std::string * found_uuid,
    std::string * error);
bool cuda_allocate_exportable (int cuda_device, size_t bytes, CudaAllocation * allocation,
    std::string * error);
void cuda_release (const CudaAllocation & allocation);

/* The OpenCL device's UUID (cl_khr_device_uuid) in hex; empty when it has none. */
std::string cl_device_uuid (const cl::Device & device);

/* A device string ("<platform>:<index>") naming the OpenCL device whose UUID (hex) is `uuid`;
 * "" when none is. The devices that CUDA frames and GL contexts are on are found by it. */
std::string device_string_of_uuid (const std::string & uuid);

/* Imports memory exported as an opaque fd (cl_khr_external_memory_opaque_fd); the caller keeps
 * the fd open while the buffer lives. Throws Failure. */
cl::Buffer import_external_memory (const Device & device, int fd, size_t bytes);

/* The driver itself, for the CUDA frames and bridge. */

using CUdeviceptr = unsigned long long;
using CUcontext = void *;

/* CUDA_MEMCPY2D of the driver API (cuda.h, v2 entry points). */
struct CudaCopy2D
{
  size_t src_x_bytes, src_y;
  int src_memory_type;          /* CU_MEMORYTYPE_DEVICE = 2 */
  const void *src_host;
  CUdeviceptr src_device;
  void *src_array;
  size_t src_pitch;
  size_t dst_x_bytes, dst_y;
  int dst_memory_type;
  void *dst_host;
  CUdeviceptr dst_device;
  void *dst_array;
  size_t dst_pitch;
  size_t width_bytes, height;
};

struct CudaAllocationProp
{
  int type;                    /* CU_MEM_ALLOCATION_TYPE_PINNED = 1 */
  int requested_handle_types;  /* CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR = 1 */
  int location_type;           /* CU_MEM_LOCATION_TYPE_DEVICE = 1 */
  int location_id;
  void *win32_metadata;
  unsigned char compression_type;
  unsigned char rdma_capable;
  unsigned short usage;
  unsigned char reserved[4];
};

struct CudaAccessDesc
{
  int location_type;           /* CU_MEM_LOCATION_TYPE_DEVICE = 1 */
  int location_id;
  int flags;                   /* CU_MEM_ACCESS_FLAGS_PROT_READWRITE = 3 */
};

/* CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC (cuda.h): `type` 1 is an opaque file descriptor. */
struct CudaSemaphoreHandle
{
  int type;
  union
  {
    int fd;
    struct
    {
      void *handle;
      const void *name;
    } win32;
  } handle;
  unsigned int flags;
  unsigned int reserved[16];
};

/* CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS and _WAIT_PARAMS (cuda.h), which share this layout;
 * a binary semaphore reads none of the fields, so both are all zeros here. */
struct CudaSemaphoreParams
{
  unsigned long long fence_value;
  unsigned long long sci_sync;
  unsigned long long keyed_mutex_key;
  unsigned int keyed_mutex_rest[12];
  unsigned int flags;
  unsigned int reserved[16];
};

/* Throws Failure ("<what> failed (CUresult N)") unless `status` is CUDA_SUCCESS. */
void check_cuda (int status, const char *what);

using CUstream = void *;
using CUevent = void *;
using CUexternalSemaphore = void *;

template<typename T> inline bool
find_symbol (void *library, T & pointer, const char *name)
{
  pointer = reinterpret_cast<T> (dlsym (library, name));
  return pointer != nullptr;
}

/* The CUDA driver, loaded once and never unloaded or destroyed (a static destructor would run
 * after the drivers tore down their own state). It holds entry points only. */
class CudaDriver
{
public:
  static CudaDriver & get ()
  {
    static CudaDriver *driver = new CudaDriver ();
    return *driver;
  }

  const std::string & error () const { return error_; }

  using Result = int;
  Result (*device_get_count) (int *) = nullptr;
  Result (*device_get) (int *, int) = nullptr;
  Result (*device_get_uuid) (unsigned char *, int) = nullptr;
  Result (*primary_retain) (CUcontext *, int) = nullptr;
  Result (*primary_release) (int) = nullptr;
  Result (*push) (CUcontext) = nullptr;
  Result (*pop) (CUcontext *) = nullptr;
  Result (*granularity) (size_t *, const CudaAllocationProp *, int) = nullptr;
  Result (*create) (unsigned long long *, size_t, const CudaAllocationProp *,
      unsigned long long) = nullptr;
  Result (*export_handle) (int *, unsigned long long, int, unsigned long long) = nullptr;
  Result (*release) (unsigned long long) = nullptr;
  Result (*address_reserve) (CUdeviceptr *, size_t, size_t, CUdeviceptr,
      unsigned long long) = nullptr;
  Result (*address_free) (CUdeviceptr, size_t) = nullptr;
  Result (*map) (CUdeviceptr, size_t, size_t, unsigned long long, unsigned long long) = nullptr;
  Result (*unmap) (CUdeviceptr, size_t) = nullptr;
  Result (*set_access) (CUdeviceptr, size_t, const CudaAccessDesc *, size_t) = nullptr;
  Result (*pointer_attribute) (void *, int, CUdeviceptr) = nullptr;
  Result (*copy_2d_async) (const CudaCopy2D *, void *) = nullptr;
  Result (*stream_synchronize) (void *) = nullptr;
  /* Streams, events and external semaphores: the CUDA frames' ordering on the device
   * (gstopenclcuda.cpp). Null when the driver lacks one of them (`orders ()` is false). */
  Result (*stream_create) (CUstream *, unsigned) = nullptr;
  Result (*stream_destroy) (CUstream) = nullptr;
  Result (*event_create) (CUevent *, unsigned) = nullptr;
  Result (*event_destroy) (CUevent) = nullptr;
  Result (*event_record) (CUevent, CUstream) = nullptr;
  Result (*event_query) (CUevent) = nullptr;
  Result (*event_synchronize) (CUevent) = nullptr;
  Result (*import_semaphore) (CUexternalSemaphore *, const CudaSemaphoreHandle *) = nullptr;
  Result (*destroy_semaphore) (CUexternalSemaphore) = nullptr;
  Result (*signal_semaphores) (const CUexternalSemaphore *, const CudaSemaphoreParams *,
      unsigned, CUstream) = nullptr;
  Result (*wait_semaphores) (const CUexternalSemaphore *, const CudaSemaphoreParams *,
      unsigned, CUstream) = nullptr;
  Result (*stream_wait_event) (CUstream, CUevent, unsigned) = nullptr;
  Result (*can_access_peer) (int *, int, int) = nullptr;

  bool orders () const { return stream_create && wait_semaphores; }

private:
  std::string error_;

  CudaDriver ()
  {
    void *library = dlopen ("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
      error_ = "no CUDA driver (libcuda.so.1)";
      return;
    }
    Result (*init) (unsigned) = nullptr;
    const bool all = find_symbol (library, init, "cuInit") &&
        find_symbol (library, device_get_count, "cuDeviceGetCount") &&
        find_symbol (library, device_get, "cuDeviceGet") &&
        find_symbol (library, device_get_uuid, "cuDeviceGetUuid") &&
        find_symbol (library, primary_retain, "cuDevicePrimaryCtxRetain") &&
        find_symbol (library, primary_release, "cuDevicePrimaryCtxRelease_v2") &&
        find_symbol (library, push, "cuCtxPushCurrent_v2") &&
        find_symbol (library, pop, "cuCtxPopCurrent_v2") &&
        find_symbol (library, granularity, "cuMemGetAllocationGranularity") &&
        find_symbol (library, create, "cuMemCreate") &&
        find_symbol (library, export_handle, "cuMemExportToShareableHandle") &&
        find_symbol (library, release, "cuMemRelease") &&
        find_symbol (library, address_reserve, "cuMemAddressReserve") &&
        find_symbol (library, address_free, "cuMemAddressFree") &&
        find_symbol (library, map, "cuMemMap") &&
        find_symbol (library, unmap, "cuMemUnmap") &&
        find_symbol (library, set_access, "cuMemSetAccess") &&
        find_symbol (library, pointer_attribute, "cuPointerGetAttribute") &&
        find_symbol (library, copy_2d_async, "cuMemcpy2DAsync_v2") &&
        find_symbol (library, stream_synchronize, "cuStreamSynchronize");
    if (!all) {
      error_ = "the CUDA driver lacks the virtual memory calls (cuMemCreate, cuMemMap)";
      release = nullptr;
      return;
    }
    if (init (0) != 0) {
      error_ = "the CUDA driver does not initialise (cuInit)";
      return;
    }
    const bool ordering = find_symbol (library, stream_create, "cuStreamCreate") &&
        find_symbol (library, stream_destroy, "cuStreamDestroy_v2") &&
        find_symbol (library, event_create, "cuEventCreate") &&
        find_symbol (library, event_destroy, "cuEventDestroy_v2") &&
        find_symbol (library, event_record, "cuEventRecord") &&
        find_symbol (library, event_query, "cuEventQuery") &&
        find_symbol (library, event_synchronize, "cuEventSynchronize") &&
        find_symbol (library, import_semaphore, "cuImportExternalSemaphore") &&
        find_symbol (library, destroy_semaphore, "cuDestroyExternalSemaphore") &&
        find_symbol (library, signal_semaphores, "cuSignalExternalSemaphoresAsync") &&
        find_symbol (library, wait_semaphores, "cuWaitExternalSemaphoresAsync") &&
        find_symbol (library, stream_wait_event, "cuStreamWaitEvent");
    if (!ordering)
      stream_create = nullptr;
    find_symbol (library, can_access_peer, "cuDeviceCanAccessPeer");
  }
};

/* A CUDA device's primary context, current for the scope. */
class PrimaryContext
{
public:
  explicit PrimaryContext (int device) : device_ (device)
  {
    auto & cuda = CudaDriver::get ();
    CUcontext context = nullptr;
    if (cuda.primary_retain (&context, device) != 0)
      return;
    retained_ = true;
    pushed_ = cuda.push (context) == 0;
  }
  ~PrimaryContext ()
  {
    auto & cuda = CudaDriver::get ();
    CUcontext popped = nullptr;
    if (pushed_)
      cuda.pop (&popped);
    if (retained_)
      cuda.primary_release (device_);
  }
  bool current () const { return pushed_; }

private:
  int device_;
  bool retained_ = false;
  bool pushed_ = false;
};

/* GStreamer's CUDA library, for its context and buffer pool; loaded once. */
struct GstCudaLibrary
{
  gboolean (*load_library) () = nullptr;
  void (*memory_init_once) () = nullptr;
  gboolean (*ensure_element_context) (GstElement *, gint, GstObject **) = nullptr;
  gboolean (*handle_set_context) (GstElement *, GstContext *, gint, GstObject **) = nullptr;
  gboolean (*handle_context_query) (GstElement *, GstQuery *, GstObject *) = nullptr;
  GstBufferPool *(*buffer_pool_new) (GstObject *) = nullptr;
  /* GStreamer 1.24 and later (null before): a CUDA memory's stream, its handle, and the wait
   * for work its writer left on it (gst_cuda_memory_sync). */
  void (*memory_sync) (GstMemory *) = nullptr;
  void *(*memory_get_stream) (GstMemory *) = nullptr;
  CUstream (*stream_get_handle) (void *) = nullptr;
  bool usable = false;

  static const GstCudaLibrary & get ()
  {
    static GstCudaLibrary *library = new GstCudaLibrary ();
    return *library;
  }

private:
  GstCudaLibrary ()
  {
    void *library = dlopen ("libgstcuda-1.0.so.0", RTLD_NOW | RTLD_LOCAL);
    if (!library)
      return;
    usable = find_symbol (library, load_library, "gst_cuda_load_library") &&
        find_symbol (library, ensure_element_context, "gst_cuda_ensure_element_context") &&
        find_symbol (library, handle_set_context, "gst_cuda_handle_set_context") &&
        find_symbol (library, handle_context_query, "gst_cuda_handle_context_query") &&
        find_symbol (library, buffer_pool_new, "gst_cuda_buffer_pool_new") &&
        find_symbol (library, memory_init_once, "gst_cuda_memory_init_once") &&
        load_library ();
    /* The CUDA allocator exists once this ran (NVIDIA's plugin runs it when it loads; the
     * pools made here may come first). */
    if (usable)
      memory_init_once ();
    if (!find_symbol (library, memory_sync, "gst_cuda_memory_sync") ||
        !find_symbol (library, memory_get_stream, "gst_cuda_memory_get_stream") ||
        !find_symbol (library, stream_get_handle, "gst_cuda_stream_get_handle"))
      memory_sync = nullptr;
  }
};

constexpr cl_ulong kClExternalMemoryOpaqueFd = 0x2060;
constexpr cl_ulong kClMemDeviceHandleList = 0x2051;
constexpr cl_ulong kClMemDeviceHandleListEnd = 0;
constexpr cl_uint kClDeviceUuid = 0x106A;

using CreateBufferWithProperties = cl_mem (CL_API_CALL *) (cl_context, const cl_ulong *,
    cl_mem_flags, size_t, void *, cl_int *);
using EnqueueExternalMemObjects = cl_int (CL_API_CALL *) (cl_command_queue, cl_uint,
    const cl_mem *, cl_uint, const cl_event *, cl_event *);

inline EnqueueExternalMemObjects
external_memory_call (const cl::Device & device, const char *name)
{
  cl_platform_id platform = platform_id (device);
  return reinterpret_cast<EnqueueExternalMemObjects> (
      clGetExtensionFunctionAddressForPlatform (platform, name));
}

}  // namespace gst_opencl
