/* gst-opencl: sorting rows of keys in device memory: the bitonic network (kernels/sort.cl) here,
 * the radix sort for long rows in gstopenclradixsort.cpp.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Bitonic schedule for rows padded to P words, chunk C words per work-group (both powers of two):
 *   P <= C:  one sort_chunks launch sorts everything in local memory and writes the keys.
 *   P > C:   sort_chunks sorts every chunk (stages 2 .. C); then for each stage k = 2C .. P the
 *            strides k/2 .. C run as global passes of up to four strides each (sort_global_N),
 *            and the strides C/2 .. 1 as one sort_merge launch; the last one writes the keys.
 * For P = 2^25 and C = 4096 that is 1 + 13 merges + 28 global passes instead of the 325
 * single-stride passes of the plain network.
 * With GlobalPasses (CPUs): sort_pad, then for each stage k = 2 .. P its strides in global
 * passes (one stride each on CPUs), then sort_unpad. */
#include "opencl/gstopencldevicesort.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "opencl/gstopenclenv.h"
#include "opencl/gstopenclkernels.h"
#include "opencl/gstopenclnametable.h"
#include "opencl/gstopenclprogram.h"
#include "opencl/gstopenclradixsort.h"
#include "opencl/gstopencltuning.h"
#include "opencl/gstopenclutils.h"

#define GST_CAT_DEFAULT gst_opencl_debug

namespace gst_opencl {

const char *
sort_strategy_name (SortStrategy strategy)
{
  static constexpr NamedValue<SortStrategy> names[] = {
    { SortStrategy::LocalStages, "local-stages" }, { SortStrategy::GlobalPasses, "global-passes" },
    { SortStrategy::Bitonic, "bitonic" }, { SortStrategy::Radix, "radix" },
    { SortStrategy::Onesweep, "onesweep" },
  };
  return name_of (names, strategy, "automatic");
}

namespace {

size_t
floor_power_of_two (size_t value)
{
  size_t power = 1;
  while (power <= value / 2)
    power *= 2;
  return value ? power : 0;
}

unsigned
log2_exact (size_t power)
{
  unsigned bits = 0;
  while ((size_t (1) << bits) < power)
    bits++;
  return bits;
}

size_t
kernel_group_limit (const cl::Kernel & kernel, const cl::Device & device)
{
  return kernel.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE> (device);
}

/* The onesweep sort's tiles and split steps when none are named, by row length: the first
 * entry whose max_length the row does not exceed (GPUs; CPUs take 256x16). Measured on an H100
 * with tests/bench/sort-gpu-check.sh (docs/openclsort.md): 256x4 fastest from 2^14 to 2^16,
 * 256x8 at 2^17, 2^18 and 2^22, 256x16 at 2^19 to 2^21. */
struct OnesweepTiles
{
  size_t max_length;
  RadixShape shape;
  unsigned split_bits;
};
const OnesweepTiles ONESWEEP_TILES[] = {
  { size_t (1) << 16, { 256, 4 }, 2 },
  { size_t (1) << 18, { 256, 8 }, 2 },
  { size_t (1) << 21, { 256, 16 }, 2 },
  { SIZE_MAX, { 256, 8 }, 2 },
  { SIZE_MAX, { 256, 16 }, 2 },  /* CPUs, every length */
};
constexpr size_t ONESWEEP_TILE_CHOICES = sizeof ONESWEEP_TILES / sizeof ONESWEEP_TILES[0];
constexpr size_t ONESWEEP_CPU_TILES = ONESWEEP_TILE_CHOICES - 1;

/* Global passes of 1 to 4 strides (one kernel each). */
constexpr unsigned MAX_GLOBAL_STEPS = 4;

/* GST_OPENCL_VARIANT_SORT: Bitonic, Radix, Onesweep, or Automatic when unset. */
SortStrategy
forced_strategy ()
{
  const std::vector<TuningCandidate> candidates { { "bitonic", false }, { "radix", false },
    { "onesweep", false } };
  switch (forced_variant ("sort", candidates)) {
    case 0:
      return SortStrategy::Bitonic;
    case 1:
      return SortStrategy::Radix;
    case 2:
      return SortStrategy::Onesweep;
    default:
      return SortStrategy::Automatic;
  }
}

/* Throws unless rows x length keys, each row padded, stay within the sort's 2^31 words and
 * both buffers hold them. */
void
check_sort_buffers (const cl::Buffer & src, const cl::Buffer & dst, size_t rows, size_t length)
{
  const size_t padded = DeviceSort::padded_length (length);
  if (padded > DeviceSort::MAX_WORDS || rows > DeviceSort::MAX_WORDS / padded)
    throw Failure (Failure::Kind::TooLarge, "cannot sort " + std::to_string (rows) +
        " rows of " + std::to_string (length) + " keys: more than 2^31 words once padded");
  const size_t key_bytes = rows * length * sizeof (cl_uint);
  if (src.getInfo<CL_MEM_SIZE> () < key_bytes || dst.getInfo<CL_MEM_SIZE> () < key_bytes)
    throw Failure (Failure::Kind::Settings, "sort buffers hold fewer than " +
        std::to_string (rows) + " x " + std::to_string (length) + " keys");
}

}  // namespace

size_t
DeviceSort::padded_length (size_t length)
{
  size_t padded = 1;
  while (padded < length)
    padded *= 2;
  return padded;
}

void
DeviceSort::check_fits (const Device & device, size_t rows, size_t length, const char *what)
{
  const size_t padded = padded_length (length);
  const guint64 bytes = (guint64) rows * padded * sizeof (cl_uint);
  if (padded > MAX_WORDS || rows > MAX_WORDS / padded || bytes > device.max_alloc_bytes) {
    throw Failure (Failure::Kind::TooLarge, std::string (what) + " of " +
        std::to_string (rows) + " x " + std::to_string (length) + " values needs " +
        std::to_string (bytes) + " bytes once padded, more than " + device.name +
        " allows (largest allocation " + std::to_string (device.max_alloc_bytes) +
        " bytes, at most 2^31 padded values)");
  }
}

DeviceSort::DeviceSort (Device & device, SortKey key, SortOrder order, const SortTuning & tuning)
  : device_ (device), key_ (key), order_ (order), tuning_ (tuning),
    onesweep_environment_ (env::variant ("sort-onesweep"))
{
  const bool cpu = (device.type & CL_DEVICE_TYPE_CPU) != 0;
  SortStrategy requested = tuning.strategy;
  if (requested == SortStrategy::Automatic)
    requested = forced_strategy ();
  choose_row_sorts (requested, cpu);
  radix_digit_bits_ = tuning.radix_digit_bits ? tuning.radix_digit_bits :
      cpu ? RADIX_DIGIT_BITS_CPU : RADIX_DIGIT_BITS_GPU;
  if (radix_digit_bits_ != 4 && radix_digit_bits_ != 8)
    throw Failure (Failure::Kind::Settings, "radix digits of " +
        std::to_string (radix_digit_bits_) + " bits (4 or 8 only)");

  chunks_ = device.kernel ("sort", "sort_chunks", "");
  merge_ = device.kernel ("sort", "sort_merge", "");
  pad_ = device.kernel ("sort", "sort_pad", "");
  unpad_ = device.kernel ("sort", "sort_unpad", "");
  const char *global_names[] = { "sort_global_2", "sort_global_4", "sort_global_8",
    "sort_global_16" };
  for (unsigned i = 0; i < MAX_GLOBAL_STEPS; i++)
    global_[i] = device.kernel ("sort", global_names[i], "");

  strategy_ = requested == SortStrategy::LocalStages || requested == SortStrategy::GlobalPasses ?
      requested : cpu ? SortStrategy::GlobalPasses : SortStrategy::LocalStages;
  bitonic_ = bitonic_shape (cpu);
  if (strategy_ == SortStrategy::LocalStages)
    GST_DEBUG ("sort on %s: local stages, %zu words per work-group of %zu, global passes of up "
        "to %u strides", device.name.c_str (), bitonic_.chunk_words, bitonic_.group_size,
        bitonic_.max_global_steps);
  else
    GST_DEBUG ("sort on %s: global passes of up to %u strides", device.name.c_str (),
        bitonic_.max_global_steps);
}

void
DeviceSort::choose_row_sorts (SortStrategy requested, bool cpu)
{
  switch (requested) {
    case SortStrategy::Automatic:
      radix_min_length_ = tuning_.radix_min_length ? tuning_.radix_min_length :
          cpu ? RADIX_MIN_LENGTH_CPU : RADIX_MIN_LENGTH_GPU;
      onesweep_min_length_ = tuning_.onesweep_min_length ? tuning_.onesweep_min_length :
          cpu ? ONESWEEP_MIN_LENGTH_CPU : ONESWEEP_MIN_LENGTH_GPU;
      gpu_batch_rule_ = !cpu && !tuning_.radix_min_length && !tuning_.onesweep_min_length;
      time_long_rows_ = gpu_batch_rule_ || tuning_.time_long_rows;
      break;
    case SortStrategy::Radix:
      radix_min_length_ = 0;
      break;
    case SortStrategy::Onesweep:
      /* Rows too long for the onesweep sort's 30-bit counts take the radix sort. */
      radix_min_length_ = OnesweepSort::MAX_LENGTH + 1;
      onesweep_min_length_ = 0;
      break;
    default:
      radix_min_length_ = SIZE_MAX;
      break;
  }
}

BitonicShape
DeviceSort::bitonic_shape (bool cpu) const
{
  BitonicShape shape;
  /* On PoCL the one-stride pass (two loads, one compare-exchange) vectorises across work-items
   * best; more strides per pass measured slower there (docs/openclsort.md). GPUs save memory
   * traffic with four. */
  shape.max_global_steps = cpu ? 1 : MAX_GLOBAL_STEPS;
  if (tuning_.max_global_steps)
    shape.max_global_steps = std::clamp (tuning_.max_global_steps, 1u, MAX_GLOBAL_STEPS);

  /* Local stages: 512 work-items share a 4096-word chunk, 8 words (4 compare-exchanges per
   * step) each. */
  constexpr size_t TARGET_GROUP_SIZE = 512;
  constexpr size_t WORDS_PER_ITEM = 8;
  size_t group = std::min ({ TARGET_GROUP_SIZE, device_.max_work_group_size,
      kernel_group_limit (chunks_, device_.cl_device),
      kernel_group_limit (merge_, device_.cl_device) });
  group = floor_power_of_two (std::max<size_t> (group, 1));
  if (tuning_.group_size)
    group = std::min (group, floor_power_of_two (tuning_.group_size));
  /* Half the local memory at most, so the driver has room for its own. */
  size_t chunk = std::min (group * WORDS_PER_ITEM,
      floor_power_of_two ((size_t) device_.local_mem_bytes / (2 * sizeof (cl_uint))));
  if (tuning_.max_chunk_words)
    chunk = std::min (chunk, floor_power_of_two (tuning_.max_chunk_words));
  shape.chunk_words = std::max<size_t> (chunk, 2);
  shape.group_size = std::min (group, shape.chunk_words / 2);

  /* Global passes, pad and unpad: 256 work-items per group. */
  constexpr size_t GLOBAL_GROUP_SIZE = 256;
  size_t global_group = std::min (GLOBAL_GROUP_SIZE, device_.max_work_group_size);
  for (const auto & kernel : global_)
    global_group = std::min (global_group, kernel_group_limit (kernel, device_.cl_device));
  for (const auto & kernel : { pad_, unpad_ })
    global_group = std::min (global_group, kernel_group_limit (kernel, device_.cl_device));
  shape.global_group_size = std::max<size_t> (global_group, 1);
  return shape;
}

DeviceSort::~DeviceSort () = default;

SortStrategy
DeviceSort::strategy_for (size_t rows, size_t length) const
{
  if (length >= radix_min_length_)
    return time_long_rows_ && length <= OnesweepSort::MAX_LENGTH ? long_rows_sort () :
        SortStrategy::Radix;
  if (gpu_batch_rule_ && gpu_batch_takes_radix (rows, length))
    return SortStrategy::Radix;
  if (length >= onesweep_min_length_)
    return SortStrategy::Onesweep;
  return strategy_;
}

bool
DeviceSort::gpu_batch_takes_radix (size_t rows, size_t length)
{
  /* rows >= keys / length rounded up, i.e. rows x length >= keys without the product's
   * overflow; rounded down, one row just short of 2^23 keys would count as a batch of 2^23. */
  return length >= RADIX_MIN_BATCH_LENGTH_GPU &&
      rows >= (RADIX_MIN_BATCH_KEYS_GPU + length - 1) / length;
}

SortStrategy
DeviceSort::long_rows_sort () const
{
  if (long_rows_ != SortStrategy::Automatic)
    return long_rows_;
  /* Untimed and unnamed: the radix sort, the H100's choice from 2^23 keys. */
  if (!tuning_.time_long_rows && env::variant ("sort-long").empty ()) {
    long_rows_ = SortStrategy::Radix;
    return long_rows_;
  }
  const std::vector<TuningCandidate> candidates { { "radix", true }, { "onesweep", true } };
  const SortStrategy strategies[] = { SortStrategy::Radix, SortStrategy::Onesweep };
  /* Each sort forced on one row of random keys. */
  const size_t keys = std::min (tuning_.long_rows_timed_keys ? tuning_.long_rows_timed_keys :
      LONG_ROWS_TIMED_KEYS, (size_t) device_.max_alloc_bytes / 4);
  SortTiming timing (device_, keys);
  auto time_one = [&](size_t candidate) -> double {
    SortTuning forced = tuning_;
    forced.strategy = strategies[candidate];
    DeviceSort sort (device_, SortKey::UInt32, SortOrder::Ascending, forced);
    return timing.time ([&](const cl::Buffer & src, const cl::Buffer & dst,
            const DeviceSort::Launcher & launch) { sort.enqueue (src, dst, 1, keys, launch); });
  };
  const std::string key = "keys " + std::to_string (keys) + " digits " +
      std::to_string (radix_digit_bits_) + " source " + std::to_string (stable_hash (
          kernel_source ("radixsort") + kernel_source ("onesweep")));
  long_rows_ = strategies[choose_variant (device_.cl_device, "sort-long", key, candidates,
          time_one)];
  GST_DEBUG ("sort on %s: rows of %zu keys or more take the %s sort", device_.name.c_str (),
      radix_min_length_, long_rows_ == SortStrategy::Radix ? "radix" : "onesweep");
  return long_rows_;
}

RadixSort &
DeviceSort::radix ()
{
  if (!radix_)
    radix_ = std::make_unique<RadixSort> (device_, choose_radix_shape (device_,
            tuning_.radix_shape, radix_digit_bits_), radix_digit_bits_,
        tuning_.radix_tile_keys, split_bits ());
  return *radix_;
}

OnesweepSort &
DeviceSort::onesweep (size_t length)
{
  /* One sort per entry of the table; a named shape serves every length, from a slot of its
   * own. */
  const bool gpu = !(device_.type & CL_DEVICE_TYPE_CPU);
  size_t choice = ONESWEEP_CPU_TILES;
  for (size_t i = 0; gpu && i < ONESWEEP_CPU_TILES; i++) {
    if (length <= ONESWEEP_TILES[i].max_length) {
      choice = i;
      break;
    }
  }
  const bool named = !tuning_.onesweep_shape.empty () || !onesweep_environment_.empty ();
  const RadixShape shape = choose_onesweep_shape (tuning_.onesweep_shape, onesweep_environment_,
      ONESWEEP_TILES[choice].shape);
  unsigned split = named ? RADIX_SPLIT_BITS : ONESWEEP_TILES[choice].split_bits;
  if (tuning_.radix_split_bits)
    split = tuning_.radix_split_bits;
  if (named)
    choice = ONESWEEP_TILE_CHOICES;
  if (onesweep_.empty ())
    onesweep_.resize (ONESWEEP_TILE_CHOICES + 1);
  auto & sort = onesweep_[choice];
  if (!sort || sort->shape ().name () != shape.name () || sort->split_bits () != split)
    sort = std::make_unique<OnesweepSort> (device_, shape, radix_digit_bits_, split);
  return *sort;
}

template <typename Visit>
void
DeviceSort::schedule (size_t rows, size_t length, Visit && visit) const
{
  if (rows == 0 || length == 0)
    return;
  const size_t padded = padded_length (length);
  /* Strides stride, stride/2, ..., down to `last` in global passes of up to max steps. */
  auto global_passes = [&](size_t k, size_t stride, size_t last) {
    while (stride >= last) {
      unsigned remaining = log2_exact (stride / last) + 1;
      unsigned steps = std::min (remaining, bitonic_.max_global_steps);
      visit ({ Pass::Kind::Global, k, stride, steps, false });
      stride >>= steps;
    }
  };

  if (strategy_ == SortStrategy::GlobalPasses) {
    visit ({ Pass::Kind::Pad, 0, 0, 0, false });
    for (size_t k = 2; k <= padded; k *= 2)
      global_passes (k, k / 2, 1);
    visit ({ Pass::Kind::Unpad, 0, 0, 0, true });
    return;
  }

  const size_t chunk = bitonic_.chunk_words;
  if (padded <= chunk) {
    visit ({ Pass::Kind::Chunks, padded, 0, 0, true });
    return;
  }
  visit ({ Pass::Kind::Chunks, chunk, 0, 0, false });
  for (size_t k = 2 * chunk; k <= padded; k *= 2) {
    global_passes (k, k / 2, chunk);
    visit ({ Pass::Kind::Merge, k, 0, 0, k == padded });
  }
}

size_t
DeviceSort::launch_count (size_t rows, size_t length) const
{
  if (rows == 0 || length == 0)
    return 0;
  switch (strategy_for (rows, length)) {
    case SortStrategy::Radix:
      return RadixSort::launches (radix_digit_bits_);
    case SortStrategy::Onesweep:
      return OnesweepSort::launches (radix_digit_bits_);
    default:
      break;
  }
  size_t count = 0;
  schedule (rows, length, [&count](const Pass &) { count++; });
  return count;
}

void
DeviceSort::enqueue (const cl::Buffer & src, const cl::Buffer & dst, size_t rows, size_t length)
{
  auto & queue = device_.queue;
  enqueue (src, dst, rows, length, [&queue](const cl::Kernel & kernel, const cl::NDRange & global,
          const cl::NDRange & local) {
        queue.enqueueNDRangeKernel (kernel, cl::NullRange, global, local);
      });
}

void
DeviceSort::enqueue (const cl::Buffer & src, const cl::Buffer & dst, size_t rows, size_t length,
    const Launcher & launch)
{
  if (rows == 0 || length == 0)
    return;
  check_sort_buffers (src, dst, rows, length);
  switch (strategy_for (rows, length)) {
    case SortStrategy::Radix:
      radix ().enqueue (src, dst, rows, length, key_, order_, launch);
      return;
    case SortStrategy::Onesweep:
      onesweep (length).enqueue (src, dst, rows, length, key_, order_, launch);
      return;
    default:
      break;
  }
  enqueue_bitonic (src, dst, rows, length, launch);
}

void
DeviceSort::grow_scratch (size_t rows, size_t length, size_t total_words)
{
  if (scratch_words_ >= total_words)
    return;
  if (total_words * sizeof (cl_uint) > device_.max_alloc_bytes)
    throw Failure (Failure::Kind::TooLarge, "sorting " + std::to_string (rows) + " rows of " +
        std::to_string (length) + " keys needs " + std::to_string (total_words * 4) +
        " bytes of scratch, more than " + device_.name + " can allocate");
  scratch_ = cl::Buffer (device_.context, CL_MEM_READ_WRITE | CL_MEM_HOST_NO_ACCESS,
      total_words * sizeof (cl_uint));
  scratch_words_ = total_words;
  GST_DEBUG ("sort scratch of %zu words", total_words);
}

void
DeviceSort::enqueue_bitonic (const cl::Buffer & src, const cl::Buffer & dst, size_t rows,
    size_t length, const Launcher & launch)
{
  const size_t padded = padded_length (length);
  const size_t total_words = rows * padded;
  const size_t chunk = bitonic_.chunk_words;
  const bool needs_scratch = strategy_ == SortStrategy::GlobalPasses || padded > chunk;
  if (needs_scratch)
    grow_scratch (rows, length, total_words);

  const cl_uint padded_log2 = log2_exact (padded);
  const cl_int key_type = (cl_int) key_;
  const cl_int descending = order_ == SortOrder::Descending;
  const size_t groups = (total_words + chunk - 1) / chunk;
  const cl::NDRange local_range (bitonic_.group_size);
  const cl::NDRange local_global (groups * bitonic_.group_size);
  const cl::Buffer & words = needs_scratch ? scratch_ : dst;
  auto launch_flat = [&](cl::Kernel & kernel, size_t work_items) {
    const size_t group = bitonic_.global_group_size;
    launch (kernel, cl::NDRange ((work_items + group - 1) / group * group), cl::NDRange (group));
  };
  /* sort_pad and sort_unpad take the same arguments: rows of `length` keys to rows of `padded`
   * words and back, one work-item per word written. */
  auto launch_padding = [&](cl::Kernel & kernel, const cl::Buffer & from, const cl::Buffer & to,
      size_t work_items) {
    set_args (kernel, from, to, (cl_uint) rows, (cl_uint) length, padded_log2, key_type,
        descending);
    launch_flat (kernel, work_items);
  };

  schedule (rows, length, [&](const Pass & pass) {
        switch (pass.kind) {
          case Pass::Kind::Chunks:
            set_args (chunks_, src, words, dst, cl::Local (chunk * sizeof (cl_uint)),
                (cl_uint) rows, (cl_uint) length, padded_log2, (cl_uint) chunk, key_type,
                descending, (cl_int) pass.store_keys);
            launch (chunks_, local_global, local_range);
            break;
          case Pass::Kind::Global:{
            cl::Kernel & kernel = global_[pass.steps - 1];
            const size_t work_items = total_words >> pass.steps;
            set_args (kernel, words, (cl_uint) work_items, (cl_uint) pass.k, (cl_uint) pass.stride,
                (cl_uint) padded);
            launch_flat (kernel, work_items);
            break;
          }
          case Pass::Kind::Pad:
            launch_padding (pad_, src, words, total_words);
            break;
          case Pass::Kind::Unpad:
            launch_padding (unpad_, words, dst, rows * length);
            break;
          case Pass::Kind::Merge:
            set_args (merge_, words, dst, cl::Local (chunk * sizeof (cl_uint)), (cl_uint) rows,
                (cl_uint) length, padded_log2, (cl_uint) chunk, (cl_uint) pass.k, key_type,
                descending, (cl_int) pass.store_keys);
            launch (merge_, local_global, local_range);
            break;
        }
      });
}

}  // namespace gst_opencl
