/* gst-opencl: programs built once per (device, source, options), in memory and on disk.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "opencl/gstopenclprogram.h"

#include <gst/gst.h>
#include <glib/gstdio.h>

#include "opencl/gstopenclenv.h"
#include "opencl/gstopenclutils.h"

#define GST_CAT_DEFAULT gst_opencl_debug

namespace gst_opencl {

uint64_t
stable_hash (const std::string & data, uint64_t seed)
{
  uint64_t hash = seed;
  for (unsigned char byte : data) {
    hash ^= byte;
    hash *= 1099511628211ull;
  }
  return hash;
}

static bool
disk_cache_enabled ()
{
  return env::flag (env::Variable::ProgramCache);
}

std::string
ProgramCache::disk_path (const cl::Device & device, const std::string & source,
    const std::string & options)
{
  cl::Platform platform (device.getInfo<CL_DEVICE_PLATFORM> ());
  /* Fields are separated by NUL so that no two different tuples hash the same text. */
  std::string identity = platform.getInfo<CL_PLATFORM_NAME> () + '\0' +
      platform.getInfo<CL_PLATFORM_VERSION> () + '\0' + device.getInfo<CL_DEVICE_NAME> () +
      '\0' + device.getInfo<CL_DRIVER_VERSION> () + '\0' + device.getInfo<CL_DEVICE_VERSION> () +
      '\0' + options + '\0' + source;
  uint64_t hash = stable_hash (identity);
  gchar name[32];
  g_snprintf (name, sizeof name, "%016" G_GINT64_MODIFIER "x.bin", (guint64) hash);
  gchar *path = g_build_filename (g_get_user_cache_dir (), "gst-opencl", "programs", name,
      nullptr);
  std::string result (path);
  g_free (path);
  return result;
}

static std::string
build_log (const cl::Program & program, const cl::Device & device)
{
  try {
    return program.getBuildInfo<CL_PROGRAM_BUILD_LOG> (device);
  } catch (const cl::Error &) {
    return "(no build log)";
  }
}

static bool
try_load_binary (const cl::Context & context, const cl::Device & device,
    const std::string & path, const std::string & options, cl::Program & out)
{
  gchar *contents = nullptr;
  gsize length = 0;
  if (!g_file_get_contents (path.c_str (), &contents, &length, nullptr))
    return false;
  bool ok = false;
  try {
    cl::Program::Binaries binaries { std::vector<unsigned char> (contents, contents + length) };
    std::vector<cl_int> status;
    cl::Program program (context, { device }, binaries, &status);
    program.build ({ device }, options.c_str ());
    out = program;
    ok = true;
  } catch (const cl::Error & e) {
    /* A stale or foreign binary: rebuild from source and overwrite it. */
    GST_INFO ("cached binary %s rejected (%s: %s), building from source", path.c_str (),
        e.what (), gst_opencl_error_name (e.err ()));
  }
  g_free (contents);
  return ok;
}

static void
store_binary (const cl::Program & program, const std::string & path)
{
  try {
    auto binaries = program.getInfo<CL_PROGRAM_BINARIES> ();
    if (binaries.size () != 1 || binaries[0].empty ())
      return;
    gchar *dir = g_path_get_dirname (path.c_str ());
    g_mkdir_with_parents (dir, 0700);
    g_free (dir);
    /* g_file_set_contents writes a temporary file and renames it: readers never see half. */
    GError *error = nullptr;
    if (!g_file_set_contents (path.c_str (), (const gchar *) binaries[0].data (),
            (gssize) binaries[0].size (), &error)) {
      GST_WARNING ("cannot write program cache %s: %s", path.c_str (), error->message);
      g_clear_error (&error);
    }
  } catch (const cl::Error & e) {
    GST_INFO ("driver gives no program binary (%s), not caching on disk",
        gst_opencl_error_name (e.err ()));
  }
}

/* The options a build from source is given. Compiler warnings stay off the user's terminal:
 * PoCL's compiler prints "N warnings generated." on stderr for every program with a warning
 * (every element start, in gst-launch-1.0 and applications alike), so builds inhibit warnings
 * (-w, an OpenCL build option) unless this category's debug log is at DEBUG or above, where the
 * build log, warnings included, is logged instead. Errors are never inhibited: a failed build's
 * log goes into the error message. */
static bool
build_logs_wanted ()
{
  /* The category is null in programs that link the layer without registering it. */
  return gst_opencl_debug &&
      gst_debug_category_get_threshold (gst_opencl_debug) >= GST_LEVEL_DEBUG;
}

static std::string
driver_options (const std::string & options)
{
  if (build_logs_wanted ())
    return options;
  return options.empty () ? "-w" : options + " -w";
}

cl::Program
ProgramCache::get (const cl::Context & context, const cl::Device & device,
    const std::string & name, const std::string & source, const std::string & options,
    bool use_disk)
{
  std::lock_guard<std::mutex> guard (lock_);
  std::string key = options + '\0' + source;
  auto found = programs_.find (key);
  if (found != programs_.end ()) {
    stats_.memory_hits++;
    return found->second;
  }

  std::string path;
  if (use_disk && disk_cache_enabled ()) {
    path = disk_path (device, source, options);
    cl::Program program;
    if (try_load_binary (context, device, path, options, program)) {
      GST_DEBUG ("program %s [%s] loaded from %s", name.c_str (), options.c_str (),
          path.c_str ());
      stats_.disk_hits++;
      programs_.emplace (key, program);
      return program;
    }
  }

  GST_INFO ("building program %s [%s] from source", name.c_str (), options.c_str ());
  cl::Program program (context, source);
  try {
    program.build ({ device }, driver_options (options).c_str ());
  } catch (const cl::Error & e) {
    std::string log = build_log (program, device);
    throw BuildFailure ("kernel " + name + " failed to build (" +
        gst_opencl_error_name (e.err ()) + ")", log);
  }
  if (build_logs_wanted ()) {
    std::string log = build_log (program, device);
    if (log.find_first_not_of (" \t\r\n") != std::string::npos)
      GST_DEBUG ("build log of program %s [%s]:\n%s", name.c_str (), options.c_str (),
          log.c_str ());
  }
  stats_.source_builds++;
  if (!path.empty ())
    store_binary (program, path);
  programs_.emplace (key, program);
  return program;
}

ProgramCacheStats
ProgramCache::stats () const
{
  std::lock_guard<std::mutex> guard (lock_);
  return stats_;
}

}  // namespace gst_opencl
