/* gst-opencl: openclsort's video side, pixel sorting.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "elements/gstopenclsortpixels.h"

#include <string>

#include "opencl/gstopenclnametable.h"
#include "opencl/gstopenclutils.h"

namespace gst_opencl_sort {

namespace {

/* Element positions are packed into the low 24 bits of the sorted words (kernels/pixelsort.cl). */
constexpr guint64 MAX_LINE_PIXELS = 1u << 24;

/* Sample weights of the key over one pixel of a packed format (see kernels/pixelsort.cl). Gray
 * pixels have one sample: their red, green and blue are all that value, so every key is it. */
cl_uint4
key_weights (GstVideoFormat format, Key key)
{
  if (format == GST_VIDEO_FORMAT_GRAY8 || format == GST_VIDEO_FORMAT_GRAY16_LE)
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

bool
is_420 (GstVideoFormat format)
{
  return format == GST_VIDEO_FORMAT_NV12 || format == GST_VIDEO_FORMAT_I420 ||
      format == GST_VIDEO_FORMAT_P010_10LE;
}

const char *
key_name (Key key)
{
  static constexpr gst_opencl::NamedValue<Key> names[] = {
    { Key::Red, "red" }, { Key::Green, "green" }, { Key::Blue, "blue" },
  };
  return gst_opencl::name_of (names, key, "luma");
}

/* Plane 0 of a device frame at its stride (the plugin's frames start at offset 0). */
cl_int
row_stride (const GstOpenCLFrame & frame)
{
  return (cl_int) GST_VIDEO_INFO_PLANE_STRIDE (&frame.info, 0);
}

/* The planes of a 4:2:0 device frame for block_gather: .x luma, .y and .z chroma (.z 0 when the
 * chroma is one plane). */
void
plane_layout (const GstOpenCLFrame & frame, cl_int4 * offsets, cl_int4 * strides)
{
  *offsets = cl_int4 { { 0, 0, 0, 0 } };
  *strides = cl_int4 { { 0, 0, 0, 0 } };
  for (guint plane = 0; plane < GST_VIDEO_INFO_N_PLANES (&frame.info); plane++) {
    offsets->s[plane] = (cl_int) GST_VIDEO_INFO_PLANE_OFFSET (&frame.info, plane);
    strides->s[plane] = (cl_int) GST_VIDEO_INFO_PLANE_STRIDE (&frame.info, plane);
  }
}

/* The lines of 4:2:0 blocks in one direction: `lines` of `blocks` sorted blocks. */
struct BlockGrid
{
  guint64 blocks, lines;
};

BlockGrid
block_grid (const GstVideoInfo & info, bool columns)
{
  const guint64 width = GST_VIDEO_INFO_WIDTH (&info);
  const guint64 height = GST_VIDEO_INFO_HEIGHT (&info);
  const guint64 along = columns ? height : width, across = columns ? width : height;
  return BlockGrid { along / 2, (across + 1) / 2 };
}

}  // namespace

void
PixelSort::configure (gst_opencl::Device & device, const GstVideoInfo & info)
{
  using gst_opencl::Failure;
  info_ = info;
  blocks_ = is_420 (GST_VIDEO_INFO_FORMAT (&info));
  const guint64 width = GST_VIDEO_INFO_WIDTH (&info);
  const guint64 height = GST_VIDEO_INFO_HEIGHT (&info);
  if (width > MAX_LINE_PIXELS || height > MAX_LINE_PIXELS)
    throw Failure (Failure::Kind::TooLarge, "a " + std::to_string (width) + "x" +
        std::to_string (height) + " frame has lines longer " +
        "than the 2^24 pixels openclsort can sort");
  /* Either direction: the longer padded line decides the scratch size. */
  for (bool columns : { false, true }) {
    const BlockGrid grid = blocks_ ? block_grid (info, columns) :
        BlockGrid { columns ? height : width, columns ? width : height };
    if (grid.blocks > 0)
      gst_opencl::DeviceSort::check_fits (device, grid.lines, grid.blocks, "a frame");
  }
  if ((guint64) info.size > device.max_alloc_bytes)
    throw Failure (Failure::Kind::TooLarge, "a frame of " + std::to_string (info.size) +
        " bytes exceeds the largest buffer " + device.name + " can allocate");
  /* One word a pixel: more than the blocks of a 4:2:0 frame need in either direction. */
  words_ = cl::Buffer (device.context, CL_MEM_READ_WRITE | CL_MEM_HOST_NO_ACCESS,
      width * height * sizeof (cl_uint));
  if (!keys_ ()) {
    keys_ = device.kernel ("pixelsort", "pixel_keys", "");
    gather_ = device.kernel ("pixelsort", "pixel_gather", "");
    block_keys_ = device.kernel ("pixelsort", "block_keys", "");
    block_gather_ = device.kernel ("pixelsort", "block_gather", "");
  }
  /* The words hold the order in their key bits: always an ascending sort of uint32. */
  if (!sort_)
    sort_ = std::make_unique<gst_opencl::DeviceSort> (device, gst_opencl::SortKey::UInt32,
        gst_opencl::SortOrder::Ascending);
}

void
PixelSort::enqueue_sort (gst_opencl::ElementDevice & device, size_t lines, size_t length)
{
  sort_->enqueue (words_, words_, lines, length,
      [&device] (const cl::Kernel & kernel, const cl::NDRange & global,
          const cl::NDRange & local) { device.launch (kernel, global, local); });
}

void
PixelSort::enqueue (gst_opencl::ElementDevice & device, const GstOpenCLFrame & in,
    const GstOpenCLFrame & out, Direction direction, Key key, bool descending)
{
  const bool columns = direction == Direction::Columns;
  if (blocks_) {
    if (key != Key::Luma)
      throw gst_opencl::Failure (gst_opencl::Failure::Kind::Settings, std::string ("key=") +
          key_name (key) + " needs RGB frames: " +
          gst_video_format_to_string (GST_VIDEO_INFO_FORMAT (&info_)) +
          " frames sort their 2x2 blocks by luma only (key=luma)");
    enqueue_blocks (device, in, out, columns, descending);
    return;
  }
  const cl_int width = GST_VIDEO_INFO_WIDTH (&info_);
  const cl_int height = GST_VIDEO_INFO_HEIGHT (&info_);
  const cl_int pixel_bytes = GST_VIDEO_INFO_COMP_PSTRIDE (&info_, 0);
  const cl_int sample_bytes = GST_VIDEO_INFO_COMP_DEPTH (&info_, 0) > 8 ? 2 : 1;

  const cl::NDRange frame_range (width, height);
  const cl::NDRange group (16, 16);
  gst_opencl::set_args (keys_, in.buffer, row_stride (in), words_, width, height, (cl_int) columns,
      pixel_bytes, sample_bytes, key_weights (GST_VIDEO_INFO_FORMAT (&info_), key),
      (cl_int) descending);
  device.launch (keys_, frame_range, group);

  enqueue_sort (device, columns ? width : height, columns ? height : width);

  gst_opencl::set_args (gather_, in.buffer, row_stride (in), words_, out.buffer, row_stride (out),
      width, height, (cl_int) columns, pixel_bytes);
  device.launch (gather_, frame_range, group);
}

void
PixelSort::enqueue_blocks (gst_opencl::ElementDevice & device, const GstOpenCLFrame & in,
    const GstOpenCLFrame & out, bool columns, bool descending)
{
  const cl_int width = GST_VIDEO_INFO_WIDTH (&info_);
  const cl_int height = GST_VIDEO_INFO_HEIGHT (&info_);
  const BlockGrid grid = block_grid (info_, columns);
  const cl_int blocks = (cl_int) grid.blocks, lines = (cl_int) grid.lines;
  const GstVideoFormatInfo *finfo = info_.finfo;
  const cl_int luma_bytes = GST_VIDEO_INFO_COMP_PSTRIDE (&info_, 0);
  const cl::NDRange group (16, 16);
  if (blocks > 0) {
    gst_opencl::set_args (block_keys_, in.buffer,
        (cl_int) GST_VIDEO_INFO_PLANE_OFFSET (&in.info, 0), row_stride (in), luma_bytes,
        (cl_int) GST_VIDEO_FORMAT_INFO_SHIFT (finfo, 0),
        (cl_int) GST_VIDEO_FORMAT_INFO_DEPTH (finfo, 0) - 8, words_, width, height,
        (cl_int) columns, blocks, lines, (cl_int) descending);
    device.launch (block_keys_, cl::NDRange (blocks, lines), group);
    enqueue_sort (device, lines, blocks);
  }
  /* Bytes a luma sample, and a chroma position in each chroma plane (I420: U, then V). */
  const bool two_chroma_planes = GST_VIDEO_INFO_N_PLANES (&info_) == 3;
  const cl_int4 bytes { { luma_bytes, GST_VIDEO_INFO_COMP_PSTRIDE (&info_, 1),
        two_chroma_planes ? GST_VIDEO_INFO_COMP_PSTRIDE (&info_, 2) : 0, 0 } };
  cl_int4 src_offsets, src_strides, dst_offsets, dst_strides;
  plane_layout (in, &src_offsets, &src_strides);
  plane_layout (out, &dst_offsets, &dst_strides);
  gst_opencl::set_args (block_gather_, in.buffer, src_offsets, src_strides, words_, out.buffer,
      dst_offsets, dst_strides, bytes, width, height, (cl_int) columns, blocks, lines);
  const cl_int along_extent = columns ? height : width;
  device.launch (block_gather_, cl::NDRange ((along_extent + 1) / 2, lines), group);
}

}  // namespace gst_opencl_sort
