/* gst-opencl: benchmark of openclmulticonvolve (the blog's volume case) and openclconvolve3d.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Volume cases: for each N in --filters,
 *   fakesrc sizetype=fixed sizemax=S^3 filltype=pattern num-buffers=<warm-up + reps> !
 *   other/tensors,format=static,num_tensors=1,types=uint8,dimensions=S:S:S !
 *   openclmulticonvolve num-kernels=N kernel-size=K dims=3 kernels-file=<random filters> !
 *   fakesink
 * A probe on the filter's src pad reads `kernel-time` (device time of that buffer's kernel,
 * from OpenCL profiling events) per volume. Useful work is counted as the blog counts it: the
 * fully covered outputs only, 2 x (S - K + 1)^3 x K^3 x N floating-point operations (one
 * multiply and one add per tap; 2 x 250^3 x 343 x N for S = 256, K = 7), over the median kernel
 * time. The figure for all S^3 (same-size, clamped) outputs is reported beside it.
 *
 * Video cases: openclconvolve3d 5x5x3 on RGBA frames (--video, default 1920x1080), with the
 * default Gaussian (separable: three 1D passes) and with a random non-separable kernel (one
 * direct pass):
 *   videotestsrc pattern=snow num-buffers=<warm-up + frames> ! video/x-raw,format=RGBA,... !
 *   openclconvolve3d ... ! fakesink sync=false
 * Per output frame: kernel time (all kernels launched for it) and wall time between frames at
 * the sink; frames per second are 1000 / median ms.
 *
 * The first --warmup buffers of each case are left out: they include program builds and the
 * variant tuning. The elements say which kernel variant they chose in `opencl-variant` bus
 * messages, with the median device time of each candidate when they timed them; the tuning cache
 * is kept off disk (GST_OPENCL_TUNING_CACHE=0, unless --keep-tuning-cache) so that every run
 * times the candidates and reports them. --each-variant also runs every volume case once per
 * candidate, forced (GST_OPENCL_VARIANT_CONVOLUTION), for medians over all its volumes.
 * Prints a table; --json PATH writes every figure. */
#include <gst/gst.h>
#include <glib/gstdio.h>

#include <algorithm>
#include <cstring>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

namespace {

using Clock = std::chrono::steady_clock;

struct Options
{
  std::vector<int> filters { 1, 8, 32 };
  int volume = 256;
  int kernel_size = 7;
  int reps = 10;
  int warmup = 2;
  int video_width = 1920, video_height = 1080;
  int frames = 30;
  bool run_volume = true;
  bool run_video = true;
  std::string device;
  std::string json_path;
  int timeout_s = 1200;
  bool keep_tuning_cache = false;
  bool each_variant = false;
};

struct Stats
{
  double median = 0, min = 0, max = 0, q1 = 0, q3 = 0;
};

/* One `opencl-variant` message: the variant a convolution of the element chose, how, and the
 * candidates' median times in ms (negative where not timed in this run). */
struct VariantReport
{
  std::string key;
  std::string variant;
  std::string source;
  std::vector<std::string> candidates;
  std::vector<double> median_ms;
};

struct CaseResult
{
  std::string name;
  std::string pipeline;
  std::string device_name;
  std::string error;
  int requested = 0;
  std::vector<double> kernel_ms;
  std::vector<double> wall_ms;
  Stats kernel, wall;
  std::vector<VariantReport> variants;
  /* Volume cases. */
  int num_filters = 0;
  double useful_flop = 0, same_size_flop = 0;
  /* --each-variant: the case with that variant forced. */
  std::string forced_variant;
};

struct Probe
{
  std::mutex lock;
  GstElement *filter = nullptr;
  int warmup = 0;
  int filter_buffers = 0;
  int sink_buffers = 0;
  std::optional<Clock::time_point> last_stamp;
  std::string device_name;
  std::vector<double> kernel_ms;
  std::vector<double> wall_ms;
};

[[noreturn]] void
usage (const char *program, int status)
{
  std::fprintf (status ? stderr : stdout,
      "usage: %s [options]\n"
      "  --filters N,...    filter counts of the volume cases (default 1,8,32)\n"
      "  --volume S         volume side, S^3 uint8 (default 256)\n"
      "  --kernel-size K    filter side, K^3 taps (default 7)\n"
      "  --reps N           measured volumes per case (default 10)\n"
      "  --video WxH        openclconvolve3d frame size (default 1920x1080)\n"
      "  --frames N         measured video frames per case (default 30)\n"
      "  --warmup N         buffers left out at the start of each case (default 2, at least 1)\n"
      "  --no-volume / --no-video   skip those cases\n"
      "  --device STRING    the elements' device property: gpu, cpu, <platform>[:n]\n"
      "  --json PATH        write the results as JSON\n"
      "  --timeout S        give up on a case after S seconds (default 1200)\n"
      "  --keep-tuning-cache  read and write the tuning cache on disk (default: time the\n"
      "                     variants in every run, to report them)\n"
      "  --each-variant     run each volume case again with every candidate variant forced\n",
      program);
  std::exit (status);
}

int
parse_int (const char *program, const std::string & text, int minimum)
{
  char *end = nullptr;
  long value = std::strtol (text.c_str (), &end, 10);
  if (text.empty () || *end != '\0' || value < minimum || value > 100000) {
    std::fprintf (stderr, "invalid number \"%s\"\n", text.c_str ());
    usage (program, 2);
  }
  return (int) value;
}

Options
parse_options (int argc, char **argv)
{
  Options o;
  for (int i = 1; i < argc; i++) {
    std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc)
        usage (argv[0], 2);
      return argv[++i];
    };
    if (arg == "--filters") {
      o.filters.clear ();
      std::stringstream list (value ());
      std::string item;
      while (std::getline (list, item, ','))
        o.filters.push_back (parse_int (argv[0], item, 1));
    } else if (arg == "--volume") {
      o.volume = parse_int (argv[0], value (), 1);
    } else if (arg == "--kernel-size") {
      o.kernel_size = parse_int (argv[0], value (), 1);
    } else if (arg == "--reps") {
      o.reps = parse_int (argv[0], value (), 1);
    } else if (arg == "--video") {
      std::string size = value ();
      auto x = size.find ('x');
      if (x == std::string::npos)
        usage (argv[0], 2);
      o.video_width = parse_int (argv[0], size.substr (0, x), 1);
      o.video_height = parse_int (argv[0], size.substr (x + 1), 1);
    } else if (arg == "--frames") {
      o.frames = parse_int (argv[0], value (), 1);
    } else if (arg == "--warmup") {
      o.warmup = parse_int (argv[0], value (), 1);
    } else if (arg == "--no-volume") {
      o.run_volume = false;
    } else if (arg == "--no-video") {
      o.run_video = false;
    } else if (arg == "--device") {
      o.device = value ();
    } else if (arg == "--json") {
      o.json_path = value ();
    } else if (arg == "--timeout") {
      o.timeout_s = parse_int (argv[0], value (), 1);
    } else if (arg == "--keep-tuning-cache") {
      o.keep_tuning_cache = true;
    } else if (arg == "--each-variant") {
      o.each_variant = true;
    } else if (arg == "--help" || arg == "-h") {
      usage (argv[0], 0);
    } else {
      std::fprintf (stderr, "unknown option %s\n", arg.c_str ());
      usage (argv[0], 2);
    }
  }
  if (o.filters.empty () || o.kernel_size % 2 == 0 || o.kernel_size > o.volume)
    usage (argv[0], 2);
  return o;
}

double
quantile (const std::vector<double> & sorted, double q)
{
  if (sorted.empty ())
    return 0.0;
  double position = q * (double) (sorted.size () - 1);
  size_t below = (size_t) position;
  size_t above = std::min (below + 1, sorted.size () - 1);
  return sorted[below] + (sorted[above] - sorted[below]) * (position - (double) below);
}

Stats
summarize (std::vector<double> values)
{
  Stats s;
  if (values.empty ())
    return s;
  std::sort (values.begin (), values.end ());
  s.min = values.front ();
  s.max = values.back ();
  s.median = quantile (values, 0.5);
  s.q1 = quantile (values, 0.25);
  s.q3 = quantile (values, 0.75);
  return s;
}

GstPadProbeReturn
on_filter_output (GstPad *, GstPadProbeInfo *, gpointer user_data)
{
  auto *probe = static_cast<Probe *> (user_data);
  guint64 kernel_ns = 0;
  g_object_get (probe->filter, "kernel-time", &kernel_ns, nullptr);
  std::lock_guard<std::mutex> lock (probe->lock);
  if (probe->device_name.empty ()) {
    gchar *name = nullptr;
    g_object_get (probe->filter, "device-name", &name, nullptr);
    if (name)
      probe->device_name = name;
    g_free (name);
  }
  if (probe->filter_buffers++ >= probe->warmup)
    probe->kernel_ms.push_back ((double) kernel_ns * 1e-6);
  return GST_PAD_PROBE_OK;
}

GstPadProbeReturn
on_sink_input (GstPad *, GstPadProbeInfo *, gpointer user_data)
{
  auto *probe = static_cast<Probe *> (user_data);
  auto now = Clock::now ();
  std::lock_guard<std::mutex> lock (probe->lock);
  if (probe->sink_buffers >= probe->warmup && probe->last_stamp)
    probe->wall_ms.push_back (std::chrono::duration<double, std::milli> (now -
            *probe->last_stamp).count ());
  probe->last_stamp = now;
  probe->sink_buffers++;
  return GST_PAD_PROBE_OK;
}

/* The variant report of an `opencl-variant` message, if it is one. */
std::optional<VariantReport>
variant_report (GstMessage * message)
{
  const GstStructure *s = gst_message_get_structure (message);
  if (!s || !gst_structure_has_name (s, "opencl-variant"))
    return std::nullopt;
  VariantReport report;
  auto text = [&](const char *field) {
    const gchar *value = gst_structure_get_string (s, field);
    return std::string (value ? value : "");
  };
  report.key = text ("key");
  report.variant = text ("variant");
  report.source = text ("source");
  const GValue *names = gst_structure_get_value (s, "candidates");
  const GValue *times = gst_structure_get_value (s, "median-ms");
  if (names && times && GST_VALUE_HOLDS_ARRAY (names) && GST_VALUE_HOLDS_ARRAY (times)) {
    const guint count = std::min (gst_value_array_get_size (names),
        gst_value_array_get_size (times));
    for (guint i = 0; i < count; i++) {
      const GValue *name = gst_value_array_get_value (names, i);
      const GValue *time = gst_value_array_get_value (times, i);
      report.candidates.push_back (G_VALUE_HOLDS_STRING (name) ? g_value_get_string (name) :
          "?");
      report.median_ms.push_back (G_VALUE_HOLDS_DOUBLE (time) ? g_value_get_double (time) :
          -1.0);
    }
  }
  return report;
}

/* "variant 4x2f8:16x8:local:tile (timed); candidates: a 1.234, b 2.345 ms" */
std::string
describe_variants (const std::vector<VariantReport> & reports)
{
  std::string text;
  for (const auto & r : reports) {
    text += "  variant " + r.variant + " (" + r.source + ")";
    bool timed = false;
    for (size_t i = 0; i < r.candidates.size (); i++) {
      if (r.median_ms[i] < 0)
        continue;
      char figure[32];
      std::snprintf (figure, sizeof figure, " %.3f", r.median_ms[i]);
      text += std::string (timed ? "," : "; candidates (median ms):") + " " + r.candidates[i] +
          figure;
      timed = true;
    }
    text += "\n";
  }
  return text;
}

/* Runs result.pipeline (elements "filter" and "sink") to EOS. */
void
run_case (const Options & options, CaseResult & result)
{
  GError *error = nullptr;
  GstElement *pipeline = gst_parse_launch (result.pipeline.c_str (), &error);
  if (!pipeline || error) {
    result.error = error ? error->message : "cannot build the pipeline";
    g_clear_error (&error);
    if (pipeline)
      gst_object_unref (pipeline);
    return;
  }
  GstElement *filter = gst_bin_get_by_name (GST_BIN (pipeline), "filter");
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  if (!options.device.empty ())
    g_object_set (filter, "device", options.device.c_str (), nullptr);
  Probe probe;
  probe.filter = filter;
  probe.warmup = options.warmup;
  GstPad *filter_src = gst_element_get_static_pad (filter, "src");
  GstPad *sink_pad = gst_element_get_static_pad (sink, "sink");
  gst_pad_add_probe (filter_src, GST_PAD_PROBE_TYPE_BUFFER, on_filter_output, &probe, nullptr);
  gst_pad_add_probe (sink_pad, GST_PAD_PROBE_TYPE_BUFFER, on_sink_input, &probe, nullptr);

  GstBus *bus = gst_element_get_bus (pipeline);
  if (gst_element_set_state (pipeline, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE) {
    result.error = "the pipeline would not start";
    /* The element's own error says why (no such device, bad settings). */
    if (GstMessage *message = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR)) {
      GError *bus_error = nullptr;
      gst_message_parse_error (message, &bus_error, nullptr);
      if (bus_error)
        result.error += std::string (": ") + bus_error->message;
      g_clear_error (&bus_error);
      gst_message_unref (message);
    }
  }
  while (result.error.empty ()) {
    GstMessage *message = gst_bus_timed_pop_filtered (bus,
        (GstClockTime) options.timeout_s * GST_SECOND,
        (GstMessageType) (GST_MESSAGE_EOS | GST_MESSAGE_ERROR | GST_MESSAGE_ELEMENT));
    if (!message) {
      result.error = "timed out after " + std::to_string (options.timeout_s) + " s";
      break;
    }
    if (GST_MESSAGE_TYPE (message) == GST_MESSAGE_ELEMENT) {
      if (auto report = variant_report (message))
        result.variants.push_back (*report);
      gst_message_unref (message);
      continue;
    }
    bool done = GST_MESSAGE_TYPE (message) == GST_MESSAGE_EOS;
    if (GST_MESSAGE_TYPE (message) == GST_MESSAGE_ERROR) {
      GError *bus_error = nullptr;
      gst_message_parse_error (message, &bus_error, nullptr);
      result.error = std::string (GST_OBJECT_NAME (GST_MESSAGE_SRC (message))) + ": " +
          (bus_error ? bus_error->message : "error");
      g_clear_error (&bus_error);
    }
    gst_message_unref (message);
    if (done)
      break;
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  {
    std::lock_guard<std::mutex> lock (probe.lock);
    result.kernel_ms = probe.kernel_ms;
    result.wall_ms = probe.wall_ms;
    result.device_name = probe.device_name;
  }
  if (result.error.empty () && (int) result.kernel_ms.size () != result.requested)
    result.error = "measured " + std::to_string (result.kernel_ms.size ()) + " of " +
        std::to_string (result.requested);
  result.kernel = summarize (result.kernel_ms);
  result.wall = summarize (result.wall_ms);
  gst_object_unref (bus);
  gst_object_unref (filter_src);
  gst_object_unref (sink_pad);
  gst_object_unref (sink);
  gst_object_unref (filter);
  gst_object_unref (pipeline);
}

/* Random filters in [-1, 1], raw little-endian float32, in a temporary file. */
std::string
write_filters (size_t count, uint32_t seed)
{
  std::mt19937 random (seed);
  std::uniform_real_distribution<float> value (-1.0f, 1.0f);
  std::vector<guint32> words (count);
  for (auto &word : words) {
    float f = value (random);
    guint32 bits;
    memcpy (&bits, &f, sizeof bits);
    word = GUINT32_TO_LE (bits);
  }
  gchar *path = nullptr;
  gint fd = g_file_open_tmp ("bench-convolve-XXXXXX.raw", &path, nullptr);
  if (fd < 0)
    return "";
  close (fd);
  std::string result (path);
  g_free (path);
  if (!g_file_set_contents (result.c_str (), reinterpret_cast<const gchar *> (words.data ()),
          words.size () * sizeof (guint32), nullptr))
    return "";
  return result;
}

std::string
custom_kernel_text (int count, uint32_t seed)
{
  std::mt19937 random (seed);
  std::uniform_real_distribution<double> value (0.0, 1.0);
  std::string text = "<";
  for (int i = 0; i < count; i++)
    text += (i ? "," : "") + std::to_string (value (random));
  return text + ">";
}

std::string
json_string (const std::string & text)
{
  std::string out = "\"";
  for (unsigned char c : text) {
    if (c == '"' || c == '\\')
      out += std::string ("\\") + (char) c;
    else if (c < 0x20)
      out += ' ';
    else
      out += (char) c;
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
      json_number (s.q3) + "}";
}

std::string
json_samples (const std::vector<double> & values)
{
  std::string out = "[";
  for (size_t i = 0; i < values.size (); i++)
    out += (i ? ", " : "") + json_number (values[i]);
  return out + "]";
}

double
tflops (double flop, const Stats & kernel)
{
  return kernel.median > 0 ? flop / (kernel.median * 1e-3) * 1e-12 : 0.0;
}

/* The first line of a /proc file that starts with `key` (its text after ": "), or the whole
 * first line when `key` is empty. */
std::string
proc_line (const char *path, const std::string & key)
{
  std::ifstream file (path);
  std::string line;
  while (std::getline (file, line)) {
    if (key.empty ())
      return line;
    if (line.compare (0, key.size (), key) == 0) {
      auto colon = line.find (": ");
      return colon == std::string::npos ? line : line.substr (colon + 2);
    }
  }
  return "";
}

std::string
load_average ()
{
  std::string line = proc_line ("/proc/loadavg", "");
  std::stringstream fields (line);
  std::string a, b, c;
  fields >> a >> b >> c;
  return a + " " + b + " " + c;
}

bool
write_json (const Options & o, const std::vector<CaseResult> & results,
    const std::string & command_line, const std::string & load_before)
{
  std::ofstream file (o.json_path);
  if (!file)
    return false;
  gchar *gst_version = gst_version_string ();
  file << "{\n  \"benchmark\": \"convolve\",\n";
  file << "  \"command\": " << json_string (command_line) << ",\n";
  file << "  \"gstreamer\": " << json_string (gst_version) << ",\n";
  file << "  \"machine\": {\"cpu\": " << json_string (proc_line ("/proc/cpuinfo", "model name"))
      << ", \"cores\": " << g_get_num_processors () << ", \"loadavg_before\": " <<
      json_string (load_before) << ", \"loadavg_after\": " << json_string (load_average ()) <<
      "},\n";
  file << "  \"device_property\": " << json_string (o.device) << ",\n";
  file << "  \"volume\": " << o.volume << ", \"kernel_size\": " << o.kernel_size << ",\n";
  file << "  \"useful_flop_definition\": \"2 x (S - K + 1)^3 x K^3 x N\",\n";
  file << "  \"warmup\": " << o.warmup << ", \"tuning_cache\": " <<
      (o.keep_tuning_cache ? "true" : "false") << ",\n  \"cases\": [";
  g_free (gst_version);
  for (size_t i = 0; i < results.size (); i++) {
    const auto & r = results[i];
    file << (i ? ",\n" : "\n") << "    {\n";
    file << "      \"name\": " << json_string (r.name) << ",\n";
    file << "      \"pipeline\": " << json_string (r.pipeline) << ",\n";
    file << "      \"device_name\": " << json_string (r.device_name) << ",\n";
    file << "      \"ok\": " << (r.error.empty () ? "true" : "false") << ", \"error\": " <<
        json_string (r.error) << ",\n";
    if (r.num_filters) {
      file << "      \"num_filters\": " << r.num_filters << ", \"useful_flop\": " <<
          json_number (r.useful_flop) << ", \"same_size_flop\": " <<
          json_number (r.same_size_flop) << ",\n";
      file << "      \"tflops_useful\": " << json_number (tflops (r.useful_flop, r.kernel)) <<
          ", \"tflops_same_size\": " << json_number (tflops (r.same_size_flop, r.kernel)) <<
          ",\n";
    } else {
      file << "      \"fps_kernel\": " << json_number (r.kernel.median > 0 ?
          1000.0 / r.kernel.median : 0) << ", \"fps_wall\": " << json_number (
          r.wall.median > 0 ? 1000.0 / r.wall.median : 0) << ",\n";
    }
    if (!r.forced_variant.empty ())
      file << "      \"forced_variant\": " << json_string (r.forced_variant) << ",\n";
    file << "      \"variants\": [";
    for (size_t v = 0; v < r.variants.size (); v++) {
      const auto & report = r.variants[v];
      file << (v ? ", " : "") << "{\"variant\": " << json_string (report.variant) <<
          ", \"source\": " << json_string (report.source) << ", \"key\": " <<
          json_string (report.key) << ", \"candidates\": [";
      for (size_t c = 0; c < report.candidates.size (); c++)
        file << (c ? ", " : "") << "{\"name\": " << json_string (report.candidates[c]) <<
            ", \"median_ms\": " << (report.median_ms[c] < 0 ? std::string ("null") :
                json_number (report.median_ms[c])) << "}";
      file << "]}";
    }
    file << "],\n";
    file << "      \"kernel_ms\": " << json_stats (r.kernel) << ",\n";
    file << "      \"wall_ms\": " << json_stats (r.wall) << ",\n";
    file << "      \"kernel_ms_samples\": " << json_samples (r.kernel_ms) << "\n    }";
  }
  file << "\n  ]\n}\n";
  return (bool) file;
}

const char *const FORCE_VARIABLE = "GST_OPENCL_VARIANT_CONVOLUTION";
std::optional<std::string> forced_at_start;

/* GST_OPENCL_VARIANT_CONVOLUTION as the program found it. */
void
restore_forced_variant ()
{
  if (forced_at_start)
    g_setenv (FORCE_VARIABLE, forced_at_start->c_str (), TRUE);
  else
    g_unsetenv (FORCE_VARIABLE);
}

void
print_volume_case (const CaseResult & r)
{
  if (r.error.empty ())
    std::printf ("kernel median %.3f ms, %.4f TFLOP/s useful on %s\n", r.kernel.median,
        tflops (r.useful_flop, r.kernel), r.device_name.c_str ());
  else
    std::printf ("FAILED: %s\n", r.error.c_str ());
  std::printf ("%s", describe_variants (r.variants).c_str ());
  std::fflush (stdout);
}

}  // namespace

int
main (int argc, char **argv)
{
  std::string command_line;
  for (int i = 0; i < argc; i++)
    command_line += (i ? " " : "") + std::string (argv[i]);
  gst_init (&argc, &argv);
  Options o = parse_options (argc, argv);
  /* Every run times the candidates (and so can report them), unless asked otherwise. */
  if (!o.keep_tuning_cache)
    g_setenv ("GST_OPENCL_TUNING_CACHE", "0", TRUE);
  if (const char *forced = g_getenv (FORCE_VARIABLE))
    forced_at_start = forced;
  for (const char *name : { "openclmulticonvolve", "openclconvolve3d" }) {
    GstElementFactory *factory = gst_element_factory_find (name);
    if (!factory) {
      std::fprintf (stderr, "no %s element: set GST_PLUGIN_PATH to the build's gst folder\n",
          name);
      return 1;
    }
    gst_object_unref (factory);
  }

  const std::string load_before = load_average ();
  std::vector<CaseResult> results;
  std::vector<std::string> temporary;
  const double k3 = (double) o.kernel_size * o.kernel_size * o.kernel_size;
  const double valid = (double) (o.volume - o.kernel_size + 1);
  const double voxels = (double) o.volume * o.volume * o.volume;
  if (o.run_volume) {
    for (int n : o.filters) {
      CaseResult r;
      r.num_filters = n;
      r.requested = o.reps;
      r.useful_flop = 2.0 * valid * valid * valid * k3 * n;
      r.same_size_flop = 2.0 * voxels * k3 * n;
      r.name = std::to_string (o.volume) + "^3 uint8, " + std::to_string (n) + " x " +
          std::to_string (o.kernel_size) + "^3";
      std::string filters = write_filters ((size_t) k3 * n, 1000 + n);
      temporary.push_back (filters);
      gchar *text = g_strdup_printf ("fakesrc sizetype=fixed sizemax=%d filltype=pattern "
          "num-buffers=%d ! other/tensors,format=static,num_tensors=1,types=uint8,"
          "dimensions=%d:%d:%d,framerate=0/1 ! openclmulticonvolve name=filter num-kernels=%d "
          "kernel-size=%d dims=3 kernels-file=%s ! fakesink name=sink sync=false",
          o.volume * o.volume * o.volume, o.warmup + o.reps, o.volume, o.volume, o.volume, n,
          o.kernel_size, filters.c_str ());
      r.pipeline = text;
      g_free (text);
      std::printf ("%s ... ", r.name.c_str ());
      std::fflush (stdout);
      run_case (o, r);
      print_volume_case (r);
      /* The variants the element timed, each forced in turn over the whole case. */
      std::vector<std::string> forced;
      if (o.each_variant && !r.variants.empty ()) {
        const auto & report = r.variants.front ();
        for (size_t i = 0; i < report.candidates.size (); i++)
          if (report.median_ms[i] >= 0)
            forced.push_back (report.candidates[i]);
      }
      results.push_back (r);
      for (const auto & variant : forced) {
        CaseResult f = r;
        f.name = r.name + " [" + variant + "]";
        f.forced_variant = variant;
        f.error.clear ();
        f.variants.clear ();
        std::printf ("%s ... ", f.name.c_str ());
        std::fflush (stdout);
        g_setenv (FORCE_VARIABLE, variant.c_str (), TRUE);
        run_case (o, f);
        restore_forced_variant ();
        print_volume_case (f);
        results.push_back (std::move (f));
      }
    }
  }
  if (o.run_video) {
    for (bool separable : { true, false }) {
      CaseResult r;
      r.requested = o.frames;
      r.name = "openclconvolve3d 5x5x3 " + std::string (separable ? "gaussian (separable)" :
          "custom (direct)") + " RGBA " + std::to_string (o.video_width) + "x" +
          std::to_string (o.video_height);
      std::string kernel = separable ? "" : "preset=custom kernel=\"" +
          custom_kernel_text (75, 7) + "\"";
      gchar *text = g_strdup_printf ("videotestsrc pattern=snow is-live=false num-buffers=%d "
          "! video/x-raw,format=RGBA,width=%d,height=%d,framerate=30/1 ! openclconvolve3d "
          "name=filter kernel-width=5 kernel-height=5 kernel-depth=3 %s ! fakesink name=sink "
          "sync=false", o.warmup + o.frames, o.video_width, o.video_height, kernel.c_str ());
      r.pipeline = text;
      g_free (text);
      std::printf ("%s ... ", r.name.c_str ());
      std::fflush (stdout);
      run_case (o, r);
      if (r.error.empty ())
        std::printf ("kernel median %.3f ms (%.1f fps), wall %.1f fps on %s\n",
            r.kernel.median, 1000.0 / r.kernel.median, 1000.0 / r.wall.median,
            r.device_name.c_str ());
      else
        std::printf ("FAILED: %s\n", r.error.c_str ());
      std::printf ("%s", describe_variants (r.variants).c_str ());
      results.push_back (std::move (r));
    }
  }
  for (const auto & path : temporary)
    if (!path.empty ())
      g_remove (path.c_str ());

  std::printf ("\n%-60s %10s %10s %12s %12s\n", "case", "kern med", "kern IQR", "TFLOP/s",
      "fps");
  for (const auto & r : results) {
    if (r.kernel_ms.empty ()) {
      std::printf ("%-60s failed: %s\n", r.name.c_str (), r.error.c_str ());
      continue;
    }
    std::printf ("%-60s %10.3f %10.3f ", r.name.c_str (), r.kernel.median,
        r.kernel.q3 - r.kernel.q1);
    if (r.num_filters)
      std::printf ("%12.4f %12s\n", tflops (r.useful_flop, r.kernel), "");
    else
      std::printf ("%12s %5.1f / %5.1f\n", "", 1000.0 / r.kernel.median, 1000.0 /
          r.wall.median);
  }
  std::printf ("(ms; TFLOP/s = 2 x (S-K+1)^3 x K^3 x N / median kernel time; fps = kernel / "
      "wall)\n");
  if (!o.json_path.empty ()) {
    if (!write_json (o, results, command_line, load_before)) {
      std::fprintf (stderr, "cannot write %s\n", o.json_path.c_str ());
      return 1;
    }
    std::printf ("wrote %s\n", o.json_path.c_str ());
  }
  for (const auto & r : results)
    if (!r.error.empty ())
      return 1;
  return 0;
}
