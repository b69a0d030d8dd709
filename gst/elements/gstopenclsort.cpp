/* gst-opencl: openclsort, sorts arrays and the pixels of video lines on an OpenCL device.
 * SPDX-License-Identifier: LGPL-2.1-or-later */

/**
 * SECTION:element-openclsort
 * @title: openclsort
 *
 * Sorts on an OpenCL device: short rows with a bitonic network, longer ones with an LSD radix
 * sort (on GPUs the onesweep sort, five launches in all), by thresholds per device type; no
 * host wait between passes. GST_OPENCL_VARIANT_SORT=bitonic, radix or onesweep forces one for
 * every row (docs/openclsort.md).
 *
 * Arrays: `other/tensors,format=static,num_tensors=1,types={int32,uint32,float32},
 * dimensions=L[:R...]` (dimensions innermost first): each row of L values is sorted, every
 * buffer holds the product of the other dimensions in rows, in system or OpenCL memory (OpenCL
 * memory stays on the device: no host copy in or out). Output caps equal the input caps.
 * (On a gst-launch line, write `dimensions=(string)L:R`, or it is read as a flag set.)
 * Floats sort in the total order -inf < ... < -0.0 < +0.0 < ... < +inf < NaN (NaNs by their
 * bits as unsigned integers); descending is its exact reverse.
 *
 * Video (RGBA, BGRA, RGBx, BGRx, GRAY8, GRAY16_LE, RGBA64_LE, NV12, I420, P010_10LE in system,
 * OpenCL or CUDA memory, the output in the input's): the pixels of every row (or column,
 * #GstOpenCLSort:direction) are reordered by a key (#GstOpenCLSort:key), the "pixel sorting"
 * effect. Each output line is a permutation of the input line; pixels with equal keys keep their
 * order (the sort is stable). Keys have 8 bits. Luma is (77 R + 150 G + 29 B + 128) >> 8 in
 * integers; GRAY8 and GRAY16_LE sort by their value whatever the key. 16-bit samples (GRAY16_LE,
 * RGBA64_LE) give their keys from their top 8 bits (the key of the 8-bit pixel of their high
 * bytes); pixels move whole.
 *
 * NV12, I420 and P010_10LE sort 2x2 blocks, so chroma stays with its pixels: a block is four luma
 * samples and the chroma pair they share, a line is a pair of luma rows (or of luma columns), and
 * a block's key is the rounded mean of its luma samples (P010: of their 10-bit values, then the
 * top 8 bits of that mean). With an odd height (width, for columns) the last luma row (column)
 * is a line of its own, of 2x1 (1x2) blocks with their chroma; with an odd width (height) the
 * last half block of each line is not sorted and stays in place. These formats sort by luma
 * only: key=red, green or blue on them is an element error.
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
#include "elements/gstopenclsortpixels.h"

#include <gst/video/video.h>

#include <memory>
#include <mutex>
#include <string>

#include "opencl/gstopenclframepath.h"
#include "opencl/gstopenclmemory.h"
#include "opencl/gstopencldevicesort.h"
#include "opencl/gstopencltensor.h"
#include "opencl/gstopenclproperties.h"
#include "opencl/gstopenclutils.h"

GST_DEBUG_CATEGORY_STATIC (gst_opencl_sort_debug);
#define GST_CAT_DEFAULT gst_opencl_sort_debug

namespace {

using gst_opencl_sort::Direction;
using gst_opencl_sort::Key;

enum class Order : int { Ascending = 0, Descending = 1 };

constexpr Order DEFAULT_ORDER = Order::Ascending;
constexpr Direction DEFAULT_DIRECTION = Direction::Rows;
constexpr Key DEFAULT_KEY = Key::Luma;

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

  /* Rebuilt only when the key type or the order changes. */
  std::unique_ptr<gst_opencl::DeviceSort> sort;

  /* Video */
  gst_opencl_sort::PixelSort pixels;
};

}  // namespace

using GstOpenCLSortImpl = gst_opencl::ElementImpl<Settings, State>;

GST_OPENCL_DEFINE_ELEMENT (GstOpenCLSort, gst_opencl_sort, GstOpenCLBaseTransform,
    GST_TYPE_OPENCL_BASE_TRANSFORM, GstOpenCLSortImpl, openclsort, GST_TYPE_OPENCL_SORT);

GType
gst_opencl_sort_order_get_type (void)
{
  return gst_opencl::enum_type ("GstOpenCLSortOrder", {
        { (gint) Order::Ascending, "Smallest first", "ascending" },
        { (gint) Order::Descending, "Largest first", "descending" },
      });
}

GType
gst_opencl_sort_direction_get_type (void)
{
  return gst_opencl::enum_type ("GstOpenCLSortDirection", {
        { (gint) Direction::Rows, "Pixels move along their row", "rows" },
        { (gint) Direction::Columns, "Pixels move along their column", "columns" },
      });
}

GType
gst_opencl_sort_key_get_type (void)
{
  return gst_opencl::enum_type ("GstOpenCLSortKey", {
        { (gint) Key::Luma, "Luma, (77 R + 150 G + 29 B + 128) >> 8 (YUV: a block's mean Y)",
          "luma" },
        { (gint) Key::Red, "The red channel", "red" },
        { (gint) Key::Green, "The green channel", "green" },
        { (gint) Key::Blue, "The blue channel", "blue" },
      });
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

static void
set_tensor_caps (GstOpenCLSortImpl * impl, gst_opencl::Device & device, GstCaps * caps)
{
  std::string why;
  auto info = gst_opencl::tensor_info_from_caps (caps, &why);
  if (!info)
    throw gst_opencl::Failure (gst_opencl::Failure::Kind::Settings, "bad tensor caps: " + why);
  State & state = impl->state;
  state.tensor_key = sort_key_for (info->type);
  state.length = info->dimension (0);
  state.rows = info->element_count () / state.length;
  state.tensor_bytes = info->size_bytes ();
  gst_opencl::DeviceSort::check_fits (device, state.rows, state.length, "a tensor");
  state.keys = cl::Buffer (device.context, CL_MEM_READ_WRITE, state.tensor_bytes);
  state.video = false;
}

static gboolean
gst_opencl_sort_configure (GstOpenCLBaseTransform * base, gst_opencl::ElementDevice & device,
    gst_opencl::FramePorts &, GstCaps * incaps, GstCaps * outcaps)
{
  auto *impl = GST_OPENCL_SORT (base)->impl;
  if (!gst_caps_is_equal (incaps, outcaps)) {
    GST_ELEMENT_ERROR (base, CORE, NEGOTIATION, ("openclsort needs equal input and output "
            "caps"), ("in %" GST_PTR_FORMAT ", out %" GST_PTR_FORMAT, incaps, outcaps));
    return FALSE;
  }
  const bool video = !gst_opencl::caps_are_tensors (incaps);
  /* Video: the base configures both ports from the caps (their memory: system, OpenCL, CUDA). */
  GstVideoInfo in_info, out_info;
  if (video && !gst_opencl_base_transform_configure_ports (base, incaps, outcaps, &in_info,
          &out_info))
    return FALSE;
  return GST_OPENCL_GUARD (base, "cannot configure the sort", [&]() {
    if (video)
      impl->state.pixels.configure (device.device (), in_info);
    else
      set_tensor_caps (impl, device.device (), incaps);
    impl->state.video = video;
    GST_DEBUG_OBJECT (base, "configured for %" GST_PTR_FORMAT, incaps);
  });
}

/* The sort for the settings, rebuilt (kernels from the program cache) only when they change. */
static gst_opencl::DeviceSort &
ensure_sort (GstOpenCLSortImpl * impl, gst_opencl::ElementDevice & device,
    gst_opencl::SortKey key, gst_opencl::SortOrder order)
{
  auto & sort = impl->state.sort;
  if (!sort || sort->key () != key || sort->order () != order) {
    sort = std::make_unique<gst_opencl::DeviceSort> (device.device (), key, order);
    /* What runs for the negotiated rows, reported as every tuned element reports its variant
     * (the long rows' radix sort is timed once per device: GST_OPENCL_VARIANT_SORT). */
    gst_opencl::TuningChoice choice;
    choice.name = gst_opencl::sort_strategy_name (sort->strategy_for (impl->state.rows,
            impl->state.length));
    choice.index = 0;
    device.post_variant ("sort", std::to_string (impl->state.rows) + "x" +
        std::to_string (impl->state.length), {}, choice);
  }
  return *sort;
}

/* Returns whether the host waited for the sort (the keys were read into host memory). */
static bool
sort_tensor (GstOpenCLSortImpl * impl, gst_opencl::ElementDevice & device,
    gst_opencl::FramePort & in_port, const Settings & settings, GstBuffer * inbuf,
    GstBuffer * outbuf)
{
  State & state = impl->state;
  auto & sort = ensure_sort (impl, device, state.tensor_key, settings.order ==
      Order::Descending ? gst_opencl::SortOrder::Descending : gst_opencl::SortOrder::Ascending);
  gst_opencl::copy_bytes_in (device, in_port, inbuf, state.keys, state.tensor_bytes);
  sort.enqueue (state.keys, state.keys, state.rows, state.length, [&device] (
          const cl::Kernel & kernel, const cl::NDRange & global, const cl::NDRange & local) {
        device.launch (kernel, global, local);
      });
  return gst_opencl::copy_bytes_out (device, state.keys, outbuf, state.tensor_bytes);
}

static GstFlowReturn
transform_tensor (GstOpenCLBaseTransform * base, gst_opencl::ElementDevice & device,
    gst_opencl::FramePorts & ports, const Settings & settings, GstBuffer * inbuf,
    GstBuffer * outbuf)
{
  GstOpenCLSortImpl *impl = GST_OPENCL_SORT (base)->impl;
  const State & state = impl->state;
  gsize in_size = gst_buffer_get_size (inbuf);
  if (in_size != state.tensor_bytes) {
    GST_ELEMENT_ERROR (base, STREAM, FORMAT, ("wrong buffer size for the tensor caps"),
        ("a buffer of %" G_GSIZE_FORMAT " bytes where the caps (%" G_GSIZE_FORMAT " rows of %"
            G_GSIZE_FORMAT " values) need %" G_GSIZE_FORMAT, in_size, state.rows,
            state.length, state.tensor_bytes));
    return GST_FLOW_ERROR;
  }
  gboolean ok = GST_OPENCL_GUARD (base, "sorting failed", [&]() {
    gst_opencl::FrameWork work (device);
    work.end (sort_tensor (impl, device, ports.in, settings, inbuf, outbuf));
  });
  return ok ? GST_FLOW_OK : GST_FLOW_ERROR;
}

/* Frames are sorted where the frame path puts them: in place for OpenCL memory, else in device
 * copies of the host frames. */
static GstFlowReturn
transform_video (GstOpenCLBaseTransform * base, gst_opencl::ElementDevice & device,
    gst_opencl::FramePorts & ports, const Settings & settings, GstBuffer * inbuf,
    GstBuffer * outbuf)
{
  GstOpenCLSortImpl *impl = GST_OPENCL_SORT (base)->impl;
  gboolean ok = GST_OPENCL_GUARD (base, "pixel sorting failed", [&]() {
    gst_opencl::FrameWork work (device);
    gst_opencl::FrameTrip in (device, ports.in, inbuf, gst_opencl::FrameAccess::Read);
    gst_opencl::FrameTrip out (device, ports.out, outbuf, gst_opencl::FrameAccess::Write);
    impl->state.pixels.enqueue (device, in.frame (), out.frame (), settings.direction,
        settings.key, settings.order == Order::Descending);
    in.finish (false);
    work.end (out.finish (true));
  });
  return ok ? GST_FLOW_OK : GST_FLOW_ERROR;
}

static GstFlowReturn
gst_opencl_sort_transform_frames (GstOpenCLBaseTransform * base,
    gst_opencl::ElementDevice & device, gst_opencl::FramePorts & ports, GstBuffer * inbuf,
    GstBuffer * outbuf)
{
  auto *impl = GST_OPENCL_SORT (base)->impl;
  Settings settings;
  {
    std::lock_guard<std::mutex> lock (impl->lock);
    settings = impl->settings;
  }
  if (impl->state.video)
    return transform_video (base, device, ports, settings, inbuf, outbuf);
  return transform_tensor (base, device, ports, settings, inbuf, outbuf);
}

static void
gst_opencl_sort_class_init (GstOpenCLSortClass * klass)
{
  auto *base_class = GST_OPENCL_BASE_TRANSFORM_CLASS (klass);

  auto properties = gst_opencl::element_class_begin<GstOpenCLSort> (klass, GST_CAT_DEFAULT,
      "openclsort", "OpenCL sort");

  /**
   * GstOpenCLSort:order:
   *
   * Ascending (smallest first) or descending. For floats, descending puts NaNs first and
   * +0.0 before -0.0 (the exact reverse of the ascending order). For video, pixels of equal
   * key keep their order in both.
   */
  properties.add (g_param_spec_enum ("order", "Order", "Sort order", GST_TYPE_OPENCL_SORT_ORDER,
      (gint) DEFAULT_ORDER, gst_opencl::PROPERTY_CONTROLLABLE), &Settings::order);
  /**
   * GstOpenCLSort:direction:
   *
   * Video only: sort the pixels of each row (they move horizontally) or of each column.
   */
  properties.add (g_param_spec_enum ("direction", "Direction",
      "Video: sort the pixels of each row or of each column", GST_TYPE_OPENCL_SORT_DIRECTION,
      (gint) DEFAULT_DIRECTION, gst_opencl::PROPERTY_CONTROLLABLE), &Settings::direction);
  /**
   * GstOpenCLSort:key:
   *
   * Video only: what pixels are sorted by. Luma is (77 R + 150 G + 29 B + 128) >> 8, computed
   * in integers (on the top 8 bits of RGBA64_LE's samples). GRAY8 and GRAY16_LE frames sort by
   * their value whatever the key. NV12, I420 and P010_10LE sort their 2x2 blocks by the mean of
   * their luma samples and take luma only: another key is an element error.
   */
  properties.add (g_param_spec_enum ("key", "Key", "Video: the value pixels are sorted by "
      "(YUV frames: luma only)",
      GST_TYPE_OPENCL_SORT_KEY, (gint) DEFAULT_KEY, gst_opencl::PROPERTY_CONTROLLABLE),
      &Settings::key);

  /* Video in CUDA memory (where the device reaches it), then OpenCL memory: between other
   * elements of the plugin, NVIDIA's decoders and CUDA elements frames stay on the device. */
  GstCaps *tensors = gst_caps_from_string (gst_opencl::tensor_template_caps (
          "{ int32, uint32, float32 }").c_str ());
  GstCaps *caps = gst_opencl::with_memory_feature (tensors, GST_CAPS_FEATURE_MEMORY_OPENCL);
  gst_caps_append (caps, tensors);
  GstCaps *video = gst_opencl::video_caps (GST_OPENCL_FILTER_FORMATS, nullptr);
  gst_caps_append (caps, gst_opencl::with_memory_feature (video,
          GST_OPENCL_CAPS_FEATURE_MEMORY_CUDA));
  gst_caps_append (caps, gst_opencl::video_caps_any_memory (GST_OPENCL_FILTER_FORMATS, nullptr, false));
  gst_caps_unref (video);
  gst_element_class_add_pad_template (GST_ELEMENT_CLASS (klass),
      gst_pad_template_new ("sink", GST_PAD_SINK, GST_PAD_ALWAYS, caps));
  gst_element_class_add_pad_template (GST_ELEMENT_CLASS (klass),
      gst_pad_template_new ("src", GST_PAD_SRC, GST_PAD_ALWAYS, caps));
  gst_caps_unref (caps);

  gst_element_class_set_static_metadata (GST_ELEMENT_CLASS (klass), "OpenCL sort",
      "Filter/Effect/Video;Filter/Converter",
      "Sorts arrays (other/tensors) or the pixels of video rows or columns on an OpenCL device",
      "gst-opencl developers");

  /* Equal caps on both sides (set_caps insists). */
  gst_opencl_base_transform_class_keep_caps (base_class);
  /* Pixels move along their lines: metas that say where things are in the frame (regions of
   * interest, crops) do not hold for the output and are dropped; metas without tags stay. */
  base_class->output_keeps_geometry = FALSE;
  base_class->configure = gst_opencl_sort_configure;
  base_class->transform_frames = gst_opencl_sort_transform_frames;

  gst_type_mark_as_plugin_api (GST_TYPE_OPENCL_SORT_ORDER, (GstPluginAPIFlags) 0);
  gst_type_mark_as_plugin_api (GST_TYPE_OPENCL_SORT_DIRECTION, (GstPluginAPIFlags) 0);
  gst_type_mark_as_plugin_api (GST_TYPE_OPENCL_SORT_KEY, (GstPluginAPIFlags) 0);
}
