/* gst-opencl: what every sort of device keys shares: the key types, the orders and how a sort
 * launches its kernels. The bitonic network (gstopencldevicesort.h) and the radix sorts
 * (gstopenclradixsort.h) both take them; gstopencldevicesort.h says what each order means.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <functional>

#include "opencl/gstopenclbindings.h"

namespace gst_opencl {

enum class SortKey { Int32 = 0, UInt32 = 1, Float32 = 2 };
enum class SortOrder { Ascending = 0, Descending = 1 };

/* Enqueues one kernel of a sort; elements pass ElementDevice::launch so kernel-time counts the
 * sort. */
using SortLauncher = std::function<void (const cl::Kernel & kernel, const cl::NDRange & global,
    const cl::NDRange & local)>;

}  // namespace gst_opencl
