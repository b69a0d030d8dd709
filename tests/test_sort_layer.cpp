/* gst-opencl tests: the device sort of the shared layer (gst_opencl::DeviceSort), linked in
 * statically: every sort (the bitonic network in both schedules, the radix sort in the CPU's
 * and the GPUs' shapes and in small blocks, the onesweep sort in the GPUs' tiles and in small
 * ones), every key type and order against std::sort with
 * the same strict total order, bit for bit, at lengths around every power of two or block size
 * the schedule changes at, in batches, on structured input and special floats; the packed
 * key + index variant against std::stable_sort; the choice between the sorts.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include <gst/check/gstcheck.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "common/suite.h"
#include "common/testutil.h"
#include "opencl/gstopenclcontext.h"
#include "opencl/gstopencldevice.h"
#include "opencl/gstopenclradixsort.h"
#include "opencl/gstopencldevicesort.h"
#include "opencl/gstopencltuning.h"
#include "opencl/gstopenclutils.h"
#include "reference/sort_reference.h"

using gst_opencl::DeviceSort;
using gst_opencl::RadixShape;
using gst_opencl::SortKey;
using gst_opencl::SortOrder;
using gst_opencl::SortStrategy;
using gst_opencl::SortTuning;

namespace {

/* A device like the one GstOpenCLContext holds, built here so this program never registers the
 * context's GType. */
std::unique_ptr<gst_opencl::Device>
make_device ()
{
  auto device = std::make_unique<gst_opencl::Device> ();
  device->cl_device = gst_opencl::select_device (gst_opencl::DeviceSpec (), "");
  device->name = gst_opencl::describe_device (device->cl_device);
  device->type = device->cl_device.getInfo<CL_DEVICE_TYPE> ();
  device->max_alloc_bytes = device->cl_device.getInfo<CL_DEVICE_MAX_MEM_ALLOC_SIZE> ();
  device->max_work_group_size = device->cl_device.getInfo<CL_DEVICE_MAX_WORK_GROUP_SIZE> ();
  device->local_mem_bytes = device->cl_device.getInfo<CL_DEVICE_LOCAL_MEM_SIZE> ();
  device->context = cl::Context (device->cl_device);
  device->queue = cl::CommandQueue (device->context, device->cl_device,
      CL_QUEUE_PROFILING_ENABLE);
  return device;
}

gst_opencl::Device &
shared_device ()
{
  static std::unique_ptr<gst_opencl::Device> device = make_device ();
  return *device;
}

template <typename T> SortKey key_of ();
template <> SortKey key_of<int32_t> () { return SortKey::Int32; }
template <> SortKey key_of<uint32_t> () { return SortKey::UInt32; }
template <> SortKey key_of<float> () { return SortKey::Float32; }

template <typename T> const char *name_of ();
template <> const char *name_of<int32_t> () { return "int32"; }
template <> const char *name_of<uint32_t> () { return "uint32"; }
template <> const char *name_of<float> () { return "float32"; }

/* Sorts on the device through a launcher that counts launches; the only wait is the read. */
template <typename T>
std::vector<T>
device_sort (DeviceSort & sort, const std::vector<T> & values, size_t rows, size_t length,
    bool in_place = true, size_t *launches = nullptr)
{
  auto & device = shared_device ();
  const size_t bytes = std::max<size_t> (values.size () * sizeof (T), 4);
  cl::Buffer src (device.context, CL_MEM_READ_WRITE, bytes);
  cl::Buffer dst = in_place ? src : cl::Buffer (device.context, CL_MEM_READ_WRITE, bytes);
  if (!values.empty ())
    device.queue.enqueueWriteBuffer (src, CL_FALSE, 0, values.size () * sizeof (T),
        values.data ());
  size_t count = 0;
  sort.enqueue (src, dst, rows, length, [&](const cl::Kernel & kernel, const cl::NDRange & global,
          const cl::NDRange & local) {
        count++;
        device.queue.enqueueNDRangeKernel (kernel, cl::NullRange, global, local);
      });
  std::vector<T> result (values.size ());
  if (!values.empty ())
    device.queue.enqueueReadBuffer (in_place ? src : dst, CL_TRUE, 0,
        values.size () * sizeof (T), result.data ());
  device.queue.finish ();
  fail_unless_equals_int (count, sort.launch_count (rows, length));
  if (launches)
    *launches = count;
  return result;
}

template <typename T>
std::string
show (T value)
{
  char text[64];
  if constexpr (std::is_same_v<T, float>) {
    uint32_t bits;
    std::memcpy (&bits, &value, sizeof bits);
    g_snprintf (text, sizeof text, "%g (0x%08x)", (double) value, bits);
  } else {
    g_snprintf (text, sizeof text, "%lld", (long long) value);
  }
  return text;
}

/* No rows, or rows of no keys: no launch, and the buffer is left alone. */
template <typename T>
void
expect_nothing_sorted (DeviceSort & sort)
{
  const std::vector<T> untouched { 3, 1, 2 };
  for (auto shape : { std::pair<size_t, size_t> { 0, 3 }, { 3, 0 } }) {
    fail_unless_equals_int (sort.launch_count (shape.first, shape.second), 0);
    size_t launches = 99;
    auto result = device_sort (sort, untouched, shape.first, shape.second, true, &launches);
    fail_unless_equals_int (launches, 0);
    fail_unless (result == untouched);
  }
}

/* Bitwise equality with the reference; fails with the first difference. */
template <typename T>
void
expect_sorted (DeviceSort & sort, const std::vector<T> & values, size_t rows, size_t length,
    const char *what, bool in_place = true)
{
  auto expected = reference::sort_rows (values, length,
      sort.order () == SortOrder::Descending);
  auto actual = device_sort (sort, values, rows, length, in_place);
  fail_unless_equals_int (actual.size (), expected.size ());
  for (size_t i = 0; i < actual.size (); i++) {
    if (std::memcmp (&actual[i], &expected[i], sizeof (T)) != 0) {
      const SortStrategy strategy = sort.strategy_for (rows, length);
      const std::string how = strategy == SortStrategy::Radix ? "radix " +
          sort.radix ().shape ().name () : strategy == SortStrategy::Onesweep ? "onesweep " +
          sort.onesweep (length).shape ().name () : "bitonic, chunk " +
          std::to_string (sort.chunk_words ());
      fail ("%s %s %s, %zu rows of %zu (%s): at row %zu, position %zu: %s, expected %s",
          name_of<T> (), sort.order () == SortOrder::Descending ? "descending" : "ascending",
          what, rows, length, how.c_str (), i / length, i % length,
          show (actual[i]).c_str (), show (expected[i]).c_str ());
    }
  }
}

using Kind = gst_opencl::Failure::Kind;

/* Whether `attempt` throws a Failure of `kind` whose message contains `part`. */
template <typename Attempt>
bool
fails_with (Kind kind, Attempt attempt, const char *part = "")
{
  try {
    attempt ();
  } catch (const gst_opencl::Failure & e) {
    return e.kind == kind && std::string (e.what ()).find (part) != std::string::npos;
  }
  return false;
}

/* Builds the radix sort of a sort with `tuning` (where its shape is checked). */
void
radix_of (gst_opencl::Device & device, const SortTuning & tuning)
{
  DeviceSort sort (device, SortKey::Int32, SortOrder::Ascending, tuning);
  sort.radix ();
}

template <typename T>
std::vector<T>
random_values (size_t count, uint32_t seed)
{
  std::mt19937 random (seed);
  std::vector<T> values (count);
  for (auto & value : values) {
    uint32_t bits = random ();
    if constexpr (std::is_same_v<T, float>) {
      /* Finite floats of every magnitude and sign, without NaNs (they have their own test). */
      value = std::ldexp ((float) (int32_t) bits / 2147483648.0f, (int) (random () % 60) - 30);
    } else {
      std::memcpy (&value, &bits, sizeof value);
    }
  }
  return values;
}

/* `lengths` in order, each once, none above `max_length`. */
std::vector<size_t>
lengths_up_to (std::vector<size_t> lengths, size_t max_length)
{
  std::sort (lengths.begin (), lengths.end ());
  lengths.erase (std::unique (lengths.begin (), lengths.end ()), lengths.end ());
  lengths.erase (std::remove_if (lengths.begin (), lengths.end (), [max_length](size_t length) {
        return length > max_length;
      }), lengths.end ());
  return lengths;
}

/* Lengths at and around every power of two from 1 to 2^16 that the schedule changes at, up to
 * `max_length`. */
std::vector<size_t>
interesting_lengths (size_t chunk, size_t max_length)
{
  std::vector<size_t> lengths { 0, 1, 2, 3, 5, 7, 1000 };
  for (size_t power = 4; power <= 65536; power *= 2) {
    bool boundary = power <= 64 || power == chunk / 2 || power == chunk || power == 2 * chunk ||
        power == 4 * chunk || power == 65536;
    if (!boundary && power != 256)
      continue;
    lengths.push_back (power - 1);
    lengths.push_back (power);
    lengths.push_back (power + 1);
  }
  return lengths_up_to (lengths, max_length);
}

/* Local stages in a given shape, or global passes of up to `steps` strides. */
SortTuning
local_stages (size_t group_size, size_t max_chunk_words = 0)
{
  SortTuning tuning;
  tuning.strategy = SortStrategy::LocalStages;
  tuning.group_size = group_size;
  tuning.max_chunk_words = max_chunk_words;
  tuning.max_global_steps = 4;  /* as on GPUs */
  return tuning;
}

SortTuning
global_passes (unsigned steps)
{
  SortTuning tuning;
  tuning.strategy = SortStrategy::GlobalPasses;
  tuning.max_global_steps = steps;
  return tuning;
}

/* The radix sort for every row, in a shape (gstopenclradixsort.h) with digits of `bits` bits;
 * serial blocks of `tile_keys` keys when given. */
SortTuning
radix (const std::string & shape, unsigned bits, size_t tile_keys = 0, unsigned split_bits = 0)
{
  SortTuning tuning;
  tuning.strategy = SortStrategy::Radix;
  tuning.radix_shape = shape;
  tuning.radix_digit_bits = bits;
  tuning.radix_tile_keys = tile_keys;
  tuning.radix_split_bits = split_bits;
  return tuning;
}

/* Both strategies whatever the device: the GPU shape (512 work-items sharing a 4096-word chunk,
 * barriers between steps) and the CPU one (global passes of up to 4 strides). */
const SortTuning GPU_SHAPE = local_stages (512);
const SortTuning CPU_SHAPE = global_passes (4);
/* The radix sort in the CPU's shape (one work-item per block of at least 4096 keys, 4-bit
 * digits) and in the GPUs' default (256 work-items x 16 keys ranked in local memory, 8-bit
 * digits), and each with the other digits. */
const SortTuning RADIX_CPU = radix ("serial", 4);
const SortTuning RADIX_GPU = radix ("256x16", 8);
const SortTuning RADIX_OTHER_DIGITS[] = { radix ("serial", 8), radix ("256x16", 4) };
/* The tiled ranking by 4-bit split steps, with both digit sizes. */
const SortTuning RADIX_SPLIT_4[] = { radix ("256x16", 8, 0, 4), radix ("32x4", 4, 0, 4) };
/* Small blocks, so that short rows span many: serial blocks of 5 keys, tiles of 2, 8 and 128,
 * with both digit sizes. */
const SortTuning RADIX_SMALL[] = { radix ("serial", 4, 5), radix ("serial", 8, 5),
  radix ("2x1", 8), radix ("4x2", 4), radix ("32x4", 8), radix ("32x4", 4) };

/* The onesweep sort for every row, in tiles of a shape, with digits of `bits` bits. */
SortTuning
onesweep (const std::string & shape, unsigned bits, unsigned split_bits = 0)
{
  SortTuning tuning;
  tuning.strategy = SortStrategy::Onesweep;
  tuning.onesweep_shape = shape;
  tuning.radix_digit_bits = bits;
  tuning.radix_split_bits = split_bits;
  return tuning;
}

/* The GPUs' tiles (256 x 16 keys, 8-bit digits), with 4-bit digits, and small tiles of 2, 8
 * and 128 keys so that short rows span many and look back far (fewer work-items than digits
 * in the first two). */
const SortTuning ONESWEEP_GPU = onesweep ("256x16", 8);
const SortTuning ONESWEEP_OTHER_DIGITS = onesweep ("256x16", 4);
const SortTuning ONESWEEP_SMALL[] = { onesweep ("2x1", 8), onesweep ("4x2", 4),
  onesweep ("32x4", 8), onesweep ("32x4", 4) };
/* 4-bit split steps: GPU tiles, small tiles with 8-bit and 4-bit digits. */
const SortTuning ONESWEEP_SPLIT_4[] = { onesweep ("256x16", 8, 4), onesweep ("4x2", 8, 4),
  onesweep ("32x4", 4, 4) };

/* Whether this suite sorts with `tuning`. Each radix or onesweep program (one per tile shape,
 * digit size and split step) takes PoCL 10 to 30 s to build, so the quick suite runs them only
 * in the four shapes it builds anyway: the CPU's own two (serial blocks for the radix sort,
 * 256x16 tiles for the onesweep sort, 4-bit digits; openclsort's test builds them too), tiles of
 * 2 keys with 8-bit digits (fewer work-items than digits; test_radix_too_large) and tiles of
 * 32x4 keys with 4-bit digits (test_radix_shapes). The full suite builds eleven. The bitonic
 * sorts are one program: every tuning of them runs. */
bool
in_this_suite (const SortTuning & tuning)
{
  if (testutil::full_suite () || (tuning.strategy != SortStrategy::Radix &&
          tuning.strategy != SortStrategy::Onesweep))
    return true;
  const std::string & shape = tuning.strategy == SortStrategy::Radix ? tuning.radix_shape :
      tuning.onesweep_shape;
  const unsigned split_bits = tuning.radix_split_bits ? tuning.radix_split_bits : 2;
  const struct
  {
    const char *shape;
    unsigned digit_bits;
  } quick[] = { { "serial", 4 }, { "256x16", 4 }, { "2x1", 8 }, { "32x4", 4 } };
  for (const auto & kept : quick)
    if (shape == kept.shape && tuning.radix_digit_bits == kept.digit_bits && split_bits == 2)
      return true;
  return false;
}

/* One random row of each length `lengths_of (sort)` gives, sorted both ways. With `radix`, every
 * length must take the sort the tuning forces (radix or onesweep), and rows of odd length are
 * sorted out of place. */
template <typename T, typename LengthsOf>
void
check_each_length (const SortTuning & tuning, LengthsOf lengths_of, uint32_t first_seed,
    bool radix)
{
  for (auto order : { SortOrder::Ascending, SortOrder::Descending }) {
    DeviceSort sort (shared_device (), key_of<T> (), order, tuning);
    uint32_t seed = first_seed;
    for (size_t length : lengths_of (sort)) {
      if (radix)
        fail_unless (sort.strategy_for (1, length) == tuning.strategy);
      expect_sorted (sort, random_values<T> (length, seed++), 1, length, "random",
          !radix || length % 2 == 0);
    }
  }
}

template <typename T>
void
check_lengths (const SortTuning & tuning, size_t max_length)
{
  check_each_length<T> (tuning, [max_length](DeviceSort & sort) {
        return interesting_lengths (sort.chunk_words (), max_length);
      }, 1, false);
}

template <typename T>
std::vector<T>
structured_values (const std::string & pattern, size_t count, uint32_t seed)
{
  std::vector<T> values = random_values<T> (count, seed);
  if (pattern == "ascending") {
    std::sort (values.begin (), values.end (), [](T a, T b) {
          if constexpr (std::is_same_v<T, float>) return reference::float_less (a, b);
          else return a < b;
        });
  } else if (pattern == "descending") {
    std::sort (values.begin (), values.end (), [](T a, T b) {
          if constexpr (std::is_same_v<T, float>) return reference::float_less (b, a);
          else return b < a;
        });
  } else if (pattern == "equal") {
    std::fill (values.begin (), values.end (), values.empty () ? T () : values[0]);
  } else if (pattern == "few") {
    for (size_t i = 0; i < values.size (); i++)
      values[i] = (T) (int) ((i * 7919u + seed) % 5);
  } else if (pattern == "extremes") {
    const T choices[] = { std::numeric_limits<T>::lowest (), std::numeric_limits<T>::max (),
      T (0), T (1), std::numeric_limits<T>::min () };
    for (size_t i = 0; i < values.size (); i++)
      values[i] = choices[(i * 2654435761u + seed) % 5];
  }
  return values;
}

/* Lengths around the radix sort's blocks: one, two and three blocks of `tile` and their
 * neighbours, up to `max_length`. */
std::vector<size_t>
radix_lengths (size_t tile, size_t max_length)
{
  std::vector<size_t> lengths { 0, 1, 2, 3, 5, 7, 255, 256, 257, 1000 };
  for (size_t blocks : { 1, 2, 3 })
    for (size_t length : { blocks * tile - 1, blocks * tile, blocks * tile + 1 })
      lengths.push_back (length);
  lengths.push_back (65537);
  lengths.push_back (100003);
  return lengths_up_to (lengths, max_length);
}

template <typename T>
void
check_radix_lengths (const SortTuning & tuning, size_t max_length)
{
  if (!in_this_suite (tuning))
    return;
  check_each_length<T> (tuning, [max_length, &tuning](DeviceSort & sort) {
        return radix_lengths (tuning.strategy == SortStrategy::Onesweep ?
            sort.onesweep (1).tile_keys () : sort.radix ().tile_keys (1, 1), max_length);
      }, 100, true);
}

/* check_radix_lengths with each key type. */
void
check_radix_lengths_of_every_key (const SortTuning & tuning, size_t max_length)
{
  check_radix_lengths<int32_t> (tuning, max_length);
  check_radix_lengths<uint32_t> (tuning, max_length);
  check_radix_lengths<float> (tuning, max_length);
}

}  // namespace

GST_START_TEST (test_int32_lengths)
{
  check_lengths<int32_t> (CPU_SHAPE, 65537);
  check_lengths<int32_t> (GPU_SHAPE, 65537);
}
GST_END_TEST;

GST_START_TEST (test_uint32_lengths)
{
  check_lengths<uint32_t> (CPU_SHAPE, 65537);
  check_lengths<uint32_t> (GPU_SHAPE, 65537);
}
GST_END_TEST;

GST_START_TEST (test_float32_lengths)
{
  check_lengths<float> (CPU_SHAPE, 65537);
  check_lengths<float> (GPU_SHAPE, 65537);
}
GST_END_TEST;

/* An 8-word chunk sends every stride >= 8 through the global passes (1 to 4 strides each), so
 * short rows exercise the whole schedule; with one work-item or several per group. */
GST_START_TEST (test_small_chunk_schedule)
{
  const struct
  {
    size_t chunk, group;
  } shapes[] = { { 2, 1 }, { 8, 1 }, { 8, 4 }, { 64, 8 } };
  for (const auto & shape : shapes) {
    for (auto order : { SortOrder::Ascending, SortOrder::Descending }) {
      DeviceSort ints (shared_device (), SortKey::Int32, order,
          local_stages (shape.group, shape.chunk));
      DeviceSort floats (shared_device (), SortKey::Float32, order,
          local_stages (shape.group, shape.chunk));
      fail_unless_equals_int (ints.chunk_words (), shape.chunk);
      fail_unless (ints.group_size () <= shape.group, "%zu work-items", ints.group_size ());
      for (size_t length = 1; length <= 70; length++) {
        expect_sorted (ints, random_values<int32_t> (length, length), 1, length, "random");
        expect_sorted (floats, random_values<float> (3 * length, length), 3, length, "random");
      }
      for (size_t length : { 255, 256, 257, 1000, 4097 })
        expect_sorted (ints, random_values<int32_t> (2 * length, length), 2, length, "random");
    }
  }
}
GST_END_TEST;

/* Global passes of 1, 2, 3 and 4 strides each, on every short length and a few long ones. */
GST_START_TEST (test_global_passes)
{
  for (unsigned steps = 1; steps <= 4; steps++) {
    for (auto order : { SortOrder::Ascending, SortOrder::Descending }) {
      DeviceSort ints (shared_device (), SortKey::Int32, order, global_passes (steps));
      DeviceSort floats (shared_device (), SortKey::Float32, order, global_passes (steps));
      for (size_t length = 1; length <= 40; length++) {
        expect_sorted (ints, random_values<int32_t> (2 * length, length), 2, length, "random");
        expect_sorted (floats, random_values<float> (length, length), 1, length, "random");
      }
      for (size_t length : { 1000, 4097, 20000 })
        expect_sorted (ints, random_values<int32_t> (length, length), 1, length, "random",
            false);
    }
  }
}
GST_END_TEST;

/* Batches of 2, 3, 7 and 64 rows of random keys of each length (up to 70000 keys in all)
 * through the three sorts, one per key type. */
static void
expect_random_batches (DeviceSort & ints, DeviceSort & uints, DeviceSort & floats,
    std::initializer_list<size_t> lengths)
{
  for (size_t rows : { 2, 3, 7, 64 }) {
    for (size_t length : lengths) {
      if (rows * length > 70000)
        continue;
      uint32_t seed = (uint32_t) (rows * 100000 + length);
      expect_sorted (ints, random_values<int32_t> (rows * length, seed), rows, length,
          "random");
      expect_sorted (uints, random_values<uint32_t> (rows * length, seed), rows, length,
          "random", false);
      expect_sorted (floats, random_values<float> (rows * length, seed), rows, length,
          "random");
    }
  }
}

/* Each structured pattern of each length through the three sorts: two rows of int32, one of
 * uint32 and of float. */
static void
expect_structured (DeviceSort & ints, DeviceSort & uints, DeviceSort & floats,
    std::initializer_list<size_t> lengths)
{
  for (const char *pattern : { "ascending", "descending", "equal", "few", "extremes" }) {
    for (size_t length : lengths) {
      expect_sorted (ints, structured_values<int32_t> (pattern, 2 * length, 7), 2, length,
          pattern);
      expect_sorted (uints, structured_values<uint32_t> (pattern, length, 7), 1, length,
          pattern);
      expect_sorted (floats, structured_values<float> (pattern, length, 7), 1, length,
          pattern);
    }
  }
}

GST_START_TEST (test_batches)
{
  for (auto order : { SortOrder::Ascending, SortOrder::Descending }) {
    DeviceSort ints (shared_device (), SortKey::Int32, order);
    DeviceSort uints (shared_device (), SortKey::UInt32, order, GPU_SHAPE);
    DeviceSort floats (shared_device (), SortKey::Float32, order);
    expect_random_batches (ints, uints, floats, { 1, 2, 3, 100, 1000, 4097 });
  }
}
GST_END_TEST;

GST_START_TEST (test_structured_input)
{
  for (auto order : { SortOrder::Ascending, SortOrder::Descending }) {
    DeviceSort ints (shared_device (), SortKey::Int32, order, GPU_SHAPE);
    DeviceSort uints (shared_device (), SortKey::UInt32, order);
    DeviceSort floats (shared_device (), SortKey::Float32, order);
    expect_structured (ints, uints, floats, { 3, 1000, 4097, 16384 });
  }
}
GST_END_TEST;

/* NaNs with several payloads and both signs, zeros of both signs, infinities, denormals and
 * the largest and smallest finite floats, shuffled among random values. */
GST_START_TEST (test_special_floats)
{
  const uint32_t special_bits[] = {
    0x7FC00000u, 0x7F800001u, 0x7FFFFFFFu, 0x7FA5A5A5u,       /* +NaN: quiet, signalling, ... */
    0xFFC00000u, 0xFF800001u, 0xFFFFFFFFu, 0xFFA5A5A5u,       /* -NaN */
    0x00000000u, 0x80000000u,                                 /* +0, -0 */
    0x7F800000u, 0xFF800000u,                                 /* +inf, -inf */
    0x00000001u, 0x80000001u, 0x007FFFFFu, 0x807FFFFFu,       /* denormals */
    0x7F7FFFFFu, 0xFF7FFFFFu, 0x00800000u, 0x80800000u,       /* max, lowest, min normal */
    0x3F800000u, 0xBF800000u,                                 /* +1, -1 */
  };
  std::mt19937 random (5);
  for (auto order : { SortOrder::Ascending, SortOrder::Descending }) {
    for (const auto & tuning : { CPU_SHAPE, GPU_SHAPE, RADIX_CPU, RADIX_GPU,
            RADIX_OTHER_DIGITS[0], RADIX_OTHER_DIGITS[1], RADIX_SMALL[2], ONESWEEP_GPU,
            ONESWEEP_OTHER_DIGITS, ONESWEEP_SMALL[2], RADIX_SPLIT_4[0],
            ONESWEEP_SPLIT_4[0] }) {
      if (!in_this_suite (tuning))
        continue;
      DeviceSort sort (shared_device (), SortKey::Float32, order, tuning);
      for (size_t length : { 22, 23, 64, 1000, 4095, 4097, 20000 }) {
        std::vector<float> values = random_values<float> (length, (uint32_t) length);
        for (size_t i = 0; i < length; i++) {
          if (random () % 3 == 0 || i < G_N_ELEMENTS (special_bits)) {
            uint32_t bits = special_bits[random () % G_N_ELEMENTS (special_bits)];
            if (i < G_N_ELEMENTS (special_bits))
              bits = special_bits[i];
            std::memcpy (&values[i], &bits, sizeof bits);
          }
        }
        std::shuffle (values.begin (), values.end (), random);
        expect_sorted (sort, values, 1, length, "special values");
      }
    }
  }

  /* The order itself, spelled out: -inf < -1 < -0 < +0 < 1 < +inf < +NaN < -NaN. */
  std::vector<float> values;
  for (uint32_t bits : { 0xFFC00000u, 0x7F800000u, 0x00000000u, 0x3F800000u, 0x80000000u,
          0x7FC00000u, 0xBF800000u, 0xFF800000u }) {
    float value;
    std::memcpy (&value, &bits, sizeof value);
    values.push_back (value);
  }
  for (const auto & tuning : { SortTuning (), RADIX_CPU, RADIX_GPU, ONESWEEP_GPU }) {
    if (!in_this_suite (tuning))
      continue;
    DeviceSort sort (shared_device (), SortKey::Float32, SortOrder::Ascending, tuning);
    auto sorted = device_sort (sort, values, 1, values.size ());
    const uint32_t expected[] = { 0xFF800000u, 0xBF800000u, 0x80000000u, 0x00000000u,
      0x3F800000u, 0x7F800000u, 0x7FC00000u, 0xFFC00000u };
    for (size_t i = 0; i < G_N_ELEMENTS (expected); i++) {
      uint32_t bits;
      std::memcpy (&bits, &sorted[i], sizeof bits);
      fail_unless (bits == expected[i], "position %zu: 0x%08x, expected 0x%08x", i, bits,
          expected[i]);
    }
  }
}
GST_END_TEST;

GST_START_TEST (test_empty_and_shapes)
{
  /* The device's choice. */
  DeviceSort automatic (shared_device (), SortKey::Int32, SortOrder::Ascending);
  const bool cpu = shared_device ().type & CL_DEVICE_TYPE_CPU;
  fail_unless (automatic.strategy () == (cpu ? SortStrategy::GlobalPasses :
          SortStrategy::LocalStages));

  /* Global passes: pad, ceil (strides / 4) passes per stage, unpad. */
  DeviceSort global (shared_device (), SortKey::Int32, SortOrder::Ascending, global_passes (4));
  fail_unless_equals_int (global.launch_count (0, 1), 0);
  fail_unless_equals_int (global.launch_count (1, 1), 2);
  fail_unless_equals_int (global.launch_count (3, 16), 2 + 4);
  fail_unless_equals_int (global.launch_count (1, 17), 2 + 4 + 2);
  DeviceSort single (shared_device (), SortKey::Int32, SortOrder::Ascending, global_passes (1));
  fail_unless_equals_int (single.launch_count (1, 1024), 2 + 10 * 11 / 2);

  DeviceSort sort (shared_device (), SortKey::Int32, SortOrder::Ascending, local_stages (0));
  const size_t chunk = sort.chunk_words ();
  fail_unless (chunk >= 2 && (chunk & (chunk - 1)) == 0, "chunk %zu", chunk);

  /* Nothing to sort: no launch, the buffer is left alone. */
  expect_nothing_sorted<int32_t> (sort);

  /* Rows that fit a chunk: one launch. Longer: 1 + per stage (global passes + 1 merge). */
  fail_unless_equals_int (sort.launch_count (1, 1), 1);
  fail_unless_equals_int (sort.launch_count (100, chunk), 1);
  fail_unless_equals_int (sort.launch_count (1, chunk + 1), 3);      /* chunk, global, merge */
  fail_unless_equals_int (sort.launch_count (1, 16 * chunk), 1 + 4 + 4 * 1);
  fail_unless_equals_int (sort.launch_count (1, 32 * chunk), 1 + 5 + 5 + 1);  /* 5 strides: 4+1 */

  /* The same object sorts shapes of every size in turn (the scratch grows, results stay right),
   * and a wider row after a narrower one. */
  for (size_t length : { 4 * chunk + 3, size_t (10), 2 * chunk, 8 * chunk + 1, chunk + 1 })
    expect_sorted (sort, random_values<int32_t> (2 * length, (uint32_t) length), 2, length,
        "random", length % 2 == 0);

  /* Too many words once padded: refused before anything is allocated or enqueued. */
  cl::Buffer small (shared_device ().context, CL_MEM_READ_WRITE, 64);
  fail_unless (fails_with (Kind::TooLarge, [&] {
            sort.enqueue (small, small, 3, (size_t (1) << 30) + 1);
          }), "2^31 x 3 words accepted");
  /* Buffers smaller than the keys. */
  fail_unless (fails_with (Kind::Settings, [&] { sort.enqueue (small, small, 1, 17); }),
      "a 64-byte buffer accepted for 17 keys");
}
GST_END_TEST;

/* Key + payload: 8-bit keys packed above 24-bit indices and sorted as uint32 give the stable
 * permutation, ascending; 255 - key gives it descending. */
GST_START_TEST (test_packed_key_index)
{
  std::mt19937 random (11);
  for (const auto & tuning : { SortTuning (), local_stages (4, 16), RADIX_CPU, RADIX_GPU,
          RADIX_OTHER_DIGITS[0], RADIX_SMALL[3], ONESWEEP_GPU, ONESWEEP_OTHER_DIGITS,
          ONESWEEP_SMALL[2], ONESWEEP_SPLIT_4[1], RADIX_SPLIT_4[1] }) {
    if (!in_this_suite (tuning))
      continue;
    DeviceSort sort (shared_device (), SortKey::UInt32, SortOrder::Ascending, tuning);
    for (size_t length : { 1, 640, 4097, 30000 }) {
      for (bool descending : { false, true }) {
        std::vector<uint32_t> keys (length), words (length);
        for (size_t i = 0; i < length; i++) {
          keys[i] = random () % 13;   /* many equal keys: stability is visible */
          words[i] = DeviceSort::pack_key_index (descending ? 255 - keys[i] : keys[i],
              (uint32_t) i, 24);
        }
        auto sorted = device_sort (sort, words, 1, length);
        std::vector<uint32_t> expected (length);
        for (size_t i = 0; i < length; i++)
          expected[i] = (uint32_t) i;
        std::stable_sort (expected.begin (), expected.end (), [&](uint32_t a, uint32_t b) {
              return descending ? keys[a] > keys[b] : keys[a] < keys[b];
            });
        for (size_t i = 0; i < length; i++)
          fail_unless ((sorted[i] & 0xFFFFFFu) == expected[i], "length %zu position %zu: index "
              "%u, expected %u", length, i, sorted[i] & 0xFFFFFFu, expected[i]);
      }
    }
  }
}
GST_END_TEST;

/* One long row of each type, a million keys. */
static void
expect_long_rows (const SortTuning & tuning)
{
  if (!in_this_suite (tuning))
    return;
  const size_t length = size_t (1) << 20;
  DeviceSort ints (shared_device (), SortKey::Int32, SortOrder::Ascending, tuning);
  DeviceSort uints (shared_device (), SortKey::UInt32, SortOrder::Descending, tuning);
  DeviceSort floats (shared_device (), SortKey::Float32, SortOrder::Ascending, tuning);
  expect_sorted (ints, random_values<int32_t> (length, 1), 1, length, "random");
  expect_sorted (uints, random_values<uint32_t> (length, 2), 1, length, "random", false);
  expect_sorted (floats, random_values<float> (length, 3), 1, length, "random");
}

/* Every short length (blocks of a few keys: each spans several), alone and in rows of a
 * batch, both orders. */
static void
expect_short_rows (const SortTuning & tuning)
{
  if (!in_this_suite (tuning))
    return;
  for (auto order : { SortOrder::Ascending, SortOrder::Descending }) {
    DeviceSort ints (shared_device (), SortKey::Int32, order, tuning);
    DeviceSort floats (shared_device (), SortKey::Float32, order, tuning);
    for (size_t length = 1; length <= 70; length++) {
      expect_sorted (ints, random_values<int32_t> (length, length), 1, length, "random");
      expect_sorted (floats, random_values<float> (3 * length, length), 3, length, "random");
    }
    for (size_t length : { 255, 256, 257, 1000, 4097 })
      expect_sorted (ints, random_values<int32_t> (2 * length, length), 2, length, "random",
          false);
  }
}

/* expect_random_batches or expect_structured (`batches` false) with each tuning, both
 * orders. */
static void
expect_each_tuning (std::initializer_list<SortTuning> tunings, bool batches,
    std::initializer_list<size_t> lengths)
{
  for (const auto & tuning : tunings) {
    if (!in_this_suite (tuning))
      continue;
    for (auto order : { SortOrder::Ascending, SortOrder::Descending }) {
      DeviceSort ints (shared_device (), SortKey::Int32, order, tuning);
      DeviceSort uints (shared_device (), SortKey::UInt32, order, tuning);
      DeviceSort floats (shared_device (), SortKey::Float32, order, tuning);
      if (batches)
        expect_random_batches (ints, uints, floats, lengths);
      else
        expect_structured (ints, uints, floats, lengths);
    }
  }
}

/* Rows of several shapes in turn through one sort object: its buffers grow, and what a sort
 * leaves behind does not disturb the next (a smaller one after a larger one uses only what it
 * needs). */
static void
expect_reuse (const SortTuning & tuning)
{
  if (!in_this_suite (tuning))
    return;
  DeviceSort sort (shared_device (), SortKey::Int32, SortOrder::Descending, tuning);
  for (auto shape : { std::pair<size_t, size_t> { 1, 10 }, { 3, 5000 }, { 1, 50000 },
          { 40, 300 }, { 2, 4097 }, { 1, 3 }, { 1, 50000 } })
    expect_sorted (sort, random_values<int32_t> (shape.first * shape.second,
            (uint32_t) shape.second), shape.first, shape.second, "random",
        shape.second % 2 == 1);
}

GST_START_TEST (test_radix_lengths)
{
  check_radix_lengths_of_every_key (RADIX_CPU, 100003);
  check_radix_lengths_of_every_key (RADIX_GPU, 100003);
  check_radix_lengths<int32_t> (RADIX_OTHER_DIGITS[0], 70000);
  check_radix_lengths<float> (RADIX_OTHER_DIGITS[1], 70000);
  check_radix_lengths<uint32_t> (RADIX_SPLIT_4[0], 70000);
  check_radix_lengths<float> (RADIX_SPLIT_4[1], 20000);

  for (const auto & tuning : { RADIX_CPU, RADIX_GPU, RADIX_OTHER_DIGITS[0],
          RADIX_OTHER_DIGITS[1] })
    expect_long_rows (tuning);
}
GST_END_TEST;

/* Blocks of a few keys: every short length spans several, in rows of a batch. */
GST_START_TEST (test_radix_small_blocks)
{
  for (const auto & tuning : RADIX_SMALL)
    expect_short_rows (tuning);
}
GST_END_TEST;

GST_START_TEST (test_radix_batches)
{
  expect_each_tuning ({ RADIX_CPU, RADIX_GPU, RADIX_OTHER_DIGITS[0], RADIX_OTHER_DIGITS[1],
          RADIX_SMALL[1], RADIX_SMALL[3] }, true, { 1, 2, 3, 100, 1000, 4097, 20000 });
}
GST_END_TEST;

GST_START_TEST (test_radix_structured_input)
{
  expect_each_tuning ({ RADIX_CPU, RADIX_GPU, RADIX_OTHER_DIGITS[0], RADIX_OTHER_DIGITS[1],
          RADIX_SMALL[4], RADIX_SPLIT_4[0] }, false, { 3, 1000, 4097, 70000 });
}
GST_END_TEST;

/* Rows that fit the first blocks, then rows that need more: the scratch and the counts grow,
 * and a smaller sort after a larger one still uses only what it needs. */
GST_START_TEST (test_radix_reuse)
{
  expect_reuse (RADIX_CPU);
  expect_reuse (RADIX_GPU);
}
GST_END_TEST;

/* The onesweep sort: lengths around one, two and three tiles and beyond, every key type and
 * order, then one long row of each type. */
GST_START_TEST (test_onesweep_lengths)
{
  check_radix_lengths_of_every_key (ONESWEEP_GPU, 100003);
  check_radix_lengths<int32_t> (ONESWEEP_OTHER_DIGITS, 70000);
  check_radix_lengths<float> (ONESWEEP_SMALL[2], 20000);
  check_radix_lengths<int32_t> (ONESWEEP_SPLIT_4[0], 100003);
  check_radix_lengths<float> (ONESWEEP_SPLIT_4[0], 70000);
  check_radix_lengths<uint32_t> (ONESWEEP_SPLIT_4[2], 20000);

  expect_long_rows (ONESWEEP_GPU);
}
GST_END_TEST;

/* Tiles of a few keys: every short length spans several (up to 35 tiles of 2 keys, each
 * looking back through all the tiles before it in the worst case), alone and in batches. */
GST_START_TEST (test_onesweep_small_tiles)
{
  for (const auto & tuning : ONESWEEP_SMALL)
    expect_short_rows (tuning);
  expect_short_rows (ONESWEEP_SPLIT_4[1]);
}
GST_END_TEST;

GST_START_TEST (test_onesweep_batches)
{
  expect_each_tuning ({ ONESWEEP_GPU, ONESWEEP_OTHER_DIGITS, ONESWEEP_SMALL[3] }, true,
      { 1, 2, 3, 100, 1000, 4097, 20000 });
  /* Many rows of a few tiles each (tiles of 128 keys; 4-bit digits in the quick suite). */
  const SortTuning & few_tiles = in_this_suite (ONESWEEP_SMALL[2]) ? ONESWEEP_SMALL[2] :
      ONESWEEP_SMALL[3];
  DeviceSort many (shared_device (), SortKey::Int32, SortOrder::Ascending, few_tiles);
  expect_sorted (many, random_values<int32_t> (1000 * 300, 5), 1000, 300, "random");
}
GST_END_TEST;

/* Sorted, reversed, all equal, few distinct values, extremes. */
GST_START_TEST (test_onesweep_structured_input)
{
  expect_each_tuning ({ ONESWEEP_GPU, ONESWEEP_OTHER_DIGITS, ONESWEEP_SMALL[2],
          ONESWEEP_SPLIT_4[0], ONESWEEP_SPLIT_4[2] }, false, { 3, 1000, 4097, 70000 });
}
GST_END_TEST;

/* One sort object through shapes of every size in turn: the histograms, tiles' states and
 * counters one sort leaves behind do not disturb the next. */
GST_START_TEST (test_onesweep_reuse)
{
  expect_reuse (ONESWEEP_GPU);
  expect_reuse (ONESWEEP_SMALL[3]);
}
GST_END_TEST;

/* The choice between the sorts: by row length, by SortTuning, by GST_OPENCL_VARIANT_SORT. */
GST_START_TEST (test_strategy_choice)
{
  auto & device = shared_device ();
  const bool cpu = device.type & CL_DEVICE_TYPE_CPU;
  const SortStrategy bitonic = cpu ? SortStrategy::GlobalPasses : SortStrategy::LocalStages;

  DeviceSort automatic (device, SortKey::Int32, SortOrder::Ascending);
  const size_t radix_threshold = cpu ? DeviceSort::RADIX_MIN_LENGTH_CPU :
      DeviceSort::RADIX_MIN_LENGTH_GPU;
  const size_t onesweep_threshold = cpu ? DeviceSort::ONESWEEP_MIN_LENGTH_CPU :
      DeviceSort::ONESWEEP_MIN_LENGTH_GPU;
  const unsigned bits = cpu ? DeviceSort::RADIX_DIGIT_BITS_CPU :
      DeviceSort::RADIX_DIGIT_BITS_GPU;
  fail_unless (automatic.radix_min_length () == radix_threshold);
  fail_unless (automatic.onesweep_min_length () == onesweep_threshold);
  fail_unless (automatic.strategy () == bitonic);
  /* The shortest rows of a radix sort, and which one. */
  const size_t threshold = std::min (radix_threshold, onesweep_threshold);
  const SortStrategy long_rows = radix_threshold <= onesweep_threshold ? SortStrategy::Radix :
      SortStrategy::Onesweep;
  fail_unless (automatic.strategy_for (1, threshold - 1) == bitonic);
  fail_unless (automatic.strategy_for (2, threshold - 1) == bitonic);
  fail_unless (automatic.strategy_for (1, threshold) == long_rows);
  if (long_rows == SortStrategy::Onesweep && radix_threshold != SIZE_MAX) {
    fail_unless (automatic.strategy_for (1, radix_threshold - 1) == SortStrategy::Onesweep);
    fail_unless (automatic.strategy_for (1, radix_threshold) == SortStrategy::Radix);
  }
  /* The GPU's batch rule, on any device: the keys of the whole batch count, so a single row
   * just short of 2^23 keys is no batch (a rounded-down division once made it one). */
  const size_t batch_keys = DeviceSort::RADIX_MIN_BATCH_KEYS_GPU;
  const size_t min_batch_row = DeviceSort::RADIX_MIN_BATCH_LENGTH_GPU;
  fail_unless (!DeviceSort::gpu_batch_takes_radix (1, batch_keys - 1));
  fail_unless (DeviceSort::gpu_batch_takes_radix (1, batch_keys));
  fail_unless (!DeviceSort::gpu_batch_takes_radix (2, batch_keys / 2 - 1));
  fail_unless (DeviceSort::gpu_batch_takes_radix (2, batch_keys / 2));
  fail_unless (!DeviceSort::gpu_batch_takes_radix (3, batch_keys / 3));
  fail_unless (DeviceSort::gpu_batch_takes_radix (3, batch_keys / 3 + 1));
  fail_unless (DeviceSort::gpu_batch_takes_radix (batch_keys / min_batch_row, min_batch_row));
  fail_unless (!DeviceSort::gpu_batch_takes_radix (batch_keys / min_batch_row - 1,
          min_batch_row));
  fail_unless (!DeviceSort::gpu_batch_takes_radix (batch_keys, min_batch_row - 1));
  if (cpu) {
    fail_unless (automatic.strategy_for (100, threshold - 1) == bitonic);
  } else {
    /* On a GPU, big batches of shorter rows take the radix sort too, also where one row would
     * take the onesweep sort. */
    const size_t batch_length = DeviceSort::RADIX_MIN_BATCH_LENGTH_GPU;
    const size_t batch_rows = DeviceSort::RADIX_MIN_BATCH_KEYS_GPU / batch_length;
    fail_unless (automatic.strategy_for (batch_rows, batch_length) == SortStrategy::Radix);
    fail_unless (automatic.strategy_for (batch_rows, 4 * batch_length) == SortStrategy::Radix);
    fail_unless (automatic.strategy_for (batch_rows / 8, 4 * batch_length) ==
        SortStrategy::Onesweep);
    fail_unless (automatic.strategy_for (batch_rows - 1, batch_length) == bitonic);
    fail_unless (automatic.strategy_for (batch_rows * 2, batch_length - 1) == bitonic);
  }
  fail_unless_equals_int (automatic.launch_count (1, threshold),
      long_rows == SortStrategy::Radix ? (32 / bits) * 5 : 1 + 32 / bits);
  /* On a GPU the rows from the radix threshold on take the faster radix sort, timed (the
   * radix sort with GST_OPENCL_TUNING=0, as here), or the one GST_OPENCL_VARIANT_SORT_LONG
   * names; a CPU takes the radix sort. */
  const std::string long_variable = gst_opencl::variant_environment_name ("sort-long");
  fail_unless (long_variable == "GST_OPENCL_VARIANT_SORT_LONG");
  g_setenv (long_variable.c_str (), "onesweep", TRUE);
  DeviceSort named_long (device, SortKey::Int32, SortOrder::Ascending);
  const size_t long_row = std::max (radix_threshold, onesweep_threshold == SIZE_MAX ?
      radix_threshold : onesweep_threshold);
  /* The choice is made (and the variable read) on the first long row. */
  fail_unless (named_long.strategy_for (1, long_row) == (cpu ? SortStrategy::Radix :
          SortStrategy::Onesweep));
  g_unsetenv (long_variable.c_str ());
  if (!cpu) {
    fail_unless (named_long.strategy_for (1, gst_opencl::OnesweepSort::MAX_LENGTH + 1) ==
        SortStrategy::Radix);
    expect_sorted (named_long, random_values<int32_t> (radix_threshold + 5, 3), 1,
        radix_threshold + 5, "random");
  }
  fail_unless_equals_int (automatic.launch_count (0, threshold), 0);

  /* A threshold of 100: rows of 99 keys take the network, rows of 100 the radix sort. */
  SortTuning tuning;
  tuning.radix_min_length = 100;
  for (auto order : { SortOrder::Ascending, SortOrder::Descending }) {
    DeviceSort floats (device, SortKey::Float32, order, tuning);
    fail_unless (floats.strategy_for (3, 99) == bitonic);
    fail_unless (floats.strategy_for (3, 100) == SortStrategy::Radix);
    for (size_t length : { 99, 100, 5000 })
      expect_sorted (floats, random_values<float> (3 * length, (uint32_t) length), 3, length,
          "random");
  }
  /* The onesweep sort from 100 keys, the radix sort from 3000. */
  tuning.onesweep_min_length = 100;
  tuning.radix_min_length = 3000;
  DeviceSort three (device, SortKey::Int32, SortOrder::Descending, tuning);
  fail_unless (three.strategy_for (2, 99) == bitonic);
  fail_unless (three.strategy_for (2, 100) == SortStrategy::Onesweep);
  fail_unless (three.strategy_for (2, 2999) == SortStrategy::Onesweep);
  fail_unless (three.strategy_for (2, 3000) == SortStrategy::Radix);
  for (size_t length : { 99, 100, 2999, 3000 })
    expect_sorted (three, random_values<int32_t> (2 * length, (uint32_t) length), 2, length,
        "random");

  /* Forced either way, every length. */
  for (auto strategy : { SortStrategy::Bitonic, SortStrategy::LocalStages,
          SortStrategy::GlobalPasses }) {
    SortTuning forced;
    forced.strategy = strategy;
    forced.radix_min_length = 1;
    DeviceSort sort (device, SortKey::UInt32, SortOrder::Ascending, forced);
    fail_unless (sort.radix_min_length () == SIZE_MAX);
    fail_unless (sort.strategy_for (1, size_t (1) << 30) != SortStrategy::Radix);
    fail_unless (sort.strategy_for (1, size_t (1) << 30) != SortStrategy::Onesweep);
    fail_unless (sort.onesweep_min_length () == SIZE_MAX);
    fail_unless (sort.strategy () == (strategy == SortStrategy::Bitonic ? bitonic : strategy));
  }
  DeviceSort always (device, SortKey::UInt32, SortOrder::Ascending, RADIX_CPU);
  fail_unless_equals_int (always.radix_min_length (), 0);
  fail_unless (always.strategy_for (1, 1) == SortStrategy::Radix);
  fail_unless_equals_int (always.launch_count (1, 1), 8 * 5);  /* 8 passes of 4-bit digits */
  DeviceSort bytes (device, SortKey::UInt32, SortOrder::Ascending, RADIX_GPU);
  fail_unless_equals_int (bytes.launch_count (3, 1), 4 * 5);
  expect_nothing_sorted<uint32_t> (always);
  DeviceSort sweeps (device, SortKey::UInt32, SortOrder::Ascending, ONESWEEP_GPU);
  fail_unless_equals_int (sweeps.onesweep_min_length (), 0);
  fail_unless (sweeps.strategy_for (1, 1) == SortStrategy::Onesweep);
  fail_unless (sweeps.strategy_for (1, gst_opencl::OnesweepSort::MAX_LENGTH) ==
      SortStrategy::Onesweep);
  /* Rows too long for its 30-bit counts take the radix sort. */
  fail_unless (sweeps.strategy_for (1, gst_opencl::OnesweepSort::MAX_LENGTH + 1) ==
      SortStrategy::Radix);
  fail_unless_equals_int (sweeps.launch_count (3, 1), 1 + 4);
  DeviceSort nibbles (device, SortKey::UInt32, SortOrder::Ascending, ONESWEEP_OTHER_DIGITS);
  fail_unless_equals_int (nibbles.launch_count (3, 1), 1 + 8);
  expect_nothing_sorted<uint32_t> (sweeps);

  /* GST_OPENCL_VARIANT_SORT, read when the sort is built; a SortTuning strategy wins over it. */
  const std::string variable = gst_opencl::variant_environment_name ("sort");
  fail_unless (variable == "GST_OPENCL_VARIANT_SORT");
  g_setenv (variable.c_str (), "radix", TRUE);
  DeviceSort env_radix (device, SortKey::Int32, SortOrder::Descending);
  fail_unless_equals_int (env_radix.radix_min_length (), 0);
  expect_sorted (env_radix, random_values<int32_t> (300, 9), 3, 100, "random");
  DeviceSort tuned (device, SortKey::Int32, SortOrder::Descending, CPU_SHAPE);
  fail_unless (tuned.radix_min_length () == SIZE_MAX);
  g_setenv (variable.c_str (), "onesweep", TRUE);
  DeviceSort env_onesweep (device, SortKey::Float32, SortOrder::Ascending);
  fail_unless_equals_int (env_onesweep.onesweep_min_length (), 0);
  fail_unless (env_onesweep.strategy_for (1, 1) == SortStrategy::Onesweep);
  expect_sorted (env_onesweep, random_values<float> (3 * 700, 9), 3, 700, "random");
  g_setenv (variable.c_str (), "bitonic", TRUE);
  DeviceSort env_bitonic (device, SortKey::Int32, SortOrder::Descending);
  fail_unless (env_bitonic.radix_min_length () == SIZE_MAX);
  fail_unless (env_bitonic.strategy () == bitonic);
  expect_sorted (env_bitonic, random_values<int32_t> (2 * 5000, 9), 2, 5000, "random");
  g_setenv (variable.c_str (), "quick", TRUE);
  fail_unless (fails_with (Kind::Settings, [&] {
            DeviceSort wrong (device, SortKey::Int32, SortOrder::Descending);
          }, "bitonic, radix, onesweep"), "GST_OPENCL_VARIANT_SORT=quick accepted");
  g_unsetenv (variable.c_str ());
}
GST_END_TEST;

/* The long-row choice timed, as GPUs make it for rows from 2^23 keys, here on rows from 4096
 * keys on any device: the tuner times both radix sorts (whose shapes may be tuned inside that
 * timing: a lock held across it hung there), keeps the winner, and long rows sort right with
 * it. */
GST_START_TEST (test_long_rows_timed)
{
  auto & device = shared_device ();
  g_unsetenv ("GST_OPENCL_TUNING");
  g_setenv ("GST_OPENCL_TUNING_CACHE", "0", TRUE);
  SortTuning tuning;
  tuning.radix_min_length = 4096;
  tuning.time_long_rows = true;
  tuning.long_rows_timed_keys = 4096;
  DeviceSort sort (device, SortKey::Int32, SortOrder::Descending, tuning);
  const SortStrategy chosen = sort.strategy_for (1, 4096);
  fail_unless (chosen == SortStrategy::Radix || chosen == SortStrategy::Onesweep);
  fail_unless (sort.strategy_for (3, 5000) == chosen, "one choice for every long row");
  fail_unless (sort.strategy_for (1, 4095) == sort.strategy ());
  expect_sorted (sort, random_values<int32_t> (2 * 5000, 21), 2, 5000, "random");
  expect_sorted (sort, random_values<int32_t> (3 * 4095, 22), 3, 4095, "random");
  /* Without the flag, custom thresholds take the radix sort untimed. */
  tuning.time_long_rows = false;
  DeviceSort untimed (device, SortKey::Int32, SortOrder::Descending, tuning);
  fail_unless (untimed.strategy_for (1, 4096) == SortStrategy::Radix);
  g_setenv ("GST_OPENCL_TUNING", "0", TRUE);
  g_unsetenv ("GST_OPENCL_TUNING_CACHE");
}
GST_END_TEST;

/* Radix shapes: names, the device's choice, GST_OPENCL_VARIANT_SORT_RADIX, shapes refused. */
GST_START_TEST (test_radix_shapes)
{
  auto & device = shared_device ();
  for (const char *name : { "serial", "2x1", "256x16", "128x32", "1024x32" }) {
    RadixShape shape;
    fail_unless (RadixShape::parse (name, &shape), "%s refused", name);
    fail_unless (shape.name () == name, "%s read as %s", name, shape.name ().c_str ());
  }
  for (const char *name : { "", "x", "256", "256x", "x16", "3x4", "1x4", "0x4", "256x0",
          "2048x32", "256x16x2", "+256x16", "256x-1", "99999999999x1", "Serial" }) {
    RadixShape shape;
    fail_if (RadixShape::parse (name, &shape), "%s accepted", name);
  }

  /* GST_OPENCL_TUNING=0 in the tests: the first candidate, serial on CPUs, 256x16 elsewhere. */
  const bool cpu = device.type & CL_DEVICE_TYPE_CPU;
  DeviceSort automatic (device, SortKey::Int32, SortOrder::Ascending, radix ("", 0));
  fail_unless (automatic.radix ().shape ().name () == (cpu ? "serial" : "256x16"));
  fail_unless_equals_int (automatic.radix ().digit_bits (), cpu ? 4 : 8);
  for (unsigned bits : { 1, 6, 16 }) {
    fail_unless (fails_with (Kind::Settings, [&] {
              DeviceSort wrong (device, SortKey::Int32, SortOrder::Ascending,
                  radix ("serial", bits));
            }), "%u-bit digits accepted", bits);
  }
  for (unsigned split_bits : { 1, 3, 8 }) {
    fail_unless (fails_with (Kind::Settings, [&] {
              radix_of (device, radix ("32x4", 8, 0, split_bits));
            }), "%u-bit split steps accepted", split_bits);
    DeviceSort wrong (device, SortKey::Int32, SortOrder::Ascending,
        onesweep ("32x4", 8, split_bits));
    fail_unless (fails_with (Kind::Settings, [&] { wrong.onesweep (100); }),
        "%u-bit onesweep split steps accepted", split_bits);
  }
  const std::string variable = gst_opencl::variant_environment_name ("sort-radix");
  fail_unless (variable == "GST_OPENCL_VARIANT_SORT_RADIX");
  g_setenv (variable.c_str (), "32x4", TRUE);
  DeviceSort forced (device, SortKey::Int32, SortOrder::Ascending, radix ("", 0));
  fail_unless (forced.radix ().shape ().name () == "32x4");
  fail_unless_equals_int (forced.radix ().tile_keys (1, 1000), 128);
  expect_sorted (forced, random_values<int32_t> (1000, 4), 1, 1000, "random");
  g_setenv (variable.c_str (), "33x4", TRUE);
  fail_unless (fails_with (Kind::Settings, [&] { radix_of (device, radix ("", 0)); }),
      "GST_OPENCL_VARIANT_SORT_RADIX=33x4 accepted");
  g_unsetenv (variable.c_str ());

  /* Serial blocks: several per compute unit, at least 4096 keys; one per row in big batches. */
  DeviceSort serial (device, SortKey::Int32, SortOrder::Ascending, RADIX_CPU);
  auto & radix_sort = serial.radix ();
  fail_unless_equals_int (radix_sort.tile_keys (1, 100), 4096);
  const size_t units = device.cl_device.getInfo<CL_DEVICE_MAX_COMPUTE_UNITS> ();
  const size_t tile = radix_sort.tile_keys (1, size_t (1) << 24);
  fail_unless ((size_t (1) << 24) / tile >= 2 * units && tile >= 4096, "blocks of %zu", tile);
  fail_unless_equals_int (radix_sort.tile_keys (1000, 20000), 20000);

  /* The tuners' timing: the kernel time of every launch of a sort, more than nothing. */
  gst_opencl::SortTiming timing (device, 5000);
  size_t timed_launches = 0;
  const double ms = timing.time ([&](const cl::Buffer & src, const cl::Buffer & dst,
          const DeviceSort::Launcher & launch) {
        serial.enqueue (src, dst, 1, 5000, [&](const cl::Kernel & kernel,
                const cl::NDRange & global, const cl::NDRange & local) {
              timed_launches++;
              launch (kernel, global, local);
            });
      });
  fail_unless (ms > 0, "%g ms", ms);
  fail_unless_equals_int (timed_launches, serial.launch_count (1, 5000));

  /* Shapes the device cannot run: too many work-items, more local memory than it has. */
  fail_unless (fails_with (Kind::Settings, [&] {
            gst_opencl::RadixSort wrong (device,
                RadixShape { device.max_work_group_size * 2, 1 });
          }), "%zu work-items accepted", device.max_work_group_size * 2);
  fail_unless (fails_with (Kind::Settings, [&] { radix_of (device, radix ("x", 0)); }),
      "radix shape \"x\" accepted");

  /* Onesweep tiles: 256x16 on CPUs, by length on GPUs (gstopenclsort.cpp),
   * GST_OPENCL_VARIANT_SORT_ONESWEEP, no serial shape. */
  DeviceSort sweeps (device, SortKey::Int32, SortOrder::Ascending, onesweep ("", 0));
  const struct
  {
    size_t length;
    const char *gpu_shape;
  } tiles[] = { { 1000, "256x4" }, { 65536, "256x4" }, { 65537, "256x8" }, { 1 << 18, "256x8" },
    { 1 << 20, "256x16" }, { 1 << 22, "256x8" } };
  for (const auto & entry : tiles) {
    const std::string name = sweeps.onesweep (entry.length).shape ().name ();
    fail_unless (name == (cpu ? "256x16" : entry.gpu_shape), "%zu keys: %s", entry.length,
        name.c_str ());
    fail_unless_equals_int (sweeps.onesweep (entry.length).split_bits (), 2);
  }
  if (cpu)
    fail_unless_equals_int (sweeps.onesweep (1000).tile_keys (), 4096);
  const std::string sweep_variable = gst_opencl::variant_environment_name ("sort-onesweep");
  fail_unless (sweep_variable == "GST_OPENCL_VARIANT_SORT_ONESWEEP");
  g_setenv (sweep_variable.c_str (), "32x4", TRUE);
  DeviceSort sweep_forced (device, SortKey::Int32, SortOrder::Ascending, onesweep ("", 0));
  fail_unless (sweep_forced.onesweep (1000).shape ().name () == "32x4");
  expect_sorted (sweep_forced, random_values<int32_t> (1000, 4), 1, 1000, "random");
  for (const char *name : { "serial", "33x4" }) {
    g_setenv (sweep_variable.c_str (), name, TRUE);
    DeviceSort wrong (device, SortKey::Int32, SortOrder::Ascending, onesweep ("", 0));
    fail_unless (fails_with (Kind::Settings, [&] { wrong.onesweep (1000); }),
        "GST_OPENCL_VARIANT_SORT_ONESWEEP=%s accepted", name);
  }
  g_unsetenv (sweep_variable.c_str ());
  fail_unless (fails_with (Kind::Settings, [&] {
            gst_opencl::OnesweepSort wrong (device, RadixShape { 1, 1 });
          }), "a serial onesweep sort accepted");
  fail_unless (fails_with (Kind::Settings, [&] {
            gst_opencl::OnesweepSort wrong (device,
                RadixShape { device.max_work_group_size * 2, 1 });
          }), "%zu work-items accepted", device.max_work_group_size * 2);
}
GST_END_TEST;

/* What the device cannot allocate is refused before anything is enqueued: the scratch of the
 * keys, and the counts of many short rows (16 per row with 4-bit digits). */
GST_START_TEST (test_radix_too_large)
{
  auto small = make_device ();
  small->max_alloc_bytes = 64 * 1024;
  DeviceSort sort (*small, SortKey::Int32, SortOrder::Ascending, RADIX_CPU);
  cl::Buffer keys (small->context, CL_MEM_READ_WRITE, 200000);
  for (auto shape : { std::pair<size_t, size_t> { 1, 20000 }, { 5000, 1 } }) {
    fail_unless (fails_with (Kind::TooLarge, [&] {
              sort.enqueue (keys, keys, shape.first, shape.second);
            }), "%zu x %zu keys accepted with 64 KiB allocations", shape.first, shape.second);
  }
  /* The onesweep sort's tiles' states: 256 words per tile of 2 keys. */
  DeviceSort sweeps (*small, SortKey::Int32, SortOrder::Ascending, onesweep ("2x1", 8));
  fail_unless (fails_with (Kind::TooLarge, [&] { sweeps.enqueue (keys, keys, 1, 1000); }),
      "1000 keys in tiles of 2 accepted with 64 KiB allocations");
  small->queue.finish ();
}
GST_END_TEST;

static Suite *
sort_layer_suite (void)
{
  return TESTUTIL_SUITE ("opencl-sort-layer", 600,
      test_empty_and_shapes, test_int32_lengths, test_uint32_lengths, test_float32_lengths,
      test_small_chunk_schedule, test_global_passes, test_batches, test_structured_input,
      test_special_floats, test_packed_key_index, test_radix_lengths, test_radix_small_blocks,
      test_radix_batches, test_radix_structured_input, test_radix_reuse, test_onesweep_lengths,
      test_onesweep_small_tiles, test_onesweep_batches, test_onesweep_structured_input,
      test_onesweep_reuse, test_strategy_choice, test_long_rows_timed, test_radix_shapes,
      test_radix_too_large);
}

TESTUTIL_LAYER_MAIN (sort_layer);
