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
#include "opencl/gstopenclcudadriver.h"
#include "opencl/gstopenclelementdevice.h"
#include "opencl/gstopenclenv.h"
#include "opencl/gstopenclgl.h"
#include "opencl/gstopenclglbackend.h"
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

namespace gst_opencl {

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
GlInterop::to_device (ElementDevice &, GstBuffer * buffer, GstOpenCLFrame * frame)
{
  GstMemory *texture = backend_texture (backend_.get (), buffer);
  return texture && backend_->to_device (buffer, texture, frame);
}

bool
GlInterop::device_frame (ElementDevice &, GstBuffer * buffer, GstOpenCLFrame * frame)
{
  if (!backend_texture (backend_.get (), buffer))
    return false;
  backend_->device_frame (frame);
  return true;
}

bool
GlInterop::semaphores () const
{
  return backend_ && backend_->semaphores ();
}

bool
GlInterop::from_device (ElementDevice &, GstBuffer * buffer)
{
  if (!backend_)
    return true;
  backend_->to_texture (buffer);
  return !backend_->semaphores ();
}

void
GlInterop::end_frame (ElementDevice &)
{
  if (backend_)
    backend_->end_frame ();
}

#ifdef HAVE_GL

namespace {

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
    probe_cl_device (device.cl_device, probe);
    probe_gl_context (gl_context, probe);
    if (probe.cl_gl_sharing) {
      probe.cl_context_is_gl_bound = context_bound_to (device.context, gl_context);
      if (!probe.cl_context_is_gl_bound) {
        std::string why_not;
        bind_properties = gl_sharing_properties (gl_context,
            platform_id (device.cl_device), &why_not);
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
      backend_ = make_khr_gl_sharing_backend (element_device.device (), gl_context, info,
          probe.cl_gl_event);
    } else if (path == GlInteropPath::ExternalMemory) {
      backend_ = make_external_memory_backend (element_device.device (), gl_context, info,
          cuda_device);
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

/* With an automatic device, frames in GL memory are followed to the GL context's GPU, as CUDA
 * frames are to theirs: where GL tells its device's UUID (GL_EXT_memory_object) and another
 * OpenCL device has it, the element moves there (a new context, posted) before the path is
 * chosen. Throws Failure when the move fails. */
static void
follow_gl_context (GstElement * element, ElementDevice & device, GstGLContext * gl)
{
  GlInteropProbe probe;
  probe_gl_context (gl, probe);
  if (probe.gl_uuid.empty () || cl_device_uuid (device.device ().cl_device) == probe.gl_uuid)
    return;
  const std::string there = device_string_of_uuid (probe.gl_uuid);
  if (there.empty ()) {
    GST_INFO_OBJECT (element, "GL context on the GPU of UUID %s: no OpenCL device is it",
        probe.gl_uuid.c_str ());
    return;
  }
  GST_INFO_OBJECT (element, "GL context on the GPU of UUID %s: moving from %s to %s",
      probe.gl_uuid.c_str (), device.device ().name.c_str (), there.c_str ());
  device.follow_device (element, there);
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
    if (device.automatic () && !GST_OPENCL_GUARD (element, "cannot follow the GL context to "
            "its device", [&]() { follow_gl_context (element, device, bridge.context ()); }))
      return false;
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
