/* gst-opencl tests: CPU references for openclsort and the device sort.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "reference/sort_reference.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>

namespace reference {

namespace {

uint32_t
bits_of (float value)
{
  uint32_t bits;
  std::memcpy (&bits, &value, sizeof bits);
  return bits;
}

template <typename T, typename Less>
std::vector<T>
sort_each_row (std::vector<T> values, size_t length, bool descending, Less less)
{
  if (length == 0)
    return values;
  for (size_t start = 0; start + length <= values.size (); start += length) {
    auto first = values.begin () + start;
    if (descending)
      std::sort (first, first + length, [&less](const T & a, const T & b) { return less (b, a); });
    else
      std::sort (first, first + length, less);
  }
  return values;
}

}  // namespace

bool
float_less (float a, float b)
{
  const bool a_nan = std::isnan (a), b_nan = std::isnan (b);
  if (a_nan || b_nan) {
    if (!b_nan)
      return false;
    if (!a_nan)
      return true;
    return bits_of (a) < bits_of (b);
  }
  if (a != b)
    return a < b;
  return std::signbit (a) && !std::signbit (b);
}

std::vector<int32_t>
sort_rows (std::vector<int32_t> values, size_t length, bool descending)
{
  return sort_each_row (std::move (values), length, descending, std::less<int32_t> ());
}

std::vector<uint32_t>
sort_rows (std::vector<uint32_t> values, size_t length, bool descending)
{
  return sort_each_row (std::move (values), length, descending, std::less<uint32_t> ());
}

std::vector<float>
sort_rows (std::vector<float> values, size_t length, bool descending)
{
  return sort_each_row (std::move (values), length, descending, float_less);
}

int
pixel_key (const uint8_t * pixel, bool gray, bool bgr, PixelKey key, int sample_bytes)
{
  /* Sample c as an 8-bit value: a 16-bit value's top 8 bits. */
  auto sample = [&](int c) {
    if (sample_bytes == 1)
      return (int) pixel[c];
    const int value = pixel[2 * c] | pixel[2 * c + 1] << 8;
    return value / 256;
  };
  if (gray)
    return sample (0);
  const int red = sample (bgr ? 2 : 0), green = sample (1), blue = sample (bgr ? 0 : 2);
  switch (key) {
    case PixelKey::Luma:
      return (77 * red + 150 * green + 29 * blue + 128) >> 8;
    case PixelKey::Red:
      return red;
    case PixelKey::Green:
      return green;
    case PixelKey::Blue:
      return blue;
  }
  return 0;
}

testutil::Frame
sort_pixels (const testutil::Frame & in, bool gray, bool bgr, PixelKey key, bool columns,
    bool descending, int sample_bytes)
{
  testutil::Frame out (in.width, in.height, in.bytes_per_pixel);
  const int bpp = in.bytes_per_pixel;
  const int lines = columns ? in.width : in.height;
  const int length = columns ? in.height : in.width;
  std::vector<int> order ((size_t) length);
  for (int line = 0; line < lines; line++) {
    auto at = [&](int position) {
      return columns ? in.row (position) + (size_t) line * bpp :
          in.row (line) + (size_t) position * bpp;
    };
    for (int i = 0; i < length; i++)
      order[i] = i;
    std::stable_sort (order.begin (), order.end (), [&](int a, int b) {
          int ka = pixel_key (at (a), gray, bgr, key, sample_bytes);
          int kb = pixel_key (at (b), gray, bgr, key, sample_bytes);
          return descending ? ka > kb : ka < kb;
        });
    for (int position = 0; position < length; position++) {
      uint8_t *target = columns ? out.row (position) + (size_t) line * bpp :
          out.row (line) + (size_t) position * bpp;
      std::memcpy (target, at (order[position]), bpp);
    }
  }
  return out;
}

int
block_key (const int *luma_values, int count, int depth)
{
  int sum = 0;
  for (int i = 0; i < count; i++)
    sum += luma_values[i];
  /* Rounded mean, halves up, then the top 8 of `depth` bits. */
  const int mean = (int) std::floor ((double) sum / count + 0.5);
  return mean / (1 << (depth - 8));
}

namespace {

/* Component `comp` of the 4:2:0 frame at `base`, at (x, y) of the component's own grid. */
struct Components
{
  const GstVideoInfo & info;

  size_t place (int comp, int x, int y) const
  {
    const int plane = GST_VIDEO_INFO_COMP_PLANE (&info, comp);
    return info.offset[plane] + (size_t) y * info.stride[plane] +
        (size_t) x * GST_VIDEO_INFO_COMP_PSTRIDE (&info, comp) +
        GST_VIDEO_INFO_COMP_POFFSET (&info, comp);
  }
  int sample_bytes () const { return GST_VIDEO_INFO_COMP_DEPTH (&info, 0) > 8 ? 2 : 1; }
  /* The value of a sample: P010's 16-bit words without their 6 low bits. */
  int value (const uint8_t * frame, int comp, int x, int y) const
  {
    const uint8_t *p = frame + place (comp, x, y);
    const int word = sample_bytes () == 2 ? p[0] | p[1] << 8 : p[0];
    return word >> GST_VIDEO_FORMAT_INFO_SHIFT (info.finfo, comp);
  }
  void copy (const uint8_t * in, int in_x, int in_y, uint8_t * out, int out_x, int out_y,
      int comp) const
  {
    std::memcpy (out + place (comp, out_x, out_y), in + place (comp, in_x, in_y),
        sample_bytes ());
  }
};

}  // namespace

void
sort_blocks (const GstVideoInfo & info, const uint8_t * in, uint8_t * out, bool columns,
    bool descending)
{
  std::memcpy (out, in, info.size);
  const Components components { info };
  const int along_extent = columns ? GST_VIDEO_INFO_HEIGHT (&info) : GST_VIDEO_INFO_WIDTH (&info);
  const int across_extent = columns ? GST_VIDEO_INFO_WIDTH (&info) :
      GST_VIDEO_INFO_HEIGHT (&info);
  const int blocks = along_extent / 2;
  const int depth = GST_VIDEO_INFO_COMP_DEPTH (&info, 0);
  /* (x, y) of the sample `along`, `across` in frame coordinates. */
  auto xy = [columns](int along, int across) {
    return columns ? std::make_pair (across, along) : std::make_pair (along, across);
  };
  for (int line = 0; 2 * line < across_extent; line++) {
    const int rows = std::min (2, across_extent - 2 * line);
    std::vector<int> keys ((size_t) blocks), order ((size_t) blocks);
    for (int block = 0; block < blocks; block++) {
      int values[4], count = 0;
      for (int a = 0; a < 2; a++) {
        for (int c = 0; c < rows; c++) {
          auto [x, y] = xy (2 * block + a, 2 * line + c);
          values[count++] = components.value (in, 0, x, y);
        }
      }
      keys[block] = block_key (values, count, depth);
      order[block] = block;
    }
    std::stable_sort (order.begin (), order.end (), [&](int a, int b) {
          return descending ? keys[a] > keys[b] : keys[a] < keys[b];
        });
    for (int to = 0; to < blocks; to++) {
      const int from = order[to];
      for (int a = 0; a < 2; a++) {
        for (int c = 0; c < rows; c++) {
          auto [in_x, in_y] = xy (2 * from + a, 2 * line + c);
          auto [out_x, out_y] = xy (2 * to + a, 2 * line + c);
          components.copy (in, in_x, in_y, out, out_x, out_y, 0);
        }
      }
      auto [in_cx, in_cy] = xy (from, line);
      auto [out_cx, out_cy] = xy (to, line);
      for (int comp = 1; comp <= 2; comp++)
        components.copy (in, in_cx, in_cy, out, out_cx, out_cy, comp);
    }
  }
}

}  // namespace reference
