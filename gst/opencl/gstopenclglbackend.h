/* gst-opencl: what the GL interop's backends share (gstopenclglexternal.cpp: external memory;
 * gstopenclglsharing.cpp: cl_khr_gl_sharing): the interface the GL interop drives them by, the
 * GL enums and driver functions they need, and the small helpers of both. Private to the GL
 * interop's rooms.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

#include <CL/cl_ext.h>
#include <CL/cl_gl.h>

#include <chrono>
#include <memory>
#include <string>

#include "opencl/gstopenclcontext.h"
#include "opencl/gstopenclframe.h"
#include "opencl/gstopenclmemory.h"
#include "opencl/gstopenclutils.h"

#ifdef HAVE_GL
#include <gst/gl/gl.h>
#include <gst/gl/gstglfuncs.h>
#endif

#define GST_CAT_DEFAULT gst_opencl_debug

namespace gst_opencl {

/* One path of GL frames to the device and back, chosen by GlInterop::configure. */
class GlInteropBackend
{
public:
  virtual ~GlInteropBackend () = default;
#ifdef HAVE_GL
  /* The negotiated frames and the GL context the backend works in. */
  virtual const GstVideoInfo & info () const = 0;
  virtual GstGLContext *gl () const = 0;
#endif
  /* `texture`: the buffer's memory, a texture usable_texture () accepted. */
  virtual bool to_device (GstBuffer * buffer, GstMemory * texture, GstOpenCLFrame * frame) = 0;
  virtual void device_frame (GstOpenCLFrame * frame) = 0;
  virtual bool to_texture (GstBuffer * buffer) = 0;
  virtual void end_frame () = 0;
  /* Whether GL and OpenCL wait for each other on the device (semaphores), not on the host. */
  virtual bool semaphores () const { return false; }
};


#ifdef HAVE_GL

/* GL enums not every header set has. */
constexpr GLenum kPixelPackBuffer = 0x88EB;
constexpr GLenum kPixelUnpackBuffer = 0x88EC;
constexpr GLenum kHandleTypeOpaqueFd = 0x9586;
constexpr GLenum kDedicatedMemoryObject = 0x9581;
constexpr GLenum kNumDeviceUuids = 0x9596;
constexpr GLenum kDeviceUuid = 0x9597;
constexpr GLenum kSyncGpuCommandsComplete = 0x9117;
constexpr GLenum kSyncFlushCommandsBit = 0x00000001;
constexpr GLenum kCopyReadBuffer = 0x8F36;
constexpr GLenum kCopyWriteBuffer = 0x8F37;
constexpr GLenum kTimeElapsed = 0x88BF;
constexpr GLenum kQueryResult = 0x8866;
constexpr GLenum kQueryResultAvailable = 0x8867;

using EnqueueExternalMemObjects = cl_int (CL_API_CALL *) (cl_command_queue, cl_uint,
    const cl_mem *, cl_uint, const cl_event *, cl_event *);
using GetGlContextInfo = cl_int (CL_API_CALL *) (const cl_context_properties *, cl_uint,
    size_t, void *, size_t *);
using CreateEventFromGlSync = cl_event (CL_API_CALL *) (cl_context, void *, cl_int *);

template<typename T> inline T
platform_function (const cl::Device & device, const char *name)
{
  cl_platform_id platform = platform_id (device);
  return reinterpret_cast<T> (clGetExtensionFunctionAddressForPlatform (platform, name));
}

/* Runs `work` on the GL context's thread and waits for it. */
template<typename F> inline void
on_gl_thread (GstGLContext * context, F && work)
{
  struct Call
  {
    F *work;
  } call { &work };
  GST_LOG ("to the GL thread");
  gst_gl_context_thread_add (context, [](GstGLContext * gl, gpointer data) {
        (*static_cast<Call *> (data)->work) (gl);
      }, &call);
  GST_LOG ("back from the GL thread");
}

/* The buffer's texture when the backend can use it from its GL context (2D RGBA8 of the
 * negotiated size, in a context that shares objects with it), else null. */
inline GstMemory *
usable_texture (GstBuffer * buffer, const GstVideoInfo & info, GstGLContext * gl)
{
  GstMemory *memory = sole_memory (buffer);
  const char *why = nullptr;
  if (!memory || !gst_is_gl_memory (memory)) {
    why = "not a GL memory";
  } else {
    auto *gl_memory = reinterpret_cast<GstGLMemory *> (memory);
    GstGLContext *owner = gl_memory->mem.context;
    if (owner != gl && !gst_gl_context_can_share (owner, gl))
      why = "its GL context does not share objects with the element's";
    else if (gst_gl_memory_get_texture_target (gl_memory) != GST_GL_TEXTURE_TARGET_2D)
      why = "not a 2D texture";
    else if (gst_gl_memory_get_texture_format (gl_memory) != GST_GL_RGBA8 &&
        gst_gl_memory_get_texture_format (gl_memory) != GST_GL_RGBA)
      why = "not an 8-bit RGBA texture";
    else if (gst_gl_memory_get_texture_width (gl_memory) != GST_VIDEO_INFO_WIDTH (&info) ||
        gst_gl_memory_get_texture_height (gl_memory) != GST_VIDEO_INFO_HEIGHT (&info))
      why = "a texture of another size than the caps";
  }
  if (why)
    GST_DEBUG ("GL buffer through the host: %s", why);
  return why ? nullptr : memory;
}

/* A GL memory mapped for GL use (its texture id), unmapped on scope exit. */
struct TextureMap
{
  GstMemory *memory = nullptr;
  GstMapInfo info {};
  bool mapped = false;

  TextureMap (GstMemory * mem, GstMapFlags flags) : memory (mem)
  {
    mapped = gst_memory_map (memory, &info, (GstMapFlags) (flags | GST_MAP_GL));
  }
  ~TextureMap ()
  {
    if (mapped)
      gst_memory_unmap (memory, &info);
  }
  guint texture () const { return mapped ? *reinterpret_cast<guint *> (info.data) : 0; }
};

/* Clears GL errors other work on the context left, so that the next GetError is ours. */
inline void
clear_gl_errors (const GstGLFuncs * gl_funcs)
{
  for (int i = 0; i < 16 && gl_funcs->GetError () != GL_NO_ERROR; i++) {
  }
}

/* The tight single-plane layout both backends hand to kernels. */
inline void
tight_frame (const GstVideoInfo & caps_info, const cl::Buffer & buffer, GstOpenCLFrame * frame)
{
  frame->buffer = buffer;
  frame->info = caps_info;
  frame->info.offset[0] = 0;
  frame->info.stride[0] = GST_VIDEO_INFO_WIDTH (&caps_info) * 4;
  frame->info.size = (gsize) frame->info.stride[0] * GST_VIDEO_INFO_HEIGHT (&caps_info);
}

/* Host time of each step of a GL frame, summed over the frames, logged (GST_INFO) when a
 * backend ends: where a GL frame's time goes (docs/memory.md). */
struct GlStepTimes
{
  using Clock = std::chrono::steady_clock;
  enum Step { WaitPrevious, TextureIn, WaitKernels, TextureOut, Count };
  double seconds[Count] = {};
  guint64 frames_in = 0, frames_out = 0;
  /* GL's own time for the copies into shared memory [0] and out of it [1] (GL_TIME_ELAPSED
   * queries), where GL has queries. */
  double gpu_seconds[2] = { 0, 0 };
  guint64 gpu_frames[2] = { 0, 0 };

  static const char *step_name (Step step)
  {
    static const char *names[Count] = { "wait for the previous frame", "texture in",
      "wait for the kernels", "texture out" };
    return names[step];
  }

  /* Adds the time from its making to its end to `step`. Its start and end are logged (LOG
   * level): a stream that stops shows the step it stopped in (tests/gl-soak.sh). */
  struct Scope
  {
    GlStepTimes & times;
    Step step;
    Clock::time_point start = Clock::now ();
    Scope (GlStepTimes & times, Step step) : times (times), step (step)
    {
      GST_LOG ("GL step: %s", step_name (step));
    }
    ~Scope ()
    {
      times.seconds[step] += std::chrono::duration<double> (Clock::now () - start).count ();
      GST_LOG ("GL step done: %s", step_name (step));
    }
  };
  void log (const char *path) const
  {
    if (frames_in == 0 && frames_out == 0)
      return;
    auto per = [](double total, guint64 n) { return n ? total * 1e3 / n : 0.0; };
    GST_INFO ("%s, ms per frame: wait for the previous frame %.3f, texture in %.3f (%"
        G_GUINT64_FORMAT " frames), wait for the kernels %.3f, texture out %.3f (%"
        G_GUINT64_FORMAT " frames)", path, per (seconds[WaitPrevious], frames_in),
        per (seconds[TextureIn], frames_in), frames_in, per (seconds[WaitKernels], frames_out),
        per (seconds[TextureOut], frames_out), frames_out);
    static const char *ways[2] = { "into", "out of" };
    for (int way = 0; way < 2; way++)
      if (gpu_frames[way])
        GST_INFO ("%s: GL time of the copy %s shared memory %.3f ms per frame (%"
            G_GUINT64_FORMAT " frames)", path, ways[way],
            per (gpu_seconds[way], gpu_frames[way]), gpu_frames[way]);
  }
};

/* The backends, made by GlInterop::configure; each throws when the drivers refuse it. */
std::unique_ptr<GlInteropBackend> make_external_memory_backend (Device & device,
    GstGLContext * gl, const GstVideoInfo & info, int cuda_device);
std::unique_ptr<GlInteropBackend> make_khr_gl_sharing_backend (Device & device,
    GstGLContext * gl, const GstVideoInfo & info, bool gl_event);

#endif  /* HAVE_GL */

}  // namespace gst_opencl
