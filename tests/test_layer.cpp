/* gst-opencl tests: the shared OpenCL layer on its own (no plugin): device strings, error
 * names, the program cache in memory and on disk, kernel sources.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include <gst/check/gstcheck.h>
#include <glib/gstdio.h>

#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/suite.h"
#include "opencl/gstopencldevice.h"
#include "opencl/gstopenclcontext.h"
#include "opencl/gstopenclkernels.h"
#include "opencl/gstopenclmemory.h"
#include "opencl/gstopenclprogram.h"
#include "opencl/gstopenclstats.h"
#include "opencl/gstopencltensor.h"
#include "opencl/gstopencltuning.h"
#include "opencl/gstopenclutils.h"

using gst_opencl::DeviceSpec;

static gchar *cache_home = nullptr;

GST_START_TEST (test_parse_device_spec)
{
  using Kind = DeviceSpec::Kind;
  struct
  {
    const char *text;
    bool valid;
    Kind kind;
    const char *platform;
    unsigned index;
  } cases[] = {
    { "", true, Kind::Automatic, "", 0 },
    { "   ", true, Kind::Automatic, "", 0 },
    { "gpu", true, Kind::Gpu, "", 0 },
    { "GPU", true, Kind::Gpu, "", 0 },
    { " cpu ", true, Kind::Cpu, "", 0 },
    { "NVIDIA", true, Kind::Platform, "NVIDIA", 0 },
    { "NVIDIA CUDA:1", true, Kind::Platform, "NVIDIA CUDA", 1 },
    { "Portable Computing Language:0", true, Kind::Platform, "Portable Computing Language", 0 },
    { "a:b:2", true, Kind::Platform, "a:b", 2 },
    { "pocl:", false, Kind::Automatic, "", 0 },
    { ":3", false, Kind::Automatic, "", 0 },
    { "pocl:x", false, Kind::Automatic, "", 0 },
    { "pocl:-1", false, Kind::Automatic, "", 0 },
    { "pocl:99999999999", false, Kind::Automatic, "", 0 },
  };
  for (const auto & c : cases) {
    auto spec = gst_opencl::parse_device_spec (c.text);
    fail_unless_equals_int (spec.has_value (), c.valid);
    if (!spec)
      continue;
    fail_unless (spec->kind == c.kind, "\"%s\": kind %d", c.text, (int) spec->kind);
    fail_unless_equals_string (spec->platform_substring.c_str (), c.platform);
    fail_unless_equals_int (spec->index, c.index);
  }
}
GST_END_TEST;

GST_START_TEST (test_error_names)
{
  fail_unless_equals_string (gst_opencl_error_name (CL_OUT_OF_RESOURCES),
      "CL_OUT_OF_RESOURCES");
  fail_unless_equals_string (gst_opencl_error_name (-4), "CL_MEM_OBJECT_ALLOCATION_FAILURE");
  fail_unless_equals_string (gst_opencl_error_name (-1001), "CL_PLATFORM_NOT_FOUND_KHR");
  fail_unless_equals_string (gst_opencl_error_name (-12345), "CL_UNKNOWN_ERROR(-12345)");

  bool thrown = false;
  try {
    GST_OPENCL_CHECK (CL_INVALID_KERNEL_ARGS);
  } catch (const cl::Error & e) {
    thrown = true;
    std::string text = gst_opencl::describe_exception (std::current_exception ());
    fail_unless (text.find ("CL_INVALID_KERNEL_ARGS") != std::string::npos, "%s", text.c_str ());
  }
  fail_unless (thrown);
}
GST_END_TEST;

GST_START_TEST (test_stable_hash)
{
  /* FNV-1a 64 of known inputs: the disk cache's file names must not change between builds. */
  fail_unless_equals_uint64 (gst_opencl::stable_hash (""), 0xcbf29ce484222325ull);
  fail_unless_equals_uint64 (gst_opencl::stable_hash ("a"), 0xaf63dc4c8601ec8cull);
  fail_unless (gst_opencl::stable_hash (std::string ("a\0b", 3)) !=
      gst_opencl::stable_hash (std::string ("ab\0", 3)));
}
GST_END_TEST;

GST_START_TEST (test_device_selection)
{
  cl::Device cpu = gst_opencl::select_device (*gst_opencl::parse_device_spec ("cpu"), "cpu");
  fail_unless (cpu.getInfo<CL_DEVICE_TYPE> () & CL_DEVICE_TYPE_CPU);
  cl::Device automatic = gst_opencl::select_device (DeviceSpec (), "");
  fail_unless (automatic () != nullptr);
  fail_unless (!gst_opencl::describe_device (automatic).empty ());

  bool thrown = false;
  try {
    gst_opencl::select_device (*gst_opencl::parse_device_spec ("zzz"), "zzz");
  } catch (const gst_opencl::Failure & e) {
    thrown = true;
    fail_unless (e.kind == gst_opencl::Failure::Kind::NotFound);
    fail_unless (std::string (e.what ()).find ("available devices") != std::string::npos);
  }
  fail_unless (thrown);

  /* From a property's string: the same device as its parsed spec; a malformed string is a
   * settings error that names it; the empty string follows GST_OPENCL_DEVICE. */
  fail_unless (gst_opencl::select_device (std::string ("cpu")) () == cpu ());
  thrown = false;
  try {
    gst_opencl::select_device (std::string ("cpu:x"));
  } catch (const gst_opencl::Failure & e) {
    thrown = e.kind == gst_opencl::Failure::Kind::Settings &&
        std::string (e.what ()).find ("\"cpu:x\"") != std::string::npos;
  }
  fail_unless (thrown, "a malformed device string must be a settings error naming it");
  const gchar *previous = g_getenv ("GST_OPENCL_DEVICE");
  const std::string kept = previous ? previous : "";
  g_setenv ("GST_OPENCL_DEVICE", "zzz", TRUE);
  thrown = false;
  try {
    gst_opencl::select_device (std::string ());
  } catch (const gst_opencl::Failure & e) {
    thrown = e.kind == gst_opencl::Failure::Kind::NotFound;
  }
  if (previous)
    g_setenv ("GST_OPENCL_DEVICE", kept.c_str (), TRUE);
  else
    g_unsetenv ("GST_OPENCL_DEVICE");
  fail_unless (thrown, "GST_OPENCL_DEVICE=zzz must be followed");
}
GST_END_TEST;

static const char *tiny_source =
    "__kernel void add_one (__global int *x) { x[get_global_id (0)] += ADD; }\n";

GST_START_TEST (test_program_cache_memory_and_disk)
{
  cl::Device device = gst_opencl::select_device (DeviceSpec (), "");
  cl::Context context (device);
  const std::string options = "-DADD=1";
  std::string path = gst_opencl::ProgramCache::disk_path (device, tiny_source, options);
  fail_unless (g_str_has_prefix (path.c_str (), cache_home), "%s", path.c_str ());
  g_remove (path.c_str ());

  /* A first process: compiles, keeps it in memory, writes the binary. */
  gst_opencl::ProgramCache first_process;
  cl::Program a = first_process.get (context, device, "tiny", tiny_source, options);
  cl::Program b = first_process.get (context, device, "tiny", tiny_source, options);
  fail_unless (a () == b (), "the second request built the program again");
  fail_unless_equals_int (first_process.stats ().source_builds, 1);
  fail_unless_equals_int (first_process.stats ().memory_hits, 1);
  fail_unless (g_file_test (path.c_str (), G_FILE_TEST_IS_REGULAR), "no binary at %s",
      path.c_str ());

  /* A later process: loads the binary, does not compile; the kernel works. */
  gst_opencl::ProgramCache second_process;
  cl::Program loaded = second_process.get (context, device, "tiny", tiny_source, options);
  fail_unless_equals_int (second_process.stats ().disk_hits, 1);
  fail_unless_equals_int (second_process.stats ().source_builds, 0);
  cl::CommandQueue queue (context, device);
  int value = 41;
  cl::Buffer buffer (context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof value, &value);
  cl::Kernel kernel (loaded, "add_one");
  kernel.setArg (0, buffer);
  queue.enqueueNDRangeKernel (kernel, cl::NullRange, cl::NDRange (1));
  queue.enqueueReadBuffer (buffer, CL_TRUE, 0, sizeof value, &value);
  fail_unless_equals_int (value, 42);

  /* Other options are another program. */
  second_process.get (context, device, "tiny", tiny_source, "-DADD=2");
  fail_unless_equals_int (second_process.stats ().source_builds, 1);

  /* A corrupt cache file is not fatal: the source is built and the file rewritten. */
  g_file_set_contents (path.c_str (), "not a binary", -1, nullptr);
  gst_opencl::ProgramCache third_process;
  third_process.get (context, device, "tiny", tiny_source, options);
  fail_unless_equals_int (third_process.stats ().source_builds, 1);
  gchar *contents = nullptr;
  gsize length = 0;
  fail_unless (g_file_get_contents (path.c_str (), &contents, &length, nullptr));
  fail_unless (length > 64, "binary not rewritten (%zu bytes)", (size_t) length);
  g_free (contents);
}
GST_END_TEST;

GST_START_TEST (test_program_cache_disabled)
{
  cl::Device device = gst_opencl::select_device (DeviceSpec (), "");
  cl::Context context (device);
  const std::string options = "-DADD=3";
  std::string path = gst_opencl::ProgramCache::disk_path (device, tiny_source, options);
  g_remove (path.c_str ());
  g_setenv ("GST_OPENCL_PROGRAM_CACHE", "0", TRUE);
  gst_opencl::ProgramCache cache;
  cache.get (context, device, "tiny", tiny_source, options);
  g_unsetenv ("GST_OPENCL_PROGRAM_CACHE");
  fail_if (g_file_test (path.c_str (), G_FILE_TEST_EXISTS), "written although disabled");
}
GST_END_TEST;

GST_START_TEST (test_build_failure_carries_log)
{
  cl::Device device = gst_opencl::select_device (DeviceSpec (), "");
  cl::Context context (device);
  gst_opencl::ProgramCache cache;
  bool thrown = false;
  try {
    cache.get (context, device, "broken", "__kernel void k () { undeclared_name = 1; }", "");
  } catch (const gst_opencl::BuildFailure & e) {
    thrown = true;
    fail_unless (std::string (e.what ()).find ("broken") != std::string::npos);
    fail_unless (e.build_log.find ("undeclared_name") != std::string::npos, "log: %s",
        e.build_log.c_str ());
  }
  fail_unless (thrown);
}
GST_END_TEST;

GST_START_TEST (test_kernel_sources)
{
  std::string embedded = gst_opencl::kernel_source ("bilateral");
  fail_unless (embedded.find ("__kernel") != std::string::npos);

  gchar *dir = g_dir_make_tmp ("gst-opencl-override-XXXXXX", nullptr);
  gchar *path = g_build_filename (dir, "bilateral.cl", nullptr);
  g_file_set_contents (path, "// overridden\n", -1, nullptr);
  g_setenv ("GST_OPENCL_KERNEL_DIR", dir, TRUE);
  std::string overridden = gst_opencl::kernel_source ("bilateral");
  fail_unless (overridden == "// overridden\n", "override not read: %.60s", overridden.c_str ());
  g_remove (path);
  /* A kernel missing from the override folder comes from the plugin. */
  std::string fallback = gst_opencl::kernel_source ("bilateral");
  fail_unless (fallback == embedded, "fallback differs from the embedded source: %.60s",
      fallback.c_str ());
  g_unsetenv ("GST_OPENCL_KERNEL_DIR");
  g_rmdir (dir);
  g_free (path);
  g_free (dir);

  bool thrown = false;
  try {
    gst_opencl::kernel_source ("no_such_kernel");
  } catch (const gst_opencl::Failure &) {
    thrown = true;
  }
  fail_unless (thrown);

  /* Includes: the embedded bilateral kernel has its shared defaults in, the directive out. */
  fail_unless (embedded.find ("#include \"bilateral_defaults.cl\"") == std::string::npos);
  const std::string defaults = gst_opencl::kernel_source ("bilateral_defaults");
  const std::string defaults_body = defaults.substr (defaults.find ("#ifndef"));
  fail_unless (embedded.find (defaults_body) != std::string::npos,
      "the bilateral kernel lacks its included defaults");
}
GST_END_TEST;

/* `#include "<name>.cl"` lines are expanded from the override folder first, then the plugin,
 * at any depth; a file that includes itself, directly or not, is an error; a directive that
 * is not at the start of a line, or names no .cl file, is left to the compiler. */
GST_START_TEST (test_kernel_includes)
{
  gchar *dir = g_dir_make_tmp ("gst-opencl-include-XXXXXX", nullptr);
  auto write = [&](const char *name, const char *text) {
    gchar *path = g_build_filename (dir, name, nullptr);
    g_file_set_contents (path, text, -1, nullptr);
    g_free (path);
  };
  write ("top.cl", "A\n#include \"middle.cl\"\nB\n  #include \"middle.cl\"\n");
  write ("middle.cl", "C\n#include \"leaf.cl\"");
  write ("leaf.cl", "D\n");
  write ("loop_a.cl", "#include \"loop_b.cl\"\n");
  write ("loop_b.cl", "#include \"loop_a.cl\"\n");
  write ("uses_plugin.cl", "#include \"bilateral_defaults.cl\"\n");
  g_setenv ("GST_OPENCL_KERNEL_DIR", dir, TRUE);
  const std::string top = gst_opencl::kernel_source ("top");
  fail_unless (top == "A\nC\nD\nB\n  #include \"middle.cl\"\n", "expanded as [%s]",
      top.c_str ());
  const std::string from_plugin = gst_opencl::kernel_source ("uses_plugin");
  bool cycle = false;
  try {
    gst_opencl::kernel_source ("loop_a");
  } catch (const gst_opencl::Failure & e) {
    cycle = std::string (e.what ()).find ("loop_a") != std::string::npos;
  }
  g_unsetenv ("GST_OPENCL_KERNEL_DIR");
  fail_unless (from_plugin == gst_opencl::kernel_source ("bilateral_defaults"),
      "an include missing from the folder is not the plugin's");
  fail_unless (cycle, "a circle of includes was not refused by name");
  for (const char *name : { "top.cl", "middle.cl", "leaf.cl", "loop_a.cl", "loop_b.cl",
          "uses_plugin.cl" }) {
    gchar *path = g_build_filename (dir, name, nullptr);
    g_remove (path);
    g_free (path);
  }
  g_rmdir (dir);
  g_free (dir);
}
GST_END_TEST;

/* The variant tuner with made-up timings: the fastest timed candidate wins and is cached in
 * memory and on disk; untimed candidates and candidates that throw are never chosen by timing;
 * the environment forces any candidate, and an unknown name is an error. */
GST_START_TEST (test_variant_tuning)
{
  cl::Device device = gst_opencl::select_device (DeviceSpec (), "");
  g_unsetenv ("GST_OPENCL_TUNING");
  g_unsetenv ("GST_OPENCL_VARIANT_TESTFAMILY_1");
  const std::string key = "test key " + std::to_string (g_random_int ());
  const std::string path = gst_opencl::tuning_disk_path (device, "testfamily-1", key);
  std::vector<gst_opencl::TuningCandidate> candidates = { { "slow", true }, { "fast", true },
    { "untimed", false }, { "broken", true } };
  std::vector<int> calls (candidates.size (), 0);
  auto time_one = [&](size_t i) -> double {
    calls[i]++;
    if (i == 3)
      throw std::runtime_error ("does not build");
    return i == 0 ? 5.0 : i == 1 ? 2.0 : 0.1;
  };
  fail_unless_equals_int ((int) gst_opencl::choose_variant (device, "testfamily-1", key,
          candidates, time_one, 3), 1);
  fail_unless_equals_int (calls[0], 4);  /* one warm-up and three timed runs */
  fail_unless_equals_int (calls[1], 4);
  fail_unless_equals_int (calls[2], 0);
  fail_unless_equals_int (calls[3], 1);
  gchar *contents = nullptr;
  fail_unless (g_file_get_contents (path.c_str (), &contents, nullptr, nullptr));
  fail_unless_equals_string (contents, "fast\n");
  g_free (contents);

  /* Known now: no more timing, even when the timings would say otherwise. */
  auto never = [](size_t) -> double { fail ("timed again"); return 0.0; };
  fail_unless_equals_int ((int) gst_opencl::choose_variant (device, "testfamily-1", key,
          candidates, never), 1);

  /* The environment overrides the cached choice. */
  const std::string variable = gst_opencl::variant_environment_name ("testfamily-1");
  fail_unless_equals_string (variable.c_str (), "GST_OPENCL_VARIANT_TESTFAMILY_1");
  g_setenv ("GST_OPENCL_VARIANT_TESTFAMILY_1", "untimed", TRUE);
  fail_unless_equals_int ((int) gst_opencl::choose_variant (device, "testfamily-1", key,
          candidates, never), 2);
  g_setenv ("GST_OPENCL_VARIANT_TESTFAMILY_1", "nonesuch", TRUE);
  bool threw = false;
  try {
    gst_opencl::choose_variant (device, "testfamily-1", key, candidates, never);
  } catch (const gst_opencl::Failure & e) {
    threw = std::string (e.what ()).find ("slow, fast, untimed, broken") != std::string::npos;
  }
  fail_unless (threw, "an unknown forced variant must throw and list the variants");
  g_unsetenv ("GST_OPENCL_VARIANT_TESTFAMILY_1");

  /* GST_OPENCL_TUNING=0: the first candidate, whatever is cached. */
  g_setenv ("GST_OPENCL_TUNING", "0", TRUE);
  fail_unless_equals_int ((int) gst_opencl::choose_variant (device, "testfamily-1", key,
          candidates, never), 0);

  /* Nothing that can run: an error. */
  g_unsetenv ("GST_OPENCL_TUNING");
  std::vector<gst_opencl::TuningCandidate> hopeless = { { "broken", true } };
  threw = false;
  try {
    gst_opencl::choose_variant (device, "testfamily-1", key + " hopeless", hopeless,
        [](size_t) -> double { throw std::runtime_error ("does not build"); });
  } catch (const gst_opencl::Failure &) {
    threw = true;
  }
  fail_unless (threw);

  /* A candidate whose timing tunes another family (the sort-long candidates build radix sorts
   * whose shape is tuned): the inner choice is made, the outer one too, nothing waits for
   * itself (a lock held across the timing hung here). */
  const std::string outer_key = key + " outer", inner_key = key + " inner";
  std::vector<gst_opencl::TuningCandidate> inner = { { "x", true }, { "y", true } };
  int inner_choices = 0;
  auto outer_time = [&](size_t i) -> double {
    const size_t chosen = gst_opencl::choose_variant (device, "testfamily-1", inner_key, inner,
        [](size_t j) -> double { return j == 0 ? 4.0 : 1.0; });
    fail_unless_equals_int ((int) chosen, 1);
    inner_choices++;
    return i == 0 ? 1.0 : 3.0;
  };
  fail_unless_equals_int ((int) gst_opencl::choose_variant (device, "testfamily-1", outer_key,
          inner, outer_time), 0);
  fail_unless (inner_choices >= 2, "the inner family was chosen %d times", inner_choices);
  g_unlink (gst_opencl::tuning_disk_path (device, "testfamily-1", outer_key).c_str ());
  g_unlink (gst_opencl::tuning_disk_path (device, "testfamily-1", inner_key).c_str ());

  g_setenv ("GST_OPENCL_TUNING", "0", TRUE);
  g_unlink (path.c_str ());
}
GST_END_TEST;

/* tune_variant: how the choice was made, each timed candidate's median, a forced name outside
 * the candidates when the family accepts it, and GST_OPENCL_TUNING_CACHE=0. */
GST_START_TEST (test_variant_tuning_report)
{
  using Source = gst_opencl::TuningChoice::Source;
  cl::Device device = gst_opencl::select_device (DeviceSpec (), "");
  g_unsetenv ("GST_OPENCL_TUNING");
  g_unsetenv ("GST_OPENCL_TUNING_CACHE");
  g_unsetenv ("GST_OPENCL_VARIANT_TESTFAMILY_2");
  const std::string key = "report key " + std::to_string (g_random_int ());
  std::vector<gst_opencl::TuningCandidate> candidates = { { "a", true }, { "b", true },
    { "c", false }, { "d", true } };
  auto time_one = [](size_t i) -> double {
    if (i == 3)
      throw std::runtime_error ("does not build");
    return i == 0 ? 3.0 : 1.5;
  };
  auto never = [](size_t) -> double { fail ("timed again"); return 0.0; };
  auto choice = gst_opencl::tune_variant (device, "testfamily-2", key, candidates, time_one);
  fail_unless (choice.source == Source::Timed);
  fail_unless_equals_int ((int) choice.index, 1);
  fail_unless_equals_string (choice.name.c_str (), "b");
  fail_unless_equals_int ((int) choice.median_ms.size (), 4);
  fail_unless_equals_float (choice.median_ms[0], 3.0);
  fail_unless_equals_float (choice.median_ms[1], 1.5);
  fail_unless (choice.median_ms[2] < 0.0 && choice.median_ms[3] < 0.0);
  choice = gst_opencl::tune_variant (device, "testfamily-2", key, candidates, never);
  fail_unless (choice.source == Source::Remembered && choice.index == 1);
  fail_unless (choice.median_ms[1] < 0.0);

  /* A choice another process wrote. */
  const std::string disk_key = key + " disk";
  const std::string disk_path = gst_opencl::tuning_disk_path (device, "testfamily-2", disk_key);
  gchar *folder = g_path_get_dirname (disk_path.c_str ());
  g_mkdir_with_parents (folder, 0755);
  g_free (folder);
  fail_unless (g_file_set_contents (disk_path.c_str (), "c\n", -1, nullptr));
  choice = gst_opencl::tune_variant (device, "testfamily-2", disk_key, candidates, never);
  fail_unless (choice.source == Source::Cached && choice.index == 2);

  /* GST_OPENCL_TUNING_CACHE=0: the file is neither read nor written. */
  g_setenv ("GST_OPENCL_TUNING_CACHE", "0", TRUE);
  const std::string private_key = key + " private";
  const std::string private_path = gst_opencl::tuning_disk_path (device, "testfamily-2",
      private_key);
  fail_unless (g_file_set_contents (private_path.c_str (), "a\n", -1, nullptr));
  choice = gst_opencl::tune_variant (device, "testfamily-2", private_key, candidates, time_one);
  fail_unless (choice.source == Source::Timed && choice.index == 1);
  gchar *contents = nullptr;
  fail_unless (g_file_get_contents (private_path.c_str (), &contents, nullptr, nullptr));
  fail_unless_equals_string (contents, "a\n");
  g_free (contents);
  g_unlink (private_path.c_str ());
  const std::string unwritten_key = key + " unwritten";
  const std::string unwritten_path = gst_opencl::tuning_disk_path (device, "testfamily-2",
      unwritten_key);
  gst_opencl::tune_variant (device, "testfamily-2", unwritten_key, candidates, time_one);
  fail_unless (!g_file_test (unwritten_path.c_str (), G_FILE_TEST_EXISTS));
  g_unsetenv ("GST_OPENCL_TUNING_CACHE");

  /* Forced: a candidate, or a name the family accepts although no candidate has it. */
  auto accepts = [](const std::string & name) { return name.rfind ("custom-", 0) == 0; };
  g_setenv ("GST_OPENCL_VARIANT_TESTFAMILY_2", "c", TRUE);
  choice = gst_opencl::tune_variant (device, "testfamily-2", key, candidates, never, 3, accepts);
  fail_unless (choice.source == Source::Forced && choice.index == 2);
  g_setenv ("GST_OPENCL_VARIANT_TESTFAMILY_2", "custom-7", TRUE);
  choice = gst_opencl::tune_variant (device, "testfamily-2", key, candidates, never, 3, accepts);
  fail_unless (choice.source == Source::Forced && choice.index == candidates.size ());
  fail_unless_equals_string (choice.name.c_str (), "custom-7");
  /* Without the family's consent, or with a name it does not accept: an error. */
  for (bool with_accepts : { false, true }) {
    if (with_accepts)
      g_setenv ("GST_OPENCL_VARIANT_TESTFAMILY_2", "other", TRUE);
    bool threw = false;
    try {
      gst_opencl::tune_variant (device, "testfamily-2", key, candidates, never, 3,
          with_accepts ? std::function<bool (const std::string &)> (accepts) : nullptr);
    } catch (const gst_opencl::Failure & e) {
      threw = e.kind == gst_opencl::Failure::Kind::Settings;
    }
    fail_unless (threw, "an unknown forced name must be a settings error");
  }
  g_unsetenv ("GST_OPENCL_VARIANT_TESTFAMILY_2");
  g_setenv ("GST_OPENCL_TUNING", "0", TRUE);
  choice = gst_opencl::tune_variant (device, "testfamily-2", key, candidates, never);
  fail_unless (choice.source == Source::Default && choice.index == 0);
  g_unlink (disk_path.c_str ());
  g_unlink (gst_opencl::tuning_disk_path (device, "testfamily-2", key).c_str ());
}
GST_END_TEST;

GST_START_TEST (test_tensor_caps)
{
  std::string why;
  GstCaps *caps = gst_caps_from_string ("other/tensors,format=static,num_tensors=1,"
      "types=float32,dimensions=8:250:250:250,framerate=0/1");
  auto info = gst_opencl::tensor_info_from_caps (caps, &why);
  gst_caps_unref (caps);
  fail_unless (info.has_value (), "%s", why.c_str ());
  fail_unless (info->type == gst_opencl::TensorType::Float32);
  fail_unless_equals_int (info->dimensions.size (), 4);
  fail_unless_equals_int (info->dimension (0), 8);
  fail_unless_equals_int (info->dimension (3), 250);
  fail_unless_equals_int (info->dimension (7), 1);
  fail_unless_equals_uint64 (info->size_bytes (), 4ull * 8 * 250 * 250 * 250);

  /* Back to caps and parsed again: the same tensor. */
  GstCaps *again = gst_opencl::tensor_info_to_caps (*info, 30, 1);
  auto reparsed = gst_opencl::tensor_info_from_caps (again, &why);
  gst_caps_unref (again);
  fail_unless (reparsed.has_value () && *reparsed == *info);

  const char *bad[] = {
    "other/tensors,format=static,num_tensors=2,types=uint8,dimensions=4",
    "other/tensors,format=flexible,num_tensors=1,types=uint8,dimensions=4",
    "other/tensors,format=static,num_tensors=1,types=float64,dimensions=4",
    "other/tensors,format=static,num_tensors=1,types=uint8,dimensions=4:0",
    "other/tensors,format=static,num_tensors=1,types=uint8,dimensions=4::2",
    "other/tensors,format=static,num_tensors=1,types=uint8,dimensions=x",
    "other/tensors,format=static,num_tensors=1,types=uint8",
    "video/x-raw,format=RGBA,width=4,height=4",
  };
  for (const char *text : bad) {
    caps = gst_caps_from_string (text);
    why.clear ();
    fail_if (gst_opencl::tensor_info_from_caps (caps, &why).has_value (), "accepted %s", text);
    fail_if (why.empty (), "no reason given for %s", text);
    gst_caps_unref (caps);
  }
}
GST_END_TEST;

/* GstOpenCLMemory's host view. With two copies (discrete devices, or GST_OPENCL_ZERO_COPY=0): a
 * host map for reading downloads the device's newer copy, a host map for writing only does not
 * (the writer replaces the frame), and the next device access uploads what the host wrote. On a
 * device that shares the host's memory (PoCL) the host maps the device buffer: the same pixels
 * both ways, and no copy at all. Counted with GST_OPENCL_COUNT_TRANSFERS=1 (set in main). */
static void
check_memory_maps (bool zero_copy)
{
  if (zero_copy)
    g_unsetenv ("GST_OPENCL_ZERO_COPY");
  else
    g_setenv ("GST_OPENCL_ZERO_COPY", "0", TRUE);
  GstOpenCLContext *context = gst_opencl_context_new ("");
  g_unsetenv ("GST_OPENCL_ZERO_COPY");
  auto & device = gst_opencl_context_device (context);
  const bool unified = device.cl_device.getInfo<CL_DEVICE_HOST_UNIFIED_MEMORY> () && zero_copy;
  fail_unless_equals_int (device.host_unified_memory, unified);
  GstVideoInfo info;
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, 16, 4);
  const size_t size = info.size;
  GstMemory *memory = gst_opencl::opencl_memory_alloc (context, &info);
  fail_unless (memory != nullptr);
  auto & queue = gst_opencl_context_device (context).queue;
  guint64 to_device = 0, to_host = 0, to_device_now = 0, to_host_now = 0;
  auto device_write = [&](cl_uchar value) {
    GstMapInfo map;
    fail_unless (gst_memory_map (memory, &map, (GstMapFlags) (GST_MAP_OPENCL | GST_MAP_WRITE)));
    queue.enqueueFillBuffer (*reinterpret_cast<cl::Buffer *> (map.data), value, 0, size);
    gst_memory_unmap (memory, &map);
  };
  auto host_bytes_equal = [&](const guint8 * data, guint8 value) {
    for (size_t i = 0; i < size; i++)
      if (data[i] != value)
        return false;
    return true;
  };

  device_write (7);
  gst_opencl_transfer_totals (&to_device, &to_host);
  GstMapInfo map;
  fail_unless (gst_memory_map (memory, &map, GST_MAP_READ));
  fail_unless (host_bytes_equal (map.data, 7), "the host did not see the device's write");
  gst_memory_unmap (memory, &map);
  gst_opencl_transfer_totals (&to_device_now, &to_host_now);
  fail_unless_equals_int (to_host_now - to_host, unified ? 0 : size);
  fail_unless_equals_int (to_device_now - to_device, 0);

  /* Written on the device again, then mapped for writing only: nothing comes back. */
  device_write (9);
  gst_opencl_transfer_totals (&to_device, &to_host);
  fail_unless (gst_memory_map (memory, &map, GST_MAP_WRITE));
  memset (map.data, 3, size);
  gst_memory_unmap (memory, &map);
  gst_opencl_transfer_totals (&to_device_now, &to_host_now);
  fail_unless_equals_int (to_host_now - to_host, 0);

  /* The device then gets the host's bytes, uploaded once. */
  fail_unless (gst_memory_map (memory, &map, (GstMapFlags) (GST_MAP_OPENCL | GST_MAP_READ)));
  std::vector<guint8> device_bytes (size);
  queue.enqueueReadBuffer (*reinterpret_cast<cl::Buffer *> (map.data), CL_TRUE, 0, size,
      device_bytes.data ());
  gst_memory_unmap (memory, &map);
  fail_unless (host_bytes_equal (device_bytes.data (), 3), "the device missed the host's write");
  gst_opencl_transfer_totals (&to_device_now, &to_host_now);
  fail_unless_equals_int (to_device_now - to_device, unified ? 0 : size);

  /* Read and write on the host: the device's copy comes first. */
  device_write (5);
  fail_unless (gst_memory_map (memory, &map, GST_MAP_READWRITE));
  fail_unless (host_bytes_equal (map.data, 5));
  /* Nested maps see the same bytes. */
  GstMapInfo inner;
  fail_unless (gst_memory_map (memory, &inner, GST_MAP_READ));
  fail_unless (host_bytes_equal (inner.data, 5));
  gst_memory_unmap (memory, &inner);
  memset (map.data, 11, size);
  gst_memory_unmap (memory, &map);
  fail_unless (gst_memory_map (memory, &map, (GstMapFlags) (GST_MAP_OPENCL | GST_MAP_READ)));
  queue.enqueueReadBuffer (*reinterpret_cast<cl::Buffer *> (map.data), CL_TRUE, 0, size,
      device_bytes.data ());
  gst_memory_unmap (memory, &map);
  fail_unless (host_bytes_equal (device_bytes.data (), 11), "the device missed the host's write");

  gst_memory_unref (memory);
  gst_object_unref (context);
}

GST_START_TEST (test_memory_maps)
{
  check_memory_maps (true);
  check_memory_maps (false);
}
GST_END_TEST;

/* A context no one holds is kept GST_OPENCL_CONTEXT_LINGER seconds for the next one on the same
 * device with the same settings, and released after that; with 0 it is released at once. The
 * OpenCL context is retained here between the two, so that a context released and created again
 * cannot come back at the same address: the same handle means the same context. */
static cl_context
context_made_after (cl_context before)
{
  GstOpenCLContext *context = gst_opencl_context_new ("");
  cl_context handle = gst_opencl_context_device (context).context ();
  gst_object_unref (context);
  return handle == before ? handle : nullptr;
}

GST_START_TEST (test_contexts_kept_for_reuse)
{
  auto hold = [] () {
    GstOpenCLContext *context = gst_opencl_context_new ("");
    cl_context handle = gst_opencl_context_device (context).context ();
    clRetainContext (handle);
    gst_object_unref (context);
    return handle;
  };
  /* Kept: the next context on the device is the same one. */
  g_setenv ("GST_OPENCL_CONTEXT_LINGER", "30", TRUE);
  cl_context first = hold ();
  fail_unless (context_made_after (first) == first, "the unused context was not taken again");
  /* Other settings: a new context (the kept one stays for a request like it). */
  g_setenv ("GST_OPENCL_MAX_ALLOC_BYTES", "1048576", TRUE);
  fail_unless (context_made_after (first) == nullptr, "a context of other settings was reused");
  g_unsetenv ("GST_OPENCL_MAX_ALLOC_BYTES");
  /* One context is kept per device: the one of the other settings took the first one's place. */
  fail_unless (context_made_after (first) == nullptr, "two contexts were kept for one device");
  clReleaseContext (first);
  /* A device of its own memory (as a discrete GPU: a pinned host copy and transfer queues of
   * its own, GST_OPENCL_ZERO_COPY=0 on a CPU device) is kept and taken again as well. */
  g_setenv ("GST_OPENCL_ZERO_COPY", "0", TRUE);
  cl_context copying = hold ();
  fail_unless (context_made_after (copying) == copying,
      "a context with transfer queues was not taken again");
  clReleaseContext (copying);
  g_unsetenv ("GST_OPENCL_ZERO_COPY");
  /* Released when its time is up. */
  g_setenv ("GST_OPENCL_CONTEXT_LINGER", "1", TRUE);
  cl_context second = hold ();
  g_usleep (2500 * G_TIME_SPAN_MILLISECOND);
  fail_unless (context_made_after (second) == nullptr, "a context was kept past its time");
  clReleaseContext (second);
  /* Not kept at all with 0. */
  g_setenv ("GST_OPENCL_CONTEXT_LINGER", "0", TRUE);
  cl_context third = hold ();
  fail_unless (context_made_after (third) == nullptr, "a context was kept with lingering off");
  clReleaseContext (third);
  g_unsetenv ("GST_OPENCL_CONTEXT_LINGER");
}
GST_END_TEST;

static Suite *
layer_suite (void)
{
  return TESTUTIL_SUITE ("opencl-layer", 300,
      test_parse_device_spec, test_error_names, test_stable_hash, test_device_selection,
      test_program_cache_memory_and_disk, test_program_cache_disabled,
      test_build_failure_carries_log, test_kernel_sources, test_kernel_includes, test_tensor_caps,
      test_variant_tuning, test_variant_tuning_report, test_memory_maps, test_contexts_kept_for_reuse);
}

int
main (int argc, char **argv)
{
  /* A private cache folder, set before GLib reads XDG_CACHE_HOME (it caches the value). */
  cache_home = g_dir_make_tmp ("gst-opencl-cache-XXXXXX", nullptr);
  g_setenv ("XDG_CACHE_HOME", cache_home, TRUE);
  g_setenv ("GST_OPENCL_COUNT_TRANSFERS", "1", TRUE);
  gst_check_init (&argc, &argv);
  GST_DEBUG_CATEGORY_INIT (gst_opencl_debug, "opencl", 0, "OpenCL shared layer");
  int failed = gst_check_run_suite (layer_suite (), "opencl-layer", __FILE__);
  gchar *command = g_strdup_printf ("rm -rf '%s'", cache_home);
  if (system (command) != 0)
    g_printerr ("could not remove %s\n", cache_home);
  g_free (command);
  g_free (cache_home);
  return failed;
}
