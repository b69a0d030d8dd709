/* gst-opencl: sorting rows of keys in device memory: a bitonic network (kernels/sort.cl) for
 * short rows, LSD radix sorts (gstopenclradixsort.h) for long ones: the onesweep sort
 * (kernels/onesweep.cl, 1 + 4 launches with 8-bit digits) and the sort of five launches per
 * pass (kernels/radixsort.cl).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A DeviceSort is built once per (device, key type, order) and then enqueues, on the device's
 * in-order queue, the sort of `rows` independent rows of `length` keys each (row r at element
 * r * length of the buffer). Any length works. The bitonic network pads rows to the next power
 * of two with sentinel words in a scratch buffer; the radix sort ping-pongs between dst and a
 * scratch buffer of the keys' size; the object keeps both and only grows them. The launches are
 * enqueued back to back with no host wait; the caller waits (reads the result, finishes the
 * queue) when it needs the keys.
 *
 * Which sort: by the row's length (see SortStrategy and strategy_for ();
 * GST_OPENCL_VARIANT_SORT=bitonic|radix|onesweep forces one).
 *
 * Orders (the result is the one std::sort gives with the same strict total order, so it is
 * unique bit for bit, whichever sort runs):
 *   int32, uint32  numeric order;
 *   float32        -inf < ... < -0.0 < +0.0 < ... < +inf < NaN; -0.0 sorts before +0.0 and NaNs
 *                  compare by their bits as unsigned integers (every +NaN before every -NaN,
 *                  payloads in increasing order). Descending is the exact reverse.
 *
 * Key + payload: both sorts sort 32-bit words, so a caller that needs a permutation packs the
 * key into the high bits and an index into the low bits of a uint32 (SortKey::UInt32,
 * ascending; pack_key_index ()), sorts, and reads the indices back from the low bits. Equal
 * keys then keep their original order (the sort is stable), and a descending order is
 * obtained by packing (max_key - key). openclsort's video mode does this with 8-bit keys and
 * 24-bit pixel indices. */
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "opencl/gstopenclcontext.h"
#include "opencl/gstopenclsortkeys.h"

namespace gst_opencl {

/* Which sort, and how the bitonic network is scheduled.
 *   Automatic     rows of at least radix_min_length () keys: Radix; else rows of at least
 *                 onesweep_min_length () keys: Onesweep; shorter rows: the bitonic network
 *                 scheduled by device type (LocalStages on GPUs, GlobalPasses on CPUs).
 *                 GST_OPENCL_VARIANT_SORT=bitonic, radix or onesweep makes it Bitonic, Radix
 *                 or Onesweep.
 *   Bitonic       the bitonic network for every row, scheduled by device type.
 *   LocalStages   the bitonic network: every stride shorter than a work-group's chunk runs in
 *                 local memory, longer ones in global passes of up to four strides each held in
 *                 registers (GPUs).
 *   GlobalPasses  the bitonic network: every stride runs in global passes, between one pass that
 *                 maps and pads the keys and one that maps them back (CPUs: their local memory
 *                 is ordinary cache and a barrier costs more than a step; PoCL runs one-stride
 *                 passes fastest).
 *   Radix         the LSD radix sort of five launches per pass for every row.
 *   Onesweep      the onesweep radix sort for every row (rows of more than
 *                 OnesweepSort::MAX_LENGTH keys, 2^30 - 1, take Radix). */
enum class SortStrategy { Automatic, LocalStages, GlobalPasses, Bitonic, Radix, Onesweep };

/* "local-stages", "global-passes", "radix", "onesweep", ...: a strategy's name, as the
 * element's `variant` property reports what it runs. */
const char *sort_strategy_name (SortStrategy strategy);

/* The bitonic network's shape on one device, from its limits and SortTuning. */
struct BitonicShape
{
  /* Strides per global pass, 1 to 4. */
  unsigned max_global_steps = 4;
  /* LocalStages: work-items per group, and the words the group sorts in local memory. */
  size_t group_size = 0;
  size_t chunk_words = 0;
  /* Work-items per group of the global passes, pad and unpad. */
  size_t global_group_size = 0;
};

/* Overrides of the device's choices, for tests and experiments; 0 (or empty) keeps the
 * choice. */
struct SortTuning
{
  SortStrategy strategy = SortStrategy::Automatic;
  /* LocalStages: cap on the words a work-group sorts in local memory (a power of two >= 2),
   * to reach the global passes with short rows. */
  size_t max_chunk_words = 0;
  /* LocalStages: work-items per group (the chunk then holds 8 words per work-item). */
  size_t group_size = 0;
  /* Strides per global pass, 1 to 4 (default 4 on GPUs, 1 on CPUs). */
  unsigned max_global_steps = 0;
  /* Automatic: the shortest row that takes the radix sort (default by device type:
   * RADIX_MIN_LENGTH_CPU, RADIX_MIN_LENGTH_GPU). */
  size_t radix_min_length = 0;
  /* Radix: the shape of its blocks, "serial" or "<work-items>x<keys per work-item>"
   * (gstopenclradixsort.h; default: choose_radix_shape ()). */
  std::string radix_shape;
  /* Radix, serial shape: keys per block (default: by the sort's shape). */
  size_t radix_tile_keys = 0;
  /* Radix and Onesweep: bits per digit, 8 (four passes) or 4 (eight) (default by device type:
   * RADIX_DIGIT_BITS_CPU, RADIX_DIGIT_BITS_GPU). */
  unsigned radix_digit_bits = 0;
  /* Automatic: the shortest row that takes the onesweep sort (when shorter than the radix
   * sort's; default by device type: ONESWEEP_MIN_LENGTH_CPU, ONESWEEP_MIN_LENGTH_GPU). */
  size_t onesweep_min_length = 0;
  /* Radix (tiled) and Onesweep: bits per split step of the tile ranking, 2 or 4 (default:
   * RADIX_SPLIT_BITS for Radix, by row length for Onesweep as its tiles). */
  unsigned radix_split_bits = 0;
  /* Onesweep: the shape of its tiles, "<work-items>x<keys per work-item>" for every row
   * (default: GST_OPENCL_VARIANT_SORT_ONESWEEP, else by row length on GPUs, see
   * gstopenclsort.cpp, and 256x16 on CPUs). */
  std::string onesweep_shape;
  /* Automatic: rows from radix_min_length keys on take whichever of the radix and onesweep
   * sorts was faster on one row of long_rows_timed_keys keys (default LONG_ROWS_TIMED_KEYS),
   * timed once through the shared tuner (family "sort-long"); else the radix sort, or on a GPU
   * the one GST_OPENCL_VARIANT_SORT_LONG names. */
  bool time_long_rows = false;
  size_t long_rows_timed_keys = 0;
};

class RadixSort;
class OnesweepSort;

class DeviceSort
{
public:
  using Launcher = SortLauncher;

  /* rows * padded length may not exceed this (flat word indices are 32-bit in the kernels). */
  static constexpr size_t MAX_WORDS = size_t (1) << 31;

  /* Default radix_min_length () and onesweep_min_length () by device type
   * (docs/openclsort.md). On a CPU (PoCL) the radix sort, one work-item counting and
   * scattering each block, was faster than the network from rows of 256 keys on, alone or in
   * batches, and far faster than the onesweep sort. On a GPU (H100, one row) the network was
   * fastest up to 2^13 keys, the onesweep sort from 2^14 to 2^22 (a row of 2^13 + 1 keys pads to
   * 2^14 in the network), and the radix sort of five launches per pass from 2^23; for a batch
   * of 1080 rows the network up to rows of 2^12 and the radix sort from 2^13 (8.8 M keys in
   * all): so a GPU also takes the radix sort for rows of RADIX_MIN_BATCH_LENGTH_GPU keys when
   * the batch holds RADIX_MIN_BATCH_KEYS_GPU keys or more. */
  static constexpr size_t RADIX_MIN_LENGTH_CPU = 256;
  static constexpr size_t RADIX_MIN_LENGTH_GPU = size_t (1) << 23;
  static constexpr size_t RADIX_MIN_BATCH_LENGTH_GPU = size_t (1) << 13;
  static constexpr size_t RADIX_MIN_BATCH_KEYS_GPU = size_t (1) << 23;
  static constexpr size_t ONESWEEP_MIN_LENGTH_CPU = SIZE_MAX;
  static constexpr size_t ONESWEEP_MIN_LENGTH_GPU = (size_t (1) << 13) + 1;
  /* Rows of RADIX_MIN_LENGTH_GPU keys or more take, on a GPU, the radix sort (the H100's
   * faster one from 2^23 to 2^26 keys), or the one GST_OPENCL_VARIANT_SORT_LONG names; with
   * SortTuning::time_long_rows, the faster of the two on one row of LONG_ROWS_TIMED_KEYS keys
   * (the shared tuner, family "sort-long"). */
  static constexpr size_t LONG_ROWS_TIMED_KEYS = size_t (1) << 24;
  /* Default radix digits by device type (docs/openclsort.md). */
  static constexpr unsigned RADIX_DIGIT_BITS_CPU = 4;
  static constexpr unsigned RADIX_DIGIT_BITS_GPU = 8;
  /* Default bits per split step of the tiled ranking. */
  static constexpr unsigned RADIX_SPLIT_BITS = 2;

  /* Builds kernels/sort.cl through the device's program cache (one program for every key type
   * and order) and picks the schedule for the device: on GPUs local stages with 512 work-items
   * sharing a 4096-word chunk, on CPUs one-stride global passes. The radix sort's program is
   * built (and its shape chosen, see choose_radix_shape ()) on the first sort that takes it.
   * Throws cl::Error, BuildFailure, Failure (Settings) when GST_OPENCL_VARIANT_SORT names
   * neither sort. */
  DeviceSort (Device & device, SortKey key, SortOrder order,
      const SortTuning & tuning = SortTuning ());
  ~DeviceSort ();
  DeviceSort (const DeviceSort &) = delete;
  DeviceSort & operator= (const DeviceSort &) = delete;

  /* Enqueues the sort of rows x length keys of `src` into `dst` (the same buffer is allowed;
   * both hold rows * length 4-byte keys). Nothing is enqueued when rows or length is 0.
   * Throws Failure (TooLarge) when the padded rows exceed MAX_WORDS or the device's largest
   * allocation, cl::Error when an enqueue fails. Allocates only when the scratch must grow. */
  void enqueue (const cl::Buffer & src, const cl::Buffer & dst, size_t rows, size_t length,
      const Launcher & launch);

  /* The same through the device's queue directly (for callers that time it themselves). */
  void enqueue (const cl::Buffer & src, const cl::Buffer & dst, size_t rows, size_t length);

  SortKey key () const { return key_; }
  SortOrder order () const { return order_; }
  /* The bitonic network's schedule: LocalStages or GlobalPasses. */
  SortStrategy strategy () const { return strategy_; }
  /* What enqueue () runs for that shape: Radix, Onesweep, LocalStages or GlobalPasses. */
  SortStrategy strategy_for (size_t rows, size_t length) const;
  /* The GPU's batch rule alone: rows of RADIX_MIN_BATCH_LENGTH_GPU keys or more, and
   * RADIX_MIN_BATCH_KEYS_GPU keys or more in all. */
  static bool gpu_batch_takes_radix (size_t rows, size_t length);
  /* Rows of at least this many keys take the radix sort: 0 with Radix, SIZE_MAX with a bitonic
   * strategy. */
  size_t radix_min_length () const { return radix_min_length_; }
  /* Rows of at least this many keys (and shorter than radix_min_length ()) take the onesweep
   * sort: 0 with Onesweep, SIZE_MAX when it is never taken. */
  size_t onesweep_min_length () const { return onesweep_min_length_; }
  /* The onesweep sort for rows of `length` keys, built on first use. Throws as enqueue (). */
  OnesweepSort & onesweep (size_t length);
  /* The radix sort, built on first use (its shape: radix ().shape ()). Throws as enqueue (). */
  RadixSort & radix ();
  /* Words a work-group sorts in local memory, and its work-items (LocalStages). */
  size_t chunk_words () const { return bitonic_.chunk_words; }
  size_t group_size () const { return bitonic_.group_size; }
  /* Kernel launches enqueue () makes for that shape. */
  size_t launch_count (size_t rows, size_t length) const;

  /* The next power of two >= length (1 for 0). */
  static size_t padded_length (size_t length);

  /* Throws Failure (TooLarge) unless rows x length keys, each row padded, fit the sort and
   * the device's largest allocation; `what` names them in the message ("a tensor"). */
  static void check_fits (const Device & device, size_t rows, size_t length, const char *what);

  /* key << index_bits | index, for the packed key + payload sort described above. */
  static uint32_t pack_key_index (uint32_t key, uint32_t index, unsigned index_bits)
  {
    return (key << index_bits) | index;
  }

private:
  /* One launch of the schedule: sort_chunks, sort_global_N (steps = log2 N), sort_merge,
   * sort_pad or sort_unpad. */
  struct Pass
  {
    enum class Kind { Chunks, Global, Merge, Pad, Unpad } kind;
    size_t k = 0;            /* stage: the size of the bitonic sequences it merges */
    size_t stride = 0;       /* first stride of a global pass */
    unsigned steps = 0;      /* strides a global pass covers */
    bool store_keys = false; /* the last launch writes the keys to dst */
  };
  /* Calls `visit (pass)` for every launch of the sort of rows x length, in order. A template
   * (defined and used in the .cpp only), so that enqueue () allocates nothing. */
  template <typename Visit> void schedule (size_t rows, size_t length, Visit && visit) const;
  /* Which sort rows of each length take (radix_min_length_, onesweep_min_length_, the GPU's
   * batch rule, timing of long rows) for the strategy asked for. */
  void choose_row_sorts (SortStrategy requested, bool cpu);
  /* The bitonic network's shape from the device's limits, its kernels' and tuning_. */
  BitonicShape bitonic_shape (bool cpu) const;
  /* The bitonic network's launches for rows x length keys (enqueue () checked the buffers). */
  void enqueue_bitonic (const cl::Buffer & src, const cl::Buffer & dst, size_t rows,
      size_t length, const Launcher & launch);
  /* Grows the scratch buffer to total_words words; throws Failure (TooLarge) naming the sort's
   * rows x length when the device cannot allocate them. */
  void grow_scratch (size_t rows, size_t length, size_t total_words);

  Device & device_;
  SortKey key_;
  SortOrder order_;
  SortTuning tuning_;
  /* GST_OPENCL_VARIANT_SORT_ONESWEEP, read when the sort is made (not on every sort). */
  std::string onesweep_environment_;
  size_t radix_min_length_ = 0;
  size_t onesweep_min_length_ = SIZE_MAX;
  bool gpu_batch_rule_ = false;  /* the GPU's batch rule applies (automatic, no override) */
  bool time_long_rows_ = false;  /* long rows take the faster radix sort (long_rows_sort ()) */
  /* Automatic on a GPU, no override: rows of radix_min_length_ keys or more take the faster
   * of the two radix sorts, timed once per device on first need (long_rows_sort ()). */
  mutable SortStrategy long_rows_ = SortStrategy::Automatic;
  SortStrategy long_rows_sort () const;
  unsigned radix_digit_bits_ = 8;
  unsigned split_bits () const
  {
    return tuning_.radix_split_bits ? tuning_.radix_split_bits : RADIX_SPLIT_BITS;
  }
  std::unique_ptr<RadixSort> radix_;
  std::vector<std::unique_ptr<OnesweepSort>> onesweep_;  /* one per tile shape used */
  SortStrategy strategy_ = SortStrategy::LocalStages;
  BitonicShape bitonic_;
  cl::Kernel chunks_;
  cl::Kernel merge_;
  cl::Kernel global_[4];  /* 1, 2, 3, 4 steps per pass */
  cl::Kernel pad_;
  cl::Kernel unpad_;
  cl::Buffer scratch_;
  size_t scratch_words_ = 0;
};

}  // namespace gst_opencl
