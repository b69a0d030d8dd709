/* gst-opencl: a user's own OpenCL kernel, run on every frame by openclkernel and
 * openclkernelsrc.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The program is built from `location` or `source` with -cl-kernel-arg-info, so the arguments'
 * names, types and qualifiers come from the driver; each gets a role (frame, element-filled
 * value, or parameter) once per build. While playing, a changed program is built on a thread of
 * its own and taken up by the streaming thread at the first frame after it is ready; until then,
 * and for good if it fails, the previous kernel runs.
 *
 * Checked mode gives a buffer kernel copies of the frames with guard zones around them instead
 * of the frames themselves (on a CPU device those are the application's memory, shared without
 * a copy), and reports a kernel that wrote outside them: see UserKernelHost::Checked. */
#include "opencl/gstopencluserkernel.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "opencl/gstopenclproperties.h"
#include "opencl/gstopenclenv.h"
#include "opencl/gstopenclutils.h"

#define GST_CAT_DEFAULT gst_opencl_debug

/* ---- GstOpenCLKernelParam ---- */

/* Its value is a Settings member bound to the property by ElementProperties. */
struct GstOpenCLKernelParamImpl
{
  struct Settings
  {
    double value = 0.0;
  };
  std::mutex lock;
  Settings settings;  /* under lock */
};

struct _GstOpenCLKernelParam
{
  GstObject parent;
  GstOpenCLKernelParamImpl *impl;
};

G_DEFINE_TYPE (GstOpenCLKernelParam, gst_opencl_kernel_param, GST_TYPE_OBJECT);

static void
gst_opencl_kernel_param_class_init (GstOpenCLKernelParamClass * klass)
{
  /**
   * GstOpenCLKernelParam:value:
   *
   * The parameter's value; integer arguments take it rounded to the nearest integer.
   */
  gst_opencl::ElementProperties<GstOpenCLKernelParam> (G_OBJECT_CLASS (klass))
      .add (g_param_spec_double ("value", "Value",
          "Value of the kernel argument of this name (integers are rounded)",
          -G_MAXDOUBLE, G_MAXDOUBLE, 0.0, gst_opencl::PROPERTY_CONTROLLABLE),
      &GstOpenCLKernelParamImpl::Settings::value);
  gst_type_mark_as_plugin_api (GST_TYPE_OPENCL_KERNEL_PARAM, (GstPluginAPIFlags) 0);
}

static void
gst_opencl_kernel_param_init (GstOpenCLKernelParam * self)
{
  self->impl = new GstOpenCLKernelParamImpl ();
}

static gdouble
param_value (GstOpenCLKernelParam * param)
{
  std::lock_guard<std::mutex> guard (param->impl->lock);
  return param->impl->settings.value;
}

static void
set_param_value (GstOpenCLKernelParam * param, gdouble value)
{
  std::lock_guard<std::mutex> guard (param->impl->lock);
  param->impl->settings.value = value;
}

namespace gst_opencl {

namespace {

/* A property's value as messages quote it: the value may hold any bytes, and GStreamer drops
 * a message's debug string that is not UTF-8 (with a g_warning); invalid bytes become U+FFFD.
 * Values longer than `limit` bytes are cut there, with their length. */
std::string
printable (const std::string & text, size_t limit = G_MAXSIZE)
{
  const bool cut = text.size () > limit;
  const std::string shown = cut ? text.substr (0, limit) : text;
  gchar *valid = g_utf8_make_valid (shown.c_str (), (gssize) shown.size ());
  std::string out = valid;
  g_free (valid);
  return cut ? out + "... (" + std::to_string (text.size ()) + " bytes)" : out;
}

/* ---- sizes ---- */

bool
parse_pair (const std::string & text, size_t & a, size_t & b)
{
  unsigned long x = 0, y = 0;
  char separator = 0, extra = 0;
  if (sscanf (text.c_str (), " %lu %c %lu %c", &x, &separator, &y, &extra) != 3)
    return false;
  if ((separator != 'x' && separator != ',') || x == 0 || y == 0 || x > 65536 || y > 65536)
    return false;
  a = x;
  b = y;
  return true;
}

/* "WxH" (or "W,H"), "scale,x=F,y=F" when `scalable`, or "" for the default. */
bool
parse_size (const std::string & text, bool scalable, SizeSpec & spec)
{
  SizeSpec parsed;
  parsed.text = text;
  if (text.empty ()) {
    spec = parsed;
    return true;
  }
  parsed.set = true;
  if (parse_pair (text, parsed.width, parsed.height)) {
    spec = parsed;
    return true;
  }
  if (!scalable || !g_ascii_isalpha (text[0]))
    return false;
  /* With an end pointer: GStreamer warns (g_warning) about text after the structure when the
   * caller gives none ("scale,x=2,y=2 junk"); that text makes the size invalid. */
  gchar *end = nullptr;
  GstStructure *s = gst_structure_from_string (text.c_str (), &end);
  if (!s)
    return false;
  while (end && g_ascii_isspace (*end))
    end++;
  bool ok = gst_structure_has_name (s, "scale") && end && *end == '\0';
  for (const char *axis : { "x", "y" }) {
    double factor = 1.0;
    const GValue *v = gst_structure_get_value (s, axis);
    if (v && G_VALUE_HOLDS_DOUBLE (v))
      factor = g_value_get_double (v);
    else if (v && G_VALUE_HOLDS_INT (v))
      factor = g_value_get_int (v);
    else if (v)
      ok = false;
    if (!(factor > 0.0 && factor <= 64.0))
      ok = false;
    (axis[0] == 'x' ? parsed.scale_x : parsed.scale_y) = factor;
  }
  gst_structure_free (s);
  parsed.scaled = true;
  if (ok)
    spec = parsed;
  return ok;
}

/* ---- images ---- */

/* CL_ABGR is OpenCL 2.0's; the headers are used at 1.2. */
constexpr cl_channel_order ORDER_ABGR = 0x10C3;

/* A frame's (or a plane's) pixels as an image. */
struct ImageLayout
{
  cl_channel_order order;  /* the frame's own order, for a view of its buffer */
  cl_int4 bytes;           /* sample of red, green, blue, alpha within a pixel (4 channels) */
  int channels;            /* 1, 2 or 4 */
  cl_channel_type type;    /* CL_UNORM_INT8, or CL_UNORM_INT16 for 16-bit samples */

  int sample_bytes () const { return type == CL_UNORM_INT16 ? 2 : 1; }
  int pixel_bytes () const { return channels * sample_bytes (); }
  /* The order of an image of the element's own the frame is copied into: R, RG or RGBA. */
  cl_channel_order copy_order () const
  {
    return channels == 1 ? CL_R : channels == 2 ? CL_RG : CL_RGBA;
  }
};

bool
image_layout (GstVideoFormat format, ImageLayout & layout)
{
  static const struct { GstVideoFormat format; ImageLayout layout; } layouts[] = {
    { GST_VIDEO_FORMAT_RGBA, { CL_RGBA, { { 0, 1, 2, 3 } }, 4, CL_UNORM_INT8 } },
    { GST_VIDEO_FORMAT_RGBx, { CL_RGBA, { { 0, 1, 2, 3 } }, 4, CL_UNORM_INT8 } },
    { GST_VIDEO_FORMAT_BGRA, { CL_BGRA, { { 2, 1, 0, 3 } }, 4, CL_UNORM_INT8 } },
    { GST_VIDEO_FORMAT_BGRx, { CL_BGRA, { { 2, 1, 0, 3 } }, 4, CL_UNORM_INT8 } },
    { GST_VIDEO_FORMAT_ARGB, { CL_ARGB, { { 1, 2, 3, 0 } }, 4, CL_UNORM_INT8 } },
    { GST_VIDEO_FORMAT_xRGB, { CL_ARGB, { { 1, 2, 3, 0 } }, 4, CL_UNORM_INT8 } },
    { GST_VIDEO_FORMAT_ABGR, { ORDER_ABGR, { { 3, 2, 1, 0 } }, 4, CL_UNORM_INT8 } },
    { GST_VIDEO_FORMAT_xBGR, { ORDER_ABGR, { { 3, 2, 1, 0 } }, 4, CL_UNORM_INT8 } },
    { GST_VIDEO_FORMAT_GRAY8, { CL_R, { { 0, 0, 0, 0 } }, 1, CL_UNORM_INT8 } },
    { GST_VIDEO_FORMAT_GRAY16_LE, { CL_R, { { 0, 0, 0, 0 } }, 1, CL_UNORM_INT16 } },
    { GST_VIDEO_FORMAT_RGBA64_LE, { CL_RGBA, { { 0, 1, 2, 3 } }, 4, CL_UNORM_INT16 } },
  };
  for (const auto & entry : layouts) {
    if (entry.format == format) {
      layout = entry.layout;
      return true;
    }
  }
  return false;
}

/* A multi-plane format: its planes' names, in the frame's order, and their samples' type. */
struct PlanarFormat
{
  GstVideoFormat format;
  const char *words;  /* "two", "three" */
  std::vector<std::string> planes;
  cl_channel_type type;

  int index (const std::string & plane) const
  {
    for (size_t i = 0; i < planes.size (); i++)
      if (planes[i] == plane)
        return (int) i;
    return -1;
  }
  /* "src_y and src_uv", "src_y, src_u and src_v" */
  std::string names (const std::string & side) const
  {
    std::string text;
    for (size_t i = 0; i < planes.size (); i++)
      text += (i == 0 ? "" : i + 1 == planes.size () ? " and " : ", ") + side + "_" + planes[i];
    return text;
  }
  /* A plane's pixels: Y, U and V one channel (R), UV two (R = U, G = V). */
  ImageLayout layout (const std::string & plane) const
  {
    const bool pair = plane == "uv";
    return ImageLayout { (cl_channel_order) (pair ? CL_RG : CL_R), { { 0, 1, 0, 0 } },
      pair ? 2 : 1, type };
  }
};

const PlanarFormat *
planar_format (GstVideoFormat format)
{
  static const PlanarFormat formats[] = {
    { GST_VIDEO_FORMAT_NV12, "two", { "y", "uv" }, CL_UNORM_INT8 },
    { GST_VIDEO_FORMAT_P010_10LE, "two", { "y", "uv" }, CL_UNORM_INT16 },
    { GST_VIDEO_FORMAT_I420, "three", { "y", "u", "v" }, CL_UNORM_INT8 },
  };
  for (const auto & entry : formats)
    if (entry.format == format)
      return &entry;
  return nullptr;
}

bool
format_supported (const std::vector<cl::ImageFormat> & formats, cl_channel_order order,
    cl_channel_type type)
{
  return std::any_of (formats.begin (), formats.end (), [&](const cl::ImageFormat & f) {
    return f.image_channel_order == order && f.image_channel_data_type == type;
  });
}

/* Refuses a device without the images of the element's own that `layout`'s frames are copied
 * into (R, RG or RGBA, 8- or 16-bit). */
void
check_copy_format (const std::vector<cl::ImageFormat> & formats, const ImageLayout & layout)
{
  if (!format_supported (formats, layout.copy_order (), layout.type))
    throw Failure (Failure::Kind::Settings, std::string ("the device has no ") +
        (layout.type == CL_UNORM_INT16 ? "16" : "8") + "-bit " +
        (layout.channels == 1 ? "R" : layout.channels == 2 ? "RG" : "RGBA") + " images");
}

/* A frame's plane copied into or out of an image of the element's own (image_io.cl). */
void
set_copy_arguments (cl::Kernel & copy, const cl::Buffer & frame, size_t offset, size_t stride,
    const ImageLayout & layout, const cl::Image2D & image, bool to_image)
{
  const cl_uint first = to_image ? 0 : 1;  /* image_to_frame takes the image first */
  copy.setArg (first, frame);
  copy.setArg (first + 1, (cl_int) offset);
  copy.setArg (first + 2, (cl_int) stride);
  copy.setArg (first + 3, (cl_int) layout.channels);
  copy.setArg (first + 4, layout.bytes);
  copy.setArg (first + 5, (cl_int) (layout.sample_bytes () == 2));
  copy.setArg (to_image ? 6 : 0, image);
}

/* The largest kernel file openclkernel and openclkernelsrc read (docs/openclkernel.md). */
constexpr size_t kMaxProgramBytes = 16 * 1024 * 1024;

std::string
read_program (const std::string & location, std::string & origin)
{
  origin = "'" + printable (location, 200) + "'";
  /* OpenCL C programs are text of kilobytes: a larger file is a mistake (or /dev/zero). */
  std::string text = read_file_bounded (location, kMaxProgramBytes,
      "the kernel file " + origin, Failure::Kind::NotFound);
  /* The program is C text: an embedded NUL would end it early without a word. */
  if (text.find ('\0') != std::string::npos)
    throw Failure (Failure::Kind::Settings, "the kernel file " + origin +
        " is not text (it holds a NUL byte)");
  return text;
}

std::string
join_names (const std::vector<cl::Kernel> & kernels)
{
  std::string names;
  for (const auto & kernel : kernels)
    names += (names.empty () ? "" : ", ") + kernel.getInfo<CL_KERNEL_FUNCTION_NAME> ();
  return names;
}

/* Memory objects made from a frame's buffer once, the first time that buffer is seen (image
 * views, sub-buffers): the pool's buffers come round again, so this is warm-up, not per frame. */
struct ViewCache
{
  static constexpr size_t MAX_VIEWS = 16;
  std::vector<std::pair<cl_mem, cl::Memory>> views;
  size_t next = 0;

  template <typename T, typename Make>
  T get (cl_mem buffer, Make && make)
  {
    for (const auto & v : views)
      if (v.first == buffer)
        return T (v.second (), true);
    T made = make ();
    if (views.size () < MAX_VIEWS) {
      views.emplace_back (buffer, made);
    } else {
      views[next] = { buffer, made };
      next = (next + 1) % MAX_VIEWS;
    }
    return made;
  }
};

/* An image of `layout` viewing `buffer` (cl_khr_image2d_from_buffer), its rows `row_pitch` bytes
 * apart. */
cl::Image2D
image_view (Device & device, cl_mem buffer, const ImageLayout & layout, size_t width,
    size_t height, size_t row_pitch)
{
  cl_image_format format { layout.order, layout.type };
  cl_image_desc desc {};
  desc.image_type = CL_MEM_OBJECT_IMAGE2D;
  desc.image_width = width;
  desc.image_height = height;
  desc.image_row_pitch = row_pitch;
  desc.buffer = buffer;
  cl_int error = CL_SUCCESS;
  cl_mem image = clCreateImage (device.context (), 0, &format, &desc, nullptr, &error);
  if (error != CL_SUCCESS)
    throw cl::Error (error, "clCreateImage (a view of a frame)");
  return cl::Image2D (image);
}

/* One plane argument of a multi-plane frame (src_y, dst_uv_stride, ...), bound when caps are
 * set or a kernel is taken up: the plane's image or buffer, its stride and size. A plane that
 * does not start the buffer is a sub-buffer where its offset is aligned as the device needs
 * (CL_DEVICE_MEM_BASE_ADDR_ALIGN), else a copy in memory of the element's own, made here; an
 * image plane is a view of the buffer for the first plane where the device can make one, else a
 * copy in an image of the element's own, made here. */
struct PlaneSlot
{
  cl_uint index = 0;
  ArgRole role = ArgRole::PlaneBuffer;
  bool input = false;
  guint plane = 0;
  ImageLayout layout {};
  bool view_format = false;  /* the device views buffers as images of layout.order */
  size_t width = 0, height = 0;  /* the copy image's, pixels */
  cl::Image2D copy_image;
  cl::Buffer copy_buffer;
  ViewCache views;
  bool copied = false;  /* this frame's plane is in copy_image or copy_buffer */

  /* Bytes from the plane's first pixel to the end of its last row's pixels. */
  static size_t bytes (const GstVideoInfo & info, guint plane)
  {
    return (size_t) GST_VIDEO_INFO_PLANE_STRIDE (&info, plane) * (plane_rows (&info, plane) - 1) +
        plane_row_bytes (&info, plane);
  }
  static size_t plane_width (const GstVideoInfo & info, guint plane,
      const ImageLayout & layout)
  {
    return plane_row_bytes (&info, plane) / layout.pixel_bytes ();
  }
};

}  // namespace

/* ---- UserKernel ---- */

bool
UserKernel::has (ArgRole role) const
{
  return has_role (arguments, role);
}

/* Images: views of the frames' buffers where the device can make them, else images of the
 * element's own that frames are copied into and out of on the device; and the planes of
 * multi-plane frames. */
struct UserKernelHost::Frames
{
  bool views_possible = false;    /* cl_khr_image2d_from_buffer (or OpenCL 2.0) */
  size_t pitch_alignment = 0;     /* pixels */
  size_t base_align_bytes = 1;    /* a sub-buffer's origin is a multiple of it */
  std::vector<cl::ImageFormat> formats;
  ImageLayout in {}, out {};
  bool in_view_format = false, out_view_format = false;
  cl::Image2D in_copy, out_copy;  /* made once, when a frame cannot be viewed */
  cl::Kernel to_image, from_image;
  ViewCache in_views, out_views;
  std::vector<PlaneSlot> planes;

  bool viewable (const GstVideoInfo & info, guint plane, const ImageLayout & layout,
      bool view_format) const
  {
    const size_t stride = (size_t) GST_VIDEO_INFO_PLANE_STRIDE (&info, plane);
    return views_possible && view_format && GST_VIDEO_INFO_PLANE_OFFSET (&info, plane) == 0 &&
        stride % (pitch_alignment * layout.pixel_bytes ()) == 0;
  }

  bool viewable (const GstOpenCLFrame & frame, bool input) const
  {
    return viewable (frame.info, 0, input ? in : out, input ? in_view_format : out_view_format);
  }

  cl::Image2D view (Device & device, const GstOpenCLFrame & frame, bool input)
  {
    return (input ? in_views : out_views).get<cl::Image2D> (frame.buffer (), [&] () {
      return image_view (device, frame.buffer (), input ? in : out,
          GST_VIDEO_INFO_WIDTH (&frame.info), GST_VIDEO_INFO_HEIGHT (&frame.info),
          GST_VIDEO_INFO_PLANE_STRIDE (&frame.info, 0));
    });
  }

  cl::Image2D & copy_image (Device & device, const GstVideoInfo & info, bool input)
  {
    cl::Image2D & image = input ? in_copy : out_copy;
    if (!image ()) {
      const ImageLayout & layout = input ? in : out;
      image = cl::Image2D (device.context, CL_MEM_READ_WRITE,
          cl::ImageFormat (layout.copy_order (), layout.type),
          GST_VIDEO_INFO_WIDTH (&info), GST_VIDEO_INFO_HEIGHT (&info));
    }
    return image;
  }

  static std::unique_ptr<Frames> make (Device & device, const UserKernel & kernel,
      const GstVideoInfo * in, const GstVideoInfo * out);
  void bind_planes (Device & device, const UserKernel & kernel, const GstVideoInfo * in_info,
      const GstVideoInfo & out_info);
  void set_plane (ElementDevice & device, cl::Kernel & kernel, PlaneSlot & slot,
      const GstOpenCLFrame & frame);
  void copy_planes_out (ElementDevice & device, const GstOpenCLFrame & out);
};

void
UserKernelHost::Frames::bind_planes (Device & device, const UserKernel & kernel,
    const GstVideoInfo * in_info, const GstVideoInfo & out_info)
{
  std::vector<PlaneSlot> bound;
  for (const auto & arg : kernel.arguments) {
    if (!is_plane_role (arg.role))
      continue;
    const GstVideoInfo & info = arg.input ? *in_info : out_info;
    const PlanarFormat *planar = planar_format (GST_VIDEO_INFO_FORMAT (&info));
    PlaneSlot slot;
    slot.index = arg.index;
    slot.role = arg.role;
    slot.input = arg.input;
    slot.plane = (guint) planar->index (arg.plane);
    slot.layout = planar->layout (arg.plane);
    if (arg.role == ArgRole::PlaneImage) {
      /* A UV plane is an RG image; on a device without them (PoCL), an RGBA one holding U and V
       * in .x and .y, as the kernel reads and writes them either way. */
      ImageLayout copy = slot.layout;
      if (copy.channels == 2 && !format_supported (formats, CL_RG, copy.type))
        copy.channels = 4;
      check_copy_format (formats, copy);
      slot.view_format = format_supported (formats, slot.layout.order, slot.layout.type);
      slot.width = PlaneSlot::plane_width (info, slot.plane, slot.layout);
      slot.height = plane_rows (&info, slot.plane);
      slot.copy_image = cl::Image2D (device.context, CL_MEM_READ_WRITE,
          cl::ImageFormat (copy.copy_order (), copy.type), slot.width, slot.height);
    } else if (arg.role == ArgRole::PlaneBuffer &&
        GST_VIDEO_INFO_PLANE_OFFSET (&info, slot.plane) % base_align_bytes != 0) {
      slot.copy_buffer = cl::Buffer (device.context, CL_MEM_READ_WRITE,
          PlaneSlot::bytes (info, slot.plane));
    }
    bound.push_back (std::move (slot));
  }
  planes = std::move (bound);
}

/* Per frame: a plane argument's value; copies the plane in where it is an input copy. */
void
UserKernelHost::Frames::set_plane (ElementDevice & device, cl::Kernel & kernel, PlaneSlot & slot,
    const GstOpenCLFrame & frame)
{
  Device & d = device.device ();
  const GstVideoInfo & info = frame.info;
  const size_t offset = GST_VIDEO_INFO_PLANE_OFFSET (&info, slot.plane);
  const size_t stride = GST_VIDEO_INFO_PLANE_STRIDE (&info, slot.plane);
  slot.copied = false;
  if (slot.role == ArgRole::PlaneImage) {
    if (viewable (info, slot.plane, slot.layout, slot.view_format)) {
      kernel.setArg (slot.index, slot.views.get<cl::Image2D> (frame.buffer (), [&] () {
        return image_view (d, frame.buffer (), slot.layout,
            PlaneSlot::plane_width (info, slot.plane, slot.layout), plane_rows (&info, slot.plane),
            stride);
      }));
      return;
    }
    slot.copied = true;
    if (slot.input) {
      set_copy_arguments (to_image, frame.buffer, offset, stride, slot.layout, slot.copy_image,
          true);
      device.launch (to_image, cl::NDRange (slot.width, slot.height), cl::NullRange);
    }
    kernel.setArg (slot.index, slot.copy_image);
    return;
  }
  if (offset == 0) {
    kernel.setArg (slot.index, frame.buffer);
    return;
  }
  const size_t bytes = PlaneSlot::bytes (info, slot.plane);
  if (offset % base_align_bytes == 0) {
    kernel.setArg (slot.index, slot.views.get<cl::Buffer> (frame.buffer (), [&] () {
      cl_buffer_region region { offset, bytes };
      return cl::Buffer (frame.buffer).createSubBuffer (0, CL_BUFFER_CREATE_TYPE_REGION,
          &region);
    }));
    return;
  }
  if (!slot.copy_buffer () || slot.copy_buffer.getInfo<CL_MEM_SIZE> () < bytes)
    slot.copy_buffer = cl::Buffer (d.context, CL_MEM_READ_WRITE, bytes);  /* a new layout */
  slot.copied = true;
  if (slot.input)
    d.queue.enqueueCopyBuffer (frame.buffer, slot.copy_buffer, offset, 0, bytes);
  kernel.setArg (slot.index, slot.copy_buffer);
}

/* After the kernel: the output planes it wrote into copies, into the output frame. */
void
UserKernelHost::Frames::copy_planes_out (ElementDevice & device, const GstOpenCLFrame & out)
{
  for (auto & slot : planes) {
    if (slot.input || !slot.copied)
      continue;
    const size_t offset = GST_VIDEO_INFO_PLANE_OFFSET (&out.info, slot.plane);
    const size_t stride = GST_VIDEO_INFO_PLANE_STRIDE (&out.info, slot.plane);
    if (slot.role == ArgRole::PlaneBuffer) {
      device.device ().queue.enqueueCopyBuffer (slot.copy_buffer, out.buffer, 0, offset,
          PlaneSlot::bytes (out.info, slot.plane));
      continue;
    }
    set_copy_arguments (from_image, out.buffer, offset, stride, slot.layout, slot.copy_image,
        false);
    device.launch (from_image, cl::NDRange (slot.width, slot.height), cl::NullRange);
  }
}

/* ---- checked mode ---- */

namespace {

/* Each guard zone is at least two rows of its frame and at least this, rounded up to the
 * device's CL_DEVICE_MEM_BASE_ADDR_ALIGN (a sub-buffer's origin must be a multiple of it). */
constexpr size_t kMinGuardBytes = 4096;

/* The bytes of a frame a buffer kernel indexes: from the buffer's start to the end of the last
 * row of its plane, padding included (at most the buffer's size). */
size_t
frame_bytes (const GstVideoInfo & info)
{
  return GST_VIDEO_INFO_PLANE_OFFSET (&info, 0) +
      (size_t) GST_VIDEO_INFO_PLANE_STRIDE (&info, 0) * plane_rows (&info, 0);
}

size_t
frame_bytes (const GstOpenCLFrame & frame)
{
  return std::min (frame_bytes (frame.info), frame.buffer.getInfo<CL_MEM_SIZE> ());
}

/* How many bytes of a guard no longer hold the fill byte, and the lowest one's index. */
struct Changed
{
  size_t count = 0;
  size_t first = 0;
};

Changed
changed_bytes (const std::vector<guint8> & guard, guint8 fill)
{
  Changed changed;
  for (size_t i = 0; i < guard.size (); i++) {
    if (guard[i] != fill && changed.count++ == 0)
      changed.first = i;
  }
  return changed;
}

}  // namespace

/* The guarded copies of checked mode. Each frame a buffer kernel takes (src, dst) gets a buffer
 * of the element's own, [guard][frame][guard], made once for a layout (never per frame); the
 * kernel is given the frame part as a sub-buffer, at the frame's own strides. Per frame: both
 * guards are filled with a fill byte (0xA5 and 0x5A on alternate frames, so that a kernel
 * writing one of them is caught at the next frame), the frame's bytes are copied in (dst's too:
 * a pixel the kernel does not write keeps what the output buffer held, as without checked
 * mode); after the kernel the guards are read back, and count_changed (kernels/checked.cl)
 * compares src with the input frame. Only when nothing changed is dst copied into the output
 * frame. Reads outside the frames are not caught (they read the guards' fill byte), nor writes
 * beyond the guards. */
struct UserKernelHost::Checked
{
  struct Side
  {
    cl::Buffer whole;   /* guard, frame, guard */
    cl::Buffer frame;   /* the frame part: what the kernel is given */
    size_t guard = 0;   /* bytes of each guard */
    size_t bytes = 0;   /* bytes of the frame part */
    size_t stride = 0;  /* the frame's row stride the guards were sized by */
    std::vector<guint8> before, after;  /* the guards, read back */

    bool fits (size_t frame_bytes, size_t row_stride) const
    {
      return whole () && bytes == frame_bytes && stride == row_stride;
    }

    void make (Device & device, size_t frame_bytes, size_t row_stride)
    {
      const size_t align = MAX (device.base_align_bytes, 1u);
      const size_t least = MAX (2 * row_stride, kMinGuardBytes);
      const size_t guard_bytes = (least + align - 1) / align * align;
      const size_t total = 2 * guard_bytes + frame_bytes;
      if (total > device.max_alloc_bytes)
        throw Failure (Failure::Kind::TooLarge, "checked mode needs a buffer of " +
            std::to_string (total) + " bytes, more than " + device.name + " can allocate (" +
            std::to_string (device.max_alloc_bytes) + " bytes)");
      whole = cl::Buffer (device.context, CL_MEM_READ_WRITE, total);
      cl_buffer_region region { guard_bytes, frame_bytes };
      frame = whole.createSubBuffer (CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region);
      guard = guard_bytes;
      bytes = frame_bytes;
      stride = row_stride;
      before.assign (guard, 0);
      after.assign (guard, 0);
    }

    /* Fills the guards and copies the frame's bytes in. */
    void fill (cl::CommandQueue & queue, const cl::Buffer & from, guint8 fill_byte)
    {
      queue.enqueueFillBuffer (whole, fill_byte, 0, guard);
      queue.enqueueFillBuffer (whole, fill_byte, guard + bytes, guard);
      queue.enqueueCopyBuffer (from, whole, 0, guard, bytes);
    }

    /* Enqueues the reads of both guards (the caller waits for them). */
    void read_guards (cl::CommandQueue & queue)
    {
      queue.enqueueReadBuffer (whole, CL_FALSE, 0, guard, before.data ());
      queue.enqueueReadBuffer (whole, CL_FALSE, guard + bytes, guard, after.data ());
    }

    /* Adds what changed in the guards to `found` ("N bytes before its output frame (...)"). */
    void describe (guint8 fill_byte, const char *frame_name, std::string & found) const
    {
      const Changed ahead = changed_bytes (before, fill_byte);
      if (ahead.count)
        found += std::string (found.empty () ? "" : " and ") + std::to_string (ahead.count) +
            " bytes before its " + frame_name + " (first at byte " +
            std::to_string (guard - ahead.first) + " before the start)";
      const Changed behind = changed_bytes (after, fill_byte);
      if (behind.count)
        found += std::string (found.empty () ? "" : " and ") + std::to_string (behind.count) +
            " bytes after its " + frame_name + " (first at byte " +
            std::to_string (behind.first) + " past the end)";
    }
  };

  Side in, out;
  cl::Kernel count_changed;  /* kernels/checked.cl */
  cl::Buffer counts;         /* its result: bytes changed, the first */
  cl_uint counted[2] = { 0, 0 };
  guint8 fill_byte = 0xA5;
  guint64 frames = 0;

  void make_counter (Device & device)
  {
    if (count_changed ())
      return;
    count_changed = device.kernel ("checked", "count_changed", "");
    counts = cl::Buffer (device.context, CL_MEM_READ_WRITE, sizeof counted);
  }
};

/* ---- properties ---- */

void
UserKernelHost::install_properties (PropertyTable & table, UserKernelHost & (*of) (GObject *),
    bool for_source)
{
  const auto flags = PROPERTY_PLAYING;
  /* Each row's set and get go to the host's write () and read () with the row's offset. */
  auto add = [&table, of] (PropertyOffset offset, GParamSpec * spec) {
    table.add (spec, [of, offset] (GObject * object, const GValue * value) {
          of (object).write (GST_ELEMENT (object), offset, value);
        }, [of, offset] (GObject * object, GValue * value) {
          of (object).read (offset, value);
        });
  };
  add (LOCATION,
      g_param_spec_string ("location", "Location",
          "A .cl file holding the kernel (the later of location and source is used; a new one "
          "is built in the background while playing)", nullptr, flags));
  add (SOURCE,
      g_param_spec_string ("source", "Source",
          "The OpenCL C program text (the later of location and source is used; a new one is "
          "built in the background while playing)", nullptr, flags));
  add (KERNEL,
      g_param_spec_string ("kernel", "Kernel",
          "Name of the kernel to run (default: the program's only kernel)", nullptr, flags));
  add (PARAMETERS,
      g_param_spec_boxed ("parameters", "Parameters",
          "Values of the kernel's other arguments, by name, e.g. "
          "\"p,gain=(float)1.5,shift=(int)3,tint=<0.1,0.2,0.3,1.0>\"; numeric fields are also "
          "child objects with a controllable 'value' (name::value=)", GST_TYPE_STRUCTURE, flags));
  add (BUILD_OPTIONS,
      g_param_spec_string ("build-options", "Build options",
          "Extra options for the OpenCL compiler (-D NAME=VALUE, -cl-fast-relaxed-math, ...)",
          nullptr, flags));
  add (GLOBAL_SIZE,
      g_param_spec_string ("global-size", "Global size",
          for_source ? "Work-items: \"WxH\", or \"scale,x=F,y=F\" times the frame's size "
          "(empty: one per pixel)" : "Work-items: \"WxH\", or \"scale,x=F,y=F\" times the "
          "output frame's size (empty: one per output pixel)", "", flags));
  add (LOCAL_SIZE,
      g_param_spec_string ("local-size", "Local size",
          "Work-group size \"WxH\" (empty: the driver's choice); the global size is rounded up "
          "to a multiple of it", "", flags));
  add (TIMEOUT,
      g_param_spec_uint ("timeout", "Timeout",
          "Longest wait for a frame's kernel, in milliseconds (0: no limit); past it the "
          "element posts an error naming the kernel and gives the device's queue up (OpenCL "
          "cannot stop a running kernel)", 0, 3600000, 0, flags));
  add (CHECKED,
      g_param_spec_boolean ("checked", "Checked",
          for_source ? "For developing kernels: dst is a copy of the frame with guard zones "
          "before and after it, checked after every frame; a write outside the frame is an "
          "error naming the kernel, and the frame is not pushed. Costs a copy and a wait per "
          "frame; images are not guarded. GST_OPENCL_CHECKED=1 turns it on too" :
          "For developing kernels: src and dst are copies of the frames with guard zones "
          "before and after them, checked after every frame; a write outside the output frame "
          "or into the input is an error naming the kernel, and the frame is not pushed. Costs "
          "copies and a wait per frame; images are not guarded. GST_OPENCL_CHECKED=1 turns it "
          "on too", FALSE, flags));
}

UserKernelHost::UserKernelHost (bool for_source) : for_source_ (for_source)
{
}

UserKernelHost::~UserKernelHost ()
{
  stop ();
  if (settings_.parameters)
    gst_structure_free (settings_.parameters);
  for (auto *child : children_)
    gst_object_unparent (GST_OBJECT (child));
}

std::string UserKernelHost::ProgramSettings::*
UserKernelHost::program_text (guint offset)
{
  switch (offset) {
    case LOCATION: return &ProgramSettings::location;
    case SOURCE: return &ProgramSettings::source;
    case KERNEL: return &ProgramSettings::kernel;
    case BUILD_OPTIONS: return &ProgramSettings::build_options;
    default: return nullptr;
  }
}

void
UserKernelHost::write (GstElement * element, PropertyOffset offset, const GValue * value)
{
  const auto text_member = program_text (offset);
  std::string invalid;
  {
    std::lock_guard<std::mutex> guard (lock_);
    auto & s = settings_;
    if (text_member) {
      value_into (value, s.program.*text_member);
      if (offset == LOCATION || offset == SOURCE)
        s.program.source_wins = offset == SOURCE;
      program_generation_++;
    } else if (offset == TIMEOUT) {
      timeout_ms_ = g_value_get_uint (value);
    } else if (offset == CHECKED) {
      s.checked = g_value_get_boolean (value);
    } else if (offset == PARAMETERS) {
      const GstStructure *parameters = gst_value_get_structure (value);
      if (s.parameters)
        gst_structure_free (s.parameters);
      s.parameters = parameters ? gst_structure_copy (parameters) : nullptr;
      parameters_generation_++;
    } else {
      const bool global = offset == GLOBAL_SIZE;
      const gchar *text = g_value_get_string (value);
      if (parse_size (text ? text : "", global, global ? s.global : s.local)) {
        global_generation_++;
      } else {
        invalid = std::string ("invalid ") + (global ? "global-size" : "local-size") +
            " \"" + printable (text ? text : "", 100) + "\": expected WxH" +
            (global ? " or scale,x=F,y=F" : "") + "; keeping \"" +
            (global ? s.global : s.local).text + "\"";
      }
    }
  }
  if (!invalid.empty ()) {
    /* Before the element is in a pipeline the message reaches no bus: log it too. */
    GST_WARNING_OBJECT (element, "%s", invalid.c_str ());
    GST_ELEMENT_WARNING (element, RESOURCE, SETTINGS, ("%s", invalid.c_str ()), (nullptr));
  }
  if (offset == PARAMETERS) {
    GstStructure *copy = nullptr;
    {
      std::lock_guard<std::mutex> guard (lock_);
      if (settings_.parameters)
        copy = gst_structure_copy (settings_.parameters);
    }
    update_children (element, copy);
    if (copy)
      gst_structure_free (copy);
  }
  if (text_member)
    start_background_build (element);
}

void
UserKernelHost::read (PropertyOffset offset, GValue * value)
{
  std::lock_guard<std::mutex> guard (lock_);
  const auto & s = settings_;
  if (const auto text_member = program_text (offset))
    value_from (s.program.*text_member, value);
  else if (offset == PARAMETERS)
    gst_value_set_structure (value, s.parameters);
  else if (offset == TIMEOUT)
    g_value_set_uint (value, timeout_ms_);
  else if (offset == CHECKED)
    g_value_set_boolean (value, s.checked);
  else
    g_value_set_string (value, (offset == GLOBAL_SIZE ? s.global : s.local).text.c_str ());
}

/* ---- children: one per numeric field of `parameters` ---- */

void
UserKernelHost::update_children (GstElement * element, const GstStructure * parameters)
{
  std::vector<GstOpenCLKernelParam *> added, removed;
  {
    std::lock_guard<std::mutex> guard (lock_);
    std::vector<GstOpenCLKernelParam *> kept;
    for (auto *child : children_) {
      const gchar *name = GST_OBJECT_NAME (child);
      const GValue *v = parameters ? gst_structure_get_value (parameters, name) : nullptr;
      double number = 0.0;
      if (v && g_value_type_transformable (G_VALUE_TYPE (v), G_TYPE_DOUBLE) &&
          !G_VALUE_HOLDS_BOOLEAN (v)) {
        GValue d = G_VALUE_INIT;
        g_value_init (&d, G_TYPE_DOUBLE);
        g_value_transform (v, &d);
        number = g_value_get_double (&d);
        set_param_value (child, number);
        kept.push_back (child);
      } else {
        removed.push_back (child);
      }
    }
    const gint n = parameters ? gst_structure_n_fields (parameters) : 0;
    for (gint i = 0; i < n; i++) {
      const gchar *name = gst_structure_nth_field_name (parameters, i);
      const GValue *v = gst_structure_get_value (parameters, name);
      GType t = G_VALUE_TYPE (v);
      if (t != G_TYPE_INT && t != G_TYPE_UINT && t != G_TYPE_INT64 && t != G_TYPE_UINT64 &&
          t != G_TYPE_FLOAT && t != G_TYPE_DOUBLE)
        continue;
      if (std::any_of (kept.begin (), kept.end (), [&](GstOpenCLKernelParam * c) {
            return g_strcmp0 (GST_OBJECT_NAME (c), name) == 0; }))
        continue;
      GValue d = G_VALUE_INIT;
      g_value_init (&d, G_TYPE_DOUBLE);
      g_value_transform (v, &d);
      auto *child = GST_OPENCL_KERNEL_PARAM (g_object_new (GST_TYPE_OPENCL_KERNEL_PARAM,
              "name", name, nullptr));
      set_param_value (child, g_value_get_double (&d));
      /* The parent's reference is the one the element keeps. */
      gst_object_set_parent (GST_OBJECT (child), GST_OBJECT (element));
      kept.push_back (child);
      added.push_back (child);
    }
    children_ = kept;
  }
  /* Signals outside the lock: handlers (gst-launch's delayed properties) set values. */
  for (auto *child : removed) {
    gst_child_proxy_child_removed (GST_CHILD_PROXY (element), G_OBJECT (child),
        GST_OBJECT_NAME (child));
    gst_object_unparent (GST_OBJECT (child));
  }
  for (auto *child : added)
    gst_child_proxy_child_added (GST_CHILD_PROXY (element), G_OBJECT (child),
        GST_OBJECT_NAME (child));
}

static GQuark
host_quark ()
{
  static GQuark quark = g_quark_from_static_string ("gst-opencl-user-kernel-host");
  return quark;
}

void
UserKernelHost::attach (GObject * element)
{
  g_object_set_qdata (element, host_quark (), this);
}

static UserKernelHost &
attached_host (GstChildProxy * proxy)
{
  return *static_cast<UserKernelHost *> (g_object_get_qdata (G_OBJECT (proxy), host_quark ()));
}

void
UserKernelHost::child_proxy_init (gpointer g_iface, gpointer)
{
  auto *iface = static_cast<GstChildProxyInterface *> (g_iface);
  iface->get_child_by_name = [](GstChildProxy * proxy, const gchar * name) {
    return attached_host (proxy).child_by_name (name);
  };
  iface->get_child_by_index = [](GstChildProxy * proxy, guint index) {
    return attached_host (proxy).child_by_index (index);
  };
  iface->get_children_count = [](GstChildProxy * proxy) {
    return attached_host (proxy).children_count ();
  };
}

GObject *
UserKernelHost::child_by_name (const gchar * name)
{
  std::lock_guard<std::mutex> guard (lock_);
  for (auto *child : children_)
    if (g_strcmp0 (GST_OBJECT_NAME (child), name) == 0)
      return G_OBJECT (gst_object_ref (child));
  return nullptr;
}

GObject *
UserKernelHost::child_by_index (guint index)
{
  std::lock_guard<std::mutex> guard (lock_);
  return index < children_.size () ? G_OBJECT (gst_object_ref (children_[index])) : nullptr;
}

guint
UserKernelHost::children_count ()
{
  std::lock_guard<std::mutex> guard (lock_);
  return (guint) children_.size ();
}

/* ---- building ---- */

/* Refuses build options that are not compiler options before the driver sees them: every
 * word starts with '-', and -D and -I alone take the next word as their value. Drivers differ
 * in what they do with other text; Mesa's rusticl (25.0) aborts the process on some of it. */
static void
check_build_options (const std::string & options)
{
  gchar **words = g_strsplit_set (options.c_str (), " \t\r\n\f\v", -1);
  std::string bad;
  bool value_next = false;
  for (gchar **word = words; *word && bad.empty (); word++) {
    const std::string text = *word;
    if (text.empty ())
      continue;
    if (value_next) {
      value_next = false;
      continue;
    }
    if (text.size () < 2 || text[0] != '-')
      bad = text;
    else if (text == "-D" || text == "-I")
      value_next = true;
  }
  g_strfreev (words);
  if (!bad.empty ())
    throw Failure (Failure::Kind::Settings, "build-options '" + printable (options, 200) +
        "': '" + printable (bad, 60) + "' is not a compiler option (options start with '-'; "
        "-D and -I take the next word as their value)");
  if (value_next)
    throw Failure (Failure::Kind::Settings, "build-options '" + printable (options, 200) +
        "' end with -D or -I and no value");
}

std::shared_ptr<UserKernel>
UserKernelHost::build (ElementDevice & element_device, const ProgramSettings & settings)
{
  Device & device = element_device.device ();
  auto result = std::make_shared<UserKernel> ();
  std::string text;
  if (settings.source_wins || settings.location.empty ()) {
    if (settings.source.empty ())
      throw Failure (Failure::Kind::Settings,
          "no kernel: set location (a .cl file) or source (the program text)");
    text = settings.source;
    result->origin = "the source property";
  } else {
    text = read_program (settings.location, result->origin);
  }

  /* From the context's cache (in memory: arguments' names need a build from source), so a
   * restart or a second element with the same program builds nothing. */
  check_build_options (settings.build_options);
  const std::string options = "-cl-kernel-arg-info " + settings.build_options;
  try {
    result->program = device.programs.get (device.context, device.cl_device, result->origin, text,
        options, false);
  } catch (const BuildFailure & e) {
    /* The driver's code stays in the message: "... failed to build (CL_BUILD_PROGRAM_FAILURE)".
     * The log may quote the program and the options, any bytes. */
    const std::string inner = e.what ();
    const size_t code = inner.rfind (" (");
    std::string message = "the kernel program from " + result->origin + " failed to build" +
        (code != std::string::npos ? inner.substr (code) : std::string ());
    if (inner.find ("CL_INVALID_BUILD_OPTIONS") != std::string::npos)
      message += ": the compiler refuses build-options '" +
          printable (settings.build_options, 200) + "'";
    throw BuildFailure (message, printable (e.build_log));
  }

  std::vector<cl::Kernel> kernels;
  result->program.createKernels (&kernels);
  if (!settings.kernel.empty ()) {
    for (auto & kernel : kernels)
      if (kernel.getInfo<CL_KERNEL_FUNCTION_NAME> () == settings.kernel)
        result->kernel = kernel;
    if (!result->kernel ())
      throw Failure (Failure::Kind::Settings, "there is no kernel named '" +
          printable (settings.kernel, 200) + "' in " + result->origin +
          (kernels.empty () ? std::string (" (it has none)") : " (it has: " +
              join_names (kernels) + ")"));
  } else if (kernels.size () == 1) {
    result->kernel = kernels[0];
  } else if (kernels.empty ()) {
    throw Failure (Failure::Kind::Settings, "the program from " + result->origin +
        " has no kernel");
  } else {
    throw Failure (Failure::Kind::Settings, "the program from " + result->origin +
        " has several kernels (" + join_names (kernels) + "): set the kernel property");
  }
  result->kernel_name = result->kernel.getInfo<CL_KERNEL_FUNCTION_NAME> ();

  result->arguments = read_kernel_arguments (result->kernel, result->kernel_name,
      for_source_);
  return result;
}

void
UserKernelHost::start_background_build (GstElement * element)
{
  std::lock_guard<std::mutex> builder_guard (builder_lock_);
  {
    std::lock_guard<std::mutex> guard (lock_);
    if (!device_ || !current_ || building_)
      return;
    building_ = true;
  }
  if (builder_.joinable ())
    builder_.join ();  /* a finished one */
  builder_ = std::thread ([this, element]() { background_build (element); });
}

void
UserKernelHost::background_build (GstElement * element)
{
  for (;;) {
    ProgramSettings snapshot;
    guint64 generation;
    ElementDevice *device;
    {
      std::lock_guard<std::mutex> guard (lock_);
      snapshot = settings_.program;
      generation = program_generation_;
      device = device_;
      if (!device) {
        building_ = false;
        return;
      }
    }
    std::shared_ptr<UserKernel> built;
    std::string problem, log;
    try {
      built = build (*device, snapshot);
    } catch (const BuildFailure & e) {
      problem = e.what ();
      log = e.build_log;
    } catch (...) {
      problem = describe_exception (std::current_exception ());
    }
    if (!problem.empty ()) {
      GST_ELEMENT_WARNING (element, LIBRARY, INIT, ("%s; the previous kernel goes on",
              problem.c_str ()), ("%s", log.empty () ? problem.c_str () : log.c_str ()));
    }
    std::lock_guard<std::mutex> guard (lock_);
    if (built && generation > pending_generation_) {
      pending_ = built;
      pending_generation_ = generation;
    }
    if (generation == program_generation_) {
      building_ = false;
      return;
    }
  }
}

/* ---- negotiation and frames ---- */

static cl::NDRange
global_range (const SizeSpec & spec, const GstVideoInfo & out)
{
  if (!spec.set)
    return cl::NDRange (GST_VIDEO_INFO_WIDTH (&out), GST_VIDEO_INFO_HEIGHT (&out));
  if (!spec.scaled)
    return cl::NDRange (spec.width, spec.height);
  return cl::NDRange (MAX (1, (size_t) std::lround (GST_VIDEO_INFO_WIDTH (&out) * spec.scale_x)),
      MAX (1, (size_t) std::lround (GST_VIDEO_INFO_HEIGHT (&out) * spec.scale_y)));
}

void
UserKernelHost::ensure_built (ElementDevice & device)
{
  ProgramSettings snapshot;
  guint64 generation;
  {
    std::lock_guard<std::mutex> guard (lock_);
    device_ = &device;
    snapshot = settings_.program;
    generation = program_generation_;
    if (pending_ && pending_generation_ == generation) {
      current_ = pending_;
      current_generation_ = generation;
    }
    pending_.reset ();
    if (current_ && current_generation_ == generation)
      return;
  }
  auto built = build (device, snapshot);
  std::lock_guard<std::mutex> guard (lock_);
  current_ = built;
  current_generation_ = generation;
}

/* Why `kernel` cannot run work-groups of `local` on its device, or "" when it can (or when the
 * driver chooses the size). Named with the limit, so that a size is refused when it is set or
 * negotiated, never met as CL_INVALID_WORK_GROUP_SIZE at a frame. */
static std::string
local_size_problem (const cl::Kernel & kernel, const std::string & kernel_name,
    const SizeSpec & local)
{
  if (!local.set || local.scaled || !kernel ())
    return "";
  const cl::Device device = kernel.getInfo<CL_KERNEL_PROGRAM> ().getInfo<CL_PROGRAM_DEVICES> ()[0];
  const auto dimensions = device.getInfo<CL_DEVICE_MAX_WORK_ITEM_SIZES> ();
  const std::string asked = "local-size " + std::to_string (local.width) + "x" +
      std::to_string (local.height);
  if (dimensions.size () >= 2 && (local.width > dimensions[0] || local.height > dimensions[1]))
    return asked + " exceeds the device's largest work-group, " + std::to_string (dimensions[0]) +
        "x" + std::to_string (dimensions[1]) + " (CL_DEVICE_MAX_WORK_ITEM_SIZES)";
  const size_t most = kernel.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE> (device);
  const size_t items = local.width * local.height;
  if (items > most)
    return asked + " is " + std::to_string (items) + " work-items; kernel '" + kernel_name +
        "' runs at most " + std::to_string (most) + " in a group on this device "
        "(CL_KERNEL_WORK_GROUP_SIZE)";
  return "";
}

/* Refuses sizes the kernel cannot run with, naming why: an output of another size than the
 * input when the kernel takes no width and height to sample with, and a local size that is a
 * scale or larger than the kernel's work-groups on the device. */
static void
check_sizes (const UserKernel & kernel, const GstVideoInfo * in, const GstVideoInfo * out,
    const SizeSpec & local)
{
  if (in && !kernel.has (ArgRole::Width) && (GST_VIDEO_INFO_WIDTH (in) !=
          GST_VIDEO_INFO_WIDTH (out) || GST_VIDEO_INFO_HEIGHT (in) != GST_VIDEO_INFO_HEIGHT (out)))
    throw Failure (Failure::Kind::Settings, "the output is " + std::to_string (out->width) +
        "x" + std::to_string (out->height) + " but the input " + std::to_string (in->width) +
        "x" + std::to_string (in->height) + ", and kernel '" + kernel.kernel_name +
        "' takes no width and height to sample with");
  if (local.set && local.scaled)
    throw Failure (Failure::Kind::Settings, "local-size must be WxH");
  const std::string local_problem = local_size_problem (kernel.kernel, kernel.kernel_name,
      local);
  if (!local_problem.empty ())
    throw Failure (Failure::Kind::Settings, local_problem);
}

/* Whether frames may be viewed as images on the device (cl_khr_image2d_from_buffer, or OpenCL
 * 2.0 and later, and GST_OPENCL_IMAGE_VIEWS not off), with the row pitch alignment such views
 * need in `alignment` (pixels; 0: none). */
static bool
image_views_possible (const Device & d, cl_uint & alignment)
{
  const std::string extensions = d.cl_device.getInfo<CL_DEVICE_EXTENSIONS> ();
  alignment = 0;
  if (clGetDeviceInfo (d.cl_device (), 0x104A /* CL_DEVICE_IMAGE_PITCH_ALIGNMENT */,
          sizeof alignment, &alignment, nullptr) != CL_SUCCESS)
    alignment = 0;
  return alignment > 0 && env::flag (env::Variable::ImageViews) &&
      (extensions.find ("cl_khr_image2d_from_buffer") != std::string::npos ||
      d.cl_device.getInfo<CL_DEVICE_VERSION> ().rfind ("OpenCL 1.", 0) != 0);
}

/* Refuses a kernel whose frame arguments do not fit the frames' formats, naming the arguments
 * it needs: whole-frame src / dst (or an image) on a multi-plane frame, a plane argument on a
 * one-plane frame or of a plane the format has not, an output plane left unwritten. */
static void
check_frame_arguments (const UserKernel & kernel, const GstVideoInfo & info, bool input)
{
  const std::string format = gst_video_format_to_string (GST_VIDEO_INFO_FORMAT (&info));
  const std::string side = input ? "src" : "dst";
  const std::string who = "kernel '" + kernel.kernel_name + "'";
  const PlanarFormat *planar = planar_format (GST_VIDEO_INFO_FORMAT (&info));
  for (const auto & arg : kernel.arguments) {
    if (is_plane_role (arg.role) && arg.input == input && !planar)
      throw Failure (Failure::Kind::Settings, format + " frames are one plane: declare " +
          side + " (a buffer or an image) instead of " + arg.name + " (" + who + ")");
    if (is_plane_role (arg.role) && arg.input == input && planar->index (arg.plane) < 0)
      throw Failure (Failure::Kind::Settings, format + " frames are " + planar->words +
          " planes, " + planar->names (side) + ": there is no " + arg.name + " (" + who + ")");
    /* A pointer to bytes on 16-bit samples, or to 16-bit words on bytes, reads the wrong ones. */
    const unsigned sample = planar && planar->type == CL_UNORM_INT16 ? 2 : 1;
    if (arg.role == ArgRole::PlaneBuffer && arg.input == input && arg.type.lanes == 1 &&
        arg.type.bytes <= 2 && arg.type.bytes != sample)
      throw Failure (Failure::Kind::Settings, format + " samples are " + (sample == 2 ?
              "16-bit words: declare " + arg.name + " as ushort *" : "bytes: declare " +
              arg.name + " as uchar *") + ", not " + arg.type_name + " (" + who + ")");
  }
  if (!planar)
    return;
  const ArgRole whole[] = { input ? ArgRole::InputImage : ArgRole::OutputImage,
    input ? ArgRole::SrcBuffer : ArgRole::DstBuffer,
    input ? ArgRole::SrcStride : ArgRole::DstStride };
  for (const auto & arg : kernel.arguments)
    if (std::find (std::begin (whole), std::end (whole), arg.role) != std::end (whole))
      throw Failure (Failure::Kind::Settings, format + " frames are " + planar->words +
          " planes: declare " + planar->names (side) + (input ? " (and " + planar->names
              ("dst") + ")" : std::string ()) + " instead of " + arg.name + " (" + who + ")");
  if (input)
    return;
  for (const auto & plane : planar->planes) {
    const bool written = std::any_of (kernel.arguments.begin (), kernel.arguments.end (),
        [&] (const KernelArgument & a) {
          return !a.input && a.plane == plane && (a.role == ArgRole::PlaneImage ||
              a.role == ArgRole::PlaneBuffer);
        });
    if (!written)
      throw Failure (Failure::Kind::Settings, who + " must write every plane of the " + format +
          " output, " + planar->names ("dst") + ": declare dst_" + plane + " too");
  }
}

/* The frames' images and planes for a kernel: the image formats the device has, whether it
 * views buffers as images, the copy kernels, the planes bound. Throws Failure. */
std::unique_ptr<UserKernelHost::Frames>
UserKernelHost::Frames::make (Device & d, const UserKernel & kernel, const GstVideoInfo * in,
    const GstVideoInfo * out)
{
  auto frames = std::make_unique<Frames> ();
  const auto known = [] (const GstVideoInfo & info, ImageLayout & layout) {
    return planar_format (GST_VIDEO_INFO_FORMAT (&info)) ||
        image_layout (GST_VIDEO_INFO_FORMAT (&info), layout);
  };
  if (!known (*out, frames->out) || (in && !known (*in, frames->in)))
    throw Failure (Failure::Kind::Settings, "format not supported by openclkernel");
  frames->base_align_bytes = MAX (d.base_align_bytes, 1u);
  const bool images = d.cl_device.getInfo<CL_DEVICE_IMAGE_SUPPORT> ();
  if (kernel.uses_images () && !images)
    throw Failure (Failure::Kind::Settings, "the device has no images: write kernel '" +
        kernel.kernel_name + "' with __global src and dst buffers");
  if (images) {
    d.context.getSupportedImageFormats (CL_MEM_READ_WRITE, CL_MEM_OBJECT_IMAGE2D,
        &frames->formats);
    cl_uint alignment = 0;
    frames->views_possible = image_views_possible (d, alignment);
    frames->pitch_alignment = alignment;
    frames->in_view_format = in && format_supported (frames->formats, frames->in.order,
        frames->in.type);
    frames->out_view_format = format_supported (frames->formats, frames->out.order,
        frames->out.type);
    if (in && kernel.has (ArgRole::InputImage))
      check_copy_format (frames->formats, frames->in);
    if (kernel.has (ArgRole::OutputImage))
      check_copy_format (frames->formats, frames->out);
    frames->to_image = d.kernel ("image_io", "frame_to_image", "");
    frames->from_image = d.kernel ("image_io", "image_to_frame", "");
  }
  frames->bind_planes (d, kernel, in, *out);
  return frames;
}

void
UserKernelHost::prepare (GstElement * element, ElementDevice & device, const GstVideoInfo * in,
    const GstVideoInfo * out)
{
  ensure_built (device);
  /* Known before the allocation queries: with a timeout the frames are not shared with the
   * neighbours (ElementDevice::shares_host_frames). */
  device.set_wait_limit (timeout_ms_);
  /* The user's kernel may never end: a stop gives it up after a grace. */
  device.set_may_not_end (true);
  SizeSpec global, local;
  guint64 parameters_generation, sizes_generation;
  GstStructure *parameters = nullptr;
  {
    std::lock_guard<std::mutex> guard (lock_);
    global = settings_.global;
    local = settings_.local;
    parameters_generation = parameters_generation_;
    sizes_generation = global_generation_;
    if (settings_.parameters)
      parameters = gst_structure_copy (settings_.parameters);
    /* Read when caps are set. */
    checked_by_env_ = env::flag (env::Variable::Checked);
    checked_ = settings_.checked || checked_by_env_;
  }
  std::unique_ptr<GstStructure, decltype (&gst_structure_free)> owned (parameters,
      gst_structure_free);

  values_ = bind_parameters (current_->arguments, parameters);
  applied_parameters_ = parameters_generation;
  if (in)
    check_frame_arguments (*current_, *in, true);
  check_frame_arguments (*current_, *out, false);

  out_info_ = *out;
  have_in_ = in != nullptr;
  if (in)
    in_info_ = *in;
  check_sizes (*current_, in, out, local);
  global_ = global_range (global, *out);
  local_ = local.set ? cl::NDRange (local.width, local.height) : cl::NullRange;
  applied_sizes_ = sizes_generation;

  Device & d = device.device ();
  frames_ = Frames::make (d, *current_, in, out);
  /* Checked mode's copies, for the negotiated layouts: a frame of another layout (a video meta's
   * strides) makes them again, once. */
  guarded_.reset ();
  if (checked_) {
    guarded_ = std::make_unique<Checked> ();
    if (in && current_->has (ArgRole::SrcBuffer)) {
      guarded_->in.make (d, frame_bytes (*in), GST_VIDEO_INFO_PLANE_STRIDE (in, 0));
      guarded_->make_counter (d);
    }
    if (current_->has (ArgRole::DstBuffer))
      guarded_->out.make (d, frame_bytes (*out), GST_VIDEO_INFO_PLANE_STRIDE (out, 0));
  }
  GST_DEBUG_OBJECT (element, "kernel %s from %s: %zu arguments, %zu parameters, images %s%s",
      current_->kernel_name.c_str (), current_->origin.c_str (), current_->arguments.size (),
      values_.size (), !current_->uses_images () ? "none" : frames_->views_possible ?
      "viewed where aligned" : "copied", checked_ ? ", checked mode" : "");
}

bool
UserKernelHost::takes_size ()
{
  std::lock_guard<std::mutex> guard (lock_);
  /* Before the kernel is built (pads linked in NULL, as gst-launch does), any size may link:
   * negotiation then fails with a clear error if the kernel cannot sample. */
  if (!current_)
    return true;
  return current_->has (ArgRole::Width) && current_->has (ArgRole::Height);
}

bool
UserKernelHost::takes_format (GstVideoFormat format)
{
  std::lock_guard<std::mutex> guard (lock_);
  if (!current_)
    return true;
  GstVideoInfo info;
  if (!gst_video_info_set_format (&info, format, 16, 16))
    return false;
  try {
    if (!for_source_)
      check_frame_arguments (*current_, info, true);
    check_frame_arguments (*current_, info, false);
  } catch (const std::exception &) {
    return false;
  }
  return true;
}

void
UserKernelHost::take_updates (GstElement * element)
{
  std::string problem;
  std::shared_ptr<UserKernel> candidate;
  {
    std::lock_guard<std::mutex> guard (lock_);
    if (pending_ && pending_generation_ > current_generation_) {
      candidate = pending_;
      pending_.reset ();
      try {
        auto values = bind_parameters (candidate->arguments, settings_.parameters);
        if (candidate->uses_images () && !frames_->to_image ())
          throw Failure (Failure::Kind::Settings, "the device has no images");
        if (have_in_)
          check_frame_arguments (*candidate, in_info_, true);
        check_frame_arguments (*candidate, out_info_, false);
        if (have_in_ && !candidate->has (ArgRole::Width) &&
            (GST_VIDEO_INFO_WIDTH (&in_info_) != GST_VIDEO_INFO_WIDTH (&out_info_) ||
            GST_VIDEO_INFO_HEIGHT (&in_info_) != GST_VIDEO_INFO_HEIGHT (&out_info_)))
          throw Failure (Failure::Kind::Settings, "it takes no width and height, and the "
              "frames change size");
        frames_->bind_planes (device_->device (), *candidate, have_in_ ? &in_info_ : nullptr,
            out_info_);
        current_ = candidate;
        current_generation_ = pending_generation_;
        values_ = std::move (values);
        applied_parameters_ = parameters_generation_;
      } catch (const std::exception & e) {
        problem = std::string ("the new kernel cannot run: ") + e.what () +
            "; the previous kernel goes on";
        candidate.reset ();
      }
    }
    if (applied_parameters_ != parameters_generation_) {
      applied_parameters_ = parameters_generation_;
      try {
        values_ = bind_parameters (current_->arguments, settings_.parameters);
      } catch (const std::exception & e) {
        problem = std::string (e.what ()) + "; the previous parameters stay";
      }
    }
    checked_ = settings_.checked || checked_by_env_;
    if (applied_sizes_ != global_generation_) {
      applied_sizes_ = global_generation_;
      const std::string local_problem = local_size_problem (current_->kernel,
          current_->kernel_name, settings_.local);
      if (settings_.local.set && settings_.local.scaled) {
        problem = "local-size must be WxH; the previous one stays";
      } else if (!local_problem.empty ()) {
        problem = local_problem + "; the previous one stays";
      } else {
        global_ = global_range (settings_.global, out_info_);
        local_ = settings_.local.set ? cl::NDRange (settings_.local.width,
            settings_.local.height) : cl::NullRange;
      }
    }
  }
  if (!problem.empty ())
    GST_ELEMENT_WARNING (element, RESOURCE, SETTINGS, ("%s", problem.c_str ()), (nullptr));
  if (candidate) {
    gst_element_post_message (element, gst_message_new_element (GST_OBJECT (element),
            gst_structure_new ("opencl-kernel", "kernel", G_TYPE_STRING,
                candidate->kernel_name.c_str (), "origin", G_TYPE_STRING,
                candidate->origin.c_str (), nullptr)));
  }
}

/* A plane's stride (bytes), width or height (pixels) in a frame, for src_uv_stride and the like. */
static gint64
plane_value (const KernelArgument & arg, const GstVideoInfo & info)
{
  const PlanarFormat *planar = planar_format (GST_VIDEO_INFO_FORMAT (&info));
  const guint plane = (guint) planar->index (arg.plane);
  if (arg.role == ArgRole::PlaneStride)
    return GST_VIDEO_INFO_PLANE_STRIDE (&info, plane);
  if (arg.role == ArgRole::PlaneHeight)
    return (gint64) plane_rows (&info, plane);
  return (gint64) PlaneSlot::plane_width (info, plane, planar->layout (arg.plane));
}

void
UserKernelHost::set_frame_arguments (ElementDevice & device, const GstOpenCLFrame * in,
    const GstOpenCLFrame & out, GstClockTime stream_time, guint64 frame_number)
{
  cl::Kernel & kernel = current_->kernel;
  Device & d = device.device ();
  for (const auto & arg : current_->arguments) {
    unsigned char scalar[8] = {};
    switch (arg.role) {
      case ArgRole::InputImage:
        if (frames_->viewable (*in, true)) {
          kernel.setArg (arg.index, frames_->view (d, *in, true));
        } else {
          cl::Image2D & image = frames_->copy_image (d, in->info, true);
          set_copy_arguments (frames_->to_image, in->buffer, 0,
              GST_VIDEO_INFO_PLANE_STRIDE (&in->info, 0), frames_->in, image, true);
          device.launch (frames_->to_image, cl::NDRange (GST_VIDEO_INFO_WIDTH (&in->info),
                  GST_VIDEO_INFO_HEIGHT (&in->info)), cl::NullRange);
          kernel.setArg (arg.index, image);
        }
        continue;
      case ArgRole::OutputImage:
        kernel.setArg (arg.index, frames_->viewable (out, false) ?
            frames_->view (d, out, false) : frames_->copy_image (d, out.info, false));
        continue;
      case ArgRole::SrcBuffer:
        kernel.setArg (arg.index, checked_ ? guarded_->in.frame : in->buffer);
        continue;
      case ArgRole::DstBuffer:
        kernel.setArg (arg.index, checked_ ? guarded_->out.frame : out.buffer);
        continue;
      case ArgRole::Parameter:
      case ArgRole::PlaneImage:
      case ArgRole::PlaneBuffer:
        continue;
      case ArgRole::PlaneStride:
      case ArgRole::PlaneWidth:
      case ArgRole::PlaneHeight:
        encode_lane (arg.type, scalar, 0, true, plane_value (arg, arg.input ? in->info :
                out.info));
        break;
      case ArgRole::SrcStride:
        encode_lane (arg.type, scalar, 0, true, GST_VIDEO_INFO_PLANE_STRIDE (&in->info, 0));
        break;
      case ArgRole::DstStride:
        encode_lane (arg.type, scalar, 0, true, GST_VIDEO_INFO_PLANE_STRIDE (&out.info, 0));
        break;
      case ArgRole::Width:
        encode_lane (arg.type, scalar, 0, true, GST_VIDEO_INFO_WIDTH (&out.info));
        break;
      case ArgRole::Height:
        encode_lane (arg.type, scalar, 0, true, GST_VIDEO_INFO_HEIGHT (&out.info));
        break;
      case ArgRole::Frame:
        encode_lane (arg.type, scalar, 0, true, (gint64) frame_number);
        break;
      case ArgRole::Time:
        encode_lane (arg.type, scalar, GST_CLOCK_TIME_IS_VALID (stream_time) ?
            (double) stream_time / GST_SECOND : 0.0, false, 0);
        break;
    }
    cl_int error = clSetKernelArg (kernel (), arg.index, arg.type.size (), scalar);
    if (error != CL_SUCCESS)
      throw cl::Error (error, "clSetKernelArg");
  }
  for (auto & slot : frames_->planes)
    if (slot.role == ArgRole::PlaneImage || slot.role == ArgRole::PlaneBuffer)
      frames_->set_plane (device, kernel, slot, slot.input ? *in : out);
  for (const auto & value : values_) {
    cl_int error = clSetKernelArg (kernel (), value.index, value.type.size (), value.bytes);
    if (error != CL_SUCCESS)
      throw cl::Error (error, "clSetKernelArg");
  }
}

void
UserKernelHost::guard_frames (Device & device, const GstOpenCLFrame * in,
    const GstOpenCLFrame & out)
{
  if (!guarded_)
    guarded_ = std::make_unique<Checked> ();  /* turned on while playing: made once, here */
  Checked & g = *guarded_;
  g.fill_byte = g.frames++ % 2 ? 0x5A : 0xA5;
  if (current_->has (ArgRole::SrcBuffer)) {
    const size_t bytes = frame_bytes (*in);
    const size_t stride = GST_VIDEO_INFO_PLANE_STRIDE (&in->info, 0);
    if (!g.in.fits (bytes, stride)) {
      GST_DEBUG ("checked mode: a copy of %zu bytes for the input frame", bytes);
      g.in.make (device, bytes, stride);
    }
    g.make_counter (device);
    g.in.fill (device.queue, in->buffer, g.fill_byte);
  }
  if (current_->has (ArgRole::DstBuffer)) {
    const size_t bytes = frame_bytes (out);
    const size_t stride = GST_VIDEO_INFO_PLANE_STRIDE (&out.info, 0);
    if (!g.out.fits (bytes, stride)) {
      GST_DEBUG ("checked mode: a copy of %zu bytes for the output frame", bytes);
      g.out.make (device, bytes, stride);
    }
    g.out.fill (device.queue, out.buffer, g.fill_byte);
  }
}

void
UserKernelHost::check_and_copy_out (Device & device, const GstOpenCLFrame * in,
    const GstOpenCLFrame & out)
{
  Checked & g = *guarded_;
  auto & queue = device.queue;
  const bool src = current_->has (ArgRole::SrcBuffer);
  const bool dst = current_->has (ArgRole::DstBuffer);
  if (!src && !dst)
    return;  /* images only: nothing to guard */
  if (src) {
    const cl_uint2 start = { { 0, 0xffffffffu } };
    queue.enqueueFillBuffer (g.counts, start, 0, sizeof start);
    set_args (g.count_changed, in->buffer, g.in.frame, (cl_uint) g.in.bytes, g.counts);
    queue.enqueueNDRangeKernel (g.count_changed, cl::NullRange,
        cl::NDRange ((g.in.bytes + 15) / 16), cl::NullRange);
    queue.enqueueReadBuffer (g.counts, CL_FALSE, 0, sizeof g.counted, g.counted);
    g.in.read_guards (queue);
  }
  if (dst)
    g.out.read_guards (queue);
  /* Checked mode waits for its guards, through the waits a kernel that never ends cannot hold
   * (the element's watch is the device's: its timeout and its stop apply). */
  finish_queue (device, nullptr);

  std::string found;
  if (dst)
    g.out.describe (g.fill_byte, "output frame", found);
  if (src) {
    if (g.counted[0])
      found += std::string (found.empty () ? "" : " and ") + std::to_string (g.counted[0]) +
          " bytes into its input frame (first at byte " + std::to_string (g.counted[1]) + ")";
    g.in.describe (g.fill_byte, "input frame", found);
  }
  if (!found.empty ())
    throw Failure (Failure::Kind::Failed, "kernel '" + current_->kernel_name + "' wrote " +
        found + ", found by checked mode");
  if (dst)
    queue.enqueueCopyBuffer (g.out.whole, out.buffer, g.out.guard, 0, g.out.bytes);
}

void
UserKernelHost::run (GstElement * element, ElementDevice & device, const GstOpenCLFrame * in,
    const GstOpenCLFrame & out, GstClockTime stream_time, guint64 frame_number)
{
  take_updates (element);
  {
    /* Controlled parameters take their values for this frame. */
    std::lock_guard<std::mutex> guard (lock_);
    for (auto *child : children_) {
      if (GST_CLOCK_TIME_IS_VALID (stream_time))
        gst_object_sync_values (GST_OBJECT (child), stream_time);
      const double number = param_value (child);
      for (auto & value : values_) {
        if (value.type.lanes != 1 || value.field != GST_OBJECT_NAME (child))
          continue;
        if (!encode_lane (value.type, value.bytes, number, false, 0))
          GST_WARNING_OBJECT (element, "%s::value %g is out of the range of kernel argument "
              "'%s' (%s): the previous value stays", value.field.c_str (), number,
              value.field.c_str (), type_text (value.type).c_str ());
      }
    }
  }
  if (checked_)
    guard_frames (device.device (), in, out);
  else
    guarded_.reset ();
  set_frame_arguments (device, in, out, stream_time, frame_number);
  device.set_wait_limit (timeout_ms_);
  if (named_in_waits_ != current_.get ()) {
    device.set_wait_subject ("kernel '" + current_->kernel_name + "'");
    named_in_waits_ = current_.get ();
  }
  device.launch (current_->kernel, global_, local_);
  /* Before an output image's copy, which comes after the kernel's writes to dst. */
  if (checked_)
    check_and_copy_out (device.device (), in, out);
  frames_->copy_planes_out (device, out);
  if (current_->has (ArgRole::OutputImage) && !frames_->viewable (out, false)) {
    auto & from = frames_->from_image;
    set_copy_arguments (from, out.buffer, 0, GST_VIDEO_INFO_PLANE_STRIDE (&out.info, 0),
        frames_->out, frames_->copy_image (device.device (), out.info, false), false);
    device.launch (from, cl::NDRange (GST_VIDEO_INFO_WIDTH (&out.info),
            GST_VIDEO_INFO_HEIGHT (&out.info)), cl::NullRange);
  }
}

void
UserKernelHost::stop ()
{
  std::lock_guard<std::mutex> builder_guard (builder_lock_);
  {
    std::lock_guard<std::mutex> guard (lock_);
    device_ = nullptr;  /* no new build starts, a running one ends after this build */
  }
  if (builder_.joinable ())
    builder_.join ();
  std::lock_guard<std::mutex> guard (lock_);
  building_ = false;
  pending_.reset ();
  pending_generation_ = 0;
  current_.reset ();
  current_generation_ = 0;
  named_in_waits_ = nullptr;
  frames_.reset ();
  guarded_.reset ();
  values_.clear ();
}

}  // namespace gst_opencl
