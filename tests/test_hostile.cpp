/* gst-opencl tests: hostile user input to the shared layer's parsers (other/tensors caps, device
 * strings): every malformed or overflowing input is refused with a reason, never a crash or a
 * wrapped size. The element-level cases (buffers that do not match their caps) are in
 * test_reliability.cpp.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include <gst/check/gstcheck.h>

#include <algorithm>
#include <string>

#include "common/suite.h"
#include "opencl/gstopenclcontext.h"
#include "opencl/gstopencldevice.h"
#include "opencl/gstopencltensor.h"
#include "opencl/gstopenclutils.h"

GST_START_TEST (test_hostile_tensor_caps)
{
  const char *prefix = "other/tensors,format=static,num_tensors=1,types=uint8,";
  /* (string) keeps GStreamer's caps parser from reading "a:b" as anything else. */
  const char *refused[] = {
    /* The byte size overflows gsize (2^31-1 cubed and beyond) or passes G_MAXSSIZE. */
    "dimensions=2147483647:2147483647:2147483647",
    "dimensions=65536:65536:65536:65536",
    "dimensions=2147483647:2147483647:4", "dimensions=2:2:2:2:2:2:2:2:2:2:2:2:2:2:2147483647:2147483647",
    /* Past int, negative, zero, not numbers, too many dimensions, empty parts. */
    "dimensions=2147483648", "dimensions=4294967297", "dimensions=18446744073709551617",
    "dimensions=-1", "dimensions=0", "dimensions=4:0:4", "dimensions=0x10", "dimensions=4e3",
    "dimensions=1:1:1:1:1:1:1:1:1:1:1:1:1:1:1:1:1", "dimensions=:", "dimensions=4:",
    "dimensions=", "dimensions=(int)4",
  };
  for (const char *tail : refused) {
    std::string text = std::string (prefix) + tail;
    if (g_str_has_prefix (tail, "dimensions=") && tail[11] != '(')
      text = std::string (prefix) + "dimensions=(string)" + (tail + 11);
    GstCaps *caps = gst_caps_from_string (text.c_str ());
    if (!caps)
      continue;  /* GStreamer's own parser refused it first */
    std::string why;
    auto info = gst_opencl::tensor_info_from_caps (caps, &why);
    fail_if (info.has_value (), "accepted %s (%" G_GSIZE_FORMAT " bytes)", text.c_str (),
        info ? info->size_bytes () : 0);
    fail_if (why.empty (), "no reason for %s", text.c_str ());
    gst_caps_unref (caps);
  }

  /* Other fields of the wrong type or shape. */
  const char *odd[] = {
    "other/tensors,format=static,num_tensors=-1,types=uint8,dimensions=4",
    "other/tensors,format=static,num_tensors=2147483647,types=uint8,dimensions=4",
    "other/tensors,format=static,num_tensors=1,types=(int)3,dimensions=4",
    "other/tensors,format=static,num_tensors=1,types={uint8,int32},dimensions=4",
    "other/tensors,format=static,num_tensors=1,types=uint8,dimensions={4,8}",
    "other/tensors,format=(int)1,num_tensors=1,types=uint8,dimensions=4",
    "other/tensors,format=static,num_tensors=1,types=,dimensions=4",
    "other/tensors",
  };
  for (const char *text : odd) {
    GstCaps *caps = gst_caps_from_string (text);
    if (!caps)
      continue;
    std::string why;
    fail_if (gst_opencl::tensor_info_from_caps (caps, &why).has_value (), "accepted %s", text);
    fail_if (why.empty (), "no reason for %s", text);
    gst_caps_unref (caps);
  }
  /* Null and empty caps. */
  std::string why;
  fail_if (gst_opencl::tensor_info_from_caps (nullptr, &why).has_value ());
  GstCaps *empty = gst_caps_new_empty ();
  fail_if (gst_opencl::tensor_info_from_caps (empty, nullptr).has_value ());
  gst_caps_unref (empty);

  /* The largest tensor that is still accepted has its exact size. */
  GstCaps *big = gst_caps_from_string ("other/tensors,format=static,num_tensors=1,"
      "types=uint8,dimensions=(string)2147483647:2147483647");
  auto info = gst_opencl::tensor_info_from_caps (big, &why);
  gst_caps_unref (big);
  fail_unless (info.has_value (), "%s", why.c_str ());
  fail_unless_equals_uint64 (info->size_bytes (), 2147483647ull * 2147483647ull);
}
GST_END_TEST;

GST_START_TEST (test_hostile_device_strings)
{
  const std::string refused[] = {
    ":", "::", "pocl:", "pocl:-1", "pocl:1234567", "pocl:99999999999999999999", "pocl: 1",
    "pocl:1 2", "pocl:0x1", std::string ("pocl:\0", 6), "   :3", std::string (100000, ':'),
  };
  for (const auto & text : refused)
    fail_if (gst_opencl::parse_device_spec (text).has_value (), "accepted \"%s\"",
        text.substr (0, 40).c_str ());
  /* Odd but well-formed: a platform substring with colons, spaces or other bytes in it. */
  const std::string accepted[] = {
    "a:b:0", "  portable  ", std::string (100000, 'x'), "\xff\xfe:1", "pocl:999999",
    std::string ("po\0cl", 5),
  };
  for (const auto & text : accepted) {
    auto spec = gst_opencl::parse_device_spec (text);
    fail_unless (spec.has_value (), "refused \"%s\"", text.substr (0, 40).c_str ());
    fail_unless (spec->kind == gst_opencl::DeviceSpec::Kind::Platform);
    fail_if (spec->platform_substring.empty ());
  }
}
GST_END_TEST;

/* A real allocation failure from the driver (a buffer twice the device's largest allocation and
 * twice its whole memory, so nothing the plugin would ever ask for) becomes an element error
 * naming the OpenCL call and the error code, through the same boundary every vfunc uses. Twice
 * the largest allocation alone is not enough: NVIDIA's driver on an H200 (141 GB) allocated
 * 75 GB, twice its CL_DEVICE_MAX_MEM_ALLOC_SIZE. */
GST_START_TEST (test_driver_allocation_failure_names_the_call)
{
  GstOpenCLContext *context = gst_opencl_context_new ("");
  auto & device = gst_opencl_context_device (context);
  GstElement *element = gst_element_factory_make ("fakesink", nullptr);
  GstBus *bus = gst_bus_new ();
  gst_element_set_bus (element, bus);
  const cl_ulong too_many = std::max (device.cl_device.getInfo<CL_DEVICE_MAX_MEM_ALLOC_SIZE> (),
      device.cl_device.getInfo<CL_DEVICE_GLOBAL_MEM_SIZE> ()) * 2;
  gboolean ok = GST_OPENCL_GUARD (element, "cannot allocate", [&]() {
    cl::Buffer buffer (device.context, CL_MEM_READ_WRITE, too_many);
    /* Some drivers only fail when the memory is first used. */
    cl_uchar zero = 0;
    device.queue.enqueueFillBuffer (buffer, zero, 0, too_many);
    device.queue.finish ();
  });
  fail_if (ok, "a %" G_GUINT64_FORMAT "-byte buffer was allocated", (guint64) too_many);
  GstMessage *message = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (message != nullptr);
  GError *error = nullptr;
  gst_message_parse_error (message, &error, nullptr);
  std::string text = error->message;
  g_clear_error (&error);
  gst_message_unref (message);
  GST_INFO ("%s", text.c_str ());
  fail_unless (text.find ("cannot allocate: cl") == 0 && text.find (" failed: CL_") !=
      std::string::npos, "%s", text.c_str ());
  gst_element_set_bus (element, nullptr);
  gst_object_unref (bus);
  gst_object_unref (element);
  gst_object_unref (context);
}
GST_END_TEST;

static Suite *
hostile_suite (void)
{
  return TESTUTIL_SUITE ("hostile", 0,
      test_hostile_tensor_caps, test_hostile_device_strings,
      test_driver_allocation_failure_names_the_call);
}

TESTUTIL_LAYER_MAIN (hostile);
