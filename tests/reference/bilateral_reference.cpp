/* gst-opencl tests: float64 CPU reference of the bilateral filter, written straight from the
 * definition (no tables, no tiling) so that it shares no shortcut with the kernel.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "reference/bilateral_reference.h"

#include <algorithm>
#include <cmath>

namespace reference {

namespace {

/* Sample c of the pixel at p, as its value (P010: the 10-bit code). */
double
value_at (const uint8_t * p, int c, const BilateralSamples & s)
{
  const int raw = s.sample_bits == 16 ? p[2 * c] | (p[2 * c + 1] << 8) : p[c];
  return (double) (raw >> s.shift);
}

void
store (uint8_t * p, int c, int raw, const BilateralSamples & s)
{
  if (s.sample_bits == 16) {
    p[2 * c] = (uint8_t) (raw & 0xff);
    p[2 * c + 1] = (uint8_t) (raw >> 8);
  } else {
    p[c] = (uint8_t) raw;
  }
}

}  // namespace

void
bilateral_plane (const uint8_t * src, int src_stride, uint8_t * dst, int dst_stride, int width,
    int height, const BilateralSamples & s, const BilateralParams & p)
{
  const double max_value = (double) ((1 << (s.sample_bits - s.shift)) - 1);
  const double sigma_range = p.sigma_range * max_value / 255.0;
  const double two_ss = 2.0 * p.sigma_spatial * p.sigma_spatial;
  const double two_sr = 2.0 * sigma_range * sigma_range;
  const double luma_r = 0.299, luma_g = 0.587, luma_b = 0.114;
  const double luma[3] = { p.bgr ? luma_b : luma_r, luma_g, p.bgr ? luma_r : luma_b };
  const int filtered = s.channels == 4 ? 3 : s.channels;
  const int pixel_bytes = s.channels * s.sample_bits / 8;
  /* Chroma pairs: one weight from their Euclidean distance, as RGB's colour mode. */
  const bool per_channel = s.channels == 4 && p.mode == BilateralMode::PerChannel;
  const bool luma_mode = s.channels == 4 && p.mode == BilateralMode::Luma;

  auto pixel = [&](int x, int y) {
    x = std::clamp (x, 0, width - 1);
    y = std::clamp (y, 0, height - 1);
    return src + (size_t) y * src_stride + (size_t) x * pixel_bytes;
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
          double d[3];
          for (int c = 0; c < filtered; c++)
            d[c] = value_at (q, c, s) - value_at (centre, c, s);
          double weight[3];
          if (per_channel || s.channels == 1) {
            for (int c = 0; c < filtered; c++)
              weight[c] = spatial * std::exp (-d[c] * d[c] / two_sr);
          } else {
            double d2 = 0.0;
            if (luma_mode) {
              const double l = luma[0] * d[0] + luma[1] * d[1] + luma[2] * d[2];
              d2 = l * l;
            } else {
              for (int c = 0; c < filtered; c++)
                d2 += d[c] * d[c];
            }
            weight[0] = weight[1] = weight[2] = spatial * std::exp (-d2 / two_sr);
          }
          for (int c = 0; c < filtered; c++) {
            sum[c] += weight[c] * value_at (q, c, s);
            weight_sum[c] += weight[c];
          }
        }
      }
      uint8_t *out = dst + (size_t) y * dst_stride + (size_t) x * pixel_bytes;
      for (int c = 0; c < filtered; c++) {
        const double value = std::clamp (std::nearbyint (sum[c] / weight_sum[c]), 0.0,
            max_value);
        store (out, c, (int) value << s.shift, s);
      }
      if (s.channels == 4)
        std::copy (centre + 3 * s.sample_bits / 8, centre + pixel_bytes, out + 3 *
            s.sample_bits / 8);
    }
  }
}

void
bilateral (const uint8_t * src, int src_stride, uint8_t * dst, int dst_stride, int width,
    int height, int channels, const BilateralParams & params)
{
  BilateralSamples samples;
  samples.channels = channels;
  bilateral_plane (src, src_stride, dst, dst_stride, width, height, samples, params);
}

}  // namespace reference
