/* gst-opencl: abstract base class for video filters over a window of frames in time.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * GstBaseTransform's one-in-one-out transform () cannot hold frames back, so this class takes
 * the input in submit_input_buffer () and makes outputs in generate_output () (and at EOS, in
 * the sink event handler). Per frame: one copy into the frame's ring slot through the frame
 * path (repacking any stride into the slot's: on the device for OpenCL and GL memory, else a
 * non-blocking write from the host frame, which the path keeps until the write is done); then
 * the subclass's kernels write the output frame where the frame path puts it. */
#include "opencl/gstopencltemporalfilter.h"

#include <algorithm>
#include <new>
#include <vector>

#include "opencl/gstopenclframepath.h"
#include "opencl/gstopenclmemory.h"
#include "opencl/gstopenclutils.h"

#define GST_CAT_DEFAULT gst_opencl_debug

using gst_opencl::device_of;
using gst_opencl::port_of;

namespace {

/* What output n copies from input n: its timestamps and flags, and the metas the output keeps
 * (on an empty buffer that holds them, as the base's policy copied them from the input: the
 * input itself is let go once it is in the window). */
struct FrameStamp
{
  GstBuffer *metas = nullptr;
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
  /* State derived from caps. */
  bool configured = false;
  GstVideoInfo info {};
  GstCaps *caps = nullptr;
  guint radius = 0;
  GstOpenCLFrameRing ring {};

  /* The window: frames 0 .. received - 1 have arrived since the last reset, outputs
   * 0 .. next_output - 1 are out. */
  guint64 received = 0;
  guint64 next_output = 0;
  FrameStamp stamps[GST_OPENCL_TEMPORAL_MAX_WINDOW];
};

G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE (GstOpenCLTemporalFilter, gst_opencl_temporal_filter,
    GST_TYPE_OPENCL_BASE_TRANSFORM);

static GstOpenCLTemporalFilterPrivate *
get_priv (GstOpenCLTemporalFilter * filter)
{
  return static_cast<GstOpenCLTemporalFilterPrivate *> (
      gst_opencl_temporal_filter_get_instance_private (filter));
}

static void
gst_opencl_temporal_filter_init (GstOpenCLTemporalFilter * filter)
{
  new (gst_opencl_temporal_filter_get_instance_private (filter))
      GstOpenCLTemporalFilterPrivate ();
}

static void
clear_stamps (GstOpenCLTemporalFilterPrivate * priv)
{
  for (FrameStamp & stamp : priv->stamps)
    gst_clear_buffer (&stamp.metas);
}

/* Forgets the window; frames still being copied into it are waited for and let go. */
static void
reset_window (GstOpenCLTemporalFilter * filter)
{
  auto *priv = get_priv (filter);
  clear_stamps (priv);
  try {
    port_of (filter, GST_PAD_SINK).release_uploaded (true);
  } catch (const std::exception & e) {
    GST_WARNING_OBJECT (filter, "waiting for uploads: %s", e.what ());
  }
  priv->received = 0;
  priv->next_output = 0;
  device_of (filter).discard_frame ();
}

static void
gst_opencl_temporal_filter_finalize (GObject * object)
{
  auto *priv = get_priv (GST_OPENCL_TEMPORAL_FILTER (object));
  gst_clear_caps (&priv->caps);
  clear_stamps (priv);
  priv->~GstOpenCLTemporalFilterPrivate ();
  G_OBJECT_CLASS (gst_opencl_temporal_filter_parent_class)->finalize (object);
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
  return GST_BASE_TRANSFORM_CLASS (gst_opencl_temporal_filter_parent_class)->stop (trans);
}

static gboolean
gst_opencl_temporal_filter_set_caps (GstBaseTransform * trans, GstCaps * incaps,
    GstCaps * outcaps)
{
  auto *filter = GST_OPENCL_TEMPORAL_FILTER (trans);
  auto *priv = get_priv (filter);
  auto *klass = GST_OPENCL_TEMPORAL_FILTER_GET_CLASS (filter);

  reset_window (filter);
  priv->configured = false;
  GstVideoInfo info, out_info;
  bool context_changed = false;
  if (!gst_opencl_base_transform_configure_ports (GST_OPENCL_BASE_TRANSFORM (trans), incaps,
          outcaps, &info, &out_info, &context_changed))
    return FALSE;
  if (!gst_video_info_is_equal (&info, &out_info)) {
    GST_ELEMENT_ERROR (trans, CORE, NEGOTIATION, ("invalid caps"),
        ("in %" GST_PTR_FORMAT ", out %" GST_PTR_FORMAT, incaps, outcaps));
    return FALSE;
  }
  gst_caps_replace (&priv->caps, incaps);
  priv->info = info;
  auto & element = device_of (filter);
  if (context_changed)
    priv->ring.buffer = cl::Buffer ();

  gboolean ok = GST_OPENCL_GUARD (trans, "cannot configure the filter", [&]() {
    if (!element.started ())
      throw gst_opencl::Failure (gst_opencl::Failure::Kind::NotFound, "no OpenCL device");
    auto & device = element.device ();
    priv->radius = klass->get_radius (filter);
    if (2 * priv->radius + 1 > GST_OPENCL_TEMPORAL_MAX_WINDOW)
      throw gst_opencl::Failure (gst_opencl::Failure::Kind::Settings, "window too long");
    /* A slot holds every plane of a frame, laid out as the caps' default (info.offset[p],
     * info.stride[p]); the copy in repacks whatever layout the input has into it. */
    const gsize slot_bytes = GST_VIDEO_INFO_SIZE (&info);
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
    priv->ring.slot_bytes = slot_bytes;
    priv->ring.slot_count = slot_count;
  });
  if (!ok)
    return FALSE;
  GST_DEBUG_OBJECT (trans, "caps %" GST_PTR_FORMAT ", window of %u frames", incaps,
      priv->ring.slot_count);
  if (klass->set_info && !klass->set_info (filter, device_of (filter), &info, &priv->ring))
    return FALSE;
  priv->configured = true;
  return TRUE;
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
  GstOpenCLFrame target { priv->ring.buffer, priv->ring.info };
  for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES (&target.info); p++)
    target.info.offset[p] += (gsize) slot * priv->ring.slot_bytes;
  if (!GST_OPENCL_GUARD (filter, "cannot copy the frame into the window", [&]() {
        gst_opencl::copy_frame_in (device_of (filter), port_of (filter, GST_PAD_SINK), input,
            target);
      }))
    return GST_FLOW_ERROR;

  FrameStamp & stamp = priv->stamps[slot];
  stamp.pts = GST_BUFFER_PTS (input);
  stamp.dts = GST_BUFFER_DTS (input);
  stamp.duration = GST_BUFFER_DURATION (input);
  stamp.offset = GST_BUFFER_OFFSET (input);
  stamp.offset_end = GST_BUFFER_OFFSET_END (input);
  stamp.flags = (GstBufferFlags) GST_BUFFER_FLAGS (input);
  gst_clear_buffer (&stamp.metas);
  gpointer any = nullptr;
  if (gst_buffer_iterate_meta (input, &any)) {
    stamp.metas = gst_buffer_new ();
    gst_opencl_base_transform_copy_metas (GST_OPENCL_BASE_TRANSFORM (filter), input,
        stamp.metas);
  }
  priv->received++;

  if (klass->frame_uploaded && !klass->frame_uploaded (filter, device_of (filter), &priv->ring,
          slot))
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
  auto & device = device_of (filter);
  auto *klass = GST_OPENCL_TEMPORAL_FILTER_GET_CLASS (filter);
  gboolean processed = FALSE;
  gboolean ok = GST_OPENCL_GUARD (filter, "frame processing failed", [&]() {
    gst_opencl::FrameWork work (device);
    gst_opencl::FrameTrip out (device, port_of (filter, GST_PAD_SRC), buffer,
        gst_opencl::FrameAccess::Write);
    processed = klass->process (filter, device, &priv->ring, slots, &out.frame ());
    if (processed)
      work.end (out.finish (true));
  });
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
  if (stamp.metas)
    gst_buffer_copy_into (buffer, stamp.metas, GST_BUFFER_COPY_META, 0, -1);
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
  auto *trans_class = GST_BASE_TRANSFORM_CLASS (klass);

  gobject_class->finalize = gst_opencl_temporal_filter_finalize;
  /* Never called (outputs come from generate_output), but GstBaseTransform treats an element
   * with neither transform nor transform_ip as passthrough, and a passthrough element gets no
   * output buffer pool: frames would then leave in system memory whatever the caps say. */
  trans_class->transform = gst_opencl_temporal_filter_transform_unused;
  trans_class->stop = gst_opencl_temporal_filter_stop;
  trans_class->set_caps = gst_opencl_temporal_filter_set_caps;
  trans_class->query = gst_opencl_temporal_filter_query;
  trans_class->sink_event = gst_opencl_temporal_filter_sink_event;
  trans_class->submit_input_buffer = gst_opencl_temporal_filter_submit_input_buffer;
  trans_class->generate_output = gst_opencl_temporal_filter_generate_output;

  gst_type_mark_as_plugin_api (GST_TYPE_OPENCL_TEMPORAL_FILTER, (GstPluginAPIFlags) 0);
}

void
gst_opencl_temporal_filter_class_add_pad_templates (GstOpenCLTemporalFilterClass * klass,
    const gchar * formats, gboolean gl_rgba)
{
  gst_opencl::add_video_pad_templates (GST_ELEMENT_CLASS (klass), formats, gl_rgba);
}

