/* gst-opencl: abstract base class for video filters that run OpenCL kernels.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Per frame: map the input and output frames, enqueue one non-blocking write per input plane,
 * let the subclass enqueue its kernels, enqueue one read per output plane and wait for the last
 * (the only wait: the host needs the pixels). Device buffers are sized in set_caps and only grow
 * when a buffer arrives with larger strides; programs come from the context's cache.
 *
 * Analysis elements (gst_opencl_filter_set_analysis ()) run in place instead: the one device copy
 * of the frame is uploaded, process_ip () reads it, and it is read back only when the subclass
 * drew into it; otherwise the frame goes on untouched (passthrough, no copy). */
#include "opencl/gstopenclfilter.h"

#include <atomic>
#include <mutex>
#include <new>
#include <vector>

#include "opencl/gstopenclgl.h"
#include "opencl/gstopenclutils.h"

#define GST_CAT_DEFAULT gst_opencl_debug

enum
{
  PROP_0,
  PROP_DEVICE,
  PROP_DEVICE_NAME,
  PROP_KERNEL_TIME,
};

namespace {

/* Bytes a plane occupies in a frame: every row at full stride but the last, which only needs
 * its pixels (the last row of a buffer is often not padded). */
struct PlaneLayout
{
  gsize offset_bytes;
  gsize size_bytes;
};

gsize
plane_row_bytes (const GstVideoInfo * info, guint plane)
{
  for (guint comp = 0; comp < GST_VIDEO_INFO_N_COMPONENTS (info); comp++) {
    if (GST_VIDEO_FORMAT_INFO_PLANE (info->finfo, comp) == plane)
      return (gsize) GST_VIDEO_INFO_COMP_WIDTH (info, comp) *
          GST_VIDEO_INFO_COMP_PSTRIDE (info, comp);
  }
  return 0;
}

gsize
plane_rows (const GstVideoInfo * info, guint plane)
{
  for (guint comp = 0; comp < GST_VIDEO_INFO_N_COMPONENTS (info); comp++) {
    if (GST_VIDEO_FORMAT_INFO_PLANE (info->finfo, comp) == plane)
      return (gsize) GST_VIDEO_INFO_COMP_HEIGHT (info, comp);
  }
  return 0;
}

/* Device layout for a mapped frame: planes packed one after another with the frame's strides.
 * Writes the offsets into `device_info` and returns the bytes needed. */
gsize
device_layout (const GstVideoFrame * frame, GstVideoInfo * device_info,
    std::vector<PlaneLayout> & planes)
{
  *device_info = frame->info;
  planes.clear ();
  gsize total = 0;
  for (guint plane = 0; plane < GST_VIDEO_FRAME_N_PLANES (frame); plane++) {
    gsize stride = (gsize) GST_VIDEO_FRAME_PLANE_STRIDE (frame, plane);
    gsize rows = plane_rows (&frame->info, plane);
    gsize size = rows ? stride * (rows - 1) + plane_row_bytes (&frame->info, plane) : 0;
    device_info->offset[plane] = total;
    planes.push_back ({ total, size });
    total += stride * rows;
  }
  return total;
}

}  // namespace

struct GstOpenCLFilterPrivate
{
  std::mutex settings_lock;
  std::string device_string;

  GstOpenCLContext *context = nullptr;  /* guarded by the object lock while it changes */
  std::atomic<guint64> kernel_time_ns { 0 };

  /* State derived from caps. */
  GstVideoInfo in_info {};
  GstVideoInfo out_info {};
  bool in_gl = false;
  bool out_gl = false;
  GstOpenCLFrame in_frame;
  GstOpenCLFrame out_frame;
  gsize in_capacity_bytes = 0;
  gsize out_capacity_bytes = 0;
  std::vector<PlaneLayout> in_planes;
  std::vector<PlaneLayout> out_planes;
  std::vector<cl::Event> kernel_events;  /* capacity kept between frames */

  gst_opencl::GlBridge gl;
};

G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE (GstOpenCLFilter, gst_opencl_filter,
    GST_TYPE_BASE_TRANSFORM);

/* GObject hands out zeroed private memory; the C++ members are constructed in place in init and
 * destroyed in finalize. */
static GstOpenCLFilterPrivate *
get_priv (GstOpenCLFilter * filter)
{
  return static_cast<GstOpenCLFilterPrivate *> (gst_opencl_filter_get_instance_private (filter));
}

static void
gst_opencl_filter_init (GstOpenCLFilter * filter)
{
  new (gst_opencl_filter_get_instance_private (filter)) GstOpenCLFilterPrivate ();
  gst_base_transform_set_qos_enabled (GST_BASE_TRANSFORM (filter), TRUE);
}

static void
gst_opencl_filter_finalize (GObject * object)
{
  auto *priv = get_priv (GST_OPENCL_FILTER (object));
  gst_clear_object (&priv->context);
  priv->~GstOpenCLFilterPrivate ();
  G_OBJECT_CLASS (gst_opencl_filter_parent_class)->finalize (object);
}

static void
gst_opencl_filter_set_property (GObject * object, guint prop_id, const GValue * value,
    GParamSpec * pspec)
{
  auto *priv = get_priv (GST_OPENCL_FILTER (object));
  switch (prop_id) {
    case PROP_DEVICE:{
      std::lock_guard<std::mutex> lock (priv->settings_lock);
      const gchar *text = g_value_get_string (value);
      priv->device_string = text ? text : "";
      GST_DEBUG_OBJECT (object, "device set to \"%s\"", priv->device_string.c_str ());
      break;
    }
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
gst_opencl_filter_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  auto *priv = get_priv (GST_OPENCL_FILTER (object));
  switch (prop_id) {
    case PROP_DEVICE:{
      std::lock_guard<std::mutex> lock (priv->settings_lock);
      g_value_set_string (value, priv->device_string.c_str ());
      break;
    }
    case PROP_DEVICE_NAME:
      GST_OBJECT_LOCK (object);
      g_value_set_string (value, priv->context ?
          gst_opencl_context_device (priv->context).name.c_str () : nullptr);
      GST_OBJECT_UNLOCK (object);
      break;
    case PROP_KERNEL_TIME:
      g_value_set_uint64 (value, priv->kernel_time_ns.load ());
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static std::string
device_string (GstOpenCLFilterPrivate * priv)
{
  std::lock_guard<std::mutex> lock (priv->settings_lock);
  return gst_opencl::effective_device_string (priv->device_string);
}

static void
gst_opencl_filter_set_context (GstElement * element, GstContext * context)
{
  auto *priv = get_priv (GST_OPENCL_FILTER (element));
  auto spec = gst_opencl::parse_device_spec (device_string (priv));
  if (spec)
    gst_opencl_handle_set_context (element, context, *spec, &priv->context);
  priv->gl.set_context (element, context);
  GST_ELEMENT_CLASS (gst_opencl_filter_parent_class)->set_context (element, context);
}

static gboolean
gst_opencl_filter_query (GstBaseTransform * trans, GstPadDirection direction, GstQuery * query)
{
  auto *priv = get_priv (GST_OPENCL_FILTER (trans));
  if (GST_QUERY_TYPE (query) == GST_QUERY_CONTEXT) {
    GST_OBJECT_LOCK (trans);
    GstOpenCLContext *context = priv->context ? GST_OPENCL_CONTEXT (gst_object_ref (priv->context))
        : nullptr;
    GST_OBJECT_UNLOCK (trans);
    gboolean answered = gst_opencl_handle_context_query (GST_ELEMENT (trans), query, context);
    gst_clear_object (&context);
    if (answered || priv->gl.handle_context_query (GST_ELEMENT (trans), query))
      return TRUE;
  }
  return GST_BASE_TRANSFORM_CLASS (gst_opencl_filter_parent_class)->query (trans, direction,
      query);
}

static gboolean
gst_opencl_filter_start (GstBaseTransform * trans)
{
  auto *priv = get_priv (GST_OPENCL_FILTER (trans));
  priv->kernel_time_ns = 0;
  return GST_OPENCL_GUARD (trans, "cannot open the OpenCL device", [&]() {
    gst_opencl_ensure_element_context (GST_ELEMENT (trans), device_string (priv),
        &priv->context);
    GST_INFO_OBJECT (trans, "running on %s",
        gst_opencl_context_device (priv->context).name.c_str ());
  });
}

static gboolean
gst_opencl_filter_stop (GstBaseTransform * trans)
{
  auto *priv = get_priv (GST_OPENCL_FILTER (trans));
  priv->in_frame = GstOpenCLFrame ();
  priv->out_frame = GstOpenCLFrame ();
  priv->in_capacity_bytes = priv->out_capacity_bytes = 0;
  priv->kernel_events.clear ();
  priv->gl.reset ();
  GST_OBJECT_LOCK (trans);
  GstOpenCLContext *context = priv->context;
  priv->context = nullptr;
  GST_OBJECT_UNLOCK (trans);
  gst_clear_object (&context);
  return TRUE;
}

static void
check_fits_device (GstOpenCLFilter * filter, const GstVideoInfo * info)
{
  const auto & device = gst_opencl_filter_device (filter);
  if ((guint64) info->size > device.max_alloc_bytes || info->width > G_MAXINT / 8 ||
      info->height > G_MAXINT / 8) {
    gchar *message = g_strdup_printf ("a %dx%d frame (%" G_GSIZE_FORMAT " bytes) exceeds the "
        "largest buffer %s can allocate (%" G_GUINT64_FORMAT " bytes)", info->width,
        info->height, info->size, device.name.c_str (), (guint64) device.max_alloc_bytes);
    std::string text (message);
    g_free (message);
    throw gst_opencl::Failure (gst_opencl::Failure::Kind::TooLarge, text);
  }
}

/* Makes `frame` hold at least `bytes`, reallocating only when it grows. */
static void
ensure_capacity (GstOpenCLFilter * filter, GstOpenCLFrame & frame, gsize & capacity,
    gsize bytes, cl_mem_flags flags)
{
  if (bytes <= capacity && frame.buffer ())
    return;
  auto & device = gst_opencl_filter_device (filter);
  if (bytes > device.max_alloc_bytes)
    throw gst_opencl::Failure (gst_opencl::Failure::Kind::TooLarge,
        "frame needs " + std::to_string (bytes) + " bytes, more than the device allows");
  frame.buffer = cl::Buffer (device.context, flags, MAX (bytes, (gsize) 1));
  capacity = bytes;
  GST_DEBUG_OBJECT (filter, "device frame buffer of %" G_GSIZE_FORMAT " bytes", bytes);
}

/* In-place elements read the frame back after their kernels drew into it. */
static cl_mem_flags
input_flags (GstBaseTransform * trans)
{
  return gst_base_transform_is_in_place (trans) ? CL_MEM_READ_WRITE :
      CL_MEM_READ_ONLY | CL_MEM_HOST_WRITE_ONLY;
}

static gboolean
gst_opencl_filter_set_caps (GstBaseTransform * trans, GstCaps * incaps, GstCaps * outcaps)
{
  auto *filter = GST_OPENCL_FILTER (trans);
  auto *priv = get_priv (filter);
  auto *klass = GST_OPENCL_FILTER_GET_CLASS (filter);

  if (!gst_video_info_from_caps (&priv->in_info, incaps) ||
      !gst_video_info_from_caps (&priv->out_info, outcaps)) {
    GST_ELEMENT_ERROR (trans, CORE, NEGOTIATION, ("invalid caps"),
        ("in %" GST_PTR_FORMAT ", out %" GST_PTR_FORMAT, incaps, outcaps));
    return FALSE;
  }
  priv->in_gl = gst_opencl::GlBridge::caps_are_gl (incaps);
  priv->out_gl = gst_opencl::GlBridge::caps_are_gl (outcaps);

  gboolean ok = GST_OPENCL_GUARD (trans, "cannot configure the filter", [&]() {
    if (!priv->context)
      throw gst_opencl::Failure (gst_opencl::Failure::Kind::NotFound, "no OpenCL device");
    check_fits_device (filter, &priv->in_info);
    check_fits_device (filter, &priv->out_info);
    ensure_capacity (filter, priv->in_frame, priv->in_capacity_bytes, priv->in_info.size,
        input_flags (trans));
    /* In place, kernels read and write the input copy: no output buffer on the device. */
    if (!gst_base_transform_is_in_place (trans))
      ensure_capacity (filter, priv->out_frame, priv->out_capacity_bytes, priv->out_info.size,
          CL_MEM_WRITE_ONLY | CL_MEM_HOST_READ_ONLY);
  });
  if (!ok)
    return FALSE;
  GST_DEBUG_OBJECT (trans, "in %" GST_PTR_FORMAT " (gl %d), out %" GST_PTR_FORMAT " (gl %d)",
      incaps, priv->in_gl, outcaps, priv->out_gl);
  return klass->set_info ? klass->set_info (filter, &priv->in_info, &priv->out_info) : TRUE;
}

/* Output buffers are sized from the output caps, never from the (possibly tight or padded)
 * input buffer. */
static gboolean
gst_opencl_filter_transform_size (GstBaseTransform *, GstPadDirection, GstCaps *, gsize,
    GstCaps * othercaps, gsize * othersize)
{
  GstVideoInfo info;
  if (!gst_video_info_from_caps (&info, othercaps))
    return FALSE;
  *othersize = info.size;
  return TRUE;
}

static gboolean
gst_opencl_filter_propose_allocation (GstBaseTransform * trans, GstQuery * decide_query,
    GstQuery * query)
{
  if (!GST_BASE_TRANSFORM_CLASS (gst_opencl_filter_parent_class)->propose_allocation (trans,
          decide_query, query))
    return FALSE;
  /* Kernels take any stride: upstream may hand over padded frames. In place (analysis) the
   * frames go on downstream as they came, so only downstream's answer (forwarded above) counts. */
  if (!gst_base_transform_is_in_place (trans))
    gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, nullptr);
  return TRUE;
}

static gboolean
gst_opencl_filter_decide_allocation (GstBaseTransform * trans, GstQuery * query)
{
  auto *priv = get_priv (GST_OPENCL_FILTER (trans));
  GstCaps *caps = nullptr;
  gst_query_parse_allocation (query, &caps, nullptr);
  if (caps && gst_opencl::GlBridge::caps_are_gl (caps) &&
      !priv->gl.decide_allocation (GST_ELEMENT (trans), query))
    return FALSE;
  return GST_BASE_TRANSFORM_CLASS (gst_opencl_filter_parent_class)->decide_allocation (trans,
      query);
}

static void
record_kernel_time (GstOpenCLFilterPrivate * priv)
{
  guint64 total_ns = 0;
  for (const auto & event : priv->kernel_events) {
    total_ns += event.getProfilingInfo<CL_PROFILING_COMMAND_END> () -
        event.getProfilingInfo<CL_PROFILING_COMMAND_START> ();
  }
  priv->kernel_time_ns = total_ns;
  priv->kernel_events.clear ();
}

/* One non-blocking write per plane of the mapped frame; it must stay mapped until the queue has
 * passed them. */
static void
upload_planes (cl::CommandQueue & queue, GstVideoFrame * frame, const GstOpenCLFrame & device,
    const std::vector<PlaneLayout> & planes)
{
  for (guint plane = 0; plane < planes.size (); plane++) {
    const auto & layout = planes[plane];
    if (layout.size_bytes)
      queue.enqueueWriteBuffer (device.buffer, CL_FALSE, layout.offset_bytes, layout.size_bytes,
          GST_VIDEO_FRAME_PLANE_DATA (frame, plane));
  }
}

/* One read per plane into the mapped frame; the last blocks, which is the frame's one wait. */
static void
download_planes (cl::CommandQueue & queue, const GstOpenCLFrame & device,
    const std::vector<PlaneLayout> & planes, GstVideoFrame * frame)
{
  for (guint plane = 0; plane < planes.size (); plane++) {
    const auto & layout = planes[plane];
    bool last = plane + 1 == planes.size ();
    if (layout.size_bytes)
      queue.enqueueReadBuffer (device.buffer, last ? CL_TRUE : CL_FALSE, layout.offset_bytes,
          layout.size_bytes, GST_VIDEO_FRAME_PLANE_DATA (frame, plane));
    else if (last)
      queue.finish ();
  }
}

static GstFlowReturn
gst_opencl_filter_transform (GstBaseTransform * trans, GstBuffer * inbuf, GstBuffer * outbuf)
{
  auto *filter = GST_OPENCL_FILTER (trans);
  auto *priv = get_priv (filter);
  auto *klass = GST_OPENCL_FILTER_GET_CLASS (filter);

  GstVideoFrame in_frame, out_frame;
  if (!gst_video_frame_map (&in_frame, &priv->in_info, inbuf, GST_MAP_READ)) {
    GST_ELEMENT_ERROR (trans, STREAM, FAILED, ("cannot map the input frame"), (nullptr));
    return GST_FLOW_ERROR;
  }
  if (!gst_video_frame_map (&out_frame, &priv->out_info, outbuf, GST_MAP_WRITE)) {
    gst_video_frame_unmap (&in_frame);
    GST_ELEMENT_ERROR (trans, STREAM, FAILED, ("cannot map the output frame"), (nullptr));
    return GST_FLOW_ERROR;
  }

  gboolean processed = FALSE;
  gboolean ok = GST_OPENCL_GUARD (trans, "frame processing failed", [&]() {
    auto & queue = gst_opencl_filter_device (filter).queue;
    gsize in_bytes = device_layout (&in_frame, &priv->in_frame.info, priv->in_planes);
    gsize out_bytes = device_layout (&out_frame, &priv->out_frame.info, priv->out_planes);
    ensure_capacity (filter, priv->in_frame, priv->in_capacity_bytes, in_bytes,
        CL_MEM_READ_ONLY | CL_MEM_HOST_WRITE_ONLY);
    ensure_capacity (filter, priv->out_frame, priv->out_capacity_bytes, out_bytes,
        CL_MEM_WRITE_ONLY | CL_MEM_HOST_READ_ONLY);

    /* The frame stays mapped until the final blocking read, so non-blocking writes are safe. */
    upload_planes (queue, &in_frame, priv->in_frame, priv->in_planes);
    processed = klass->process (filter, &priv->in_frame, &priv->out_frame);
    if (!processed) {
      queue.finish ();
      priv->kernel_events.clear ();
      return;
    }
    download_planes (queue, priv->out_frame, priv->out_planes, &out_frame);
    record_kernel_time (priv);
  });

  gst_video_frame_unmap (&out_frame);
  gst_video_frame_unmap (&in_frame);
  return ok && processed ? GST_FLOW_OK : GST_FLOW_ERROR;
}

/* In-place (analysis) mode: upload, let the subclass read (and, when it may, write) the device
 * copy, read the planes back only when it wrote, and wait once either way. */
static GstFlowReturn
gst_opencl_filter_transform_ip (GstBaseTransform * trans, GstBuffer * buffer)
{
  auto *filter = GST_OPENCL_FILTER (trans);
  auto *priv = get_priv (filter);
  auto *klass = GST_OPENCL_FILTER_GET_CLASS (filter);
  if (!klass->process_ip) {
    GST_ELEMENT_ERROR (trans, CORE, NOT_IMPLEMENTED, ("no in-place processing"),
        ("%s has no process_ip", G_OBJECT_TYPE_NAME (trans)));
    return GST_FLOW_ERROR;
  }

  /* In passthrough the buffer is shared with upstream and must not be touched. */
  gboolean writable = !gst_base_transform_is_passthrough (trans) &&
      gst_buffer_is_writable (buffer);
  GstVideoFrame frame;
  if (!gst_video_frame_map (&frame, &priv->in_info, buffer,
          writable ? GST_MAP_READWRITE : GST_MAP_READ)) {
    GST_ELEMENT_ERROR (trans, STREAM, FAILED, ("cannot map the frame"), (nullptr));
    return GST_FLOW_ERROR;
  }

  gboolean processed = FALSE;
  gboolean ok = GST_OPENCL_GUARD (trans, "frame analysis failed", [&]() {
    auto & queue = gst_opencl_filter_device (filter).queue;
    gsize bytes = device_layout (&frame, &priv->in_frame.info, priv->in_planes);
    ensure_capacity (filter, priv->in_frame, priv->in_capacity_bytes, bytes, input_flags (trans));
    upload_planes (queue, &frame, priv->in_frame, priv->in_planes);
    gboolean written = FALSE;
    processed = klass->process_ip (filter, &priv->in_frame, writable, &written);
    if (processed && written && writable)
      download_planes (queue, priv->in_frame, priv->in_planes, &frame);
    else
      queue.finish ();
    if (processed)
      record_kernel_time (priv);
    else
      priv->kernel_events.clear ();
  });

  gst_video_frame_unmap (&frame);
  return ok && processed ? GST_FLOW_OK : GST_FLOW_ERROR;
}

static void
gst_opencl_filter_class_init (GstOpenCLFilterClass * klass)
{
  auto *gobject_class = G_OBJECT_CLASS (klass);
  auto *element_class = GST_ELEMENT_CLASS (klass);
  auto *trans_class = GST_BASE_TRANSFORM_CLASS (klass);

  gobject_class->finalize = gst_opencl_filter_finalize;
  gobject_class->set_property = gst_opencl_filter_set_property;
  gobject_class->get_property = gst_opencl_filter_get_property;

  /**
   * GstOpenCLFilter:device:
   *
   * The OpenCL device: empty for automatic (the first GPU, else the first CPU device), "gpu",
   * "cpu", or "<platform name substring>[:<device index>]". When empty, the environment variable
   * GST_OPENCL_DEVICE is read. Takes effect at the next start.
   */
  g_object_class_install_property (gobject_class, PROP_DEVICE,
      g_param_spec_string ("device", "Device",
          "OpenCL device: empty = automatic (first GPU, else first CPU; GST_OPENCL_DEVICE "
          "overrides), \"gpu\", \"cpu\" or \"<platform name substring>[:<device index>]\"",
          "", (GParamFlags) (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
              GST_PARAM_MUTABLE_READY)));
  /**
   * GstOpenCLFilter:device-name:
   *
   * The device in use, "<device name> (<platform name>)"; NULL before the element starts.
   */
  g_object_class_install_property (gobject_class, PROP_DEVICE_NAME,
      g_param_spec_string ("device-name", "Device name",
          "The OpenCL device in use, as \"<device> (<platform>)\" (set once started)", nullptr,
          (GParamFlags) (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS)));
  /**
   * GstOpenCLFilter:kernel-time:
   *
   * Device time of the kernels of the last frame, in nanoseconds, from OpenCL profiling events.
   */
  g_object_class_install_property (gobject_class, PROP_KERNEL_TIME,
      g_param_spec_uint64 ("kernel-time", "Kernel time",
          "Device time of the last frame's kernels in nanoseconds (OpenCL profiling events)",
          0, G_MAXUINT64, 0, (GParamFlags) (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS)));

  element_class->set_context = gst_opencl_filter_set_context;

  trans_class->passthrough_on_same_caps = FALSE;
  trans_class->start = gst_opencl_filter_start;
  trans_class->stop = gst_opencl_filter_stop;
  trans_class->set_caps = gst_opencl_filter_set_caps;
  trans_class->query = gst_opencl_filter_query;
  trans_class->propose_allocation = gst_opencl_filter_propose_allocation;
  trans_class->decide_allocation = gst_opencl_filter_decide_allocation;
  trans_class->transform = gst_opencl_filter_transform;
  /* Used only by elements that call gst_opencl_filter_set_analysis (). */
  trans_class->transform_ip = gst_opencl_filter_transform_ip;
  trans_class->transform_size = gst_opencl_filter_transform_size;

  gst_type_mark_as_plugin_api (GST_TYPE_OPENCL_FILTER, (GstPluginAPIFlags) 0);
}

void
gst_opencl_filter_class_add_pad_templates (GstOpenCLFilterClass * klass, const gchar * formats,
    gboolean gl_rgba)
{
  gchar *text = g_strdup_printf ("video/x-raw, format=(string){ %s }, "
      "width=(int)[1, max], height=(int)[1, max], framerate=(fraction)[0/1, max]", formats);
  GstCaps *caps = gst_caps_from_string (text);
  g_free (text);
#ifdef HAVE_GL
  if (gl_rgba) {
    gst_caps_append (caps, gst_caps_from_string ("video/x-raw(memory:GLMemory), "
            "format=(string)RGBA, texture-target=(string)2D, width=(int)[1, max], "
            "height=(int)[1, max], framerate=(fraction)[0/1, max]"));
  }
#else
  (void) gl_rgba;
#endif
  auto *element_class = GST_ELEMENT_CLASS (klass);
  gst_element_class_add_pad_template (element_class,
      gst_pad_template_new ("sink", GST_PAD_SINK, GST_PAD_ALWAYS, caps));
  gst_element_class_add_pad_template (element_class,
      gst_pad_template_new ("src", GST_PAD_SRC, GST_PAD_ALWAYS, caps));
  gst_caps_unref (caps);
}

void
gst_opencl_filter_set_analysis (GstOpenCLFilter * filter, gboolean writes_frames)
{
  auto *trans = GST_BASE_TRANSFORM (filter);
  gst_base_transform_set_in_place (trans, TRUE);
  gst_base_transform_set_passthrough (trans, !writes_frames);
}

gst_opencl::Device &
gst_opencl_filter_device (GstOpenCLFilter * filter)
{
  return gst_opencl_context_device (get_priv (filter)->context);
}

void
gst_opencl_filter_launch (GstOpenCLFilter * filter, const cl::Kernel & kernel,
    const cl::NDRange & global, const cl::NDRange & local)
{
  auto *priv = get_priv (filter);
  size_t rounded[3] = { 1, 1, 1 };
  for (size_t axis = 0; axis < global.dimensions (); axis++) {
    size_t group = local.dimensions () > axis ? local.get ()[axis] : 1;
    rounded[axis] = (global.get ()[axis] + group - 1) / group * group;
  }
  cl::NDRange padded = global.dimensions () == 1 ? cl::NDRange (rounded[0]) :
      global.dimensions () == 2 ? cl::NDRange (rounded[0], rounded[1]) :
      cl::NDRange (rounded[0], rounded[1], rounded[2]);
  cl::Event event;
  gst_opencl_context_device (priv->context).queue.enqueueNDRangeKernel (kernel, cl::NullRange,
      padded, local, nullptr, &event);
  priv->kernel_events.push_back (event);
}
