/* gst-opencl: openclsort's video side, pixel sorting: the pixels of every row or column of a
 * frame sorted by a key (kernels/pixelsort.cl around the shared sort).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gst/video/video.h>

#include <memory>

#include "opencl/gstopenclelementdevice.h"
#include "opencl/gstopenclframe.h"
#include "opencl/gstopencldevicesort.h"

namespace gst_opencl_sort {

enum class Direction : int { Rows = 0, Columns = 1 };
enum class Key : int { Luma = 0, Red = 1, Green = 2, Blue = 3 };

/* Sorts the lines of frames of one video format: a key word per pixel (the key's value above
 * the pixel's position in its line), the words of every line sorted, the pixels gathered in
 * their words' order. */
class PixelSort
{
public:
  /* For frames of `info`: takes the kernels and sizes the words. Throws Failure (TooLarge) for
   * lines longer than 2^24 pixels or frames the sort or the device cannot hold. */
  void configure (gst_opencl::Device & device, const GstVideoInfo & info);

  /* Enqueues the sort of frame `in` into `out` (the same frame is allowed) through the
   * element's launches. */
  void enqueue (gst_opencl::ElementDevice & device, const GstOpenCLFrame & in,
      const GstOpenCLFrame & out, Direction direction, Key key, bool descending);

  GstVideoInfo *info () { return &info_; }

private:
  GstVideoInfo info_ {};
  cl::Buffer words_;
  cl::Kernel keys_;
  cl::Kernel gather_;
  std::unique_ptr<gst_opencl::DeviceSort> sort_;
};

}  // namespace gst_opencl_sort
