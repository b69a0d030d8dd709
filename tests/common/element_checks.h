/* gst-opencl tests: checks of an element's output against its reference that more than one suite
 * makes (the element's own and the media suite), with the element's tolerances.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gst/gst.h>

#include <cstdint>
#include <string>
#include <vector>

#include "reference/histogram_reference.h"

namespace checks {

/* A guint64 field of a message's structure; fails the test when there is none. */
guint64 uint64_field (const GstStructure * s, const char *name);

/* One opencl-histogram message against expected counts (channel-major, as
 * reference::histogram gives them): its bins, frames, time fields, channel names and every
 * count, exactly. */
void check_histogram_message (GstMessage * message, reference::HistogramFormat format, int bins,
    guint frames, const std::vector<uint64_t> & expected, const std::string & label);

/* openclmulticonvolve's float32 responses (filter index fastest) against the reference: every
 * value within 1e-4 x (sum of |f| over the bank) x 255. */
void check_convolution_floats (GstBuffer * out, const std::vector<double> & expected,
    const std::vector<double> & filters, int n_filters, const std::string & label);

}  // namespace checks
