/* gst-opencl tests: openclbilateral against the float64 reference, through GstHarness.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/controller/controller.h>
#include <gst/video/video.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "common/suite.h"
#include "common/testutil.h"
#include "reference/bilateral_reference.h"

using testutil::Frame;
using testutil::Pattern;
using reference::BilateralMode;

namespace {

struct Settings
{
  double sigma_spatial = 2.0;
  double sigma_range = 25.0;
  int radius = 0;  /* the element's property: 0 = automatic */
  BilateralMode mode = BilateralMode::Color;
};

/* The element's nick of the reference's mode. */
const char *
mode_nick (BilateralMode mode)
{
  static const char *const nicks[] = { "color", "luma", "per-channel" };
  return nicks[(int) mode];
}

int
effective_radius (const Settings & s)
{
  return s.radius > 0 ? s.radius : (int) std::min (32.0, std::ceil (2.0 * s.sigma_spatial));
}

void
apply (GstHarness * h, const Settings & s)
{
  gst_util_set_object_arg (G_OBJECT (h->element), "mode", mode_nick (s.mode));
  g_object_set (h->element, "sigma-spatial", s.sigma_spatial, "sigma-range", s.sigma_range,
      "radius", s.radius, nullptr);
}

/* A checked frame's name in messages: "<format> <width>x<height> <input> mode <mode> radius <r>
 * sigma-range <sigma>". */
std::string
label_of (GstVideoFormat format, int width, int height, const std::string & input,
    const Settings & s)
{
  return std::string (gst_video_format_to_string (format)) + " " + std::to_string (width) + "x" +
      std::to_string (height) + " " + input + " mode " + mode_nick (s.mode) + " radius " +
      std::to_string (effective_radius (s)) + " sigma-range " + std::to_string (s.sigma_range);
}

GstHarness *
new_harness (GstVideoFormat format, int width, int height, GstVideoInfo * info)
{
  GstHarness *h = gst_harness_new ("openclbilateral");
  gst_video_info_set_format (info, format, width, height);
  GstCaps *caps = gst_video_info_to_caps (info);
  gst_harness_set_src_caps (h, caps);
  return h;
}

Frame
reference_output (const Frame & input, GstVideoFormat format, const Settings & s)
{
  Frame expected (input.width, input.height, input.bytes_per_pixel);
  reference::BilateralParams params;
  params.sigma_spatial = s.sigma_spatial;
  params.sigma_range = s.sigma_range;
  params.radius = effective_radius (s);
  params.mode = s.mode;
  params.bgr = format == GST_VIDEO_FORMAT_BGRA || format == GST_VIDEO_FORMAT_BGRx;
  reference::bilateral (input.bytes.data (), input.stride, expected.bytes.data (),
      expected.stride, input.width, input.height, input.bytes_per_pixel, params);
  return expected;
}

/* Pushes one frame through the harness and checks it against the reference. */
void
push_and_check (GstHarness * h, const GstVideoInfo * info, const Frame & input,
    const Settings & s, const std::string & label)
{
  GstVideoFormat format = GST_VIDEO_INFO_FORMAT (info);
  GstBuffer *out = gst_harness_push_and_pull (h, testutil::to_buffer (input, format));
  fail_unless (out != nullptr, "%s: no output buffer", label.c_str ());
  Frame actual = testutil::from_buffer (out, info);
  gst_buffer_unref (out);

  Frame expected = reference_output (input, format, s);
  /* Colour channels within 1 of the reference; the fourth byte (alpha or padding) exact. */
  std::vector<int> tolerance = input.bytes_per_pixel == 4 ?
      std::vector<int> { 1, 1, 1, 0 } : std::vector<int> { 1 };
  auto difference = testutil::compare (actual, expected, tolerance);
  fail_unless (difference.over == 0, "%s: %s", label.c_str (),
      testutil::describe (difference).c_str ());
}

void
check_one (GstVideoFormat format, int width, int height, int stride, Pattern pattern,
    const Settings & s, uint32_t seed)
{
  GstVideoInfo info;
  GstHarness *h = new_harness (format, width, height, &info);
  apply (h, s);
  Frame input = testutil::filled (Frame (width, height, GST_VIDEO_INFO_COMP_PSTRIDE (&info, 0),
          stride), pattern, seed);
  push_and_check (h, &info, input, s, label_of (format, width, height, "stride " +
          std::to_string (input.stride) + " " + testutil::pattern_name (pattern), s));
  gst_harness_teardown (h);
}

const GstVideoFormat all_formats[] = {
  GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_BGRA, GST_VIDEO_FORMAT_RGBx, GST_VIDEO_FORMAT_BGRx,
  GST_VIDEO_FORMAT_GRAY8,
};
const BilateralMode all_modes[] = {
  BilateralMode::Color, BilateralMode::Luma, BilateralMode::PerChannel,
};


/* The YUV and 16-bit formats: each plane filtered on its own, checked plane by plane. */

/* The largest difference from the reference, in codes of a plane's depth. 8 and 10 bits (P010):
 * 1, a float sum rounding to the other side of a half. 16 bits: a 16-bit code is 1/257 of an
 * 8-bit one, and the kernel's float32 arithmetic is not that fine: the weights carry the
 * polynomial exp2's relative error (4e-6 on CPUs), which moves a weighted mean by up to that
 * fraction of the window's spread of values (4e-6 x 65535 = 0.26 codes), and a float32 sum of
 * up to 4225 products of values up to 65535 rounds by a few 2^-24 relative steps each. */
constexpr int BOUND_8_10_BITS = 1;
constexpr int BOUND_16_BITS = 4;

enum class Content { Random, Edges, Flat, Extremes };

const char *
content_name (Content content)
{
  static const char *const names[] = { "random", "edges", "flat", "extremes" };
  return names[(int) content];
}

/* A plane's pixels as stored (I420's U and V: one channel each). */
reference::BilateralSamples
plane_samples (GstVideoFormat format, guint plane)
{
  reference::BilateralSamples s;
  const bool p010 = format == GST_VIDEO_FORMAT_P010_10LE;
  s.sample_bits = p010 || format == GST_VIDEO_FORMAT_GRAY16_LE ||
      format == GST_VIDEO_FORMAT_RGBA64_LE ? 16 : 8;
  s.shift = p010 ? 6 : 0;
  if (format == GST_VIDEO_FORMAT_RGBA64_LE)
    s.channels = 4;
  else if ((format == GST_VIDEO_FORMAT_NV12 || p010) && plane == 1)
    s.channels = 2;
  else
    s.channels = 1;
  return s;
}

/* Code (value) `v` of a `depth`-bit sample at x, y of a plane w x h, for the content. */
int
content_value (Content content, int x, int y, int w, int h, int c, int max, std::mt19937 & rng)
{
  const int noise = (int) (rng () % 9) - 4;
  switch (content) {
    case Content::Random:
      return (int) (rng () % (max + 1));
    case Content::Flat:
      return std::clamp (max / 3 + c * max / 7 + noise * std::max (1, max / 255), 0, max);
    case Content::Extremes:
      /* Stripes of 0 and the largest code, and single pixels of the other. */
      return ((x / 3 + y / 2 + c) % 2 == 0) != ((x * 7 + y * 3) % 11 == 0) ? 0 : max;
    case Content::Edges:
    default:{
      const bool bright = x > w / 2 || (std::abs (x - w / 4) < w / 8 && std::abs (y - h / 2) < h /
          5);
      return std::clamp ((bright ? max * 4 / 5 : max / 6) + c * max / 11 + noise *
          std::max (1, max / 255), 0, max);
    }
  }
}

/* A frame of `info`'s format and size whose every plane's rows have `pad` more bytes. */
struct PaddedFrame
{
  GstVideoInfo info;
  GstBuffer *buffer = nullptr;
};

PaddedFrame
make_padded (const GstVideoInfo * tight, int pad, Content content, uint32_t seed)
{
  PaddedFrame f;
  f.info = *tight;
  gsize offset = 0;
  for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES (tight); p++) {
    f.info.stride[p] = tight->stride[p] + pad;
    f.info.offset[p] = offset;
    offset += (gsize) f.info.stride[p] * GST_VIDEO_INFO_COMP_HEIGHT (tight, p);
  }
  f.info.size = offset;
  f.buffer = gst_buffer_new_allocate (nullptr, offset, nullptr);
  gst_buffer_add_video_meta_full (f.buffer, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_INFO_FORMAT (tight), tight->width, tight->height,
      GST_VIDEO_INFO_N_PLANES (tight), f.info.offset, f.info.stride);
  GstMapInfo map;
  fail_unless (gst_buffer_map (f.buffer, &map, GST_MAP_WRITE));
  std::mt19937 rng (seed);
  for (gsize i = 0; i < map.size; i++)
    map.data[i] = (uint8_t) rng ();  /* the padding and P010's low bits stay random */
  const GstVideoFormat format = GST_VIDEO_INFO_FORMAT (tight);
  for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES (tight); p++) {
    const auto s = plane_samples (format, p);
    const int w = GST_VIDEO_INFO_COMP_WIDTH (tight, p), h = GST_VIDEO_INFO_COMP_HEIGHT (tight, p);
    const int max = (1 << (s.sample_bits - s.shift)) - 1;
    for (int y = 0; y < h; y++) {
      uint8_t *row = map.data + f.info.offset[p] + (size_t) y * f.info.stride[p];
      for (int x = 0; x < w; x++) {
        for (int c = 0; c < s.channels; c++) {
          const int v = content_value (content, x, y, w, h, c, max, rng);
          uint8_t *at = row + ((size_t) x * s.channels + c) * s.sample_bits / 8;
          if (s.sample_bits == 8) {
            at[0] = (uint8_t) v;
          } else {
            const int word = (v << s.shift) | (at[0] & ((1 << s.shift) - 1));
            at[0] = (uint8_t) word;
            at[1] = (uint8_t) (word >> 8);
          }
        }
      }
    }
  }
  gst_buffer_unmap (f.buffer, &map);
  return f;
}

/* What the element filters as one image: a plane, or I420's U and V planes as one pair. */
struct Job
{
  guint plane;
  int second = -1;  /* the pair's second plane */
  reference::BilateralSamples samples;
};

std::vector<Job>
jobs_of (GstVideoFormat format, guint n_planes)
{
  if (format == GST_VIDEO_FORMAT_I420) {
    reference::BilateralSamples pair;
    pair.channels = 2;
    return { { 0, -1, plane_samples (format, 0) }, { 1, 2, pair } };
  }
  std::vector<Job> jobs;
  for (guint p = 0; p < n_planes; p++)
    jobs.push_back ({ p, -1, plane_samples (format, p) });
  return jobs;
}

/* The stored sample (raw word) of channel c at x, y of a job in a frame. */
int
sample_at (GstVideoFrame * frame, const Job & job, int x, int y, int c)
{
  const auto & s = job.samples;
  const guint plane = job.second >= 0 && c == 1 ? job.second : job.plane;
  const int channels = job.second >= 0 ? 1 : s.channels;
  const int channel = job.second >= 0 ? 0 : c;
  const uint8_t *at = static_cast<const uint8_t *> (GST_VIDEO_FRAME_PLANE_DATA (frame, plane)) +
      (size_t) y * GST_VIDEO_FRAME_PLANE_STRIDE (frame, plane) +
      ((size_t) x * channels + channel) * s.sample_bits / 8;
  return s.sample_bits == 16 ? at[0] | (at[1] << 8) : at[0];
}

/* The worst difference of one job of `got` from the reference of `in`'s, in codes; fails on
 * P010 words with low bits set and on a changed fourth channel. */
int
job_difference (GstVideoFrame * in, GstVideoFrame * got, const Job & job, const Settings & st,
    std::string * where)
{
  const auto & s = job.samples;
  const int w = GST_VIDEO_FRAME_COMP_WIDTH (in, job.plane);
  const int h = GST_VIDEO_FRAME_COMP_HEIGHT (in, job.plane);
  const int bytes = s.sample_bits / 8, pixel_bytes = s.channels * bytes;
  /* The job's input as one tight image of interleaved channels, and the reference's output. */
  std::vector<uint8_t> source ((size_t) w * h * pixel_bytes), want (source.size ());
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      for (int c = 0; c < s.channels; c++)
        for (int b = 0; b < bytes; b++)
          source[((size_t) y * w + x) * pixel_bytes + c * bytes + b] =
              (uint8_t) (sample_at (in, job, x, y, c) >> (8 * b));
  reference::BilateralParams params;
  params.sigma_spatial = st.sigma_spatial;
  params.sigma_range = st.sigma_range;
  params.radius = effective_radius (st);
  params.mode = st.mode;
  reference::bilateral_plane (source.data (), w * pixel_bytes, want.data (), w * pixel_bytes, w,
      h, s, params);
  int worst = 0;
  for (int y = 0; y < h; y++) {
    for (int x = 0; x < w; x++) {
      for (int c = 0; c < s.channels; c++) {
        const uint8_t *b = want.data () + ((size_t) y * w + x) * pixel_bytes + c * bytes;
        const int raw_a = sample_at (got, job, x, y, c);
        const int raw_b = s.sample_bits == 16 ? b[0] | (b[1] << 8) : b[0];
        fail_unless ((raw_a & ((1 << s.shift) - 1)) == 0, "plane %u at %d,%d: low bits of %d set",
            job.plane, x, y, raw_a);
        const int d = std::abs ((raw_a >> s.shift) - (raw_b >> s.shift));
        fail_unless (c != 3 || d == 0, "plane %u at %d,%d: fourth channel %d, input's %d",
            job.plane, x, y, raw_a, raw_b);
        if (d > worst) {
          worst = d;
          *where = "plane " + std::to_string (job.plane) + " channel " + std::to_string (c) +
              " at " + std::to_string (x) + "," + std::to_string (y) + ": " +
              std::to_string (raw_a >> s.shift) + ", reference " +
              std::to_string (raw_b >> s.shift);
        }
      }
    }
  }
  return worst;
}

/* One frame of a YUV or 16-bit format through the element, every plane against the reference
 * within the bound of its depth. */
void
check_planes (GstVideoFormat format, int width, int height, int pad, Content content,
    const Settings & s, uint32_t seed)
{
  GstVideoInfo info;
  GstHarness *h = new_harness (format, width, height, &info);
  apply (h, s);
  PaddedFrame input = make_padded (&info, pad, content, seed);
  GstBuffer *out = gst_harness_push_and_pull (h, gst_buffer_ref (input.buffer));
  const std::string label = label_of (format, width, height, "pad " + std::to_string (pad) +
      " " + content_name (content), s);
  fail_unless (out != nullptr, "%s: no output buffer", label.c_str ());
  GstVideoFrame in_frame, out_frame;
  fail_unless (gst_video_frame_map (&in_frame, &input.info, input.buffer, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&out_frame, &info, out, GST_MAP_READ));
  for (const Job & job : jobs_of (format, GST_VIDEO_INFO_N_PLANES (&info))) {
    std::string where;
    const int d = job_difference (&in_frame, &out_frame, job, s, &where);
    const int bound = job.samples.sample_bits - job.samples.shift == 16 ? BOUND_16_BITS :
        BOUND_8_10_BITS;
    GST_INFO ("%s: plane %u off by %d at most", label.c_str (), job.plane, d);
    fail_unless (d <= bound, "%s: off by %d (bound %d), %s", label.c_str (), d, bound,
        where.c_str ());
  }
  gst_video_frame_unmap (&out_frame);
  gst_video_frame_unmap (&in_frame);
  gst_buffer_unref (out);
  gst_buffer_unref (input.buffer);
  gst_harness_teardown (h);
}

const GstVideoFormat new_formats[] = {
  GST_VIDEO_FORMAT_GRAY16_LE, GST_VIDEO_FORMAT_RGBA64_LE, GST_VIDEO_FORMAT_NV12,
  GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_P010_10LE,
};

}  // namespace

GST_START_TEST (test_every_format_and_mode_small_sizes)
{
  uint32_t seed = 1;
  for (GstVideoFormat format : all_formats) {
    for (BilateralMode mode : all_modes) {
      Settings s;
      s.mode = mode;
      for (auto size : { std::pair<int, int> { 1, 1 }, std::pair<int, int> { 17, 9 } }) {
        for (Pattern pattern : { Pattern::Random, Pattern::Edges, Pattern::Gradient })
          check_one (format, size.first, size.second, 0, pattern, s, seed++);
      }
    }
  }
}
GST_END_TEST;

/* The float tile GPUs get, forced on the CPU device: same accuracy for every format and mode. */
GST_START_TEST (test_float_tile)
{
  g_setenv ("GST_OPENCL_BILATERAL_TILE", "float", TRUE);
  uint32_t seed = 900;
  for (GstVideoFormat format : { GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_BGRx,
          GST_VIDEO_FORMAT_GRAY8 }) {
    /* Each mode is a program of its own: the quick suite builds the colour mode only (the
     * default variant runs every mode in test_every_format_and_mode_small_sizes). */
    for (BilateralMode mode : testutil::full_or_quick<BilateralMode> ({ BilateralMode::Color,
            BilateralMode::Luma, BilateralMode::PerChannel }, { BilateralMode::Color })) {
      Settings s;
      s.mode = mode;
      check_one (format, 37, 19, 0, Pattern::Random, s, seed++);
      check_one (format, 37, 19, 0, Pattern::Edges, s, seed++);
    }
  }
  /* The largest radius: a float tile on devices with room for it (this one), bytes on GPUs. */
  Settings wide;
  wide.radius = 32;
  check_one (GST_VIDEO_FORMAT_RGBA, 70, 40, 0, Pattern::Edges, wide, seed++);
  g_unsetenv ("GST_OPENCL_BILATERAL_TILE");
}
GST_END_TEST;

GST_START_TEST (test_640x480)
{
  struct
  {
    GstVideoFormat format;
    BilateralMode mode;
  } cases[] = {
    { GST_VIDEO_FORMAT_RGBA, BilateralMode::Color },
    { GST_VIDEO_FORMAT_BGRx, BilateralMode::Luma },
    { GST_VIDEO_FORMAT_BGRA, BilateralMode::PerChannel },
    { GST_VIDEO_FORMAT_GRAY8, BilateralMode::Color },
  };
  uint32_t seed = 100;
  for (const auto & c : cases) {
    Settings s;
    s.mode = c.mode;
    check_one (c.format, 640, 480, 0, Pattern::Random, s, seed++);
    check_one (c.format, 640, 480, 0, Pattern::Edges, s, seed++);
    /* The quick suite leaves out the third frame of each. */
    if (testutil::full_suite ())
      check_one (c.format, 640, 480, 0, Pattern::Flat, s, seed);
    seed++;
  }
}
GST_END_TEST;

GST_START_TEST (test_padded_rows)
{
  Settings s;
  /* Row strides well beyond the pixels, not multiples of 4 or of the pixel size. */
  check_one (GST_VIDEO_FORMAT_RGBA, 33, 20, 33 * 4 + 60, Pattern::Random, s, 7);
  check_one (GST_VIDEO_FORMAT_BGRx, 50, 31, 50 * 4 + 4, Pattern::Edges, s, 8);
  check_one (GST_VIDEO_FORMAT_GRAY8, 17, 9, 37, Pattern::Random, s, 9);
  check_one (GST_VIDEO_FORMAT_GRAY8, 101, 7, 129, Pattern::Edges, s, 10);
}
GST_END_TEST;

/* Every kernel variant the tuner can choose (forced through GST_OPENCL_VARIANT_BILATERAL, as
 * the tests' environment never times them): the CPU's vector kernels and the GPU's tiled ones,
 * the tiled default in every mode, at a size with partial work-groups and edge work-items. Each
 * variant, mode and channel count is a program of its own: the quick suite runs one variant of
 * each kind (vector, tiled, float tile, columns, rows) on RGBA in the colour mode (the default
 * variant runs every mode and format in test_every_format_and_mode_small_sizes). */
GST_START_TEST (test_every_variant)
{
  uint32_t seed = 300;
  const bool full = testutil::full_suite ();
  for (const char *variant : testutil::full_or_quick<const char *> ({ "vec16", "vec8",
              "tiled-16x16x2", "tiled-32x8x1", "tiled-16x8x4", "tiled-32x4x2",
              "tiled-float-16x16x2", "tiled-float-32x8x2", "tiled-float-16x8x4",
              "columns-32x8-1x2", "columns-32x8-1x3", "rows-32x4-1x4" },
          { "vec16", "vec8", "tiled-16x16x2", "tiled-float-16x16x2", "columns-32x8-1x2",
              "rows-32x4-1x4" })) {
    g_setenv ("GST_OPENCL_VARIANT_BILATERAL", variant, TRUE);
    Settings s;
    s.radius = 4;
    GST_INFO ("variant %s", variant);
    check_one (GST_VIDEO_FORMAT_RGBA, 67, 23, 0, Pattern::Random, s, seed++);
    if (full && (g_str_equal (variant, "tiled-16x16x2") || g_str_equal (variant, "vec8") ||
        g_str_equal (variant, "tiled-float-16x16x2") || g_str_has_prefix (variant, "columns") ||
        g_str_has_prefix (variant, "rows"))) {
      s.mode = BilateralMode::Luma;
      check_one (GST_VIDEO_FORMAT_BGRx, 45, 19, 0, Pattern::Edges, s, seed++);
      s.mode = BilateralMode::PerChannel;
      check_one (GST_VIDEO_FORMAT_BGRA, 45, 19, 45 * 4 + 3, Pattern::Random, s, seed++);
      check_one (GST_VIDEO_FORMAT_GRAY8, 45, 19, 0, Pattern::Random, s, seed++);
    }
  }
  g_unsetenv ("GST_OPENCL_VARIANT_BILATERAL");
}
GST_END_TEST;

/* The PRESCALED kernels (columns, rows) hold values times sqrt(log2(e) / (2 sigma-range^2)):
 * the ends of the sigma-range property's range and values between, radii 1 to 8 (their
 * limit), every mode; on NVIDIA's driver the variants with PTX exp2 as well. The quick suite
 * runs the columns only (the rows share their arithmetic), in the colour mode and on gray
 * frames, at the default radius only: each mode, channel count and radius is a program of its
 * own, which PoCL takes 6 to 14 s to build here. */
GST_START_TEST (test_prescaled_variants)
{
  std::vector<const char *> variants = testutil::full_or_quick<const char *> (
      { "columns-32x8-1x2", "rows-32x4-1x4" }, { "columns-32x8-1x2" });
  if (testutil::default_device_vendor ().find ("NVIDIA") != std::string::npos) {
    for (const char *v : { "columns-32x8-1x2-ptx", "columns-32x8-1x3-ptx", "columns-64x4-1x2-ptx",
            "columns-32x4-1x4-ptx", "rows-32x4-1x4-ptx", "rows-32x8-1x2-ptx",
            "tiled-float-32x8x2-ptx", "tiled-float-16x16x2-ptx" })
      variants.push_back (v);
  }
  uint32_t seed = 700;
  for (const char *variant : variants) {
    g_setenv ("GST_OPENCL_VARIANT_BILATERAL", variant, TRUE);
    GST_INFO ("variant %s", variant);
    for (double sigma_range : { 0.01, 3.0, 400.0, 100000.0 }) {
      Settings s;
      s.sigma_range = sigma_range;
      for (BilateralMode mode : all_modes) {
        s.mode = mode;
        if (testutil::full_suite () || mode == BilateralMode::Color)
          check_one (GST_VIDEO_FORMAT_RGBA, 29, 13, 0, Pattern::Random, s, seed);
        seed++;
      }
      check_one (GST_VIDEO_FORMAT_GRAY8, 29, 13, 0, Pattern::Edges, s, seed++);
    }
    for (int radius : testutil::full_or_quick<int> ({ 1, 8 }, {})) {
      Settings s;
      s.radius = radius;
      s.sigma_spatial = radius;
      check_one (GST_VIDEO_FORMAT_BGRA, 41, 37, 0, Pattern::Edges, s, seed++);
    }
  }
  g_unsetenv ("GST_OPENCL_VARIANT_BILATERAL");
}
GST_END_TEST;

/* A forced variant that does not exist is an element error, not a crash or a silent default. */
GST_START_TEST (test_unknown_variant_is_an_error)
{
  g_setenv ("GST_OPENCL_VARIANT_BILATERAL", "no-such-variant", TRUE);
  GstVideoInfo info;
  GstHarness *h = new_harness (GST_VIDEO_FORMAT_RGBA, 16, 8, &info);
  Frame input = testutil::filled (Frame (16, 8, 4, 0), Pattern::Random, 5);
  GstFlowReturn ret = gst_harness_push (h, testutil::to_buffer (input, GST_VIDEO_FORMAT_RGBA));
  g_unsetenv ("GST_OPENCL_VARIANT_BILATERAL");
  fail_unless (ret == GST_FLOW_ERROR, "pushing with an unknown variant gave %s",
      gst_flow_get_name (ret));
  gst_harness_teardown (h);
}
GST_END_TEST;

GST_START_TEST (test_radius_and_sigmas)
{
  struct
  {
    double sigma_spatial, sigma_range;
    int radius;
  } cases[] = {
    { 1.3, 25.0, 0 },     /* automatic radius: ceil (2.6) = 3 */
    { 0.4, 10.0, 0 },     /* automatic radius 1 */
    { 2.0, 25.0, 1 },
    { 3.0, 60.0, 7 },
    { 5.0, 8.0, 12 },
    { 20.0, 40.0, 32 },   /* window far larger than the frame: every border clamps */
    { 40.0, 30.0, 0 },    /* automatic radius capped at 32 */
    { 2.0, 0.5, 3 },      /* tiny range sigma: weights underflow except near-equal colours */
    { 2.0, 5000.0, 3 },   /* huge range sigma: a Gaussian blur */
  };
  uint32_t seed = 200;
  for (const auto & c : cases) {
    Settings s;
    s.sigma_spatial = c.sigma_spatial;
    s.sigma_range = c.sigma_range;
    s.radius = c.radius;
    /* Each radius and channel count is a program of its own: the quick suite keeps radius 3,
     * and 32 on RGBA. */
    const bool full = testutil::full_suite ();
    if (!full && effective_radius (s) != 3 && effective_radius (s) != 32) {
      seed += 2;
      continue;
    }
    check_one (GST_VIDEO_FORMAT_RGBA, 23, 13, 0, Pattern::Random, s, seed++);
    if (full || effective_radius (s) == 3)
      check_one (GST_VIDEO_FORMAT_GRAY8, 23, 13, 0, Pattern::Edges, s, seed);
    seed++;
  }
}
GST_END_TEST;

GST_START_TEST (test_property_changes_between_frames)
{
  GstVideoInfo info;
  GstHarness *h = new_harness (GST_VIDEO_FORMAT_RGBA, 40, 24, &info);
  Frame input = testutil::filled (Frame (40, 24, 4), Pattern::Edges, 300);

  Settings steps[5];
  steps[1].sigma_range = 60.0;
  steps[2] = steps[1];
  steps[2].radius = 6;
  steps[3] = steps[2];
  steps[3].mode = BilateralMode::Luma;
  steps[4] = steps[3];
  steps[4].sigma_spatial = 1.0;
  steps[4].radius = 0;
  int index = 0;
  for (const auto & s : steps) {
    apply (h, s);
    push_and_check (h, &info, input, s, "step " + std::to_string (index++));
  }
  /* And back to the first settings, whose kernel comes from the cache. */
  apply (h, steps[0]);
  push_and_check (h, &info, input, steps[0], "back to defaults");
  gst_harness_teardown (h);
}
GST_END_TEST;

/* Properties are controllable: a GstController curve sets sigma-range per frame from the
 * frame's stream time. */
GST_START_TEST (test_controlled_property_follows_stream_time)
{
  GstVideoInfo info;
  GstHarness *h = new_harness (GST_VIDEO_FORMAT_RGBA, 24, 16, &info);
  GstControlSource *source = gst_interpolation_control_source_new ();
  g_object_set (source, "mode", GST_INTERPOLATION_MODE_NONE, nullptr);
  auto *timed = GST_TIMED_VALUE_CONTROL_SOURCE (source);
  gst_timed_value_control_source_set (timed, 0, 5.0);
  gst_timed_value_control_source_set (timed, GST_SECOND, 80.0);
  gst_object_add_control_binding (GST_OBJECT (h->element),
      gst_direct_control_binding_new_absolute (GST_OBJECT (h->element), "sigma-range", source));

  Frame input = testutil::filled (Frame (24, 16, 4), Pattern::Edges, 77);
  struct
  {
    GstClockTime pts;
    double sigma_range;
  } frames[] = { { 0, 5.0 }, { GST_SECOND, 80.0 }, { GST_SECOND / 2, 5.0 } };
  for (const auto & frame : frames) {
    GstBuffer *buffer = testutil::to_buffer (input, GST_VIDEO_FORMAT_RGBA);
    GST_BUFFER_PTS (buffer) = frame.pts;
    GstBuffer *out = gst_harness_push_and_pull (h, buffer);
    fail_unless (out != nullptr);
    Frame actual = testutil::from_buffer (out, &info);
    gst_buffer_unref (out);
    Settings s;
    s.sigma_range = frame.sigma_range;
    auto difference = testutil::compare (actual, reference_output (input,
            GST_VIDEO_FORMAT_RGBA, s), { 1, 1, 1, 0 });
    fail_unless (difference.over == 0, "pts %" GST_TIME_FORMAT ": %s",
        GST_TIME_ARGS (frame.pts), testutil::describe (difference).c_str ());
  }
  gdouble sigma_range = 0;
  g_object_get (h->element, "sigma-range", &sigma_range, nullptr);
  fail_unless (sigma_range == 5.0);
  gst_object_unref (source);
  gst_harness_teardown (h);
}
GST_END_TEST;

GST_START_TEST (test_properties_and_defaults)
{
  GstElement *element = gst_element_factory_make ("openclbilateral", nullptr);
  fail_unless (element != nullptr);
  gdouble sigma_spatial = 0, sigma_range = 0;
  gint radius = -1, mode = -1;
  gchar *device = nullptr;
  g_object_get (element, "sigma-spatial", &sigma_spatial, "sigma-range", &sigma_range,
      "radius", &radius, "mode", &mode, "device", &device, nullptr);
  fail_unless_equals_float (sigma_spatial, 2.0);
  fail_unless_equals_float (sigma_range, 25.0);
  fail_unless_equals_int (radius, 0);
  fail_unless_equals_int (mode, 0);
  fail_unless_equals_string (device, "");
  g_free (device);

  GParamSpec *spec = g_object_class_find_property (G_OBJECT_GET_CLASS (element), "radius");
  fail_unless_equals_int (G_PARAM_SPEC_INT (spec)->maximum, 32);
  for (const char *name : { "sigma-spatial", "sigma-range", "radius", "mode" }) {
    spec = g_object_class_find_property (G_OBJECT_GET_CLASS (element), name);
    fail_unless (spec->flags & GST_PARAM_MUTABLE_PLAYING, "%s not mutable while playing", name);
    fail_unless (spec->flags & GST_PARAM_CONTROLLABLE, "%s not controllable", name);
  }
  testutil::expect_read_only (element, "kernel-time");
  gst_object_unref (element);
}
GST_END_TEST;

GST_START_TEST (test_kernel_time_and_device_name)
{
  GstVideoInfo info;
  GstHarness *h = new_harness (GST_VIDEO_FORMAT_RGBA, 64, 32, &info);
  guint64 kernel_time = 0;
  g_object_get (h->element, "kernel-time", &kernel_time, nullptr);
  fail_unless_equals_uint64 (kernel_time, 0);

  Frame input = testutil::filled (Frame (64, 32, 4), Pattern::Random, 400);
  push_and_check (h, &info, input, Settings (), "kernel time frame");
  gchar *name = nullptr;
  g_object_get (h->element, "kernel-time", &kernel_time, "device-name", &name, nullptr);
  fail_unless (kernel_time > 0, "kernel-time stayed 0 after a frame");
  fail_unless (kernel_time < 60 * GST_SECOND, "kernel-time %" G_GUINT64_FORMAT " ns is absurd",
      kernel_time);
  fail_unless (name != nullptr && *name != '\0');
  GST_INFO ("device %s, kernel time %" G_GUINT64_FORMAT " ns", name, kernel_time);
  g_free (name);
  gst_harness_teardown (h);
}
GST_END_TEST;

GST_START_TEST (test_caps_change_mid_stream)
{
  GstVideoInfo info;
  GstHarness *h = new_harness (GST_VIDEO_FORMAT_RGBA, 30, 20, &info);
  Frame first = testutil::filled (Frame (30, 20, 4), Pattern::Random, 500);
  push_and_check (h, &info, first, Settings (), "before caps change");

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, 45, 33);
  GstCaps *caps = gst_video_info_to_caps (&info);
  gst_harness_set_src_caps (h, caps);
  Frame second = testutil::filled (Frame (45, 33, 1), Pattern::Edges, 501);
  push_and_check (h, &info, second, Settings (), "after caps change");
  gst_harness_teardown (h);
}
GST_END_TEST;

/* Every YUV and 16-bit format at odd sizes with odd chroma sizes (65x49: chroma 33x25, where
 * every vector work-item of the chroma touches an edge; 161x37: chroma 81x19, with interior
 * ones), rows packed and padded, random, edge, flat and extreme frames, default settings. */
GST_START_TEST (test_yuv_and_16_bit_formats)
{
  uint32_t seed = 1000;
  for (GstVideoFormat format : new_formats) {
    for (Content content : { Content::Random, Content::Edges, Content::Flat,
            Content::Extremes }) {
      const bool wide = content == Content::Random || content == Content::Extremes;
      check_planes (format, wide ? 161 : 65, wide ? 37 : 49, wide ? 0 : 38, content, Settings (),
          seed++);
    }
  }
  /* RGBA64's other modes. */
  for (BilateralMode mode : { BilateralMode::Luma, BilateralMode::PerChannel }) {
    Settings s;
    s.mode = mode;
    check_planes (GST_VIDEO_FORMAT_RGBA64_LE, 33, 17, 6, Content::Random, s, seed++);
  }
}
GST_END_TEST;

/* Other radii and range sigmas: sigma-range keeps its 8-bit units on every depth. */
GST_START_TEST (test_yuv_and_16_bit_radius_and_sigmas)
{
  struct
  {
    double sigma_spatial, sigma_range;
    int radius;
  } cases[] = { { 1.0, 10.0, 1 }, { 3.0, 60.0, 6 }, { 2.0, 0.5, 3 },
    { 20.0, 5000.0, 32 } /* the largest window, a plain blur: the longest float32 sums */ };
  uint32_t seed = 1100;
  for (int i : testutil::full_or_quick<int> ({ 0, 1, 2, 3 }, { 1 })) {
    const auto & c = cases[i];
    Settings s;
    s.sigma_spatial = c.sigma_spatial;
    s.sigma_range = c.sigma_range;
    s.radius = c.radius;
    for (GstVideoFormat format : new_formats)
      check_planes (format, 37, 21, 2, Content::Edges, s, seed++);
  }
}
GST_END_TEST;

GST_START_TEST (test_yuv_and_16_bit_641x479)
{
  uint32_t seed = 1200;
  for (GstVideoFormat format : testutil::full_or_quick<GstVideoFormat> ({
              GST_VIDEO_FORMAT_GRAY16_LE, GST_VIDEO_FORMAT_RGBA64_LE, GST_VIDEO_FORMAT_NV12,
              GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_P010_10LE },
          { GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_P010_10LE }))
    check_planes (format, 641, 479, 0, Content::Edges, Settings (), seed++);
}
GST_END_TEST;

/* The GPU's kernels (byte tile, float tile, column and row kernels) and the CPU's eight-wide
 * vector kernel, forced (on the CPU device here), on every pixel layout the new formats bring:
 * 16-bit gray, 16-bit RGBA, 8-bit and P010 luma, interleaved chroma pairs and I420's planar
 * pair; on NVIDIA's driver the PTX forms too. The quick suite runs one tiled and one column
 * variant. */
GST_START_TEST (test_yuv_and_16_bit_variants)
{
  uint32_t seed = 1300;
  std::vector<const char *> variants = testutil::full_or_quick<const char *> ({ "vec8",
          "tiled-16x16x2", "tiled-float-16x16x2", "columns-32x8-1x2", "rows-32x4-1x4" },
      { "tiled-16x16x2", "columns-32x8-1x2" });
  if (testutil::default_device_vendor ().find ("NVIDIA") != std::string::npos) {
    for (const char *v : { "tiled-float-16x16x2-ptx", "columns-32x8-1x2-ptx" })
      variants.push_back (v);
  }
  for (const char *variant : variants) {
    g_setenv ("GST_OPENCL_VARIANT_BILATERAL", variant, TRUE);
    GST_INFO ("variant %s", variant);
    Settings s;
    s.radius = 3;
    for (GstVideoFormat format : { GST_VIDEO_FORMAT_GRAY16_LE, GST_VIDEO_FORMAT_RGBA64_LE,
            GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_P010_10LE })
      check_planes (format, 67, 23, 4, Content::Random, s, seed++);
    check_planes (GST_VIDEO_FORMAT_P010_10LE, 45, 19, 0, Content::Edges, s, seed++);
  }
  g_unsetenv ("GST_OPENCL_VARIANT_BILATERAL");
}
GST_END_TEST;

/* A 16-bit frame whose rows are an odd number of bytes apart cannot be read as 16-bit words:
 * an element error, not a crash. */
/* Tiles planned for a GPU's 48 KiB of local memory (GST_OPENCL_LOCAL_MEM_BYTES), forced on the
 * CPU device: at radius 32 the 16-bit RGBA tile fits only a narrower work-group than the
 * variant's (NVIDIA's 48 KiB had no room for it at all before), and every format matches the
 * reference. With room for no tile, the forced tile is an element error naming the local
 * memory, and the default variant (on a CPU, one without a tile) still runs. */
GST_START_TEST (test_tiles_in_little_local_memory)
{
  g_setenv ("GST_OPENCL_LOCAL_MEM_BYTES", "49152", TRUE);
  g_setenv ("GST_OPENCL_BILATERAL_TILE", "float", TRUE);
  Settings wide;
  wide.radius = 32;
  wide.sigma_spatial = 20.0;
  wide.sigma_range = 5000.0;
  uint32_t seed = 1400;
  std::vector<GstVideoFormat> formats = testutil::full_or_quick<GstVideoFormat> ({
          GST_VIDEO_FORMAT_GRAY16_LE, GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_P010_10LE },
      { GST_VIDEO_FORMAT_P010_10LE });
  /* A device with less than 48 KiB plans for its own (rusticl's 32 KiB), where 16-bit RGBA at
   * radius 32 has no tile at all (the forced tile is then an error, as below). */
  if (testutil::default_device_local_mem_bytes () >= 49152)
    formats.insert (formats.begin (), GST_VIDEO_FORMAT_RGBA64_LE);
  for (GstVideoFormat format : formats)
    check_planes (format, 37, 21, 2, Content::Edges, wide, seed++);
  check_one (GST_VIDEO_FORMAT_RGBA, 70, 40, 0, Pattern::Edges, wide, seed++);

  g_setenv ("GST_OPENCL_LOCAL_MEM_BYTES", "1024", TRUE);
  GstVideoInfo info;
  GstHarness *h = new_harness (GST_VIDEO_FORMAT_RGBA, 16, 8, &info);
  GstBus *bus = gst_bus_new ();
  gst_element_set_bus (h->element, bus);
  Frame input = testutil::filled (Frame (16, 8, 4, 0), Pattern::Random, seed++);
  GstFlowReturn ret = gst_harness_push (h, testutil::to_buffer (input, GST_VIDEO_FORMAT_RGBA));
  fail_unless (ret == GST_FLOW_ERROR, "a tile with no room gave %s", gst_flow_get_name (ret));
  GstMessage *message = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (message != nullptr, "no error message on the bus");
  GError *error = nullptr;
  gst_message_parse_error (message, &error, nullptr);
  fail_unless (testutil::contains (error->message, "needs more local memory"),
      "error \"%s\" does not name the local memory", error->message);
  g_error_free (error);
  gst_message_unref (message);
  gst_element_set_bus (h->element, nullptr);
  gst_object_unref (bus);
  gst_harness_teardown (h);

  g_unsetenv ("GST_OPENCL_BILATERAL_TILE");
  check_one (GST_VIDEO_FORMAT_RGBA, 37, 19, 0, Pattern::Edges, wide, seed++);
  g_unsetenv ("GST_OPENCL_LOCAL_MEM_BYTES");
}
GST_END_TEST;

GST_START_TEST (test_odd_16_bit_stride_is_an_error)
{
  GstVideoInfo info;
  GstHarness *h = new_harness (GST_VIDEO_FORMAT_GRAY16_LE, 16, 8, &info);
  PaddedFrame input = make_padded (&info, 1, Content::Random, 9);
  GstFlowReturn ret = gst_harness_push (h, input.buffer);
  fail_unless (ret == GST_FLOW_ERROR, "an odd stride gave %s", gst_flow_get_name (ret));
  gst_harness_teardown (h);
}
GST_END_TEST;

static Suite *
bilateral_suite (void)
{
  return TESTUTIL_SUITE ("openclbilateral", 600,
      test_properties_and_defaults, test_controlled_property_follows_stream_time,
      test_every_format_and_mode_small_sizes, test_640x480, test_float_tile, test_padded_rows,
      test_radius_and_sigmas, test_every_variant, test_prescaled_variants,
      test_unknown_variant_is_an_error, test_property_changes_between_frames,
      test_kernel_time_and_device_name, test_caps_change_mid_stream, test_yuv_and_16_bit_formats,
      test_yuv_and_16_bit_radius_and_sigmas, test_yuv_and_16_bit_641x479,
      test_yuv_and_16_bit_variants, test_tiles_in_little_local_memory,
      test_odd_16_bit_stride_is_an_error);
}

GST_CHECK_MAIN (bilateral);
