/* gst-opencl benchmarks: a preloaded library that times the host side of the OpenCL calls a
 * program makes (count and total wall time per entry point), printed to stderr at exit. Used to
 * see where an element's own time per frame goes, and what a program spends making contexts,
 * queues and programs (clCreateContext, clBuildProgram, ...), on machines without a profiler:
 *   LD_PRELOAD=.../cl_call_times.so bench_pipeline --cases kernel-resident ...
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include <CL/cl.h>
#include <dlfcn.h>

#include <cstdio>
#include <ctime>

enum { CALLS = 34 };
static const char *names[CALLS];
static unsigned long long counts[CALLS], total_ns[CALLS];

static unsigned long long
now_ns (void)
{
  struct timespec t;
  clock_gettime (CLOCK_MONOTONIC, &t);
  return (unsigned long long) t.tv_sec * 1000000000ull + (unsigned long long) t.tv_nsec;
}

/* The real entry point: the OpenCL loader is usually opened later, by a plugin, with local
 * symbols, where RTLD_NEXT does not see it. */
static void *
next (int slot, const char *name)
{
  static void *loader;
  names[slot] = name;
  void *real = dlsym (RTLD_NEXT, name);
  if (!real && !loader)
    loader = dlopen ("libOpenCL.so.1", RTLD_NOW | RTLD_GLOBAL);
  return real ? real : dlsym (loader, name);
}

#define TIMED(slot, name, ret, params, args) \
  extern "C" __attribute__((visibility ("default"))) ret CL_API_CALL name params \
  { \
    static ret (CL_API_CALL *real) params; \
    if (!real) \
      real = reinterpret_cast<ret (CL_API_CALL *) params> (next (slot, #name)); \
    unsigned long long start = now_ns (); \
    ret result = real args; \
    total_ns[slot] += now_ns () - start; \
    counts[slot]++; \
    return result; \
  }

TIMED (0, clEnqueueNDRangeKernel, cl_int, (cl_command_queue q, cl_kernel k, cl_uint d,
        const size_t * o, const size_t * g, const size_t * l, cl_uint n, const cl_event * w,
        cl_event * e), (q, k, d, o, g, l, n, w, e))
TIMED (1, clSetKernelArg, cl_int, (cl_kernel k, cl_uint i, size_t s, const void *v),
    (k, i, s, v))
TIMED (2, clGetEventInfo, cl_int, (cl_event e, cl_event_info p, size_t s, void *v, size_t * r),
    (e, p, s, v, r))
TIMED (3, clGetEventProfilingInfo, cl_int, (cl_event e, cl_profiling_info p, size_t s, void *v,
        size_t * r), (e, p, s, v, r))
TIMED (4, clReleaseEvent, cl_int, (cl_event e), (e))
TIMED (5, clRetainEvent, cl_int, (cl_event e), (e))
TIMED (6, clWaitForEvents, cl_int, (cl_uint n, const cl_event * e), (n, e))
TIMED (7, clFinish, cl_int, (cl_command_queue q), (q))
TIMED (8, clFlush, cl_int, (cl_command_queue q), (q))
TIMED (9, clEnqueueMarkerWithWaitList, cl_int, (cl_command_queue q, cl_uint n,
        const cl_event * w, cl_event * e), (q, n, w, e))
TIMED (10, clRetainMemObject, cl_int, (cl_mem m), (m))
TIMED (11, clReleaseMemObject, cl_int, (cl_mem m), (m))
TIMED (12, clGetMemObjectInfo, cl_int, (cl_mem m, cl_mem_info p, size_t s, void *v,
        size_t * r), (m, p, s, v, r))
TIMED (13, clRetainKernel, cl_int, (cl_kernel k), (k))
TIMED (14, clReleaseKernel, cl_int, (cl_kernel k), (k))
TIMED (15, clEnqueueCopyBuffer, cl_int, (cl_command_queue q, cl_mem a, cl_mem b, size_t x,
        size_t y, size_t n, cl_uint c, const cl_event * w, cl_event * e),
    (q, a, b, x, y, n, c, w, e))
TIMED (16, clCreateBuffer, cl_mem, (cl_context c, cl_mem_flags f, size_t s, void *h,
        cl_int * r), (c, f, s, h, r))
TIMED (17, clGetDeviceInfo, cl_int, (cl_device_id d, cl_device_info p, size_t s, void *v,
        size_t * r), (d, p, s, v, r))
TIMED (18, clGetKernelInfo, cl_int, (cl_kernel k, cl_kernel_info p, size_t s, void *v,
        size_t * r), (k, p, s, v, r))
TIMED (19, clRetainCommandQueue, cl_int, (cl_command_queue q), (q))
TIMED (20, clReleaseCommandQueue, cl_int, (cl_command_queue q), (q))
TIMED (21, clGetCommandQueueInfo, cl_int, (cl_command_queue q, cl_command_queue_info p,
        size_t s, void *v, size_t * r), (q, p, s, v, r))
TIMED (22, clEnqueueWriteBuffer, cl_int, (cl_command_queue q, cl_mem m, cl_bool b, size_t o,
        size_t n, const void *h, cl_uint c, const cl_event * w, cl_event * e),
    (q, m, b, o, n, h, c, w, e))
TIMED (23, clEnqueueReadBuffer, cl_int, (cl_command_queue q, cl_mem m, cl_bool b, size_t o,
        size_t n, void *h, cl_uint c, const cl_event * w, cl_event * e),
    (q, m, b, o, n, h, c, w, e))
TIMED (24, clEnqueueBarrierWithWaitList, cl_int, (cl_command_queue q, cl_uint n,
        const cl_event * w, cl_event * e), (q, n, w, e))

TIMED (25, clCreateContext, cl_context, (const cl_context_properties * p, cl_uint n,
        const cl_device_id * d, void (CL_CALLBACK * f) (const char *, const void *, size_t,
            void *), void *u, cl_int * r), (p, n, d, f, u, r))
TIMED (26, clReleaseContext, cl_int, (cl_context c), (c))
TIMED (27, clBuildProgram, cl_int, (cl_program p, cl_uint n, const cl_device_id * d,
        const char *o, void (CL_CALLBACK * f) (cl_program, void *), void *u),
    (p, n, d, o, f, u))
TIMED (28, clCreateProgramWithBinary, cl_program, (cl_context c, cl_uint n,
        const cl_device_id * d, const size_t * l, const unsigned char **b, cl_int * s,
        cl_int * r), (c, n, d, l, b, s, r))
TIMED (29, clCreateProgramWithSource, cl_program, (cl_context c, cl_uint n, const char **t,
        const size_t * l, cl_int * r), (c, n, t, l, r))
TIMED (30, clCreateCommandQueueWithProperties, cl_command_queue, (cl_context c,
        cl_device_id d, const cl_ulong * p, cl_int * r), (c, d, p, r))
TIMED (31, clCreateKernel, cl_kernel, (cl_program p, const char *n, cl_int * r), (p, n, r))
TIMED (32, clGetPlatformIDs, cl_int, (cl_uint n, cl_platform_id * p, cl_uint * r), (n, p, r))
TIMED (33, clGetDeviceIDs, cl_int, (cl_platform_id p, cl_device_type t, cl_uint n,
        cl_device_id * d, cl_uint * r), (p, t, n, d, r))

__attribute__((destructor)) static void
report (void)
{
  fprintf (stderr, "cl_call_times: call, count, total ms, us per call\n");
  for (int i = 0; i < CALLS; i++) {
    if (counts[i])
      fprintf (stderr, "cl_call_times: %-28s %10llu %10.3f %8.3f\n", names[i], counts[i],
          total_ns[i] / 1e6, total_ns[i] / 1e3 / counts[i]);
  }
}
