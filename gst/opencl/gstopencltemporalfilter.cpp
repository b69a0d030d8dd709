/* gst-opencl: abstract base class for video filters over a window of frames in time.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * GstBaseTransform's one-in-one-out transform () cannot hold frames back, so this class takes
 * the input in submit_input_buffer () and makes outputs in generate_output () (and at EOS, in
 * the sink event handler). Per frame: one copy into the frame's ring slot (repacking any stride
 * into the slot's): on the device when the frame is in OpenCL memory, else a non-blocking
 * rectangular write from the mapped host frame; then the subclass's kernels, writing straight
 * into an output frame in OpenCL memory, or into a device buffer read back with one blocking
 * read. Host input frames stay mapped until a wait has passed (that read, or, with output on
 * the device, a wait for the queue before they are let go). */
#include "opencl/gstopencltemporalfilter.h"

#include <algorithm>
#include <new>
#include <vector>

#include "opencl/gstopenclgl.h"
#include "opencl/gstopenclglinterop.h"
#include "opencl/gstopenclstats.h"
#include "opencl/gstopenclmemory.h"
#include "opencl/gstopenclutils.h"

#define GST_CAT_DEFAULT gst_opencl_debug

enum
{
  PROP_0,
  PROP_DEVICE_FIRST,  /* device, device-name, kernel-time: see gstopenclelement.h */
};

namespace {

/* What output n copies from input n. */
struct FrameStamp
{
  GstClockTime pts = GST_CLOCK_TIME_NONE;
  GstClockTime dts = GST_CLOCK_TIME_NONE;
  GstClockTime duration = GST_CLOCK_TIME_NONE;
  guint64 offset = GST_BUFFER_OFFSET_NONE;
  guint64 offset_end = GST_BUFFER_OFFSET_NONE;
  GstBufferFlags flags = (GstBufferFlags) 0;
};

}  // namespace

struct GstOpenCLTemporalFilterPrivate
{
  gst_opencl::ElementDevice device;
  gst_opencl::GlBridge gl;
  gst_opencl::GlInterop in_interop;   /* GL frames into the window */
  gst_opencl::GlInterop out_interop;  /* outputs into GL frames */
  bool in_gl = false;
  bool out_gl = false;

  /* State derived from caps. */
  bool configured = false;
  GstVideoInfo info {};
  GstCaps *caps = nullptr;
  guint radius = 0;
  GstOpenCLFrameRing ring {};
  GstOpenCLFrame out;
  gsize out_capacity_bytes = 0;

  /* The window: frames 0 .. received - 1 have arrived since the last reset, outputs
   * 0 .. next_output - 1 are out. */
  guint64 received = 0;
  guint64 next_output = 0;
  FrameStamp stamps[GST_OPENCL_TEMPORAL_MAX_WINDOW];
  /* Inputs whose upload may still be in flight (mapped, so their memory stays valid). */
  std::vector<GstVideoFrame> uploading;
};

G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE (GstOpenCLTemporalFilter, gst_opencl_temporal_filter,
    GST_TYPE_BASE_TRANSFORM);

static GstOpenCLTemporalFilterPrivate *
get_priv (GstOpenCLTemporalFilter * filter)
{
  return static_cast<GstOpenCLTemporalFilterPrivate *> (
      gst_opencl_temporal_filter_get_instance_private (filter));
}

static void
gst_opencl_temporal_filter_init (GstOpenCLTemporalFilter * filter)
{
  auto *priv = new (gst_opencl_temporal_filter_get_instance_private (filter))
      GstOpenCLTemporalFilterPrivate ();
  priv->uploading.reserve (GST_OPENCL_TEMPORAL_MAX_WINDOW + 1);
}

/* Waits for the queue (when the device is up) and releases the inputs it was reading. */
static void
release_uploads (GstOpenCLTemporalFilter * filter, bool wait)
{
  auto *priv = get_priv (filter);
  if (wait && !priv->uploading.empty () && priv->device.started ()) {
    try {
      priv->device.device ().queue.finish ();
    } catch (const std::exception & e) {
      GST_WARNING_OBJECT (filter, "waiting for uploads: %s", e.what ());
    }
  }
  for (auto & frame : priv->uploading)
    gst_video_frame_unmap (&frame);
  priv->uploading.clear ();
}

static void
reset_window (GstOpenCLTemporalFilter * filter)
{
  auto *priv = get_priv (filter);
  release_uploads (filter, true);
  priv->received = 0;
  priv->next_output = 0;
  priv->device.discard_frame ();
}

static void
gst_opencl_temporal_filter_finalize (GObject * object)
{
  auto *filter = GST_OPENCL_TEMPORAL_FILTER (object);
  auto *priv = get_priv (filter);
  release_uploads (filter, false);
  gst_clear_caps (&priv->caps);
  priv->~GstOpenCLTemporalFilterPrivate ();
  G_OBJECT_CLASS (gst_opencl_temporal_filter_parent_class)->finalize (object);
}

static void
gst_opencl_temporal_filter_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  auto *priv = get_priv (GST_OPENCL_TEMPORAL_FILTER (object));
  if (!priv->device.set_property (PROP_DEVICE_FIRST, prop_id, value))
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
}

static void
gst_opencl_temporal_filter_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  auto *priv = get_priv (GST_OPENCL_TEMPORAL_FILTER (object));
  if (!priv->device.get_property (GST_ELEMENT (object), PROP_DEVICE_FIRST, prop_id, value))
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
}

static void
gst_opencl_temporal_filter_set_context (GstElement * element, GstContext * context)
{
  auto *priv = get_priv (GST_OPENCL_TEMPORAL_FILTER (element));
  priv->device.set_context (element, context);
  priv->gl.set_context (element, context);
  GST_ELEMENT_CLASS (gst_opencl_temporal_filter_parent_class)->set_context (element, context);
}

static gboolean
gst_opencl_temporal_filter_start (GstBaseTransform * trans)
{
  auto *priv = get_priv (GST_OPENCL_TEMPORAL_FILTER (trans));
  return GST_OPENCL_GUARD (trans, "cannot open the OpenCL device", [&]() {
    priv->device.start (GST_ELEMENT (trans));
  });
}

static gboolean
gst_opencl_temporal_filter_stop (GstBaseTransform * trans)
{
  auto *filter = GST_OPENCL_TEMPORAL_FILTER (trans);
  auto *priv = get_priv (filter);
  reset_window (filter);
  priv->configured = false;
  gst_clear_caps (&priv->caps);
  priv->ring = GstOpenCLFrameRing {};
  priv->out = GstOpenCLFrame ();
  priv->out_capacity_bytes = 0;
  priv->in_interop.reset ();
  priv->out_interop.reset ();
  priv->gl.reset ();
  priv->device.stop (GST_ELEMENT (trans));
  return TRUE;
}

static gboolean
gst_opencl_temporal_filter_set_caps (GstBaseTransform * trans, GstCaps * incaps,
    GstCaps * outcaps)
{
  auto *filter = GST_OPENCL_TEMPORAL_FILTER (trans);
  auto *priv = get_priv (filter);
  auto *klass = GST_OPENCL_TEMPORAL_FILTER_GET_CLASS (filter);

  GstVideoInfo info, out_info;
  if (!gst_video_info_from_caps (&info, incaps) ||
      !gst_video_info_from_caps (&out_info, outcaps) ||
      !gst_video_info_is_equal (&info, &out_info) || GST_VIDEO_INFO_N_PLANES (&info) != 1) {
    GST_ELEMENT_ERROR (trans, CORE, NEGOTIATION, ("invalid caps"),
        ("in %" GST_PTR_FORMAT ", out %" GST_PTR_FORMAT, incaps, outcaps));
    return FALSE;
  }
  reset_window (filter);
  priv->configured = false;
  gst_caps_replace (&priv->caps, incaps);
  priv->info = info;

  priv->in_gl = gst_opencl::GlBridge::caps_are_gl (incaps);
  priv->out_gl = gst_opencl::GlBridge::caps_are_gl (outcaps);
  priv->in_interop.reset ();
  priv->out_interop.reset ();
  if (priv->device.started ()) {
    bool context_changed = false;
    if (!gst_opencl::configure_gl_interop (GST_ELEMENT (trans), priv->device, priv->gl,
            priv->in_gl ? &priv->in_interop : nullptr, &info,
            priv->out_gl ? &priv->out_interop : nullptr, &out_info, &context_changed))
      return FALSE;
    if (context_changed) {
      priv->ring.buffer = cl::Buffer ();
      priv->out = GstOpenCLFrame ();
      priv->out_capacity_bytes = 0;
    }
  }

  gboolean ok = GST_OPENCL_GUARD (trans, "cannot configure the filter", [&]() {
    if (!priv->device.started ())
      throw gst_opencl::Failure (gst_opencl::Failure::Kind::NotFound, "no OpenCL device");
    auto & device = priv->device.device ();
    priv->radius = klass->get_radius (filter);
    if (2 * priv->radius + 1 > GST_OPENCL_TEMPORAL_MAX_WINDOW)
      throw gst_opencl::Failure (gst_opencl::Failure::Kind::Settings, "window too long");
    const gsize slot_bytes = (gsize) GST_VIDEO_INFO_PLANE_STRIDE (&info, 0) *
        GST_VIDEO_INFO_HEIGHT (&info);
    const guint slot_count = 2 * priv->radius + 1;
    if (slot_bytes > device.max_alloc_bytes / slot_count)
      throw gst_opencl::Failure (gst_opencl::Failure::Kind::TooLarge, "a window of " +
          std::to_string (slot_count) + " frames of " + std::to_string (slot_bytes) +
          " bytes exceeds the largest buffer " + device.name + " can allocate");
    if (!priv->ring.buffer () || priv->ring.slot_bytes * priv->ring.slot_count !=
        slot_bytes * slot_count)
      priv->ring.buffer = cl::Buffer (device.context, CL_MEM_READ_ONLY | CL_MEM_HOST_WRITE_ONLY,
          slot_bytes * slot_count);
    priv->ring.info = info;
    priv->ring.info.offset[0] = 0;
    priv->ring.slot_bytes = slot_bytes;
    priv->ring.slot_count = slot_count;
  });
  if (!ok)
    return FALSE;
  GST_DEBUG_OBJECT (trans, "caps %" GST_PTR_FORMAT ", window of %u frames", incaps,
      priv->ring.slot_count);
  if (klass->set_info && !klass->set_info (filter, &info, &priv->ring))
    return FALSE;
  priv->configured = true;
  return TRUE;
}

/* The same rule as GstOpenCLFilter's: a frame may arrive and leave in system or OpenCL memory,
 * whichever the neighbours offer; GL memory stays GL memory. */
static GstCaps *
gst_opencl_temporal_filter_transform_caps (GstBaseTransform *, GstPadDirection, GstCaps * caps,
    GstCaps * filter)
{
  return gst_opencl::transform_caps_any_memory (caps, filter);
}

/* OpenCL memory on the output when downstream takes it: the next element reads the frame where
 * it already is. */
static GstCaps *
gst_opencl_temporal_filter_fixate_caps (GstBaseTransform * trans, GstPadDirection direction,
    GstCaps * caps, GstCaps * othercaps)
{
  if (direction == GST_PAD_SINK)
    othercaps = gst_opencl::prefer_opencl_memory (othercaps);
  return GST_BASE_TRANSFORM_CLASS (gst_opencl_temporal_filter_parent_class)->fixate_caps (trans,
      direction, caps, othercaps);
}

static gboolean
gst_opencl_temporal_filter_propose_allocation (GstBaseTransform * trans,
    GstQuery * decide_query, GstQuery * query)
{
  if (!GST_BASE_TRANSFORM_CLASS (gst_opencl_temporal_filter_parent_class)->propose_allocation
      (trans, decide_query, query))
    return FALSE;
  gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, nullptr);
  return TRUE;
}

static gboolean
gst_opencl_temporal_filter_decide_allocation (GstBaseTransform * trans, GstQuery * query)
{
  auto *priv = get_priv (GST_OPENCL_TEMPORAL_FILTER (trans));
  GstCaps *caps = nullptr;
  gst_query_parse_allocation (query, &caps, nullptr);
  if (caps && gst_opencl::GlBridge::caps_are_gl (caps) &&
      !priv->gl.decide_allocation (GST_ELEMENT (trans), query))
    return FALSE;
  if (caps && gst_opencl::caps_are_opencl_memory (caps)) {
    gboolean ok = FALSE;
    GST_OPENCL_GUARD (trans, "cannot create an OpenCL buffer pool", [&]() {
      ok = gst_opencl::decide_opencl_pool (GST_ELEMENT (trans), query,
          priv->device.context ());
    });
    if (!ok)
      return FALSE;
  }
  return GST_BASE_TRANSFORM_CLASS (gst_opencl_temporal_filter_parent_class)->decide_allocation
      (trans, query);
}

/* Ring slot of input frame `index` (clamped to the frames received). */
static guint
slot_of (GstOpenCLTemporalFilterPrivate * priv, gint64 index)
{
  index = std::clamp<gint64> (index, 0, (gint64) priv->received - 1);
  return (guint) (index % priv->ring.slot_count);
}

static GstFlowReturn
upload (GstOpenCLTemporalFilter * filter, GstBuffer * input)
{
  auto *priv = get_priv (filter);
  auto *klass = GST_OPENCL_TEMPORAL_FILTER_GET_CLASS (filter);

  const guint slot = (guint) (priv->received % priv->ring.slot_count);
  const auto & info = priv->ring.info;
  const size_t row_bytes = (size_t) GST_VIDEO_INFO_COMP_PSTRIDE (&info, 0) *
      GST_VIDEO_INFO_WIDTH (&info);
  cl::array<size_t, 3> slot_origin { (size_t) slot * priv->ring.slot_bytes, 0, 0 };
  cl::array<size_t, 3> region { row_bytes, (size_t) GST_VIDEO_INFO_HEIGHT (&info), 1 };
  const size_t slot_stride = (size_t) GST_VIDEO_INFO_PLANE_STRIDE (&info, 0);

  bool on_device = false;
  gboolean ok = GST_OPENCL_GUARD (filter, "cannot copy the frame into the window", [&]() {
    gst_opencl::DeviceFrameView view;
    GstOpenCLFrame gl_frame;
    if (priv->in_gl && priv->in_interop.to_device (input, &gl_frame)) {
      view.buffer = gl_frame.buffer;
      view.info = gl_frame.info;
    } else if (!gst_opencl::buffer_device_frame (input, priv->device.context (), false,
            &view)) {
      return;
    }
    on_device = true;
    cl::array<size_t, 3> frame_origin { (size_t) GST_VIDEO_INFO_PLANE_OFFSET (&view.info, 0),
      0, 0 };
    priv->device.device ().queue.enqueueCopyBufferRect (view.buffer, priv->ring.buffer,
        frame_origin, slot_origin, region, (size_t) GST_VIDEO_INFO_PLANE_STRIDE (&view.info, 0),
        0, slot_stride, 0);
    priv->in_interop.end_frame ();
  });
  if (!ok)
    return GST_FLOW_ERROR;
  if (!on_device) {
    GstVideoFrame frame;
    if (!gst_video_frame_map (&frame, &priv->info, input, GST_MAP_READ)) {
      GST_ELEMENT_ERROR (filter, STREAM, FAILED, ("cannot map the input frame"), (nullptr));
      return GST_FLOW_ERROR;
    }
    ok = GST_OPENCL_GUARD (filter, "cannot upload the frame", [&]() {
      cl::array<size_t, 3> host_origin { 0, 0, 0 };
      gst_opencl::count_transfer (true, region[0] * region[1]);
      priv->device.device ().queue.enqueueWriteBufferRect (priv->ring.buffer, CL_FALSE,
          slot_origin, host_origin, region, slot_stride, 0,
          (size_t) GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0), 0,
          GST_VIDEO_FRAME_PLANE_DATA (&frame, 0));
    });
    /* Mapped until the next wait, upload enqueued or not. */
    priv->uploading.push_back (frame);
    if (!ok)
      return GST_FLOW_ERROR;
  }

  FrameStamp & stamp = priv->stamps[slot];
  stamp.pts = GST_BUFFER_PTS (input);
  stamp.dts = GST_BUFFER_DTS (input);
  stamp.duration = GST_BUFFER_DURATION (input);
  stamp.offset = GST_BUFFER_OFFSET (input);
  stamp.offset_end = GST_BUFFER_OFFSET_END (input);
  stamp.flags = (GstBufferFlags) GST_BUFFER_FLAGS (input);
  priv->received++;

  if (klass->frame_uploaded && !klass->frame_uploaded (filter, &priv->ring, slot))
    return GST_FLOW_ERROR;
  return GST_FLOW_OK;
}

static GstFlowReturn
gst_opencl_temporal_filter_submit_input_buffer (GstBaseTransform * trans, gboolean is_discont,
    GstBuffer * input)
{
  auto *filter = GST_OPENCL_TEMPORAL_FILTER (trans);
  auto *priv = get_priv (filter);
  /* The parent negotiates and applies QoS, then leaves the buffer in queued_buf. */
  GstFlowReturn ret = GST_BASE_TRANSFORM_CLASS (gst_opencl_temporal_filter_parent_class)->
      submit_input_buffer (trans, is_discont, input);
  if (ret != GST_FLOW_OK || !trans->queued_buf)
    return ret;
  GstBuffer *buffer = trans->queued_buf;
  trans->queued_buf = nullptr;
  if (!priv->configured) {
    gst_buffer_unref (buffer);
    GST_ELEMENT_ERROR (trans, CORE, NEGOTIATION, ("no caps before the first buffer"),
        (nullptr));
    return GST_FLOW_NOT_NEGOTIATED;
  }
  ret = upload (filter, buffer);
  gst_buffer_unref (buffer);
  return ret;
}

static GstBuffer *
new_output_buffer (GstOpenCLTemporalFilter * filter)
{
  auto *priv = get_priv (filter);
  GstBuffer *buffer = nullptr;
  GstBufferPool *pool = gst_base_transform_get_buffer_pool (GST_BASE_TRANSFORM (filter));
  if (pool) {
    if (!gst_buffer_pool_is_active (pool))
      gst_buffer_pool_set_active (pool, TRUE);
    if (gst_buffer_pool_acquire_buffer (pool, &buffer, nullptr) != GST_FLOW_OK)
      buffer = nullptr;
    gst_object_unref (pool);
  }
  if (!buffer) {
    GST_DEBUG_OBJECT (filter, "no buffer from a pool (%p): allocating system memory", pool);
    buffer = gst_buffer_new_allocate (nullptr, priv->info.size, nullptr);
  }
  return buffer;
}

/* The kernels write straight into the output frame's OpenCL memory; nothing is read back. */
static gboolean
render_on_device (GstOpenCLTemporalFilter * filter, const gst_opencl::DeviceFrameView & view,
    const guint * slots, gboolean * processed)
{
  auto *priv = get_priv (filter);
  auto *klass = GST_OPENCL_TEMPORAL_FILTER_GET_CLASS (filter);
  gboolean ok = GST_OPENCL_GUARD (filter, "frame processing failed", [&]() {
    auto & device = priv->device.device ();
    GstOpenCLFrame out;
    out.buffer = view.buffer;
    out.info = view.info;
    *processed = klass->process (filter, &priv->ring, slots, &out);
    if (!*processed) {
      device.queue.finish ();
      priv->device.discard_frame ();
      return;
    }
    if (priv->uploading.empty ()) {
      priv->device.defer_frame ();
      return;
    }
    /* Host frames are still mapped for their uploads: the host must wait before it lets them
     * go. */
    device.queue.finish ();
    priv->device.finish_frame ();
  });
  release_uploads (filter, !(ok && *processed));
  return ok;
}

/* The kernels write the element's device frame, read back into the mapped output buffer. */
static gboolean
render_through_host (GstOpenCLTemporalFilter * filter, GstBuffer * buffer, const guint * slots,
    gboolean * processed)
{
  auto *priv = get_priv (filter);
  auto *klass = GST_OPENCL_TEMPORAL_FILTER_GET_CLASS (filter);
  GstVideoFrame frame;
  if (!gst_video_frame_map (&frame, &priv->info, buffer, GST_MAP_WRITE)) {
    GST_ELEMENT_ERROR (filter, STREAM, FAILED, ("cannot map the output frame"), (nullptr));
    return FALSE;
  }
  gboolean ok = GST_OPENCL_GUARD (filter, "frame processing failed", [&]() {
    auto & device = priv->device.device ();
    const gsize stride = (gsize) GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0);
    const gsize height = (gsize) GST_VIDEO_FRAME_HEIGHT (&frame);
    const gsize row_bytes = (gsize) GST_VIDEO_FRAME_COMP_PSTRIDE (&frame, 0) *
        GST_VIDEO_FRAME_WIDTH (&frame);
    const gsize bytes = stride * (height - 1) + row_bytes;
    if (bytes > priv->out_capacity_bytes || !priv->out.buffer ()) {
      if (bytes > device.max_alloc_bytes)
        throw gst_opencl::Failure (gst_opencl::Failure::Kind::TooLarge,
            "output frame needs more memory than the device allows");
      priv->out.buffer = cl::Buffer (device.context, CL_MEM_WRITE_ONLY | CL_MEM_HOST_READ_ONLY,
          stride * height);
      priv->out_capacity_bytes = stride * height;
    }
    priv->out.info = frame.info;
    priv->out.info.offset[0] = 0;
    priv->out.info.stride[0] = (gint) stride;
    *processed = klass->process (filter, &priv->ring, slots, &priv->out);
    if (!*processed) {
      device.queue.finish ();
      priv->device.discard_frame ();
      return;
    }
    gst_opencl::count_transfer (false, bytes);
    device.queue.enqueueReadBuffer (priv->out.buffer, CL_TRUE, 0, bytes,
        GST_VIDEO_FRAME_PLANE_DATA (&frame, 0));
    priv->device.finish_frame ();
  });
  gst_video_frame_unmap (&frame);
  /* The in-order queue has passed every upload enqueued before the read. */
  release_uploads (filter, !(ok && *processed));
  return ok;
}

/* Makes output `next_output` from the window; with `draining`, frames after the last are the
 * last. Sets *out_buffer (or leaves it NULL when the window is not full yet). */
static GstFlowReturn
make_output (GstOpenCLTemporalFilter * filter, bool draining, GstBuffer ** out_buffer)
{
  auto *priv = get_priv (filter);
  *out_buffer = nullptr;
  if (!priv->configured || priv->next_output >= priv->received)
    return GST_FLOW_OK;
  if (!draining && priv->received < priv->next_output + priv->radius + 1)
    return GST_FLOW_OK;

  guint slots[GST_OPENCL_TEMPORAL_MAX_WINDOW];
  for (guint l = 0; l < priv->ring.slot_count; l++)
    slots[l] = slot_of (priv, (gint64) priv->next_output - (gint64) priv->radius + l);

  GstBuffer *buffer = new_output_buffer (filter);
  gst_opencl::DeviceFrameView view;
  bool on_device = false;
  gboolean processed = FALSE;
  bool to_texture = false;
  gboolean ok = GST_OPENCL_GUARD (filter, "cannot access the output frame", [&]() {
    GstOpenCLFrame gl_frame;
    if (priv->out_gl && priv->out_interop.device_frame (buffer, &gl_frame)) {
      view.buffer = gl_frame.buffer;
      view.info = gl_frame.info;
      on_device = to_texture = true;
      return;
    }
    on_device = gst_opencl::buffer_device_frame (buffer, priv->device.context (), true, &view);
  });
  if (ok) {
    ok = on_device ? render_on_device (filter, view, slots, &processed) :
        render_through_host (filter, buffer, slots, &processed);
  }
  if (ok && processed && to_texture) {
    /* GL reads the result: waits for the device, as a download does. */
    ok = GST_OPENCL_GUARD (filter, "cannot write the GL frame", [&]() {
      priv->out_interop.to_texture (buffer);
    });
  } else if (to_texture) {
    try {
      priv->out_interop.end_frame ();
    } catch (...) {
    }
  }
  if (!ok || !processed) {
    gst_buffer_unref (buffer);
    return GST_FLOW_ERROR;
  }

  const FrameStamp & stamp = priv->stamps[slot_of (priv, (gint64) priv->next_output)];
  GST_BUFFER_PTS (buffer) = stamp.pts;
  GST_BUFFER_DTS (buffer) = stamp.dts;
  GST_BUFFER_DURATION (buffer) = stamp.duration;
  GST_BUFFER_OFFSET (buffer) = stamp.offset;
  GST_BUFFER_OFFSET_END (buffer) = stamp.offset_end;
  GST_BUFFER_FLAGS (buffer) = stamp.flags;
  priv->next_output++;
  *out_buffer = buffer;
  return GST_FLOW_OK;
}

static GstFlowReturn
gst_opencl_temporal_filter_transform_unused (GstBaseTransform * trans, GstBuffer *, GstBuffer *)
{
  GST_ELEMENT_ERROR (trans, CORE, FAILED, (nullptr), ("transform () is not used"));
  return GST_FLOW_ERROR;
}

static GstFlowReturn
gst_opencl_temporal_filter_generate_output (GstBaseTransform * trans, GstBuffer ** outbuf)
{
  return make_output (GST_OPENCL_TEMPORAL_FILTER (trans), false, outbuf);
}

/* Pushes the outputs still owed (the last frame stands for the frames after it) and resets. */
static GstFlowReturn
drain (GstOpenCLTemporalFilter * filter)
{
  auto *priv = get_priv (filter);
  GstFlowReturn ret = GST_FLOW_OK;
  while (ret == GST_FLOW_OK && priv->next_output < priv->received) {
    GstBuffer *buffer = nullptr;
    ret = make_output (filter, true, &buffer);
    if (ret == GST_FLOW_OK && buffer)
      ret = gst_pad_push (GST_BASE_TRANSFORM_SRC_PAD (filter), buffer);
  }
  GST_DEBUG_OBJECT (filter, "drained: %s", gst_flow_get_name (ret));
  reset_window (filter);
  return ret;
}

static gboolean
gst_opencl_temporal_filter_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  auto *filter = GST_OPENCL_TEMPORAL_FILTER (trans);
  auto *priv = get_priv (filter);
  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_EOS:
      drain (filter);
      break;
    case GST_EVENT_FLUSH_STOP:
      reset_window (filter);
      break;
    case GST_EVENT_CAPS:{
      GstCaps *caps = nullptr;
      gst_event_parse_caps (event, &caps);
      if (priv->caps && !gst_caps_is_equal (caps, priv->caps))
        drain (filter);
      break;
    }
    default:
      break;
  }
  return GST_BASE_TRANSFORM_CLASS (gst_opencl_temporal_filter_parent_class)->sink_event (trans,
      event);
}

static gboolean
gst_opencl_temporal_filter_query (GstBaseTransform * trans, GstPadDirection direction,
    GstQuery * query)
{
  auto *filter = GST_OPENCL_TEMPORAL_FILTER (trans);
  auto *priv = get_priv (filter);
  auto *klass = GST_OPENCL_TEMPORAL_FILTER_GET_CLASS (filter);
  if (GST_QUERY_TYPE (query) == GST_QUERY_CONTEXT &&
      (priv->device.handle_context_query (GST_ELEMENT (trans), query) ||
          priv->gl.handle_context_query (GST_ELEMENT (trans), query)))
    return TRUE;
  if (GST_QUERY_TYPE (query) == GST_QUERY_LATENCY && direction == GST_PAD_SRC) {
    if (!gst_pad_peer_query (GST_BASE_TRANSFORM_SINK_PAD (trans), query))
      return FALSE;
    gboolean live = FALSE;
    GstClockTime min = 0, max = GST_CLOCK_TIME_NONE;
    gst_query_parse_latency (query, &live, &min, &max);
    guint radius = priv->configured ? priv->radius : klass->get_radius (filter);
    GstClockTime added = 0;
    /* d frames: output n waits for input n + d. */
    GstVideoInfo info = priv->info;
    if (!priv->configured) {
      GstCaps *caps = gst_pad_get_current_caps (GST_BASE_TRANSFORM_SINK_PAD (trans));
      if (!caps || !gst_video_info_from_caps (&info, caps))
        info.fps_n = 0;
      gst_clear_caps (&caps);
    }
    if (info.fps_n > 0 && info.fps_d > 0)
      added = gst_util_uint64_scale_int (radius * GST_SECOND, info.fps_d, info.fps_n);
    else if (radius > 0)
      GST_INFO_OBJECT (trans, "no framerate: cannot express %u frames of latency", radius);
    min += added;
    if (GST_CLOCK_TIME_IS_VALID (max))
      max += added;
    GST_DEBUG_OBJECT (trans, "latency %u frames = %" GST_TIME_FORMAT, radius,
        GST_TIME_ARGS (added));
    gst_query_set_latency (query, live, min, max);
    return TRUE;
  }
  return GST_BASE_TRANSFORM_CLASS (gst_opencl_temporal_filter_parent_class)->query (trans,
      direction, query);
}

static void
gst_opencl_temporal_filter_class_init (GstOpenCLTemporalFilterClass * klass)
{
  auto *gobject_class = G_OBJECT_CLASS (klass);
  auto *element_class = GST_ELEMENT_CLASS (klass);
  auto *trans_class = GST_BASE_TRANSFORM_CLASS (klass);

  gobject_class->finalize = gst_opencl_temporal_filter_finalize;
  gobject_class->set_property = gst_opencl_temporal_filter_set_property;
  gobject_class->get_property = gst_opencl_temporal_filter_get_property;

  gst_opencl::ElementDevice::install_properties (gobject_class, PROP_DEVICE_FIRST);

  element_class->set_context = gst_opencl_temporal_filter_set_context;

  trans_class->passthrough_on_same_caps = FALSE;
  /* Never called (outputs come from generate_output), but GstBaseTransform treats an element
   * with neither transform nor transform_ip as passthrough, and a passthrough element gets no
   * output buffer pool: frames would then leave in system memory whatever the caps say. */
  trans_class->transform = gst_opencl_temporal_filter_transform_unused;
  trans_class->start = gst_opencl_temporal_filter_start;
  trans_class->stop = gst_opencl_temporal_filter_stop;
  trans_class->set_caps = gst_opencl_temporal_filter_set_caps;
  trans_class->query = gst_opencl_temporal_filter_query;
  trans_class->sink_event = gst_opencl_temporal_filter_sink_event;
  trans_class->propose_allocation = gst_opencl_temporal_filter_propose_allocation;
  trans_class->decide_allocation = gst_opencl_temporal_filter_decide_allocation;
  trans_class->transform_caps = gst_opencl_temporal_filter_transform_caps;
  trans_class->fixate_caps = gst_opencl_temporal_filter_fixate_caps;
  trans_class->submit_input_buffer = gst_opencl_temporal_filter_submit_input_buffer;
  trans_class->generate_output = gst_opencl_temporal_filter_generate_output;

  gst_type_mark_as_plugin_api (GST_TYPE_OPENCL_TEMPORAL_FILTER, (GstPluginAPIFlags) 0);
}

void
gst_opencl_temporal_filter_class_add_pad_templates (GstOpenCLTemporalFilterClass * klass,
    const gchar * formats, gboolean gl_rgba)
{
  /* The same templates as GstOpenCLFilter's; the function only touches the GstElementClass. */
  gst_opencl_filter_class_add_pad_templates ((GstOpenCLFilterClass *) klass, formats, gl_rgba);
}

gst_opencl::ElementDevice &
gst_opencl_temporal_filter_element_device (GstOpenCLTemporalFilter * filter)
{
  return get_priv (filter)->device;
}
