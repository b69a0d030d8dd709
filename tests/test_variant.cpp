/* gst-opencl tests: every element whose kernels come in variants reports the one it runs the
 * same way: the read-only `variant` property (NULL before the first frame and after a stop) and
 * an `opencl-variant` element message from the element, whose `variant` field is the property's
 * value. Elements without variants leave the property NULL and post no such message.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include <gst/check/gstcheck.h>

#include <string>

#include "common/suite.h"
#include "common/testutil.h"

namespace {

struct Case
{
  const char *name;      /* the element's name in the pipeline */
  std::string pipeline;  /* with a few frames and a fakesink */
  bool tuned;
};

const char *kTensors = "other/tensors,format=static,num_tensors=1,types=int32,"
    "dimensions=(string)64:8,framerate=(fraction)0/1";

void
check_case (const Case & c)
{
  GstElement *pipeline = testutil::parse_pipeline (c.pipeline);
  GstElement *element = gst_bin_get_by_name (GST_BIN (pipeline), "e");
  fail_unless (element != nullptr, "%s: no element named e", c.name);
  testutil::expect_read_only (element, "variant");
  gchar *before = (gchar *) "x";
  g_object_get (element, "variant", &before, nullptr);
  fail_unless (before == nullptr, "%s: variant %s before the first frame", c.name, before);

  GstBus *bus = gst_element_get_bus (pipeline);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  std::string posted;
  int messages = 0;
  for (;;) {
    GstMessage *message = gst_bus_timed_pop_filtered (bus, 120 * GST_SECOND,
        (GstMessageType) (GST_MESSAGE_ERROR | GST_MESSAGE_EOS | GST_MESSAGE_ELEMENT));
    fail_unless (message != nullptr, "%s: no EOS in 120 s", c.name);
    if (GST_MESSAGE_TYPE (message) == GST_MESSAGE_ERROR) {
      const std::string text = testutil::message_text (message);
      gst_message_unref (message);
      fail ("%s: %s", c.name, text.c_str ());
    }
    const bool eos = GST_MESSAGE_TYPE (message) == GST_MESSAGE_EOS;
    const GstStructure *s = gst_message_get_structure (message);
    if (!eos && s && gst_structure_has_name (s, "opencl-variant") &&
        GST_MESSAGE_SRC (message) == GST_OBJECT (element)) {
      messages++;
      posted = gst_structure_get_string (s, "variant") ?
          gst_structure_get_string (s, "variant") : "";
      fail_unless (gst_structure_get_string (s, "family") != nullptr &&
          gst_structure_get_string (s, "source") != nullptr, "%s: a message without family "
          "or source", c.name);
    }
    gst_message_unref (message);
    if (eos)
      break;
  }
  gchar *variant = nullptr;
  g_object_get (element, "variant", &variant, nullptr);
  if (c.tuned) {
    fail_unless (messages >= 1, "%s: no opencl-variant message", c.name);
    fail_unless (variant != nullptr && !posted.empty () && posted == variant,
        "%s: the property says %s, the message %s", c.name, variant ? variant : "(null)",
        posted.c_str ());
  } else {
    fail_unless (messages == 0 && variant == nullptr, "%s: a variant (%s) for an element "
        "without variants", c.name, variant ? variant : "(null)");
  }
  g_free (variant);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gchar *after = (gchar *) "x";
  g_object_get (element, "variant", &after, nullptr);
  fail_unless (after == nullptr, "%s: variant %s after the stop", c.name, after);
  gst_object_unref (bus);
  gst_object_unref (element);
  gst_object_unref (pipeline);
}

const std::string kVideo = "videotestsrc num-buffers=3 pattern=ball ! "
    "video/x-raw,format=RGBA,width=64,height=48,framerate=30/1 ! ";
const std::string kGray = "videotestsrc num-buffers=3 pattern=ball ! "
    "video/x-raw,format=GRAY8,width=64,height=48,framerate=30/1 ! ";

}  // namespace

GST_START_TEST (test_tuned_elements)
{
  const Case cases[] = {
    { "openclbilateral", kVideo + "openclbilateral name=e ! fakesink", true },
    { "openclhistogram", kVideo + "openclhistogram name=e ! fakesink", true },
    { "openclconvolve3d", kVideo + "openclconvolve3d name=e kernel-depth=3 ! fakesink", true },
    { "openclmulticonvolve", kGray + "openclmulticonvolve name=e num-kernels=1 kernel-size=3 "
      "kernels=\"<0,-1,0,-1,5,-1,0,-1,0>\" ! fakesink", true },
    { "openclmandelboxsrc", "openclmandelboxsrc name=e num-buffers=2 ! "
      "video/x-raw,width=32,height=24 ! fakesink", true },
  };
  for (const Case & c : cases) {
    GST_INFO ("%s", c.name);
    check_case (c);
  }
}
GST_END_TEST;

GST_START_TEST (test_elements_without_variants)
{
  const Case cases[] = {
    { "openclupload", kVideo + "openclupload name=e ! opencldownload ! fakesink", false },
    { "openclkernel", kVideo + "openclkernel name=e source=\"__kernel void k (__read_only "
      "image2d_t src, __write_only image2d_t dst) { int2 p = (int2) (get_global_id (0), "
      "get_global_id (1)); write_imagef (dst, p, read_imagef (src, p)); }\" ! fakesink", false },
  };
  for (const Case & c : cases)
    check_case (c);
}
GST_END_TEST;

/* openclsort on tensors: what runs for the negotiated rows, reported the same way. */
GST_START_TEST (test_sort_tensors)
{
  GstElement *pipeline = testutil::parse_pipeline (std::string ("appsrc name=src format=time "
          "caps=\"") + kTensors + "\" ! openclsort name=e ! fakesink");
  GstElement *src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  GstElement *element = gst_bin_get_by_name (GST_BIN (pipeline), "e");
  GstBus *bus = gst_element_get_bus (pipeline);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  for (int i = 0; i < 2; i++) {
    GstBuffer *buffer = gst_buffer_new_allocate (nullptr, 64 * 8 * 4, nullptr);
    gst_buffer_memset (buffer, 0, (guint8) (i * 7 + 3), 64 * 8 * 4);
    GstFlowReturn ret;
    g_signal_emit_by_name (src, "push-buffer", buffer, &ret);
    gst_buffer_unref (buffer);
  }
  GstFlowReturn ret;
  g_signal_emit_by_name (src, "end-of-stream", &ret);
  std::string posted;
  for (;;) {
    GstMessage *message = gst_bus_timed_pop_filtered (bus, 120 * GST_SECOND,
        (GstMessageType) (GST_MESSAGE_ERROR | GST_MESSAGE_EOS | GST_MESSAGE_ELEMENT));
    fail_unless (message != nullptr, "no EOS in 120 s");
    fail_if (GST_MESSAGE_TYPE (message) == GST_MESSAGE_ERROR, "%s",
        testutil::message_text (message).c_str ());
    const bool eos = GST_MESSAGE_TYPE (message) == GST_MESSAGE_EOS;
    const GstStructure *s = gst_message_get_structure (message);
    if (!eos && s && gst_structure_has_name (s, "opencl-variant"))
      posted = gst_structure_get_string (s, "variant");
    gst_message_unref (message);
    if (eos)
      break;
  }
  gchar *variant = nullptr;
  g_object_get (element, "variant", &variant, nullptr);
  fail_unless (variant != nullptr && posted == variant, "the property says %s, the message %s",
      variant ? variant : "(null)", posted.c_str ());
  /* 8 rows of 64 keys: the bitonic network, scheduled by device type. */
  fail_unless (g_str_equal (variant, "local-stages") || g_str_equal (variant, "global-passes"),
      "%s for rows of 64 keys", variant);
  g_free (variant);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (src);
  gst_object_unref (element);
  gst_object_unref (pipeline);
}
GST_END_TEST;

static Suite *
variant_suite (void)
{
  return TESTUTIL_SUITE ("variant", 600, test_tuned_elements, test_elements_without_variants,
      test_sort_tensors);
}

GST_CHECK_MAIN (variant);
