/* gst-opencl: openclsort, sorts arrays and the pixels of video lines on an OpenCL device.
 * SPDX-License-Identifier: LGPL-2.1-or-later */

/**
 * SECTION:element-openclsort
 * @title: openclsort
 *
 * Sorts on an OpenCL device: rows shorter than a threshold per device type (256 keys on CPUs,
 * 65536 on GPUs) with a bitonic network, longer ones with an LSD radix sort; no host wait between
 * passes. GST_OPENCL_VARIANT_SORT=bitonic or radix forces one for every row (docs/openclsort.md).
 *
 * Arrays: `other/tensors,format=static,num_tensors=1,types={int32,uint32,float32},
 * dimensions=L[:R...]` (dimensions innermost first): each row of L values is sorted, every
 * buffer holds the product of the other dimensions in rows. Output caps equal the input caps.
 * (On a gst-launch line, write `dimensions=(string)L:R`, or it is read as a flag set.)
 * Floats sort in the total order -inf < ... < -0.0 < +0.0 < ... < +inf < NaN (NaNs by their
 * bits as unsigned integers); descending is its exact reverse.
 *
 * Video (RGBA, BGRA, RGBx, BGRx, GRAY8 in system memory): the pixels of every row (or column,
 * #GstOpenCLSort:direction) are reordered by a key (#GstOpenCLSort:key), the "pixel sorting"
 * effect. Each output line is a permutation of the input line; pixels with equal keys keep
 * their order (the sort is stable). Luma is (77 R + 150 G + 29 B + 128) >> 8 in integers;
 * GRAY8 sorts by its value whatever the key.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 videotestsrc pattern=smpte ! video/x-raw,format=RGBA ! openclsort \
 *     direction=columns order=descending ! videoconvert ! autovideosink
 * gst-launch-1.0 filesrc location=in.raw blocksize=4096 ! \
 *     "other/tensors,format=static,num_tensors=1,types=int32,dimensions=(string)1024:1,framerate=(fraction)0/1" ! \
 *     openclsort ! filesink location=sorted.raw
 * ]|
 */
#include "elements/gstopenclsort.h"

#include <gst/video/video.h>

#include <memory>
#include <mutex>
#include <string>

#include "opencl/gstopenclframepath.h"
#include "opencl/gstopenclmemory.h"
#include "opencl/gstopenclsort.h"
#include "opencl/gstopencltensor.h"
#include "opencl/gstopenclproperties.h"
#include "opencl/gstopenclutils.h"

GST_DEBUG_CATEGORY_STATIC (gst_opencl_sort_debug);
#define GST_CAT_DEFAULT gst_opencl_sort_debug

namespace {

enum class Order : int { Ascending = 0, Descending = 1 };
enum class Direction : int { Rows = 0, Columns = 1 };
enum class Key : int { Luma = 0, Red = 1, Green = 2, Blue = 3 };

constexpr Order DEFAULT_ORDER = Order::Ascending;
constexpr Direction DEFAULT_DIRECTION = Direction::Rows;
constexpr Key DEFAULT_KEY = Key::Luma;

/* Pixel positions are packed into the low 24 bits of the sorted words (kernels/pixelsort.cl). */
constexpr guint64 MAX_LINE_PIXELS = 1u << 24;

struct Settings
{
  Order order = DEFAULT_ORDER;
  Direction direction = DEFAULT_DIRECTION;
  Key key = DEFAULT_KEY;
};

struct State
{
  bool video = false;

  /* Arrays */
  gst_opencl::SortKey tensor_key = gst_opencl::SortKey::Int32;
  gsize rows = 0;
  gsize length = 0;
  gsize tensor_bytes = 0;
  cl::Buffer keys;

  /* Video */
  GstVideoInfo video_info {};
  cl::Buffer words;
  cl::Kernel pixel_keys;
  cl::Kernel pixel_gather;

  /* Rebuilt only when the key type or the order changes. */
  std::unique_ptr<gst_opencl::DeviceSort> sort;
};

}  // namespace

struct GstOpenCLSortImpl
{
  explicit GstOpenCLSortImpl (gst_opencl::ElementDevice & element_device)
      : device (element_device) {}

  gst_opencl::ElementDevice & device;  /* the base class's */
  gst_opencl::FramePort in_port;
  gst_opencl::FramePort out_port;
  std::mutex lock;  /* guards settings */
  Settings settings;
  State state;      /* streaming thread only */
};

struct _GstOpenCLSort
{
  GstOpenCLBaseTransform parent;
  GstOpenCLSortImpl *impl;
};

#define VIDEO_FIELDS "format=(string){ RGBA, BGRA, RGBx, BGRx, GRAY8 }, " \
    "width=(int)[1, max], height=(int)[1, max], framerate=(fraction)[0/1, max]"
#define VIDEO_CAPS "video/x-raw, " VIDEO_FIELDS
#define VIDEO_OPENCL_CAPS "video/x-raw(" GST_CAPS_FEATURE_MEMORY_OPENCL "), " VIDEO_FIELDS

G_DEFINE_TYPE (GstOpenCLSort, gst_opencl_sort, GST_TYPE_OPENCL_BASE_TRANSFORM);
GST_ELEMENT_REGISTER_DEFINE (openclsort, "openclsort", GST_RANK_NONE, GST_TYPE_OPENCL_SORT);

GType
gst_opencl_sort_order_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {(gint) Order::Ascending, "Smallest first", "ascending"},
    {(gint) Order::Descending, "Largest first", "descending"},
    {0, nullptr, nullptr},
  };
  if (g_once_init_enter (&type)) {
    GType registered = g_enum_register_static ("GstOpenCLSortOrder", values);
    g_once_init_leave (&type, registered);
  }
  return type;
}

GType
gst_opencl_sort_direction_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {(gint) Direction::Rows, "Pixels move along their row", "rows"},
    {(gint) Direction::Columns, "Pixels move along their column", "columns"},
    {0, nullptr, nullptr},
  };
  if (g_once_init_enter (&type)) {
    GType registered = g_enum_register_static ("GstOpenCLSortDirection", values);
    g_once_init_leave (&type, registered);
  }
  return type;
}

GType
gst_opencl_sort_key_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {(gint) Key::Luma, "Luma, (77 R + 150 G + 29 B + 128) >> 8", "luma"},
    {(gint) Key::Red, "The red channel", "red"},
    {(gint) Key::Green, "The green channel", "green"},
    {(gint) Key::Blue, "The blue channel", "blue"},
    {0, nullptr, nullptr},
  };
  if (g_once_init_enter (&type)) {
    GType registered = g_enum_register_static ("GstOpenCLSortKey", values);
    g_once_init_leave (&type, registered);
  }
  return type;
}

static gboolean
gst_opencl_sort_stop (GstBaseTransform * trans)
{
  auto *impl = GST_OPENCL_SORT (trans)->impl;
  /* The sort refers to the device: drop it (and every buffer) before the context goes. */
  impl->in_port.reset ();
  impl->out_port.reset ();
  impl->state = State ();
  return GST_BASE_TRANSFORM_CLASS (gst_opencl_sort_parent_class)->stop (trans);
}

static gst_opencl::SortKey
sort_key_for (gst_opencl::TensorType type)
{
  switch (type) {
    case gst_opencl::TensorType::Int32:
      return gst_opencl::SortKey::Int32;
    case gst_opencl::TensorType::UInt32:
      return gst_opencl::SortKey::UInt32;
    case gst_opencl::TensorType::Float32:
      return gst_opencl::SortKey::Float32;
    default:
      break;
  }
  throw gst_opencl::Failure (gst_opencl::Failure::Kind::Settings, std::string ("cannot sort "
          "tensors of type ") + gst_opencl::tensor_type_name (type) +
      " (int32, uint32 and float32 only)");
}

/* Throws TooLarge unless rows x length words, padded per row, fit the sort and the device. */
static void
check_sort_fits (const gst_opencl::Device & device, gsize rows, gsize length, const char *what)
{
  gsize padded = gst_opencl::DeviceSort::padded_length (length);
  guint64 bytes = (guint64) rows * padded * sizeof (cl_uint);
  if (padded > gst_opencl::DeviceSort::MAX_WORDS ||
      rows > gst_opencl::DeviceSort::MAX_WORDS / padded || bytes > device.max_alloc_bytes) {
    throw gst_opencl::Failure (gst_opencl::Failure::Kind::TooLarge, std::string (what) + " of " +
        std::to_string (rows) + " x " + std::to_string (length) + " values needs " +
        std::to_string (bytes) + " bytes once padded, more than " + device.name +
        " allows (largest allocation " + std::to_string (device.max_alloc_bytes) +
        " bytes, at most 2^31 padded values)");
  }
}

static void
set_tensor_caps (GstOpenCLSortImpl * impl, GstCaps * caps)
{
  std::string why;
  auto info = gst_opencl::tensor_info_from_caps (caps, &why);
  if (!info)
    throw gst_opencl::Failure (gst_opencl::Failure::Kind::Settings, "bad tensor caps: " + why);
  State & state = impl->state;
  auto & device = impl->device.device ();
  state.tensor_key = sort_key_for (info->type);
  state.length = info->dimension (0);
  state.rows = info->element_count () / state.length;
  state.tensor_bytes = info->size_bytes ();
  check_sort_fits (device, state.rows, state.length, "a tensor");
  state.keys = cl::Buffer (device.context, CL_MEM_READ_WRITE, state.tensor_bytes);
  state.video = false;
}

static void
set_video_caps (GstOpenCLSortImpl * impl, GstCaps * caps)
{
  State & state = impl->state;
  if (!gst_video_info_from_caps (&state.video_info, caps))
    throw gst_opencl::Failure (gst_opencl::Failure::Kind::Settings, "bad video caps");
  auto & device = impl->device.device ();
  const guint64 width = GST_VIDEO_INFO_WIDTH (&state.video_info);
  const guint64 height = GST_VIDEO_INFO_HEIGHT (&state.video_info);
  if (width > MAX_LINE_PIXELS || height > MAX_LINE_PIXELS)
    throw gst_opencl::Failure (gst_opencl::Failure::Kind::TooLarge, "a " +
        std::to_string (width) + "x" + std::to_string (height) + " frame has lines longer " +
        "than the 2^24 pixels openclsort can sort");
  /* Either direction: the longer padded line decides the scratch size. */
  check_sort_fits (device, height, width, "a frame");
  check_sort_fits (device, width, height, "a frame");
  if ((guint64) state.video_info.size > device.max_alloc_bytes)
    throw gst_opencl::Failure (gst_opencl::Failure::Kind::TooLarge, "a frame of " +
        std::to_string (state.video_info.size) + " bytes exceeds the largest buffer " +
        device.name + " can allocate");
  state.words = cl::Buffer (device.context, CL_MEM_READ_WRITE | CL_MEM_HOST_NO_ACCESS,
      width * height * sizeof (cl_uint));
  impl->in_port.configure (&state.video_info, false);
  impl->out_port.configure (&state.video_info, false);
  if (!state.pixel_keys ()) {
    state.pixel_keys = device.kernel ("pixelsort", "pixel_keys", "");
    state.pixel_gather = device.kernel ("pixelsort", "pixel_gather", "");
  }
  state.video = true;
}

static gboolean
gst_opencl_sort_set_caps (GstBaseTransform * trans, GstCaps * incaps, GstCaps * outcaps)
{
  auto *impl = GST_OPENCL_SORT (trans)->impl;
  if (!gst_caps_is_equal (incaps, outcaps)) {
    GST_ELEMENT_ERROR (trans, CORE, NEGOTIATION, ("openclsort needs equal input and output "
            "caps"), ("in %" GST_PTR_FORMAT ", out %" GST_PTR_FORMAT, incaps, outcaps));
    return FALSE;
  }
  return GST_OPENCL_GUARD (trans, "cannot configure the sort", [&]() {
    if (!impl->device.started ())
      throw gst_opencl::Failure (gst_opencl::Failure::Kind::NotFound, "no OpenCL device");
    if (gst_opencl::caps_are_tensors (incaps))
      set_tensor_caps (impl, incaps);
    else
      set_video_caps (impl, incaps);
    GST_DEBUG_OBJECT (trans, "configured for %" GST_PTR_FORMAT, incaps);
  });
}

/* The sort for the settings, rebuilt (kernels from the program cache) only when they change. */
static gst_opencl::DeviceSort &
ensure_sort (GstOpenCLSortImpl * impl, gst_opencl::SortKey key, gst_opencl::SortOrder order)
{
  auto & sort = impl->state.sort;
  if (!sort || sort->key () != key || sort->order () != order)
    sort = std::make_unique<gst_opencl::DeviceSort> (impl->device.device (), key, order);
  return *sort;
}

static void
launch_sort (GstOpenCLSortImpl * impl, gst_opencl::DeviceSort & sort, const cl::Buffer & buffer,
    gsize rows, gsize length)
{
  auto & device = impl->device;
  sort.enqueue (buffer, buffer, rows, length, [&device](const cl::Kernel & kernel,
          const cl::NDRange & global, const cl::NDRange & local) {
        device.launch (kernel, global, local);
      });
}

static void
sort_tensor (GstOpenCLSortImpl * impl, const Settings & settings, GstBuffer * inbuf,
    GstBuffer * outbuf)
{
  State & state = impl->state;
  auto & sort = ensure_sort (impl, state.tensor_key, settings.order == Order::Descending ?
      gst_opencl::SortOrder::Descending : gst_opencl::SortOrder::Ascending);
  gst_opencl::copy_bytes_in (impl->device, impl->in_port, inbuf, state.keys, state.tensor_bytes);
  launch_sort (impl, sort, state.keys, state.rows, state.length);
  gst_opencl::copy_bytes_out (impl->device, state.keys, outbuf, state.tensor_bytes);
}

/* Byte weights of the key over one pixel (see kernels/pixelsort.cl). */
static cl_uint4
key_weights (GstVideoFormat format, Key key)
{
  if (format == GST_VIDEO_FORMAT_GRAY8)
    return cl_uint4 { { 256, 0, 0, 0 } };
  const bool bgr = format == GST_VIDEO_FORMAT_BGRA || format == GST_VIDEO_FORMAT_BGRx;
  cl_uint red = 0, green = 0, blue = 0;
  switch (key) {
    case Key::Luma:
      red = 77;
      green = 150;
      blue = 29;
      break;
    case Key::Red:
      red = 256;
      break;
    case Key::Green:
      green = 256;
      break;
    case Key::Blue:
      blue = 256;
      break;
  }
  return bgr ? cl_uint4 { { blue, green, red, 0 } } : cl_uint4 { { red, green, blue, 0 } };
}

/* Plane 0 of a device frame at its stride (the plugin's frames start at offset 0). */
static cl_int
row_stride (const GstOpenCLFrame & frame)
{
  return (cl_int) GST_VIDEO_INFO_PLANE_STRIDE (&frame.info, 0);
}

static void
sort_frame (GstOpenCLSortImpl * impl, const Settings & settings, const GstOpenCLFrame & in,
    const GstOpenCLFrame & out)
{
  State & state = impl->state;
  auto & device = impl->device;
  auto & sort = ensure_sort (impl, gst_opencl::SortKey::UInt32, gst_opencl::SortOrder::Ascending);

  const GstVideoInfo *info = &state.video_info;
  const cl_int width = GST_VIDEO_INFO_WIDTH (info);
  const cl_int height = GST_VIDEO_INFO_HEIGHT (info);
  const cl_int pixel_bytes = GST_VIDEO_INFO_COMP_PSTRIDE (info, 0);
  const bool columns = settings.direction == Direction::Columns;

  const cl::NDRange frame_range (width, height);
  const cl::NDRange group (16, 16);
  cl::Kernel & keys = state.pixel_keys;
  keys.setArg (0, in.buffer);
  keys.setArg (1, row_stride (in));
  keys.setArg (2, state.words);
  keys.setArg (3, width);
  keys.setArg (4, height);
  keys.setArg (5, (cl_int) columns);
  keys.setArg (6, pixel_bytes);
  keys.setArg (7, key_weights (GST_VIDEO_INFO_FORMAT (info), settings.key));
  keys.setArg (8, (cl_int) (settings.order == Order::Descending));
  device.launch (keys, frame_range, group);

  launch_sort (impl, sort, state.words, columns ? width : height, columns ? height : width);

  cl::Kernel & gather = state.pixel_gather;
  gather.setArg (0, in.buffer);
  gather.setArg (1, row_stride (in));
  gather.setArg (2, state.words);
  gather.setArg (3, out.buffer);
  gather.setArg (4, row_stride (out));
  gather.setArg (5, width);
  gather.setArg (6, height);
  gather.setArg (7, (cl_int) columns);
  gather.setArg (8, pixel_bytes);
  device.launch (gather, frame_range, group);
}

static GstFlowReturn
transform_tensor (GstBaseTransform * trans, GstOpenCLSortImpl * impl, const Settings & settings,
    GstBuffer * inbuf, GstBuffer * outbuf)
{
  const State & state = impl->state;
  gsize in_size = gst_buffer_get_size (inbuf);
  if (in_size != state.tensor_bytes) {
    GST_ELEMENT_ERROR (trans, STREAM, FORMAT, ("wrong buffer size for the tensor caps"),
        ("a buffer of %" G_GSIZE_FORMAT " bytes where the caps (%" G_GSIZE_FORMAT " rows of %"
            G_GSIZE_FORMAT " values) need %" G_GSIZE_FORMAT, in_size, state.rows,
            state.length, state.tensor_bytes));
    return GST_FLOW_ERROR;
  }
  gboolean ok = GST_OPENCL_GUARD (trans, "sorting failed", [&]() {
    try {
      sort_tensor (impl, settings, inbuf, outbuf);
      impl->device.finish_frame ();
    } catch (...) {
      impl->device.discard_frame ();
      throw;
    }
  });
  return ok ? GST_FLOW_OK : GST_FLOW_ERROR;
}

/* Frames are sorted where the frame path puts them: in place for OpenCL memory, else in device
 * copies of the host frames. */
static GstFlowReturn
transform_video (GstBaseTransform * trans, GstOpenCLSortImpl * impl, const Settings & settings,
    GstBuffer * inbuf, GstBuffer * outbuf)
{
  auto & device = impl->device;
  gboolean ok = GST_OPENCL_GUARD (trans, "pixel sorting failed", [&]() {
    try {
      gst_opencl::FrameTrip in (device, impl->in_port, inbuf, gst_opencl::FrameAccess::Read);
      gst_opencl::FrameTrip out (device, impl->out_port, outbuf,
          gst_opencl::FrameAccess::Write);
      sort_frame (impl, settings, in.frame (), out.frame ());
      in.finish (false);
      device.end_frame (out.finish (true));
    } catch (...) {
      device.discard_frame ();
      throw;
    }
  });
  return ok ? GST_FLOW_OK : GST_FLOW_ERROR;
}

static GstFlowReturn
gst_opencl_sort_transform (GstBaseTransform * trans, GstBuffer * inbuf, GstBuffer * outbuf)
{
  auto *impl = GST_OPENCL_SORT (trans)->impl;
  Settings settings;
  {
    std::lock_guard<std::mutex> lock (impl->lock);
    settings = impl->settings;
  }
  if (impl->state.video)
    return transform_video (trans, impl, settings, inbuf, outbuf);
  return transform_tensor (trans, impl, settings, inbuf, outbuf);
}

static void
gst_opencl_sort_init (GstOpenCLSort * self)
{
  self->impl = new GstOpenCLSortImpl (gst_opencl_base_transform_device (
          GST_OPENCL_BASE_TRANSFORM (self)));
}

static void
gst_opencl_sort_class_init (GstOpenCLSortClass * klass)
{
  auto *gobject_class = G_OBJECT_CLASS (klass);
  auto *element_class = GST_ELEMENT_CLASS (klass);
  auto *trans_class = GST_BASE_TRANSFORM_CLASS (klass);

  GST_DEBUG_CATEGORY_INIT (gst_opencl_sort_debug, "openclsort", 0, "OpenCL sort");

  const auto flags = (GParamFlags) (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_CONTROLLABLE | GST_PARAM_MUTABLE_PLAYING);
  gst_opencl::ElementProperties<GstOpenCLSort> properties (gobject_class);
  /**
   * GstOpenCLSort:order:
   *
   * Ascending (smallest first) or descending. For floats, descending puts NaNs first and
   * +0.0 before -0.0 (the exact reverse of the ascending order). For video, pixels of equal
   * key keep their order in both.
   */
  properties.add (g_param_spec_enum ("order", "Order", "Sort order", GST_TYPE_OPENCL_SORT_ORDER,
      (gint) DEFAULT_ORDER, flags), &Settings::order);
  /**
   * GstOpenCLSort:direction:
   *
   * Video only: sort the pixels of each row (they move horizontally) or of each column.
   */
  properties.add (g_param_spec_enum ("direction", "Direction",
      "Video: sort the pixels of each row or of each column", GST_TYPE_OPENCL_SORT_DIRECTION,
      (gint) DEFAULT_DIRECTION, flags), &Settings::direction);
  /**
   * GstOpenCLSort:key:
   *
   * Video only: what pixels are sorted by. Luma is (77 R + 150 G + 29 B + 128) >> 8, computed
   * in integers. GRAY8 frames sort by their value whatever the key.
   */
  properties.add (g_param_spec_enum ("key", "Key", "Video: the value pixels are sorted by",
      GST_TYPE_OPENCL_SORT_KEY, (gint) DEFAULT_KEY, flags), &Settings::key);

  /* Video in OpenCL memory first: between other elements of the plugin frames stay there. */
  std::string caps_text = gst_opencl::tensor_template_caps ("{ int32, uint32, float32 }") +
      "; " VIDEO_OPENCL_CAPS "; " VIDEO_CAPS;
  GstCaps *caps = gst_caps_from_string (caps_text.c_str ());
  gst_element_class_add_pad_template (element_class,
      gst_pad_template_new ("sink", GST_PAD_SINK, GST_PAD_ALWAYS, caps));
  gst_element_class_add_pad_template (element_class,
      gst_pad_template_new ("src", GST_PAD_SRC, GST_PAD_ALWAYS, caps));
  gst_caps_unref (caps);

  gst_element_class_set_static_metadata (element_class, "OpenCL sort",
      "Filter/Effect/Video;Filter/Converter",
      "Sorts arrays (other/tensors) or the pixels of video rows or columns on an OpenCL device",
      "gst-opencl developers");

  /* Equal caps on both sides (set_caps insists). */
  gst_opencl_base_transform_class_keep_caps (GST_OPENCL_BASE_TRANSFORM_CLASS (klass));
  trans_class->stop = gst_opencl_sort_stop;
  trans_class->set_caps = gst_opencl_sort_set_caps;
  trans_class->transform = gst_opencl_sort_transform;

  gst_type_mark_as_plugin_api (GST_TYPE_OPENCL_SORT_ORDER, (GstPluginAPIFlags) 0);
  gst_type_mark_as_plugin_api (GST_TYPE_OPENCL_SORT_DIRECTION, (GstPluginAPIFlags) 0);
  gst_type_mark_as_plugin_api (GST_TYPE_OPENCL_SORT_KEY, (GstPluginAPIFlags) 0);
}
