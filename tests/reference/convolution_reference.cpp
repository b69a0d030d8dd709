/* gst-opencl tests: float64 CPU reference of the multi-dimensional correlation.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Written for clarity, straight from the definition: no separable shortcut, no reuse. */
#include "reference/convolution_reference.h"

#include <algorithm>
#include <cmath>

namespace reference {

std::vector<double>
correlate (const std::vector<double> & volume, int width, int height, int depth,
    const std::vector<double> & filters, int n_filters, int kx, int ky, int kz)
{
  const int cx = (kx - 1) / 2, cy = (ky - 1) / 2, cz = (kz - 1) / 2;
  std::vector<double> out ((size_t) width * height * depth * n_filters, 0.0);
  auto in = [&](int x, int y, int z) {
    x = std::clamp (x, 0, width - 1);
    y = std::clamp (y, 0, height - 1);
    z = std::clamp (z, 0, depth - 1);
    return volume[((size_t) z * height + y) * width + x];
  };
  for (int z = 0; z < depth; z++) {
    for (int y = 0; y < height; y++) {
      for (int x = 0; x < width; x++) {
        double *sums = &out[(((size_t) z * height + y) * width + x) * n_filters];
        for (int l = 0; l < kz; l++) {
          for (int j = 0; j < ky; j++) {
            for (int i = 0; i < kx; i++) {
              const double v = in (x + i - cx, y + j - cy, z + l - cz);
              const double *taps = &filters[(((size_t) l * ky + j) * kx + i) * n_filters];
              for (int n = 0; n < n_filters; n++)
                sums[n] += taps[n] * v;
            }
          }
        }
      }
    }
  }
  return out;
}

uint8_t
to_byte (double value)
{
  return (uint8_t) std::clamp (std::round (value), 0.0, 255.0);
}

std::vector<double>
convolve3d_taps (const Convolve3dKernel & k)
{
  const size_t count = (size_t) k.width * k.height * k.depth;
  std::vector<double> taps (count, 1.0);
  auto g = [](int i, int size, double sigma) {
    double d = i - (size - 1) / 2;
    return std::exp (-d * d / (2 * sigma * sigma));
  };
  for (int l = 0; l < k.depth; l++)
    for (int j = 0; j < k.height; j++)
      for (int i = 0; i < k.width; i++) {
        size_t t = ((size_t) l * k.height + j) * k.width + i;
        if (k.preset == "gaussian")
          taps[t] = g (i, k.width, k.sigma_xy) * g (j, k.height, k.sigma_xy) *
              g (l, k.depth, k.sigma_t);
        else if (k.preset == "custom")
          taps[t] = k.taps[t];
      }
  double sum = 0;
  for (double v : taps)
    sum += v;
  if (k.normalize && std::fabs (sum) > 1e-12)
    for (double &v : taps)
      v /= sum;
  return taps;
}

std::vector<testutil::Frame>
convolve3d_frames (const std::vector<testutil::Frame> & inputs, const Convolve3dKernel & k)
{
  const int w = inputs[0].width, h = inputs[0].height, bpp = inputs[0].bytes_per_pixel;
  const int frames = (int) inputs.size ();
  const std::vector<double> taps = convolve3d_taps (k);
  std::vector<testutil::Frame> outputs;
  for (int n = 0; n < frames; n++)
    outputs.emplace_back (w, h, bpp);
  const int filtered = bpp == 4 ? 3 : 1;
  for (int c = 0; c < filtered; c++) {
    std::vector<double> volume ((size_t) w * h * frames);
    for (int t = 0; t < frames; t++)
      for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
          volume[((size_t) t * h + y) * w + x] = inputs[t].row (y)[x * bpp + c];
    auto out = correlate (volume, w, h, frames, taps, 1, k.width, k.height, k.depth);
    for (int t = 0; t < frames; t++)
      for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
          outputs[t].row (y)[x * bpp + c] = to_byte (out[((size_t) t * h + y) * w + x]);
  }
  if (bpp == 4) {
    for (int t = 0; t < frames; t++)
      for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
          outputs[t].row (y)[x * 4 + 3] = inputs[t].row (y)[x * 4 + 3];
  }
  return outputs;
}

std::vector<PlanarFrame>
convolve3d_planes (const std::vector<PlanarFrame> & inputs, const Convolve3dKernel & k,
    int max_value, int step)
{
  const int frames = (int) inputs.size ();
  const std::vector<double> taps = convolve3d_taps (k);
  std::vector<PlanarFrame> outputs (inputs);
  for (size_t p = 0; p < inputs[0].size (); p++) {
    const PlaneSamples & shape = inputs[0][p];
    const int w = shape.width, h = shape.height;
    const int filtered = shape.channels == 4 ? 3 : shape.channels;
    for (int c = 0; c < filtered; c++) {
      std::vector<double> volume ((size_t) w * h * frames);
      for (int t = 0; t < frames; t++)
        for (int y = 0; y < h; y++)
          for (int x = 0; x < w; x++)
            volume[((size_t) t * h + y) * w + x] = inputs[t][p].at (x, y, c);
      auto out = correlate (volume, w, h, frames, taps, 1, k.width, k.height, k.depth);
      for (int t = 0; t < frames; t++)
        for (int y = 0; y < h; y++)
          for (int x = 0; x < w; x++) {
            const double v = std::round (out[((size_t) t * h + y) * w + x] / step) * step;
            outputs[t][p].at (x, y, c) = (int) std::clamp (v, 0.0,
                (double) (max_value + 1 - step));
          }
    }
  }
  return outputs;
}

}  // namespace reference
