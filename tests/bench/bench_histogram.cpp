/* gst-opencl: benchmark of openclhistogram on random and one-colour frames.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * For every case (frame size x content) it runs
 *   appsrc (one prepared frame, pushed again and again) ! openclhistogram bins=B ! fakesink
 * to EOS. The frame is made once: uniform random bytes ("random", every channel of every pixel
 * independent), or every byte the same ("one-colour", every sample of a channel in one bin: the
 * worst case for atomics). A probe on the element's src pad reads `kernel-time` (device time of
 * that frame's kernels, from OpenCL profiling events) as each frame leaves; a probe on the sink
 * takes a steady_clock stamp per frame, so the wall time per frame is what the element costs in
 * the streaming thread: upload, kernels, reading the counts back, posting the message. The first
 * --warmup frames are left out (program build, first allocations).
 *
 * Prints a table and, with --json, writes every figure to a JSON file. */
#include <gst/app/gstappsrc.h>
#include <gst/gst.h>
#include <gst/video/video.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "bench_util.h"

namespace {

using bench::FrameSize;
using bench::Stats;
using bench::split;

struct Options
{
  std::vector<FrameSize> sizes { { 1920, 1080, 0 }, { 3840, 2160, 0 } };
  std::vector<std::string> contents { "random", "one-colour" };
  int frames = 50;
  int warmup = 5;
  int bins = 256;
  std::string format = "RGBA";
  std::string device;
  std::string json_path;
  int timeout_s = 600;
};

struct CaseResult
{
  FrameSize size;
  std::string content;
  std::string device_name;
  std::string error;
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
      "  --sizes WxH[:N],...    frame sizes (default 1920x1080,3840x2160); :N overrides --frames\n"
      "  --contents C,...       random, one-colour (default both)\n"
      "  --frames N             measured frames per case (default 50)\n"
      "  --warmup N             frames left out at the start of each case (default 5, at least 1)\n"
      "  --bins N               the element's bins (default 256)\n"
      "  --format F             video format (default RGBA)\n"
      "  --device STRING        the element's device property (default: automatic)\n"
      "  --json PATH            write the results as JSON\n"
      "  --timeout S            give up on a case after S seconds (default 600)\n", program);
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
    else if (arg == "--contents")
      options.contents = split (value (), ',');
    else if (arg == "--frames")
      options.frames = parse_positive (argv[0], value (), 1);
    else if (arg == "--warmup")
      options.warmup = parse_positive (argv[0], value (), 1);
    else if (arg == "--bins")
      options.bins = parse_positive (argv[0], value (), 2);
    else if (arg == "--format")
      options.format = value ();
    else if (arg == "--device")
      options.device = value ();
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
  for (const auto & content : options.contents)
    if (content != "random" && content != "one-colour")
      usage (argv[0], 2);
  if (options.contents.empty ()
      || gst_video_format_from_string (options.format.c_str ()) == GST_VIDEO_FORMAT_UNKNOWN)
    usage (argv[0], 2);
  return options;
}

/* The frame every push repeats: random bytes, or every byte 0x96 (one colour in any format). */
GstBuffer *
make_frame (const GstVideoInfo * info, const std::string & content)
{
  std::vector<guint8> bytes (info->size, 0x96);
  if (content == "random") {
    std::mt19937 random (12345);
    for (size_t i = 0; i + 4 <= bytes.size (); i += 4) {
      guint32 word = random ();
      std::memcpy (&bytes[i], &word, 4);
    }
  }
  GstBuffer *buffer = gst_buffer_new_allocate (nullptr, bytes.size (), nullptr);
  gst_buffer_fill (buffer, 0, bytes.data (), bytes.size ());
  return buffer;
}

/* Pops bus messages until EOS or an error; drains the histogram messages on the way. */
std::string
wait_for_end (GstBus * bus, int timeout_s)
{
  const gint64 deadline = g_get_monotonic_time () + (gint64) timeout_s * G_USEC_PER_SEC;
  while (true) {
    gint64 left_us = deadline - g_get_monotonic_time ();
    if (left_us <= 0)
      return "timed out after " + std::to_string (timeout_s) + " s";
    GstMessage *message = gst_bus_timed_pop (bus, (GstClockTime) left_us * GST_USECOND);
    if (!message)
      continue;
    std::string error;
    bool done = false;
    if (GST_MESSAGE_TYPE (message) == GST_MESSAGE_EOS) {
      done = true;
    } else if (GST_MESSAGE_TYPE (message) == GST_MESSAGE_ERROR) {
      GError *bus_error = nullptr;
      gchar *debug = nullptr;
      gst_message_parse_error (message, &bus_error, &debug);
      error = std::string (GST_OBJECT_NAME (GST_MESSAGE_SRC (message))) + ": " +
          (bus_error ? bus_error->message : "error") + (debug ? std::string (" (") + debug +
          ")" : std::string ());
      g_clear_error (&bus_error);
      g_free (debug);
      done = true;
    }
    gst_message_unref (message);
    if (done)
      return error;
  }
}

void
run_case (const Options & options, CaseResult & result)
{
  const int frames = result.size.frames ? result.size.frames : options.frames;
  result.frames_requested = frames;
  gchar *description = g_strdup_printf ("appsrc name=src format=time block=true "
      "max-buffers=2 ! openclhistogram name=histogram bins=%d ! fakesink name=sink sync=false",
      options.bins);
  GError *error = nullptr;
  GstElement *pipeline = gst_parse_launch (description, &error);
  g_free (description);
  if (!pipeline || error) {
    result.error = error ? error->message : "cannot build the pipeline";
    g_clear_error (&error);
    if (pipeline)
      gst_object_unref (pipeline);
    return;
  }
  GstElement *src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  GstElement *element = gst_bin_get_by_name (GST_BIN (pipeline), "histogram");
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  if (!options.device.empty ())
    g_object_set (element, "device", options.device.c_str (), nullptr);

  GstVideoInfo info;
  gst_video_info_set_format (&info, gst_video_format_from_string (options.format.c_str ()),
      result.size.width, result.size.height);
  info.fps_n = 30;
  info.fps_d = 1;
  GstCaps *caps = gst_video_info_to_caps (&info);
  g_object_set (src, "caps", caps, nullptr);
  gst_caps_unref (caps);
  GstBuffer *frame = make_frame (&info, result.content);

  bench::FrameProbe probe;
  probe.attach (element, sink, options.warmup);

  GstBus *bus = gst_element_get_bus (pipeline);
  if (gst_element_set_state (pipeline, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE)
    result.error = "the pipeline would not start";
  for (int i = 0; result.error.empty () && i < options.warmup + frames; i++) {
    /* A shallow copy shares the pixels; only the timestamps are its own. */
    GstBuffer *push = gst_buffer_copy (frame);
    GST_BUFFER_PTS (push) = gst_util_uint64_scale_int (i * GST_SECOND, info.fps_d, info.fps_n);
    GST_BUFFER_DURATION (push) = gst_util_uint64_scale_int (GST_SECOND, info.fps_d, info.fps_n);
    if (gst_app_src_push_buffer (GST_APP_SRC (src), push) != GST_FLOW_OK)
      result.error = "the pipeline stopped taking frames";
  }
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  std::string ended = wait_for_end (bus, options.timeout_s);
  if (result.error.empty ())
    result.error = ended;
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
  result.kernel = bench::summarize (result.kernel_ms);
  result.wall = bench::summarize (result.wall_ms);

  gst_buffer_unref (frame);
  gst_object_unref (bus);
  gst_object_unref (sink);
  gst_object_unref (element);
  gst_object_unref (src);
  gst_object_unref (pipeline);
}

bool
write_json (const Options & options, const std::vector<CaseResult> & results,
    const std::string & command_line)
{
  using bench::json_number;
  using bench::json_string;
  std::ofstream file (options.json_path);
  if (!file)
    return false;
  gchar *gst_version = gst_version_string ();
  file << "{\n  \"benchmark\": \"openclhistogram\",\n";
  file << "  \"command\": " << json_string (command_line) << ",\n";
  file << "  \"gstreamer\": " << json_string (gst_version) << ",\n";
  file << "  \"device_property\": " << json_string (options.device) << ",\n";
  file << "  \"format\": " << json_string (options.format) << ",\n";
  file << "  \"bins\": " << options.bins << ",\n";
  file << "  \"warmup_frames\": " << options.warmup << ",\n";
  file << "  \"cases\": [";
  g_free (gst_version);
  for (size_t i = 0; i < results.size (); i++) {
    const auto & r = results[i];
    double megapixels = (double) r.size.width * r.size.height * 1e-6;
    file << (i ? ",\n" : "\n") << "    {\n";
    file << "      \"width\": " << r.size.width << ", \"height\": " << r.size.height <<
        ", \"content\": " << json_string (r.content) << ",\n";
    file << "      \"device_name\": " << json_string (r.device_name) << ",\n";
    file << "      \"ok\": " << (r.error.empty () ? "true" : "false") << ", \"error\": " <<
        json_string (r.error) << ",\n";
    file << "      \"frames\": " << r.kernel_ms.size () << ", \"frames_requested\": " <<
        r.frames_requested << ",\n";
    file << "      \"kernel_ms\": " << bench::json_stats (r.kernel) << ",\n";
    file << "      \"wall_ms\": " << bench::json_stats (r.wall) << ",\n";
    file << "      \"kernel_mpixel_per_s\": " << json_number (r.kernel.median > 0 ?
        megapixels / (r.kernel.median * 1e-3) : 0.0) << ",\n";
    file << "      \"kernel_ms_samples\": " << bench::json_samples (r.kernel_ms) << ",\n";
    file << "      \"wall_ms_samples\": " << bench::json_samples (r.wall_ms) << "\n    }";
  }
  file << "\n  ]\n}\n";
  return (bool) file;
}

void
print_table (const std::vector<CaseResult> & results)
{
  std::printf ("\n%-11s %-11s %7s %9s %9s %9s %9s %9s  %s\n", "size", "content", "frames",
      "kern med", "kern min", "kern max", "kern IQR", "wall med", "(ms)");
  for (const auto & r : results) {
    char size[32];
    std::snprintf (size, sizeof size, "%dx%d", r.size.width, r.size.height);
    if (r.kernel_ms.empty ()) {
      std::printf ("%-11s %-11s  failed: %s\n", size, r.content.c_str (), r.error.c_str ());
      continue;
    }
    std::printf ("%-11s %-11s %7zu %9.3f %9.3f %9.3f %9.3f %9.3f%s\n", size, r.content.c_str (),
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

  GstElementFactory *factory = gst_element_factory_find ("openclhistogram");
  if (!factory) {
    std::fprintf (stderr, "no openclhistogram element: set GST_PLUGIN_PATH to the build's gst "
        "folder\n");
    return 1;
  }
  gst_object_unref (factory);

  std::vector<CaseResult> results;
  for (const auto & size : options.sizes) {
    for (const auto & content : options.contents) {
      CaseResult result;
      result.size = size;
      result.content = content;
      std::printf ("%dx%d %s ... ", size.width, size.height, content.c_str ());
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
  std::printf ("\nopenclhistogram, %s, %d bins, %d warm-up frames, device: %s\n",
      options.format.c_str (), options.bins, options.warmup,
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
