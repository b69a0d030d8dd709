/* gst-opencl: programs built once per (device, source, options), in memory and on disk.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>

#include "opencl/gstopenclbindings.h"

namespace gst_opencl {

/* How a program was obtained; counted per cache for tests and logs. */
struct ProgramCacheStats
{
  unsigned memory_hits = 0;
  unsigned disk_hits = 0;
  unsigned source_builds = 0;
};

/* One per OpenCL context. Programs built from source are also written to
 * $XDG_CACHE_HOME/gst-opencl/programs/<hash>.bin (hash of platform, driver version, device,
 * options and source); a later process loads that binary instead of compiling, and falls back to
 * the source whenever the binary is missing, unreadable or rejected by the driver.
 * GST_OPENCL_PROGRAM_CACHE=0 turns the disk cache off. */
class ProgramCache
{
public:
  /* Thread-safe. Throws BuildFailure (with the build log) when the source does not compile.
   * `use_disk` false keeps the program in memory only: a program loaded from a binary has no
   * kernel-argument information (-cl-kernel-arg-info needs the source). */
  cl::Program get (const cl::Context & context, const cl::Device & device,
      const std::string & name, const std::string & source, const std::string & options,
      bool use_disk = true);

  ProgramCacheStats stats () const;

  /* The file a program would be cached in (exposed for tests). */
  static std::string disk_path (const cl::Device & device, const std::string & source,
      const std::string & options);

private:
  mutable std::mutex lock_;
  std::map<std::string, cl::Program> programs_;  /* key: options + '\0' + source */
  ProgramCacheStats stats_;
};

/* 64-bit FNV-1a: stable across runs and machines, unlike std::hash. */
uint64_t stable_hash (const std::string & data, uint64_t seed = 14695981039346656037ull);

}  // namespace gst_opencl
