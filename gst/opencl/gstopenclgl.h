/* gst-opencl: the GL side of an element: display and context sharing, GL buffer pools.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Frames in GL memory reach kernels through the host here (mapping a GstGLMemory without
 * GST_MAP_GL downloads the texture; writing one marks it for upload). The zero-copy paths
 * (cl_khr_gl_sharing, external memory) slot in behind the same calls in GstOpenCLFilter. */
#pragma once

#include <gst/gst.h>

#ifdef HAVE_GL
#include <gst/gl/gl.h>
#endif

namespace gst_opencl {

class GlBridge
{
public:
  GlBridge () = default;
  GlBridge (const GlBridge &) = delete;
  GlBridge & operator= (const GlBridge &) = delete;
  ~GlBridge () { reset (); }

  static bool caps_are_gl (const GstCaps * caps);

  /* GstElement::set_context and the context query, for GL display and context. */
  void set_context (GstElement * element, GstContext * context);
  bool handle_context_query (GstElement * element, GstQuery * query);

  /* Makes sure a GL context exists: the pipeline's (asked downstream then upstream), else a new
   * one on the shared display. Returns false (with an element error posted) on failure. */
  bool ensure_context (GstElement * element);

  /* Puts a GL buffer pool for `caps` into an allocation query that lacks one. */
  bool decide_allocation (GstElement * element, GstQuery * query);

  /* For an allocation query of GL caps from upstream: asks for GL sync metas, so that the
   * producer's textures carry the sync point the interop waits on. */
  static void propose_allocation (GstQuery * query);

  void reset ();

#ifdef HAVE_GL
  /* The element's GL context once ensure_context () succeeded (not a new reference). */
  GstGLContext *context () const { return context_; }
#endif

private:
#ifdef HAVE_GL
  GstGLDisplay *display_ = nullptr;
  GstGLContext *context_ = nullptr;
  GstGLContext *other_context_ = nullptr;
#endif
};

}  // namespace gst_opencl
