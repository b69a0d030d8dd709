/* gst-opencl: openclsort's video side, pixel sorting: the pixels of every row or column of a
 * frame (the 2x2 blocks of every pair of rows or columns of a 4:2:0 frame, with their chroma)
 * sorted by a key (kernels/pixelsort.cl around the shared sort).
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

/* Sorts the lines of frames of one video format: a key word per element (a pixel, or a 2x2
 * block of a 4:2:0 frame: the key's value above the element's position in its line), the words
 * of every line sorted, the elements gathered in their words' order. */
class PixelSort
{
public:
  /* For frames of `info`: takes the kernels and sizes the words. Throws Failure (TooLarge) for
   * lines longer than 2^24 elements or frames the sort or the device cannot hold. */
  void configure (gst_opencl::Device & device, const GstVideoInfo & info);

  /* Enqueues the sort of frame `in` into `out` (distinct frames: the gather reads the input
   * while it writes the output) through the element's launches.
   * Throws Failure (Settings) for a colour key on a YUV frame. */
  void enqueue (gst_opencl::ElementDevice & device, const GstOpenCLFrame & in,
      const GstOpenCLFrame & out, Direction direction, Key key, bool descending);

  GstVideoInfo *info () { return &info_; }

  /* Whether frames of the configured format sort 2x2 blocks (NV12, I420, P010_10LE). */
  bool blocks () const { return blocks_; }

private:
  /* The 4:2:0 path: block keys, the sort, the block gather. */
  void enqueue_blocks (gst_opencl::ElementDevice & device, const GstOpenCLFrame & in,
      const GstOpenCLFrame & out, bool columns, bool descending);
  /* Sorts the words, `lines` lines of `length`. */
  void enqueue_sort (gst_opencl::ElementDevice & device, size_t lines, size_t length);

  GstVideoInfo info_ {};
  bool blocks_ = false;
  cl::Buffer words_;
  cl::Kernel keys_;
  cl::Kernel gather_;
  cl::Kernel block_keys_;
  cl::Kernel block_gather_;
  std::unique_ptr<gst_opencl::DeviceSort> sort_;
};

}  // namespace gst_opencl_sort
