/* gst-opencl tests: float64 CPU reference of the bilateral filter.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <cstdint>

namespace reference {

enum class BilateralMode { Color = 0, Luma = 1, PerChannel = 2 };

struct BilateralParams
{
  double sigma_spatial = 2.0;
  double sigma_range = 25.0;
  int radius = 4;               /* the effective radius (no "automatic" here) */
  BilateralMode mode = BilateralMode::Color;
  bool bgr = false;             /* channel order B, G, R: only luma weights depend on it */
};

/* out(p) = sum_q w(p,q) I(q) / sum_q w(p,q) over the (2r+1)^2 square, borders clamped to the
 * edge, w = exp(-|p-q|^2 / (2 s_s^2)) exp(-d(p,q)^2 / (2 s_r^2)), rounded to nearest.
 * channels: 1 (gray) or 4 (channel 3 copied from the centre pixel). Strides in bytes. */
void bilateral (const uint8_t * src, int src_stride, uint8_t * dst, int dst_stride, int width,
    int height, int channels, const BilateralParams & params);

}  // namespace reference
