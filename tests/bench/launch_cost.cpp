/* gst-opencl benchmarks: what one kernel launch costs the host on a device, with and without
 * the things an element asks for per frame (a profiling event, argument changes: the same ones,
 * the buffers of a pool in turn, or one kernel per pool buffer bound once), and how fast
 * the device runs back-to-back launches of a trivial 1920x1080 copy. Explains the floor under
 * an element's own time per frame (docs/openclkernel.md, Performance).
 *   bench_launch_cost [--launches N] [--device gpu|cpu]
 * Prints one line per way of launching: host microseconds per launch (median of 20 batches),
 * device microseconds per kernel (profiling events), and wall microseconds per launch when the
 * host only launches (queue drained at the end).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include <CL/cl.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

const char *kSource =
    "__kernel void copy (__global const uint * src, __global uint * dst, int src_stride, "
    "int dst_stride) { int x = get_global_id (0), y = get_global_id (1); "
    "dst[y * (dst_stride / 4) + x] = src[y * (src_stride / 4) + x]; }";

void
check (cl_int status, const char *what)
{
  if (status != CL_SUCCESS) {
    std::fprintf (stderr, "%s failed: %d\n", what, status);
    std::exit (1);
  }
}

double
median (std::vector<double> values)
{
  std::sort (values.begin (), values.end ());
  return values.empty () ? 0 : values[values.size () / 2];
}

}  // namespace

int
main (int argc, char **argv)
{
  int launches = 2000;
  cl_device_type type = CL_DEVICE_TYPE_GPU;
  for (int i = 1; i < argc; i++) {
    if (!std::strcmp (argv[i], "--launches") && i + 1 < argc)
      launches = std::atoi (argv[++i]);
    else if (!std::strcmp (argv[i], "--device") && i + 1 < argc)
      type = std::strcmp (argv[++i], "cpu") ? CL_DEVICE_TYPE_GPU : CL_DEVICE_TYPE_CPU;
  }
  cl_uint platforms = 0;
  clGetPlatformIDs (0, nullptr, &platforms);
  std::vector<cl_platform_id> ids (platforms);
  clGetPlatformIDs (platforms, ids.data (), nullptr);
  cl_device_id device = nullptr;
  for (auto platform : ids)
    if (clGetDeviceIDs (platform, type, 1, &device, nullptr) == CL_SUCCESS)
      break;
  if (!device) {
    std::fprintf (stderr, "no such device\n");
    return 77;
  }
  char name[256] = {};
  clGetDeviceInfo (device, CL_DEVICE_NAME, sizeof name - 1, name, nullptr);
  cl_int status;
  cl_context context = clCreateContext (nullptr, 1, &device, nullptr, nullptr, &status);
  check (status, "clCreateContext");
  cl_program program = clCreateProgramWithSource (context, 1, &kSource, nullptr, &status);
  check (clBuildProgram (program, 1, &device, "", nullptr, nullptr), "clBuildProgram");
  /* kSets kernels of the same program with their own buffers: the pool's frames an element
   * rotates through, each pair bound to one kernel once ("kernels in turn") or to one kernel
   * again before each launch ("arguments rotated"). */
  constexpr int kSets = 4;
  const int width = 1920, height = 1080, stride = width * 4;
  cl_kernel kernels[kSets];
  cl_mem sources[kSets], targets[kSets];
  for (int i = 0; i < kSets; i++) {
    kernels[i] = clCreateKernel (program, "copy", &status);
    check (status, "clCreateKernel");
    sources[i] = clCreateBuffer (context, CL_MEM_READ_WRITE, (size_t) stride * height, nullptr,
        &status);
    targets[i] = clCreateBuffer (context, CL_MEM_READ_WRITE, (size_t) stride * height, nullptr,
        &status);
  }
  cl_kernel kernel = kernels[0];
  cl_mem a = sources[0], b = targets[0];
  const size_t global[2] = { (size_t) width, (size_t) height };

  /* How arguments are given: set once; the same four set before each launch; the buffers of
   * the next set bound before each launch; each set's own kernel launched in turn. */
  enum class Args { Once, Same, Rotated, KernelsInTurn };
  struct Way { const char *name; bool profiling, event; Args args; bool flush; };
  const Way ways[] = {
    { "no profiling, no event", false, false, Args::Once, false },
    { "profiling queue, no event", true, false, Args::Once, false },
    { "profiling queue, event per launch", true, true, Args::Once, false },
    { "profiling queue, event, 4 arguments set", true, true, Args::Same, false },
    { "profiling queue, event, 4 arguments, flush", true, true, Args::Same, true },
    { "profiling queue, no event, 4 arguments set", true, false, Args::Same, false },
    { "no event, arguments rotated over 4 buffer pairs", true, false, Args::Rotated, false },
    { "no event, 4 kernels bound once, in turn", true, false, Args::KernelsInTurn, false },
  };
  std::printf ("device: %s; %d launches of a %dx%d copy per way\n", name, launches, width,
      height);
  std::printf ("%-50s %12s %12s %12s\n", "way", "host us", "device us", "wall us");
  for (const Way & way : ways) {
    cl_command_queue queue = clCreateCommandQueue (context, device,
        way.profiling ? CL_QUEUE_PROFILING_ENABLE : 0, &status);
    check (status, "clCreateCommandQueue");
    cl_int s = stride;
    for (int k = 0; k < kSets; k++) {
      clSetKernelArg (kernels[k], 0, sizeof a, &sources[k]);
      clSetKernelArg (kernels[k], 1, sizeof b, &targets[k]);
      clSetKernelArg (kernels[k], 2, sizeof s, &s);
      clSetKernelArg (kernels[k], 3, sizeof s, &s);
    }
    std::vector<double> batch_us, device_us;
    std::vector<cl_event> events;
    events.reserve (launches);
    const int batch = std::max (1, launches / 20);
    clFinish (queue);
    const auto start = Clock::now ();
    for (int first = 0; first < launches; first += batch) {
      const auto batch_start = Clock::now ();
      for (int i = first; i < std::min (launches, first + batch); i++) {
        cl_kernel launched = kernel;
        if (way.args == Args::Same || way.args == Args::Rotated) {
          const int set = way.args == Args::Rotated ? i % kSets : 0;
          clSetKernelArg (kernel, 0, sizeof a, &sources[set]);
          clSetKernelArg (kernel, 1, sizeof b, &targets[set]);
          clSetKernelArg (kernel, 2, sizeof s, &s);
          clSetKernelArg (kernel, 3, sizeof s, &s);
        } else if (way.args == Args::KernelsInTurn) {
          launched = kernels[i % kSets];
        }
        cl_event event = nullptr;
        check (clEnqueueNDRangeKernel (queue, launched, 2, nullptr, global, nullptr, 0, nullptr,
                way.event ? &event : nullptr), "clEnqueueNDRangeKernel");
        if (way.flush)
          clFlush (queue);
        if (event)
          events.push_back (event);
      }
      const std::chrono::duration<double, std::micro> spent = Clock::now () - batch_start;
      batch_us.push_back (spent.count () / std::min (batch, launches - first));
    }
    clFinish (queue);
    const std::chrono::duration<double, std::micro> wall = Clock::now () - start;
    for (cl_event event : events) {
      cl_ulong begin = 0, end = 0;
      clGetEventProfilingInfo (event, CL_PROFILING_COMMAND_START, sizeof begin, &begin, nullptr);
      clGetEventProfilingInfo (event, CL_PROFILING_COMMAND_END, sizeof end, &end, nullptr);
      device_us.push_back ((end - begin) / 1000.0);
      clReleaseEvent (event);
    }
    std::printf ("%-50s %12.2f %12.2f %12.2f\n", way.name, median (batch_us),
        device_us.empty () ? 0.0 : median (device_us), wall.count () / launches);
    clReleaseCommandQueue (queue);
  }
  for (int k = 0; k < kSets; k++) {
    clReleaseMemObject (sources[k]);
    clReleaseMemObject (targets[k]);
    clReleaseKernel (kernels[k]);
  }
  clReleaseProgram (program);
  clReleaseContext (context);
  return 0;
}
