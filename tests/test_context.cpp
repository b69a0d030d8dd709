/* gst-opencl tests: one OpenCL context per device per pipeline, shared through the GstContext
 * "gst.opencl.context"; an application can hand one pipeline's context to another.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include <gst/check/gstcheck.h>

#include <string>

#include "common/suite.h"
#include "common/testutil.h"

namespace {

GstElement *
paused_pipeline (const char *description)
{
  GstElement *pipeline = testutil::parse_pipeline (description);
  fail_unless (gst_element_set_state (pipeline, GST_STATE_PAUSED) != GST_STATE_CHANGE_FAILURE);
  fail_unless (gst_element_get_state (pipeline, nullptr, nullptr, 120 * GST_SECOND) ==
      GST_STATE_CHANGE_SUCCESS);
  return pipeline;
}

GstElement *
by_name (GstElement * pipeline, const char *name)
{
  GstElement *element = gst_bin_get_by_name (GST_BIN (pipeline), name);
  fail_unless (element != nullptr);
  return element;
}

const char *chain = "videotestsrc num-buffers=3 ! video/x-raw,format=RGBA,width=32,height=16 ! "
    "openclbilateral name=a ! openclbilateral name=b radius=2 ! "
    "openclbilateral name=c device=cpu ! fakesink";

/* The device-name of `name` in the paused `pipeline`. */
std::string
device_name (GstElement * pipeline, const char *name)
{
  GstElement *element = by_name (pipeline, name);
  std::string result = testutil::string_property (element, "device-name");
  gst_object_unref (element);
  return result;
}

}  // namespace

GST_START_TEST (test_chained_elements_share_one_context)
{
  GstElement *pipeline = paused_pipeline (chain);
  GstElement *a = by_name (pipeline, "a"), *b = by_name (pipeline, "b"),
      *c = by_name (pipeline, "c");
  GObject *context_a = testutil::element_context (a);
  GObject *context_b = testutil::element_context (b);
  GObject *context_c = testutil::element_context (c);
  fail_unless (context_a != nullptr);
  fail_unless (context_a == context_b, "neighbours run on different OpenCL contexts");
  /* "cpu" joins its neighbours' context when it names their device (the automatic choice or
   * GST_OPENCL_DEVICE's), and gets one of its own otherwise (GST_OPENCL_DEVICE=rusticl with PoCL
   * beside it, say). What it names is asked of an element alone in a pipeline. */
  GstElement *alone = paused_pipeline ("videotestsrc num-buffers=1 ! "
      "video/x-raw,format=RGBA,width=32,height=16 ! openclbilateral name=c device=cpu ! "
      "fakesink");
  const std::string cpu_device = device_name (alone, "c");
  gst_element_set_state (alone, GST_STATE_NULL);
  gst_object_unref (alone);
  const std::string neighbours_device = device_name (pipeline, "a");
  fail_if (cpu_device.empty () || neighbours_device.empty ());
  /* Kept in a variable: the macro reads the pointer after a temporary's life. */
  const std::string c_device = device_name (pipeline, "c");
  fail_unless_equals_string (c_device.c_str (), cpu_device.c_str ());
  if (cpu_device == neighbours_device)
    fail_unless (context_a == context_c, "\"cpu\" is %s like its neighbours, yet has its own "
        "context", cpu_device.c_str ());
  else
    fail_unless (context_a != context_c, "\"cpu\" is %s, its neighbours %s, yet they share "
        "a context", cpu_device.c_str (), neighbours_device.c_str ());
  g_object_unref (context_a);
  g_object_unref (context_b);
  g_object_unref (context_c);
  gst_object_unref (a);
  gst_object_unref (b);
  gst_object_unref (c);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
}
GST_END_TEST;

GST_START_TEST (test_application_shares_context_between_pipelines)
{
  GstElement *first = paused_pipeline (chain);
  GstElement *a = by_name (first, "a");
  GObject *shared = testutil::element_context (a);
  fail_unless (shared != nullptr);

  /* The application hands the first pipeline's context to the second before it starts. */
  GstContext *context = testutil::application_context (shared);
  GstElement *second = gst_parse_launch ("videotestsrc num-buffers=1 ! "
      "video/x-raw,format=GRAY8,width=8,height=8 ! openclbilateral name=x ! fakesink", nullptr);
  gst_element_set_context (second, context);
  gst_context_unref (context);
  fail_unless (gst_element_set_state (second, GST_STATE_PAUSED) != GST_STATE_CHANGE_FAILURE);
  fail_unless (gst_element_get_state (second, nullptr, nullptr, 120 * GST_SECOND) ==
      GST_STATE_CHANGE_SUCCESS);
  GstElement *x = by_name (second, "x");
  GObject *used = testutil::element_context (x);
  fail_unless (used == shared, "the element ignored the context it was given");

  g_object_unref (used);
  g_object_unref (shared);
  gst_object_unref (x);
  gst_object_unref (a);
  gst_element_set_state (second, GST_STATE_NULL);
  gst_element_set_state (first, GST_STATE_NULL);
  gst_object_unref (second);
  gst_object_unref (first);
}
GST_END_TEST;

GST_START_TEST (test_separate_pipelines_get_separate_contexts)
{
  GstElement *first = paused_pipeline (chain);
  GstElement *second = paused_pipeline (chain);
  GstElement *a1 = by_name (first, "a"), *a2 = by_name (second, "a");
  GObject *c1 = testutil::element_context (a1), *c2 = testutil::element_context (a2);
  fail_unless (c1 && c2 && c1 != c2);
  g_object_unref (c1);
  g_object_unref (c2);
  gst_object_unref (a1);
  gst_object_unref (a2);
  gst_element_set_state (first, GST_STATE_NULL);
  gst_element_set_state (second, GST_STATE_NULL);
  gst_object_unref (first);
  gst_object_unref (second);
}
GST_END_TEST;

GST_START_TEST (test_chain_runs_to_eos)
{
  std::string error = testutil::run_pipeline (chain);
  fail_unless (error.empty (), "%s", error.c_str ());
}
GST_END_TEST;

static Suite *
context_suite (void)
{
  return TESTUTIL_SUITE ("context", 600,
      test_chained_elements_share_one_context,
      test_application_shares_context_between_pipelines,
      test_separate_pipelines_get_separate_contexts, test_chain_runs_to_eos);
}

GST_CHECK_MAIN (context);
