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
#include <string>
#include <thread>
#include <vector>

#include "opencl/gstopenclcl.h"

namespace gst_opencl {

struct Device;
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

private:
  friend void wait_event (Device & device, const cl::Event & event, const WaitWatch * watch);
  friend void abandon_device (Device & device, const std::string & reason);
  /* The helper thread: waits in the driver (clWaitForEvents) for the events waits hand it, one
   * after the other, and wakes the waits when each ends. The driver's own wait is what wakes
   * soonest: with event callbacks instead, openclmandelboxsrc at 1080p on an H200 gave 274
   * frames per second, not 465 (each wait ended about 1.5 ms late); a wait that gives up leaves the
   * helper blocked on its event, never itself. Started by the first wait that blocks. */
  void helper_loop ();

  std::mutex lock_;
  std::condition_variable signal_;         /* an event ended, or the queue was given up */
  std::condition_variable helper_signal_;  /* a request, or the end */
  std::thread helper_;
  std::vector<cl_event> requests_;         /* retained; under lock_ */
  bool quit_ = false;                      /* under lock_ */
  std::vector<WaitWatch *> watches_;  /* under lock_ */
  std::atomic<bool> abandoned_ { false };
  std::string reason_;         /* under lock_ */
};

/* What one element's waits watch besides their event: a time limit (its `timeout` property,
 * 0 for none) and a request to stop (set on the way to READY). Written by the state change
 * and property threads, read by the waiting thread. */
struct WaitWatch
{
  /* How long a wait may last before the queue is given up, in milliseconds; 0: no limit. */
  std::atomic<guint> timeout_ms { 0 };
  /* Set when the element goes from PAUSED to READY: a wait then gives the device
   * kStopGraceMs more (from the request, or from its own start if it began later), and gives
   * up after that. */
  std::atomic<gint64> stop_requested_at { 0 };  /* g_get_monotonic_time (), 0: none */
  /* What the element waits for, for messages ("kernel 'blur'"), and its last kernel while a
   * timeout is set; under `lock`. */
  std::mutex lock;
  std::string subject = "the element's kernels";
  cl::Event last_kernel;
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
  /* Launches, while a timeout is set: a wait of another thread tells whether this element's
   * kernel is the one that does not end. */
  void note_launch (const cl::Event & event)
  {
    if (timeout_ms.load () == 0)
      return;
    std::lock_guard<std::mutex> guard (lock);
    last_kernel = event;
  }
};

/* Waits until `event` is complete. Throws cl::Error when the command failed, and Failure
 * (Abandoned) when the device's queue was given up, by this wait (the watch's time ran out, or
 * its element asked to stop kStopGraceMs ago) or by another. `watch` may be null (no limit; the
 * wait still ends when another gives the queue up). */
void wait_event (Device & device, const cl::Event & event, const WaitWatch * watch);

/* Waits for every command enqueued so far on the device's kernel queue (a marker), as
 * clFinish does, under the same rules. */
void finish_queue (Device & device, const WaitWatch * watch);

/* Marks the device's queue as given up, with the reason, and wakes every wait on it. */
void abandon_device (Device & device, const std::string & reason);

}  // namespace gst_opencl
