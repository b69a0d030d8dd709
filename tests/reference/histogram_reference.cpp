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

/* Sample positions (in samples, not bytes) of red, green and blue in a pixel of 4 samples. */
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
      format == HistogramFormat::RGBx || format == HistogramFormat::BGRx ||
      format == HistogramFormat::RGBA64_LE;
}

bool
is_yuv (HistogramFormat format)
{
  return format == HistogramFormat::I420 || format == HistogramFormat::NV12 ||
      format == HistogramFormat::P010_10LE;
}

/* How a format's samples are stored and binned. */
struct SampleKind
{
  int bytes;      /* 1, or 2 (little-endian) */
  int value_bits; /* of the value: 8, 16, or 10 for P010 */
  int low_bits;   /* below the value in the stored word: 6 for P010 */
};

SampleKind
sample_kind (HistogramFormat format)
{
  switch (format) {
    case HistogramFormat::GRAY16_LE:
    case HistogramFormat::RGBA64_LE:
      return { 2, 16, 0 };
    case HistogramFormat::P010_10LE:
      return { 2, 10, 6 };
    default:
      return { 1, 8, 0 };
  }
}

/* The stored word of the sample at byte `at`. */
int
load (const uint8_t * at, const SampleKind & kind)
{
  return kind.bytes == 1 ? at[0] : at[0] | (at[1] << 8);
}

void
store (uint8_t * at, int word, const SampleKind & kind)
{
  at[0] = (uint8_t) word;
  if (kind.bytes == 2)
    at[1] = (uint8_t) (word >> 8);
}

int
luma (int red, int green, int blue)
{
  /* Thousandths, so the weights are exact; then round half up. */
  int thousandths = 299 * red + 587 * green + 114 * blue;
  int whole = thousandths / 1000;
  return thousandths % 1000 >= 500 ? whole + 1 : whole;
}

/* The bin of a value of `value_bits` bits: floor (value * bins / 2^value_bits). */
int
bin_of (int value, int bins, int value_bits)
{
  return (int) ((int64_t) value * bins / ((int64_t) 1 << value_bits));
}

/* Counts `samples_per_pixel` interleaved samples of a plane into consecutive channels. */
void
count_plane (const uint8_t * plane, int stride, int width, int height, int samples_per_pixel,
    int first_channel, int bins, const SampleKind & kind, std::vector<uint64_t> & counts)
{
  for (int y = 0; y < height; y++) {
    const uint8_t *row = plane + (size_t) y * stride;
    for (int x = 0; x < width; x++) {
      for (int s = 0; s < samples_per_pixel; s++) {
        int value = load (row + (x * samples_per_pixel + s) * kind.bytes, kind) >> kind.low_bits;
        counts[(size_t) (first_channel + s) * bins + bin_of (value, bins, kind.value_bits)]++;
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
  if (format == HistogramFormat::GRAY8 || format == HistogramFormat::GRAY16_LE)
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
  const SampleKind kind = sample_kind (frame.format);
  if (is_rgb (frame.format)) {
    RgbOrder order = rgb_order (frame.format);
    for (int y = 0; y < frame.height; y++) {
      const uint8_t *row = frame.planes[0] + (size_t) y * frame.strides[0];
      for (int x = 0; x < frame.width; x++) {
        const uint8_t *pixel = row + 4 * kind.bytes * x;
        int rgb[3] = { load (pixel + order.red * kind.bytes, kind),
          load (pixel + order.green * kind.bytes, kind),
          load (pixel + order.blue * kind.bytes, kind) };
        for (int c = 0; c < 3; c++)
          counts[(size_t) c * bins + bin_of (rgb[c], bins, kind.value_bits)]++;
        counts[(size_t) 3 * bins + bin_of (luma (rgb[0], rgb[1], rgb[2]), bins,
                kind.value_bits)]++;
      }
    }
  } else if (frame.format == HistogramFormat::GRAY8 ||
      frame.format == HistogramFormat::GRAY16_LE) {
    count_plane (frame.planes[0], frame.strides[0], frame.width, frame.height, 1, 0, bins,
        kind, counts);
  } else if (frame.format == HistogramFormat::I420) {
    count_plane (frame.planes[0], frame.strides[0], frame.width, frame.height, 1, 0, bins,
        kind, counts);
    count_plane (frame.planes[1], frame.strides[1], chroma_width, chroma_height, 1, 1, bins,
        kind, counts);
    count_plane (frame.planes[2], frame.strides[2], chroma_width, chroma_height, 1, 2, bins,
        kind, counts);
  } else {
    count_plane (frame.planes[0], frame.strides[0], frame.width, frame.height, 1, 0, bins,
        kind, counts);
    count_plane (frame.planes[1], frame.strides[1], chroma_width, chroma_height, 2, 1, bins,
        kind, counts);
  }
  return counts;
}

void
draw_histogram (HistogramFrame & frame, const std::vector<uint64_t> & counts, int bins)
{
  const int draw_width = std::min (frame.width, 256);
  const int draw_height = std::min (frame.height, 128);
  const SampleKind kind = sample_kind (frame.format);
  /* A lit sample's value, and where it is stored in the word. */
  const int top = (1 << kind.value_bits) - 1;
  /* Drawn channels and the byte each one lights in a pixel of plane 0. */
  std::vector<int> byte_of_channel;
  int pixel_bytes = kind.bytes;
  if (is_rgb (frame.format)) {
    RgbOrder order = rgb_order (frame.format);
    byte_of_channel = { order.red * kind.bytes, order.green * kind.bytes,
      order.blue * kind.bytes };
    pixel_bytes = 4 * kind.bytes;
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
        uint8_t *sample = row + x * pixel_bytes + byte_of_channel[c];
        const int value = load (sample, kind) >> kind.low_bits;
        store (sample, (height_above_bottom < bar ? top : value / 4) << kind.low_bits, kind);
      }
    }
  }

  if (!is_yuv (frame.format))
    return;
  const int chroma_columns = (draw_width + 1) / 2;
  const int chroma_rows = (draw_height + 1) / 2;
  const int chroma_planes = frame.format == HistogramFormat::I420 ? 2 : 1;
  const int samples_per_chroma = frame.format == HistogramFormat::I420 ? 1 : 2;
  /* The middle code: 128, or 512 for P010. */
  const int neutral = (1 << (kind.value_bits - 1)) << kind.low_bits;
  for (int p = 1; p <= chroma_planes; p++)
    for (int y = 0; y < chroma_rows; y++)
      for (int i = 0; i < chroma_columns * samples_per_chroma; i++)
        store (frame.planes[p] + (size_t) y * frame.strides[p] + i * kind.bytes, neutral, kind);
}

}  // namespace reference
