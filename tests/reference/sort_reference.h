/* gst-opencl tests: CPU references for openclsort and the device sort.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <cstdint>
#include <vector>

#include "common/testutil.h"

namespace reference {

/* Strict total order on float bit patterns, written without the device's word mapping:
 * numbers by value, -0.0 before +0.0, every NaN after +inf, NaNs among themselves by their bits
 * as unsigned integers. */
bool float_less (float a, float b);

/* Each of `rows` rows of `length` values sorted with std::sort and the type's order (float_less
 * for float), reversed comparator for descending. */
std::vector<int32_t> sort_rows (std::vector<int32_t> values, size_t length, bool descending);
std::vector<uint32_t> sort_rows (std::vector<uint32_t> values, size_t length, bool descending);
std::vector<float> sort_rows (std::vector<float> values, size_t length, bool descending);

enum class PixelKey { Luma, Red, Green, Blue };

/* The key of one pixel: luma is (77 R + 150 G + 29 B + 128) >> 8; GRAY8 is its value. */
int pixel_key (const uint8_t * pixel, bool gray, bool bgr, PixelKey key);

/* The pixel-sorted frame: every row (or column) reordered by key with std::stable_sort. */
testutil::Frame sort_pixels (const testutil::Frame & in, bool gray, bool bgr, PixelKey key,
    bool columns, bool descending);

}  // namespace reference
