/* gst-opencl: picks the fastest of a few kernel variants per device, once, and remembers it.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "opencl/gstopencltuning.h"

#include <gst/gst.h>

#include <algorithm>
#include <cctype>
#include <exception>
#include <map>
#include <mutex>

#include "opencl/gstopenclenv.h"
#include "opencl/gstopenclnametable.h"
#include "opencl/gstopenclprogram.h"
#include "opencl/gstopenclutils.h"

GST_DEBUG_CATEGORY_STATIC (gst_opencl_tuning_debug);
#define GST_CAT_DEFAULT gst_opencl_tuning_debug

namespace gst_opencl {

namespace {

std::mutex choices_lock;
std::map<std::string, std::string> choices;  /* disk path -> chosen name, this process */

void
init_debug ()
{
  static std::once_flag once;
  std::call_once (once, [] () {
    GST_DEBUG_CATEGORY_INIT (gst_opencl_tuning_debug, "opencltuning", 0,
        "OpenCL kernel variant tuning");
  });
}

long
find_candidate (const std::vector<TuningCandidate> & candidates, const std::string & name)
{
  for (size_t i = 0; i < candidates.size (); i++)
    if (candidates[i].name == name)
      return (long) i;
  return -1;
}

std::string
read_disk_choice (const std::string & path)
{
  gchar *contents = nullptr;
  if (!g_file_get_contents (path.c_str (), &contents, nullptr, nullptr))
    return "";
  std::string text (contents);
  g_free (contents);
  while (!text.empty () && std::isspace ((unsigned char) text.back ()))
    text.pop_back ();
  return text;
}

void
write_disk_choice (const std::string & path, const std::string & name)
{
  gchar *folder = g_path_get_dirname (path.c_str ());
  g_mkdir_with_parents (folder, 0755);
  g_free (folder);
  GError *error = nullptr;
  const std::string text = name + "\n";
  if (!g_file_set_contents (path.c_str (), text.c_str (), (gssize) text.size (), &error)) {
    GST_WARNING ("cannot write tuning cache %s: %s", path.c_str (), error->message);
    g_clear_error (&error);
  }
}

double
median (std::vector<double> values)
{
  std::sort (values.begin (), values.end ());
  const size_t n = values.size ();
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

/* The name GST_OPENCL_VARIANT_<FAMILY> forces when it is none of the candidates and
 * accepts_forced takes it as it is; empty otherwise. */
std::string
forced_outside_candidates (const std::string & family,
    const std::vector<TuningCandidate> & candidates,
    const std::function<bool (const std::string &)> & accepts_forced)
{
  const std::string forced_name = env::variant (family);
  if (forced_name.empty () || !accepts_forced || find_candidate (candidates, forced_name) >= 0 ||
      !accepts_forced (forced_name))
    return "";
  GST_INFO ("%s: variant %s forced by %s", family.c_str (), forced_name.c_str (),
      variant_environment_name (family).c_str ());
  return forced_name;
}

/* A kernel that does not build is reported as such, with its log; any other last failure is
 * named in the message. */
[[noreturn]] void
throw_no_variant_ran (const std::string & family, const std::exception_ptr & last_failure)
{
  std::string why;
  if (last_failure) {
    try {
      std::rethrow_exception (last_failure);
    } catch (const BuildFailure &) {
      throw;
    } catch (...) {
      why = ": " + describe_exception (last_failure);
    }
  }
  throw Failure (Failure::Kind::Failed, "no variant of " + family + " could run" + why);
}

/* Times each candidate marked to be timed (a warm-up, then the median of `runs` runs) into
 * median_ms and returns the fastest; a candidate that fails is skipped, and when none runs the
 * last failure says why. */
size_t
time_candidates (const std::string & family, const std::string & key,
    const std::vector<TuningCandidate> & candidates,
    const std::function<double (size_t)> & time_one, int runs, std::vector<double> & median_ms)
{
  long best = -1;
  double best_ms = 0.0;
  std::exception_ptr last_failure;
  for (size_t i = 0; i < candidates.size (); i++) {
    if (!candidates[i].timed)
      continue;
    try {
      time_one (i);             /* warm-up: the build, first touches */
      std::vector<double> times;
      for (int r = 0; r < std::max (1, runs); r++)
        times.push_back (time_one (i));
      const double ms = median (times);
      median_ms[i] = ms;
      GST_INFO ("%s [%s]: variant %s %.3f ms", family.c_str (), key.c_str (),
          candidates[i].name.c_str (), ms);
      if (best < 0 || ms < best_ms) {
        best = (long) i;
        best_ms = ms;
      }
    } catch (const std::exception & e) {
      GST_INFO ("%s [%s]: variant %s skipped: %s", family.c_str (), key.c_str (),
          candidates[i].name.c_str (), e.what ());
      last_failure = std::current_exception ();
    }
  }
  if (best < 0)
    throw_no_variant_ran (family, last_failure);
  return (size_t) best;
}

}  // namespace

std::string
variant_environment_name (const std::string & family)
{
  return env::variant_name (family);
}

std::string
tuning_disk_path (const cl::Device & device, const std::string & family, const std::string & key)
{
  cl::Platform platform (device.getInfo<CL_DEVICE_PLATFORM> ());
  std::string identity = platform.getInfo<CL_PLATFORM_NAME> () + '\0' +
      platform.getInfo<CL_PLATFORM_VERSION> () + '\0' + device.getInfo<CL_DEVICE_NAME> () +
      '\0' + device.getInfo<CL_DRIVER_VERSION> () + '\0' + family + '\0' + key;
  gchar name[32];
  g_snprintf (name, sizeof name, "%016" G_GINT64_MODIFIER "x", (guint64) stable_hash (identity));
  gchar *path = g_build_filename (g_get_user_cache_dir (), "gst-opencl", "tuning", name, nullptr);
  std::string result (path);
  g_free (path);
  return result;
}

double
event_milliseconds (const cl::Event & event)
{
  const cl_ulong start = event.getProfilingInfo<CL_PROFILING_COMMAND_START> ();
  const cl_ulong end = event.getProfilingInfo<CL_PROFILING_COMMAND_END> ();
  return end > start ? (double) (end - start) * 1e-6 : 0.0;
}

long
forced_variant (const std::string & family, const std::vector<TuningCandidate> & candidates)
{
  init_debug ();
  const std::string variable = variant_environment_name (family);
  const std::string forced = env::variant (family);
  if (forced.empty ())
    return -1;
  long index = find_candidate (candidates, forced);
  if (index < 0) {
    std::string names;
    for (const auto & c : candidates)
      names += (names.empty () ? "" : ", ") + c.name;
    throw Failure (Failure::Kind::Settings, variable + "=" + forced + " names no variant of " +
        family + " (" + names + ")");
  }
  GST_INFO ("%s: variant %s forced by %s", family.c_str (), forced.c_str (), variable.c_str ());
  return index;
}

const char *
TuningChoice::source_name (Source source)
{
  static constexpr NamedValue<Source> names[] = {
    { Source::Forced, "forced" }, { Source::Default, "default" },
    { Source::Remembered, "remembered" }, { Source::Cached, "cached" }, { Source::Timed, "timed" },
  };
  return name_of (names, source, "?");
}

size_t
choose_variant (const cl::Device & device, const std::string & family, const std::string & key,
    const std::vector<TuningCandidate> & candidates,
    const std::function<double (size_t)> & time_one, int runs)
{
  return tune_variant (device, family, key, candidates, time_one, runs).index;
}

TuningChoice
tune_variant (const cl::Device & device, const std::string & family, const std::string & key,
    const std::vector<TuningCandidate> & candidates,
    const std::function<double (size_t)> & time_one, int runs,
    const std::function<bool (const std::string &)> & accepts_forced)
{
  init_debug ();
  if (candidates.empty ())
    throw Failure (Failure::Kind::Settings, "no variants of " + family + " to choose from");
  TuningChoice choice;
  choice.median_ms.assign (candidates.size (), -1.0);
  auto chosen = [&](size_t index, TuningChoice::Source source) {
    choice.index = index;
    choice.name = candidates[index].name;
    choice.source = source;
    return choice;
  };

  const std::string forced_name = forced_outside_candidates (family, candidates, accepts_forced);
  if (!forced_name.empty ()) {
    choice.index = candidates.size ();
    choice.name = forced_name;
    choice.source = TuningChoice::Source::Forced;
    return choice;
  }
  const long forced = forced_variant (family, candidates);
  if (forced >= 0)
    return chosen ((size_t) forced, TuningChoice::Source::Forced);

  if (!env::flag (env::Variable::Tuning))
    return chosen (0, TuningChoice::Source::Default);

  const std::string path = tuning_disk_path (device, family, key);
  /* The lock guards the remembered choices, not the timing: a candidate's timing may choose a
   * variant of another family itself (the sort-long candidates build radix sorts, whose shape
   * is tuned too), and the lock is not recursive. */
  std::unique_lock<std::mutex> guard (choices_lock);
  auto known = choices.find (path);
  if (known != choices.end ()) {
    long index = find_candidate (candidates, known->second);
    if (index >= 0)
      return chosen ((size_t) index, TuningChoice::Source::Remembered);
  }
  /* GST_OPENCL_TUNING_CACHE=0 keeps choices in this process only. */
  const bool use_disk = env::flag (env::Variable::TuningCache);
  long cached = use_disk ? find_candidate (candidates, read_disk_choice (path)) : -1;
  if (cached >= 0) {
    GST_INFO ("%s [%s]: variant %s from %s", family.c_str (), key.c_str (),
        candidates[cached].name.c_str (), path.c_str ());
    choices[path] = candidates[cached].name;
    return chosen ((size_t) cached, TuningChoice::Source::Cached);
  }
  guard.unlock ();
  const size_t best = time_candidates (family, key, candidates, time_one, runs, choice.median_ms);
  guard.lock ();
  GST_INFO ("%s [%s]: chose %s%s%s", family.c_str (), key.c_str (),
      candidates[best].name.c_str (), use_disk ? ", cached in " : "",
      use_disk ? path.c_str () : "");
  choices[path] = candidates[best].name;
  if (use_disk)
    write_disk_choice (path, candidates[best].name);
  return chosen (best, TuningChoice::Source::Timed);
}

}  // namespace gst_opencl
