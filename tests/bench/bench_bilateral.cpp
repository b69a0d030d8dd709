/* gst-opencl: benchmark of openclbilateral as a user runs it.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * For every case (frame size x mode) it runs
 *   videotestsrc pattern=<pattern> is-live=false num-buffers=<warm-up + frames> !
 *   video/x-raw,format=RGBA,width=W,height=H ! openclbilateral radius=R mode=M ! fakesink
 * to EOS. A probe on the filter's src pad reads `kernel-time` (device time of that frame's
 * kernels, from OpenCL profiling events) as each frame leaves the filter; a probe on the sink's
 * pad takes a steady_clock stamp per buffer, so the wall time per frame covers everything the
 * streaming thread does: test-pattern generation, upload, kernels, download. The first
 * frames (--warmup) are left out: they include the program build and first allocations.
 *
 * Prints a table and, with --json, writes every figure to a JSON file. */
#include <gst/gst.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "bench_util.h"

namespace {

using bench::Stats;
using bench::json_number;
using bench::json_samples;
using bench::json_stats;
using bench::json_string;
using bench::summarize;

using bench::FrameSize;
using bench::split;

struct Options
{
  std::vector<FrameSize> sizes { { 1280, 720, 0 }, { 1920, 1080, 0 }, { 3840, 2160, 0 } };
  std::vector<std::string> modes { "color" };
  int frames = 30;
  int warmup = 5;
  int radius = 4;
  std::string device;
  std::string pattern = "snow";
  std::string json_path;
  int timeout_s = 600;
};


struct CaseResult
{
  FrameSize size;
  std::string mode;
  std::string device_name;
  std::string error;          /* empty when the case ran to EOS */
  int frames_requested = 0;
  std::vector<double> kernel_ms;
  std::vector<double> wall_ms;
  Stats kernel;
  Stats wall;
};

[[noreturn]] void
usage (const char *program, int status)
{
  std::fprintf (status ? stderr : stdout,
      "usage: %s [options]\n"
      "  --sizes WxH[:N],...  frame sizes (default 1280x720,1920x1080,3840x2160);\n"
      "                       :N overrides --frames for that size\n"
      "  --frames N           measured frames per case (default 30)\n"
      "  --warmup N           frames left out at the start of each case (default 5, at least 1)\n"
      "  --modes M,...        color, luma, per-channel (default color)\n"
      "  --radius R           the element's radius (default 4)\n"
      "  --device STRING      the element's device property (default: automatic)\n"
      "  --pattern NAME       videotestsrc pattern, e.g. snow or smpte (default snow)\n"
      "  --json PATH          write the results as JSON\n"
      "  --timeout S          give up on a case after S seconds (default 600)\n", program);
  std::exit (status);
}

int
parse_positive (const char *program, const std::string & text, int minimum)
{
  auto value = bench::parse_int (text, minimum);
  if (!value) {
    std::fprintf (stderr, "invalid number \"%s\"\n", text.c_str ());
    usage (program, 2);
  }
  return *value;
}

std::vector<FrameSize>
parse_sizes (const char *program, const std::string & text)
{
  auto sizes = bench::parse_sizes (text);
  if (!sizes) {
    std::fprintf (stderr, "invalid sizes \"%s\"\n", text.c_str ());
    usage (program, 2);
  }
  return *sizes;
}

Options
parse_options (int argc, char **argv)
{
  Options options;
  for (int i = 1; i < argc; i++) {
    std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc)
        usage (argv[0], 2);
      return argv[++i];
    };
    if (arg == "--sizes")
      options.sizes = parse_sizes (argv[0], value ());
    else if (arg == "--frames")
      options.frames = parse_positive (argv[0], value (), 1);
    else if (arg == "--warmup")
      options.warmup = parse_positive (argv[0], value (), 1);
    else if (arg == "--modes")
      options.modes = split (value (), ',');
    else if (arg == "--radius")
      options.radius = parse_positive (argv[0], value (), 0);
    else if (arg == "--device")
      options.device = value ();
    else if (arg == "--pattern")
      options.pattern = value ();
    else if (arg == "--json")
      options.json_path = value ();
    else if (arg == "--timeout")
      options.timeout_s = parse_positive (argv[0], value (), 1);
    else if (arg == "--help" || arg == "-h")
      usage (argv[0], 0);
    else {
      std::fprintf (stderr, "unknown option %s\n", arg.c_str ());
      usage (argv[0], 2);
    }
  }
  if (options.modes.empty ())
    usage (argv[0], 2);
  return options;
}

std::string
pipeline_description (const Options & options, const FrameSize & size, const std::string & mode,
    int buffers)
{
  gchar *text = g_strdup_printf ("videotestsrc name=src pattern=%s is-live=false num-buffers=%d"
      " ! video/x-raw,format=RGBA,width=%d,height=%d ! openclbilateral name=filter radius=%d "
      "mode=%s ! fakesink name=sink sync=false", options.pattern.c_str (), buffers, size.width,
      size.height, options.radius, mode.c_str ());
  std::string description (text);
  g_free (text);
  return description;
}

/* Runs one pipeline to EOS; on failure, `error` says why. */
void
run_case (const Options & options, CaseResult & result)
{
  const int frames = result.size.frames ? result.size.frames : options.frames;
  result.frames_requested = frames;
  std::string description = pipeline_description (options, result.size, result.mode,
      options.warmup + frames);

  GError *error = nullptr;
  GstElement *pipeline = gst_parse_launch (description.c_str (), &error);
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

  bench::FrameProbe probe;
  probe.attach (filter, sink, options.warmup);

  if (gst_element_set_state (pipeline, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE)
    result.error = "the pipeline would not start";

  GstBus *bus = gst_element_get_bus (pipeline);
  while (result.error.empty ()) {
    GstMessage *message = gst_bus_timed_pop_filtered (bus,
        (GstClockTime) options.timeout_s * GST_SECOND,
        (GstMessageType) (GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
    if (!message) {
      result.error = "timed out after " + std::to_string (options.timeout_s) + " s";
      break;
    }
    bool done = false;
    switch (GST_MESSAGE_TYPE (message)) {
      case GST_MESSAGE_EOS:
        done = true;
        break;
      case GST_MESSAGE_ERROR:{
        GError *bus_error = nullptr;
        gchar *debug = nullptr;
        gst_message_parse_error (message, &bus_error, &debug);
        result.error = std::string (GST_OBJECT_NAME (GST_MESSAGE_SRC (message))) + ": " +
            (bus_error ? bus_error->message : "error") + (debug ? std::string (" (") + debug +
            ")" : std::string ());
        g_clear_error (&bus_error);
        g_free (debug);
        break;
      }
      default:
        break;
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
  if (result.error.empty () && (int) result.kernel_ms.size () != frames)
    result.error = "measured " + std::to_string (result.kernel_ms.size ()) + " of " +
        std::to_string (frames) + " frames";
  result.kernel = summarize (result.kernel_ms);
  result.wall = summarize (result.wall_ms);

  gst_object_unref (bus);
  gst_object_unref (sink);
  gst_object_unref (filter);
  gst_object_unref (pipeline);
}

bool
write_json (const Options & options, const std::vector<CaseResult> & results,
    const std::string & command_line)
{
  std::ofstream file (options.json_path);
  if (!file)
    return false;
  gchar *gst_version = gst_version_string ();
  file << "{\n  \"benchmark\": \"openclbilateral\",\n";
  file << "  \"command\": " << json_string (command_line) << ",\n";
  file << "  \"gstreamer\": " << json_string (gst_version) << ",\n";
  file << "  \"device_property\": " << json_string (options.device) << ",\n";
  file << "  \"pattern\": " << json_string (options.pattern) << ",\n";
  file << "  \"format\": \"RGBA\",\n";
  file << "  \"radius\": " << options.radius << ",\n";
  file << "  \"warmup_frames\": " << options.warmup << ",\n";
  file << "  \"cases\": [";
  g_free (gst_version);
  for (size_t i = 0; i < results.size (); i++) {
    const auto & r = results[i];
    double megapixels = (double) r.size.width * r.size.height * 1e-6;
    file << (i ? ",\n" : "\n") << "    {\n";
    file << "      \"width\": " << r.size.width << ", \"height\": " << r.size.height <<
        ", \"mode\": " << json_string (r.mode) << ",\n";
    file << "      \"device_name\": " << json_string (r.device_name) << ",\n";
    file << "      \"ok\": " << (r.error.empty () ? "true" : "false") << ", \"error\": " <<
        json_string (r.error) << ",\n";
    file << "      \"frames\": " << r.kernel_ms.size () << ", \"frames_requested\": " <<
        r.frames_requested << ",\n";
    file << "      \"kernel_ms\": " << json_stats (r.kernel) << ",\n";
    file << "      \"wall_ms\": " << json_stats (r.wall) << ",\n";
    file << "      \"kernel_mpixel_per_s\": " << json_number (r.kernel.median > 0 ?
        megapixels / (r.kernel.median * 1e-3) : 0.0) << ",\n";
    file << "      \"kernel_ms_samples\": " << json_samples (r.kernel_ms) << ",\n";
    file << "      \"wall_ms_samples\": " << json_samples (r.wall_ms) << "\n    }";
  }
  file << "\n  ]\n}\n";
  return (bool) file;
}

void
print_table (const std::vector<CaseResult> & results)
{
  std::printf ("\n%-11s %-11s %7s %9s %9s %9s %9s %9s  %s\n", "size", "mode", "frames",
      "kern med", "kern min", "kern max", "kern IQR", "wall med", "(ms)");
  for (const auto & r : results) {
    char size[32];
    std::snprintf (size, sizeof size, "%dx%d", r.size.width, r.size.height);
    if (r.kernel_ms.empty ()) {
      std::printf ("%-11s %-11s  failed: %s\n", size, r.mode.c_str (), r.error.c_str ());
      continue;
    }
    std::printf ("%-11s %-11s %7zu %9.3f %9.3f %9.3f %9.3f %9.3f%s\n", size, r.mode.c_str (),
        r.kernel_ms.size (), r.kernel.median, r.kernel.min, r.kernel.max,
        r.kernel.q3 - r.kernel.q1, r.wall.median, r.error.empty () ? "" : "  (incomplete)");
  }
}

}  // namespace

int
main (int argc, char **argv)
{
  std::string command_line;
  for (int i = 0; i < argc; i++)
    command_line += (i ? " " : "") + std::string (argv[i]);
  gst_init (&argc, &argv);
  Options options = parse_options (argc, argv);

  GstElementFactory *factory = gst_element_factory_find ("openclbilateral");
  if (!factory) {
    std::fprintf (stderr, "no openclbilateral element: set GST_PLUGIN_PATH to the build's gst "
        "folder\n");
    return 1;
  }
  gst_object_unref (factory);

  std::vector<CaseResult> results;
  for (const auto & size : options.sizes) {
    for (const auto & mode : options.modes) {
      CaseResult result;
      result.size = size;
      result.mode = mode;
      std::printf ("%dx%d %s ... ", size.width, size.height, mode.c_str ());
      std::fflush (stdout);
      run_case (options, result);
      if (result.error.empty ())
        std::printf ("%zu frames, kernel median %.3f ms on %s\n", result.kernel_ms.size (),
            result.kernel.median, result.device_name.c_str ());
      else
        std::printf ("FAILED: %s\n", result.error.c_str ());
      results.push_back (std::move (result));
    }
  }

  std::string device_name;
  for (const auto & r : results)
    if (!r.device_name.empty ())
      device_name = r.device_name;
  std::printf ("\nopenclbilateral, RGBA, radius %d, pattern %s, %d warm-up frames, device: %s\n",
      options.radius, options.pattern.c_str (), options.warmup,
      device_name.empty () ? "(unknown)" : device_name.c_str ());
  print_table (results);

  if (!options.json_path.empty ()) {
    if (!write_json (options, results, command_line)) {
      std::fprintf (stderr, "cannot write %s\n", options.json_path.c_str ());
      return 1;
    }
    std::printf ("\nwrote %s\n", options.json_path.c_str ());
  }
  for (const auto & r : results)
    if (!r.error.empty ())
      return 1;
  return 0;
}
