/* gst-opencl: the host's waits for the device, which an element can give up.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "opencl/gstopenclwait.h"

#include <algorithm>
#include <chrono>

#include "opencl/gstopenclutils.h"

#define GST_CAT_DEFAULT gst_opencl_debug

namespace gst_opencl {

/* How often a wait looks at its watches when nothing wakes it. */
static constexpr auto kWatchPeriod = std::chrono::milliseconds (50);

std::string
DeviceWaits::abandoned_reason ()
{
  std::lock_guard<std::mutex> guard (lock_);
  return reason_;
}

void
DeviceWaits::helper_loop ()
{
  std::unique_lock<std::mutex> guard (lock_);
  for (;;) {
    helper_signal_.wait (guard, [this] { return quit_ || !requests_.empty (); });
    if (requests_.empty ())
      return;  /* quit_, and nothing left */
    std::shared_ptr<Request> request = requests_.front ();
    requests_.erase (requests_.begin ());
    guard.unlock ();
    clWaitForEvents (1, &request->event);  /* its status says how it ended; the wait reads it */
    clReleaseEvent (request->event);
    guard.lock ();
    request->done = true;
    signal_.notify_all ();
  }
}

static void CL_CALLBACK
kernel_ended (cl_event, cl_int, void *data)
{
  auto *ends = static_cast<KernelEnds *> (data);
  ends->ended.fetch_add (1);
  ends->unref ();
}

void
WaitWatch::note_launch (const cl::Event & event, bool always)
{
  if (!always && timeout_ms.load () == 0)
    return;
  std::lock_guard<std::mutex> guard (lock);
  ends->ref ();
  if (clSetEventCallback (event (), CL_COMPLETE, kernel_ended, ends) != CL_SUCCESS) {
    ends->unref ();
    return;  /* not counted: this kernel never holds another element's wait */
  }
  launched++;
}

guint64
WaitWatch::launches ()
{
  std::lock_guard<std::mutex> guard (lock);
  return launched;
}

bool
WaitWatch::kernel_running ()
{
  std::lock_guard<std::mutex> guard (lock);
  return ends->ended.load () < launched;
}

void
DeviceWaits::shut_down ()
{
  {
    std::lock_guard<std::mutex> guard (lock_);
    quit_ = true;
    helper_signal_.notify_all ();
  }
  if (helper_.joinable ())
    helper_.join ();
}

static cl_int
execution_status (const cl::Event & event)
{
  cl_int status = CL_COMPLETE;
  GST_OPENCL_CHECK (clGetEventInfo (event (), CL_EVENT_COMMAND_EXECUTION_STATUS,
          sizeof (status), &status, nullptr));
  return status;
}

void
abandon_device (DeviceWaits & waits, const std::string & reason)
{
  {
    std::lock_guard<std::mutex> guard (waits.lock_);
    if (waits.abandoned_)
      return;
    waits.reason_ = reason;
    waits.abandoned_ = true;
    waits.signal_.notify_all ();
  }
  GST_ERROR ("the queue of %s is given up: %s", waits.device_name.c_str (), reason.c_str ());
}

void
DeviceWaits::add_watch (WaitWatch * watch)
{
  std::lock_guard<std::mutex> guard (lock_);
  watches_.push_back (watch);
}

void
DeviceWaits::remove_watch (WaitWatch * watch)
{
  std::lock_guard<std::mutex> guard (lock_);
  watches_.erase (std::remove (watches_.begin (), watches_.end (), watch), watches_.end ());
}

static const char *kGivenUp = ": the host stopped waiting, and the device's queue is given up "
    "(OpenCL cannot stop a running kernel; its context stays allocated until the process ends)";

/* Why a wait that began at `started` should give up because of `watch`, or "". `own`: the
 * watch of the element that waits; another element's timeout counts only while its last
 * kernel has not ended (then that kernel is what holds the queue); a stop counts only for an
 * element whose kernels may never end. */
static std::string
reason_to_give_up (WaitWatch & watch, bool own, gint64 started, gint64 now)
{
  const guint timeout_ms = watch.timeout_ms.load ();
  const gint64 stop_at = watch.stop_requested_at.load ();
  std::string subject;
  {
    std::lock_guard<std::mutex> guard (watch.lock);
    subject = watch.subject;
  }
  if (timeout_ms > 0 && now - started >= (gint64) timeout_ms * 1000) {
    if (own || watch.kernel_running ())
      return subject + " did not end within the element's timeout of " +
          std::to_string (timeout_ms) + " ms" + kGivenUp;
  }
  /* The grace counts from the request, or from the start of a wait begun after it (the stop
   * itself waits for the element's work, maybe long after the request, on a healthy queue). */
  if (watch.may_not_end.load () && stop_at > 0 &&
      now - MAX (stop_at, started) >= WaitWatch::kStopGraceMs * 1000)
    return subject + " still ran " + std::to_string (WaitWatch::kStopGraceMs / 1000) +
        " s after the element was asked to stop" + kGivenUp;
  return "";
}

/* Whether the element's output is refused for now: its source pad or the pad it pushes to is
 * flushing. That is the first sign of a stop (the sink downstream is deactivated before the
 * element itself is told, and it waits for the thread this wait holds), and of a flush. */
static bool
output_flushing (GstElement * element)
{
  if (!element)
    return false;
  GstPad *pad = gst_element_get_static_pad (element, "src");
  if (!pad)
    return false;
  bool flushing = GST_PAD_IS_FLUSHING (pad);
  if (GstPad *peer = gst_pad_get_peer (pad)) {
    flushing = flushing || GST_PAD_IS_FLUSHING (peer);
    gst_object_unref (peer);
  }
  gst_object_unref (pad);
  return flushing;
}

namespace {

/* The element a wait first saw with its output flushing, and when. */
struct FlushingSeen
{
  WaitWatch *watch = nullptr;
  gint64 since = 0;
};

}  // namespace

/* Why a wait that began at `started` should give up now, or "": its own watch first, then the
 * watch of each other element on the device, then an element that may run a kernel that never
 * ends (WaitWatch::may_not_end) whose output has flushed for kStopGraceMs. `culprit` is the
 * other element to blame (null when it is the waiting one's).
 * Notes in `flushing` the first element seen flushing once the wait has lasted a quarter of
 * the grace. */
static std::string
reason_to_give_up_now (const std::vector<WaitWatch *> & watches, WaitWatch * own,
    gint64 started, gint64 now, FlushingSeen & flushing, WaitWatch *& culprit)
{
  std::string reason;
  culprit = nullptr;
  if (own)
    reason = reason_to_give_up (*own, true, started, now);
  for (size_t i = 0; reason.empty () && i < watches.size (); i++) {
    WaitWatch *other = watches[i];
    if (other != own)
      reason = reason_to_give_up (*other, false, started, now);
    culprit = other == own ? nullptr : other;
    if (!flushing.watch && other->may_not_end.load () &&
        now - started >= WaitWatch::kStopGraceMs * 1000 / 4 && output_flushing (other->element)) {
      flushing.watch = other;
      flushing.since = now;
    }
  }
  if (reason.empty () && flushing.watch &&
      now - flushing.since >= WaitWatch::kStopGraceMs * 1000) {
    std::lock_guard<std::mutex> subject_guard (flushing.watch->lock);
    reason = flushing.watch->subject + " still ran " +
        std::to_string (WaitWatch::kStopGraceMs / 1000) + " s after the element's output "
        "began to flush (the pipeline stops or seeks)" + kGivenUp;
    culprit = flushing.watch == own ? nullptr : flushing.watch;
  }
  return reason;
}

/* Gives the device's queue up for `reason` and throws. The element to blame, when it does not
 * wait itself, hears of it on its bus, from this thread (once `guard` is let go: a bus handler
 * may change states). */
[[noreturn]] static void
give_up_wait (DeviceWaits & waits, std::unique_lock<std::mutex> & guard,
    const cl::Event & event, cl_int status, const std::string & reason, const WaitWatch * own,
    WaitWatch * culprit, gint64 waited_us)
{
  GstElement *tell = culprit && culprit->element ?
      GST_ELEMENT (gst_object_ref (culprit->element)) : nullptr;
  guard.unlock ();
  cl_command_type type = 0;
  clGetEventInfo (event (), CL_EVENT_COMMAND_TYPE, sizeof (type), &type, nullptr);
  GST_WARNING ("giving up a wait of %.3f s for a command of type 0x%x (status %d), own "
      "watch %p, culprit %p: %s", waited_us / 1e6, type, status, own, culprit,
      reason.c_str ());
  abandon_device (waits, reason);
  if (tell) {
    gst_element_message_full (tell, GST_MESSAGE_ERROR, GST_RESOURCE_ERROR,
        GST_RESOURCE_ERROR_BUSY, g_strdup (reason.c_str ()), nullptr, __FILE__,
        GST_FUNCTION, __LINE__);
    gst_object_unref (tell);
  }
  throw Failure (Failure::Kind::Abandoned, reason);
}

/* Flushes the queue of the event's command: the command must reach the device before anything
 * can wake a wait for it. */
static void
flush_queue_of (const cl::Event & event)
{
  cl_command_queue queue = nullptr;
  if (clGetEventInfo (event (), CL_EVENT_COMMAND_QUEUE, sizeof (queue), &queue, nullptr) ==
      CL_SUCCESS && queue)
    clFlush (queue);
}

void
wait_event (DeviceWaits & waits, const cl::Event & event, const WaitWatch * watch)
{
  cl_int status = CL_QUEUED;
  /* Most waits find their command complete and end here, where asking cannot block
   * (status_query_blocks). */
  if (!waits.status_query_blocks) {
    status = execution_status (event);
    if (status == CL_COMPLETE)
      return;
    if (status < 0)
      throw cl::Error (status, "a command the host waited for");
  }
  if (waits.abandoned ())
    throw Failure (Failure::Kind::Abandoned, waits.abandoned_reason ());

  flush_queue_of (event);

  auto *own = const_cast<WaitWatch *> (watch);
  auto request = std::make_shared<DeviceWaits::Request> ();
  request->event = event ();
  clRetainEvent (event ());
  std::unique_lock<std::mutex> guard (waits.lock_);
  if (!waits.helper_.joinable ())
    waits.helper_ = std::thread (&DeviceWaits::helper_loop, &waits);
  waits.requests_.push_back (request);
  waits.helper_signal_.notify_one ();
  const gint64 started = g_get_monotonic_time ();
  FlushingSeen flushing;  /* an element on the device seen flushing */
  for (;;) {
    /* Ended when the helper's wait for it returned, or, where asking cannot block, when its
     * status says so (the helper may still wait for an earlier request of another thread). */
    bool ended = request->done;
    if (!ended && !waits.status_query_blocks) {
      status = execution_status (event);
      ended = status == CL_COMPLETE || status < 0;
    }
    if (ended) {
      guard.unlock ();
      status = execution_status (event);  /* final: asking cannot block */
      if (status < 0)
        throw cl::Error (status, "a command the host waited for");
      return;
    }
    if (waits.abandoned_)
      throw Failure (Failure::Kind::Abandoned, waits.reason_);
    const gint64 now = g_get_monotonic_time ();
    WaitWatch *culprit = nullptr;
    const std::string reason =
        reason_to_give_up_now (waits.watches_, own, started, now, flushing, culprit);
    if (!reason.empty ())
      give_up_wait (waits, guard, event, status, reason, own, culprit, now - started);
    waits.signal_.wait_for (guard, kWatchPeriod);
  }
}

}  // namespace gst_opencl
