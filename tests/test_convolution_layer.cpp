/* gst-opencl tests: the convolution generator of the shared layer on its own (no plugin):
 * separable detection, variant strings, the variant choice through the shared tuner (forced,
 * default, tuned, cached on disk), and every candidate variant against the float64 reference.
 * Each variant of each filter shape is a program of its own: the quick suite
 * (testutil::full_suite ()) builds fewer of them.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include <gst/check/gstcheck.h>
#include <glib/gstdio.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "common/suite.h"
#include "common/testutil.h"
#include "opencl/gstopenclconvolution.h"
#include "opencl/gstopenclelementdevice.h"
#include "opencl/gstopencltuning.h"
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
  /* The right form with a number out of range says which. */
  std::string why;
  fail_unless (!ConvolutionVariant::parse ("8:128x64", nullptr, &why));
  fail_unless (why.find ("a work-group of 128x64 is 8192 work-items") == 0, "%s", why.c_str ());
  why.clear ();
  fail_unless (!ConvolutionVariant::parse ("32:8x8", nullptr, &why));
  fail_unless (why.find ("an unroll of 32") == 0, "%s", why.c_str ());
  why.clear ();
  fail_unless (!ConvolutionVariant::parse ("8:8x8:nonsense", nullptr, &why));
  fail_unless (why.empty (), "a malformed string is no range problem: %s", why.c_str ());
  fail_unless (!memory_given);
  fail_unless_equals_int (v->unroll, 8);
  fail_unless_equals_int (v->rows, 1);
  fail_unless_equals_int (v->filter_block, 0);
  fail_unless_equals_int (v->group_x, 32);
  fail_unless_equals_int (v->group_y, 4);
  fail_unless (!v->tile);
  v = ConvolutionVariant::parse ("2:16x8:local", &memory_given);
  fail_unless (v && memory_given && v->filter_memory == FilterMemory::Local);
  const std::string parsed_text = v->to_string ();
  fail_unless_equals_string (parsed_text.c_str (), "2:16x8:local");

  /* 2D blocks, filter blocks, the staged input. */
  v = ConvolutionVariant::parse ("4x2f8:16x8:local:tile", &memory_given);
  fail_unless (v && memory_given && v->tile && v->filter_memory == FilterMemory::Local);
  fail_unless_equals_int (v->unroll, 4);
  fail_unless_equals_int (v->rows, 2);
  fail_unless_equals_int (v->filter_block, 8);
  const std::string block_text = v->to_string ();
  fail_unless_equals_string (block_text.c_str (), "4x2f8:16x8:local:tile");
  v = ConvolutionVariant::parse ("8f16:32x4:tile", &memory_given);
  fail_unless (v && !memory_given && v->tile == 1 && v->rows == 1 && v->filter_block == 16);
  /* Two staging buffers. */
  v = ConvolutionVariant::parse ("4x2f8:16x8:local:tile2", &memory_given);
  fail_unless (v && memory_given && v->tile == 2 && v->filter_memory == FilterMemory::Local);
  const std::string double_text = v->to_string ();
  fail_unless_equals_string (double_text.c_str (), "4x2f8:16x8:local:tile2");
  v = ConvolutionVariant::parse ("3x2:4x4:tile2", &memory_given);
  fail_unless (v && !memory_given && v->tile == 2 && v->unroll == 3);
  fail_unless (*ConvolutionVariant::parse ("4:16x4:tile") != *ConvolutionVariant::parse (
          "4:16x4:tile2"));
  v = ConvolutionVariant::parse ("1x4:8x8:global", &memory_given);
  fail_unless (v && memory_given && !v->tile && v->rows == 4 && v->filter_block == 0);
  /* Rows 1 is the field left out. */
  v = ConvolutionVariant::parse ("4x1:16x8:constant");
  fail_unless (v.has_value ());
  const std::string one_row = v->to_string ();
  fail_unless_equals_string (one_row.c_str (), "4:16x8:constant");

  for (const char *bad : { "", "4", "4:16", "0:16x4", "4:16x4:texture", "x:1x1", "4:0x4",
           "4:1221612216x2", "4:2147483647x2", "4:16x4:", "4:16x4 ", "-4:16x4", "4:16x4:localx",
           "4:16x4junk", "4:128x128", "4x0:16x4", "4f0:16x4", "4f:16x4", "4x:16x4",
           "4f8x2:16x4", "4x17:16x4", "4f65:16x4", "17:16x4", "4:16x4:tile:local",
           "4:16x4:tile:", "4:16x4::tile", "4:16x4:tile:tile", "4:16x4:constant:local",
           "4:16x4:Tile", "4:16x4:constant:tile:", "4x2x2:16x4", "4f8f8:16x4", "4 :16x4",
           "4x99999:16x4", "4:16x4:tile3", "4:16x4:tile2:tile", "4:16x4:tile2:local",
           "4:16x4:Tile2", "4:16x4:tile2:", "4:16x4:tile22", "mma:4:2x2:tile2" })
    fail_unless (!ConvolutionVariant::parse (bad).has_value (), "\"%s\" accepted", bad);
}
GST_END_TEST;

namespace {

/* A started ElementDevice on a stand-in element, and a random uint8 volume on it. */
struct Bench
{
  GstElement *element = nullptr;
  gst_opencl::ElementDevice device;
  cl::Buffer input, output;
  std::vector<uint8_t> volume;
  int width, height, depth;

  Bench (int w = 21, int h = 6, int d = 3) : width (w), height (h), depth (d)
  {
    element = gst_element_factory_make ("fakesink", nullptr);
    fail_unless (element != nullptr);
    device.start (element);
    auto & dev = device.device ();
    std::mt19937 random (3);
    volume.resize ((size_t) width * height * depth);
    for (auto &b : volume)
      b = (uint8_t) (random () & 0xff);
    input = cl::Buffer (dev.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, volume.size (),
        volume.data ());
  }
  ~Bench ()
  {
    input = cl::Buffer ();  /* before the context goes */
    output = cl::Buffer ();
    device.stop (element);
    gst_object_unref (element);
  }

  static gst_opencl::ConvolutionSpec tensor_spec (int filters, int kx, int ky, int kz)
  {
    gst_opencl::ConvolutionSpec spec;
    spec.kx = kx;
    spec.ky = ky;
    spec.kz = kz;
    spec.num_filters = filters;
    return spec;
  }

  static std::vector<float> taps_for (const gst_opencl::ConvolutionSpec & spec)
  {
    std::mt19937 random (spec.taps ());
    std::uniform_real_distribution<float> value (-1.0f, 1.0f);
    std::vector<float> taps (spec.taps ());
    for (float &t : taps)
      t = value (random);
    return taps;
  }

  /* Runs the spec's filters (tensor output) on the volume with `convolution` and checks every
   * response against the float64 reference; returns the responses. The responses start
   * `dst_offset` floats into the output buffer. */
  std::vector<float> run_and_check (gst_opencl::Convolution & convolution,
      const gst_opencl::ConvolutionSpec & spec, int dst_offset = 0)
  {
    const auto taps = taps_for (spec);
    convolution.configure (device.device (), spec, taps);
    const int n = spec.num_filters;
    const size_t outputs = volume.size () * n;
    const size_t floats = outputs + dst_offset;
    if (!output () || output.getInfo<CL_MEM_SIZE> () < floats * sizeof (float))
      output = cl::Buffer (device.device ().context, CL_MEM_READ_WRITE, floats * sizeof (float));
    /* NaN everywhere first, so an output the kernel skips cannot pass. */
    device.device ().queue.enqueueFillBuffer (output, NAN, 0, floats * sizeof (float));
    gst_opencl::ConvolutionArgs args;
    args.src = &input;
    args.src_row_stride = width;
    args.src_plane_stride = width * height;
    args.dst = &output;
    args.dst_offset = dst_offset;
    args.dst_row_stride = width * n;
    args.dst_plane_stride = width * height * n;
    args.width = width;
    args.height = height;
    args.depth = depth;
    convolution.run (device, args);
    std::vector<float> result (outputs);
    device.device ().queue.enqueueReadBuffer (output, CL_TRUE, dst_offset * sizeof (float),
        result.size () * sizeof (float), result.data ());
    device.finish_frame ();
    auto expected = reference::correlate (std::vector<double> (volume.begin (), volume.end ()),
        width, height, depth, std::vector<double> (taps.begin (), taps.end ()), n, spec.kx,
        spec.ky, spec.kz);
    std::vector<double> bound (n, 0.0);
    for (size_t t = 0; t < taps.size (); t++)
      bound[t % n] += std::fabs (taps[t]) * 255.0 * 1e-5;
    const std::string variant = convolution.variant ().to_string ();
    for (size_t i = 0; i < result.size (); i++)
      fail_unless (std::fabs (result[i] - expected[i]) <= bound[i % n],
          "%s: value %zu (filter %zu): %f, expected %f", variant.c_str (), i, i % n,
          result[i], expected[i]);
    return result;
  }

  std::vector<float> run_and_check (gst_opencl::Convolution & convolution)
  {
    return run_and_check (convolution, tensor_spec (2, 3, 3, 3));
  }
};

const char *const VARIABLE = "GST_OPENCL_VARIANT_CONVOLUTION";

std::string
disk_path (Bench & bench, const gst_opencl::ConvolutionSpec & spec)
{
  auto & device = bench.device.device ();
  const auto candidates = gst_opencl::Convolution::candidates (spec,
      gst_opencl::ConvolutionLimits::of (device));
  return gst_opencl::tuning_disk_path (device.cl_device, gst_opencl::Convolution::FAMILY,
      gst_opencl::Convolution::tuning_key (spec, candidates));
}

std::string
read_text (const std::string & path)
{
  gchar *contents = nullptr;
  if (!g_file_get_contents (path.c_str (), &contents, nullptr, nullptr))
    return "";
  std::string text (g_strstrip (contents));
  g_free (contents);
  return text;
}

}  // namespace

/* The variant choice goes through the shared tuner (family "convolution"): forced by
 * GST_OPENCL_VARIANT_CONVOLUTION (any variant string), the default with GST_OPENCL_TUNING=0,
 * else remembered, read from the tuning file, or timed and written there. */
GST_START_TEST (test_variant_choice)
{
  Bench bench;
  auto & device = bench.device.device ();
  const auto limits = gst_opencl::ConvolutionLimits::of (device);
  g_unsetenv ("GST_OPENCL_TUNING");
  g_unsetenv ("GST_OPENCL_TUNING_CACHE");
  const std::string variable = gst_opencl::variant_environment_name ("convolution");
  fail_unless_equals_string (variable.c_str (), VARIABLE);

  /* Forced, a variant that is not among the candidates: taken as it is, nothing written. */
  const auto spec = Bench::tensor_spec (2, 3, 3, 3);
  const std::string path = disk_path (bench, spec);
  g_setenv (VARIABLE, "2:8x2", TRUE);
  gst_opencl::Convolution forced;
  bench.run_and_check (forced, spec);
  /* Kept in a variable: the macro reads the pointer after a temporary's life. */
  const std::string forced_text = forced.variant ().to_string ();
  fail_unless_equals_string (forced_text.c_str (), "2:8x2:constant");
  fail_unless (!g_file_test (path.c_str (), G_FILE_TEST_EXISTS), "forcing wrote %s",
      path.c_str ());
  /* Local memory for the filters, forced. */
  g_setenv (VARIABLE, "4:8x4:local", TRUE);
  gst_opencl::Convolution local;
  bench.run_and_check (local, spec);
  const std::string local_text = local.variant ().to_string ();
  fail_unless_equals_string (local_text.c_str (), "4:8x4:local");
  /* A string that is no variant: a settings error naming the variable. */
  g_setenv (VARIABLE, "not-a-variant", TRUE);
  bool threw = false;
  try {
    gst_opencl::Convolution wrong;
    bench.run_and_check (wrong, spec);
  } catch (const gst_opencl::Failure & e) {
    threw = e.kind == gst_opencl::Failure::Kind::Settings &&
        std::string (e.what ()).find (VARIABLE) != std::string::npos;
  }
  fail_unless (threw, "an unparsable forced variant must be a settings error");
  /* A variant whose staged input exceeds the device's local memory: a settings error too. */
  if (device.local_mem_bytes < 4 * 1024 * 1024) {
    g_setenv (VARIABLE, "16x16:64x64:tile", TRUE);
    threw = false;
    try {
      gst_opencl::Convolution huge_tile;
      bench.run_and_check (huge_tile, spec);
    } catch (const gst_opencl::Failure & e) {
      threw = e.kind == gst_opencl::Failure::Kind::Settings;
    }
    fail_unless (threw, "a staged input larger than the local memory must not run");
  }
  g_unsetenv (VARIABLE);

  /* GST_OPENCL_TUNING=0: the device's default, the first candidate, nothing written. */
  const auto candidates = gst_opencl::Convolution::candidates (spec, limits);
  fail_unless (!candidates.empty ());
  g_setenv ("GST_OPENCL_TUNING", "0", TRUE);
  gst_opencl::Convolution by_default;
  bench.run_and_check (by_default, spec);
  fail_unless (by_default.variant () == candidates[0]);
  fail_unless (!g_file_test (path.c_str (), G_FILE_TEST_EXISTS));
  g_unsetenv ("GST_OPENCL_TUNING");

  /* Tuned: the winner, one of the candidates, lands in the tuning file. */
  gst_opencl::Convolution tuned;
  bench.run_and_check (tuned, spec);
  const std::string tuned_text = tuned.variant ().to_string ();
  const std::string stored_text = read_text (path);
  fail_unless_equals_string (stored_text.c_str (), tuned_text.c_str ());
  fail_unless (std::find (candidates.begin (), candidates.end (), tuned.variant ()) !=
      candidates.end ());
  /* A second Convolution of the spec takes the remembered choice. */
  gst_opencl::Convolution again;
  bench.run_and_check (again, spec);
  fail_unless (again.variant () == tuned.variant ());

  /* Read back: a Convolution of a spec not seen in this process takes what the file says, here
   * the candidate that is not the default (so it did not come from timing by chance alone). */
  const auto three = Bench::tensor_spec (3, 3, 3, 1);
  const auto three_candidates = gst_opencl::Convolution::candidates (three, limits);
  fail_unless (three_candidates.size () >= 2, "expected two CPU candidates");
  const std::string three_path = disk_path (bench, three);
  const std::string written = three_candidates.back ().to_string () + "\n";
  gchar *folder = g_path_get_dirname (three_path.c_str ());
  fail_unless (g_mkdir_with_parents (folder, 0755) == 0);
  g_free (folder);
  fail_unless (g_file_set_contents (three_path.c_str (), written.c_str (), -1, nullptr));
  gst_opencl::Convolution cached;
  bench.run_and_check (cached, three);
  fail_unless (cached.variant () == three_candidates.back ());

  /* A damaged file is tuned again and rewritten. */
  const auto one = Bench::tensor_spec (1, 3, 1, 3);
  const std::string one_path = disk_path (bench, one);
  fail_unless (g_file_set_contents (one_path.c_str (), "garbage", -1, nullptr));
  gst_opencl::Convolution retuned;
  bench.run_and_check (retuned, one);
  const std::string retuned_text = retuned.variant ().to_string ();
  /* In a variable: the check copies the pointer into one of its own, past a temporary's life. */
  const std::string rewritten = read_text (one_path);
  fail_unless_equals_string (rewritten.c_str (), retuned_text.c_str ());

  /* GST_OPENCL_TUNING_CACHE=0: timed, kept in this process, not written. */
  g_setenv ("GST_OPENCL_TUNING_CACHE", "0", TRUE);
  const auto private_spec = Bench::tensor_spec (1, 1, 3, 3);
  const std::string private_path = disk_path (bench, private_spec);
  gst_opencl::Convolution unwritten;
  bench.run_and_check (unwritten, private_spec);
  fail_unless (!g_file_test (private_path.c_str (), G_FILE_TEST_EXISTS), "wrote %s",
      private_path.c_str ());
  g_unsetenv ("GST_OPENCL_TUNING_CACHE");
  g_setenv ("GST_OPENCL_TUNING", "0", TRUE);
}
GST_END_TEST;

/* Every candidate, of this device and of a GPU (their limits, on whatever device runs the
 * test), forced in turn on specs that exercise each layout: filter blocks of 8 and 16 and one
 * that is no multiple of four, 2D blocks of outputs, local and constant filters, the staged
 * input, volumes whose sides are no multiples of the blocks. Each result must match the
 * reference, and all FP32 variants of a spec must agree bit for bit (every one adds the taps of
 * an output in the same order). */
GST_START_TEST (test_every_candidate)
{
  Bench bench (37, 19, 5);
  auto & device = bench.device.device ();
  gst_opencl::ConvolutionLimits gpu;
  gpu.type = CL_DEVICE_TYPE_GPU;
  gpu.max_work_group_size = 1024;
  gpu.local_mem_bytes = 48 * 1024;
  gpu.constant_bytes = 64 * 1024;
  const gst_opencl::ConvolutionLimits here = gst_opencl::ConvolutionLimits::of (device);
  std::vector<gst_opencl::ConvolutionSpec> specs = {
    Bench::tensor_spec (32, 3, 3, 3),
    Bench::tensor_spec (12, 3, 5, 1),
    Bench::tensor_spec (8, 7, 7, 7),
    Bench::tensor_spec (3, 5, 3, 3),
    Bench::tensor_spec (1, 7, 7, 7),
  };
  /* The quick suite takes three of the shapes: 32 filters of 3^3, a 2D bank of 12, one 7^3
   * filter. */
  if (!testutil::full_suite ())
    specs = { specs[0], specs[1], specs[4] };
  for (const auto & spec : specs) {
    std::vector<gst_opencl::ConvolutionVariant> variants =
        gst_opencl::Convolution::candidates (spec, here);
    for (const auto & variant : gst_opencl::Convolution::candidates (spec, gpu))
      if (std::find (variants.begin (), variants.end (), variant) == variants.end ())
        variants.push_back (variant);
    const auto fp32 = std::count_if (variants.begin (), variants.end (),
        [](const ConvolutionVariant & v) { return !v.mma; });
    fail_unless (fp32 <= 10, "%d FP32 candidates", (int) fp32);
    /* The quick suite runs this device's default and the GPUs' default of each shape (and the
     * tensor-core kernel in test_mma_kernel). */
    if (!testutil::full_suite ()) {
      const auto gpu_default = gst_opencl::Convolution::candidates (spec, gpu).front ();
      std::vector<gst_opencl::ConvolutionVariant> quick { variants.front () };
      if (gpu_default != quick.front ())
        quick.push_back (gpu_default);
      variants = quick;
    }
    std::vector<float> first;
    for (const auto & variant : variants) {
      const std::string name = variant.to_string ();
      g_setenv (VARIABLE, name.c_str (), TRUE);
      gst_opencl::Convolution convolution;
      auto result = bench.run_and_check (convolution, spec);
      const std::string ran = convolution.variant ().to_string ();
      fail_unless_equals_string (ran.c_str (), name.c_str ());
      /* The tensor cores (here where the device has them) add in another order: they are
       * held to the reference only. */
      if (variant.mma)
        continue;
      if (first.empty ())
        first = result;
      else
        fail_unless (std::memcmp (first.data (), result.data (), first.size () *
                sizeof (float)) == 0, "%s differs from %s for %s", name.c_str (),
            variants[0].to_string ().c_str (), spec.build_options ().c_str ());
    }
  }
  g_unsetenv (VARIABLE);
}
GST_END_TEST;

/* Tensor output starting anywhere in the buffer: from a multiple of four floats the kernel stores
 * four responses at a time, elsewhere one; both must give the reference's values, in place. */
GST_START_TEST (test_output_offsets)
{
  Bench bench (37, 19, 5);
  const char *const variants[] = { "2x2f8:16x8:local:tile2", "4x2f8:8x8:constant:tile",
    "2x3f4:8x4" };
  const int filter_counts[] = { 8, 32, 12 };
  for (int v = 0; v < 3; v++) {
    const char *variant = variants[v];
    g_setenv (VARIABLE, variant, TRUE);
    for (int f = 0; f < 3; f++) {
      /* Each variant and filter count is a program of its own: the quick suite runs each
       * variant with one of the counts. */
      if (!testutil::full_suite () && f != v)
        continue;
      const int filters = filter_counts[f];
      const auto spec = Bench::tensor_spec (filters, 3, 3, 3);
      std::vector<float> first;
      for (int offset : { 0, 1, 2, 3, 4, 36 }) {
        gst_opencl::Convolution convolution;
        auto result = bench.run_and_check (convolution, spec, offset);
        if (first.empty ())
          first = result;
        else
          fail_unless (std::memcmp (first.data (), result.data (), first.size () *
                  sizeof (float)) == 0, "%s, %d filters: offset %d differs from offset 0",
              variant, filters, offset);
      }
    }
  }
  g_unsetenv (VARIABLE);
}
GST_END_TEST;

/* Filter blocks that do not divide N shrink to a divisor, pixel outputs take every filter, and
 * a variant whose local memory the device does not have is refused. */
GST_START_TEST (test_resolve)
{
  gst_opencl::ConvolutionLimits gpu;
  gpu.type = CL_DEVICE_TYPE_GPU;
  gpu.max_work_group_size = 1024;
  gpu.local_mem_bytes = 48 * 1024;
  gpu.constant_bytes = 64 * 1024;
  auto resolved = [&](const char *text, const gst_opencl::ConvolutionSpec & spec) {
    bool memory_given = false;
    auto variant = ConvolutionVariant::parse (text, &memory_given);
    fail_unless (variant.has_value (), "%s", text);
    return gst_opencl::Convolution::resolve (*variant, memory_given, spec, gpu).to_string ();
  };
  auto check = [&](const char *text, const gst_opencl::ConvolutionSpec & spec,
      const char *expected) {
    const std::string result = resolved (text, spec);
    fail_unless (result == expected, "%s resolved to %s, not %s", text, result.c_str (),
        expected);
  };
  auto twelve = Bench::tensor_spec (12, 7, 7, 7);
  check ("4x2f8:16x8", twelve, "4x2f6:16x8:constant");
  check ("4x2f16:16x8", twelve, "4x2:16x8:constant");
  check ("4x2f12:16x8:local:tile", twelve, "4x2:16x8:local:tile");
  check ("4f4:16x8:global", Bench::tensor_spec (7, 3, 3, 3), "4f1:16x8:global");
  auto pixels = Bench::tensor_spec (4, 3, 3, 1);
  pixels.output = gst_opencl::ConvolutionSpec::Output::BytePixels;
  pixels.out_pixel_bytes = 4;
  check ("4f2:16x8", pixels, "4:16x8:constant");
  /* 32 filters of 15^3 fit neither the constant nor the local memory: global. */
  auto huge = Bench::tensor_spec (32, 15, 15, 15);
  check ("4:16x8:local", huge, "4:16x8:global");
  /* A staged input larger than the local memory. */
  bool threw = false;
  try {
    resolved ("16x16:64x16:tile", huge);
  } catch (const gst_opencl::Failure & e) {
    threw = e.kind == gst_opencl::Failure::Kind::Settings;
  }
  fail_unless (threw);
  /* A plane of 136 x 70 floats (38,080 bytes) fits 48 KiB once, not twice. */
  auto one = Bench::tensor_spec (1, 7, 7, 7);
  check ("8x4:16x16:constant:tile", one, "8x4:16x16:constant:tile");
  threw = false;
  try {
    resolved ("8x4:16x16:constant:tile2", one);
  } catch (const gst_opencl::Failure & e) {
    threw = e.kind == gst_opencl::Failure::Kind::Settings &&
        std::string (e.what ()).find ("8x4:16x16:constant:tile2") != std::string::npos;
  }
  fail_unless (threw);
  /* The GPU candidates of the benchmark's shapes: at most 8 each, all within budget. */
  for (int n : { 1, 8, 32 }) {
    auto candidates = gst_opencl::Convolution::candidates (Bench::tensor_spec (n, 7, 7, 7), gpu);
    fail_unless (!candidates.empty () && candidates.size () <= 8, "%zu for N = %d",
        candidates.size (), n);
  }
}
GST_END_TEST;

/* The tensor-core variants' strings, and where they are offered. */
GST_START_TEST (test_mma_strings)
{
  bool memory_given = true;
  auto v = ConvolutionVariant::parse ("mma:4:2x4", &memory_given);
  fail_unless (v && v->mma && !memory_given);
  fail_unless_equals_int (v->rows, 4);
  fail_unless_equals_int (v->filter_block, 0);
  fail_unless_equals_int (v->group_x, 2);
  fail_unless_equals_int (v->group_y, 4);
  const std::string text = v->to_string ();
  fail_unless_equals_string (text.c_str (), "mma:4:2x4");
  v = ConvolutionVariant::parse ("mma:8f16:1x1");
  fail_unless (v && v->mma && v->rows == 8 && v->filter_block == 16);
  const std::string block_text = v->to_string ();
  fail_unless_equals_string (block_text.c_str (), "mma:8f16:1x1");
  /* B fragments from global memory instead of staged. */
  v = ConvolutionVariant::parse ("mma:2:2x2:global");
  fail_unless (v && v->mma && v->filter_memory == FilterMemory::Global);
  const std::string global_text = v->to_string ();
  fail_unless_equals_string (global_text.c_str (), "mma:2:2x2:global");
  /* Not the FP32 variant of the same numbers. */
  fail_unless (*ConvolutionVariant::parse ("mma:4:2x4") != *ConvolutionVariant::parse ("4:2x4"));
  for (const char *bad : { "mma:", "mma:4", "mma:4:2", "mma:0:2x2", "mma:17:2x2", "mma:4f4:2x2",
           "mma:4f12:2x2", "mma:4f72:2x2", "mma:4f0:2x2", "mma:4:0x2", "mma:4:8x8",
           "mma:4:2x2:local", "mma:4:2x2:tile", "mma:4x2:2x2", "mma:4:2x2 ", "MMA:4:2x2",
           "mma4:2x2", "mma:4:2x2:", "mma:4:2x2:local", "mma:4:2x2:constant",
           "mma:4:2x2:global:tile", "mma:4:2x2:globalx" })
    fail_unless (!ConvolutionVariant::parse (bad).has_value (), "\"%s\" accepted", bad);

  /* Offered on NVIDIA from compute capability 8.0 on, for uint8 tensors only; filter blocks
   * rounded to multiples of 8 that divide N rounded up to 8. */
  gst_opencl::ConvolutionLimits gpu;
  gpu.type = CL_DEVICE_TYPE_GPU;
  gpu.max_work_group_size = 1024;
  gpu.local_mem_bytes = 48 * 1024;
  gpu.constant_bytes = 64 * 1024;
  auto count_mma = [](const std::vector<ConvolutionVariant> & list) {
    return std::count_if (list.begin (), list.end (), [](const ConvolutionVariant & c) {
          return c.mma;
        });
  };
  const auto spec = Bench::tensor_spec (32, 7, 7, 7);
  gpu.nvidia_compute_capability = 75;
  fail_unless_equals_int (count_mma (gst_opencl::Convolution::candidates (spec, gpu)), 0);
  gpu.nvidia_compute_capability = 90;
  const auto offered = gst_opencl::Convolution::candidates (spec, gpu);
  fail_unless (count_mma (offered) >= 3, "%d mma candidates", (int) count_mma (offered));
  /* The default: the tensor cores from 4 filters on (the first shape that fits), FP32 below. */
  const std::string default_text = offered.front ().to_string ();
  fail_unless_equals_string (default_text.c_str (), "mma:8f16:2x2:global");
  const auto eight = gst_opencl::Convolution::candidates (Bench::tensor_spec (8, 7, 7, 7), gpu);
  const std::string first_eight = eight.front ().to_string ();
  fail_unless_equals_string (first_eight.c_str (), "mma:8:2x2");
  const auto one = gst_opencl::Convolution::candidates (Bench::tensor_spec (1, 7, 7, 7), gpu);
  fail_unless (!one.front ().mma && count_mma (one) >= 3);
  fail_unless (count_mma (offered) <= 8, "%d mma candidates", (int) count_mma (offered));
  for (const auto & candidate : offered)
    fail_unless (!candidate.mma || candidate.rows * (candidate.filter_block ?
            candidate.filter_block : 32) <= 128, "%s holds too many accumulators",
        candidate.to_string ().c_str ());
  auto pixels = spec;
  pixels.output = gst_opencl::ConvolutionSpec::Output::BytePixels;
  pixels.num_filters = 4;
  pixels.out_pixel_bytes = 4;
  fail_unless_equals_int (count_mma (gst_opencl::Convolution::candidates (pixels, gpu)), 0);
  auto floats = spec;
  floats.float_input = true;
  fail_unless_equals_int (count_mma (gst_opencl::Convolution::candidates (floats, gpu)), 0);
  bool threw = false;
  try {
    gst_opencl::Convolution::resolve (*ConvolutionVariant::parse ("mma:4:2x4"), false, pixels,
        gpu);
  } catch (const gst_opencl::Failure & e) {
    threw = e.kind == gst_opencl::Failure::Kind::Settings &&
        std::string (e.what ()).find ("uint8") != std::string::npos;
  }
  fail_unless (threw);
  auto resolved = [&](const char *text, int filters) {
    return gst_opencl::Convolution::resolve (*ConvolutionVariant::parse (text), false,
        Bench::tensor_spec (filters, 7, 7, 7), gpu).to_string ();
  };
  const std::string all = resolved ("mma:4f32:2x4", 32);
  fail_unless_equals_string (all.c_str (), "mma:4:2x4");
  const std::string sixteen = resolved ("mma:4f24:2x4", 32);
  fail_unless_equals_string (sixteen.c_str (), "mma:4f16:2x4");
  const std::string twenty_four = resolved ("mma:4f16:2x4", 24);
  fail_unless_equals_string (twenty_four.c_str (), "mma:4f8:2x4");
  const std::string padded = resolved ("mma:4f8:2x4", 3);
  fail_unless_equals_string (padded.c_str (), "mma:4:2x4");
}
GST_END_TEST;

/* The tensor-core kernel against the float64 reference: on NVIDIA's tensor cores where the
 * device has them, else its emulation, which follows the same fragment layout. N = 1, 3, 8, 32
 * (a single tile, a padded tile, one and four tiles, and filter blocks; 16 and 24 too), k = 3, 5,
 * 7, a volume
 * whose sides cut every work-group, random and structured input. Every forced variant fits the
 * 32 KiB of local memory that OpenCL guarantees (rusticl on llvmpipe has no more), emulation
 * scratch included: 32 filters of 7^3 in one warp need 41680 bytes there, so that case splits
 * them in blocks of 16. */
GST_START_TEST (test_mma_kernel)
{
  struct Case
  {
    int filters, k;
    const char *variant;
  };
  const Case cases[] = {
    { 1, 3, "mma:2:2x2" },
    { 3, 5, "mma:1:1x2" },
    { 8, 7, "mma:4:2x4" },
    { 8, 3, "mma:2:1x1" },
    { 32, 7, "mma:4f16:2x4" },
    { 32, 5, "mma:8f16:2x2" },
    { 32, 3, "mma:2f8:1x2" },
    { 16, 7, "mma:2f8:2x1" },
    { 8, 7, "mma:4:2x2:global" },
    { 32, 5, "mma:8f16:2x2:global" },
    { 3, 3, "mma:1:1x1:global" },
    { 24, 7, "mma:16f8:1x2" },
  };
  for (int pattern = 0; pattern < 2; pattern++) {
    Bench bench (37, 11, 5);
    if (pattern == 1) {
      /* Structured: planes of constant value, a ramp along x and a bright voxel; extremes
       * 0 and 255 next to each other. */
      for (int z = 0; z < bench.depth; z++)
        for (int y = 0; y < bench.height; y++)
          for (int x = 0; x < bench.width; x++)
            bench.volume[((size_t) z * bench.height + y) * bench.width + x] = (uint8_t)
                (z == 2 ? 255 : (x * 7 + y) % 2 ? 255 : (x * 13) & 0xff);
      bench.volume[((size_t) 2 * bench.height + 5) * bench.width + 20] = 0;
      bench.device.device ().queue.enqueueWriteBuffer (bench.input, CL_TRUE, 0,
          bench.volume.size (), bench.volume.data ());
    }
    const bool tensor_cores = gst_opencl::ConvolutionLimits::of (bench.device.device ())
        .tensor_cores ();
    for (const Case & c : cases) {
      if (pattern == 1 && c.k != 7)
        continue;
      /* Each case is a program of its own: the quick suite runs three, a single tile (N = 1,
       * k = 3), blocks of 16 filters (N = 32, k = 7) and B in global memory (N = 8, k = 7). */
      if (!testutil::full_suite () && !g_str_equal (c.variant, "mma:2:2x2") &&
          !g_str_equal (c.variant, "mma:4f16:2x4") && !g_str_equal (c.variant, "mma:4:2x2:global"))
        continue;
      g_setenv (VARIABLE, c.variant, TRUE);
      gst_opencl::Convolution convolution;
      bench.run_and_check (convolution, Bench::tensor_spec (c.filters, c.k, c.k, c.k));
      const std::string ran = convolution.variant ().to_string ();
      fail_unless (convolution.variant ().mma, "%s ran as %s", c.variant, ran.c_str ());
      g_print ("mma %s, N = %d, k = %d, %s input: ok (%s)\n", ran.c_str (), c.filters, c.k,
          pattern ? "structured" : "random", tensor_cores ? "tensor cores" : "emulated");
    }
  }
  /* A 2D filter bank (kz = 1) on the same volume. */
  Bench bench (19, 7, 2);
  g_setenv (VARIABLE, "mma:2:1x2", TRUE);
  gst_opencl::Convolution convolution;
  bench.run_and_check (convolution, Bench::tensor_spec (8, 7, 7, 1));
  g_unsetenv (VARIABLE);
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
  return TESTUTIL_SUITE ("convolution-layer", 600,
      test_separate, test_variant_strings, test_variant_choice, test_every_candidate,
      test_output_offsets, test_resolve, test_mma_strings, test_mma_kernel, test_wrong_tap_count);
}

int
main (int argc, char **argv)
{
  /* A private cache, so the tuning files seen here are this run's; the compiled programs still
   * come from the usual folder (they depend on nothing this run decides), which keeps the test
   * that runs every candidate short once it has run. GLib reads XDG_CACHE_HOME once, after this
   * (g_get_user_cache_dir () is not called before). */
  const gchar *user_cache = g_getenv ("XDG_CACHE_HOME");
  gchar *programs = user_cache && *user_cache ?
      g_build_filename (user_cache, "gst-opencl", "programs", nullptr) :
      g_build_filename (g_get_home_dir (), ".cache", "gst-opencl", "programs", nullptr);
  cache_home = g_dir_make_tmp ("gst-opencl-convolution-XXXXXX", nullptr);
  gchar *own = g_build_filename (cache_home, "gst-opencl", nullptr);
  gchar *link = g_build_filename (own, "programs", nullptr);
  if (g_mkdir_with_parents (programs, 0755) != 0 || g_mkdir_with_parents (own, 0755) != 0 ||
      symlink (programs, link) != 0)
    g_printerr ("compiled programs are not shared with %s\n", programs);
  g_free (link);
  g_free (own);
  g_free (programs);
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
