/* gst-opencl: openclbilateral's kernel variants: the table the tuner chooses from, what a
 * variant becomes for a radius on a device (work-group, tile, build options) and the order
 * candidates are tried in.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "opencl/gstopenclcontext.h"

namespace gst_opencl_bilateral {

/* The kernel variants the tuner chooses from (gst_opencl::choose_variant, family "bilateral",
 * forced with GST_OPENCL_VARIANT_BILATERAL=<name>): kernels/bilateral_vec.cl with `vec` outputs
 * per work-item in explicit vectors (CPU devices), or the local-memory tiled kernel of
 * kernels/bilateral.cl with a work-group of group_w x group_h work-items, each computing
 * out_x x out_y adjacent outputs (GPUs). The tiled kernel keeps bytes or floats in local memory
 * (float_tile); `columns` and `rows` are its PRESCALED form for radii up to 8 (fewer
 * instructions per tap, out_y outputs down one column per work-item, every loop unrolled or all
 * but the one over tile rows); `-ptx` ones take exp2 as NVIDIA's bare hardware approximation
 * and are offered on NVIDIA's driver only. */
struct Variant
{
  const char *name;
  bool vector;
  size_t vec, group_w, group_h, out_x, out_y;
  bool float_tile;  /* tiled kernel: pixels converted to float in local memory */
  bool ptx_exp2;    /* PTX_EXP2: NVIDIA's driver only */
  int columns;      /* COLUMNS: 0, or 1 / 2 for the PRESCALED kernel (float tile, out_x 1,
                     * radius up to 8) */
};

extern const Variant VARIANTS[];
extern const size_t N_VARIANTS;
/* The GPU default: the float tile (converting bytes at every tap bound the byte-tile kernel). */
constexpr size_t FLOAT_TILE_DEFAULT = 6;
constexpr size_t BYTE_TILE_DEFAULT = 2;

/* The pixels a kernel works on: 1, 2 (a chroma pair) or 4 channels of 8- or 16-bit samples,
 * the values `shift` bits up in each sample (6 for P010); a planar pair (I420's U and V) has its
 * second channel in a plane of its own. */
struct PixelLayout
{
  int channels = 4;
  int sample_bits = 8;
  int shift = 0;
  bool planar = false;
  bool operator== (const PixelLayout & o) const
  {
    return channels == o.channels && sample_bits == o.sample_bits && shift == o.shift &&
        planar == o.planar;
  }
};

/* What a variant becomes for one radius on one device. */
struct Shape
{
  size_t group_w = 16, group_h = 16, out_x = 2, out_y = 1;
  bool tile_float = false;
  int columns = 0;  /* non-zero: the PRESCALED kernel */
};

/* The work-group shape of a variant for a radius: the vector kernel needs no local memory; the
 * tiled kernel takes the variant's group, made shorter until its tile fits local memory. A
 * float tile needs tiles of at least 8 output rows to pay off: where none fits, the variant
 * falls back to a byte tile with one output row per work-item (the kernel without PRESCALED).
 * Throws Failure (Settings) when no tile fits. */
Shape choose_group (const gst_opencl::Device & device, const Variant & variant,
    const PixelLayout & pixels, int radius);

/* The build options of a variant's kernel in `shape` (kernels/bilateral.cl or
 * kernels/bilateral_vec.cl). */
std::string build_options (const gst_opencl::Device & device, const Variant & variant,
    const Shape & shape, const PixelLayout & pixels, int mode, int radius);

/* The work-items for a frame: one per block of out_x x out_y outputs, whole work-groups. */
cl::NDRange global_size (const Shape & shape, int width, int height);

/* Indices into VARIANTS in the device's order of preference for a radius: the kind that suits
 * the device (vector kernels on CPUs, tiles on GPUs) first, its default first of all on a GPU;
 * PTX variants only on NVIDIA's driver, PRESCALED ones only for small radii. */
std::vector<size_t> candidate_order (const gst_opencl::Device & device,
    const PixelLayout & pixels, int radius);

}  // namespace gst_opencl_bilateral
