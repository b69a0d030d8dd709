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
 *    from local memory per second.
 * Each figure is the median over --runs launches of the device time from profiling events (after
 * a warm-up launch). The result is cached per device in
 * $XDG_CACHE_HOME/gst-opencl/ceilings/<hash>.json (hash of platform, its version, device and
 * driver); a later run prints the cached figures unless --remeasure. --json PATH writes them too.
 */
#include <gst/gst.h>
#include <glib/gstdio.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "bench_util.h"
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

double
event_ms (const cl::Event & event)
{
  return (double) (event.getProfilingInfo<CL_PROFILING_COMMAND_END> () -
      event.getProfilingInfo<CL_PROFILING_COMMAND_START> ()) * 1e-6;
}

/* Device times of `runs` launches after one warm-up. */
std::vector<double>
time_launches (cl::CommandQueue & queue, const cl::Kernel & kernel, const cl::NDRange & global,
    const cl::NDRange & local, int runs)
{
  std::vector<double> ms;
  for (int r = -1; r < runs; r++) {
    cl::Event event;
    queue.enqueueNDRangeKernel (kernel, cl::NullRange, global, local, nullptr, &event);
    event.wait ();
    if (r >= 0)
      ms.push_back (event_ms (event));
  }
  return ms;
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
  return json;
}

void
usage ()
{
  std::fprintf (stderr, "usage: bench_ceilings [--device gpu|cpu|<platform>[:n]] [--runs N] "
      "[--copy-mib N] [--remeasure] [--json PATH]\n");
}

}  // namespace

int
main (int argc, char **argv)
{
  gst_init (&argc, &argv);
  Options options;
  std::string command = "bench_ceilings";
  for (int i = 1; i < argc; i++) {
    std::string arg = argv[i];
    command += " " + arg;
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        usage ();
        std::exit (2);
      }
      command += std::string (" ") + argv[i + 1];
      return argv[++i];
    };
    if (arg == "--device") {
      options.device = value ();
    } else if (arg == "--runs") {
      auto n = bench::parse_int (value (), 1);
      if (!n) {
        usage ();
        return 2;
      }
      options.runs = *n;
    } else if (arg == "--copy-mib") {
      auto n = bench::parse_int (value (), 1);
      if (!n) {
        usage ();
        return 2;
      }
      options.copy_mib = *n;
    } else if (arg == "--remeasure") {
      options.remeasure = true;
    } else if (arg == "--json") {
      options.json_path = value ();
    } else {
      usage ();
      return 2;
    }
  }

  try {
    auto spec = gst_opencl::parse_device_spec (gst_opencl::effective_device_string (
            options.device));
    if (!spec) {
      std::fprintf (stderr, "bad --device %s\n", options.device.c_str ());
      return 2;
    }
    cl::Device device = gst_opencl::select_device (*spec, options.device);
    cl::Platform platform (device.getInfo<CL_DEVICE_PLATFORM> ());
    const std::string path = cache_path (device);
    std::printf ("device %s, driver %s\n", gst_opencl::describe_device (device).c_str (),
        device.getInfo<CL_DRIVER_VERSION> ().c_str ());

    std::string json;
    gchar *cached = nullptr;
    if (!options.remeasure && g_file_get_contents (path.c_str (), &cached, nullptr, nullptr)) {
      json = cached;
      g_free (cached);
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
