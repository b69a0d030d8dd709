/* gst-opencl tests: CPU reference of openclhistogram's counts and drawn graph.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace reference {

enum class HistogramFormat { RGBA, BGRA, RGBx, BGRx, GRAY8, I420, NV12, P010_10LE, GRAY16_LE,
  RGBA64_LE };

/* A frame as planes in host memory: RGB formats, GRAY8 and GRAY16 use plane 0; I420 planes 0 (Y),
 * 1 (U), 2 (V); NV12 and P010 planes 0 (Y) and 1 (U and V interleaved). Chroma planes are
 * ceil(width / 2) x ceil(height / 2) samples. Strides in bytes. GRAY16_LE, RGBA64_LE and
 * P010_10LE samples are little-endian 16-bit words; P010's 10-bit value is the word's top 10
 * bits. */
struct HistogramFrame
{
  HistogramFormat format = HistogramFormat::RGBA;
  int width = 0;
  int height = 0;
  uint8_t *planes[3] = { nullptr, nullptr, nullptr };
  int strides[3] = { 0, 0, 0 };
};

/* The channels the element reports for a format, in the order of histogram ()'s counts. */
std::vector<std::string> histogram_channels (HistogramFormat format);

/* Counts, channel-major: channel c, bin b at c * bins + b. A sample v falls in bin
 * floor (v * bins / 256) for 8-bit formats, floor (v * bins / 65536) for GRAY16 and RGBA64, and
 * floor ((v >> 6) * bins / 1024) for P010; luma is 0.299 R + 0.587 G + 0.114 B of the samples
 * rounded to the nearest integer, halves up. */
std::vector<uint64_t> histogram (const HistogramFrame & frame, int bins);

/* Draws the graph of `counts` (one frame's) as the element does with draw=true (see
 * docs/openclhistogram.md): bars in the top-left min (width, 256) x min (height, 128) pixels, a
 * lit sample at the format's largest value (255, 65535, P010's 1023), others at a quarter of
 * their value. */
void draw_histogram (HistogramFrame & frame, const std::vector<uint64_t> & counts, int bins);

}  // namespace reference
