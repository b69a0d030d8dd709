/* gst-opencl: openclsort's video side, pixel sorting.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "elements/gstopenclsortpixels.h"

#include <string>

#include "opencl/gstopenclutils.h"

namespace gst_opencl_sort {

namespace {

/* Pixel positions are packed into the low 24 bits of the sorted words (kernels/pixelsort.cl). */
constexpr guint64 MAX_LINE_PIXELS = 1u << 24;

/* Byte weights of the key over one pixel (see kernels/pixelsort.cl). */
cl_uint4
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
cl_int
row_stride (const GstOpenCLFrame & frame)
{
  return (cl_int) GST_VIDEO_INFO_PLANE_STRIDE (&frame.info, 0);
}

}  // namespace

void
PixelSort::configure (gst_opencl::Device & device, const GstVideoInfo & info)
{
  using gst_opencl::Failure;
  info_ = info;
  const guint64 width = GST_VIDEO_INFO_WIDTH (&info);
  const guint64 height = GST_VIDEO_INFO_HEIGHT (&info);
  if (width > MAX_LINE_PIXELS || height > MAX_LINE_PIXELS)
    throw Failure (Failure::Kind::TooLarge, "a " + std::to_string (width) + "x" +
        std::to_string (height) + " frame has lines longer " +
        "than the 2^24 pixels openclsort can sort");
  /* Either direction: the longer padded line decides the scratch size. */
  gst_opencl::DeviceSort::check_fits (device, height, width, "a frame");
  gst_opencl::DeviceSort::check_fits (device, width, height, "a frame");
  if ((guint64) info.size > device.max_alloc_bytes)
    throw Failure (Failure::Kind::TooLarge, "a frame of " + std::to_string (info.size) +
        " bytes exceeds the largest buffer " + device.name + " can allocate");
  words_ = cl::Buffer (device.context, CL_MEM_READ_WRITE | CL_MEM_HOST_NO_ACCESS,
      width * height * sizeof (cl_uint));
  if (!keys_ ()) {
    keys_ = device.kernel ("pixelsort", "pixel_keys", "");
    gather_ = device.kernel ("pixelsort", "pixel_gather", "");
  }
  /* The words hold the order in their key bits: always an ascending sort of uint32. */
  if (!sort_)
    sort_ = std::make_unique<gst_opencl::DeviceSort> (device, gst_opencl::SortKey::UInt32,
        gst_opencl::SortOrder::Ascending);
}

void
PixelSort::enqueue (gst_opencl::ElementDevice & device, const GstOpenCLFrame & in,
    const GstOpenCLFrame & out, Direction direction, Key key, bool descending)
{
  const cl_int width = GST_VIDEO_INFO_WIDTH (&info_);
  const cl_int height = GST_VIDEO_INFO_HEIGHT (&info_);
  const cl_int pixel_bytes = GST_VIDEO_INFO_COMP_PSTRIDE (&info_, 0);
  const bool columns = direction == Direction::Columns;

  const cl::NDRange frame_range (width, height);
  const cl::NDRange group (16, 16);
  keys_.setArg (0, in.buffer);
  keys_.setArg (1, row_stride (in));
  keys_.setArg (2, words_);
  keys_.setArg (3, width);
  keys_.setArg (4, height);
  keys_.setArg (5, (cl_int) columns);
  keys_.setArg (6, pixel_bytes);
  keys_.setArg (7, key_weights (GST_VIDEO_INFO_FORMAT (&info_), key));
  keys_.setArg (8, (cl_int) descending);
  device.launch (keys_, frame_range, group);

  sort_->enqueue (words_, words_, columns ? width : height, columns ? height : width,
      [&device] (const cl::Kernel & kernel, const cl::NDRange & global,
          const cl::NDRange & local) { device.launch (kernel, global, local); });

  gather_.setArg (0, in.buffer);
  gather_.setArg (1, row_stride (in));
  gather_.setArg (2, words_);
  gather_.setArg (3, out.buffer);
  gather_.setArg (4, row_stride (out));
  gather_.setArg (5, width);
  gather_.setArg (6, height);
  gather_.setArg (7, (cl_int) columns);
  gather_.setArg (8, pixel_bytes);
  device.launch (gather_, frame_range, group);
}

}  // namespace gst_opencl_sort
