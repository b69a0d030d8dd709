/* gst-opencl tests: CPU reference of openclmandelboxsrc's picture, in double precision.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "reference/mandelbox_reference.h"

namespace reference {

void
render_mandelbox (const MandelboxView & view, int width, int height, uint8_t * pixels,
    size_t stride, bool bgr, bool opaque_padding)
{
  const auto camera = mandelbox::make_camera<double> (view);
  for (int y = 0; y < height; y++) {
    uint8_t *row = pixels + (size_t) y * stride;
    for (int x = 0; x < width; x++) {
      auto rgba = mandelbox::shade_pixel (view, camera, x, y, width, height);
      uint8_t *pixel = row + (size_t) x * 4;
      pixel[0] = bgr ? rgba[2] : rgba[0];
      pixel[1] = rgba[1];
      pixel[2] = bgr ? rgba[0] : rgba[2];
      pixel[3] = opaque_padding ? 255 : rgba[3];
    }
  }
}

}  // namespace reference
