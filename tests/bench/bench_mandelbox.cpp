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
 * --variants runs the element once per kernel variant named (GST_OPENCL_VARIANT_MANDELBOX set
 * for its run; "default" is the element's own choice for the device), all at each size beside
 * one OpenMP run.
 *
 * The camera does not move (animate=false, the article's view) so that every frame, and the
 * OpenMP frame, costs the same; --animate turns it on for the element.
 *
 * Both also report the process's CPU time (user + system, all threads) per frame: the work a
 * frame costs whatever else the machine runs, where the kernel and wall times of a shared
 * machine include the time the cores spent on other processes. For the element it is taken
 * between the last warm-up frame and the last frame leaving the source (so --warmup must be at
 * least 1 for it), for OpenMP over the timed renders. */
#include <gst/gst.h>
#include <sys/resource.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

#include "benchlib.h"
#include "mandelbox_openmp.h"

namespace {

using bench::FrameSize;
using bench::Stats;

struct Options : bench::FrameOptions
{
  Options ()
    : FrameOptions ({ { 640, 360, 0 }, { 1920, 1080, 0 }, { 3840, 2160, 0 } }, 20, 3)
  {
  }

  int openmp_runs = 5;
  int threads = 0;          /* 0: the OpenMP default */
  bool openmp = true;
  bool animate = false;
  std::vector<std::string> variants { "default" };
};

struct CaseResult : bench::FrameCase
{
  FrameSize size;
  std::string variant = "default";
  std::vector<double> openmp_ms;
  Stats openmp;
  double agreement = -1.0;  /* fraction of pixels within 2; -1 when not compared */
  double cpu_ms_per_frame = -1.0;         /* element; -1 when not measured */
  double openmp_cpu_ms_per_frame = -1.0;
};

/* CPU time of the whole process so far (every thread, user and system), in ms. */
double
process_cpu_ms ()
{
  struct rusage usage;
  getrusage (RUSAGE_SELF, &usage);
  auto ms = [](const struct timeval & t) { return t.tv_sec * 1e3 + t.tv_usec / 1e3; };
  return ms (usage.ru_utime) + ms (usage.ru_stime);
}

/* The process's CPU time when the warm-up's last frame and the last frame left the source. */
struct CpuMarks
{
  int warmup = 0, total = 0, seen = 0;
  double after_warmup_ms = -1.0, at_end_ms = -1.0;

  static GstPadProbeReturn mark (GstPad *, GstPadProbeInfo *, gpointer user_data)
  {
    auto *marks = static_cast<CpuMarks *> (user_data);
    marks->seen++;
    if (marks->seen == marks->warmup)
      marks->after_warmup_ms = process_cpu_ms ();
    if (marks->seen == marks->total)
      marks->at_end_ms = process_cpu_ms ();
    return GST_PAD_PROBE_OK;
  }
};

/* The latest frame leaving the source, for the comparison with the OpenMP picture. */
struct LastFrame
{
  std::mutex lock;
  std::vector<uint8_t> bytes;   /* RGBA, tight rows (the caps ask for no padding) */

  static GstPadProbeReturn keep (GstPad *, GstPadProbeInfo * info, gpointer user_data)
  {
    auto *frame = static_cast<LastFrame *> (user_data);
    GstBuffer *buffer = GST_PAD_PROBE_INFO_BUFFER (info);
    std::lock_guard<std::mutex> guard (frame->lock);
    frame->bytes.resize (gst_buffer_get_size (buffer));
    gst_buffer_extract (buffer, 0, frame->bytes.data (), frame->bytes.size ());
    return GST_PAD_PROBE_OK;
  }
};

Options
parse_options (int argc, char **argv)
{
  Options options;
  options.timeout_s = 1800;
  bench::OptionTable table = bench::frame_option_table (options);
  table.count ("--threads N", &options.threads, 1, "OpenMP threads (default: the OpenMP "
      "default, one per core)")
      .count ("--openmp-runs N", &options.openmp_runs, 1, "timed OpenMP renders per size, at "
      "most the size's frames (default 5)")
      .flag ("--no-openmp", &options.openmp, false, "only the element")
      .flag ("--animate", &options.animate, true, "turn the camera (the element only; costs "
      "vary per frame)")
      .list ("--variants V,...", &options.variants, "kernel variants, each run in turn: "
      "\"default\" (the element's choice) or names of GST_OPENCL_VARIANT_MANDELBOX (default: "
      "default)");
  table.parse (argc, argv);
  return options;
}

void
run_element (const Options & options, CaseResult & result, std::vector<uint8_t> & last_frame)
{
  result.frames_requested = result.size.frames ? result.size.frames : options.frames;
  gchar *text = g_strdup_printf ("openclmandelboxsrc name=source num-buffers=%d animate=%s "
      "! video/x-raw,format=RGBA,width=%d,height=%d,framerate=30/1 ! fakesink name=sink "
      "sync=false", options.warmup + result.frames_requested, options.animate ? "true" : "false",
      result.size.width, result.size.height);
  LastFrame frame;
  CpuMarks marks;
  marks.warmup = options.warmup;
  marks.total = options.warmup + result.frames_requested;
  bench::FrameRun run;
  run.description = text;
  g_free (text);
  /* kernel-time is set in fill () before the buffer is pushed, in the same thread as the probe
   * that reads it. */
  run.measured = "source";
  run.device = options.device;
  run.warmup = options.warmup;
  run.timeout_s = options.timeout_s;
  run.prepare = [&frame, &marks](GstElement * source) {
    GstPad *pad = gst_element_get_static_pad (source, "src");
    gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, LastFrame::keep, &frame, nullptr);
    gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, CpuMarks::mark, &marks, nullptr);
    gst_object_unref (pad);
  };
  bench::run_frame_case (run, result);
  if (marks.after_warmup_ms >= 0 && marks.at_end_ms >= 0)
    result.cpu_ms_per_frame = (marks.at_end_ms - marks.after_warmup_ms) /
        result.frames_requested;
  std::lock_guard<std::mutex> guard (frame.lock);
  last_frame = std::move (frame.bytes);
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

/* Times the OpenMP renderer into `result` and leaves its picture in `frame`. */
void
run_openmp (const Options & options, CaseResult & result, int threads,
    std::vector<uint8_t> & frame)
{
  const reference::MandelboxView view;  /* the element's defaults with animate=false */
  const int runs = std::min (options.openmp_runs, result.frames_requested);
  frame.assign ((size_t) result.size.width * result.size.height * 4, 0);
  /* The untimed first render takes the page faults and thread start-up, as the element's
   * warm-up does. */
  /* time_calls renders once more, untimed, first. */
  const double cpu_start_ms = process_cpu_ms ();
  result.openmp_ms = bench::time_calls (runs, [&]() {
        bench::render_mandelbox_openmp (view, result.size.width, result.size.height,
            frame.data (), threads);
      });
  result.openmp_cpu_ms_per_frame = (process_cpu_ms () - cpu_start_ms) / (runs + 1);
  result.openmp = bench::summarize (result.openmp_ms);
}

double
per_second (double ms)
{
  return ms > 0 ? 1000.0 / ms : 0.0;
}

std::string
results_json (const Options & options, const std::vector<CaseResult> & results, int threads,
    const std::string & command_line)
{
  using bench::json_number;
  std::string text = bench::json_opening ("openclmandelboxsrc", command_line);
  text += "  \"device_property\": " + bench::json_string (options.device) + ",\n";
  text += std::string ("  \"format\": \"RGBA\",\n  \"animate\": ") +
      (options.animate ? "true" : "false") + ",\n";
  text += "  \"warmup_frames\": " + std::to_string (options.warmup) + ",\n";
  text += "  \"openmp_threads\": " + std::to_string (options.openmp ? threads : 0) + ",\n";
  text += "  \"cases\": [";
  for (size_t i = 0; i < results.size (); i++) {
    const auto & r = results[i];
    text += std::string (i ? ",\n" : "\n") + "    {\n";
    text += "      \"width\": " + std::to_string (r.size.width) + ", \"height\": " +
        std::to_string (r.size.height) + ", \"variant\": " + bench::json_string (r.variant) +
        ",\n";
    text += bench::json_frame_figures (r);
    text += "      \"kernel_fps\": " + json_number (per_second (r.kernel.median)) +
        ", \"pipeline_fps\": " + json_number (per_second (r.wall.median)) + ",\n";
    text += "      \"openmp_ms\": " + bench::json_stats (r.openmp) + ",\n";
    text += "      \"openmp_fps\": " + json_number (per_second (r.openmp.median)) + ",\n";
    text += "      \"openmp_over_kernel\": " + json_number (r.kernel.median > 0 ?
        r.openmp.median / r.kernel.median : 0.0) + ",\n";
    text += "      \"agreement_with_openmp\": " + json_number (r.agreement) + ",\n";
    text += "      \"cpu_ms_per_frame\": " + json_number (r.cpu_ms_per_frame) +
        ", \"openmp_cpu_ms_per_frame\": " + json_number (r.openmp_cpu_ms_per_frame) + ",\n";
    text += bench::json_frame_samples (r) + ",\n";
    text += "      \"openmp_ms_samples\": " + bench::json_samples (r.openmp_ms) + "\n    }";
  }
  return text + "\n  ]\n}\n";
}

void
print_table (const std::vector<CaseResult> & results)
{
  std::printf ("\n%-13s %-10s %6s %10s %8s %10s %8s %11s %8s %8s %7s %9s %9s\n", "variant", "size", "frames",
      "kernel ms", "fps", "pipe ms", "fps", "OpenMP ms", "fps", "OpenMP/", "same", "CPU ms",
      "OpenMP");
  std::printf ("%-13s %-10s %6s %10s %8s %10s %8s %11s %8s %8s %7s %9s %9s\n", "", "", "",
      "(median)", "",
      "(median)", "", "(median)", "", "kernel", "pixels", "/frame", "CPU ms");
  for (const auto & r : results) {
    char size[32];
    std::snprintf (size, sizeof size, "%dx%d", r.size.width, r.size.height);
    if (r.kernel_ms.empty ()) {
      std::printf ("%-13s %-10s failed: %s\n", r.variant.c_str (), size, r.error.c_str ());
      continue;
    }
    char same[16] = "-";
    if (r.agreement >= 0)
      std::snprintf (same, sizeof same, "%.2f%%", 100.0 * r.agreement);
    std::printf ("%-13s %-10s %6zu %10.2f %8.3f %10.2f %8.3f %11.2f %8.3f %8.2f %7s %9.1f %9.1f%s\n",
        r.variant.c_str (), size, r.kernel_ms.size (), r.kernel.median, per_second (r.kernel.median), r.wall.median,
        per_second (r.wall.median), r.openmp.median, per_second (r.openmp.median),
        r.kernel.median > 0 && r.openmp.median > 0 ? r.openmp.median / r.kernel.median : 0.0,
        same, r.cpu_ms_per_frame, r.openmp_cpu_ms_per_frame,
        r.error.empty () ? "" : "  (incomplete)");
  }
}

}  // namespace

int
main (int argc, char **argv)
{
  const std::string command_line = bench::initialize (&argc, &argv);
  Options options = parse_options (argc, argv);
  const int threads = options.threads ? options.threads : bench::openmp_default_threads ();

  if (!bench::have_element ("openclmandelboxsrc"))
    return 1;

  std::vector<CaseResult> results;
  for (const auto & size : options.sizes) {
    bool openmp_done = false;
    CaseResult openmp;
    std::vector<uint8_t> openmp_frame;
    for (const auto & variant : options.variants) {
      CaseResult result;
      result.size = size;
      result.variant = variant;
      if (variant == "default")
        g_unsetenv ("GST_OPENCL_VARIANT_MANDELBOX");
      else
        g_setenv ("GST_OPENCL_VARIANT_MANDELBOX", variant.c_str (), TRUE);
      std::printf ("%dx%d, %s: element ... ", size.width, size.height, variant.c_str ());
      std::fflush (stdout);
      std::vector<uint8_t> last_frame;
      run_element (options, result, last_frame);
      g_unsetenv ("GST_OPENCL_VARIANT_MANDELBOX");
      if (result.error.empty ())
        std::printf ("kernel median %.2f ms on %s", result.kernel.median,
            result.device_name.c_str ());
      else
        std::printf ("FAILED: %s", result.error.c_str ());
      if (options.openmp && result.error.empty ()) {
        /* One OpenMP run per size; every variant's picture is compared with it. */
        if (!openmp_done) {
          std::printf ("; OpenMP (%d threads) ... ", threads);
          std::fflush (stdout);
          openmp.frames_requested = result.frames_requested;
          openmp.size = size;
          run_openmp (options, openmp, threads, openmp_frame);
          openmp_done = true;
          std::printf ("median %.2f ms", openmp.openmp.median);
        }
        result.openmp_ms = openmp.openmp_ms;
        result.openmp = openmp.openmp;
        result.openmp_cpu_ms_per_frame = openmp.openmp_cpu_ms_per_frame;
        if (!options.animate)
          result.agreement = agreement (last_frame, openmp_frame);
      }
      std::printf ("\n");
      results.push_back (std::move (result));
    }
  }

  const std::string device_name = bench::device_of (results);
  std::printf ("\nopenclmandelboxsrc (RGBA, %s camera, %d warm-up frames) on %s; OpenMP C++ "
      "renderer on %d threads\n", options.animate ? "turning" : "still", options.warmup,
      device_name.empty () ? "(unknown)" : device_name.c_str (), options.openmp ? threads : 0);
  print_table (results);

  return bench::finish (options.json_path, results_json (options, results, threads,
          command_line), bench::any_failed (results));
}
