/* gst-opencl tests: frames in GL memory (RGBA textures) through openclbilateral, under Xvfb with
 * Mesa. The result is compared with the float64 reference like the system-memory path.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include <gst/check/gstcheck.h>
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/video/video.h>

#include <string>

#include "common/suite.h"
#include "common/testutil.h"
#include "reference/bilateral_reference.h"
#include "reference/histogram_reference.h"

/* appsrc ! glupload ! <filter named f> ! gldownload ! RGBA appsink: the filter works on GL
 * memory, frames go in and come out in system memory. */
struct GlChain
{
  GstElement *pipeline;
  GstElement *src;
  GstElement *filter;
  GstElement *sink;

  explicit GlChain (const std::string & filter_description)
  {
    pipeline = testutil::parse_pipeline ("appsrc name=src format=time ! glupload ! " +
        filter_description + " name=f ! gldownload ! video/x-raw,format=RGBA ! "
        "appsink name=sink sync=false");
    src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
    filter = gst_bin_get_by_name (GST_BIN (pipeline), "f");
    sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  }

  ~GlChain ()
  {
    gst_element_set_state (pipeline, GST_STATE_NULL);
    gst_object_unref (filter);
    gst_object_unref (src);
    gst_object_unref (sink);
    gst_object_unref (pipeline);
  }

  /* Plays with RGBA caps of `input`'s size and pushes `frames` copies of `input` at 30 frames
   * per second, then EOS. Returns the frames' video info. */
  GstVideoInfo play (const testutil::Frame & input, int frames)
  {
    GstVideoInfo info;
    gst_video_info_set_format (&info, GST_VIDEO_FORMAT_RGBA, input.width, input.height);
    GstCaps *caps = gst_video_info_to_caps (&info);
    g_object_set (src, "caps", caps, nullptr);
    gst_caps_unref (caps);

    fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
        GST_STATE_CHANGE_FAILURE);
    for (int i = 0; i < frames; i++) {
      GstBuffer *buffer = testutil::to_buffer (input, GST_VIDEO_FORMAT_RGBA);
      GST_BUFFER_PTS (buffer) = i * GST_SECOND / 30;
      fail_unless_equals_int (gst_app_src_push_buffer (GST_APP_SRC (src), buffer), GST_FLOW_OK);
    }
    gst_app_src_end_of_stream (GST_APP_SRC (src));
    return info;
  }

  /* The next frame out (fails after 120 s). */
  testutil::Frame pull (const GstVideoInfo & info)
  {
    GstSample *sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink), 120 * GST_SECOND);
    fail_unless (sample != nullptr, "no frame came out of the GL pipeline");
    testutil::Frame frame = testutil::from_buffer (gst_sample_get_buffer (sample), &info);
    gst_sample_unref (sample);
    return frame;
  }
};

GST_START_TEST (test_gl_memory_matches_reference)
{
  const int width = 48, height = 30;
  GlChain chain ("openclbilateral sigma-range=40");
  testutil::Frame input (width, height, 4);
  testutil::fill (input, testutil::Pattern::Edges, 77);
  GstVideoInfo info = chain.play (input, 2);

  reference::BilateralParams params;
  params.sigma_range = 40.0;
  params.radius = 4;
  testutil::Frame expected (width, height, 4);
  reference::bilateral (input.bytes.data (), input.stride, expected.bytes.data (),
      expected.stride, width, height, 4, params);

  for (int i = 0; i < 2; i++) {
    testutil::Frame actual = chain.pull (info);
    auto difference = testutil::compare (actual, expected, { 1, 1, 1, 0 });
    fail_unless (difference.over == 0, "frame %d: %s", i,
        testutil::describe (difference).c_str ());
  }

  /* The filter really ran on GL memory, not on frames converted back to system memory. */
  testutil::expect_negotiated_feature (chain.filter, "sink", "memory:GLMemory");
}
GST_END_TEST;

GST_START_TEST (test_gl_source_to_gl_sink)
{
  std::string error = testutil::run_pipeline ("gltestsrc num-buffers=3 ! "
      "video/x-raw(memory:GLMemory),width=64,height=48 ! openclbilateral ! "
      "openclbilateral mode=luma ! glimagesink sync=false");
  fail_unless (error.empty (), "%s", error.c_str ());
}
GST_END_TEST;

/* openclhistogram on RGBA textures: the counts match the reference, and with draw=true the
 * downloaded frame is the reference drawing. */
GST_START_TEST (test_gl_histogram_matches_reference)
{
  const int width = 300, height = 150, bins = 32;
  GlChain chain ("openclhistogram bins=32 draw=true");
  GstBus *bus = gst_element_get_bus (chain.pipeline);

  testutil::Frame input (width, height, 4);
  testutil::fill (input, testutil::Pattern::Edges, 78);
  GstVideoInfo info = chain.play (input, 1);

  reference::HistogramFrame view;
  view.format = reference::HistogramFormat::RGBA;
  view.width = width;
  view.height = height;
  view.planes[0] = input.bytes.data ();
  view.strides[0] = input.stride;
  auto counts = reference::histogram (view, bins);

  testutil::Frame actual = chain.pull (info);
  reference::draw_histogram (view, counts, bins);  /* now `input` holds the expected frame */
  auto difference = testutil::compare (actual, input, { 0, 0, 0, 0 });
  fail_unless (difference.over == 0, "drawn frame: %s", testutil::describe (difference).c_str ());

  GstMessage *message = nullptr;
  while (!message) {
    message = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND, GST_MESSAGE_ELEMENT);
    fail_unless (message != nullptr, "no opencl-histogram message");
    if (!gst_structure_has_name (gst_message_get_structure (message), "opencl-histogram"))
      gst_clear_message (&message);
  }
  const auto channels = reference::histogram_channels (view.format);
  for (size_t c = 0; c < channels.size (); c++) {
    const GValue *array = gst_structure_get_value (gst_message_get_structure (message),
        channels[c].c_str ());
    fail_unless (array != nullptr && (int) gst_value_array_get_size (array) == bins);
    for (int b = 0; b < bins; b++)
      fail_unless_equals_uint64 (g_value_get_uint64 (gst_value_array_get_value (array, b)),
          counts[c * bins + b]);
  }
  gst_message_unref (message);

  testutil::expect_negotiated_feature (chain.filter, "sink", "memory:GLMemory");
  gst_object_unref (bus);
}
GST_END_TEST;

static Suite *
gl_suite (void)
{
  return TESTUTIL_SUITE ("gl", 600,
      test_gl_memory_matches_reference, test_gl_source_to_gl_sink,
      test_gl_histogram_matches_reference);
}

int
main (int argc, char **argv)
{
  /* GL needs a display (tests/run.sh provides Xvfb) or a headless EGL device
   * (GST_GL_WINDOW=egl-device, as on the GPU machine). Without either this suite is skipped. */
  if (!g_getenv ("DISPLAY") && !g_getenv ("WAYLAND_DISPLAY") &&
      g_strcmp0 (g_getenv ("GST_GL_WINDOW"), "egl-device") != 0) {
    g_printerr ("no display: GL tests skipped (run under xvfb-run)\n");
    return 77;
  }
  gst_check_init (&argc, &argv);
  return gst_check_run_suite (gl_suite (), "gl", __FILE__);
}
