/* gst-opencl: copies between an RGBA8 GL texture and a GL buffer of tight pixels, by compute
 * shaders.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The external-memory GL interop shares a GL buffer with OpenCL; each frame's texture is copied
 * into it and back. glReadPixels into a pixel-pack buffer and glTexSubImage2D from a
 * pixel-unpack buffer do that, but NVIDIA's GL takes 1.9 and 0.9 ms for a 3840x2160 frame there
 * (docs/memory.md); a compute shader reading or writing the texture texel by texel is a plain
 * device copy. The shaders need desktop GL 4.3 (compute shaders, storage buffers, image
 * stores). Bytes are carried exactly: packUnorm4x8 of a texel of an 8-bit texture and an rgba8
 * image store of unpackUnorm4x8 round-trip every byte value. */
#pragma once

#ifdef HAVE_GL

#include <gst/gl/gl.h>
#include <gst/gl/gstglfuncs.h>

#include <string>

namespace gst_opencl {

class GlFrameCopy
{
public:
  GlFrameCopy () = default;
  GlFrameCopy (const GlFrameCopy &) = delete;
  GlFrameCopy & operator= (const GlFrameCopy &) = delete;

  /* Builds the shaders; call on `context`'s GL thread. False, with `why_not` set, where the
   * context cannot run them (then copy with pixel buffers instead). */
  bool init (GstGLContext * context, std::string * why_not);
  /* Deletes the GL objects; on the GL thread of the context init () was called on. */
  void clear (GstGLContext * context);
  bool ready () const { return to_buffer_ != 0; }

  /* Enqueues (on the GL thread, in `context`) the copy of `texture` (2D RGBA8 of width x
   * height) into `buffer` as tight rows, row 0 first, or the reverse. The caller waits for GL
   * (a fence) before another API reads what was written. */
  void texture_to_buffer (GstGLContext * context, guint texture, guint buffer, int width,
      int height) const;
  void buffer_to_texture (GstGLContext * context, guint buffer, guint texture, int width,
      int height) const;

  /* The GL 4.3 entry points GstGLFuncs does not carry. */
  struct Funcs
  {
    void (*dispatch) (GLuint, GLuint, GLuint) = nullptr;
    void (*barrier) (GLbitfield) = nullptr;
    void (*bind_image) (GLuint, GLuint, GLint, GLboolean, GLint, GLenum, GLenum) = nullptr;
    void (*bind_buffer_base) (GLenum, GLuint, GLuint) = nullptr;
    void (*gen_samplers) (GLsizei, GLuint *) = nullptr;
    void (*delete_samplers) (GLsizei, const GLuint *) = nullptr;
    void (*bind_sampler) (GLuint, GLuint) = nullptr;
    void (*sampler_parameter) (GLuint, GLenum, GLint) = nullptr;
  };

private:
  Funcs funcs_;
  guint to_buffer_ = 0;   /* program: texture -> buffer */
  guint to_texture_ = 0;  /* program: buffer -> texture */
  guint sampler_ = 0;     /* nearest texel, whatever the texture's own filters */
};

}  // namespace gst_opencl

#endif
