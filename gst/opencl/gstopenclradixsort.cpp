/* gst-opencl: LSD radix sort of rows of 32-bit keys in device memory (kernels/radixsort.cl).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "opencl/gstopenclradixsort.h"

#include <gst/gst.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <random>
#include <vector>

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

std::string
radix_source ()
{
  return kernel_source ("sort") + "\n" + kernel_source ("radixsort");
}

size_t
kernel_group_limit (const cl::Kernel & kernel, const cl::Device & device)
{
  return kernel.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE> (device);
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

RadixSort::RadixSort (Device & device, const RadixShape & shape, unsigned digit_bits,
    size_t serial_tile_keys)
  : device_ (device), shape_ (shape), digit_bits_ (digit_bits),
    serial_tile_keys_ (serial_tile_keys)
{
  if (digit_bits != 4 && digit_bits != 8)
    throw Failure (Failure::Kind::Settings, "radix digits of " + std::to_string (digit_bits) +
        " bits (4 or 8 only)");
  const size_t digits = size_t (1) << digit_bits;
  const size_t group = shape.group_size;
  if (!shape.serial () && (!is_power_of_two (group) || shape.keys_per_item < 1 ||
          group * shape.keys_per_item > MAX_TILE_KEYS))
    throw Failure (Failure::Kind::Settings, "no radix sort shape " + shape.name ());
  if (group > device.max_work_group_size)
    throw Failure (Failure::Kind::Settings, "radix sort shape " + shape.name () + ": " +
        device.name + " runs at most " + std::to_string (device.max_work_group_size) +
        " work-items per group");
  /* The scatter's local memory: the padded tile, the split scan, the digits' bases. */
  const size_t tile = group * shape.keys_per_item;
  const size_t local_bytes = (tile + tile / 32) * 4 + group * 8 + digits * 4;
  if (!shape.serial () && local_bytes > device.local_mem_bytes)
    throw Failure (Failure::Kind::Settings, "radix sort shape " + shape.name () + " needs " +
        std::to_string (local_bytes) + " bytes of local memory, " + device.name + " has " +
        std::to_string (device.local_mem_bytes));

  const std::string options = "-DRADIX_BITS=" + std::to_string (digit_bits) +
      " -DRADIX_GROUP=" + std::to_string (group) + " -DRADIX_KEYS_PER_ITEM=" +
      std::to_string (shape.keys_per_item);
  cl::Program program = device.programs.get (device.context, device.device, "radixsort",
      radix_source (), options);
  count_ = cl::Kernel (program, shape.serial () ? "radix_count_serial" : "radix_count");
  scatter_ = cl::Kernel (program, shape.serial () ? "radix_scatter_serial" : "radix_scatter");
  scan_reduce_ = cl::Kernel (program, "radix_scan_reduce");
  scan_top_ = cl::Kernel (program, "radix_scan_top");
  scan_down_ = cl::Kernel (program, "radix_scan_down");
  for (const auto & kernel : { count_, scatter_, scan_reduce_, scan_top_, scan_down_ }) {
    if (kernel_group_limit (kernel, device.device) < group)
      throw Failure (Failure::Kind::Settings, "radix sort shape " + shape.name () + ": a "
          "kernel runs at most " + std::to_string (kernel_group_limit (kernel,
                  device.device)) + " work-items per group on " + device.name);
  }
  scan_group_ = group;
  scan_span_ = std::max (SCAN_SPAN, group * SCAN_ITEMS);
  compute_units_ = std::max<size_t> (1, device.device.getInfo<CL_DEVICE_MAX_COMPUTE_UNITS> ());
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
RadixSort::enqueue (const cl::Buffer & src, const cl::Buffer & dst, size_t rows, size_t length,
    SortKey key, SortOrder order, const DeviceSort::Launcher & launch)
{
  if (rows == 0 || length == 0)
    return;
  const size_t keys = rows * length;
  const size_t tile = tile_keys (rows, length);
  const size_t blocks_per_row = (length + tile - 1) / tile;
  const size_t blocks = rows * blocks_per_row;
  const size_t count_words = rows * (size_t (1) << digit_bits_) * blocks_per_row;
  const size_t scan_groups = (count_words + scan_span_ - 1) / scan_span_;
  auto too_large = [&](const std::string & what, size_t bytes) {
    return Failure (Failure::Kind::TooLarge, "radix sorting " + std::to_string (rows) +
        " rows of " + std::to_string (length) + " keys needs " + std::to_string (bytes) +
        " bytes of " + what + ", more than " + device_.name + " can allocate");
  };
  if (count_words > MAX_COUNT_WORDS || count_words * 4 > device_.max_alloc_bytes)
    throw too_large ("digit counts", count_words * 4);
  if (keys * 4 > device_.max_alloc_bytes)
    throw too_large ("scratch", keys * 4);
  auto grow = [this](cl::Buffer & buffer, size_t & words, size_t wanted) {
    if (words >= wanted)
      return;
    buffer = cl::Buffer (device_.context, CL_MEM_READ_WRITE | CL_MEM_HOST_NO_ACCESS,
        wanted * sizeof (cl_uint));
    words = wanted;
  };
  grow (scratch_, scratch_words_, keys);
  grow (counts_, counts_words_, count_words);
  grow (sums_, sums_words_, scan_groups);

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
    const cl::Buffer & in = pass == 0 ? src : pass % 2 ? scratch_ : dst;
    const cl::Buffer & out = pass % 2 ? dst : scratch_;
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
  const char *named = forced.empty () ? g_getenv (variable.c_str ()) : forced.c_str ();
  RadixShape shape;
  if (named) {
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
    /* Timed on one row of random keys, each shape sorting src into dst. */
    const size_t keys = std::min (TUNING_KEYS, (size_t) device.max_alloc_bytes / 4);
    cl::Buffer src, dst;
    std::map<size_t, std::unique_ptr<RadixSort>> sorts;
    auto time_one = [&](size_t candidate) -> double {
      if (!src ()) {
        std::vector<cl_uint> values (keys);
        std::mt19937 random (1);
        for (auto & value : values)
          value = random ();
        src = cl::Buffer (device.context, CL_MEM_READ_WRITE, keys * 4);
        dst = cl::Buffer (device.context, CL_MEM_READ_WRITE, keys * 4);
        device.queue.enqueueWriteBuffer (src, CL_TRUE, 0, keys * 4, values.data ());
      }
      auto & sort = sorts[candidate];
      if (!sort) {
        RadixShape candidate_shape;
        RadixShape::parse (candidates[candidate].name, &candidate_shape);
        sort = std::make_unique<RadixSort> (device, candidate_shape, digit_bits);
      }
      std::vector<cl::Event> events;
      sort->enqueue (src, dst, 1, keys, SortKey::UInt32, SortOrder::Ascending,
          [&](const cl::Kernel & kernel, const cl::NDRange & global, const cl::NDRange & local) {
            events.emplace_back ();
            device.queue.enqueueNDRangeKernel (kernel, cl::NullRange, global, local, nullptr,
                &events.back ());
          });
      device.queue.finish ();
      double ms = 0;
      for (const auto & event : events)
        ms += event_milliseconds (event);
      return ms;
    };
    const std::string key = "digits " + std::to_string (digit_bits) + " source " +
        std::to_string (stable_hash (radix_source ()));
    const size_t index = choose_variant (device.device, family, key, candidates, time_one);
    RadixShape::parse (candidates[index].name, &shape);
  }
  return shape;
}

}  // namespace gst_opencl
