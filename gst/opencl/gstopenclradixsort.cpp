/* gst-opencl: LSD radix sort of rows of 32-bit keys in device memory (kernels/radixsort.cl).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "opencl/gstopenclradixsort.h"

#include <gst/gst.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <random>
#include <vector>

#include "opencl/gstopenclenv.h"
#include "opencl/gstopenclkernels.h"
#include "opencl/gstopencltuning.h"
#include "opencl/gstopenclutils.h"

#define GST_CAT_DEFAULT gst_opencl_debug

namespace gst_opencl {

namespace {

constexpr size_t MAX_TILE_KEYS = 32768;  /* split counters are 16 bits (radixsort.cl) */
constexpr size_t SCAN_ITEMS = 4;         /* as in radixsort.cl */
constexpr size_t SCAN_SPAN = 4096;       /* count entries per work-group of the scan kernels */
constexpr size_t MIN_SERIAL_TILE = 4096;
constexpr size_t SERIAL_BLOCKS_PER_UNIT = 4;
/* Flat indices into the counts are 32-bit in the kernels. */
constexpr size_t MAX_COUNT_WORDS = size_t (1) << 31;

/* Tiled shapes timed on GPUs, the default first. */
const char *const TILED_SHAPES[] = { "256x16", "256x8", "128x16", "256x32", "512x8", "128x32" };
constexpr size_t TUNING_KEYS = size_t (1) << 22;

bool
is_power_of_two (size_t value)
{
  return value && (value & (value - 1)) == 0;
}

size_t
kernel_group_limit (const cl::Kernel & kernel, const cl::Device & device)
{
  return kernel.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE> (device);
}

/* One program holds both radix sorts. */
std::string
radix_source ()
{
  return kernel_source ("sort") + "\n" + kernel_source ("radixsort") + "\n" +
      kernel_source ("onesweep");
}

std::string
radix_options (unsigned digit_bits, const RadixShape & shape, unsigned split_bits)
{
  return "-DRADIX_BITS=" + std::to_string (digit_bits) + " -DRADIX_GROUP=" +
      std::to_string (shape.group_size) + " -DRADIX_KEYS_PER_ITEM=" +
      std::to_string (shape.keys_per_item) + " -DRADIX_SPLIT_BITS=" +
      std::to_string (split_bits);
}

/* Throws unless the digits have 4 or 8 bits and the split steps 2 or 4 (no more than the
 * digit). */
void
check_digits (unsigned digit_bits, unsigned split_bits)
{
  if (digit_bits != 4 && digit_bits != 8)
    throw Failure (Failure::Kind::Settings, "radix digits of " + std::to_string (digit_bits) +
        " bits (4 or 8 only)");
  if (split_bits != 2 && split_bits != 4)
    throw Failure (Failure::Kind::Settings, "radix split steps of " +
        std::to_string (split_bits) + " bits (2 or 4 only)");
}

/* The local memory of a tiled scatter's ranking: the padded tile and the split steps' scan. */
size_t
ranking_bytes (const RadixShape & shape, unsigned split_bits)
{
  const size_t tile = shape.group_size * shape.keys_per_item;
  return (tile + tile / 32) * 4 + shape.group_size * (split_bits == 2 ? 8 : 32);
}

/* Throws unless the device runs work-groups of the shape's size and has `local_bytes` of local
 * memory. */
void
check_shape_fits (const Device & device, const RadixShape & shape, size_t local_bytes)
{
  if (shape.group_size > device.max_work_group_size)
    throw Failure (Failure::Kind::Settings, "radix sort shape " + shape.name () + ": " +
        device.name + " runs at most " + std::to_string (device.max_work_group_size) +
        " work-items per group");
  if (local_bytes > device.local_mem_bytes)
    throw Failure (Failure::Kind::Settings, "radix sort shape " + shape.name () + " needs " +
        std::to_string (local_bytes) + " bytes of local memory, " + device.name + " has " +
        std::to_string (device.local_mem_bytes));
}

void
check_kernel_fits (const cl::Kernel & kernel, const Device & device, const RadixShape & shape)
{
  const size_t limit = kernel_group_limit (kernel, device.cl_device);
  if (limit < shape.group_size)
    throw Failure (Failure::Kind::Settings, "radix sort shape " + shape.name () + ": a "
        "kernel runs at most " + std::to_string (limit) + " work-items per group on " +
        device.name);
}

/* The failure of a sort ("radix sorting") of rows x length keys whose `what` needs more bytes
 * than the device can allocate. */
Failure
sort_too_large (const Device & device, const char *sorting, size_t rows, size_t length,
    const char *what, size_t bytes)
{
  return Failure (Failure::Kind::TooLarge, std::string (sorting) + " " + std::to_string (rows) +
      " rows of " + std::to_string (length) + " keys needs " + std::to_string (bytes) +
      " bytes of " + what + ", more than " + device.name + " can allocate");
}

/* A buffer of `words` 4-byte words that only the device touches. */
cl::Buffer
device_words (const Device & device, size_t words)
{
  return cl::Buffer (device.context, CL_MEM_READ_WRITE | CL_MEM_HOST_NO_ACCESS,
      words * sizeof (cl_uint));
}

/* Grows a buffer of `words` words that only the device touches to `wanted` words. */
void
grow_words (const Device & device, cl::Buffer & buffer, size_t & words, size_t wanted)
{
  if (words >= wanted)
    return;
  buffer = device_words (device, wanted);
  words = wanted;
}

}  // namespace

std::string
RadixShape::name () const
{
  if (serial ())
    return "serial";
  return std::to_string (group_size) + "x" + std::to_string (keys_per_item);
}

bool
RadixShape::parse (const std::string & name, RadixShape * shape)
{
  if (name == "serial") {
    *shape = RadixShape { 1, 1 };
    return true;
  }
  const size_t x = name.find ('x');
  if (x == std::string::npos || x == 0 || x + 1 == name.size () || x > 5 ||
      name.size () - x - 1 > 3)
    return false;
  for (size_t i = 0; i < name.size (); i++)
    if (i != x && (name[i] < '0' || name[i] > '9'))
      return false;
  const size_t group = std::strtoul (name.substr (0, x).c_str (), nullptr, 10);
  const size_t keys = std::strtoul (name.substr (x + 1).c_str (), nullptr, 10);
  if (group < 2 || !is_power_of_two (group) || keys < 1 || group * keys > MAX_TILE_KEYS)
    return false;
  *shape = RadixShape { group, keys };
  return true;
}

RadixPasses::RadixPasses (Device & device, const RadixShape & shape, unsigned digit_bits)
  : device_ (device), shape_ (shape), digit_bits_ (digit_bits),
    compute_units_ (std::max<size_t> (1,
            device.cl_device.getInfo<CL_DEVICE_MAX_COMPUTE_UNITS> ()))
{
}

RadixSort::RadixSort (Device & device, const RadixShape & shape, unsigned digit_bits,
    size_t serial_tile_keys, unsigned split_bits)
  : RadixPasses (device, shape, digit_bits), serial_tile_keys_ (serial_tile_keys)
{
  check_digits (digit_bits, split_bits);
  const size_t digits = size_t (1) << digit_bits;
  const size_t group = shape.group_size;
  if (!shape.serial () && (!is_power_of_two (group) || shape.keys_per_item < 1 ||
          group * shape.keys_per_item > MAX_TILE_KEYS))
    throw Failure (Failure::Kind::Settings, "no radix sort shape " + shape.name ());
  /* The scatter's local memory: the ranking's, the digits' bases. */
  check_shape_fits (device, shape, shape.serial () ? 0 : ranking_bytes (shape, split_bits) +
      digits * 4);

  cl::Program program = device.programs.get (device.context, device.cl_device, "radixsort",
      radix_source (), radix_options (digit_bits, shape, split_bits));
  count_ = cl::Kernel (program, shape.serial () ? "radix_count_serial" : "radix_count");
  scatter_ = cl::Kernel (program, shape.serial () ? "radix_scatter_serial" : "radix_scatter");
  scan_reduce_ = cl::Kernel (program, "radix_scan_reduce");
  scan_top_ = cl::Kernel (program, "radix_scan_top");
  scan_down_ = cl::Kernel (program, "radix_scan_down");
  for (const auto & kernel : { count_, scatter_, scan_reduce_, scan_top_, scan_down_ })
    check_kernel_fits (kernel, device, shape);
  scan_group_ = group;
  scan_span_ = std::max (SCAN_SPAN, group * SCAN_ITEMS);
  GST_DEBUG ("radix sort on %s: %s blocks, %u-bit digits", device.name.c_str (),
      shape.name ().c_str (), digit_bits);
}

size_t
RadixSort::tile_keys (size_t rows, size_t length) const
{
  if (!shape_.serial ())
    return shape_.group_size * shape_.keys_per_item;
  if (serial_tile_keys_)
    return serial_tile_keys_;
  const size_t wanted = SERIAL_BLOCKS_PER_UNIT * compute_units_;
  const size_t blocks_per_row = rows >= wanted ? 1 : (wanted + rows - 1) / rows;
  return std::max (MIN_SERIAL_TILE, (length + blocks_per_row - 1) / blocks_per_row);
}

void
RadixSort::grow_buffers (size_t rows, size_t length, size_t count_words, size_t scan_groups)
{
  const size_t keys = rows * length;
  if (count_words > MAX_COUNT_WORDS || count_words * 4 > device_.max_alloc_bytes)
    throw sort_too_large (device_, "radix sorting", rows, length, "digit counts",
        count_words * 4);
  if (keys * 4 > device_.max_alloc_bytes)
    throw sort_too_large (device_, "radix sorting", rows, length, "scratch", keys * 4);
  grow_words (device_, scratch_, scratch_words_, keys);
  grow_words (device_, counts_, counts_words_, count_words);
  grow_words (device_, sums_, sums_words_, scan_groups);
}

void
RadixSort::enqueue (const cl::Buffer & src, const cl::Buffer & dst, size_t rows, size_t length,
    SortKey key, SortOrder order, const SortLauncher & launch)
{
  if (rows == 0 || length == 0)
    return;
  const size_t tile = tile_keys (rows, length);
  const size_t blocks_per_row = (length + tile - 1) / tile;
  const size_t blocks = rows * blocks_per_row;
  const size_t count_words = rows * (size_t (1) << digit_bits_) * blocks_per_row;
  const size_t scan_groups = (count_words + scan_span_ - 1) / scan_span_;
  grow_buffers (rows, length, count_words, scan_groups);

  const cl_int key_type = (cl_int) key;
  const cl_int descending = order == SortOrder::Descending;
  const bool serial = shape_.serial ();
  const size_t group = shape_.group_size;
  const cl::NDRange block_global (serial ? blocks : blocks * group);
  const cl::NDRange block_local (group);
  const cl::NDRange scan_global (scan_groups * scan_group_);
  const cl::NDRange scan_local (scan_group_);

  const unsigned passes = 32 / digit_bits_;
  for (unsigned pass = 0; pass < passes; pass++) {
    const cl::Buffer & in = pass_input (pass, src, dst);
    const cl::Buffer & out = pass_output (pass, dst);
    const cl_uint shift = pass * digit_bits_;
    const cl_int map_keys = pass == 0;
    const cl_int unmap_keys = pass == passes - 1;

    /* count and scatter share the blocks' shape and the pass after their buffers; only the
     * serial kernels take rows and the tile. */
    auto set_block_args = [&](cl::Kernel & kernel, cl_uint arg) {
      if (serial)
        kernel.setArg (arg++, (cl_uint) rows);
      kernel.setArg (arg++, (cl_uint) length);
      kernel.setArg (arg++, (cl_uint) blocks_per_row);
      if (serial)
        kernel.setArg (arg++, (cl_uint) tile);
      kernel.setArg (arg++, shift);
      kernel.setArg (arg++, map_keys);
      return arg;
    };

    set_args (count_, in, counts_);
    cl_uint arg = set_block_args (count_, 2);
    count_.setArg (arg++, key_type);
    count_.setArg (arg++, descending);
    launch (count_, block_global, block_local);

    set_args (scan_reduce_, counts_, sums_, (cl_uint) count_words, (cl_uint) scan_span_);
    launch (scan_reduce_, scan_global, scan_local);
    set_args (scan_top_, sums_, (cl_uint) scan_groups);
    launch (scan_top_, scan_local, scan_local);
    set_args (scan_down_, counts_, sums_, (cl_uint) count_words, (cl_uint) scan_span_);
    launch (scan_down_, scan_global, scan_local);

    set_args (scatter_, in, out, counts_);
    arg = set_block_args (scatter_, 3);
    scatter_.setArg (arg++, unmap_keys);
    scatter_.setArg (arg++, key_type);
    scatter_.setArg (arg++, descending);
    launch (scatter_, block_global, block_local);
  }
}

RadixShape
choose_radix_shape (Device & device, const std::string & forced, unsigned digit_bits)
{
  const std::string family = "sort-radix";
  /* Any shape can be named, not only the timed ones. */
  const std::string variable = variant_environment_name (family);
  const std::string named = forced.empty () ? env::variant (family) : forced;
  RadixShape shape;
  if (!named.empty ()) {
    if (!RadixShape::parse (named, &shape))
      throw Failure (Failure::Kind::Settings, std::string ("no radix sort shape \"") + named +
          "\"" + (forced.empty () ? " in " + variable : "") + " (serial or "
          "<work-items>x<keys per work-item>, e.g. 256x16, at most 32768 keys)");
    return shape;
  }
  /* On CPUs the serial kernels; elsewhere the fastest tiled shape. */
  if (device.type & CL_DEVICE_TYPE_CPU)
    return RadixShape { 1, 1 };
  std::vector<TuningCandidate> candidates;
  for (const char *name : TILED_SHAPES)
    candidates.push_back ({ name, true });
  {
    /* Timed on one row of random keys, each shape sorting them. */
    const size_t keys = std::min (TUNING_KEYS, (size_t) device.max_alloc_bytes / 4);
    SortTiming timing (device, keys);
    std::map<size_t, std::unique_ptr<RadixSort>> sorts;
    auto time_one = [&](size_t candidate) -> double {
      auto & sort = sorts[candidate];
      if (!sort) {
        RadixShape candidate_shape;
        RadixShape::parse (candidates[candidate].name, &candidate_shape);
        sort = std::make_unique<RadixSort> (device, candidate_shape, digit_bits);
      }
      return timing.time ([&](const cl::Buffer & src, const cl::Buffer & dst,
              const SortLauncher & launch) {
            sort->enqueue (src, dst, 1, keys, SortKey::UInt32, SortOrder::Ascending, launch);
          });
    };
    const std::string key = "digits " + std::to_string (digit_bits) + " source " +
        std::to_string (stable_hash (radix_source ()));
    const size_t index = choose_variant (device.cl_device, family, key, candidates, time_one);
    RadixShape::parse (candidates[index].name, &shape);
  }
  return shape;
}

OnesweepSort::OnesweepSort (Device & device, const RadixShape & shape, unsigned digit_bits,
    unsigned split_bits)
  : RadixPasses (device, shape, digit_bits), split_bits_ (split_bits)
{
  check_digits (digit_bits, split_bits);
  RadixShape checked;
  if (shape.serial () || !RadixShape::parse (shape.name (), &checked))
    throw Failure (Failure::Kind::Settings, "no onesweep sort shape " + shape.name () +
        " (<work-items>x<keys per work-item>, at most 32768 keys)");
  const size_t digits = size_t (1) << digit_bits;
  const size_t group = shape.group_size;
  /* The scatter's local memory: the ranking's, the digits' scan, counts and bases, the tile
   * number; the histogram kernel's counts are smaller. */
  check_shape_fits (device, shape, ranking_bytes (shape, split_bits) + group * 4 +
      digits * 8 + 4);
  cl::Program program = device.programs.get (device.context, device.cl_device, "radixsort",
      radix_source (), radix_options (digit_bits, shape, split_bits));
  histograms_ = cl::Kernel (program, "onesweep_histograms");
  scatter_ = cl::Kernel (program, "onesweep_scatter");
  for (const auto & kernel : { histograms_, scatter_ })
    check_kernel_fits (kernel, device, shape);
  tile_counters_ = cl::Buffer (device.context, CL_MEM_READ_WRITE | CL_MEM_HOST_NO_ACCESS,
      (32 / digit_bits) * sizeof (cl_uint));
  GST_DEBUG ("onesweep sort on %s: tiles of %s, %u-bit digits", device.name.c_str (),
      shape.name ().c_str (), digit_bits);
}

void
OnesweepSort::enqueue (const cl::Buffer & src, const cl::Buffer & dst, size_t rows,
    size_t length, SortKey key, SortOrder order, const SortLauncher & launch)
{
  if (rows == 0 || length == 0)
    return;
  const size_t keys = rows * length;
  const size_t digits = size_t (1) << digit_bits_;
  const unsigned passes = 32 / digit_bits_;
  const size_t tile = tile_keys ();
  const size_t tiles_per_row = (length + tile - 1) / tile;
  const size_t tiles = rows * tiles_per_row;
  const size_t state_words = tiles * digits;
  const size_t histogram_words = rows * passes * digits;
  if (length > MAX_LENGTH)
    throw Failure (Failure::Kind::TooLarge, "the onesweep sort takes rows of at most " +
        std::to_string (MAX_LENGTH) + " keys, not " + std::to_string (length));
  const char *sorting = "onesweep sorting";
  if (state_words > MAX_COUNT_WORDS || state_words * 4 > device_.max_alloc_bytes)
    throw sort_too_large (device_, sorting, rows, length, "tile states", state_words * 4);
  if (histogram_words > MAX_COUNT_WORDS || histogram_words * 4 > device_.max_alloc_bytes)
    throw sort_too_large (device_, sorting, rows, length, "digit counts",
        histogram_words * 4);
  if (keys * 4 > device_.max_alloc_bytes)
    throw sort_too_large (device_, sorting, rows, length, "scratch", keys * 4);
  grow_words (device_, scratch_, scratch_words_, keys);
  if (state_words_ < state_words) {
    for (cl::Buffer & states : states_)
      states = device_words (device_, state_words);
    state_words_ = state_words;
  }
  if (histogram_words_ < histogram_words) {
    /* Cleared once here; the sorts leave them clear. */
    histograms_buffer_ = cl::Buffer (device_.context, CL_MEM_READ_WRITE,
        histogram_words * sizeof (cl_uint));
    const std::vector<cl_uint> zeros (histogram_words, 0);
    device_.queue.enqueueWriteBuffer (histograms_buffer_, CL_TRUE, 0,
        histogram_words * sizeof (cl_uint), zeros.data ());
    histogram_words_ = histogram_words;
  }

  /* The histogram kernel: a few work-groups per compute unit, each a run of one row's tiles. */
  constexpr size_t HISTOGRAM_GROUPS_PER_UNIT = 4;
  const size_t wanted_groups = HISTOGRAM_GROUPS_PER_UNIT * compute_units_;
  const size_t tiles_per_group = std::clamp<size_t> ((tiles + wanted_groups - 1) / wanted_groups,
      1, tiles_per_row);
  const size_t groups_per_row = (tiles_per_row + tiles_per_group - 1) / tiles_per_group;
  const size_t group = shape_.group_size;
  const cl_int key_type = (cl_int) key;
  const cl_int descending = order == SortOrder::Descending;
  try {
    set_args (histograms_, src, histograms_buffer_, states_[0], tile_counters_,
        (cl_uint) length, (cl_uint) tiles_per_row, (cl_uint) groups_per_row,
        (cl_uint) tiles_per_group, key_type, descending);
    launch (histograms_, cl::NDRange (rows * groups_per_row * group), cl::NDRange (group));
    for (unsigned pass = 0; pass < passes; pass++) {
      const cl::Buffer & in = pass_input (pass, src, dst);
      const cl::Buffer & out = pass_output (pass, dst);
      set_args (scatter_, in, out, histograms_buffer_, states_[pass % 2],
          states_[(pass + 1) % 2], tile_counters_, (cl_uint) length, (cl_uint) tiles_per_row,
          (cl_uint) pass, (cl_int) (pass == 0), (cl_int) (pass == passes - 1), key_type,
          descending);
      launch (scatter_, cl::NDRange (tiles * group), cl::NDRange (group));
    }
  } catch (...) {
    /* A sort cut short may leave counts behind: clear them again before the next one. */
    histogram_words_ = 0;
    throw;
  }
}

RadixShape
choose_onesweep_shape (const std::string & forced, const std::string & environment,
    const RadixShape & fallback)
{
  const std::string & named = forced.empty () ? environment : forced;
  if (named.empty ())
    return fallback;
  RadixShape shape;
  if (!RadixShape::parse (named, &shape) || shape.serial ())
    throw Failure (Failure::Kind::Settings, std::string ("no onesweep sort shape \"") + named +
        "\"" + (forced.empty () ? " in " + variant_environment_name ("sort-onesweep") : "") +
        " (<work-items>x<keys per work-item>, e.g. 256x16, at most 32768 keys)");
  return shape;
}

SortTiming::SortTiming (Device & device, size_t keys) : device_ (device), keys_ (keys)
{
}

double
SortTiming::time (const std::function<void (const cl::Buffer & src, const cl::Buffer & dst,
        const SortLauncher & launch)> & enqueue)
{
  if (!src_ ()) {
    std::vector<cl_uint> values (keys_);
    std::mt19937 random (1);
    for (auto & value : values)
      value = random ();
    src_ = cl::Buffer (device_.context, CL_MEM_READ_WRITE, keys_ * 4);
    dst_ = cl::Buffer (device_.context, CL_MEM_READ_WRITE, keys_ * 4);
    device_.queue.enqueueWriteBuffer (src_, CL_TRUE, 0, keys_ * 4, values.data ());
  }
  std::vector<cl::Event> events;
  enqueue (src_, dst_, [&](const cl::Kernel & kernel, const cl::NDRange & global,
          const cl::NDRange & local) {
        events.emplace_back ();
        device_.queue.enqueueNDRangeKernel (kernel, cl::NullRange, global, local, nullptr,
            &events.back ());
      });
  device_.queue.finish ();
  double ms = 0;
  for (const auto & event : events)
    ms += event_milliseconds (event);
  return ms;
}

}  // namespace gst_opencl
