/* gst-opencl: the abstract base of every GstBaseTransform element of the plugin.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "opencl/gstopenclbasetransform.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <new>

#include "opencl/gstopenclcuda.h"
#include "opencl/gstopenclframepath.h"
#include "opencl/gstopenclglinterop.h"
#include "opencl/gstopencllimits.h"
#include "opencl/gstopenclmemory.h"
#include "opencl/gstopenclnametable.h"
#include "opencl/gstopencltensor.h"
#include "opencl/gstopenclutils.h"

#define GST_CAT_DEFAULT gst_opencl_debug

namespace {

/* What an output frame is of its input frame's picture, for the metas it keeps. */
enum class OutputPicture { Other, Same, Scaled };

const char *
output_picture_name (OutputPicture picture)
{
  static constexpr gst_opencl::NamedValue<OutputPicture> names[] = {
    { OutputPicture::Same, "the input's" }, { OutputPicture::Scaled, "the input's, scaled" },
  };
  return gst_opencl::name_of (names, picture, "another");
}

}  // namespace

struct GstOpenCLBaseTransformPrivate : gst_opencl::ElementContexts
{
  gst_opencl::FramePorts ports;
  /* The sink pad's caps the input frames were last checked against (streaming thread). */
  GstCaps *checked_caps = nullptr;
  bool checked_video = false;
  GstVideoInfo checked_info {};
  /* The video caps of the last caps events, newest last: a frame of any of them may still come
   * (see frame_of_earlier_caps). Written by the sink_event of the streaming thread. */
  static constexpr size_t kCapsHistory = 4;
  std::array<GstVideoInfo, kCapsHistory> recent_infos {};
  size_t recent_count = 0;
  /* What an output is of its input's picture under the pads' caps (see meta_picture), for the
   * metas it keeps; streaming thread. */
  GstCaps *meta_in_caps = nullptr;
  GstCaps *meta_out_caps = nullptr;
  OutputPicture meta_picture = OutputPicture::Other;
  bool meta_same_colors = false;
  GstVideoInfo meta_in_info {};
  GstVideoInfo meta_out_info {};

  void forget_meta_caps ()
  {
    gst_clear_caps (&meta_in_caps);
    gst_clear_caps (&meta_out_caps);
    meta_picture = OutputPicture::Other;
    meta_same_colors = false;
  }

  ~GstOpenCLBaseTransformPrivate ()
  {
    gst_clear_caps (&checked_caps);
    forget_meta_caps ();
  }
};

G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE (GstOpenCLBaseTransform, gst_opencl_base_transform,
    GST_TYPE_BASE_TRANSFORM);

/* GObject hands out zeroed private memory: the C++ members are constructed in place in init and
 * destroyed in finalize. */
static GstOpenCLBaseTransformPrivate *
get_priv (GstOpenCLBaseTransform * self)
{
  return static_cast<GstOpenCLBaseTransformPrivate *> (
      gst_opencl_base_transform_get_instance_private (self));
}

static void
gst_opencl_base_transform_init (GstOpenCLBaseTransform * self)
{
  new (gst_opencl_base_transform_get_instance_private (self)) GstOpenCLBaseTransformPrivate ();
  gst_base_transform_set_qos_enabled (GST_BASE_TRANSFORM (self), TRUE);
}

static void
gst_opencl_base_transform_finalize (GObject * object)
{
  get_priv (GST_OPENCL_BASE_TRANSFORM (object))->~GstOpenCLBaseTransformPrivate ();
  G_OBJECT_CLASS (gst_opencl_base_transform_parent_class)->finalize (object);
}

static void
gst_opencl_base_transform_set_context (GstElement * element, GstContext * context)
{
  auto *priv = get_priv (GST_OPENCL_BASE_TRANSFORM (element));
  priv->set_context (element, context);
  GST_ELEMENT_CLASS (gst_opencl_base_transform_parent_class)->set_context (element, context);
}

/* On the way to READY, waits for the device are bounded before the pads are deactivated (which
 * waits for the streaming thread): a kernel that never ends cannot hold the state change. */
static GstStateChangeReturn
gst_opencl_base_transform_change_state (GstElement * element, GstStateChange transition)
{
  get_priv (GST_OPENCL_BASE_TRANSFORM (element))->device.state_changing (transition);
  return GST_ELEMENT_CLASS (gst_opencl_base_transform_parent_class)->change_state (element,
      transition);
}

static gboolean
gst_opencl_base_transform_query (GstBaseTransform * trans, GstPadDirection direction,
    GstQuery * query)
{
  auto *priv = get_priv (GST_OPENCL_BASE_TRANSFORM (trans));
  if (GST_QUERY_TYPE (query) == GST_QUERY_CONTEXT &&
      priv->handle_context_query (GST_ELEMENT (trans), query))
    return TRUE;
  return GST_BASE_TRANSFORM_CLASS (gst_opencl_base_transform_parent_class)->query (trans,
      direction, query);
}

static gboolean
gst_opencl_base_transform_start (GstBaseTransform * trans)
{
  auto *priv = get_priv (GST_OPENCL_BASE_TRANSFORM (trans));
  return GST_OPENCL_GUARD (trans, "cannot open the OpenCL device", [&]() {
    priv->device.start (GST_ELEMENT (trans));
  });
}

static gboolean
gst_opencl_base_transform_stop (GstBaseTransform * trans)
{
  auto *priv = get_priv (GST_OPENCL_BASE_TRANSFORM (trans));
  /* Before the context goes (device.stop ()): the ports' buffers and uploads belong to it. An
   * element's own state went first, in its Impl's drop_run (). A queue given up keeps them. */
  priv->ports.reset (priv->device.abandoned ());
  priv->gl.reset ();
  priv->cuda.reset ();
  priv->device.stop (GST_ELEMENT (trans));
  gst_clear_caps (&priv->checked_caps);
  priv->checked_video = false;
  priv->recent_count = 0;
  priv->forget_meta_caps ();
  return TRUE;
}

/* Whether `input` is a frame of caps negotiated before the current ones. Caps change between
 * buffers (a serialized event), but a frame of the old caps may still come after the new caps
 * event: input-selector pushes a buffer of its previously active pad when that pad's thread had
 * passed its check before the switch, and a producer may push a frame it took from the pool of
 * the old caps. The frame's own memory or video meta says so; it cannot be processed as a frame
 * of the new caps (its kernels would read and write past its end), so it is dropped. */
static bool
frame_of_earlier_caps (GstOpenCLBaseTransform * self, GstBuffer * input)
{
  auto *priv = get_priv (self);
  GstCaps *caps = gst_pad_get_current_caps (GST_BASE_TRANSFORM_SINK_PAD (self));
  if (caps != priv->checked_caps) {
    gst_caps_replace (&priv->checked_caps, caps);
    priv->checked_video = caps && gst_caps_get_size (caps) == 1 &&
        gst_structure_has_name (gst_caps_get_structure (caps, 0), "video/x-raw") &&
        gst_video_info_from_caps (&priv->checked_info, caps);
  }
  gst_clear_caps (&caps);
  std::string why;
  if (!priv->checked_video)
    return false;
  if (!gst_opencl::frame_of_other_caps (input, &priv->checked_info, &why)) {
    /* A plain buffer tells nothing of its caps but its size: one of exactly the frame size of
     * one of the last caps before the current ones (and not the current one's) is taken as the
     * earlier caps' frame that it is, the first frames of a source's own pool after
     * input-selector switched to it (maybe past a pad whose frames never came). Any other size
     * goes on, to be refused as truncated. */
    const gsize size = gst_buffer_get_size (input);
    GstMemory *memory = gst_buffer_n_memory (input) == 1 ? gst_buffer_peek_memory (input, 0) :
        nullptr;
    if (gst_buffer_get_video_meta (input) || (memory && gst_is_opencl_memory (memory)) ||
        size == priv->checked_info.size)
      return false;
    const GstVideoInfo *earlier = nullptr;
    for (size_t i = 0; i + 1 < priv->recent_count && !earlier; i++) {
      if (priv->recent_infos[i].size == size)
        earlier = &priv->recent_infos[i];
    }
    if (!earlier)
      return false;
    why = "a buffer of " + std::to_string (size) + " bytes, the size of a " +
        gst_video_format_to_string (GST_VIDEO_INFO_FORMAT (earlier)) + " " +
        std::to_string (GST_VIDEO_INFO_WIDTH (earlier)) + "x" +
        std::to_string (GST_VIDEO_INFO_HEIGHT (earlier)) + " frame of earlier caps";
  }
  GST_WARNING_OBJECT (self, "dropping a frame of earlier caps: %s", why.c_str ());
  return true;
}

/* Keeps the video caps of the last caps events, for frame_of_earlier_caps. */
static gboolean
gst_opencl_base_transform_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  if (GST_EVENT_TYPE (event) == GST_EVENT_CAPS) {
    auto *priv = get_priv (GST_OPENCL_BASE_TRANSFORM (trans));
    GstCaps *caps = nullptr;
    gst_event_parse_caps (event, &caps);
    GstVideoInfo info;
    if (caps && gst_caps_get_size (caps) == 1 &&
        gst_structure_has_name (gst_caps_get_structure (caps, 0), "video/x-raw") &&
        gst_video_info_from_caps (&info, caps)) {
      auto & recent = priv->recent_infos;
      if (priv->recent_count == recent.size ()) {
        std::move (recent.begin () + 1, recent.end (), recent.begin ());
        priv->recent_count--;
      }
      recent[priv->recent_count++] = info;
    }
  }
  return GST_BASE_TRANSFORM_CLASS (gst_opencl_base_transform_parent_class)->sink_event (trans,
      event);
}

static GstFlowReturn
gst_opencl_base_transform_submit_input_buffer (GstBaseTransform * trans, gboolean is_discont,
    GstBuffer * input)
{
  /* The parent applies QoS and keeps the buffer in queued_buf for generate_output, which makes
   * nothing when there is none. */
  GstFlowReturn ret = GST_BASE_TRANSFORM_CLASS (gst_opencl_base_transform_parent_class)->
      submit_input_buffer (trans, is_discont, input);
  if (ret == GST_FLOW_OK && trans->queued_buf &&
      frame_of_earlier_caps (GST_OPENCL_BASE_TRANSFORM (trans), trans->queued_buf))
    gst_clear_buffer (&trans->queued_buf);
  return ret;
}

/* Video caps in system memory, where the plugin's host-visible frames may serve. */
static bool
caps_take_host_frames (GstOpenCLBaseTransform * self, GstCaps * caps, GstVideoInfo * info)
{
  auto *klass = GST_OPENCL_BASE_TRANSFORM_GET_CLASS (self);
  if (!klass->host_frames_on_device || !gst_opencl::host_frames_enabled () || !caps ||
      gst_opencl::caps_are_tensors (caps) || gst_opencl::caps_are_opencl_memory (caps) || gst_opencl::caps_are_cuda (caps) ||
      gst_opencl::GlBridge::caps_are_gl (caps) || !get_priv (self)->device.started () ||
      !get_priv (self)->device.shares_host_frames ())
    return false;
  return gst_video_info_from_caps (info, caps) && info->size > 0;
}

/* Offers upstream a pool of host-visible OpenCL frames: a producer writes into memory the
 * device reads by DMA (pinned), or reads in place (unified memory), instead of memory the
 * element would copy. Nothing is offered when a pool is already in the query (downstream's, in
 * passthrough). */
static void
offer_host_frames (GstOpenCLBaseTransform * self, GstQuery * query)
{
  GstCaps *caps = nullptr;
  gst_query_parse_allocation (query, &caps, nullptr);
  GstVideoInfo info;
  if (!caps_take_host_frames (self, caps, &info) || gst_query_get_n_allocation_pools (query) > 0)
    return;
  GST_OPENCL_GUARD (self, "cannot create an OpenCL buffer pool", [&]() {
    GstBufferPool *pool = gst_opencl_buffer_pool_new (get_priv (self)->device.context ());
    GstStructure *config = gst_buffer_pool_get_config (pool);
    gst_buffer_pool_config_set_params (config, caps, (guint) info.size, 2, 0);
    gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
    gst_buffer_pool_config_add_option (config, GST_OPENCL_BUFFER_POOL_OPTION_HOST_VIEW);
    if (gst_buffer_pool_set_config (pool, config))
      gst_query_add_allocation_pool (query, pool, (guint) info.size, 2, 0);
    gst_object_unref (pool);
    GST_DEBUG_OBJECT (self, "offered a pool of host-visible OpenCL frames upstream");
  });
}

static gboolean
gst_opencl_base_transform_propose_allocation (GstBaseTransform * trans, GstQuery * decide_query,
    GstQuery * query)
{
  auto *self = GST_OPENCL_BASE_TRANSFORM (trans);
  /* In passthrough the query went downstream; a sink that does not answer it (fakesink) still
   * leaves the pool to offer. */
  if (!GST_BASE_TRANSFORM_CLASS (gst_opencl_base_transform_parent_class)->propose_allocation
      (trans, decide_query, query) && !gst_base_transform_is_passthrough (trans))
    return FALSE;
  /* Kernels take any stride: upstream may hand over padded frames. In place (analysis) the
   * frames go on downstream as they came, so only downstream's answer (forwarded above) counts. */
  if (!gst_base_transform_is_in_place (trans)) {
    gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, nullptr);
    gst_opencl::GlBridge::propose_allocation (query);
  }
  offer_host_frames (self, query);
  return TRUE;
}

static gboolean
gst_opencl_base_transform_decide_allocation (GstBaseTransform * trans, GstQuery * query)
{
  auto *self = GST_OPENCL_BASE_TRANSFORM (trans);
  auto *priv = get_priv (self);
  GstCaps *caps = nullptr;
  gst_query_parse_allocation (query, &caps, nullptr);
  if (caps && gst_opencl::GlBridge::caps_are_gl (caps) &&
      !priv->gl.decide_allocation (GST_ELEMENT (trans), query))
    return FALSE;
  const bool cuda = caps && gst_opencl::caps_are_cuda (caps);
  if (cuda && !priv->cuda.decide_allocation (GST_ELEMENT (trans), query,
          gst_opencl_base_transform_cuda_device (self)))
    return FALSE;
  GstVideoInfo info;
  bool failed = false;
  const bool tensors = caps && gst_opencl::caps_are_tensors (caps);
  /* Tensors in OpenCL memory come from a pool of plain device bytes; tensors in system memory
   * from GStreamer's default pool (the element reads the device's bytes into them). */
  if (tensors && gst_opencl::caps_are_opencl_memory (caps) && priv->device.started () &&
      !GST_OPENCL_GUARD (self, "cannot create an OpenCL buffer pool", [&]() {
        failed = !gst_opencl::decide_opencl_pool (GST_ELEMENT (trans), query,
            priv->device.context ());
      }))
    return FALSE;
  if (failed)
    return FALSE;
  /* Frame pools are for video. */
  if (caps && !cuda && !gst_opencl::GlBridge::caps_are_gl (caps) && !tensors &&
      priv->device.started ())
    gst_opencl::decide_frame_pool (GST_ELEMENT (trans), query, priv->device.context (),
        caps_take_host_frames (self, caps, &info), &failed);
  if (failed)
    return FALSE;
  return GST_BASE_TRANSFORM_CLASS (gst_opencl_base_transform_parent_class)->decide_allocation
      (trans, query);
}

/* Controlled properties (GstController) take their values at the frame's stream time. */
static void
gst_opencl_base_transform_before_transform (GstBaseTransform * trans, GstBuffer * buffer)
{
  if (trans->segment.format != GST_FORMAT_TIME)
    return;  /* arrays in a byte or default segment have no stream time */
  GstClockTime stream_time = gst_segment_to_stream_time (&trans->segment, GST_FORMAT_TIME,
      GST_BUFFER_PTS (buffer));
  if (GST_CLOCK_TIME_IS_VALID (stream_time))
    gst_object_sync_values (GST_OBJECT (trans), stream_time);
}

/* Same format and size on both sides; frames in system or OpenCL memory may come out in either,
 * OpenCL memory first, so a chain of the plugin's elements keeps its frames on the device while
 * other elements downstream still get system memory. GL memory stays GL memory. */
static GstCaps *
gst_opencl_base_transform_transform_caps (GstBaseTransform * trans, GstPadDirection,
    GstCaps * caps, GstCaps * filter)
{
  return gst_opencl::transform_caps_any_memory (caps, filter,
      gst_opencl_base_transform_cuda_negotiable (GST_OPENCL_BASE_TRANSFORM (trans)));
}

/* Of the output caps downstream accepts, OpenCL memory is taken when it is there: the next
 * element then reads the frame where it already is. */
static GstCaps *
gst_opencl_base_transform_fixate_caps (GstBaseTransform * trans, GstPadDirection direction,
    GstCaps * caps, GstCaps * othercaps)
{
  if (direction == GST_PAD_SINK)
    othercaps = gst_opencl::prefer_opencl_memory (othercaps);
  return GST_BASE_TRANSFORM_CLASS (gst_opencl_base_transform_parent_class)->fixate_caps (trans,
      direction, caps, othercaps);
}

/* Output buffers are sized from the output caps (video or tensors), never from the (possibly
 * tight or padded) input buffer. */
static gboolean
gst_opencl_base_transform_transform_size (GstBaseTransform *, GstPadDirection, GstCaps *, gsize,
    GstCaps * othercaps, gsize * othersize)
{
  if (gst_opencl::caps_are_tensors (othercaps)) {
    auto tensor = gst_opencl::tensor_info_from_caps (othercaps, nullptr);
    if (!tensor)
      return FALSE;
    *othersize = tensor->size_bytes ();
    return TRUE;
  }
  GstVideoInfo info;
  if (!gst_video_info_from_caps (&info, othercaps))
    return FALSE;
  *othersize = info.size;
  return TRUE;
}

static bool
caps_are_video (GstCaps * caps, GstVideoInfo * info)
{
  return caps && gst_caps_get_size (caps) == 1 &&
      gst_structure_has_name (gst_caps_get_structure (caps, 0), "video/x-raw") &&
      gst_video_info_from_caps (info, caps);
}

/* What an output frame is of its input's picture under the pads' current caps (caps change
 * between buffers, and downstream may renegotiate the output alone): worked out again only when
 * either caps are new. */
static OutputPicture
meta_picture (GstOpenCLBaseTransform * self)
{
  auto *priv = get_priv (self);
  GstCaps *in = gst_pad_get_current_caps (GST_BASE_TRANSFORM_SINK_PAD (self));
  GstCaps *out = gst_pad_get_current_caps (GST_BASE_TRANSFORM_SRC_PAD (self));
  if (in != priv->meta_in_caps || out != priv->meta_out_caps) {
    priv->forget_meta_caps ();
    gst_caps_replace (&priv->meta_in_caps, in);
    gst_caps_replace (&priv->meta_out_caps, out);
    GstVideoInfo & in_info = priv->meta_in_info;
    GstVideoInfo & out_info = priv->meta_out_info;
    if (GST_OPENCL_BASE_TRANSFORM_GET_CLASS (self)->output_keeps_geometry &&
        caps_are_video (in, &in_info) && caps_are_video (out, &out_info)) {
      priv->meta_picture = GST_VIDEO_INFO_WIDTH (&in_info) == GST_VIDEO_INFO_WIDTH (&out_info) &&
          GST_VIDEO_INFO_HEIGHT (&in_info) == GST_VIDEO_INFO_HEIGHT (&out_info) ?
          OutputPicture::Same : OutputPicture::Scaled;
      priv->meta_same_colors = GST_VIDEO_INFO_FORMAT (&in_info) ==
          GST_VIDEO_INFO_FORMAT (&out_info) &&
          gst_video_colorimetry_is_equal (&in_info.colorimetry, &out_info.colorimetry);
    }
    GST_DEBUG_OBJECT (self, "output picture: %s%s", output_picture_name
        (priv->meta_picture), priv->meta_same_colors ? ", same colours" : "");
  }
  gst_clear_caps (&in);
  gst_clear_caps (&out);
  return priv->meta_picture;
}

/* The meta policy, for every element of the base (docs/design.md, "Metas"); GstBaseTransform
 * asks it of every meta of an input buffer but those tagged `memory`, when the output is a new
 * buffer (in place, the frame keeps all its metas). A meta without tags says nothing of the
 * picture and is kept (GstBaseTransform's default). A tagged one is kept only when the output
 * is the input's picture (the class's output_keeps_geometry, video caps on both sides) and
 * each of its tags is one the element leaves true: `video`, `orientation`, `size` (through
 * the meta's scale transform when the size changes), and `colorspace` when the format and
 * colorimetry are the same on both sides. Any other tag drops it. */
static gboolean
gst_opencl_base_transform_transform_meta (GstBaseTransform * trans, GstBuffer * outbuf,
    GstMeta * meta, GstBuffer * inbuf)
{
  auto *self = GST_OPENCL_BASE_TRANSFORM (trans);
  const GstMetaInfo *info = meta->info;
  const gchar *const *tags = gst_meta_api_type_get_tags (info->api);
  if (!tags || !*tags)
    return TRUE;
  const OutputPicture picture = meta_picture (self);
  bool sized = false;
  bool keep = picture != OutputPicture::Other;
  for (; keep && *tags; tags++) {
    if (!strcmp (*tags, GST_META_TAG_VIDEO_SIZE_STR))
      sized = true;
    else if (!strcmp (*tags, GST_META_TAG_VIDEO_COLORSPACE_STR))
      keep = get_priv (self)->meta_same_colors;
    else
      keep = !strcmp (*tags, GST_META_TAG_VIDEO_STR) ||
          !strcmp (*tags, GST_META_TAG_VIDEO_ORIENTATION_STR);
  }
  if (!keep) {
    GST_LOG_OBJECT (self, "dropping %s", g_type_name (info->api));
    return FALSE;
  }
  if (sized && picture == OutputPicture::Scaled) {
    /* The meta scales itself onto the output (or is dropped when it cannot). */
    auto *priv = get_priv (self);
    GstVideoMetaTransform scale = { &priv->meta_in_info, &priv->meta_out_info };
    if (info->transform_func && !info->transform_func (outbuf, meta, inbuf,
            gst_video_meta_transform_scale_get_quark (), &scale))
      GST_LOG_OBJECT (self, "%s did not scale", g_type_name (info->api));
    return FALSE;
  }
  return TRUE;
}

/* GstBaseTransform's set_caps and transform for elements that move their own frames: the
 * class's configure and transform_frames, handed the device and the ports. The specialised
 * bases put their own in place of both. */
static gboolean
gst_opencl_base_transform_set_caps (GstBaseTransform * trans, GstCaps * incaps,
    GstCaps * outcaps)
{
  auto *self = GST_OPENCL_BASE_TRANSFORM (trans);
  auto *klass = GST_OPENCL_BASE_TRANSFORM_GET_CLASS (self);
  if (!klass->configure)
    return TRUE;  /* nothing to set up */
  auto *priv = get_priv (self);
  return klass->configure (self, priv->device, priv->ports, incaps, outcaps);
}

static GstFlowReturn
gst_opencl_base_transform_transform (GstBaseTransform * trans, GstBuffer * inbuf,
    GstBuffer * outbuf)
{
  auto *self = GST_OPENCL_BASE_TRANSFORM (trans);
  auto *klass = GST_OPENCL_BASE_TRANSFORM_GET_CLASS (self);
  if (!klass->transform_frames) {
    GST_ELEMENT_ERROR (self, CORE, NOT_IMPLEMENTED, ("no frame processing"),
        ("%s has no transform_frames", G_OBJECT_TYPE_NAME (self)));
    return GST_FLOW_ERROR;
  }
  auto *priv = get_priv (self);
  return klass->transform_frames (self, priv->device, priv->ports, inbuf, outbuf);
}

static void
gst_opencl_base_transform_class_init (GstOpenCLBaseTransformClass * klass)
{
  auto *gobject_class = G_OBJECT_CLASS (klass);
  auto *element_class = GST_ELEMENT_CLASS (klass);
  auto *trans_class = GST_BASE_TRANSFORM_CLASS (klass);

  gobject_class->finalize = gst_opencl_base_transform_finalize;
  gst_opencl::ElementDevice::install_properties (gst_opencl::PropertyTable::of (gobject_class),
      [] (GObject * object) -> gst_opencl::ElementDevice & {
        return get_priv (GST_OPENCL_BASE_TRANSFORM (object))->device;
      });

  element_class->set_context = gst_opencl_base_transform_set_context;
  element_class->change_state = gst_opencl_base_transform_change_state;

  klass->host_frames_on_device = TRUE;
  klass->output_keeps_geometry = TRUE;
  trans_class->passthrough_on_same_caps = FALSE;
  trans_class->start = gst_opencl_base_transform_start;
  trans_class->stop = gst_opencl_base_transform_stop;
  trans_class->set_caps = gst_opencl_base_transform_set_caps;
  trans_class->transform = gst_opencl_base_transform_transform;
  trans_class->query = gst_opencl_base_transform_query;
  trans_class->propose_allocation = gst_opencl_base_transform_propose_allocation;
  trans_class->decide_allocation = gst_opencl_base_transform_decide_allocation;
  trans_class->submit_input_buffer = gst_opencl_base_transform_submit_input_buffer;
  trans_class->sink_event = gst_opencl_base_transform_sink_event;
  trans_class->before_transform = gst_opencl_base_transform_before_transform;
  trans_class->transform_size = gst_opencl_base_transform_transform_size;
  trans_class->transform_caps = gst_opencl_base_transform_transform_caps;
  trans_class->fixate_caps = gst_opencl_base_transform_fixate_caps;
  trans_class->transform_meta = gst_opencl_base_transform_transform_meta;

  gst_type_mark_as_plugin_api (GST_TYPE_OPENCL_BASE_TRANSFORM, (GstPluginAPIFlags) 0);
}

void
gst_opencl_base_transform_copy_metas (GstOpenCLBaseTransform * self, GstBuffer * input,
    GstBuffer * output)
{
  auto *trans = GST_BASE_TRANSFORM (self);
  auto *trans_class = GST_BASE_TRANSFORM_GET_CLASS (trans);
  gpointer state = nullptr;
  while (GstMeta *meta = gst_buffer_iterate_meta (input, &state)) {
    const GstMetaInfo *info = meta->info;
    if (gst_meta_api_type_has_tag (info->api, g_quark_from_static_string
            (GST_META_TAG_MEMORY_STR)) || !info->transform_func ||
        !trans_class->transform_meta || !trans_class->transform_meta (trans, output, meta,
            input))
      continue;
    GstMetaTransformCopy copy = { FALSE, 0, (gsize) -1 };
    info->transform_func (output, meta, input, _gst_meta_transform_copy, &copy);
  }
}

/* The same caps on the other side (GstBaseTransform's rule), CUDA memory only where the device
 * reaches it. */
static GstCaps *
gst_opencl_base_transform_same_caps (GstBaseTransform * trans, GstPadDirection direction,
    GstCaps * caps, GstCaps * filter)
{
  auto *plain = GST_BASE_TRANSFORM_CLASS (g_type_class_peek (GST_TYPE_BASE_TRANSFORM));
  return gst_opencl::negotiable_caps (get_priv (GST_OPENCL_BASE_TRANSFORM (trans))->device,
      plain->transform_caps (trans, direction, caps, filter));
}

void
gst_opencl_base_transform_class_keep_caps (GstOpenCLBaseTransformClass * klass)
{
  auto *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  auto *plain = GST_BASE_TRANSFORM_CLASS (g_type_class_peek (GST_TYPE_BASE_TRANSFORM));
  trans_class->transform_caps = gst_opencl_base_transform_same_caps;
  trans_class->fixate_caps = plain->fixate_caps;
}

gst_opencl::ElementDevice &
gst_opencl::device_of (GstOpenCLBaseTransform * element)
{
  return get_priv (element)->device;
}

gst_opencl::FramePort &
gst_opencl::port_of (GstOpenCLBaseTransform * element, GstPadDirection side)
{
  auto & ports = get_priv (element)->ports;
  return side == GST_PAD_SINK ? ports.in : ports.out;
}

/* Reads `caps` into `info` when they are video caps; tensors leave `info` empty and the side's
 * port unused. */
static bool
side_info (GstCaps * caps, GstVideoInfo * info, bool *video)
{
  gst_video_info_init (info);
  *video = !gst_opencl::caps_are_tensors (caps);
  return !*video || gst_video_info_from_caps (info, caps);
}

gboolean
gst_opencl_base_transform_configure_ports (GstOpenCLBaseTransform * self, GstCaps * incaps,
    GstCaps * outcaps, GstVideoInfo * in_info, GstVideoInfo * out_info, bool *context_changed)
{
  auto *trans = GST_BASE_TRANSFORM (self);
  auto *priv = get_priv (self);
  bool in_video = false, out_video = false;
  if (!side_info (incaps, in_info, &in_video) || !side_info (outcaps, out_info, &out_video)) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("invalid caps"),
        ("in %" GST_PTR_FORMAT ", out %" GST_PTR_FORMAT, incaps, outcaps));
    return FALSE;
  }
  /* A frame the device cannot hold is refused here, with its size, not later by a pool. */
  if (!GST_OPENCL_GUARD (self, "cannot configure the element", [&]() {
        if (!priv->device.started ())
          throw gst_opencl::Failure (gst_opencl::Failure::Kind::NotFound, "no OpenCL device");
        if (in_video)
          gst_opencl::check_frame_fits (priv->device.device (), in_info);
        if (out_video)
          gst_opencl::check_frame_fits (priv->device.device (), out_info);
      }))
    return FALSE;
  const bool in_place = gst_base_transform_is_in_place (trans);
  auto & ports = priv->ports;
  if (in_video)
    ports.in.configure (in_info, gst_opencl::frame_memory_of (incaps));
  if (out_video)
    ports.out.configure (out_info, gst_opencl::frame_memory_of (outcaps));
  GST_DEBUG_OBJECT (self, "in %" GST_PTR_FORMAT ", out %" GST_PTR_FORMAT, incaps, outcaps);
  return gst_opencl::configure_ports (GST_ELEMENT (self), priv->device, priv->gl,
      in_video ? &ports.in : nullptr, in_place ? &ports.in : out_video ? &ports.out : nullptr,
      context_changed);
}

int
gst_opencl_base_transform_cuda_device (GstOpenCLBaseTransform * self)
{
  return gst_opencl::cuda_device_of (get_priv (self)->device);
}

bool
gst_opencl_base_transform_cuda_negotiable (GstOpenCLBaseTransform * self)
{
  return gst_opencl::cuda_negotiable (get_priv (self)->device);
}
