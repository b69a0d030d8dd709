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
#include "opencl/gstopenclsemaphore.h"
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
    set_up_semaphores ();
  }

  ~ExternalMemoryBackend () override
  {
    times_.log ("external-memory");
    try {
      if (semaphores_) {
        if (acquired_)
          end_frame ();
        drain ();
      } else {
        wait_previous ();
      }
    } catch (...) {
    }
    drop_semaphores ();
    if (gl_buffer_ || memory_object_ || framebuffer_) {
      on_gl_thread (gl_, [&](GstGLContext * context) {
            const GstGLFuncs *gl_funcs = context->gl_vtable;
            copy_.clear (context);
            if (staging_buffer_)
              gl_funcs->DeleteBuffers (1, &staging_buffer_);
            if (gpu_timer_[0])
              gl_funcs->DeleteQueries (2, gpu_timer_);
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
    /* The kernels of the previous frame may still read the shared memory: the host waits for
     * them, or GL's copy waits on the device for the queue's hand-over. */
    {
      GlStepTimes::Scope timed { times_, GlStepTimes::WaitPrevious };
      if (semaphores_)
        before_gl_copy ();
      else
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
    gl_copy ("GL cannot copy the texture into shared memory", !semaphores_,
        [&](const GstGLFuncs * gl_funcs) {
          if (copy_.ready ()) {
            timed_on_gl (gl_funcs, 0, [&] {
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
    if (semaphores_) {
      if (acquired_)
        end_frame ();
    } else {
      wait_previous ();
    }
    acquire ();
    tight_frame (info_, buffer_, frame);
  }

  bool to_texture (GstBuffer * buffer) override
  {
    GstMemory *memory = gst_buffer_peek_memory (buffer, 0);
    end_frame ();
    /* GL reads what the kernels wrote: the host waits for the device (as a download does), or
     * GL's copy waits on the device for the queue's hand-over. */
    if (semaphores_) {
      before_gl_copy ();
    } else {
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
     * memory again (wait_previous, or the hand-over back to the queue); GL users of the texture
     * come after it on the context, and readers in other contexts wait for the sync point
     * below. */
    gl_copy ("GL cannot copy shared memory into the texture", false,
        [&](const GstGLFuncs * gl_funcs) {
          if (copy_.ready ()) {
            timed_on_gl (gl_funcs, 1, [&] {
                  copy_.buffer_to_texture (gl_, gl_buffer_, id, width, height);
                });
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
    if (semaphores_)
      hand_to_gl ();
  }

  bool semaphores () const override { return semaphores_; }

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
      gl_funcs->GenQueries (2, gpu_timer_);
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
  /* GL_TIME_ELAPSED queries of the copy in [0] and out [1], where GL has them. */
  GLuint gpu_timer_[2] = { 0, 0 };
  bool gpu_timer_pending_[2] = { false, false };

  /* Runs `work` (GL calls) inside the GPU timer; the previous frame's time is collected first
   * (complete by now when the host waited for the copy; with semaphores it may not be, and
   * that frame goes untimed rather than waited for). */
  template<typename F> void timed_on_gl (const GstGLFuncs * gl_funcs, int way, F && work)
  {
    const GLuint timer = gpu_timer_[way];
    if (!timer) {
      work ();
      return;
    }
    if (gpu_timer_pending_[way]) {
      GLuint available = 0;
      gl_funcs->GetQueryObjectuiv (timer, kQueryResultAvailable, &available);
      if (!available) {
        work ();
        return;
      }
      GLuint64 ns = 0;
      gl_funcs->GetQueryObjectui64v (timer, kQueryResult, &ns);
      times_.gpu_seconds[way] += ns * 1e-9;
      times_.gpu_frames[way]++;
    }
    gl_funcs->BeginQuery (kTimeElapsed, timer);
    work ();
    gl_funcs->EndQuery (kTimeElapsed);
    gpu_timer_pending_[way] = true;
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
    if (semaphores_)
      take_for_cl ();
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
   * (where GL has fences). With semaphores, neither: the copy waits on the device for the
   * queue's hand-over when there is one, and hands the memory to the queue after it. */
  template<typename F> void gl_copy (const char *what, bool wait, F && copy)
  {
    GLenum error = GL_NO_ERROR;
    on_gl_thread (gl_, [&](GstGLContext * context) {
          const GstGLFuncs *gl_funcs = context->gl_vtable;
          clear_gl_errors (gl_funcs);
          if (semaphores_ && token_ == Token::ToGl)
            gl_wait_ (gl_to_gl_, 1, &gl_buffer_, 0, nullptr, nullptr);
          copy (gl_funcs);
          if (semaphores_) {
            gl_signal_ (gl_to_cl_, 1, &gl_buffer_, 0, nullptr, nullptr);
            gl_funcs->Flush ();
          } else if (!wait && gl_funcs->FenceSync && gl_funcs->ClientWaitSync &&
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
    if (semaphores_)
      token_ = Token::ToCl;
    if (error != GL_NO_ERROR)
      throw Failure (Failure::Kind::Failed, std::string (what) + " (GL error " +
          std::to_string (error) + ")");
  }

  /* Ordering by semaphores (GST_OPENCL_GL_ORDER, docs/memory.md "GL textures"): two binary
   * semaphores, shared by OpenCL and GL, pass the shared memory between them like a token. GL
   * signals `to_cl` after each copy and the queue waits for it before the kernels touch the
   * memory; the queue signals `to_gl` after each frame and GL waits for it before its next
   * copy. The token only goes back once it has arrived, so each semaphore is signalled, then
   * waited for, strictly in turn (a second signal before its wait is lost, and the wait never
   * ends). `token_` is where it is: with nobody yet, on its way to OpenCL (GL signalled),
   * held by the queue, or on its way to GL (the queue signalled). */
  enum class Token { Free, ToCl, ClHeld, ToGl };
  using GlWaitSemaphore = void (*) (GLuint, GLuint, const GLuint *, GLuint, const GLuint *,
      const GLenum *);
  bool semaphores_ = false;
  std::unique_ptr<SharedClSemaphore> to_cl_, to_gl_;
  GLuint gl_to_cl_ = 0, gl_to_gl_ = 0;
  GlWaitSemaphore gl_wait_ = nullptr, gl_signal_ = nullptr;
  void (*gl_delete_semaphores_) (GLsizei, const GLuint *) = nullptr;
  Token token_ = Token::Free;

  void set_up_semaphores ()
  {
    std::string why;
    if (env::word (env::Variable::GlOrder) == 0) {
      why = "GST_OPENCL_GL_ORDER=host";
    } else if (opencl_shares_semaphores (device_.cl_device, &why)) {
      try {
        to_cl_ = std::make_unique<SharedClSemaphore> (device_);
        to_gl_ = std::make_unique<SharedClSemaphore> (device_);
        int fds[2] = { to_cl_->export_fd (), -1 };
        try {
          fds[1] = to_gl_->export_fd ();
        } catch (...) {
          close (fds[0]);
          throw;
        }
        on_gl_thread (gl_, [&](GstGLContext * context) {
              why = import_semaphores (context, fds);
            });
      } catch (const std::exception & error) {
        why = std::string ("the shared semaphores failed: ") + error.what ();
      }
    }
    if (!why.empty ()) {
      GST_INFO ("external-memory: the host orders GL and OpenCL: %s", why.c_str ());
      drop_semaphores ();
      return;
    }
    semaphores_ = true;
    GST_INFO ("external-memory: GL and OpenCL ordered by semaphores made by %s",
        to_cl_->source ());
  }

  /* On the GL thread: imports the two semaphores' descriptors (GL owns them once imported;
   * closed here otherwise); what went wrong, or "". */
  std::string import_semaphores (GstGLContext * context, const int fds[2])
  {
    auto lookup = [context] (const char *name) {
      return gst_gl_context_get_proc_address (context, name);
    };
    auto generate = reinterpret_cast<void (*) (GLsizei, GLuint *)> (
        lookup ("glGenSemaphoresEXT"));
    auto import_fd = reinterpret_cast<void (*) (GLuint, GLenum, GLint)> (
        lookup ("glImportSemaphoreFdEXT"));
    gl_delete_semaphores_ = reinterpret_cast<void (*) (GLsizei, const GLuint *)> (
        lookup ("glDeleteSemaphoresEXT"));
    gl_wait_ = reinterpret_cast<GlWaitSemaphore> (lookup ("glWaitSemaphoreEXT"));
    gl_signal_ = reinterpret_cast<GlWaitSemaphore> (lookup ("glSignalSemaphoreEXT"));
    if (!gst_gl_context_check_feature (context, "GL_EXT_semaphore_fd") || !generate ||
        !import_fd || !gl_delete_semaphores_ || !gl_wait_ || !gl_signal_) {
      close (fds[0]);
      close (fds[1]);
      gl_delete_semaphores_ = nullptr;
      return "GL lacks GL_EXT_semaphore_fd";
    }
    const GstGLFuncs *gl_funcs = context->gl_vtable;
    clear_gl_errors (gl_funcs);
    generate (1, &gl_to_cl_);
    generate (1, &gl_to_gl_);
    import_fd (gl_to_cl_, kHandleTypeOpaqueFd, fds[0]);
    import_fd (gl_to_gl_, kHandleTypeOpaqueFd, fds[1]);
    const GLenum error = gl_funcs->GetError ();
    if (error != GL_NO_ERROR)
      return "GL cannot import the semaphores (GL error " + std::to_string (error) + ")";
    return "";
  }

  void drop_semaphores ()
  {
    if (gl_delete_semaphores_ && (gl_to_cl_ || gl_to_gl_)) {
      on_gl_thread (gl_, [&](GstGLContext *) {
            const GLuint ids[2] = { gl_to_cl_, gl_to_gl_ };
            gl_delete_semaphores_ (2, ids);
          });
    }
    gl_to_cl_ = gl_to_gl_ = 0;
    to_cl_.reset ();
    to_gl_.reset ();
    semaphores_ = false;
    token_ = Token::Free;
  }

  /* Before a GL copy: the token comes towards GL. The frame the queue holds is ended (which
   * hands it on); a token on its way to the queue (a frame read and then written in place)
   * arrives there first and comes back. */
  void before_gl_copy ()
  {
    if (acquired_)
      end_frame ();
    if (semaphores_ && token_ == Token::ToCl) {
      run_ordered ([&] { to_cl_->wait (device_.queue); });
      token_ = Token::ClHeld;
    }
    hand_to_gl ();
  }

  /* Before the queue uses the memory: the token comes to it. A token on its way to GL (frames
   * that ended without a GL copy) arrives there first and comes back. */
  void take_for_cl ()
  {
    if (token_ == Token::ToGl) {
      on_gl_thread (gl_, [&](GstGLContext * context) {
            gl_wait_ (gl_to_gl_, 1, &gl_buffer_, 0, nullptr, nullptr);
            gl_signal_ (gl_to_cl_, 1, &gl_buffer_, 0, nullptr, nullptr);
            context->gl_vtable->Flush ();
          });
      token_ = Token::ToCl;
    }
    if (token_ == Token::ToCl)
      run_ordered ([&] { to_cl_->wait (device_.queue); });
    if (semaphores_)
      token_ = Token::ClHeld;
  }

  /* After the queue's last use of the memory: the token goes to GL once the queue gets there. */
  void hand_to_gl ()
  {
    if (!semaphores_ || token_ != Token::ClHeld)
      return;
    run_ordered ([&] {
          to_gl_->signal (device_.queue);
          device_.queue.flush ();
        });
    if (semaphores_)
      token_ = Token::ToGl;
  }

  /* Runs a semaphore call of the queue; when it fails, everything enqueued is waited for and
   * the host orders from then on, with a warning. */
  template<typename F> void run_ordered (F && call)
  {
    try {
      call ();
    } catch (const std::exception & error) {
      GST_WARNING ("external-memory: semaphores given up, the host orders GL and OpenCL: %s",
          error.what ());
      drain ();
      drop_semaphores ();
    }
  }

  /* Waits until the queue and GL have done everything enqueued. */
  void drain ()
  {
    finish_queue (device_, nullptr);
    on_gl_thread (gl_, [&](GstGLContext * context) {
          context->gl_vtable->Finish ();
        });
    last_release_ = cl::Event ();
    token_ = Token::Free;
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
