/* gst-opencl: the order of a port's CUDA copies and its kernels (see gstopenclcudaorder.h).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "opencl/gstopenclcudaorder.h"

#include <unistd.h>

#include <map>
#include <mutex>

#include "opencl/gstopenclenv.h"
#include "opencl/gstopenclutils.h"

#define GST_CAT_DEFAULT gst_opencl_debug

namespace gst_opencl {

namespace {

constexpr unsigned kCudaStreamNonBlocking = 0x1;
constexpr unsigned kCudaEventDisableTiming = 0x2;
constexpr int kCudaSemaphoreOpaqueFd = 1;
/* The words of GST_OPENCL_CUDA_ORDER, in the order of its row. */
constexpr int kOrderHost = 0;

bool
device_exports_semaphores (const cl::Device & device, std::string * why)
{
  const std::string extensions = device.getInfo<CL_DEVICE_EXTENSIONS> ();
  if (extensions.find ("cl_khr_external_semaphore_opaque_fd") == std::string::npos) {
    *why = "the OpenCL device has no cl_khr_external_semaphore_opaque_fd";
    return false;
  }
  cl_uint types[8] = {};
  size_t bytes = 0;
  if (clGetDeviceInfo (device (), kClDeviceSemaphoreExportHandleTypes, sizeof types, types,
          &bytes) != CL_SUCCESS)
    bytes = 0;
  for (size_t i = 0; i < bytes / sizeof types[0]; i++)
    if (types[i] == kClSemaphoreHandleOpaqueFd)
      return true;
  *why = "the OpenCL device exports no semaphore as a file descriptor";
  return false;
}

}  // namespace

/* A binary semaphore OpenCL made and exported, imported by CUDA in the context current. */
class SharedSemaphore
{
public:
  SharedSemaphore (const Device & device) : calls (device.cl_device)
  {
    if (!calls.usable ())
      throw Failure (Failure::Kind::Failed, "the OpenCL platform lacks the semaphore calls");
    const cl_ulong properties[] = { kClSemaphoreType, kClSemaphoreTypeBinary,
      kClSemaphoreExportHandleTypes, kClSemaphoreHandleOpaqueFd,
      kClSemaphoreExportHandleTypesEnd, 0 };
    cl_int status = CL_SUCCESS;
    cl = calls.create (device.context (), properties, &status);
    if (!cl || status != CL_SUCCESS)
      throw cl::Error (status, "clCreateSemaphoreWithPropertiesKHR");
    int fd = -1;
    status = calls.handle (cl, device.cl_device (), kClSemaphoreHandleOpaqueFd, sizeof fd, &fd,
        nullptr);
    if (status != CL_SUCCESS || fd < 0) {
      calls.release (cl);
      throw cl::Error (status, "clGetSemaphoreHandleForTypeKHR");
    }
    CudaSemaphoreHandle handle {};
    handle.type = kCudaSemaphoreOpaqueFd;
    handle.handle.fd = fd;
    const int result = CudaDriver::get ().import_semaphore (&cuda, &handle);
    if (result != 0) {
      close (fd);   /* CUDA owns it only once imported */
      calls.release (cl);
      check_cuda (result, "cuImportExternalSemaphore");
    }
  }
  ~SharedSemaphore ()
  {
    CudaDriver::get ().destroy_semaphore (cuda);
    calls.release (cl);
  }
  SharedSemaphore (const SharedSemaphore &) = delete;
  SharedSemaphore & operator= (const SharedSemaphore &) = delete;

  /* CUDA signals on `stream`, then the OpenCL queue waits. */
  void cuda_to_opencl (CUstream stream, cl::CommandQueue & queue)
  {
    CudaSemaphoreParams params {};
    check_cuda (CudaDriver::get ().signal_semaphores (&cuda, &params, 1, stream),
        "cuSignalExternalSemaphoresAsync");
    const cl_int status = calls.wait (queue (), 1, &cl, nullptr, 0, nullptr, nullptr);
    if (status != CL_SUCCESS)
      throw cl::Error (status, "clEnqueueWaitSemaphoresKHR");
  }
  /* The OpenCL queue signals, then CUDA waits on `stream`. */
  void opencl_to_cuda (cl::CommandQueue & queue, CUstream stream)
  {
    const cl_int status = calls.signal (queue (), 1, &cl, nullptr, 0, nullptr, nullptr);
    if (status != CL_SUCCESS)
      throw cl::Error (status, "clEnqueueSignalSemaphoresKHR");
    CudaSemaphoreParams params {};
    check_cuda (CudaDriver::get ().wait_semaphores (&cuda, &params, 1, stream),
        "cuWaitExternalSemaphoresAsync");
  }

private:
  ClSemaphoreCalls calls;
  ClSemaphore cl = nullptr;
  CUexternalSemaphore cuda = nullptr;
};

bool
cuda_semaphores_chosen (const Device & device, int cuda_device, std::string * why)
{
  if (env::word (env::Variable::CudaOrder) == kOrderHost) {
    *why = "GST_OPENCL_CUDA_ORDER=host";
    return false;
  }
  static std::mutex lock;
  static auto *answers = new std::map<cl_device_id, std::string> ();
  std::lock_guard<std::mutex> hold (lock);
  auto known = answers->find (device.cl_device ());
  if (known == answers->end ()) {
    std::string reason;
    if (!CudaDriver::get ().orders ())
      reason = "the CUDA driver lacks streams, events or external semaphores";
    else if (device_exports_semaphores (device.cl_device, &reason)) {
      try {
        PrimaryContext current (cuda_device);
        if (!current.current ())
          throw Failure (Failure::Kind::Failed, "no CUDA context");
        SharedSemaphore probe (device);
      } catch (const std::exception & error) {
        reason = std::string ("a semaphore exported by OpenCL and imported by CUDA failed: ") +
            error.what ();
      }
    }
    GST_INFO ("CUDA frames on %s: %s", device.name.c_str (),
        reason.empty () ? "ordered by semaphores" : reason.c_str ());
    known = answers->emplace (device.cl_device (), reason).first;
  }
  *why = known->second;
  return known->second.empty ();
}

CudaContextScope::CudaContextScope (CUcontext context)
{
  pushed_ = context && CudaDriver::get ().push (context) == 0;
}

CudaContextScope::~CudaContextScope ()
{
  CUcontext popped = nullptr;
  if (pushed_)
    CudaDriver::get ().pop (&popped);
}

CudaOrdering::CudaOrdering () = default;

CudaOrdering::~CudaOrdering ()
{
  reset ();
}

void
CudaOrdering::prepare (const Device & device, CUcontext context, bool semaphores)
{
  if (context_ == context && (stream_ || !CudaDriver::get ().orders ()))
    return;
  reset ();
  context_ = context;
  auto & cuda = CudaDriver::get ();
  if (!cuda.orders ())
    return;   /* the legacy default stream, and host waits */
  check_cuda (cuda.stream_create (&stream_, kCudaStreamNonBlocking), "cuStreamCreate");
  check_cuda (cuda.event_create (&writer_event_, kCudaEventDisableTiming), "cuEventCreate");
  if (!semaphores || gave_up_)
    return;
  try {
    semaphore_ = std::make_unique<SharedSemaphore> (device);
  } catch (const std::exception & error) {
    give_up_semaphores (error.what ());
  }
}

void
CudaOrdering::give_up_semaphores (const std::string & why)
{
  GST_WARNING ("CUDA frames: semaphores given up, the host orders the copies: %s", why.c_str ());
  semaphore_.reset ();
  gave_up_ = true;
}

void
CudaOrdering::follow (CUstream writer_stream)
{
  auto & cuda = CudaDriver::get ();
  if (!writer_stream || !stream_ || writer_stream == stream_)
    return;
  check_cuda (cuda.event_record (writer_event_, writer_stream), "cuEventRecord");
  check_cuda (cuda.stream_wait_event (stream_, writer_event_, 0), "cuStreamWaitEvent");
}

CUevent
CudaOrdering::spare_event ()
{
  if (!spare_.empty ()) {
    CUevent event = spare_.back ();
    spare_.pop_back ();
    return event;
  }
  CUevent event = nullptr;
  check_cuda (CudaDriver::get ().event_create (&event, kCudaEventDisableTiming), "cuEventCreate");
  return event;
}

void
CudaOrdering::release_held (size_t keep)
{
  auto & cuda = CudaDriver::get ();
  while (!held_.empty ()) {
    auto [event, buffer] = held_.front ();
    if (held_.size () > keep)
      cuda.event_synchronize (event);
    else if (cuda.event_query (event) != 0)
      break;
    gst_buffer_unref (buffer);
    spare_.push_back (event);
    held_.pop_front ();
  }
}

void
CudaOrdering::copied_in (ElementDevice & element, GstBuffer * buffer)
{
  auto & cuda = CudaDriver::get ();
  if (semaphore_) {
    try {
      semaphore_->cuda_to_opencl (stream_, element.queue ());
    } catch (const std::exception & error) {
      give_up_semaphores (error.what ());
    }
  }
  if (semaphore_) {
    /* The frame's buffer goes back to its pool only once CUDA read it: its writer may reuse it. */
    CUevent event = spare_event ();
    check_cuda (cuda.event_record (event, stream_), "cuEventRecord");
    held_.emplace_back (event, gst_buffer_ref (buffer));
    release_held (2);
    return;
  }
  check_cuda (cuda.stream_synchronize (stream_), "waiting for the CUDA copy of a frame");
}

void
CudaOrdering::before_copy_out (ElementDevice & element, const cl::Event & done,
    CUstream stream)
{
  if (semaphore_) {
    try {
      semaphore_->opencl_to_cuda (element.queue (), stream);
      return;
    } catch (const std::exception & error) {
      give_up_semaphores (error.what ());
    }
  }
  /* CUDA reads what the kernels wrote: the host waits for them, as a download does. */
  if (done ())
    element.wait (done);
  else
    element.finish ();
}

void
CudaOrdering::reset ()
{
  if (!context_)
    return;
  auto & cuda = CudaDriver::get ();
  CudaContextScope scope (context_);
  if (stream_)
    cuda.stream_synchronize (stream_);
  release_held (0);
  for (CUevent event : spare_)
    cuda.event_destroy (event);
  spare_.clear ();
  semaphore_.reset ();
  if (writer_event_)
    cuda.event_destroy (writer_event_);
  writer_event_ = nullptr;
  if (stream_)
    cuda.stream_destroy (stream_);
  stream_ = nullptr;
  context_ = nullptr;
}

}  // namespace gst_opencl
