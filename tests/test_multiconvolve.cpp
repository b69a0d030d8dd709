/* gst-opencl tests: openclmulticonvolve against the float64 reference, through GstHarness.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Float outputs must lie within 1e-4 x sum |f| x 255 of the reference, video outputs within 1.
 * One variant is forced (GST_OPENCL_VARIANT_CONVOLUTION) so each filter shape costs one program
 * build; test_gpu_layouts forces the layouts the GPU candidates use (blocks of filters, 2D blocks
 * of outputs, the staged input) on tensor and video output; test_tuning lets the element time
 * its candidates; test_mma_variants forces the tensor-core kernel. The quick suite
 * (testutil::full_suite ()) builds fewer of those programs: fewer kernel sizes, filter counts and
 * layouts. */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include <glib/gstdio.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "common/suite.h"
#include "common/element_checks.h"
#include "common/testutil.h"
#include "reference/convolution_reference.h"

namespace {

constexpr const char *FORCED_VARIANT = "4:8x4";
constexpr const char *VARIANT_VARIABLE = "GST_OPENCL_VARIANT_CONVOLUTION";

struct Bank
{
  int n = 1;
  int k = 3;
  int dims = 2;
  std::vector<double> filters;  /* n x k^dims, filter index fastest */
};

Bank
random_bank (int n, int k, int dims, uint32_t seed)
{
  Bank bank { n, k, dims, {} };
  size_t count = (size_t) n;
  for (int d = 0; d < dims; d++)
    count *= (size_t) k;
  std::mt19937 random (seed);
  std::uniform_real_distribution<double> value (-1.0, 1.0);
  bank.filters.resize (count);
  for (double &v : bank.filters)
    v = (float) value (random);  /* exactly representable: the element gets the same taps */
  return bank;
}

/* A harness whose element has the bank; caps are set by the caller afterwards. */
GstHarness *
new_harness (const Bank & bank, bool use_kernels_property = true)
{
  GstHarness *h = gst_harness_new ("openclmulticonvolve");
  g_object_set (h->element, "num-kernels", bank.n, "kernel-size", bank.k, "dims", bank.dims,
      nullptr);
  if (use_kernels_property)
    testutil::set_float_array (h->element, "kernels", bank.filters);
  return h;
}

std::vector<uint8_t>
random_bytes (size_t count, uint32_t seed)
{
  std::mt19937 random (seed);
  std::uniform_int_distribution<int> byte (0, 255);
  std::vector<uint8_t> bytes (count);
  for (auto &b : bytes)
    b = (uint8_t) byte (random);
  return bytes;
}

std::vector<double>
to_doubles (const std::vector<uint8_t> & bytes)
{
  return std::vector<double> (bytes.begin (), bytes.end ());
}

void
check_floats (GstBuffer * out, const std::vector<double> & expected, const Bank & bank,
    const std::string & label)
{
  checks::check_convolution_floats (out, expected, bank.filters, bank.n, label);
}

std::string
tensor_caps (int w, int h, int d)
{
  return "other/tensors,format=static,num_tensors=1,types=uint8,dimensions=" +
      std::to_string (w) + ":" + std::to_string (h) + ":" + std::to_string (d) +
      ",framerate=0/1";
}

/* One volume through the element; the output is checked against the reference. */
void
check_volume (const Bank & bank, int w, int h, int d, uint32_t seed)
{
  GstHarness *harness = new_harness (bank);
  gst_harness_set_src_caps_str (harness, tensor_caps (w, h, d).c_str ());
  auto volume = random_bytes ((size_t) w * h * d, seed);
  GstBuffer *in = gst_buffer_new_allocate (nullptr, volume.size (), nullptr);
  gst_buffer_fill (in, 0, volume.data (), volume.size ());
  GstBuffer *out = gst_harness_push_and_pull (harness, in);

  GstPad *src_pad = gst_element_get_static_pad (harness->element, "src");
  GstCaps *caps = gst_pad_get_current_caps (src_pad);
  gst_object_unref (src_pad);
  gchar *caps_text = gst_caps_to_string (caps);
  std::string expected_dims = "dimensions=(string)" + std::to_string (bank.n) + ":" +
      std::to_string (w) + ":" + std::to_string (h) + ":" + std::to_string (d);
  fail_unless (strstr (caps_text, expected_dims.c_str ()) && strstr (caps_text, "float32"),
      "output caps %s", caps_text);
  g_free (caps_text);
  gst_caps_unref (caps);

  auto expected = reference::correlate (to_doubles (volume), w, h, d, bank.filters, bank.n,
      bank.k, bank.k, bank.dims == 3 ? bank.k : 1);
  std::string label = std::to_string (bank.n) + " filters of " + std::to_string (bank.k) +
      "^" + std::to_string (bank.dims) + " on " + std::to_string (w) + "x" + std::to_string (h) +
      "x" + std::to_string (d);
  check_floats (out, expected, bank, label);
  gst_buffer_unref (out);
  gst_harness_teardown (harness);
}

/* A GRAY8 frame (rows `stride` bytes apart) through the element, float output. */
void
check_gray_frame (const Bank & bank, int w, int h, int stride, uint32_t seed)
{
  GstHarness *harness = new_harness (bank);
  GstVideoInfo info;
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, w, h);
  gst_harness_set_src_caps (harness, gst_video_info_to_caps (&info));
  testutil::Frame frame (w, h, 1, stride);
  testutil::fill (frame, testutil::Pattern::Random, seed);
  GstBuffer *out = gst_harness_push_and_pull (harness,
      testutil::to_buffer (frame, GST_VIDEO_FORMAT_GRAY8));
  std::vector<double> pixels;
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      pixels.push_back (frame.row (y)[x]);
  auto expected = reference::correlate (pixels, w, h, 1, bank.filters, bank.n, bank.k, bank.k,
      bank.dims == 3 ? bank.k : 1);
  check_floats (out, expected, bank, "GRAY8 " + std::to_string (w) + "x" + std::to_string (h) +
      " stride " + std::to_string (stride) + ", " + std::to_string (bank.n) + " filters of " +
      std::to_string (bank.k));
  gst_buffer_unref (out);
  gst_harness_teardown (harness);
}

/* One frame of `format` (its luma values `luma`, row by row) in, video out (GRAY8 for one
 * filter, else RGBA), within 1 of the reference's response x scale + offset. Takes `in`. */
void
check_video_frame (const Bank & bank, GstVideoFormat format, int w, int h, double scale,
    double offset, GstBuffer * in, const std::vector<double> & luma)
{
  GstHarness *harness = new_harness (bank);
  g_object_set (harness->element, "scale", scale, "offset", offset, nullptr);
  const bool gray = bank.n == 1;
  gst_harness_set_sink_caps_str (harness, gray ? "video/x-raw,format=GRAY8" :
      "video/x-raw,format=RGBA");
  GstVideoInfo in_info, out_info;
  gst_video_info_set_format (&in_info, format, w, h);
  gst_video_info_set_format (&out_info, gray ? GST_VIDEO_FORMAT_GRAY8 : GST_VIDEO_FORMAT_RGBA,
      w, h);
  gst_harness_set_src_caps (harness, gst_video_info_to_caps (&in_info));
  GstBuffer *out = gst_harness_push_and_pull (harness, in);
  fail_unless (out != nullptr);
  testutil::Frame actual = testutil::from_buffer (out, &out_info);
  gst_buffer_unref (out);
  auto responses = reference::correlate (luma, w, h, 1, bank.filters, bank.n, bank.k,
      bank.k, 1);
  testutil::Frame expected (w, h, gray ? 1 : 4);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      for (int c = 0; c < expected.bytes_per_pixel; c++)
        expected.row (y)[x * expected.bytes_per_pixel + c] = c < bank.n ?
            reference::to_byte (responses[((size_t) y * w + x) * bank.n + c] * scale + offset) :
            (c == 3 ? 255 : 0);
  auto difference = testutil::compare (actual, expected, std::vector<int> (4, 1));
  fail_unless (difference.over == 0, "%s in, video output, %d filters: %s",
      gst_video_format_to_string (format), bank.n, testutil::describe (difference).c_str ());
  gst_harness_teardown (harness);
}

/* GRAY8 in, video out (GRAY8 for one filter, else RGBA) after scale and offset. */
void
check_video_output (const Bank & bank, int w, int h, double scale, double offset,
    uint32_t seed)
{
  testutil::Frame frame (w, h, 1);
  testutil::fill (frame, testutil::Pattern::Edges, seed);
  std::vector<double> pixels;
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      pixels.push_back (frame.row (y)[x]);
  check_video_frame (bank, GST_VIDEO_FORMAT_GRAY8, w, h, scale, offset,
      testutil::to_buffer (frame, GST_VIDEO_FORMAT_GRAY8), pixels);
}

/* What a luma frame holds (see check_luma_frame). */
enum class Luma { Random, Ramp, Zero, Top };

/* A frame of `format` (GRAY8, NV12, I420, GRAY16_LE, P010_10LE) whose rows are `padding` bytes
 * longer than the default, the padding and the chroma random, and the luma it stands for on
 * the element's 0..255 scale: bytes as they are, GRAY16 words / 257, P010 (word >> 6) x 255 /
 * 1023. Ramp: every code of the format in turn (x + y x width); Zero, Top: 0 and the largest
 * code (P010's with its low bits 0); Random: random bytes (P010's low bits too). */
struct LumaFrame : testutil::PlanarFrame
{
  std::vector<double> luma;

  LumaFrame (GstVideoFormat format, int w, int h, int padding, Luma content, uint32_t seed)
    : testutil::PlanarFrame (format, w, h, padding)
  {
    bytes = random_bytes (bytes.size (), seed);
    const int depth = GST_VIDEO_INFO_COMP_DEPTH (&info, 0);
    const int shift = GST_VIDEO_FORMAT_INFO_SHIFT (info.finfo, 0);
    const bool words = depth > 8;
    for (int y = 0; y < h; y++) {
      uint8_t *row = bytes.data () + (size_t) y * info.stride[0];
      for (int x = 0; x < w; x++) {
        uint32_t code = (uint32_t) y * w + x;
        uint32_t word = words ? row[2 * x] | (row[2 * x + 1] << 8) : row[x];
        if (content != Luma::Random) {
          code = content == Luma::Ramp ? code % (1u << depth) : content == Luma::Top ?
              (1u << depth) - 1 : 0;
          word = code << shift;
          if (words) {
            row[2 * x] = (uint8_t) word;
            row[2 * x + 1] = (uint8_t) (word >> 8);
          } else {
            row[x] = (uint8_t) word;
          }
        }
        const uint32_t value = word >> shift;
        luma.push_back (depth == 16 ? value / 257.0 : depth == 10 ? value * 255.0 / 1023.0 :
            value);
      }
    }
  }
};

const GstVideoFormat luma_formats[] = { GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_I420,
  GST_VIDEO_FORMAT_GRAY16_LE, GST_VIDEO_FORMAT_P010_10LE };

/* One frame of `format` through the element, float output, against the reference on the luma
 * the frame stands for. */
void
check_luma_frame (const Bank & bank, GstVideoFormat format, int w, int h, int padding,
    Luma content, uint32_t seed)
{
  GstHarness *harness = new_harness (bank);
  GstVideoInfo caps_info;
  gst_video_info_set_format (&caps_info, format, w, h);
  gst_harness_set_src_caps (harness, gst_video_info_to_caps (&caps_info));
  LumaFrame frame (format, w, h, padding, content, seed);
  GstBuffer *out = gst_harness_push_and_pull (harness, frame.to_buffer ());
  auto expected = reference::correlate (frame.luma, w, h, 1, bank.filters, bank.n, bank.k,
      bank.k, 1);
  static const char *const contents[] = { "random", "ramp", "zero", "top" };
  check_floats (out, expected, bank, std::string (gst_video_format_to_string (format)) + " " +
      std::to_string (w) + "x" + std::to_string (h) + " padding " + std::to_string (padding) +
      " " + contents[(int) content] + ", " + std::to_string (bank.n) + " filters of " +
      std::to_string (bank.k));
  gst_buffer_unref (out);
  gst_harness_teardown (harness);
}

/* One frame of `format` in, video out (GRAY8 for one filter, else RGBA), within 1 of the
 * reference's response x scale + offset. */
void
check_luma_video_output (const Bank & bank, GstVideoFormat format, int w, int h, double scale,
    double offset, uint32_t seed)
{
  LumaFrame frame (format, w, h, 4, Luma::Random, seed);
  check_video_frame (bank, format, w, h, scale, offset, frame.to_buffer (), frame.luma);
}

std::string
pipeline_error (const std::string & element_settings)
{
  return testutil::run_pipeline ("videotestsrc num-buffers=2 ! video/x-raw,format=GRAY8,"
      "width=16,height=8 ! openclmulticonvolve " + element_settings + " ! fakesink");
}

std::string
write_filters (const std::vector<double> & values)
{
  gchar *path = nullptr;
  gint fd = g_file_open_tmp ("multiconvolve-XXXXXX.raw", &path, nullptr);
  fail_unless (fd >= 0);
  close (fd);
  std::vector<guint32> words;
  for (double v : values) {
    float f = (float) v;
    guint32 bits;
    memcpy (&bits, &f, sizeof bits);
    words.push_back (GUINT32_TO_LE (bits));
  }
  fail_unless (g_file_set_contents (path, reinterpret_cast<const gchar *> (words.data ()),
          words.size () * sizeof (guint32), nullptr));
  std::string result (path);
  g_free (path);
  return result;
}

}  // namespace

GST_START_TEST (test_defaults)
{
  GstElement *element = gst_element_factory_make ("openclmulticonvolve", nullptr);
  fail_unless (element != nullptr);
  gint n, k, dims;
  gdouble scale, offset;
  gchar *file = nullptr;
  g_object_get (element, "num-kernels", &n, "kernel-size", &k, "dims", &dims, "scale", &scale,
      "offset", &offset, "kernels-file", &file, nullptr);
  fail_unless_equals_int (n, 1);
  fail_unless_equals_int (k, 3);
  fail_unless_equals_int (dims, 2);
  fail_unless_equals_float (scale, 1.0);
  fail_unless_equals_float (offset, 0.0);
  fail_unless (file == nullptr);
  gst_object_unref (element);
}
GST_END_TEST;

GST_START_TEST (test_every_kernel_size)
{
  /* Every (odd) k = 1 .. 15 for three 3D filters on a volume smaller than the largest filters, so every
   * face, edge and corner clamps; 1 and 15 in the quick suite. */
  for (int k : testutil::full_or_quick ({ 1, 3, 5, 7, 9, 11, 13, 15 }, { 1, 15 }))
    check_volume (random_bank (3, k, 3, 100 + k), 10, 9, 7, 200 + k);
}
GST_END_TEST;

GST_START_TEST (test_filter_counts)
{
  uint32_t seed = 300;
  for (int n : { 1, 3, 8, 32 }) {
    /* Each count is a program of its own: the quick suite keeps 32 (3 and 8 filters stay
     * below). */
    if (testutil::full_suite () || n == 32) {
      check_volume (random_bank (n, 3, 3, seed), 12, 7, 5, seed + 1);
      check_gray_frame (random_bank (n, 5, 2, seed + 2), 19, 9, 0, seed + 3);
    }
    seed += 10;
  }
  /* dims=2 on a volume: each slice on its own. */
  check_volume (random_bank (8, 5, 2, 350), 11, 6, 4, 351);
  /* Padded rows and a frame narrower than the unroll. */
  check_gray_frame (random_bank (3, 3, 2, 360), 13, 5, 29, 361);
  check_gray_frame (random_bank (3, 3, 2, 362), 2, 3, 0, 363);
}
GST_END_TEST;

GST_START_TEST (test_video_output)
{
  check_video_output (random_bank (1, 3, 2, 400), 23, 11, 0.5, 20.0, 401);
  check_video_output (random_bank (4, 3, 2, 402), 23, 11, 0.25, 128.0, 403);
  check_video_output (random_bank (3, 3, 2, 404), 9, 7, 1.0, 0.0, 405);
}
GST_END_TEST;

/* The luma of NV12, I420, GRAY16_LE and P010_10LE: random, ramp, zero and top frames, rows
 * padded (by 6 bytes: 16-bit rows at odd word offsets too) and not, an odd size and 641x479; an
 * identity filter, where the response is the converted luma itself (a wrong scale of 16-bit
 * luma, 1/256 for 1/257 or 255/1024 for 255/1023, is more than the bound there), and a random
 * bank of two. */
GST_START_TEST (test_luma_formats)
{
  Bank identity { 1, 3, 2, { 0, 0, 0, 0, 1, 0, 0, 0, 0 } };
  const Bank bank = random_bank (2, 3, 2, 70);
  uint32_t seed = 7000;
  for (GstVideoFormat format : luma_formats) {
    for (Luma content : { Luma::Random, Luma::Ramp, Luma::Zero, Luma::Top }) {
      for (int padding : { 0, 6 }) {
        check_luma_frame (identity, format, 37, 29, padding, content, seed++);
        check_luma_frame (bank, format, 37, 29, padding, content, seed++);
      }
    }
    /* 263 x 251: every 16-bit code in the ramp. */
    check_luma_frame (identity, format, 263, 251, 2, Luma::Ramp, seed++);
    check_luma_frame (bank, format, 641, 479, 10, Luma::Random, seed++);
  }
}
GST_END_TEST;

/* The luma formats in, GRAY8 (one filter) and RGBA (three) out. */
GST_START_TEST (test_luma_formats_video_output)
{
  uint32_t seed = 7500;
  for (GstVideoFormat format : luma_formats) {
    check_luma_video_output (random_bank (1, 3, 2, seed), format, 33, 17, 0.5, 128, seed + 1);
    check_luma_video_output (random_bank (3, 3, 2, seed + 2), format, 33, 17, 0.25, 100,
        seed + 3);
    seed += 4;
  }
}
GST_END_TEST;

GST_START_TEST (test_kernels_file)
{
  Bank bank = random_bank (4, 3, 3, 500);
  std::string path = write_filters (bank.filters);
  GstHarness *h = new_harness (bank, false);
  g_object_set (h->element, "kernels-file", path.c_str (), nullptr);
  gst_harness_set_src_caps_str (h, tensor_caps (8, 6, 5).c_str ());
  auto volume = random_bytes (8 * 6 * 5, 501);
  GstBuffer *in = gst_buffer_new_allocate (nullptr, volume.size (), nullptr);
  gst_buffer_fill (in, 0, volume.data (), volume.size ());
  GstBuffer *out = gst_harness_push_and_pull (h, in);
  check_floats (out, reference::correlate (to_doubles (volume), 8, 6, 5, bank.filters, 4, 3, 3,
          3), bank, "kernels-file");
  gst_buffer_unref (out);
  gst_harness_teardown (h);
  g_remove (path.c_str ());
}
GST_END_TEST;

GST_START_TEST (test_bad_settings_are_errors)
{
  std::string error = pipeline_error ("num-kernels=2 kernel-size=3 kernels=\"<1.0, 2.0>\"");
  TESTUTIL_EXPECT_ERROR (error, "kernels has 2 values, but 2 filters of 3^2 taps need 18");
  error = pipeline_error ("");
  TESTUTIL_EXPECT_ERROR (error, "no filters");
  error = pipeline_error ("kernels-file=/nonexistent/filters.raw");
  TESTUTIL_EXPECT_ERROR (error, "cannot read kernels-file \"/nonexistent/filters.raw\"");
  std::string path = write_filters (std::vector<double> (10, 0.5));
  error = pipeline_error ("kernels-file=" + path);
  TESTUTIL_EXPECT_ERROR (error, "holds 40 bytes");
  g_remove (path.c_str ());
  /* Read through the bank's size and no further: a file without end is refused unread. */
  error = pipeline_error ("kernels-file=/dev/zero");
  TESTUTIL_EXPECT_ERROR (error, "kernels-file \"/dev/zero\" holds more than");
  error = pipeline_error ("kernels-file=/tmp");
  TESTUTIL_EXPECT_ERROR (error, "cannot read kernels-file \"/tmp\"");
  error = pipeline_error ("kernel-size=4 kernels=\"<1.0>\"");
  TESTUTIL_EXPECT_ERROR (error, "kernel-size must be odd");
  /* A volume buffer shorter than its caps say (longer is refused too: test_reliability). */
  error = testutil::run_pipeline ("fakesrc num-buffers=1 sizetype=fixed sizemax=100 "
      "filltype=zero ! " + tensor_caps (8, 8, 8) + " ! openclmulticonvolve kernel-size=1 "
      "kernels=\"<1.0>\" ! fakesink");
  TESTUTIL_EXPECT_ERROR (error, "does not match the 512-byte volume");
  TESTUTIL_EXPECT_NO_ERROR (pipeline_error ("kernel-size=1 kernels=\"<2.0>\""));
}
GST_END_TEST;

/* GRAY8 frames in OpenCL memory are copied on the device: the same responses as from the host. */
GST_START_TEST (test_opencl_memory_input)
{
  gchar *dir = g_dir_make_tmp ("multiconvolve-memory-XXXXXX", nullptr);
  std::string outputs[2];
  for (int on_device = 0; on_device < 2; on_device++) {
    std::string path = std::string (dir) + "/out.raw";
    std::string error = testutil::run_pipeline (std::string ("videotestsrc num-buffers=3 "
            "pattern=ball ! video/x-raw,format=GRAY8,width=37,height=9 ! ") +
        (on_device ? "openclupload ! " : "") + "openclmulticonvolve num-kernels=2 "
        "kernel-size=3 kernels=\"<1,-1, 2,0, 1,1, 0,-2, 0,0, 0,2, -1,-1, -2,0, -1,1>\" ! "
        "filesink location=" + path);
    fail_unless_equals_string (error.c_str (), "");
    gchar *contents = nullptr;
    gsize size = 0;
    fail_unless (g_file_get_contents (path.c_str (), &contents, &size, nullptr));
    g_remove (path.c_str ());
    fail_unless_equals_uint64 (size, 3 * 2 * 37 * 9 * sizeof (float));
    outputs[on_device].assign (contents, size);
    g_free (contents);
  }
  fail_unless (outputs[0] == outputs[1], "responses from OpenCL memory differ");
  g_rmdir (dir);
  g_free (dir);
}
GST_END_TEST;

GST_START_TEST (test_gpu_layouts)
{
  /* Sizes that are no multiple of any block, so every edge of a block is cut somewhere. The
   * quick suite takes one layout of each filter memory (local, global, constant), which between
   * them stage the input in none, one and two buffers, each on a volume of 8 filters, the
   * first on video output too (each is a program of its own). */
  uint32_t seed = 700;
  for (const char *variant : testutil::full_or_quick<const char *> ({ "4x2f8:16x8:local:tile",
              "8x2:16x8:tile", "4x4f4:8x8:constant:tile", "2x3f2:8x4:global",
              "3x2:4x4:local:tile", "4x2f8:16x8:local:tile2", "3x2:4x4:constant:tile2" },
          { "4x2f8:16x8:local:tile", "2x3f2:8x4:global", "3x2:4x4:constant:tile2" })) {
    g_setenv (VARIANT_VARIABLE, variant, TRUE);
    check_volume (random_bank (8, 3, 3, seed), 37, 11, 5, seed + 1);
    if (testutil::full_suite ()) {
      check_volume (random_bank (32, 3, 2, seed + 2), 21, 9, 3, seed + 3);
      check_gray_frame (random_bank (3, 5, 2, seed + 4), 19, 9, 23, seed + 5);
    }
    if (testutil::full_suite () || g_str_equal (variant, "4x2f8:16x8:local:tile"))
      check_video_output (random_bank (3, 3, 2, seed + 6), 23, 11, 0.25, 128.0, seed + 7);
    if (testutil::full_suite ())
      check_video_output (random_bank (1, 5, 2, seed + 8), 17, 6, 0.5, 20.0, seed + 9);
    seed += 10;
  }
  g_setenv (VARIANT_VARIABLE, FORCED_VARIANT, TRUE);
}
GST_END_TEST;

/* The tensor-core variants (emulated off NVIDIA's tensor cores) through the element: N = 1, 8
 * and 32, k = 3, 5 and 7, volumes and frames whose sizes cut every work-group; video output,
 * which they do not compute, is an error on the bus. */
GST_START_TEST (test_mma_variants)
{
  uint32_t seed = 800;
  /* Both fit 32 KiB of local memory (OpenCL's minimum, rusticl's llvmpipe) for every bank below;
   * all 32 filters in one warp of a 2x4 group would not. */
  for (const char *variant : { "mma:4f16:2x4", "mma:2f8:1x2:global" }) {
    g_setenv (VARIANT_VARIABLE, variant, TRUE);
    /* The quick suite runs one bank with each variant: 8 filters of 7^3 with the first, 32 of
     * 5^3 with the second. */
    const bool first = g_str_equal (variant, "mma:4f16:2x4");
    if (testutil::full_suite () || first)
      check_volume (random_bank (8, 7, 3, seed), 37, 11, 9, seed + 1);
    if (testutil::full_suite () || !first)
      check_volume (random_bank (32, 5, 3, seed + 2), 21, 9, 5, seed + 3);
    if (testutil::full_suite ()) {
      check_volume (random_bank (1, 3, 3, seed + 4), 19, 6, 4, seed + 5);
      check_volume (random_bank (8, 7, 2, seed + 6), 33, 10, 3, seed + 7);
      check_gray_frame (random_bank (3, 5, 2, seed + 8), 19, 9, 23, seed + 9);
    }
    seed += 10;
  }
  std::string error = testutil::run_pipeline ("videotestsrc num-buffers=1 ! "
      "video/x-raw,format=GRAY8,width=16,height=8 ! openclmulticonvolve kernel-size=1 "
      "kernels=\"<1.0>\" ! video/x-raw,format=GRAY8 ! fakesink");
  TESTUTIL_EXPECT_ERROR (error, "uint8 volumes of one channel to a float tensor only");
  g_setenv (VARIANT_VARIABLE, FORCED_VARIANT, TRUE);
}
GST_END_TEST;

GST_START_TEST (test_tuning)
{
  /* No forced variant and no tuning cache: the element times its candidates on first use, and
   * says which it chose in an `opencl-variant` message. */
  g_unsetenv (VARIANT_VARIABLE);
  g_unsetenv ("GST_OPENCL_TUNING");
  g_setenv ("GST_OPENCL_TUNING_CACHE", "0", TRUE);
  check_volume (random_bank (2, 3, 3, 600), 40, 20, 6, 601);
  /* A bank of another shape, not timed yet in this process. */
  Bank bank = random_bank (3, 3, 3, 602);
  GstHarness *h = new_harness (bank);
  GstBus *bus = gst_bus_new ();
  gst_element_set_bus (h->element, bus);
  gst_harness_set_src_caps_str (h, tensor_caps (16, 8, 4).c_str ());
  auto volume = random_bytes (16 * 8 * 4, 603);
  GstBuffer *in = gst_buffer_new_allocate (nullptr, volume.size (), nullptr);
  gst_buffer_fill (in, 0, volume.data (), volume.size ());
  GstBuffer *out = gst_harness_push_and_pull (h, in);
  check_floats (out, reference::correlate (to_doubles (volume), 16, 8, 4, bank.filters, 3, 3,
          3, 3), bank, "tuned");
  gst_buffer_unref (out);
  GstMessage *message = gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT);
  fail_unless (message != nullptr, "no opencl-variant message");
  const GstStructure *s = gst_message_get_structure (message);
  fail_unless (gst_structure_has_name (s, "opencl-variant"));
  fail_unless_equals_string (gst_structure_get_string (s, "family"), "convolution");
  fail_unless_equals_string (gst_structure_get_string (s, "source"), "timed");
  const GValue *names = gst_structure_get_value (s, "candidates");
  const GValue *times = gst_structure_get_value (s, "median-ms");
  fail_unless (names && times && gst_value_array_get_size (names) >= 1 &&
      gst_value_array_get_size (names) == gst_value_array_get_size (times));
  bool listed = false;
  for (guint i = 0; i < gst_value_array_get_size (names); i++) {
    const gchar *name = g_value_get_string (gst_value_array_get_value (names, i));
    const double ms = g_value_get_double (gst_value_array_get_value (times, i));
    listed = listed || g_strcmp0 (name, gst_structure_get_string (s, "variant")) == 0;
    fail_unless (ms >= 0.0, "%s: %f ms", name, ms);
  }
  fail_unless (listed, "the chosen variant is not among the candidates");
  gst_message_unref (message);
  gst_element_set_bus (h->element, nullptr);
  gst_object_unref (bus);
  gst_harness_teardown (h);

  g_setenv (VARIANT_VARIABLE, "not-a-variant", TRUE);
  std::string error = pipeline_error ("kernel-size=1 kernels=\"<1.0>\"");
  TESTUTIL_EXPECT_ERROR (error, VARIANT_VARIABLE);
  g_setenv (VARIANT_VARIABLE, FORCED_VARIANT, TRUE);
  g_unsetenv ("GST_OPENCL_TUNING_CACHE");
  g_setenv ("GST_OPENCL_TUNING", "0", TRUE);
}
GST_END_TEST;

static Suite *
multiconvolve_suite (void)
{
  return TESTUTIL_SUITE ("openclmulticonvolve", 600,
      test_defaults, test_every_kernel_size, test_filter_counts, test_video_output,
      test_luma_formats, test_luma_formats_video_output,
      test_kernels_file, test_bad_settings_are_errors, test_opencl_memory_input,
      test_gpu_layouts, test_mma_variants, test_tuning);
}

int
main (int argc, char **argv)
{
  g_setenv (VARIANT_VARIABLE, FORCED_VARIANT, TRUE);
  gst_check_init (&argc, &argv);
  return gst_check_run_suite (multiconvolve_suite (), "multiconvolve", __FILE__);
}
