/* gst-opencl: abstract base class for video sources whose frames an OpenCL kernel renders.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Per frame: the subclass enqueues its kernels into the device frame allocated in set_caps, the
 * base enqueues one blocking read into the mapped output buffer (the only wait: the host needs
 * the pixels; a rectangular read when the buffer's rows are padded) and sums the kernels' device
 * time into `kernel-time`. A format the subclass does not render (YUV, gray, 16-bit) is made
 * on the device: the subclass renders RGBA into a device frame of the base's, allocated at caps
 * time, and the shared converter (gstopenclconvert) writes it into the output frame.
 * Timestamps come from the frame count and the framerate, as videotestsrc's do: they continue
 * across caps changes and restart at the position of a seek.
 * Output buffers in GL or CUDA memory are reached through the frame path's foreign memory, as
 * the filters' are (CUDA: the frame copied on the device, where the device is a CUDA device;
 * elsewhere CUDA caps are not offered). */
#include "opencl/gstopenclsrc.h"

#include <new>
#include <string>

#include "opencl/gstopenclconvert.h"
#include "opencl/gstopenclcuda.h"
#include "opencl/gstopenclelementdevice.h"
#include "opencl/gstopenclgl.h"
#include "opencl/gstopenclframepath.h"
#include "opencl/gstopenclglinterop.h"
#include "opencl/gstopencllimits.h"
#include "opencl/gstopenclmemory.h"
#include "opencl/gstopenclutils.h"
#include "opencl/gstopenclstats.h"

#define GST_CAT_DEFAULT gst_opencl_debug

constexpr gboolean DEFAULT_IS_LIVE = FALSE;

/* What the base makes of the subclass's RGBA frames, after the formats it renders itself. */
#define CONVERTED_FORMATS "NV12, I420, P010_10LE, GRAY8, GRAY16_LE, RGBA64_LE"

struct GstOpenCLSrcPrivate : gst_opencl::ElementContexts
{
  gst_opencl::FramePort out_port;  /* frames rendered into output buffers of any memory */
  /* For a format the subclass does not render: its RGBA frame, and the conversion into the
   * output's format (set up in set_caps; unconfigured otherwise). */
  GstOpenCLFrame rendered {};
  gst_opencl::FrameConverter converter;

  /* State derived from caps; `info` and `negotiated` are read by queries under the object lock. */
  GstVideoInfo info {};
  bool negotiated = false;

  /* Frames since the last caps change or seek, and the frames and time before them. */
  guint64 frames = 0;
  guint64 accum_frames = 0;
  GstClockTime accum_time = 0;
};

G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE (GstOpenCLSrc, gst_opencl_src, GST_TYPE_PUSH_SRC);

/* GObject hands out zeroed private memory; the C++ members are constructed in place in init and
 * destroyed in finalize. */
static GstOpenCLSrcPrivate *
get_priv (GstOpenCLSrc * src)
{
  return static_cast<GstOpenCLSrcPrivate *> (gst_opencl_src_get_instance_private (src));
}

/* Start of frame `n` counted from the last caps change or seek (0 when there is no framerate). */
static GstClockTime
frame_time (const GstVideoInfo * info, guint64 n)
{
  if (info->fps_n <= 0)
    return 0;
  return gst_util_uint64_scale (n, (guint64) info->fps_d * GST_SECOND, (guint64) info->fps_n);
}

static void
gst_opencl_src_init (GstOpenCLSrc * src)
{
  new (gst_opencl_src_get_instance_private (src)) GstOpenCLSrcPrivate ();
  gst_base_src_set_format (GST_BASE_SRC (src), GST_FORMAT_TIME);
  gst_base_src_set_live (GST_BASE_SRC (src), DEFAULT_IS_LIVE);
}

static void
gst_opencl_src_finalize (GObject * object)
{
  auto *priv = get_priv (GST_OPENCL_SRC (object));
  priv->~GstOpenCLSrcPrivate ();
  G_OBJECT_CLASS (gst_opencl_src_parent_class)->finalize (object);
}

static void
gst_opencl_src_set_context (GstElement * element, GstContext * context)
{
  auto *priv = get_priv (GST_OPENCL_SRC (element));
  priv->set_context (element, context);
  GST_ELEMENT_CLASS (gst_opencl_src_parent_class)->set_context (element, context);
}

/* On the way to READY, waits for the device are bounded before the streaming thread is
 * stopped: a kernel that never ends cannot hold the state change. */
static GstStateChangeReturn
gst_opencl_src_change_state (GstElement * element, GstStateChange transition)
{
  get_priv (GST_OPENCL_SRC (element))->device.state_changing (transition);
  return GST_ELEMENT_CLASS (gst_opencl_src_parent_class)->change_state (element, transition);
}

/* Start and stop both leave the source unnegotiated: caps come again with the next run. */
static void
forget_negotiation (GstBaseSrc * base, GstOpenCLSrcPrivate * priv)
{
  GST_OBJECT_LOCK (base);
  priv->negotiated = false;
  GST_OBJECT_UNLOCK (base);
}

static gboolean
gst_opencl_src_start (GstBaseSrc * base)
{
  auto *priv = get_priv (GST_OPENCL_SRC (base));
  forget_negotiation (base, priv);
  priv->frames = priv->accum_frames = 0;
  priv->accum_time = 0;
  return GST_OPENCL_GUARD (base, "cannot open the OpenCL device", [&]() {
    priv->device.start (GST_ELEMENT (base));
  });
}

static gboolean
gst_opencl_src_stop (GstBaseSrc * base)
{
  auto *priv = get_priv (GST_OPENCL_SRC (base));
  forget_negotiation (base, priv);
  priv->out_port.reset (priv->device.abandoned ());
  priv->converter.reset ();
  priv->rendered = GstOpenCLFrame ();
  priv->gl.reset ();
  priv->cuda.reset ();
  priv->device.stop (GST_ELEMENT (base));
  return TRUE;
}

/* Colorimetry and chroma site, where downstream gives a choice: GStreamer's default for the
 * format and size (for YUV: BT.601 up to 576 rows, BT.709 above, BT.2020 from 2160 rows;
 * limited range), and MPEG-2's site, as videotestsrc does. Where downstream leaves them out,
 * the caps carry none and GStreamer's video info takes the same defaults on both sides. */
static void
fixate_colorimetry (GstStructure * structure)
{
  gst_structure_fixate_field (structure, "format");
  gint width = 0, height = 0;
  const gchar *format = gst_structure_get_string (structure, "format");
  GstVideoInfo info;
  if (gst_structure_has_field (structure, "colorimetry") && format &&
      gst_structure_get_int (structure, "width", &width) &&
      gst_structure_get_int (structure, "height", &height) &&
      gst_video_info_set_format (&info, gst_video_format_from_string (format), width,
          height)) {
    gchar *colorimetry = gst_video_colorimetry_to_string (&info.colorimetry);
    if (colorimetry)
      gst_structure_fixate_field_string (structure, "colorimetry", colorimetry);
    g_free (colorimetry);
  }
  if (gst_structure_has_field (structure, "chroma-site"))
    gst_structure_fixate_field_string (structure, "chroma-site", "mpeg2");
}

/* The pad template's caps, those in CUDA memory only where the device reaches it. */
static GstCaps *
gst_opencl_src_get_caps (GstBaseSrc * base, GstCaps * filter)
{
  GstCaps *caps = gst_opencl::negotiable_caps (get_priv (GST_OPENCL_SRC (base))->device,
      gst_pad_get_pad_template_caps (GST_BASE_SRC_PAD (base)));
  if (filter) {
    GstCaps *filtered = gst_caps_intersect_full (filter, caps, GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref (caps);
    caps = filtered;
  }
  return caps;
}

/* Fixes what downstream left open to the subclass's defaults, then the rest the usual way (the
 * first format of the list). */
static GstCaps *
gst_opencl_src_fixate (GstBaseSrc * base, GstCaps * caps)
{
  auto *klass = GST_OPENCL_SRC_GET_CLASS (base);
  caps = gst_caps_truncate (gst_caps_make_writable (caps));
  GstStructure *structure = gst_caps_get_structure (caps, 0);
  gst_structure_fixate_field_nearest_int (structure, "width", klass->default_width);
  gst_structure_fixate_field_nearest_int (structure, "height", klass->default_height);
  gst_structure_fixate_field_nearest_fraction (structure, "framerate", klass->default_fps_n,
      klass->default_fps_d);
  if (gst_structure_has_field (structure, "pixel-aspect-ratio"))
    gst_structure_fixate_field_nearest_fraction (structure, "pixel-aspect-ratio", 1, 1);
  fixate_colorimetry (structure);
  return GST_BASE_SRC_CLASS (gst_opencl_src_parent_class)->fixate (base, caps);
}

/* Whether `format` is one of the subclass's own. */
static bool
renders_itself (GstOpenCLSrcClass * klass, GstVideoFormat format)
{
  gchar **names = g_strsplit (klass->rendered_formats ? klass->rendered_formats : "", ",", -1);
  bool found = false;
  for (gchar **name = names; *name && !found; name++)
    found = gst_video_format_from_string (g_strstrip (*name)) == format;
  g_strfreev (names);
  return found;
}

/* The frames the subclass renders for output `info`: the output's own, or an RGBA frame of the
 * base's (allocated here, once per caps) that the converter writes into the output. Throws. */
static GstVideoInfo
configure_rendering (GstOpenCLSrcPrivate * priv, GstOpenCLSrcClass * klass,
    const GstVideoInfo * info)
{
  priv->converter.reset ();
  priv->rendered = GstOpenCLFrame ();
  if (renders_itself (klass, GST_VIDEO_INFO_FORMAT (info)))
    return *info;
  if (!gst_opencl::converts_format (GST_VIDEO_INFO_FORMAT (info)))
    throw gst_opencl::Failure (gst_opencl::Failure::Kind::Settings,
        std::string ("cannot render ") + GST_VIDEO_INFO_NAME (info));
  GstVideoInfo rgba;
  gst_video_info_set_format (&rgba, GST_VIDEO_FORMAT_RGBA, GST_VIDEO_INFO_WIDTH (info),
      GST_VIDEO_INFO_HEIGHT (info));
  GST_VIDEO_INFO_FPS_N (&rgba) = GST_VIDEO_INFO_FPS_N (info);
  GST_VIDEO_INFO_FPS_D (&rgba) = GST_VIDEO_INFO_FPS_D (info);
  GST_VIDEO_INFO_PAR_N (&rgba) = GST_VIDEO_INFO_PAR_N (info);
  GST_VIDEO_INFO_PAR_D (&rgba) = GST_VIDEO_INFO_PAR_D (info);
  gst_opencl::Device & device = priv->device.device ();
  gst_opencl::check_frame_fits (device, &rgba);
  priv->converter.configure (device, &rgba, info);
  priv->rendered.buffer = cl::Buffer (device.context, CL_MEM_READ_WRITE, rgba.size);
  priv->rendered.info = rgba;
  return rgba;
}

static gboolean
gst_opencl_src_set_caps (GstBaseSrc * base, GstCaps * caps)
{
  auto *src = GST_OPENCL_SRC (base);
  auto *priv = get_priv (src);
  auto *klass = GST_OPENCL_SRC_GET_CLASS (src);

  GstVideoInfo info;
  if (!gst_video_info_from_caps (&info, caps)) {
    /* Fixed caps that GStreamer cannot describe: a frame past GstVideoInfo's sizes (its
     * strides and size are ints), or fields missing. Say which. */
    const GstStructure *s = gst_caps_get_structure (caps, 0);
    gint width = 0, height = 0;
    const gchar *format = gst_structure_get_string (s, "format");
    if (gst_structure_get_int (s, "width", &width) && gst_structure_get_int (s, "height",
            &height) && width > 0 && height > 0) {
      const guint64 bytes = (guint64) width * (guint64) height * 4;
      GST_ELEMENT_ERROR (base, CORE, NEGOTIATION, ("cannot make %dx%d %s frames: GStreamer "
              "describes video frames of at most %d bytes and a row of at most %d bytes "
              "(%" G_GUINT64_FORMAT " bytes at 4 bytes a pixel)", width, height,
              format ? format : "video", G_MAXINT, G_MAXINT, bytes),
          ("%" GST_PTR_FORMAT, caps));
    } else {
      GST_ELEMENT_ERROR (base, CORE, NEGOTIATION, ("caps without a positive width and "
              "height"), ("%" GST_PTR_FORMAT, caps));
    }
    return FALSE;
  }
  priv->out_port.configure (&info, gst_opencl::frame_memory_of (caps));
  if (!gst_opencl::configure_ports (GST_ELEMENT (base), priv->device, priv->gl, nullptr,
          &priv->out_port))
    return FALSE;
  GstVideoInfo render_info = info;
  gboolean ok = GST_OPENCL_GUARD (base, "cannot configure the source", [&]() {
    if (!priv->device.started ())
      throw gst_opencl::Failure (gst_opencl::Failure::Kind::NotFound, "no OpenCL device");
    gst_opencl::check_frame_fits (priv->device.device (), &info);
    render_info = configure_rendering (priv, klass, &info);
  });
  if (!ok)
    return FALSE;

  /* Timestamps go on from where the previous caps left them. */
  GST_OBJECT_LOCK (base);
  if (priv->negotiated) {
    priv->accum_time += frame_time (&priv->info, priv->frames);
    priv->accum_frames += priv->frames;
  }
  priv->frames = 0;
  priv->info = info;
  priv->negotiated = true;
  GST_OBJECT_UNLOCK (base);
  gst_base_src_set_blocksize (base, (guint) info.size);
  GST_DEBUG_OBJECT (src, "caps %" GST_PTR_FORMAT, caps);
  return klass->set_info ? klass->set_info (src, get_priv (src)->device, &render_info) : TRUE;
}

/* System memory: downstream's pool when it offers one that takes our caps, else a video pool. */
static gboolean
decide_system_allocation (GstBaseSrc * base, GstQuery * query, GstCaps * caps)
{
  GstVideoInfo info;
  if (!gst_video_info_from_caps (&info, caps))
    return FALSE;

  GstBufferPool *pool = nullptr;
  guint size = (guint) info.size, min = 0, max = 0;
  const bool have_pool = gst_query_get_n_allocation_pools (query) > 0;
  if (have_pool) {
    gst_query_parse_nth_allocation_pool (query, 0, &pool, &size, &min, &max);
    size = MAX (size, (guint) info.size);
  }
  if (!pool)
    pool = gst_video_buffer_pool_new ();

  GstAllocator *allocator = nullptr;
  GstAllocationParams params;
  gst_allocation_params_init (&params);
  if (gst_query_get_n_allocation_params (query) > 0)
    gst_query_parse_nth_allocation_param (query, 0, &allocator, &params);

  /* Padded rows are fine: the read-back writes whatever stride the buffer has. */
  const bool video_meta = gst_query_find_allocation_meta (query, GST_VIDEO_META_API_TYPE,
      nullptr);
  auto configure = [&](GstBufferPool * target) {
    GstStructure *config = gst_buffer_pool_get_config (target);
    gst_buffer_pool_config_set_params (config, caps, size, min, max);
    gst_buffer_pool_config_set_allocator (config, allocator, &params);
    if (video_meta)
      gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
    return gst_buffer_pool_set_config (target, config);
  };
  if (!configure (pool)) {
    GST_DEBUG_OBJECT (base, "downstream's pool refused the config: using a video pool");
    gst_object_unref (pool);
    pool = gst_video_buffer_pool_new ();
    if (!configure (pool)) {
      gst_object_unref (pool);
      gst_clear_object (&allocator);
      GST_ELEMENT_ERROR (base, RESOURCE, SETTINGS, ("buffer pool rejected its config"),
          ("%" GST_PTR_FORMAT, caps));
      return FALSE;
    }
  }
  gst_opencl::put_allocation_pool (query, pool, size, min, max);
  gst_object_unref (pool);
  gst_clear_object (&allocator);
  return TRUE;
}

static gboolean
gst_opencl_src_decide_allocation (GstBaseSrc * base, GstQuery * query)
{
  auto *priv = get_priv (GST_OPENCL_SRC (base));
  GstCaps *caps = nullptr;
  gst_query_parse_allocation (query, &caps, nullptr);
  if (!caps) {
    GST_ELEMENT_ERROR (base, CORE, NEGOTIATION, ("allocation query without caps"), (nullptr));
    return FALSE;
  }
  /* A GL pool is configured completely by the bridge (its allocator is a GL one). */
  if (gst_opencl::GlBridge::caps_are_gl (caps))
    return priv->gl.decide_allocation (GST_ELEMENT (base), query);
  /* A pool of CUDA memory: downstream's (a CUDA element's), else one of the device's. */
  if (gst_opencl::caps_are_cuda (caps))
    return priv->cuda.decide_allocation (GST_ELEMENT (base), query,
        gst_opencl::cuda_device_of (priv->device));
  /* Frames rendered into the plugin's OpenCL memory, under OpenCL or system-memory caps: the
   * host sees them when it maps them, nothing waits here. */
  bool failed = false;
  if (priv->device.started () && gst_opencl::decide_frame_pool (GST_ELEMENT (base), query,
          priv->device.context (), true, &failed))
    return TRUE;
  return !failed && decide_system_allocation (base, query, caps);
}

static gboolean
gst_opencl_src_query (GstBaseSrc * base, GstQuery * query)
{
  auto *priv = get_priv (GST_OPENCL_SRC (base));
  switch (GST_QUERY_TYPE (query)) {
    case GST_QUERY_CONTEXT:
      if (priv->handle_context_query (GST_ELEMENT (base), query))
        return TRUE;
      break;
    case GST_QUERY_LATENCY:{
      /* A live source hands over a frame one frame duration after its timestamp. */
      GST_OBJECT_LOCK (base);
      const bool known = priv->negotiated && priv->info.fps_n > 0;
      GstClockTime latency = known ? gst_util_uint64_scale (GST_SECOND, priv->info.fps_d,
          priv->info.fps_n) : 0;
      GST_OBJECT_UNLOCK (base);
      if (known) {
        /* No upper bound: the source does not drop a frame it is late with (downstream may
         * queue as much as it likes), as videotestsrc says. A maximum of one frame made sinks
         * warn that the pipeline needs queues. Not live: nothing to wait for. */
        const bool live = gst_base_src_is_live (base);
        gst_query_set_latency (query, live, live ? latency : 0, GST_CLOCK_TIME_NONE);
        return TRUE;
      }
      break;
    }
    case GST_QUERY_CONVERT:{
      GstFormat src_format, dest_format;
      gint64 src_value, dest_value;
      gst_query_parse_convert (query, &src_format, &src_value, &dest_format, nullptr);
      GST_OBJECT_LOCK (base);
      const bool known = priv->negotiated;
      GstVideoInfo info = priv->info;
      GST_OBJECT_UNLOCK (base);
      if (known && gst_video_info_convert (&info, src_format, src_value, dest_format,
              &dest_value)) {
        gst_query_set_convert (query, src_format, src_value, dest_format, dest_value);
        return TRUE;
      }
      break;
    }
    default:
      break;
  }
  return GST_BASE_SRC_CLASS (gst_opencl_src_parent_class)->query (base, query);
}

/* Every frame can be made at any position. */
static gboolean
gst_opencl_src_is_seekable (GstBaseSrc *)
{
  return TRUE;
}

static gboolean
gst_opencl_src_do_seek (GstBaseSrc * base, GstSegment * segment)
{
  auto *priv = get_priv (GST_OPENCL_SRC (base));
  if (segment->rate < 0) {
    GST_WARNING_OBJECT (base, "reverse playback is not supported");
    return FALSE;
  }
  /* Stream time is the position: an animation seeks with it. */
  segment->time = segment->start;
  GST_OBJECT_LOCK (base);
  const GstVideoInfo info = priv->info;
  GST_OBJECT_UNLOCK (base);
  priv->accum_frames = 0;
  priv->accum_time = 0;
  priv->frames = info.fps_n > 0 && GST_CLOCK_TIME_IS_VALID (segment->position) ?
      gst_util_uint64_scale (segment->position, (guint64) info.fps_n,
      (guint64) info.fps_d * GST_SECOND) : 0;
  GST_DEBUG_OBJECT (base, "seek to %" GST_TIME_FORMAT ": frame %" G_GUINT64_FORMAT,
      GST_TIME_ARGS (segment->position), priv->frames);
  return TRUE;
}

/* A live source waits for the clock to reach each frame's timestamp. */
static void
gst_opencl_src_get_times (GstBaseSrc * base, GstBuffer * buffer, GstClockTime * start,
    GstClockTime * end)
{
  *start = *end = GST_CLOCK_TIME_NONE;
  if (!gst_base_src_is_live (base) || !GST_BUFFER_PTS_IS_VALID (buffer))
    return;
  *start = GST_BUFFER_PTS (buffer);
  if (GST_BUFFER_DURATION_IS_VALID (buffer))
    *end = *start + GST_BUFFER_DURATION (buffer);
}

/* Timestamps and offsets of a rendered frame; counts it. */
static GstFlowReturn
finish_buffer (GstOpenCLSrcPrivate * priv, GstBuffer * buffer, GstClockTime timestamp,
    GstClockTime duration)
{
  GST_BUFFER_PTS (buffer) = timestamp;
  GST_BUFFER_DTS (buffer) = timestamp;
  GST_BUFFER_DURATION (buffer) = duration;
  GST_BUFFER_OFFSET (buffer) = priv->accum_frames + priv->frames;
  GST_BUFFER_OFFSET_END (buffer) = GST_BUFFER_OFFSET (buffer) + 1;
  priv->frames++;
  GST_LOG ("frame %" G_GUINT64_FORMAT " at %" GST_TIME_FORMAT ", kernels %" G_GUINT64_FORMAT
      " ns", GST_BUFFER_OFFSET (buffer), GST_TIME_ARGS (timestamp),
      priv->device.kernel_time_ns ());
  return GST_FLOW_OK;
}

static GstFlowReturn
gst_opencl_src_fill (GstPushSrc * push_src, GstBuffer * buffer)
{
  auto *src = GST_OPENCL_SRC (push_src);
  auto *base = GST_BASE_SRC (push_src);
  auto *priv = get_priv (src);
  auto *klass = GST_OPENCL_SRC_GET_CLASS (src);

  if (!priv->negotiated) {
    GST_ELEMENT_ERROR (src, CORE, NEGOTIATION, (nullptr), ("no caps before the first frame"));
    return GST_FLOW_NOT_NEGOTIATED;
  }
  const GstVideoInfo *info = &priv->info;
  /* A framerate of 0/1 is a still picture: one frame. */
  if (info->fps_n == 0 && priv->frames == 1)
    return GST_FLOW_EOS;

  const GstClockTime offset_time = frame_time (info, priv->frames);
  const GstClockTime timestamp = priv->accum_time + offset_time;
  const GstClockTime duration = info->fps_n > 0 ?
      frame_time (info, priv->frames + 1) - offset_time : GST_CLOCK_TIME_NONE;
  GST_OBJECT_LOCK (src);
  GstClockTime running_time = gst_segment_to_running_time (&base->segment, GST_FORMAT_TIME,
      timestamp);
  GstClockTime stream_time = gst_segment_to_stream_time (&base->segment, GST_FORMAT_TIME,
      timestamp);
  GST_OBJECT_UNLOCK (src);
  /* Outside the segment (a frame that starts before a seek position): its own timestamp. */
  if (!GST_CLOCK_TIME_IS_VALID (running_time))
    running_time = timestamp;
  if (!GST_CLOCK_TIME_IS_VALID (stream_time))
    stream_time = timestamp;

  /* Controlled properties (GstController bindings) take their values for this frame. */
  gst_object_sync_values (GST_OBJECT (src), stream_time);

  /* Into the buffer where the frame path puts it: straight into OpenCL memory (nothing waits:
   * the next reader follows on the in-order queue), a GL texture, or a host frame read back. */
  gboolean rendered = FALSE;
  gboolean ok = GST_OPENCL_GUARD (src, "rendering failed", [&]() {
    gst_opencl::FrameWork work (priv->device);
    gst_opencl::FrameTrip out (priv->device, priv->out_port, buffer,
        gst_opencl::FrameAccess::Write);
    if (priv->converter.configured ()) {
      rendered = klass->render (src, priv->device, &priv->rendered, running_time,
          stream_time);
      if (rendered)
        priv->converter.convert (priv->device, priv->rendered, out.frame ());
    } else {
      rendered = klass->render (src, priv->device, &out.frame (), running_time, stream_time);
    }
    if (rendered)
      work.end (out.finish (true));
  });
  if (!ok || !rendered)
    return GST_FLOW_ERROR;
  return finish_buffer (priv, buffer, timestamp, duration);
}

static void
gst_opencl_src_class_init (GstOpenCLSrcClass * klass)
{
  auto *gobject_class = G_OBJECT_CLASS (klass);
  auto *element_class = GST_ELEMENT_CLASS (klass);
  auto *base_class = GST_BASE_SRC_CLASS (klass);
  auto *push_class = GST_PUSH_SRC_CLASS (klass);

  gobject_class->finalize = gst_opencl_src_finalize;
  auto & properties = gst_opencl::PropertyTable::of (gobject_class);
  gst_opencl::ElementDevice::install_properties (properties,
      [] (GObject * object) -> gst_opencl::ElementDevice & {
        return get_priv (GST_OPENCL_SRC (object))->device;
      });
  element_class->change_state = gst_opencl_src_change_state;
  /**
   * GstOpenCLSrc:is-live:
   *
   * Whether the source is live: it then produces frames only in PLAYING, each when the pipeline
   * clock reaches its timestamp, and reports one frame duration of latency (no maximum).
   */
  properties.add (g_param_spec_boolean ("is-live", "Is live",
          "Produce frames in real time against the pipeline clock (latency: one frame)",
          DEFAULT_IS_LIVE, (GParamFlags) (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
              GST_PARAM_MUTABLE_READY)),
      [] (GObject * object, const GValue * value) {
        gst_base_src_set_live (GST_BASE_SRC (object), g_value_get_boolean (value));
      },
      [] (GObject * object, GValue * value) {
        g_value_set_boolean (value, gst_base_src_is_live (GST_BASE_SRC (object)));
      });

  element_class->set_context = gst_opencl_src_set_context;

  base_class->start = gst_opencl_src_start;
  base_class->stop = gst_opencl_src_stop;
  base_class->get_caps = gst_opencl_src_get_caps;
  base_class->fixate = gst_opencl_src_fixate;
  base_class->set_caps = gst_opencl_src_set_caps;
  base_class->decide_allocation = gst_opencl_src_decide_allocation;
  base_class->query = gst_opencl_src_query;
  base_class->is_seekable = gst_opencl_src_is_seekable;
  base_class->do_seek = gst_opencl_src_do_seek;
  base_class->get_times = gst_opencl_src_get_times;
  push_class->fill = gst_opencl_src_fill;

  klass->default_width = 1280;
  klass->default_height = 720;
  klass->default_fps_n = 30;
  klass->default_fps_d = 1;

  gst_type_mark_as_plugin_api (GST_TYPE_OPENCL_SRC, (GstPluginAPIFlags) 0);
}

void
gst_opencl_src_class_add_pad_template (GstOpenCLSrcClass * klass, const gchar * formats,
    gboolean gl_rgba)
{
  klass->rendered_formats = g_intern_string (formats);
  const std::string all = std::string (formats) + ", " + CONVERTED_FORMATS;
  const char *aspect = "pixel-aspect-ratio=(fraction)1/1";
  GstCaps *caps = gst_opencl::video_caps_any_memory (all.c_str (), aspect, gl_rgba);
  /* CUDA memory last: only where downstream asks for it (cudadownload, CUDA elements), and
   * only where the device reaches it (get_caps). */
  GstCaps *plain = gst_opencl::video_caps (all.c_str (), aspect);
  gst_caps_append (caps, gst_opencl::with_memory_feature (plain,
          GST_OPENCL_CAPS_FEATURE_MEMORY_CUDA));
  gst_caps_unref (plain);
  gst_element_class_add_pad_template (GST_ELEMENT_CLASS (klass),
      gst_pad_template_new ("src", GST_PAD_SRC, GST_PAD_ALWAYS, caps));
  gst_caps_unref (caps);
}

guint64
gst_opencl_src_frame_number (GstOpenCLSrc * src)
{
  auto *priv = get_priv (src);
  return priv->accum_frames + priv->frames;
}
