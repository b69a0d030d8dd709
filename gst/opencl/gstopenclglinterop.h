/* gst-opencl: how RGBA frames in GL textures reach OpenCL kernels and come back.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Three paths, the best one the drivers allow chosen at caps negotiation (docs/memory.md):
 *
 *  khr-gl-sharing   the OpenCL context is created against the pipeline's GL context
 *                   (cl_khr_gl_sharing); each texture is wrapped once as an OpenCL image (the
 *                   wrapper is cached on the GstGLMemory), acquired for the kernels and released
 *                   after, and copied image <-> device buffer on the device. The GL work before
 *                   an acquire is fenced with cl_khr_gl_event where the driver has it, else
 *                   glFinish.
 *  external-memory  the OpenCL driver lacks cl_khr_gl_sharing, but it imports opaque file
 *                   descriptors (cl_khr_external_memory_opaque_fd) and so does GL
 *                   (GL_EXT_memory_object_fd). One device allocation per direction, exported by
 *                   the CUDA driver (the only exporter on such machines without Vulkan) is
 *                   imported by both: GL copies the texture into it (a pixel-pack buffer) or out
 *                   of it (a pixel-unpack buffer), OpenCL kernels read or write it in place.
 *                   Frames never visit the host. GL and OpenCL wait for each other on the device
 *                   through two semaphores per buffer where GL (GL_EXT_semaphore_fd) and OpenCL
 *                   (or Vulkan) give them; else the host waits for GL before OpenCL reads and for
 *                   OpenCL before GL reads (GST_OPENCL_GL_ORDER=host asks for that).
 *  host-copy        the texture is downloaded into system memory and uploaded to the device
 *                   (GstGLMemory maps), and the other way for output.
 *
 * The choice is a pure function of what was probed (GlInteropProbe), so it is tested without
 * the drivers; the `gl-interop` property of every element reports it and the debug log (category
 * "opencl", INFO) says why each better path was not taken. GST_OPENCL_GL_INTEROP=<path> asks for
 * a path (tests, experiments); one that is not possible falls back, with a warning. */
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

#include <memory>
#include <string>
#include <vector>

#include "opencl/gstopenclbindings.h"
#include "opencl/gstopenclelementdevice.h"
#include "opencl/gstopenclforeign.h"
#include "opencl/gstopenclframe.h"

#ifdef HAVE_GL
#include <gst/gl/gl.h>
#endif

namespace gst_opencl {

struct Device;
class ElementDevice;

/* What the path choice depends on, as probed on the drivers (or set by tests). */
struct GlInteropProbe
{
  /* The GL side. */
  bool gl_platform_egl_or_glx = false;   /* a platform cl_khr_gl_sharing has properties for */
  bool gl_memory_object_fd = false;      /* GL_EXT_memory_object_fd */
  bool gl_pixel_buffers = false;         /* pixel pack/unpack buffers (GL 2.1 / GLES 3) */
  std::string gl_uuid;                   /* GL_DEVICE_UUID_EXT, hex; empty if unknown */
  /* The OpenCL side. */
  bool cl_gl_sharing = false;            /* cl_khr_gl_sharing */
  bool cl_gl_event = false;              /* cl_khr_gl_event */
  bool cl_context_is_gl_bound = false;   /* the context was created against this GL context */
  bool cl_can_bind_context = false;      /* a GL-bound context could be created for it */
  bool cl_external_memory_fd = false;    /* cl_khr_external_memory_opaque_fd */
  std::string cl_uuid;                   /* CL_DEVICE_UUID_KHR, hex; empty if unknown */
  /* An exporter of opaque fds on the same device. */
  bool exporter = false;
  std::string exporter_uuid;
  std::string exporter_error;            /* why there is none */
  /* The frames. */
  bool format_rgba = false;              /* single-plane RGBA 8-bit, 2D textures */
};

/* The best path for `probe`; `reasons` receives one line per better path that was not taken.
 * `wanted` (from GST_OPENCL_GL_INTEROP) caps the choice at that path when it is possible. */
GlInteropPath choose_gl_interop (const GlInteropProbe & probe, std::string * reasons,
    GlInteropPath wanted = GlInteropPath::KhrGlSharing);

/* GST_OPENCL_GL_INTEROP as a path; KhrGlSharing (the best) when unset; throws Failure
 * (Settings) for a value that is not a path name. */
GlInteropPath wanted_gl_interop ();

#ifdef HAVE_GL
/* The cl_context_properties that create a context against `gl_context` (cl_khr_gl_sharing):
 * CL_GL_CONTEXT_KHR plus CL_EGL_DISPLAY_KHR or CL_GLX_DISPLAY_KHR as its platform needs, and
 * CL_CONTEXT_PLATFORM, zero-terminated. Empty, with `why_not` set, for other platforms. */
std::vector<cl_context_properties> gl_sharing_properties (GstGLContext * gl_context,
    cl_platform_id platform, std::string * why_not);

/* The probe's OpenCL side for `device`: its cl_khr_gl_sharing, cl_khr_gl_event,
 * cl_khr_external_memory_opaque_fd and UUID (cl_khr_device_uuid). */
void probe_cl_device (const cl::Device & device, GlInteropProbe & probe);

/* The probe's GL side for `gl`: its platform, GL_EXT_memory_object_fd, pixel buffers and the GL
 * device's UUID, asked on the GL thread. */
void probe_gl_context (GstGLContext * gl, GlInteropProbe & probe);
#endif

class GlInteropBackend;

/* One direction of GL frames for an element: its input or its output, as the frame path's
 * ForeignFrames. The path is chosen and prepared at caps negotiation (configure_gl_interop);
 * per frame, `to_device` (input) gives the device copy of a GL buffer's texture, or
 * `device_frame` + `from_device` (output) gives where the kernels write and puts that into the
 * GL buffer's texture. With the host-copy path (or none) these return false and the caller maps
 * the GL memory itself. */
class GlInterop : public ForeignFrames
{
public:
  GlInterop ();
  ~GlInterop () override;
  GlInterop (const GlInterop &) = delete;
  GlInterop & operator= (const GlInterop &) = delete;

#ifdef HAVE_GL
  /* Probes the drivers, chooses and prepares a path for RGBA frames of `info`. Logs the reasons
   * for skipping better paths on `element`. For khr-gl-sharing the element's OpenCL context is
   * replaced by one created against `gl_context` when it is not already (call before buffers
   * or pools of the element's context are made). Never throws: a failure to set a path up falls
   * back to host-copy (logged as a warning). */
  GlInteropPath configure (GstElement * element, ElementDevice & device,
      GstGLContext * gl_context, const GstVideoInfo & info);
#endif
  GlInteropPath path () const { return path_; }
  /* Whether the path's GL and OpenCL work wait for each other on the device (external-memory
   * with semaphores), not on the host. */
  bool semaphores () const;

  /* New caps: the path is chosen again (configure above, from configure_gl_interop). */
  void configure (const GstVideoInfo *) override { reset (); }
  void reset () override;
  /* The backend's buffers go with the path, which configure_gl_interop sets up again after a
   * context change. */
  void drop_device_buffers () override {}

  bool to_device (ElementDevice & device, GstBuffer * buffer, GstOpenCLFrame * frame) override;
  bool device_frame (ElementDevice & device, GstBuffer * buffer,
      GstOpenCLFrame * frame) override;
  /* GL reads the texture next: the host waits for the device, or with semaphores GL waits for
   * it on the device. */
  bool from_device (ElementDevice & device, GstBuffer * buffer) override;
  void end_frame (ElementDevice & device) override;

private:
  GlInteropPath path_ = GlInteropPath::None;
  std::unique_ptr<GlInteropBackend> backend_;
};

class GlBridge;

/* For a base class's set_caps, before it sizes device buffers or builds kernels: makes sure the
 * element has a GL context (`bridge`), configures `in` and/or `out` (either may be null: no GL
 * memory on that side) and sets the `gl-interop` property (the input's path when both). Sets
 * *context_changed when khr-gl-sharing replaced the element's OpenCL context (buffers made on
 * the old one must be dropped). Returns false, with an element error posted, when no GL context
 * can be had; with neither side in GL memory it only sets the property to none. */
bool configure_gl_interop (GstElement * element, ElementDevice & device, GlBridge & bridge,
    GlInterop * in, const GstVideoInfo * in_info, GlInterop * out, const GstVideoInfo * out_info,
    bool *context_changed);


/* For the probe: extension lists as the drivers give them, checked word by word. */
bool extension_listed (const std::string & extensions, const char *name);

}  // namespace gst_opencl
