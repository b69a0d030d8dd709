/* gst-opencl: openclhistogram's results: frames' counts summed over an interval, and the
 * `opencl-histogram` element message that reports them.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gst/gst.h>

#include <cstdint>
#include <vector>

namespace gst_opencl_histogram {

/* Frames summed for the next message. Touched only from the streaming thread. */
struct Interval
{
  guint frames = 0;
  guint bins = 0;
  std::vector<const char *> channel_names;
  std::vector<guint64> sums;
  GstClockTime timestamp = GST_CLOCK_TIME_NONE;
  GstClockTime duration_ns = 0;

  void reset ()
  {
    frames = 0;
    timestamp = GST_CLOCK_TIME_NONE;
    duration_ns = 0;
  }

  /* Whether a frame of `bins` bins can join the summed frames (else they are reported first). */
  bool accepts (guint frame_bins) const { return frames == 0 || bins == frame_bins; }

  /* Adds one frame's counts (channel-major, `bins` per channel) taken at `pts` and lasting
   * `duration` (GST_CLOCK_TIME_NONE: unknown). Returns whether the interval is full: to the
   * nearest frame, within half this frame of `interval_ns` (3 frames of 1/30 s, 99999999 ns in
   * integer nanoseconds, fill an interval of 100 ms); a frame of unknown length cannot be
   * placed in time and closes it, and so does every frame when `interval_ns` is 0. */
  bool add (const std::vector<const char *> & names, guint frame_bins,
      const std::vector<uint32_t> & counts, GstClockTime pts, GstClockTime duration,
      guint64 interval_ns);
};

/* The interval's `opencl-histogram` message from `source`, its times placed in `segment`. */
GstMessage *interval_message (GstObject * source, const GstSegment & segment,
    const Interval & interval);

}  // namespace gst_opencl_histogram
