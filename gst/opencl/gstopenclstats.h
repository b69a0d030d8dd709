/* gst-opencl: counts of the bytes the plugin moves between the host and the device, and of the
 * elements' kernel launches, for benchmarks and tests. Off unless GST_OPENCL_COUNT_TRANSFERS=1
 * (then one atomic add per transfer or launch).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>

#include <cstddef>

namespace gst_opencl {

/* Adds `bytes` to the host-to-device (to_device) or device-to-host total, when counting is on. */
void count_transfer (bool to_device, size_t bytes);

/* Counts one launch of an element's kernel (ElementDevice::launch), with a profiling event or
 * without, when counting is on. */
void count_launch (bool with_event);

}  // namespace gst_opencl

/* The totals since the process started (both 0 when counting is off). Exported from the plugin
 * so that a program that loaded it can look it up with g_module_symbol (tests/bench does). */
extern "C" __attribute__ ((visibility ("default")))
void gst_opencl_transfer_totals (guint64 * to_device, guint64 * to_host);

/* The elements' kernel launches since the process started, and how many of them had a
 * profiling event (both 0 when counting is off). Exported as gst_opencl_transfer_totals is. */
extern "C" __attribute__ ((visibility ("default")))
void gst_opencl_launch_totals (guint64 * total, guint64 * with_events);
