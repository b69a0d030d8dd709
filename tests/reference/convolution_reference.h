/* gst-opencl tests: float64 CPU reference of the multi-dimensional correlation.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <cstdint>
#include <vector>

namespace reference {

/* out_n(x,y,z) = sum_{i,j,l} f_n(i,j,l) in(clamp(x+i-cx), clamp(y+j-cy), clamp(z+l-cz)),
 * c = (k - 1) / 2 per axis: scipy.ndimage.correlate (..., mode='nearest').
 * `volume`: width x height x depth values, x fastest. `filters`: n_filters x kx x ky x kz
 * values, the filter index fastest, then x, y, z. Returns width x height x depth x n_filters
 * values, the filter index fastest. */
std::vector<double> correlate (const std::vector<double> & volume, int width, int height,
    int depth, const std::vector<double> & filters, int n_filters, int kx, int ky, int kz);

/* Rounded to nearest (ties away from zero) and saturated to 0 .. 255. */
uint8_t to_byte (double value);

}  // namespace reference
