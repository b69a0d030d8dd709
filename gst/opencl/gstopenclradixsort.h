/* gst-opencl: LSD radix sorts of rows of 32-bit keys in device memory, the paths DeviceSort takes
 * for long rows: RadixSort (kernels/radixsort.cl) and OnesweepSort (kernels/onesweep.cl).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Passes of 8-bit (or 4-bit) digits, each a stable counting sort. RadixSort: per-block digit
 * counts, one exclusive prefix sum over (row, digit, block), a stable scatter, five launches a
 * pass. OnesweepSort: the counts of every pass in one launch, then one launch a pass (see
 * below). Keys are mapped to the same
 * order-preserving words as in the bitonic sort, so both give the result std::sort gives (see
 * gstopencldevicesort.h). The passes go src -> scratch -> dst -> scratch -> ... -> dst (an even
 * number of them), enqueued back to back with no host wait; the scratch and count buffers are
 * kept and only grown. */
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>

#include "opencl/gstopenclcontext.h"
#include "opencl/gstopenclsortkeys.h"

namespace gst_opencl {

/* How a work-group ranks its block of keys in the count and scatter kernels. */
struct RadixShape
{
  /* Work-items per work-group of the tiled kernels; 1: the serial kernels (one work-item
   * counts and scatters a whole block in order). */
  size_t group_size = 256;
  /* Tiled kernels: keys per work-item, the block is group_size x keys_per_item keys (at most
   * 32768). Serial kernels: unused. */
  size_t keys_per_item = 16;

  bool serial () const { return group_size == 1; }
  /* "256x16" (work-items x keys per work-item) or "serial". */
  std::string name () const;
  /* The shape `name ()` gives; false for anything else. */
  static bool parse (const std::string & name, RadixShape * shape);
};

/* What both radix sorts hold: the device and the shape they were built for, the digits, the
 * device's compute units, and the scratch the passes alternate with: pass p reads src (p = 0),
 * else the scratch (odd p) or dst, and writes dst (odd p) or the scratch, so an even number of
 * passes ends in dst. */
class RadixPasses
{
public:
  const RadixShape & shape () const { return shape_; }
  unsigned digit_bits () const { return digit_bits_; }

protected:
  RadixPasses (Device & device, const RadixShape & shape, unsigned digit_bits);

  const cl::Buffer & pass_input (unsigned pass, const cl::Buffer & src, const cl::Buffer & dst)
      const
  {
    return pass == 0 ? src : pass % 2 ? scratch_ : dst;
  }
  const cl::Buffer & pass_output (unsigned pass, const cl::Buffer & dst) const
  {
    return pass % 2 ? dst : scratch_;
  }

  Device & device_;
  RadixShape shape_;
  unsigned digit_bits_;
  size_t compute_units_;
  cl::Buffer scratch_;
  size_t scratch_words_ = 0;
};

class RadixSort : public RadixPasses
{
public:
  /* count, scan reduce, scan top, scan down, scatter */
  static constexpr size_t LAUNCHES_PER_PASS = 5;

  /* Launches of one sort with digits of `digit_bits` (4 or 8) bits. */
  static size_t launches (unsigned digit_bits) { return 32 / digit_bits * LAUNCHES_PER_PASS; }

  /* Builds kernels/sort.cl + kernels/radixsort.cl for the shape and digits of `digit_bits`
   * bits (8: four passes, 4: eight) through the device's program cache. `serial_tile_keys`
   * fixes the block of the serial kernels (0: by the shape of the sort, see tile_keys ()).
   * The tiled ranking splits by `split_bits` bits a step (2 or 4, kernels/radixsort.cl).
   * Throws Failure (Settings) when the shape or the digits do not fit the device (work-group
   * size, local memory) or are none of the above, BuildFailure, cl::Error. */
  RadixSort (Device & device, const RadixShape & shape, unsigned digit_bits = 8,
      size_t serial_tile_keys = 0, unsigned split_bits = 2);

  /* As DeviceSort::enqueue, whose checks the caller has made (buffer sizes, rows x length at
   * most DeviceSort::MAX_WORDS). Throws Failure (TooLarge) when the scratch or the counts do not
   * fit the device, cl::Error. Allocates only when a buffer must grow. */
  void enqueue (const cl::Buffer & src, const cl::Buffer & dst, size_t rows, size_t length,
      SortKey key, SortOrder order, const SortLauncher & launch);

  size_t launch_count (size_t rows, size_t length) const
  {
    return rows && length ? launches (digit_bits_) : 0;
  }
  /* Keys per block for that sort: the tile of the tiled kernels; for the serial ones, enough
   * blocks to give every compute unit several (and at least 4096 keys each). */
  size_t tile_keys (size_t rows, size_t length) const;

private:
  /* Grows the scratch, the digit counts and the scan's sums to a sort of rows x length keys;
   * throws Failure (TooLarge) when the device cannot allocate them. */
  void grow_buffers (size_t rows, size_t length, size_t count_words, size_t scan_groups);

  size_t serial_tile_keys_ = 0;
  size_t scan_group_ = 1;
  size_t scan_span_ = 0;
  cl::Kernel count_;
  cl::Kernel scan_reduce_;
  cl::Kernel scan_top_;
  cl::Kernel scan_down_;
  cl::Kernel scatter_;
  cl::Buffer counts_;
  size_t counts_words_ = 0;
  cl::Buffer sums_;
  size_t sums_words_ = 0;
};

/* The LSD radix sort in 1 + passes launches (kernels/onesweep.cl): one kernel counts the
 * digits of every pass in one read of the keys, then one kernel per pass ranks tiles of
 * shape.group_size x shape.keys_per_item keys in local memory (as RadixSort's tiled scatter)
 * and finds where each tile's digits go by a decoupled look-back over the tiles before it in
 * its row. Same results as RadixSort (stable passes, the same words). Rows of a batch are
 * sorted by the same launches. Tiled shapes only (no serial one); rows shorter than
 * MAX_LENGTH. */
class OnesweepSort : public RadixPasses
{
public:
  /* A tile's digit count and its flag share one 32-bit word: 30 bits for the count. */
  static constexpr size_t MAX_LENGTH = (size_t (1) << 30) - 1;
  /* The histogram kernel, then one kernel per pass. */
  static size_t launches (unsigned digit_bits) { return 1 + 32 / digit_bits; }

  /* Builds kernels/sort.cl + radixsort.cl + onesweep.cl for the shape, digits of `digit_bits`
   * bits and split steps of `split_bits` through the device's program cache. Throws Failure
   * (Settings) when the shape is serial or does not fit the device, or for other digits than
   * 4 or 8 or split steps than 2 or 4; BuildFailure, cl::Error. */
  OnesweepSort (Device & device, const RadixShape & shape, unsigned digit_bits = 8,
      unsigned split_bits = 2);

  /* As RadixSort::enqueue; rows of at most MAX_LENGTH keys. Throws Failure (TooLarge) when
   * the scratch or the tiles' states do not fit the device or the kernels' 32-bit indices,
   * cl::Error. Allocates only when a buffer must grow. */
  void enqueue (const cl::Buffer & src, const cl::Buffer & dst, size_t rows, size_t length,
      SortKey key, SortOrder order, const SortLauncher & launch);

  size_t launch_count (size_t rows, size_t length) const
  {
    return rows && length ? launches (digit_bits_) : 0;
  }
  size_t tile_keys () const { return shape_.group_size * shape_.keys_per_item; }
  unsigned split_bits () const { return split_bits_; }

private:
  unsigned split_bits_ = 2;
  cl::Kernel histograms_;
  cl::Kernel scatter_;
  /* Per row and pass, the digit counts; clear between sorts (see kernels/onesweep.cl). */
  cl::Buffer histograms_buffer_;
  size_t histogram_words_ = 0;
  /* Two arrays of per-tile, per-digit states, the passes alternating between them. */
  cl::Buffer states_[2];
  size_t state_words_ = 0;
  cl::Buffer tile_counters_;
};

/* The onesweep sort's shape: `forced` when not empty, else `environment` (the value of
 * GST_OPENCL_VARIANT_SORT_ONESWEEP, which a DeviceSort reads when it is made) when not empty,
 * else `fallback`. Throws Failure (Settings) for a name that is no tiled shape. */
RadixShape choose_onesweep_shape (const std::string & forced, const std::string & environment,
    const RadixShape & fallback);

/* Times sorts for the tuners: one row of `keys` random uint32 keys, written to the device on
 * the first time (); time (enqueue) has `enqueue` sort src into dst through the launcher it is
 * given and returns the kernel time of its launches in ms, once they are done. */
class SortTiming
{
public:
  SortTiming (Device & device, size_t keys);
  double time (const std::function<void (const cl::Buffer & src, const cl::Buffer & dst,
          const SortLauncher & launch)> & enqueue);

private:
  Device & device_;
  size_t keys_;
  cl::Buffer src_, dst_;
};

/* The radix shape for a device and digit size: `forced` when not empty (a shape name), else the
 * shape GST_OPENCL_VARIANT_SORT_RADIX names (any shape), else "serial" on CPUs, else the fastest
 * of a few tiled shapes timed once per device on 2^22 keys and cached
 * (gst_opencl::choose_variant, family "sort-radix"; the first, 256x16, with
 * GST_OPENCL_TUNING=0). Throws Failure (Settings) for a name that is no shape, or what
 * choose_variant throws. */
RadixShape choose_radix_shape (Device & device, const std::string & forced,
    unsigned digit_bits);

}  // namespace gst_opencl
