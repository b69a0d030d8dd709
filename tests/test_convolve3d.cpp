/* gst-opencl tests: openclconvolve3d against the float64 reference, through GstHarness.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * One variant is forced (GST_OPENCL_VARIANT_CONVOLUTION) so that each kernel shape costs one
 * program build on slow CPU drivers; test_gpu_layouts forces the layouts the GPU candidates use
 * (2D blocks of outputs, the staged input, filters in local or global memory) on every path; the
 * tuning path is covered by the multiconvolve tests. */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include <glib/gstdio.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "common/suite.h"
#include "common/testutil.h"
#include "reference/convolution_reference.h"

using testutil::Frame;
using testutil::Pattern;

namespace {

constexpr GstClockTime FRAME_NS = GST_SECOND / 30;
constexpr const char *FORCED_VARIANT = "4:8x4";

using Kernel = reference::Convolve3dKernel;

void
apply (GstElement * element, const Kernel & k)
{
  gst_util_set_object_arg (G_OBJECT (element), "preset", k.preset.c_str ());
  g_object_set (element, "kernel-width", k.width, "kernel-height", k.height, "kernel-depth",
      k.depth, "sigma-xy", k.sigma_xy, "sigma-t", k.sigma_t, "normalize", k.normalize,
      nullptr);
  if (k.preset == "custom")
    testutil::set_float_array (element, "kernel", k.taps);
}

std::vector<double>
random_taps (size_t count, uint32_t seed, double low, double high)
{
  std::mt19937 random (seed);
  std::uniform_real_distribution<double> value (low, high);
  std::vector<double> taps (count);
  for (double &v : taps)
    v = value (random);
  return taps;
}

/* The properties are read when caps are set (they are mutable in READY only), so they are
 * applied before the harness sends caps. */
GstHarness *
new_harness (GstVideoFormat format, int width, int height, GstVideoInfo * info,
    const Kernel & k)
{
  GstHarness *h = gst_harness_new ("openclconvolve3d");
  apply (h->element, k);
  gst_video_info_set_format (info, format, width, height);
  info->fps_n = 30;
  info->fps_d = 1;
  gst_harness_set_src_caps (h, gst_video_info_to_caps (info));
  return h;
}

GstBuffer *
stamped (const Frame & frame, GstVideoFormat format, int index)
{
  GstBuffer *buffer = testutil::to_buffer (frame, format);
  GST_BUFFER_PTS (buffer) = index * FRAME_NS;
  GST_BUFFER_DURATION (buffer) = FRAME_NS;
  GST_BUFFER_OFFSET (buffer) = index;
  return buffer;
}

/* `count` frames filled with `pattern`, seeds from `seed` on; rows of `stride` bytes (0: no
 * padding). */
std::vector<Frame>
random_frames (int count, int width, int height, int bpp, uint32_t seed, Pattern pattern,
    int stride = 0)
{
  std::vector<Frame> frames;
  for (int t = 0; t < count; t++) {
    frames.emplace_back (width, height, bpp, stride);
    testutil::fill (frames.back (), pattern, seed + t);
  }
  return frames;
}

/* Pushes the frames as those of indices `first_index` on, each taken. */
void
push_frames (GstHarness * h, const std::vector<Frame> & frames, GstVideoFormat format,
    int first_index)
{
  for (int t = 0; t < (int) frames.size (); t++)
    fail_unless_equals_int (gst_harness_push (h, stamped (frames[t], format, first_index + t)),
        GST_FLOW_OK);
}

/* Checks every output against the reference, and output n's timestamps against input n's. */
void
check_outputs (GstHarness * h, const GstVideoInfo * info, const std::vector<Frame> & inputs,
    const Kernel & k, int first_index, const std::string & label)
{
  auto expected = reference::convolve3d_frames (inputs, k);
  const int bpp = inputs[0].bytes_per_pixel;
  std::vector<int> tolerance = bpp == 4 ? std::vector<int> { 1, 1, 1, 0 } :
      std::vector<int> { 1 };
  fail_unless_equals_int (gst_harness_buffers_in_queue (h), (int) inputs.size ());
  for (size_t n = 0; n < inputs.size (); n++) {
    GstBuffer *out = gst_harness_pull (h);
    fail_unless (out != nullptr);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (out), (first_index + n) * FRAME_NS);
    fail_unless_equals_uint64 (GST_BUFFER_OFFSET (out), first_index + n);
    Frame actual = testutil::from_buffer (out, info);
    gst_buffer_unref (out);
    auto difference = testutil::compare (actual, expected[n], tolerance);
    fail_unless (difference.over == 0, "%s, frame %zu: %s", label.c_str (), n,
        testutil::describe (difference).c_str ());
  }
}

/* Pushes the frames (rows of `stride` bytes, 0: unpadded), then EOS (which drains the window),
 * and checks every output; and the `separable` property unless `expect_separable` is -1. */
void
check_stream (GstVideoFormat format, int width, int height, int frame_count, const Kernel & k,
    uint32_t seed, int expect_separable, Pattern pattern = Pattern::Random, int stride = 0)
{
  GstVideoInfo info;
  GstHarness *h = new_harness (format, width, height, &info, k);
  auto inputs = random_frames (frame_count, width, height,
      GST_VIDEO_INFO_COMP_PSTRIDE (&info, 0), seed, pattern, stride);
  push_frames (h, inputs, format, 0);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  std::string label = std::string (gst_video_format_to_string (format)) + " " +
      std::to_string (width) + "x" + std::to_string (height) + "x" +
      std::to_string (frame_count) + " kernel " + k.preset + " " + std::to_string (k.width) +
      "x" + std::to_string (k.height) + "x" + std::to_string (k.depth) + " stride " +
      std::to_string (inputs[0].stride);
  check_outputs (h, &info, inputs, k, 0, label);
  if (expect_separable >= 0) {
    gboolean separable = FALSE;
    g_object_get (h->element, "separable", &separable, nullptr);
    fail_unless_equals_int (separable, expect_separable);
  }
  gst_harness_teardown (h);
}

Kernel
custom (int w, int hgt, int d, uint32_t seed, double low = 0.0, double high = 1.0,
    bool normalize = true)
{
  Kernel k;
  k.preset = "custom";
  k.width = w;
  k.height = hgt;
  k.depth = d;
  k.taps = random_taps ((size_t) w * hgt * d, seed, low, high);
  k.normalize = normalize;
  return k;
}

/* The error a pipeline posts for these settings ("" when it runs). */
std::string
pipeline_error (const std::string & element_settings)
{
  return testutil::run_pipeline ("videotestsrc num-buffers=3 ! video/x-raw,format=GRAY8,"
      "width=16,height=8 ! openclconvolve3d " + element_settings + " ! fakesink");
}


/* Frames of every plane: YUV and 16-bit formats. */
using reference::PlanarFrame;
using reference::PlaneSamples;

bool
is_p010 (GstVideoFormat format)
{
  return format == GST_VIDEO_FORMAT_P010_10LE;
}

int
sample_bytes (GstVideoFormat format)
{
  return format == GST_VIDEO_FORMAT_GRAY16_LE || format == GST_VIDEO_FORMAT_RGBA64_LE ||
      is_p010 (format) ? 2 : 1;
}

/* The caps' layout, or with `pad` > 0 every plane's rows `pad` bytes longer (a layout of the
 * input buffers' video meta, as a decoder's padded frames have). */
GstVideoInfo
planar_info (GstVideoFormat format, int width, int height, int pad)
{
  GstVideoInfo info;
  gst_video_info_set_format (&info, format, width, height);
  info.fps_n = 30;
  info.fps_d = 1;
  if (pad == 0)
    return info;
  gsize offset = 0;
  for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES (&info); p++) {
    guint component = 0;
    while (GST_VIDEO_INFO_COMP_PLANE (&info, component) != p)
      component++;
    info.stride[p] += pad;
    info.offset[p] = offset;
    offset += (gsize) info.stride[p] * GST_VIDEO_INFO_COMP_HEIGHT (&info, component);
  }
  info.size = offset;
  return info;
}

/* Random: uniform samples over the format's range (P010: 10-bit values in the high bits);
 * Edges: dark and bright halves and a bright square, with light noise, per channel. */
PlanarFrame
planar_frame (const GstVideoInfo * info, Pattern pattern, uint32_t seed)
{
  const GstVideoFormat format = GST_VIDEO_INFO_FORMAT (info);
  const int bytes = sample_bytes (format);
  const int shift = is_p010 (format) ? 6 : 0;
  const int top = (bytes == 2 ? 65535 : 255) >> shift;
  std::mt19937 random (seed);
  std::uniform_int_distribution<int> any (0, top), noise (-top / 64, top / 64);
  PlanarFrame frame;
  for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
    guint component = 0;
    while (GST_VIDEO_INFO_COMP_PLANE (info, component) != p)
      component++;
    PlaneSamples plane;
    plane.width = GST_VIDEO_INFO_COMP_WIDTH (info, component);
    plane.height = GST_VIDEO_INFO_COMP_HEIGHT (info, component);
    plane.channels = GST_VIDEO_INFO_COMP_PSTRIDE (info, component) / bytes;
    plane.samples.resize ((size_t) plane.width * plane.height * plane.channels);
    for (int y = 0; y < plane.height; y++)
      for (int x = 0; x < plane.width; x++)
        for (int c = 0; c < plane.channels; c++) {
          int value = any (random);
          if (pattern != Pattern::Random) {
            const bool bright = x >= plane.width / 2 || (std::abs (x - plane.width / 4) <
                plane.width / 8 + 1 && std::abs (y - plane.height / 2) < plane.height / 4 + 1);
            value = std::clamp ((bright ? top * (7 - c) / 8 : top * (c + 1) / 10) +
                noise (random), 0, top);
          }
          plane.at (x, y, c) = value << shift;
        }
    frame.push_back (std::move (plane));
  }
  return frame;
}

/* The frame in a buffer laid out as `info` (padding bytes set to 0xA5) with a video meta. */
GstBuffer *
planar_buffer (const PlanarFrame & frame, const GstVideoInfo * info, int index)
{
  const int bytes = sample_bytes (GST_VIDEO_INFO_FORMAT (info));
  GstBuffer *buffer = gst_buffer_new_allocate (nullptr, info->size, nullptr);
  GstMapInfo map;
  fail_unless (gst_buffer_map (buffer, &map, GST_MAP_WRITE));
  memset (map.data, 0xA5, map.size);
  for (size_t p = 0; p < frame.size (); p++) {
    const PlaneSamples & plane = frame[p];
    for (int y = 0; y < plane.height; y++) {
      guint8 *row = map.data + info->offset[p] + (size_t) y * info->stride[p];
      for (int i = 0; i < plane.width * plane.channels; i++) {
        const int value = plane.samples[(size_t) y * plane.width * plane.channels + i];
        row[i * bytes] = (guint8) value;
        if (bytes == 2)
          row[i * bytes + 1] = (guint8) (value >> 8);
      }
    }
  }
  gst_buffer_unmap (buffer, &map);
  gst_buffer_add_video_meta_full (buffer, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_INFO_FORMAT (info), GST_VIDEO_INFO_WIDTH (info), GST_VIDEO_INFO_HEIGHT (info),
      GST_VIDEO_INFO_N_PLANES (info), (gsize *) info->offset, (gint *) info->stride);
  GST_BUFFER_PTS (buffer) = index * FRAME_NS;
  GST_BUFFER_DURATION (buffer) = FRAME_NS;
  GST_BUFFER_OFFSET (buffer) = index;
  return buffer;
}

/* The samples of an output buffer, read through its video meta (or the caps' layout). */
PlanarFrame
planar_from_buffer (GstBuffer * buffer, GstVideoInfo * info, const PlanarFrame & shape)
{
  const int bytes = sample_bytes (GST_VIDEO_INFO_FORMAT (info));
  GstVideoFrame video;
  fail_unless (gst_video_frame_map (&video, info, buffer, GST_MAP_READ));
  PlanarFrame frame (shape);
  for (size_t p = 0; p < frame.size (); p++) {
    PlaneSamples & plane = frame[p];
    for (int y = 0; y < plane.height; y++) {
      const guint8 *row = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&video, p) +
          (size_t) y * GST_VIDEO_FRAME_PLANE_STRIDE (&video, p);
      for (int i = 0; i < plane.width * plane.channels; i++)
        plane.samples[(size_t) y * plane.width * plane.channels + i] = bytes == 2 ?
            row[i * 2] | (row[i * 2 + 1] << 8) : row[i];
    }
  }
  gst_video_frame_unmap (&video);
  return frame;
}

/* Compares with the reference: at most 1 code apart (P010: 1 10-bit code, 64 in the word,
 * whose low 6 bits must be 0), the fourth channel (alpha, copied) exact. */
void
compare_planar (const PlanarFrame & actual, const PlanarFrame & expected, int code,
    const std::string & label)
{
  for (size_t p = 0; p < expected.size (); p++) {
    const PlaneSamples & e = expected[p];
    for (int y = 0; y < e.height; y++)
      for (int x = 0; x < e.width; x++)
        for (int c = 0; c < e.channels; c++) {
          const int a = actual[p].at (x, y, c), want = e.at (x, y, c);
          const int tolerance = c == 3 ? 0 : code;
          fail_unless (std::abs (a - want) <= tolerance && a % code == 0,
              "%s: plane %zu (%dx%d) x %d y %d channel %d: %d, reference %d", label.c_str (), p,
              e.width, e.height, x, y, c, a, want);
        }
  }
}

/* check_stream () for any format, planes at their own sizes; `pad` bytes more per input row. */
void
check_planar_stream (GstVideoFormat format, int width, int height, int frame_count,
    const Kernel & k, uint32_t seed, int expect_separable, Pattern pattern, int pad)
{
  GstVideoInfo caps_info = planar_info (format, width, height, 0);
  GstVideoInfo in_info = planar_info (format, width, height, pad);
  GstHarness *h = gst_harness_new ("openclconvolve3d");
  apply (h->element, k);
  gst_harness_set_src_caps (h, gst_video_info_to_caps (&caps_info));
  std::vector<PlanarFrame> inputs;
  for (int t = 0; t < frame_count; t++) {
    inputs.push_back (planar_frame (&in_info, pattern, seed + t));
    fail_unless_equals_int (gst_harness_push (h, planar_buffer (inputs.back (), &in_info, t)),
        GST_FLOW_OK);
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  const int code = is_p010 (format) ? 64 : 1;
  auto expected = reference::convolve3d_planes (inputs, k,
      sample_bytes (format) == 2 ? 65535 : 255, code);
  std::string label = std::string (gst_video_format_to_string (format)) + " " +
      std::to_string (width) + "x" + std::to_string (height) + "x" +
      std::to_string (frame_count) + " pad " + std::to_string (pad) + " " +
      testutil::pattern_name (pattern) + " kernel " + k.preset + " " +
      std::to_string (k.width) + "x" + std::to_string (k.height) + "x" +
      std::to_string (k.depth);
  fail_unless_equals_int (gst_harness_buffers_in_queue (h), frame_count);
  for (int n = 0; n < frame_count; n++) {
    GstBuffer *out = gst_harness_pull (h);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (out), n * FRAME_NS);
    PlanarFrame actual = planar_from_buffer (out, &caps_info, inputs[0]);
    gst_buffer_unref (out);
    compare_planar (actual, expected[n], code, label + ", frame " + std::to_string (n));
  }
  if (expect_separable >= 0) {
    gboolean separable = FALSE;
    g_object_get (h->element, "separable", &separable, nullptr);
    fail_unless_equals_int (separable, expect_separable);
  }
  gst_harness_teardown (h);
}

constexpr GstVideoFormat NEW_FORMATS[] = { GST_VIDEO_FORMAT_GRAY16_LE,
  GST_VIDEO_FORMAT_RGBA64_LE, GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_NV12,
  GST_VIDEO_FORMAT_P010_10LE };

}  // namespace

GST_START_TEST (test_defaults)
{
  GstElement *element = gst_element_factory_make ("openclconvolve3d", nullptr);
  fail_unless (element != nullptr);
  gint width, height, depth, preset;
  gdouble sigma_xy, sigma_t;
  gboolean normalize, separable;
  g_object_get (element, "kernel-width", &width, "kernel-height", &height, "kernel-depth",
      &depth, "preset", &preset, "sigma-xy", &sigma_xy, "sigma-t", &sigma_t, "normalize",
      &normalize, "separable", &separable, nullptr);
  fail_unless_equals_int (width, 5);
  fail_unless_equals_int (height, 5);
  fail_unless_equals_int (depth, 3);
  fail_unless_equals_int (preset, 0);
  fail_unless_equals_float (sigma_xy, 1.0);
  fail_unless_equals_float (sigma_t, 1.0);
  fail_unless (normalize);
  fail_unless (!separable);
  gst_object_unref (element);
}
GST_END_TEST;

GST_START_TEST (test_non_separable_every_format)
{
  /* Random positive taps (normalized) and signed ones (not normalized, so values go out of
   * range and saturate both ways). */
  uint32_t seed = 10;
  for (GstVideoFormat format : { GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_BGRA,
          GST_VIDEO_FORMAT_RGBx, GST_VIDEO_FORMAT_BGRx, GST_VIDEO_FORMAT_GRAY8 }) {
    check_stream (format, 13, 7, 6, custom (3, 5, 3, seed), seed + 1000, 0);
    seed++;
    check_stream (format, 11, 6, 5, custom (3, 5, 3, seed, -0.4, 0.5, false), seed + 1000, 0);
    seed++;
  }
}
GST_END_TEST;

/* Every new format: the direct kernel, on random frames at an odd size (chroma planes of
 * 33x25) and on structured frames with padded input rows and taps that saturate both ways,
 * depth 3 and 1. */
GST_START_TEST (test_new_formats_direct)
{
  uint32_t seed = 1100;
  for (GstVideoFormat format : NEW_FORMATS) {
    check_planar_stream (format, 65, 49, 5, custom (3, 5, 3, seed), seed + 1000, 0,
        Pattern::Random, 0);
    check_planar_stream (format, 17, 11, 3, custom (3, 3, 1, seed + 1, -0.5, 0.9, false),
        seed + 2000, 0, Pattern::Edges, 12);
    seed += 10;
  }
}
GST_END_TEST;

/* Every new format through the three separable passes and the per-plane float frames:
 * depth 3 (Gaussian) on structured frames with padded rows, depth 1 (box) on random ones. */
GST_START_TEST (test_new_formats_separable)
{
  uint32_t seed = 1200;
  for (GstVideoFormat format : NEW_FORMATS) {
    Kernel gaussian;
    check_planar_stream (format, 65, 49, 4, gaussian, seed, 1, Pattern::Edges, 20);
    Kernel box;
    box.preset = "box";
    box.width = 3;
    box.height = 5;
    box.depth = 1;
    check_planar_stream (format, 23, 13, 3, box, seed + 1, 1, Pattern::Random, 0);
    seed += 10;
  }
}
GST_END_TEST;

GST_START_TEST (test_kernel_shapes_and_stream_ends)
{
  /* Windows longer than the stream (every output clamped at both ends), kernels wider than
   * the frame (every pixel clamped), and single-tap axes. */
  struct
  {
    int w, h, d, frames;
  } cases[] = {
    { 1, 1, 1, 3 }, { 5, 3, 5, 4 }, { 15, 1, 3, 5 }, { 1, 15, 1, 2 }, { 3, 3, 15, 5 },
    { 15, 15, 7, 3 },
  };
  uint32_t seed = 100;
  for (const auto & c : cases) {
    /* Each kernel shape is a program of its own: the quick suite keeps single-tap axes, and a
     * kernel wider than the frame with a window longer than the stream. */
    if (!testutil::full_suite () && !(c.w == 1 && c.h == 15) && !(c.w == 15 && c.h == 15)) {
      seed += 2;
      continue;
    }
    check_stream (GST_VIDEO_FORMAT_GRAY8, 9, 6, c.frames, custom (c.w, c.h, c.d, seed),
        seed + 1000, (c.w > 1) + (c.h > 1) + (c.d > 1) <= 1 ? 1 : 0);
    /* (a random kernel with one axis longer than 1 is trivially rank 1) */
    check_stream (GST_VIDEO_FORMAT_RGBA, 7, 5, c.frames, custom (c.w, c.h, c.d, seed + 1),
        seed + 2000, -1);
    seed += 2;
  }
  /* One frame only: the whole window is that frame. */
  check_stream (GST_VIDEO_FORMAT_GRAY8, 10, 4, 1, custom (3, 3, 5, seed), seed + 1000, 0);
}
GST_END_TEST;

GST_START_TEST (test_separable_kernels)
{
  Kernel gaussian;  /* the defaults: 5x5x3, sigma 1 */
  check_stream (GST_VIDEO_FORMAT_RGBA, 20, 12, 7, gaussian, 300, 1, Pattern::Edges);
  /* The quick suite leaves out the gray frames of the defaults and the wider Gaussian. */
  if (testutil::full_suite ()) {
    check_stream (GST_VIDEO_FORMAT_GRAY8, 17, 9, 4, gaussian, 301, 1);
    Kernel wide;
    wide.width = 7;
    wide.height = 3;
    wide.depth = 5;
    wide.sigma_xy = 2.5;
    wide.sigma_t = 0.7;
    check_stream (GST_VIDEO_FORMAT_BGRx, 15, 10, 6, wide, 302, 1);
  }
  Kernel box;
  box.preset = "box";
  box.width = 3;
  box.height = 5;
  box.depth = 3;
  check_stream (GST_VIDEO_FORMAT_GRAY8, 12, 8, 5, box, 303, 1, Pattern::Edges);
  /* A custom rank-1 kernel with signed factors is detected as separable too. */
  auto fx = random_taps (5, 304, -1.0, 1.0);
  auto fy = random_taps (3, 305, -1.0, 1.0);
  auto ft = random_taps (3, 306, 0.2, 1.0);
  Kernel outer = custom (5, 3, 3, 0);
  outer.normalize = false;
  for (int l = 0; l < 3; l++)
    for (int j = 0; j < 3; j++)
      for (int i = 0; i < 5; i++)
        outer.taps[(l * 3 + j) * 5 + i] = fx[i] * fy[j] * ft[l];
  check_stream (GST_VIDEO_FORMAT_RGBA, 14, 9, 5, outer, 307, 1);
  /* The same with one tap changed is not. */
  outer.taps[7] += 0.25;
  check_stream (GST_VIDEO_FORMAT_RGBA, 14, 9, 5, outer, 308, 0);
}
GST_END_TEST;

GST_START_TEST (test_gpu_layouts)
{
  /* Direct and separable (float passes, byte output with the alpha copied), RGBA and GRAY8,
   * frames that are no multiple of any block. */
  Kernel gaussian;
  uint32_t seed = 900;
  /* The largest layout, 16x8 work-groups of 8x2 outputs with the input staged, needs 41,600
   * bytes of local memory for the RGBA 3x5 kernel below (as local_bytes () in
   * gst/opencl/gstopenclconvolution.cpp counts, plus its 1 KiB margin): more than the 32 KiB
   * OpenCL guarantees and rusticl has. On such a device the same blocks run in 16x4 groups
   * (24,960 bytes); a forced variant that does not fit is an error, not a fallback. The two-buffer
   * layouts below fit 32 KiB (4x2:8x8 needs 21,760 bytes for that kernel; 4x4:8x8 would need
   * 39,168). */
  const guint64 local_mem = testutil::default_device_local_mem_bytes ();
  const char *blocks = local_mem >= 41600 + 1024 ? "8x2:16x8:tile" : "8x2:16x4:tile";
  g_printerr ("device local memory %" G_GUINT64_FORMAT " bytes: %s\n", local_mem, blocks);
  /* The quick suite takes one layout of each filter memory (the default, global, constant),
   * which between them stage the input in one, none and two buffers, each with the direct
   * kernel on RGBA, the first with the separable passes on GRAY8 too (each is a program of its
   * own). */
  for (const char *variant : testutil::full_or_quick<const char *> ({ blocks,
              "4x4:8x8:local:tile", "3x2:4x4:global:tile", "2x3:8x4:global",
              "4x2:8x8:constant:tile2", "3x2:4x4:global:tile2" },
          { blocks, "2x3:8x4:global", "4x2:8x8:constant:tile2" })) {
    g_setenv ("GST_OPENCL_VARIANT_CONVOLUTION", variant, TRUE);
    check_stream (GST_VIDEO_FORMAT_RGBA, 37, 13, 4, custom (3, 5, 3, seed), seed + 1, 0);
    if (testutil::full_suite ()) {
      check_stream (GST_VIDEO_FORMAT_GRAY8, 29, 11, 4, custom (5, 3, 3, seed + 2, -0.4, 0.5,
              false), seed + 3, 0);
      check_stream (GST_VIDEO_FORMAT_RGBA, 23, 10, 4, gaussian, seed + 4, 1, Pattern::Edges);
    }
    if (testutil::full_suite () || variant == blocks)
      check_stream (GST_VIDEO_FORMAT_GRAY8, 19, 9, 3, gaussian, seed + 5, 1);
    seed += 10;
  }
  g_setenv ("GST_OPENCL_VARIANT_CONVOLUTION", FORCED_VARIANT, TRUE);
}
GST_END_TEST;

GST_START_TEST (test_latency_and_output_timing)
{
  for (int depth : { 1, 3, 5 }) {
    Kernel k;
    k.depth = depth;
    k.width = k.height = 3;
    GstVideoInfo info;
    GstHarness *h = new_harness (GST_VIDEO_FORMAT_GRAY8, 8, 4, &info, k);
    gst_harness_set_upstream_latency (h, 10 * GST_MSECOND);
    auto inputs = random_frames (depth + 2, 8, 4, 1, 400, Pattern::Random);
    const int d = (depth - 1) / 2;
    /* Output n leaves once input n + d has arrived. */
    for (int t = 0; t < (int) inputs.size (); t++) {
      fail_unless_equals_int (gst_harness_push (h, stamped (inputs[t], GST_VIDEO_FORMAT_GRAY8,
                  t)), GST_FLOW_OK);
      fail_unless_equals_int (gst_harness_buffers_received (h), MAX (0, t - d + 1));
    }
    GstClockTime latency = gst_harness_query_latency (h);
    fail_unless_equals_uint64 (latency, 10 * GST_MSECOND +
        gst_util_uint64_scale_int (d * GST_SECOND, 1, 30));
    fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
    check_outputs (h, &info, inputs, k, 0, "depth " + std::to_string (depth));
    gst_harness_teardown (h);
  }
}
GST_END_TEST;

GST_START_TEST (test_flush_and_caps_change_reset_the_window)
{
  Kernel k = custom (3, 3, 5, 500);
  GstVideoInfo info;
  GstHarness *h = new_harness (GST_VIDEO_FORMAT_GRAY8, 10, 6, &info, k);
  auto before = random_frames (4, 10, 6, 1, 510, Pattern::Random);
  push_frames (h, before, GST_VIDEO_FORMAT_GRAY8, 0);
  /* d = 2: outputs 0 and 1 are out; 2 and 3 are dropped by the flush. */
  fail_unless_equals_int (gst_harness_buffers_in_queue (h), 2);
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  while (GstBuffer *stale = gst_harness_try_pull (h))
    gst_buffer_unref (stale);
  GstSegment segment;
  gst_segment_init (&segment, GST_FORMAT_TIME);
  gst_harness_push_event (h, gst_event_new_segment (&segment));

  /* After the flush the window starts again: the first new frame stands for those before. */
  auto after = random_frames (3, 10, 6, 1, 520, Pattern::Random);
  push_frames (h, after, GST_VIDEO_FORMAT_GRAY8, 10);
  /* A caps change drains the window with the old size, then restarts with the new one. */
  GstVideoInfo small;
  gst_video_info_set_format (&small, GST_VIDEO_FORMAT_GRAY8, 7, 5);
  small.fps_n = 30;
  small.fps_d = 1;
  gst_harness_set_src_caps (h, gst_video_info_to_caps (&small));
  check_outputs (h, &info, after, k, 10, "after flush");

  auto resized = random_frames (3, 7, 5, 1, 530, Pattern::Random);
  push_frames (h, resized, GST_VIDEO_FORMAT_GRAY8, 20);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  check_outputs (h, &small, resized, k, 20, "after caps change");
  gst_harness_teardown (h);
}
GST_END_TEST;

GST_START_TEST (test_padded_input_rows)
{
  /* The reference reads pixels only, so the padded frames serve it as they are. */
  check_stream (GST_VIDEO_FORMAT_RGBA, 9, 5, 4, custom (3, 3, 3, 600), 610, -1,
      Pattern::Random, 9 * 4 + 28);
}
GST_END_TEST;

GST_START_TEST (test_bad_settings_are_errors)
{
  std::string error = pipeline_error ("preset=custom kernel-width=3 kernel-height=3 "
      "kernel-depth=3 kernel=\"<1.0, 2.0, 3.0>\"");
  TESTUTIL_EXPECT_ERROR (error, "kernel has 3 values");
  error = pipeline_error ("preset=custom kernel-width=3 kernel-height=1 kernel-depth=1");
  TESTUTIL_EXPECT_ERROR (error, "kernel has 0 values");
  error = pipeline_error ("kernel-width=4");
  TESTUTIL_EXPECT_ERROR (error, "kernel-width must be odd");
  TESTUTIL_EXPECT_NO_ERROR (pipeline_error ("kernel-depth=7 sigma-t=2"));
}
GST_END_TEST;

/* RGBA in GL memory goes through the host: the result must equal the system-memory path's. */
GST_START_TEST (test_gl_memory_matches_system_memory)
{
  if (!g_getenv ("DISPLAY") || !gst_registry_check_feature_version (gst_registry_get (),
          "glupload", 1, 0, 0)) {
    g_printerr ("no display or no GL elements: GL check skipped\n");
    return;
  }
  gchar *dir = g_dir_make_tmp ("convolve3d-gl-XXXXXX", nullptr);
  std::string source = "videotestsrc num-buffers=5 pattern=ball ! video/x-raw,format=RGBA,"
      "width=40,height=24,framerate=30/1 ! ";
  std::string filter = " openclconvolve3d kernel-width=3 kernel-height=3 kernel-depth=3 ! ";
  std::string gl_path = std::string (dir) + "/gl.raw", system_path = std::string (dir) +
      "/system.raw";
  std::string error = testutil::run_pipeline (source + "glupload !" + filter +
      "gldownload ! video/x-raw,format=RGBA ! filesink location=" + gl_path);
  fail_unless_equals_string (error.c_str (), "");
  error = testutil::run_pipeline (source + filter + "filesink location=" + system_path);
  fail_unless_equals_string (error.c_str (), "");
  gchar *gl = nullptr, *system = nullptr;
  gsize gl_size = 0, system_size = 0;
  fail_unless (g_file_get_contents (gl_path.c_str (), &gl, &gl_size, nullptr));
  fail_unless (g_file_get_contents (system_path.c_str (), &system, &system_size, nullptr));
  fail_unless_equals_uint64 (system_size, 5 * 40 * 24 * 4);
  fail_unless_equals_uint64 (gl_size, system_size);
  fail_unless (memcmp (gl, system, gl_size) == 0, "GL and system memory outputs differ");
  g_free (gl);
  g_free (system);
  g_remove (gl_path.c_str ());
  g_remove (system_path.c_str ());
  g_rmdir (dir);
  g_free (dir);
}
GST_END_TEST;

/* Frames in OpenCL memory are copied into the window and written on the device: every
 * combination of input and output memory gives the system-memory path's bytes. */
GST_START_TEST (test_opencl_memory_matches_system_memory)
{
  gchar *dir = g_dir_make_tmp ("convolve3d-memory-XXXXXX", nullptr);
  struct
  {
    const char *format;
    const char *size;
    const char *settings;
    int row_bytes;        /* pixels of a row */
    int stride;           /* rows padded to 4 bytes */
    int height;
  } cases[] = {
    { "RGBA", "width=40,height=24", "kernel-width=3 kernel-height=5 kernel-depth=3",
      40 * 4, 40 * 4, 24 },
    { "GRAY8", "width=37,height=9", "preset=custom kernel-width=3 kernel-height=1 "
          "kernel-depth=3 kernel=\"<1.0,2.0,0.5,-1.0,3.0,1.0,0.25,0.5,2.0>\"", 37, 40, 9 },
    /* Planar frames whose rows all fill their stride: the frame is 24 luma rows and 12 rows
     * of chroma (NV12's UV, or I420's U and V of half a row each) of 40 pixels. */
    { "NV12", "width=40,height=24", "kernel-width=3 kernel-height=5 kernel-depth=3",
      40, 40, 36 },
    { "I420", "width=40,height=24", "kernel-width=3 kernel-height=3 kernel-depth=3 "
          "preset=custom kernel=\"<1,2,1,0,4,0,1,2,1,1,1,1,1,9,1,1,1,1,0,0,0,0,1,0,0,0,0>\"",
      40, 40, 36 },
    { "P010_10LE", "width=40,height=24", "kernel-width=5 kernel-height=3 kernel-depth=3",
      80, 80, 36 },
    { "RGBA64_LE", "width=20,height=10", "kernel-width=3 kernel-height=3 kernel-depth=3",
      160, 160, 10 },
  };
  /* The pixels of every row, without the padding (whose bytes no element defines). */
  auto pixels_only = [](const std::string & frames, int row_bytes, int stride) {
    std::string pixels;
    for (size_t row = 0; row + row_bytes <= frames.size (); row += stride)
      pixels.append (frames, row, row_bytes);
    return pixels;
  };
  const char *paths[] = {
    " ! openclconvolve3d %s ! ",
    " ! openclupload ! openclconvolve3d %s ! opencldownload ! ",
    " ! openclconvolve3d %s ! opencldownload ! ",
    " ! openclupload ! openclconvolve3d %s ! ",
  };
  for (const auto & c : cases) {
    std::string reference;
    for (size_t p = 0; p < G_N_ELEMENTS (paths); p++) {
      gchar *middle = g_strdup_printf (paths[p], c.settings);
      std::string path = std::string (dir) + "/out-" + std::to_string (p) + ".raw";
      std::string error = testutil::run_pipeline (std::string ("videotestsrc num-buffers=6 "
              "pattern=ball ! video/x-raw,framerate=30/1,format=") + c.format + "," + c.size +
          middle + "video/x-raw,format=" + c.format + " ! filesink location=" + path);
      fail_unless_equals_string (error.c_str (), "");
      gchar *contents = nullptr;
      gsize size = 0;
      fail_unless (g_file_get_contents (path.c_str (), &contents, &size, nullptr));
      g_remove (path.c_str ());
      fail_unless_equals_uint64 (size, 6 * (gsize) c.stride * c.height);
      std::string bytes = pixels_only (std::string (contents, size), c.row_bytes, c.stride);
      g_free (contents);
      if (p == 0)
        reference = bytes;
      else
        fail_unless (bytes == reference, "path \"%s\" differs from system memory", middle);
      g_free (middle);
    }
  }
  g_rmdir (dir);
  g_free (dir);
}
GST_END_TEST;

static Suite *
convolve3d_suite (void)
{
  return TESTUTIL_SUITE ("openclconvolve3d", 600,
      test_defaults, test_non_separable_every_format, test_new_formats_direct,
      test_new_formats_separable, test_kernel_shapes_and_stream_ends,
      test_separable_kernels, test_gpu_layouts, test_latency_and_output_timing,
      test_flush_and_caps_change_reset_the_window, test_padded_input_rows,
      test_bad_settings_are_errors, test_gl_memory_matches_system_memory,
      test_opencl_memory_matches_system_memory);
}

int
main (int argc, char **argv)
{
  /* One program per kernel shape: no tuning runs in this suite. */
  g_setenv ("GST_OPENCL_VARIANT_CONVOLUTION", FORCED_VARIANT, TRUE);
  gst_check_init (&argc, &argv);
  return gst_check_run_suite (convolve3d_suite (), "convolve3d", __FILE__);
}
