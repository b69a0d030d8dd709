/* gst-opencl: abstract base class for video filters whose output frame n depends on input
 * frames n - d .. n + d (a window in time).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The last 2d + 1 input frames stay on the device in a ring of slots (frame i in slot
 * i mod (2d + 1)); each is uploaded once. Output n is made as soon as frame n + d has arrived,
 * keeps input n's timestamps, flags and metas (those the base's meta policy keeps: the frames
 * around it in time lend it only pixels), and sees the window clamped to the stream: frames
 * before the first are the first, and at EOS the last d outputs are made with the last frame
 * standing for the frames after it. A flush resets the window; a caps change first drains it.
 * The latency query reports d frame durations. */
#pragma once

#include <gst/video/video.h>

#include "opencl/gstopenclbasetransform.h"
#include "opencl/gstopenclframe.h"

G_BEGIN_DECLS

#define GST_TYPE_OPENCL_TEMPORAL_FILTER (gst_opencl_temporal_filter_get_type ())
G_DECLARE_DERIVABLE_TYPE (GstOpenCLTemporalFilter, gst_opencl_temporal_filter, GST,
    OPENCL_TEMPORAL_FILTER, GstOpenCLBaseTransform)

/* The window on the device: `slot_count` frames in one buffer, slot s starting at byte
 * s * slot_bytes (info.size), each laid out as `info` says: plane p of slot s at byte
 * s * slot_bytes + info.offset[p], rows info.stride[p] bytes apart. */
struct GstOpenCLFrameRing
{
  cl::Buffer buffer;
  GstVideoInfo info;
  gsize slot_bytes;
  guint slot_count;
};

/* The most frames a window may span. */
#define GST_OPENCL_TEMPORAL_MAX_WINDOW 15

struct _GstOpenCLTemporalFilterClass
{
  GstOpenCLBaseTransformClass parent_class;

  /* The half-width d of the window (0 .. 7); read when caps are set. Must not throw. */
  guint (*get_radius) (GstOpenCLTemporalFilter * filter);

  /* Caps are set and the ring is allocated: build kernels, size state. Must not throw (wrap
   * the body in GST_OPENCL_GUARD); return FALSE after posting an error. */
  gboolean (*set_info) (GstOpenCLTemporalFilter * filter, gst_opencl::ElementDevice & device,
      const GstVideoInfo * info, const GstOpenCLFrameRing * ring);

  /* Optional: frame upload into `slot` is enqueued; enqueue per-frame work (e.g. the spatial
   * passes of a separable filter) through device.launch (). Must not block or throw. */
  gboolean (*frame_uploaded) (GstOpenCLTemporalFilter * filter,
      gst_opencl::ElementDevice & device, const GstOpenCLFrameRing * ring, guint slot);

  /* Enqueue the kernels that write output frame n into `out` (plane p at out->info.offset[p],
   * rows out->info.stride[p] bytes apart): slots[l], l = 0 .. 2d, is the ring slot of input frame
   * n - d + l (already clamped to the stream). Must not block or throw. */
  gboolean (*process) (GstOpenCLTemporalFilter * filter, gst_opencl::ElementDevice & device,
      const GstOpenCLFrameRing * ring, const guint * slots, const GstOpenCLFrame * out);
};

/* Pad templates as gst_opencl_filter_class_add_pad_templates () makes them: the formats
 * (single- or multi-plane) in system and OpenCL memory, and RGBA in GL memory when `gl_rgba`. */
void gst_opencl_temporal_filter_class_add_pad_templates (GstOpenCLTemporalFilterClass * klass,
    const gchar * formats, gboolean gl_rgba);

G_END_DECLS
