/* gst-opencl benchmarks: what the bench_* programs share.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "benchlib.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace bench {

/* ---- The command line ---- */

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

std::optional<int>
parse_count (const std::string & text, int minimum, int maximum)
{
  char *end = nullptr;
  long value = std::strtol (text.c_str (), &end, 10);
  if (text.empty () || *end != '\0' || value < minimum || value > maximum)
    return std::nullopt;
  return (int) value;
}

std::optional<std::vector<FrameSize>>
parse_sizes (const std::string & text)
{
  std::vector<FrameSize> sizes;
  for (const auto & item : split (text, ',')) {
    FrameSize size;
    std::string dims = item;
    auto colon = item.find (':');
    if (colon != std::string::npos) {
      auto frames = parse_count (item.substr (colon + 1), 1);
      if (!frames)
        return std::nullopt;
      size.frames = *frames;
      dims = item.substr (0, colon);
    }
    auto x = dims.find ('x');
    if (x == std::string::npos)
      return std::nullopt;
    auto width = parse_count (dims.substr (0, x), 1);
    auto height = parse_count (dims.substr (x + 1), 1);
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

std::string
command_line (const std::string & program, int argc, char **argv)
{
  std::string command = program;
  for (int i = 1; i < argc; i++)
    command += std::string (" ") + argv[i];
  return command;
}

OptionTable &
OptionTable::add (const std::string & spec, const std::string & help, bool takes_value,
    std::function<std::string (const std::string & value)> take)
{
  options_.push_back ({ spec, help, takes_value, std::move (take) });
  return *this;
}

OptionTable &
OptionTable::count (const std::string & spec, int *value, int minimum, const std::string & help,
    int maximum)
{
  return add (spec, help, true, [value, minimum, maximum](const std::string & text) {
        auto parsed = parse_count (text, minimum, maximum);
        if (!parsed)
          return "invalid number \"" + text + "\"";
        *value = *parsed;
        return std::string ();
      });
}

OptionTable &
OptionTable::counts (const std::string & spec, std::vector<int> *values, int minimum,
    const std::string & help, int maximum)
{
  return add (spec, help, true, [values, minimum, maximum](const std::string & text) {
        values->clear ();
        for (const auto & part : split (text, ',')) {
          auto parsed = parse_count (part, minimum, maximum);
          if (!parsed)
            return "invalid number \"" + part + "\"";
          values->push_back (*parsed);
        }
        return std::string (values->empty () ? "no numbers" : "");
      });
}

OptionTable &
OptionTable::text (const std::string & spec, std::string *value, const std::string & help)
{
  return add (spec, help, true, [value](const std::string & text) {
        *value = text;
        return std::string ();
      });
}

OptionTable &
OptionTable::list (const std::string & spec, std::vector<std::string> *values,
    const std::string & help)
{
  return add (spec, help, true, [values](const std::string & text) {
        *values = split (text, ',');
        return std::string (values->empty () ? "an empty list" : "");
      });
}

OptionTable &
OptionTable::sizes (const std::string & spec, std::vector<FrameSize> *sizes,
    const std::string & help)
{
  return add (spec, help, true, [sizes](const std::string & text) {
        auto parsed = parse_sizes (text);
        if (!parsed)
          return "invalid sizes \"" + text + "\"";
        *sizes = *parsed;
        return std::string ();
      });
}

OptionTable &
OptionTable::flag (const std::string & spec, bool *value, bool given, const std::string & help)
{
  return add (spec, help, false, [value, given](const std::string &) {
        *value = given;
        return std::string ();
      });
}

const OptionTable::Option *
OptionTable::find (const std::string & name) const
{
  for (const auto & option : options_)
    if (option.spec.substr (0, option.spec.find (' ')) == name)
      return &option;
  return nullptr;
}

void
OptionTable::parse (int argc, char **argv)
{
  program_ = argv[0];
  for (int i = 1; i < argc; i++) {
    const std::string name = argv[i];
    if (name == "--help" || name == "-h") {
      print_help (stdout);
      std::exit (0);
    }
    const Option *option = find (name);
    if (!option)
      reject ("unknown option " + name);
    if (option->takes_value && i + 1 >= argc)
      reject (name + " takes a value");
    const std::string why = option->take (option->takes_value ? argv[++i] : "");
    if (!why.empty ())
      reject (why + " for " + name);
  }
}

void
OptionTable::reject (const std::string & why) const
{
  std::fprintf (stderr, "%s\n", why.c_str ());
  print_help (stderr);
  std::exit (2);
}

/* One line an option, its help from the 26th column, wrapped before the 100th. */
void
OptionTable::print_help (FILE * stream) const
{
  const size_t column = 25, width = 99;
  std::fprintf (stream, "usage: %s [options]\n", program_.c_str ());
  for (const auto & option : options_) {
    std::string line = "  " + option.spec;
    line += line.size () < column ? std::string (column - line.size (), ' ') : " ";
    for (const auto & word : split (option.help, ' ')) {
      if (line.size () + 1 + word.size () > width && line.find_first_not_of (' ') < column) {
        std::fprintf (stream, "%s\n", line.c_str ());
        line = std::string (column, ' ');
      }
      line += (line.back () == ' ' ? "" : " ") + word;
    }
    std::fprintf (stream, "%s\n", line.c_str ());
  }
}

OptionTable
frame_option_table (FrameOptions & options)
{
  std::string sizes;
  for (const auto & size : options.sizes)
    sizes += (sizes.empty () ? "" : ",") + std::to_string (size.width) + "x" +
        std::to_string (size.height);
  const std::string warmup = "frames left out at the start of each case (default " +
      std::to_string (options.warmup) + (options.warmup_minimum ? ", at least " +
      std::to_string (options.warmup_minimum) : std::string ()) + ")";
  OptionTable table;
  table.sizes ("--sizes WxH[:N],...", &options.sizes, "frame sizes (default " + sizes +
      "); :N measures N frames at that size instead of --frames")
      .count ("--frames N", &options.frames, 1, "measured frames per case (default " +
      std::to_string (options.frames) + ")")
      .count ("--warmup N", &options.warmup, options.warmup_minimum, warmup)
      .text ("--device STRING", &options.device, "the elements' device property: gpu, cpu, "
      "<platform>[:n] (default: automatic)")
      .text ("--json PATH", &options.json_path, "write the results as JSON")
      .count ("--timeout S", &options.timeout_s, 1, "give up on a case after S seconds "
      "(default " + std::to_string (options.timeout_s) + ")");
  return table;
}

std::string
initialize (int *argc, char ***argv)
{
  std::string command = command_line ((*argv)[0], *argc, *argv);
  gst_init (argc, argv);
  return command;
}

/* ---- Statistics ---- */

/* Quantile of sorted values by linear interpolation between the closest ranks. */
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

double
per_kernel_second (double amount, const Stats & kernel_ms)
{
  return kernel_ms.median > 0 ? amount / (kernel_ms.median * 1e-3) : 0.0;
}

std::string
json_of_copy (double rate, double copy_bytes_per_s)
{
  return copy_bytes_per_s > 0 ? json_number (rate / copy_bytes_per_s) : "null";
}

std::string
percent_of_copy (double rate, double copy_bytes_per_s)
{
  if (copy_bytes_per_s <= 0)
    return "-";
  char cell[16];
  std::snprintf (cell, sizeof cell, "%.1f%%", 100.0 * rate / copy_bytes_per_s);
  return cell;
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

double
ms_since (Clock::time_point start)
{
  return std::chrono::duration<double, std::milli> (Clock::now () - start).count ();
}

std::vector<double>
time_calls (int runs, const std::function<void ()> & work)
{
  work ();
  std::vector<double> ms;
  for (int run = 0; run < runs; run++) {
    auto start = Clock::now ();
    work ();
    ms.push_back (ms_since (start));
  }
  return ms;
}

/* ---- JSON text ---- */

std::string
json_string (const std::string & text)
{
  std::string out = "\"";
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += (char) c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
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
json_samples (const std::vector<double> & values)
{
  std::string out = "[";
  for (size_t i = 0; i < values.size (); i++)
    out += (i ? ", " : "") + json_number (values[i]);
  return out + "]";
}

JsonObject &
JsonObject::add (const std::string & key, const std::string & json)
{
  members_ += (members_.empty () ? "" : ", ") + json_string (key) + ": " + json;
  return *this;
}

JsonObject &
JsonObject::number (const std::string & key, double value)
{
  return add (key, json_number (value));
}

std::string
JsonObject::text () const
{
  return "{" + members_ + "}";
}

std::string
json_stats (const Stats & s)
{
  return JsonObject ().number ("median", s.median).number ("min", s.min).number ("max", s.max)
      .number ("q1", s.q1).number ("q3", s.q3).number ("iqr", s.q3 - s.q1)
      .number ("mean", s.mean).text ();
}

std::string
json_quartiles (const Stats & s)
{
  return JsonObject ().number ("median", s.median).number ("min", s.min).number ("max", s.max)
      .number ("q1", s.q1).number ("q3", s.q3).text ();
}

std::string
json_range (const Stats & s, const std::vector<double> & samples)
{
  return JsonObject ().number ("median", s.median).number ("min", s.min).number ("max", s.max)
      .add ("samples", json_samples (samples)).text ();
}

std::string
json_opening (const std::string & benchmark, const std::string & command)
{
  gchar *version = gst_version_string ();
  std::string text = "{\n  \"benchmark\": " + json_string (benchmark) + ",\n  \"command\": " +
      json_string (command) + ",\n  \"gstreamer\": " + json_string (version) + ",\n";
  g_free (version);
  return text;
}

bool
write_file (const std::string & path, const std::string & text)
{
  std::ofstream file (path);
  if (file)
    file << text;
  if (!file) {
    std::fprintf (stderr, "cannot write %s\n", path.c_str ());
    return false;
  }
  return true;
}

int
finish (const std::string & json_path, const std::string & json, bool failed)
{
  if (!json_path.empty ()) {
    if (!write_file (json_path, json))
      return 1;
    std::printf ("\nwrote %s\n", json_path.c_str ());
  }
  return failed ? 1 : 0;
}

static double
copy_bandwidth_in (const std::string & path)
{
  gchar *contents = nullptr;
  if (path.empty () || !g_file_get_contents (path.c_str (), &contents, nullptr, nullptr))
    return 0;
  std::string text (contents);
  g_free (contents);
  const size_t copy = text.find ("\"copy\"");
  const size_t key = copy == std::string::npos ? copy : text.find ("\"bytes_per_s\"", copy);
  const size_t colon = key == std::string::npos ? key : text.find (':', key);
  return colon == std::string::npos ? 0 : std::strtod (text.c_str () + colon + 1, nullptr);
}

double
copy_bandwidth (const std::string & path)
{
  const double bytes_per_s = copy_bandwidth_in (path);
  if (!path.empty () && bytes_per_s <= 0)
    std::fprintf (stderr, "no copy bandwidth in %s\n", path.c_str ());
  return bytes_per_s;
}

OptionTable &
ceilings_option (OptionTable & table, std::string * path)
{
  return table.text ("--ceilings PATH", path, "bench_ceilings JSON of the device: adds the "
      "fraction of its copy bandwidth");
}

void
print_copy_bandwidth (double copy_bytes_per_s, const std::string & path)
{
  if (copy_bytes_per_s > 0)
    std::printf ("copy bandwidth %.1f GB/s (read + written), from %s\n", copy_bytes_per_s * 1e-9,
        path.c_str ());
}

/* ---- The machine ---- */

std::string
cpu_model ()
{
  std::ifstream file ("/proc/cpuinfo");
  std::string line;
  while (std::getline (file, line)) {
    if (line.compare (0, 10, "model name") != 0)
      continue;
    auto colon = line.find (": ");
    return colon == std::string::npos ? line : line.substr (colon + 2);
  }
  return "";
}

std::string
load_average ()
{
  std::ifstream file ("/proc/loadavg");
  std::string one, five, fifteen;
  file >> one >> five >> fifteen;
  return one + " " + five + " " + fifteen;
}

/* ---- Pipelines ---- */

bool
have_element (const char *factory_name)
{
  GstElementFactory *factory = gst_element_factory_find (factory_name);
  if (!factory) {
    std::fprintf (stderr, "no %s element: set GST_PLUGIN_PATH to the build's gst folder\n",
        factory_name);
    return false;
  }
  gst_object_unref (factory);
  return true;
}

GstElement *
parse_pipeline (const std::string & description, std::string * error)
{
  GError *parse_error = nullptr;
  GstElement *pipeline = gst_parse_launch (description.c_str (), &parse_error);
  if (pipeline && !parse_error)
    return pipeline;
  *error = parse_error ? parse_error->message : "cannot build the pipeline";
  g_clear_error (&parse_error);
  if (pipeline)
    gst_object_unref (pipeline);
  return nullptr;
}

void
set_device (GstElement * element, const std::string & device)
{
  if (!device.empty ())
    g_object_set (element, "device", device.c_str (), nullptr);
}

std::string
error_text (GstMessage * message)
{
  GError *error = nullptr;
  gchar *debug = nullptr;
  gst_message_parse_error (message, &error, &debug);
  std::string text = std::string (GST_OBJECT_NAME (GST_MESSAGE_SRC (message))) + ": " +
      (error ? error->message : "error") + (debug ? std::string (" (") + debug + ")" :
      std::string ());
  g_clear_error (&error);
  g_free (debug);
  return text;
}

std::string
wait_for_eos (GstBus * bus, int timeout_s, const MessageHandler & on_element)
{
  const gint64 deadline = g_get_monotonic_time () + (gint64) timeout_s * G_USEC_PER_SEC;
  while (true) {
    const gint64 left_us = deadline - g_get_monotonic_time ();
    if (left_us <= 0)
      return "timed out after " + std::to_string (timeout_s) + " s";
    GstMessage *message = gst_bus_timed_pop (bus, (GstClockTime) left_us * GST_USECOND);
    if (!message)
      continue;
    std::optional<std::string> end;
    if (GST_MESSAGE_TYPE (message) == GST_MESSAGE_EOS)
      end = "";
    else if (GST_MESSAGE_TYPE (message) == GST_MESSAGE_ERROR)
      end = error_text (message);
    else if (GST_MESSAGE_TYPE (message) == GST_MESSAGE_ELEMENT && on_element)
      on_element (message);
    gst_message_unref (message);
    if (end)
      return *end;
  }
}

std::string
run_to_eos (GstElement * pipeline, int timeout_s, const MessageHandler & on_element)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  std::string error;
  if (gst_element_set_state (pipeline, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE) {
    error = "the pipeline would not start";
    if (GstMessage *message = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR)) {
      error += ": " + error_text (message);
      gst_message_unref (message);
    }
  } else {
    error = wait_for_eos (bus, timeout_s, on_element);
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  return error;
}

/* ---- Per-frame figures ---- */

double
kernel_time_ms (GstElement * element)
{
  guint64 kernel_ns = 0;
  g_object_get (element, "kernel-time", &kernel_ns, nullptr);
  return (double) kernel_ns * 1e-6;
}

std::string
device_name (GstElement * element)
{
  gchar *name = nullptr;
  g_object_get (element, "device-name", &name, nullptr);
  std::string result = name ? name : "";
  g_free (name);
  return result;
}

void
FrameClock::tick (Clock::time_point now)
{
  if (frames >= warmup && last)
    intervals_ms.push_back (std::chrono::duration<double, std::milli> (now - *last).count ());
  last = now;
  frames++;
}

std::string
json_frame_figures (const FrameCase & r)
{
  return "      \"device_name\": " + json_string (r.device_name) + ",\n" +
      "      \"ok\": " + (r.error.empty () ? "true" : "false") + ", \"error\": " +
      json_string (r.error) + ",\n" +
      "      \"frames\": " + std::to_string (r.kernel_ms.size ()) + ", \"frames_requested\": " +
      std::to_string (r.frames_requested) + ",\n" +
      "      \"kernel_ms\": " + json_stats (r.kernel) + ",\n" +
      "      \"wall_ms\": " + json_stats (r.wall) + ",\n";
}

std::string
json_frame_samples (const FrameCase & r)
{
  return "      \"kernel_ms_samples\": " + json_samples (r.kernel_ms) + ",\n" +
      "      \"wall_ms_samples\": " + json_samples (r.wall_ms);
}

void
FrameProbe::attach (GstElement * measured, GstElement * sink, int warmup)
{
  element_ = measured;
  warmup_ = warmup;
  sink_clock_.warmup = warmup;
  GstPad *element_src = gst_element_get_static_pad (measured, "src");
  GstPad *sink_pad = gst_element_get_static_pad (sink, "sink");
  gst_pad_add_probe (element_src, GST_PAD_PROBE_TYPE_BUFFER, on_element_output, this, nullptr);
  gst_pad_add_probe (sink_pad, GST_PAD_PROBE_TYPE_BUFFER, on_sink_input, this, nullptr);
  gst_object_unref (element_src);
  gst_object_unref (sink_pad);
}

void
FrameProbe::results_into (FrameCase & result)
{
  {
    std::lock_guard<std::mutex> guard (lock_);
    result.kernel_ms = std::move (kernel_ms_);
    result.wall_ms = std::move (sink_clock_.intervals_ms);
    result.device_name = device_name_;
  }
  if (result.error.empty () && (int) result.kernel_ms.size () != result.frames_requested)
    result.error = "measured " + std::to_string (result.kernel_ms.size ()) + " of " +
        std::to_string (result.frames_requested) + " frames";
  result.kernel = summarize (result.kernel_ms);
  result.wall = summarize (result.wall_ms);
}

void
run_frame_case (const FrameRun & run, FrameCase & result)
{
  GstElement *pipeline = parse_pipeline (run.description, &result.error);
  if (!pipeline)
    return;
  GstElement *measured = gst_bin_get_by_name (GST_BIN (pipeline), run.measured.c_str ());
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  set_device (measured, run.device);
  FrameProbe probe;
  probe.attach (measured, sink, run.warmup);
  if (run.prepare)
    run.prepare (measured);
  result.error = run_to_eos (pipeline, run.timeout_s, run.on_element);
  probe.results_into (result);
  gst_object_unref (sink);
  gst_object_unref (measured);
  gst_object_unref (pipeline);
}

GstPadProbeReturn
FrameProbe::on_element_output (GstPad *, GstPadProbeInfo *, gpointer user_data)
{
  auto *probe = static_cast<FrameProbe *> (user_data);
  const double kernel_ms = kernel_time_ms (probe->element_);
  std::lock_guard<std::mutex> guard (probe->lock_);
  /* device-name is only set from start () to stop (): read it while frames flow. */
  if (probe->device_name_.empty ())
    probe->device_name_ = device_name (probe->element_);
  if (probe->element_frames_++ >= probe->warmup_)
    probe->kernel_ms_.push_back (kernel_ms);
  return GST_PAD_PROBE_OK;
}

GstPadProbeReturn
FrameProbe::on_sink_input (GstPad *, GstPadProbeInfo *, gpointer user_data)
{
  auto *probe = static_cast<FrameProbe *> (user_data);
  const auto now = Clock::now ();
  std::lock_guard<std::mutex> guard (probe->lock_);
  probe->sink_clock_.tick (now);
  return GST_PAD_PROBE_OK;
}

}  // namespace bench
