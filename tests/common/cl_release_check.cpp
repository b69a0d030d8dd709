/* gst-opencl tests: an LD_PRELOAD library that watches the program's OpenCL references.
 *
 * It stands between the program and the ICD loader (libOpenCL.so.1) for the calls that create,
 * retain and release contexts, queues, programs, kernels, memory objects and events, counts the
 * program's references to each object it saw created, and reports two kinds of mistakes on
 * stderr, each on a line starting "cl-release-check:":
 *
 *  - an object released after the program let go of its context (its last clReleaseContext):
 *    legal OpenCL (objects keep their context alive), but a release that outlives its owner;
 *  - any release once the program has said it is done (cl_release_check_finish (), called just
 *    before main returns): a release from a static destructor or an atexit handler, when the ICD
 *    loader or a vendor driver may have torn down its own state already.
 *
 * cl_release_check_finish () also prints the objects still referenced: what the program never
 * released. tests/test_exit.cpp preloads it into the process it checks.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
/* The whole API, whatever version the project targets: the 2.0 queue call is wrapped too. */
#undef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>

#include <dlfcn.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <unordered_map>
#include <unordered_set>

namespace {

enum Kind { CONTEXT, QUEUE, PROGRAM, KERNEL, MEMORY, EVENT, KINDS };
const char *const kind_names[KINDS] = { "contexts", "queues", "programs", "kernels",
  "memory objects", "events" };

struct Entry
{
  Kind kind;
  long references;
  cl_context context;
};

std::mutex lock;
/* Heap-allocated and never freed: they must outlive every static destructor that could still
 * call into OpenCL, which is what this library watches for. */
auto &objects = *new std::unordered_map<const void *, Entry> ();
auto &released_contexts = *new std::unordered_set<cl_context> ();
std::atomic<bool> finished { false };
std::atomic<long> after_context { 0 };
std::atomic<long> after_finish { 0 };
std::atomic<long> seen[KINDS];

void
say (const char *text)
{
  /* write (2): no stdio buffers, safe late in exit. */
  ssize_t ignored = write (2, text, std::strlen (text));
  (void) ignored;
}

template<typename F> F
next (F, const char *name)
{
  /* The loader itself, not RTLD_NEXT: a program that does not link it gets it through the
   * plugin, dlopen'ed without RTLD_GLOBAL, where RTLD_NEXT does not look. */
  static void *loader = dlopen ("libOpenCL.so.1", RTLD_NOW);
  void *symbol = loader ? dlsym (loader, name) : nullptr;
  if (!symbol) {
    char text[160];
    std::snprintf (text, sizeof text, "cl-release-check: %s not found in libOpenCL.so.1\n",
        name);
    say (text);
    _exit (99);
  }
  return reinterpret_cast<F> (symbol);
}
#define NEXT(name) next (&name, #name)

void
created (const void *object, Kind kind, cl_context context)
{
  if (!object)
    return;
  seen[kind]++;
  std::lock_guard<std::mutex> guard (lock);
  objects[object] = Entry { kind, 1, context };
  if (kind == CONTEXT)
    released_contexts.erase ((cl_context) object);
  /* CL_RELEASE_CHECK_LIVE=1: the objects alive at each new context (a program that makes
   * contexts over and over shows whether the old ones went). */
  static const bool report_live = getenv ("CL_RELEASE_CHECK_LIVE") != nullptr;
  if (report_live && kind == CONTEXT) {
    long live[KINDS] = { 0 };
    for (const auto & entry : objects)
      live[entry.second.kind]++;
    char text[200];
    std::snprintf (text, sizeof text, "cl-release-check: live at a new context: %ld contexts, "
        "%ld queues, %ld programs, %ld kernels, %ld memory objects, %ld events\n", live[CONTEXT],
        live[QUEUE], live[PROGRAM], live[KERNEL], live[MEMORY], live[EVENT]);
    say (text);
  }
}

void
retained (const void *object)
{
  std::lock_guard<std::mutex> guard (lock);
  auto found = objects.find (object);
  if (found != objects.end ())
    found->second.references++;
}

/* Before the real release: the checks, then the count. */
void
releasing (const void *object, Kind kind, const char *call, cl_context context)
{
  char text[200];
  if (finished.load ()) {
    after_finish++;
    std::snprintf (text, sizeof text,
        "cl-release-check: %s (%p) after the program finished (a static destructor or an "
        "atexit handler)\n", call, object);
    say (text);
  }
  std::lock_guard<std::mutex> guard (lock);
  auto found = objects.find (object);
  if (found != objects.end () && found->second.context)
    context = found->second.context;
  if (kind != CONTEXT && context && released_contexts.count (context)) {
    after_context++;
    std::snprintf (text, sizeof text,
        "cl-release-check: %s (%p) after the program released its context %p\n", call, object,
        (void *) context);
    say (text);
  }
  if (found != objects.end () && --found->second.references <= 0) {
    objects.erase (found);
    if (kind == CONTEXT)
      released_contexts.insert ((cl_context) object);
  }
}

cl_context
context_of_event (cl_event event)
{
  static auto info = NEXT (clGetEventInfo);
  cl_context context = nullptr;
  if (info (event, CL_EVENT_CONTEXT, sizeof context, &context, nullptr) != CL_SUCCESS)
    return nullptr;
  return context;
}

}  // namespace

/* clRetain<Object> passes the call on and counts the reference. */
#define RETAIN(function, type) \
  CL_API_ENTRY cl_int CL_API_CALL function (type object) \
  { \
    static auto real = NEXT (function); \
    retained (object); \
    return real (object); \
  }

/* clRelease<Object> is checked (see releasing ()) before it is passed on. */
#define RELEASE(function, type, kind) \
  CL_API_ENTRY cl_int CL_API_CALL function (type object) \
  { \
    static auto real = NEXT (function); \
    releasing (object, kind, #function, nullptr); \
    return real (object); \
  }

/* Both, for objects whose release needs no context looked up. */
#define RETAIN_AND_RELEASE(Object, type, kind) \
  RETAIN (clRetain##Object, type) \
  RELEASE (clRelease##Object, type, kind)

extern "C" {

/* Called by the checked program just before main returns: prints what is still referenced and
 * flags every later release. Returns the number of problems (live objects and late releases). */
__attribute__((visibility ("default"))) long
cl_release_check_finish (void)
{
  long live[KINDS] = { 0 };
  {
    std::lock_guard<std::mutex> guard (lock);
    for (const auto & item : objects)
      live[item.second.kind]++;
  }
  finished = true;
  char text[600];
  int n = std::snprintf (text, sizeof text, "cl-release-check: at the end of main:");
  long problems = after_context.load () + after_finish.load ();
  /* Events are not counted (every enqueue call makes them), only checked when released. */
  for (int kind = 0; kind < EVENT; kind++) {
    n += std::snprintf (text + n, sizeof text - n, " %ld %s%s", live[kind], kind_names[kind],
        kind + 1 < EVENT ? "," : "");
    problems += live[kind];
  }
  std::snprintf (text + n, sizeof text - n, " still referenced; %ld released after their "
      "context (of %ld contexts, %ld queues, %ld programs, %ld kernels, %ld memory objects "
      "created)\n", after_context.load (), seen[CONTEXT].load (), seen[QUEUE].load (),
      seen[PROGRAM].load (), seen[KERNEL].load (), seen[MEMORY].load ());
  say (text);
  return problems;
}

CL_API_ENTRY cl_context CL_API_CALL
clCreateContext (const cl_context_properties * properties, cl_uint num_devices,
    const cl_device_id * devices, void (CL_CALLBACK * notify) (const char *, const void *,
        size_t, void *), void *user_data, cl_int * errcode_ret)
{
  static auto real = NEXT (clCreateContext);
  cl_context context = real (properties, num_devices, devices, notify, user_data, errcode_ret);
  created (context, CONTEXT, nullptr);
  return context;
}

CL_API_ENTRY cl_context CL_API_CALL
clCreateContextFromType (const cl_context_properties * properties, cl_device_type type,
    void (CL_CALLBACK * notify) (const char *, const void *, size_t, void *), void *user_data,
    cl_int * errcode_ret)
{
  static auto real = NEXT (clCreateContextFromType);
  cl_context context = real (properties, type, notify, user_data, errcode_ret);
  created (context, CONTEXT, nullptr);
  return context;
}

RETAIN_AND_RELEASE (Context, cl_context, CONTEXT)

CL_API_ENTRY cl_command_queue CL_API_CALL
clCreateCommandQueue (cl_context context, cl_device_id device,
    cl_command_queue_properties properties, cl_int * errcode_ret)
{
  static auto real = NEXT (clCreateCommandQueue);
  cl_command_queue queue = real (context, device, properties, errcode_ret);
  created (queue, QUEUE, context);
  return queue;
}

CL_API_ENTRY cl_command_queue CL_API_CALL
clCreateCommandQueueWithProperties (cl_context context, cl_device_id device,
    const cl_queue_properties * properties, cl_int * errcode_ret)
{
  static auto real = NEXT (clCreateCommandQueueWithProperties);
  cl_command_queue queue = real (context, device, properties, errcode_ret);
  created (queue, QUEUE, context);
  return queue;
}

RETAIN_AND_RELEASE (CommandQueue, cl_command_queue, QUEUE)

CL_API_ENTRY cl_program CL_API_CALL
clCreateProgramWithSource (cl_context context, cl_uint count, const char **strings,
    const size_t * lengths, cl_int * errcode_ret)
{
  static auto real = NEXT (clCreateProgramWithSource);
  cl_program program = real (context, count, strings, lengths, errcode_ret);
  created (program, PROGRAM, context);
  return program;
}

CL_API_ENTRY cl_program CL_API_CALL
clCreateProgramWithBinary (cl_context context, cl_uint num_devices,
    const cl_device_id * devices, const size_t * lengths, const unsigned char **binaries,
    cl_int * binary_status, cl_int * errcode_ret)
{
  static auto real = NEXT (clCreateProgramWithBinary);
  cl_program program = real (context, num_devices, devices, lengths, binaries, binary_status,
      errcode_ret);
  created (program, PROGRAM, context);
  return program;
}

RETAIN_AND_RELEASE (Program, cl_program, PROGRAM)

CL_API_ENTRY cl_kernel CL_API_CALL
clCreateKernel (cl_program program, const char *name, cl_int * errcode_ret)
{
  static auto real = NEXT (clCreateKernel);
  cl_kernel kernel = real (program, name, errcode_ret);
  cl_context context = nullptr;
  {
    std::lock_guard<std::mutex> guard (lock);
    auto found = objects.find (program);
    if (found != objects.end ())
      context = found->second.context;
  }
  created (kernel, KERNEL, context);
  return kernel;
}

RETAIN_AND_RELEASE (Kernel, cl_kernel, KERNEL)

CL_API_ENTRY cl_mem CL_API_CALL
clCreateBuffer (cl_context context, cl_mem_flags flags, size_t size, void *host_ptr,
    cl_int * errcode_ret)
{
  static auto real = NEXT (clCreateBuffer);
  cl_mem memory = real (context, flags, size, host_ptr, errcode_ret);
  created (memory, MEMORY, context);
  return memory;
}

CL_API_ENTRY cl_mem CL_API_CALL
clCreateImage (cl_context context, cl_mem_flags flags, const cl_image_format * format,
    const cl_image_desc * desc, void *host_ptr, cl_int * errcode_ret)
{
  static auto real = NEXT (clCreateImage);
  cl_mem memory = real (context, flags, format, desc, host_ptr, errcode_ret);
  created (memory, MEMORY, context);
  return memory;
}

RETAIN (clRetainMemObject, cl_mem)

CL_API_ENTRY cl_int CL_API_CALL
clReleaseMemObject (cl_mem memory)
{
  static auto real = NEXT (clReleaseMemObject);
  static auto info = NEXT (clGetMemObjectInfo);
  cl_context context = nullptr;
  if (info (memory, CL_MEM_CONTEXT, sizeof context, &context, nullptr) != CL_SUCCESS)
    context = nullptr;
  releasing (memory, MEMORY, "clReleaseMemObject", context);
  return real (memory);
}

/* Events are made by every enqueue call: not counted, only checked when released. */
CL_API_ENTRY cl_int CL_API_CALL
clReleaseEvent (cl_event event)
{
  static auto real = NEXT (clReleaseEvent);
  releasing (event, EVENT, "clReleaseEvent", context_of_event (event));
  return real (event);
}

}  // extern "C"
