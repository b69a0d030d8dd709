/* gst-opencl: one OpenCL device, context, queue and program cache, shared through GstContext.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gst/gst.h>
#include <string>
#include <vector>

#include "opencl/gstopencldevice.h"
#include "opencl/gstopenclprogram.h"
#include "opencl/gstopenclwait.h"

G_BEGIN_DECLS

/* The GstContext type elements share their OpenCL context through. */
#define GST_OPENCL_CONTEXT_TYPE_STR "gst.opencl.context"

#define GST_TYPE_OPENCL_CONTEXT (gst_opencl_context_get_type ())
G_DECLARE_FINAL_TYPE (GstOpenCLContext, gst_opencl_context, GST, OPENCL_CONTEXT, GstObject)

G_END_DECLS

namespace gst_opencl {

/* What a GstOpenCLContext holds. Everything is created once; the queue is in order and has
 * profiling on, so kernel times come from events. The order of the members is the order of
 * release backwards: the programs, then the queue, then the context (gst_opencl_context_finalize,
 * the one place they are released). */
struct Device
{
  cl::Device cl_device;
  cl::Context context;
  cl::CommandQueue queue;
  /* Copies between the host copy of OpenCL memory and the device (discrete devices), each
   * direction on its own in-order queue, so that the upload of one frame, the kernels of
   * another and the download of a third run at once. Events order them with `queue`
   * (gstopenclmemory.cpp). On devices that share the host's memory, or with
   * GST_OPENCL_TRANSFER_QUEUES=0, both are `queue` itself. */
  cl::CommandQueue upload_queue;
  cl::CommandQueue download_queue;
  /* How copies on the transfer queues are ordered with the kernels (GST_OPENCL_TRANSFER_ORDER):
   * Host (the default, "host"): a copy is enqueued once the host has seen the device's last
   *   use of the buffer complete (it usually has: that use was frames ago), without a wait
   *   list; kernels wait for an upload by a barrier on `queue`.
   * Events ("events"): by wait lists only; the host never waits.
   * HostUpload ("host-upload"): as Host, and the host waits for an upload before kernels are
   *   enqueued.
   * On NVIDIA's driver a copy with a wait list on another queue blocks the enqueuing thread
   *   and the copies did not overlap; Host let them (docs/memory.md has the figures). */
  enum class TransferOrder { Host, Events, HostUpload };
  TransferOrder transfer_order = TransferOrder::Host;
  std::string name;              /* describe_device () */
  cl_device_type type = 0;
  cl_ulong max_alloc_bytes = 0;
  size_t max_work_group_size = 0;
  cl_ulong local_mem_bytes = 0;
  /* The device works on the host's own memory (CL_DEVICE_HOST_UNIFIED_MEMORY: CPU devices,
   * integrated GPUs): host frames of OpenCL memory are the device buffer mapped, with no copy.
   * GST_OPENCL_ZERO_COPY=0 turns it off (the pinned-copy path of discrete GPUs, for tests). */
  bool host_unified_memory = false;
  /* CL_DEVICE_MEM_BASE_ADDR_ALIGN in bytes: host memory wrapped for the device
   * (CL_MEM_USE_HOST_PTR) starts at a multiple of it, so the device uses it in place. */
  cl_uint base_align_bytes = 1;
  ProgramCache programs;
  /* The host's waits on these queues, and whether one gave them up (gstopenclwait.h). */
  DeviceWaits waits;

  /* Whether copies of OpenCL memory run on their own queues. */
  bool separate_transfers () const { return upload_queue () != queue (); }

  /* A kernel from kernels/<file>.cl built with `options`, from the cache when it can be. */
  cl::Kernel kernel (const std::string & file, const std::string & kernel_name,
      const std::string & options);
};

/* The waits of gstopenclwait.h on a device. */
inline void
wait_event (Device & device, const cl::Event & event, const WaitWatch * watch)
{
  wait_event (device.waits, event, watch);
}

inline void
abandon_device (Device & device, const std::string & reason)
{
  abandon_device (device.waits, reason);
}

/* Waits for every command enqueued so far on the device's kernel queue (a marker), as
 * clFinish does, under the rules of wait_event. */
void finish_queue (Device & device, const WaitWatch * watch);

}  // namespace gst_opencl

/* Creates the context for a device string (see gstopencldevice.h), with extra context
 * `properties` (zero-terminated; cl_khr_gl_sharing) when given. Throws Failure / cl::Error. */
GstOpenCLContext *gst_opencl_context_new (const std::string & device_string,
    const std::vector<cl_context_properties> * properties = nullptr);

gst_opencl::Device & gst_opencl_context_device (GstOpenCLContext * context);

/* Whether a context created for one device string satisfies an element asking for `spec`:
 * automatic accepts any, "gpu"/"cpu" the type, a platform string its platform and index. */
bool gst_opencl_context_satisfies (GstOpenCLContext * context,
    const gst_opencl::DeviceSpec & spec);

/* Context sharing, as GStreamer's GL and CUDA elements do it. */

/* Call from GstElement::set_context: takes the OpenCL context out of `context` when it has one
 * that satisfies `spec` and the element has none yet. `slot` is guarded by the object lock. */
void gst_opencl_handle_set_context (GstElement * element, GstContext * context,
    const gst_opencl::DeviceSpec & spec, GstOpenCLContext ** slot);

/* Call from the query vfuncs: answers a GST_QUERY_CONTEXT for "gst.opencl.context". */
gboolean gst_opencl_handle_context_query (GstElement * element, GstQuery * query,
    GstOpenCLContext * context);

/* Sets `context` on the element and posts have-context for it. */
void gst_opencl_post_have_context (GstElement * element, GstOpenCLContext * context);
/* Makes sure *slot holds a context: asks downstream, then upstream, then the application
 * (need-context); creates one and posts have-context when nobody has one. Throws on failure. */
void gst_opencl_ensure_element_context (GstElement * element, const std::string & device_string,
    GstOpenCLContext ** slot);
