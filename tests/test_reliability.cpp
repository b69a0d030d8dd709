/* gst-opencl tests: every element survives state changes, caps changes, odd and too-large
 * frames, bad property values, property changes from another thread, broken kernels, parallel
 * pipelines and long runs. The tests run over a table of elements: a new element is one row
 * (the element-list test fails for an element of the plugin without one).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include <gst/base/gstbasesrc.h>
#include <gst/base/gstbasetransform.h>
#include <gst/check/gstcheck.h>
#include <glib/gstdio.h>

#include <atomic>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>

#include "common/suite.h"
#include "common/reliability.h"
#include "common/testutil.h"

using reliability::FrameSpec;
using reliability::first_of;
using reliability::Output;

namespace {

/* Under AddressSanitizer freed memory sits in a quarantine (256 MiB by default) before it is
 * reused, so resident memory grows without a leak: there LeakSanitizer checks for leaks at
 * exit and the RSS bounds are only printed. */
#if defined(__SANITIZE_ADDRESS__)
constexpr bool RSS_IS_MEANINGFUL = false;
#else
constexpr bool RSS_IS_MEANINGFUL = true;
#endif

enum class Kind { Filter, Source };

/* Values a hammering thread sets a property to (converted to the property's type). */
struct Hammer
{
  const char *property;
  std::vector<double> values;
};

struct Row
{
  const char *name;
  Kind kind;
  /* Launch fragment: the element(s) with cheap settings (few kernel variants). */
  const char *segment;
  /* The element whose properties are tested (the first of the segment). */
  const char *factory;
  /* Formats it takes (first = the one most tests use). */
  std::vector<GstVideoFormat> formats;
  /* kernels/<file>.cl the element builds (a comma-separated list when the device decides
   * which), or nullptr. */
  const char *kernel_file;
  std::vector<Hammer> hammer;
  /* An array-of-floats property and the length the segment's settings need ("" when none),
   * and the element's file property for the same values ("" when none). */
  std::string array_property = "";
  size_t array_length = 0;
  std::string file_property = "";
  /* The element's largest allocation for a frame of formats[0], in frame sizes (a
   * convolution's float copies are larger than the frame). */
  gsize alloc_factor = 1;
};

const std::vector<Row> &
rows ()
{
  static const std::vector<Row> table = {
    { "bilateral", Kind::Filter, "openclbilateral sigma-spatial=0.5", "openclbilateral",
      { GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_GRAY8 }, "bilateral,bilateral_vec",
      { { "sigma-range", { 1, 10, 50, 500 } }, { "sigma-spatial", { 0.2, 0.4, 0.5 } },
        { "mode", { 0, 1 } } } },
    { "histogram", Kind::Filter, "openclhistogram draw=true bins=64", "openclhistogram",
      { GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_NV12,
        GST_VIDEO_FORMAT_GRAY8 }, "histogram",
      { { "bins", { 64, 256 } }, { "interval", { 0, 1e8 } }, { "post-messages", { 0, 1 } },
        { "draw", { 0, 1 } } } },
    { "sort", Kind::Filter, "openclsort", "openclsort",
      { GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_FORMAT_NV12,
        GST_VIDEO_FORMAT_P010_10LE, GST_VIDEO_FORMAT_RGBA64_LE }, "pixelsort",
      { { "order", { 0, 1 } }, { "direction", { 0, 1 } }, { "key", { 0, 1, 2, 3 } } } },
    { "upload-download", Kind::Filter, "openclupload ! opencldownload", "openclupload",
      { GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_NV12,
        GST_VIDEO_FORMAT_GRAY8 }, nullptr, {} },
    { "kernel", Kind::Filter, "openclkernel parameters=\"p,amount=0.75\" source=\"__kernel "
      "void gain (__read_only image2d_t in, __write_only image2d_t out, float amount) { int2 p = "
      "(int2) (get_global_id (0), get_global_id (1)); float4 c = read_imagef (in, p); "
      "write_imagef (out, p, (float4) (c.xyz * amount, c.w)); }\"", "openclkernel",
      { GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_GRAY8 }, nullptr,
      { { "timeout", { 0, 60000 } }, { "checked", { 0, 1 } } } },
    { "convolve3d", Kind::Filter, "openclconvolve3d kernel-depth=3 sigma-t=1",
      "openclconvolve3d", { GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_GRAY8 }, "convolve",
      { { "sigma-xy", { 0.5, 1 } }, { "sigma-t", { 0.5, 1 } }, { "normalize", { 0, 1 } } },
      "kernel", 0, "", 12 /* 3 float RGBA frames */ },
    { "multiconvolve", Kind::Filter, "openclmulticonvolve num-kernels=1 kernel-size=3 "
      "kernels=\"<0,-1,0,-1,5,-1,0,-1,0>\"", "openclmulticonvolve", { GST_VIDEO_FORMAT_GRAY8 },
      "convolve", { { "scale", { 0.5, 1, 2 } }, { "offset", { 0, 10 } } }, "kernels", 9,
      "kernels-file", 4 /* one float response per pixel */ },
    /* Converted into RGBx (never passed through), then a second one, which passes RGBx
     * through, ends the fragment (the tests append settings to its last element). The last
     * filter row: nothing in the chain after it takes RGBx. RGBx again is the same frame, so
     * two in a row equal one. */
    { "convertscale", Kind::Filter, "openclconvertscale ! capsfilter caps=video/x-raw,"
      "format=RGBx ! openclconvertscale",
      "openclconvertscale", { GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_NV12,
        GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_FORMAT_P010_10LE }, "convertscale",
      { { "method", { 0, 1, 8 } }, { "add-borders", { 0, 1 } } } },
    { "mandelboxsrc", Kind::Source, "openclmandelboxsrc animate=false iterations=6 steps=24",
      "openclmandelboxsrc", { GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_BGRx }, "mandelbox",
      { { "yaw", { -30, 0, 45 } }, { "pitch", { -10, 20 } }, { "distance", { 10, 15 } },
        { "fov", { 30, 53 } }, { "animate", { 0, 1 } }, { "light-x", { -5, 5 } } } },
    /* A still picture (no `time` or `frame`): test_source_caps_change compares frames. */
    { "kernelsrc", Kind::Source, "openclkernelsrc source=\"__kernel void ramp (__write_only "
      "image2d_t out, int width, int height) { int2 p = (int2) (get_global_id (0), "
      "get_global_id (1)); write_imagef (out, p, (float4) ((float) p.x / width, (float) p.y / "
      "height, 0.5f, 1.0f)); }\"", "openclkernelsrc",
      { GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_BGRx }, nullptr,
      { { "timeout", { 0, 60000 } }, { "checked", { 0, 1 } } } },
  };
  return table;
}

std::string
caps_text (GstVideoFormat format, int width, int height)
{
  return std::string ("video/x-raw,format=") + gst_video_format_to_string (format) +
      ",width=" + std::to_string (width) + ",height=" + std::to_string (height) +
      ",framerate=30/1";
}

/* A runnable line for the row: a test source feeds filters; sources get a caps filter. */
std::string
row_line (const Row & row, int buffers, GstVideoFormat format, int width, int height,
    bool live = false, const std::string & extra = "")
{
  std::string count = buffers >= 0 ? " num-buffers=" + std::to_string (buffers) : "";
  std::string live_text = live ? " is-live=true" : "";
  if (row.kind == Kind::Source)
    return std::string (row.segment) + count + live_text + " " + extra + " ! " +
        caps_text (format, width, height);
  return "videotestsrc pattern=ball" + count + live_text + " ! " +
      caps_text (format, width, height) + " ! " + row.segment + " " + extra;
}

bool
contains (const std::string & text, const std::string & part)
{
  return text.find (part) != std::string::npos;
}

/* Counts the buffers that pass `pad` into *count (which must outlive the pad's probes). */
void
count_buffers (GstPad * pad, std::atomic<int> *count)
{
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, [](GstPad *, GstPadProbeInfo *,
          gpointer data) -> GstPadProbeReturn {
        (*static_cast<std::atomic<int> *> (data))++;
        return GST_PAD_PROBE_OK;
      }, count, nullptr);
}

std::vector<FrameSpec>
frames_of (GstVideoFormat format, int width, int height, int count, uint32_t seed, int pad = 0)
{
  std::vector<FrameSpec> frames;
  for (int i = 0; i < count; i++) {
    FrameSpec spec;
    spec.format = format;
    spec.width = width;
    spec.height = height;
    spec.pad = pad;
    spec.seed = seed + i;
    frames.push_back (spec);
  }
  return frames;
}

void
expect_same (const std::vector<Output> & got, const std::vector<Output> & expected,
    const std::string & what)
{
  fail_unless_equals_int ((int) got.size (), (int) expected.size ());
  for (size_t i = 0; i < got.size (); i++) {
    fail_unless (got[i].caps == expected[i].caps, "%s, frame %zu: caps %s, expected %s",
        what.c_str (), i, got[i].caps.c_str (), expected[i].caps.c_str ());
    fail_unless (got[i].pixels == expected[i].pixels, "%s, frame %zu (%s): pixels differ",
        what.c_str (), i, got[i].caps.c_str ());
  }
}

/* `value` saturated to [lo, hi] (a plain cast of an out-of-range double is undefined). */
template <typename T>
T
saturate (double value)
{
  if (std::isnan (value))
    return 0;
  if (value <= (double) std::numeric_limits<T>::lowest ())
    return std::numeric_limits<T>::lowest ();
  if (value >= (double) std::numeric_limits<T>::max ())
    return std::numeric_limits<T>::max ();
  return (T) value;
}

/* Sets a property from a double, converted (saturated) to its type. */
void
set_from_double (GObject * object, GParamSpec * pspec, double value)
{
  GValue v = G_VALUE_INIT;
  g_value_init (&v, pspec->value_type);
  if (G_IS_PARAM_SPEC_DOUBLE (pspec))
    g_value_set_double (&v, value);
  else if (G_IS_PARAM_SPEC_FLOAT (pspec))
    g_value_set_float (&v, (float) value);
  else if (G_IS_PARAM_SPEC_INT (pspec))
    g_value_set_int (&v, saturate<gint> (value));
  else if (G_IS_PARAM_SPEC_UINT (pspec))
    g_value_set_uint (&v, saturate<guint> (value));
  else if (G_IS_PARAM_SPEC_UINT64 (pspec))
    g_value_set_uint64 (&v, saturate<guint64> (value));
  else if (G_IS_PARAM_SPEC_INT64 (pspec))
    g_value_set_int64 (&v, saturate<gint64> (value));
  else if (G_IS_PARAM_SPEC_BOOLEAN (pspec))
    g_value_set_boolean (&v, value != 0);
  else if (G_IS_PARAM_SPEC_ENUM (pspec))
    g_value_set_enum (&v, saturate<gint> (value));
  else
    fail ("%s: unexpected type", pspec->name);
  g_object_set_property (object, pspec->name, &v);
  g_value_unset (&v);
}

/* Whether the row is in the chain of all video elements: every filter row and the first source
 * row. */
bool
in_chain (const Row & row)
{
  for (const auto & other : rows ())
    if (other.kind == Kind::Source)
      return row.kind == Kind::Filter || &other == &row;
  return row.kind == Kind::Filter;
}

/* The row chain of all video elements: the first source row, then every filter row (a
 * videoconvert in front of a row that does not take the format so far). */
std::string
chain_line (int buffers, int width, int height)
{
  std::string source, filters;
  GstVideoFormat format = GST_VIDEO_FORMAT_RGBA;
  for (const auto & row : rows ()) {
    if (row.kind == Kind::Source && source.empty ()) {
      source = row_line (row, buffers, GST_VIDEO_FORMAT_RGBA, width, height);
    } else if (row.kind == Kind::Filter) {
      bool takes = false;
      for (GstVideoFormat f : row.formats)
        takes = takes || f == format;
      if (!takes) {
        format = row.formats[0];
        filters += std::string (" ! videoconvert ! video/x-raw,format=") +
            gst_video_format_to_string (format);
      }
      filters += std::string (" ! ") + row.segment;
    }
  }
  return source + filters;
}

}  // namespace

/* NULL -> PLAYING -> NULL, 200 times per element, on one pipeline; memory does not grow. */
GST_START_TEST (test_state_cycles)
{
  constexpr int CYCLES = 200;
  for (const auto & row : rows ()) {
    std::string line = row_line (row, -1, row.formats[0], 16, 8) +
        " ! fakesink name=sink sync=false";
    GstElement *pipeline = gst_parse_launch (line.c_str (), nullptr);
    fail_unless (pipeline != nullptr, "%s", line.c_str ());
    GstBus *bus = gst_element_get_bus (pipeline);
    GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
    GstPad *pad = gst_element_get_static_pad (sink, "sink");
    std::atomic<int> frames { 0 };
    count_buffers (pad, &frames);
    reliability::MemoryGrowth growth;
    gint64 start = g_get_monotonic_time ();
    for (int cycle = 0; cycle < CYCLES; cycle++) {
      fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
          GST_STATE_CHANGE_FAILURE, "%s: cycle %d", row.name, cycle);
      fail_unless (gst_element_get_state (pipeline, nullptr, nullptr, 60 * GST_SECOND) ==
          GST_STATE_CHANGE_SUCCESS, "%s: cycle %d: %s", row.name, cycle,
          testutil::first_error (bus).c_str ());
      fail_unless (gst_element_set_state (pipeline, GST_STATE_NULL) ==
          GST_STATE_CHANGE_SUCCESS);
      std::string error = testutil::first_error (bus);
      fail_unless (error.empty (), "%s: cycle %d: %s", row.name, cycle, error.c_str ());
      /* After 20 cycles of warm-up, every 10th. */
      if (cycle >= 19 && (cycle + 1) % 10 == 0)
        growth.add_now (cycle + 1);
    }
    double seconds = (g_get_monotonic_time () - start) / 1e6;
    g_print ("state cycles %s: %d cycles (%d frames) in %.1f s; RSS %s\n", row.name, CYCLES,
        frames.load (), seconds, growth.describe ().c_str ());
    /* Every cycle prerolled: a frame went through the element each time. */
    fail_unless (frames.load () >= CYCLES, "%s: %d frames in %d cycles", row.name,
        frames.load (), CYCLES);
    /* 180 cycles each creating and dropping a context: a leak of one cl::Buffer or context per
     * cycle grows every interval and shows as megabytes over the run; a one-off step does not
     * move the median slope. */
    fail_unless (!RSS_IS_MEANINGFUL || growth.steady_growth_bytes () < 4 * 1048576,
        "%s: RSS grows steadily: %s", row.name, growth.describe ().c_str ());
    gst_object_unref (pad);
    gst_object_unref (sink);
    gst_object_unref (bus);
    gst_object_unref (pipeline);
  }
}
GST_END_TEST;

/* PAUSED <-> PLAYING while frames flow, paced by the clock as in playback: frames resume
 * every time. (Not with a live videotestsrc: in GStreamer 1.22 it can stop producing after a
 * quick PLAYING -> PAUSED -> PLAYING even with only `identity` between it and the sink.) */
GST_START_TEST (test_pause_play_while_streaming)
{
  for (const auto & row : rows ()) {
    std::string line = row_line (row, -1, row.formats[0], 16, 8) +
        " ! fakesink name=sink sync=true";
    GstElement *pipeline = gst_parse_launch (line.c_str (), nullptr);
    fail_unless (pipeline != nullptr, "%s", line.c_str ());
    GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
    GstPad *pad = gst_element_get_static_pad (sink, "sink");
    std::atomic<int> frames { 0 };
    count_buffers (pad, &frames);
    GstBus *bus = gst_element_get_bus (pipeline);
    for (int round = 0; round < 8; round++) {
      int before = frames.load ();
      fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
          GST_STATE_CHANGE_FAILURE, "%s: round %d: PLAYING refused: %s", row.name, round,
          testutil::first_error (bus).c_str ());
      /* Each state change completes before the next is asked for. The first frame reaches the
       * sink's pad when it prerolls, before the pipeline has gone on to PLAYING; a PAUSED asked
       * for then lands in GstBin's own window between committing PAUSED and continuing to
       * PLAYING (GStreamer 1.22 drops the continuation and the pipeline stays "PAUSED, pending
       * PAUSED" for good: docs/reliability.md). */
      GstState state = GST_STATE_VOID_PENDING, pending = GST_STATE_VOID_PENDING;
      GstStateChangeReturn reached = gst_element_get_state (pipeline, &state, &pending,
          60 * GST_SECOND);
      fail_unless (reached == GST_STATE_CHANGE_SUCCESS && state == GST_STATE_PLAYING,
          "%s: round %d: PLAYING not reached in 60 s (%s, state %s, pending %s) %s", row.name,
          round, gst_element_state_change_return_get_name (reached),
          gst_element_state_get_name (state), gst_element_state_get_name (pending),
          testutil::first_error (bus).c_str ());
      /* Generous: on a loaded 2-core machine (kernel builds of other tests, sanitizer runs)
       * a 30 fps clock-paced source can stall for seconds; a real stall never ends. */
      for (int wait = 0; wait < 1500 && frames.load () < before + 1; wait++)
        g_usleep (20000);
      gst_element_get_state (pipeline, &state, &pending, 0);
      fail_unless (frames.load () >= before + 1, "%s: round %d: no frames in 30 s after "
          "PLAYING (state %s, pending %s) %s", row.name, round,
          gst_element_state_get_name (state), gst_element_state_get_name (pending),
          testutil::first_error (bus).c_str ());
      fail_unless (gst_element_set_state (pipeline, GST_STATE_PAUSED) !=
          GST_STATE_CHANGE_FAILURE, "%s: round %d: PAUSED refused: %s", row.name, round,
          testutil::first_error (bus).c_str ());
      /* Back in PAUSED the sink prerolls again: a frame must still come out of the element. */
      reached = gst_element_get_state (pipeline, &state, &pending, 60 * GST_SECOND);
      fail_unless (reached == GST_STATE_CHANGE_SUCCESS && state == GST_STATE_PAUSED,
          "%s: round %d: PAUSED not reached in 60 s (%s, state %s, pending %s) %s", row.name,
          round, gst_element_state_change_return_get_name (reached),
          gst_element_state_get_name (state), gst_element_state_get_name (pending),
          testutil::first_error (bus).c_str ());
    }
    gst_element_set_state (pipeline, GST_STATE_NULL);
    std::string error = testutil::first_error (bus);
    fail_unless (error.empty (), "%s: %s", row.name, error.c_str ());
    gst_object_unref (bus);
    gst_object_unref (pad);
    gst_object_unref (sink);
    gst_object_unref (pipeline);
  }
}
GST_END_TEST;

/* Format and resolution change mid-stream: every frame after a change equals what a fresh
 * pipeline makes of it at the new caps. */
GST_START_TEST (test_caps_changes_mid_stream)
{
  const int sizes[][2] = { { 32, 24 }, { 17, 9 }, { 40, 6 } };
  for (const auto & row : rows ()) {
    if (row.kind == Kind::Source)
      continue;
    std::vector<FrameSpec> stream;
    std::vector<Output> expected;
    uint32_t seed = 100;
    int group = 0;
    for (GstVideoFormat format : row.formats) {
      for (int s = 0; s < 2; s++, group++) {
        const auto *size = sizes[group % 3];
        auto frames = frames_of (format, size[0], size[1], 2, seed);
        seed += 10;
        std::string error;
        auto fresh = reliability::run_frames (row.segment, frames, &error);
        fail_unless (error.empty (), "%s: %s", row.name, error.c_str ());
        expected.insert (expected.end (), fresh.begin (), fresh.end ());
        stream.insert (stream.end (), frames.begin (), frames.end ());
      }
    }
    std::string error;
    auto got = reliability::run_frames (row.segment, stream, &error);
    fail_unless (error.empty (), "%s: %s", row.name, error.c_str ());
    expect_same (got, expected, std::string (row.name) + " across caps changes");
    /* A filter that must not change anything is checked against its input too. */
    if (g_str_equal (row.name, "upload-download")) {
      for (size_t i = 0; i < stream.size (); i++) {
        GstBuffer *buffer = reliability::make_buffer (stream[i], 0);
        GstVideoInfo info;
        gst_video_info_set_format (&info, stream[i].format, stream[i].width, stream[i].height);
        fail_unless (reliability::packed_pixels (buffer, &info) == got[i].pixels,
            "frame %zu changed on its way through the device", i);
        gst_buffer_unref (buffer);
      }
    }
  }
}
GST_END_TEST;

/* A source's output caps change while it plays: the frames at the new caps are those of a fresh
 * source at those caps. */
GST_START_TEST (test_source_caps_change)
{
  for (const auto & row : rows ()) {
    if (row.kind != Kind::Source)
      continue;
    std::string error;
    auto fresh = reliability::pull_all (row_line (row, 1, row.formats[1], 20, 12), &error);
    fail_unless (error.empty () && fresh.size () == 1, "%s: %s", row.name, error.c_str ());

    std::string line = std::string (row.segment) + " num-buffers=12 ! capsfilter name=cf caps=" +
        caps_text (row.formats[0], 16, 16) + " ! appsink name=sink sync=false max-buffers=1 "
        "caps=video/x-raw";
    GstElement *pipeline = gst_parse_launch (line.c_str (), nullptr);
    GstElement *cf = gst_bin_get_by_name (GST_BIN (pipeline), "cf");
    GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
    gst_element_set_state (pipeline, GST_STATE_PLAYING);
    int after = 0;
    for (int i = 0; i < 12; i++) {
      GstSample *sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink), 60 * GST_SECOND);
      if (!sample)
        break;
      if (i == 2) {
        GstCaps *caps = gst_caps_from_string (caps_text (row.formats[1], 20, 12).c_str ());
        g_object_set (cf, "caps", caps, nullptr);
        gst_caps_unref (caps);
      }
      std::vector<Output> one;
      GstCaps *caps = gst_sample_get_caps (sample);
      GstVideoInfo info;
      fail_unless (gst_video_info_from_caps (&info, caps));
      if (info.width == 20) {
        auto pixels = reliability::packed_pixels (gst_sample_get_buffer (sample), &info);
        fail_unless (pixels == fresh[0].pixels, "%s: frame %d after the caps change differs "
            "from a fresh source's", row.name, i);
        after++;
      }
      gst_sample_unref (sample);
    }
    GstBus *bus = gst_element_get_bus (pipeline);
    error = testutil::first_error (bus);
    fail_unless (error.empty (), "%s: %s", row.name, error.c_str ());
    fail_unless (after >= 3, "%s: only %d frames after the caps change", row.name, after);
    gst_element_set_state (pipeline, GST_STATE_NULL);
    gst_object_unref (bus);
    gst_object_unref (cf);
    gst_object_unref (sink);
    gst_object_unref (pipeline);
  }
}
GST_END_TEST;

/* 1x1, 1xN, Nx1 and prime sizes, tight and with padded rows: the same picture gives the same
 * output whatever the padding; the transfer pair gives its input back; a 1x1 bilateral is the
 * pixel itself. */
GST_START_TEST (test_odd_sizes_and_padded_rows)
{
  const int sizes[][2] = { { 1, 1 }, { 1, 7 }, { 7, 1 }, { 13, 17 }, { 31, 2 } };
  for (const auto & row : rows ()) {
    size_t formats = MIN (row.formats.size (), (size_t) 2);
    for (size_t f = 0; f < formats; f++) {
      GstVideoFormat format = row.formats[f];
      if (row.kind == Kind::Source) {
        for (const auto & size : sizes) {
          std::string error;
          auto out = reliability::pull_all (row_line (row, 1, format, size[0], size[1]),
              &error);
          fail_unless (error.empty () && out.size () == 1, "%s %dx%d: %s", row.name, size[0],
              size[1], error.c_str ());
          fail_unless_equals_int ((int) out[0].pixels.size (), size[0] * size[1] * 4);
        }
        continue;
      }
      std::vector<FrameSpec> tight, padded;
      for (const auto & size : sizes) {
        auto t = frames_of (format, size[0], size[1], 1, 7 + size[0] * 31 + size[1]);
        auto p = frames_of (format, size[0], size[1], 1, 7 + size[0] * 31 + size[1], 3);
        tight.insert (tight.end (), t.begin (), t.end ());
        padded.insert (padded.end (), p.begin (), p.end ());
      }
      std::string error;
      auto a = reliability::run_frames (row.segment, tight, &error);
      fail_unless (error.empty (), "%s tight: %s", row.name, error.c_str ());
      auto b = reliability::run_frames (row.segment, padded, &error);
      fail_unless (error.empty (), "%s padded: %s", row.name, error.c_str ());
      expect_same (b, a, std::string (row.name) + " padded vs tight " +
          gst_video_format_to_string (format));
      for (size_t i = 0; i < tight.size (); i++) {
        GstBuffer *buffer = reliability::make_buffer (tight[i], 0);
        GstVideoInfo info;
        gst_video_info_set_format (&info, format, tight[i].width, tight[i].height);
        auto input = reliability::packed_pixels (buffer, &info);
        gst_buffer_unref (buffer);
        bool identity = g_str_equal (row.name, "upload-download") ||
            (g_str_equal (row.name, "bilateral") && tight[i].width * tight[i].height == 1);
        if (identity)
          fail_unless (input == a[i].pixels, "%s %dx%d %s: output is not the input", row.name,
              tight[i].width, tight[i].height, gst_video_format_to_string (format));
      }
    }
  }
}
GST_END_TEST;

/* A buffer shorter than its caps say (by one byte, by half, empty) is a clear error, never a
 * read past its end; the same element then runs a whole frame. */
GST_START_TEST (test_truncated_buffers)
{
  for (const auto & row : rows ()) {
    if (row.kind == Kind::Source)
      continue;
    for (GstVideoFormat format : row.formats) {
      GstVideoInfo info;
      gst_video_info_set_format (&info, format, 24, 16);
      for (gsize cut : { (gsize) 1, info.size / 2, info.size }) {
        auto frames = frames_of (format, 24, 16, 2, 9);
        frames[0].truncate = cut;
        std::string error;
        auto out = reliability::run_frames (row.segment, frames, &error);
        fail_unless (!error.empty (), "%s %s: a frame %" G_GSIZE_FORMAT " bytes short went "
            "through", row.name, gst_video_format_to_string (format), cut);
        fail_unless (out.empty ());
        GST_INFO ("%s, %" G_GSIZE_FORMAT " bytes short: %s", row.name, cut, error.c_str ());
      }
      std::string error;
      auto out = reliability::run_frames (row.segment, frames_of (format, 24, 16, 1, 9), &error);
      fail_unless (error.empty () && out.size () == 1, "%s: %s", row.name, error.c_str ());
    }
  }
}
GST_END_TEST;

/* With the device limited to exactly one frame's bytes, that frame runs and a frame one row
 * taller is refused with a clear error naming the sizes; the element then runs again. */
GST_START_TEST (test_largest_frame_and_one_beyond)
{
  constexpr int W = 256, H = 256;
  for (const auto & row : rows ()) {
    GstVideoInfo info;
    gst_video_info_set_format (&info, row.formats[0], W, H);
    const gsize factor = row.alloc_factor;
    const std::string limit = std::to_string (info.size * factor);
    GstVideoInfo beyond_info;
    gst_video_info_set_format (&beyond_info, row.formats[0], W, H + 1);
    const std::string beyond_bytes = std::to_string (beyond_info.size * factor);
    g_setenv ("GST_OPENCL_MAX_ALLOC_BYTES", limit.c_str (), TRUE);
    std::string fits = testutil::run_pipeline (row_line (row, 1, row.formats[0], W, H) +
        " ! fakesink");
    /* Beyond, then the same pipeline (same element) back from NULL at the largest size. */
    std::string line = row_line (row, 1, row.formats[0], W, H + 1) + " ! fakesink";
    std::string beyond_caps = caps_text (row.formats[0], W, H + 1);
    line.replace (line.find (beyond_caps), beyond_caps.size (), "capsfilter name=cf caps=\"" +
        beyond_caps + "\"");
    GstElement *pipeline = gst_parse_launch (line.c_str (), nullptr);
    fail_unless (pipeline != nullptr, "%s", line.c_str ());
    gst_object_ref (pipeline);
    std::string beyond = testutil::run_pipeline (pipeline);
    GstElement *cf = gst_bin_get_by_name (GST_BIN (pipeline), "cf");
    GstCaps *caps = gst_caps_from_string (caps_text (row.formats[0], W, H).c_str ());
    g_object_set (cf, "caps", caps, nullptr);
    gst_caps_unref (caps);
    gst_object_unref (cf);
    std::string again = testutil::run_pipeline (pipeline);
    g_unsetenv ("GST_OPENCL_MAX_ALLOC_BYTES");
    fail_unless (fits.empty (), "%s: the largest frame failed: %s", row.name, fits.c_str ());
    fail_unless (!beyond.empty (), "%s: a frame beyond the limit ran", row.name);
    fail_unless (contains (beyond, beyond_bytes) && contains (beyond, limit),
        "%s: the error does not name the frame's and the device's sizes: %s", row.name,
        beyond.c_str ());
    fail_unless (again.empty (), "%s: not reusable after the error: %s", row.name,
        again.c_str ());
    g_print ("beyond the limit, %s: %s\n", row.name, beyond.c_str ());
  }
}
GST_END_TEST;

namespace {

struct WarningCount
{
  int warnings = 0;
};

void
count_warning (const gchar *, GLogLevelFlags, const gchar * message, gpointer data)
{
  static_cast<WarningCount *> (data)->warnings++;
  GST_INFO ("expected warning: %s", message);
}

}  // namespace

/* NaN, infinities, zero, negative and huge values on every numeric property: GObject's range
 * check rejects (with a warning, value kept) what is out of range; what gets through reaches
 * the element, which must keep a usable value (never NaN) and run, or fail with a clear error. */
GST_START_TEST (test_bad_property_values)
{
  const double nasty[] = { std::nan (""), INFINITY, -INFINITY, 0.0, -1.0, 1e300, -1e300,
    4294967296.0 };
  for (const auto & row : rows ()) {
    GstElementFactory *factory = gst_element_factory_find (row.factory);
    fail_unless (factory != nullptr);
    GstElement *probe = gst_element_factory_create (factory, nullptr);
    guint n = 0;
    GParamSpec **specs = g_object_class_list_properties (G_OBJECT_GET_CLASS (probe), &n);
    for (guint i = 0; i < n; i++) {
      GParamSpec *pspec = specs[i];
      if (!(pspec->flags & G_PARAM_WRITABLE) || (pspec->flags & G_PARAM_CONSTRUCT_ONLY) ||
          pspec->owner_type == GST_TYPE_OBJECT || pspec->owner_type == GST_TYPE_ELEMENT ||
          pspec->owner_type == GST_TYPE_BASE_SRC || pspec->owner_type == GST_TYPE_BASE_TRANSFORM)
        continue;
      bool floating = G_IS_PARAM_SPEC_DOUBLE (pspec) || G_IS_PARAM_SPEC_FLOAT (pspec);
      bool integer = G_IS_PARAM_SPEC_INT (pspec) || G_IS_PARAM_SPEC_UINT (pspec) ||
          G_IS_PARAM_SPEC_INT64 (pspec) || G_IS_PARAM_SPEC_UINT64 (pspec);
      if (!floating && !integer)
        continue;
      for (double value : nasty) {
        if (integer && !std::isfinite (value))
          continue;
        std::string line = row_line (row, 2, row.formats[0], 16, 8) + " ! fakesink";
        GstElement *pipeline = gst_parse_launch (line.c_str (), nullptr);
        GstElement *element = first_of (pipeline, row.factory);
        GValue before = G_VALUE_INIT;
        g_value_init (&before, pspec->value_type);
        g_object_get_property (G_OBJECT (element), pspec->name, &before);

        /* What g_object_set does with it: a warning and no change when out of range. */
        WarningCount count;
        GLogLevelFlags fatal = g_log_set_always_fatal ((GLogLevelFlags) G_LOG_FATAL_MASK);
        guint handler = g_log_set_handler ("GLib-GObject", (GLogLevelFlags) (G_LOG_LEVEL_WARNING |
                G_LOG_LEVEL_CRITICAL), count_warning, &count);
        set_from_double (G_OBJECT (element), pspec, value);
        g_log_remove_handler ("GLib-GObject", handler);
        g_log_set_always_fatal (fatal);

        GValue after = G_VALUE_INIT;
        g_value_init (&after, pspec->value_type);
        g_object_get_property (G_OBJECT (element), pspec->name, &after);
        if (count.warnings)
          fail_unless (gst_value_compare (&before, &after) == GST_VALUE_EQUAL,
              "%s.%s: rejected %g but changed", row.factory, pspec->name, value);
        if (floating) {
          double read = G_IS_PARAM_SPEC_DOUBLE (pspec) ? g_value_get_double (&after) :
              g_value_get_float (&after);
          fail_unless (std::isfinite (read), "%s.%s = %g reads back as %g", row.factory,
              pspec->name, value, read);
        }
        gchar *shown = g_strdup_value_contents (&after);
        GST_INFO ("%s.%s = %g: %s, now %s", row.factory, pspec->name, value,
            count.warnings ? "rejected by the param spec" : "accepted", shown);
        g_free (shown);
        g_value_unset (&before);
        g_value_unset (&after);
        gst_object_unref (element);
        /* The element runs with whatever it kept, or says clearly why not. */
        std::string error = testutil::run_pipeline (pipeline);
        fail_unless (error.empty () || error.size () > 10, "%s.%s = %g: %s", row.factory,
            pspec->name, value, error.c_str ());
      }
    }
    g_free (specs);
    gst_object_unref (probe);
    gst_object_unref (factory);

    /* An unknown device is a clear error. */
    std::string error = testutil::run_pipeline (row_line (row, 1, row.formats[0], 8, 8,
            false, "device=no-such-device") + " ! fakesink");
    fail_unless (contains (error, "no OpenCL device matches"), "%s: %s", row.name,
        error.c_str ());
  }
}
GST_END_TEST;

/* Float arrays of the wrong length, with NaN or infinities, and unreadable or short files for
 * the same values: a clear error each (never a crash), and the element runs again afterwards. */
GST_START_TEST (test_bad_kernel_arrays)
{
  for (const auto & row : rows ()) {
    if (row.array_property.empty ())
      continue;
    std::string base = row_line (row, 2, row.formats[0], 16, 8);
    /* Without the segment's own array, so the bad one is the only one. */
    std::string plain = base.substr (0, base.find (" " + row.array_property + "="));
    size_t n = row.array_length ? row.array_length : 27;
    auto array = [] (size_t count, const char *special) {
      std::string text = "\"<";
      for (size_t i = 0; i < count; i++)
        text += std::string (i ? "," : "") + (special && i == count / 2 ? special : "0.5");
      return text + ">\"";
    };
    const std::string cases[] = { array (n - 1, nullptr), array (n + 1, nullptr),
      array (1, nullptr), "\"<>\"", array (n, "nan"), array (n, "inf"), array (n, "-inf") };
    for (const auto & value : cases) {
      std::string extra = " " + row.array_property + "=" + value;
      if (row.array_property == "kernel")
        extra += " preset=custom kernel-width=3 kernel-height=3 kernel-depth=3";
      GError *parse_error = nullptr;
      WarningCount count;
      GLogLevelFlags fatal = g_log_set_always_fatal ((GLogLevelFlags) G_LOG_FATAL_MASK);
      guint handler = g_log_set_handler ("GLib-GObject", (GLogLevelFlags) (G_LOG_LEVEL_WARNING |
              G_LOG_LEVEL_CRITICAL), count_warning, &count);
      GstElement *pipeline = gst_parse_launch ((plain + extra + " ! fakesink").c_str (),
          &parse_error);
      g_log_remove_handler ("GLib-GObject", handler);
      g_log_set_always_fatal (fatal);
      if (count.warnings)
        GST_INFO ("%s %s: refused by the param spec", row.name, value.c_str ());
      if (!pipeline || parse_error) {
        /* GStreamer's own parser refused the text (e.g. "inf" as a float): nothing reached
         * the element. */
        g_clear_error (&parse_error);
        if (pipeline)
          gst_object_unref (pipeline);
        continue;
      }
      std::string error = testutil::run_pipeline (pipeline);
      fail_unless (!error.empty (), "%s: %s=%s ran", row.name, row.array_property.c_str (),
          value.c_str ());
      GST_INFO ("%s %s: %s", row.name, value.c_str (), error.c_str ());
    }
    if (!row.file_property.empty ()) {
      gchar *dir = g_dir_make_tmp ("gst-opencl-kernels-XXXXXX", nullptr);
      std::string shortfile = std::string (dir) + "/short.raw";
      g_file_set_contents (shortfile.c_str (), "abcdefg", 7, nullptr);
      for (const std::string & path : { std::string ("/nonexistent/filters.raw"),
              std::string (dir), shortfile }) {
        std::string error = testutil::run_pipeline (plain + " " + row.file_property + "=\"" +
            path + "\" ! fakesink");
        fail_unless (contains (error, row.file_property), "%s: %s=%s: %s", row.name,
            row.file_property.c_str (), path.c_str (), error.c_str ());
      }
      g_remove (shortfile.c_str ());
      g_rmdir (dir);
      g_free (dir);
    }
    std::string error = testutil::run_pipeline (base + " ! fakesink");
    fail_unless (error.empty (), "%s: %s", row.name, error.c_str ());
  }
}
GST_END_TEST;

/* A thread sets properties as fast as it can (and another reads them) while frames flow. */
GST_START_TEST (test_property_hammer_while_playing)
{
  for (const auto & row : rows ()) {
    if (row.hammer.empty ())
      continue;
    std::string line = row_line (row, 150, row.formats[0], 24, 16) + " ! fakesink sync=false";
    GstElement *pipeline = gst_parse_launch (line.c_str (), nullptr);
    GstElement *element = first_of (pipeline, row.factory);
    GstBus *bus = gst_element_get_bus (pipeline);
    std::atomic<bool> done { false };
    std::atomic<int> sets { 0 };
    std::thread writer ([&]() {
      std::mt19937 random (42);
      while (!done.load ()) {
        const auto & h = row.hammer[random () % row.hammer.size ()];
        GParamSpec *pspec = g_object_class_find_property (G_OBJECT_GET_CLASS (element),
            h.property);
        fail_unless (pspec != nullptr, "%s has no %s", row.factory, h.property);
        set_from_double (G_OBJECT (element), pspec, h.values[random () % h.values.size ()]);
        sets++;
        if (sets % 64 == 0)
          g_usleep (100);
      }
    });
    std::thread reader ([&]() {
      while (!done.load ()) {
        guint64 time = 0;
        gchar *name = nullptr;
        g_object_get (element, "kernel-time", &time, "device-name", &name, nullptr);
        g_free (name);
        g_usleep (50);
      }
    });
    gst_element_set_state (pipeline, GST_STATE_PLAYING);
    GstMessage *message = gst_bus_timed_pop_filtered (bus, 240 * GST_SECOND,
        (GstMessageType) (GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
    done = true;
    writer.join ();
    reader.join ();
    fail_unless (message != nullptr, "%s: no EOS", row.name);
    fail_unless (GST_MESSAGE_TYPE (message) == GST_MESSAGE_EOS, "%s: %s", row.name,
        testutil::first_error (bus).c_str ());
    gst_message_unref (message);
    g_print ("property hammer %s: %d sets while 150 frames played\n", row.name, sets.load ());
    gst_element_set_state (pipeline, GST_STATE_NULL);
    gst_object_unref (bus);
    gst_object_unref (element);
    gst_object_unref (pipeline);
  }
}
GST_END_TEST;

/* A kernel that does not compile: the error names the build and carries the log; the same
 * pipeline runs once it is back in NULL and the kernel is whole again. */
GST_START_TEST (test_broken_kernel_then_reuse)
{
  for (const auto & row : rows ()) {
    if (!row.kernel_file)
      continue;
    std::string line = row_line (row, 2, row.formats[0], 16, 8) + " ! fakesink";
    GstElement *pipeline = gst_parse_launch (line.c_str (), nullptr);
    GstBus *bus = gst_element_get_bus (pipeline);
    {
      reliability::KernelOverride broken (row.kernel_file,
          "__kernel void nothing (__global int *x) { x[0] = not_declared; }\n");
      gst_element_set_state (pipeline, GST_STATE_PLAYING);
      GstMessage *message = gst_bus_timed_pop_filtered (bus, 120 * GST_SECOND,
          (GstMessageType) (GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
      fail_unless (message && GST_MESSAGE_TYPE (message) == GST_MESSAGE_ERROR, "%s: no error",
          row.name);
      std::string text = testutil::message_text (message);
      gst_message_unref (message);
      fail_unless (contains (text, "failed to build") && contains (text, "not_declared"),
          "%s: %s", row.name, text.c_str ());
      gst_element_set_state (pipeline, GST_STATE_NULL);
      testutil::first_error (bus);
    }
    gst_object_unref (bus);
    std::string error = testutil::run_pipeline (pipeline);
    fail_unless (error.empty (), "%s after the broken kernel: %s", row.name, error.c_str ());
  }
}
GST_END_TEST;

/* 8 pipelines of the whole chain in parallel threads, each with its own context and then all
 * sharing one the application hands them: every one's frames equal a lone pipeline's. */
GST_START_TEST (test_parallel_pipelines)
{
  constexpr int THREADS = 8;
  const std::string line = chain_line (4, 32, 24);
  std::string error;
  const auto single = reliability::pull_all (line, &error);
  fail_unless (error.empty () && single.size () == 4, "%s", error.c_str ());

  GstElement *holder = nullptr;
  GstContext *shared = reliability::borrow_context (line + " ! fakesink", "openclbilateral", &holder);
  for (GstContext *context : { (GstContext *) nullptr, shared }) {
    std::vector<std::vector<Output>> results (THREADS);
    std::vector<std::string> errors (THREADS);
    std::vector<std::thread> threads;
    for (int t = 0; t < THREADS; t++)
      threads.emplace_back ([&, t]() {
        results[t] = reliability::pull_all (line, &errors[t], context);
      });
    for (auto & thread : threads)
      thread.join ();
    for (int t = 0; t < THREADS; t++) {
      fail_unless (errors[t].empty (), "thread %d: %s", t, errors[t].c_str ());
      expect_same (results[t], single, std::string ("thread ") + std::to_string (t) +
          (context ? " (shared context)" : " (own context)"));
    }
  }
  /* The elements of a pipeline given the context use it. */
  GstElement *pipeline = gst_parse_launch ((line + " ! fakesink").c_str (), nullptr);
  gst_element_set_context (pipeline, shared);
  gst_element_set_state (pipeline, GST_STATE_PAUSED);
  fail_unless (gst_element_get_state (pipeline, nullptr, nullptr, 120 * GST_SECOND) ==
      GST_STATE_CHANGE_SUCCESS);
  GObject *expected = G_OBJECT (g_value_get_object (gst_structure_get_value (
              gst_context_get_structure (shared), "context")));
  for (const auto & row : rows ()) {
    if (!in_chain (row))
      continue;
    GstElement *element = first_of (pipeline, row.factory);
    GObject *used = testutil::element_context (element);
    fail_unless (used == expected, "%s ignored the application's context", row.factory);
    g_object_unref (used);
    gst_object_unref (element);
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
  gst_context_unref (shared);
  gst_element_set_state (holder, GST_STATE_NULL);
  gst_object_unref (holder);
}
GST_END_TEST;

/* Two elements of the same kind in one pipeline give what two pipelines one after the other
 * give; two sources in one pipeline give the frames of one. */
GST_START_TEST (test_two_of_a_kind)
{
  for (const auto & row : rows ()) {
    std::string error;
    if (row.kind == Kind::Source) {
      auto one = reliability::pull_all (row_line (row, 2, row.formats[0], 16, 12), &error);
      fail_unless (error.empty (), "%s", error.c_str ());
      auto two = reliability::pull_all (row_line (row, 2, row.formats[0], 16, 12) +
          " ! fakesink " + row_line (row, 2, row.formats[0], 16, 12), &error);
      fail_unless (error.empty (), "%s", error.c_str ());
      expect_same (two, one, std::string (row.name) + " twice");
      continue;
    }
    auto frames = frames_of (row.formats[0], 24, 16, 3, 555);
    auto first = reliability::run_frames (row.segment, frames, &error);
    fail_unless (error.empty (), "%s", error.c_str ());
    std::vector<FrameSpec> again = frames;
    for (size_t i = 0; i < again.size (); i++)
      again[i].pixels = first[i].pixels;
    auto second = reliability::run_frames (row.segment, again, &error);
    fail_unless (error.empty (), "%s", error.c_str ());
    auto doubled = reliability::run_frames (std::string (row.segment) + " ! " + row.segment,
        frames, &error);
    fail_unless (error.empty (), "%s", error.c_str ());
    expect_same (doubled, second, std::string (row.name) + " twice in one pipeline");
  }
}
GST_END_TEST;

/* 10,000 small frames through the chain of all video elements; resident memory does not grow
 * frame by frame. It is sampled every 500 frames from frame 1,000 on and judged by its steady
 * slope (reliability::MemoryGrowth): a leak grows every interval, while a one-time step (an
 * allocator arena, a driver's internal pool growing once, seen under heavy load) grows one. */
GST_START_TEST (test_long_run_memory_flat)
{
  constexpr int FRAMES = 10000;
  std::string line = chain_line (FRAMES, 32, 24);
  /* The source turns the camera every frame: every frame is new work. */
  line.replace (line.find ("animate=false"), 13, "animate=true");
  line += " ! fakesink name=sink sync=false";
  GstElement *pipeline = gst_parse_launch (line.c_str (), nullptr);
  fail_unless (pipeline != nullptr, "%s", line.c_str ());
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  GstPad *pad = gst_element_get_static_pad (sink, "sink");
  struct Probe
  {
    std::atomic<int> frames { 0 };
    reliability::MemoryGrowth growth;  /* written by the streaming thread only */
  } probe;
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, [](GstPad *, GstPadProbeInfo *,
          gpointer data) -> GstPadProbeReturn {
        auto *p = static_cast<Probe *> (data);
        int n = ++p->frames;
        if (n >= 1000 && n % 500 == 0)
          p->growth.add_now (n);
        return GST_PAD_PROBE_OK;
      }, &probe, nullptr);
  gint64 start = g_get_monotonic_time ();
  gst_object_ref (pipeline);
  std::string error = testutil::run_pipeline (pipeline, 900);
  double seconds = (g_get_monotonic_time () - start) / 1e6;
  fail_unless (error.empty (), "%s", error.c_str ());
  fail_unless_equals_int (probe.frames.load (), FRAMES);
  g_print ("long run: %d frames in %.1f s; RSS %s\n", FRAMES, seconds,
      probe.growth.describe ().c_str ());
  /* A leak of 117 bytes a frame grows 1 MiB over the 9,000 sampled frames. */
  fail_unless (!RSS_IS_MEANINGFUL || probe.growth.steady_growth_bytes () < 1048576,
      "RSS grows steadily: %s", probe.growth.describe ().c_str ());
  gst_object_unref (pad);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
}
GST_END_TEST;

namespace {

/* Elements that take one other/tensors stream: the launch fragment and the types it takes. */
struct TensorRow
{
  const char *name;
  const char *segment;
  const char *type;       /* a type it takes */
  gsize element_bytes;
  gsize out_element_bytes;  /* bytes out per element in */
};

const std::vector<TensorRow> &
tensor_rows ()
{
  static const std::vector<TensorRow> table = {
    { "sort", "openclsort", "int32", 4, 4 },
    { "multiconvolve", "openclmulticonvolve num-kernels=1 kernel-size=3 dims=3 kernels=\"<"
      "0,0,0,0,1,0,0,0,0, 0,1,0,1,-6,1,0,1,0, 0,0,0,0,1,0,0,0,0>\"", "uint8", 1, 4 },
  };
  return table;
}

std::string
tensor_caps (const char *type, const std::string & dimensions)
{
  return std::string ("other/tensors,format=static,num_tensors=1,types=") + type +
      ",dimensions=(string)" + dimensions + ",framerate=(fraction)0/1";
}

/* Pushes raw buffers with the given caps through "appsrc ! <segment> ! appsink"; returns the
 * buffers out and the first error. */
std::vector<std::vector<uint8_t>>
run_tensors (const std::string & segment, const std::string & caps,
    const std::vector<gsize> & sizes, std::string * error)
{
  std::string line = "appsrc name=src format=time caps=\"" + caps + "\" ! " + segment +
      " ! appsink name=sink sync=false";
  GstElement *pipeline = testutil::parse_pipeline (line);
  GstElement *src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  std::mt19937 random (5);
  for (gsize size : sizes) {
    GstBuffer *buffer = gst_buffer_new_allocate (nullptr, size, nullptr);
    GstMapInfo map;
    gst_buffer_map (buffer, &map, GST_MAP_WRITE);
    for (gsize i = 0; i < size; i++)
      map.data[i] = (uint8_t) (random () >> 24);
    gst_buffer_unmap (buffer, &map);
    if (gst_app_src_push_buffer (GST_APP_SRC (src), buffer) != GST_FLOW_OK)
      break;
  }
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  std::vector<std::vector<uint8_t>> outputs;
  reliability::pull_until_done (pipeline, sink, 60 * GST_SECOND, [&](GstSample * sample) {
        GstMapInfo map;
        gst_buffer_map (gst_sample_get_buffer (sample), &map, GST_MAP_READ);
        outputs.emplace_back (map.data, map.data + map.size);
        gst_buffer_unmap (gst_sample_get_buffer (sample), &map);
      }, error, line);
  gst_object_unref (src);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  return outputs;
}

}  // namespace

/* other/tensors caps whose dimensions overflow or are zero, and buffers that do not match their
 * caps (short, long, empty, truncated): a clear error each, never a crash; good input after. */
GST_START_TEST (test_hostile_tensors)
{
  for (const auto & row : tensor_rows ()) {
    std::string error;
    /* Caps that describe no buffer anyone can make. */
    for (const char *dimensions : { "2147483647:2147483647:2147483647", "65536:65536:65536:65536",
            "0", "4:0", "-1", "4294967296", "1:1:1:1:1:1:1:1:1:1:1:1:1:1:1:1:1",
            "2147483647:2147483647" }) {
      auto out = run_tensors (row.segment, tensor_caps (row.type, dimensions), { 64 }, &error);
      fail_unless (!error.empty () && out.empty (), "%s: dimensions %s were accepted",
          row.name, dimensions);
      GST_INFO ("%s, dimensions %s: %s", row.name, dimensions, error.c_str ());
    }
    /* Buffers that do not match good caps: 16 x 3 elements. */
    const gsize good = 16 * 3 * row.element_bytes;
    for (gsize size : { good - 1, good / 2, good + row.element_bytes, (gsize) 1, (gsize) 0 }) {
      auto out = run_tensors (row.segment, tensor_caps (row.type, "16:3"), { good, size },
          &error);
      fail_unless (!error.empty (), "%s: a %" G_GSIZE_FORMAT "-byte buffer for %"
          G_GSIZE_FORMAT "-byte caps went through", row.name, size, good);
      fail_unless (out.size () <= 1, "%s: the bad buffer came out", row.name);
      GST_INFO ("%s, %" G_GSIZE_FORMAT " bytes: %s", row.name, size, error.c_str ());
    }
    auto out = run_tensors (row.segment, tensor_caps (row.type, "16:3"), { good, good },
        &error);
    fail_unless (error.empty () && out.size () == 2 &&
        out[0].size () == 16 * 3 * row.out_element_bytes, "%s: %s", row.name, error.c_str ());
  }
}
GST_END_TEST;

/* A value for `pspec` other than `current`, within its range; false when there is none to try
 * (strings, arrays, objects). */
static bool
other_value (GParamSpec * pspec, const GValue * current, GValue * other)
{
  g_value_init (other, G_PARAM_SPEC_VALUE_TYPE (pspec));
  if (G_IS_PARAM_SPEC_INT (pspec)) {
    auto *spec = G_PARAM_SPEC_INT (pspec);
    const gint now = g_value_get_int (current);
    g_value_set_int (other, now < spec->maximum ? now + 1 : now - 1);
  } else if (G_IS_PARAM_SPEC_UINT (pspec)) {
    auto *spec = G_PARAM_SPEC_UINT (pspec);
    const guint now = g_value_get_uint (current);
    g_value_set_uint (other, now < spec->maximum ? now + 1 : now - 1);
  } else if (G_IS_PARAM_SPEC_DOUBLE (pspec)) {
    auto *spec = G_PARAM_SPEC_DOUBLE (pspec);
    const gdouble now = g_value_get_double (current);
    g_value_set_double (other, now < spec->maximum ? MIN (now + 1, spec->maximum) :
        MAX (now - 1, spec->minimum));
  } else if (G_IS_PARAM_SPEC_BOOLEAN (pspec)) {
    g_value_set_boolean (other, !g_value_get_boolean (current));
  } else if (G_IS_PARAM_SPEC_ENUM (pspec)) {
    auto *spec = G_PARAM_SPEC_ENUM (pspec);
    const gint now = g_value_get_enum (current);
    for (guint i = 0; i < spec->enum_class->n_values; i++) {
      if (spec->enum_class->values[i].value != now) {
        g_value_set_enum (other, spec->enum_class->values[i].value);
        return true;
      }
    }
    return false;
  } else if (G_IS_PARAM_SPEC_STRING (pspec) && g_strcmp0 (pspec->name, "device") == 0) {
    g_value_set_string (other, "no-such-platform");
  } else {
    g_value_unset (other);
    return false;
  }
  return g_param_values_cmp (pspec, current, other) != 0;
}

/* Properties that take effect only when the element starts ("changeable only in NULL or READY
 * state") set while PLAYING: the element keeps the old value and posts a WARNING naming the
 * property (they were taken silently and changed nothing); set in READY, they are taken. */
GST_START_TEST (test_ready_only_properties_while_playing)
{
  int checked = 0;
  for (const auto & row : rows ()) {
    std::string line = row_line (row, -1, row.formats[0], 16, 8, true) +
        " ! fakesink name=sink sync=true";
    GstElement *pipeline = gst_parse_launch (line.c_str (), nullptr);
    fail_unless (pipeline != nullptr, "%s", line.c_str ());
    GstElement *element = first_of (pipeline, row.factory);
    GstBus *bus = gst_element_get_bus (pipeline);
    fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
        GST_STATE_CHANGE_FAILURE);
    fail_unless (gst_element_get_state (pipeline, nullptr, nullptr, 60 * GST_SECOND) !=
        GST_STATE_CHANGE_FAILURE, "%s: %s", row.name, testutil::first_error (bus).c_str ());
    guint n_specs = 0;
    GParamSpec **specs = g_object_class_list_properties (G_OBJECT_GET_CLASS (element), &n_specs);
    for (guint i = 0; i < n_specs; i++) {
      GParamSpec *pspec = specs[i];
      if (!(pspec->flags & GST_PARAM_MUTABLE_READY) || !(pspec->flags & G_PARAM_WRITABLE))
        continue;
      GValue before = G_VALUE_INIT, other = G_VALUE_INIT, after = G_VALUE_INIT;
      g_value_init (&before, G_PARAM_SPEC_VALUE_TYPE (pspec));
      g_object_get_property (G_OBJECT (element), pspec->name, &before);
      if (!other_value (pspec, &before, &other)) {
        g_value_unset (&before);
        continue;
      }
      gst_bus_set_flushing (bus, TRUE);
      gst_bus_set_flushing (bus, FALSE);
      g_object_set_property (G_OBJECT (element), pspec->name, &other);
      g_value_init (&after, G_PARAM_SPEC_VALUE_TYPE (pspec));
      g_object_get_property (G_OBJECT (element), pspec->name, &after);
      fail_unless (g_param_values_cmp (pspec, &before, &after) == 0,
          "%s: '%s' changed while PLAYING", row.name, pspec->name);
      GstMessage *warning = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING);
      fail_unless (warning != nullptr, "%s: no warning for '%s'", row.name, pspec->name);
      std::string text = testutil::message_text (warning);
      gst_message_unref (warning);
      fail_unless (testutil::contains (text, std::string ("property '") + pspec->name +
              "' can change only in the NULL or READY state"), "%s", text.c_str ());
      checked++;
      g_value_unset (&before);
      g_value_unset (&other);
      g_value_unset (&after);
    }
    g_free (specs);
    fail_unless (testutil::first_error (bus).empty ());
    gst_element_set_state (pipeline, GST_STATE_NULL);
    gst_object_unref (bus);
    gst_object_unref (element);
    gst_object_unref (pipeline);
  }
  /* openclconvolve3d and openclmulticonvolve have several such properties. */
  fail_unless (checked >= 6, "only %d properties checked", checked);
}
GST_END_TEST;

/* The memory judge of test_state_cycles and test_long_run_memory_flat on made-up series: the
 * shape of the rusticl failure of 2026-11 (a 5.9 MiB step, flat before and after) passes, a leak
 * of 40 KiB a cycle fails, and pages taken and given back around a flat line pass. */
GST_START_TEST (test_memory_growth_judge)
{
  const uint64_t base = 316 * 1048576ull;
  reliability::MemoryGrowth step, leak, noise;
  for (int cycle = 20; cycle <= 200; cycle += 10) {
    step.add (cycle, base + (cycle >= 120 ? 6 * 1048576ull : 0));
    leak.add (cycle, base + (uint64_t) cycle * 40 * 1024);
    noise.add (cycle, base + ((cycle / 10) % 3) * 4096);
  }
  fail_unless (step.steady_growth_bytes () < 4 * 1048576, "%s", step.describe ().c_str ());
  fail_unless (step.least_squares_slope () > 20 * 1024, "the step moves a least-squares "
      "judge alone: %s", step.describe ().c_str ());
  fail_unless (noise.median_slope () > 0, "the saw tilts the median alone: %s",
      noise.describe ().c_str ());
  fail_unless (leak.steady_growth_bytes () >= 4 * 1048576, "%s", leak.describe ().c_str ());
  fail_unless (noise.steady_growth_bytes () < 64 * 1024, "%s", noise.describe ().c_str ());
  fail_unless_equals_int ((int) reliability::MemoryGrowth ().steady_growth_bytes (), 0);
}
GST_END_TEST;

static Suite *
reliability_suite (void)
{
  return TESTUTIL_SUITE ("reliability", 900,
      test_state_cycles, test_pause_play_while_streaming, test_caps_changes_mid_stream,
      test_source_caps_change, test_odd_sizes_and_padded_rows, test_truncated_buffers,
      test_hostile_tensors, test_largest_frame_and_one_beyond, test_bad_property_values,
      test_bad_kernel_arrays, test_property_hammer_while_playing, test_broken_kernel_then_reuse,
      test_parallel_pipelines, test_two_of_a_kind, test_long_run_memory_flat,
      test_memory_growth_judge, test_ready_only_properties_while_playing);
}

/* `test_reliability --list`: the plugin's elements that the table's rows cover (every element
 * of each row's launch fragment), one a line. The element-list test reads them. */
static int
list_elements ()
{
  for (const auto & row : rows ()) {
    GError *error = nullptr;
    GstElement *parsed = gst_parse_launch (row.segment, &error);
    if (!parsed || error) {
      g_printerr ("row %s: %s\n", row.name, error ? error->message : "not parsed");
      g_clear_error (&error);
      if (parsed)
        gst_object_unref (parsed);
      return 1;
    }
    std::vector<GstElement *> elements;
    if (GST_IS_BIN (parsed)) {
      for (GList *l = GST_BIN_CHILDREN (GST_BIN (parsed)); l; l = l->next)
        elements.push_back (GST_ELEMENT (l->data));
    } else {
      elements.push_back (parsed);
    }
    for (GstElement *element : elements) {
      GstElementFactory *factory = gst_element_get_factory (element);
      if (factory && g_strcmp0 (gst_plugin_feature_get_plugin_name (GST_PLUGIN_FEATURE
                  (factory)), "opencl") == 0)
        g_print ("%s\n", gst_plugin_feature_get_name (GST_PLUGIN_FEATURE (factory)));
    }
    gst_object_unref (parsed);
  }
  return 0;
}

int
main (int argc, char **argv)
{
  if (argc == 2 && g_str_equal (argv[1], "--list")) {
    gst_init (&argc, &argv);
    return list_elements ();
  }
  /* One convolution variant, as the convolution suites force it: no timing of candidates, so
   * every pipeline computes the same way and each filter shape costs one program build. */
  g_setenv ("GST_OPENCL_VARIANT_CONVOLUTION", "4:8x4", TRUE);
  gst_check_init (&argc, &argv);
  return gst_check_run_suite (reliability_suite (), "reliability", __FILE__);
}
