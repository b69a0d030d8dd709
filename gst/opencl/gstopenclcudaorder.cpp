/* gst-opencl: the order of a port's CUDA copies and its kernels (see gstopenclcudaorder.h).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "opencl/gstopenclcudaorder.h"

#include <unistd.h>

#include <map>
#include <mutex>

#include "opencl/gstopenclenv.h"
#include "opencl/gstopenclsemaphore.h"
#include "opencl/gstopenclutils.h"

#define GST_CAT_DEFAULT gst_opencl_debug

namespace gst_opencl {

namespace {

constexpr unsigned kCudaStreamNonBlocking = 0x1;
constexpr unsigned kCudaEventDisableTiming = 0x2;
constexpr int kCudaSemaphoreOpaqueFd = 1;
/* The words of GST_OPENCL_CUDA_ORDER, in the order of its row. */
constexpr int kOrderSemaphores = 1;

}  // namespace

/* A binary semaphore that OpenCL and CUDA (in the context current) both reach
 * (gstopenclsemaphore.h: made by OpenCL or by Vulkan), CUDA's side imported from a file
 * descriptor of it. */
class SharedSemaphore
{
public:
  SharedSemaphore (const Device & device) : cl (device)
  {
    CudaSemaphoreHandle handle {};
    handle.type = kCudaSemaphoreOpaqueFd;
    handle.handle.fd = cl.export_fd ();
    const int result = CudaDriver::get ().import_semaphore (&cuda, &handle);
    if (result != 0) {
      close (handle.handle.fd);   /* CUDA owns it only once imported */
      check_cuda (result, "cuImportExternalSemaphore");
    }
  }
  ~SharedSemaphore ()
  {
    CudaDriver::get ().destroy_semaphore (cuda);
  }
  SharedSemaphore (const SharedSemaphore &) = delete;
  SharedSemaphore & operator= (const SharedSemaphore &) = delete;

  /* The four halves of a hand-over: each binary semaphore is signalled once and then waited
   * for once, in turn (a second signal before the wait would be lost). */
  void cuda_signal (CUstream stream)
  {
    CudaSemaphoreParams params {};
    check_cuda (CudaDriver::get ().signal_semaphores (&cuda, &params, 1, stream),
        "cuSignalExternalSemaphoresAsync");
  }
  void cuda_wait (CUstream stream)
  {
    CudaSemaphoreParams params {};
    check_cuda (CudaDriver::get ().wait_semaphores (&cuda, &params, 1, stream),
        "cuWaitExternalSemaphoresAsync");
  }
  void opencl_signal (cl::CommandQueue & queue) { cl.signal (queue); }
  void opencl_wait (cl::CommandQueue & queue) { cl.wait (queue); }

  /* Where the semaphore came from, for the `memory` property and the log. */
  const char *source () const { return cl.source (); }

private:
  SharedClSemaphore cl;
  CUexternalSemaphore cuda = nullptr;
};

bool
cuda_semaphores_chosen (const Device & device, int cuda_device, std::string * why)
{
  /* Host waits unless semaphores are asked for: with a queue shared by several streams, a
   * semaphore wait holds every stream's commands behind it (docs/memory.md: eight streams fell
   * to 10 to 29% of the decoders' rate on the H100, against 95% and more with host waits). */
  if (env::word (env::Variable::CudaOrder) != kOrderSemaphores) {
    *why = "the host orders CUDA frames unless GST_OPENCL_CUDA_ORDER=semaphores";
    return false;
  }
  static std::mutex lock;
  static auto *answers = new std::map<cl_device_id, std::string> ();
  std::lock_guard<std::mutex> hold (lock);
  auto known = answers->find (device.cl_device ());
  if (known == answers->end ()) {
    std::string reason;
    const char *maker = "";
    if (!CudaDriver::get ().orders ())
      reason = "the CUDA driver lacks streams, events or external semaphores";
    else if (opencl_shares_semaphores (device.cl_device, &reason)) {
      reason.clear ();
      try {
        PrimaryContext current (cuda_device);
        if (!current.current ())
          throw Failure (Failure::Kind::Failed, "no CUDA context");
        SharedSemaphore probe (device);
        maker = probe.source ();
      } catch (const std::exception & error) {
        reason = std::string ("a semaphore shared by OpenCL and CUDA failed: ") + error.what ();
      }
    }
    GST_INFO ("CUDA frames on %s: %s%s", device.name.c_str (), reason.empty () ?
        "ordered by semaphores made by " : reason.c_str (), reason.empty () ? maker : "");
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
CudaOrdering::prepare (CUcontext context, bool semaphores)
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
  /* A direction's semaphores are made when a frame first goes that way (has_channel). */
  semaphores_ = semaphores && !gave_up_;
}

bool
CudaOrdering::has_channel (Channel & channel, const Device & device)
{
  if (!semaphores_)
    return false;
  if (channel.ahead)
    return true;
  try {
    channel.ahead = std::make_unique<SharedSemaphore> (device);
    channel.back = std::make_unique<SharedSemaphore> (device);
    channel.primed = false;
    return true;
  } catch (const std::exception & error) {
    give_up_semaphores (error.what ());
    return false;
  }
}

void
CudaOrdering::drop_channels ()
{
  for (Channel * channel : { &in_, &out_ }) {
    channel->ahead.reset ();
    channel->back.reset ();
    channel->primed = false;
  }
  semaphores_ = false;
}

void
CudaOrdering::give_up_semaphores (const std::string & why)
{
  GST_WARNING ("CUDA frames: semaphores given up, the host orders the copies: %s", why.c_str ());
  drop_channels ();
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
CudaOrdering::before_copy_in (ElementDevice & element)
{
  if (!semaphores_ || !in_.primed)
    return;
  try {
    /* The kernels enqueued so far (the last frame's, which read the slot CUDA may fill next)
     * hand the stream back before it copies again. */
    in_.back->opencl_signal (element.queue ());
    in_.back->cuda_wait (stream_);
  } catch (const std::exception & error) {
    give_up_semaphores (error.what ());
  }
}

void
CudaOrdering::copied_in (ElementDevice & element, GstBuffer * buffer)
{
  auto & cuda = CudaDriver::get ();
  if (has_channel (in_, element.device ())) {
    try {
      in_.ahead->cuda_signal (stream_);
      in_.ahead->opencl_wait (element.queue ());
      in_.primed = true;
    } catch (const std::exception & error) {
      give_up_semaphores (error.what ());
    }
  }
  if (semaphores_) {
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
  if (has_channel (out_, element.device ())) {
    try {
      /* The queue waits for the last copy out to have ended before it hands over again. */
      if (out_.primed)
        out_.back->opencl_wait (element.queue ());
      out_.ahead->opencl_signal (element.queue ());
      out_.ahead->cuda_wait (stream);
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
CudaOrdering::after_copy_out (CUstream stream)
{
  if (!semaphores_ || !out_.back)
    return;
  try {
    out_.back->cuda_signal (stream);
    out_.primed = true;
  } catch (const std::exception & error) {
    give_up_semaphores (error.what ());
  }
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
  drop_channels ();
  if (writer_event_)
    cuda.event_destroy (writer_event_);
  writer_event_ = nullptr;
  if (stream_)
    cuda.stream_destroy (stream_);
  stream_ = nullptr;
  context_ = nullptr;
}

}  // namespace gst_opencl
