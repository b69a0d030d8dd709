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

#include <cstdio>
#include <string>
#include <vector>

#include "benchlib.h"

namespace {

using bench::FrameSize;
using bench::json_number;
using bench::json_string;

struct Options : bench::FrameOptions
{
  Options ()
    : FrameOptions ({ { 1280, 720, 0 }, { 1920, 1080, 0 }, { 3840, 2160, 0 } }, 30, 5)
  {
  }

  std::vector<std::string> modes { "color" };
  int radius = 4;
  std::string pattern = "snow";
};

struct CaseResult : bench::FrameCase
{
  FrameSize size;
  std::string mode;
};

Options
parse_options (int argc, char **argv)
{
  Options options;
  bench::OptionTable table = bench::frame_option_table (options);
  table.list ("--modes M,...", &options.modes, "color, luma, per-channel (default color)")
      .count ("--radius R", &options.radius, 0, "the element's radius (default 4)")
      .text ("--pattern NAME", &options.pattern, "videotestsrc pattern, e.g. snow or smpte "
      "(default snow)");
  table.parse (argc, argv);
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
  result.frames_requested = result.size.frames ? result.size.frames : options.frames;
  bench::FrameRun run;
  run.description = pipeline_description (options, result.size, result.mode,
      options.warmup + result.frames_requested);
  run.measured = "filter";
  run.device = options.device;
  run.warmup = options.warmup;
  run.timeout_s = options.timeout_s;
  bench::run_frame_case (run, result);
}

std::string
results_json (const Options & options, const std::vector<CaseResult> & results,
    const std::string & command_line)
{
  std::string text = bench::json_opening ("openclbilateral", command_line);
  text += "  \"device_property\": " + json_string (options.device) + ",\n";
  text += "  \"pattern\": " + json_string (options.pattern) + ",\n";
  text += "  \"format\": \"RGBA\",\n";
  text += "  \"radius\": " + std::to_string (options.radius) + ",\n";
  text += "  \"warmup_frames\": " + std::to_string (options.warmup) + ",\n";
  text += "  \"cases\": [";
  for (size_t i = 0; i < results.size (); i++) {
    const auto & r = results[i];
    double megapixels = (double) r.size.width * r.size.height * 1e-6;
    text += std::string (i ? ",\n" : "\n") + "    {\n";
    text += "      \"width\": " + std::to_string (r.size.width) + ", \"height\": " +
        std::to_string (r.size.height) + ", \"mode\": " + json_string (r.mode) + ",\n";
    text += bench::json_frame_figures (r);
    text += "      \"kernel_mpixel_per_s\": " +
        json_number (bench::per_kernel_second (megapixels, r.kernel)) + ",\n";
    text += bench::json_frame_samples (r) + "\n    }";
  }
  return text + "\n  ]\n}\n";
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
  const std::string command_line = bench::initialize (&argc, &argv);
  Options options = parse_options (argc, argv);
  if (!bench::have_element ("openclbilateral"))
    return 1;

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

  const std::string device_name = bench::device_of (results);
  std::printf ("\nopenclbilateral, RGBA, radius %d, pattern %s, %d warm-up frames, device: %s\n",
      options.radius, options.pattern.c_str (), options.warmup,
      device_name.empty () ? "(unknown)" : device_name.c_str ());
  print_table (results);

  return bench::finish (options.json_path, results_json (options, results, command_line),
      bench::any_failed (results));
}
