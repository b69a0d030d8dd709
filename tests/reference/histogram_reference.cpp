/* gst-opencl tests: CPU reference of openclhistogram's counts and drawn graph.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Deliberately plain: one loop per plane, each sample looked up by its own byte position. */
#include "reference/histogram_reference.h"

#include <algorithm>

namespace reference {

namespace {

/* Byte positions of red, green and blue in a 4-byte pixel. */
struct RgbOrder
{
  int red, green, blue;
};

RgbOrder
rgb_order (HistogramFormat format)
{
  if (format == HistogramFormat::BGRA || format == HistogramFormat::BGRx)
    return { 2, 1, 0 };
  return { 0, 1, 2 };
}

bool
is_rgb (HistogramFormat format)
{
  return format == HistogramFormat::RGBA || format == HistogramFormat::BGRA ||
      format == HistogramFormat::RGBx || format == HistogramFormat::BGRx;
}

bool
is_yuv (HistogramFormat format)
{
  return format == HistogramFormat::I420 || format == HistogramFormat::NV12;
}

int
luma (int red, int green, int blue)
{
  /* Thousandths, so the weights are exact; then round half up. */
  int thousandths = 299 * red + 587 * green + 114 * blue;
  int whole = thousandths / 1000;
  return thousandths % 1000 >= 500 ? whole + 1 : whole;
}

int
bin_of (int value, int bins)
{
  return value * bins / 256;
}

/* Counts `samples_per_pixel` interleaved samples of a plane into consecutive channels. */
void
count_plane (const uint8_t * plane, int stride, int width, int height, int samples_per_pixel,
    int first_channel, int bins, std::vector<uint64_t> & counts)
{
  for (int y = 0; y < height; y++) {
    const uint8_t *row = plane + (size_t) y * stride;
    for (int x = 0; x < width; x++) {
      for (int s = 0; s < samples_per_pixel; s++) {
        int value = row[x * samples_per_pixel + s];
        counts[(size_t) (first_channel + s) * bins + bin_of (value, bins)]++;
      }
    }
  }
}

}  // namespace

std::vector<std::string>
histogram_channels (HistogramFormat format)
{
  if (is_rgb (format))
    return { "red", "green", "blue", "luma" };
  if (format == HistogramFormat::GRAY8)
    return { "gray" };
  return { "y", "u", "v" };
}

std::vector<uint64_t>
histogram (const HistogramFrame & frame, int bins)
{
  const size_t channels = histogram_channels (frame.format).size ();
  std::vector<uint64_t> counts (channels * bins, 0);
  const int chroma_width = (frame.width + 1) / 2;
  const int chroma_height = (frame.height + 1) / 2;
  if (is_rgb (frame.format)) {
    RgbOrder order = rgb_order (frame.format);
    for (int y = 0; y < frame.height; y++) {
      const uint8_t *row = frame.planes[0] + (size_t) y * frame.strides[0];
      for (int x = 0; x < frame.width; x++) {
        const uint8_t *pixel = row + 4 * x;
        int rgb[3] = { pixel[order.red], pixel[order.green], pixel[order.blue] };
        for (int c = 0; c < 3; c++)
          counts[(size_t) c * bins + bin_of (rgb[c], bins)]++;
        counts[(size_t) 3 * bins + bin_of (luma (rgb[0], rgb[1], rgb[2]), bins)]++;
      }
    }
  } else if (frame.format == HistogramFormat::GRAY8) {
    count_plane (frame.planes[0], frame.strides[0], frame.width, frame.height, 1, 0, bins,
        counts);
  } else if (frame.format == HistogramFormat::I420) {
    count_plane (frame.planes[0], frame.strides[0], frame.width, frame.height, 1, 0, bins,
        counts);
    count_plane (frame.planes[1], frame.strides[1], chroma_width, chroma_height, 1, 1, bins,
        counts);
    count_plane (frame.planes[2], frame.strides[2], chroma_width, chroma_height, 1, 2, bins,
        counts);
  } else {
    count_plane (frame.planes[0], frame.strides[0], frame.width, frame.height, 1, 0, bins,
        counts);
    count_plane (frame.planes[1], frame.strides[1], chroma_width, chroma_height, 2, 1, bins,
        counts);
  }
  return counts;
}

void
draw_histogram (HistogramFrame & frame, const std::vector<uint64_t> & counts, int bins)
{
  const int draw_width = std::min (frame.width, 256);
  const int draw_height = std::min (frame.height, 128);
  /* Drawn channels and the byte each one lights in a pixel of plane 0. */
  std::vector<int> byte_of_channel;
  int pixel_bytes = 1;
  if (is_rgb (frame.format)) {
    RgbOrder order = rgb_order (frame.format);
    byte_of_channel = { order.red, order.green, order.blue };
    pixel_bytes = 4;
  } else {
    byte_of_channel = { 0 };  /* gray, or y */
  }
  std::vector<uint64_t> peak (byte_of_channel.size (), 0);
  for (size_t c = 0; c < peak.size (); c++)
    for (int b = 0; b < bins; b++)
      peak[c] = std::max (peak[c], counts[c * bins + b]);

  for (int y = 0; y < draw_height; y++) {
    uint8_t *row = frame.planes[0] + (size_t) y * frame.strides[0];
    const uint64_t height_above_bottom = draw_height - 1 - y;
    for (int x = 0; x < draw_width; x++) {
      const int bin = x * bins / draw_width;
      for (size_t c = 0; c < byte_of_channel.size (); c++) {
        const uint64_t n = counts[c * bins + bin];
        uint64_t bar = 0;
        if (n > 0)
          bar = std::max<uint64_t> (1, n * draw_height / peak[c]);
        uint8_t & sample = row[x * pixel_bytes + byte_of_channel[c]];
        sample = height_above_bottom < bar ? 255 : sample / 4;
      }
    }
  }

  if (!is_yuv (frame.format))
    return;
  const int chroma_columns = (draw_width + 1) / 2;
  const int chroma_rows = (draw_height + 1) / 2;
  const int chroma_planes = frame.format == HistogramFormat::I420 ? 2 : 1;
  const int chroma_bytes = frame.format == HistogramFormat::I420 ? 1 : 2;
  for (int p = 1; p <= chroma_planes; p++)
    for (int y = 0; y < chroma_rows; y++)
      std::fill_n (frame.planes[p] + (size_t) y * frame.strides[p],
          chroma_columns * chroma_bytes, 128);
}

}  // namespace reference
