/* gst-opencl tests: float64 CPU reference of the bilateral filter, written straight from the
 * definition (no tables, no tiling) so that it shares no shortcut with the kernel.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "reference/bilateral_reference.h"

#include <algorithm>
#include <cmath>

namespace reference {

static uint8_t
round_to_u8 (double value)
{
  return (uint8_t) std::clamp (std::nearbyint (value), 0.0, 255.0);
}

void
bilateral (const uint8_t * src, int src_stride, uint8_t * dst, int dst_stride, int width,
    int height, int channels, const BilateralParams & p)
{
  const double two_ss = 2.0 * p.sigma_spatial * p.sigma_spatial;
  const double two_sr = 2.0 * p.sigma_range * p.sigma_range;
  const double luma_r = 0.299, luma_g = 0.587, luma_b = 0.114;
  const double luma[3] = { p.bgr ? luma_b : luma_r, luma_g, p.bgr ? luma_r : luma_b };
  const int colour_channels = channels == 4 ? 3 : 1;

  auto pixel = [&](int x, int y) {
    x = std::clamp (x, 0, width - 1);
    y = std::clamp (y, 0, height - 1);
    return src + (size_t) y * src_stride + (size_t) x * channels;
  };

  for (int y = 0; y < height; y++) {
    for (int x = 0; x < width; x++) {
      const uint8_t *centre = pixel (x, y);
      double sum[3] = { 0, 0, 0 };
      double weight_sum[3] = { 0, 0, 0 };
      for (int dy = -p.radius; dy <= p.radius; dy++) {
        for (int dx = -p.radius; dx <= p.radius; dx++) {
          const uint8_t *q = pixel (x + dx, y + dy);
          const double spatial = std::exp (-(dx * dx + dy * dy) / two_ss);
          double weight[3];
          if (channels == 1) {
            double d = (double) q[0] - centre[0];
            weight[0] = spatial * std::exp (-d * d / two_sr);
          } else if (p.mode == BilateralMode::PerChannel) {
            for (int c = 0; c < 3; c++) {
              double d = (double) q[c] - centre[c];
              weight[c] = spatial * std::exp (-d * d / two_sr);
            }
          } else {
            double d2 = 0.0;
            if (p.mode == BilateralMode::Luma) {
              double d = 0.0;
              for (int c = 0; c < 3; c++)
                d += luma[c] * ((double) q[c] - centre[c]);
              d2 = d * d;
            } else {
              for (int c = 0; c < 3; c++) {
                double d = (double) q[c] - centre[c];
                d2 += d * d;
              }
            }
            weight[0] = weight[1] = weight[2] = spatial * std::exp (-d2 / two_sr);
          }
          for (int c = 0; c < colour_channels; c++) {
            sum[c] += weight[c] * q[c];
            weight_sum[c] += weight[c];
          }
        }
      }
      uint8_t *out = dst + (size_t) y * dst_stride + (size_t) x * channels;
      for (int c = 0; c < colour_channels; c++)
        out[c] = round_to_u8 (sum[c] / weight_sum[c]);
      if (channels == 4)
        out[3] = centre[3];
    }
  }
}

}  // namespace reference
