/* gst-opencl tests: openclkernel and openclkernelsrc, users' own kernels, against CPU references
 * of what the kernels compute: every format, system and OpenCL memory (GL where a display is),
 * images and buffers, parameters changed and animated while playing, a program replaced while
 * playing, and every bad input a clear error.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <glib/gstdio.h>
#include <unistd.h>
#include <gst/controller/controller.h>
#include <gst/video/video.h>

#include <cfenv>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "common/suite.h"
#include "common/testutil.h"

using testutil::Frame;
using testutil::Pattern;

namespace {

/* out = in x gain + offset, per channel, as normalised values. */
const char *GAIN_OFFSET = R"CL(
__kernel void gain_offset (__read_only image2d_t in, __write_only image2d_t out, float4 gain,
    float offset)
{
  const int2 p = (int2) (get_global_id (0), get_global_id (1));
  write_imagef (out, p, read_imagef (in, p) * gain + offset);
}
)CL";

/* A horizontal shift read with a clamp-to-edge sampler. */
const char *SHIFT = R"CL(
__kernel void shift (__read_only image2d_t in, __write_only image2d_t out, int amount)
{
  const sampler_t edge = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE |
      CLK_FILTER_NEAREST;
  const int2 p = (int2) (get_global_id (0), get_global_id (1));
  write_imagef (out, p, read_imagef (in, edge, (int2) (p.x - amount, p.y)));
}
)CL";

/* The same on bytes: dst = round (src x gain) + offset, through the buffer contract. */
const char *BYTES = R"CL(
__kernel void bytes (__global const uchar * src, __global uchar * dst, int src_stride,
    int dst_stride, int width, int height, int bpp, float gain, int offset)
{
  const int x = get_global_id (0), y = get_global_id (1);
  if (x >= width || y >= height)
    return;
  for (int c = 0; c < bpp; c++) {
    const float v = src[y * src_stride + x * bpp + c] * gain;
    dst[y * dst_stride + x * bpp + c] = convert_uchar_sat_rte (rint (v) + offset);
  }
}
)CL";

/* Samples the input at the output's size (nearest), so the element may resize. */
const char *RESAMPLE = R"CL(
__kernel void resample (__read_only image2d_t in, __write_only image2d_t out, int width,
    int height)
{
  const int x = get_global_id (0), y = get_global_id (1);
  const int2 from = (int2) (x * get_image_width (in) / width, y * get_image_height (in) / height);
  write_imagef (out, (int2) (x, y), read_imagef (in, from));
}
)CL";

/* A source: ramps in x and y, the frame number and the time, tinted. */
const char *PATTERN = R"CL(
__kernel void pattern (__write_only image2d_t out, int width, int height, int frame,
    float time, float4 tint)
{
  const int x = get_global_id (0), y = get_global_id (1);
  const float4 c = (float4) ((float) x / width, (float) y / height, (frame % 8) / 8.0f,
      clamp (time, 0.0f, 1.0f));
  write_imagef (out, (int2) (x, y), c * tint);
}
)CL";

struct FormatCase
{
  GstVideoFormat format;
  int bytes[4];  /* byte of red, green, blue, alpha; GRAY8: only [0] */
  int channels;
};

const FormatCase FORMATS[] = {
  { GST_VIDEO_FORMAT_RGBA, { 0, 1, 2, 3 }, 4 }, { GST_VIDEO_FORMAT_BGRA, { 2, 1, 0, 3 }, 4 },
  { GST_VIDEO_FORMAT_RGBx, { 0, 1, 2, 3 }, 4 }, { GST_VIDEO_FORMAT_BGRx, { 2, 1, 0, 3 }, 4 },
  { GST_VIDEO_FORMAT_ARGB, { 1, 2, 3, 0 }, 4 }, { GST_VIDEO_FORMAT_ABGR, { 3, 2, 1, 0 }, 4 },
  { GST_VIDEO_FORMAT_xRGB, { 1, 2, 3, 0 }, 4 }, { GST_VIDEO_FORMAT_xBGR, { 3, 2, 1, 0 }, 4 },
  { GST_VIDEO_FORMAT_GRAY8, { 0, 0, 0, 0 }, 1 },
};

uint8_t
unorm (double value)
{
  return (uint8_t) std::lrint (std::min (255.0, std::max (0.0, value * 255.0)));
}

Frame
gain_offset_reference (const Frame & in, const FormatCase & f, const double gain[4],
    double offset)
{
  Frame out (in.width, in.height, in.bytes_per_pixel);
  for (int y = 0; y < in.height; y++)
    for (int x = 0; x < in.width; x++)
      for (int c = 0; c < f.channels; c++) {
        const int b = f.bytes[c];
        out.row (y)[x * f.channels + b] = unorm (in.row (y)[x * f.channels + b] / 255.0 *
            gain[c] + offset);
      }
  return out;
}

Frame
shift_reference (const Frame & in, int amount)
{
  Frame out (in.width, in.height, in.bytes_per_pixel);
  for (int y = 0; y < in.height; y++)
    for (int x = 0; x < in.width; x++) {
      const int from = std::min (in.width - 1, std::max (0, x - amount));
      for (int c = 0; c < in.bytes_per_pixel; c++)
        out.row (y)[x * in.bytes_per_pixel + c] = in.row (y)[from * in.bytes_per_pixel + c];
    }
  return out;
}

Frame
bytes_reference (const Frame & in, double gain, int offset)
{
  Frame out (in.width, in.height, in.bytes_per_pixel);
  for (int y = 0; y < in.height; y++)
    for (int x = 0; x < in.width * in.bytes_per_pixel; x++) {
      const double v = std::nearbyint ((double) (float) (in.row (y)[x] * (float) gain)) + offset;
      out.row (y)[x] = (uint8_t) std::min (255.0, std::max (0.0, std::nearbyint (v)));
    }
  return out;
}

/* A harness around openclkernel alone (system memory) or between openclupload and
 * opencldownload (OpenCL memory in and out); `k` is the kernel element. */
struct Rig
{
  GstHarness *h = nullptr;
  GstElement *k = nullptr;
  GstVideoInfo info {};

  Rig (const std::string & memory, const std::string & properties)
  {
    std::string core = "openclkernel name=k " + properties;
    if (memory == "system")
      h = gst_harness_new_parse (core.c_str ());
    else if (memory == "opencl")
      h = gst_harness_new_parse (("openclupload ! " + core + " ! opencldownload").c_str ());
    else
      h = gst_harness_new_parse (("glupload ! " + core + " ! gldownload").c_str ());
    k = gst_bin_get_by_name (GST_BIN (h->element), "k");
    fail_unless (k != nullptr);
  }
  ~Rig ()
  {
    gst_object_unref (k);
    gst_harness_teardown (h);
  }
  void caps (GstVideoFormat format, int width, int height)
  {
    gst_video_info_set_format (&info, format, width, height);
    gst_harness_set_src_caps (h, gst_video_info_to_caps (&info));
    GstVideoInfo out = info;
    gst_harness_set_sink_caps (h, gst_video_info_to_caps (&out));
  }
  /* caps () of a 4-byte format, and an input frame of that size filled with `pattern`. */
  Frame caps_and_input (GstVideoFormat format, int width, int height, Pattern pattern,
      uint32_t seed)
  {
    caps (format, width, height);
    Frame in = testutil::filled (Frame (width, height, 4), pattern, seed);
    return in;
  }
  Frame push (const Frame & in, GstClockTime pts = 0)
  {
    GstBuffer *buffer = testutil::to_buffer (in, GST_VIDEO_INFO_FORMAT (&info));
    GST_BUFFER_PTS (buffer) = pts;
    GstBuffer *out = gst_harness_push_and_pull (h, buffer);
    fail_unless (out != nullptr, "no output frame");
    Frame result = testutil::from_buffer (out, &info);
    gst_buffer_unref (out);
    return result;
  }
};

void
expect_same (const Frame & actual, const Frame & expected, int tolerance,
    const std::string & label)
{
  auto difference = testutil::compare (actual, expected,
      std::vector<int> (actual.bytes_per_pixel, tolerance));
  fail_unless (difference.over == 0, "%s: %s", label.c_str (),
      testutil::describe (difference).c_str ());
}

/* A source property for a gst-launch line: one line (the parser drops backslashes). */
std::string
quoted (const char *source)
{
  return "source=\"" + testutil::one_line (source) + "\"";
}

/* Every format, two sizes (one odd, one with padded rows), random and structured frames, with
 * `memory` frames: the gain and offset kernel, the shift and the byte kernel. */
void
check_every_format (const std::string & memory)
{
  const struct { int width, height, stride_pad; } sizes[] = { { 17, 9, 0 }, { 64, 40, 12 } };
  const double gain[4] = { 0.5, 1.25, 0.75, 0.5 };
  for (const auto & f : FORMATS) {
    const std::string name = gst_video_format_to_string (f.format);
    Rig images (memory, quoted (GAIN_OFFSET) +
        " parameters=\"p,gain=<0.5,1.25,0.75,0.5>,offset=0.0625\"");
    Rig shift (memory, quoted (SHIFT) + " parameters=\"p,amount=3\"");
    Rig bytes (memory, quoted (BYTES) + " parameters=\"p,bpp=" +
        std::to_string (f.channels) + ",gain=1.25,offset=-7\"");
    for (const auto & size : sizes) {
      for (Rig *rig : { &images, &shift, &bytes })
        rig->caps (f.format, size.width, size.height);
      for (Pattern pattern : { Pattern::Random, Pattern::Edges }) {
        Frame in (size.width, size.height, f.channels,
            GST_ROUND_UP_4 (size.width * f.channels) + size.stride_pad);
        testutil::fill (in, pattern, size.width * 7 + (int) f.format);
        const std::string label = memory + " " + name + " " + std::to_string (size.width) +
            "x" + std::to_string (size.height) + " " + testutil::pattern_name (pattern);
        expect_same (images.push (in), gain_offset_reference (in, f, gain, 0.0625), 1,
            label + " gain/offset");
        expect_same (shift.push (in), shift_reference (in, 3), 0, label + " shift");
        expect_same (bytes.push (in), bytes_reference (in, 1.25, -7), 0, label + " bytes");
      }
    }
  }
}

/* Runs a pipeline to its end and returns the error text ("" for none). */
std::string
error_of (const std::string & kernel_properties, const std::string & caps =
    "video/x-raw,format=RGBA,width=32,height=16")
{
  return testutil::run_pipeline ("videotestsrc num-buffers=2 ! " + caps + " ! openclkernel " +
      kernel_properties + " ! fakesink", 120);
}

void
expect_error (const std::string & properties, const std::string & words,
    const std::string & caps = "video/x-raw,format=RGBA,width=32,height=16")
{
  const std::string text = error_of (properties, caps);
  fail_unless (text.find (words) != std::string::npos,
      "expected an error saying \"%s\" for [%s], got: %s", words.c_str (), properties.c_str (),
      text.empty () ? "(no error)" : text.c_str ());
}

/* Pops messages of `type` from `bus` until one satisfies `match` or `seconds` pass. */
GstMessage *
wait_message (GstBus * bus, GstMessageType type, int seconds,
    const std::function<bool (GstMessage *)> & match)
{
  const gint64 end = g_get_monotonic_time () + seconds * G_TIME_SPAN_SECOND;
  do {
    GstMessage *message = gst_bus_timed_pop_filtered (bus, 100 * GST_MSECOND, type);
    if (!message)
      continue;
    if (match (message))
      return message;
    gst_message_unref (message);
  } while (g_get_monotonic_time () < end);
  return nullptr;
}

/* ---- checked mode ---- */

/* A byte kernel that also writes where it must not: `row` past the end of dst (row `height`),
 * before it (row -1), into src, or past src's end. Every work-item of row 0 writes one pixel
 * there, 0xEE (never the guards' fill byte) or, into src, the complement of what is there. */
std::string
stray_bytes_kernel (const std::string & where)
{
  std::string stray =
      where == "after" ? "dst[height * dst_stride + x * bpp + c] = 0xEE;" :
      where == "before" ? "dst[-dst_stride + x * bpp + c] = 0xEE;" :
      where == "into-src" ? "src[x * bpp + c] = (uchar) ~src[x * bpp + c];" :
      "src[height * src_stride + x * bpp + c] = 0xEE;";
  return std::string (R"CL(
__kernel void stray (__global uchar * src, __global uchar * dst, int src_stride,
    int dst_stride, int width, int height, int bpp)
{
  const int x = get_global_id (0), y = get_global_id (1);
  if (x >= width || y >= height)
    return;
  for (int c = 0; c < bpp; c++)
    dst[y * dst_stride + x * bpp + c] = src[y * src_stride + x * bpp + c];
  if (y == 0)
    for (int c = 0; c < bpp; c++)
      )CL") + stray + "\n}\n";
}

/* A copy of `frame` in memory aligned as the CPU device wraps it without a copy
 * (CL_MEM_USE_HOST_PTR at a multiple of CL_DEVICE_MEM_BASE_ADDR_ALIGN): the application's own
 * memory is then what a buffer kernel is given. */
GstBuffer *
aligned_buffer (const Frame & frame, GstVideoFormat format)
{
  GstAllocationParams params;
  gst_allocation_params_init (&params);
  params.align = MAX (testutil::default_device_base_align_bytes (), 1u) - 1;
  return testutil::to_buffer (frame, format, &params);
}

/* The element has `checked` (so a kernel writing outside its frames runs only under checked
 * mode here: in the default mode it may take the test process down). */
void
expect_checked_property (GstElement * element)
{
  fail_unless (g_object_class_find_property (G_OBJECT_GET_CLASS (element), "checked") !=
      nullptr, "%s has no 'checked' property", GST_OBJECT_NAME (element));
}

/* A source of buffers (dst only): a ramp in x, y and channel, moved on by the frame number. */
const char *RAMP_BYTES = R"CL(
__kernel void ramp (__global uchar * dst, int dst_stride, int width, int height, int frame)
{
  const int x = get_global_id (0), y = get_global_id (1);
  if (x >= width || y >= height)
    return;
  for (int c = 0; c < 4; c++)
    dst[y * dst_stride + x * 4 + c] = (uchar) (x * 3 + y * 5 + c * 7 + frame);
}
)CL";

/* Frames of openclkernelsrc with `properties`, pulled from an appsink: `frames` of them, or as
 * many as come before an error (its text in *error). */
std::vector<Frame>
source_frames (const std::string & properties, int width, int height, int frames,
    std::string * error)
{
  GstElement *pipeline = testutil::parse_pipeline ("openclkernelsrc name=s num-buffers=" +
      std::to_string (frames) + " " + properties + " ! video/x-raw,format=RGBA,width=" +
      std::to_string (width) + ",height=" + std::to_string (height) +
      ",framerate=30/1 ! appsink name=sink sync=false");
  GstElement *source = gst_bin_get_by_name (GST_BIN (pipeline), "s");
  expect_checked_property (source);
  gst_object_unref (source);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  GstVideoInfo info;
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_RGBA, width, height);
  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) != GST_STATE_CHANGE_FAILURE);
  std::vector<Frame> pulled;
  for (int n = 0; n < frames; n++) {
    GstSample *sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink), 60 * GST_SECOND);
    if (!sample)
      break;
    pulled.push_back (testutil::from_buffer (gst_sample_get_buffer (sample), &info));
    gst_sample_unref (sample);
  }
  GstBus *bus = gst_element_get_bus (pipeline);
  *error = testutil::first_error (bus);
  gst_object_unref (bus);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  return pulled;
}

}  // namespace

GST_START_TEST (test_every_format_system_memory)
{
  check_every_format ("system");
}
GST_END_TEST;

GST_START_TEST (test_every_format_opencl_memory)
{
  check_every_format ("opencl");
}
GST_END_TEST;

/* GL memory (RGBA textures), where the suite has a display. */
GST_START_TEST (test_gl_memory)
{
  GstElement *probe = gst_element_factory_make ("glupload", nullptr);
  if (!probe || !g_getenv ("DISPLAY")) {
    if (probe)
      gst_object_unref (probe);
    GST_INFO ("no GL display: skipped");
    return;
  }
  gst_object_unref (probe);
  Rig rig ("gl", quoted (GAIN_OFFSET) + " parameters=\"p,gain=<0.5,1.25,0.75,0.5>,offset=0.0\"");
  Frame in = rig.caps_and_input (GST_VIDEO_FORMAT_RGBA, 40, 24, Pattern::Random, 5);
  const double gain[4] = { 0.5, 1.25, 0.75, 0.5 };
  expect_same (rig.push (in), gain_offset_reference (in, FORMATS[0], gain, 0.0), 1, "GL");
}
GST_END_TEST;

/* parameters, a child's value and a controller on it take effect from the next frame. */
GST_START_TEST (test_parameters_change_while_playing)
{
  Rig rig ("system", quoted (GAIN_OFFSET) + " parameters=\"p,gain=<1,1,1,1>,offset=0.0\"");
  Frame in = rig.caps_and_input (GST_VIDEO_FORMAT_RGBA, 20, 10, Pattern::Gradient, 3);
  expect_same (rig.push (in), in, 0, "identity");

  gst_util_set_object_arg (G_OBJECT (rig.k), "parameters",
      "p,gain=<0.5,0.5,0.5,1.0>,offset=0.25");
  const double half[4] = { 0.5, 0.5, 0.5, 1.0 };
  expect_same (rig.push (in), gain_offset_reference (in, FORMATS[0], half, 0.25), 1,
      "new parameters");

  /* The numeric field is a child object; gain, an array, is not. */
  GObject *offset = gst_child_proxy_get_child_by_name (GST_CHILD_PROXY (rig.k), "offset");
  fail_unless (offset != nullptr);
  fail_unless (gst_child_proxy_get_child_by_name (GST_CHILD_PROXY (rig.k), "gain") == nullptr);
  fail_unless_equals_int (gst_child_proxy_get_children_count (GST_CHILD_PROXY (rig.k)), 1);
  g_object_set (offset, "value", -0.125, nullptr);
  expect_same (rig.push (in), gain_offset_reference (in, FORMATS[0], half, -0.125), 1,
      "child value");
  gst_child_proxy_set (GST_CHILD_PROXY (rig.k), "offset::value", 0.5, nullptr);
  expect_same (rig.push (in), gain_offset_reference (in, FORMATS[0], half, 0.5), 1,
      "child proxy path");

  /* A controller curve on the child follows each frame's stream time. */
  GstControlSource *curve = gst_interpolation_control_source_new ();
  g_object_set (curve, "mode", GST_INTERPOLATION_MODE_NONE, nullptr);
  gst_timed_value_control_source_set (GST_TIMED_VALUE_CONTROL_SOURCE (curve), 0, 0.0);
  gst_timed_value_control_source_set (GST_TIMED_VALUE_CONTROL_SOURCE (curve), GST_SECOND, 0.3);
  gst_object_add_control_binding (GST_OBJECT (offset),
      gst_direct_control_binding_new_absolute (GST_OBJECT (offset), "value", curve));
  expect_same (rig.push (in, 0), gain_offset_reference (in, FORMATS[0], half, 0.0), 1, "t=0");
  expect_same (rig.push (in, GST_SECOND), gain_offset_reference (in, FORMATS[0], half, 0.3), 1,
      "t=1s");
  gst_object_unref (curve);

  /* A wrongly typed new value: a warning, and the previous parameters go on. */
  GstBus *bus = gst_bus_new ();
  gst_element_set_bus (rig.h->element, bus);
  gst_util_set_object_arg (G_OBJECT (rig.k), "parameters", "p,gain=<1,1,1,1>,offset=abc");
  expect_same (rig.push (in, GST_SECOND), gain_offset_reference (in, FORMATS[0], half, 0.3), 1,
      "after a bad value");
  GstMessage *warning = wait_message (bus, GST_MESSAGE_WARNING, 5, [](GstMessage *) {
    return true;
  });
  fail_unless (warning != nullptr, "no warning for a mistyped field");
  std::string text = testutil::message_text (warning);
  fail_unless (text.find ("offset") != std::string::npos, "%s", text.c_str ());
  gst_message_unref (warning);
  gst_element_set_bus (rig.h->element, nullptr);
  gst_object_unref (bus);
  g_object_unref (offset);
}
GST_END_TEST;

/* A new program while playing: a broken one leaves the old kernel running and posts its build
 * log; a good one is taken up once built (an opencl-kernel message), from a file too. */
GST_START_TEST (test_program_replaced_while_playing)
{
  Rig rig ("system", quoted (SHIFT) + " parameters=\"p,amount=2,bpp=4,gain=1.0,offset=5\"");
  GstBus *bus = gst_bus_new ();
  gst_element_set_bus (rig.h->element, bus);
  Frame in = rig.caps_and_input (GST_VIDEO_FORMAT_BGRx, 24, 8, Pattern::Random, 9);
  expect_same (rig.push (in), shift_reference (in, 2), 0, "first program");

  g_object_set (rig.k, "source", "__kernel void broken (__write_only image2d_t out) "
      "{ this is not C }", nullptr);
  GstMessage *warning = wait_message (bus, GST_MESSAGE_WARNING, 60, [](GstMessage *) {
    return true;
  });
  fail_unless (warning != nullptr, "no warning for a program that does not build");
  std::string text = testutil::message_text (warning);
  fail_unless (text.find ("failed to build") != std::string::npos, "%s", text.c_str ());
  fail_unless (text.find ("error") != std::string::npos, "no build log in: %s", text.c_str ());
  gst_message_unref (warning);
  expect_same (rig.push (in), shift_reference (in, 2), 0, "old program after a failed build");

  gchar *path = nullptr;
  gint fd = g_file_open_tmp ("kernel-XXXXXX.cl", &path, nullptr);
  fail_unless (fd >= 0);
  close (fd);
  fail_unless (g_file_set_contents (path, BYTES, -1, nullptr));
  g_object_set (rig.k, "location", path, nullptr);
  GstMessage *applied = nullptr;
  for (int i = 0; i < 600 && !applied; i++) {
    Frame out = rig.push (in);
    applied = wait_message (bus, GST_MESSAGE_ELEMENT, 0, [](GstMessage * m) {
      return gst_message_has_name (m, "opencl-kernel");
    });
    if (!applied) {
      expect_same (out, shift_reference (in, 2), 0, "old program while the new one builds");
      g_usleep (50000);
    }
  }
  fail_unless (applied != nullptr, "the new program was never taken up");
  fail_unless_equals_string (gst_structure_get_string (gst_message_get_structure (applied),
          "kernel"), "bytes");
  gst_message_unref (applied);
  expect_same (rig.push (in), bytes_reference (in, 1.0, 5), 0, "program from the file");
  g_unlink (path);
  g_free (path);
  gst_element_set_bus (rig.h->element, nullptr);
  gst_object_unref (bus);
}
GST_END_TEST;

/* Downstream asks for another size; the kernel takes width and height and samples. */
GST_START_TEST (test_resampling_kernel)
{
  GstElement *pipeline = testutil::parse_pipeline ("appsrc name=src format=time ! "
      "openclkernel " + quoted (RESAMPLE) + " ! video/x-raw,width=16,height=6 ! "
      "appsink name=sink sync=false");
  GstElement *src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  GstVideoInfo info;
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_RGBA, 40, 12);
  GstCaps *caps = gst_video_info_to_caps (&info);
  g_object_set (src, "caps", caps, nullptr);
  gst_caps_unref (caps);
  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) != GST_STATE_CHANGE_FAILURE);
  Frame in = testutil::filled (Frame (40, 12, 4), Pattern::Random, 21);
  GstBuffer *buffer = testutil::to_buffer (in, GST_VIDEO_FORMAT_RGBA);
  GST_BUFFER_PTS (buffer) = 0;
  fail_unless_equals_int (gst_app_src_push_buffer (GST_APP_SRC (src), buffer), GST_FLOW_OK);
  GstSample *sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink), 60 * GST_SECOND);
  fail_unless (sample != nullptr);
  GstVideoInfo out_info;
  gst_video_info_set_format (&out_info, GST_VIDEO_FORMAT_RGBA, 16, 6);
  Frame out = testutil::from_buffer (gst_sample_get_buffer (sample), &out_info);
  gst_sample_unref (sample);
  Frame expected (16, 6, 4);
  for (int y = 0; y < 6; y++)
    for (int x = 0; x < 16; x++)
      for (int c = 0; c < 4; c++)
        expected.row (y)[x * 4 + c] = in.row (y * 12 / 6)[(x * 40 / 16) * 4 + c];
  expect_same (out, expected, 0, "resampled");
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (src);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
}
GST_END_TEST;

/* Every mistake a user can make in a kernel or its parameters is an error that names it. */
GST_START_TEST (test_bad_inputs_are_clear_errors)
{
  const std::string gain = quoted (GAIN_OFFSET);
  expect_error (gain, "kernel argument 'gain' (float4) has no value");
  expect_error (gain + " parameters=\"p,gain=<1,1,1,1>\"", "'offset' (float) has no value");
  expect_error (gain + " parameters=\"p,gain=(string)x,offset=1.0\"",
      "field 'gain' is a string");
  expect_error (gain + " parameters=\"p,gain=<1,1,1>,offset=1.0\"", "has 3 numbers, not 4");
  /* Numbers a float argument cannot hold never reach the kernel. */
  expect_error (gain + " parameters=\"p,gain=<1,1,1,1>,offset=(double)1e300\"",
      "field 'offset' is out of the argument's range");
  expect_error (gain + " parameters=\"p,gain=<1,1,1,1>,offset=(double)NaN\"",
      "field 'offset' is not a finite number");
  expect_error (quoted (SHIFT) + " parameters=\"p,amount=1.5\"",
      "field 'amount' is a floating-point number");
  expect_error (quoted (SHIFT) + " parameters=\"p,amount=3\" kernel=nothere",
      "no kernel named 'nothere'");
  expect_error ("location=/nonexistent/k.cl", "cannot read the kernel file '/nonexistent/k.cl'");
  /* Read through 16 MiB and no further (it read /dev/zero until memory ran out). */
  expect_error ("location=/dev/zero", "the kernel file '/dev/zero' is larger than 16777216 bytes");
  expect_error ("source=\"__kernel void f (__write_only image2d_t o) { syntax error }\"",
      "the kernel program from the source property failed to build (CL_BUILD_PROGRAM_FAILURE)");
  expect_error ("source=\"__kernel void f (__read_only image2d_t i, int x) { }\"",
      "writes nothing");
  expect_error ("source=\"__kernel void a (__global uchar * dst) { } "
      "__kernel void b (__global uchar * dst) { }\"", "several kernels (");
  expect_error ("source=\"__kernel void f (__global uchar * dst, __global uchar * other) { }\"",
      "argument 'other'");
  expect_error ("source=\"__kernel void f (__global uchar * dst, float width) { }\"",
      "make it an int");
  expect_error ("", "no kernel: set location");
  /* Words that are not compiler options never reach the driver (one aborted rusticl). */
  expect_error (gain + " build-options=\"-D X=1 6318816723608143463\"",
      "'6318816723608143463' is not a compiler option");
  expect_error (gain + " build-options=\"-cl-fast-relaxed-math -\"", "'-' is not a compiler option");
  expect_error (gain + " build-options=\"-DX=1 -I\"", "end with -D or -I and no value");
  /* An invalid size is refused with a warning and the default stays: the pipeline runs. */
  const std::string text = error_of (gain + " parameters=\"p,gain=<1,1,1,1>,offset=0.0\" "
      "global-size=\"0x0\"");
  fail_unless (text.empty (), "%s", text.c_str ());
}
GST_END_TEST;

/* openclkernelsrc: the pattern against its reference, every format, frame and time filled. */
GST_START_TEST (test_source_every_format)
{
  const char *formats[] = { "RGBA", "BGRA", "RGBx", "BGRx" };
  for (const char *format : formats) {
    GstElement *pipeline = testutil::parse_pipeline ("openclkernelsrc name=s num-buffers=3 " +
        quoted (PATTERN) + " parameters=\"p,tint=<1.0,0.5,1.0,1.0>\" ! video/x-raw,format=" +
        format + ",width=33,height=17,framerate=4/1 ! appsink name=sink sync=false");
    GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
    fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
        GST_STATE_CHANGE_FAILURE);
    GstVideoInfo info;
    gst_video_info_set_format (&info, gst_video_format_from_string (format), 33, 17);
    const FormatCase & f = FORMATS[g_str_has_prefix (format, "RGB") ? 0 : 1];
    for (int n = 0; n < 3; n++) {
      GstSample *sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink), 60 * GST_SECOND);
      fail_unless (sample != nullptr, "%s: no frame %d", format, n);
      GstBuffer *buffer = gst_sample_get_buffer (sample);
      fail_unless_equals_uint64 (GST_BUFFER_PTS (buffer), n * GST_SECOND / 4);
      Frame out = testutil::from_buffer (buffer, &info);
      gst_sample_unref (sample);
      Frame expected (33, 17, 4);
      const double tint[4] = { 1.0, 0.5, 1.0, 1.0 };
      for (int y = 0; y < 17; y++)
        for (int x = 0; x < 33; x++) {
          const double c[4] = { (float) x / 33, (float) y / 17, (n % 8) / 8.0, n / 4.0 };
          for (int i = 0; i < 4; i++)
            expected.row (y)[x * 4 + f.bytes[i]] = unorm (c[i] * tint[i]);
        }
      expect_same (out, expected, 1, std::string (format) + " frame " + std::to_string (n));
    }
    gst_element_set_state (pipeline, GST_STATE_NULL);
    gst_object_unref (sink);
    gst_object_unref (pipeline);
  }
}
GST_END_TEST;

/* The source's errors are as clear as the filter's; a live source reports latency. */
GST_START_TEST (test_source_errors_and_live)
{
  std::string text = testutil::run_pipeline ("openclkernelsrc num-buffers=1 source=\"__kernel "
      "void f (__read_only image2d_t in, __write_only image2d_t out) { }\" ! fakesink");
  fail_unless (text.find ("a source's kernel takes one __write_only image2d_t") !=
      std::string::npos, "%s", text.c_str ());
  text = testutil::run_pipeline ("openclkernelsrc num-buffers=1 " + quoted (PATTERN) +
      " ! fakesink");
  fail_unless (text.find ("'tint' (float4) has no value") != std::string::npos, "%s",
      text.c_str ());
  text = testutil::run_pipeline ("openclkernelsrc is-live=true num-buffers=3 " +
      quoted (PATTERN) + " parameters=\"p,tint=<1,1,1,1>\" ! video/x-raw,framerate=30/1,"
      "width=16,height=16 ! fakesink sync=true");
  fail_unless (text.empty (), "%s", text.c_str ());
}
GST_END_TEST;

GST_START_TEST (test_kernel_time_is_reported)
{
  Rig rig ("system", quoted (SHIFT) + " parameters=\"p,amount=1\"");
  Frame in = rig.caps_and_input (GST_VIDEO_FORMAT_RGBA, 64, 32, Pattern::Random, 1);
  rig.push (in);
  rig.push (in);
  guint64 ns = 0;
  g_object_get (rig.k, "kernel-time", &ns, nullptr);
  fail_unless (ns > 0, "kernel-time is 0");
}
GST_END_TEST;

/* A local-size the device cannot run is refused when negotiated, naming the limit, and while
 * playing with a WARNING, the previous size going on (the stream stopped with
 * CL_INVALID_WORK_GROUP_SIZE at the next frame). 128x128 is past every driver here. */
GST_START_TEST (test_local_size_beyond_the_device)
{
  expect_error (quoted (SHIFT) + " parameters=\"p,amount=1\" local-size=128x128",
      "local-size 128x128 ");
  Rig rig ("system", quoted (SHIFT) + " parameters=\"p,amount=1\"");
  GstBus *bus = gst_bus_new ();
  gst_element_set_bus (rig.h->element, bus);
  Frame in = rig.caps_and_input (GST_VIDEO_FORMAT_RGBA, 64, 32, Pattern::Random, 1);
  Frame first = rig.push (in);
  g_object_set (rig.k, "local-size", "128x128", nullptr);
  Frame second = rig.push (in);
  auto same = testutil::compare (second, first, { 0, 0, 0, 0 });
  fail_unless (same.over == 0, "%s", testutil::describe (same).c_str ());
  GstMessage *warning = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING);
  fail_unless (warning != nullptr, "no warning for the local-size");
  std::string text = testutil::message_text (warning);
  gst_message_unref (warning);
  fail_unless (testutil::contains (text, "local-size 128x128") &&
      testutil::contains (text, "the previous one stays"),
      "%s", text.c_str ());
  fail_unless (gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR) == nullptr);
  gst_element_set_bus (rig.h->element, nullptr);
  gst_object_unref (bus);
}
GST_END_TEST;

/* Runs `launch`; returns what was written to stderr meanwhile. */
static std::string
stderr_of_pipeline (const std::string & launch, std::string * error)
{
  gchar *path = nullptr;
  int capture = g_file_open_tmp ("gst-opencl-stderr-XXXXXX", &path, nullptr);
  fail_unless (capture >= 0);
  fflush (stderr);
  int saved = dup (STDERR_FILENO);
  dup2 (capture, STDERR_FILENO);
  *error = testutil::run_pipeline (launch);
  fflush (stderr);
  dup2 (saved, STDERR_FILENO);
  close (saved);
  close (capture);
  gchar *text = nullptr;
  g_file_get_contents (path, &text, nullptr, nullptr);
  std::string written = text ? text : "";
  g_free (text);
  g_unlink (path);
  g_free (path);
  return written;
}

static void
collect_log (GstDebugCategory * category, GstDebugLevel, const gchar *, const gchar *, gint,
    GObject *, GstDebugMessage * message, gpointer data)
{
  if (g_strcmp0 (gst_debug_category_get_name (category), "opencl") == 0)
    *static_cast<std::string *> (data) += std::string (gst_debug_message_get (message)) + "\n";
}

/* A program with a compiler warning ("expression result unused") builds without a word on the
 * terminal (PoCL's compiler printed "1 warning generated." there); with the layer's debug log
 * at DEBUG, the build log, warning included, is in the debug log instead. */
GST_START_TEST (test_compiler_warnings_stay_off_the_terminal)
{
  /* Code of its own in each run: a driver's cache of built programs (PoCL's, keyed by the
   * preprocessed source, so not by comments) builds nothing for a program it has seen, and
   * prints nothing either. */
  const std::string run_id = std::to_string (g_get_real_time () % 1000000000);
  auto launch = [&](const char *part) {
    return std::string ("videotestsrc num-buffers=1 ! video/x-raw,format=RGBA,width=16,"
        "height=16 ! openclkernel source=\"__kernel void k (__read_only image2d_t src, "
        "__write_only image2d_t dst) { int2 p = (int2) (get_global_id (0), get_global_id "
        "(1)); 1 + ") + run_id + part + "; write_imagef (dst, p, read_imagef (src, p)); }\" ! "
        "fakesink";
  };
  gst_debug_set_threshold_for_name ("opencl", GST_LEVEL_WARNING);
  std::string error;
  std::string written = stderr_of_pipeline (launch ("1"), &error);
  TESTUTIL_EXPECT_NO_ERROR (error);
  fail_if (testutil::contains (written, "generated") || testutil::contains (written,
          "result unused"), "the compiler wrote on stderr: %s", written.c_str ());

  std::string log;
  gst_debug_add_log_function (collect_log, &log, nullptr);
  gst_debug_set_threshold_for_name ("opencl", GST_LEVEL_DEBUG);
  error = testutil::run_pipeline (launch ("2"));
  gst_debug_set_threshold_for_name ("opencl", GST_LEVEL_WARNING);
  gst_debug_remove_log_function (collect_log);
  TESTUTIL_EXPECT_NO_ERROR (error);
  /* Which warnings a compiler gives is its own: PoCL's (clang) gives this one. */
  if (testutil::contains (testutil::default_device_vendor (), "Portable Computing Language"))
    fail_unless (testutil::contains (log, "result unused"), "no warning in the debug log:\n%s",
        log.c_str ());
}
GST_END_TEST;


/* Checked mode catches a buffer kernel writing one row past dst, one row before it, into src
 * and past src: an element error naming the kernel, the side, the bytes and the first offset,
 * and the frame is not pushed. Run only in checked mode: in the default mode the same kernels
 * write into the heap (docs/openclkernel.md#the-cpu-devices-shared-frames). */
GST_START_TEST (test_checked_catches_writes_outside_frames)
{
  const struct { const char *where; const char *words; } cases[] = {
    { "after", "kernel 'stray' wrote 256 bytes after its output frame (first at byte 0 past "
          "the end), found by checked mode" },
    { "before", "kernel 'stray' wrote 256 bytes before its output frame (first at byte 256 "
          "before the start), found by checked mode" },
    { "into-src", "kernel 'stray' wrote 256 bytes into its input frame (first at byte 0), "
          "found by checked mode" },
    { "after-src", "kernel 'stray' wrote 256 bytes after its input frame (first at byte 0 "
          "past the end), found by checked mode" },
  };
  for (const auto & c : cases) {
    for (const char *memory : { "system", "opencl" }) {
      Rig rig (memory, quoted (stray_bytes_kernel (c.where).c_str ()) +
          " parameters=\"p,bpp=4\"");
      expect_checked_property (rig.k);
      g_object_set (rig.k, "checked", TRUE, nullptr);
      GstBus *bus = gst_bus_new ();
      gst_element_set_bus (rig.h->element, bus);
      rig.caps (GST_VIDEO_FORMAT_RGBA, 64, 16);
      Frame in = testutil::filled (Frame (64, 16, 4), Pattern::Random, 11);
      GstBuffer *buffer = aligned_buffer (in, GST_VIDEO_FORMAT_RGBA);
      GST_BUFFER_PTS (buffer) = 0;
      const GstFlowReturn flow = gst_harness_push (rig.h, buffer);
      fail_unless (flow == GST_FLOW_ERROR, "%s, %s: the frame went on (%s)", c.where, memory,
          gst_flow_get_name (flow));
      fail_unless_equals_int (gst_harness_buffers_received (rig.h), 0);
      const std::string text = testutil::first_error (bus);
      fail_unless (testutil::contains (text, c.words), "%s, %s: expected \"%s\", got: %s",
          c.where, memory, c.words, text.empty () ? "(no error)" : text.c_str ());
      gst_element_set_bus (rig.h->element, nullptr);
      gst_object_unref (bus);
    }
  }
}
GST_END_TEST;

/* A correct kernel gives the same bytes with and without checked mode, both the CPU
 * reference's: RGBA and GRAY8, an odd size and padded rows, random frames, system and OpenCL
 * memory, several frames in a row (the guards' fill changes every frame). */
GST_START_TEST (test_checked_output_is_identical)
{
  const struct { GstVideoFormat format; int channels; int width, height, stride_pad; } cases[] = {
    { GST_VIDEO_FORMAT_RGBA, 4, 67, 45, 0 }, { GST_VIDEO_FORMAT_GRAY8, 1, 67, 45, 0 },
    { GST_VIDEO_FORMAT_RGBA, 4, 64, 40, 44 }, { GST_VIDEO_FORMAT_GRAY8, 1, 64, 40, 20 },
  };
  for (const char *memory : { "system", "opencl" }) {
    for (const auto & c : cases) {
      const std::string properties = quoted (BYTES) + " parameters=\"p,bpp=" +
          std::to_string (c.channels) + ",gain=1.25,offset=-7\"";
      Rig plain (memory, properties);
      Rig checked (memory, properties);
      expect_checked_property (checked.k);
      g_object_set (checked.k, "checked", TRUE, nullptr);
      gboolean on = FALSE;
      g_object_get (checked.k, "checked", &on, nullptr);
      fail_unless (on);
      plain.caps (c.format, c.width, c.height);
      checked.caps (c.format, c.width, c.height);
      for (int n = 0; n < 3; n++) {
        Frame in (c.width, c.height, c.channels, GST_ROUND_UP_4 (c.width * c.channels) +
            c.stride_pad);
        testutil::fill (in, Pattern::Random, 100 * n + c.width + c.channels);
        const std::string label = std::string (memory) + " " +
            gst_video_format_to_string (c.format) + " " + std::to_string (c.width) + "x" +
            std::to_string (c.height) + " stride " + std::to_string (in.stride) + " frame " +
            std::to_string (n);
        const Frame expected = plain.push (in);
        expect_same (expected, bytes_reference (in, 1.25, -7), 0, label + " default mode");
        expect_same (checked.push (in), expected, 0, label + " checked against default");
      }
    }
  }
}
GST_END_TEST;

/* The source under checked mode: the same frames as without it, the reference's; a kernel
 * writing past its frame is an error and no frame is pushed. */
GST_START_TEST (test_checked_source)
{
  std::string error;
  const std::vector<Frame> plain = source_frames (quoted (RAMP_BYTES), 67, 45, 3, &error);
  TESTUTIL_EXPECT_NO_ERROR (error);
  const std::vector<Frame> checked = source_frames (quoted (RAMP_BYTES) + " checked=true", 67,
      45, 3, &error);
  TESTUTIL_EXPECT_NO_ERROR (error);
  fail_unless_equals_int (plain.size (), 3);
  fail_unless_equals_int (checked.size (), 3);
  for (int n = 0; n < 3; n++) {
    Frame expected (67, 45, 4);
    for (int y = 0; y < 45; y++)
      for (int x = 0; x < 67; x++)
        for (int c = 0; c < 4; c++)
          expected.row (y)[x * 4 + c] = (uint8_t) (x * 3 + y * 5 + c * 7 + n);
    expect_same (plain[n], expected, 0, "source, default mode, frame " + std::to_string (n));
    expect_same (checked[n], expected, 0, "source, checked mode, frame " + std::to_string (n));
  }

  const std::string past = R"CL(
__kernel void past (__global uchar * dst, int dst_stride, int width, int height)
{
  const int x = get_global_id (0), y = get_global_id (1);
  if (x >= width || y >= height)
    return;
  dst[y * dst_stride + x * 4] = 1;
  if (y == height - 1)
    dst[(y + 1) * dst_stride + x * 4] = 0xEE;
}
)CL";
  const std::vector<Frame> none = source_frames (quoted (past.c_str ()) + " checked=true", 67,
      45, 3, &error);
  fail_unless_equals_int (none.size (), 0);
  TESTUTIL_EXPECT_ERROR (error, "kernel 'past' wrote 67 bytes after its output frame (first "
      "at byte 0 past the end), found by checked mode");
}
GST_END_TEST;

/* Checked mode turned on and off while playing: from the next frame, the same output; turned
 * on, it catches a kernel replaced while playing that writes past dst. */
GST_START_TEST (test_checked_while_playing)
{
  Rig rig ("system", quoted (BYTES) + " parameters=\"p,bpp=4,gain=1.25,offset=-7\"");
  expect_checked_property (rig.k);
  GstBus *bus = gst_bus_new ();
  gst_element_set_bus (rig.h->element, bus);
  Frame in = rig.caps_and_input (GST_VIDEO_FORMAT_RGBA, 67, 45, Pattern::Random, 4);
  const Frame expected = bytes_reference (in, 1.25, -7);
  expect_same (rig.push (in), expected, 0, "before checked mode");
  g_object_set (rig.k, "checked", TRUE, nullptr);
  expect_same (rig.push (in), expected, 0, "checked mode turned on");
  expect_same (rig.push (in), expected, 0, "checked mode, second frame");
  g_object_set (rig.k, "checked", FALSE, nullptr);
  expect_same (rig.push (in), expected, 0, "checked mode turned off");
  g_object_set (rig.k, "checked", TRUE, nullptr);
  expect_same (rig.push (in), expected, 0, "checked mode on again");

  g_object_set (rig.k, "source", stray_bytes_kernel ("after").c_str (), nullptr);
  GstFlowReturn flow = GST_FLOW_OK;
  for (int i = 0; i < 600 && flow == GST_FLOW_OK; i++) {
    GstBuffer *buffer = aligned_buffer (in, GST_VIDEO_FORMAT_RGBA);
    flow = gst_harness_push (rig.h, buffer);
    if (flow == GST_FLOW_OK) {
      gst_buffer_unref (gst_harness_pull (rig.h));
      g_usleep (50000);
    }
  }
  fail_unless (flow == GST_FLOW_ERROR, "the new kernel was never caught (%s)",
      gst_flow_get_name (flow));
  TESTUTIL_EXPECT_ERROR (testutil::first_error (bus), "kernel 'stray' wrote 268 bytes after "
      "its output frame (first at byte 0 past the end), found by checked mode");
  gst_element_set_bus (rig.h->element, nullptr);
  gst_object_unref (bus);
}
GST_END_TEST;

/* GST_OPENCL_CHECKED=1 turns checked mode on without the property (read at negotiation). */
GST_START_TEST (test_checked_by_environment)
{
  Rig probe ("system", quoted (BYTES));
  expect_checked_property (probe.k);
  gboolean on = TRUE;
  g_object_get (probe.k, "checked", &on, nullptr);
  fail_if (on, "checked mode is on by default");
  GParamSpec *spec = g_object_class_find_property (G_OBJECT_GET_CLASS (probe.k), "checked");
  fail_unless (spec->flags & GST_PARAM_MUTABLE_PLAYING);
  fail_unless (testutil::contains (g_param_spec_get_blurb (spec), "guard"));

  g_setenv ("GST_OPENCL_CHECKED", "1", TRUE);
  const std::string text = error_of (quoted (stray_bytes_kernel ("after").c_str ()) +
      " parameters=\"p,bpp=4\"");
  g_unsetenv ("GST_OPENCL_CHECKED");
  TESTUTIL_EXPECT_ERROR (text, "kernel 'stray' wrote 128 bytes after its output frame (first "
      "at byte 0 past the end), found by checked mode");
}
GST_END_TEST;

static Suite *
kernel_suite (void)
{
  Suite *s = suite_create ("openclkernel");
  TESTUTIL_ADD_CASE (s, "general", 900, test_bad_inputs_are_clear_errors,
      test_parameters_change_while_playing, test_program_replaced_while_playing,
      test_resampling_kernel, test_kernel_time_is_reported,
      test_compiler_warnings_stay_off_the_terminal, test_local_size_beyond_the_device,
      test_source_every_format, test_source_errors_and_live, test_every_format_system_memory,
      test_every_format_opencl_memory, test_gl_memory);
  /* Checked mode (CK_RUN_CASE=checked). */
  TESTUTIL_ADD_CASE (s, "checked", 900, test_checked_catches_writes_outside_frames,
      test_checked_output_is_identical, test_checked_source, test_checked_while_playing,
      test_checked_by_environment);
  return s;
}

GST_CHECK_MAIN (kernel);
