/* gst-opencl tests: openclkernel on NV12, I420, P010_10LE, GRAY16_LE and RGBA64_LE frames: a
 * user kernel per format, as images and as buffers, bound plane by plane by name, against the
 * same operation on the CPU, exactly: luma and V inverted (v' = max - v), U copied; for
 * GRAY16_LE the grey level inverted, for RGBA64_LE red and blue inverted, green and alpha
 * copied (so that planes or channels bound in each other's place show), at an odd size with
 * padded rows and unaligned planes and at an even size with tight rows; and the errors of
 * kernels that do not fit a format's planes.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "common/suite.h"
#include "common/testutil.h"

using testutil::one_line;

namespace {

/* NV12 and P010_10LE as buffers: T is uchar or ushort, MAX 255 or 65535 (build-options). */
const char *TWO_PLANE_BUFFERS = R"CL(
__kernel void planes (__global const T * src_y, __global const T * src_uv, __global T * dst_y,
    __global T * dst_uv, int src_y_stride, int src_uv_stride, int dst_y_stride,
    int dst_uv_stride, int width, int height, int src_uv_width, int src_uv_height)
{
  const int x = get_global_id (0), y = get_global_id (1);
  const int s = sizeof (T);
  if (x < width && y < height)
    dst_y[y * (dst_y_stride / s) + x] = MAX - src_y[y * (src_y_stride / s) + x];
  if (x < src_uv_width && y < src_uv_height) {
    dst_uv[y * (dst_uv_stride / s) + 2 * x] = src_uv[y * (src_uv_stride / s) + 2 * x];
    dst_uv[y * (dst_uv_stride / s) + 2 * x + 1] =
        MAX - src_uv[y * (src_uv_stride / s) + 2 * x + 1];
  }
}
)CL";

/* I420 as buffers. */
const char *THREE_PLANE_BUFFERS = R"CL(
__kernel void planes (__global const uchar * src_y, __global const uchar * src_u,
    __global const uchar * src_v, __global uchar * dst_y, __global uchar * dst_u,
    __global uchar * dst_v, int src_y_stride, int src_u_stride, int src_v_stride,
    int dst_y_stride, int dst_u_stride, int dst_v_stride, int width, int height,
    int dst_u_width, int dst_u_height, int dst_v_width, int dst_v_height)
{
  const int x = get_global_id (0), y = get_global_id (1);
  if (x < width && y < height)
    dst_y[y * dst_y_stride + x] = 255 - src_y[y * src_y_stride + x];
  if (x < dst_u_width && y < dst_u_height)
    dst_u[y * dst_u_stride + x] = src_u[y * src_u_stride + x];
  if (x < dst_v_width && y < dst_v_height)
    dst_v[y * dst_v_stride + x] = 255 - src_v[y * src_v_stride + x];
}
)CL";

/* GRAY16_LE and RGBA64_LE as buffers: C samples a pixel (build-options). */
const char *WIDE_BUFFERS = R"CL(
__kernel void planes (__global const ushort * src, __global ushort * dst, int src_stride,
    int dst_stride, int width, int height)
{
  const int x = get_global_id (0), y = get_global_id (1);
  if (x >= width || y >= height)
    return;
  for (int c = 0; c < C; c++) {
    const ushort v = src[y * (src_stride / 2) + x * C + c];
    dst[y * (dst_stride / 2) + x * C + c] = c % 2 ? v : 65535 - v;
  }
}
)CL";

/* NV12 and P010_10LE as images: luma and V (G) inverted, U (R) copied. */
const char *TWO_PLANE_IMAGES = R"CL(
__kernel void planes (__read_only image2d_t src_y, __read_only image2d_t src_uv,
    __write_only image2d_t dst_y, __write_only image2d_t dst_uv, int dst_uv_width,
    int dst_uv_height)
{
  const int2 p = (int2) (get_global_id (0), get_global_id (1));
  write_imagef (dst_y, p, 1.0f - read_imagef (src_y, p));
  if (p.x < dst_uv_width && p.y < dst_uv_height)
    write_imagef (dst_uv, p, (float4) (read_imagef (src_uv, p).x, 1.0f - read_imagef (src_uv,
        p).y, 0.0f, 1.0f));
}
)CL";

/* I420 as images. */
const char *THREE_PLANE_IMAGES = R"CL(
__kernel void planes (__read_only image2d_t src_y, __read_only image2d_t src_u,
    __read_only image2d_t src_v, __write_only image2d_t dst_y, __write_only image2d_t dst_u,
    __write_only image2d_t dst_v)
{
  const int2 p = (int2) (get_global_id (0), get_global_id (1));
  write_imagef (dst_y, p, 1.0f - read_imagef (src_y, p));
  if (p.x < get_image_width (dst_u) && p.y < get_image_height (dst_u)) {
    write_imagef (dst_u, p, read_imagef (src_u, p));
    write_imagef (dst_v, p, 1.0f - read_imagef (src_v, p));
  }
}
)CL";

/* GRAY16_LE and RGBA64_LE as images: .x and .z inverted (GRAY16_LE keeps .x). */
const char *WIDE_IMAGES = R"CL(
__kernel void planes (__read_only image2d_t in, __write_only image2d_t out)
{
  const int2 p = (int2) (get_global_id (0), get_global_id (1));
  const float4 c = read_imagef (in, p);
  write_imagef (out, p, (float4) (1.0f - c.x, c.y, 1.0f - c.z, c.w));
}
)CL";

struct FormatCase
{
  GstVideoFormat format;
  const char *buffers, *images;
  const char *options;  /* build-options of the buffer kernel */
  int samples;          /* a pixel's samples in each plane after the first (or the only one) */
  int inverted[3];      /* bit s: sample s of a pixel of plane p inverted */
};

const FormatCase FORMATS[] = {
  { GST_VIDEO_FORMAT_NV12, TWO_PLANE_BUFFERS, TWO_PLANE_IMAGES, "-D T=uchar -D MAX=255", 2,
    { 1, 2, 0 } },
  { GST_VIDEO_FORMAT_P010_10LE, TWO_PLANE_BUFFERS, TWO_PLANE_IMAGES, "-D T=ushort -D MAX=65535",
    2, { 1, 2, 0 } },
  { GST_VIDEO_FORMAT_I420, THREE_PLANE_BUFFERS, THREE_PLANE_IMAGES, "", 1, { 1, 0, 1 } },
  { GST_VIDEO_FORMAT_GRAY16_LE, WIDE_BUFFERS, WIDE_IMAGES, "-D C=1", 1, { 1, 0, 0 } },
  { GST_VIDEO_FORMAT_RGBA64_LE, WIDE_BUFFERS, WIDE_IMAGES, "-D C=4", 4, { 5, 0, 0 } },
};

/* A plane's rows and bytes of pixels a row. */
void
plane_shape (const GstVideoInfo & info, guint plane, size_t & rows, size_t & row_bytes)
{
  gint comp[GST_VIDEO_MAX_COMPONENTS];
  gst_video_format_info_component (info.finfo, plane, comp);
  rows = GST_VIDEO_INFO_COMP_HEIGHT (&info, comp[0]);
  row_bytes = (size_t) GST_VIDEO_INFO_COMP_WIDTH (&info, comp[0]) *
      GST_VIDEO_INFO_COMP_PSTRIDE (&info, comp[0]);
}

/* A frame laid out as `info` says (strides and offsets of its own), random samples; P010's
 * 10-bit values in the high bits of each word. */
GstBuffer *
input_frame (const GstVideoInfo & info, uint32_t seed)
{
  std::vector<uint8_t> bytes (GST_VIDEO_INFO_SIZE (&info), 0);
  std::mt19937 random (seed);
  for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES (&info); p++) {
    size_t rows, row_bytes;
    plane_shape (info, p, rows, row_bytes);
    for (size_t y = 0; y < rows; y++)
      for (size_t i = 0; i < row_bytes; i++) {
        uint8_t value = (uint8_t) random ();
        if (GST_VIDEO_INFO_FORMAT (&info) == GST_VIDEO_FORMAT_P010_10LE && i % 2 == 0)
          value &= 0xC0;
        bytes[GST_VIDEO_INFO_PLANE_OFFSET (&info, p) + y * GST_VIDEO_INFO_PLANE_STRIDE (&info, p)
            + i] = value;
      }
  }
  GstBuffer *buffer = gst_buffer_new_allocate (nullptr, bytes.size (), nullptr);
  gst_buffer_fill (buffer, 0, bytes.data (), bytes.size ());
  gst_buffer_add_video_meta_full (buffer, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_INFO_FORMAT (&info), GST_VIDEO_INFO_WIDTH (&info),
      GST_VIDEO_INFO_HEIGHT (&info), GST_VIDEO_INFO_N_PLANES (&info),
      const_cast<gsize *> (info.offset), const_cast<gint *> (info.stride));
  return buffer;
}

/* `info` with each plane's rows `pad` bytes longer than tight (4-byte rounded) and `gap` bytes
 * between planes: planes whose start is not aligned for a sub-buffer or an image view. */
GstVideoInfo
padded_info (GstVideoFormat format, int width, int height, int pad, int gap)
{
  GstVideoInfo info;
  gst_video_info_set_format (&info, format, width, height);
  size_t offset = 0;
  for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES (&info); p++) {
    size_t rows, row_bytes;
    plane_shape (info, p, rows, row_bytes);
    info.stride[p] = (gint) (GST_ROUND_UP_4 (row_bytes) + pad);
    info.offset[p] = offset;
    offset += rows * info.stride[p] + gap;
  }
  info.size = offset;
  return info;
}

/* The CPU's result: the samples `f` names inverted, max - v, 8- or 16-bit; others copied.
 * Compared with the element's output, plane by plane, exactly. */
void
expect_inverted (GstBuffer * input, GstBuffer * output, const GstVideoInfo & in_info,
    const GstVideoInfo & out_info, const FormatCase & f, const std::string & label)
{
  GstVideoFrame in, out;
  fail_unless (gst_video_frame_map (&in, &in_info, input, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&out, &out_info, output, GST_MAP_READ));
  const bool wide = GST_VIDEO_INFO_COMP_DEPTH (&in_info, 0) > 8;
  size_t wrong = 0;
  std::string first;
  for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES (&in_info); p++) {
    size_t rows, row_bytes;
    plane_shape (in_info, p, rows, row_bytes);
    const int samples = p == 0 && GST_VIDEO_INFO_N_PLANES (&in_info) > 1 ? 1 : f.samples;
    for (size_t y = 0; y < rows; y++) {
      const auto *a = (const uint8_t *) GST_VIDEO_FRAME_PLANE_DATA (&in, p) +
          y * GST_VIDEO_FRAME_PLANE_STRIDE (&in, p);
      const auto *b = (const uint8_t *) GST_VIDEO_FRAME_PLANE_DATA (&out, p) +
          y * GST_VIDEO_FRAME_PLANE_STRIDE (&out, p);
      for (size_t i = 0; i < row_bytes; i += wide ? 2 : 1) {
        const unsigned v = wide ? a[i] | a[i + 1] << 8 : a[i];
        const unsigned got = wide ? b[i] | b[i + 1] << 8 : b[i];
        const int sample = (int) (i / (wide ? 2 : 1)) % samples;
        const bool invert = f.inverted[p] >> sample & 1;
        const unsigned expected = invert ? (wide ? 65535 : 255) - v : v;
        if (got != expected && wrong++ == 0)
          first = "plane " + std::to_string (p) + " row " + std::to_string (y) + " byte " +
              std::to_string (i) + ": " + std::to_string (got) + ", expected " +
              std::to_string (expected);
      }
    }
  }
  gst_video_frame_unmap (&in);
  gst_video_frame_unmap (&out);
  fail_unless (wrong == 0, "%s: %zu samples differ, first at %s", label.c_str (), wrong,
      first.c_str ());
}

/* Runs `kernel` (with `options`) in openclkernel on two frames of each layout of `format`
 * (system memory, or `opencl` between openclupload and opencldownload) and compares them. */
void
check_format (const FormatCase & f, const char *kernel, const char *options, bool opencl,
    const std::string & form)
{
  const std::string name = gst_video_format_to_string (f.format);
  const std::string core = "openclkernel source=\"" + one_line (kernel) + "\" build-options=\"" +
      options + "\"";
  GstHarness *h = gst_harness_new_parse ((opencl ? "openclupload ! " + core +
          " ! opencldownload" : core).c_str ());
  struct Layout { int width, height, pad, gap; };
  const auto layouts = testutil::full_or_quick<Layout> ({ { 65, 49, 12, 7 }, { 64, 48, 0, 0 },
        { 641, 479, 4, 1 } }, { { 65, 49, 12, 7 }, { 64, 48, 0, 0 } });
  for (const auto & l : layouts) {
    GstVideoInfo info;
    gst_video_info_set_format (&info, f.format, l.width, l.height);
    gst_harness_set_src_caps (h, gst_video_info_to_caps (&info));
    gst_harness_set_sink_caps (h, gst_video_info_to_caps (&info));
    const GstVideoInfo in_info = padded_info (f.format, l.width, l.height, l.pad, l.gap);
    for (uint32_t seed = 1; seed <= 2; seed++) {
      GstBuffer *in = input_frame (in_info, seed * 31 + (uint32_t) f.format);
      GstBuffer *out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
      fail_unless (out != nullptr, "%s %s: no output frame", name.c_str (), form.c_str ());
      expect_inverted (in, out, in_info, info, f, name + " " + form + " " +
          (opencl ? "opencl " : "system ") + std::to_string (l.width) + "x" +
          std::to_string (l.height) + " pad " + std::to_string (l.pad) + " frame " +
          std::to_string (seed));
      gst_buffer_unref (in);
      gst_buffer_unref (out);
    }
  }
  gst_harness_teardown (h);
}

/* A harness around openclkernel (named k) running `kernel` on NV12 frames of `info`'s size,
 * with `extra` properties. */
GstHarness *
nv12_harness (const char *kernel, const char *options, const std::string & extra,
    const GstVideoInfo & info)
{
  GstHarness *h = gst_harness_new_parse (("openclkernel name=k source=\"" + one_line (kernel) +
          "\" build-options=\"" + options + "\" " + extra).c_str ());
  gst_harness_set_src_caps (h, gst_video_info_to_caps (&info));
  gst_harness_set_sink_caps (h, gst_video_info_to_caps (&info));
  return h;
}

/* Pushes a frame of `in_info` and compares the output with `f`'s operation. */
void
push_and_expect (GstHarness * h, const FormatCase & f, const GstVideoInfo & in_info,
    const GstVideoInfo & info, uint32_t seed, const std::string & label)
{
  GstBuffer *in = input_frame (in_info, seed);
  GstBuffer *out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
  fail_unless (out != nullptr, "%s: no output frame", label.c_str ());
  expect_inverted (in, out, in_info, info, f, label);
  gst_buffer_unref (in);
  gst_buffer_unref (out);
}

/* The first message of `type` on `bus` within `seconds` that `accept` takes, or null. */
GstMessage *
wait_message (GstBus * bus, GstMessageType type, int seconds, bool (*accept) (GstMessage *))
{
  const gint64 end = g_get_monotonic_time () + (gint64) seconds * G_USEC_PER_SEC;
  do {
    GstMessage *m = gst_bus_timed_pop_filtered (bus, 10 * GST_MSECOND, type);
    if (m && accept (m))
      return m;
    if (m)
      gst_message_unref (m);
  } while (g_get_monotonic_time () < end);
  return nullptr;
}

/* The format the element named k takes in `launch`, once prerolled ("" if it did not). */
std::string
negotiated_format (const std::string & launch)
{
  GstElement *pipeline = testutil::parse_pipeline (launch);
  gst_element_set_state (pipeline, GST_STATE_PAUSED);
  gst_element_get_state (pipeline, nullptr, nullptr, 60 * GST_SECOND);
  GstElement *k = gst_bin_get_by_name (GST_BIN (pipeline), "k");
  GstPad *pad = gst_element_get_static_pad (k, "sink");
  GstCaps *caps = gst_pad_get_current_caps (pad);
  const gchar *format = caps ? gst_structure_get_string (gst_caps_get_structure (caps, 0),
      "format") : nullptr;
  const std::string result = format ? format : "";
  if (caps)
    gst_caps_unref (caps);
  gst_object_unref (pad);
  gst_object_unref (k);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
  return result;
}

/* The error text of openclkernel running `source` on one frame of `format`. */
std::string
error_on (const char *format, const std::string & source)
{
  return testutil::run_pipeline (std::string ("videotestsrc num-buffers=1 ! video/x-raw,format=")
      + format + ",width=33,height=17 ! openclkernel source=\"" + source + "\" ! fakesink", 120);
}

}  // namespace

GST_START_TEST (test_planes_as_buffers)
{
  for (const auto & f : FORMATS)
    check_format (f, f.buffers, f.options, false, "buffers");
}
GST_END_TEST;

GST_START_TEST (test_planes_as_images)
{
  for (const auto & f : FORMATS)
    check_format (f, f.images, "", false, "images");
}
GST_END_TEST;

/* OpenCL memory in and out: the frames' device buffers themselves are bound. */
GST_START_TEST (test_planes_in_opencl_memory)
{
  for (const auto & f : FORMATS) {
    check_format (f, f.buffers, f.options, true, "buffers");
    check_format (f, f.images, "", true, "images");
  }
}
GST_END_TEST;

/* A new program while playing on NV12 (the planes bound again when it is taken up): one that
 * does not fit the planes is a WARNING and the old one goes on; the image kernel replaces the
 * buffer kernel with the same result. And checked mode with plane buffers, which it does not
 * guard, gives the same bytes. */
GST_START_TEST (test_planes_while_playing_and_checked)
{
  const FormatCase & f = FORMATS[0];
  fail_unless (f.format == GST_VIDEO_FORMAT_NV12);
  GstVideoInfo info;
  gst_video_info_set_format (&info, f.format, 65, 49);
  const GstVideoInfo in_info = padded_info (f.format, 65, 49, 12, 7);
  GstHarness *h = nv12_harness (f.buffers, f.options, "", info);
  GstBus *bus = gst_bus_new ();
  gst_element_set_bus (h->element, bus);
  GstElement *k = gst_bin_get_by_name (GST_BIN (h->element), "k");
  push_and_expect (h, f, in_info, info, 3, "buffer kernel");

  g_object_set (k, "source", "__kernel void whole (__global const uchar * src, "
      "__global uchar * dst) { }", nullptr);
  GstMessage *warning = nullptr;
  for (int i = 0; i < 600 && !warning; i++) {
    push_and_expect (h, f, in_info, info, 4, "the buffer kernel while a new one builds");
    warning = wait_message (bus, GST_MESSAGE_WARNING, 0, [] (GstMessage *) { return true; });
    g_usleep (warning ? 0 : 20000);
  }
  fail_unless (warning != nullptr, "no warning for a kernel that does not fit NV12's planes");
  TESTUTIL_EXPECT_ERROR (testutil::message_text (warning), "the new kernel cannot run: NV12 "
      "frames are two planes: declare src_y and src_uv (and dst_y and dst_uv) instead of src");
  gst_message_unref (warning);
  push_and_expect (h, f, in_info, info, 5, "the buffer kernel after a kernel that did not fit");

  g_object_set (k, "source", one_line (f.images).c_str (), nullptr);
  GstMessage *applied = nullptr;
  for (int i = 0; i < 600 && !applied; i++) {
    applied = wait_message (bus, GST_MESSAGE_ELEMENT, 0, [] (GstMessage * m) {
      return (bool) gst_message_has_name (m, "opencl-kernel");
    });
    push_and_expect (h, f, in_info, info, 6 + i, "while the image kernel builds, or taken up");
    g_usleep (applied ? 0 : 20000);
  }
  fail_unless (applied != nullptr, "the image kernel was never taken up");
  gst_message_unref (applied);
  push_and_expect (h, f, in_info, info, 7, "the image kernel taken up while playing");
  gst_element_set_bus (h->element, nullptr);
  gst_object_unref (bus);
  gst_object_unref (k);
  gst_harness_teardown (h);

  h = nv12_harness (f.buffers, f.options, "checked=true", info);
  for (uint32_t seed = 8; seed < 10; seed++)
    push_and_expect (h, f, in_info, info, seed, "checked mode with plane buffers");
  gst_harness_teardown (h);
}
GST_END_TEST;

GST_START_TEST (test_kernels_that_do_not_fit_the_planes)
{
  const std::string whole = "__kernel void f (__global const uchar * src, __global uchar * dst) "
      "{ dst[0] = src[0]; }";
  TESTUTIL_EXPECT_ERROR (error_on ("NV12", whole), "NV12 frames are two planes: declare src_y "
      "and src_uv (and dst_y and dst_uv) instead of src");
  TESTUTIL_EXPECT_ERROR (error_on ("I420", whole), "I420 frames are three planes: declare "
      "src_y, src_u and src_v (and dst_y, dst_u and dst_v) instead of src");
  TESTUTIL_EXPECT_ERROR (error_on ("P010_10LE", "__kernel void f (__read_only image2d_t in, "
          "__write_only image2d_t out) { }"), "P010_10LE frames are two planes: declare src_y "
      "and src_uv (and dst_y and dst_uv) instead of in");
  TESTUTIL_EXPECT_ERROR (error_on ("NV12", "__kernel void f (__global const uchar * src_y, "
          "__global uchar * dst_y) { }"), "must write every plane of the NV12 output, dst_y "
      "and dst_uv: declare dst_uv too");
  TESTUTIL_EXPECT_ERROR (error_on ("NV12", "__kernel void f (__global const uchar * src_u, "
          "__global uchar * dst_y, __global uchar * dst_uv) { }"), "NV12 frames are two planes, "
      "src_y and src_uv: there is no src_u");
  TESTUTIL_EXPECT_ERROR (error_on ("GRAY16_LE", "__kernel void f (__global const ushort * src_y,"
          " __global ushort * dst) { }"), "GRAY16_LE frames are one plane: declare src (a buffer "
      "or an image) instead of src_y");
  TESTUTIL_EXPECT_ERROR (error_on ("P010_10LE", "__kernel void f (__global const uchar * src_y, "
          "__global ushort * dst_y, __global ushort * dst_uv) { }"), "P010_10LE samples are "
      "16-bit words: declare src_y as ushort *, not uchar*");
  TESTUTIL_EXPECT_ERROR (error_on ("I420", "__kernel void f (__global const uchar * src_y, "
          "__global ushort * dst_y, __global uchar * dst_u, __global uchar * dst_v) { }"),
      "I420 samples are bytes: declare dst_y as uchar *, not ushort*");
  TESTUTIL_EXPECT_ERROR (error_on ("NV12", "__kernel void f (__write_only image2d_t src_y, "
          "__global uchar * dst_y, __global uchar * dst_uv) { }"), "an input plane is "
      "__read_only");
  TESTUTIL_EXPECT_ERROR (error_on ("NV12", "__kernel void f (__global uchar * dst_y, "
          "__global uchar * dst_uv, float dst_y_stride) { }"), "the element fills dst_y_stride: "
      "make it an int");
}
GST_END_TEST;

/* Negotiation offers only the formats the kernel takes, so a converter upstream converts YUV
 * for a whole-frame kernel and RGB for a plane kernel (the error above comes only where the
 * format is forced). */
GST_START_TEST (test_converter_upstream_converts_for_the_kernel)
{
  const std::string whole = "__kernel void g (__read_only image2d_t in, __write_only image2d_t "
      "out) { int2 p = (int2) (get_global_id (0), get_global_id (1)); write_imagef (out, p, "
      "read_imagef (in, p)); }";
  for (const char *format : { "I420", "NV12", "P010_10LE" })
    TESTUTIL_EXPECT_NO_ERROR (testutil::run_pipeline (std::string ("videotestsrc num-buffers=2 ! "
            "video/x-raw,width=33,height=17,format=") + format + " ! videoconvert ! "
            "openclkernel source=\"" + whole + "\" ! fakesink", 120));
  for (const auto & f : FORMATS) {
    if (f.format == GST_VIDEO_FORMAT_GRAY16_LE || f.format == GST_VIDEO_FORMAT_RGBA64_LE)
      continue;
    TESTUTIL_EXPECT_NO_ERROR (testutil::run_pipeline ("videotestsrc num-buffers=2 ! "
            "video/x-raw,width=33,height=17,format=RGBA ! videoconvert ! openclkernel "
            "source=\"" + one_line (f.images) + "\" ! video/x-raw,format=" +
            gst_video_format_to_string (f.format) + " ! fakesink", 120));
  }
  /* The pointers' sample size picks NV12 or P010_10LE for buffer kernels. */
  for (const char *type : { "uchar", "ushort" }) {
    const std::string max = type[1] == 'c' ? "255" : "65535";
    fail_unless_equals_string (negotiated_format ("videotestsrc num-buffers=1 ! video/x-raw,"
            "width=33,height=17,format=NV12 ! videoconvert ! openclkernel name=k source=\"" +
            one_line (TWO_PLANE_BUFFERS) + "\" build-options=\"-D T=" + type + " -D MAX=" +
            max + "\" ! fakesink").c_str (), type[1] == 'c' ? "NV12" : "P010_10LE");
  }
  /* I420's planes on a kernel written for NV12's: converted to NV12 (or P010_10LE). */
  TESTUTIL_EXPECT_NO_ERROR (testutil::run_pipeline ("videotestsrc num-buffers=2 ! "
          "video/x-raw,width=33,height=17,format=I420 ! videoconvert ! openclkernel source=\"" +
          one_line (TWO_PLANE_IMAGES) + "\" ! fakesink", 120));
}
GST_END_TEST;

static Suite *
kernel_planes_suite (void)
{
  return TESTUTIL_SUITE ("openclkernel planes", 600, test_kernels_that_do_not_fit_the_planes,
      test_planes_as_buffers, test_planes_as_images, test_planes_in_opencl_memory,
      test_planes_while_playing_and_checked, test_converter_upstream_converts_for_the_kernel);
}

GST_CHECK_MAIN (kernel_planes);
