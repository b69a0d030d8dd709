/* gst-opencl: how RGBA frames in GL textures reach OpenCL kernels and come back.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "opencl/gstopenclglinterop.h"

#include <dlfcn.h>
#include <unistd.h>

#include <CL/cl_ext.h>
#include <CL/cl_gl.h>

#include <chrono>
#include <cstring>
#include <initializer_list>
#include <mutex>

#include "opencl/gstopenclcontext.h"
#include "opencl/gstopenclcuda.h"
#include "opencl/gstopenclelement.h"
#include "opencl/gstopenclenv.h"
#include "opencl/gstopenclgl.h"
#include "opencl/gstopenclglcopy.h"
#include "opencl/gstopenclmemory.h"
#include "opencl/gstopenclstats.h"
#include "opencl/gstopenclutils.h"

#ifdef HAVE_GL
#include <gst/gl/gstglfuncs.h>
#endif
#if defined(HAVE_GL) && GST_GL_HAVE_PLATFORM_EGL
#include <gst/gl/egl/gstgldisplay_egl.h>
#endif

#define GST_CAT_DEFAULT gst_opencl_debug

/* The paths' names: the property's nicks, gl_interop_path_name () and GST_OPENCL_GL_INTEROP. */
static const GEnumValue gl_interop_values[] = {
  { (gint) gst_opencl::GlInteropPath::None, "No frames in GL memory", "none" },
  { (gint) gst_opencl::GlInteropPath::HostCopy,
      "Through system memory (download and upload)", "host-copy" },
  { (gint) gst_opencl::GlInteropPath::ExternalMemory,
      "Device memory imported by OpenCL and GL, copied on the device", "external-memory" },
  { (gint) gst_opencl::GlInteropPath::KhrGlSharing,
      "GL textures wrapped as OpenCL images (cl_khr_gl_sharing)", "khr-gl-sharing" },
  { 0, nullptr, nullptr },
};

GType
gst_opencl_gl_interop_get_type (void)
{
  static GType type = 0;
  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("GstOpenCLGLInterop", gl_interop_values));
  return type;
}

namespace gst_opencl {

std::string
hex_bytes (const unsigned char *bytes, size_t n)
{
  static const char digits[] = "0123456789abcdef";
  std::string text;
  for (size_t i = 0; i < n; i++) {
    text += digits[bytes[i] >> 4];
    text += digits[bytes[i] & 15];
  }
  return text;
}


/* Read from the enum's table without registering the type: programs that link the layer in
 * statically (the tests) load the plugin too, which registers it. */
const char *
gl_interop_path_name (GlInteropPath path)
{
  for (const GEnumValue *value = gl_interop_values; value->value_nick; value++)
    if (value->value == (gint) path)
      return value->value_nick;
  return "?";
}

bool
extension_listed (const std::string & extensions, const char *name)
{
  const size_t length = std::strlen (name);
  if (length == 0)
    return false;
  for (size_t at = extensions.find (name); at != std::string::npos;
      at = extensions.find (name, at + 1)) {
    const bool starts = at == 0 || extensions[at - 1] == ' ';
    const bool ends = at + length == extensions.size () || extensions[at + length] == ' ';
    if (starts && ends)
      return true;
  }
  return false;
}

GlInteropPath
choose_gl_interop (const GlInteropProbe & probe, std::string * reasons,
    GlInteropPath wanted)
{
  std::string why;
  auto refuse = [&](const char *path, const std::string & reason) {
    why += std::string (path) + " not used: " + reason + "\n";
  };
  /* Whether `path` may be taken: asked for, and every condition met; else the first reason it
   * may not is recorded. */
  auto possible = [&](GlInteropPath path,
      std::initializer_list<std::pair<bool, std::string>> conditions) {
    const char *name = gl_interop_path_name (path);
    if (wanted < path) {
      refuse (name, std::string ("GST_OPENCL_GL_INTEROP asks for ") +
          gl_interop_path_name (wanted));
      return false;
    }
    for (const auto & [met, reason] : conditions) {
      if (!met) {
        refuse (name, reason);
        return false;
      }
    }
    return true;
  };

  GlInteropPath chosen = GlInteropPath::HostCopy;
  if (!probe.format_rgba) {
    refuse ("khr-gl-sharing and external-memory", "the frames are not single-plane RGBA");
  } else if (possible (GlInteropPath::KhrGlSharing, {
        { probe.cl_gl_sharing, "the OpenCL device lacks cl_khr_gl_sharing" },
        { probe.gl_platform_egl_or_glx, "the GL context is neither EGL nor GLX" },
        { probe.cl_context_is_gl_bound || probe.cl_can_bind_context,
              "no OpenCL context can be created against the GL context" } })) {
    chosen = GlInteropPath::KhrGlSharing;
  } else if (possible (GlInteropPath::ExternalMemory, {
        { probe.cl_external_memory_fd,
              "the OpenCL device lacks cl_khr_external_memory_opaque_fd" },
        { probe.gl_memory_object_fd, "the GL context lacks GL_EXT_memory_object_fd" },
        { probe.gl_pixel_buffers, "the GL context has no pixel buffer objects" },
        { probe.exporter, "no exporter of device memory: " + (probe.exporter_error.empty () ?
                  std::string ("none found") : probe.exporter_error) },
        { !probe.cl_uuid.empty (),
              "the OpenCL device does not tell its UUID (cl_khr_device_uuid)" },
        { probe.exporter_uuid == probe.cl_uuid,
              "the exporter's device is not the OpenCL device" },
        { probe.gl_uuid.empty () || probe.gl_uuid == probe.cl_uuid,
              "the GL device is not the OpenCL device" } })) {
    chosen = GlInteropPath::ExternalMemory;
  }
  if (reasons)
    *reasons = why;
  return chosen;
}

GlInteropPath
wanted_gl_interop ()
{
  /* The words of GST_OPENCL_GL_INTEROP, in the order of the table's row; a word that is none of
   * them throws. */
  const GlInteropPath paths[] = { GlInteropPath::HostCopy, GlInteropPath::ExternalMemory,
    GlInteropPath::KhrGlSharing };
  const int asked = env::word (env::Variable::GlInterop);
  return asked < 0 ? GlInteropPath::KhrGlSharing : paths[asked];
}

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
};

#ifdef HAVE_GL
namespace {
GstMemory *usable_texture (GstBuffer * buffer, const GstVideoInfo & info, GstGLContext * gl);
}
#endif

/* The buffer's texture when the backend can work on it, else null (then through the host). */
static GstMemory *
backend_texture (GlInteropBackend * backend, GstBuffer * buffer)
{
#ifdef HAVE_GL
  return backend ? usable_texture (buffer, backend->info (), backend->gl ()) : nullptr;
#else
  (void) backend;
  (void) buffer;
  return nullptr;
#endif
}

GlInterop::GlInterop () = default;
GlInterop::~GlInterop () = default;

void
GlInterop::reset ()
{
  backend_.reset ();
  path_ = GlInteropPath::None;
}

bool
GlInterop::to_device (GstBuffer * buffer, GstOpenCLFrame * frame)
{
  GstMemory *texture = backend_texture (backend_.get (), buffer);
  return texture && backend_->to_device (buffer, texture, frame);
}

bool
GlInterop::device_frame (GstBuffer * buffer, GstOpenCLFrame * frame)
{
  if (!backend_texture (backend_.get (), buffer))
    return false;
  backend_->device_frame (frame);
  return true;
}

bool
GlInterop::to_texture (GstBuffer * buffer)
{
  return backend_ && backend_->to_texture (buffer);
}

void
GlInterop::end_frame ()
{
  if (backend_)
    backend_->end_frame ();
}

#ifdef HAVE_GL

namespace {

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

using EnqueueExternalMemObjects = cl_int (CL_API_CALL *) (cl_command_queue, cl_uint,
    const cl_mem *, cl_uint, const cl_event *, cl_event *);
using GetGlContextInfo = cl_int (CL_API_CALL *) (const cl_context_properties *, cl_uint,
    size_t, void *, size_t *);
using CreateEventFromGlSync = cl_event (CL_API_CALL *) (cl_context, void *, cl_int *);

template<typename T> T
platform_function (const cl::Device & device, const char *name)
{
  cl_platform_id platform = platform_id (device);
  return reinterpret_cast<T> (clGetExtensionFunctionAddressForPlatform (platform, name));
}

/* Runs `work` on the GL context's thread and waits for it. */
template<typename F> void
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
GstMemory *
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
void
clear_gl_errors (const GstGLFuncs * gl_funcs)
{
  for (int i = 0; i < 16 && gl_funcs->GetError () != GL_NO_ERROR; i++) {
  }
}

/* The tight single-plane layout both backends hand to kernels. */
void
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
  /* GL's own time for the copies into shared memory (a GL_TIME_ELAPSED query), where GL has
   * queries. */
  double gpu_in_seconds = 0;
  guint64 gpu_in_frames = 0;

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
    if (gpu_in_frames)
      GST_INFO ("%s: GL time of the copy into shared memory %.3f ms per frame (%"
          G_GUINT64_FORMAT " frames)", path, per (gpu_in_seconds, gpu_in_frames),
          gpu_in_frames);
  }
};

/* ---- external-memory ---------------------------------------------------------------- */
class ExternalMemoryBackend : public GlInteropBackend
{
public:
  ExternalMemoryBackend (Device & device, GstGLContext * gl, const GstVideoInfo & info,
      int cuda_device) : device_ (device), gl_ (GST_GL_CONTEXT (gst_object_ref (gl))),
      info_ (info)
  {
    bytes_ = (size_t) GST_VIDEO_INFO_WIDTH (&info) * GST_VIDEO_INFO_HEIGHT (&info) * 4;
    std::string error;
    if (!cuda_allocate_exportable (cuda_device, bytes_, &allocation_, &error))
      throw Failure (Failure::Kind::Failed, error);
    const size_t allocated = allocation_.bytes;
    const int fd = allocation_.fd;
    allocation_.fd = -1;
    cl_fd_ = dup (fd);
    int gl_fd = dup (fd);
    close (fd);
    try {
      buffer_ = import_external_memory (device, cl_fd_, allocated);
    } catch (...) {
      close (gl_fd);
      throw;
    }
    acquire_ = platform_function<EnqueueExternalMemObjects> (device.device,
        "clEnqueueAcquireExternalMemObjectsKHR");
    release_ = platform_function<EnqueueExternalMemObjects> (device.device,
        "clEnqueueReleaseExternalMemObjectsKHR");

    std::string gl_error;
    on_gl_thread (gl_, [&](GstGLContext * context) {
          const GstGLFuncs *gl_funcs = context->gl_vtable;
          auto create_objects = reinterpret_cast<void (*) (GLsizei, GLuint *)> (
              gst_gl_context_get_proc_address (context, "glCreateMemoryObjectsEXT"));
          auto import_fd = reinterpret_cast<void (*) (GLuint, GLuint64, GLenum, GLint)> (
              gst_gl_context_get_proc_address (context, "glImportMemoryFdEXT"));
          auto storage = reinterpret_cast<void (*) (GLenum, GLsizeiptr, GLuint, GLuint64)> (
              gst_gl_context_get_proc_address (context, "glBufferStorageMemEXT"));
          delete_objects_ = reinterpret_cast<void (*) (GLsizei, const GLuint *)> (
              gst_gl_context_get_proc_address (context, "glDeleteMemoryObjectsEXT"));
          if (!create_objects || !import_fd || !storage || !delete_objects_) {
            gl_error = "the GL memory object functions are missing";
            close (gl_fd);
            return;
          }
          clear_gl_errors (gl_funcs);
          create_objects (1, &memory_object_);
          /* The exported allocation is imported as a dedicated memory object: imported without
           * that flag, what NVIDIA's GL wrote into it (pixel packs, buffer copies) was not what
           * OpenCL read there (measured on an H100; docs/memory.md), though OpenCL's writes
           * reached GL. */
          auto parameter = reinterpret_cast<void (*) (GLuint, GLenum, const GLint *)> (
              gst_gl_context_get_proc_address (context, "glMemoryObjectParameterivEXT"));
          const GLint dedicated = 1;
          if (parameter)
            parameter (memory_object_, kDedicatedMemoryObject, &dedicated);
          import_fd (memory_object_, allocated, kHandleTypeOpaqueFd, gl_fd);  /* GL owns gl_fd */
          gl_funcs->GenBuffers (1, &gl_buffer_);
          gl_funcs->BindBuffer (kPixelPackBuffer, gl_buffer_);
          storage (kPixelPackBuffer, (GLsizeiptr) allocated, memory_object_, 0);
          gl_funcs->BindBuffer (kPixelPackBuffer, 0);
          gl_funcs->GenFramebuffers (1, &framebuffer_);
          GLenum error = gl_funcs->GetError ();
          if (error != GL_NO_ERROR) {
            gl_error = "GL cannot import the exported memory (GL error " +
                std::to_string (error) + ")";
            return;
          }
          /* Frames cross by compute shaders where GL has them (GST_OPENCL_GL_COPY=pixels:
           * by pixel buffers, for comparisons). */
          std::string why_not = "GST_OPENCL_GL_COPY=pixels";
          const int copy_mode = env::word (env::Variable::GlCopy);  /* pixels, staged */
          if (copy_mode == 0 || !copy_.init (context, &why_not))
            GST_INFO ("external-memory: frames copied by pixel buffers (%s)", why_not.c_str ());
          if (copy_.ready () && copy_mode == 1 &&
              gl_funcs->CopyBufferSubData) {
            gl_funcs->GenBuffers (1, &staging_buffer_);
            gl_funcs->BindBuffer (kCopyWriteBuffer, staging_buffer_);
            gl_funcs->BufferData (kCopyWriteBuffer, (GLsizeiptr) bytes_, nullptr,
                GL_DYNAMIC_COPY);
            gl_funcs->BindBuffer (kCopyWriteBuffer, 0);
          }
          if (gl_funcs->GenQueries && gl_funcs->BeginQuery && gl_funcs->GetQueryObjectui64v &&
              gst_gl_context_check_gl_version (context, (GstGLAPI) (GST_GL_API_OPENGL |
                      GST_GL_API_OPENGL3), 3, 3))
            gl_funcs->GenQueries (1, &gpu_timer_);
          clear_gl_errors (gl_funcs);
        });
    if (!gl_error.empty ())
      throw Failure (Failure::Kind::Failed, gl_error);
    GST_INFO ("external-memory: %zu bytes shared by OpenCL and GL (acquire/release %s)",
        allocated, acquire_ && release_ ? "available" : "not offered");
  }

  ~ExternalMemoryBackend () override
  {
    times_.log ("external-memory");
    try {
      wait_previous ();
    } catch (...) {
    }
    if (gl_buffer_ || memory_object_ || framebuffer_) {
      on_gl_thread (gl_, [&](GstGLContext * context) {
            const GstGLFuncs *gl_funcs = context->gl_vtable;
            copy_.clear (context);
            if (staging_buffer_)
              gl_funcs->DeleteBuffers (1, &staging_buffer_);
            if (gpu_timer_)
              gl_funcs->DeleteQueries (1, &gpu_timer_);
            if (framebuffer_)
              gl_funcs->DeleteFramebuffers (1, &framebuffer_);
            if (gl_buffer_)
              gl_funcs->DeleteBuffers (1, &gl_buffer_);
            if (memory_object_ && delete_objects_)
              delete_objects_ (1, &memory_object_);
          });
    }
    buffer_ = cl::Buffer ();
    if (cl_fd_ >= 0)
      close (cl_fd_);
    cuda_release (allocation_);
    gst_object_unref (gl_);
  }

  const GstVideoInfo & info () const override { return info_; }
  GstGLContext *gl () const override { return gl_; }

  bool to_device (GstBuffer * buffer, GstMemory * memory, GstOpenCLFrame * frame) override
  {
    /* The kernels of the previous frame may still read the shared memory. */
    {
      GlStepTimes::Scope timed { times_, GlStepTimes::WaitPrevious };
      wait_previous ();
    }
    times_.frames_in++;
    TextureMap texture (memory, GST_MAP_READ);
    if (!texture.mapped)
      throw Failure (Failure::Kind::Failed, "cannot map the GL texture");
    if (GstGLSyncMeta *sync = gst_buffer_get_gl_sync_meta (buffer))
      gst_gl_sync_meta_wait (sync, gl_);
    const guint id = texture.texture ();
    const gint width = GST_VIDEO_INFO_WIDTH (&info_), height = GST_VIDEO_INFO_HEIGHT (&info_);
    GlStepTimes::Scope timed { times_, GlStepTimes::TextureIn };
    gl_copy ("GL cannot copy the texture into shared memory", [&](const GstGLFuncs * gl_funcs) {
          if (copy_.ready ()) {
            timed_on_gl (gl_funcs, [&] {
                  if (staging_buffer_) {
                    /* GST_OPENCL_GL_COPY=staged: through a buffer of GL's own first. */
                    copy_.texture_to_buffer (gl_, id, staging_buffer_, width, height);
                    gl_funcs->BindBuffer (kCopyReadBuffer, staging_buffer_);
                    gl_funcs->BindBuffer (kCopyWriteBuffer, gl_buffer_);
                    gl_funcs->CopyBufferSubData (kCopyReadBuffer, kCopyWriteBuffer, 0, 0,
                        (GLsizeiptr) bytes_);
                    gl_funcs->BindBuffer (kCopyReadBuffer, 0);
                    gl_funcs->BindBuffer (kCopyWriteBuffer, 0);
                  } else {
                    copy_.texture_to_buffer (gl_, id, gl_buffer_, width, height);
                  }
                });
            return;
          }
          gl_funcs->BindFramebuffer (GL_FRAMEBUFFER, framebuffer_);
          gl_funcs->FramebufferTexture2D (GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D,
              id, 0);
          gl_funcs->BindBuffer (kPixelPackBuffer, gl_buffer_);
          gl_funcs->PixelStorei (GL_PACK_ALIGNMENT, 4);
          gl_funcs->PixelStorei (GL_PACK_ROW_LENGTH, 0);
          gl_funcs->ReadPixels (0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
          gl_funcs->BindBuffer (kPixelPackBuffer, 0);
          gl_funcs->FramebufferTexture2D (GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D,
              0, 0);
          gl_funcs->BindFramebuffer (GL_FRAMEBUFFER, 0);
        });
    acquire ();
    tight_frame (info_, buffer_, frame);
    return true;
  }

  void device_frame (GstOpenCLFrame * frame) override
  {
    wait_previous ();
    acquire ();
    tight_frame (info_, buffer_, frame);
  }

  bool to_texture (GstBuffer * buffer) override
  {
    GstMemory *memory = gst_buffer_peek_memory (buffer, 0);
    end_frame ();
    /* GL reads what the kernels wrote: the host waits for the device (as a download does). */
    {
      GlStepTimes::Scope timed { times_, GlStepTimes::WaitKernels };
      if (last_release_ ())
        last_release_.wait ();
      else
        device_.queue.finish ();
    }
    times_.frames_out++;
    TextureMap texture (memory, GST_MAP_WRITE);
    if (!texture.mapped)
      throw Failure (Failure::Kind::Failed, "cannot map the GL texture for writing");
    const guint id = texture.texture ();
    const gint width = GST_VIDEO_INFO_WIDTH (&info_), height = GST_VIDEO_INFO_HEIGHT (&info_);
    GlStepTimes::Scope timed { times_, GlStepTimes::TextureOut };
    /* Not waited for here: the next frame's kernels wait for it before they write the shared
     * memory again (wait_previous); GL users of the texture come after it on the context, and
     * readers in other contexts wait for the sync point below. */
    gl_copy ("GL cannot copy shared memory into the texture", false,
        [&](const GstGLFuncs * gl_funcs) {
          if (copy_.ready ()) {
            copy_.buffer_to_texture (gl_, gl_buffer_, id, width, height);
            return;
          }
          gl_funcs->BindTexture (GL_TEXTURE_2D, id);
          gl_funcs->BindBuffer (kPixelUnpackBuffer, gl_buffer_);
          gl_funcs->PixelStorei (GL_UNPACK_ALIGNMENT, 4);
          gl_funcs->PixelStorei (GL_UNPACK_ROW_LENGTH, 0);
          gl_funcs->TexSubImage2D (GL_TEXTURE_2D, 0, 0, 0, width, height, GL_RGBA,
              GL_UNSIGNED_BYTE, nullptr);
          gl_funcs->BindBuffer (kPixelUnpackBuffer, 0);
          gl_funcs->BindTexture (GL_TEXTURE_2D, 0);
        });
    if (GstGLSyncMeta *sync = gst_buffer_get_gl_sync_meta (buffer))
      gst_gl_sync_meta_set_sync_point (sync, gl_);
    return true;
  }

  void end_frame () override
  {
    if (!acquired_)
      return;
    acquired_ = false;
    cl_mem memory = buffer_ ();
    if (release_) {
      cl_event event = nullptr;
      cl_int status = release_ (device_.queue (), 1, &memory, 0, nullptr, &event);
      if (status != CL_SUCCESS)
        throw cl::Error (status, "clEnqueueReleaseExternalMemObjectsKHR");
      last_release_ = cl::Event (event);
    } else {
      cl::Event marker;
      device_.queue.enqueueMarkerWithWaitList (nullptr, &marker);
      last_release_ = marker;
    }
  }

private:
  Device & device_;
  GstGLContext *gl_;
  GstVideoInfo info_;
  size_t bytes_ = 0;
  CudaAllocation allocation_;
  int cl_fd_ = -1;
  cl::Buffer buffer_;
  EnqueueExternalMemObjects acquire_ = nullptr;
  EnqueueExternalMemObjects release_ = nullptr;
  bool acquired_ = false;
  cl::Event last_release_;
  GlStepTimes times_;
  GlFrameCopy copy_;
  GLuint staging_buffer_ = 0;    /* GST_OPENCL_GL_COPY=staged */
  GLuint gpu_timer_ = 0;         /* GL_TIME_ELAPSED query of the copy in, where GL has them */
  bool gpu_timer_pending_ = false;

  /* Runs `work` (GL calls) inside the GPU timer; the previous frame's time is collected first
   * (long complete by now: no wait). */
  template<typename F> void timed_on_gl (const GstGLFuncs * gl_funcs, F && work)
  {
    if (!gpu_timer_) {
      work ();
      return;
    }
    if (gpu_timer_pending_) {
      GLuint64 ns = 0;
      gl_funcs->GetQueryObjectui64v (gpu_timer_, kQueryResult, &ns);
      times_.gpu_in_seconds += ns * 1e-9;
      times_.gpu_in_frames++;
    }
    gl_funcs->BeginQuery (kTimeElapsed, gpu_timer_);
    work ();
    gl_funcs->EndQuery (kTimeElapsed);
    gpu_timer_pending_ = true;
  }
  GLsync copy_fence_ = nullptr;  /* after the last copy into a texture, not yet waited for */
  GLuint memory_object_ = 0, gl_buffer_ = 0, framebuffer_ = 0;
  void (*delete_objects_) (GLsizei, const GLuint *) = nullptr;

  void wait_previous ()
  {
    if (acquired_)
      end_frame ();
    if (last_release_ ()) {
      last_release_.wait ();
      last_release_ = cl::Event ();
    }
    if (copy_fence_) {
      on_gl_thread (gl_, [&](GstGLContext * context) {
            const GstGLFuncs *gl_funcs = context->gl_vtable;
            gl_funcs->ClientWaitSync (copy_fence_, kSyncFlushCommandsBit, G_MAXUINT64);
            gl_funcs->DeleteSync (copy_fence_);
          });
      copy_fence_ = nullptr;
    }
  }

  void acquire ()
  {
    if (acquire_) {
      cl_mem memory = buffer_ ();
      cl_int status = acquire_ (device_.queue (), 1, &memory, 0, nullptr, nullptr);
      if (status != CL_SUCCESS)
        throw cl::Error (status, "clEnqueueAcquireExternalMemObjectsKHR");
    }
    acquired_ = true;
  }

  /* The GL copy must be complete before OpenCL touches the memory: a fence waited on by the
   * host where GL has them (the GL thread waits, not the pipeline's other work), else glFinish. */
  static void wait_gl (const GstGLFuncs * gl_funcs)
  {
    if (gl_funcs->FenceSync && gl_funcs->ClientWaitSync && gl_funcs->DeleteSync) {
      GLsync fence = gl_funcs->FenceSync (kSyncGpuCommandsComplete, 0);
      gl_funcs->ClientWaitSync (fence, kSyncFlushCommandsBit, G_MAXUINT64);
      gl_funcs->DeleteSync (fence);
    } else {
      gl_funcs->Finish ();
    }
  }

  /* Runs `copy` (GL calls) on the GL thread and waits until GL has done it; throws `what` with
   * the GL error when there is one. */
  template<typename F> void gl_copy (const char *what, F && copy)
  {
    gl_copy (what, true, copy);
  }

  /* The same; without `wait`, a fence after the copy is kept for wait_previous () instead
   * (where GL has fences). */
  template<typename F> void gl_copy (const char *what, bool wait, F && copy)
  {
    GLenum error = GL_NO_ERROR;
    on_gl_thread (gl_, [&](GstGLContext * context) {
          const GstGLFuncs *gl_funcs = context->gl_vtable;
          clear_gl_errors (gl_funcs);
          copy (gl_funcs);
          if (!wait && gl_funcs->FenceSync && gl_funcs->ClientWaitSync &&
              gl_funcs->DeleteSync) {
            if (copy_fence_)
              gl_funcs->DeleteSync (copy_fence_);  /* a later fence covers it */
            copy_fence_ = gl_funcs->FenceSync (kSyncGpuCommandsComplete, 0);
            gl_funcs->Flush ();
          } else {
            wait_gl (gl_funcs);
          }
          error = gl_funcs->GetError ();
        });
    if (error != GL_NO_ERROR)
      throw Failure (Failure::Kind::Failed, std::string (what) + " (GL error " +
          std::to_string (error) + ")");
  }
};

/* ---- khr-gl-sharing -------------------------------------------------------------------- */
GQuark
image_quark ()
{
  static GQuark quark = g_quark_from_static_string ("gst-opencl-gl-image");
  return quark;
}

struct WrappedTexture
{
  cl_mem image;
  cl_context context;
};

class KhrGlSharingBackend : public GlInteropBackend
{
public:
  KhrGlSharingBackend (Device & device, GstGLContext * gl, const GstVideoInfo & info,
      bool gl_event) : device_ (device), gl_ (GST_GL_CONTEXT (gst_object_ref (gl))),
      info_ (info)
  {
    GstOpenCLFrame frame;
    staging_ = cl::Buffer (device.context, CL_MEM_READ_WRITE,
        (size_t) GST_VIDEO_INFO_WIDTH (&info) * GST_VIDEO_INFO_HEIGHT (&info) * 4);
    if (gl_event)
      create_event_ = platform_function<CreateEventFromGlSync> (device.device,
          "clCreateEventFromGLsyncKHR");
  }

  ~KhrGlSharingBackend () override
  {
    try {
      end_frame ();
      device_.queue.finish ();
    } catch (...) {
    }
    gst_object_unref (gl_);
  }

  const GstVideoInfo & info () const override { return info_; }
  GstGLContext *gl () const override { return gl_; }

  bool to_device (GstBuffer * buffer, GstMemory * memory, GstOpenCLFrame * frame) override
  {
    TextureMap texture (memory, GST_MAP_READ);
    if (!texture.mapped)
      throw Failure (Failure::Kind::Failed, "cannot map the GL texture");
    if (GstGLSyncMeta *sync = gst_buffer_get_gl_sync_meta (buffer))
      gst_gl_sync_meta_wait (sync, gl_);
    cl_mem image = wrap (memory, texture.texture ());
    acquire (image);
    const cl::size_type origin[3] = { 0, 0, 0 };
    const cl::size_type region[3] = { (cl::size_type) GST_VIDEO_INFO_WIDTH (&info_),
      (cl::size_type) GST_VIDEO_INFO_HEIGHT (&info_), 1 };
    cl_int status = clEnqueueCopyImageToBuffer (device_.queue (), image, staging_ (), origin,
        region, 0, 0, nullptr, nullptr);
    if (status != CL_SUCCESS)
      throw cl::Error (status, "clEnqueueCopyImageToBuffer");
    release (image);
    tight_frame (info_, staging_, frame);
    return true;
  }

  void device_frame (GstOpenCLFrame * frame) override
  {
    tight_frame (info_, staging_, frame);
  }

  bool to_texture (GstBuffer * buffer) override
  {
    GstMemory *memory = gst_buffer_peek_memory (buffer, 0);
    TextureMap texture (memory, GST_MAP_WRITE);
    if (!texture.mapped)
      throw Failure (Failure::Kind::Failed, "cannot map the GL texture for writing");
    cl_mem image = wrap (memory, texture.texture ());
    acquire (image);
    const cl::size_type origin[3] = { 0, 0, 0 };
    const cl::size_type region[3] = { (cl::size_type) GST_VIDEO_INFO_WIDTH (&info_),
      (cl::size_type) GST_VIDEO_INFO_HEIGHT (&info_), 1 };
    cl_int status = clEnqueueCopyBufferToImage (device_.queue (), staging_ (), image, 0, origin,
        region, 0, nullptr, nullptr);
    if (status != CL_SUCCESS)
      throw cl::Error (status, "clEnqueueCopyBufferToImage");
    cl_event released = nullptr;
    status = clEnqueueReleaseGLObjects (device_.queue (), 1, &image, 0, nullptr, &released);
    if (status != CL_SUCCESS)
      throw cl::Error (status, "clEnqueueReleaseGLObjects");
    /* GL may use the texture once the release is complete. */
    cl::Event (released).wait ();
    if (GstGLSyncMeta *sync = gst_buffer_get_gl_sync_meta (buffer))
      gst_gl_sync_meta_set_sync_point (sync, gl_);
    return true;
  }

  void end_frame () override
  {
  }

private:
  Device & device_;
  GstGLContext *gl_;
  GstVideoInfo info_;
  cl::Buffer staging_;
  CreateEventFromGlSync create_event_ = nullptr;

  /* The OpenCL image of a texture, made once and kept on the memory (the pool reuses it). */
  cl_mem wrap (GstMemory * memory, guint texture)
  {
    auto *wrapped = static_cast<WrappedTexture *> (gst_mini_object_get_qdata (
            GST_MINI_OBJECT (memory), image_quark ()));
    if (wrapped && wrapped->context == device_.context ())
      return wrapped->image;
    cl_int status = CL_SUCCESS;
    cl_mem image = clCreateFromGLTexture (device_.context (), CL_MEM_READ_WRITE, GL_TEXTURE_2D, 0,
        texture, &status);
    if (status != CL_SUCCESS)
      throw cl::Error (status, "clCreateFromGLTexture");
    wrapped = new WrappedTexture { image, device_.context () };
    gst_mini_object_set_qdata (GST_MINI_OBJECT (memory), image_quark (), wrapped,
        [](gpointer data) {
          auto *done = static_cast<WrappedTexture *> (data);
          clReleaseMemObject (done->image);
          delete done;
        });
    return image;
  }

  /* GL's work on the texture must be done first: a GL fence turned into an OpenCL event
   * (cl_khr_gl_event), else glFinish on the GL thread. */
  void acquire (cl_mem image)
  {
    cl_event gl_done = nullptr;
    on_gl_thread (gl_, [&](GstGLContext * context) {
          const GstGLFuncs *gl_funcs = context->gl_vtable;
          if (create_event_ && gl_funcs->FenceSync) {
            GLsync fence = gl_funcs->FenceSync (kSyncGpuCommandsComplete, 0);
            gl_funcs->Flush ();
            cl_int status = CL_SUCCESS;
            gl_done = create_event_ (device_.context (), fence, &status);
            if (status != CL_SUCCESS) {
              gl_done = nullptr;
              gl_funcs->Finish ();
            }
          } else {
            gl_funcs->Finish ();
          }
        });
    cl_int status = clEnqueueAcquireGLObjects (device_.queue (), 1, &image, gl_done ? 1 : 0,
        gl_done ? &gl_done : nullptr, nullptr);
    if (gl_done)
      clReleaseEvent (gl_done);
    if (status != CL_SUCCESS)
      throw cl::Error (status, "clEnqueueAcquireGLObjects");
  }

  void release (cl_mem image)
  {
    cl_int status = clEnqueueReleaseGLObjects (device_.queue (), 1, &image, 0, nullptr, nullptr);
    if (status != CL_SUCCESS)
      throw cl::Error (status, "clEnqueueReleaseGLObjects");
  }
};

/* Whether the context was created against `gl` (its properties name the GL context). */
bool
context_bound_to (const cl::Context & context, GstGLContext * gl)
{
  auto properties = context.getInfo<CL_CONTEXT_PROPERTIES> ();
  const cl_context_properties handle = (cl_context_properties) gst_gl_context_get_gl_context (gl);
  for (size_t i = 0; i + 1 < properties.size (); i += 2)
    if (properties[i] == CL_GL_CONTEXT_KHR && properties[i + 1] == handle)
      return true;
  return false;
}

}  // namespace

void
probe_cl_device (const cl::Device & device, GlInteropProbe & probe)
{
  const std::string extensions = device.getInfo<CL_DEVICE_EXTENSIONS> ();
  probe.cl_gl_sharing = extension_listed (extensions, "cl_khr_gl_sharing");
  probe.cl_gl_event = extension_listed (extensions, "cl_khr_gl_event");
  probe.cl_external_memory_fd = extension_listed (extensions,
      "cl_khr_external_memory_opaque_fd");
  if (extension_listed (extensions, "cl_khr_device_uuid"))
    probe.cl_uuid = cl_device_uuid (device);
}

void
probe_gl_context (GstGLContext * gl, GlInteropProbe & probe)
{
  const GstGLPlatform platform = gst_gl_context_get_gl_platform (gl);
  probe.gl_platform_egl_or_glx = platform == GST_GL_PLATFORM_EGL ||
      platform == GST_GL_PLATFORM_GLX;
  on_gl_thread (gl, [&](GstGLContext * context) {
        probe.gl_memory_object_fd = gst_gl_context_check_feature (context,
            "GL_EXT_memory_object_fd") && gst_gl_context_check_feature (context,
            "GL_EXT_memory_object");
        probe.gl_pixel_buffers = gst_gl_context_check_gl_version (context,
            (GstGLAPI) (GST_GL_API_OPENGL | GST_GL_API_OPENGL3), 2, 1) ||
            gst_gl_context_check_gl_version (context, GST_GL_API_GLES2, 3, 0);
        if (!probe.gl_memory_object_fd)
          return;
        auto get_uuid = reinterpret_cast<void (*) (GLenum, GLuint, GLubyte *)> (
            gst_gl_context_get_proc_address (context, "glGetUnsignedBytei_vEXT"));
        GLint count = 0;
        context->gl_vtable->GetIntegerv (kNumDeviceUuids, &count);
        if (get_uuid && count == 1) {
          GLubyte uuid[16] = { 0 };
          get_uuid (kDeviceUuid, 0, uuid);
          probe.gl_uuid = hex_bytes (uuid, sizeof uuid);
        }
        while (context->gl_vtable->GetError () != GL_NO_ERROR) {
        }
      });
}

std::vector<cl_context_properties>
gl_sharing_properties (GstGLContext * gl_context, cl_platform_id platform, std::string * why_not)
{
  std::vector<cl_context_properties> properties;
  const GstGLPlatform gl_platform = gst_gl_context_get_gl_platform (gl_context);
  const guintptr handle = gst_gl_context_get_gl_context (gl_context);
  if (!handle) {
    if (why_not)
      *why_not = "the GL context has no native handle";
    return properties;
  }
  GstGLDisplay *display = gst_gl_context_get_display (gl_context);
  guintptr display_handle = 0;
  cl_context_properties display_key = 0;
  if (gl_platform == GST_GL_PLATFORM_GLX) {
    display_key = CL_GLX_DISPLAY_KHR;
    display_handle = display ? gst_gl_display_get_handle (display) : 0;
  } else if (gl_platform == GST_GL_PLATFORM_EGL) {
    display_key = CL_EGL_DISPLAY_KHR;
#if GST_GL_HAVE_PLATFORM_EGL
    if (display) {
      GstGLDisplayEGL *egl = gst_gl_display_egl_from_gl_display (display);
      if (egl) {
        display_handle = gst_gl_display_get_handle (GST_GL_DISPLAY (egl));
        gst_object_unref (egl);
      }
    }
#endif
  } else {
    if (why_not)
      *why_not = "cl_khr_gl_sharing has context properties for EGL and GLX only";
    gst_clear_object (&display);
    return properties;
  }
  gst_clear_object (&display);
  if (!display_handle) {
    if (why_not)
      *why_not = "the GL display has no native handle";
    return properties;
  }
  properties = { CL_GL_CONTEXT_KHR, (cl_context_properties) handle, display_key,
    (cl_context_properties) display_handle, CL_CONTEXT_PLATFORM,
    (cl_context_properties) platform, 0 };
  return properties;
}

GlInteropPath
GlInterop::configure (GstElement * element, ElementDevice & element_device,
    GstGLContext * gl_context, const GstVideoInfo & info)
{
  reset ();
  GlInteropProbe probe;
  GlInteropPath wanted = GlInteropPath::KhrGlSharing;
  bool asked = false;  /* a path asked for by name */
  try {
    asked = env::word (env::Variable::GlInterop) >= 0;
    wanted = wanted_gl_interop ();
  } catch (const Failure & failure) {
    GST_WARNING_OBJECT (element, "%s; ignored", failure.what ());
  }
  int cuda_device = -1;
  std::vector<cl_context_properties> bind_properties;
  try {
    Device & device = element_device.device ();
    probe.format_rgba = GST_VIDEO_INFO_FORMAT (&info) == GST_VIDEO_FORMAT_RGBA &&
        GST_VIDEO_INFO_N_PLANES (&info) == 1;
    probe_cl_device (device.device, probe);
    probe_gl_context (gl_context, probe);
    if (probe.cl_gl_sharing) {
      probe.cl_context_is_gl_bound = context_bound_to (device.context, gl_context);
      if (!probe.cl_context_is_gl_bound) {
        std::string why_not;
        bind_properties = gl_sharing_properties (gl_context,
            platform_id (device.device), &why_not);
        probe.cl_can_bind_context = !bind_properties.empty ();
        if (!why_not.empty ())
          GST_INFO_OBJECT (element, "khr-gl-sharing: %s", why_not.c_str ());
      }
    }
    if (probe.cl_external_memory_fd && probe.gl_memory_object_fd && !probe.cl_uuid.empty ()) {
      cuda_device = cuda_device_for_uuid (probe.cl_uuid, &probe.exporter_uuid,
          &probe.exporter_error);
      probe.exporter = cuda_device >= 0;
    }
  } catch (const std::exception & error) {
    GST_WARNING_OBJECT (element, "probing GL interop failed: %s", error.what ());
  }

  std::string reasons;
  GlInteropPath path = choose_gl_interop (probe, &reasons, wanted);
  if (!reasons.empty ())
    GST_INFO_OBJECT (element, "GL interop: %s", reasons.c_str ());

  try {
    if (path == GlInteropPath::KhrGlSharing) {
      if (!probe.cl_context_is_gl_bound)
        element_device.bind_to_gl (element, bind_properties);
      backend_ = std::make_unique<KhrGlSharingBackend> (element_device.device (), gl_context,
          info, probe.cl_gl_event);
    } else if (path == GlInteropPath::ExternalMemory) {
      backend_ = std::make_unique<ExternalMemoryBackend> (element_device.device (), gl_context,
          info, cuda_device);
    }
  } catch (const std::exception & error) {
    GST_WARNING_OBJECT (element, "GL interop %s could not be set up (%s): host-copy instead",
        gl_interop_path_name (path), error.what ());
    backend_.reset ();
    path = GlInteropPath::HostCopy;
  }
  /* A path asked for by name that cannot be had is said on the bus (unset, the best possible
   * is taken without a word); the reasons go with it. */
  if (asked && path != wanted)
    GST_ELEMENT_WARNING (element, RESOURCE, SETTINGS,
        ("GST_OPENCL_GL_INTEROP=%s is not possible here; using %s",
            gl_interop_path_name (wanted), gl_interop_path_name (path)),
        ("%s", reasons.c_str ()));
  GST_INFO_OBJECT (element, "GL interop path: %s", gl_interop_path_name (path));
  path_ = path;
  return path;
}

#endif  /* HAVE_GL */

bool
configure_gl_interop (GstElement * element, ElementDevice & device, GlBridge & bridge,
    GlInterop * in, const GstVideoInfo * in_info, GlInterop * out, const GstVideoInfo * out_info,
    bool *context_changed)
{
  *context_changed = false;
  GlInteropPath reported = GlInteropPath::None;
#ifdef HAVE_GL
  if (in || out) {
    if (!bridge.ensure_context (element))
      return false;
    GstOpenCLContext *before = device.context ();
    /* The input first: when it binds the context (khr-gl-sharing), the output's backend is
     * made on the bound one. */
    if (in)
      reported = in->configure (element, device, bridge.context (), *in_info);
    if (out) {
      GlInteropPath path = out->configure (element, device, bridge.context (), *out_info);
      if (!in)
        reported = path;
    }
    *context_changed = device.context () != before;
  }
#else
  (void) element;
  (void) bridge;
  (void) in;
  (void) in_info;
  (void) out;
  (void) out_info;
#endif
  device.set_gl_interop ((int) reported);
  return true;
}

}  // namespace gst_opencl
