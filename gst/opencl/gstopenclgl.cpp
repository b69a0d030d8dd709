/* gst-opencl: the GL side of an element: display and context sharing, GL buffer pools.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "opencl/gstopenclgl.h"
#include "opencl/gstopenclmemory.h"

#include <gst/video/video.h>

#include "opencl/gstopenclutils.h"

#define GST_CAT_DEFAULT gst_opencl_debug

namespace gst_opencl {

bool
GlBridge::caps_are_gl (const GstCaps * caps)
{
#ifdef HAVE_GL
  GstCapsFeatures *features = gst_caps_get_features (caps, 0);
  return features && gst_caps_features_contains (features, GST_CAPS_FEATURE_MEMORY_GL_MEMORY);
#else
  (void) caps;
  return false;
#endif
}

void
GlBridge::set_context (GstElement * element, GstContext * context)
{
#ifdef HAVE_GL
  gst_gl_handle_set_context (element, context, &display_, &other_context_);
  if (display_)
    gst_gl_display_filter_gl_api (display_, GST_GL_API_ANY);
#else
  (void) element;
  (void) context;
#endif
}

bool
GlBridge::handle_context_query (GstElement * element, GstQuery * query)
{
#ifdef HAVE_GL
  return gst_gl_handle_context_query (element, query, display_, context_, other_context_);
#else
  (void) element;
  (void) query;
  return false;
#endif
}

bool
GlBridge::ensure_context (GstElement * element)
{
#ifdef HAVE_GL
  if (!gst_gl_ensure_element_data (element, &display_, &other_context_)) {
    GST_ELEMENT_ERROR (element, RESOURCE, NOT_FOUND, ("no GL display for GL memory"), (nullptr));
    return false;
  }
  if (context_)
    return true;
  if (gst_gl_query_local_gl_context (element, GST_PAD_SRC, &context_) ||
      gst_gl_query_local_gl_context (element, GST_PAD_SINK, &context_))
    return true;

  GError *error = nullptr;
  GST_OBJECT_LOCK (display_);
  do {
    if (context_) {
      gst_object_unref (context_);
      context_ = nullptr;
    }
    context_ = gst_gl_display_get_gl_context_for_thread (display_, nullptr);
    if (!context_ && !gst_gl_display_create_context (display_, other_context_, &context_,
            &error))
      break;
  } while (!gst_gl_display_add_context (display_, context_));
  GST_OBJECT_UNLOCK (display_);
  if (!context_) {
    GST_ELEMENT_ERROR (element, RESOURCE, NOT_FOUND, ("cannot create a GL context: %s",
            error ? error->message : "unknown error"), (nullptr));
    g_clear_error (&error);
    return false;
  }
  return true;
#else
  (void) element;
  return true;
#endif
}

void
GlBridge::propose_allocation (GstQuery * query)
{
#ifdef HAVE_GL
  GstCaps *caps = nullptr;
  gst_query_parse_allocation (query, &caps, nullptr);
  if (caps_are_gl (caps))
    gst_query_add_allocation_meta (query, GST_GL_SYNC_META_API_TYPE, nullptr);
#else
  (void) query;
#endif
}

bool
GlBridge::decide_allocation (GstElement * element, GstQuery * query)
{
#ifdef HAVE_GL
  if (!ensure_context (element))
    return false;
  GstCaps *caps = nullptr;
  gst_query_parse_allocation (query, &caps, nullptr);
  GstVideoInfo info;
  if (!caps || !gst_video_info_from_caps (&info, caps))
    return false;

  GstBufferPool *pool = nullptr;
  guint size = (guint) info.size, min = 0, max = 0;
  bool have_pool = gst_query_get_n_allocation_pools (query) > 0;
  if (have_pool) {
    gst_query_parse_nth_allocation_pool (query, 0, &pool, &size, &min, &max);
    size = MAX (size, (guint) info.size);
  }
  if (!pool || !GST_IS_GL_BUFFER_POOL (pool)) {
    if (pool)
      gst_object_unref (pool);
    pool = gst_gl_buffer_pool_new (context_);
  }
  GstStructure *config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, caps, size, min, max);
  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  /* Textures the element writes carry a sync point for their readers. */
  if (gst_buffer_pool_has_option (pool, GST_BUFFER_POOL_OPTION_GL_SYNC_META))
    gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_GL_SYNC_META);
  if (!gst_buffer_pool_set_config (pool, config)) {
    gst_object_unref (pool);
    GST_ELEMENT_ERROR (element, RESOURCE, SETTINGS, ("GL buffer pool rejected its config"),
        (nullptr));
    return false;
  }
  gst_opencl::put_allocation_pool (query, pool, size, min, max);
  gst_object_unref (pool);
  return true;
#else
  (void) element;
  (void) query;
  return true;
#endif
}

void
GlBridge::reset ()
{
#ifdef HAVE_GL
  gst_clear_object (&context_);
  gst_clear_object (&other_context_);
  gst_clear_object (&display_);
#endif
}

}  // namespace gst_opencl
