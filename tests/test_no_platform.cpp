/* gst-opencl tests: a machine with no OpenCL platform at all. The ICD loader is pointed at an
 * empty folder before anything touches OpenCL: the plugin must still load, and the element must
 * fail its state change with "no OpenCL device".
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include <gst/check/gstcheck.h>
#include <glib/gstdio.h>

#include <string>

#include "common/suite.h"
#include "common/testutil.h"
#include <CL/cl.h>

GST_START_TEST (test_plugin_loads_without_platform)
{
  GstPlugin *plugin = gst_registry_find_plugin (gst_registry_get (), "opencl");
  fail_unless (plugin != nullptr, "the opencl plugin did not load");
  gst_object_unref (plugin);
  GstElement *element = gst_element_factory_make ("openclbilateral", nullptr);
  fail_unless (element != nullptr);
  gst_object_unref (element);
}
GST_END_TEST;

GST_START_TEST (test_start_fails_with_no_device)
{
  GstElement *pipeline = testutil::parse_pipeline ("videotestsrc num-buffers=1 ! "
      "video/x-raw,format=RGBA,width=8,height=8 ! openclbilateral ! fakesink");
  /* The state change itself fails... */
  GstStateChangeReturn change = gst_element_set_state (pipeline, GST_STATE_PAUSED);
  fail_unless_equals_int (change, GST_STATE_CHANGE_FAILURE);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
  /* ...and says why on the bus. */
  std::string error = testutil::run_pipeline ("videotestsrc num-buffers=1 ! "
      "video/x-raw,format=RGBA,width=8,height=8 ! openclbilateral ! fakesink");
  fail_unless (error.find ("no OpenCL device") != std::string::npos, "%s", error.c_str ());
}
GST_END_TEST;

static Suite *
no_platform_suite (void)
{
  return TESTUTIL_SUITE ("no-platform", 0,
      test_plugin_loads_without_platform, test_start_fails_with_no_device);
}

int
main (int argc, char **argv)
{
  gchar *empty = g_dir_make_tmp ("gst-opencl-no-icd-XXXXXX", nullptr);
  g_setenv ("OCL_ICD_VENDORS", empty, TRUE);
  /* A registry of its own: the plugin is loaded afresh with no platform. */
  gchar *registry = g_build_filename (empty, "registry.bin", nullptr);
  g_setenv ("GST_REGISTRY", registry, TRUE);
  /* Some ICD loaders (not Debian's ocl-icd) read the system's vendor folder whatever
   * OCL_ICD_VENDORS says: then no platform-less machine can be simulated here. */
  cl_uint platforms = 0;
  if (clGetPlatformIDs (0, nullptr, &platforms) == CL_SUCCESS && platforms > 0) {
    g_print ("the OpenCL ICD loader ignores OCL_ICD_VENDORS (%u platforms): skipped\n",
        platforms);
    g_rmdir (empty);
    return 77;  /* meson's "skipped" */
  }
  gst_check_init (&argc, &argv);
  int failed = gst_check_run_suite (no_platform_suite (), "no-platform", __FILE__);
  g_unlink (registry);
  g_rmdir (empty);
  g_free (registry);
  g_free (empty);
  return failed;
}
