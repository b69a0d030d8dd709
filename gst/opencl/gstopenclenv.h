/* gst-opencl: every GST_OPENCL_* environment variable the plugin reads, in one table, and the
 * only reads of them.
 *
 * VARIABLES (gstopenclenv.cpp) has one row per variable: its name, what it does, its values and
 * default, how its value is parsed (a flag, 0 or 1; a whole number in a range; one of a few
 * words; text) and when it is read. The code asks through the typed accessors below and nothing
 * else in gst/ calls getenv: the `environment` test scans the sources for one, and checks the
 * README's table of variables against this one, both ways.
 *
 * When a variable is read (Read in its row):
 * - Read::Once, on first use, once per process (thread-safe): GST_OPENCL_COUNT_TRANSFERS,
 *   GST_OPENCL_IMAGE_VIEWS, GST_OPENCL_GL_COPY;
 * - Read::AtSetup, every time the code that uses it sets up, so that a program (the tests do)
 *   may change it between pipelines: when a context is created (GST_OPENCL_DEVICE,
 *   GST_OPENCL_MAX_ALLOC_BYTES, GST_OPENCL_ZERO_COPY, GST_OPENCL_TRANSFER_QUEUES,
 *   GST_OPENCL_TRANSFER_ORDER), when a context is let go (GST_OPENCL_CONTEXT_LINGER), when an element decides its allocation (GST_OPENCL_HOST_FRAMES),
 *   when a kernel is built (GST_OPENCL_KERNEL_DIR, GST_OPENCL_PROGRAM_CACHE), when a kernel
 *   variant is chosen (GST_OPENCL_TUNING, GST_OPENCL_TUNING_CACHE, GST_OPENCL_VARIANT_<FAMILY>,
 *   GST_OPENCL_BILATERAL_TILE, GST_OPENCL_CPU_LANES, GST_OPENCL_HISTOGRAM_GROUPS,
 *   GST_OPENCL_CONVERT_FAST; a device sort
 *   reads its variables when it is made or on its first sort), when caps are set
 *   (GST_OPENCL_CHECKED, and GST_OPENCL_CUDA_ORDER and GST_OPENCL_CUDA_PEERS for CUDA memory)
 *   and when the GL interop is set up (GST_OPENCL_GL_INTEROP). Never per
 *   frame.
 *
 * An empty value is as the variable unset. A malformed value (a flag that is not 0 or 1, a
 * number out of its range or no number, a word that is none of the row's) gives one GST_WARNING
 * per variable and value, "<NAME>=<value> is not <what is expected>; ignored, the default is
 * used"; except in the rows marked Malformed::Error, whose accessors throw Failure (Settings)
 * with that message: GST_OPENCL_MAX_ALLOC_BYTES (the element's error when it starts: a limit
 * asked for is not dropped quietly) and GST_OPENCL_GL_INTEROP (the GL interop warns and takes the
 * best path). Text (a device string, a folder, a variant's name) is checked where it is used.
 *
 * GST_OPENCL_TEST_* variables are the test suite's own (tests/), not the plugin's.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>

#include <cstddef>
#include <string>

namespace gst_opencl {
namespace env {

enum class Variable
{
  Device,
  KernelDir,
  ProgramCache,
  MaxAllocBytes,
  LocalMemBytes,
  Variant,          /* GST_OPENCL_VARIANT_<FAMILY>: one row for every family */
  Tuning,
  TuningCache,
  HostFrames,
  ZeroCopy,
  TransferQueues,
  TransferOrder,
  CudaOrder,
  CudaPeers,
  GlInterop,
  GlCopy,
  GlOrder,
  Checked,
  ImageViews,
  CountTransfers,
  BilateralTile,
  CpuLanes,
  HistogramGroups,
  ConvertFast,
  ConvertGroup,
  ContextLinger,
};

enum class Parse { Flag, Number, Word, Text };
enum class Read { Once, AtSetup };
enum class Malformed { Warning, Error };

/* One variable. `values` and `effect` are what the README's table says of it. */
struct Entry
{
  Variable variable;
  const char *name;
  Parse parse;
  Read read;
  Malformed malformed;
  const char *values;     /* the values it takes and its default */
  const char *effect;     /* what it does */
  /* Flag: the default, 0 or 1. Number: the default (when unset or malformed). */
  guint64 fallback;
  /* Number: the range. */
  guint64 min, max;
  /* Word: the words, up to the first nullptr; `fallback_word` is the default's index, -1 when
   * unset means nothing asked for (the caller's own choice). */
  const char *words[4];
  int fallback_word;
  /* Number, Word: what a value must be, in a malformed value's message ("a lane count"). */
  const char *expected;
};

/* Every variable, in the README's order. */
const Entry *table (size_t * n_entries);
const Entry & entry (Variable variable);

/* The tuned kernel families (GST_OPENCL_VARIANT_<FAMILY> for each), nullptr after the last. */
extern const char *const FAMILIES[];

/* Parse::Flag: whether the variable is 1 (its default when unset or malformed). */
bool flag (Variable variable);
/* Parse::Number: its value, or the default when unset or malformed. */
guint64 number (Variable variable);
/* Parse::Word: the index of its word in the row's words, or the default's (-1: unset). */
int word (Variable variable);
/* Parse::Text: its value, "" when unset. */
std::string text (Variable variable);
/* Whether the variable is set (to anything but ""). */
bool is_set (Variable variable);

/* "GST_OPENCL_VARIANT_BILATERAL" for "bilateral": upper case, non-alphanumerics as '_'. */
std::string variant_name (const std::string & family);
/* GST_OPENCL_VARIANT_<FAMILY>'s value, "" when unset (the family's users check the name). */
std::string variant (const std::string & family);

}  // namespace env
}  // namespace gst_opencl
