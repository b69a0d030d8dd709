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

}  // namespace reference
