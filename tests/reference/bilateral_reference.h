/* gst-opencl tests: float64 CPU reference of the bilateral filter.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <cstdint>

namespace reference {

enum class BilateralMode { Color = 0, Luma = 1, PerChannel = 2 };

struct BilateralParams
{
  double sigma_spatial = 2.0;
  double sigma_range = 25.0;    /* in 8-bit units whatever the samples' depth */
  int radius = 4;               /* the effective radius (no "automatic" here) */
  BilateralMode mode = BilateralMode::Color;
  bool bgr = false;             /* channel order B, G, R: only luma weights depend on it */
};

/* The samples of one plane: `channels` per pixel (1 gray or one plane, 2 an interleaved chroma
 * pair, 4 RGB plus a copied fourth), of `sample_bits` (8, or 16 little-endian), the value in the
 * high `sample_bits - shift` bits (P010: 16 and 6). */
struct BilateralSamples
{
  int channels = 4;
  int sample_bits = 8;
  int shift = 0;
};

/* out(p) = sum_q w(p,q) I(q) / sum_q w(p,q) over the (2r+1)^2 square, borders clamped to the
 * edge, w = exp(-|p-q|^2 / (2 s_s^2)) exp(-d(p,q)^2 / (2 s_r^2)), rounded to nearest; s_r is
 * sigma_range times (2^depth - 1) / 255, depth = sample_bits - shift. 4 channels: d as the
 * mode says, channel 3 copied from the centre pixel; 2 channels: d the Euclidean distance of
 * the pair (as the colour mode); 1: the difference. Results stored as value << shift. Strides
 * in bytes. */
void bilateral_plane (const uint8_t * src, int src_stride, uint8_t * dst, int dst_stride,
    int width, int height, const BilateralSamples & samples, const BilateralParams & params);

/* bilateral_plane on 8-bit samples, channels 1 (gray) or 4. */
void bilateral (const uint8_t * src, int src_stride, uint8_t * dst, int dst_stride, int width,
    int height, int channels, const BilateralParams & params);

}  // namespace reference
