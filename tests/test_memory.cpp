/* gst-opencl tests: OpenCL memory between elements, openclupload and opencldownload.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "common/suite.h"
#include "common/testutil.h"
#include "reference/bilateral_reference.h"

namespace {

/* A frame of any format with rows padded by `padding` bytes, every byte random (the padding
 * too: it must not leak into the output). */
GstBuffer *
random_frame (const GstVideoInfo * tight, int padding, uint32_t seed)
{
  GstVideoInfo padded = *tight;
  gsize offset = 0;
  for (guint plane = 0; plane < GST_VIDEO_INFO_N_PLANES (tight); plane++) {
    padded.stride[plane] = tight->stride[plane] + padding;
    padded.offset[plane] = offset;
    gint comp[GST_VIDEO_MAX_COMPONENTS];
    gst_video_format_info_component (tight->finfo, plane, comp);
    offset += (gsize) padded.stride[plane] * GST_VIDEO_INFO_COMP_HEIGHT (tight, comp[0]);
  }
  GstBuffer *buffer = gst_buffer_new_allocate (nullptr, offset, nullptr);
  GstMapInfo map;
  gst_buffer_map (buffer, &map, GST_MAP_WRITE);
  std::mt19937 random (seed);
  for (gsize i = 0; i < map.size; i++)
    map.data[i] = (guint8) random ();
  gst_buffer_unmap (buffer, &map);
  gst_buffer_add_video_meta_full (buffer, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_INFO_FORMAT (tight), GST_VIDEO_INFO_WIDTH (tight), GST_VIDEO_INFO_HEIGHT (tight),
      GST_VIDEO_INFO_N_PLANES (tight), padded.offset, padded.stride);
  return buffer;
}

/* Every pixel byte of every plane equal (padding ignored). */
void
check_same_pixels (GstBuffer * expected, GstBuffer * actual, const GstVideoInfo * info,
    const std::string & label)
{
  GstVideoFrame a, b;
  fail_unless (gst_video_frame_map (&a, info, expected, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&b, info, actual, GST_MAP_READ), "%s: cannot map output",
      label.c_str ());
  for (guint plane = 0; plane < GST_VIDEO_FRAME_N_PLANES (&a); plane++) {
    gint comp[GST_VIDEO_MAX_COMPONENTS];
    gst_video_format_info_component (info->finfo, plane, comp);
    const int rows = GST_VIDEO_FRAME_COMP_HEIGHT (&a, comp[0]);
    int row_bytes = 0;
    for (guint c = 0; c < GST_VIDEO_MAX_COMPONENTS && comp[c] >= 0; c++)
      row_bytes = MAX (row_bytes, GST_VIDEO_FRAME_COMP_WIDTH (&a, comp[c]) *
          GST_VIDEO_FRAME_COMP_PSTRIDE (&a, comp[c]));
    for (int y = 0; y < rows; y++) {
      const guint8 *row_a = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&a, plane) +
          y * GST_VIDEO_FRAME_PLANE_STRIDE (&a, plane);
      const guint8 *row_b = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&b, plane) +
          y * GST_VIDEO_FRAME_PLANE_STRIDE (&b, plane);
      for (int x = 0; x < row_bytes; x++)
        fail_unless (row_a[x] == row_b[x], "%s: plane %u row %d byte %d: %d != %d",
            label.c_str (), plane, y, x, row_a[x], row_b[x]);
    }
  }
  gst_video_frame_unmap (&b);
  gst_video_frame_unmap (&a);
}

const GstVideoFormat formats[] = {
  GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_BGRA, GST_VIDEO_FORMAT_RGBx, GST_VIDEO_FORMAT_BGRx,
  GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_NV12,
};

GstCaps *
caps_for (const GstVideoInfo * info, bool opencl)
{
  GstCaps *caps = gst_video_info_to_caps (info);
  if (opencl)
    gst_caps_set_features (caps, 0, gst_caps_features_new ("memory:OpenCLMemory", nullptr));
  return caps;
}

}  // namespace

/* Upload then download: bit-exact for every format, odd sizes and padded input rows. */
GST_START_TEST (test_round_trip_is_exact)
{
  uint32_t seed = 1;
  for (GstVideoFormat format : formats) {
    for (auto size : { std::pair<int, int> { 1, 1 }, std::pair<int, int> { 17, 9 },
            std::pair<int, int> { 64, 48 } }) {
      GstVideoInfo info;
      gst_video_info_set_format (&info, format, size.first, size.second);
      GstHarness *h = gst_harness_new_parse ("openclupload ! "
          "video/x-raw(memory:OpenCLMemory) ! opencldownload");
      GstCaps *caps = caps_for (&info, false);
      gst_harness_set_caps (h, gst_caps_ref (caps), caps);
      for (int padding : { 0, 13 }) {
        GstBuffer *input = random_frame (&info, padding, seed++);
        GstBuffer *output = gst_harness_push_and_pull (h, gst_buffer_ref (input));
        fail_unless (output != nullptr);
        std::string label = std::string (gst_video_format_to_string (format)) + " " +
            std::to_string (size.first) + "x" + std::to_string (size.second) + " padding " +
            std::to_string (padding);
        check_same_pixels (input, output, &info, label);
        gst_buffer_unref (output);
        gst_buffer_unref (input);
      }
      gst_harness_teardown (h);
    }
  }
}
GST_END_TEST;

/* openclupload's output really is OpenCL memory, from a pool (buffers come back), and a host
 * map of it gives the frame. */
GST_START_TEST (test_upload_produces_opencl_memory_from_a_pool)
{
  GstVideoInfo info;
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_RGBA, 32, 8);
  GstHarness *h = gst_harness_new ("openclupload");
  gst_harness_set_caps (h, caps_for (&info, false), caps_for (&info, true));
  std::vector<GstMemory *> seen;
  for (int i = 0; i < 6; i++) {
    GstBuffer *input = random_frame (&info, 0, 100 + i);
    GstBuffer *output = gst_harness_push_and_pull (h, gst_buffer_ref (input));
    fail_unless_equals_int (gst_buffer_n_memory (output), 1);
    GstMemory *memory = gst_buffer_peek_memory (output, 0);
    fail_unless (gst_memory_is_type (memory, "OpenCLMemory"));
    check_same_pixels (input, output, &info, "host map of OpenCL memory");
    seen.push_back (memory);
    gst_buffer_unref (output);
    gst_buffer_unref (input);
  }
  /* A pool recycles its buffers: six frames, one at a time, need fewer than six memories. */
  std::sort (seen.begin (), seen.end ());
  fail_unless (std::unique (seen.begin (), seen.end ()) - seen.begin () < 6);
  gst_harness_teardown (h);
}
GST_END_TEST;

/* Every video element keeps frames in OpenCL memory when both neighbours take it: what leaves
 * it is OpenCL memory from its pool, not system memory under OpenCL caps (the temporal filter's
 * outputs once were, its base class having taken it for a passthrough element). */
static void
count_opencl_frames (GstElement *, GstBuffer * buffer, GstPad *, gpointer data)
{
  auto *counts = static_cast<int *> (data);
  counts[0]++;
  if (gst_buffer_n_memory (buffer) == 1 &&
      gst_memory_is_type (gst_buffer_peek_memory (buffer, 0), "OpenCLMemory"))
    counts[1]++;
}

GST_START_TEST (test_every_element_outputs_opencl_memory)
{
  const char *caps = "video/x-raw(memory:OpenCLMemory),format=RGBA,width=40,height=24";
  for (const char *element : { "openclbilateral", "openclconvolve3d", "openclsort",
           "openclhistogram" }) {
    std::string launch = std::string ("videotestsrc num-buffers=5 ! video/x-raw,format=RGBA,"
        "width=40,height=24 ! openclupload ! ") + element + " ! " + caps +
        " ! fakesink name=sink signal-handoffs=true";
    GstElement *pipeline = testutil::parse_pipeline (launch.c_str ());
    GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
    int counts[2] = { 0, 0 };
    g_signal_connect (sink, "handoff", G_CALLBACK (count_opencl_frames), counts);
    std::string error = testutil::run_pipeline (pipeline);
    fail_unless (error.empty (), "%s: %s", element, error.c_str ());
    fail_unless_equals_int (counts[0], 5);
    fail_unless (counts[1] == 5, "%s: %d of 5 frames left in OpenCL memory", element,
        counts[1]);
    gst_object_unref (sink);  /* run_pipeline took the pipeline */
  }
}
GST_END_TEST;

/* Buffers already in the memory an element produces pass through it: OpenCL memory through
 * openclupload, system memory through opencldownload. */
GST_START_TEST (test_passthrough_when_already_there)
{
  GstVideoInfo info;
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, 16, 4);
  for (bool upload : { true, false }) {
    const char *element = upload ? "openclupload" : "opencldownload";
    GstHarness *h = gst_harness_new (element);
    gst_harness_set_caps (h, caps_for (&info, upload), caps_for (&info, upload));
    GstBuffer *input = random_frame (&info, 0, 7);
    GstBuffer *output = gst_harness_push_and_pull (h, gst_buffer_ref (input));
    fail_unless (output == input, "%s copied instead of passing through", element);
    gst_buffer_unref (output);
    gst_buffer_unref (input);
    gst_harness_teardown (h);
  }
}
GST_END_TEST;

/* A pipeline negotiates OpenCL memory by itself and runs to EOS; the upload's device is the
 * download's (one shared context). */
GST_START_TEST (test_pipeline_negotiates_and_shares_context)
{
  GError *error = nullptr;
  GstElement *pipeline = gst_parse_launch ("videotestsrc num-buffers=5 ! "
      "video/x-raw,format=I420,width=35,height=21 ! openclupload name=up ! "
      "opencldownload name=down ! video/x-raw,format=I420 ! fakesink", &error);
  fail_unless (pipeline && !error);
  GstElement *up = gst_bin_get_by_name (GST_BIN (pipeline), "up");
  GstElement *down = gst_bin_get_by_name (GST_BIN (pipeline), "down");
  gst_element_set_state (pipeline, GST_STATE_PAUSED);
  gst_element_get_state (pipeline, nullptr, nullptr, GST_CLOCK_TIME_NONE);
  testutil::expect_negotiated_feature (up, "src", "memory:OpenCLMemory");
  gchar *up_device = nullptr, *down_device = nullptr;
  g_object_get (up, "device-name", &up_device, nullptr);
  g_object_get (down, "device-name", &down_device, nullptr);
  fail_unless (up_device && down_device);
  fail_unless_equals_string (up_device, down_device);
  g_free (up_device);
  g_free (down_device);
  gst_object_unref (up);
  gst_object_unref (down);
  std::string result = testutil::run_pipeline (pipeline);
  fail_unless (result.empty (), "%s", result.c_str ());
}
GST_END_TEST;

/* The negotiated caps on a named element's src pad carry OpenCL memory, or not. */
static bool
src_is_opencl (GstElement * bin, const char *name)
{
  GstElement *element = gst_bin_get_by_name (GST_BIN (bin), name);
  fail_unless (element != nullptr, "no element %s", name);
  bool opencl = testutil::negotiated_feature (element, "src", "memory:OpenCLMemory");
  gst_object_unref (element);
  return opencl;
}

/* A filter between OpenCL-memory elements works on the device frames in place of host copies,
 * and the result is the same as through system memory: within 1 of the float64 reference. The
 * chains cover device in and out, device in / system out, and system in / device out. */
GST_START_TEST (test_filter_on_device_frames_matches_reference)
{
  const char *chains[] = {
    "openclupload ! openclbilateral name=f ! opencldownload",
    "openclupload ! openclbilateral name=f ! video/x-raw ! identity",
    "identity ! openclbilateral name=f ! video/x-raw(memory:OpenCLMemory) ! opencldownload",
  };
  const bool output_on_device[] = { true, false, true };
  GstVideoInfo info;
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_RGBA, 37, 21);
  for (size_t c = 0; c < G_N_ELEMENTS (chains); c++) {
    GstHarness *h = gst_harness_new_parse (chains[c]);
    GstCaps *caps = caps_for (&info, false);
    gst_harness_set_caps (h, gst_caps_ref (caps), caps);
    for (int frame = 0; frame < 3; frame++) {
      testutil::Frame input (37, 21, 4);
      testutil::fill (input, frame == 1 ? testutil::Pattern::Edges : testutil::Pattern::Random,
          500 + frame);
      GstBuffer *out = gst_harness_push_and_pull (h,
          testutil::to_buffer (input, GST_VIDEO_FORMAT_RGBA));
      fail_unless (out != nullptr);
      testutil::Frame actual = testutil::from_buffer (out, &info);
      gst_buffer_unref (out);
      testutil::Frame expected (37, 21, 4);
      reference::BilateralParams params;
      reference::bilateral (input.bytes.data (), input.stride, expected.bytes.data (),
          expected.stride, 37, 21, 4, params);
      auto difference = testutil::compare (actual, expected, { 1, 1, 1, 0 });
      fail_unless (difference.over == 0, "%s, frame %d: %s", chains[c], frame,
          testutil::describe (difference).c_str ());
    }
    fail_unless (src_is_opencl (h->element, "f") == output_on_device[c], "%s", chains[c]);
    gst_harness_teardown (h);
  }
}
GST_END_TEST;

/* The bytes of the frames a pipeline ending in an appsink named "out" delivers. */
static std::vector<std::vector<guint8>>
collect_frames (const std::string & launch_line)
{
  GError *error = nullptr;
  GstElement *pipeline = gst_parse_launch (launch_line.c_str (), &error);
  fail_unless (pipeline && !error, "%s", launch_line.c_str ());
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "out");
  std::vector<std::vector<guint8>> frames;
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  while (true) {
    GstSample *sample = nullptr;
    g_signal_emit_by_name (sink, "pull-sample", &sample);
    if (!sample)
      break;
    GstMapInfo map;
    fail_unless (gst_buffer_map (gst_sample_get_buffer (sample), &map, GST_MAP_READ));
    frames.emplace_back (map.data, map.data + map.size);
    gst_buffer_unmap (gst_sample_get_buffer (sample), &map);
    gst_sample_unref (sample);
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  return frames;
}

/* The source renders straight into OpenCL memory when downstream takes it: the same pixels as
 * rendered to system memory, through a filter on the device too. */
GST_START_TEST (test_source_renders_into_opencl_memory)
{
  const std::string source = "openclmandelboxsrc num-buffers=2 animate=false yaw=20 ! ";
  const std::string caps = "width=48,height=32,format=RGBA";
  auto on_host = collect_frames (source + "video/x-raw," + caps +
      " ! openclbilateral ! video/x-raw ! appsink name=out sync=false");
  auto on_device = collect_frames (source + "video/x-raw(memory:OpenCLMemory)," + caps +
      " ! openclbilateral ! video/x-raw(memory:OpenCLMemory) ! opencldownload ! "
      "appsink name=out sync=false");
  fail_unless_equals_int (on_host.size (), 2);
  fail_unless_equals_int (on_device.size (), 2);
  for (size_t i = 0; i < on_host.size (); i++)
    fail_unless (on_host[i] == on_device[i], "frame %zu differs", i);
}
GST_END_TEST;

/* openclsort sorts frames in OpenCL memory where they are: the same pixels as through system
 * memory, for both directions. */
GST_START_TEST (test_sort_on_device_frames)
{
  for (const char *direction : { "rows", "columns" }) {
    const std::string source = "videotestsrc num-buffers=2 pattern=snow ! "
        "video/x-raw,format=BGRA,width=40,height=24 ! ";
    const std::string sort = std::string ("openclsort direction=") + direction + " key=red";
    auto on_host = collect_frames (source + sort + " ! appsink name=out sync=false");
    auto on_device = collect_frames (source + "openclupload ! " + sort +
        " ! opencldownload ! appsink name=out sync=false");
    fail_unless_equals_int (on_host.size (), 2);
    fail_unless_equals_int (on_device.size (), 2);
    for (size_t i = 0; i < on_host.size (); i++)
      fail_unless (on_host[i] == on_device[i], "%s: frame %zu differs", direction, i);
  }
}
GST_END_TEST;

static Suite *
memory_suite (void)
{
  return TESTUTIL_SUITE ("memory", 300,
      test_round_trip_is_exact, test_upload_produces_opencl_memory_from_a_pool,
      test_every_element_outputs_opencl_memory, test_passthrough_when_already_there,
      test_pipeline_negotiates_and_shares_context,
      test_filter_on_device_frames_matches_reference, test_source_renders_into_opencl_memory,
      test_sort_on_device_frames);
}

GST_CHECK_MAIN (memory);
