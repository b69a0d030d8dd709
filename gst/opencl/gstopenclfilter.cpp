/* gst-opencl: abstract base class for video filters that run OpenCL kernels.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Per frame: map the input and output frames, enqueue one non-blocking write per input plane,
 * let the subclass enqueue its kernels, enqueue one read per output plane and wait for the last
 * (the only wait: the host needs the pixels). Device buffers are sized in set_caps and only grow
 * when a buffer arrives with larger strides; programs come from the context's cache.
 *
 * Analysis elements (gst_opencl_filter_set_analysis ()) run in place instead, with the same caps
 * on both sides: process_ip () reads the frame where it is (OpenCL memory) or from one upload of
 * the host frame, which is read back only when the subclass drew into it; otherwise the frame
 * goes on untouched (passthrough, no copy). */
#include "opencl/gstopenclfilter.h"

#include <new>
#include <vector>

#include "opencl/gstopenclelement.h"
#include "opencl/gstopenclframe.h"
#include "opencl/gstopenclgl.h"
#include "opencl/gstopenclglinterop.h"
#include "opencl/gstopenclmemory.h"
#include "opencl/gstopenclutils.h"
#include "opencl/gstopenclstats.h"

#define GST_CAT_DEFAULT gst_opencl_debug

enum
{
  PROP_0,
  PROP_DEVICE_FIRST,  /* device, device-name, kernel-time: see gstopenclelement.h */
};

namespace {

/* Bytes a plane occupies in a frame: every row at full stride but the last, which only needs
 * its pixels (the last row of a buffer is often not padded). */
struct PlaneLayout
{
  gsize offset_bytes;
  gsize size_bytes;
};

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
    gsize rows = gst_opencl::plane_rows (&frame->info, plane);
    gsize size = rows ? stride * (rows - 1) + gst_opencl::plane_row_bytes (&frame->info, plane) : 0;
    device_info->offset[plane] = total;
    planes.push_back ({ total, size });
    total += stride * rows;
  }
  return total;
}

}  // namespace

struct GstOpenCLFilterPrivate
{
  gst_opencl::ElementDevice device;

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

  gst_opencl::GlBridge gl;
  /* GL frames in and out (in place: `in_interop` both ways). */
  gst_opencl::GlInterop in_interop;
  gst_opencl::GlInterop out_interop;
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
  priv->~GstOpenCLFilterPrivate ();
  G_OBJECT_CLASS (gst_opencl_filter_parent_class)->finalize (object);
}

static void
gst_opencl_filter_set_property (GObject * object, guint prop_id, const GValue * value,
    GParamSpec * pspec)
{
  auto *priv = get_priv (GST_OPENCL_FILTER (object));
  if (!priv->device.set_property (PROP_DEVICE_FIRST, prop_id, value))
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
}

static void
gst_opencl_filter_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  auto *priv = get_priv (GST_OPENCL_FILTER (object));
  if (!priv->device.get_property (GST_ELEMENT (object), PROP_DEVICE_FIRST, prop_id, value))
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
}

static void
gst_opencl_filter_set_context (GstElement * element, GstContext * context)
{
  auto *priv = get_priv (GST_OPENCL_FILTER (element));
  priv->device.set_context (element, context);
  priv->gl.set_context (element, context);
  GST_ELEMENT_CLASS (gst_opencl_filter_parent_class)->set_context (element, context);
}

static gboolean
gst_opencl_filter_query (GstBaseTransform * trans, GstPadDirection direction, GstQuery * query)
{
  auto *priv = get_priv (GST_OPENCL_FILTER (trans));
  if (GST_QUERY_TYPE (query) == GST_QUERY_CONTEXT &&
      (priv->device.handle_context_query (GST_ELEMENT (trans), query) ||
          priv->gl.handle_context_query (GST_ELEMENT (trans), query)))
    return TRUE;
  return GST_BASE_TRANSFORM_CLASS (gst_opencl_filter_parent_class)->query (trans, direction,
      query);
}

static gboolean
gst_opencl_filter_start (GstBaseTransform * trans)
{
  auto *priv = get_priv (GST_OPENCL_FILTER (trans));
  return GST_OPENCL_GUARD (trans, "cannot open the OpenCL device", [&]() {
    priv->device.start (GST_ELEMENT (trans));
  });
}

static gboolean
gst_opencl_filter_stop (GstBaseTransform * trans)
{
  auto *priv = get_priv (GST_OPENCL_FILTER (trans));
  priv->in_frame = GstOpenCLFrame ();
  priv->out_frame = GstOpenCLFrame ();
  priv->in_capacity_bytes = priv->out_capacity_bytes = 0;
  priv->in_interop.reset ();
  priv->out_interop.reset ();
  priv->gl.reset ();
  priv->device.stop (GST_ELEMENT (trans));
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
  const bool in_place = gst_base_transform_is_in_place (trans);

  priv->in_interop.reset ();
  priv->out_interop.reset ();
  if (priv->device.started ()) {
    bool context_changed = false;
    if (!gst_opencl::configure_gl_interop (GST_ELEMENT (trans), priv->device, priv->gl,
            priv->in_gl ? &priv->in_interop : nullptr, &priv->in_info,
            priv->out_gl && !in_place ? &priv->out_interop : nullptr, &priv->out_info,
            &context_changed))
      return FALSE;
    if (context_changed) {
      priv->in_frame = GstOpenCLFrame ();
      priv->out_frame = GstOpenCLFrame ();
      priv->in_capacity_bytes = priv->out_capacity_bytes = 0;
    }
  }

  gboolean ok = GST_OPENCL_GUARD (trans, "cannot configure the filter", [&]() {
    if (!priv->device.started ())
      throw gst_opencl::Failure (gst_opencl::Failure::Kind::NotFound, "no OpenCL device");
    check_fits_device (filter, &priv->in_info);
    check_fits_device (filter, &priv->out_info);
    ensure_capacity (filter, priv->in_frame, priv->in_capacity_bytes, priv->in_info.size,
        input_flags (trans));
    /* In place, kernels read and write the input copy: no output buffer on the device. */
    if (!in_place)
      ensure_capacity (filter, priv->out_frame, priv->out_capacity_bytes, priv->out_info.size,
          CL_MEM_WRITE_ONLY | CL_MEM_HOST_READ_ONLY);
  });
  if (!ok)
    return FALSE;
  GST_DEBUG_OBJECT (trans, "in %" GST_PTR_FORMAT " (gl %d), out %" GST_PTR_FORMAT " (gl %d)",
      incaps, priv->in_gl, outcaps, priv->out_gl);
  return klass->set_info ? klass->set_info (filter, &priv->in_info, &priv->out_info) : TRUE;
}

/* Same format and size on both sides; frames in system or OpenCL memory may come out in either,
 * OpenCL memory first, so a chain of the plugin's elements keeps its frames on the device while
 * other elements downstream still get system memory. GL memory stays GL memory. */
static GstCaps *
gst_opencl_filter_transform_caps (GstBaseTransform * trans, GstPadDirection, GstCaps * caps,
    GstCaps * filter)
{
  /* In place (analysis), frames leave as they came: the same caps, memory included. */
  if (gst_base_transform_is_in_place (trans))
    return filter ? gst_caps_intersect_full (filter, caps, GST_CAPS_INTERSECT_FIRST) :
        gst_caps_ref (caps);
  return gst_opencl::transform_caps_any_memory (caps, filter);
}

/* Of the output caps downstream accepts, OpenCL memory is taken when it is there: the next
 * element then reads the frame where it already is. */
static GstCaps *
gst_opencl_filter_fixate_caps (GstBaseTransform * trans, GstPadDirection direction,
    GstCaps * caps, GstCaps * othercaps)
{
  if (direction == GST_PAD_SINK)
    othercaps = gst_opencl::prefer_opencl_memory (othercaps);
  return GST_BASE_TRANSFORM_CLASS (gst_opencl_filter_parent_class)->fixate_caps (trans,
      direction, caps, othercaps);
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
  if (caps && gst_opencl::caps_are_opencl_memory (caps)) {
    gboolean ok = FALSE;
    GST_OPENCL_GUARD (trans, "cannot create an OpenCL buffer pool", [&]() {
      ok = gst_opencl::decide_opencl_pool (GST_ELEMENT (trans), query,
          priv->device.context ());
    });
    if (!ok)
      return FALSE;
  }
  return GST_BASE_TRANSFORM_CLASS (gst_opencl_filter_parent_class)->decide_allocation (trans,
      query);
}

/* Controlled properties (GstController) take their values at the frame's stream time. */
static void
gst_opencl_filter_before_transform (GstBaseTransform * trans, GstBuffer * buffer)
{
  GstClockTime stream_time = gst_segment_to_stream_time (&trans->segment, GST_FORMAT_TIME,
      GST_BUFFER_PTS (buffer));
  if (GST_CLOCK_TIME_IS_VALID (stream_time))
    gst_object_sync_values (GST_OBJECT (trans), stream_time);
}

/* One non-blocking write per plane of the mapped frame; it must stay mapped until the queue has
 * passed them (`last_write` tells when). */
static void
upload_planes (cl::CommandQueue & queue, GstVideoFrame * frame, const GstOpenCLFrame & device,
    const std::vector<PlaneLayout> & planes, cl::Event * last_write)
{
  for (guint plane = 0; plane < planes.size (); plane++) {
    const auto & layout = planes[plane];
    gst_opencl::count_transfer (true, layout.size_bytes);
    if (layout.size_bytes)
      queue.enqueueWriteBuffer (device.buffer, CL_FALSE, layout.offset_bytes, layout.size_bytes,
          GST_VIDEO_FRAME_PLANE_DATA (frame, plane), nullptr, last_write);
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
    gst_opencl::count_transfer (false, layout.size_bytes);
    if (layout.size_bytes)
      queue.enqueueReadBuffer (device.buffer, last ? CL_TRUE : CL_FALSE, layout.offset_bytes,
          layout.size_bytes, GST_VIDEO_FRAME_PLANE_DATA (frame, plane));
    else if (last)
      queue.finish ();
  }
}

/* A frame's device side: the buffer's own OpenCL memory when it has some (of this element's
 * context), else the element's staging buffer, filled from or read into the mapped host frame. */
struct FrameSide
{
  GstOpenCLFrame resident;
  GstVideoFrame host {};
  bool mapped = false;
  bool interop = false;  /* `resident` is the GL interop's device frame */

  ~FrameSide ()
  {
    if (mapped)
      gst_video_frame_unmap (&host);
  }
};

static const GstOpenCLFrame *
input_side (GstOpenCLFilterPrivate * priv, GstOpenCLFilter * filter, GstBuffer * buffer,
    FrameSide & side, cl::Event * upload_done)
{
  gst_opencl::DeviceFrameView view;
  if (gst_opencl::buffer_device_frame (buffer, priv->device.context (), false, &view)) {
    side.resident.buffer = view.buffer;
    side.resident.info = view.info;
    return &side.resident;
  }
  if (priv->in_gl && priv->in_interop.to_device (buffer, &side.resident)) {
    side.interop = true;
    return &side.resident;
  }
  if (!gst_video_frame_map (&side.host, &priv->in_info, buffer, GST_MAP_READ))
    throw gst_opencl::Failure (gst_opencl::Failure::Kind::Failed, "cannot map the input frame");
  side.mapped = true;
  gsize bytes = device_layout (&side.host, &priv->in_frame.info, priv->in_planes);
  ensure_capacity (filter, priv->in_frame, priv->in_capacity_bytes, bytes,
      CL_MEM_READ_ONLY | CL_MEM_HOST_WRITE_ONLY);
  upload_planes (priv->device.device ().queue, &side.host, priv->in_frame, priv->in_planes,
      upload_done);
  return &priv->in_frame;
}

static const GstOpenCLFrame *
output_side (GstOpenCLFilterPrivate * priv, GstOpenCLFilter * filter, GstBuffer * buffer,
    FrameSide & side)
{
  gst_opencl::DeviceFrameView view;
  if (gst_opencl::buffer_device_frame (buffer, priv->device.context (), true, &view)) {
    side.resident.buffer = view.buffer;
    side.resident.info = view.info;
    return &side.resident;
  }
  if (priv->out_gl && priv->out_interop.device_frame (buffer, &side.resident)) {
    side.interop = true;
    return &side.resident;
  }
  if (!gst_video_frame_map (&side.host, &priv->out_info, buffer, GST_MAP_WRITE))
    throw gst_opencl::Failure (gst_opencl::Failure::Kind::Failed,
        "cannot map the output frame");
  side.mapped = true;
  gsize bytes = device_layout (&side.host, &priv->out_frame.info, priv->out_planes);
  ensure_capacity (filter, priv->out_frame, priv->out_capacity_bytes, bytes,
      CL_MEM_WRITE_ONLY | CL_MEM_HOST_READ_ONLY);
  return &priv->out_frame;
}

/* Frames in OpenCL memory are used where they are; frames in system (or GL) memory are copied
 * through the element's device buffers. The element waits only when the host needs something:
 * the output pixels, or the end of an upload before it lets go of the input frame. */
static GstFlowReturn
gst_opencl_filter_transform (GstBaseTransform * trans, GstBuffer * inbuf, GstBuffer * outbuf)
{
  auto *filter = GST_OPENCL_FILTER (trans);
  auto *priv = get_priv (filter);
  auto *klass = GST_OPENCL_FILTER_GET_CLASS (filter);

  gboolean processed = FALSE;
  /* Declared out here: the mapped frames outlive any work the queue still does on them. */
  FrameSide in_side, out_side;
  gboolean ok = GST_OPENCL_GUARD (trans, "frame processing failed", [&]() {
    auto & queue = priv->device.device ().queue;
    try {
    cl::Event upload_done;
    const GstOpenCLFrame *in = input_side (priv, filter, inbuf, in_side, &upload_done);
    const GstOpenCLFrame *out = output_side (priv, filter, outbuf, out_side);
    processed = klass->process (filter, in, out);
    if (in_side.interop)
      priv->in_interop.end_frame ();
    if (!processed) {
      queue.finish ();
      priv->device.discard_frame ();
      return;
    }
    if (out_side.interop) {
      /* GL reads the result: waits for the device, as a download does. */
      priv->out_interop.to_texture (outbuf);
      priv->device.finish_frame ();
      return;
    }
    if (out_side.mapped) {
      download_planes (queue, *out, priv->out_planes, &out_side.host);
      priv->device.finish_frame ();
      return;
    }
    if (upload_done ())
      upload_done.wait ();
    priv->device.defer_frame ();
    } catch (...) {
      /* Copies may still read or write the mapped frames: let them end before the unmap. */
      try {
        queue.finish ();
      } catch (...) {
      }
      priv->device.discard_frame ();
      throw;
    }
  });
  return ok && processed ? GST_FLOW_OK : GST_FLOW_ERROR;
}

/* In place: the buffer's own OpenCL memory when it has some, else the staging buffer filled
 * from the mapped frame (mapped for writing too when the subclass may draw into it). */
static const GstOpenCLFrame *
analysis_side (GstOpenCLFilterPrivate * priv, GstBaseTransform * trans, GstBuffer * buffer,
    bool writable, FrameSide & side)
{
  gst_opencl::DeviceFrameView view;
  if (gst_opencl::buffer_device_frame (buffer, priv->device.context (), writable, &view)) {
    side.resident.buffer = view.buffer;
    side.resident.info = view.info;
    return &side.resident;
  }
  if (priv->in_gl && priv->in_interop.to_device (buffer, &side.resident)) {
    side.interop = true;
    return &side.resident;
  }
  if (!gst_video_frame_map (&side.host, &priv->in_info, buffer,
          writable ? GST_MAP_READWRITE : GST_MAP_READ))
    throw gst_opencl::Failure (gst_opencl::Failure::Kind::Failed, "cannot map the frame");
  side.mapped = true;
  gsize bytes = device_layout (&side.host, &priv->in_frame.info, priv->in_planes);
  ensure_capacity (GST_OPENCL_FILTER (trans), priv->in_frame, priv->in_capacity_bytes, bytes,
      input_flags (trans));
  upload_planes (priv->device.device ().queue, &side.host, priv->in_frame, priv->in_planes,
      nullptr);
  return &priv->in_frame;
}

/* In-place (analysis) mode: let the subclass read (and, when it may, write) the frame on the
 * device; a mapped frame is read back only when the subclass drew into it. The host waits once
 * either way: the subclass's results (read back without blocking) are complete on return. */
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
  const bool writable = !gst_base_transform_is_passthrough (trans) &&
      gst_buffer_is_writable (buffer);
  gboolean processed = FALSE;
  /* Declared out here: the mapped frame outlives any work the queue still does on it. */
  FrameSide side;
  gboolean ok = GST_OPENCL_GUARD (trans, "frame analysis failed", [&]() {
    auto & queue = priv->device.device ().queue;
    try {
      const GstOpenCLFrame *frame = analysis_side (priv, trans, buffer, writable, side);
      gboolean written = FALSE;
      processed = klass->process_ip (filter, frame, writable, &written);
      if (!processed) {
        if (side.interop)
          priv->in_interop.end_frame ();
        queue.finish ();
        priv->device.discard_frame ();
        return;
      }
      if (side.interop && written && writable)
        priv->in_interop.to_texture (buffer);
      else if (side.interop)
        priv->in_interop.end_frame ();
      if (side.interop)
        queue.finish ();
      else if (written && writable && side.mapped)
        download_planes (queue, *frame, priv->in_planes, &side.host);
      else
        queue.finish ();
      priv->device.finish_frame ();
    } catch (...) {
      /* Copies may still read or write the mapped frame: let them end before the unmap. */
      try {
        queue.finish ();
      } catch (...) {
      }
      priv->device.discard_frame ();
      throw;
    }
  });
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

  gst_opencl::ElementDevice::install_properties (gobject_class, PROP_DEVICE_FIRST);

  element_class->set_context = gst_opencl_filter_set_context;

  trans_class->passthrough_on_same_caps = FALSE;
  trans_class->start = gst_opencl_filter_start;
  trans_class->stop = gst_opencl_filter_stop;
  trans_class->set_caps = gst_opencl_filter_set_caps;
  trans_class->query = gst_opencl_filter_query;
  trans_class->propose_allocation = gst_opencl_filter_propose_allocation;
  trans_class->decide_allocation = gst_opencl_filter_decide_allocation;
  trans_class->before_transform = gst_opencl_filter_before_transform;
  trans_class->transform = gst_opencl_filter_transform;
  /* Used only by elements that call gst_opencl_filter_set_analysis (). */
  trans_class->transform_ip = gst_opencl_filter_transform_ip;
  trans_class->transform_size = gst_opencl_filter_transform_size;
  trans_class->transform_caps = gst_opencl_filter_transform_caps;
  trans_class->fixate_caps = gst_opencl_filter_fixate_caps;

  gst_type_mark_as_plugin_api (GST_TYPE_OPENCL_FILTER, (GstPluginAPIFlags) 0);
}

void
gst_opencl_filter_class_add_pad_templates (GstOpenCLFilterClass * klass, const gchar * formats,
    gboolean gl_rgba)
{
  gchar *text = g_strdup_printf ("video/x-raw, format=(string){ %s }, "
      "width=(int)[1, max], height=(int)[1, max], framerate=(fraction)[0/1, max]", formats);
  GstCaps *caps = gst_caps_from_string (text);
  /* The same formats in OpenCL memory: frames that stay on the device between elements. */
  GstCaps *opencl = gst_caps_copy (caps);
  gst_caps_set_features (opencl, 0, gst_caps_features_new (GST_CAPS_FEATURE_MEMORY_OPENCL,
          nullptr));
  caps = gst_caps_merge (opencl, caps);
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
  return get_priv (filter)->device.device ();
}

void
gst_opencl_filter_launch (GstOpenCLFilter * filter, const cl::Kernel & kernel,
    const cl::NDRange & global, const cl::NDRange & local)
{
  get_priv (filter)->device.launch (kernel, global, local);
}
