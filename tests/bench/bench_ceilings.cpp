/* gst-opencl benchmarks: the device's ceilings, the figures every other result is a fraction of.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Three microbenchmarks on the OpenCL device the elements would use (the layer's device choice):
 *  - copy: a buffer of --copy-mib MiB copied into another by a float4 kernel; bytes read plus
 *    bytes written per second (what "copy bandwidth" means in the figures built on it);
 *  - fma: FP32 fused multiply-adds, CHAINS independent chains per work-item in vectors of W
 *    lanes (W = 1, 4, 8, 16 each tried, the best kept, so both GPUs and CPU SIMD units fill
 *    up); 2 FLOP per FMA per lane;
 *  - local: work-groups of 256 reading a local-memory array of float4 over and over, bytes read
 *    from local memory per second;
 *  - the frame path, for one 3840x2160 RGBA frame (33,177,600 bytes): clEnqueueWriteBuffer and
 *    clEnqueueReadBuffer between a device buffer and pageable memory (malloc'd) or pinned memory
 *    (a CL_MEM_ALLOC_HOST_PTR buffer mapped once, its pointer the host pointer of the
 *    transfers); the staged upload (memcpy from pageable into the pinned region, then the pinned
 *    write: what staging a foreign frame through pinned memory costs); a host memcpy of the
 *    frame. Frame bytes per second.
 * Each figure is the median over --runs launches of the device time from profiling events (after
 * a warm-up launch); the staged upload and the memcpy are wall times. The result is cached per
 * device in $XDG_CACHE_HOME/gst-opencl/ceilings/<hash>.json (hash of platform, its version,
 * device and driver); a later run prints the cached figures unless --remeasure or the cache lacks
 * some (one written before the frame path was measured). --json PATH writes them too.
 */
#include <gst/gst.h>
#include <glib/gstdio.h>

#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "benchlib.h"
#include "opencl/gstopencldevice.h"
#include "opencl/gstopenclprogram.h"

namespace {

const char *SOURCE = R"CLC(
__kernel void copy4 (__global const float4 * src, __global float4 * dst)
{
  const size_t i = get_global_id (0);
  dst[i] = src[i];
}

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#if W == 1
#define vf float
#else
#define vf CAT(float, W)
#endif

/* CHAINS independent chains of FMAs (each depends only on itself), ITER rounds of all chains. */
__kernel void fma_chains (__global float * out, float a, float b, int iterations)
{
  const size_t id = get_global_id (0);
  vf x[CHAINS];
#pragma unroll
  for (int c = 0; c < CHAINS; c++)
    x[c] = (vf) ((float) (id & 7) * 1e-3f + (float) c * 1e-4f);
  for (int i = 0; i < iterations; i++) {
#pragma unroll
    for (int c = 0; c < CHAINS; c++)
      x[c] = fma (x[c], (vf) (a), (vf) (b));
  }
  vf total = x[0];
#pragma unroll
  for (int c = 1; c < CHAINS; c++)
    total += x[c];
#if W == 1
  out[id] = total;
#else
  float sum = 0.0f;
  float lanes[W];
  CAT (vstore, W) (total, 0, lanes);
  for (int l = 0; l < W; l++)
    sum += lanes[l];
  out[id] = sum;
#endif
}

/* Each work-item reads 8 float4 of a 256-entry local array per round, at offsets no compiler
 * can fold. */
__kernel __attribute__ ((reqd_work_group_size (256, 1, 1)))
void local_reads (__global float4 * out, int iterations)
{
  __local float4 tile[256];
  const int lid = (int) get_local_id (0);
  tile[lid] = (float4) ((float) lid, 1.0f, 2.0f, 3.0f);
  barrier (CLK_LOCAL_MEM_FENCE);
  float4 acc0 = 0.0f, acc1 = 0.0f;
  int index = lid;
  for (int i = 0; i < iterations; i++) {
    acc0 += tile[index];
    acc1 += tile[(index + 32) & 255];
    acc0 += tile[(index + 64) & 255];
    acc1 += tile[(index + 96) & 255];
    acc0 += tile[(index + 128) & 255];
    acc1 += tile[(index + 160) & 255];
    acc0 += tile[(index + 192) & 255];
    acc1 += tile[(index + 224) & 255];
    index = (index + 1) & 255;
  }
  out[get_global_id (0)] = acc0 + acc1;
}
)CLC";

struct Options
{
  std::string device = "";
  int runs = 15;
  int copy_mib = 0;         /* 0: 256 MiB on GPUs, 64 MiB on CPUs */
  bool remeasure = false;
  std::string json_path;
};

/* The frame of the frame path's figures: one 3840x2160 RGBA frame. */
const int FRAME_WIDTH = 3840;
const int FRAME_HEIGHT = 2160;
const size_t FRAME_BYTES = (size_t) FRAME_WIDTH * FRAME_HEIGHT * 4;

double
event_ms (const cl::Event & event)
{
  return (double) (event.getProfilingInfo<CL_PROFILING_COMMAND_END> () -
      event.getProfilingInfo<CL_PROFILING_COMMAND_START> ()) * 1e-6;
}

/* Device times of `runs` commands after one warm-up; `enqueue` enqueues one and gives its event. */
std::vector<double>
time_commands (int runs, const std::function<cl::Event ()> & enqueue)
{
  std::vector<double> ms;
  for (int r = -1; r < runs; r++) {
    cl::Event event = enqueue ();
    event.wait ();
    if (r >= 0)
      ms.push_back (event_ms (event));
  }
  return ms;
}

/* Device times of `runs` launches after one warm-up. */
std::vector<double>
time_launches (cl::CommandQueue & queue, const cl::Kernel & kernel, const cl::NDRange & global,
    const cl::NDRange & local, int runs)
{
  return time_commands (runs, [&]() {
        cl::Event event;
        queue.enqueueNDRangeKernel (kernel, cl::NullRange, global, local, nullptr, &event);
        return event;
      });
}

std::string
figure_json (const char *unit, double per_launch, const std::vector<double> & ms,
    const std::string & extra)
{
  bench::Stats stats = bench::summarize (ms);
  /* The rate of the median time is the median rate. */
  return std::string ("{\"") + unit + "\": " + bench::json_number (per_launch / (stats.median *
          1e-3)) + ", \"per_launch\": " + bench::json_number (per_launch) + ", \"ms\": " +
      bench::json_stats (stats) + extra + "}";
}

/* One figure of the frame path: the frame moved `runs` times one way. */
struct FrameFigure
{
  const char *key;      /* its name in the JSON */
  const char *label;    /* in the printed table */
  const char *timing;   /* "device" (profiling events) or "wall" */
  std::vector<double> ms;
};

/* One transfer of the whole frame between `device_frame` and `host`, to the device or back. */
std::function<cl::Event ()>
frame_transfer (cl::CommandQueue & queue, const cl::Buffer & device_frame, void *host,
    bool to_device)
{
  return [&queue, &device_frame, host, to_device]() {
    cl::Event event;
    if (to_device)
      queue.enqueueWriteBuffer (device_frame, CL_TRUE, 0, FRAME_BYTES, host, nullptr, &event);
    else
      queue.enqueueReadBuffer (device_frame, CL_TRUE, 0, FRAME_BYTES, host, nullptr, &event);
    return event;
  };
}

std::vector<FrameFigure>
time_frame_path (const cl::Context & context, cl::CommandQueue & queue, int runs)
{
  cl::Buffer device_frame (context, CL_MEM_READ_WRITE, FRAME_BYTES);
  std::vector<unsigned char> pageable (FRAME_BYTES, 0x5a), copy (FRAME_BYTES, 0);
  /* Pinned: memory the driver allocates where the host and the device both reach it, mapped
   * once for good. */
  cl::Buffer pinned_buffer (context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, FRAME_BYTES);
  auto *pinned = static_cast<unsigned char *> (queue.enqueueMapBuffer (pinned_buffer, CL_TRUE,
          CL_MAP_READ | CL_MAP_WRITE, 0, FRAME_BYTES));
  std::memset (pinned, 0x5a, FRAME_BYTES);

  std::vector<FrameFigure> figures;
  figures.push_back ({ "upload_pageable", "upload, pageable", "device",
        time_commands (runs, frame_transfer (queue, device_frame, pageable.data (), true)) });
  figures.push_back ({ "download_pageable", "download, pageable", "device",
        time_commands (runs, frame_transfer (queue, device_frame, pageable.data (), false)) });
  figures.push_back ({ "upload_pinned", "upload, pinned", "device",
        time_commands (runs, frame_transfer (queue, device_frame, pinned, true)) });
  figures.push_back ({ "download_pinned", "download, pinned", "device",
        time_commands (runs, frame_transfer (queue, device_frame, pinned, false)) });
  /* One frame up and another down at once, each on its own queue: whether the link carries
   * both directions together (the frame path's transfer queues count on it). */
  {
    cl::CommandQueue up_queue (context, queue.getInfo<CL_QUEUE_DEVICE> ());
    cl::CommandQueue down_queue (context, queue.getInfo<CL_QUEUE_DEVICE> ());
    cl::Buffer second_frame (context, CL_MEM_READ_WRITE, FRAME_BYTES);
    cl::Buffer second_pinned_buffer (context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR,
        FRAME_BYTES);
    auto *second_pinned = static_cast<unsigned char *> (queue.enqueueMapBuffer (
            second_pinned_buffer, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, FRAME_BYTES));
    figures.push_back ({ "both_ways_pinned", "up and down at once", "wall",
          bench::time_calls (runs, [&]() {
                up_queue.enqueueWriteBuffer (device_frame, CL_FALSE, 0, FRAME_BYTES, pinned);
                down_queue.enqueueReadBuffer (second_frame, CL_FALSE, 0, FRAME_BYTES,
                    second_pinned);
                up_queue.finish ();
                down_queue.finish ();
              }) });
    queue.enqueueUnmapMemObject (second_pinned_buffer, second_pinned);
    queue.finish ();
  }
  figures.push_back ({ "upload_staged", "upload, staged", "wall",
        bench::time_calls (runs, [&]() {
              std::memcpy (pinned, pageable.data (), FRAME_BYTES);
              queue.enqueueWriteBuffer (device_frame, CL_TRUE, 0, FRAME_BYTES, pinned);
            }) });
  figures.push_back ({ "host_memcpy", "host memcpy", "wall",
        bench::time_calls (runs, [&]() {
              std::memcpy (copy.data (), pageable.data (), FRAME_BYTES);
            }) });

  queue.enqueueUnmapMemObject (pinned_buffer, pinned);
  queue.finish ();
  return figures;
}

double
frame_bytes_per_s (const FrameFigure & figure)
{
  return (double) FRAME_BYTES / (bench::summarize (figure.ms).median * 1e-3);
}

void
print_frame_path (const std::vector<FrameFigure> & figures, int runs)
{
  std::printf ("frame path: one %dx%d RGBA frame (%zu bytes), medians of %d\n", FRAME_WIDTH,
      FRAME_HEIGHT, FRAME_BYTES, runs);
  for (const auto & figure : figures)
    std::printf ("%-19s %8.1f GB/s %9.3f ms (%s time)\n", figure.label,
        frame_bytes_per_s (figure) * 1e-9, bench::summarize (figure.ms).median, figure.timing);
}

/* The "frame_path" member: the frame, then each figure as figure_json () gives it. */
std::string
frame_path_json (const std::vector<FrameFigure> & figures)
{
  std::string json = "  \"frame_path\": {\"width\": " + std::to_string (FRAME_WIDTH) +
      ", \"height\": " + std::to_string (FRAME_HEIGHT) + ", \"bytes\": " +
      std::to_string (FRAME_BYTES);
  for (const auto & figure : figures)
    json += ",\n    \"" + std::string (figure.key) + "\": " + figure_json ("bytes_per_s",
        (double) FRAME_BYTES, figure.ms, std::string (", \"timing\": \"") + figure.timing + "\"");
  return json + "},\n";
}

std::string
cache_path (const cl::Device & device)
{
  cl::Platform platform (device.getInfo<CL_DEVICE_PLATFORM> ());
  std::string identity = platform.getInfo<CL_PLATFORM_NAME> () + '\0' +
      platform.getInfo<CL_PLATFORM_VERSION> () + '\0' + device.getInfo<CL_DEVICE_NAME> () +
      '\0' + device.getInfo<CL_DRIVER_VERSION> ();
  gchar name[40];
  g_snprintf (name, sizeof name, "%016" G_GINT64_MODIFIER "x.json",
      (guint64) gst_opencl::stable_hash (identity));
  gchar *path = g_build_filename (g_get_user_cache_dir (), "gst-opencl", "ceilings", name,
      nullptr);
  std::string result (path);
  g_free (path);
  return result;
}

std::string
measure (const cl::Device & device, const Options & options)
{
  cl::Context context (device);
  cl::CommandQueue queue (context, device, CL_QUEUE_PROFILING_ENABLE);
  const bool cpu = (device.getInfo<CL_DEVICE_TYPE> () & CL_DEVICE_TYPE_CPU) != 0;
  const cl_uint units = device.getInfo<CL_DEVICE_MAX_COMPUTE_UNITS> ();
  std::string json;

  /* Copy bandwidth. */
  size_t mib = options.copy_mib ? (size_t) options.copy_mib : (cpu ? 64 : 256);
  const size_t max_alloc = device.getInfo<CL_DEVICE_MAX_MEM_ALLOC_SIZE> ();
  size_t bytes = std::min (mib << 20, max_alloc / 16 * 16);
  {
    cl::Program program (context, SOURCE);
    program.build ({ device }, "-DW=1 -DCHAINS=1");
    cl::Kernel kernel (program, "copy4");
    cl::Buffer src (context, CL_MEM_READ_WRITE, bytes), dst (context, CL_MEM_READ_WRITE, bytes);
    queue.enqueueFillBuffer (src, 1.0f, 0, bytes);
    kernel.setArg (0, src);
    kernel.setArg (1, dst);
    auto ms = time_launches (queue, kernel, cl::NDRange (bytes / 16), cl::NullRange,
        options.runs);
    double moved = 2.0 * (double) bytes;
    json += "  \"copy\": " + figure_json ("bytes_per_s", moved, ms, ", \"buffer_bytes\": " +
        std::to_string (bytes)) + ",\n";
    std::printf ("copy   %8.1f GB/s (read + written; %zu MiB buffers, median %.3f ms)\n",
        moved / (bench::summarize (ms).median * 1e-3) * 1e-9, bytes >> 20,
        bench::summarize (ms).median);
  }

  /* FMA rate: the best vector width. */
  {
    const int chains = 8;
    const int iterations = cpu ? 2048 : 8192;
    const size_t items = (size_t) units * (cpu ? 4096 : 2048);
    cl::Buffer out (context, CL_MEM_WRITE_ONLY, items * sizeof (float));
    double best = 0;
    std::string best_json;
    int best_width = 0;
    for (int width : { 1, 4, 8, 16 }) {
      cl::Program program (context, SOURCE);
      const std::string build_options = "-DW=" + std::to_string (width) + " -DCHAINS=" +
          std::to_string (chains);
      program.build ({ device }, build_options.c_str ());
      cl::Kernel kernel (program, "fma_chains");
      kernel.setArg (0, out);
      kernel.setArg (1, 0.999f);
      kernel.setArg (2, 1e-3f);
      /* Wider vectors do more work per item: fewer items, same total. */
      const size_t global = std::max<size_t> (units, items / (size_t) width);
      kernel.setArg (3, (cl_int) iterations);
      auto ms = time_launches (queue, kernel, cl::NDRange (global), cl::NullRange,
          options.runs);
      double flops = 2.0 * width * chains * (double) iterations * (double) global;
      double rate = flops / (bench::summarize (ms).median * 1e-3);
      std::printf ("fma    %8.1f GFLOP/s with float%d x %d chains\n", rate * 1e-9, width,
          chains);
      if (rate > best) {
        best = rate;
        best_width = width;
        best_json = figure_json ("flop_per_s", flops, ms, ", \"vector_width\": " +
            std::to_string (width) + ", \"chains\": " + std::to_string (chains));
      }
    }
    json += "  \"fma\": " + best_json + ",\n";
    std::printf ("fma    best %.1f GFLOP/s (float%d)\n", best * 1e-9, best_width);
  }

  /* Local memory bandwidth. */
  {
    const int iterations = cpu ? 256 : 1024;
    const size_t items = (size_t) units * (cpu ? 256 : 2048);
    cl::Program program (context, SOURCE);
    program.build ({ device }, "-DW=1 -DCHAINS=1");
    cl::Kernel kernel (program, "local_reads");
    cl::Buffer out (context, CL_MEM_WRITE_ONLY, items * 16);
    kernel.setArg (0, out);
    kernel.setArg (1, (cl_int) iterations);
    auto ms = time_launches (queue, kernel, cl::NDRange (items), cl::NDRange (256), options.runs);
    double read = 8.0 * 16.0 * iterations * (double) items;
    json += "  \"local\": " + figure_json ("bytes_per_s", read, ms, "") + ",\n";
    std::printf ("local  %8.1f GB/s (bytes read from local memory)\n",
        read / (bench::summarize (ms).median * 1e-3) * 1e-9);
  }

  /* The frame path. */
  const auto frame_figures = time_frame_path (context, queue, options.runs);
  print_frame_path (frame_figures, options.runs);
  json += frame_path_json (frame_figures);
  return json;
}

/* Whether a cached file holds every figure this program measures. */
bool
cache_is_complete (const std::string & json)
{
  return json.find ("\"frame_path\"") != std::string::npos;
}

Options
parse_options (int argc, char **argv)
{
  Options options;
  bench::OptionTable table;
  table.text ("--device STRING", &options.device, "gpu, cpu or <platform>[:n] (default: "
      "automatic)")
      .count ("--runs N", &options.runs, 1, "launches per figure after a warm-up one (default 15)")
      .count ("--copy-mib N", &options.copy_mib, 1, "the copy's buffers (default 256 on GPUs, 64 "
      "on CPUs)")
      .flag ("--remeasure", &options.remeasure, true, "measure even when the cache has figures")
      .text ("--json PATH", &options.json_path, "write the figures as JSON");
  table.parse (argc, argv);
  return options;
}

}  // namespace

int
main (int argc, char **argv)
{
  gst_init (&argc, &argv);
  const std::string command = bench::command_line ("bench_ceilings", argc, argv);
  const Options options = parse_options (argc, argv);

  try {
    cl::Device device = gst_opencl::select_device (options.device);
    cl::Platform platform (device.getInfo<CL_DEVICE_PLATFORM> ());
    const std::string path = cache_path (device);
    std::printf ("device %s, driver %s\n", gst_opencl::describe_device (device).c_str (),
        device.getInfo<CL_DRIVER_VERSION> ().c_str ());

    std::string json;
    gchar *cached = nullptr;
    if (!options.remeasure && g_file_get_contents (path.c_str (), &cached, nullptr, nullptr)) {
      json = cached;
      g_free (cached);
      if (!cache_is_complete (json)) {
        std::printf ("the cache %s lacks figures: measuring again\n", path.c_str ());
        json.clear ();
      }
    }
    if (!json.empty ()) {
      std::printf ("ceilings from %s (--remeasure to measure again):\n%s", path.c_str (),
          json.c_str ());
    } else {
      std::string figures = measure (device, options);
      const bool cpu = (device.getInfo<CL_DEVICE_TYPE> () & CL_DEVICE_TYPE_CPU) != 0;
      json = "{\n  \"benchmark\": \"ceilings\",\n  \"device_name\": " + bench::json_string (
          gst_opencl::describe_device (device)) + ",\n  \"device_type\": \"" +
          (cpu ? "cpu" : "gpu") + "\",\n  \"platform\": " + bench::json_string (
          platform.getInfo<CL_PLATFORM_NAME> () + " " +
          platform.getInfo<CL_PLATFORM_VERSION> ()) + ",\n  \"driver\": " +
          bench::json_string (device.getInfo<CL_DRIVER_VERSION> ()) +
          ",\n  \"compute_units\": " + std::to_string (
          device.getInfo<CL_DEVICE_MAX_COMPUTE_UNITS> ()) + ",\n" + figures +
          "  \"runs\": " + std::to_string (options.runs) + ",\n  \"command\": " +
          bench::json_string (command) + "\n}\n";
      gchar *folder = g_path_get_dirname (path.c_str ());
      g_mkdir_with_parents (folder, 0755);
      g_free (folder);
      if (!g_file_set_contents (path.c_str (), json.c_str (), -1, nullptr))
        std::fprintf (stderr, "cannot write the cache %s\n", path.c_str ());
      else
        std::printf ("cached in %s\n", path.c_str ());
    }
    if (!options.json_path.empty () &&
        !g_file_set_contents (options.json_path.c_str (), json.c_str (), -1, nullptr)) {
      std::fprintf (stderr, "cannot write %s\n", options.json_path.c_str ());
      return 1;
    }
  } catch (const cl::Error & e) {
    std::fprintf (stderr, "OpenCL error %d in %s\n", e.err (), e.what ());
    return 1;
  } catch (const std::exception & e) {
    std::fprintf (stderr, "%s\n", e.what ());
    return 1;
  }
  return 0;
}
