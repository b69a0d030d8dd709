/* gst-opencl: picks the fastest of a few kernel variants per device, once, and remembers it.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "opencl/gstopenclbindings.h"

namespace gst_opencl {

/* One variant of a kernel family: a name (what GST_OPENCL_VARIANT_<FAMILY> selects) and whether
 * it takes part in timing on this device (variants that cannot win there are only selectable). */
struct TuningCandidate
{
  std::string name;
  bool timed = true;
};

/* Chooses a variant of `family` (e.g. "bilateral") for `key` (what else the variants depend
 * on, e.g. channels, mode and radius; include a hash of the kernel source so that a changed kernel
 * is timed again). In this order:
 *  1. GST_OPENCL_VARIANT_<FAMILY> (upper case, non-alphanumerics as '_'): the candidate of that
 *     name; a name that is not a candidate throws Failure (Settings) listing the names (unless
 *     tune_variant's `accepts_forced` takes it);
 *  2. GST_OPENCL_TUNING=0: the first candidate (the family's default for the device), whatever
 *     is cached (tests use it to stay fast and deterministic);
 *  3. the choice made earlier in this process for the same device, family and key;
 *  4. $XDG_CACHE_HOME/gst-opencl/tuning/<hash>, the choice of an earlier process (not read nor
 *     written with GST_OPENCL_TUNING_CACHE=0);
 *  5. timing: `time_one (index)` returns the device time in ms of one launch of that candidate
 *     (it builds what it needs, waits for the launch and reads its profiling event); each timed
 *     candidate runs once to warm up and then `runs` times, the lowest median wins and is written
 *     to the disk cache. A candidate whose time_one throws is skipped (logged).
 * Returns the index of the chosen candidate. Thread-safe. Throws Failure when no candidate
 * could be timed (naming the last candidate's error), or the last candidate's BuildFailure,
 * build log included, when that is why. */
size_t choose_variant (const cl::Device & device, const std::string & family,
    const std::string & key, const std::vector<TuningCandidate> & candidates,
    const std::function<double (size_t)> & time_one, int runs = 3);

/* Step 1 of choose_variant on its own, for families whose choice is not timed: the index of
 * the candidate GST_OPENCL_VARIANT_<FAMILY> names, -1 when the variable is unset. Throws Failure
 * (Settings) listing the names when it names none of them. */
long forced_variant (const std::string & family,
    const std::vector<TuningCandidate> & candidates);

/* What tune_variant chose, and how. */
struct TuningChoice
{
  enum class Source { Forced, Default, Remembered, Cached, Timed };

  /* Index into the candidates; candidates.size () for a forced name that is none of them. */
  size_t index = 0;
  std::string name;
  Source source = Source::Default;
  /* Per candidate: the median in ms when this call timed it, else negative. */
  std::vector<double> median_ms;

  static const char *source_name (Source source);
};

/* choose_variant, telling how it chose; with `accepts_forced`, a forced name that is not among
 * the candidates is taken as it is when accepts_forced (name) is true (families whose variants
 * are described by parameters, of which only a few are timed, use it). */
TuningChoice tune_variant (const cl::Device & device, const std::string & family,
    const std::string & key, const std::vector<TuningCandidate> & candidates,
    const std::function<double (size_t)> & time_one, int runs = 3,
    const std::function<bool (const std::string &)> & accepts_forced = {});

/* The file a choice is cached in (exposed for tests). */
std::string tuning_disk_path (const cl::Device & device, const std::string & family,
    const std::string & key);

/* "GST_OPENCL_VARIANT_BILATERAL" for "bilateral". */
std::string variant_environment_name (const std::string & family);

/* Device time of a completed event in milliseconds (profiling queue). */
double event_milliseconds (const cl::Event & event);

}  // namespace gst_opencl
