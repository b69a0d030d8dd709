/* gst-opencl: the external-memory path of the GL interop: one device allocation per direction,
 * exported by CUDA and imported by both GL (GL_EXT_memory_object_fd) and OpenCL
 * (cl_khr_external_memory_opaque_fd); GL copies each texture into it or out of it, the kernels
 * use it in place (gstopenclglinterop.h says how the path is chosen).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "opencl/gstopenclglbackend.h"

#ifdef HAVE_GL

#include <unistd.h>

#include "opencl/gstopenclcudadriver.h"
#include "opencl/gstopenclenv.h"
#include "opencl/gstopenclglcopy.h"
#include "opencl/gstopenclstats.h"

namespace gst_opencl {

namespace {

class ExternalMemoryBackend : public GlInteropBackend
{
public:
  ExternalMemoryBackend (Device & device, GstGLContext * gl, const GstVideoInfo & info,
      int cuda_device) : device_ (device), gl_ (GST_GL_CONTEXT (gst_object_ref (gl))),
      info_ (info)
  {
    bytes_ = (size_t) GST_VIDEO_INFO_WIDTH (&info) * GST_VIDEO_INFO_HEIGHT (&info) * 4;
    const int gl_fd = share_allocation (device, cuda_device);
    const size_t allocated = allocation_.bytes;
    acquire_ = platform_function<EnqueueExternalMemObjects> (device.cl_device,
        "clEnqueueAcquireExternalMemObjectsKHR");
    release_ = platform_function<EnqueueExternalMemObjects> (device.cl_device,
        "clEnqueueReleaseExternalMemObjectsKHR");

    std::string gl_error;
    on_gl_thread (gl_, [&](GstGLContext * context) {
          gl_error = import_into_gl (context, gl_fd, allocated);
          if (gl_error.empty ())
            set_up_gl_copies (context);
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
        wait_event (device_, last_release_, nullptr);
      else
        finish_queue (device_, nullptr);
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
  /* Allocates bytes_ in CUDA, exported, and imports it into OpenCL (buffer_); returns a file
   * descriptor of it for GL, which GL then owns. */
  int share_allocation (Device & device, int cuda_device)
  {
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
    return gl_fd;
  }

  /* On the GL thread: imports the allocation (`gl_fd`, `allocated` bytes) as a GL memory
   * object behind a pixel buffer, and makes the framebuffer of the copies; what went wrong, or
   * "". */
  std::string import_into_gl (GstGLContext * context, int gl_fd, size_t allocated)
  {
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
      close (gl_fd);
      return "the GL memory object functions are missing";
    }
    clear_gl_errors (gl_funcs);
    create_objects (1, &memory_object_);
    /* The exported allocation is imported as a dedicated memory object: imported without that
     * flag, what NVIDIA's GL wrote into it (pixel packs, buffer copies) was not what OpenCL
     * read there (measured on an H100; docs/memory.md), though OpenCL's writes reached GL. */
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
    if (error != GL_NO_ERROR)
      return "GL cannot import the exported memory (GL error " + std::to_string (error) + ")";
    return "";
  }

  /* On the GL thread: how frames cross (compute shaders where GL has them, else pixel
   * buffers; GST_OPENCL_GL_COPY=staged adds a buffer of GL's own), and the GPU timer of the
   * copy in where GL has queries. */
  void set_up_gl_copies (GstGLContext * context)
  {
    const GstGLFuncs *gl_funcs = context->gl_vtable;
    /* Frames cross by compute shaders where GL has them (GST_OPENCL_GL_COPY=pixels: by pixel
     * buffers, for comparisons). */
    std::string why_not = "GST_OPENCL_GL_COPY=pixels";
    const int copy_mode = env::word (env::Variable::GlCopy);  /* pixels, staged */
    if (copy_mode == 0 || !copy_.init (context, &why_not))
      GST_INFO ("external-memory: frames copied by pixel buffers (%s)", why_not.c_str ());
    if (copy_.ready () && copy_mode == 1 &&
        gl_funcs->CopyBufferSubData) {
      gl_funcs->GenBuffers (1, &staging_buffer_);
      gl_funcs->BindBuffer (kCopyWriteBuffer, staging_buffer_);
      gl_funcs->BufferData (kCopyWriteBuffer, (GLsizeiptr) bytes_, nullptr, GL_DYNAMIC_COPY);
      gl_funcs->BindBuffer (kCopyWriteBuffer, 0);
    }
    if (gl_funcs->GenQueries && gl_funcs->BeginQuery && gl_funcs->GetQueryObjectui64v &&
        gst_gl_context_check_gl_version (context, (GstGLAPI) (GST_GL_API_OPENGL |
                GST_GL_API_OPENGL3), 3, 3))
      gl_funcs->GenQueries (1, &gpu_timer_);
    clear_gl_errors (gl_funcs);
  }

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
      wait_event (device_, last_release_, nullptr);
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


}  // namespace

std::unique_ptr<GlInteropBackend>
make_external_memory_backend (Device & device, GstGLContext * gl, const GstVideoInfo & info,
    int cuda_device)
{
  return std::make_unique<ExternalMemoryBackend> (device, gl, info, cuda_device);
}

}  // namespace gst_opencl

#endif  /* HAVE_GL */
