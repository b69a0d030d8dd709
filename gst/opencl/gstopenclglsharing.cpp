/* gst-opencl: the khr-gl-sharing path of the GL interop: the OpenCL context made against the
 * pipeline's GL context, each texture wrapped once as an OpenCL image (cached on the
 * GstGLMemory), acquired for the kernels and released after, and copied image <-> device
 * buffer on the device (gstopenclglinterop.h says how the path is chosen).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "opencl/gstopenclglbackend.h"

#ifdef HAVE_GL

#include "opencl/gstopenclstats.h"

namespace gst_opencl {

namespace {

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
      create_event_ = platform_function<CreateEventFromGlSync> (device.cl_device,
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
    wait_event (device_, cl::Event (released), nullptr);
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


}  // namespace

std::unique_ptr<GlInteropBackend>
make_khr_gl_sharing_backend (Device & device, GstGLContext * gl, const GstVideoInfo & info,
    bool gl_event)
{
  return std::make_unique<KhrGlSharingBackend> (device, gl, info, gl_event);
}

}  // namespace gst_opencl

#endif  /* HAVE_GL */
