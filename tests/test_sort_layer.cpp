/* gst-opencl tests: the device sort of the shared layer (gst_opencl::DeviceSort), linked in
 * statically: every key type and order against std::sort with the same strict total order, bit
 * for bit, at lengths around every power of two the schedule changes at, in batches, on
 * structured input and special floats; the packed key + index variant against std::stable_sort.
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

#include "opencl/gstopenclcontext.h"
#include "opencl/gstopencldevice.h"
#include "opencl/gstopenclsort.h"
#include "opencl/gstopenclutils.h"
#include "reference/sort_reference.h"

using gst_opencl::DeviceSort;
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
  device->device = gst_opencl::select_device (gst_opencl::DeviceSpec (), "");
  device->name = gst_opencl::describe_device (device->device);
  device->type = device->device.getInfo<CL_DEVICE_TYPE> ();
  device->max_alloc_bytes = device->device.getInfo<CL_DEVICE_MAX_MEM_ALLOC_SIZE> ();
  device->max_work_group_size = device->device.getInfo<CL_DEVICE_MAX_WORK_GROUP_SIZE> ();
  device->local_mem_bytes = device->device.getInfo<CL_DEVICE_LOCAL_MEM_SIZE> ();
  device->context = cl::Context (device->device);
  device->queue = cl::CommandQueue (device->context, device->device,
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
      fail ("%s %s %s, %zu rows of %zu (chunk %zu): at row %zu, position %zu: %s, expected %s",
          name_of<T> (), sort.order () == SortOrder::Descending ? "descending" : "ascending",
          what, rows, length, sort.chunk_words (), i / length, i % length,
          show (actual[i]).c_str (), show (expected[i]).c_str ());
    }
  }
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

/* Lengths at and around every power of two from 1 to 2^16 that the schedule changes at. */
std::vector<size_t>
interesting_lengths (size_t chunk)
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
  std::sort (lengths.begin (), lengths.end ());
  lengths.erase (std::unique (lengths.begin (), lengths.end ()), lengths.end ());
  return lengths;
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

/* Both strategies whatever the device: the GPU shape (512 work-items sharing a 4096-word chunk,
 * barriers between steps) and the CPU one (global passes of up to 4 strides). */
const SortTuning GPU_SHAPE = local_stages (512);
const SortTuning CPU_SHAPE = global_passes (4);

template <typename T>
void
check_lengths (const SortTuning & tuning, size_t max_length)
{
  for (auto order : { SortOrder::Ascending, SortOrder::Descending }) {
    DeviceSort sort (shared_device (), key_of<T> (), order, tuning);
    uint32_t seed = 1;
    for (size_t length : interesting_lengths (sort.chunk_words ())) {
      if (length > max_length)
        continue;
      expect_sorted (sort, random_values<T> (length, seed++), 1, length, "random");
    }
  }
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

GST_START_TEST (test_batches)
{
  for (auto order : { SortOrder::Ascending, SortOrder::Descending }) {
    DeviceSort ints (shared_device (), SortKey::Int32, order);
    DeviceSort uints (shared_device (), SortKey::UInt32, order, GPU_SHAPE);
    DeviceSort floats (shared_device (), SortKey::Float32, order);
    for (size_t rows : { 2, 3, 7, 64 }) {
      for (size_t length : { 1, 2, 3, 100, 1000, 4097 }) {
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
}
GST_END_TEST;

GST_START_TEST (test_structured_input)
{
  const char *patterns[] = { "ascending", "descending", "equal", "few", "extremes" };
  for (auto order : { SortOrder::Ascending, SortOrder::Descending }) {
    DeviceSort ints (shared_device (), SortKey::Int32, order, GPU_SHAPE);
    DeviceSort uints (shared_device (), SortKey::UInt32, order);
    DeviceSort floats (shared_device (), SortKey::Float32, order);
    for (const char *pattern : patterns) {
      for (size_t length : { 3, 1000, 4097, 16384 }) {
        expect_sorted (ints, structured_values<int32_t> (pattern, 2 * length, 7), 2, length,
            pattern);
        expect_sorted (uints, structured_values<uint32_t> (pattern, length, 7), 1, length,
            pattern);
        expect_sorted (floats, structured_values<float> (pattern, length, 7), 1, length,
            pattern);
      }
    }
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
    for (const auto & tuning : { CPU_SHAPE, GPU_SHAPE }) {
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
  DeviceSort sort (shared_device (), SortKey::Float32, SortOrder::Ascending);
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
  fail_unless_equals_int (sort.launch_count (0, 5), 0);
  fail_unless_equals_int (sort.launch_count (5, 0), 0);
  std::vector<int32_t> untouched { 3, 1, 2 };
  size_t launches = 99;
  auto result = device_sort (sort, untouched, 0, 3, true, &launches);
  fail_unless_equals_int (launches, 0);
  fail_unless (result == untouched);
  result = device_sort (sort, untouched, 3, 0, true, &launches);
  fail_unless_equals_int (launches, 0);
  fail_unless (result == untouched);

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
  bool thrown = false;
  try {
    sort.enqueue (small, small, 3, (size_t (1) << 30) + 1);
  } catch (const gst_opencl::Failure & e) {
    thrown = e.kind == gst_opencl::Failure::Kind::TooLarge;
  }
  fail_unless (thrown, "2^31 x 3 words accepted");
  /* Buffers smaller than the keys. */
  thrown = false;
  try {
    sort.enqueue (small, small, 1, 17);
  } catch (const gst_opencl::Failure & e) {
    thrown = e.kind == gst_opencl::Failure::Kind::Settings;
  }
  fail_unless (thrown, "a 64-byte buffer accepted for 17 keys");
}
GST_END_TEST;

/* Key + payload: 8-bit keys packed above 24-bit indices and sorted as uint32 give the stable
 * permutation, ascending; 255 - key gives it descending. */
GST_START_TEST (test_packed_key_index)
{
  std::mt19937 random (11);
  for (size_t chunk : { size_t (0), size_t (16) }) {
    DeviceSort sort (shared_device (), SortKey::UInt32, SortOrder::Ascending,
        chunk ? local_stages (4, chunk) : SortTuning ());
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

static Suite *
sort_layer_suite (void)
{
  Suite *s = suite_create ("opencl-sort-layer");
  TCase *tc = tcase_create ("general");
  tcase_set_timeout (tc, 600);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_empty_and_shapes);
  tcase_add_test (tc, test_int32_lengths);
  tcase_add_test (tc, test_uint32_lengths);
  tcase_add_test (tc, test_float32_lengths);
  tcase_add_test (tc, test_small_chunk_schedule);
  tcase_add_test (tc, test_global_passes);
  tcase_add_test (tc, test_batches);
  tcase_add_test (tc, test_structured_input);
  tcase_add_test (tc, test_special_floats);
  tcase_add_test (tc, test_packed_key_index);
  return s;
}

int
main (int argc, char **argv)
{
  gst_check_init (&argc, &argv);
  GST_DEBUG_CATEGORY_INIT (gst_opencl_debug, "opencl", 0, "OpenCL shared layer");
  return gst_check_run_suite (sort_layer_suite (), "opencl-sort-layer", __FILE__);
}
