/* gst-opencl: the one way frames move between their memory (system, OpenCL, GL, CUDA) and the
 * device.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Every base class and openclupload/opencldownload go through this module; no element maps a
 * frame or enqueues a transfer itself. A frame takes one of five routes:
 *
 *   resident   the buffer holds one GstOpenCLMemory of the element's context (from a pool of the
 *              plugin, under system-memory or OpenCL-memory caps): kernels use it where it is;
 *              the memory itself uploads a newer host copy or makes host maps wait (see
 *              gstopenclmemory.h), so nothing here waits;
 *   gl, cuda   foreign memory (the route table in gstopenclframepath.cpp, one ForeignFrames per
 *              port): the buffer is GL memory and the element's GL interop reaches it on the
 *              device, or CUDA memory, copied by CUDA on the device into (or out of) memory
 *              OpenCL imports (gstopenclcuda.h);
 *   wrapped    any other memory, on a device that works on the host's memory: mapped, and the
 *              mapping wrapped as a device buffer (CL_MEM_USE_HOST_PTR) when it is one piece
 *              aligned for the device, so the kernels use the frame where it is (no copy);
 *   host       any other memory: mapped, and copied into (or out of) a staging buffer of the
 *              port with one transfer per plane at the frame's own strides.
 *
 * Host frames being uploaded stay mapped, and referenced, until their transfer has completed:
 * the port keeps them and lets them go once the device is past them, so the streaming thread
 * never waits for an upload. Only a download into a host buffer waits (the host needs the
 * pixels before the buffer is pushed). */
#pragma once

#include <gst/video/video.h>

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "opencl/gstopenclcuda.h"
#include "opencl/gstopenclelementdevice.h"
#include "opencl/gstopenclforeign.h"
#include "opencl/gstopenclframe.h"
#include "opencl/gstopenclgl.h"

namespace gst_opencl {

enum class FrameRoute { Resident, Gl, Cuda, Wrapped, Host };

class GlInterop;
struct ForeignRoute;

/* What each base keeps for its element's contexts: the OpenCL device ("gst.opencl.context")
 * and the GL and CUDA sides. A GstContext set on the element, and a context query, go to the
 * three in turn. */
struct ElementContexts
{
  ElementDevice device;
  GlBridge gl;
  CudaBridge cuda;

  void set_context (GstElement * element, GstContext * context);
  /* True when one of the three answered the context query. */
  bool handle_context_query (GstElement * element, GstQuery * query);
};

/* The memory a pad's caps negotiated. */
enum class FrameMemory { System, OpenCL, Gl, Cuda };

FrameMemory frame_memory_of (const GstCaps * caps);
const char *frame_memory_name (FrameMemory memory);

enum class FrameAccess { Read, Write, ReadWrite };

/* One pad's side of an element's frame path: the negotiated layout, the foreign frames for caps
 * of GL or CUDA memory (made from the route table, gstopenclframepath.cpp), the staging buffer
 * of host frames and the host frames still being uploaded. Configured at set_caps, reset at
 * stop. */
class FramePort
{
public:
  FramePort ();
  FramePort (const FramePort &) = delete;
  FramePort & operator= (const FramePort &) = delete;
  ~FramePort ();

  /* The negotiated frames of this pad and their memory. Keeps the staging buffer. */
  void configure (const GstVideoInfo * info, FrameMemory memory);
  void configure (const GstVideoInfo * info, bool gl)
  {
    configure (info, gl ? FrameMemory::Gl : FrameMemory::System);
  }
  /* Waits for the uploads in flight, lets their frames go, drops device buffers. */
  /* At stop. `abandoned`: the device's queue was given up (gstopenclwait.h): nothing the port
   * holds on the device is released (forsake ()). */
  void reset (bool abandoned = false);
  /* After the element's context changed: buffers of the old one are dropped. */
  void drop_device_buffers ();

  const GstVideoInfo & info () const { return info_; }
  bool gl () const { return memory_ == FrameMemory::Gl; }
  bool cuda () const { return memory_ == FrameMemory::Cuda; }
  FrameMemory memory () const { return memory_; }
  /* The port's foreign frames (GL or CUDA memory), else null; and the route they take. */
  ForeignFrames *foreign () { return foreign_.get (); }
  FrameRoute foreign_route () const;
  /* The GL interop of a port of GL memory (set up by configure_ports), else null. */
  GlInterop *gl_interop ();

  /* Lets go of the host frames whose upload has completed; with `wait`, waits for all first. */
  void release_uploaded (bool wait);

private:
  friend class FrameTrip;
  friend void copy_frame_in (ElementDevice & device, FramePort & port, GstBuffer * buffer,
      const GstOpenCLFrame & target);
  friend void copy_bytes_in (ElementDevice & device, FramePort & port, GstBuffer * buffer,
      const cl::Buffer & target, gsize bytes);

  struct Upload
  {
    GstVideoFrame frame {};   /* mapped for reading, when `video` */
    GstMapInfo map {};        /* mapped for reading, otherwise */
    GstBuffer *buffer = nullptr;
    bool video = true;
    cl::Event done;
    cl::Buffer wrap;          /* the frame wrapped for the device (wrapped route) */
    Device *device = nullptr; /* whose queue runs `done`, and the element's watch over it */
    const WaitWatch *watch = nullptr;
  };

  void keep_until_uploaded (ElementDevice & device, Upload && upload);
  /* Keeps the host frames still read by the device mapped and referenced for the life of the
   * process: the device's queue was given up while they were in use (gstopenclwait.h). */
  void keep_for_ever ();
  /* Lets go of everything without releasing any of it: the device buffers, the host frames of
   * uploads, their events and the foreign frames, for the life of the process. */
  void forsake ();
  /* The device buffer wrapping `bytes` of host memory at `base` (CL_MEM_USE_HOST_PTR), made
   * once per place: producers reuse their buffers, so wraps are remembered, a few at a time. */
  cl::Buffer wrapped (Device & device, guint8 * base, gsize bytes, cl_mem_flags flags);
  void unmap (Upload & upload);
  const GstOpenCLFrame & staging (ElementDevice & device, gsize bytes, cl_mem_flags flags);

  GstVideoInfo info_ {};
  FrameMemory memory_ = FrameMemory::System;
  const ForeignRoute *route_ = nullptr;  /* the route table's row of memory_, if foreign */
  std::unique_ptr<ForeignFrames> foreign_;
  GstOpenCLFrame staging_;
  gsize staging_bytes_ = 0;
  cl_mem_flags staging_flags_ = 0;
  /* Oldest first; capacity reserved once (a few frames), so nothing is allocated per frame. */
  std::vector<Upload> uploads_;

  struct Wrap
  {
    guint8 *base = nullptr;
    gsize bytes = 0;
    cl_mem_flags flags = 0;
    cl::Buffer buffer;
  };
  static constexpr size_t kWraps = 8;
  std::array<Wrap, kWraps> wraps_ {};
  size_t next_wrap_ = 0;
};

/* An element's two ports, held by its base class: frames in and frames out (in-place elements
 * use only `in`). */
struct FramePorts
{
  FramePort in;
  FramePort out;

  /* At stop, before the element's context goes: the ports' device buffers, foreign frames and
   * uploads in flight belong to it (kept, when `abandoned`). */
  void reset (bool abandoned = false)
  {
    in.reset (abandoned);
    out.reset (abandoned);
  }
};

/* For set_caps, once the ports are configured: refuses ports of CUDA memory where the device
 * is no CUDA device, sets up the GL interop of the ports whose caps are GL memory (`in` and `out` may be null, or the same port for elements working in place),
 * the `gl-interop` property and the `memory` property. When khr-gl-sharing replaced the element's context, the ports'
 * device buffers are dropped and *context_changed set (the caller drops its own). Returns false
 * after posting an element error. */
bool configure_ports (GstElement * element, ElementDevice & device, GlBridge & bridge,
    FramePort * in, FramePort * out, bool *context_changed = nullptr);

/* One frame's visit to the device through a port: the device frame the kernels read or write,
 * and, once they are enqueued, `finish ()` to make the result visible where the buffer lives.
 * A trip that is not finished (an error) waits for the queue before it lets the frame go. */
class FrameTrip
{
public:
  /* Throws Failure (naming the expected and received sizes and the caps) when the buffer cannot
   * be mapped as the port's frames. */
  FrameTrip (ElementDevice & device, FramePort & port, GstBuffer * buffer, FrameAccess access);
  ~FrameTrip ();
  FrameTrip (const FrameTrip &) = delete;
  FrameTrip & operator= (const FrameTrip &) = delete;

  const GstOpenCLFrame & frame () const { return frame_; }
  FrameRoute route () const { return route_; }

  /* The kernels are enqueued. `written`: they wrote the frame, so a GL texture or host buffer
   * gets the result (a host download waits for it). Returns true when the host waited for the
   * device (the frame's work is then complete). */
  bool finish (bool written);

private:
  ElementDevice & device_;
  FramePort & port_;
  GstBuffer *buffer_;
  FrameAccess access_;
  FrameRoute route_ = FrameRoute::Host;
  GstOpenCLFrame frame_;
  GstVideoFrame host_ {};
  bool mapped_ = false;
  ForeignFrames *foreign_ = nullptr;  /* the port's, on the routes of foreign memory */

  /* The wrapped route: wraps the mapped host frame when the device can use it in place. */
  bool wrap_host_frame ();
  bool finished_ = false;
  cl::Event upload_done_;
};

/* Enqueues the copy of `buffer`'s frame (any memory) into `target` (its planes laid out as
 * target.info says); a host frame is kept mapped by the port until the copy has completed. */
void copy_frame_in (ElementDevice & device, FramePort & port, GstBuffer * buffer,
    const GstOpenCLFrame & target);

/* The same for a buffer of `bytes` plain bytes (tensors): it must hold exactly that many. OpenCL
 * memory of the device's context is copied on the device. */
void copy_bytes_in (ElementDevice & device, FramePort & port, GstBuffer * buffer,
    const cl::Buffer & target, gsize bytes);

/* Copies the device frame `source` into `buffer` (any memory): on the device for OpenCL memory
 * of the same context and GL interop, else a read into the mapped host frame, waited for. */
void copy_frame_out (ElementDevice & device, FramePort & port, const GstOpenCLFrame & source,
    GstBuffer * buffer);

/* Copies a frame between two buffers through host maps (memory the device does not reach:
 * OpenCL memory of another context downloads itself when mapped). */
void copy_frame_on_host (FramePort & in_port, GstBuffer * in, FramePort & out_port,
    GstBuffer * out);

/* Copies `bytes` of `source` into `buffer` (tensors): on the device into OpenCL memory of the
 * device's context (not waited for; returns false), else read into the mapped buffer and waited
 * for (returns true). */
bool copy_bytes_out (ElementDevice & device, const cl::Buffer & source, GstBuffer * buffer,
    gsize bytes);

/* Whether `buffer` says that it holds a frame of another format or size than `info`: its
 * GstOpenCLMemory was made for other caps, or its GstVideoMeta describes another frame. Such a
 * frame is one of caps negotiated earlier, still in flight when the caps changed (a pool frame of
 * the old caps that upstream pushes after the new caps event: input-selector does when its active
 * pad changes while the old pad's thread is on its way to push). `why`, when given, says how it
 * differs. Buffers that say nothing (plain memory without a meta) are not judged here: mapping
 * them as a frame of `info` checks their size. */
bool frame_of_other_caps (GstBuffer * buffer, const GstVideoInfo * info, std::string * why);

/* "a buffer of N bytes where <what> needs M (caps ...)": the message of a buffer that does not
 * match its caps. */
std::string size_mismatch (GstBuffer * buffer, gsize expected_bytes, const char *what,
    const GstVideoInfo * info);

}  // namespace gst_opencl
