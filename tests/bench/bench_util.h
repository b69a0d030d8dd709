/* gst-opencl benchmarks: statistics and JSON helpers shared by the bench_* programs.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gst/gst.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace bench {

/* A frame size from the command line; frames 0 means the program's --frames. */
struct FrameSize
{
  int width = 0;
  int height = 0;
  int frames = 0;
};

inline std::vector<std::string>
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

/* A whole number from `minimum` to 1000000, or nothing. */
inline std::optional<int>
parse_int (const std::string & text, int minimum)
{
  char *end = nullptr;
  long value = std::strtol (text.c_str (), &end, 10);
  if (text.empty () || *end != '\0' || value < minimum || value > 1000000)
    return std::nullopt;
  return (int) value;
}

/* "WxH[:N],..." or nothing when malformed. */
inline std::optional<std::vector<FrameSize>>
parse_sizes (const std::string & text)
{
  std::vector<FrameSize> sizes;
  for (const auto & item : split (text, ',')) {
    FrameSize size;
    std::string dims = item;
    auto colon = item.find (':');
    if (colon != std::string::npos) {
      auto frames = parse_int (item.substr (colon + 1), 1);
      if (!frames)
        return std::nullopt;
      size.frames = *frames;
      dims = item.substr (0, colon);
    }
    auto x = dims.find ('x');
    if (x == std::string::npos)
      return std::nullopt;
    auto width = parse_int (dims.substr (0, x), 1);
    auto height = parse_int (dims.substr (x + 1), 1);
    if (!width || !height)
      return std::nullopt;
    size.width = *width;
    size.height = *height;
    sizes.push_back (size);
  }
  if (sizes.empty ())
    return std::nullopt;
  return sizes;
}

/* Per-frame figures of one OpenCL element in a running pipeline: its `kernel-time` as each frame
 * leaves it (read in the streaming thread right after transform (), which set it), and the
 * steady_clock interval between frames at the sink. The first `warmup` frames are left out. */
struct FrameProbe
{
  using Clock = std::chrono::steady_clock;

  std::mutex lock;
  GstElement *element = nullptr;
  int warmup = 0;
  int element_frames = 0;
  int sink_frames = 0;
  std::optional<Clock::time_point> last_stamp;
  std::string device_name;
  std::vector<double> kernel_ms;
  std::vector<double> wall_ms;

  /* Adds the two pad probes; `this` must outlive the pipeline's streaming. */
  void attach (GstElement * measured, GstElement * sink, int warmup_frames)
  {
    element = measured;
    warmup = warmup_frames;
    GstPad *element_src = gst_element_get_static_pad (measured, "src");
    GstPad *sink_pad = gst_element_get_static_pad (sink, "sink");
    gst_pad_add_probe (element_src, GST_PAD_PROBE_TYPE_BUFFER, on_element_output, this, nullptr);
    gst_pad_add_probe (sink_pad, GST_PAD_PROBE_TYPE_BUFFER, on_sink_input, this, nullptr);
    gst_object_unref (element_src);
    gst_object_unref (sink_pad);
  }

private:
  static GstPadProbeReturn on_element_output (GstPad *, GstPadProbeInfo *, gpointer user_data)
  {
    auto *probe = static_cast<FrameProbe *> (user_data);
    guint64 kernel_ns = 0;
    g_object_get (probe->element, "kernel-time", &kernel_ns, nullptr);
    std::lock_guard<std::mutex> guard (probe->lock);
    /* device-name is only set from start () to stop (): read it while frames flow. */
    if (probe->device_name.empty ()) {
      gchar *name = nullptr;
      g_object_get (probe->element, "device-name", &name, nullptr);
      if (name)
        probe->device_name = name;
      g_free (name);
    }
    if (probe->element_frames++ >= probe->warmup)
      probe->kernel_ms.push_back ((double) kernel_ns * 1e-6);
    return GST_PAD_PROBE_OK;
  }

  static GstPadProbeReturn on_sink_input (GstPad *, GstPadProbeInfo *, gpointer user_data)
  {
    auto *probe = static_cast<FrameProbe *> (user_data);
    auto now = Clock::now ();
    std::lock_guard<std::mutex> guard (probe->lock);
    /* Intervals ending at a measured frame; the last warm-up frame's stamp starts the first. */
    if (probe->sink_frames >= probe->warmup && probe->last_stamp)
      probe->wall_ms.push_back (std::chrono::duration<double, std::milli> (now -
              *probe->last_stamp).count ());
    probe->last_stamp = now;
    probe->sink_frames++;
    return GST_PAD_PROBE_OK;
  }
};

struct Stats
{
  double median = 0, min = 0, max = 0, q1 = 0, q3 = 0, mean = 0;
};

/* Quantile by linear interpolation between the closest ranks (sorted input). */
inline double
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

inline Stats
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

inline std::string
json_string (const std::string & text)
{
  std::string out = "\"";
  for (unsigned char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20) {
          char escaped[8];
          std::snprintf (escaped, sizeof escaped, "\\u%04x", c);
          out += escaped;
        } else {
          out += (char) c;
        }
    }
  }
  return out + "\"";
}

inline std::string
json_number (double value)
{
  char text[32];
  std::snprintf (text, sizeof text, "%.6g", value);
  return text;
}

inline std::string
json_stats (const Stats & s)
{
  return "{\"median\": " + json_number (s.median) + ", \"min\": " + json_number (s.min) +
      ", \"max\": " + json_number (s.max) + ", \"q1\": " + json_number (s.q1) + ", \"q3\": " +
      json_number (s.q3) + ", \"iqr\": " + json_number (s.q3 - s.q1) + ", \"mean\": " +
      json_number (s.mean) + "}";
}

inline std::string
json_samples (const std::vector<double> & values)
{
  std::string out = "[";
  for (size_t i = 0; i < values.size (); i++)
    out += (i ? ", " : "") + json_number (values[i]);
  return out + "]";
}

}  // namespace bench
