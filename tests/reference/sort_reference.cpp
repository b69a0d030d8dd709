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
pixel_key (const uint8_t * pixel, bool gray, bool bgr, PixelKey key)
{
  if (gray)
    return pixel[0];
  const int red = pixel[bgr ? 2 : 0], green = pixel[1], blue = pixel[bgr ? 0 : 2];
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
    bool descending)
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
          int ka = pixel_key (at (a), gray, bgr, key), kb = pixel_key (at (b), gray, bgr, key);
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

}  // namespace reference
