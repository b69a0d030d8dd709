/* gst-opencl tests: helpers of the reliability suite (frames through a pipeline by appsrc and
 * appsink, resident memory, kernel overrides).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace reliability {

/* One input frame: `pad` bytes added to every row of every plane (padded rows, carried by a
 * GstVideoMeta). A pixel's bytes depend only on `seed` and its position, so the same frame with
 * and without padding holds the same picture; the padding holds other bytes. */
struct FrameSpec
{
  GstVideoFormat format = GST_VIDEO_FORMAT_RGBA;
  int width = 16;
  int height = 16;
  int pad = 0;
  uint32_t seed = 1;
  /* When not empty: the pixels, rows packed (as Output::pixels), instead of the seed's. */
  std::vector<uint8_t> pixels;
  /* Bytes cut off the end of the buffer (a truncated frame). */
  gsize truncate = 0;
};

/* A frame as it came out: its caps and its pixels, rows packed without padding. */
struct Output
{
  std::string caps;
  std::vector<uint8_t> pixels;
  /* Bytes cut off the end of the buffer (a truncated frame). */
  gsize truncate = 0;
};

GstBuffer *make_buffer (const FrameSpec & spec, GstClockTime pts);
GstCaps *make_caps (const FrameSpec & spec);

/* The pixels of a mapped frame, rows packed (padding dropped). */
std::vector<uint8_t> packed_pixels (GstBuffer * buffer, const GstVideoInfo * info);

/* Pushes the frames, in order (caps change where the spec does), through
 * "appsrc ! <segment> ! appsink" and returns what came out; *error gets the first bus error
 * ("" when none). `context` (may be null) is set on the pipeline before it starts. */
std::vector<Output> run_frames (const std::string & segment, const std::vector<FrameSpec> & frames,
    std::string * error, GstContext * context = nullptr);

/* Runs a source pipeline ("<source> ! capsfilter ! ... ! appsink") to EOS and returns its
 * frames. */
std::vector<Output> pull_all (const std::string & launch_line, std::string * error,
    GstContext * context = nullptr);

/* The end of a run through an appsink: hands `take` every sample `sink` gives (waiting up to
 * `timeout` for each), puts the first bus error of `pipeline` in *error ("" when none), fails
 * the test, naming `what`, when there was neither an error nor EOS, and sets the pipeline to
 * NULL. The caller keeps its references. */
void pull_until_done (GstElement * pipeline, GstElement * sink, GstClockTime timeout,
    const std::function<void (GstSample *)> & take, std::string * error,
    const std::string & what);

/* The first element made by `factory` in `pipeline`, searched recursively (a new reference);
 * fails the test when there is none. */
GstElement *first_of (GstElement * pipeline, const char *factory);

/* Resident set size of this process in bytes (/proc/self/statm). */
uint64_t resident_bytes ();

/* Resident memory sampled along a run (after its warm-up), judged by its steady growth: the
 * smaller of two fitted slopes. The median of the slopes between consecutive samples ignores a
 * one-off step (an allocator arena, a driver cache growing once while another test loads the
 * machine: it raises one interval); the least-squares slope ignores noise that goes up and
 * down (pages taken and given back), which can tilt the median. A leak raises both. */
class MemoryGrowth
{
public:
  /* One sample: `bytes` resident after `step` cycles or frames. */
  void add (double step, uint64_t bytes);
  void add_now (double step) { add (step, resident_bytes ()); }

  /* The median of consecutive slopes, in bytes per step; 0 with fewer than two samples. */
  double median_slope () const;
  /* The least-squares slope, in bytes per step; 0 with fewer than two samples. */
  double least_squares_slope () const;
  /* The smaller of the two, in bytes per step. */
  double steady_slope () const;
  /* Steady growth over the sampled span: steady_slope () times the span, in bytes. */
  double steady_growth_bytes () const;
  /* "first -> last MiB over N steps, median x KiB/step, least squares y KiB/step, N samples" */
  std::string describe () const;

private:
  std::vector<std::pair<double, uint64_t>> samples_;
};

/* A temporary GST_OPENCL_KERNEL_DIR holding <file>.cl for every file of the comma-separated
 * list; removed (and the variable unset) by the destructor. */
struct KernelOverride
{
  std::string dir;
  std::vector<std::string> paths;
  KernelOverride (const std::string & files, const std::string & source);
  ~KernelOverride ();
};

/* The application-side GstContext wrapping the OpenCL context that the first element made by
 * `factory_name` in `pipeline_line` uses once paused (the pipeline stays paused in *holder). */
GstContext *borrow_context (const std::string & pipeline_line, const char *factory_name,
    GstElement ** holder);

}  // namespace reliability
