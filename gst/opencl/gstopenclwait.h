/* gst-opencl: the host's waits for the device, which an element can give up.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * OpenCL cannot stop a kernel that has started. A kernel that never ends (a user's endless loop)
 * would keep the host in clFinish or clWaitForEvents for ever, and with it the streaming thread,
 * and with that every state change of the pipeline. So the plugin never waits in the driver:
 * every wait of the frame path goes through wait_event (), which sleeps on a condition that a
 * helper thread signals when the driver's own wait for the event returns, and wakes every few
 * tens of milliseconds to see whether its element asked to stop or its time ran out. When it gives up, the device's queue is abandoned: its
 * commands still run, so nothing they use may be freed, and the context is never released
 * (docs/reliability.md#kernels-that-never-end). */
#pragma once

#include <gst/gst.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "opencl/gstopenclbindings.h"

namespace gst_opencl {

struct WaitWatch;

/* The state of one device's waits: shared by every element on the context. */
class DeviceWaits
{
public:
  DeviceWaits () { requests_.reserve (16); }
  DeviceWaits (const DeviceWaits &) = delete;
  DeviceWaits & operator= (const DeviceWaits &) = delete;

  /* Whether a wait gave up on this device's queue: nothing may be freed that its commands use,
   * and the context is kept for the life of the process. */
  bool abandoned () const { return abandoned_.load (); }
  std::string abandoned_reason ();

  /* Before the device is released, once its queues are finished: ends the helper thread. */
  void shut_down ();

  /* The watches of the elements running on this device, from their start to their stop: every
   * wait on the device honours them, including waits that belong to no element (a map of
   * OpenCL memory by the element upstream, whose frames wait behind the same queue). */
  void add_watch (WaitWatch * watch);
  void remove_watch (WaitWatch * watch);

  /* Whether the driver's clGetEventInfo (CL_EVENT_COMMAND_EXECUTION_STATUS) may block while
   * the command runs: Mesa's rusticl holds an event's lock for as long as its command runs, so
   * asking after a running kernel waits for its end (for ever, for a kernel that never ends).
   * Waits then ask the helper thread instead, always. Set once, when the device is opened. */
  bool status_query_blocks = false;
  /* The device's name, for messages; set once, when the device is opened. */
  std::string device_name;

private:
  friend void wait_event (DeviceWaits & waits, const cl::Event & event,
      const WaitWatch * watch);
  friend void abandon_device (DeviceWaits & waits, const std::string & reason);
  /* The helper thread: waits in the driver (clWaitForEvents) for the events waits hand it, one
   * after the other, marks each request done and wakes the waits. A wait never asks after its
   * event's status before the helper says it ended (see status_query_blocks). The driver's own wait is what wakes
   * soonest: with event callbacks instead, openclmandelboxsrc at 1080p on an H200 gave 274
   * frames per second, not 465 (each wait ended about 1.5 ms late); a wait that gives up leaves the
   * helper blocked on its event, never itself. Started by the first wait that blocks. */
  void helper_loop ();

  std::mutex lock_;
  std::condition_variable signal_;         /* an event ended, or the queue was given up */
  std::condition_variable helper_signal_;  /* a request, or the end */
  std::thread helper_;
  /* One wait's event, handed to the helper: `done` once the driver's wait for it returned.
   * Shared by the wait and the helper, so a wait that gives up leaves it to the helper. */
  struct Request
  {
    cl_event event = nullptr;  /* retained until the helper is done with it */
    bool done = false;         /* under lock_ */
  };
  std::vector<std::shared_ptr<Request>> requests_;  /* under lock_ */
  bool quit_ = false;                      /* under lock_ */
  std::vector<WaitWatch *> watches_;  /* under lock_ */
  std::atomic<bool> abandoned_ { false };
  std::string reason_;         /* under lock_ */
};

/* How many of an element's kernels have ended, counted by the driver's completion callbacks
 * (an element's timeout counts against a wait of another thread only while the element's last
 * kernel runs, and asking a running kernel's status may block: status_query_blocks).
 * Reference-counted by hand: a callback may come after the element is gone. */
struct KernelEnds
{
  std::atomic<int> refs { 1 };
  std::atomic<guint64> ended { 0 };

  void ref () { refs.fetch_add (1); }
  void unref ()
  {
    if (refs.fetch_sub (1) == 1)
      delete this;
  }
};

/* What one element's waits watch besides their event: a time limit (its `timeout` property,
 * 0 for none) and a request to stop (set on the way to READY). Written by the state change
 * and property threads, read by the waiting thread. */
struct WaitWatch
{
  WaitWatch () : ends (new KernelEnds) {}
  ~WaitWatch () { ends->unref (); }
  WaitWatch (const WaitWatch &) = delete;
  WaitWatch & operator= (const WaitWatch &) = delete;

  /* How long a wait may last before the queue is given up, in milliseconds; 0: no limit. */
  std::atomic<guint> timeout_ms { 0 };
  /* Set when the element goes from PAUSED to READY: a wait then gives the device
   * kStopGraceMs more (from the request, or from its own start if it began later), and gives
   * up after that, when `may_not_end`. */
  std::atomic<gint64> stop_requested_at { 0 };  /* g_get_monotonic_time (), 0: none */
  /* Whether the element runs kernels the plugin did not write (openclkernel, openclkernelsrc):
   * only such a kernel may never end, so only then do a stop and a flushing output give a
   * wait up. The plugin's own kernels end, however slow the device (a 1280x720
   * openclmandelboxsrc frame takes about 20 s on rusticl's llvmpipe): a wait lasts until they
   * do, and their frames stay mappable after the element stopped (docs/reliability.md). */
  std::atomic<bool> may_not_end { false };
  /* What the element waits for, for messages ("kernel 'blur'"), and how many kernels it
   * launched while a timeout was set; under `lock`. */
  std::mutex lock;
  std::string subject = "the element's kernels";
  guint64 launched = 0;
  KernelEnds *ends;
  /* The element, for an error posted by a wait of another thread; set from start to stop. */
  GstElement *element = nullptr;

  static constexpr gint64 kStopGraceMs = 2000;

  void request_stop () { stop_requested_at = g_get_monotonic_time (); }
  void clear_stop () { stop_requested_at = 0; }
  void set_subject (const std::string & text)
  {
    std::lock_guard<std::mutex> guard (lock);
    subject = text;
  }
  /* Launches, counted while a timeout is set or `always`: a wait of another thread tells
   * whether this element's kernel is the one that does not end (a kernel still running: fewer
   * ends than launches), and, where asking a kernel's status may block, whether a frame's
   * kernels are done. */
  void note_launch (const cl::Event & event, bool always);
  /* Whether a kernel counted by note_launch has not ended yet. */
  bool kernel_running ();
  /* The kernels counted so far, and whether the first `count` of them have ended (in order:
   * one in-order queue). */
  guint64 launches ();
  bool kernels_ended (guint64 count) { return ends->ended.load () >= count; }
};

/* Waits until `event`, a command of the device of `waits`, is complete. Throws cl::Error when
 * the command failed, and Failure (Abandoned) when the device's queue was given up, by this
 * wait (the watch's time ran out, or its element asked to stop kStopGraceMs ago) or by another.
 * `watch` may be null (no limit; the wait still ends when another gives the queue up).
 * gstopenclcontext.h has the same for a Device, and finish_queue. */
void wait_event (DeviceWaits & waits, const cl::Event & event, const WaitWatch * watch);

/* Marks the device's queue as given up, with the reason, and wakes every wait on it. */
void abandon_device (DeviceWaits & waits, const std::string & reason);

}  // namespace gst_opencl
