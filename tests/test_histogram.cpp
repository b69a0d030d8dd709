/* gst-opencl tests: openclhistogram's messages and drawn graph against the CPU reference.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#ifdef HAVE_GST_ANALYTICS
#include <gst/analytics/analytics.h>
#endif

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "common/element_checks.h"
#include "common/suite.h"
#include "common/testutil.h"
#include "reference/histogram_reference.h"

using checks::check_histogram_message;

/* Whether this build attaches GstTensorMeta (gstreamer-analytics-1.0 >= 1.26 found by meson). */
#ifdef HAVE_GST_ANALYTICS
constexpr bool HAVE_ANALYTICS = true;
#else
constexpr bool HAVE_ANALYTICS = false;
#endif

using checks::uint64_field;
using reference::HistogramFormat;

namespace {

/* Ramp: every code of the format's samples in turn along each plane (every 16-bit or P010
 * code in a plane of enough samples), each channel shifted; Zero and Top: every sample 0, or the
 * largest code (255, 65535, P010's 1023 << 6); AllOnes: every byte 0xff (for P010 its low
 * bits set too, which the element must ignore). */
enum class Content { Random, OneColour, Gradient, Ramp, Zero, Top, AllOnes };

const char *
content_name (Content content)
{
  static const char *const names[] = { "random", "one colour", "gradient", "ramp", "zero",
    "top", "all ones" };
  return names[(int) content];
}

struct FormatCase
{
  GstVideoFormat video;
  HistogramFormat reference;
};

const FormatCase all_formats[] = {
  { GST_VIDEO_FORMAT_RGBA, HistogramFormat::RGBA },
  { GST_VIDEO_FORMAT_BGRA, HistogramFormat::BGRA },
  { GST_VIDEO_FORMAT_RGBx, HistogramFormat::RGBx },
  { GST_VIDEO_FORMAT_BGRx, HistogramFormat::BGRx },
  { GST_VIDEO_FORMAT_GRAY8, HistogramFormat::GRAY8 },
  { GST_VIDEO_FORMAT_I420, HistogramFormat::I420 },
  { GST_VIDEO_FORMAT_NV12, HistogramFormat::NV12 },
  { GST_VIDEO_FORMAT_P010_10LE, HistogramFormat::P010_10LE },
  { GST_VIDEO_FORMAT_GRAY16_LE, HistogramFormat::GRAY16_LE },
  { GST_VIDEO_FORMAT_RGBA64_LE, HistogramFormat::RGBA64_LE },
};

/* The formats of 16-bit samples (all_formats' last three). */
const FormatCase deep_formats[] = {
  { GST_VIDEO_FORMAT_P010_10LE, HistogramFormat::P010_10LE },
  { GST_VIDEO_FORMAT_GRAY16_LE, HistogramFormat::GRAY16_LE },
  { GST_VIDEO_FORMAT_RGBA64_LE, HistogramFormat::RGBA64_LE },
};

const int all_bins[] = { 2, 4, 8, 16, 32, 64, 128, 256 };

/* A frame in host memory with every plane's rows `padding` bytes longer than GStreamer's default
 * stride; the padding holds 0xA5, which a histogram that read it would count. */
struct TestFrame : testutil::PlanarFrame
{
  FormatCase format;

  TestFrame (const FormatCase & f, int width, int height, int padding = 0)
    : testutil::PlanarFrame (f.video, width, height, padding), format (f) { }

  reference::HistogramFrame view ()
  {
    reference::HistogramFrame frame;
    frame.format = format.reference;
    frame.width = GST_VIDEO_INFO_WIDTH (&info);
    frame.height = GST_VIDEO_INFO_HEIGHT (&info);
    for (guint plane = 0; plane < GST_VIDEO_INFO_N_PLANES (&info); plane++) {
      frame.planes[plane] = bytes.data () + info.offset[plane];
      frame.strides[plane] = info.stride[plane];
    }
    return frame;
  }

  /* Fills the samples (not the padding) with codes of the format, sample by sample (see
   * Content). */
  void fill_codes (Content content)
  {
    const GstVideoFormatInfo *finfo = info.finfo;
    const int depth = GST_VIDEO_FORMAT_INFO_DEPTH (finfo, 0);
    const int shift = GST_VIDEO_FORMAT_INFO_SHIFT (finfo, 0);
    const int sample_bytes = depth > 8 ? 2 : 1;
    const uint32_t codes = 1u << depth;
    for (guint plane = 0; plane < GST_VIDEO_INFO_N_PLANES (&info); plane++) {
      const int pixel_bytes = GST_VIDEO_INFO_COMP_PSTRIDE (&info, component_of (plane));
      const int per_pixel = pixel_bytes / sample_bytes;
      const int width = row_bytes (plane) / pixel_bytes;
      for (int y = 0; y < rows (plane); y++) {
        uint8_t *r = row (plane, y);
        for (int i = 0; i < row_bytes (plane) / sample_bytes; i++) {
          const uint32_t pixel = (uint32_t) y * width + i / per_pixel;
          uint32_t word = 0;
          switch (content) {
            case Content::Ramp:
              word = ((pixel + 16411u * (i % per_pixel) + 97u * plane) % codes) << shift;
              break;
            case Content::Top:
              word = (codes - 1) << shift;
              break;
            case Content::AllOnes:
              word = (1u << (8 * sample_bytes)) - 1;
              break;
            default:
              break;
          }
          r[i * sample_bytes] = (uint8_t) word;
          if (sample_bytes == 2)
            r[i * sample_bytes + 1] = (uint8_t) (word >> 8);
        }
      }
    }
  }

  /* Fills the samples (not the padding). One colour: every pixel has the same bytes. Gradient:
   * a diagonal ramp, different per byte of the pixel. Random, one colour and gradient fill
   * bytes, so P010's low bits hold whatever falls there. */
  void fill (Content content, uint32_t seed)
  {
    if (content >= Content::Ramp) {
      fill_codes (content);
      return;
    }
    std::mt19937 random (seed);
    std::uniform_int_distribution<int> byte (0, 255);
    std::vector<int> colour (8);
    for (auto & value : colour)
      value = byte (random);
    for (guint plane = 0; plane < GST_VIDEO_INFO_N_PLANES (&info); plane++) {
      const int pixel_bytes = GST_VIDEO_INFO_COMP_PSTRIDE (&info, component_of (plane));
      const int width = row_bytes (plane) / pixel_bytes;
      for (int y = 0; y < rows (plane); y++) {
        uint8_t *r = row (plane, y);
        for (int i = 0; i < row_bytes (plane); i++) {
          const int x = i / pixel_bytes, s = i % pixel_bytes;
          int value = 0;
          switch (content) {
            case Content::Random:
              value = byte (random);
              break;
            case Content::OneColour:
              value = colour[plane * 2 + s];
              break;
            case Content::Gradient:
              value = ((x + y) * 255 / std::max (1, width + rows (plane) - 2) + 61 * s +
                  97 * plane) % 256;
              break;
            default:  /* fill_codes' */
              break;
          }
          r[i] = (uint8_t) value;
        }
      }
    }
  }

};

/* A harness around openclhistogram whose messages land on a bus of its own. */
struct Harness
{
  GstHarness *h = nullptr;
  GstBus *bus = nullptr;

  /* `launch`: the element alone, or a gst-launch description holding one openclhistogram. */
  Harness (GstVideoFormat format, int width, int height, const char *launch = nullptr)
  {
    h = launch ? gst_harness_new_parse (launch) : gst_harness_new ("openclhistogram");
    bus = gst_bus_new ();
    gst_element_set_bus (h->element, bus);
    set_caps (format, width, height);
  }
  ~Harness ()
  {
    gst_harness_teardown (h);
    gst_object_unref (bus);
  }
  void set_caps (GstVideoFormat format, int width, int height, int fps_n = 30)
  {
    GstVideoInfo info;
    gst_video_info_set_format (&info, format, width, height);
    info.fps_n = fps_n;
    info.fps_d = 1;
    gst_harness_set_src_caps (h, gst_video_info_to_caps (&info));
  }
  /* The next opencl-histogram message, or nullptr when none comes within `timeout`. Counts
   * reach the bus from the read's completion, after the frame has left the element: a message
   * that is due is waited for (10 s at most), and `timeout` 0 checks that none is there. */
  GstMessage *pop_histogram (GstClockTime timeout = 10 * GST_SECOND)
  {
    while (GstMessage *message = gst_bus_timed_pop (bus, timeout)) {
      const GstStructure *s = gst_message_get_structure (message);
      if (GST_MESSAGE_TYPE (message) == GST_MESSAGE_ELEMENT && s &&
          gst_structure_has_name (s, "opencl-histogram"))
        return message;
      fail_if (GST_MESSAGE_TYPE (message) == GST_MESSAGE_ERROR, "error message");
      gst_message_unref (message);
    }
    return nullptr;
  }
};

std::string
describe (const TestFrame & frame, Content content, int bins)
{
  return std::string (gst_video_format_to_string (frame.format.video)) + " " +
      std::to_string (GST_VIDEO_INFO_WIDTH (&frame.info)) + "x" +
      std::to_string (GST_VIDEO_INFO_HEIGHT (&frame.info)) + " stride " +
      std::to_string (frame.info.stride[0]) + " " + content_name (content) + " bins " +
      std::to_string (bins);
}

/* Pushes a frame and checks the message it produced against the reference. */
void
push_and_check (Harness & harness, TestFrame & frame, Content content, int bins)
{
  std::string label = describe (frame, content, bins);
  g_object_set (harness.h->element, "bins", (guint) bins, nullptr);
  GstBuffer *out = gst_harness_push_and_pull (harness.h, frame.to_buffer ());
  fail_unless (out != nullptr, "%s: no output", label.c_str ());
  gst_buffer_unref (out);
  GstMessage *message = harness.pop_histogram ();
  check_histogram_message (message, frame.format.reference, bins, 1,
      reference::histogram (frame.view (), bins), label);
  gst_message_unref (message);
  fail_unless (harness.pop_histogram (0) == nullptr, "%s: more than one message", label.c_str ());
  /* A forced kernel variant is the one that counted. */
  if (const char *forced = g_getenv ("GST_OPENCL_VARIANT_HISTOGRAM")) {
    gchar *variant = nullptr;
    g_object_get (harness.h->element, "variant", &variant, nullptr);
    fail_unless (g_strcmp0 (variant, forced) == 0, "%s: variant %s, not %s", label.c_str (),
        variant, forced);
    g_free (variant);
  }
}

void
check_sizes (int width, int height, int padding, const std::vector<Content> & contents,
    const std::vector<int> & bin_counts, uint32_t seed)
{
  for (const auto & format : all_formats) {
    Harness harness (format.video, width, height);
    for (Content content : contents) {
      for (int bins : bin_counts) {
        TestFrame frame (format, width, height, padding);
        frame.fill (content, seed++);
        push_and_check (harness, frame, content, bins);
      }
    }
  }
}

}  // namespace

GST_START_TEST (test_properties_and_defaults)
{
  GstElement *element = gst_element_factory_make ("openclhistogram", nullptr);
  fail_unless (element != nullptr);
  guint bins = 0;
  gboolean post_messages = FALSE, draw = TRUE;
  guint64 interval = 1;
  g_object_get (element, "bins", &bins, "post-messages", &post_messages, "interval", &interval,
      "draw", &draw, nullptr);
  fail_unless_equals_int (bins, 256);
  fail_unless (post_messages);
  fail_unless_equals_uint64 (interval, 0);
  fail_unless (!draw);
  for (const char *name : { "bins", "post-messages", "interval", "draw" }) {
    GParamSpec *spec = g_object_class_find_property (G_OBJECT_GET_CLASS (element), name);
    fail_unless (spec->flags & GST_PARAM_MUTABLE_PLAYING, "%s not mutable while playing", name);
  }
  testutil::expect_read_only (element, "kernel-time");
  /* The kernel variant: read-only, unknown until a frame chose it. */
  testutil::expect_read_only (element, "variant");
  gchar *variant = (gchar *) "x";
  g_object_get (element, "variant", &variant, nullptr);
  fail_unless (variant == nullptr, "variant %s before the first frame", variant);
  gboolean qos = TRUE;
  g_object_get (element, "qos", &qos, nullptr);
  fail_unless (!qos, "an analyser must not drop late frames");

  /* Not a power of two: rounded down. */
  for (auto pair : { std::pair<guint, guint> { 100, 64 }, { 3, 2 }, { 255, 128 }, { 16, 16 },
          { 2, 2 }, { 256, 256 } }) {
    g_object_set (element, "bins", pair.first, nullptr);
    g_object_get (element, "bins", &bins, nullptr);
    fail_unless_equals_int (bins, pair.second);
  }
  gst_object_unref (element);
}
GST_END_TEST;

GST_START_TEST (test_every_format_bins_and_content_small)
{
  const std::vector<int> bins (std::begin (all_bins), std::end (all_bins));
  const std::vector<Content> contents { Content::Random, Content::OneColour, Content::Gradient };
  check_sizes (1, 1, 0, contents, bins, 1);
  check_sizes (17, 9, 0, contents, bins, 1000);
}
GST_END_TEST;

/* The formats of 16-bit samples on structured frames: a ramp through every code (263 x 251 =
 * 66013 samples a plane: every 16-bit code; P010's chroma planes, 132 x 126 pairs, every 10-bit
 * code), frames at 0 and at the top code, words of all ones (P010 ignores its low bits), and
 * random ones; rows unpadded (read as words) and padded by 6 bytes (read sample by sample), and
 * 641x479. */
GST_START_TEST (test_deep_formats_structured)
{
  const std::vector<Content> contents { Content::Ramp, Content::Zero, Content::Top,
    Content::AllOnes, Content::Random };
  uint32_t seed = 50000;
  for (const auto & format : deep_formats) {
    for (int padding : { 0, 6 }) {
      Harness harness (format.video, 263, 251);
      for (Content content : contents) {
        for (int bins : { 2, 16, 256 }) {
          TestFrame frame (format, 263, 251, padding);
          frame.fill (content, seed++);
          push_and_check (harness, frame, content, bins);
        }
      }
    }
    Harness harness (format.video, 641, 479);
    for (Content content : { Content::Ramp, Content::Random }) {
      TestFrame frame (format, 641, 479, 10);
      frame.fill (content, seed++);
      push_and_check (harness, frame, content, content == Content::Ramp ? 256 : 64);
    }
  }
}
GST_END_TEST;

/* With 256 bins a 16-bit code v is in bin v >> 8 and a P010 code in bin v10 >> 2: a ramp over
 * every code puts the same number of samples in each bin, and the frames at the ends fill the
 * first and the last bin alone. Checked here on the reference itself, so that the comparisons
 * above compare with the rule the documentation states. */
GST_START_TEST (test_deep_reference_rule)
{
  const FormatCase gray16 = deep_formats[1];
  TestFrame ramp (gray16, 256, 256);
  ramp.fill (Content::Ramp, 0);
  for (uint64_t count : reference::histogram (ramp.view (), 256))
    fail_unless_equals_uint64 (count, 256);
  for (uint64_t count : reference::histogram (ramp.view (), 2))
    fail_unless_equals_uint64 (count, 32768);
  const FormatCase p010 = deep_formats[0];
  TestFrame p010_ramp (p010, 64, 16);
  p010_ramp.fill (Content::Ramp, 0);
  auto counts = reference::histogram (p010_ramp.view (), 256);
  for (int bin = 0; bin < 256; bin++)
    fail_unless_equals_uint64 (counts[bin], 4);
  for (Content content : { Content::Top, Content::AllOnes }) {
    for (const auto & format : deep_formats) {
      TestFrame top (format, 5, 3);
      top.fill (content, 0);
      const auto bins = reference::histogram (top.view (), 16);
      for (size_t i = 0; i < bins.size (); i++)
        fail_unless (bins[i] == 0 || i % 16 == 15, "%s: a top code in bin %zu",
            gst_video_format_to_string (format.video), i % 16);
    }
  }
}
GST_END_TEST;

GST_START_TEST (test_640x480)
{
  check_sizes (640, 480, 0, { Content::Random, Content::OneColour, Content::Gradient },
      { 256, 16 }, 2000);
}
GST_END_TEST;

GST_START_TEST (test_padded_rows)
{
  /* Padding that is not a multiple of 4, and a large one. */
  check_sizes (17, 9, 3, { Content::Random }, { 256, 8 }, 3000);
  check_sizes (33, 20, 60, { Content::Random, Content::Gradient }, { 256, 2 }, 4000);
}
GST_END_TEST;

GST_START_TEST (test_interval_sums_frames)
{
  const FormatCase format = all_formats[0];
  const int bins = 32;
  const GstClockTime frame_ns = GST_SECOND / 30;
  Harness harness (format.video, 17, 9);
  g_object_set (harness.h->element, "bins", (guint) bins, "interval", (guint64) (3 * frame_ns),
      nullptr);

  std::vector<uint64_t> expected (4 * bins, 0);
  guint summed = 0, messages = 0;
  GstClockTime interval_start = 0;
  for (int i = 0; i < 7; i++) {
    TestFrame frame (format, 17, 9);
    frame.fill (i % 2 ? Content::Random : Content::Gradient, 5000 + i);
    auto counts = reference::histogram (frame.view (), bins);
    for (size_t k = 0; k < counts.size (); k++)
      expected[k] += counts[k];
    summed++;
    GstBuffer *buffer = frame.to_buffer ();
    GST_BUFFER_PTS (buffer) = i * frame_ns;
    GST_BUFFER_DURATION (buffer) = frame_ns;
    gst_buffer_unref (gst_harness_push_and_pull (harness.h, buffer));

    /* Within an interval no message is due: waiting for one costs the whole wait (10 s; 250 ms
     * in the quick suite, where a late one would still be found at the interval's end). */
    GstMessage *message = summed < 3 && !testutil::full_suite () ?
        harness.pop_histogram (GST_SECOND / 4) : harness.pop_histogram ();
    if (summed < 3) {
      fail_unless (message == nullptr, "message after %u of 3 frames", summed);
      continue;
    }
    std::string label = "interval ending at frame " + std::to_string (i);
    check_histogram_message (message, format.reference, bins, 3, expected, label);
    const GstStructure *s = gst_message_get_structure (message);
    fail_unless_equals_uint64 (uint64_field (s, "timestamp"), interval_start);
    fail_unless_equals_uint64 (uint64_field (s, "running-time"), interval_start);
    fail_unless_equals_uint64 (uint64_field (s, "duration"), 3 * frame_ns);
    gst_message_unref (message);
    messages++;
    std::fill (expected.begin (), expected.end (), 0);
    summed = 0;
    interval_start = (i + 1) * frame_ns;
  }
  fail_unless_equals_int (messages, 2);

  /* The partial interval (one frame) is posted at EOS. */
  fail_unless (gst_harness_push_event (harness.h, gst_event_new_eos ()));
  GstMessage *message = harness.pop_histogram ();
  check_histogram_message (message, format.reference, bins, 1, expected, "at EOS");
  fail_unless_equals_uint64 (uint64_field (gst_message_get_structure (message), "timestamp"),
      6 * frame_ns);
  gst_message_unref (message);
}
GST_END_TEST;

GST_START_TEST (test_bins_change_closes_interval)
{
  const FormatCase format = all_formats[4];  /* GRAY8 */
  Harness harness (format.video, 17, 9);
  g_object_set (harness.h->element, "bins", 16u, "interval", (guint64) GST_SECOND, nullptr);
  TestFrame frame (format, 17, 9);
  frame.fill (Content::Random, 6000);
  gst_buffer_unref (gst_harness_push_and_pull (harness.h, frame.to_buffer ()));
  gst_buffer_unref (gst_harness_push_and_pull (harness.h, frame.to_buffer ()));
  fail_unless (harness.pop_histogram (0) == nullptr);

  g_object_set (harness.h->element, "bins", 4u, nullptr);
  gst_buffer_unref (gst_harness_push_and_pull (harness.h, frame.to_buffer ()));
  /* The two 16-bin frames come out when the first 4-bin frame arrives. */
  auto counts = reference::histogram (frame.view (), 16);
  for (auto & count : counts)
    count *= 2;
  GstMessage *message = harness.pop_histogram ();
  check_histogram_message (message, format.reference, 16, 2, counts, "before the change");
  gst_message_unref (message);
  fail_unless (gst_harness_push_event (harness.h, gst_event_new_eos ()));
  message = harness.pop_histogram ();
  check_histogram_message (message, format.reference, 4, 1,
      reference::histogram (frame.view (), 4), "after the change");
  gst_message_unref (message);
}
GST_END_TEST;

/* Without buffer durations the framerate gives each frame's length; with neither, a frame cannot
 * be placed in time and closes its interval. */
GST_START_TEST (test_interval_without_durations)
{
  const FormatCase format = all_formats[4];  /* GRAY8 */
  Harness harness (format.video, 17, 9);
  g_object_set (harness.h->element, "bins", 8u, "interval", (guint64) (GST_SECOND / 10),
      nullptr);
  TestFrame frame (format, 17, 9);
  frame.fill (Content::Gradient, 6100);
  auto counts = reference::histogram (frame.view (), 8);
  /* 30 frames per second: 3 frames reach 100 ms. */
  for (int i = 0; i < 3; i++) {
    fail_unless (harness.pop_histogram (0) == nullptr, "message after %d frames", i);
    gst_buffer_unref (gst_harness_push_and_pull (harness.h, frame.to_buffer ()));
  }
  auto three = counts;
  for (auto & count : three)
    count *= 3;
  GstMessage *message = harness.pop_histogram ();
  check_histogram_message (message, format.reference, 8, 3, three, "three frames at 30/1");
  fail_unless_equals_uint64 (uint64_field (gst_message_get_structure (message), "duration"),
      3 * gst_util_uint64_scale_int (GST_SECOND, 1, 30));
  gst_message_unref (message);

  harness.set_caps (format.video, 17, 9, 0);
  for (int i = 0; i < 2; i++) {
    gst_buffer_unref (gst_harness_push_and_pull (harness.h, frame.to_buffer ()));
    message = harness.pop_histogram ();
    check_histogram_message (message, format.reference, 8, 1, counts,
        "no framerate, no duration");
    gst_message_unref (message);
  }
}
GST_END_TEST;

GST_START_TEST (test_post_messages_off)
{
  Harness harness (GST_VIDEO_FORMAT_RGBA, 17, 9);
  g_object_set (harness.h->element, "post-messages", FALSE, nullptr);
  TestFrame frame (all_formats[0], 17, 9);
  frame.fill (Content::Random, 7000);
  gst_buffer_unref (gst_harness_push_and_pull (harness.h, frame.to_buffer ()));
  fail_unless (harness.pop_histogram (0) == nullptr);
  /* The frame left before its kernels ended: its time is there once they have (at most 10 s). */
  guint64 kernel_time = 0;
  for (int i = 0; i < 1000 && kernel_time == 0; i++) {
    g_object_get (harness.h->element, "kernel-time", &kernel_time, nullptr);
    if (kernel_time == 0)
      g_usleep (10000);
  }
  fail_unless (kernel_time > 0, "kernel-time stayed 0");
  fail_unless (kernel_time < 60 * GST_SECOND);
  fail_unless (harness.pop_histogram (GST_SECOND / 2) == nullptr,
      "a message came with post-messages off");
}
GST_END_TEST;

GST_START_TEST (test_passthrough_without_copy)
{
  for (const auto & format : { all_formats[0], all_formats[6] }) {
    Harness harness (format.video, 33, 20);
    /* A tensor meta needs a buffer of its own (test_tensor_meta_on_a_shared_frame). */
    g_object_set (harness.h->element, "tensor-meta", FALSE, nullptr);
    TestFrame frame (format, 33, 20, 8);
    frame.fill (Content::Random, 8000);
    GstBuffer *in = frame.to_buffer ();
    GstBuffer *out = gst_harness_push_and_pull (harness.h, gst_buffer_ref (in));
    fail_unless (out == in, "%s: the frame was copied", gst_video_format_to_string (format.video));
    GstMapInfo map;
    fail_unless (gst_buffer_map (out, &map, GST_MAP_READ));
    fail_unless (map.size == frame.bytes.size () &&
        std::equal (frame.bytes.begin (), frame.bytes.end (), map.data));
    gst_buffer_unmap (out, &map);
    gst_buffer_unref (out);
    gst_buffer_unref (in);
    GstMessage *message = harness.pop_histogram ();
    check_histogram_message (message, format.reference, 256, 1,
        reference::histogram (frame.view (), 256), "passthrough");
    gst_message_unref (message);
  }
}
GST_END_TEST;

/* With draw on, the output equals the reference drawing over the input: the drawn corner as the
 * reference draws it, every other byte (padding included) untouched. The message still holds
 * the undrawn frame's counts. */
static void
check_drawing ()
{
  struct
  {
    int width, height, bins;
    Content content;
  } sizes[] = {
    { 300, 200, 256, Content::Random },
    { 300, 200, 16, Content::Gradient },
    { 17, 9, 8, Content::Gradient },
    { 640, 480, 64, Content::OneColour },
  };
  uint32_t seed = 9000;
  for (const auto & format : all_formats) {
    Harness harness (format.video, sizes[0].width, sizes[0].height);
    g_object_set (harness.h->element, "draw", TRUE, nullptr);
    for (const auto & size : sizes) {
      harness.set_caps (format.video, size.width, size.height);
      TestFrame frame (format, size.width, size.height, 12);
      frame.fill (size.content, seed++);
      std::string label = describe (frame, size.content, size.bins) + " draw";
      auto counts = reference::histogram (frame.view (), size.bins);
      TestFrame expected = frame;
      auto expected_view = expected.view ();
      reference::draw_histogram (expected_view, counts, size.bins);

      g_object_set (harness.h->element, "bins", (guint) size.bins, nullptr);
      GstBuffer *out = gst_harness_push_and_pull (harness.h, frame.to_buffer ());
      fail_unless (out != nullptr);
      GstMapInfo map;
      fail_unless (gst_buffer_map (out, &map, GST_MAP_READ));
      fail_unless_equals_int (map.size, expected.bytes.size ());
      size_t differences = 0, first = 0, changed = 0;
      for (size_t i = 0; i < map.size; i++) {
        if (map.data[i] != expected.bytes[i] && differences++ == 0)
          first = i;
        changed += map.data[i] != frame.bytes[i];
      }
      gst_buffer_unmap (out, &map);
      gst_buffer_unref (out);
      fail_unless (differences == 0, "%s: %zu bytes differ from the reference drawing, first at "
          "byte %zu", label.c_str (), differences, first);
      fail_unless (changed > 0, "%s: nothing was drawn", label.c_str ());

      GstMessage *message = harness.pop_histogram ();
      check_histogram_message (message, format.reference, size.bins, 1, counts, label);
      gst_message_unref (message);
    }
  }
}

GST_START_TEST (test_draw_changes_only_the_corner)
{
  check_drawing ();
}
GST_END_TEST;

/* Drawing toggled while running: frames in between pass through untouched again. */
GST_START_TEST (test_draw_toggled)
{
  const FormatCase format = all_formats[0];
  Harness harness (format.video, 40, 30);
  TestFrame frame (format, 40, 30);
  frame.fill (Content::Random, 9500);
  for (gboolean draw : std::vector<gboolean> { FALSE, TRUE, FALSE }) {
    g_object_set (harness.h->element, "draw", draw, nullptr);
    GstBuffer *out = gst_harness_push_and_pull (harness.h, frame.to_buffer ());
    GstMapInfo map;
    fail_unless (gst_buffer_map (out, &map, GST_MAP_READ));
    bool same = std::equal (frame.bytes.begin (), frame.bytes.end (), map.data);
    gst_buffer_unmap (out, &map);
    gst_buffer_unref (out);
    fail_unless (same == !draw, "draw=%d: frame %s", draw, same ? "untouched" : "changed");
    gst_message_unref (harness.pop_histogram ());
  }
}
GST_END_TEST;

GST_START_TEST (test_caps_change_renames_channels)
{
  Harness harness (GST_VIDEO_FORMAT_RGBA, 17, 9);
  g_object_set (harness.h->element, "bins", 16u, nullptr);
  for (const auto & format : { all_formats[0], all_formats[5], all_formats[4] }) {
    harness.set_caps (format.video, 21, 11);
    TestFrame frame (format, 21, 11);
    frame.fill (Content::Random, 9900);
    push_and_check (harness, frame, Content::Random, 16);
  }
}
GST_END_TEST;

/* Frames leave as they came, so the element must not promise upstream that padded frames (video
 * meta) are fine when downstream did not: the allocation query is downstream's answer. */
GST_START_TEST (test_allocation_query_is_downstreams)
{
  Harness harness (GST_VIDEO_FORMAT_RGBA, 64, 32);
  for (gboolean draw : std::vector<gboolean> { FALSE, TRUE }) {
    g_object_set (harness.h->element, "draw", draw, nullptr);
    GstVideoInfo info;
    gst_video_info_set_format (&info, GST_VIDEO_FORMAT_RGBA, 64, 32);
    GstCaps *caps = gst_video_info_to_caps (&info);
    GstQuery *query = gst_query_new_allocation (caps, TRUE);
    gst_caps_unref (caps);
    gst_pad_peer_query (harness.h->srcpad, query);
    fail_if (gst_query_find_allocation_meta (query, GST_VIDEO_META_API_TYPE, nullptr),
        "draw=%d: video meta offered although downstream does not take it", draw);
    gst_query_unref (query);
  }
}
GST_END_TEST;

/* A buffer smaller than its caps say is an error on the bus and a flow error, not a crash; the
 * next good frame is analysed again. */
GST_START_TEST (test_short_buffer_is_an_error)
{
  Harness harness (GST_VIDEO_FORMAT_RGBA, 64, 48);
  for (gboolean draw : std::vector<gboolean> { FALSE, TRUE }) {
    g_object_set (harness.h->element, "draw", draw, nullptr);
    GstBuffer *buffer = gst_buffer_new_allocate (nullptr, 100, nullptr);
    gst_buffer_memset (buffer, 0, 7, 100);
    fail_unless_equals_int (gst_harness_push (harness.h, buffer), GST_FLOW_ERROR);
    bool error_seen = false;
    while (GstMessage *message = gst_bus_pop (harness.bus)) {
      error_seen |= GST_MESSAGE_TYPE (message) == GST_MESSAGE_ERROR;
      gst_message_unref (message);
    }
    fail_unless (error_seen, "draw=%d: no error message", draw);
  }
  TestFrame frame (all_formats[0], 64, 48);
  frame.fill (Content::Random, 9800);
  push_and_check (harness, frame, Content::Random, 256);
}
GST_END_TEST;

/* The pixel rows of every plane of `buffer` equal those of `expected` (strides may differ). */
void
check_pixels (GstBuffer * buffer, TestFrame & expected, const std::string & label)
{
  GstVideoInfo info;
  gst_video_info_set_format (&info, expected.format.video, GST_VIDEO_INFO_WIDTH (&expected.info),
      GST_VIDEO_INFO_HEIGHT (&expected.info));
  GstVideoFrame frame;
  fail_unless (gst_video_frame_map (&frame, &info, buffer, GST_MAP_READ), "%s: cannot map",
      label.c_str ());
  for (guint plane = 0; plane < GST_VIDEO_FRAME_N_PLANES (&frame); plane++) {
    for (int y = 0; y < expected.rows (plane); y++) {
      const auto *row = static_cast<const uint8_t *> (GST_VIDEO_FRAME_PLANE_DATA (&frame,
              plane)) + (size_t) y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, plane);
      fail_unless (std::equal (row, row + expected.row_bytes (plane), expected.row (plane, y)),
          "%s: plane %u row %d differs", label.c_str (), plane, y);
    }
  }
  gst_video_frame_unmap (&frame);
}

/* Frames already in OpenCL memory are analysed (and drawn into) where they are: the element
 * negotiates OpenCL memory on both sides and the results match the reference. */
GST_START_TEST (test_opencl_memory)
{
  for (const auto & format : { all_formats[0], all_formats[6], all_formats[7], all_formats[9] }) {
    Harness harness (format.video, 33, 20, "openclupload ! openclhistogram name=histogram "
        "bins=64 ! opencldownload");
    GstElement *element = gst_bin_get_by_name (GST_BIN (harness.h->element), "histogram");
    for (gboolean draw : std::vector<gboolean> { FALSE, TRUE }) {
      g_object_set (element, "draw", draw, nullptr);
      TestFrame frame (format, 33, 20);
      frame.fill (Content::Random, 9700 + draw);
      std::string label = describe (frame, Content::Random, 64) + (draw ? " drawn" : "") +
          " in OpenCL memory";
      auto counts = reference::histogram (frame.view (), 64);
      TestFrame expected = frame;
      if (draw) {
        auto view = expected.view ();
        reference::draw_histogram (view, counts, 64);
      }
      GstBuffer *out = gst_harness_push_and_pull (harness.h, frame.to_buffer ());
      fail_unless (out != nullptr, "%s: no output", label.c_str ());
      check_pixels (out, expected, label);
      gst_buffer_unref (out);
      GstMessage *message = harness.pop_histogram ();
      check_histogram_message (message, format.reference, 64, 1, counts, label);
      gst_message_unref (message);
    }
    testutil::expect_negotiated_feature (element, "sink", "memory:OpenCLMemory");
    gst_object_unref (element);
  }
}
GST_END_TEST;

/* Every kernel variant the tuner can choose, forced with GST_OPENCL_VARIANT_HISTOGRAM (the tests'
 * environment never times: GST_OPENCL_TUNING=0 takes the device's default otherwise), so the
 * GPU variants run on whatever device runs the tests. Each test runs in its own process, so the
 * variable stays with it. */
const char *const all_variants[] = {
  "p16-256x2", "p16-256x4", "p16-runs-256x4", "c32-256x4", "c32-runs-256x4", "cpu-64k",
  "cpu-256k", "cpu-x4",
};

/* The variants test_variant runs: all of them, or in the quick suite p16-256x4, c32-runs-256x4,
 * cpu-64k and cpu-x4 (16- and 32-bit counters, runs of equal samples, both kinds of CPU grid).
 * Each kind of counter is a program of its own for each layout of pixels; the variants of one
 * kind differ in their grid only. */
std::vector<const char *>
variants_in_suite ()
{
  if (testutil::full_suite ())
    return std::vector<const char *> (std::begin (all_variants), std::end (all_variants));
  return { "p16-256x4", "c32-runs-256x4", "cpu-64k", "cpu-x4" };
}

/* The variant names the element lists when asked for one it does not have. */
std::vector<std::string>
listed_variants ()
{
  g_setenv ("GST_OPENCL_VARIANT_HISTOGRAM", "no-such-variant", TRUE);
  Harness harness (GST_VIDEO_FORMAT_GRAY8, 4, 4);
  TestFrame frame (all_formats[4], 4, 4);
  frame.fill (Content::Random, 1);
  fail_unless_equals_int (gst_harness_push (harness.h, frame.to_buffer ()), GST_FLOW_ERROR);
  g_unsetenv ("GST_OPENCL_VARIANT_HISTOGRAM");
  std::string text;
  while (GstMessage *message = gst_bus_pop (harness.bus)) {
    if (GST_MESSAGE_TYPE (message) == GST_MESSAGE_ERROR) {
      GError *error = nullptr;
      gchar *debug = nullptr;
      gst_message_parse_error (message, &error, &debug);
      text += std::string (error->message) + " " + (debug ? debug : "");
      g_clear_error (&error);
      g_free (debug);
    }
    gst_message_unref (message);
  }
  /* "... names no variant of histogram (a, b, c)" */
  const size_t open = text.find ("histogram (");
  const size_t close = text.find (')', open);
  fail_unless (open != std::string::npos && close != std::string::npos, "no list in \"%s\"",
      text.c_str ());
  return testutil::split (text.substr (open + 11, close - open - 11), ", ");
}

/* The tests below cover exactly the element's variants. */
GST_START_TEST (test_variants_listed)
{
  auto names = listed_variants ();
  std::vector<std::string> expected (std::begin (all_variants), std::end (all_variants));
  std::sort (names.begin (), names.end ());
  std::sort (expected.begin (), expected.end ());
  fail_unless (names == expected, "the element has %zu variants, the tests know %zu",
      names.size (), expected.size ());
}
GST_END_TEST;

/* One variant (the loop index) on every format, frames read every way the kernel reads a
 * plane: byte by byte (rows padded by 3 bytes; 1x1), as 16-byte words with a tail of pixels per
 * row (rows padded to 16-byte strides), as one span of words (no padding; every bin count), and
 * larger frames that give every work-item several words. */
GST_START_TEST (test_variant)
{
  const char *variant = variants_in_suite ()[__i__];
  g_setenv ("GST_OPENCL_VARIANT_HISTOGRAM", variant, TRUE);
  const std::vector<int> bins (std::begin (all_bins), std::end (all_bins));
  const std::vector<Content> every { Content::Random, Content::OneColour, Content::Gradient };
  /* The seeds of the variant's place in all_variants, in either suite. */
  const uint32_t seed = 20000 + 1000 * (std::find_if (std::begin (all_variants),
          std::end (all_variants), [variant](const char *v) {
            return g_str_equal (v, variant);
          }) - std::begin (all_variants));
  check_sizes (1, 1, 0, { Content::Random, Content::OneColour }, bins, seed);
  check_sizes (17, 9, 3, every, { 256, 8 }, seed + 100);
  check_sizes (33, 20, 12, every, { 256, 32, 2 }, seed + 200);
  check_sizes (64, 24, 0, every, bins, seed + 300);
  check_sizes (301, 37, 5, { Content::Random, Content::OneColour }, { 256 }, seed + 400);
  /* The quick suite leaves out the 640x480 frames here (test_640x480 has them). */
  if (testutil::full_suite ())
    check_sizes (640, 480, 0, every, { 256, 16 }, seed + 500);
  g_unsetenv ("GST_OPENCL_VARIANT_HISTOGRAM");
}
GST_END_TEST;

/* The drawn graph does not depend on the variant; drawn once with a GPU variant. */
GST_START_TEST (test_work_groups_draw)
{
  g_setenv ("GST_OPENCL_VARIANT_HISTOGRAM", "p16-256x4", TRUE);
  check_drawing ();
  g_unsetenv ("GST_OPENCL_VARIANT_HISTOGRAM");
}
GST_END_TEST;

/* 16-bit counters: with one work-group forced (GST_OPENCL_HISTOGRAM_GROUPS=1) the work-items
 * sharing a copy would count 65536 samples of one bin of a 1024x1024 frame of one colour, one
 * more than a counter holds; the element must launch more groups. The 32-bit variants take the
 * single group as it is. Random frames too, where the counts spread. */
GST_START_TEST (test_packed_counters_stay_exact)
{
  g_setenv ("GST_OPENCL_HISTOGRAM_GROUPS", "1", TRUE);
  /* The quick suite runs p16-256x4 only (16-bit counters without runs). */
  for (const char *variant : testutil::full_or_quick<const char *> ({ "p16-256x4",
              "p16-runs-256x4", "p16-256x2", "c32-256x4" }, { "p16-256x4" })) {
    g_setenv ("GST_OPENCL_VARIANT_HISTOGRAM", variant, TRUE);
    for (const auto & format : { all_formats[0], all_formats[6] }) {
      Harness harness (format.video, 1024, 1024);
      for (Content content : { Content::OneColour, Content::Random }) {
        TestFrame frame (format, 1024, 1024);
        frame.fill (content, 30000);
        push_and_check (harness, frame, content, 256);
      }
    }
  }
  g_unsetenv ("GST_OPENCL_VARIANT_HISTOGRAM");
  g_unsetenv ("GST_OPENCL_HISTOGRAM_GROUPS");
}
GST_END_TEST;

/* Consecutive frames alternate between two count buffers, each frame clearing the one the next
 * counts into: the counts of every frame are its own, for single- and multi-plane formats, also
 * after a frame that failed. */
GST_START_TEST (test_consecutive_frames)
{
  for (const char *variant : { "cpu-64k", "p16-256x4" }) {
    g_setenv ("GST_OPENCL_VARIANT_HISTOGRAM", variant, TRUE);
    for (const auto & format : { all_formats[0], all_formats[5], all_formats[6], all_formats[7] }) {
      Harness harness (format.video, 40, 30);
      for (int i = 0; i < 5; i++) {
        if (i == 3) {
          GstBuffer *short_buffer = gst_buffer_new_allocate (nullptr, 10, nullptr);
          gst_buffer_memset (short_buffer, 0, 1, 10);
          fail_unless_equals_int (gst_harness_push (harness.h, short_buffer), GST_FLOW_ERROR);
          while (GstMessage *message = gst_bus_pop (harness.bus))
            gst_message_unref (message);
        }
        TestFrame frame (format, 40, 30);
        frame.fill (i % 2 ? Content::OneColour : Content::Random, 31000 + i);
        push_and_check (harness, frame, i % 2 ? Content::OneColour : Content::Random,
            i < 2 ? 256 : 64);
      }
    }
  }
  g_unsetenv ("GST_OPENCL_VARIANT_HISTOGRAM");
}
GST_END_TEST;

/* The frame's tensor meta against the reference counts where the build attaches one (GStreamer
 * analytics 1.26): a uint32 tensor of dims [channels, bins], row-major, id opencl-histogram.
 * Built without it, the frame leaves with no meta but its video meta. */
static void
check_tensor_meta (GstBuffer * out, const FormatCase & format, int bins,
    const std::vector<uint64_t> & counts, const std::string & label)
{
#ifdef HAVE_GST_ANALYTICS
  GstTensorMeta *meta = gst_buffer_get_tensor_meta (out);
  fail_unless (meta != nullptr, "%s: no tensor meta", label.c_str ());
  const gint index = gst_tensor_meta_get_index_from_id (meta,
      g_quark_from_static_string ("opencl-histogram"));
  fail_unless (index >= 0, "%s: no opencl-histogram tensor", label.c_str ());
  const GstTensor *tensor = gst_tensor_meta_get (meta, index);
  const size_t channels = reference::histogram_channels (format.reference).size ();
  fail_unless_equals_int (tensor->data_type, GST_TENSOR_DATA_TYPE_UINT32);
  fail_unless_equals_int (tensor->dims_order, GST_TENSOR_DIM_ORDER_ROW_MAJOR);
  fail_unless_equals_int (tensor->layout, GST_TENSOR_LAYOUT_CONTIGUOUS);
  fail_unless_equals_int (tensor->num_dims, 2);
  fail_unless (tensor->dims[0] == channels && tensor->dims[1] == (gsize) bins,
      "%s: dims [%zu, %zu], not [%zu, %d]", label.c_str (), tensor->dims[0], tensor->dims[1],
      channels, bins);
  fail_unless_equals_int (counts.size (), channels * bins);
  std::vector<uint32_t> values (counts.size ());
  fail_unless_equals_int (gst_buffer_get_size (tensor->data), values.size () * sizeof (uint32_t));
  gst_buffer_extract (tensor->data, 0, values.data (), values.size () * sizeof (uint32_t));
  for (size_t i = 0; i < values.size (); i++)
    fail_unless (values[i] == counts[i], "%s: channel %zu bin %zu holds %u, the reference %"
        G_GUINT64_FORMAT, label.c_str (), i / bins, i % bins, values[i], counts[i]);
#else
  (void) format;
  (void) bins;
  (void) counts;
  gpointer state = nullptr;
  while (GstMeta *meta = gst_buffer_iterate_meta (out, &state))
    fail_unless (meta->info->api == GST_VIDEO_META_API_TYPE, "%s: a %s on the frame",
        label.c_str (), g_type_name (meta->info->api));
#endif
}

/* Every format, content and a few bin counts: the meta on each frame holds that frame's counts,
 * the same as its message. The property is on by default exactly when the build has analytics
 * 1.26. */
GST_START_TEST (test_tensor_meta_matches_reference)
{
  uint32_t seed = 40000;
  for (const auto & format : all_formats) {
    Harness harness (format.video, 37, 21);
    gboolean tensor_meta = !HAVE_ANALYTICS;
    g_object_get (harness.h->element, "tensor-meta", &tensor_meta, nullptr);
    fail_unless (tensor_meta == HAVE_ANALYTICS, "tensor-meta defaults to %d", tensor_meta);
    for (Content content : { Content::Random, Content::OneColour, Content::Gradient }) {
      for (int bins : { 256, 16, 2 }) {
        TestFrame frame (format, 37, 21, 5);
        frame.fill (content, seed++);
        const std::string label = describe (frame, content, bins) + " tensor meta";
        const auto counts = reference::histogram (frame.view (), bins);
        g_object_set (harness.h->element, "bins", (guint) bins, nullptr);
        GstBuffer *out = gst_harness_push_and_pull (harness.h, frame.to_buffer ());
        fail_unless (out != nullptr, "%s: no output", label.c_str ());
        check_tensor_meta (out, format, bins, counts, label);
        gst_buffer_unref (out);
        GstMessage *message = harness.pop_histogram ();
        check_histogram_message (message, format.reference, bins, 1, counts, label);
        gst_message_unref (message);
      }
    }
  }
}
GST_END_TEST;

/* A frame someone else holds too (a tee) is not writable: with analytics it leaves as a new
 * buffer around the same memory, the meta on it and none on the input; without, it leaves as
 * it came. Drawing (frames written) carries the counts of the undrawn frame. */
GST_START_TEST (test_tensor_meta_on_a_shared_frame)
{
  const FormatCase format = all_formats[6];
  for (gboolean draw : std::vector<gboolean> { FALSE, TRUE }) {
    Harness harness (format.video, 40, 30);
    g_object_set (harness.h->element, "bins", 64u, "draw", draw, nullptr);
    TestFrame frame (format, 40, 30);
    frame.fill (Content::Random, 41000 + draw);
    const std::string label = describe (frame, Content::Random, 64) + (draw ? " drawn" : "") +
        " shared";
    const auto counts = reference::histogram (frame.view (), 64);
    GstBuffer *in = frame.to_buffer ();
    GstBuffer *out = gst_harness_push_and_pull (harness.h, gst_buffer_ref (in));
    fail_unless (out != nullptr);
    check_tensor_meta (out, format, 64, counts, label);
    if (!draw) {
      fail_unless ((out == in) == !HAVE_ANALYTICS, "%s: %s buffer", label.c_str (),
          out == in ? "the same" : "a new");
      fail_unless (gst_buffer_peek_memory (out, 0) == gst_buffer_peek_memory (in, 0),
          "%s: the frame's memory was copied", label.c_str ());
    }
    if (out != in) {
      gpointer state = nullptr;
      while (GstMeta *meta = gst_buffer_iterate_meta (in, &state))
        fail_unless (meta->info->api == GST_VIDEO_META_API_TYPE, "%s: a %s on the input",
            label.c_str (), g_type_name (meta->info->api));
    }
    gst_buffer_unref (out);
    gst_buffer_unref (in);
    gst_message_unref (harness.pop_histogram ());
  }
}
GST_END_TEST;

/* tensor-meta=false attaches nothing; asking for it on a build without analytics warns and
 * reads back false. */
GST_START_TEST (test_tensor_meta_off)
{
  const FormatCase format = all_formats[0];
  Harness harness (format.video, 16, 8);
  g_object_set (harness.h->element, "tensor-meta", FALSE, nullptr);
  TestFrame frame (format, 16, 8);
  frame.fill (Content::Random, 42000);
  GstBuffer *out = gst_harness_push_and_pull (harness.h, frame.to_buffer ());
  gpointer state = nullptr;
  while (GstMeta *meta = gst_buffer_iterate_meta (out, &state))
    fail_unless (meta->info->api == GST_VIDEO_META_API_TYPE, "tensor-meta=false: a %s",
        g_type_name (meta->info->api));
  gst_buffer_unref (out);
  GstMessage *histogram = harness.pop_histogram ();
  fail_unless (histogram != nullptr, "tensor-meta=false: no opencl-histogram message");
  gst_message_unref (histogram);

  g_object_set (harness.h->element, "tensor-meta", TRUE, nullptr);
  gboolean tensor_meta = !HAVE_ANALYTICS;
  g_object_get (harness.h->element, "tensor-meta", &tensor_meta, nullptr);
  fail_unless (tensor_meta == HAVE_ANALYTICS);
  bool warned = false;
  while (GstMessage *message = gst_bus_pop (harness.bus)) {
    warned |= GST_MESSAGE_TYPE (message) == GST_MESSAGE_WARNING;
    gst_message_unref (message);
  }
  fail_unless (warned == !HAVE_ANALYTICS, "tensor-meta=true %s", warned ? "warned" :
      "did not warn");
}
GST_END_TEST;

#ifdef HAVE_GST_ANALYTICS
/* Tensors from upstream stay; a second openclhistogram replaces the first one's histogram. */
GST_START_TEST (test_tensor_meta_keeps_upstream_tensors)
{
  const FormatCase format = all_formats[4];
  Harness harness (format.video, 24, 16, "openclhistogram bins=8 ! openclhistogram bins=32");
  TestFrame frame (format, 24, 16);
  frame.fill (Content::Gradient, 43000);
  GstBuffer *in = frame.to_buffer ();
  GstBuffer *upstream_data = gst_buffer_new_allocate (nullptr, 3 * sizeof (float), nullptr);
  gsize dims[1] = { 3 };
  GstTensor **tensors = g_new (GstTensor *, 1);
  tensors[0] = gst_tensor_new_simple (g_quark_from_static_string ("upstream"),
      GST_TENSOR_DATA_TYPE_FLOAT32, upstream_data, GST_TENSOR_DIM_ORDER_ROW_MAJOR, 1, dims);
  gst_tensor_meta_set (gst_buffer_add_tensor_meta (in), 1, tensors);
  GstBuffer *out = gst_harness_push_and_pull (harness.h, in);
  GstTensorMeta *meta = gst_buffer_get_tensor_meta (out);
  fail_unless (meta != nullptr);
  fail_unless_equals_int (meta->num_tensors, 2);
  fail_unless (gst_tensor_meta_get_index_from_id (meta,
          g_quark_from_static_string ("upstream")) >= 0);
  check_tensor_meta (out, format, 32, reference::histogram (frame.view (), 32),
      "the second of two histograms");
  gst_buffer_unref (out);
}
GST_END_TEST;
#endif

static Suite *
histogram_suite (void)
{
  Suite *s = suite_create ("openclhistogram");
  TCase *tc = TESTUTIL_ADD_CASE (s, "general", 600,
      test_properties_and_defaults, test_every_format_bins_and_content_small,
      test_deep_formats_structured, test_deep_reference_rule, test_640x480,
      test_padded_rows, test_interval_sums_frames, test_bins_change_closes_interval,
      test_interval_without_durations, test_post_messages_off, test_passthrough_without_copy,
      test_draw_changes_only_the_corner, test_draw_toggled, test_caps_change_renames_channels,
      test_allocation_query_is_downstreams, test_opencl_memory, test_short_buffer_is_an_error,
      test_variants_listed, test_work_groups_draw, test_packed_counters_stay_exact,
      test_consecutive_frames);
  tcase_add_loop_test (tc, test_variant, 0, (int) variants_in_suite ().size ());
  TCase *meta = TESTUTIL_ADD_CASE (s, "tensor-meta", 300, test_tensor_meta_matches_reference,
      test_tensor_meta_on_a_shared_frame, test_tensor_meta_off);
#ifdef HAVE_GST_ANALYTICS
  tcase_add_test (meta, test_tensor_meta_keeps_upstream_tensors);
#else
  (void) meta;
#endif
  return s;
}

GST_CHECK_MAIN (histogram);
