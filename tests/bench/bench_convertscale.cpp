/* gst-opencl: benchmark of openclconvertscale, with GStreamer's CPU converter and OpenCV as peers.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The cases (--cases):
 *   nv12-rgba   NV12 WxH -> RGBA WxH, for every size of --sizes
 *   rgba-nv12   RGBA WxH -> NV12 WxH, for every size of --sizes
 *   rgba-scale  RGBA 3840x2160 -> RGBA 1920x1080, bilinear
 *   nv12-scale  NV12 1920x1080 -> RGBA 1280x720, bilinear
 * A scaling case measures as many frames as the --sizes entry of its input size asks for (else
 * --frames).
 *
 * The element, for each case:
 *   appsrc (one prepared frame of random bytes, pushed again and again) ! openclupload !
 *     video/x-raw(memory:OpenCLMemory),<input> ! openclconvertscale method=bilinear !
 *     video/x-raw(memory:OpenCLMemory),<output> ! fakesink sync=false
 * so that the frames the element takes and gives stay on the device and its `kernel-time` (the
 * device time of the frame's kernels, from OpenCL profiling events, read by a probe as each frame
 * leaves the element) is the conversion alone. `--memory host` drops openclupload and the
 * memory feature (the element then uploads and downloads itself; the kernel time is the same
 * kernel). The wall time per frame (interval between frames at the sink) includes the upload.
 * The first --warmup frames are left out (program build, first allocations).
 *
 * Bytes per frame are those the conversion must read and write at the least: every plane's
 * samples of the input frame plus those of the output frame, without row padding. GB/s is that
 * over the median kernel time; with --ceilings (a bench_ceilings JSON of the same device) also
 * as a fraction of the device's copy bandwidth (bytes read plus written per second).
 *
 * Peers, in the same run and on the same frames:
 * - GStreamer on the CPU: appsrc (the same prepared frame) ! videoconvert n-threads=<--threads>
 *   (videoconvertscale method=bilinear for the scaling cases) ! <output caps> ! fakesink, the
 *   interval between frames at the sink (after the warm-up frames): ms per frame. The appsrc's
 *   pushes are shallow copies of one buffer, so the streaming thread only converts.
 * - OpenCV (peer_opencv_convert.py, run as a child process): cv2.cvtColor / cv2.resize on
 *   cv2.UMat (OpenCV's OpenCL path) and on numpy arrays (its CPU path), per call, each sample
 *   bracketed by cv2.ocl.finish () on the OpenCL path.
 *
 * Prints a table and, with --json, writes every figure (and the OpenCV peer's own JSON), the
 * machine (CPU, cores, load average before and after) and the command to a file. */
#include <glib/gstdio.h>
#include <gst/app/gstappsrc.h>
#include <gst/gst.h>
#include <gst/video/video.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "benchlib.h"
#include "benchvideo.h"

namespace {

using bench::FrameSize;
using bench::json_number;
using bench::json_string;

struct Conversion
{
  std::string name;
  std::string in_format;
  std::string out_format;
  int in_width = 0, in_height = 0, out_width = 0, out_height = 0;
  int frames = 0;             /* 0: --frames */
};

struct Options : bench::FrameOptions
{
  Options ()
    : FrameOptions ({ { 1920, 1080, 0 }, { 3840, 2160, 0 } }, 50, 5)
  {
  }

  std::vector<std::string> cases { "nv12-rgba", "rgba-nv12", "rgba-scale", "nv12-scale" };
  std::string memory = "opencl";
  std::string ceilings_path;
  int threads = (int) std::thread::hardware_concurrency ();
  bool cpu_peer = true;
  std::vector<std::string> opencv { "opencl", "cpu" };
  std::string python;
  std::string peer_script = "tests/bench/peer_opencv_convert.py";
  int peer_runs = 50;
};

/* The GStreamer CPU peer of one case. */
struct CpuPeer
{
  std::string element;        /* its launch text */
  std::string error;
  std::vector<double> ms;
  bench::Stats stats;
};

struct CaseResult : bench::FrameCase
{
  Conversion conversion;
  double bytes = 0;           /* read + written per frame */
  int unfinished = 0;         /* samples left out: no frame finished yet */
  CpuPeer cpu;
  std::map<std::string, double> opencv_ms;   /* backend -> median ms per call */
};

Options
parse_options (int argc, char **argv)
{
  Options options;
  bench::OptionTable table = bench::frame_option_table (options);
  table.list ("--cases C,...", &options.cases, "nv12-rgba, rgba-nv12 (at every size), "
      "rgba-scale (3840x2160 -> 1920x1080), nv12-scale (NV12 1920x1080 -> RGBA 1280x720); "
      "default all")
      .text ("--memory M", &options.memory, "opencl (frames resident on the device, the "
      "default) or host (system memory in and out)");
  bench::ceilings_option (table, &options.ceilings_path)
      .count ("--threads N", &options.threads, 1, "videoconvert's n-threads (default: the cores)")
      .flag ("--no-cpu-peer", &options.cpu_peer, false, "no videoconvert peer")
      .list ("--opencv B,...", &options.opencv, "OpenCV peer backends: opencl, cpu (default "
      "both), none")
      .text ("--python PATH", &options.python, "the Python for the OpenCV peer (default: python3 "
      "if it imports cv2, else /usr/bin/python3)")
      .text ("--peer-script PATH", &options.peer_script, "the OpenCV peer (default "
      "tests/bench/peer_opencv_convert.py: run from the project root)")
      .count ("--peer-runs N", &options.peer_runs, 1, "OpenCV calls timed per case (default 50)");
  table.parse (argc, argv);
  for (const auto & name : options.cases)
    if (name != "nv12-rgba" && name != "rgba-nv12" && name != "rgba-scale" &&
        name != "nv12-scale")
      table.reject ("unknown case " + name);
  if (options.memory != "opencl" && options.memory != "host")
    table.reject ("--memory is opencl or host");
  return options;
}

/* The frames the --sizes entry of WxH asks for, else 0 (--frames). */
int
frames_of_size (const Options & options, int width, int height)
{
  for (const auto & size : options.sizes)
    if (size.width == width && size.height == height)
      return size.frames;
  return 0;
}

std::vector<Conversion>
conversions (const Options & options)
{
  std::vector<Conversion> list;
  for (const auto & name : options.cases) {
    if (name == "nv12-rgba" || name == "rgba-nv12") {
      const bool to_rgba = name == "nv12-rgba";
      for (const auto & size : options.sizes)
        list.push_back ({ name, to_rgba ? "NV12" : "RGBA", to_rgba ? "RGBA" : "NV12",
              size.width, size.height, size.width, size.height, size.frames });
    } else if (name == "rgba-scale") {
      list.push_back ({ name, "RGBA", "RGBA", 3840, 2160, 1920, 1080,
            frames_of_size (options, 3840, 2160) });
    } else {
      list.push_back ({ name, "NV12", "RGBA", 1920, 1080, 1280, 720,
            frames_of_size (options, 1920, 1080) });
    }
  }
  return list;
}

GstVideoInfo
video_info (const std::string & format, int width, int height)
{
  GstVideoInfo info;
  gst_video_info_set_format (&info, gst_video_format_from_string (format.c_str ()), width,
      height);
  info.fps_n = 30;
  info.fps_d = 1;
  return info;
}

/* The frame every push repeats: uniform random bytes (the conversion costs the same whatever
 * the content). */
GstBuffer *
make_frame (const GstVideoInfo * info)
{
  std::vector<guint8> bytes (info->size);
  std::mt19937 random (12345);
  for (size_t i = 0; i + 4 <= bytes.size (); i += 4) {
    guint32 word = random ();
    std::memcpy (&bytes[i], &word, 4);
  }
  GstBuffer *buffer = gst_buffer_new_allocate (nullptr, bytes.size (), nullptr);
  gst_buffer_fill (buffer, 0, bytes.data (), bytes.size ());
  return buffer;
}

std::string
caps_text (const std::string & feature, const std::string & format, int width, int height)
{
  return "video/x-raw" + feature + ",format=" + format + ",width=" + std::to_string (width) +
      ",height=" + std::to_string (height) + ",framerate=30/1,pixel-aspect-ratio=1/1";
}

/* The element's pipeline of a case (appsrc "src", the element "convert", fakesink "sink"). */
std::string
element_pipeline (const Options & options, const Conversion & c)
{
  const bool resident = options.memory == "opencl";
  const std::string feature = resident ? "(memory:OpenCLMemory)" : "";
  return std::string ("appsrc name=src format=time block=true max-buffers=2 ! ") +
      (resident ? "openclupload name=upload ! " : "") +
      caps_text (feature, c.in_format, c.in_width, c.in_height) +
      " ! openclconvertscale name=convert method=bilinear ! " +
      caps_text (feature, c.out_format, c.out_width, c.out_height) +
      " ! fakesink name=sink sync=false";
}

/* The CPU peer's converter of a case. */
std::string
cpu_converter (const Options & options, const Conversion & c)
{
  const bool scales = c.in_width != c.out_width || c.in_height != c.out_height;
  return std::string (scales ? "videoconvertscale method=bilinear" : "videoconvert") +
      " n-threads=" + std::to_string (options.threads);
}

/* Pushes warm-up + `frames` shallow copies of `frame` into the appsrc "src" of a playing
 * pipeline, then EOS, and waits for it. "" or why not. */
std::string
push_frames (GstElement * pipeline, GstBuffer * frame, const GstVideoInfo & info, int count,
    int timeout_s)
{
  GstElement *src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  GstCaps *caps = gst_video_info_to_caps (&info);
  g_object_set (src, "caps", caps, nullptr);
  gst_caps_unref (caps);
  GstBus *bus = gst_element_get_bus (pipeline);
  std::string error;
  if (gst_element_set_state (pipeline, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE)
    error = "the pipeline would not start";
  for (int i = 0; error.empty () && i < count; i++) {
    GstBuffer *push = gst_buffer_copy (frame);
    GST_BUFFER_PTS (push) = gst_util_uint64_scale_int (i * GST_SECOND, info.fps_d, info.fps_n);
    GST_BUFFER_DURATION (push) = gst_util_uint64_scale_int (GST_SECOND, info.fps_d, info.fps_n);
    if (gst_app_src_push_buffer (GST_APP_SRC (src), push) != GST_FLOW_OK)
      error = "the pipeline stopped taking frames";
  }
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  std::string ended = bench::wait_for_eos (bus, timeout_s);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (src);
  return error.empty () ? ended : error;
}

/* Frames that stay on the device are not waited for: `kernel-time` as a frame leaves is that of
 * the last frame the device finished (a frame or so behind), and 0 until one has. Those zeros
 * are no frame's time: they are left out (and counted). */
void
drop_unfinished (CaseResult & result)
{
  std::vector<double> kept;
  for (double ms : result.kernel_ms)
    if (ms > 0)
      kept.push_back (ms);
  result.unfinished = (int) (result.kernel_ms.size () - kept.size ());
  if (result.unfinished == 0)
    return;
  std::printf ("(%d frames left before the device finished one: raise --warmup) ",
      result.unfinished);
  result.kernel_ms = kept;
  result.kernel = bench::summarize (kept);
}

void
run_element (const Options & options, GstBuffer * frame, CaseResult & result)
{
  const Conversion & c = result.conversion;
  result.frames_requested = c.frames ? c.frames : options.frames;
  GstElement *pipeline = bench::parse_pipeline (element_pipeline (options, c), &result.error);
  if (!pipeline)
    return;
  GstElement *element = gst_bin_get_by_name (GST_BIN (pipeline), "convert");
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  bench::set_device (element, options.device);
  if (GstElement *upload = gst_bin_get_by_name (GST_BIN (pipeline), "upload")) {
    bench::set_device (upload, options.device);
    gst_object_unref (upload);
  }
  bench::FrameProbe probe;
  probe.attach (element, sink, options.warmup);
  const GstVideoInfo info = video_info (c.in_format, c.in_width, c.in_height);
  result.error = push_frames (pipeline, frame, info, options.warmup + result.frames_requested,
      options.timeout_s);
  probe.results_into (result);
  drop_unfinished (result);
  gst_object_unref (sink);
  gst_object_unref (element);
  gst_object_unref (pipeline);
}

GstPadProbeReturn
on_cpu_sink (GstPad *, GstPadProbeInfo *, gpointer clock)
{
  static_cast<bench::FrameClock *> (clock)->tick (bench::Clock::now ());
  return GST_PAD_PROBE_OK;
}

void
run_cpu_peer (const Options & options, GstBuffer * frame, CaseResult & result)
{
  const Conversion & c = result.conversion;
  CpuPeer & peer = result.cpu;
  peer.element = cpu_converter (options, c);
  const std::string description = "appsrc name=src format=time block=true max-buffers=2 ! " +
      peer.element + " ! " + caps_text ("", c.out_format, c.out_width, c.out_height) +
      " ! fakesink name=sink sync=false";
  GstElement *pipeline = bench::parse_pipeline (description, &peer.error);
  if (!pipeline)
    return;
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  GstPad *pad = gst_element_get_static_pad (sink, "sink");
  bench::FrameClock clock;
  clock.warmup = options.warmup;
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, on_cpu_sink, &clock, nullptr);
  const int frames = c.frames ? c.frames : options.frames;
  const GstVideoInfo info = video_info (c.in_format, c.in_width, c.in_height);
  peer.error = push_frames (pipeline, frame, info, options.warmup + frames, options.timeout_s);
  peer.ms = clock.intervals_ms;
  peer.stats = bench::summarize (peer.ms);
  if (peer.error.empty () && (int) peer.ms.size () != frames)
    peer.error = "measured " + std::to_string (peer.ms.size ()) + " of " +
        std::to_string (frames) + " frames";
  gst_object_unref (pad);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
}

/* The Python that imports cv2: --python, else python3 when it does, else /usr/bin/python3. */
std::string
peer_python (const Options & options)
{
  if (!options.python.empty ())
    return options.python;
  gint status = 1;
  const gchar *argv[] = { "python3", "-c", "import cv2", nullptr };
  if (g_spawn_sync (nullptr, (gchar **) argv, nullptr, (GSpawnFlags) (G_SPAWN_SEARCH_PATH |
              G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL), nullptr, nullptr,
          nullptr, nullptr, &status, nullptr) && g_spawn_check_wait_status (status, nullptr))
    return "python3";
  return g_file_test ("/usr/bin/python3", G_FILE_TEST_IS_EXECUTABLE) ? "/usr/bin/python3" :
      "python3";
}

/* Runs the OpenCV peer on every case; its JSON text (or "null") and its medians into the cases. */
std::string
run_opencv_peer (const Options & options, std::vector<CaseResult> & results)
{
  if (options.opencv.empty () || options.opencv[0] == "none" || results.empty ())
    return "null";
  std::string cases;
  for (const auto & r : results) {
    const Conversion & c = r.conversion;
    cases += (cases.empty () ? "" : ",") + c.name + ":" + std::to_string (c.in_width) + "x" +
        std::to_string (c.in_height) + ":" + std::to_string (c.out_width) + "x" +
        std::to_string (c.out_height);
  }
  std::string backends;
  for (const auto & b : options.opencv)
    backends += (backends.empty () ? "" : ",") + b;
  gchar *folder = g_dir_make_tmp ("bench-convertscale-XXXXXX", nullptr);
  const std::string json_path = std::string (folder) + "/opencv.json";
  const std::string summary_path = std::string (folder) + "/opencv.txt";
  const std::string python = peer_python (options);
  const std::string runs = std::to_string (options.peer_runs);
  const std::string threads = std::to_string (options.threads);
  const std::string ocl_device = options.device == "cpu" ? ":CPU:0" : ":GPU:0";
  std::vector<const gchar *> argv { python.c_str (), options.peer_script.c_str (), "--cases",
    cases.c_str (), "--backends", backends.c_str (), "--runs", runs.c_str (), "--threads",
    threads.c_str (), "--ocl-device", ocl_device.c_str (), "--json", json_path.c_str (),
    "--summary", summary_path.c_str (), nullptr };
  std::printf ("\n%s %s --cases %s --backends %s\n", python.c_str (),
      options.peer_script.c_str (), cases.c_str (), backends.c_str ());
  std::fflush (stdout);
  gint status = 1;
  GError *error = nullptr;
  if (!g_spawn_sync (nullptr, (gchar **) argv.data (), nullptr, G_SPAWN_SEARCH_PATH, nullptr,
          nullptr, nullptr, nullptr, &status, &error) ||
      !g_spawn_check_wait_status (status, &error)) {
    std::printf ("OpenCV peer: %s\n", error ? error->message : "failed");
    g_clear_error (&error);
  }
  std::ifstream summary (summary_path);
  std::string name, sizes, backend;
  double ms = 0;
  while (summary >> name >> sizes >> backend >> ms)
    for (auto & r : results)
      if (name == r.conversion.name + ":" + std::to_string (r.conversion.in_width) + "x" +
          std::to_string (r.conversion.in_height))
        r.opencv_ms[backend] = ms;
  gchar *text = nullptr;
  std::string json = "null";
  if (g_file_get_contents (json_path.c_str (), &text, nullptr, nullptr))
    json = text;
  g_free (text);
  g_remove (json_path.c_str ());
  g_remove (summary_path.c_str ());
  g_rmdir (folder);
  g_free (folder);
  return json;
}

std::string
case_json (const CaseResult & r, double copy_bytes_per_s)
{
  const Conversion & c = r.conversion;
  std::string text = "    {\n";
  text += "      \"case\": " + json_string (c.name) + ", \"in_format\": " +
      json_string (c.in_format) + ", \"in_width\": " + std::to_string (c.in_width) +
      ", \"in_height\": " + std::to_string (c.in_height) + ",\n";
  text += "      \"out_format\": " + json_string (c.out_format) + ", \"out_width\": " +
      std::to_string (c.out_width) + ", \"out_height\": " + std::to_string (c.out_height) +
      ",\n";
  text += bench::json_frame_figures (r);
  text += "      \"kernel_samples_left_out\": " + std::to_string (r.unfinished) + ",\n";
  const double rate = bench::per_kernel_second (r.bytes, r.kernel);
  text += "      \"bytes\": " + json_number (r.bytes) + ", \"bytes_per_s\": " +
      json_number (rate) + ", \"of_copy_bandwidth\": " +
      bench::json_of_copy (rate, copy_bytes_per_s) + ",\n";
  text += "      \"cpu_peer\": {\"element\": " + json_string (r.cpu.element) + ", \"ok\": " +
      (r.cpu.error.empty () && !r.cpu.element.empty () ? "true" : "false") + ", \"error\": " +
      json_string (r.cpu.error) + ", \"ms\": " + bench::json_stats (r.cpu.stats) +
      ", \"ms_samples\": " + bench::json_samples (r.cpu.ms) + "},\n";
  std::string opencv;
  for (const auto & [backend, ms] : r.opencv_ms)
    opencv += (opencv.empty () ? "" : ", ") + json_string (backend) + ": " + json_number (ms);
  text += "      \"opencv_ms\": {" + opencv + "},\n";
  return text + bench::json_frame_samples (r) + "\n    }";
}

std::string
results_json (const Options & options, const std::vector<CaseResult> & results,
    const std::string & command_line, double copy_bytes_per_s, const std::string & opencv,
    const std::string & load_before)
{
  std::string text = bench::json_opening ("openclconvertscale", command_line);
  text += "  \"machine\": {\"cpu\": " + json_string (bench::cpu_model ()) + ", \"cores\": " +
      std::to_string (std::thread::hardware_concurrency ()) + ", \"loadavg_before\": " +
      json_string (load_before) + ", \"loadavg_after\": " + json_string (bench::load_average ()) +
      "},\n";
  text += "  \"device_property\": " + json_string (options.device) + ",\n";
  text += "  \"device_name\": " + json_string (bench::device_of (results)) + ",\n";
  text += "  \"memory\": " + json_string (options.memory) + ",\n";
  text += "  \"method\": \"bilinear\",\n";
  text += "  \"warmup_frames\": " + std::to_string (options.warmup) + ",\n";
  text += "  \"cpu_peer_threads\": " + std::to_string (options.threads) + ",\n";
  text += "  \"copy_bytes_per_s\": " + (copy_bytes_per_s > 0 ? json_number (copy_bytes_per_s) :
      "null") + ",\n";
  text += "  \"cases\": [";
  for (size_t i = 0; i < results.size (); i++)
    text += std::string (i ? ",\n" : "\n") + case_json (results[i], copy_bytes_per_s);
  return text + "\n  ],\n  \"opencv_peer\": " + opencv + "\n}\n";
}

std::string
ms_cell (double ms)
{
  char cell[32] = "-";
  if (ms > 0)
    std::snprintf (cell, sizeof cell, "%.3f", ms);
  return cell;
}

void
print_table (const std::vector<CaseResult> & results, double copy_bytes_per_s)
{
  std::printf ("\n%-11s %-20s %6s %9s %9s %9s %7s %7s %7s %9s %10s %9s %9s\n", "case",
      "in -> out", "frames", "kern med", "kern q1", "kern q3", "MB", "GB/s", "of copy",
      "wall med", "videoconv", "ocv ocl", "ocv cpu");
  for (const auto & r : results) {
    const Conversion & c = r.conversion;
    char sizes[48];
    std::snprintf (sizes, sizeof sizes, "%dx%d->%dx%d", c.in_width, c.in_height, c.out_width,
        c.out_height);
    const auto opencv = [&r] (const char *backend) {
      auto found = r.opencv_ms.find (backend);
      return ms_cell (found == r.opencv_ms.end () ? 0 : found->second);
    };
    const std::string cpu = ms_cell (r.cpu.error.empty () ? r.cpu.stats.median : 0);
    if (r.kernel_ms.empty ()) {
      std::printf ("%-11s %-20s  failed: %s %10s %9s %9s\n", c.name.c_str (), sizes,
          r.error.c_str (), cpu.c_str (), opencv ("opencl").c_str (), opencv ("cpu").c_str ());
      continue;
    }
    const double rate = bench::per_kernel_second (r.bytes, r.kernel);
    const std::string fraction = bench::percent_of_copy (rate, copy_bytes_per_s);
    std::printf ("%-11s %-20s %6zu %9.3f %9.3f %9.3f %7.2f %7.2f %7s %9.3f %10s %9s %9s%s\n",
        c.name.c_str (), sizes, r.kernel_ms.size (), r.kernel.median, r.kernel.q1, r.kernel.q3,
        r.bytes * 1e-6, rate * 1e-9, fraction.c_str (), r.wall.median, cpu.c_str (),
        opencv ("opencl").c_str (), opencv ("cpu").c_str (),
        r.error.empty () ? "" : "  (incomplete)");
  }
  std::printf ("(ms per frame; MB: bytes read + written per frame; GB/s over the kernel "
      "median)\n");
}

/* The element and the CPU peer on one case. */
CaseResult
run_case (const Options & options, const Conversion & c)
{
  CaseResult result;
  result.conversion = c;
  const GstVideoInfo in = video_info (c.in_format, c.in_width, c.in_height);
  const GstVideoInfo out = video_info (c.out_format, c.out_width, c.out_height);
  result.bytes = bench::frame_bytes (&in) + bench::frame_bytes (&out);
  GstBuffer *frame = make_frame (&in);
  std::printf ("%s %dx%d -> %dx%d ... ", c.name.c_str (), c.in_width, c.in_height, c.out_width,
      c.out_height);
  std::fflush (stdout);
  run_element (options, frame, result);
  if (result.error.empty ())
    std::printf ("kernel median %.3f ms on %s", result.kernel.median,
        result.device_name.c_str ());
  else
    std::printf ("FAILED: %s", result.error.c_str ());
  if (options.cpu_peer) {
    run_cpu_peer (options, frame, result);
    if (result.cpu.error.empty ())
      std::printf ("; %s median %.3f ms", result.cpu.element.c_str (), result.cpu.stats.median);
    else
      std::printf ("; %s FAILED: %s", result.cpu.element.c_str (), result.cpu.error.c_str ());
  }
  std::printf ("\n");
  gst_buffer_unref (frame);
  return result;
}

}  // namespace

int
main (int argc, char **argv)
{
  const std::string command_line = bench::initialize (&argc, &argv);
  Options options = parse_options (argc, argv);
  const std::string load_before = bench::load_average ();
  if (!bench::have_element ("openclconvertscale"))
    return 1;
  const double copy_bytes_per_s = bench::copy_bandwidth (options.ceilings_path);

  std::vector<CaseResult> results;
  for (const auto & c : conversions (options))
    results.push_back (run_case (options, c));
  const std::string opencv = run_opencv_peer (options, results);

  const std::string device_name = bench::device_of (results);
  std::printf ("\nopenclconvertscale, bilinear, %s memory, %d warm-up frames, device: %s; "
      "videoconvert n-threads=%d\n", options.memory.c_str (), options.warmup,
      device_name.empty () ? "(unknown)" : device_name.c_str (), options.threads);
  bench::print_copy_bandwidth (copy_bytes_per_s, options.ceilings_path);
  print_table (results, copy_bytes_per_s);
  bool failed = bench::any_failed (results);
  for (const auto & r : results)
    failed = failed || !r.cpu.error.empty ();
  return bench::finish (options.json_path, results_json (options, results, command_line,
          copy_bytes_per_s, opencv, load_before), failed);
}
