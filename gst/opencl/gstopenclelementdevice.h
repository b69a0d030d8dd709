/* gst-opencl: what every OpenCL element has, whatever its base class: the `device`,
 * `device-name` and `kernel-time` properties, the shared context and its GstContext plumbing,
 * and kernel launches that are timed with profiling events.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Elements hold one ElementDevice by composition (filters, sources and transforms of non-video
 * data derive from different GStreamer base classes), and forward to it from their vfuncs. */
#pragma once

#include <gst/gst.h>

#include <atomic>
#include <mutex>
#include <string>
#include <array>
#include <vector>

#include "opencl/gstopenclcontext.h"
#include "opencl/gstopenclproperties.h"
#include "opencl/gstopencltuning.h"
#include "opencl/gstopenclwait.h"

G_BEGIN_DECLS
#define GST_TYPE_OPENCL_GL_INTEROP (gst_opencl_gl_interop_get_type ())
GType gst_opencl_gl_interop_get_type (void);
G_END_DECLS

namespace gst_opencl {

/* The values of the `gl-interop` property (GstOpenCLGLInterop): which GL interop path a
 * stream's GL frames take (gstopenclglinterop.h). */
enum class GlInteropPath { None = 0, HostCopy = 1, ExternalMemory = 2, KhrGlSharing = 3 };

const char *gl_interop_path_name (GlInteropPath path);

class ElementDevice
{
public:
  ElementDevice () = default;
  ElementDevice (const ElementDevice &) = delete;
  ElementDevice & operator= (const ElementDevice &) = delete;
  ~ElementDevice ();

  /* Adds `device`, `device-name`, `kernel-time`, `gl-interop`, `memory` and `variant` to a
   * base class's table; `of` finds an instance's ElementDevice. */
  static void install_properties (PropertyTable & table, ElementDevice & (*of) (GObject *));

  /* GstElement::set_context and the context query, for "gst.opencl.context". */
  void set_context (GstElement * element, GstContext * context);
  bool handle_context_query (GstElement * element, GstQuery * query);

  /* Finds or creates the context (downstream, upstream, application, else new). Throws. */
  void start (GstElement * element);
  void stop (GstElement * element);

  bool started () const { return context_ != nullptr; }
  /* Valid between start () and stop (). */
  Device & device ();
  /* The device's in-order kernel queue (device ().queue). */
  cl::CommandQueue & queue () { return device ().queue; }
  /* The shared context object (not a new reference), for buffer pools and memory. */
  GstOpenCLContext *context () { device (); return context_; }

  /* Enqueues `kernel` on the shared queue; `global` is rounded up to a multiple of `local`.
   * On a timed frame (timing_frame ()) the launch's profiling event is kept until the frame
   * ends, for `kernel-time`; other frames launch without an event (NVIDIA's driver spends about
   * 6 us of host time on each), unless `event_out` asks for one or the watch needs it. Throws
   * cl::Error. */
  void launch (const cl::Kernel & kernel, const cl::NDRange & global, const cl::NDRange & local,
      const std::vector<cl::Event> * wait_for = nullptr, cl::Event * event_out = nullptr);
  /* Whether the frame now being launched is timed: every frame while `kernel-time` is read (a
   * read within the last kKernelTimeEvery frames), else one frame in kKernelTimeEvery, so that
   * `kernel-time` always holds a recent frame's figure. */
  bool timing_frame ();
  static constexpr guint64 kKernelTimeEvery = 8;
  /* Sums the device time of the kernels launched since the last call into `kernel-time` (a
   * frame launched without events leaves it as it was). Call once the frame's work is known to
   * be complete (it reads profiling info). */
  void finish_frame ();
  /* For a frame whose results stay on the device, so nothing waits for it: its events are read
   * once it is done, at a later frame (kernel-time then lags by a few frames). The host waits
   * only when kMaxFramesInFlight frames of the element are on the queue and the oldest is a
   * timed one (it has events), for it: every frame timed, at most kMaxFramesInFlight frames
   * are in flight; one in kKernelTimeEvery, at most kMaxFramesInFlight + kKernelTimeEvery - 1. */
  void defer_frame ();
  /* The frame's kernels are enqueued: finish_frame () when the host `waited` for them (a
   * download), else defer_frame (). */
  void end_frame (bool waited) { waited ? finish_frame () : defer_frame (); }
  /* Drops the recorded events without reading them (after a failure). */
  void discard_frame ();

  /* The host's waits for this element's work: every one goes through these, never through the
   * driver's blocking calls, so that a command that never ends can be given up
   * (gstopenclwait.h). Throw cl::Error, or Failure (Abandoned). */
  void wait (const cl::Event & event) { wait_event (device (), event, &watch_); }
  /* Waits for everything enqueued so far on the kernel queue. */
  void finish () { finish_queue (device (), &watch_); }
  /* Whether a wait gave up the device's queue (then nothing its commands use may be freed). */
  bool abandoned () { return context_ && device ().waits.abandoned (); }
  /* The bases call this from change_state, before chaining up: on the way from PAUSED to READY
   * a wait gives the device WaitWatch::kStopGraceMs more, then gives up, so that the state
   * change returns even when a kernel never ends (only for kernels that may: set_may_not_end). */
  void state_changing (GstStateChange transition);
  /* The longest a wait may last, in milliseconds (0: no limit), and what it waits for, for
   * messages ("kernel 'blur'"): set by elements with a `timeout` property. */
  void set_wait_limit (guint timeout_ms) { watch_.timeout_ms = timeout_ms; }
  /* Whether frames in host-visible OpenCL memory may be handed to the neighbours (a pool offered
   * upstream, frames allocated for downstream): not while a wait limit is set. A neighbour's
   * thread that maps such a frame calls into the driver, and a driver may hold that call behind
   * a kernel that never ends (NVIDIA's does), where no limit of the element's reaches it; with
   * frames in the neighbours' own memory only the element's threads meet the device.
   * docs/reliability.md#kernels-that-never-end. */
  bool shares_host_frames () const { return watch_.timeout_ms.load () == 0; }
  void set_wait_subject (const std::string & subject) { watch_.set_subject (subject); }
  /* Set by elements that run kernels the plugin did not write: a stop gives up a wait for
   * them after WaitWatch::kStopGraceMs (WaitWatch::may_not_end). */
  void set_may_not_end (bool may_not_end) { watch_.may_not_end = may_not_end; }
  const WaitWatch & watch () const { return watch_; }
  guint64 kernel_time_ns () const { return kernel_time_ns_.load (); }

  /* What `gl-interop` reports (a GlInteropPath): set by the base classes at negotiation. */
  void set_gl_interop (int path) { gl_interop_ = path; }
  /* What `memory` reports: the memory of the frames in and out ("cuda -> opencl"). */
  void set_memory (const std::string & memory);

  /* Replaces the element's context by a new one on the same device created with
   * `gl_properties` (cl_khr_gl_sharing), and tells the pipeline (have-context). Throws. */
  void bind_to_gl (GstElement * element, const std::vector<cl_context_properties> & gl_properties);
  /* Whether the device is automatic: neither `device` nor GST_OPENCL_DEVICE names one. */
  bool automatic () { return device_string ().empty (); }
  /* Moves the element to a context of the device `device_string` names, made here and posted
   * (have-context), as bind_to_gl does: frames of another device's memory (CUDA frames of
   * another GPU) are followed there when the device is automatic. Throws Failure. */
  void follow_device (GstElement * element, const std::string & device_string);

  /* The tuning idiom in one call, for every tuned element: chooses the variant of `family` for
   * `key` on this element's device (gst_opencl::tune_variant: forced, default, remembered,
   * cached or timed with `time_one`), then reports it as every element does: the `variant`
   * property and an `opencl-variant` message (post_variant). Throws as tune_variant does. */
  TuningChoice tune (const std::string & family, const std::string & key,
      const std::vector<TuningCandidate> & candidates,
      const std::function<double (size_t)> & time_one, int runs = 3,
      const std::function<bool (const std::string &)> & accepts_forced = {});

  /* Reports the variant of `family` the element uses for `key`: the `variant` property, and an
   * `opencl-variant` element message saying how it was chosen and, when timed now, each
   * candidate's median time (benchmarks read it). Between start () and stop (). */
  void post_variant (const std::string & family, const std::string & key,
      const std::vector<TuningCandidate> & candidates, const TuningChoice & choice);

private:
  /* Takes `bound` (a new context) for the old one and posts it. */
  void replace_context (GstElement * element, GstOpenCLContext * bound);
  /* The property rows' ends (install_properties). */
  void write_device (const GValue * value);
  void read_device (GstElement * element, GValue * value);
  void read_device_name (GstElement * element, GValue * value);
  void read_kernel_time (GstElement * element, GValue * value);
  void read_gl_interop (GstElement * element, GValue * value);
  void read_memory (GstElement * element, GValue * value);
  void read_variant (GstElement * element, GValue * value);

  std::string device_string () ;

  std::mutex settings_lock_;
  std::string device_property_;
  GstOpenCLContext *context_ = nullptr;  /* changed under the element's object lock */
  GstElement *element_ = nullptr;  /* the owner, between start () and stop () */
  std::atomic<guint64> kernel_time_ns_ { 0 };
  std::atomic<int> gl_interop_ { 0 };
  WaitWatch watch_;
  std::string memory_;  /* under settings_lock_ */
  /* The variant of each tuned family, as chosen this run: family, name; under settings_lock_. */
  std::vector<std::pair<std::string, std::string>> variants_;
  std::vector<cl::Event> kernel_events_;  /* capacity kept between frames */
  /* The frames that launched kernels so far, and the count at the last read of `kernel-time`
   * (kNeverRead: none); whether the frame being launched has started, and is timed. */
  static constexpr guint64 kNeverRead = G_MAXUINT64;
  std::atomic<guint64> frames_ { 0 };
  std::atomic<guint64> kernel_time_read_at_ { kNeverRead };
  bool frame_started_ = false;
  bool frame_timed_ = false;
  void frame_over ();
  std::mutex deferred_lock_;  /* the property getter harvests too, from any thread */
  /* Deferred frames' events, oldest at deferred_head_, until they complete. */
  static constexpr size_t kMaxFramesInFlight = 4;
  std::array<std::vector<cl::Event>, kMaxFramesInFlight> deferred_;
  /* Where the status of a running kernel cannot be asked without waiting for it
   * (DeviceWaits::status_query_blocks): the watch's count of launches after each deferred
   * frame's last kernel; the frame is done once that many kernels ended. */
  std::array<guint64, kMaxFramesInFlight> deferred_launches_ {};
  size_t deferred_head_ = 0;
  size_t deferred_count_ = 0;

  bool oldest_deferred_done (bool wait);

  void sum_kernel_time (std::vector<cl::Event> & events);
  void harvest_deferred ();
};

/* One frame's work on the device, from its first command to the end of the element's part:
 * `end (waited)` once its kernels are enqueued (ElementDevice::end_frame); a frame that is not
 * ended (an error thrown, or nothing processed) has its events dropped when this goes out of
 * scope (ElementDevice::discard_frame). Every base and element that moves its own frames
 * brackets each frame with one. */
class FrameWork
{
public:
  explicit FrameWork (ElementDevice & device) : device_ (device) {}
  ~FrameWork ()
  {
    if (!ended_)
      device_.discard_frame ();
  }
  FrameWork (const FrameWork &) = delete;
  FrameWork & operator= (const FrameWork &) = delete;

  /* The frame's kernels are enqueued; `waited`: the host waited for them (a download). */
  void end (bool waited)
  {
    device_.end_frame (waited);
    ended_ = true;
  }
  /* The host waited for the whole frame (its results were read back). */
  void finished ()
  {
    device_.finish_frame ();
    ended_ = true;
  }

private:
  ElementDevice & device_;
  bool ended_ = false;
};

}  // namespace gst_opencl
