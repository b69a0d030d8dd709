/* gst-opencl benchmarks: the Mandelbox renderer of openclmandelboxsrc in C++ with OpenMP.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <cstdint>

#include "reference/mandelbox_reference.h"

namespace bench {

/* Renders `view` into width x height RGBA pixels (tight rows, row 0 at the top) in single
 * precision, like the kernel, with rows spread dynamically over `threads` OpenMP threads. */
void render_mandelbox_openmp (const reference::MandelboxView & view, int width, int height,
    uint8_t * rgba, int threads);

/* The OpenMP runtime's thread count when none is asked for. */
int openmp_default_threads ();

}  // namespace bench
