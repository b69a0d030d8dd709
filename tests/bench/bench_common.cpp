/* gst-opencl benchmarks: command-line parsing, statistics, JSON and pipeline running shared by
 * the benchmark programs.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "bench_common.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace bench {

std::vector<std::string>
split (const std::string & text, char separator)
{
  std::vector<std::string> parts;
  std::stringstream stream (text);
  std::string part;
  while (std::getline (stream, part, separator))
    if (!part.empty ())
      parts.push_back (part);
  return parts;
}

bool
parse_count (const std::string & text, int minimum, int *value)
{
  char *end = nullptr;
  long parsed = std::strtol (text.c_str (), &end, 10);
  if (text.empty () || *end != '\0' || parsed < minimum || parsed > 1000000)
    return false;
  *value = (int) parsed;
  return true;
}

bool
parse_sizes (const std::string & text, std::vector<FrameSize> *sizes)
{
  sizes->clear ();
  for (const auto & item : split (text, ',')) {
    FrameSize size;
    std::string dims = item;
    auto colon = item.find (':');
    if (colon != std::string::npos) {
      if (!parse_count (item.substr (colon + 1), 1, &size.frames))
        return false;
      dims = item.substr (0, colon);
    }
    auto x = dims.find ('x');
    if (x == std::string::npos || !parse_count (dims.substr (0, x), 1, &size.width) ||
        !parse_count (dims.substr (x + 1), 1, &size.height))
      return false;
    sizes->push_back (size);
  }
  return !sizes->empty ();
}

static double
quantile (const std::vector<double> & sorted, double q)
{
  if (sorted.empty ())
    return 0.0;
  double position = q * (double) (sorted.size () - 1);
  size_t below = (size_t) position;
  size_t above = std::min (below + 1, sorted.size () - 1);
  double fraction = position - (double) below;
  return sorted[below] + (sorted[above] - sorted[below]) * fraction;
}

Stats
summarize (std::vector<double> values)
{
  Stats stats;
  if (values.empty ())
    return stats;
  std::sort (values.begin (), values.end ());
  stats.min = values.front ();
  stats.max = values.back ();
  stats.median = quantile (values, 0.5);
  stats.q1 = quantile (values, 0.25);
  stats.q3 = quantile (values, 0.75);
  double sum = 0;
  for (double v : values)
    sum += v;
  stats.mean = sum / (double) values.size ();
  return stats;
}

std::string
json_string (const std::string & text)
{
  std::string out = "\"";
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += (char) c;
    } else if (c < 0x20) {
      char escaped[8];
      std::snprintf (escaped, sizeof escaped, "\\u%04x", c);
      out += escaped;
    } else {
      out += (char) c;
    }
  }
  return out + "\"";
}

std::string
json_number (double value)
{
  char text[32];
  std::snprintf (text, sizeof text, "%.6g", value);
  return text;
}

std::string
json_stats (const Stats & s)
{
  return "{\"median\": " + json_number (s.median) + ", \"min\": " + json_number (s.min) +
      ", \"max\": " + json_number (s.max) + ", \"q1\": " + json_number (s.q1) + ", \"q3\": " +
      json_number (s.q3) + ", \"iqr\": " + json_number (s.q3 - s.q1) + ", \"mean\": " +
      json_number (s.mean) + "}";
}

std::string
json_samples (const std::vector<double> & values)
{
  std::string out = "[";
  for (size_t i = 0; i < values.size (); i++)
    out += (i ? ", " : "") + json_number (values[i]);
  return out + "]";
}

std::string
run_to_eos (GstElement * pipeline, int timeout_s)
{
  std::string error;
  if (gst_element_set_state (pipeline, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE)
    error = "the pipeline would not start";
  GstBus *bus = gst_element_get_bus (pipeline);
  while (error.empty ()) {
    GstMessage *message = gst_bus_timed_pop_filtered (bus, (GstClockTime) timeout_s * GST_SECOND,
        (GstMessageType) (GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
    if (!message) {
      error = "timed out after " + std::to_string (timeout_s) + " s";
      break;
    }
    const bool done = GST_MESSAGE_TYPE (message) == GST_MESSAGE_EOS;
    if (GST_MESSAGE_TYPE (message) == GST_MESSAGE_ERROR) {
      GError *bus_error = nullptr;
      gchar *debug = nullptr;
      gst_message_parse_error (message, &bus_error, &debug);
      error = std::string (GST_OBJECT_NAME (GST_MESSAGE_SRC (message))) + ": " +
          (bus_error ? bus_error->message : "error") + (debug ? std::string (" (") + debug +
          ")" : std::string ());
      g_clear_error (&bus_error);
      g_free (debug);
    }
    gst_message_unref (message);
    if (done)
      break;
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  return error;
}

}  // namespace bench
