/* gst-opencl tests: openclsort. Arrays (other/tensors) against std::sort with the same strict
 * total order, bit for bit, for every type and order, several lengths and batches; video frames
 * of every format, key, direction and order against a stable CPU pixel sort, plus the
 * permutation-and-order property checked on its own; properties changed while playing; errors
 * for wrong-sized buffers, too-large tensors and unsupported caps.
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
};

const VideoFormat video_formats[] = {
  { GST_VIDEO_FORMAT_RGBA, 4, false, false },
  { GST_VIDEO_FORMAT_BGRA, 4, false, true },
  { GST_VIDEO_FORMAT_RGBx, 4, false, false },
  { GST_VIDEO_FORMAT_BGRx, 4, false, true },
  { GST_VIDEO_FORMAT_GRAY8, 1, true, false },
};

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
            format.bgr, key);
        int current = reference::pixel_key (after[position].data (), format.gray, format.bgr,
            key);
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
        for (auto pattern : { testutil::Pattern::Random, testutil::Pattern::Flat }) {
          /* Padded rows: the element must honour the stride of the video meta. */
          testutil::Frame in (width, height, format.bytes_per_pixel,
              width * format.bytes_per_pixel + 12);
          testutil::fill (in, pattern, seed++);
          fail_unless_equals_int (gst_harness_push (harness.h, testutil::to_buffer (in,
                      format.format)), GST_FLOW_OK);
          GstBuffer *out_buffer = gst_harness_pull (harness.h);
          fail_unless (out_buffer != nullptr);
          testutil::Frame out = testutil::from_buffer (out_buffer, &info);
          gst_buffer_unref (out_buffer);

          std::string what = std::string (format_name) + " " + std::to_string (width) + "x" +
              std::to_string (height) + " key=" + key.name + " direction=" +
              (columns ? "columns" : "rows") + " order=" + (descending ? "descending" :
              "ascending") + " " + testutil::pattern_name (pattern);
          check_permutation_and_order (in, out, format, key.key, columns, descending, what);
          testutil::Frame expected = reference::sort_pixels (in, format.gray, format.bgr,
              key.key, columns, descending);
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
    "video/x-raw,format=I420,width=8,height=8,framerate=0/1",
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

static Suite *
sort_suite (void)
{
  return TESTUTIL_SUITE ("openclsort", 600,
      test_tensors_int32, test_tensors_uint32, test_tensors_float32,
      test_video_every_format_key_direction_order, test_video_long_lines, test_forced_sorts,
      test_properties_and_kernel_time, test_pipelines, test_wrong_buffer_size, test_too_large,
      test_unsupported_caps);
}

GST_CHECK_MAIN (sort);
