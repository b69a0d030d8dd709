/* gst-opencl benchmarks: command-line parsing, statistics, JSON and pipeline running shared by
 * the benchmark programs.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gst/gst.h>

#include <string>
#include <vector>

namespace bench {

struct FrameSize
{
  int width = 0;
  int height = 0;
  int frames = 0;  /* 0: the program's --frames value */
};

struct Stats
{
  double median = 0, min = 0, max = 0, q1 = 0, q3 = 0, mean = 0;
};

std::vector<std::string> split (const std::string & text, char separator);

/* A whole number in [minimum, 1000000]; returns false for anything else. */
bool parse_count (const std::string & text, int minimum, int *value);

/* "WxH[:N],..." into sizes; returns false when the list is malformed or empty. */
bool parse_sizes (const std::string & text, std::vector<FrameSize> *sizes);

/* Median, quartiles (linear interpolation between closest ranks), min, max, mean. */
Stats summarize (std::vector<double> values);

std::string json_string (const std::string & text);
std::string json_number (double value);
std::string json_stats (const Stats & stats);
std::string json_samples (const std::vector<double> & values);

/* Plays the pipeline to EOS. Returns "" then, else the first error ("<element>: <message>
 * (<debug>)") or a timeout. Leaves the pipeline in NULL. */
std::string run_to_eos (GstElement * pipeline, int timeout_s);

}  // namespace bench
