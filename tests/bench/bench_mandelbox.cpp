/* gst-opencl: benchmark of openclmandelboxsrc beside an OpenMP C++ renderer of the same picture.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * For every frame size it runs
 *   openclmandelboxsrc num-buffers=<warm-up + frames> animate=false !
 *   video/x-raw,format=RGBA,width=W,height=H,framerate=30/1 ! fakesink sync=false
 * to EOS. A probe on the source's pad reads `kernel-time` (device time of the frame's kernel,
 * from OpenCL profiling events) as each frame leaves; a probe on the sink's pad stamps each
 * buffer with steady_clock, so the interval between frames is everything the streaming thread
 * does per frame (kernel, read-back, pushing): the whole pipeline's frame time. The first
 * --warmup frames are left out (program build, first allocations).
 *
 * Then, in the same process and at the same size, it times the OpenMP renderer
 * (mandelbox_openmp.cpp, -O3 -fopenmp) on --threads threads, the article's comparison, and checks
 * that both made the same picture (pixels within 2 in every channel).
 *
 * The camera does not move (animate=false, the article's view) so that every frame, and the
 * OpenMP frame, costs the same; --animate turns it on for the element. */
#include <gst/gst.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "bench_common.h"
#include "mandelbox_openmp.h"

namespace {

using Clock = std::chrono::steady_clock;
using bench::FrameSize;
using bench::Stats;

struct Options
{
  std::vector<FrameSize> sizes { { 640, 360, 0 }, { 1920, 1080, 0 }, { 3840, 2160, 0 } };
  int frames = 20;
  int warmup = 3;
  int openmp_runs = 5;
  int threads = 0;          /* 0: the OpenMP default */
  bool openmp = true;
  bool animate = false;
  std::string device;
  std::string json_path;
  int timeout_s = 1800;
};

struct CaseResult
{
  FrameSize size;
  std::string device_name;
  std::string error;
  int frames_requested = 0;
  std::vector<double> kernel_ms;
  std::vector<double> wall_ms;
  Stats kernel;
  Stats wall;
  std::vector<double> openmp_ms;
  Stats openmp;
  double agreement = -1.0;  /* fraction of pixels within 2; -1 when not compared */
};

struct Probe
{
  std::mutex lock;
  GstElement *source = nullptr;
  int warmup = 0;
  int source_frames = 0;
  int sink_frames = 0;
  std::optional<Clock::time_point> last_stamp;
  std::string device_name;
  std::vector<double> kernel_ms;
  std::vector<double> wall_ms;
  std::vector<uint8_t> last_frame;   /* RGBA, tight rows */
};

[[noreturn]] void
usage (const char *program, int status)
{
  std::fprintf (status ? stderr : stdout,
      "usage: %s [options]\n"
      "  --sizes WxH[:N],...  frame sizes (default 640x360,1920x1080,3840x2160);\n"
      "                       :N measures N frames at that size instead of --frames\n"
      "  --frames N           measured frames per size (default 20)\n"
      "  --warmup N           frames left out at the start of each size (default 3, at least 1)\n"
      "  --device STRING      the element's device property: gpu, cpu, <platform>[:n]\n"
      "  --threads N          OpenMP threads (default: the OpenMP default, one per core)\n"
      "  --openmp-runs N      timed OpenMP renders per size, at most the size's frames "
      "(default 5)\n"
      "  --no-openmp          only the element\n"
      "  --animate            turn the camera (the element only; costs vary per frame)\n"
      "  --json PATH          write the results as JSON\n"
      "  --timeout S          give up on a size after S seconds (default 1800)\n", program);
  std::exit (status);
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
    auto count = [&](int minimum) {
      int parsed = 0;
      std::string text = value ();
      if (!bench::parse_count (text, minimum, &parsed)) {
        std::fprintf (stderr, "invalid number \"%s\" for %s\n", text.c_str (), arg.c_str ());
        usage (argv[0], 2);
      }
      return parsed;
    };
    if (arg == "--sizes") {
      std::string text = value ();
      if (!bench::parse_sizes (text, &options.sizes)) {
        std::fprintf (stderr, "invalid size list \"%s\"\n", text.c_str ());
        usage (argv[0], 2);
      }
    } else if (arg == "--frames")
      options.frames = count (1);
    else if (arg == "--warmup")
      options.warmup = count (1);
    else if (arg == "--threads")
      options.threads = count (1);
    else if (arg == "--openmp-runs")
      options.openmp_runs = count (1);
    else if (arg == "--no-openmp")
      options.openmp = false;
    else if (arg == "--animate")
      options.animate = true;
    else if (arg == "--device")
      options.device = value ();
    else if (arg == "--json")
      options.json_path = value ();
    else if (arg == "--timeout")
      options.timeout_s = count (1);
    else if (arg == "--help" || arg == "-h")
      usage (argv[0], 0);
    else {
      std::fprintf (stderr, "unknown option %s\n", arg.c_str ());
      usage (argv[0], 2);
    }
  }
  return options;
}

GstPadProbeReturn
on_source_output (GstPad *, GstPadProbeInfo * info, gpointer user_data)
{
  auto *probe = static_cast<Probe *> (user_data);
  /* kernel-time is set in fill () before the buffer is pushed, in this same thread. */
  guint64 kernel_ns = 0;
  g_object_get (probe->source, "kernel-time", &kernel_ns, nullptr);
  std::lock_guard<std::mutex> lock (probe->lock);
  if (probe->device_name.empty ()) {
    gchar *name = nullptr;
    g_object_get (probe->source, "device-name", &name, nullptr);
    if (name)
      probe->device_name = name;
    g_free (name);
  }
  if (probe->source_frames++ >= probe->warmup)
    probe->kernel_ms.push_back ((double) kernel_ns * 1e-6);
  /* Keep the latest frame for the comparison with the OpenMP picture (caps give tight rows). */
  GstBuffer *buffer = GST_PAD_PROBE_INFO_BUFFER (info);
  probe->last_frame.resize (gst_buffer_get_size (buffer));
  gst_buffer_extract (buffer, 0, probe->last_frame.data (), probe->last_frame.size ());
  return GST_PAD_PROBE_OK;
}

GstPadProbeReturn
on_sink_input (GstPad *, GstPadProbeInfo *, gpointer user_data)
{
  auto *probe = static_cast<Probe *> (user_data);
  auto now = Clock::now ();
  std::lock_guard<std::mutex> lock (probe->lock);
  /* Intervals ending at a measured frame; the last warm-up frame's stamp starts the first. */
  if (probe->sink_frames >= probe->warmup && probe->last_stamp)
    probe->wall_ms.push_back (std::chrono::duration<double, std::milli> (now -
            *probe->last_stamp).count ());
  probe->last_stamp = now;
  probe->sink_frames++;
  return GST_PAD_PROBE_OK;
}

void
run_element (const Options & options, CaseResult & result, std::vector<uint8_t> & last_frame)
{
  const int frames = result.size.frames ? result.size.frames : options.frames;
  result.frames_requested = frames;
  gchar *text = g_strdup_printf ("openclmandelboxsrc name=source num-buffers=%d animate=%s "
      "! video/x-raw,format=RGBA,width=%d,height=%d,framerate=30/1 ! fakesink name=sink "
      "sync=false", options.warmup + frames, options.animate ? "true" : "false",
      result.size.width, result.size.height);
  GError *error = nullptr;
  GstElement *pipeline = gst_parse_launch (text, &error);
  g_free (text);
  if (!pipeline || error) {
    result.error = error ? error->message : "cannot build the pipeline";
    g_clear_error (&error);
    if (pipeline)
      gst_object_unref (pipeline);
    return;
  }
  GstElement *source = gst_bin_get_by_name (GST_BIN (pipeline), "source");
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  if (!options.device.empty ())
    g_object_set (source, "device", options.device.c_str (), nullptr);

  Probe probe;
  probe.source = source;
  probe.warmup = options.warmup;
  GstPad *source_pad = gst_element_get_static_pad (source, "src");
  GstPad *sink_pad = gst_element_get_static_pad (sink, "sink");
  gst_pad_add_probe (source_pad, GST_PAD_PROBE_TYPE_BUFFER, on_source_output, &probe, nullptr);
  gst_pad_add_probe (sink_pad, GST_PAD_PROBE_TYPE_BUFFER, on_sink_input, &probe, nullptr);

  result.error = bench::run_to_eos (pipeline, options.timeout_s);
  {
    std::lock_guard<std::mutex> lock (probe.lock);
    result.kernel_ms = probe.kernel_ms;
    result.wall_ms = probe.wall_ms;
    result.device_name = probe.device_name;
    last_frame = std::move (probe.last_frame);
  }
  if (result.error.empty () && (int) result.kernel_ms.size () != frames)
    result.error = "measured " + std::to_string (result.kernel_ms.size ()) + " of " +
        std::to_string (frames) + " frames";
  result.kernel = bench::summarize (result.kernel_ms);
  result.wall = bench::summarize (result.wall_ms);

  gst_object_unref (source_pad);
  gst_object_unref (sink_pad);
  gst_object_unref (sink);
  gst_object_unref (source);
  gst_object_unref (pipeline);
}

/* Fraction of pixels whose every channel is within 2. */
double
agreement (const std::vector<uint8_t> & a, const std::vector<uint8_t> & b)
{
  if (a.size () != b.size () || a.empty ())
    return -1.0;
  size_t within = 0;
  for (size_t i = 0; i < a.size (); i += 4) {
    bool ok = true;
    for (size_t c = 0; c < 4; c++)
      ok = ok && std::abs ((int) a[i + c] - (int) b[i + c]) <= 2;
    within += ok;
  }
  return (double) within / (double) (a.size () / 4);
}

void
run_openmp (const Options & options, CaseResult & result, int threads,
    const std::vector<uint8_t> & element_frame)
{
  const reference::MandelboxView view;  /* the element's defaults with animate=false */
  const int runs = std::min (options.openmp_runs, result.frames_requested);
  std::vector<uint8_t> frame ((size_t) result.size.width * result.size.height * 4);
  /* One untimed render first: page faults and thread start-up, as the element's warm-up. */
  bench::render_mandelbox_openmp (view, result.size.width, result.size.height, frame.data (),
      threads);
  for (int run = 0; run < runs; run++) {
    auto start = Clock::now ();
    bench::render_mandelbox_openmp (view, result.size.width, result.size.height, frame.data (),
        threads);
    result.openmp_ms.push_back (std::chrono::duration<double, std::milli> (Clock::now () -
            start).count ());
  }
  result.openmp = bench::summarize (result.openmp_ms);
  if (!options.animate)
    result.agreement = agreement (element_frame, frame);
}

double
per_second (double ms)
{
  return ms > 0 ? 1000.0 / ms : 0.0;
}

bool
write_json (const Options & options, const std::vector<CaseResult> & results, int threads,
    const std::string & command_line)
{
  std::ofstream file (options.json_path);
  if (!file)
    return false;
  gchar *gst_version = gst_version_string ();
  file << "{\n  \"benchmark\": \"openclmandelboxsrc\",\n";
  file << "  \"command\": " << bench::json_string (command_line) << ",\n";
  file << "  \"gstreamer\": " << bench::json_string (gst_version) << ",\n";
  file << "  \"device_property\": " << bench::json_string (options.device) << ",\n";
  file << "  \"format\": \"RGBA\",\n  \"animate\": " << (options.animate ? "true" : "false") <<
      ",\n";
  file << "  \"warmup_frames\": " << options.warmup << ",\n";
  file << "  \"openmp_threads\": " << (options.openmp ? threads : 0) << ",\n";
  file << "  \"cases\": [";
  g_free (gst_version);
  for (size_t i = 0; i < results.size (); i++) {
    const auto & r = results[i];
    file << (i ? ",\n" : "\n") << "    {\n";
    file << "      \"width\": " << r.size.width << ", \"height\": " << r.size.height << ",\n";
    file << "      \"device_name\": " << bench::json_string (r.device_name) << ",\n";
    file << "      \"ok\": " << (r.error.empty () ? "true" : "false") << ", \"error\": " <<
        bench::json_string (r.error) << ",\n";
    file << "      \"frames\": " << r.kernel_ms.size () << ", \"frames_requested\": " <<
        r.frames_requested << ",\n";
    file << "      \"kernel_ms\": " << bench::json_stats (r.kernel) << ",\n";
    file << "      \"wall_ms\": " << bench::json_stats (r.wall) << ",\n";
    file << "      \"kernel_fps\": " << bench::json_number (per_second (r.kernel.median)) <<
        ", \"pipeline_fps\": " << bench::json_number (per_second (r.wall.median)) << ",\n";
    file << "      \"openmp_ms\": " << bench::json_stats (r.openmp) << ",\n";
    file << "      \"openmp_fps\": " << bench::json_number (per_second (r.openmp.median)) <<
        ",\n";
    file << "      \"openmp_over_kernel\": " << bench::json_number (r.kernel.median > 0 ?
        r.openmp.median / r.kernel.median : 0.0) << ",\n";
    file << "      \"agreement_with_openmp\": " << bench::json_number (r.agreement) << ",\n";
    file << "      \"kernel_ms_samples\": " << bench::json_samples (r.kernel_ms) << ",\n";
    file << "      \"wall_ms_samples\": " << bench::json_samples (r.wall_ms) << ",\n";
    file << "      \"openmp_ms_samples\": " << bench::json_samples (r.openmp_ms) << "\n    }";
  }
  file << "\n  ]\n}\n";
  return (bool) file;
}

void
print_table (const std::vector<CaseResult> & results)
{
  std::printf ("\n%-10s %6s %10s %8s %10s %8s %11s %8s %8s %7s\n", "size", "frames",
      "kernel ms", "fps", "pipe ms", "fps", "OpenMP ms", "fps", "OpenMP/", "same");
  std::printf ("%-10s %6s %10s %8s %10s %8s %11s %8s %8s %7s\n", "", "", "(median)", "",
      "(median)", "", "(median)", "", "kernel", "pixels");
  for (const auto & r : results) {
    char size[32];
    std::snprintf (size, sizeof size, "%dx%d", r.size.width, r.size.height);
    if (r.kernel_ms.empty ()) {
      std::printf ("%-10s failed: %s\n", size, r.error.c_str ());
      continue;
    }
    char same[16] = "-";
    if (r.agreement >= 0)
      std::snprintf (same, sizeof same, "%.2f%%", 100.0 * r.agreement);
    std::printf ("%-10s %6zu %10.2f %8.3f %10.2f %8.3f %11.2f %8.3f %8.2f %7s%s\n", size,
        r.kernel_ms.size (), r.kernel.median, per_second (r.kernel.median), r.wall.median,
        per_second (r.wall.median), r.openmp.median, per_second (r.openmp.median),
        r.kernel.median > 0 && r.openmp.median > 0 ? r.openmp.median / r.kernel.median : 0.0,
        same, r.error.empty () ? "" : "  (incomplete)");
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
  const int threads = options.threads ? options.threads : bench::openmp_default_threads ();

  GstElementFactory *factory = gst_element_factory_find ("openclmandelboxsrc");
  if (!factory) {
    std::fprintf (stderr, "no openclmandelboxsrc element: set GST_PLUGIN_PATH to the build's "
        "gst folder\n");
    return 1;
  }
  gst_object_unref (factory);

  std::vector<CaseResult> results;
  for (const auto & size : options.sizes) {
    CaseResult result;
    result.size = size;
    std::printf ("%dx%d: element ... ", size.width, size.height);
    std::fflush (stdout);
    std::vector<uint8_t> last_frame;
    run_element (options, result, last_frame);
    if (result.error.empty ())
      std::printf ("kernel median %.2f ms on %s", result.kernel.median,
          result.device_name.c_str ());
    else
      std::printf ("FAILED: %s", result.error.c_str ());
    if (options.openmp && result.error.empty ()) {
      std::printf ("; OpenMP (%d threads) ... ", threads);
      std::fflush (stdout);
      run_openmp (options, result, threads, last_frame);
      std::printf ("median %.2f ms", result.openmp.median);
    }
    std::printf ("\n");
    results.push_back (std::move (result));
  }

  std::string device_name;
  for (const auto & r : results)
    if (!r.device_name.empty ())
      device_name = r.device_name;
  std::printf ("\nopenclmandelboxsrc (RGBA, %s camera, %d warm-up frames) on %s; OpenMP C++ "
      "renderer on %d threads\n", options.animate ? "turning" : "still", options.warmup,
      device_name.empty () ? "(unknown)" : device_name.c_str (), options.openmp ? threads : 0);
  print_table (results);

  if (!options.json_path.empty ()) {
    if (!write_json (options, results, threads, command_line)) {
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
