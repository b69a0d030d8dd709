/* gst-opencl benchmarks: statistics and JSON helpers shared by the bench_* programs.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

namespace bench {

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
