/* gst-opencl benchmarks: the Mandelbox renderer of openclmandelboxsrc in C++ with OpenMP, the
 * CPU side of the comparison the article "GPU Computing with OpenCL" makes. It instantiates the
 * tests' reference renderer in single precision (the kernel's arithmetic) and spreads rows over
 * threads with a dynamic schedule: rows cost very different amounts (background rays stop early).
 * Built with -O3 -fopenmp (tests/bench/meson.build).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "mandelbox_openmp.h"

#include <omp.h>

namespace bench {

void
render_mandelbox_openmp (const reference::MandelboxView & view, int width, int height,
    uint8_t * rgba, int threads)
{
  const auto camera = reference::mandelbox::make_camera<float> (view);
#pragma omp parallel for schedule(dynamic) num_threads(threads)
  for (int y = 0; y < height; y++) {
    uint8_t *row = rgba + (size_t) y * width * 4;
    for (int x = 0; x < width; x++) {
      const auto pixel = reference::mandelbox::shade_pixel (view, camera, x, y, width, height);
      for (int c = 0; c < 4; c++)
        row[x * 4 + c] = pixel[c];
    }
  }
}

int
openmp_default_threads ()
{
  return omp_get_max_threads ();
}

}  // namespace bench
