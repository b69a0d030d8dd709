/* gst-opencl benchmarks: what the bench_* programs share. Reading the command line, statistics,
 * JSON text, the machine, and running pipelines with per-frame probes.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gst/gst.h>

#include <chrono>
#include <cstdio>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace bench {

using Clock = std::chrono::steady_clock;

/* ---- The command line ---- */

/* A frame size from the command line; frames 0 means the program's --frames. */
struct FrameSize
{
  int width = 0;
  int height = 0;
  int frames = 0;
};

/* The parts of `text` between separators, empty parts left out. */
std::vector<std::string> split (const std::string & text, char separator);

/* A whole number from `minimum` to `maximum`, or nothing. */
std::optional<int> parse_count (const std::string & text, int minimum, int maximum = 1000000);

/* "WxH[:N],..." or nothing when malformed or empty. */
std::optional<std::vector<FrameSize>> parse_sizes (const std::string & text);

/* `program` and then argv[1] onwards, joined by spaces: the command as results record it. */
std::string command_line (const std::string & program, int argc, char **argv);

/* The start of a program that runs pipelines: its command line as results record it (taken
 * before GStreamer removes its own options), then gst_init (). */
std::string initialize (int *argc, char ***argv);

/* A program's options, each declared once with the variable its value goes to and its help.
 * parse () reads the command line into them. --help or -h prints the help and exits; a mistake
 * prints what it was and the help to stderr and exits with status 2. `spec` is the option as
 * the help shows it: its name, then the name of its value if it takes one ("--frames N"). */
class OptionTable
{
public:
  /* A whole number from `minimum` to `maximum`. */
  OptionTable & count (const std::string & spec, int *value, int minimum,
      const std::string & help, int maximum = 1000000);
  /* Comma-separated whole numbers, at least one. */
  OptionTable & counts (const std::string & spec, std::vector<int> *values, int minimum,
      const std::string & help, int maximum = 1000000);
  OptionTable & text (const std::string & spec, std::string *value, const std::string & help);
  /* Comma-separated words. */
  OptionTable & list (const std::string & spec, std::vector<std::string> *values,
      const std::string & help);
  /* "WxH[:N],..." */
  OptionTable & sizes (const std::string & spec, std::vector<FrameSize> *sizes,
      const std::string & help);
  /* An option without a value: sets *value to `given`. */
  OptionTable & flag (const std::string & spec, bool *value, bool given,
      const std::string & help);

  void parse (int argc, char **argv);
  /* After parse (): a mistake found in the values (why), then the help; exits with status 2. */
  [[noreturn]] void reject (const std::string & why) const;

private:
  struct Option
  {
    std::string spec;
    std::string help;
    bool takes_value = true;
    /* Stores the value; "" or what is wrong with it. */
    std::function<std::string (const std::string & value)> take;
  };

  OptionTable & add (const std::string & spec, const std::string & help, bool takes_value,
      std::function<std::string (const std::string & value)> take);
  const Option *find (const std::string & name) const;
  void print_help (FILE * stream) const;

  std::vector<Option> options_;
  std::string program_ = "bench";
};

/* The options of every benchmark that runs its cases frame by frame: --sizes, --frames,
 * --warmup, --device, --json, --timeout. */
struct FrameOptions
{
  FrameOptions (std::vector<FrameSize> default_sizes, int default_frames, int default_warmup)
    : sizes (std::move (default_sizes)), frames (default_frames), warmup (default_warmup) {}

  std::vector<FrameSize> sizes;
  int frames;
  int warmup;
  int warmup_minimum = 1;
  std::string device;
  std::string json_path;
  int timeout_s = 600;
};

/* A table of the frame options, for the program to add its own; the help gives the defaults
 * `options` holds now. */
OptionTable frame_option_table (FrameOptions & options);

/* ---- Statistics ---- */

struct Stats
{
  double median = 0, min = 0, max = 0, q1 = 0, q3 = 0, mean = 0;
};

/* Median and quartiles (linear interpolation between the closest ranks), min, max, mean. */
Stats summarize (std::vector<double> values);

/* `amount` (bytes, megapixels, ...) per second of the median of `kernel_ms`; 0 without one. */
double per_kernel_second (double amount, const Stats & kernel_ms);

/* `rate` (bytes per second) as a fraction of the copy bandwidth: JSON (null when that was not
 * measured), and a table cell ("12.5%", "-"). */
std::string json_of_copy (double rate, double copy_bytes_per_s);
std::string percent_of_copy (double rate, double copy_bytes_per_s);

/* Milliseconds from `start` to now. */
double ms_since (Clock::time_point start);

/* Wall times of `runs` calls of `work`, after one untimed call (first touches, thread start). */
std::vector<double> time_calls (int runs, const std::function<void ()> & work);

/* ---- JSON text ---- */

std::string json_string (const std::string & text);
/* Six significant digits, as every results file has them. */
std::string json_number (double value);
std::string json_samples (const std::vector<double> & values);

/* An object's members in the order they are added: {"a": 1, "b": [2]}. */
class JsonObject
{
public:
  /* `json` is already JSON text. */
  JsonObject & add (const std::string & key, const std::string & json);
  JsonObject & number (const std::string & key, double value);
  std::string text () const;

private:
  std::string members_;
};

/* {"median", "min", "max", "q1", "q3", "iqr", "mean"} */
std::string json_stats (const Stats & stats);
/* {"median", "min", "max", "q1", "q3"} */
std::string json_quartiles (const Stats & stats);
/* {"median", "min", "max", "samples"} */
std::string json_range (const Stats & stats, const std::vector<double> & samples);

/* The opening of a results file: "{", then "benchmark", "command" and "gstreamer" members, each
 * on its own line and followed by a comma. */
std::string json_opening (const std::string & benchmark, const std::string & command);

/* Writes `text` to `path`; says so on stderr when it cannot. */
bool write_file (const std::string & path, const std::string & text);

/* The end of a benchmark's main: `json` written to `json_path` (nothing when it is empty), then
 * the exit status, 1 when the file cannot be written or `failed`. */
int finish (const std::string & json_path, const std::string & json, bool failed);

/* The copy bandwidth (bytes read + written per second) of a bench_ceilings JSON file, or 0 when
 * `path` is empty or has none (said on stderr when a path was given). */
double copy_bandwidth (const std::string & path);

/* The "--ceilings PATH" row of a benchmark that reports fractions of the copy bandwidth. */
OptionTable & ceilings_option (OptionTable & table, std::string * path);

/* The line naming the copy bandwidth and its file, when there is one. */
void print_copy_bandwidth (double copy_bytes_per_s, const std::string & path);

/* ---- The machine ---- */

/* The CPU's model name from /proc/cpuinfo, or "". */
std::string cpu_model ();
/* The three load averages from /proc/loadavg, or "". */
std::string load_average ();

/* ---- Pipelines ---- */

/* False, after saying so, when the plugin's element `factory` is not registered. */
bool have_element (const char *factory);

/* The pipeline of a gst-launch description, or nullptr with the reason in `error`. */
GstElement *parse_pipeline (const std::string & description, std::string * error);

/* Sets an OpenCL element's `device` property, unless `device` is empty (automatic). */
void set_device (GstElement * element, const std::string & device);

/* "<element>: <message> (<debug>)" of an error message. */
std::string error_text (GstMessage * message);

using MessageHandler = std::function<void (GstMessage *)>;

/* Pops the bus's messages until EOS or an error, `timeout_s` in all at the most; element
 * messages go to `on_element` on the way. "" at EOS, else the error or the timeout. */
std::string wait_for_eos (GstBus * bus, int timeout_s, const MessageHandler & on_element = {});

/* Plays the pipeline to EOS and leaves it in NULL. "" then, else why not (a pipeline that would
 * not start says what its bus said). */
std::string run_to_eos (GstElement * pipeline, int timeout_s,
    const MessageHandler & on_element = {});

/* ---- Per-frame figures ---- */

/* An OpenCL element's `kernel-time` now: the device time of its last frame's kernels. */
double kernel_time_ms (GstElement * element);
/* Its `device-name` (set from start () to stop () only). */
std::string device_name (GstElement * element);

/* Intervals between frames passing one point, the first `warmup` frames left out: the first
 * interval kept starts at the last warm-up frame. */
struct FrameClock
{
  int warmup = 0;
  int frames = 0;
  std::optional<Clock::time_point> last;
  std::vector<double> intervals_ms;

  void tick (Clock::time_point now);
};

/* One case of a per-frame benchmark: one element measured in one pipeline. */
struct FrameCase
{
  std::string device_name;
  std::string error;          /* empty when the case ran to EOS and measured every frame */
  int frames_requested = 0;
  std::vector<double> kernel_ms;
  std::vector<double> wall_ms;
  Stats kernel;
  Stats wall;
};

/* A case's figures as members of its JSON object, one a line at the cases' indent, each line
 * ending in ",\n": device_name, ok and error, frames, kernel_ms, wall_ms. */
std::string json_frame_figures (const FrameCase & result);
/* Its kernel_ms_samples and wall_ms_samples members; no separator after the last. */
std::string json_frame_samples (const FrameCase & result);

/* The device the cases ran on: the last one any case names. */
template <typename Case>
std::string
device_of (const std::vector<Case> & cases)
{
  std::string name;
  for (const auto & c : cases)
    if (!c.device_name.empty ())
      name = c.device_name;
  return name;
}

template <typename Case>
bool
any_failed (const std::vector<Case> & cases)
{
  for (const auto & c : cases)
    if (!c.error.empty ())
      return true;
  return false;
}

/* One case of a per-frame benchmark as run_frame_case () runs it. */
struct FrameRun
{
  /* A gst-launch description with the measured element and a sink named "sink". */
  std::string description;
  std::string measured;           /* the measured element's name */
  std::string device;             /* its device property; "" for automatic */
  int warmup = 0;
  int timeout_s = 600;
  /* Called with the measured element before the pipeline plays (for further probes). */
  std::function<void (GstElement *)> prepare;
  MessageHandler on_element;      /* element messages on the bus */
};

/* Plays run.description to EOS with a FrameProbe on the measured element; the figures, or why
 * there are none, go into `result` (whose frames_requested says how many frames to expect). */
void run_frame_case (const FrameRun & run, FrameCase & result);

/* The per-frame figures of one OpenCL element in a running pipeline: its `kernel-time` as each
 * frame leaves it (read in the streaming thread right after the element set it) and the
 * interval between frames at the sink. The first `warmup` frames are left out. */
class FrameProbe
{
public:
  /* Adds the two pad probes; the probe must outlive the pipeline's streaming. */
  void attach (GstElement * measured, GstElement * sink, int warmup);
  /* Moves what was measured into `result`: its device, samples and statistics, and an error
   * when fewer frames than result.frames_requested were measured. */
  void results_into (FrameCase & result);

private:
  static GstPadProbeReturn on_element_output (GstPad *, GstPadProbeInfo *, gpointer probe);
  static GstPadProbeReturn on_sink_input (GstPad *, GstPadProbeInfo *, gpointer probe);

  std::mutex lock_;
  GstElement *element_ = nullptr;
  int warmup_ = 0;
  int element_frames_ = 0;
  FrameClock sink_clock_;
  std::string device_name_;
  std::vector<double> kernel_ms_;
};

}  // namespace bench
