/* gst-opencl: openclbilateral's kernel variants.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "elements/gstopenclbilateralvariants.h"

#include <algorithm>

#include <glib.h>

#include "opencl/gstopenclutils.h"

namespace gst_opencl_bilateral {

namespace {

/* The PRESCALED kernel unrolls its loops over a tile row: radii up to this one. */
constexpr int MAX_COLUMNS_RADIUS = 8;

}  // namespace

const Variant VARIANTS[] = {
  { "vec16", true, 16, 8, 1, 16, 1, false, false, 0 },
  { "vec8", true, 8, 8, 1, 8, 1, false, false, 0 },
  { "tiled-16x16x2", false, 0, 16, 16, 2, 1, false, false, 0 },
  { "tiled-32x8x1", false, 0, 32, 8, 1, 1, false, false, 0 },
  { "tiled-16x8x4", false, 0, 16, 8, 4, 1, false, false, 0 },
  { "tiled-32x4x2", false, 0, 32, 4, 2, 1, false, false, 0 },
  { "tiled-float-16x16x2", false, 0, 16, 16, 2, 1, true, false, 0 },
  { "tiled-float-32x8x2", false, 0, 32, 8, 2, 1, true, false, 0 },
  { "tiled-float-16x8x4", false, 0, 16, 8, 4, 1, true, false, 0 },
  { "tiled-float-32x8x2-ptx", false, 0, 32, 8, 2, 1, true, true, 0 },
  { "tiled-float-16x16x2-ptx", false, 0, 16, 16, 2, 1, true, true, 0 },
  { "columns-32x8-1x2", false, 0, 32, 8, 1, 2, true, false, 1 },
  { "columns-32x8-1x3", false, 0, 32, 8, 1, 3, true, false, 1 },
  { "columns-32x8-1x2-ptx", false, 0, 32, 8, 1, 2, true, true, 1 },
  { "columns-32x8-1x3-ptx", false, 0, 32, 8, 1, 3, true, true, 1 },
  { "columns-64x4-1x2-ptx", false, 0, 64, 4, 1, 2, true, true, 1 },
  { "columns-32x4-1x4-ptx", false, 0, 32, 4, 1, 4, true, true, 1 },
  { "rows-32x4-1x4", false, 0, 32, 4, 1, 4, true, false, 2 },
  { "rows-32x4-1x4-ptx", false, 0, 32, 4, 1, 4, true, true, 2 },
  { "rows-32x8-1x2-ptx", false, 0, 32, 8, 1, 2, true, true, 2 },
};
const size_t N_VARIANTS = sizeof (VARIANTS) / sizeof (VARIANTS[0]);

/* The work-group shape of a variant for these pixels and radius whose local-memory tile fits
 * the device, or false. A tiled variant keeps its float tile while one of its heights fits,
 * then tries a tile of the samples themselves, then narrower groups (not for the column
 * kernels, whose loops are unrolled for their width): 16-bit RGBA at radius 32 needs that on a
 * GPU with 48 KiB of local memory. */
static bool
find_group (const gst_opencl::Device & device, const Variant & variant,
    const PixelLayout & pixels, int radius, Shape * shape)
{
  shape->group_w = variant.group_w;
  shape->out_x = variant.out_x;
  if (variant.vector) {
    shape->group_h = variant.group_h;
    return true;
  }
  const size_t narrowest = variant.columns != 0 ? variant.group_w : 4;
  for (size_t group_w = variant.group_w; group_w >= narrowest; group_w /= 2) {
    for (bool use_float : { true, false }) {
      if (use_float && !variant.float_tile)
        continue;
      const size_t out_y = use_float ? variant.out_y : 1;
      const size_t pixel_bytes = pixels.channels *
          (use_float ? sizeof (float) : (size_t) pixels.sample_bits / 8);
      for (size_t h = variant.group_h; h * out_y >= (use_float ? 8 : 1); h /= 2) {
        const size_t tile_bytes = (group_w * variant.out_x + 2 * radius) *
            (h * out_y + 2 * radius) * pixel_bytes;
        if (tile_bytes + 1024 <= device.local_mem_bytes &&
            group_w * h <= device.max_work_group_size) {
          shape->group_w = group_w;
          shape->group_h = h;
          shape->out_y = out_y;
          shape->tile_float = use_float;
          shape->columns = use_float ? variant.columns : 0;
          return true;
        }
        if (h == 1)
          break;
      }
    }
  }
  return false;
}

Shape
choose_group (const gst_opencl::Device & device, const Variant & variant,
    const PixelLayout & pixels, int radius)
{
  Shape shape;
  if (!find_group (device, variant, pixels, radius, &shape))
    throw gst_opencl::Failure (gst_opencl::Failure::Kind::Settings,
        std::string ("variant ") + variant.name + " at radius " + std::to_string (radius) +
        " needs more local memory than " + device.name + " has");
  return shape;
}

std::string
build_options (const gst_opencl::Device & device, const Variant & variant, const Shape & shape,
    const PixelLayout & pixels, int mode, int radius)
{
  gchar *options;
  const int channels = pixels.channels;
  if (variant.vector) {
    options = g_strdup_printf ("-cl-mad-enable -DCHANNELS=%d -DSAMPLE_BITS=%d -DSAMPLE_SHIFT=%d "
        "-DPLANAR=%d -DMODE=%d -DRADIUS=%d -DVEC=%zu", channels, pixels.sample_bits,
        pixels.shift, pixels.planar ? 1 : 0, mode, radius, variant.vec);
  } else {
    const bool poly_exp2 = (device.type & CL_DEVICE_TYPE_CPU) != 0;
    /* GPUs: exp2 without the denormal handling around the hardware approximation (weights
     * below 2^-126 count as 0 beside the centre's weight of 1). */
    options = g_strdup_printf ("%s-cl-mad-enable -DCHANNELS=%d -DSAMPLE_BITS=%d "
        "-DSAMPLE_SHIFT=%d -DPLANAR=%d -DMODE=%d -DRADIUS=%d "
        "-DGROUP_W=%zu -DGROUP_H=%zu -DOUT_X=%zu -DOUT_Y=%zu -DPOLY_EXP2=%d -DTILE_FLOAT=%d "
        "-DPRESCALED=%d -DPTX_EXP2=%d -DCOLUMNS=%d",
        poly_exp2 ? "" : "-cl-denorms-are-zero ",
        channels, pixels.sample_bits, pixels.shift, pixels.planar ? 1 : 0, mode, radius, shape.group_w, shape.group_h, shape.out_x,
        shape.out_y, poly_exp2 ? 1 : 0, shape.tile_float ? 1 : 0, shape.columns != 0 ? 1 : 0,
        variant.ptx_exp2 ? 1 : 0, shape.columns);
  }
  std::string result (options);
  g_free (options);
  return result;
}

cl::NDRange
global_size (const Shape & shape, int width, int height)
{
  const size_t columns = (width + shape.out_x - 1) / shape.out_x;
  const size_t rows = (height + shape.out_y - 1) / shape.out_y;
  return cl::NDRange ((columns + shape.group_w - 1) / shape.group_w * shape.group_w,
      (rows + shape.group_h - 1) / shape.group_h * shape.group_h);
}

std::vector<size_t>
candidate_order (const gst_opencl::Device & device, const PixelLayout & pixels, int radius)
{
  const bool cpu = (device.type & CL_DEVICE_TYPE_CPU) != 0;
/* Candidates in the device's order of preference; only the kind that suits the device is
 * timed, the others can still be forced. */
std::vector<size_t> order;
if (!cpu)
  order.push_back (FLOAT_TILE_DEFAULT);
for (size_t i = 0; i < N_VARIANTS; i++)
  if (VARIANTS[i].vector == cpu && i != FLOAT_TILE_DEFAULT)
    order.push_back (i);
for (size_t i = 0; i < N_VARIANTS; i++)
  if (VARIANTS[i].vector != cpu)
    order.push_back (i);
/* Inline PTX builds on NVIDIA's driver alone. */
const bool nvidia = device.cl_device.getInfo<CL_DEVICE_VENDOR> ().find ("NVIDIA") !=
    std::string::npos;
order.erase (std::remove_if (order.begin (), order.end (), [&](size_t i) {
          return (VARIANTS[i].ptx_exp2 && !nvidia) ||
              (VARIANTS[i].columns != 0 && radius > MAX_COLUMNS_RADIUS);
        }), order.end ());
  /* Variants whose tile does not fit the device go last: the default (the first) is then one
   * that runs, and a forced one still names its variant in the error. The vector kernels use
   * no local memory and always fit. */
  Shape unused;
  std::stable_partition (order.begin (), order.end (), [&](size_t i) {
        return find_group (device, VARIANTS[i], pixels, radius, &unused);
      });
  return order;
}

}  // namespace gst_opencl_bilateral
