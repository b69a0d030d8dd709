/* gst-opencl tests: float64 CPU reference of the multi-dimensional correlation.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/testutil.h"

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

/* openclconvolve3d's kernel as its properties give it. */
struct Convolve3dKernel
{
  int width = 5, height = 5, depth = 3;
  std::string preset = "gaussian";  /* gaussian, box or custom */
  double sigma_xy = 1.0, sigma_t = 1.0;
  std::vector<double> taps;         /* custom: width x height x depth, x fastest */
  bool normalize = true;
};

/* The taps the properties define, in double (x fastest, then y, then time). */
std::vector<double> convolve3d_taps (const Convolve3dKernel & kernel);

/* openclconvolve3d's output for a whole stream of frames (GRAY8, or 4 bytes a pixel whose
 * fourth byte is copied): every colour channel correlated in x, y and time, clamped at the
 * frame edges and at both ends of the stream. */
std::vector<testutil::Frame> convolve3d_frames (const std::vector<testutil::Frame> & inputs,
    const Convolve3dKernel & kernel);

/* One plane of a frame as samples (8- or 16-bit values, or P010's words), `channels` per
 * pixel, channel fastest, then x, then y. */
struct PlaneSamples
{
  int width = 0, height = 0, channels = 1;
  std::vector<int> samples;
  int &at (int x, int y, int c) { return samples[((size_t) y * width + x) * channels + c]; }
  int at (int x, int y, int c) const {
    return samples[((size_t) y * width + x) * channels + c];
  }
};
using PlanarFrame = std::vector<PlaneSamples>;

/* openclconvolve3d on frames of any format: every plane correlated on its own, at its own size,
 * with the same taps, every channel alike (channel 3 of a 4-channel plane, alpha or x, copied
 * from frame n); each result rounded to the nearest multiple of `step` (1, or 64 for P010's
 * words) and saturated to 0 .. max_value + 1 - step (max_value 255 or 65535). */
std::vector<PlanarFrame> convolve3d_planes (const std::vector<PlanarFrame> & inputs,
    const Convolve3dKernel & kernel, int max_value, int step);

}  // namespace reference
