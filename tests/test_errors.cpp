/* gst-opencl tests: bad input gets a clear error on the bus, never a crash, and the element can
 * be used again afterwards.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include <gst/check/gstcheck.h>
#include <glib/gstdio.h>

#include <string>

#include "common/suite.h"
#include "common/testutil.h"

using testutil::contains;

namespace {

const char *small_source = "videotestsrc num-buffers=2 ! "
    "video/x-raw,format=RGBA,width=16,height=16 ! ";

std::string
run_with_device (const std::string & device)
{
  return testutil::run_pipeline (std::string (small_source) + "openclbilateral device=\"" +
      device + "\" ! fakesink");
}


/* A temporary folder holding one kernel override; removed by the destructor. */
struct KernelOverride
{
  std::string dir;
  explicit KernelOverride (const std::string & bilateral_source, bool as_directory = false)
  {
    gchar *made = g_dir_make_tmp ("gst-opencl-kernels-XXXXXX", nullptr);
    dir = made;
    g_free (made);
    std::string path = dir + "/bilateral.cl";
    if (as_directory)
      g_mkdir (path.c_str (), 0700);
    else
      g_file_set_contents (path.c_str (), bilateral_source.c_str (), -1, nullptr);
    g_setenv ("GST_OPENCL_KERNEL_DIR", dir.c_str (), TRUE);
  }
  ~KernelOverride ()
  {
    g_unsetenv ("GST_OPENCL_KERNEL_DIR");
    std::string path = dir + "/bilateral.cl";
    g_remove (path.c_str ());
    g_rmdir (dir.c_str ());
  }
};

}  // namespace

GST_START_TEST (test_unknown_device_lists_devices)
{
  std::string error = run_with_device ("no-such-platform");
  TESTUTIL_EXPECT_ERROR (error, "no OpenCL device matches \"no-such-platform\"");
  /* The message names what exists: PoCL's platform here. */
  TESTUTIL_EXPECT_ERROR (error, "available devices");
  TESTUTIL_EXPECT_ERROR (error, "Portable Computing Language:0");

  error = run_with_device ("Portable Computing Language:7");
  TESTUTIL_EXPECT_ERROR (error, "no OpenCL device matches");
}
GST_END_TEST;

GST_START_TEST (test_malformed_device_strings)
{
  for (const char *device : { "pocl:abc", ":0", "pocl:", "pocl:-1" }) {
    std::string error = run_with_device (device);
    fail_unless (contains (error, "malformed device string"), "%s: %s", device, error.c_str ());
  }
}
GST_END_TEST;

GST_START_TEST (test_valid_device_strings)
{
  for (const char *device : { "", "cpu", "CPU", "portable", "Portable Computing Language:0" }) {
    std::string error = run_with_device (device);
    fail_unless (error.empty (), "device \"%s\": %s", device, error.c_str ());
  }
}
GST_END_TEST;

GST_START_TEST (test_environment_device)
{
  g_setenv ("GST_OPENCL_DEVICE", "no-such-platform", TRUE);
  std::string error = run_with_device ("");
  TESTUTIL_EXPECT_ERROR (error, "no-such-platform");
  /* The property wins over the environment. */
  error = run_with_device ("cpu");
  fail_unless (error.empty (), "%s", error.c_str ());
  g_unsetenv ("GST_OPENCL_DEVICE");
}
GST_END_TEST;

GST_START_TEST (test_build_failure_reports_log_and_recovers)
{
  /* The override replaces kernels/bilateral.cl: run the variant built from it (CPU devices
   * otherwise take the vector kernel of bilateral_vec.cl). */
  g_setenv ("GST_OPENCL_VARIANT_BILATERAL", "tiled-16x16x2", TRUE);
  GstElement *pipeline = nullptr;
  {
    KernelOverride broken ("__kernel void bilateral (__global int *x) { this is not C; }\n");
    std::string error = run_with_device ("");
    TESTUTIL_EXPECT_ERROR (error, "kernel bilateral failed to build");
    TESTUTIL_EXPECT_ERROR (error, "CL_BUILD_PROGRAM_FAILURE");
    TESTUTIL_EXPECT_ERROR (error, "build log");
    /* The log is the compiler's own diagnostic about the bad source. */
    fail_unless (contains (error, "error:") && contains (error, "this"), "%s", error.c_str ());
  }
  /* The same element, back to NULL with the override gone, runs. */
  GError *parse_error = nullptr;
  pipeline = gst_parse_launch ((std::string (small_source) +
          "openclbilateral name=f ! fakesink").c_str (), &parse_error);
  fail_unless (pipeline != nullptr);
  {
    KernelOverride broken ("garbage");
    GstBus *bus = gst_element_get_bus (pipeline);
    gst_element_set_state (pipeline, GST_STATE_PLAYING);
    GstMessage *message = gst_bus_timed_pop_filtered (bus, 120 * GST_SECOND,
        (GstMessageType) (GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
    fail_unless (message && GST_MESSAGE_TYPE (message) == GST_MESSAGE_ERROR);
    gst_message_unref (message);
    gst_element_set_state (pipeline, GST_STATE_NULL);
    gst_object_unref (bus);
  }
  std::string error = testutil::run_pipeline (pipeline);
  fail_unless (error.empty (), "after recovering: %s", error.c_str ());
  g_unsetenv ("GST_OPENCL_VARIANT_BILATERAL");
}
GST_END_TEST;

GST_START_TEST (test_unreadable_kernel_override)
{
  KernelOverride unreadable ("", true);
  std::string error = run_with_device ("");
  TESTUTIL_EXPECT_ERROR (error, "cannot read kernel override");
}
GST_END_TEST;

GST_START_TEST (test_frame_too_large_for_device)
{
  /* GStreamer cannot describe a frame over 2 GiB, less than PoCL's largest allocation here
   * (4 GiB), so the test lowers the device's limit to 1 MiB and sends a 4 MiB frame. The error
   * comes at caps time, before any buffer is made. */
  std::string error = testutil::run_pipeline_with_max_alloc ("1048576",
      "videotestsrc num-buffers=1 ! "
      "video/x-raw,format=RGBA,width=1024,height=1024 ! openclbilateral ! fakesink");
  TESTUTIL_EXPECT_ERROR (error, "exceeds the largest buffer");
  /* A limit that is no number is an error, not ignored. */
  error = testutil::run_pipeline_with_max_alloc ("banana", "videotestsrc num-buffers=1 ! "
      "video/x-raw,format=RGBA,width=16,height=16 ! openclbilateral ! fakesink");
  TESTUTIL_EXPECT_ERROR (error, "GST_OPENCL_MAX_ALLOC_BYTES=banana is not a number of bytes");
}
GST_END_TEST;

/* A GRAY8 frame whose rows lack GStreamer's 4-byte padding (a 30-pixel row takes 32 bytes):
 * 30x8 = 240 bytes where the caps describe 256. The error names both sizes, the frame and the
 * caps, for a filter and for the filter bank. */
GST_START_TEST (test_short_buffer_names_the_sizes)
{
  for (const char *element : { "openclbilateral", "openclmulticonvolve kernels=\"<1.0>\" "
          "kernel-size=1 ! video/x-raw,format=GRAY8" }) {
    GstElement *pipeline = testutil::parse_pipeline (std::string ("appsrc name=src "
            "caps=video/x-raw,format=GRAY8,width=30,height=8,framerate=30/1 format=time ! ") +
        element + " ! fakesink");
    GstElement *src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
    GstBuffer *buffer = gst_buffer_new_allocate (nullptr, 30 * 8, nullptr);
    gst_buffer_memset (buffer, 0, 7, 30 * 8);
    GST_BUFFER_PTS (buffer) = 0;
    GstFlowReturn pushed = GST_FLOW_OK;
    g_signal_emit_by_name (src, "push-buffer", buffer, &pushed);
    gst_buffer_unref (buffer);
    g_signal_emit_by_name (src, "end-of-stream", &pushed);
    gst_object_unref (src);
    const std::string error = testutil::run_pipeline (pipeline);
    for (const char *part : { "a buffer of 240 bytes", "256 bytes are expected",
            "GRAY8 30x8 with row stride 32", "caps video/x-raw" })
      fail_unless (error.find (part) != std::string::npos, "%s: \"%s\" not in: %s", element,
          part, error.c_str ());
  }
}
GST_END_TEST;

static Suite *
errors_suite (void)
{
  return TESTUTIL_SUITE ("errors", 600,
      test_unknown_device_lists_devices, test_malformed_device_strings,
      test_valid_device_strings, test_environment_device,
      test_build_failure_reports_log_and_recovers, test_unreadable_kernel_override,
      test_frame_too_large_for_device, test_short_buffer_names_the_sizes);
}

GST_CHECK_MAIN (errors);
