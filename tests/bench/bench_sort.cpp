/* gst-opencl: benchmark of the device sort (gst_opencl::DeviceSort, the sort openclsort runs):
 * its bitonic network and its two radix sorts (five launches per pass, and onesweep) against
 * std::sort on one core, the table of the bitonic-sort article.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * For every size 2^n it makes random non-negative int32 keys (std::mt19937, fixed seed; --rows
 * rows of 2^n keys for a batch), then measures in turns (so all see the same load on a shared
 * machine):
 *   - std::sort on a copy, on this one thread, --cpu-runs times (median);
 *   - each sort of the device sort (--algorithms: the bitonic network, the radix sort, the
 *     onesweep sort) on the row(s), --runs times after --warmup runs: the keys are copied on the device into
 *     the work buffer (not timed), the sort is enqueued (every launch records a profiling
 *     event, nothing waits in between), and the queue is finished once. Per run it records the
 *     kernel time (sum of the launches' END - START), the device span (first START to last
 *     END: kernel time plus the gaps between launches) and the host wall time from the first
 *     enqueue to the end of finish ().
 * The top-level figures of a size are those of the sort DeviceSort's automatic choice takes for
 * that row (what openclsort runs); each sort's own are under "algorithms".
 * The first result of each device sort is read back and compared with std::sort's, element for
 * element. With --article it also times the article's way (one launch of the single-stride
 * kernel per step, every stride in global memory, clFinish after each), on the same kernel
 * code. Keys are non-negative (as rand () gives), so that baseline may compare them as unsigned
 * words. Links the shared layer directly (no plugin needed). Prints a table; --json writes it
 * all. */
#include <gst/gst.h>

#include <algorithm>
#include <cstdio>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "benchlib.h"
#include "opencl/gstopenclcontext.h"
#include "opencl/gstopenclradixsort.h"
#include "opencl/gstopencldevicesort.h"
#include "opencl/gstopenclutils.h"

namespace {

using bench::Clock;
using bench::Stats;
using bench::json_number;
using bench::json_range;
using bench::json_string;
using bench::ms_since;
using bench::summarize;

struct Options
{
  std::vector<int> log2_sizes { 20, 21, 22, 23, 24, 25 };
  int runs = 10;
  int warmup = 2;
  int cpu_runs = 3;
  std::string device;
  std::string json_path;
  bool skip_cpu = false;
  bool article = false;
  bool finish_each = false;
  int max_chunk_words = 0;
  int group_size = 0;
  int max_steps = 0;
  std::string strategy = "automatic";
  int article_runs = 3;
  std::vector<std::string> algorithms { "bitonic", "radix", "onesweep" };
  std::string radix_shape;
  std::string onesweep_shape;
  int onesweep_min_length = 0;
  int split_bits = 0;
  int radix_tile = 0;
  int radix_min_length = 0;
  int radix_bits = 0;
  int rows = 1;
  bool per_launch = false;
};

/* One sort of the device sort at one size. */
struct AlgorithmResult
{
  std::string name;
  size_t launches = 0;
  bool correct = false;
  std::vector<double> kernel_ms, span_ms, wall_ms;
  Stats kernel, span, wall;
  /* Per launch, in enqueue order: its kernel times, then their median. */
  std::vector<std::vector<double>> launch_samples;
  std::vector<double> launch_ms;
};

struct SizeResult
{
  int log2_size = 0;
  size_t count = 0;
  bool article_correct = true;
  std::vector<double> std_sort_ms, article_kernel_ms, article_wall_ms;
  Stats std_sort, article_kernel, article_wall;
  std::vector<AlgorithmResult> algorithms;
  /* The one DeviceSort's automatic choice takes (an index into algorithms). */
  size_t chosen = 0;

  const AlgorithmResult & automatic () const { return algorithms[chosen]; }
  bool correct () const
  {
    bool all = article_correct;
    for (const auto & a : algorithms)
      all &= a.correct;
    return all;
  }
};

/* The name of the sort DeviceSort runs for a strategy (as in --algorithms). */
const char *
algorithm_name (gst_opencl::SortStrategy strategy)
{
  switch (strategy) {
    case gst_opencl::SortStrategy::Radix:
      return "radix";
    case gst_opencl::SortStrategy::Onesweep:
      return "onesweep";
    default:
      return "bitonic";
  }
}

/* The device sorts measured, each forced to one sort. */
struct Sorts
{
  std::vector<std::pair<std::string, gst_opencl::DeviceSort *>> forced;
  gst_opencl::DeviceSort *automatic = nullptr;
};

Options
parse_options (int argc, char **argv)
{
  Options options;
  bench::OptionTable table;
  table.counts ("--sizes N,...", &options.log2_sizes, 0, "log2 of the key counts (default "
      "20,21,22,23,24,25; 26 works too)", 30)
      .count ("--rows R", &options.rows, 1, "sort R rows of 2^n keys each instead of one (a "
      "batch; default 1; std::sort sorts them one after the other; no --article)", 1 << 24)
      .count ("--runs N", &options.runs, 1, "measured device sorts per size (default 10)", 100000)
      .count ("--warmup N", &options.warmup, 0, "device sorts left out first (default 2)", 100000)
      .count ("--cpu-runs N", &options.cpu_runs, 1, "std::sort runs per size (default 3)", 1000)
      .flag ("--no-cpu", &options.skip_cpu, true, "skip std::sort (the result check then uses it "
      "once anyway)")
      .flag ("--finish-each", &options.finish_each, true, "wait for every launch of the device "
      "sort (to measure what the host synchronisation the device sort avoids costs)")
      .flag ("--article", &options.article, true, "also time the article's one-launch-per-step "
      "sort with a finish after each (--article-runs N times, default 3)")
      .count ("--article-runs N", &options.article_runs, 1, "see --article", 1000)
      .count ("--chunk N", &options.max_chunk_words, 2, "cap the keys sorted in local memory per "
      "work-group (power of two; default: the device sort's choice for the device)", 1 << 20)
      .count ("--group N", &options.group_size, 1, "work-items per work-group of the local "
      "stages (default: the device sort's choice)", 1 << 16)
      .text ("--strategy S", &options.strategy, "the bitonic network's schedule: automatic "
      "(default: by device type), local or global (see gstopencldevicesort.h)")
      .count ("--steps N", &options.max_steps, 1, "strides per global pass, 1 to 4 (default 4)", 4)
      .list ("--algorithms L", &options.algorithms, "the sorts measured: bitonic,radix,onesweep "
      "(default all three)")
      .text ("--onesweep-shape S", &options.onesweep_shape, "the onesweep sort's tiles: "
      "<work-items>x<keys each> (default: the device sort's choice, gstopenclradixsort.h)")
      .count ("--split-bits N", &options.split_bits, 2, "bits per split step of the radix "
      "sorts' tile ranking, 2 or 4 (default 2)", 4)
      .count ("--onesweep-min N", &options.onesweep_min_length, 1, "the shortest row the "
      "automatic choice gives the onesweep sort (default: the device type's)", 1 << 30)
      .text ("--radix-shape S", &options.radix_shape, "the radix sort's blocks: serial or "
      "<work-items>x<keys each> (default: the device's choice, gstopenclradixsort.h)")
      .count ("--radix-tile N", &options.radix_tile, 1, "keys per block of the serial radix "
      "shape (default: by size)", 1 << 30)
      .count ("--radix-bits N", &options.radix_bits, 4, "bits per radix digit, 4 or 8 (default: "
      "the device type's)", 8)
      .flag ("--per-launch", &options.per_launch, true, "print each launch's median kernel time "
      "(also in the JSON)")
      .count ("--radix-min N", &options.radix_min_length, 1, "the shortest row the automatic "
      "choice gives the radix sort (default: the device type's; decides the top-level figures)",
      1 << 30)
      .text ("--device STRING", &options.device, "gpu, cpu or <platform>[:n] (default: automatic, "
      "GST_OPENCL_DEVICE)")
      .text ("--json PATH", &options.json_path, "write the results as JSON");
  table.parse (argc, argv);
  if (options.strategy != "automatic" && options.strategy != "local" &&
      options.strategy != "global")
    table.reject ("unknown strategy " + options.strategy);
  for (const auto & name : options.algorithms)
    if (name != "bitonic" && name != "radix" && name != "onesweep")
      table.reject ("unknown sort " + name);
  return options;
}

/* The article's schedule: every step of every stage a launch of its own, one compare-exchange
 * per work-item, each followed by a blocking finish. sort_global_2 is that kernel. */
void
measure_article (const Options & options, gst_opencl::Device & device, const cl::Buffer & original,
    const cl::Buffer & work, const std::vector<int32_t> & expected, SizeResult & result)
{
  const size_t count = result.count;
  const size_t bytes = count * sizeof (int32_t);
  cl::Kernel step = device.kernel ("sort", "sort_global_2", "");
  const size_t group = std::min<size_t> (256, device.max_work_group_size);
  const size_t items = std::max<size_t> (count / 2, 1);
  const size_t rounded = (items + group - 1) / group * group;
  for (int run = 0; run < options.article_runs; run++) {
    device.queue.enqueueCopyBuffer (original, work, 0, 0, bytes);
    device.queue.finish ();
    cl_ulong kernel_ns = 0;
    auto start = Clock::now ();
    for (size_t k = 2; k <= count; k *= 2) {
      for (size_t stride = k / 2; stride > 0; stride /= 2) {
        step.setArg (0, work);
        step.setArg (1, (cl_uint) items);
        step.setArg (2, (cl_uint) k);
        step.setArg (3, (cl_uint) stride);
        step.setArg (4, (cl_uint) count);
        cl::Event event;
        device.queue.enqueueNDRangeKernel (step, cl::NullRange, cl::NDRange (rounded),
            cl::NDRange (group), nullptr, &event);
        device.queue.finish ();
        kernel_ns += event.getProfilingInfo<CL_PROFILING_COMMAND_END> () -
            event.getProfilingInfo<CL_PROFILING_COMMAND_START> ();
      }
    }
    result.article_wall_ms.push_back (ms_since (start));
    result.article_kernel_ms.push_back (kernel_ns * 1e-6);
    if (run == 0) {
      std::vector<int32_t> sorted (count);
      device.queue.enqueueReadBuffer (work, CL_TRUE, 0, bytes, sorted.data ());
      result.article_correct = sorted == expected;
    }
  }
}

void
measure_size (const Options & options, gst_opencl::Device & device, const Sorts & sorts,
    SizeResult & result)
{
  const size_t rows = (size_t) options.rows;
  const size_t length = size_t (1) << result.log2_size;
  const size_t count = rows * length;
  result.count = count;
  std::mt19937 random (20110601u + result.log2_size);
  std::vector<int32_t> keys (count);
  for (auto & key : keys)
    key = (int32_t) (random () >> 1);

  /* The reference result, then std::sort (one thread, row after row) and the device sorts in
   * turns, so that all see the same load on a shared machine. */
  auto sort_rows = [rows, length](std::vector<int32_t> & values) {
    for (size_t row = 0; row < rows; row++)
      std::sort (values.begin () + row * length, values.begin () + (row + 1) * length);
  };
  std::vector<int32_t> expected = keys;
  sort_rows (expected);
  std::vector<int32_t> copy;
  auto time_std_sort = [&]() {
    copy = keys;
    auto start = Clock::now ();
    sort_rows (copy);
    result.std_sort_ms.push_back (ms_since (start));
  };

  const size_t bytes = count * sizeof (int32_t);
  cl::Buffer original (device.context, CL_MEM_READ_ONLY, bytes);
  cl::Buffer work (device.context, CL_MEM_READ_WRITE, bytes);
  device.queue.enqueueWriteBuffer (original, CL_TRUE, 0, bytes, keys.data ());

  std::vector<cl::Event> events;
  auto launcher = [&](const cl::Kernel & kernel, const cl::NDRange & global,
      const cl::NDRange & local) {
    cl::Event event;
    device.queue.enqueueNDRangeKernel (kernel, cl::NullRange, global, local, nullptr, &event);
    events.push_back (event);
    if (options.finish_each)
      device.queue.finish ();
  };
  const auto chosen = sorts.automatic->strategy_for (rows, length);
  for (const auto & [name, sort] : sorts.forced) {
    AlgorithmResult algorithm;
    algorithm.name = name;
    algorithm.launches = sort->launch_count (rows, length);
    if (name == algorithm_name (chosen))
      result.chosen = result.algorithms.size ();
    result.algorithms.push_back (algorithm);
  }

  const int cpu_runs = options.skip_cpu ? 0 : options.cpu_runs;
  for (int run = 0; run < options.warmup + std::max (options.runs, cpu_runs); run++) {
    const int measured = run - options.warmup;
    if (measured >= 0 && measured < cpu_runs)
      time_std_sort ();
    if (measured >= options.runs)
      continue;
    for (size_t a = 0; a < sorts.forced.size (); a++) {
      auto & algorithm = result.algorithms[a];
      device.queue.enqueueCopyBuffer (original, work, 0, 0, bytes);
      device.queue.finish ();
      events.clear ();
      auto start = Clock::now ();
      sorts.forced[a].second->enqueue (work, work, rows, length, launcher);
      device.queue.finish ();
      double wall = ms_since (start);
      if (run == 0) {
        std::vector<int32_t> sorted (count);
        device.queue.enqueueReadBuffer (work, CL_TRUE, 0, bytes, sorted.data ());
        algorithm.correct = sorted == expected;
      }
      if (measured < 0)
        continue;
      cl_ulong kernel_ns = 0, first = ~cl_ulong (0), last = 0;
      for (const auto & event : events) {
        cl_ulong begin = event.getProfilingInfo<CL_PROFILING_COMMAND_START> ();
        cl_ulong end = event.getProfilingInfo<CL_PROFILING_COMMAND_END> ();
        kernel_ns += end - begin;
        first = std::min (first, begin);
        last = std::max (last, end);
      }
      algorithm.launch_samples.resize (events.size ());
      for (size_t e = 0; e < events.size (); e++)
        algorithm.launch_samples[e].push_back ((events[e].getProfilingInfo<
                CL_PROFILING_COMMAND_END> () - events[e].getProfilingInfo<
                CL_PROFILING_COMMAND_START> ()) * 1e-6);
      algorithm.kernel_ms.push_back (kernel_ns * 1e-6);
      algorithm.span_ms.push_back (events.empty () ? 0.0 : (last - first) * 1e-6);
      algorithm.wall_ms.push_back (wall);
    }
  }
  if (options.article && rows == 1)
    measure_article (options, device, original, work, expected, result);
  result.std_sort = summarize (result.std_sort_ms);
  for (auto & algorithm : result.algorithms) {
    algorithm.kernel = summarize (algorithm.kernel_ms);
    algorithm.span = summarize (algorithm.span_ms);
    algorithm.wall = summarize (algorithm.wall_ms);
    for (const auto & samples : algorithm.launch_samples)
      algorithm.launch_ms.push_back (summarize (samples).median);
  }
  result.article_kernel = summarize (result.article_kernel_ms);
  result.article_wall = summarize (result.article_wall_ms);
}

std::string
bitonic_description (const gst_opencl::DeviceSort & sort)
{
  if (sort.strategy () == gst_opencl::SortStrategy::LocalStages)
    return "local stages, " + std::to_string (sort.chunk_words ()) + " keys per work-group of " +
        std::to_string (sort.group_size ());
  return "global passes";
}

std::string
results_json (const Options & options, const std::string & command_line,
    const gst_opencl::Device & device, const Sorts & sorts, const std::string & radix_shape,
    const std::string & onesweep_shape, const std::vector<SizeResult> & results)
{
  std::ostringstream file;
  const auto & automatic = *sorts.automatic;
  file << "{\n  \"benchmark\": \"device sort (openclsort), " << (options.rows == 1 ?
      std::string ("one row") : std::to_string (options.rows) + " rows") <<
      " of random int32\",\n";
  file << "  \"rows\": " << options.rows << ",\n";
  file << "  \"command\": " << json_string (command_line) << ",\n";
  file << "  \"device_name\": " << json_string (device.name) << ",\n";
  const bool local = automatic.strategy () == gst_opencl::SortStrategy::LocalStages;
  file << "  \"strategy\": " << json_string ("automatic: radix from " +
      std::to_string (automatic.radix_min_length ()) + " keys, onesweep from " +
      std::to_string (automatic.onesweep_min_length ()) + " keys, bitonic " +
      (local ? "local stages" : "global passes") + " below") << ",\n";
  file << "  \"radix_min_length\": " << automatic.radix_min_length () << ",\n";
  file << "  \"onesweep_min_length\": " << automatic.onesweep_min_length () << ",\n";
  for (const auto & [name, sort] : sorts.forced) {
    if (name == "bitonic") {
      file << "  \"bitonic\": " << json_string (bitonic_description (*sort)) << ",\n";
      if (sort->strategy () == gst_opencl::SortStrategy::LocalStages)
        file << "  \"chunk_words\": " << sort->chunk_words () << ", \"group_size\": " <<
            sort->group_size () << ",\n";
    } else if (name == "radix") {
      file << "  \"radix_shape\": " << json_string (radix_shape) << ",\n";
    } else {
      file << "  \"onesweep_shape\": " << json_string (onesweep_shape) << ",\n";
    }
  }
  file << "  \"runs\": " << options.runs << ", \"warmup\": " << options.warmup <<
      ", \"cpu_runs\": " << options.cpu_runs << ",\n";
  file << "  \"sizes\": [";
  for (size_t i = 0; i < results.size (); i++) {
    const auto & r = results[i];
    const auto & chosen = r.automatic ();
    file << (i ? ",\n" : "\n") << "    {\"log2\": " << r.log2_size << ", \"length\": " <<
        (size_t (1) << r.log2_size) << ", \"count\": " <<
        r.count << ", \"automatic\": " << json_string (chosen.name) << ", \"launches\": " <<
        chosen.launches << ", \"correct\": " << (r.correct () ? "true" : "false") << ",\n";
    file << "     \"std_sort_ms\": " << json_range (r.std_sort, r.std_sort_ms) << ",\n";
    file << "     \"kernel_ms\": " << json_range (chosen.kernel, chosen.kernel_ms) << ",\n";
    file << "     \"span_ms\": " << json_range (chosen.span, chosen.span_ms) << ",\n";
    file << "     \"wall_ms\": " << json_range (chosen.wall, chosen.wall_ms) << ",\n";
    file << "     \"algorithms\": {";
    for (size_t a = 0; a < r.algorithms.size (); a++) {
      const auto & algorithm = r.algorithms[a];
      file << (a ? ",\n" : "\n") << "       " << json_string (algorithm.name) <<
          ": {\"launches\": " << algorithm.launches << ", \"correct\": " <<
          (algorithm.correct ? "true" : "false") << ",\n         \"kernel_ms\": " <<
          json_range (algorithm.kernel, algorithm.kernel_ms) << ",\n         \"span_ms\": " <<
          json_range (algorithm.span, algorithm.span_ms) << ",\n         \"wall_ms\": " <<
          json_range (algorithm.wall, algorithm.wall_ms) << ",\n         \"launch_ms\": " <<
          bench::json_samples (algorithm.launch_ms) << "}";
    }
    file << "}";
    if (options.article) {
      file << ",\n     \"article_correct\": " << (r.article_correct ? "true" : "false") <<
          ",\n     \"article_kernel_ms\": " << json_range (r.article_kernel,
          r.article_kernel_ms) << ",\n     \"article_wall_ms\": " <<
          json_range (r.article_wall, r.article_wall_ms);
    }
    file << "}";
  }
  file << "\n  ]\n}\n";
  return file.str ();
}

}  // namespace

int
main (int argc, char **argv)
{
  const std::string command_line = bench::initialize (&argc, &argv);
  GST_DEBUG_CATEGORY_INIT (gst_opencl_debug, "opencl", 0, "OpenCL shared layer");
  Options options = parse_options (argc, argv);

  std::vector<SizeResult> results;
  bool all_correct = true;
  try {
    GstOpenCLContext *context = gst_opencl_context_new (
        gst_opencl::effective_device_string (options.device));
    auto & device = gst_opencl_context_device (context);
    gst_opencl::SortTuning bitonic_tuning;
    bitonic_tuning.strategy = options.strategy == "local" ?
        gst_opencl::SortStrategy::LocalStages : options.strategy == "global" ?
        gst_opencl::SortStrategy::GlobalPasses : gst_opencl::SortStrategy::Bitonic;
    bitonic_tuning.max_chunk_words = (size_t) options.max_chunk_words;
    bitonic_tuning.group_size = (size_t) options.group_size;
    bitonic_tuning.max_global_steps = (unsigned) options.max_steps;
    gst_opencl::SortTuning radix_tuning;
    radix_tuning.strategy = gst_opencl::SortStrategy::Radix;
    radix_tuning.radix_shape = options.radix_shape;
    radix_tuning.radix_tile_keys = (size_t) options.radix_tile;
    radix_tuning.radix_digit_bits = (unsigned) options.radix_bits;
    radix_tuning.radix_split_bits = (unsigned) options.split_bits;
    gst_opencl::SortTuning onesweep_tuning = radix_tuning;
    onesweep_tuning.strategy = gst_opencl::SortStrategy::Onesweep;
    onesweep_tuning.onesweep_shape = options.onesweep_shape;
    gst_opencl::SortTuning automatic_tuning = bitonic_tuning;
    automatic_tuning.strategy = gst_opencl::SortStrategy::Automatic;
    automatic_tuning.radix_min_length = (size_t) options.radix_min_length;
    automatic_tuning.onesweep_min_length = (size_t) options.onesweep_min_length;
    automatic_tuning.radix_shape = options.radix_shape;
    automatic_tuning.radix_digit_bits = (unsigned) options.radix_bits;
    automatic_tuning.onesweep_shape = options.onesweep_shape;
    const auto key = gst_opencl::SortKey::Int32;
    const auto order = gst_opencl::SortOrder::Ascending;
    gst_opencl::DeviceSort bitonic (device, key, order, bitonic_tuning);
    gst_opencl::DeviceSort radix (device, key, order, radix_tuning);
    gst_opencl::DeviceSort onesweep (device, key, order, onesweep_tuning);
    gst_opencl::DeviceSort automatic (device, key, order, automatic_tuning);
    Sorts sorts;
    sorts.automatic = &automatic;
    for (const auto & name : options.algorithms)
      sorts.forced.push_back ({ name, name == "radix" ? &radix : name == "onesweep" ?
          &onesweep : &bitonic });
    /* Builds the radix sort (and chooses its shape: timed once per device, then cached). */
    const std::string radix_shape = radix.radix ().shape ().name () + ", " +
        std::to_string (radix.radix ().digit_bits ()) + "-bit digits";
    /* The onesweep sort's tiles may depend on the length: those of the first and last size. */
    auto & shortest = onesweep.onesweep (size_t (1) << options.log2_sizes.front ());
    auto & longest = onesweep.onesweep (size_t (1) << options.log2_sizes.back ());
    const std::string onesweep_shape = shortest.shape ().name () + " (2^" +
        std::to_string (options.log2_sizes.front ()) + ") to " + longest.shape ().name () +
        " (2^" + std::to_string (options.log2_sizes.back ()) + "), " +
        std::to_string (longest.digit_bits ()) + "-bit digits, " +
        std::to_string (longest.split_bits ()) + "-bit split steps";
    std::printf ("device sort on %s: bitonic %s; radix %s; onesweep %s; automatic: radix from "
        "%zu keys, onesweep from %zu\n", device.name.c_str (),
        bitonic_description (bitonic).c_str (), radix_shape.c_str (), onesweep_shape.c_str (),
        automatic.radix_min_length (), automatic.onesweep_min_length ());
    std::printf ("%-5s %10s %12s", "log2", "N", "std::sort");
    for (const auto & name : options.algorithms)
      std::printf (" %12s %8s %8s", name.c_str (), "launches", "speed-up");
    std::printf (" %8s %12s  %s\n", "chosen", "article", "(kernel ms, medians)");
    for (int log2_size : options.log2_sizes) {
      SizeResult result;
      result.log2_size = log2_size;
      measure_size (options, device, sorts, result);
      all_correct &= result.correct ();
      std::printf ("%-5d %10zu %12.3f", log2_size, result.count, result.std_sort.median);
      for (const auto & algorithm : result.algorithms)
        std::printf (" %12.3f %8zu %7.2fx", algorithm.kernel.median, algorithm.launches,
            algorithm.kernel.median > 0 ? result.std_sort.median / algorithm.kernel.median :
            0.0);
      std::printf (" %8s %12.3f  %s\n", result.automatic ().name.c_str (),
          result.article_wall.median, result.correct () ? "" : "WRONG RESULT");
      if (options.per_launch) {
        for (const auto & algorithm : result.algorithms) {
          std::printf ("  %s launches (ms):", algorithm.name.c_str ());
          for (double ms : algorithm.launch_ms)
            std::printf (" %.3f", ms);
          std::printf ("\n");
        }
      }
      std::fflush (stdout);
      results.push_back (std::move (result));
    }
    if (!options.json_path.empty ()) {
      if (!bench::write_file (options.json_path, results_json (options, command_line, device,
                  sorts, radix_shape, onesweep_shape, results))) {
        gst_object_unref (context);
        return 1;
      }
      std::printf ("wrote %s\n", options.json_path.c_str ());
    }
    gst_object_unref (context);
  } catch (...) {
    std::fprintf (stderr, "error: %s\n",
        gst_opencl::describe_exception (std::current_exception ()).c_str ());
    return 1;
  }
  return all_correct ? 0 : 1;
}
