/* gst-opencl: one OpenCL device, context, queue and program cache, shared through GstContext.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "opencl/gstopenclcontext.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <thread>

#include "opencl/gstopenclenv.h"
#include "opencl/gstopenclkernels.h"
#include "opencl/gstopenclutils.h"

#define GST_CAT_DEFAULT gst_opencl_debug

struct _GstOpenCLContext
{
  GstObject parent;
  gst_opencl::Device *device;
  gst_opencl::DeviceSpec spec;  /* what it was created for */
  /* Made without extra context properties (no GL sharing): its device may serve the next
   * context on the same device once this one is let go. */
  bool reusable;
};

G_DEFINE_TYPE (GstOpenCLContext, gst_opencl_context, GST_TYPE_OBJECT);

/* Waits for everything on a device's queues; false (and a warning) when the driver fails it. */
static bool
finish_queues (gst_opencl::Device * device)
{
  try {
    device->upload_queue.finish ();
    device->download_queue.finish ();
    device->queue.finish ();
    return true;
  } catch (const cl::Error & e) {
    GST_WARNING ("finishing the queues of %s failed: %s", device->name.c_str (),
        gst_opencl_error_name (e.err ()));
    return false;
  }
}

/* Finishes a device's queues and releases its programs, queues and context, in that order
 * (members of Device, destroyed in reverse order of declaration). */
static void
release_device (gst_opencl::Device * device)
{
  finish_queues (device);
  device->waits.shut_down ();
  delete device;
}

namespace {

/* Devices whose last context let them go, kept GST_OPENCL_CONTEXT_LINGER seconds for the next
 * context asked for on the same device with the same settings: on NVIDIA's driver creating an
 * OpenCL context takes about a second and releasing one most of another
 * (tests/bench/results/gpu-checks-49), paid by every pipeline that stops and starts again. A
 * helper thread releases what stays unused; at exit nothing is released (the parked devices are
 * left to the process's end, as static storage holds no OpenCL object: docs/reliability.md). */
struct IdleDevices
{
  struct Parked
  {
    gst_opencl::Device *device;
    std::chrono::steady_clock::time_point until;
  };
  std::mutex lock;
  std::condition_variable wake;
  std::vector<Parked> parked;
  bool helper_started = false;
  bool exiting = false;
  int releasing = 0;
};

/* Made once and never destroyed: nothing of it runs after main. */
IdleDevices &
idle_devices ()
{
  static IdleDevices *idle = new IdleDevices ();
  return *idle;
}

/* No device is released once the process exits: a release waits for the one in progress. */
void
stop_releasing_at_exit ()
{
  IdleDevices & idle = idle_devices ();
  std::unique_lock<std::mutex> guard (idle.lock);
  idle.exiting = true;
  idle.wake.notify_all ();
  idle.wake.wait (guard, [&idle] { return idle.releasing == 0; });
}

/* Releases a device taken out of the pool, with the pool's lock let go meanwhile; the exit
 * handler waits for it. */
void
release_outside_lock (IdleDevices & idle, std::unique_lock<std::mutex> & guard,
    gst_opencl::Device * device)
{
  idle.releasing++;
  guard.unlock ();
  release_device (device);
  guard.lock ();
  idle.releasing--;
  idle.wake.notify_all ();
}

/* The helper thread: releases each parked device when its time is up. */
void
release_idle_devices ()
{
  IdleDevices & idle = idle_devices ();
  std::unique_lock<std::mutex> guard (idle.lock);
  while (!idle.exiting) {
    auto now = std::chrono::steady_clock::now ();
    auto due = std::find_if (idle.parked.begin (), idle.parked.end (),
        [now](const IdleDevices::Parked & p) { return p.until <= now; });
    if (due != idle.parked.end ()) {
      gst_opencl::Device *device = due->device;
      idle.parked.erase (due);
      GST_DEBUG ("releasing the unused OpenCL context of %s", device->name.c_str ());
      release_outside_lock (idle, guard, device);
      continue;
    }
    if (idle.parked.empty ())
      idle.wake.wait (guard);
    else
      idle.wake.wait_until (guard, std::min_element (idle.parked.begin (), idle.parked.end (),
              [](const IdleDevices::Parked & a, const IdleDevices::Parked & b) {
                return a.until < b.until;
              })->until);
  }
}

/* Keeps a device that no context holds for the next one; false when it is not kept (lingering
 * off, or the process exiting). Its queues are finished first: a parked device runs nothing. */
bool
park_device (gst_opencl::Device * device)
{
  const guint64 seconds = gst_opencl::env::number (gst_opencl::env::Variable::ContextLinger);
  if (seconds == 0 || !finish_queues (device))
    return false;
  IdleDevices & idle = idle_devices ();
  std::unique_lock<std::mutex> guard (idle.lock);
  if (idle.exiting)
    return false;
  /* One parked device per OpenCL device: the one parked before is released. */
  auto older = std::find_if (idle.parked.begin (), idle.parked.end (),
      [device](const IdleDevices::Parked & p) { return p.device->cl_device () ==
            device->cl_device (); });
  if (older != idle.parked.end ()) {
    gst_opencl::Device *replaced = older->device;
    idle.parked.erase (older);
    release_outside_lock (idle, guard, replaced);
    if (idle.exiting)
      return false;
  }
  if (!idle.helper_started) {
    std::thread (release_idle_devices).detach ();
    std::atexit (stop_releasing_at_exit);
    idle.helper_started = true;
  }
  idle.parked.push_back ({ device,
          std::chrono::steady_clock::now () + std::chrono::seconds (seconds) });
  idle.wake.notify_all ();
  return true;
}

/* A parked device made like `wanted` (same OpenCL device and settings; `wanted` has no queues
 * yet, so whether it would have transfer queues of its own is given), taken out of the pool, or
 * nullptr. */
gst_opencl::Device *
take_parked_device (const gst_opencl::Device & wanted, bool separate_transfers)
{
  IdleDevices & idle = idle_devices ();
  std::lock_guard<std::mutex> guard (idle.lock);
  for (auto it = idle.parked.begin (); it != idle.parked.end (); ++it) {
    const gst_opencl::Device & d = *it->device;
    if (d.cl_device () == wanted.cl_device () && d.max_alloc_bytes == wanted.max_alloc_bytes &&
        d.local_mem_bytes == wanted.local_mem_bytes &&
        d.host_unified_memory == wanted.host_unified_memory &&
        d.separate_transfers () == separate_transfers &&
        (!separate_transfers || d.transfer_order == wanted.transfer_order)) {
      gst_opencl::Device *found = it->device;
      idle.parked.erase (it);
      return found;
    }
  }
  return nullptr;
}

}  // namespace

static void
gst_opencl_context_finalize (GObject * object)
{
  GstOpenCLContext *self = GST_OPENCL_CONTEXT (object);
  GST_DEBUG_OBJECT (self, "releasing %s", self->device ? self->device->name.c_str () : "none");
  /* Here, when the last element, memory or pool lets the context go, and never in a static
   * destructor: the plugin keeps no OpenCL object in static storage (docs/reliability.md).
   * The queue is drained first, so no driver thread works for this context once it is gone. */
  if (self->device && self->device->waits.abandoned ()) {
    /* A command on its queue will not end, and the driver would wait for it before releasing
     * the queue: the device's objects are kept until the process ends (gstopenclwait.h). */
    GST_WARNING_OBJECT (self, "keeping the OpenCL objects of %s until the process ends: %s",
        self->device->name.c_str (), self->device->waits.abandoned_reason ().c_str ());
    self->device = nullptr;
  }
  if (self->device && !(self->reusable && park_device (self->device)))
    release_device (self->device);
  self->spec.~DeviceSpec ();
  G_OBJECT_CLASS (gst_opencl_context_parent_class)->finalize (object);
}

static void
gst_opencl_context_class_init (GstOpenCLContextClass * klass)
{
  G_OBJECT_CLASS (klass)->finalize = gst_opencl_context_finalize;
}

static void
gst_opencl_context_init (GstOpenCLContext * self)
{
  new (&self->spec) gst_opencl::DeviceSpec ();
  self->device = nullptr;
  self->reusable = false;
}

namespace gst_opencl {

cl::Kernel
Device::kernel (const std::string & file, const std::string & kernel_name,
    const std::string & options)
{
  std::string source = kernel_source (file);
  cl::Program program = programs.get (context, cl_device, file, source, options);
  return cl::Kernel (program, kernel_name.c_str ());
}

void
finish_queue (Device & device, const WaitWatch * watch)
{
  cl::Event marker;
  device.queue.enqueueMarkerWithWaitList (nullptr, &marker);
  wait_event (device.waits, marker, watch);
}

}  // namespace gst_opencl

/* What the driver says of a context's errors (clCreateContext's pfn_notify), from any of its
 * threads: NVIDIA's names the cause where the call's error code does not
 * (CL_OUT_OF_RESOURCES). */
static void CL_CALLBACK
driver_notice (const char *text, const void *, size_t, void *)
{
  GST_WARNING ("the OpenCL driver reports: %s", text ? text : "(nothing)");
}

static GstOpenCLContext *
wrap_device (gst_opencl::Device * device, const gst_opencl::DeviceSpec & spec, bool reusable,
    const char *how)
{
  auto *self = GST_OPENCL_CONTEXT (g_object_new (GST_TYPE_OPENCL_CONTEXT, nullptr));
  gst_object_ref_sink (self);
  self->spec = spec;
  self->device = device;
  self->reusable = reusable;
  GST_INFO_OBJECT (self, "%s %s", how, device->name.c_str ());
  return self;
}

GstOpenCLContext *
gst_opencl_context_new (const std::string & device_string,
    const std::vector<cl_context_properties> * properties)
{
  auto spec = gst_opencl::parse_device_spec (device_string);
  if (!spec)
    throw gst_opencl::Failure (gst_opencl::Failure::Kind::Settings,
        "malformed device string \"" + device_string +
        "\": expected gpu, cpu or <platform name>[:<device index>]");

  /* From the choice of the device to its queues: one thread at a time (hold_driver ()). */
  auto held = gst_opencl::hold_driver ();
  auto device = std::make_unique<gst_opencl::Device> ();
  device->cl_device = gst_opencl::select_device (*spec, device_string);
  device->name = gst_opencl::describe_device (device->cl_device);
  device->waits.device_name = device->name;
  device->type = device->cl_device.getInfo<CL_DEVICE_TYPE> ();
  {
    /* Mesa's rusticl answers a running command's status only once it ends (gstopenclwait.h). */
    cl::Platform platform (device->cl_device.getInfo<CL_DEVICE_PLATFORM> ());
    device->waits.status_query_blocks =
        platform.getInfo<CL_PLATFORM_NAME> ().find ("rusticl") != std::string::npos;
  }
  device->max_alloc_bytes = device->cl_device.getInfo<CL_DEVICE_MAX_MEM_ALLOC_SIZE> ();
  /* GST_OPENCL_MAX_ALLOC_BYTES lowers the largest allocation the plugin makes on a device: to
   * keep it from taking a shared GPU's memory, and to let tests meet the "too large" path with
   * frames GStreamer can describe (a GstVideoInfo stops at 2 GiB, below most drivers' limit). */
  using gst_opencl::env::Variable;
  const guint64 limit = gst_opencl::env::number (Variable::MaxAllocBytes);
  if (limit > 0 && limit < device->max_alloc_bytes)
    device->max_alloc_bytes = limit;
  device->max_work_group_size = device->cl_device.getInfo<CL_DEVICE_MAX_WORK_GROUP_SIZE> ();
  device->local_mem_bytes = device->cl_device.getInfo<CL_DEVICE_LOCAL_MEM_SIZE> ();
  /* GST_OPENCL_LOCAL_MEM_BYTES: tests plan a GPU's tiles on a CPU device with its memory. */
  const guint64 local_limit = gst_opencl::env::number (Variable::LocalMemBytes);
  if (local_limit > 0 && local_limit < device->local_mem_bytes)
    device->local_mem_bytes = local_limit;
  device->host_unified_memory = device->cl_device.getInfo<CL_DEVICE_HOST_UNIFIED_MEMORY> () &&
      gst_opencl::env::flag (Variable::ZeroCopy);
  device->base_align_bytes = MAX (device->cl_device.getInfo<CL_DEVICE_MEM_BASE_ADDR_ALIGN> () / 8,
      1u);
  /* The transfer queues' settings, before any queue exists: a parked device must match them. */
  const bool separate_transfers = !device->host_unified_memory &&
      gst_opencl::env::flag (Variable::TransferQueues);
  if (separate_transfers) {
    /* The words of GST_OPENCL_TRANSFER_ORDER, in the order of the table's row. */
    using Order = gst_opencl::Device::TransferOrder;
    const Order orders[] = { Order::Host, Order::Events, Order::HostUpload };
    device->transfer_order = orders[gst_opencl::env::word (Variable::TransferOrder)];
  }
  const bool reusable = !properties || properties->empty ();
  if (reusable) {
    if (gst_opencl::Device *parked = take_parked_device (*device, separate_transfers)) {
      held.unlock ();
      return wrap_device (parked, *spec, true, "took the unused OpenCL context of");
    }
  }
  device->context = cl::Context (device->cl_device,
      properties && !properties->empty () ? properties->data () : nullptr, driver_notice);
  device->queue = cl::CommandQueue (device->context, device->cl_device,
      CL_QUEUE_PROFILING_ENABLE);
  if (separate_transfers) {
    device->upload_queue = cl::CommandQueue (device->context, device->cl_device, 0);
    device->download_queue = cl::CommandQueue (device->context, device->cl_device, 0);
  } else {
    device->upload_queue = device->queue;
    device->download_queue = device->queue;
  }

  held.unlock ();
  return wrap_device (device.release (), *spec, reusable, "created OpenCL context on");
}

gst_opencl::Device &
gst_opencl_context_device (GstOpenCLContext * context)
{
  return *context->device;
}

bool
gst_opencl_context_satisfies (GstOpenCLContext * context, const gst_opencl::DeviceSpec & spec)
{
  using Kind = gst_opencl::DeviceSpec::Kind;
  /* A context whose queue was given up runs nothing any more (gstopenclwait.h). */
  if (context->device->waits.abandoned ())
    return false;
  switch (spec.kind) {
    case Kind::Automatic:
      return true;
    case Kind::Gpu:
      return (context->device->type & CL_DEVICE_TYPE_GPU) != 0;
    case Kind::Cpu:
      return (context->device->type & CL_DEVICE_TYPE_CPU) != 0;
    case Kind::Platform:
      /* Same platform string and index: the selection is deterministic. */
      return context->spec == spec;
  }
  return false;
}

static GstOpenCLContext *
context_from_gst_context (GstContext * context)
{
  if (g_strcmp0 (gst_context_get_context_type (context), GST_OPENCL_CONTEXT_TYPE_STR) != 0)
    return nullptr;
  const GstStructure *s = gst_context_get_structure (context);
  GstOpenCLContext *found = nullptr;
  if (!gst_structure_get (s, "context", GST_TYPE_OPENCL_CONTEXT, &found, nullptr))
    return nullptr;
  return found;  /* a new reference */
}

static GstContext *
gst_context_from_context (GstOpenCLContext * context)
{
  GstContext *wrapped = gst_context_new (GST_OPENCL_CONTEXT_TYPE_STR, TRUE);
  GstStructure *s = gst_context_writable_structure (wrapped);
  gst_structure_set (s, "context", GST_TYPE_OPENCL_CONTEXT, context,
      "device-name", G_TYPE_STRING, context->device->name.c_str (), nullptr);
  return wrapped;
}

void
gst_opencl_handle_set_context (GstElement * element, GstContext * context,
    const gst_opencl::DeviceSpec & spec, GstOpenCLContext ** slot)
{
  GstOpenCLContext *offered = context_from_gst_context (context);
  if (!offered)
    return;
  GST_OBJECT_LOCK (element);
  if (!*slot && gst_opencl_context_satisfies (offered, spec)) {
    GST_DEBUG_OBJECT (element, "using shared OpenCL context on %s",
        offered->device->name.c_str ());
    *slot = offered;
    offered = nullptr;
  }
  GST_OBJECT_UNLOCK (element);
  if (offered)
    gst_object_unref (offered);
}

gboolean
gst_opencl_handle_context_query (GstElement * element, GstQuery * query,
    GstOpenCLContext * context)
{
  const gchar *type = nullptr;
  if (!context || !gst_query_parse_context_type (query, &type) ||
      g_strcmp0 (type, GST_OPENCL_CONTEXT_TYPE_STR) != 0)
    return FALSE;
  GstContext *wrapped = gst_context_from_context (context);
  gst_query_set_context (query, wrapped);
  gst_context_unref (wrapped);
  GST_DEBUG_OBJECT (element, "answered context query with %s", context->device->name.c_str ());
  return TRUE;
}

static gboolean
query_pads (GstElement * element, GstPadDirection direction, GstQuery * query)
{
  GstIterator *pads = direction == GST_PAD_SRC ?
      gst_element_iterate_src_pads (element) : gst_element_iterate_sink_pads (element);
  gboolean answered = FALSE;
  GValue item = G_VALUE_INIT;
  bool done = false;
  while (!done && !answered) {
    switch (gst_iterator_next (pads, &item)) {
      case GST_ITERATOR_OK:
        answered = gst_pad_peer_query (GST_PAD (g_value_get_object (&item)), query);
        g_value_reset (&item);
        break;
      case GST_ITERATOR_RESYNC:
        gst_iterator_resync (pads);
        break;
      default:
        done = true;
        break;
    }
  }
  g_value_unset (&item);
  gst_iterator_free (pads);
  return answered;
}

void
gst_opencl_ensure_element_context (GstElement * element, const std::string & device_string,
    GstOpenCLContext ** slot)
{
  auto spec = gst_opencl::parse_device_spec (device_string);
  if (!spec)
    throw gst_opencl::Failure (gst_opencl::Failure::Kind::Settings,
        "malformed device string \"" + device_string +
        "\": expected gpu, cpu or <platform name>[:<device index>]");

  auto have = [&]() {
    GST_OBJECT_LOCK (element);
    bool present = *slot != nullptr;
    GST_OBJECT_UNLOCK (element);
    return present;
  };
  {
    /* A context set earlier whose queue was given up runs nothing any more. */
    GST_OBJECT_LOCK (element);
    GstOpenCLContext *stale = *slot && (*slot)->device->waits.abandoned () ? *slot : nullptr;
    if (stale)
      *slot = nullptr;
    GST_OBJECT_UNLOCK (element);
    if (stale)
      gst_object_unref (stale);
  }
  if (have ())
    return;

  /* Downstream first, then upstream: neighbours that already run share their context. */
  for (GstPadDirection direction : { GST_PAD_SRC, GST_PAD_SINK }) {
    GstQuery *query = gst_query_new_context (GST_OPENCL_CONTEXT_TYPE_STR);
    if (query_pads (element, direction, query)) {
      GstContext *context = nullptr;
      gst_query_parse_context (query, &context);
      if (context)
        gst_opencl_handle_set_context (element, context, *spec, slot);
    }
    gst_query_unref (query);
    if (have ())
      return;
  }

  /* Then the bin and the application, which may answer synchronously with set_context. */
  gst_element_post_message (element,
      gst_message_new_need_context (GST_OBJECT_CAST (element), GST_OPENCL_CONTEXT_TYPE_STR));
  if (have ())
    return;

  GstOpenCLContext *created = gst_opencl_context_new (device_string);
  GST_OBJECT_LOCK (element);
  if (*slot) {
    GST_OBJECT_UNLOCK (element);
    gst_object_unref (created);
    return;
  }
  *slot = created;
  GST_OBJECT_UNLOCK (element);

  gst_opencl_post_have_context (element, created);
}

void
gst_opencl_post_have_context (GstElement * element, GstOpenCLContext * context)
{
  GstContext *wrapped = gst_context_from_context (context);
  gst_element_set_context (element, wrapped);
  gst_element_post_message (element,
      gst_message_new_have_context (GST_OBJECT_CAST (element), wrapped));
}
