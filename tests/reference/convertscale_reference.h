/* gst-opencl tests: the CPU reference of openclconvertscale, in double precision.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gst/video/video.h>

#include <string>

namespace convertscale_reference {

enum class Method { Nearest = 0, Bilinear = 1, Lanczos = 4, Cubic = 8 };

/* The element's nick of `method` (its `method` property). */
const char *method_nick (Method method);

/* The part of an input frame that is the picture (a crop), in pixels. */
struct Crop
{
  int x, y, w, h;
};

/* Converts and scales the mapped frame `in` into the mapped frame `out` (any of the element's
 * formats, any strides) as docs/openclconvertscale.md says: components read generically from
 * the formats' descriptions (plane, offset, pixel stride, shift, depth, subsampling), sampled
 * at exact rational positions, each pixel taken through normalised values and R'G'B' to the
 * output's, rounded half up and saturated. With `crop` only that rectangle of the input is
 * the picture (scaled into the output, its edges clamped). */
void convert (const GstVideoFrame * in, GstVideoFrame * out, Method method, bool add_borders,
    const Crop * crop = nullptr);

/* The full-range 8-bit R, G, B values (0 .. 255 scale, unrounded, unsaturated) at output pixel
 * (x, y) of an output of `out`'s size and pixel aspect ratio, as the tensor outputs take them
 * before their mean and scale: the same positions and colour conversion as convert (); 0 in
 * the borders. */
void rgb_values (const GstVideoFrame * in, const GstVideoInfo * out, Method method,
    bool add_borders, int x, int y, double rgb[3], const Crop * crop = nullptr);

/* A component's code at (x, y) of its own grid (chroma grids are subsampled): the stored value
 * shifted down (P010's 10 bits). */
int component (const GstVideoFrame * frame, int c, int x, int y);

/* Stores `value` as that code. */
void set_component (GstVideoFrame * frame, int c, int x, int y, int value);

/* How an output differs from the reference. */
struct Difference
{
  int worst = 0;            /* the largest difference of a component's codes */
  double share_off = 0;     /* the share of the samples that differ at all */
  size_t samples = 0;
  std::string where;        /* the first sample that differs by `worst` */
};

/* The output frame `output` (of `out_info`) against convert () of the frame `input` (of
 * `in_info`, the same `method`, `add_borders` and `crop`) into a frame of `out_info`: component
 * by component over every sample of the output's grids. */
Difference compare (GstBuffer * input, const GstVideoInfo * in_info, GstBuffer * output,
    const GstVideoInfo * out_info, Method method, bool add_borders, const Crop * crop = nullptr);

}  // namespace convertscale_reference
