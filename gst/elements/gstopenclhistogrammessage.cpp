/* gst-opencl: openclhistogram's intervals and messages.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "elements/gstopenclhistogrammessage.h"

namespace gst_opencl_histogram {

bool
Interval::add (const std::vector<const char *> & names, guint frame_bins,
    const std::vector<uint32_t> & counts, GstClockTime pts, GstClockTime duration,
    guint64 interval_ns)
{
  if (frames == 0) {
    bins = frame_bins;
    channel_names = names;
    sums.assign (names.size () * frame_bins, 0);
    timestamp = pts;
  }
  for (size_t i = 0; i < sums.size (); i++)
    sums[i] += counts[i];
  frames++;
  if (GST_CLOCK_TIME_IS_VALID (duration))
    duration_ns += duration;
  return interval_ns == 0 || !GST_CLOCK_TIME_IS_VALID (duration) ||
      duration_ns + duration / 2 >= interval_ns;
}

GstMessage *
interval_message (GstObject * source, const GstSegment & segment, const Interval & interval)
{
  GstClockTime stream_time = GST_CLOCK_TIME_NONE, running_time = GST_CLOCK_TIME_NONE;
  if (GST_CLOCK_TIME_IS_VALID (interval.timestamp) && segment.format == GST_FORMAT_TIME) {
    stream_time = gst_segment_to_stream_time (&segment, GST_FORMAT_TIME, interval.timestamp);
    running_time = gst_segment_to_running_time (&segment, GST_FORMAT_TIME, interval.timestamp);
  }
  GstStructure *structure = gst_structure_new ("opencl-histogram",
      "timestamp", G_TYPE_UINT64, (guint64) interval.timestamp,
      "stream-time", G_TYPE_UINT64, (guint64) stream_time,
      "running-time", G_TYPE_UINT64, (guint64) running_time,
      "duration", G_TYPE_UINT64, (guint64) interval.duration_ns,
      "frames", G_TYPE_UINT, interval.frames,
      "bins", G_TYPE_UINT, interval.bins, nullptr);
  for (size_t channel = 0; channel < interval.channel_names.size (); channel++) {
    GValue array = G_VALUE_INIT;
    g_value_init (&array, GST_TYPE_ARRAY);
    for (guint bin = 0; bin < interval.bins; bin++) {
      GValue count = G_VALUE_INIT;
      g_value_init (&count, G_TYPE_UINT64);
      g_value_set_uint64 (&count, interval.sums[channel * interval.bins + bin]);
      gst_value_array_append_and_take_value (&array, &count);
    }
    gst_structure_take_value (structure, interval.channel_names[channel], &array);
  }
  return gst_message_new_element (source, structure);
}

}  // namespace gst_opencl_histogram
