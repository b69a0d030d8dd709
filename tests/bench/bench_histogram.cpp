/* gst-opencl: benchmark of openclhistogram on random and one-colour frames.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * For every case (kernel variant x frame size x content) it runs
 *   appsrc (one prepared frame, pushed again and again) ! openclhistogram bins=B ! fakesink
 * to EOS. The variant is the element's own choice ("tuned": forced, cached or timed by the tuner,
 * the element's `variant` property says which) or one forced with GST_OPENCL_VARIANT_HISTOGRAM;
 * --variants all (or gpu, cpu: the work-group variants, the cpu-... ones) asks the element for
 * its list. The frame is made once: uniform random bytes ("random", every channel of every pixel
 * independent), or every byte the same ("one-colour", every sample of a channel in one bin: the
 * worst case for atomics). A probe on the element's src pad reads `kernel-time` (device time of
 * that frame's kernels, from OpenCL profiling events) as each frame leaves; a probe on the sink
 * takes a steady_clock stamp per frame, so the wall time per frame is what the element costs in
 * the streaming thread: upload, kernels, reading the counts back, posting the message. The first
 * --warmup frames are left out (program build, first allocations, the tuner's timing).
 *
 * Bytes read per second are the frame's samples (every plane's rows, without padding) over the
 * median kernel time; with --ceilings (a bench_ceilings JSON of the same device) also as a
 * fraction of the device's copy bandwidth (bytes read plus written per second).
 *
 * Prints a table and, with --json, writes every figure to a JSON file. */
#include <gst/app/gstappsrc.h>
#include <gst/gst.h>
#include <gst/video/video.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "benchlib.h"
#include "benchvideo.h"

namespace {

using bench::FrameSize;
using bench::json_number;
using bench::json_string;
using bench::split;

/* The element's own choice of kernel variant, as opposed to one forced by name. */
const char *const TUNED = "tuned";
const char *const VARIANT_VARIABLE = "GST_OPENCL_VARIANT_HISTOGRAM";

struct Options : bench::FrameOptions
{
  Options ()
    : FrameOptions ({ { 1280, 720, 0 }, { 1920, 1080, 0 }, { 3840, 2160, 0 } }, 50, 5)
  {
  }

  std::vector<std::string> contents { "random", "one-colour" };
  int bins = 256;
  std::string format = "RGBA";
  std::string ceilings_path;
  std::vector<std::string> variants { TUNED };
};

struct CaseResult : bench::FrameCase
{
  std::string variant;       /* TUNED or the name forced */
  std::string variant_used;  /* the element's `variant` property */
  FrameSize size;
  std::string content;
  double bytes_read = 0;     /* per frame: every plane's samples */
};

Options
parse_options (int argc, char **argv)
{
  Options options;
  bench::OptionTable table = bench::frame_option_table (options);
  table.list ("--variants V,...", &options.variants, "kernel variants: tuned (the element's "
      "choice, the default), names from GST_OPENCL_VARIANT_HISTOGRAM, or all, gpu, cpu (tuned "
      "and every variant the element has, those for work-groups, those named cpu-...)")
      .list ("--contents C,...", &options.contents, "random, one-colour (default both)")
      .count ("--bins N", &options.bins, 2, "the element's bins (default 256)")
      .text ("--format F", &options.format, "video format (default RGBA)");
  bench::ceilings_option (table, &options.ceilings_path);
  table.parse (argc, argv);
  for (const auto & content : options.contents)
    if (content != "random" && content != "one-colour")
      table.reject ("unknown content " + content);
  if (gst_video_format_from_string (options.format.c_str ()) == GST_VIDEO_FORMAT_UNKNOWN)
    table.reject ("unknown format " + options.format);
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

/* Forces `variant` on the elements made from now on (TUNED: none). */
void
select_variant (const std::string & variant)
{
  if (variant == TUNED)
    g_unsetenv (VARIANT_VARIABLE);
  else
    g_setenv (VARIANT_VARIABLE, variant.c_str (), TRUE);
}

void
run_case (const Options & options, CaseResult & result)
{
  result.frames_requested = result.size.frames ? result.size.frames : options.frames;
  select_variant (result.variant);
  gchar *description = g_strdup_printf ("appsrc name=src format=time block=true "
      "max-buffers=2 ! openclhistogram name=histogram bins=%d ! fakesink name=sink sync=false",
      options.bins);
  GstElement *pipeline = bench::parse_pipeline (description, &result.error);
  g_free (description);
  if (!pipeline)
    return;
  GstElement *src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  GstElement *element = gst_bin_get_by_name (GST_BIN (pipeline), "histogram");
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  bench::set_device (element, options.device);

  GstVideoInfo info;
  gst_video_info_set_format (&info, gst_video_format_from_string (options.format.c_str ()),
      result.size.width, result.size.height);
  info.fps_n = 30;
  info.fps_d = 1;
  GstCaps *caps = gst_video_info_to_caps (&info);
  g_object_set (src, "caps", caps, nullptr);
  gst_caps_unref (caps);
  GstBuffer *frame = make_frame (&info, result.content);
  result.bytes_read = bench::frame_bytes (&info);

  bench::FrameProbe probe;
  probe.attach (element, sink, options.warmup);

  GstBus *bus = gst_element_get_bus (pipeline);
  if (gst_element_set_state (pipeline, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE)
    result.error = "the pipeline would not start";
  for (int i = 0; result.error.empty () && i < options.warmup + result.frames_requested; i++) {
    /* A shallow copy shares the pixels; only the timestamps are its own. */
    GstBuffer *push = gst_buffer_copy (frame);
    GST_BUFFER_PTS (push) = gst_util_uint64_scale_int (i * GST_SECOND, info.fps_d, info.fps_n);
    GST_BUFFER_DURATION (push) = gst_util_uint64_scale_int (GST_SECOND, info.fps_d, info.fps_n);
    if (gst_app_src_push_buffer (GST_APP_SRC (src), push) != GST_FLOW_OK)
      result.error = "the pipeline stopped taking frames";
  }
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  std::string ended = bench::wait_for_eos (bus, options.timeout_s);
  if (result.error.empty ())
    result.error = ended;
  /* Still playing after EOS: the element keeps its state (and its variant) until it stops. */
  gchar *variant_used = nullptr;
  g_object_get (element, "variant", &variant_used, nullptr);
  result.variant_used = variant_used ? variant_used : "";
  g_free (variant_used);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  probe.results_into (result);

  gst_buffer_unref (frame);
  gst_object_unref (bus);
  gst_object_unref (sink);
  gst_object_unref (element);
  gst_object_unref (src);
  gst_object_unref (pipeline);
}

/* The element's variants: the names the tuner lists when asked for one that does not exist.
 * Empty (with a message) when the element gave no list. */
std::vector<std::string>
element_variants (const Options & options)
{
  g_setenv (VARIANT_VARIABLE, "?", TRUE);
  std::string launch = "appsrc name=src format=time caps=video/x-raw,format=RGBA,width=16,"
      "height=16,framerate=30/1 ! openclhistogram name=histogram ! fakesink";
  std::string error;
  GstElement *pipeline = bench::parse_pipeline (launch, &error);
  std::vector<std::string> names;
  if (!pipeline) {
    std::fprintf (stderr, "cannot list the variants: %s\n", error.c_str ());
    g_unsetenv (VARIANT_VARIABLE);
    return names;
  }
  GstElement *src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  GstElement *element = gst_bin_get_by_name (GST_BIN (pipeline), "histogram");
  bench::set_device (element, options.device);
  GstBus *bus = gst_element_get_bus (pipeline);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  GstBuffer *buffer = gst_buffer_new_allocate (nullptr, 16 * 16 * 4, nullptr);
  gst_buffer_memset (buffer, 0, 0, 16 * 16 * 4);
  gst_app_src_push_buffer (GST_APP_SRC (src), buffer);
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  const std::string message = bench::wait_for_eos (bus, options.timeout_s);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  g_unsetenv (VARIANT_VARIABLE);
  /* "... names no variant of histogram (a, b, c)" */
  const size_t open = message.find ("histogram (");
  const size_t close = message.find (')', open);
  if (open != std::string::npos && close != std::string::npos)
    for (const auto & name : split (message.substr (open + 11, close - open - 11), ','))
      names.push_back (name[0] == ' ' ? name.substr (1) : name);
  if (names.empty ())
    std::fprintf (stderr, "the element listed no variants: %s\n", message.c_str ());
  gst_object_unref (bus);
  gst_object_unref (element);
  gst_object_unref (src);
  gst_object_unref (pipeline);
  return names;
}

std::string
results_json (const Options & options, const std::vector<CaseResult> & results,
    const std::string & command_line, double copy_bytes_per_s)
{
  std::string text = bench::json_opening ("openclhistogram", command_line);
  text += "  \"device_property\": " + json_string (options.device) + ",\n";
  text += "  \"format\": " + json_string (options.format) + ",\n";
  text += "  \"bins\": " + std::to_string (options.bins) + ",\n";
  text += "  \"warmup_frames\": " + std::to_string (options.warmup) + ",\n";
  text += "  \"copy_bytes_per_s\": " + (copy_bytes_per_s > 0 ? json_number (copy_bytes_per_s) :
      "null") + ",\n";
  text += "  \"cases\": [";
  for (size_t i = 0; i < results.size (); i++) {
    const auto & r = results[i];
    double megapixels = (double) r.size.width * r.size.height * 1e-6;
    text += std::string (i ? ",\n" : "\n") + "    {\n";
    text += "      \"variant\": " + json_string (r.variant) + ", \"variant_used\": " +
        json_string (r.variant_used) + ",\n";
    text += "      \"width\": " + std::to_string (r.size.width) + ", \"height\": " +
        std::to_string (r.size.height) + ", \"content\": " + json_string (r.content) + ",\n";
    text += bench::json_frame_figures (r);
    text += "      \"kernel_mpixel_per_s\": " +
        json_number (bench::per_kernel_second (megapixels, r.kernel)) + ",\n";
    const double read = bench::per_kernel_second (r.bytes_read, r.kernel);
    text += "      \"bytes_read\": " + json_number (r.bytes_read) +
        ", \"read_bytes_per_s\": " + json_number (read) + ", \"of_copy_bandwidth\": " +
        bench::json_of_copy (read, copy_bytes_per_s) + ",\n";
    text += bench::json_frame_samples (r) + "\n    }";
  }
  return text + "\n  ]\n}\n";
}

void
print_table (const std::vector<CaseResult> & results, double copy_bytes_per_s)
{
  std::printf ("\n%-15s %-11s %-11s %6s %9s %9s %9s %8s %7s %9s  %s\n", "variant", "size",
      "content", "frames", "kern med", "kern min", "kern IQR", "GB/s", "of copy", "wall med",
      "(ms; GB/s: bytes read)");
  for (const auto & r : results) {
    char size[32];
    std::snprintf (size, sizeof size, "%dx%d", r.size.width, r.size.height);
    const std::string variant = r.variant == TUNED ? "tuned:" + r.variant_used : r.variant;
    if (r.kernel_ms.empty ()) {
      std::printf ("%-15s %-11s %-11s  failed: %s\n", variant.c_str (), size, r.content.c_str (),
          r.error.c_str ());
      continue;
    }
    const double read = bench::per_kernel_second (r.bytes_read, r.kernel);
    const std::string fraction = bench::percent_of_copy (read, copy_bytes_per_s);
    std::printf ("%-15s %-11s %-11s %6zu %9.4f %9.4f %9.4f %8.1f %7s %9.3f%s\n",
        variant.c_str (), size, r.content.c_str (), r.kernel_ms.size (), r.kernel.median,
        r.kernel.min, r.kernel.q3 - r.kernel.q1, read * 1e-9, fraction.c_str (), r.wall.median,
        r.error.empty () ? "" : "  (incomplete)");
  }
}

}  // namespace

int
main (int argc, char **argv)
{
  const std::string command_line = bench::initialize (&argc, &argv);
  Options options = parse_options (argc, argv);

  if (!bench::have_element ("openclhistogram"))
    return 1;

  std::vector<std::string> variants;
  for (const auto & variant : options.variants) {
    if (variant != "all" && variant != "gpu" && variant != "cpu") {
      variants.push_back (variant);
      continue;
    }
    auto names = element_variants (options);
    if (names.empty ())
      return 1;
    variants.push_back (TUNED);
    /* The one-work-item variants are named cpu-... */
    for (const auto & name : names)
      if (variant == "all" || (name.rfind ("cpu-", 0) == 0) == (variant == "cpu"))
        variants.push_back (name);
  }
  const double copy_bytes_per_s = bench::copy_bandwidth (options.ceilings_path);

  std::vector<CaseResult> results;
  for (const auto & variant : variants) {
    for (const auto & size : options.sizes) {
      for (const auto & content : options.contents) {
        CaseResult result;
        result.variant = variant;
        result.size = size;
        result.content = content;
        std::printf ("%s %dx%d %s ... ", variant.c_str (), size.width, size.height,
            content.c_str ());
        std::fflush (stdout);
        run_case (options, result);
        if (result.error.empty ())
          std::printf ("%zu frames, kernel median %.4f ms on %s (variant %s)\n",
              result.kernel_ms.size (), result.kernel.median, result.device_name.c_str (),
              result.variant_used.c_str ());
        else
          std::printf ("FAILED: %s\n", result.error.c_str ());
        results.push_back (std::move (result));
      }
    }
  }
  select_variant (TUNED);

  const std::string device_name = bench::device_of (results);
  std::printf ("\nopenclhistogram, %s, %d bins, %d warm-up frames, device: %s\n",
      options.format.c_str (), options.bins, options.warmup,
      device_name.empty () ? "(unknown)" : device_name.c_str ());
  bench::print_copy_bandwidth (copy_bytes_per_s, options.ceilings_path);
  print_table (results, copy_bytes_per_s);

  return bench::finish (options.json_path, results_json (options, results, command_line,
          copy_bytes_per_s), bench::any_failed (results));
}
