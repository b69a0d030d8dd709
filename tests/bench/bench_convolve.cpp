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
 * candidate, forced (GST_OPENCL_VARIANT_CONVOLUTION), for medians over all its volumes;
 * --each-mma-variant only the tensor-core candidates and the fastest FP32 one.
 * Prints a table; --json PATH writes every figure.
 *
 * --compiler-report instead builds the program of every candidate variant of the volume cases
 * (the device's candidates, tensor-core ones included) for the --device, on its own, and prints
 * the compiler's build log (with -cl-nv-verbose on NVIDIA: registers, spills, shared memory per
 * kernel), the kernel's local and private memory as OpenCL reports them, and, on NVIDIA, the
 * theoretical occupancy those registers and that local memory allow (achieved occupancy needs
 * a profiler, which the GPU machine does not have). */
#include <gst/gst.h>
#include <glib/gstdio.h>

#include <algorithm>
#include <cstring>
#include <cstdio>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <unistd.h>

#include "benchlib.h"
#include "opencl/gstopenclconvolution.h"
#include "opencl/gstopencldevice.h"
#include "opencl/gstopenclkernels.h"
#include "opencl/gstopenclutils.h"

namespace {

using bench::json_number;
using bench::json_string;

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
  bool each_mma_variant = false;
  bool compiler_report = false;
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

/* frames_requested counts volumes in the volume cases. */
struct CaseResult : bench::FrameCase
{
  std::string name;
  std::string pipeline;
  std::vector<VariantReport> variants;
  /* Volume cases. */
  int num_filters = 0;
  double useful_flop = 0, same_size_flop = 0;
  /* --each-variant: the case with that variant forced. */
  std::string forced_variant;
};

/* The largest number any option takes. */
const int MAXIMUM = 100000;

Options
parse_options (int argc, char **argv)
{
  Options o;
  std::vector<bench::FrameSize> video { { o.video_width, o.video_height, 0 } };
  bench::OptionTable table;
  table.counts ("--filters N,...", &o.filters, 1, "filter counts of the volume cases (default "
      "1,8,32)", MAXIMUM)
      .count ("--volume S", &o.volume, 1, "volume side, S^3 uint8 (default 256)", MAXIMUM)
      .count ("--kernel-size K", &o.kernel_size, 1, "filter side, K^3 taps (default 7)", MAXIMUM)
      .count ("--reps N", &o.reps, 1, "measured volumes per case (default 10)", MAXIMUM)
      .sizes ("--video WxH", &video, "openclconvolve3d frame size (default 1920x1080)")
      .count ("--frames N", &o.frames, 1, "measured video frames per case (default 30)", MAXIMUM)
      .count ("--warmup N", &o.warmup, 1, "buffers left out at the start of each case (default 2, "
      "at least 1)", MAXIMUM)
      .flag ("--no-volume", &o.run_volume, false, "skip the volume cases")
      .flag ("--no-video", &o.run_video, false, "skip the video cases")
      .text ("--device STRING", &o.device, "the elements' device property: gpu, cpu, "
      "<platform>[:n]")
      .text ("--json PATH", &o.json_path, "write the results as JSON")
      .count ("--timeout S", &o.timeout_s, 1, "give up on a case after S seconds (default 1200)",
      MAXIMUM)
      .flag ("--keep-tuning-cache", &o.keep_tuning_cache, true, "read and write the tuning cache "
      "on disk (default: time the variants in every run, to report them)")
      .flag ("--each-variant", &o.each_variant, true, "run each volume case again with every "
      "candidate variant forced")
      .flag ("--each-mma-variant", &o.each_mma_variant, true, "run each volume case again with "
      "every tensor-core (mma) candidate forced, and the fastest FP32 one")
      .flag ("--compiler-report", &o.compiler_report, true, "only build every candidate of the "
      "volume cases and print the compiler's report (registers, spills, local memory)");
  table.parse (argc, argv);
  if (video.size () != 1 || video[0].frames)
    table.reject ("--video takes one WxH");
  o.video_width = video[0].width;
  o.video_height = video[0].height;
  if (o.kernel_size % 2 == 0 || o.kernel_size > o.volume)
    table.reject ("the kernel size must be odd and at most the volume's");
  return o;
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
  bench::FrameRun run;
  run.description = result.pipeline;
  run.measured = "filter";
  run.device = options.device;
  run.warmup = options.warmup;
  run.timeout_s = options.timeout_s;
  run.on_element = [&result](GstMessage * message) {
    if (auto report = variant_report (message))
      result.variants.push_back (*report);
  };
  bench::run_frame_case (run, result);
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

double
tflops (double flop, const bench::Stats & kernel)
{
  return kernel.median > 0 ? flop / (kernel.median * 1e-3) * 1e-12 : 0.0;
}

/* {"variant", "source", "key", "candidates": [{"name", "median_ms"}, ...]} */
std::string
variant_json (const VariantReport & report)
{
  std::string candidates = "[";
  for (size_t c = 0; c < report.candidates.size (); c++)
    candidates += std::string (c ? ", " : "") + bench::JsonObject ().add ("name",
        json_string (report.candidates[c])).add ("median_ms", report.median_ms[c] < 0 ?
        std::string ("null") : json_number (report.median_ms[c])).text ();
  return bench::JsonObject ().add ("variant", json_string (report.variant)).add ("source",
      json_string (report.source)).add ("key", json_string (report.key)).add ("candidates",
      candidates + "]").text ();
}

std::string
results_json (const Options & o, const std::vector<CaseResult> & results,
    const std::string & command_line, const std::string & load_before)
{
  std::string text = bench::json_opening ("convolve", command_line);
  text += "  \"machine\": " + bench::JsonObject ().add ("cpu", json_string (bench::cpu_model ()))
      .number ("cores", g_get_num_processors ()).add ("loadavg_before", json_string (load_before))
      .add ("loadavg_after", json_string (bench::load_average ())).text () + ",\n";
  text += "  \"device_property\": " + json_string (o.device) + ",\n";
  text += "  \"volume\": " + std::to_string (o.volume) + ", \"kernel_size\": " +
      std::to_string (o.kernel_size) + ",\n";
  text += "  \"useful_flop_definition\": \"2 x (S - K + 1)^3 x K^3 x N\",\n";
  text += "  \"warmup\": " + std::to_string (o.warmup) + ", \"tuning_cache\": " +
      (o.keep_tuning_cache ? "true" : "false") + ",\n  \"cases\": [";
  for (size_t i = 0; i < results.size (); i++) {
    const auto & r = results[i];
    text += std::string (i ? ",\n" : "\n") + "    {\n";
    text += "      \"name\": " + json_string (r.name) + ",\n";
    text += "      \"pipeline\": " + json_string (r.pipeline) + ",\n";
    text += "      \"device_name\": " + json_string (r.device_name) + ",\n";
    text += std::string ("      \"ok\": ") + (r.error.empty () ? "true" : "false") +
        ", \"error\": " + json_string (r.error) + ",\n";
    if (r.num_filters) {
      text += "      \"num_filters\": " + std::to_string (r.num_filters) + ", \"useful_flop\": " +
          json_number (r.useful_flop) + ", \"same_size_flop\": " +
          json_number (r.same_size_flop) + ",\n";
      text += "      \"tflops_useful\": " + json_number (tflops (r.useful_flop, r.kernel)) +
          ", \"tflops_same_size\": " + json_number (tflops (r.same_size_flop, r.kernel)) +
          ",\n";
    } else {
      text += "      \"fps_kernel\": " + json_number (r.kernel.median > 0 ?
          1000.0 / r.kernel.median : 0) + ", \"fps_wall\": " + json_number (
          r.wall.median > 0 ? 1000.0 / r.wall.median : 0) + ",\n";
    }
    if (!r.forced_variant.empty ())
      text += "      \"forced_variant\": " + json_string (r.forced_variant) + ",\n";
    text += "      \"variants\": [";
    for (size_t v = 0; v < r.variants.size (); v++)
      text += (v ? ", " : "") + variant_json (r.variants[v]);
    text += "],\n";
    text += "      \"kernel_ms\": " + bench::json_quartiles (r.kernel) + ",\n";
    text += "      \"wall_ms\": " + bench::json_quartiles (r.wall) + ",\n";
    text += "      \"kernel_ms_samples\": " + bench::json_samples (r.kernel_ms) + "\n    }";
  }
  return text + "\n  ]\n}\n";
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

/* Registers per work-item in an NVIDIA build log ("ptxas info : Used 128 registers, ..."), or
 * -1. */
int
registers_in_log (const std::string & log)
{
  const std::string marker = "Used ";
  const size_t at = log.find (marker);
  if (at == std::string::npos)
    return -1;
  return std::atoi (log.c_str () + at + marker.size ());
}

/* Resident work-groups per multiprocessor of compute capability 8.0 to 9.0 (64 warps, 65536
 * registers allocated 256 per warp, 228 KiB of shared memory with 1 KiB reserved per block, 32
 * blocks), and the occupancy they give. */
void
print_occupancy (int registers, size_t group_size, cl_ulong local_bytes)
{
  const int warps = (int) ((group_size + 31) / 32);
  const int per_warp = (registers * 32 + 255) / 256 * 256;
  const int by_registers = per_warp > 0 ? 65536 / (per_warp * warps) : 32;
  const int by_local = (int) (233472 / (local_bytes + 1024));
  const int groups = std::min ({ by_registers, by_local, 64 / warps, 32 });
  std::printf ("  occupancy (theoretical, sm_80..sm_90 limits): %d work-groups of %d warps per "
      "multiprocessor, %d of 64 warps = %.0f%% (limits: registers %d, local memory %d, "
      "warps %d)\n", groups, warps, groups * warps, 100.0 * groups * warps / 64.0,
      by_registers, by_local, 64 / warps);
}

/* --compiler-report: every candidate of each volume case built on its own. */
int
compiler_report (const Options & options)
{
  try {
    cl::Device device = gst_opencl::select_device (options.device);
    cl::Context context (device);
    const bool nvidia = device.getInfo<CL_DEVICE_VENDOR> ().find ("NVIDIA") != std::string::npos;
    const auto limits = gst_opencl::ConvolutionLimits::of (device);
    std::printf ("device %s, driver %s, NVIDIA compute capability %d.%d\n",
        gst_opencl::describe_device (device).c_str (),
        device.getInfo<CL_DRIVER_VERSION> ().c_str (), limits.nvidia_compute_capability / 10,
        limits.nvidia_compute_capability % 10);
    for (int n : options.filters) {
      gst_opencl::ConvolutionSpec convolution;
      convolution.kx = convolution.ky = convolution.kz = options.kernel_size;
      convolution.num_filters = n;
      for (const auto & variant : gst_opencl::Convolution::candidates (convolution, limits)) {
        const auto program = gst_opencl::Convolution::program (convolution, variant, limits);
        const std::string build_options = program.options + (nvidia ? " -cl-nv-verbose" : "");
        std::printf ("\n== N = %d, K = %d, variant %s\n   options: %s\n", n,
            options.kernel_size, variant.to_string ().c_str (), build_options.c_str ());
        cl::Program built (context, gst_opencl::kernel_source (program.file));
        cl_int status = CL_SUCCESS;
        try {
          built.build ({ device }, build_options.c_str ());
        } catch (const cl::Error & e) {
          status = e.err ();
        }
        const std::string log = built.getBuildInfo<CL_PROGRAM_BUILD_LOG> (device);
        std::printf ("%s%s", log.c_str (), !log.empty () && log.back () != '\n' ? "\n" : "");
        if (status != CL_SUCCESS) {
          std::printf ("  BUILD FAILED: %s\n", gst_opencl_error_name (status));
          continue;
        }
        cl::Kernel kernel (built, program.kernel.c_str ());
        const cl_ulong local = kernel.getWorkGroupInfo<CL_KERNEL_LOCAL_MEM_SIZE> (device);
        const cl_ulong priv = kernel.getWorkGroupInfo<CL_KERNEL_PRIVATE_MEM_SIZE> (device);
        const size_t group = kernel.getWorkGroupInfo<CL_KERNEL_COMPILE_WORK_GROUP_SIZE> (device)[0]
            * kernel.getWorkGroupInfo<CL_KERNEL_COMPILE_WORK_GROUP_SIZE> (device)[1];
        const int registers = registers_in_log (log);
        std::printf ("  kernel: local memory %llu bytes, private memory %llu bytes, work-group "
            "%zu, registers %d\n", (unsigned long long) local, (unsigned long long) priv, group,
            registers);
        if (nvidia && registers > 0)
          print_occupancy (registers, group, local);
      }
    }
  } catch (const cl::Error & e) {
    std::fprintf (stderr, "OpenCL error %s in %s\n", gst_opencl_error_name (e.err ()),
        e.what ());
    return 1;
  } catch (const std::exception & e) {
    std::fprintf (stderr, "%s\n", e.what ());
    return 1;
  }
  return 0;
}

}  // namespace

int
main (int argc, char **argv)
{
  const std::string command_line = bench::initialize (&argc, &argv);
  Options o = parse_options (argc, argv);
  if (o.compiler_report) {
    GST_DEBUG_CATEGORY_INIT (gst_opencl_debug, "opencl", 0, "OpenCL shared layer");
    return compiler_report (o);
  }
  /* Every run times the candidates (and so can report them), unless asked otherwise. */
  if (!o.keep_tuning_cache)
    g_setenv ("GST_OPENCL_TUNING_CACHE", "0", TRUE);
  if (const char *forced = g_getenv (FORCE_VARIABLE))
    forced_at_start = forced;
  for (const char *name : { "openclmulticonvolve", "openclconvolve3d" })
    if (!bench::have_element (name))
      return 1;

  const std::string load_before = bench::load_average ();
  std::vector<CaseResult> results;
  std::vector<std::string> temporary;
  const double k3 = (double) o.kernel_size * o.kernel_size * o.kernel_size;
  const double valid = (double) (o.volume - o.kernel_size + 1);
  const double voxels = (double) o.volume * o.volume * o.volume;
  if (o.run_volume) {
    for (int n : o.filters) {
      CaseResult r;
      r.num_filters = n;
      r.frames_requested = o.reps;
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
      if ((o.each_variant || o.each_mma_variant) && !r.variants.empty ()) {
        const auto & report = r.variants.front ();
        long fastest_fp32 = -1;
        for (size_t i = 0; i < report.candidates.size (); i++) {
          if (report.median_ms[i] < 0)
            continue;
          const bool mma = report.candidates[i].compare (0, 4, "mma:") == 0;
          if (o.each_variant || mma)
            forced.push_back (report.candidates[i]);
          if (!mma && (fastest_fp32 < 0 || report.median_ms[i] < report.median_ms[fastest_fp32]))
            fastest_fp32 = (long) i;
        }
        if (!o.each_variant && fastest_fp32 >= 0)
          forced.push_back (report.candidates[fastest_fp32]);
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
      r.frames_requested = o.frames;
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
  return bench::finish (o.json_path, results_json (o, results, command_line, load_before),
      bench::any_failed (results));
}
