/* gst-opencl tests: the convolution generator of the shared layer on its own (no plugin):
 * separable detection, variant strings, the variant choice (forced, tuned, cached on disk).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include <gst/check/gstcheck.h>
#include <glib/gstdio.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "opencl/gstopenclconvolution.h"
#include "opencl/gstopenclelement.h"
#include "opencl/gstopenclutils.h"
#include "reference/convolution_reference.h"

using gst_opencl::ConvolutionVariant;
using gst_opencl::FilterMemory;

static gchar *cache_home = nullptr;

static std::vector<float>
outer (const std::vector<float> & x, const std::vector<float> & y, const std::vector<float> & z)
{
  std::vector<float> taps;
  for (float c : z)
    for (float b : y)
      for (float a : x)
        taps.push_back (a * b * c);
  return taps;
}

GST_START_TEST (test_separate)
{
  std::vector<float> x { 0.5f, -1.0f, 2.0f }, y { 1.0f, 3.0f, 0.25f, -2.0f, 1.0f }, z { 0.1f };
  auto taps = outer (x, y, z);
  auto factors = gst_opencl::separate (taps, 3, 5, 1);
  fail_unless (factors.has_value ());
  auto rebuilt = outer (factors->x, factors->y, factors->z);
  for (size_t t = 0; t < taps.size (); t++)
    fail_unless (std::fabs (rebuilt[t] - taps[t]) <= 1e-6f * 6.0f, "tap %zu", t);

  /* Within float tolerance still separable; beyond it not. */
  auto nearly = taps;
  nearly[4] *= 1.0f + 1e-7f;
  fail_unless (gst_opencl::separate (nearly, 3, 5, 1).has_value ());
  auto broken = taps;
  broken[4] += 0.01f;
  fail_unless (!gst_opencl::separate (broken, 3, 5, 1).has_value ());

  /* 3D, with zeros in the factors. */
  auto volume = outer ({ 0.0f, 1.0f, 0.0f }, { 1.0f, 2.0f, 1.0f }, { 0.5f, 0.0f, 0.5f });
  fail_unless (gst_opencl::separate (volume, 3, 3, 3).has_value ());
  /* A random 3x3x3 kernel is not separable; all zeros and a single tap are. */
  std::mt19937 random (5);
  std::uniform_real_distribution<float> value (-1.0f, 1.0f);
  std::vector<float> noise (27);
  for (float &v : noise)
    v = value (random);
  fail_unless (!gst_opencl::separate (noise, 3, 3, 3).has_value ());
  fail_unless (gst_opencl::separate (std::vector<float> (9, 0.0f), 3, 3, 1).has_value ());
  fail_unless (gst_opencl::separate ({ 3.0f }, 1, 1, 1).has_value ());
  /* Wrong size. */
  fail_unless (!gst_opencl::separate (noise, 3, 3, 2).has_value ());
}
GST_END_TEST;

GST_START_TEST (test_variant_strings)
{
  bool memory_given = true;
  auto v = ConvolutionVariant::parse ("8:32x4", &memory_given);
  fail_unless (v.has_value ());
  fail_unless (!memory_given);
  fail_unless_equals_int (v->unroll, 8);
  fail_unless_equals_int (v->group_x, 32);
  fail_unless_equals_int (v->group_y, 4);
  v = ConvolutionVariant::parse ("2:16x8:local", &memory_given);
  fail_unless (v && memory_given && v->filter_memory == FilterMemory::Local);
  const std::string parsed_text = v->to_string ();
  fail_unless_equals_string (parsed_text.c_str (), "2:16x8:local");
  for (const char *bad : { "", "4", "4:16", "0:16x4", "4:16x4:texture", "x:1x1", "4:0x4",
           "4:1221612216x2", "4:2147483647x2", "4:16x4:", "4:16x4 ", "-4:16x4", "4:16x4:localx",
           "4:16x4junk", "4:128x128" })
    fail_unless (!ConvolutionVariant::parse (bad).has_value (), "\"%s\" accepted", bad);
}
GST_END_TEST;

namespace {

/* A started ElementDevice on a stand-in element, and a small volume on it. */
struct Bench
{
  GstElement *element = nullptr;
  gst_opencl::ElementDevice device;
  cl::Buffer input, output;
  std::vector<uint8_t> volume;
  int width = 21, height = 6, depth = 3;

  Bench ()
  {
    element = gst_element_factory_make ("fakesink", nullptr);
    fail_unless (element != nullptr);
    device.start (element);
    auto & d = device.device ();
    std::mt19937 random (3);
    volume.resize ((size_t) width * height * depth);
    for (auto &b : volume)
      b = (uint8_t) (random () & 0xff);
    input = cl::Buffer (d.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, volume.size (),
        volume.data ());
    output = cl::Buffer (d.context, CL_MEM_READ_WRITE, volume.size () * 2 * sizeof (float));
  }
  ~Bench ()
  {
    device.stop (element);
    gst_object_unref (element);
  }

  /* Runs two 3x3x3 filters and checks the responses against the reference. */
  void run_and_check (gst_opencl::Convolution & convolution)
  {
    std::vector<float> taps (2 * 27);
    for (size_t t = 0; t < taps.size (); t++)
      taps[t] = (float) ((int) (t * 7 % 11) - 5) / 8.0f;
    gst_opencl::ConvolutionSpec spec;
    spec.kx = spec.ky = spec.kz = 3;
    spec.num_filters = 2;
    convolution.configure (device.device (), spec, taps);
    gst_opencl::ConvolutionArgs args;
    args.src = &input;
    args.src_row_stride = width;
    args.src_plane_stride = width * height;
    args.dst = &output;
    args.dst_row_stride = width * 2;
    args.dst_plane_stride = width * height * 2;
    args.width = width;
    args.height = height;
    args.depth = depth;
    convolution.run (device, args);
    std::vector<float> result (volume.size () * 2);
    device.device ().queue.enqueueReadBuffer (output, CL_TRUE, 0, result.size () *
        sizeof (float), result.data ());
    device.finish_frame ();
    auto expected = reference::correlate (std::vector<double> (volume.begin (), volume.end ()),
        width, height, depth, std::vector<double> (taps.begin (), taps.end ()), 2, 3, 3, 3);
    for (size_t i = 0; i < result.size (); i++)
      fail_unless (std::fabs (result[i] - expected[i]) < 1e-2, "value %zu: %f, expected %f", i,
          result[i], expected[i]);
  }
};

}  // namespace

GST_START_TEST (test_variant_choice)
{
  Bench bench;
  g_unsetenv ("GST_OPENCL_TUNING_CACHE");

  /* Forced. */
  g_setenv ("GST_OPENCL_CONV_VARIANT", "2:8x2", TRUE);
  gst_opencl::Convolution forced;
  bench.run_and_check (forced);
  /* Kept in a variable: the macro reads the pointer after a temporary's life. */
  const std::string forced_text = forced.variant ().to_string ();
  fail_unless_equals_string (forced_text.c_str (), "2:8x2:constant");
  const std::string path = gst_opencl::Convolution::tuning_path (bench.device.device (),
      forced.spec ());
  fail_unless (!g_file_test (path.c_str (), G_FILE_TEST_EXISTS), "forcing wrote %s",
      path.c_str ());

  /* Tuned: the winner lands in the tuning file. */
  g_unsetenv ("GST_OPENCL_CONV_VARIANT");
  gst_opencl::Convolution tuned;
  bench.run_and_check (tuned);
  gchar *contents = nullptr;
  fail_unless (g_file_get_contents (path.c_str (), &contents, nullptr, nullptr));
  /* Kept in a variable: the macro reads the pointer after a temporary's life. */
  const std::string variant_text = tuned.variant ().to_string ();
  fail_unless_equals_string (g_strstrip (contents), variant_text.c_str ());
  g_free (contents);

  /* Read back: a later Convolution takes what the file says without timing. */
  fail_unless (g_file_set_contents (path.c_str (), "1:4x2:global\n", -1, nullptr));
  gst_opencl::Convolution cached;
  bench.run_and_check (cached);
  const std::string cached_text = cached.variant ().to_string ();
  fail_unless_equals_string (cached_text.c_str (), "1:4x2:global");

  /* A damaged file is tuned again and rewritten. */
  fail_unless (g_file_set_contents (path.c_str (), "garbage", -1, nullptr));
  gst_opencl::Convolution retuned;
  bench.run_and_check (retuned);
  fail_unless (g_file_get_contents (path.c_str (), &contents, nullptr, nullptr));
  fail_unless (ConvolutionVariant::parse (g_strstrip (contents)).has_value ());
  g_free (contents);

  /* Local memory for the filters, forced. */
  g_setenv ("GST_OPENCL_CONV_VARIANT", "4:8x4:local", TRUE);
  gst_opencl::Convolution local;
  bench.run_and_check (local);
  const std::string local_text = local.variant ().to_string ();
  fail_unless_equals_string (local_text.c_str (), "4:8x4:local");
  g_unsetenv ("GST_OPENCL_CONV_VARIANT");
}
GST_END_TEST;

GST_START_TEST (test_wrong_tap_count)
{
  Bench bench;
  gst_opencl::Convolution convolution;
  gst_opencl::ConvolutionSpec spec;
  spec.kx = spec.ky = 3;
  spec.num_filters = 2;
  bool thrown = false;
  try {
    convolution.configure (bench.device.device (), spec, std::vector<float> (17));
  } catch (const gst_opencl::Failure & settings_error) {
    thrown = settings_error.kind == gst_opencl::Failure::Kind::Settings &&
        std::string (settings_error.what ()).find ("needs 18 taps, not 17") != std::string::npos;
  }
  fail_unless (thrown);
  fail_unless (!convolution.configured ());
}
GST_END_TEST;

static Suite *
convolution_layer_suite (void)
{
  Suite *s = suite_create ("convolution-layer");
  TCase *tc = tcase_create ("general");
  tcase_set_timeout (tc, 600);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_separate);
  tcase_add_test (tc, test_variant_strings);
  tcase_add_test (tc, test_variant_choice);
  tcase_add_test (tc, test_wrong_tap_count);
  return s;
}

int
main (int argc, char **argv)
{
  /* A private cache, so the tuning files seen here are this run's. */
  cache_home = g_dir_make_tmp ("gst-opencl-convolution-XXXXXX", nullptr);
  g_setenv ("XDG_CACHE_HOME", cache_home, TRUE);
  gst_check_init (&argc, &argv);
  int failed = gst_check_run_suite (convolution_layer_suite (), "convolution-layer", __FILE__);
  gchar *command = g_strdup_printf ("rm -rf '%s'", cache_home);
  if (system (command) != 0)
    failed = 1;
  g_free (command);
  g_free (cache_home);
  return failed;
}
