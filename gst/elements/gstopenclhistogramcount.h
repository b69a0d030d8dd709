/* gst-opencl: openclhistogram's device side: what a format's planes count into, the tuned
 * kernel variants that count them, and the graph drawn on the frame.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gst/video/video.h>

#include <string>
#include <vector>

#include "opencl/gstopenclfilter.h"
#include "opencl/gstopenclframe.h"

namespace gst_opencl_histogram {

constexpr guint MIN_BINS = 2;
constexpr guint MAX_BINS = 256;
/* red, green, blue and luma: the most channels a format has. */
constexpr guint MAX_CHANNELS = 4;
/* Uints in each counts buffer (what the kernel clears in the other buffer), and in a frame's
 * counts read back. */
constexpr guint COUNT_SLOTS = MAX_CHANNELS * MAX_BINS;

/* The largest power of two not above `value` (value >= 1). */
inline guint
power_of_two_floor (guint value)
{
  guint result = 1;
  while (result * 2 <= value)
    result *= 2;
  return result;
}

/* One kernel launch over one plane: which samples of its pixels it counts. */
struct PlanePass
{
  guint plane = 0;
  guint component = 0;      /* the plane's first component: gives its width and height */
  int pixel_bytes = 1;
  int sample_bytes = 1;     /* 1, or 2: 16-bit little-endian samples (GRAY16, RGBA64, P010) */
  int low_bits = 0;         /* low bits of a 16-bit sample that hold no value: 6 for P010 */
  int channels = 1;         /* samples counted per pixel, at byte offsets sample_offset[] */
  int sample_offset[3] = { 0, 0, 0 };
  bool luma = false;        /* also count Y from the three samples (red, green, blue) */
  guint first_channel = 0;  /* where its counts start in the counts buffer, in channels */
  guint copies = 1;         /* sub-histograms per work-group, for the variant built */
  cl::Kernel kernel;

  guint hist_channels () const
  {
    return channels + (luma ? 1 : 0);
  }
  /* How far a sample is shifted right to give its bin among `bins` (a power of two). */
  guint bin_shift (guint bins) const
  {
    return 8 * sample_bytes - g_bit_nth_lsf (bins, -1);
  }
};

/* What a video format turns into: channel names, in the order of the counts, and passes. */
struct Layout
{
  std::vector<const char *> channel_names;
  std::vector<PlanePass> passes;
  bool yuv = false;
};

/* The layout of a format; no passes for a format the element does not take. */
Layout layout_for (GstVideoFormat format);

/* Derived from caps (set_info) and built lazily in process_ip. */
struct State
{
  Layout layout;
  guint channels = 0;
  int width = 0;
  int height = 0;
  bool kernels_ready = false;        /* the variant is chosen and its kernels are built */
  size_t variant = 0;                /* index into VARIANTS */
  cl::Kernel draw_kernel;
  cl::Kernel fill_kernel;
  size_t compute_units = 1;
  bool words = true;                 /* the device is little-endian: planes read as words */
  size_t forced_groups = 0;          /* GST_OPENCL_HISTOGRAM_GROUPS, for tests; 0: none */
  /* Two buffers of COUNT_SLOTS uint, allocated once: a frame counts into counts[current] and
   * clears the other, which the next frame counts into (see kernels/histogram.cl). */
  cl::Buffer counts[2];
  guint current = 0;
  GstClockTime frame_period_ns = GST_CLOCK_TIME_NONE;  /* from the framerate, if any */
};

/* Two zeroed count buffers, once per element (set_info; kept across caps). */
void allocate_counts (gst_opencl::Device & device, State & state);

/* Chooses the variant once per caps (forced, cached, or timed on a random frame with this
 * frame's layout: see gst_opencl::choose_variant) and builds its kernels. Returns whether it
 * chose one now. */
bool ensure_kernels (GstOpenCLFilter * filter, State & state, const GstOpenCLFrame * frame,
    guint bins);

/* Enqueues the counting of every plane of `frame` through the filter's launch, the first
 * launch clearing the other count buffer, which becomes current for the next frame. Returns
 * the index of the buffer counted into. */
guint count_frame (GstOpenCLFilter * filter, State & state, const GstOpenCLFrame * frame,
    guint bins);

/* The graph in the top-left corner; for YUV, the chroma under it is made neutral (grey). */
void draw_graph (GstOpenCLFilter * filter, State & state, const GstOpenCLFrame * frame,
    guint bins, const cl::Buffer & counts);

}  // namespace gst_opencl_histogram
