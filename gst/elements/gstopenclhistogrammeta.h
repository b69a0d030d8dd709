/* gst-opencl: openclhistogram's counts as a GstTensorMeta (GStreamer analytics, 1.26 and later).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gst/gst.h>

#include <cstdint>
#include <vector>

namespace gst_opencl_histogram {

/* Whether this build attaches tensor metas: built against gstreamer-analytics-1.0 >= 1.26. On
 * older GStreamer (1.22: no analytics library; 1.24: one without GstTensorMeta, then private to
 * the onnx plugin) nothing is attached. */
#ifdef HAVE_GST_ANALYTICS
constexpr bool TENSOR_META_AVAILABLE = true;
#else
constexpr bool TENSOR_META_AVAILABLE = false;
#endif

/* The tensor's id, as a quark: what gst_tensor_meta_get_index_from_id () looks for. */
constexpr const char *TENSOR_META_ID = "opencl-histogram";

/* Attaches one frame's counts to `buffer` (which must be writable) as a GstTensorMeta holding
 * one tensor: uint32, dims [channels, bins] in row-major order (bins fastest), the channels in
 * the order of the `opencl-histogram` message; `counts` holds at least channels x bins values.
 * A tensor meta the buffer already has (from an element upstream) gets the histogram added to
 * its tensors. Does nothing when TENSOR_META_AVAILABLE is false. Returns whether it attached. */
bool attach_tensor_meta (GstBuffer * buffer, guint channels, guint bins,
    const std::vector<uint32_t> & counts);

}  // namespace gst_opencl_histogram
