/* gst-opencl tests: a kernel that never ends. OpenCL cannot stop it, so the element gives the
 * device's queue up instead of waiting for ever: past its `timeout` with an error naming the
 * kernel, and, with no timeout, a bounded time after it is asked to stop. Either way the
 * application's state change returns (docs/reliability.md#kernels-that-never-end).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>

#include <string>

#include "common/suite.h"
#include "common/testutil.h"

/* Every work-item writes its own byte of the frame for ever: a loop with a side effect, which
 * the compiler may not remove. */
static const char *kEndless =
    "__kernel void spin (__global const uchar * src, __global volatile uchar * dst,"
    "    int src_stride, int dst_stride, int width, int height)"
    "{"
    "  const int x = get_global_id (0), y = get_global_id (1);"
    "  if (x >= width || y >= height) return;"
    "  for (uint n = 0; ; n++) dst[y * dst_stride + x] = (uchar) n;"
    "}";

static const char *kCopy =
    "__kernel void copy (__global const uchar * src, __global uchar * dst,"
    "    int src_stride, int dst_stride, int width, int height)"
    "{"
    "  const int x = get_global_id (0), y = get_global_id (1);"
    "  if (x < width && y < height) dst[y * dst_stride + x] = src[y * src_stride + x];"
    "}";

static GstElement *
endless_pipeline (guint timeout_ms, bool live)
{
  GstElement *pipeline = testutil::parse_pipeline (std::string ("videotestsrc ") +
      (live ? "is-live=true " : "num-buffers=20 ") +
      "! video/x-raw,format=GRAY8,width=64,height=48,framerate=30/1 "
      "! openclkernel name=k timeout=" + std::to_string (timeout_ms) + " ! fakesink");
  GstElement *kernel = gst_bin_get_by_name (GST_BIN (pipeline), "k");
  g_object_set (kernel, "source", kEndless, nullptr);
  gst_object_unref (kernel);
  return pipeline;
}

/* The state change to NULL, timed; the test fails rather than hangs when it does not return. */
static double
seconds_to_stop (GstElement * pipeline)
{
  GTimer *timer = g_timer_new ();
  GstStateChangeReturn result = gst_element_set_state (pipeline, GST_STATE_NULL);
  const double seconds = g_timer_elapsed (timer, nullptr);
  g_timer_destroy (timer);
  fail_if (result == GST_STATE_CHANGE_FAILURE, "the change to NULL failed");
  return seconds;
}

GST_START_TEST (test_endless_kernel_past_its_timeout)
{
  GstElement *pipeline = endless_pipeline (300, false);
  GstBus *bus = gst_element_get_bus (pipeline);
  GTimer *timer = g_timer_new ();
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  GstMessage *message = gst_bus_timed_pop_filtered (bus, 30 * GST_SECOND,
      (GstMessageType) (GST_MESSAGE_ERROR | GST_MESSAGE_EOS));
  const double seconds = g_timer_elapsed (timer, nullptr);
  g_timer_destroy (timer);
  fail_unless (message != nullptr, "neither an error nor EOS in 30 s");
  fail_unless (GST_MESSAGE_TYPE (message) == GST_MESSAGE_ERROR, "the endless kernel reached EOS");
  const std::string text = testutil::message_text (message);
  GST_INFO ("after %.2f s: %s", seconds, text.c_str ());
  fail_unless (testutil::contains (text, "kernel 'spin'") &&
      testutil::contains (text, "timeout of 300 ms") &&
      testutil::contains (text, "cannot stop a running kernel"), "%s", text.c_str ());
  fail_unless (GST_MESSAGE_SRC (message) != nullptr &&
      g_strcmp0 (GST_OBJECT_NAME (GST_MESSAGE_SRC (message)), "k") == 0,
      "the error came from %s", GST_OBJECT_NAME (GST_MESSAGE_SRC (message)));
  /* Building the program takes its time on a cold cache; the wait itself is 0.3 s. */
  fail_unless (seconds < 25.0, "the error came after %.1f s", seconds);
  gst_message_unref (message);
  const double stop = seconds_to_stop (pipeline);
  fail_unless (stop < 5.0, "set_state (NULL) took %.1f s", stop);
  gst_object_unref (bus);
  gst_object_unref (pipeline);
}
GST_END_TEST;

GST_START_TEST (test_endless_kernel_stopped)
{
  /* No timeout: the element waits as long as the kernel runs, until it is asked to stop. */
  GstElement *pipeline = endless_pipeline (0, true);
  GstBus *bus = gst_element_get_bus (pipeline);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  fail_unless (gst_element_get_state (pipeline, nullptr, nullptr, 30 * GST_SECOND) !=
      GST_STATE_CHANGE_FAILURE);
  GstMessage *message = gst_bus_timed_pop_filtered (bus, 3 * GST_SECOND, GST_MESSAGE_ERROR);
  fail_unless (message == nullptr, "an error while the kernel ran: %s",
      message ? testutil::message_text (message).c_str () : "");
  const double stop = seconds_to_stop (pipeline);
  GST_INFO ("set_state (NULL) returned after %.2f s", stop);
  /* The grace after the request to stop is 2 s; the rest is the waits' 50 ms period. */
  fail_unless (stop >= 1.5 && stop < 6.0, "set_state (NULL) took %.1f s", stop);
  gst_object_unref (bus);
  gst_object_unref (pipeline);
}
GST_END_TEST;

/* The pool of host-visible OpenCL frames an element offers upstream: whoever maps those frames
 * calls into the driver, which may hold the call behind a kernel that never ends. So with a
 * `timeout` the element keeps its frames to itself, and without one it offers them as before. */
static bool
offers_opencl_pool (guint timeout_ms)
{
  GstHarness *h = gst_harness_new_parse (("openclkernel timeout=" + std::to_string (timeout_ms) +
          " source=\"" + kCopy + "\"").c_str ());
  gst_harness_set_src_caps_str (h, "video/x-raw,format=GRAY8,width=64,height=48,framerate=30/1");
  GstCaps *caps = gst_caps_from_string ("video/x-raw,format=GRAY8,width=64,height=48,"
      "framerate=30/1");
  GstQuery *query = gst_query_new_allocation (caps, TRUE);
  gst_caps_unref (caps);
  fail_unless (gst_pad_peer_query (h->srcpad, query), "the allocation query failed");
  bool ours = false;
  for (guint i = 0; i < gst_query_get_n_allocation_pools (query); i++) {
    GstBufferPool *pool = nullptr;
    gst_query_parse_nth_allocation_pool (query, i, &pool, nullptr, nullptr, nullptr);
    ours |= pool && testutil::contains (G_OBJECT_TYPE_NAME (pool), "OpenCL");
    if (pool)
      gst_object_unref (pool);
  }
  gst_query_unref (query);
  gst_harness_teardown (h);
  return ours;
}

GST_START_TEST (test_timeout_keeps_frames_apart)
{
  if (g_strcmp0 (g_getenv ("GST_OPENCL_HOST_FRAMES"), "0") != 0)
    fail_unless (offers_opencl_pool (0), "no pool of OpenCL frames offered without a timeout");
  fail_if (offers_opencl_pool (500), "a pool of OpenCL frames offered with a timeout");
}
GST_END_TEST;

static Suite *
endless_kernel_suite (void)
{
  return TESTUTIL_SUITE ("endless-kernel", 120,
      test_endless_kernel_past_its_timeout, test_endless_kernel_stopped,
      test_timeout_keeps_frames_apart);
}

int
main (int argc, char **argv)
{
  gst_check_init (&argc, &argv);
  return gst_check_run_suite (endless_kernel_suite (), "endless_kernel", __FILE__);
}
