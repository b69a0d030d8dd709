/* gst-opencl: every GST_OPENCL_* environment variable the plugin reads, in one table, and the
 * only reads of them.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "opencl/gstopenclenv.h"

#include <gst/gst.h>

#include <cctype>
#include <mutex>
#include <set>

#include "opencl/gstopenclnametable.h"
#include "opencl/gstopenclutils.h"

#define GST_CAT_DEFAULT gst_opencl_debug

namespace gst_opencl {
namespace env {

namespace {

constexpr Entry
flag_row (Variable variable, const char *name, Read read, bool fallback, const char *effect)
{
  const char *values = fallback ? "0 or 1 (default 1)" : "0 or 1 (default 0)";
  return { variable, name, Parse::Flag, read, Malformed::Warning, values, effect, fallback,
    0, 1, { nullptr }, -1, "0 or 1" };
}

constexpr Entry
number_row (Variable variable, const char *name, Malformed malformed, guint64 min, guint64 max,
    const char *expected, const char *values, const char *effect, guint64 fallback = 0)
{
  return { variable, name, Parse::Number, Read::AtSetup, malformed, values, effect, fallback,
    min, max,
    { nullptr }, -1, expected };
}

constexpr Entry
word_row (Variable variable, const char *name, Read read, Malformed malformed,
    std::initializer_list<const char *> words, int fallback_word, const char *expected,
    const char *values, const char *effect)
{
  Entry entry { variable, name, Parse::Word, read, malformed, values, effect, 0, 0, 0,
    { nullptr }, fallback_word, expected };
  size_t i = 0;
  for (const char *word : words)
    entry.words[i++] = word;
  return entry;
}

constexpr Entry
text_row (Variable variable, const char *name, const char *values, const char *effect)
{
  return { variable, name, Parse::Text, Read::AtSetup, Malformed::Warning, values, effect, 0, 0,
    0, { nullptr }, -1, nullptr };
}

using V = Variable;

const Entry VARIABLES[] = {
  text_row (V::Device, "GST_OPENCL_DEVICE",
      "gpu, cpu or <platform substring>[:<index>] (default: the first GPU, else the first CPU "
      "device)",
      "the device of elements whose device property is empty"),
  text_row (V::KernelDir, "GST_OPENCL_KERNEL_DIR",
      "a folder (default: none)",
      "its .cl files replace the embedded kernels of the same name (kernel development); a "
      "kernel's #include \"<name>.cl\" lines are taken from there first too"),
  flag_row (V::ProgramCache, "GST_OPENCL_PROGRAM_CACHE", Read::AtSetup, true,
      "0: compiled programs are not cached on disk ($XDG_CACHE_HOME/gst-opencl/programs/)"),
  number_row (V::MaxAllocBytes, "GST_OPENCL_MAX_ALLOC_BYTES", Malformed::Error, 1, G_MAXUINT64,
      "a number of bytes",
      "a whole number of bytes from 1 (default: the device's limit); anything else is an error "
      "when an element starts",
      "lowers the largest single allocation the plugin makes on a device"),
  number_row (V::LocalMemBytes, "GST_OPENCL_LOCAL_MEM_BYTES", Malformed::Warning, 1024,
      G_MAXUINT64, "a number of bytes",
      "a whole number of bytes from 1024 (default: the device's local memory)",
      "lowers the local memory the kernels plan their tiles for (tests: a GPU's 48 KiB on a CPU "
      "device)"),
  text_row (V::Variant, "GST_OPENCL_VARIANT_<FAMILY>",
      "a variant's name (default: the one timed on first use, or cached); families: BILATERAL, "
      "HISTOGRAM, CONVOLUTION (any variant string), MANDELBOX, SORT, SORT_RADIX, SORT_ONESWEEP, "
      "SORT_LONG; a name that is no variant of the family is an error",
      "forces one kernel variant of a tuned family"),
  flag_row (V::Tuning, "GST_OPENCL_TUNING", Read::AtSetup, true,
      "0: each tuned family takes its default variant for the device: no timing, no tuning "
      "cache"),
  flag_row (V::TuningCache, "GST_OPENCL_TUNING_CACHE", Read::AtSetup, true,
      "0: variants are timed as usual but the choices stay in the process: the tuning cache on "
      "disk is neither read nor written"),
  flag_row (V::HostFrames, "GST_OPENCL_HOST_FRAMES", Read::AtSetup, true,
      "0: no pools of the plugin's memory for system-memory frames: every frame is copied in "
      "and out by the element"),
  flag_row (V::ZeroCopy, "GST_OPENCL_ZERO_COPY", Read::AtSetup, true,
      "0: a device that shares the host's memory still keeps a separate, pinned host copy"),
  flag_row (V::TransferQueues, "GST_OPENCL_TRANSFER_QUEUES", Read::AtSetup, true,
      "0: copies between host and device on the kernels' queue, not on upload and download "
      "queues of their own"),
  word_row (V::TransferOrder, "GST_OPENCL_TRANSFER_ORDER", Read::AtSetup, Malformed::Warning,
      { "host", "events", "host-upload" }, 0, "an order",
      "host, events or host-upload (default host)",
      "how the copies of the transfer queues are ordered with the kernels"),
  word_row (V::CudaOrder, "GST_OPENCL_CUDA_ORDER", Read::AtSetup, Malformed::Warning,
      { "host", "semaphores" }, 0, "an order",
      "host or semaphores (default host)",
      "how copies of CUDA memory are ordered with the kernels: host waits, or semaphores on the "
      "device where the drivers (or Vulkan) give them"),
  flag_row (V::CudaPeers, "GST_OPENCL_CUDA_PEERS", Read::AtSetup, true,
      "0: frames in CUDA memory of another GPU than the element's pass through host memory, "
      "never by a peer copy between the GPUs"),
  word_row (V::GlInterop, "GST_OPENCL_GL_INTEROP", Read::AtSetup, Malformed::Error,
      { "host-copy", "external-memory", "khr-gl-sharing" }, -1, "a path",
      "host-copy, external-memory or khr-gl-sharing (default: the best the drivers allow); "
      "anything else is an error",
      "the GL interop path; one the drivers cannot give is a warning on the bus"),
  word_row (V::GlCopy, "GST_OPENCL_GL_COPY", Read::Once, Malformed::Warning,
      { "pixels", "staged" }, -1, "a copy mode",
      "pixels or staged (default: compute shaders)",
      "the external-memory GL path copies frames with pixel buffers, or through a GL buffer "
      "first"),
  word_row (V::GlOrder, "GST_OPENCL_GL_ORDER", Read::AtSetup, Malformed::Warning,
      { "host", "semaphores" }, 1, "an order",
      "host or semaphores (default semaphores)",
      "how the external-memory GL path orders GL's copies with the kernels: semaphores on the "
      "device where GL and OpenCL (or Vulkan) give them, else host waits"),
  flag_row (V::Checked, "GST_OPENCL_CHECKED", Read::AtSetup, false,
      "1: openclkernel and openclkernelsrc in checked mode, as their checked property"),
  flag_row (V::ImageViews, "GST_OPENCL_IMAGE_VIEWS", Read::Once, true,
      "0: openclkernel's image kernels get copies of the frames, never images viewing their "
      "buffers"),
  flag_row (V::CountTransfers, "GST_OPENCL_COUNT_TRANSFERS", Read::Once, false,
      "1: the bytes moved between host and device are counted (gst_opencl_transfer_totals), "
      "and the elements' kernel launches (gst_opencl_launch_totals)"),
  word_row (V::BilateralTile, "GST_OPENCL_BILATERAL_TILE", Read::AtSetup, Malformed::Warning,
      { "float", "byte" }, -1, "a tile",
      "float or byte (default: the variant chosen as usual)",
      "without GST_OPENCL_VARIANT_BILATERAL, openclbilateral's tiled kernel with that tile, on "
      "any device (tests)"),
  number_row (V::CpuLanes, "GST_OPENCL_CPU_LANES", Malformed::Warning, 1, 64, "a lane count",
      "1 to 64 (default: the device's native float vector width)",
      "the vector width openclmandelboxsrc chooses its CPU variant by (tests, comparisons)"),
  number_row (V::HistogramGroups, "GST_OPENCL_HISTOGRAM_GROUPS", Malformed::Warning, 0,
      G_MAXUINT32, "a number of work-groups",
      "0 to 4294967295 (default 0: as many as the device's compute units ask for)",
      "the work-groups per plane of openclhistogram's counting (tests, measurements)"),
  word_row (V::ConvertFast, "GST_OPENCL_CONVERT_FAST", Read::AtSetup, Malformed::Warning,
      { "0", "1", "runs", "blocks" }, 1, "0, 1, runs or blocks",
      "0, 1, runs or blocks (default 1)",
      "0: openclconvertscale and the sources convert with the general kernel only, never an "
      "unscaled or halving one; runs or blocks: that unscaled kernel on any device, where one "
      "applies; 1: the device's; every value but 0 also halves 8-bit RGBA/BGRA with the "
      "halving kernel (tests, comparisons)"),
  number_row (V::ConvertGroup, "GST_OPENCL_CONVERT_GROUP", Malformed::Warning, 0, 1024,
      "a work-group width",
      "0 to 1024 (default: 4 times the kernel's preferred multiple on a GPU, the driver's "
      "choice elsewhere)",
      "N: openclconvertscale's and the sources' conversion kernels run in work-groups of N x 1 "
      "work-items; 0: of the driver's choice (measurements)"),
  number_row (V::ContextLinger, "GST_OPENCL_CONTEXT_LINGER", Malformed::Warning, 0, 3600,
      "a number of seconds",
      "0 to 3600 seconds (default 5)",
      "how long an OpenCL context that no pipeline uses any more is kept for the next one on "
      "the same device, rather than released (creating one takes about a second on NVIDIA's "
      "driver); 0: released at once", 5),
};

/* The Read::Once values, by row. */
std::once_flag once_flags[G_N_ELEMENTS (VARIABLES)];
std::string once_values[G_N_ELEMENTS (VARIABLES)];

std::mutex told_lock;
std::set<std::string> told;  /* "NAME=value" of the malformed values warned of */

std::string
read_now (const char *name)
{
  const char *value = g_getenv (name);
  return value ? value : "";
}

/* The value of the row's variable: "" when unset or empty. */
std::string
value_of (const Entry & row)
{
  if (row.read == Read::AtSetup)
    return read_now (row.name);
  const size_t index = (size_t) (&row - VARIABLES);
  std::call_once (once_flags[index], [&] () { once_values[index] = read_now (row.name); });
  return once_values[index];
}

std::string
expected_of (const Entry & row)
{
  switch (row.parse) {
    case Parse::Flag:
      return row.expected;
    case Parse::Number:
      return std::string (row.expected) + " (a whole number from " + std::to_string (row.min) +
          (row.max == G_MAXUINT64 ? "" : " to " + std::to_string (row.max)) + ")";
    case Parse::Word:{
      std::string words;
      size_t n = 0;
      while (n < G_N_ELEMENTS (row.words) && row.words[n])
        n++;
      for (size_t i = 0; i < n; i++)
        words += std::string (i == 0 ? "" : i + 1 == n ? " or " : ", ") + row.words[i];
      return std::string (row.expected) + ": " + words;
    }
    case Parse::Text:
      break;
  }
  return "";
}

/* A malformed value: an error for the rows that say so, else one warning per variable and
 * value. */
void
malformed (const Entry & row, const std::string & value)
{
  const std::string message = std::string (row.name) + "=" + value + " is not " +
      expected_of (row);
  if (row.malformed == Malformed::Error)
    throw Failure (Failure::Kind::Settings, message);
  {
    std::lock_guard<std::mutex> guard (told_lock);
    if (!told.insert (std::string (row.name) + "=" + value).second)
      return;
  }
  GST_WARNING ("%s; ignored, the default is used", message.c_str ());
}

const Entry &
checked_entry (Variable variable, Parse parse)
{
  const Entry & row = entry (variable);
  g_assert (row.parse == parse);
  return row;
}

}  // namespace

const char *const FAMILIES[] = { "bilateral", "histogram", "convolution", "mandelbox", "sort",
  "sort-radix", "sort-onesweep", "sort-long", nullptr };

const Entry *
table (size_t * n_entries)
{
  *n_entries = G_N_ELEMENTS (VARIABLES);
  return VARIABLES;
}

const Entry &
entry (Variable variable)
{
  const Entry *row = entry_with (VARIABLES, &Entry::variable, variable);
  g_assert (row);
  return *row;
}

bool
flag (Variable variable)
{
  const Entry & row = checked_entry (variable, Parse::Flag);
  const std::string value = value_of (row);
  if (value == "0" || value == "1")
    return value == "1";
  if (!value.empty ())
    malformed (row, value);
  return row.fallback != 0;
}

guint64
number (Variable variable)
{
  const Entry & row = checked_entry (variable, Parse::Number);
  const std::string value = value_of (row);
  guint64 parsed = 0;
  if (value.empty ())
    return row.fallback;
  if (g_ascii_string_to_unsigned (value.c_str (), 10, row.min, row.max, &parsed, nullptr))
    return parsed;
  malformed (row, value);
  return row.fallback;
}

int
word (Variable variable)
{
  const Entry & row = checked_entry (variable, Parse::Word);
  const std::string value = value_of (row);
  if (value.empty ())
    return row.fallback_word;
  for (size_t i = 0; i < G_N_ELEMENTS (row.words) && row.words[i]; i++)
    if (value == row.words[i])
      return (int) i;
  malformed (row, value);
  return row.fallback_word;
}

std::string
text (Variable variable)
{
  return value_of (checked_entry (variable, Parse::Text));
}

bool
is_set (Variable variable)
{
  return !value_of (entry (variable)).empty ();
}

std::string
variant_name (const std::string & family)
{
  std::string name = "GST_OPENCL_VARIANT_";
  for (unsigned char c : family)
    name += std::isalnum (c) ? (char) std::toupper (c) : '_';
  return name;
}

std::string
variant (const std::string & family)
{
  return read_now (variant_name (family).c_str ());
}

}  // namespace env
}  // namespace gst_opencl
