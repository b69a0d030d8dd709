/* gst-opencl: counts of the bytes moved between the host and the device, and of launches.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "opencl/gstopenclstats.h"

#include <atomic>

#include "opencl/gstopenclenv.h"

namespace {

std::atomic<guint64> to_device_bytes { 0 };
std::atomic<guint64> to_host_bytes { 0 };
std::atomic<guint64> launches { 0 };
std::atomic<guint64> launches_with_events { 0 };

bool
counting ()
{
  static const bool enabled = gst_opencl::env::flag (gst_opencl::env::Variable::CountTransfers);
  return enabled;
}

}  // namespace

namespace gst_opencl {

void
count_transfer (bool to_device, size_t bytes)
{
  if (counting ())
    (to_device ? to_device_bytes : to_host_bytes).fetch_add (bytes, std::memory_order_relaxed);
}

void
count_launch (bool with_event)
{
  if (!counting ())
    return;
  launches.fetch_add (1, std::memory_order_relaxed);
  if (with_event)
    launches_with_events.fetch_add (1, std::memory_order_relaxed);
}

}  // namespace gst_opencl

void
gst_opencl_transfer_totals (guint64 * to_device, guint64 * to_host)
{
  if (to_device)
    *to_device = to_device_bytes.load ();
  if (to_host)
    *to_host = to_host_bytes.load ();
}

void
gst_opencl_launch_totals (guint64 * total, guint64 * with_events)
{
  if (total)
    *total = launches.load ();
  if (with_events)
    *with_events = launches_with_events.load ();
}
