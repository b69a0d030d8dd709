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

/* The key of one pixel: luma is (77 R + 150 G + 29 B + 128) >> 8; gray is its value. With
 * `sample_bytes` 2 (GRAY16_LE, RGBA64_LE) every sample is a little-endian 16-bit value and
 * counts by its top 8 bits. */
int pixel_key (const uint8_t * pixel, bool gray, bool bgr, PixelKey key, int sample_bytes = 1);

/* The pixel-sorted frame: every row (or column) reordered by key with std::stable_sort. */
testutil::Frame sort_pixels (const testutil::Frame & in, bool gray, bool bgr, PixelKey key,
    bool columns, bool descending, int sample_bytes = 1);

/* The block-sorted 4:2:0 frame (NV12, I420, P010_10LE) as docs/openclsort.md defines it: `in`
 * and `out` are frames laid out as `info` says (planes at info.offset[], rows info.stride[]
 * apart, info.size bytes). `out` gets `in`, then the sorted blocks of every line: 2x2 blocks of
 * luma with their chroma pair along pairs of luma rows (columns with `columns`), a last single
 * row (column) of an odd height (width) a line of 2x1 (1x2) blocks; each line's whole blocks
 * reordered with std::stable_sort by the rounded mean of their luma values (P010: 10-bit values,
 * the mean's top 8 bits); the half block an odd width (height) leaves at the end stays. */
void sort_blocks (const GstVideoInfo & info, const uint8_t * in, uint8_t * out, bool columns,
    bool descending);

/* A block's key as above, from the luma values of its `count` samples (2 or 4). */
int block_key (const int *luma_values, int count, int depth);

}  // namespace reference
