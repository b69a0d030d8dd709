/* gst-opencl: the one way frames move between their memory and the device.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "opencl/gstopenclframepath.h"

#include "opencl/gstopenclcuda.h"
#include "opencl/gstopenclcudaorder.h"
#include "opencl/gstopenclglinterop.h"

#include <array>

#include "opencl/gstopenclgl.h"
#include "opencl/gstopenclmemory.h"
#include "opencl/gstopenclstats.h"
#include "opencl/gstopenclutils.h"

#define GST_CAT_DEFAULT gst_opencl_debug

namespace gst_opencl {

void
ElementContexts::set_context (GstElement * element, GstContext * context)
{
  device.set_context (element, context);
  gl.set_context (element, context);
  cuda.set_context (element, context);
}

bool
ElementContexts::handle_context_query (GstElement * element, GstQuery * query)
{
  return device.handle_context_query (element, query) ||
      gl.handle_context_query (element, query) || cuda.handle_context_query (element, query);
}

namespace {

/* Bytes a plane occupies: every row at full stride but the last, which only needs its pixels
 * (the last row of a buffer is often not padded). */
gsize
plane_span_bytes (const GstVideoInfo * info, guint plane)
{
  const gsize rows = plane_rows (info, plane);
  return rows ? (gsize) GST_VIDEO_INFO_PLANE_STRIDE (info, plane) * (rows - 1) +
      plane_row_bytes (info, plane) : 0;
}

/* The device layout of a mapped frame: planes one after another, each at the frame's own
 * stride, so every plane moves as one contiguous transfer. Returns the bytes needed. */
gsize
packed_layout (const GstVideoInfo * frame_info, GstVideoInfo * device_info)
{
  *device_info = *frame_info;
  gsize total = 0;
  for (guint plane = 0; plane < GST_VIDEO_INFO_N_PLANES (frame_info); plane++) {
    device_info->offset[plane] = total;
    total += (gsize) GST_VIDEO_INFO_PLANE_STRIDE (frame_info, plane) *
        plane_rows (frame_info, plane);
  }
  return total;
}

std::array<size_t, 3>
plane_region (const GstVideoInfo * info, guint plane)
{
  return { plane_row_bytes (info, plane), plane_rows (info, plane), 1 };
}

/* One device-side copy per plane between two layouts of the same frame. */
void
copy_on_device (cl::CommandQueue & queue, const GstOpenCLFrame & from, const GstOpenCLFrame & to)
{
  for (guint plane = 0; plane < GST_VIDEO_INFO_N_PLANES (&from.info); plane++) {
    const auto region = plane_region (&from.info, plane);
    if (region[0] == 0 || region[1] == 0)
      continue;
    const std::array<size_t, 3> from_origin { (size_t) from.info.offset[plane], 0, 0 };
    const std::array<size_t, 3> to_origin { (size_t) to.info.offset[plane], 0, 0 };
    const size_t from_pitch = from.info.stride[plane];
    const size_t to_pitch = to.info.stride[plane];
    for_each_rect_part (region[0], region[1], from_pitch, to_pitch,
        [&](gsize first_row, gsize rows) {
          const std::array<size_t, 3> part_from { from_origin[0], first_row, 0 };
          const std::array<size_t, 3> part_to { to_origin[0], first_row, 0 };
          const std::array<size_t, 3> part { region[0], rows, 1 };
          queue.enqueueCopyBufferRect (from.buffer, to.buffer, part_from, part_to, part,
              from_pitch, 0, to_pitch, 0);
        });
  }
}

/* The message for a buffer that cannot be mapped as a frame of `info`. */
[[noreturn]] void
throw_unmappable (GstBuffer * buffer, const GstVideoInfo * info, const char *what)
{
  throw Failure (Failure::Kind::Failed, size_mismatch (buffer, info->size, what, info));
}

void
map_frame (GstVideoFrame * frame, const GstVideoInfo * info, GstBuffer * buffer,
    GstMapFlags flags, const char *what)
{
  if (!gst_video_frame_map (frame, info, buffer, flags))
    throw_unmappable (buffer, info, what);
}

GstOpenCLContext *
device_context (ElementDevice & device)
{
  return device.context ();
}

std::string
frame_name (GstVideoFormat format, guint width, guint height)
{
  return std::to_string (width) + "x" + std::to_string (height) + " " +
      gst_video_format_to_string (format);
}

/* The kernels of a frame run with the negotiated layout, and some take the frame's size from its
 * device view: a device buffer of OpenCL memory made for other caps (smaller, or of another
 * format) would be read and written past its end, and on a device that shares the host's memory
 * that is the process's heap. So a frame must be one of the port's caps (the base transform
 * drops frames of earlier caps before they get here; this is the frame path's own guard). */
void
check_frame_caps (GstBuffer * buffer, const FramePort & port)
{
  std::string why;
  if (GST_VIDEO_INFO_FORMAT (&port.info ()) != GST_VIDEO_FORMAT_UNKNOWN &&
      frame_of_other_caps (buffer, &port.info (), &why))
    throw Failure (Failure::Kind::Failed, "a frame of other caps: " + why);
}

/* And a resident frame's planes, at the offsets and strides of its video meta, must lie inside
 * its memory. */
void
check_resident_frame (GstBuffer * buffer, const DeviceFrameView & view)
{
  const gsize memory_bytes = opencl_memory_info (gst_buffer_peek_memory (buffer, 0))->size;
  for (guint plane = 0; plane < GST_VIDEO_INFO_N_PLANES (&view.info); plane++) {
    const gsize end = view.info.offset[plane] + plane_span_bytes (&view.info, plane);
    if (view.info.stride[plane] <= 0 || end > memory_bytes)
      throw Failure (Failure::Kind::Failed, "plane " + std::to_string (plane) + " of the "
          "frame's video meta ends at byte " + std::to_string (end) + " of OpenCL memory of " +
          std::to_string (memory_bytes) + " bytes");
  }
}

}  // namespace

bool
frame_of_other_caps (GstBuffer * buffer, const GstVideoInfo * info, std::string * why)
{
  const GstVideoFormat format = GST_VIDEO_INFO_FORMAT (info);
  const guint width = GST_VIDEO_INFO_WIDTH (info);
  const guint height = GST_VIDEO_INFO_HEIGHT (info);
  const GstVideoInfo *made = nullptr;
  GstMemory *memory = sole_memory (buffer);
  if (memory && gst_is_opencl_memory (memory))
    made = opencl_memory_info (memory);
  GstVideoMeta *meta = gst_buffer_get_video_meta (buffer);
  std::string frame;
  if (made && (GST_VIDEO_INFO_FORMAT (made) != format ||
          (guint) GST_VIDEO_INFO_WIDTH (made) != width ||
          (guint) GST_VIDEO_INFO_HEIGHT (made) != height))
    frame = "OpenCL memory made for " + frame_name (GST_VIDEO_INFO_FORMAT (made),
        GST_VIDEO_INFO_WIDTH (made), GST_VIDEO_INFO_HEIGHT (made));
  else if (meta && (meta->format != format || meta->width != width || meta->height != height))
    frame = "a video meta of " + frame_name (meta->format, meta->width, meta->height);
  else
    return false;
  if (why)
    *why = frame + " where the caps say " + frame_name (format, width, height);
  return true;
}

std::string
size_mismatch (GstBuffer * buffer, gsize expected_bytes, const char *what,
    const GstVideoInfo * info)
{
  std::string text = std::string ("cannot map ") + what + ": a buffer of " +
      std::to_string (gst_buffer_get_size (buffer)) + " bytes";
  if (GstVideoMeta * meta = gst_buffer_get_video_meta (buffer))
    text += " (video meta " + std::to_string (meta->width) + "x" +
        std::to_string (meta->height) + ", stride " + std::to_string (meta->stride[0]) + ")";
  text += ", where " + std::to_string (expected_bytes) + " bytes are expected";
  if (info) {
    text += " for " + std::string (gst_video_format_to_string (GST_VIDEO_INFO_FORMAT (info))) +
        " " + std::to_string (GST_VIDEO_INFO_WIDTH (info)) + "x" +
        std::to_string (GST_VIDEO_INFO_HEIGHT (info)) + " with row stride " +
        std::to_string (GST_VIDEO_INFO_PLANE_STRIDE (info, 0));
    GstCaps *caps = gst_video_info_to_caps (info);
    if (caps) {
      gchar *caps_text = gst_caps_to_string (caps);
      text += std::string (" (caps ") + caps_text + ")";
      g_free (caps_text);
      gst_caps_unref (caps);
    }
  }
  return text;
}

/* The routes of foreign memory: one row per kind of memory that another API owns and the
 * device reaches through an interop. The frame path knows them only through this table and
 * ForeignFrames; a new kind is a row here and a ForeignFrames of its own. */
struct ForeignRoute
{
  FrameMemory memory;
  FrameRoute route;
  const char *name;  /* the `memory` property's word */
  bool (*caps_match) (const GstCaps * caps);
  std::unique_ptr<ForeignFrames> (*make) ();
};

static const ForeignRoute kForeignRoutes[] = {
  { FrameMemory::Gl, FrameRoute::Gl, "gl", GlBridge::caps_are_gl,
    [] { return std::unique_ptr<ForeignFrames> (new GlInterop ()); } },
  { FrameMemory::Cuda, FrameRoute::Cuda, "cuda", caps_are_cuda,
    [] { return std::unique_ptr<ForeignFrames> (new CudaFrames ()); } },
};

static const ForeignRoute *
foreign_route_of (FrameMemory memory)
{
  for (const ForeignRoute & route : kForeignRoutes)
    if (route.memory == memory)
      return &route;
  return nullptr;
}

FrameMemory
frame_memory_of (const GstCaps * caps)
{
  for (const ForeignRoute & route : kForeignRoutes)
    if (route.caps_match (caps))
      return route.memory;
  if (caps_are_opencl_memory (caps))
    return FrameMemory::OpenCL;
  return FrameMemory::System;
}

const char *
frame_memory_name (FrameMemory memory)
{
  if (const ForeignRoute *route = foreign_route_of (memory))
    return route->name;
  return memory == FrameMemory::OpenCL ? "opencl" : "system";
}

/* FramePort */

/* Frames arrive no faster than the device takes them in the long run; a bound keeps a stalled
 * device from pinning every frame of the pipeline. */
constexpr size_t MAX_UPLOADS_IN_FLIGHT = 4;

FramePort::FramePort ()
{
  uploads_.reserve (MAX_UPLOADS_IN_FLIGHT + 1);
}

FramePort::~FramePort ()
{
  release_uploaded (true);
}

void
FramePort::configure (const GstVideoInfo * info, FrameMemory memory)
{
  info_ = *info;
  const ForeignRoute *route = foreign_route_of (memory);
  if (route != route_) {
    foreign_.reset ();  /* another kind of memory, or none */
    if (route)
      foreign_ = route->make ();
  }
  memory_ = memory;
  route_ = route;
  if (foreign_)
    foreign_->configure (info);
}

void
FramePort::reset (bool abandoned)
{
  if (abandoned) {
    forsake ();
    return;
  }
  release_uploaded (true);
  drop_device_buffers ();
  foreign_.reset ();
  route_ = nullptr;
  memory_ = FrameMemory::System;
}

void
FramePort::drop_device_buffers ()
{
  release_uploaded (true);
  staging_ = GstOpenCLFrame ();
  staging_bytes_ = 0;
  if (foreign_)
    foreign_->drop_device_buffers ();
  wraps_ = {};
}

FrameRoute
FramePort::foreign_route () const
{
  return route_ ? route_->route : FrameRoute::Host;
}

GlInterop *
FramePort::gl_interop ()
{
  return memory_ == FrameMemory::Gl ? static_cast<GlInterop *> (foreign_.get ()) : nullptr;
}

void
FramePort::unmap (Upload & upload)
{
  if (upload.video)
    gst_video_frame_unmap (&upload.frame);
  else
    gst_buffer_unmap (upload.buffer, &upload.map);
  gst_buffer_unref (upload.buffer);
}

void
FramePort::keep_for_ever ()
{
  if (!uploads_.empty ())
    GST_WARNING ("keeping %zu host frames that the device may still read, for the life of the "
        "process", uploads_.size ());
  uploads_.clear ();  /* neither unmapped nor unreferenced */
}

/* The device's queue was given up: a command that will not end may use any of these, and
 * NVIDIA's driver blocks the release of a buffer until the commands using it end (seen at stop,
 * in drop_device_buffers (): docs/reliability.md#kernels-that-never-end). So the handles are
 * dropped without a release, and the host frames stay mapped and referenced. */
void
FramePort::forsake ()
{
  GST_WARNING ("the device's queue was given up: keeping this port's device buffers and %zu "
      "host frames for the life of the process", uploads_.size ());
  for (Upload & upload : uploads_) {
    upload.wrap () = nullptr;
    upload.done () = nullptr;
  }
  uploads_.clear ();
  staging_.buffer () = nullptr;
  staging_ = GstOpenCLFrame ();
  staging_bytes_ = 0;
  for (Wrap & wrap : wraps_)
    wrap.buffer () = nullptr;
  wraps_ = {};
  (void) foreign_.release ();
  route_ = nullptr;
  memory_ = FrameMemory::System;
}

void
FramePort::release_uploaded (bool wait)
{
  while (!uploads_.empty ()) {
    Upload & oldest = uploads_.front ();
    try {
      if (oldest.done ()) {
        if (wait)
          wait_event (*oldest.device, oldest.done, oldest.watch);
        else if (oldest.done.getInfo<CL_EVENT_COMMAND_EXECUTION_STATUS> () > CL_COMPLETE)
          break;  /* still running: so are the later ones (one in-order queue) */
      }
    } catch (const Failure & e) {
      if (e.kind != Failure::Kind::Abandoned)
        throw;
      keep_for_ever ();
      return;
    } catch (const std::exception & e) {
      /* A failed transfer no longer reads the frame. */
      GST_WARNING ("an upload failed: %s", e.what ());
    }
    unmap (oldest);
    uploads_.erase (uploads_.begin ());
  }
}

void
FramePort::keep_until_uploaded (ElementDevice & device, Upload && upload)
{
  gst_buffer_ref (upload.buffer);
  upload.device = &device.device ();
  upload.watch = &device.watch ();
  uploads_.push_back (std::move (upload));
  if (uploads_.size () > MAX_UPLOADS_IN_FLIGHT && uploads_.front ().done ())
    device.wait (uploads_.front ().done);
  release_uploaded (false);
}

cl::Buffer
FramePort::wrapped (Device & device, guint8 * base, gsize bytes, cl_mem_flags flags)
{
  for (const Wrap & wrap : wraps_) {
    if (wrap.base == base && wrap.bytes == bytes && wrap.flags == flags)
      return wrap.buffer;
  }
  cl_int status = CL_SUCCESS;
  cl_mem memory = clCreateBuffer (device.context (), flags | CL_MEM_USE_HOST_PTR, bytes, base,
      &status);
  if (!memory || status != CL_SUCCESS) {
    GST_DEBUG ("the device does not wrap the frame (error %d): copied", status);
    return cl::Buffer ();
  }
  Wrap & slot = wraps_[next_wrap_];
  next_wrap_ = (next_wrap_ + 1) % kWraps;
  slot = Wrap { base, bytes, flags, cl::Buffer (memory) };
  return slot.buffer;
}

const GstOpenCLFrame &
FramePort::staging (ElementDevice & element_device, gsize bytes, cl_mem_flags flags)
{
  /* Host-access flags are part of the buffer: an element that starts drawing into the frames it
   * analyses (read back) needs another. */
  if (bytes > staging_bytes_ || !staging_.buffer () || flags != staging_flags_) {
    auto & device = element_device.device ();
    if (bytes > device.max_alloc_bytes)
      throw Failure (Failure::Kind::TooLarge, "a frame of " + std::to_string (bytes) +
          " bytes exceeds the largest buffer " + device.name + " can allocate (" +
          std::to_string (device.max_alloc_bytes) + " bytes)");
    /* Uploads still in flight read the old buffer's host frames, not the buffer: it may go. */
    staging_.buffer = cl::Buffer (device.context, flags, MAX (bytes, (gsize) 1));
    staging_bytes_ = bytes;
    staging_flags_ = flags;
    GST_DEBUG ("staging buffer of %" G_GSIZE_FORMAT " bytes", bytes);
  }
  return staging_;
}

namespace {

/* With an automatic device, CUDA frames are followed to their GPU, as GStreamer's CUDA
 * elements follow their input: the GPU of the context upstream answers a context query with.
 * False with an element error when the move fails. */
bool
follow_cuda_frames (GstElement * element, ElementDevice & device, bool *followed)
{
  GstPad *sink = gst_element_get_static_pad (element, "sink");
  const int wanted = upstream_cuda_device (sink);
  gst_clear_object (&sink);
  if (wanted < 0 || cuda_device_of (device.device (), nullptr) == wanted)
    return true;
  const std::string twin = cuda_twin_device_string (wanted);
  if (twin.empty ()) {
    GST_INFO_OBJECT (element, "CUDA frames of CUDA device %d: no OpenCL device is it", wanted);
    return true;
  }
  GST_INFO_OBJECT (element, "CUDA frames of CUDA device %d: moving from %s to %s", wanted,
      device.device ().name.c_str (), twin.c_str ());
  return GST_OPENCL_GUARD (element, "cannot follow the CUDA frames to their device", [&]() {
    device.follow_device (element, twin);
    *followed = true;
  });
}

}  // namespace

bool
configure_ports (GstElement * element, ElementDevice & device, GlBridge & bridge,
    FramePort * in, FramePort * out, bool *context_changed)
{
  if (!device.started ())
    return true;  /* set_caps reports the missing device */
  bool followed = false;
  if (in && in->cuda () && device.automatic () && !follow_cuda_frames (element, device,
          &followed))
    return false;
  /* CUDA frames say how their copies are ordered: "cuda (semaphores)" on the device. */
  const char *cuda_word = "cuda";
  if ((in && in->cuda ()) || (out && out->cuda ())) {
    std::string why;
    const int cuda_device = cuda_device_of (device.device (), &why);
    if (cuda_device < 0) {
      GST_ELEMENT_ERROR (element, CORE, NEGOTIATION, ("frames in CUDA memory cannot reach %s",
              device.device ().name.c_str ()), ("%s", why.c_str ()));
      return false;
    }
    if (cuda_semaphores_chosen (device.device (), cuda_device, &why))
      cuda_word = "cuda (semaphores)";
    else
      GST_INFO_OBJECT (element, "CUDA copies ordered by the host: %s", why.c_str ());
  }
  GlInterop *in_interop = in ? in->gl_interop () : nullptr;
  GlInterop *out_interop = out && out != in ? out->gl_interop () : nullptr;
  bool changed = false;
  if (!configure_gl_interop (element, device, bridge, in_interop, in ? &in->info () : nullptr,
          out_interop, out ? &out->info () : nullptr, &changed))
    return false;
  changed = changed || followed;
  if (changed) {
    if (in)
      in->drop_device_buffers ();
    if (out)
      out->drop_device_buffers ();
  }
  if (context_changed)
    *context_changed = changed;
  std::string memory;
  /* GL frames too: "gl (semaphores)" when GL and OpenCL wait for each other on the device. */
  auto word = [cuda_word] (FramePort * port) {
    if (port->cuda ())
      return std::string (cuda_word);
    std::string name = frame_memory_name (port->memory ());
    if (port->gl_interop () && port->gl_interop ()->semaphores ())
      name += " (semaphores)";
    return name;
  };
  if (in)
    memory = word (in);
  if (out && out != in)
    memory += (in ? " -> " : "") + word (out);
  device.set_memory (memory);
  return true;
}

/* FrameTrip */

FrameTrip::FrameTrip (ElementDevice & device, FramePort & port, GstBuffer * buffer,
    FrameAccess access) : device_ (device), port_ (port), buffer_ (buffer), access_ (access)
{
  const bool reads = access != FrameAccess::Write;
  const bool writes = access != FrameAccess::Read;
  check_frame_caps (buffer, port);
  DeviceFrameView view;
  if (buffer_device_frame (buffer, device_context (device), writes, &view)) {
    check_resident_frame (buffer, view);
    route_ = FrameRoute::Resident;
    frame_.buffer = view.buffer;
    frame_.info = view.info;
    return;
  }
  if (ForeignFrames *foreign = port.foreign ()) {
    if (reads ? foreign->to_device (device, buffer, &frame_) :
        foreign->device_frame (device, buffer, &frame_)) {
      route_ = port.foreign_route ();
      foreign_ = foreign;
      return;
    }
  }
  route_ = FrameRoute::Host;
  port.release_uploaded (false);
  map_frame (&host_, &port.info (), buffer, access == FrameAccess::Read ? GST_MAP_READ :
      access == FrameAccess::Write ? GST_MAP_WRITE : GST_MAP_READWRITE,
      reads ? "the input frame" : "the output frame");
  mapped_ = true;
  if (wrap_host_frame ()) {
    route_ = FrameRoute::Wrapped;
    return;
  }
  GstVideoInfo layout;
  const gsize bytes = packed_layout (&host_.info, &layout);
  const cl_mem_flags flags = access == FrameAccess::Read ?
      CL_MEM_READ_ONLY | CL_MEM_HOST_WRITE_ONLY : access == FrameAccess::Write ?
      CL_MEM_WRITE_ONLY | CL_MEM_HOST_READ_ONLY : CL_MEM_READ_WRITE;
  frame_.buffer = port.staging (device, bytes, flags).buffer;
  frame_.info = layout;
  if (!reads)
    return;
  auto & queue = device.queue ();
  for (guint plane = 0; plane < GST_VIDEO_FRAME_N_PLANES (&host_); plane++) {
    const gsize span = plane_span_bytes (&host_.info, plane);
    count_transfer (true, span);
    if (span)
      queue.enqueueWriteBuffer (frame_.buffer, CL_FALSE, layout.offset[plane], span,
          GST_VIDEO_FRAME_PLANE_DATA (&host_, plane), nullptr, &upload_done_);
  }
}

bool
FrameTrip::wrap_host_frame ()
{
  /* GL frames on the host-copy path stay copies: that path is the GL interop's fallback, and
   * what it moves is what `gl-interop` reports. */
  Device & device = device_.device ();
  if (!device.host_unified_memory || port_.gl () || gst_buffer_n_memory (buffer_) != 1 ||
      !host_.map[0].data)
    return false;
  guint8 *base = host_.map[0].data;
  if ((uintptr_t) base % device.base_align_bytes != 0 || host_.map[0].size == 0)
    return false;
  const cl_mem_flags access = access_ == FrameAccess::Read ? CL_MEM_READ_ONLY :
      access_ == FrameAccess::Write ? CL_MEM_WRITE_ONLY : CL_MEM_READ_WRITE;
  frame_.buffer = port_.wrapped (device, base, host_.map[0].size, access);
  if (!frame_.buffer ())
    return false;
  if (access_ != FrameAccess::Write) {
    /* The host wrote new pixels where an earlier frame was: a map for writing and its unmap
     * tell the device so (on a device that shares the host's memory, nothing is copied). */
    void *view = device.queue.enqueueMapBuffer (frame_.buffer, CL_FALSE, CL_MAP_WRITE, 0,
        host_.map[0].size);
    device.queue.enqueueUnmapMemObject (frame_.buffer, view);
  }
  frame_.info = host_.info;
  /* The planes as offsets from the mapping's start (the video meta's, or the caps' layout). */
  for (guint plane = 0; plane < GST_VIDEO_FRAME_N_PLANES (&host_); plane++)
    frame_.info.offset[plane] = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&host_, plane) - base;
  return true;
}

bool
FrameTrip::finish (bool written)
{
  finished_ = true;
  written = written && access_ != FrameAccess::Read;
  switch (route_) {
    case FrameRoute::Resident:
      if (written)
        opencl_memory_written (gst_buffer_peek_memory (buffer_, 0));
      else
        opencl_memory_used (gst_buffer_peek_memory (buffer_, 0));
      return false;
    case FrameRoute::Gl:
    case FrameRoute::Cuda:
      if (written)
        return foreign_->from_device (device_, buffer_);  /* whether the host waited */
      foreign_->end_frame (device_);
      return false;
    case FrameRoute::Wrapped: {
      auto & queue = device_.queue ();
      if (written) {
        /* The host sees what the kernels wrote once a map of the buffer has completed. */
        void *view = queue.enqueueMapBuffer (frame_.buffer, CL_FALSE, CL_MAP_READ, 0,
            host_.map[0].size);
        queue.enqueueUnmapMemObject (frame_.buffer, view);
        device_.finish ();
        frame_.buffer = cl::Buffer ();
        gst_video_frame_unmap (&host_);
        mapped_ = false;
        return true;
      }
      /* The kernels read the frame where it is: it stays mapped, and wrapped, until they end. */
      FramePort::Upload upload;
      upload.frame = host_;
      upload.buffer = buffer_;
      upload.wrap = frame_.buffer;
      queue.enqueueMarkerWithWaitList (nullptr, &upload.done);
      mapped_ = false;
      port_.keep_until_uploaded (device_, std::move (upload));
      return false;
    }
    case FrameRoute::Host:
      break;
  }
  if (written) {
    auto & queue = device_.queue ();
    const guint planes = GST_VIDEO_FRAME_N_PLANES (&host_);
    for (guint plane = 0; plane < planes; plane++) {
      const gsize span = plane_span_bytes (&host_.info, plane);
      count_transfer (false, span);
      if (span)
        queue.enqueueReadBuffer (frame_.buffer, CL_FALSE, frame_.info.offset[plane], span,
            GST_VIDEO_FRAME_PLANE_DATA (&host_, plane));
    }
    device_.finish ();  /* the host needs the pixels: the one wait of this route */
    gst_video_frame_unmap (&host_);
    mapped_ = false;
    return true;
  }
  if (upload_done_ ()) {
    FramePort::Upload upload;
    upload.frame = host_;
    upload.buffer = buffer_;
    upload.done = upload_done_;
    mapped_ = false;
    port_.keep_until_uploaded (device_, std::move (upload));
  } else {
    gst_video_frame_unmap (&host_);
    mapped_ = false;
  }
  return false;
}

FrameTrip::~FrameTrip ()
{
  if (finished_ && !mapped_)
    return;
  /* Unfinished (an error): copies may still read or write the frame; let them end first. */
  try {
    if (device_.started ())
      device_.finish ();
  } catch (...) {
    GST_WARNING ("the queue failed while a frame was abandoned");
  }
  if (device_.started () && device_.abandoned ()) {
    /* The device may still read or write the frame, for ever: it is never let go. */
    if (mapped_)
      gst_buffer_ref (buffer_);
    return;
  }
  try {
    if (foreign_ && !finished_)
      foreign_->end_frame (device_);
  } catch (...) {
    GST_WARNING ("cannot end the frame in foreign memory");
  }
  if (mapped_)
    gst_video_frame_unmap (&host_);
}

/* Copies in and out */

/* After a failed copy: waits for the queue, so that the host may let the copy's frame go.
 * False when the device's queue was given up (the frame must then be kept for ever). */
static bool
finished_or_given_up (ElementDevice & device)
{
  try {
    device.finish ();
    return true;
  } catch (const Failure & e) {
    if (e.kind == Failure::Kind::Abandoned)
      return false;
  } catch (...) {
  }
  return !device.abandoned ();
}

void
copy_frame_in (ElementDevice & device, FramePort & port, GstBuffer * buffer,
    const GstOpenCLFrame & target)
{
  auto & queue = device.queue ();
  check_frame_caps (buffer, port);
  DeviceFrameView view;
  if (buffer_device_frame (buffer, device_context (device), false, &view)) {
    check_resident_frame (buffer, view);
    copy_on_device (queue, GstOpenCLFrame { view.buffer, view.info }, target);
    return;
  }
  GstOpenCLFrame foreign_frame;
  ForeignFrames *foreign = port.foreign ();
  if (foreign && foreign->to_device (device, buffer, &foreign_frame)) {
    copy_on_device (queue, foreign_frame, target);
    foreign->end_frame (device);
    return;
  }
  port.release_uploaded (false);
  FramePort::Upload upload;
  map_frame (&upload.frame, &port.info (), buffer, GST_MAP_READ, "the input frame");
  upload.buffer = buffer;
  try {
    for (guint plane = 0; plane < GST_VIDEO_FRAME_N_PLANES (&upload.frame); plane++) {
      const auto region = plane_region (&upload.frame.info, plane);
      if (region[0] == 0 || region[1] == 0)
        continue;
      const std::array<size_t, 3> device_origin { (size_t) target.info.offset[plane], 0, 0 };
      const std::array<size_t, 3> host_origin { 0, 0, 0 };
      const size_t device_pitch = target.info.stride[plane];
      const size_t host_pitch = GST_VIDEO_FRAME_PLANE_STRIDE (&upload.frame, plane);
      for_each_rect_part (region[0], region[1], device_pitch, host_pitch,
          [&](gsize first_row, gsize rows) {
            const std::array<size_t, 3> part_device { device_origin[0], first_row, 0 };
            const std::array<size_t, 3> part_host { host_origin[0], first_row, 0 };
            const std::array<size_t, 3> part { region[0], rows, 1 };
            queue.enqueueWriteBufferRect (target.buffer, CL_FALSE, part_device, part_host,
                part, device_pitch, 0, host_pitch, 0,
                GST_VIDEO_FRAME_PLANE_DATA (&upload.frame, plane), nullptr, &upload.done);
          });
      count_transfer (true, region[0] * region[1]);
    }
  } catch (...) {
    if (finished_or_given_up (device))
      gst_video_frame_unmap (&upload.frame);
    else
      gst_buffer_ref (buffer);  /* the device may still read it: kept, mapped, for ever */
    throw;
  }
  port.keep_until_uploaded (device, std::move (upload));
}

void
copy_bytes_in (ElementDevice & device, FramePort & port, GstBuffer * buffer,
    const cl::Buffer & target, gsize bytes)
{
  port.release_uploaded (false);
  /* OpenCL memory of this context: a copy on the device, after the memory's own upload. */
  DeviceFrameView view;
  if (buffer_device_frame (buffer, device_context (device), false, &view)) {
    if (view.info.size != bytes)
      throw Failure (Failure::Kind::Failed, "an input buffer of " +
          std::to_string (view.info.size) + " bytes does not match the " +
          std::to_string (bytes) + " bytes of its caps");
    device.queue ().enqueueCopyBuffer (view.buffer, target, 0, 0, bytes);
    opencl_memory_used (sole_memory (buffer));
    return;
  }
  FramePort::Upload upload;
  upload.video = false;
  upload.buffer = buffer;
  if (!gst_buffer_map (buffer, &upload.map, GST_MAP_READ))
    throw Failure (Failure::Kind::Failed, size_mismatch (buffer, bytes, "the input", nullptr));
  if (upload.map.size != bytes) {
    gst_buffer_unmap (buffer, &upload.map);
    throw Failure (Failure::Kind::Failed, "an input buffer of " +
        std::to_string (gst_buffer_get_size (buffer)) + " bytes does not match the " +
        std::to_string (bytes) + " bytes of its caps");
  }
  try {
    device.queue ().enqueueWriteBuffer (target, CL_FALSE, 0, bytes, upload.map.data,
        nullptr, &upload.done);
    count_transfer (true, bytes);
  } catch (...) {
    if (finished_or_given_up (device))
      gst_buffer_unmap (buffer, &upload.map);
    else
      gst_buffer_ref (buffer);  /* the device may still read it: kept, mapped, for ever */
    throw;
  }
  port.keep_until_uploaded (device, std::move (upload));
}

void
copy_frame_out (ElementDevice & device, FramePort & port, const GstOpenCLFrame & source,
    GstBuffer * buffer)
{
  /* A buffer of OpenCL memory of any context: its own queue orders the copy. */
  GstMemory *memory = sole_memory (buffer);
  GstOpenCLContext *context = memory && gst_is_opencl_memory (memory) ?
      opencl_memory_context (memory) : nullptr;
  DeviceFrameView view;
  if (context == device_context (device) &&
      buffer_device_frame (buffer, context, true, &view)) {
    copy_on_device (device.queue (), source, GstOpenCLFrame { view.buffer, view.info });
    opencl_memory_written (memory);
    return;
  }
  GstOpenCLFrame foreign_frame;
  ForeignFrames *foreign = port.foreign ();
  if (foreign && foreign->device_frame (device, buffer, &foreign_frame)) {
    copy_on_device (device.queue (), source, foreign_frame);
    foreign->from_device (device, buffer);
    return;
  }
  GstVideoFrame frame;
  map_frame (&frame, &port.info (), buffer, GST_MAP_WRITE, "the output frame");
  try {
    copy_frame_from_device (device.queue (), source.buffer, &source.info, &frame, false);
    device.finish ();
  } catch (...) {
    if (finished_or_given_up (device))
      gst_video_frame_unmap (&frame);
    else
      gst_buffer_ref (buffer);  /* the device may still write it: kept, mapped, for ever */
    throw;
  }
  gst_video_frame_unmap (&frame);
}

void
copy_frame_on_host (FramePort & in_port, GstBuffer * in, FramePort & out_port, GstBuffer * out)
{
  GstVideoFrame in_frame, out_frame;
  map_frame (&in_frame, &in_port.info (), in, GST_MAP_READ, "the input frame");
  try {
    map_frame (&out_frame, &out_port.info (), out, GST_MAP_WRITE, "the output frame");
  } catch (...) {
    gst_video_frame_unmap (&in_frame);
    throw;
  }
  const gboolean copied = gst_video_frame_copy (&out_frame, &in_frame);
  gst_video_frame_unmap (&out_frame);
  gst_video_frame_unmap (&in_frame);
  if (!copied)
    throw Failure (Failure::Kind::Failed, "cannot copy the frame");
}

bool
copy_bytes_out (ElementDevice & device, const cl::Buffer & source, GstBuffer * buffer,
    gsize bytes)
{
  /* OpenCL memory of this context: a copy on the device that nothing waits for; whoever maps
   * the memory later waits for it. */
  DeviceFrameView view;
  if (buffer_device_frame (buffer, device_context (device), true, &view)) {
    if (view.info.size < bytes)
      throw Failure (Failure::Kind::Failed, size_mismatch (buffer, bytes, "the output",
              nullptr));
    device.queue ().enqueueCopyBuffer (source, view.buffer, 0, 0, bytes);
    opencl_memory_written (sole_memory (buffer));
    return false;
  }
  GstMapInfo map;
  if (!gst_buffer_map (buffer, &map, GST_MAP_WRITE))
    throw Failure (Failure::Kind::Failed, size_mismatch (buffer, bytes, "the output", nullptr));
  if (map.size < bytes) {
    gst_buffer_unmap (buffer, &map);
    throw Failure (Failure::Kind::Failed, size_mismatch (buffer, bytes, "the output", nullptr));
  }
  try {
    device.queue ().enqueueReadBuffer (source, CL_FALSE, 0, bytes, map.data);
    count_transfer (false, bytes);
    device.finish ();
  } catch (...) {
    if (finished_or_given_up (device))
      gst_buffer_unmap (buffer, &map);
    else
      gst_buffer_ref (buffer);  /* the device may still write it: kept, mapped, for ever */
    throw;
  }
  gst_buffer_unmap (buffer, &map);
  return true;
}

}  // namespace gst_opencl
