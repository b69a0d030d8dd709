/* gst-opencl tests: checks of an element's output against its reference shared by suites.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "common/element_checks.h"

#include <gst/check/gstcheck.h>

#include <algorithm>
#include <cmath>

namespace checks {

guint64
uint64_field (const GstStructure * s, const char *name)
{
  guint64 value = 0;
  fail_unless (gst_structure_get_uint64 (s, name, &value), "no guint64 field %s", name);
  return value;
}

void
check_histogram_message (GstMessage * message, reference::HistogramFormat format, int bins,
    guint frames, const std::vector<uint64_t> & expected, const std::string & label)
{
  fail_unless (message != nullptr, "%s: no opencl-histogram message", label.c_str ());
  const GstStructure *s = gst_message_get_structure (message);
  guint message_bins = 0, message_frames = 0;
  fail_unless (gst_structure_get_uint (s, "bins", &message_bins));
  fail_unless (gst_structure_get_uint (s, "frames", &message_frames));
  fail_unless_equals_int (message_bins, bins);
  fail_unless_equals_int (message_frames, frames);
  for (const char *field : { "timestamp", "stream-time", "running-time", "duration" })
    uint64_field (s, field);

  const auto channels = reference::histogram_channels (format);
  fail_unless_equals_int (gst_structure_n_fields (s), 6 + channels.size ());
  for (size_t c = 0; c < channels.size (); c++) {
    const GValue *array = gst_structure_get_value (s, channels[c].c_str ());
    fail_unless (array && GST_VALUE_HOLDS_ARRAY (array), "%s: no array %s", label.c_str (),
        channels[c].c_str ());
    fail_unless_equals_int (gst_value_array_get_size (array), bins);
    for (int b = 0; b < bins; b++) {
      const GValue *count = gst_value_array_get_value (array, b);
      fail_unless (G_VALUE_HOLDS_UINT64 (count));
      guint64 actual = g_value_get_uint64 (count);
      fail_unless (actual == expected[c * bins + b], "%s: %s bin %d of %d: %" G_GUINT64_FORMAT
          " counted, %" G_GUINT64_FORMAT " expected", label.c_str (), channels[c].c_str (), b,
          bins, actual, (guint64) expected[c * bins + b]);
    }
  }
}

void
check_convolution_floats (GstBuffer * out, const std::vector<double> & expected,
    const std::vector<double> & filters, int n_filters, const std::string & label)
{
  fail_unless (out != nullptr, "%s: no output", label.c_str ());
  GstMapInfo map;
  fail_unless (gst_buffer_map (out, &map, GST_MAP_READ));
  fail_unless_equals_uint64 (map.size, expected.size () * sizeof (float));
  const float *values = reinterpret_cast<const float *> (map.data);
  /* The per-filter bound would be tighter; the whole bank's |f| sum is what the issue asks. */
  double abs_sum = 0;
  for (double v : filters)
    abs_sum += std::fabs (v);
  const double tolerance = 1e-4 * abs_sum * 255.0;
  size_t over = 0, first = 0;
  double worst = 0;
  for (size_t i = 0; i < expected.size (); i++) {
    double d = std::fabs (values[i] - expected[i]);
    worst = std::max (worst, d);
    if (d > tolerance && over++ == 0)
      first = i;
  }
  gst_buffer_unmap (out, &map);
  fail_unless (over == 0, "%s: %zu values over %g, worst %g, first at %zu (filter %zu)",
      label.c_str (), over, tolerance, worst, first, first % n_filters);
}

}  // namespace checks
