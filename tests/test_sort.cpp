/* gst-opencl tests: openclsort. Arrays (other/tensors) against std::sort with the same strict
 * total order, bit for bit, for every type and order, several lengths and batches; video frames
 * of every packed format (8- and 16-bit), key, direction and order against a stable CPU pixel
 * sort, plus the permutation-and-order property checked on its own; 4:2:0 frames (NV12, I420,
 * P010_10LE) against the CPU block sort at odd, even and tiny sizes with padded rows;
 * properties changed while playing; errors for wrong-sized buffers, too-large tensors,
 * unsupported caps and colour keys on YUV frames.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "common/suite.h"
#include "common/testutil.h"
#include "reference/sort_reference.h"

namespace {

template <typename T> const char *type_name ();
template <> const char *type_name<int32_t> () { return "int32"; }
template <> const char *type_name<uint32_t> () { return "uint32"; }
template <> const char *type_name<float> () { return "float32"; }

std::string
tensor_caps (const char *type, size_t length, size_t rows)
{
  return std::string ("other/tensors,format=static,num_tensors=1,types=") + type +
      ",dimensions=(string)" + std::to_string (length) + ":" + std::to_string (rows) +
      ",framerate=(fraction)0/1";
}

/* A harness whose element posts to a bus the test can read. */
struct Harness
{
  GstHarness *h;
  GstBus *bus;

  Harness ()
  {
    h = gst_harness_new ("openclsort");
    bus = gst_bus_new ();
    gst_element_set_bus (h->element, bus);
  }
  ~Harness ()
  {
    gst_harness_teardown (h);
    gst_object_unref (bus);
  }
  /* The text of the first error on the bus, "" when there is none. */
  std::string error () { return testutil::first_error (bus); }
};

template <typename T>
std::vector<T>
random_values (size_t count, uint32_t seed, bool with_specials)
{
  std::mt19937 random (seed);
  std::vector<T> values (count);
  const uint32_t specials[] = { 0x7FC00000u, 0xFFC00001u, 0x7F800001u, 0x00000000u, 0x80000000u,
    0x7F800000u, 0xFF800000u, 0x00000001u };
  for (auto & value : values) {
    uint32_t bits = random ();
    if constexpr (std::is_same_v<T, float>) {
      if (with_specials && random () % 4 == 0)
        bits = specials[random () % G_N_ELEMENTS (specials)];
      else
        bits = (bits & 0x80000000u) | (0x30000000u + (bits % 0x1E000000u));  /* finite */
    } else if (with_specials) {
      bits %= 7;  /* many equal keys */
    }
    std::memcpy (&value, &bits, sizeof value);
  }
  return values;
}

/* Pushes one tensor buffer and checks the output against the reference. */
template <typename T>
void
push_and_check (Harness & harness, const std::vector<T> & values, size_t length, bool descending,
    const char *what)
{
  GstBuffer *in = gst_buffer_new_allocate (nullptr, values.size () * sizeof (T), nullptr);
  gst_buffer_fill (in, 0, values.data (), values.size () * sizeof (T));
  fail_unless_equals_int (gst_harness_push (harness.h, in), GST_FLOW_OK);
  GstBuffer *out = gst_harness_pull (harness.h);
  fail_unless (out != nullptr);
  std::vector<T> actual (values.size ());
  fail_unless_equals_int (gst_buffer_get_size (out), values.size () * sizeof (T));
  gst_buffer_extract (out, 0, actual.data (), actual.size () * sizeof (T));
  gst_buffer_unref (out);
  auto expected = reference::sort_rows (values, length, descending);
  for (size_t i = 0; i < actual.size (); i++) {
    if (std::memcmp (&actual[i], &expected[i], sizeof (T)) != 0) {
      uint32_t got, want;
      std::memcpy (&got, &actual[i], 4);
      std::memcpy (&want, &expected[i], 4);
      fail ("%s %s %s, rows of %zu: row %zu position %zu holds bits 0x%08x, expected 0x%08x",
          type_name<T> (), descending ? "descending" : "ascending", what, length, i / length,
          i % length, got, want);
    }
  }
}

template <typename T>
void
check_tensors ()
{
  struct Shape
  {
    size_t length, rows;
  } shapes[] = { { 1, 1 }, { 2, 1 }, { 3, 1 }, { 1000, 1 }, { 4095, 1 }, { 4097, 1 },
    { 65536, 1 }, { 3, 1000 }, { 64, 5 }, { 4097, 2 } };
  Harness harness;
  uint32_t seed = 1;
  for (const auto & shape : shapes) {
    gst_harness_set_src_caps_str (harness.h, tensor_caps (type_name<T> (), shape.length,
            shape.rows).c_str ());
    for (bool descending : { false, true }) {
      /* Changed while playing: takes effect with the next buffer. */
      gst_util_set_object_arg (G_OBJECT (harness.h->element), "order",
          descending ? "descending" : "ascending");
      for (bool specials : { false, true }) {
        auto values = random_values<T> (shape.length * shape.rows, seed++, specials);
        push_and_check (harness, values, shape.length, descending,
            specials ? "special/repeated" : "random");
      }
      auto sorted = reference::sort_rows (random_values<T> (shape.length * shape.rows, seed++,
              false), shape.length, false);
      push_and_check (harness, sorted, shape.length, descending, "already ascending");
      auto reversed = reference::sort_rows (sorted, shape.length, true);
      push_and_check (harness, reversed, shape.length, descending, "already descending");
      std::vector<T> equal (shape.length * shape.rows, sorted.back ());
      push_and_check (harness, equal, shape.length, descending, "all equal");
    }
  }
  /* Kept in a variable: the macro holds the pointer past the end of a temporary's life. */
  const std::string error = harness.error ();
  fail_unless_equals_string (error.c_str (), "");
}

}  // namespace

GST_START_TEST (test_tensors_int32)
{
  check_tensors<int32_t> ();
}
GST_END_TEST;

GST_START_TEST (test_tensors_uint32)
{
  check_tensors<uint32_t> ();
}
GST_END_TEST;

GST_START_TEST (test_tensors_float32)
{
  check_tensors<float> ();
}
GST_END_TEST;

namespace {

struct VideoFormat
{
  GstVideoFormat format;
  int bytes_per_pixel;
  bool gray, bgr;
  int sample_bytes = 1;
};

const VideoFormat video_formats[] = {
  { GST_VIDEO_FORMAT_RGBA, 4, false, false },
  { GST_VIDEO_FORMAT_BGRA, 4, false, true },
  { GST_VIDEO_FORMAT_RGBx, 4, false, false },
  { GST_VIDEO_FORMAT_BGRx, 4, false, true },
  { GST_VIDEO_FORMAT_GRAY8, 1, true, false },
  { GST_VIDEO_FORMAT_GRAY16_LE, 2, true, false, 2 },
  { GST_VIDEO_FORMAT_RGBA64_LE, 8, false, false, 2 },
};

/* What a packed test frame holds: one of testutil's patterns, or every pixel the same bytes
 * (which a stable sort leaves as it is). */
enum class PackedContent { Random, Flat, Gradient, Constant };

const char *
packed_content_name (PackedContent content)
{
  static const char *const names[] = { "random", "flat", "gradient", "constant" };
  return names[(int) content];
}

void
fill_packed (testutil::Frame & frame, PackedContent content, uint32_t seed)
{
  switch (content) {
    case PackedContent::Random:
      testutil::fill (frame, testutil::Pattern::Random, seed);
      break;
    case PackedContent::Flat:
      testutil::fill (frame, testutil::Pattern::Flat, seed);
      break;
    case PackedContent::Gradient:
      testutil::fill (frame, testutil::Pattern::Gradient, seed);
      break;
    case PackedContent::Constant:
      for (int y = 0; y < frame.height; y++)
        for (int i = 0; i < frame.width * frame.bytes_per_pixel; i++)
          frame.row (y)[i] = (uint8_t) (37 + 53 * (i % frame.bytes_per_pixel));
      break;
  }
}

const struct
{
  const char *name;
  reference::PixelKey key;
} pixel_keys[] = {
  { "luma", reference::PixelKey::Luma },
  { "red", reference::PixelKey::Red },
  { "green", reference::PixelKey::Green },
  { "blue", reference::PixelKey::Blue },
};

/* Each output line holds the input line's pixels (the same multiset of byte groups) with keys
 * in order: checked without the reference's choice among equal keys. */
void
check_permutation_and_order (const testutil::Frame & in, const testutil::Frame & out,
    const VideoFormat & format, reference::PixelKey key, bool columns, bool descending,
    const std::string & what)
{
  const int bpp = in.bytes_per_pixel;
  const int lines = columns ? in.width : in.height;
  const int length = columns ? in.height : in.width;
  for (int line = 0; line < lines; line++) {
    auto pixel = [&](const testutil::Frame & frame, int position) {
      const uint8_t *p = columns ? frame.row (position) + (size_t) line * bpp :
          frame.row (line) + (size_t) position * bpp;
      return std::vector<uint8_t> (p, p + bpp);
    };
    std::vector<std::vector<uint8_t>> before, after;
    for (int position = 0; position < length; position++) {
      before.push_back (pixel (in, position));
      after.push_back (pixel (out, position));
      if (position > 0) {
        int previous = reference::pixel_key (after[position - 1].data (), format.gray,
            format.bgr, key, format.sample_bytes);
        int current = reference::pixel_key (after[position].data (), format.gray, format.bgr,
            key, format.sample_bytes);
        fail_unless (descending ? previous >= current : previous <= current,
            "%s: line %d position %d: key %d after %d", what.c_str (), line, position, current,
            previous);
      }
    }
    std::sort (before.begin (), before.end ());
    std::sort (after.begin (), after.end ());
    fail_unless (before == after, "%s: line %d is not a permutation of the input line",
        what.c_str (), line);
  }
}

/* Runs every key x direction x order over frames of `format`, changing the properties of one
 * running element between buffers. */
void
check_video_format (const VideoFormat & format, int width, int height, bool all_keys)
{
  Harness harness;
  GstVideoInfo info;
  gst_video_info_set_format (&info, format.format, width, height);
  GstCaps *caps = gst_video_info_to_caps (&info);
  gst_harness_set_src_caps (harness.h, caps);
  const char *format_name = gst_video_format_to_string (format.format);

  uint32_t seed = 3;
  for (const auto & key : pixel_keys) {
    if (!all_keys && key.key != reference::PixelKey::Luma)
      continue;
    for (bool columns : { false, true }) {
      for (bool descending : { false, true }) {
        gst_util_set_object_arg (G_OBJECT (harness.h->element), "key", key.name);
        gst_util_set_object_arg (G_OBJECT (harness.h->element), "direction",
            columns ? "columns" : "rows");
        gst_util_set_object_arg (G_OBJECT (harness.h->element), "order",
            descending ? "descending" : "ascending");
        for (auto content : { PackedContent::Random, PackedContent::Flat,
                PackedContent::Gradient, PackedContent::Constant }) {
          /* Padded rows: the element must honour the stride of the video meta. */
          testutil::Frame in (width, height, format.bytes_per_pixel,
              width * format.bytes_per_pixel + 12);
          fill_packed (in, content, seed++);
          fail_unless_equals_int (gst_harness_push (harness.h, testutil::to_buffer (in,
                      format.format)), GST_FLOW_OK);
          GstBuffer *out_buffer = gst_harness_pull (harness.h);
          fail_unless (out_buffer != nullptr);
          testutil::Frame out = testutil::from_buffer (out_buffer, &info);
          gst_buffer_unref (out_buffer);

          std::string what = std::string (format_name) + " " + std::to_string (width) + "x" +
              std::to_string (height) + " key=" + key.name + " direction=" +
              (columns ? "columns" : "rows") + " order=" + (descending ? "descending" :
              "ascending") + " " + packed_content_name (content);
          check_permutation_and_order (in, out, format, key.key, columns, descending, what);
          testutil::Frame expected = reference::sort_pixels (in, format.gray, format.bgr,
              key.key, columns, descending, format.sample_bytes);
          if (content == PackedContent::Constant)
            fail_unless (testutil::compare (out, in, std::vector<int> ((size_t)
                        format.bytes_per_pixel, 0)).over == 0, "%s: not left as it was",
                what.c_str ());
          auto difference = testutil::compare (out, expected,
              std::vector<int> ((size_t) format.bytes_per_pixel, 0));
          fail_unless (difference.over == 0, "%s differs from the stable sort: %s",
              what.c_str (), testutil::describe (difference).c_str ());
        }
      }
    }
  }
  /* Kept in a variable: the macro holds the pointer past the end of a temporary's life. */
  const std::string error = harness.error ();
  fail_unless_equals_string (error.c_str (), "");
}

}  // namespace

GST_START_TEST (test_video_every_format_key_direction_order)
{
  for (const auto & format : video_formats)
    check_video_format (format, 37, 23, true);
}
GST_END_TEST;

/* Lines longer than one work-group's chunk take the global passes. */
GST_START_TEST (test_video_long_lines)
{
  check_video_format (video_formats[0], 4500, 2, false);
  check_video_format (video_formats[4], 3, 5000, false);
}
GST_END_TEST;

namespace {
void check_block_format (GstVideoFormat format, int width, int height);
}  // namespace

/* Each sort of the device sort, forced through GST_OPENCL_VARIANT_SORT (read when the element
 * builds its sort), gives the same results; a name that is no sort is an element error. */
GST_START_TEST (test_forced_sorts)
{
  for (const char *sort : { "bitonic", "radix", "onesweep" }) {
    g_setenv ("GST_OPENCL_VARIANT_SORT", sort, TRUE);
    check_tensors<int32_t> ();
    check_tensors<float> ();
    check_video_format (video_formats[0], 300, 4, false);
    check_video_format (video_formats[4], 37, 23, false);
    check_block_format (GST_VIDEO_FORMAT_P010_10LE, 65, 49);
  }

  g_setenv ("GST_OPENCL_VARIANT_SORT", "quick", TRUE);
  Harness harness;
  gst_harness_set_src_caps_str (harness.h, tensor_caps ("int32", 16, 1).c_str ());
  GstBuffer *buffer = gst_buffer_new_allocate (nullptr, 64, nullptr);
  gst_buffer_memset (buffer, 0, 0, 64);
  fail_unless_equals_int (gst_harness_push (harness.h, buffer), GST_FLOW_ERROR);
  g_unsetenv ("GST_OPENCL_VARIANT_SORT");
  std::string error = harness.error ();
  fail_unless (error.find ("GST_OPENCL_VARIANT_SORT=quick") != std::string::npos, "%s",
      error.c_str ());
}
GST_END_TEST;

GST_START_TEST (test_properties_and_kernel_time)
{
  GstElement *sort = gst_element_factory_make ("openclsort", nullptr);
  fail_unless (sort != nullptr);
  gchar *name = nullptr;
  guint64 kernel_ns = 1;
  g_object_get (sort, "device-name", &name, "kernel-time", &kernel_ns, nullptr);
  fail_unless (name == nullptr);
  fail_unless_equals_uint64 (kernel_ns, 0);
  for (auto property : { "order", "direction", "key" }) {
    GParamSpec *pspec = g_object_class_find_property (G_OBJECT_GET_CLASS (sort), property);
    fail_unless (pspec != nullptr && (pspec->flags & GST_PARAM_MUTABLE_PLAYING), "%s", property);
  }
  gst_object_unref (sort);

  Harness harness;
  gst_harness_set_src_caps_str (harness.h, tensor_caps ("float32", 5000, 2).c_str ());
  auto values = random_values<float> (10000, 9, true);
  push_and_check (harness, values, 5000, false, "random");
  g_object_get (harness.h->element, "device-name", &name, "kernel-time", &kernel_ns, nullptr);
  fail_unless (name != nullptr && name[0] != '\0');
  fail_unless (kernel_ns > 0, "kernel-time is 0 after a sort");
  g_free (name);
}
GST_END_TEST;

GST_START_TEST (test_pipelines)
{
  const char *lines[] = {
    "videotestsrc num-buffers=3 pattern=smpte ! video/x-raw,format=BGRx,width=160,height=90 ! "
        "openclsort key=red direction=columns order=descending ! fakesink",
    "videotestsrc num-buffers=3 ! video/x-raw,format=GRAY8,width=33,height=17 ! openclsort ! "
        "fakesink",
    "videotestsrc num-buffers=3 ! video/x-raw,format=NV12,width=65,height=49 ! "
        "openclsort direction=columns ! fakesink",
    "videotestsrc num-buffers=3 ! video/x-raw,format=P010_10LE,width=33,height=17 ! "
        "openclsort order=descending ! fakesink",
    "videotestsrc num-buffers=3 ! video/x-raw,format=RGBA64_LE,width=33,height=17 ! "
        "openclsort key=green ! fakesink",
  };
  for (const char *line : lines) {
    std::string error = testutil::run_pipeline (line);
    fail_unless (error.empty (), "%s: %s", line, error.c_str ());
  }
}
GST_END_TEST;

GST_START_TEST (test_wrong_buffer_size)
{
  Harness harness;
  gst_harness_set_src_caps_str (harness.h, tensor_caps ("int32", 16, 1).c_str ());
  GstBuffer *short_buffer = gst_buffer_new_allocate (nullptr, 40, nullptr);
  gst_buffer_memset (short_buffer, 0, 0, 40);
  fail_unless_equals_int (gst_harness_push (harness.h, short_buffer), GST_FLOW_ERROR);
  std::string error = harness.error ();
  fail_unless (error.find ("wrong buffer size") != std::string::npos, "%s", error.c_str ());
  fail_unless (error.find ("40 bytes") != std::string::npos, "%s", error.c_str ());

  /* The element carries on with the next well-formed buffer. */
  push_and_check (harness, random_values<int32_t> (16, 4, false), 16, false, "after an error");
}
GST_END_TEST;

GST_START_TEST (test_too_large)
{
  /* Read when the context is created: a 64 KiB device cannot hold 20000 padded values. */
  g_setenv ("GST_OPENCL_MAX_ALLOC_BYTES", "65536", TRUE);
  Harness harness;
  gst_harness_set_src_caps_str (harness.h, tensor_caps ("int32", 20000, 1).c_str ());
  GstBuffer *buffer = gst_buffer_new_allocate (nullptr, 80000, nullptr);
  fail_if (gst_harness_push (harness.h, buffer) == GST_FLOW_OK);
  std::string error = harness.error ();
  g_unsetenv ("GST_OPENCL_MAX_ALLOC_BYTES");
  fail_unless (error.find ("20000") != std::string::npos &&
      error.find ("allows") != std::string::npos, "%s", error.c_str ());
}
GST_END_TEST;

GST_START_TEST (test_unsupported_caps)
{
  const char *caps[] = {
    "other/tensors,format=static,num_tensors=1,types=uint8,dimensions=(string)16:4,"
        "framerate=(fraction)0/1",
    "other/tensors,format=static,num_tensors=1,types=float64,dimensions=(string)8:1,"
        "framerate=(fraction)0/1",
    "other/tensors,format=static,num_tensors=2,types=(string)int32.int32,"
        "dimensions=(string)8:1.8:1,framerate=(fraction)0/1",
    "video/x-raw,format=Y444,width=8,height=8,framerate=0/1",
  };
  for (const char *c : caps) {
    Harness harness;
    gst_harness_set_src_caps_str (harness.h, c);
    GstBuffer *buffer = gst_buffer_new_allocate (nullptr, 256, nullptr);
    fail_if (gst_harness_push (harness.h, buffer) == GST_FLOW_OK, "%s was accepted", c);
    fail_unless_equals_int (gst_harness_buffers_received (harness.h), 0);
  }
}
GST_END_TEST;

namespace {

/* A 4:2:0 frame in host memory, every plane's rows `padding` bytes longer than GStreamer's
 * default stride; the padding holds 0xA5 (testutil::PlanarFrame), read back from an output
 * buffer too. */
struct PlanarFrame : testutil::PlanarFrame
{
  PlanarFrame (GstVideoFormat format, int width, int height, int padding)
    : testutil::PlanarFrame (format, width, height, padding) { }

  /* Copies the samples of an output buffer (mapped as frames of `caps_info`, at the strides of
   * its video meta) into this frame's layout. */
  void read (GstBuffer * buffer, const GstVideoInfo * caps_info)
  {
    GstVideoFrame mapped;
    fail_unless (gst_video_frame_map (&mapped, caps_info, buffer, GST_MAP_READ));
    for (guint plane = 0; plane < GST_VIDEO_INFO_N_PLANES (&info); plane++) {
      const auto *data = static_cast<const uint8_t *> (GST_VIDEO_FRAME_PLANE_DATA (&mapped,
              plane));
      for (int y = 0; y < rows (plane); y++)
        std::memcpy (row (plane, y), data + (size_t) y * GST_VIDEO_FRAME_PLANE_STRIDE (&mapped,
                plane), row_bytes (plane));
    }
    gst_video_frame_unmap (&mapped);
  }
};

/* Random: every sample's word random (P010's 6 low bits too, which keys must ignore);
 * Gradient: luma ramps along x and y, chroma the other way round; FewLevels: luma codes of three
 * levels (many equal keys), chroma random; ConstantLuma: one luma code, chroma random; Constant:
 * every sample one word. A stable sort leaves the last two as they are. */
enum class BlockContent { Random, Gradient, FewLevels, ConstantLuma, Constant };

const char *
block_content_name (BlockContent content)
{
  static const char *const names[] = { "random", "gradient", "few levels", "constant luma",
    "constant" };
  return names[(int) content];
}

void
fill_blocks (PlanarFrame & frame, BlockContent content, uint32_t seed)
{
  std::mt19937 random (seed);
  const int depth = GST_VIDEO_INFO_COMP_DEPTH (&frame.info, 0);
  const int shift = GST_VIDEO_FORMAT_INFO_SHIFT (frame.info.finfo, 0);
  const uint32_t top = (1u << depth) - 1;
  const uint32_t word_mask = frame.sample_bytes () == 2 ? 0xFFFFu : 0xFFu;
  const uint32_t levels[] = { top / 5, top / 2, top - top / 7 };
  for (int comp = 0; comp < 3; comp++) {
    const int width = GST_VIDEO_INFO_COMP_WIDTH (&frame.info, comp);
    const int height = GST_VIDEO_INFO_COMP_HEIGHT (&frame.info, comp);
    for (int y = 0; y < height; y++) {
      for (int x = 0; x < width; x++) {
        const uint32_t ramp = comp == 0 ? (uint32_t) (x * 3 + y) : (uint32_t) (x + 5 * y);
        uint32_t word = random () & word_mask;
        if (content == BlockContent::Gradient)
          word = (ramp * top / (uint32_t) (4 * width + 6 * height)) << shift;
        else if (content == BlockContent::Constant)
          word = (top / 3 + 7 * comp) << shift;
        else if (comp == 0 && content == BlockContent::FewLevels)
          word = levels[random () % 3] << shift;
        else if (comp == 0 && content == BlockContent::ConstantLuma)
          word = (top / 3) << shift;
        frame.set (comp, x, y, word);
      }
    }
  }
}

/* The first sample byte where two frames of one layout differ, "" when none does. */
std::string
first_difference (const PlanarFrame & a, const PlanarFrame & b)
{
  for (guint plane = 0; plane < GST_VIDEO_INFO_N_PLANES (&a.info); plane++) {
    for (int y = 0; y < a.rows (plane); y++) {
      for (int i = 0; i < a.row_bytes (plane); i++) {
        if (a.row (plane, y)[i] != b.row (plane, y)[i])
          return "plane " + std::to_string (plane) + " row " + std::to_string (y) + " byte " +
              std::to_string (i) + ": " + std::to_string (a.row (plane, y)[i]) + ", expected " +
              std::to_string (b.row (plane, y)[i]);
      }
    }
  }
  return "";
}

/* Pushes one frame through the running element and checks it against the reference. */
void
check_block_frame (Harness & harness, const GstVideoInfo * caps_info, const PlanarFrame & in,
    bool columns, bool descending, const std::string & what, bool unchanged)
{
  fail_unless_equals_int (gst_harness_push (harness.h, in.to_buffer ()), GST_FLOW_OK);
  GstBuffer *out_buffer = gst_harness_pull (harness.h);
  fail_unless (out_buffer != nullptr);
  PlanarFrame out = in;
  std::fill (out.bytes.begin (), out.bytes.end (), 0xA5);
  out.read (out_buffer, caps_info);
  gst_buffer_unref (out_buffer);
  PlanarFrame expected = in;
  reference::sort_blocks (in.info, in.bytes.data (), expected.bytes.data (), columns,
      descending);
  std::string difference = first_difference (out, expected);
  fail_unless (difference.empty (), "%s differs from the block sort: %s", what.c_str (),
      difference.c_str ());
  if (unchanged) {
    difference = first_difference (out, in);
    fail_unless (difference.empty (), "%s was not left as it was: %s", what.c_str (),
        difference.c_str ());
  }
}

/* Every direction x order x content over `width` x `height` frames of a 4:2:0 format, the
 * properties of one running element changed between buffers. */
void
check_block_format (GstVideoFormat format, int width, int height)
{
  Harness harness;
  GstVideoInfo info;
  gst_video_info_set_format (&info, format, width, height);
  gst_harness_set_src_caps (harness.h, gst_video_info_to_caps (&info));
  uint32_t seed = 11;
  for (bool columns : { false, true }) {
    for (bool descending : { false, true }) {
      gst_util_set_object_arg (G_OBJECT (harness.h->element), "direction",
          columns ? "columns" : "rows");
      gst_util_set_object_arg (G_OBJECT (harness.h->element), "order",
          descending ? "descending" : "ascending");
      for (auto content : { BlockContent::Random, BlockContent::Gradient,
              BlockContent::FewLevels, BlockContent::ConstantLuma, BlockContent::Constant }) {
        PlanarFrame in (format, width, height, 12);
        fill_blocks (in, content, seed++);
        std::string what = std::string (gst_video_format_to_string (format)) + " " +
            std::to_string (width) + "x" + std::to_string (height) + " direction=" +
            (columns ? "columns" : "rows") + " order=" + (descending ? "descending" :
            "ascending") + " " + block_content_name (content);
        check_block_frame (harness, &info, in, columns, descending, what,
            content == BlockContent::ConstantLuma || content == BlockContent::Constant);
      }
    }
  }
  const std::string error = harness.error ();
  fail_unless_equals_string (error.c_str (), "");
}

const GstVideoFormat block_formats[] = { GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_I420,
  GST_VIDEO_FORMAT_P010_10LE };

}  // namespace

/* Odd width and height (the last single row or column a line of its own, the last half block
 * left in place), even sizes, and the smallest frames: no whole block, one block, one line;
 * 641x479 too in the full suite. */
GST_START_TEST (test_video_yuv_blocks)
{
  struct Size
  {
    int width, height;
  } sizes[] = { { 65, 49 }, { 36, 22 }, { 1, 1 }, { 2, 2 }, { 3, 1 }, { 1, 3 }, { 5, 4 },
    { 4, 5 } };
  for (GstVideoFormat format : block_formats) {
    for (const auto & size : sizes)
      check_block_format (format, size.width, size.height);
    /* The odd size, in the full suite. */
    if (testutil::full_suite ())
      check_block_format (format, 641, 479);
  }
}
GST_END_TEST;

/* Lines of blocks longer than one work-group's chunk take the global passes. */
GST_START_TEST (test_video_yuv_long_lines)
{
  check_block_format (GST_VIDEO_FORMAT_NV12, 4501, 3);
  check_block_format (GST_VIDEO_FORMAT_P010_10LE, 3, 5001);
}
GST_END_TEST;

/* The 2x2 blocks sort by luma only: a colour key is an element error naming the key and the
 * format; with key=luma again the element carries on. */
GST_START_TEST (test_video_yuv_colour_key)
{
  for (GstVideoFormat format : block_formats) {
    Harness harness;
    GstVideoInfo info;
    gst_video_info_set_format (&info, format, 9, 7);
    gst_harness_set_src_caps (harness.h, gst_video_info_to_caps (&info));
    PlanarFrame in (format, 9, 7, 0);
    fill_blocks (in, BlockContent::Random, 5);
    gst_util_set_object_arg (G_OBJECT (harness.h->element), "key", "green");
    fail_unless_equals_int (gst_harness_push (harness.h, in.to_buffer ()), GST_FLOW_ERROR);
    std::string error = harness.error ();
    TESTUTIL_EXPECT_ERROR (error, "key=green");
    TESTUTIL_EXPECT_ERROR (error, gst_video_format_to_string (format));
    gst_util_set_object_arg (G_OBJECT (harness.h->element), "key", "luma");
    check_block_frame (harness, &info, in, false, false, "after the error", false);
  }
}
GST_END_TEST;

static Suite *
sort_suite (void)
{
  return TESTUTIL_SUITE ("openclsort", 600,
      test_tensors_int32, test_tensors_uint32, test_tensors_float32,
      test_video_every_format_key_direction_order, test_video_long_lines, test_video_yuv_blocks,
      test_video_yuv_long_lines, test_video_yuv_colour_key, test_forced_sorts,
      test_properties_and_kernel_time, test_pipelines, test_wrong_buffer_size, test_too_large,
      test_unsupported_caps);
}

GST_CHECK_MAIN (sort);
