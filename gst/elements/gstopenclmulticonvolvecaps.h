/* gst-opencl: openclmulticonvolve's caps: the luma of GRAY8, NV12, I420, GRAY16_LE or P010_10LE
 * frames, or uint8 volumes (other/tensors) in,
 * float32 tensors of the N responses or video out, and the shape negotiated caps give the bank.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

namespace gst_opencl_multi_convolve {

/* What the negotiated caps make of the input and output. */
struct Shape
{
  bool video_in = false;
  bool video_out = false;
  GstVideoInfo in_video {};
  GstVideoInfo out_video {};
  int width = 0, height = 0, depth = 1;  /* of the input, in voxels (depth 1 for video) */
  gsize out_bytes = 0;
  /* Video input: the luma is plane 0; 16-bit words (GRAY16, P010) become floats
   * (word >> luma_shift) x luma_factor, on the scale of 8-bit values. */
  bool luma_words = false;
  guint luma_shift = 0;
  float luma_factor = 1.0f;
};

/* The formats whose luma the bank takes: GRAY8 (as it is), the Y plane of NV12 and I420, and
 * 16-bit luma scaled to 0..255 (GRAY16_LE: value / 257; P010_10LE: (value >> 6) x 255 / 1023). */
#define GST_OPENCL_MULTI_CONVOLVE_VIDEO_FORMATS "{ GRAY8, NV12, I420, GRAY16_LE, P010_10LE }"


/* Output caps for one input structure: the tensor first (the default when downstream takes
 * anything), then video for video input with N <= 4, in system memory, then in CUDA memory
 * when `cuda` (the device reaches it). */
void append_outputs (const GstStructure * in, int num_kernels, bool cuda, GstCaps * result);

/* The shape of negotiated caps for `num_kernels` filters; throws gst_opencl::Failure
 * (Settings) for caps the bank cannot take: a tensor that is not uint8 or has more than 3
 * dimensions, video output that does not match the input or the number of filters, a tensor
 * output that is not float32 N:W:H[:D]. */
Shape shape_of (GstCaps * incaps, GstCaps * outcaps, int num_kernels);

}  // namespace gst_opencl_multi_convolve
