/* gst-opencl: copies between an RGBA8 GL texture and a GL buffer of tight pixels, by compute
 * shaders.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "opencl/gstopenclglcopy.h"

#ifdef HAVE_GL


#include <type_traits>
#include <vector>

namespace gst_opencl {

namespace {

/* GL enums not every header set has. */
constexpr GLenum kComputeShader = 0x91B9;
constexpr GLenum kShaderStorageBuffer = 0x90D2;
constexpr GLenum kAllBarrierBits = 0xFFFFFFFF;
constexpr GLenum kRgba8 = 0x8058;
constexpr GLenum kWriteOnly = 0x88B9;
constexpr int kGroup = 16;

/* Both shaders: one invocation per pixel; `size` (location 0) is the frame's. */
const char *const kTextureToBuffer = R"(#version 430
layout (local_size_x = 16, local_size_y = 16) in;
layout (binding = 0) uniform sampler2D frame;
layout (std430, binding = 0) writeonly buffer Pixels { uint pixels[]; };
layout (location = 0) uniform ivec2 size;
void main () {
  ivec2 p = ivec2 (gl_GlobalInvocationID.xy);
  if (p.x < size.x && p.y < size.y)
    pixels[p.y * size.x + p.x] = packUnorm4x8 (texelFetch (frame, p, 0));
}
)";

const char *const kBufferToTexture = R"(#version 430
layout (local_size_x = 16, local_size_y = 16) in;
layout (rgba8, binding = 0) writeonly uniform image2D frame;
layout (std430, binding = 0) readonly buffer Pixels { uint pixels[]; };
layout (location = 0) uniform ivec2 size;
void main () {
  ivec2 p = ivec2 (gl_GlobalInvocationID.xy);
  if (p.x < size.x && p.y < size.y)
    imageStore (frame, p, unpackUnorm4x8 (pixels[p.y * size.x + p.x]));
}
)";

/* Fills `funcs` from `context`; whether every one is there. */
bool
load_funcs (GstGLContext * context, GlFrameCopy::Funcs & funcs)
{
  auto get = [context](auto & function, const char *name) {
    function = reinterpret_cast<std::remove_reference_t<decltype (function)>> (
        gst_gl_context_get_proc_address (context, name));
    return function != nullptr;
  };
  /* Every lookup runs (no short circuit), so a partial set is still cleared properly. */
  const bool found[] = {
    get (funcs.dispatch, "glDispatchCompute"), get (funcs.barrier, "glMemoryBarrier"),
    get (funcs.bind_image, "glBindImageTexture"),
    get (funcs.bind_buffer_base, "glBindBufferBase"),
    get (funcs.gen_samplers, "glGenSamplers"), get (funcs.delete_samplers, "glDeleteSamplers"),
    get (funcs.bind_sampler, "glBindSampler"),
    get (funcs.sampler_parameter, "glSamplerParameteri"),
  };
  for (bool one : found)
    if (!one)
      return false;
  return true;
}

/* A linked compute program, or 0 with `error` set. */
GLuint
build_program (const GstGLFuncs * gl, const char *source, std::string * error)
{
  if (!gl->CreateShader || !gl->CreateProgram) {
    *error = "the context has no shader functions";
    return 0;
  }
  GLuint shader = gl->CreateShader (kComputeShader);
  gl->ShaderSource (shader, 1, &source, nullptr);
  gl->CompileShader (shader);
  GLint ok = GL_FALSE;
  gl->GetShaderiv (shader, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    std::vector<char> log (2048, '\0');
    gl->GetShaderInfoLog (shader, (GLsizei) log.size () - 1, nullptr, log.data ());
    *error = std::string ("the copy shader does not compile: ") + log.data ();
    gl->DeleteShader (shader);
    return 0;
  }
  GLuint program = gl->CreateProgram ();
  gl->AttachShader (program, shader);
  gl->LinkProgram (program);
  gl->DeleteShader (shader);
  gl->GetProgramiv (program, GL_LINK_STATUS, &ok);
  if (!ok) {
    std::vector<char> log (2048, '\0');
    gl->GetProgramInfoLog (program, (GLsizei) log.size () - 1, nullptr, log.data ());
    *error = std::string ("the copy shader does not link: ") + log.data ();
    gl->DeleteProgram (program);
    return 0;
  }
  return program;
}

GLuint
groups (int pixels)
{
  return (GLuint) ((pixels + kGroup - 1) / kGroup);
}

}  // namespace

bool
GlFrameCopy::init (GstGLContext * context, std::string * why_not)
{
  clear (context);
  if (gst_gl_context_get_gl_api (context) & GST_GL_API_GLES2 ||
      !gst_gl_context_check_gl_version (context,
          (GstGLAPI) (GST_GL_API_OPENGL | GST_GL_API_OPENGL3), 4, 3)) {
    *why_not = "compute shaders need desktop GL 4.3";
    return false;
  }
  if (!load_funcs (context, funcs_)) {
    *why_not = "the GL 4.3 compute functions are missing";
    return false;
  }
  const GstGLFuncs *gl = context->gl_vtable;
  to_buffer_ = build_program (gl, kTextureToBuffer, why_not);
  to_texture_ = to_buffer_ ? build_program (gl, kBufferToTexture, why_not) : 0;
  if (!to_texture_) {
    clear (context);
    return false;
  }
  funcs_.gen_samplers (1, &sampler_);
  funcs_.sampler_parameter (sampler_, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  funcs_.sampler_parameter (sampler_, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  return true;
}

void
GlFrameCopy::clear (GstGLContext * context)
{
  const GstGLFuncs *gl = context->gl_vtable;
  if (to_buffer_)
    gl->DeleteProgram (to_buffer_);
  if (to_texture_)
    gl->DeleteProgram (to_texture_);
  if (sampler_ && funcs_.delete_samplers)
    funcs_.delete_samplers (1, &sampler_);
  to_buffer_ = to_texture_ = sampler_ = 0;
}

void
GlFrameCopy::texture_to_buffer (GstGLContext * context, guint texture, guint buffer, int width,
    int height) const
{
  const GstGLFuncs *gl = context->gl_vtable;
  gl->UseProgram (to_buffer_);
  gl->ActiveTexture (GL_TEXTURE0);
  gl->BindTexture (GL_TEXTURE_2D, texture);
  funcs_.bind_sampler (0, sampler_);
  funcs_.bind_buffer_base (kShaderStorageBuffer, 0, buffer);
  gl->Uniform2i (0, width, height);
  funcs_.dispatch (groups (width), groups (height), 1);
  funcs_.barrier (kAllBarrierBits);
  funcs_.bind_buffer_base (kShaderStorageBuffer, 0, 0);
  funcs_.bind_sampler (0, 0);
  gl->BindTexture (GL_TEXTURE_2D, 0);
  gl->UseProgram (0);
}

void
GlFrameCopy::buffer_to_texture (GstGLContext * context, guint buffer, guint texture, int width,
    int height) const
{
  const GstGLFuncs *gl = context->gl_vtable;
  gl->UseProgram (to_texture_);
  funcs_.bind_image (0, texture, 0, GL_FALSE, 0, kWriteOnly, kRgba8);
  funcs_.bind_buffer_base (kShaderStorageBuffer, 0, buffer);
  gl->Uniform2i (0, width, height);
  funcs_.dispatch (groups (width), groups (height), 1);
  funcs_.barrier (kAllBarrierBits);
  funcs_.bind_buffer_base (kShaderStorageBuffer, 0, 0);
  funcs_.bind_image (0, 0, 0, GL_FALSE, 0, kWriteOnly, kRgba8);
  gl->UseProgram (0);
}

}  // namespace gst_opencl

#endif
