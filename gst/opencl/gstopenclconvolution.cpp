/* gst-opencl: the convolution kernel generator shared by openclconvolve3d and
 * openclmulticonvolve.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "opencl/gstopenclconvolution.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "opencl/gstopenclenv.h"
#include "opencl/gstopenclkernels.h"
#include "opencl/gstopencllimits.h"
#include "opencl/gstopenclnametable.h"
#include "opencl/gstopenclprogram.h"
#include "opencl/gstopencltuning.h"
#include "opencl/gstopenclutils.h"

#define GST_CAT_DEFAULT gst_opencl_debug

namespace gst_opencl {

namespace {

/* Local memory left to the driver and the kernel's own use. */
constexpr cl_ulong LOCAL_MARGIN_BYTES = 1024;

/* The filters' memory as variant strings name it, both ways. */
struct MemoryName
{
  FilterMemory memory;
  const char *name;
};
constexpr MemoryName MEMORY_NAMES[] = {
  { FilterMemory::Global, "global" },
  { FilterMemory::Constant, "constant" },
  { FilterMemory::Local, "local" },
};

const char *
memory_name (FilterMemory memory)
{
  const MemoryName *entry = entry_with (MEMORY_NAMES, &MemoryName::memory, memory);
  return entry ? entry->name : "?";
}

/* Filters one work-item computes for `spec` (the kernel's FILTER_BLOCK). */
int
filters_per_item (const ConvolutionSpec & spec, const ConvolutionVariant & variant)
{
  return variant.filter_block > 0 ? variant.filter_block : spec.num_filters;
}

/* The largest divisor of N not above `requested`; 0 (all N) when that is N, when nothing is
 * requested, or when the output is not a tensor (pixels hold all N responses together). */
int
effective_filter_block (const ConvolutionSpec & spec, int requested)
{
  if (spec.output != ConvolutionSpec::Output::Tensor || requested <= 0 ||
      requested >= spec.num_filters)
    return 0;
  int block = requested;
  while (spec.num_filters % block != 0)
    block--;
  return block == spec.num_filters ? 0 : block;
}

/* Local memory the kernel declares for a variant, as kernels/convolve.cl sizes it. */
cl_ulong
local_bytes (const ConvolutionSpec & spec, const ConvolutionVariant & variant)
{
  cl_ulong bytes = 0;
  if (variant.filter_memory == FilterMemory::Local) {
    const cl_ulong taps = (cl_ulong) spec.kx * spec.ky * spec.kz *
        filters_per_item (spec, variant);
    bytes += (taps + 3) / 4 * 16;
  }
  if (variant.tile) {
    const int span = spec.kx + variant.unroll - 1;
    const int vector = spec.channels != 1 ? 1 : variant.unroll % 4 == 0 ? 4 :
        variant.unroll % 2 == 0 ? 2 : 1;
    const cl_ulong span_pad = (cl_ulong) ((span + vector - 1) / vector * vector);
    const cl_ulong pitch = (cl_ulong) (variant.group_x - 1) * variant.unroll + span_pad;
    const cl_ulong rows = (cl_ulong) variant.group_y * variant.rows + spec.ky - 1;
    bytes += (cl_ulong) variant.tile * ((pitch * rows * spec.channels + 3) / 4 * 16);
  }
  return bytes;
}

bool
filter_fits (const ConvolutionSpec & spec, const ConvolutionVariant & variant,
    const ConvolutionLimits & limits)
{
  switch (variant.filter_memory) {
    case FilterMemory::Global:
      return true;
    case FilterMemory::Constant:
      return (cl_ulong) spec.taps () * sizeof (float) <= limits.constant_bytes;
    case FilterMemory::Local:
      return local_bytes (spec, variant) + LOCAL_MARGIN_BYTES <= limits.local_mem_bytes;
  }
  return false;
}

/* The tensor-core kernel (kernels/convolve_mma.cl): voxels per row of a product, lanes per
 * warp, and the words of the emulation's scratch per lane. */
constexpr int MMA_VOXELS = 16;
constexpr int MMA_WARP = 32;
constexpr int MMA_SCRATCH_WORDS = 6;

int
mma_padded_filters (const ConvolutionSpec & spec)
{
  return (spec.num_filters + 7) / 8 * 8;
}

/* Filters per warp of an mma variant (the kernel's MMA_FILTERS). */
int
mma_filters_per_warp (const ConvolutionSpec & spec, const ConvolutionVariant & variant)
{
  return variant.filter_block > 0 ? variant.filter_block : mma_padded_filters (spec);
}

/* The largest multiple of 8 not above `requested` that divides N rounded up to 8; 0 (all)
 * when that is all of them or nothing is requested. */
int
mma_effective_filter_block (const ConvolutionSpec & spec, int requested)
{
  const int padded = mma_padded_filters (spec);
  if (requested <= 0 || requested >= padded)
    return 0;
  int block = std::max (8, requested / 8 * 8);
  while (padded % block != 0)
    block -= 8;
  return block == padded ? 0 : block;
}

int
mma_group_size (const ConvolutionVariant & variant)
{
  return MMA_WARP * variant.group_x * variant.group_y;
}

/* Local memory of an mma variant as kernels/convolve_mma.cl declares it: two staged planes, two
 * planes' B fragments unless they are read from global memory, and the emulation's scratch. */
cl_ulong
mma_local_bytes (const ConvolutionSpec & spec, const ConvolutionVariant & variant,
    bool emulated)
{
  const cl_ulong kx_pad = (cl_ulong) (spec.kx + 7) / 8 * 8;
  const cl_ulong pitch = (cl_ulong) MMA_VOXELS * variant.group_x + kx_pad - 1;
  const cl_ulong tile_rows = (cl_ulong) variant.rows * variant.group_y + spec.ky - 1;
  const cl_ulong fragments = (cl_ulong) spec.ky * (kx_pad / 8) *
      (mma_filters_per_warp (spec, variant) / 8) * MMA_WARP;
  const bool staged = variant.filter_memory == FilterMemory::Local;
  cl_ulong bytes = 2 * (pitch * tile_rows * sizeof (float) +
      (staged ? fragments * 4 * sizeof (float) : 0));
  if (emulated)
    bytes += (cl_ulong) mma_group_size (variant) * MMA_SCRATCH_WORDS * sizeof (cl_uint);
  return bytes;
}

/* Rounds a float to TF32 (10 mantissa bits), to nearest, ties away from zero. */
float
round_to_tf32 (float value)
{
  guint32 bits;
  std::memcpy (&bits, &value, sizeof bits);
  bits = (bits + 0x1000u) & 0xffffe000u;
  std::memcpy (&value, &bits, sizeof bits);
  return value;
}

/* `value` with its 13 low mantissa bits cleared: exact in TF32, value - result exact in FP32. */
float
truncate_to_tf32 (float value)
{
  guint32 bits;
  std::memcpy (&bits, &value, sizeof bits);
  bits &= 0xffffe000u;
  std::memcpy (&value, &bits, sizeof bits);
  return value;
}

/* Constant memory when the filters fit there, else local, else global. */
FilterMemory
default_filter_memory (const ConvolutionSpec & spec, ConvolutionVariant variant,
    const ConvolutionLimits & limits)
{
  for (FilterMemory memory : { FilterMemory::Constant, FilterMemory::Local }) {
    variant.filter_memory = memory;
    if (filter_fits (spec, variant, limits))
      return memory;
  }
  return FilterMemory::Global;
}

/* A candidate before it is fitted to a spec and device: unroll 0 is the largest unroll of a
 * plain row of outputs (rows 1, all filters) within the accumulator budget. */
struct CandidateShape
{
  int unroll, rows, filters, group_x, group_y;
  FilterMemory memory;
  bool memory_given;
  int tile;                     /* ConvolutionVariant::tile */
};

/* GPUs, tensor output with 8 or more filters: blocks of 8 (or 16) filters x 2 to 4 columns x 2
 * or 3 rows per work-item, each tap read as a float4 of four filters from local memory (or the
 * constant cache) and used UNROLL x ROWS times, the input staged in local memory in one buffer or
 * two; and the plain layout as the reference the others must beat. The first is the default.
 * On an H100 (256^3, 7^3 filters; tests/bench/results/convolve-tile2-h100/) the second buffer
 * made 4x2f8:16x8:local 10% faster at N = 8 and 9% at N = 32, and 2x2 outputs, 32 accumulators
 * in 128 registers (16 warps per multiprocessor against 12 for 4x2f8's 161), another 16% at
 * N = 8 but 2% less at N = 32; 4x4f8 and 8x2f8 in two buffers spill. Once the outputs were
 * stored four at a time, 2x2f8 in 16x16 groups from one buffer (80 registers, 24 warps per
 * multiprocessor) ran fastest at both N, 1% ahead of the same blocks in two buffers
 * (tests/bench/results/run-gpu-h100-vecstore/), so it leads. */
const CandidateShape GPU_MANY_FILTERS[] = {
  { 2, 2, 8, 16, 16, FilterMemory::Local, true, 1 },
  { 2, 2, 8, 16, 8, FilterMemory::Local, true, 2 },
  { 4, 2, 8, 16, 8, FilterMemory::Local, true, 2 },
  { 2, 2, 8, 8, 8, FilterMemory::Local, true, 2 },
  { 2, 3, 8, 16, 8, FilterMemory::Local, true, 2 },
  { 4, 2, 16, 16, 8, FilterMemory::Local, true, 1 },
  { 2, 2, 8, 16, 8, FilterMemory::Constant, true, 2 },
  { 0, 1, 0, 16, 8, FilterMemory::Constant, false, 0 },
};

/* GPUs, few filters or pixel output (which needs all of them per work-item): 2D blocks of
 * outputs from a staged input, or from global memory, and plain rows. */
const CandidateShape GPU_FEW_FILTERS[] = {
  { 8, 2, 0, 16, 8, FilterMemory::Constant, false, 1 },
  { 4, 4, 0, 16, 8, FilterMemory::Constant, false, 1 },
  { 8, 4, 0, 16, 8, FilterMemory::Constant, false, 1 },
  { 4, 2, 0, 32, 4, FilterMemory::Constant, false, 1 },
  { 8, 2, 0, 16, 8, FilterMemory::Constant, false, 0 },
  { 0, 1, 0, 16, 8, FilterMemory::Constant, false, 0 },
  { 4, 1, 0, 32, 4, FilterMemory::Constant, false, 0 },
  { 1, 1, 0, 32, 4, FilterMemory::Constant, false, 0 },
};

/* NVIDIA GPUs with tensor cores, specs mma supports: rows per warp, filters per warp (0: all),
 * warps along x and y, B fragments from global memory instead of staged. A warp's accumulators
 * are rows x filters / 8 x 4 registers per lane (shapes beyond 64 are left out), its A fragments
 * (rows + k - 1) x 4. Measured on an H100 (tests/bench/mma-gpu-check.sh, 256^3, 7^3 filters):
 * 8 rows per warp in work-groups of 4 warps ran fastest (8:2x2 for 8 filters, 8f16:2x2:global
 * for 32); 4 rows in 4 warps 8 to 22% slower, work-groups of 8 warps (4:2x4, 2:2x4) 14 to 54%
 * slower. The first shape that fits is the default. */
struct MmaShape
{
  int rows, filters, warps_x, warps_y;
  bool b_global;
};
const MmaShape MMA_SHAPES[] = {
  { 8, 0, 2, 2, false },
  { 8, 16, 2, 2, true },
  { 8, 16, 2, 2, false },
  { 8, 8, 2, 2, true },
  { 4, 0, 2, 2, true },
  { 4, 0, 2, 2, false },
  { 8, 0, 1, 4, true },
  { 16, 8, 1, 2, false },
};
constexpr int MMA_ACCUMULATORS = 64;
/* From this many filters on the tensor cores are the default (on the H100, one filter: the FP32
 * variants 1.9 times as fast, the mma kernel computing 8 filters either way; 8 filters: the FP32
 * variants 3.4 times slower). */
constexpr int MMA_DEFAULT_FILTERS = 4;

/* Reads a decimal number of at most 4 digits at text[pos] into value and moves pos past it;
 * false when there is none or it is longer (so no value can overflow an int). */
bool
read_small_number (const std::string & text, size_t & pos, int &value)
{
  size_t start = pos;
  value = 0;
  while (pos < text.size () && g_ascii_isdigit (text[pos]) && pos - start < 5) {
    value = value * 10 + (text[pos] - '0');
    pos++;
  }
  return pos > start && pos - start <= 4;
}

/* Reads "<c><number>" at text[pos] when text[pos] is c (then `present`); true when absent or
 * read. */
bool
read_optional_field (const std::string & text, size_t & pos, char c, int &value,
    bool &present)
{
  present = pos < text.size () && text[pos] == c;
  if (!present)
    return true;
  pos++;
  return read_small_number (text, pos, value);
}

}  // namespace

std::string
ConvolutionSpec::build_options () const
{
  int out_mode = output == Output::Tensor ? 0 : output == Output::FloatPixels ? 1 :
      output == Output::BytePixels ? 2 : 3;
  gchar *text = g_strdup_printf ("-DKX=%d -DKY=%d -DKZ=%d -DNUM_FILTERS=%d -DCHANNELS=%d "
      "-DIN_FLOAT=%d -DOUT_MODE=%d -DOUT_PIXEL=%d -DCOPY_ALPHA=%d -DTEMPORAL=%d", kx, ky, kz,
      num_filters, channels, float_input ? 1 : 0, out_mode, out_pixel_bytes, copy_alpha ? 1 : 0,
      temporal ? 1 : 0);
  std::string options (text);
  g_free (text);
  /* Only when set: the programs (and tuning keys) of the 8-bit specs stay as they were. */
  if (short_input)
    options += " -DIN_SHORT=1";
  if (out_shift)
    options += " -DOUT_SHIFT=" + std::to_string (out_shift);
  return options;
}

bool
ConvolutionSpec::mma_supported () const
{
  return !float_input && !short_input && channels == 1 && output == Output::Tensor &&
      !temporal;
}

std::string
ConvolutionVariant::to_string () const
{
  if (mma) {
    std::string text = "mma:" + std::to_string (rows);
    if (filter_block != 0)
      text += "f" + std::to_string (filter_block);
    text += ":" + std::to_string (group_x) + "x" + std::to_string (group_y);
    return filter_memory == FilterMemory::Global ? text + ":global" : text;
  }
  std::string text = std::to_string (unroll);
  if (rows != 1)
    text += "x" + std::to_string (rows);
  if (filter_block != 0)
    text += "f" + std::to_string (filter_block);
  text += ":" + std::to_string (group_x) + "x" + std::to_string (group_y) + ":" +
      memory_name (filter_memory);
  if (tile)
    text += tile == 2 ? ":tile2" : ":tile";
  return text;
}

bool
ConvolutionVariant::operator== (const ConvolutionVariant & other) const
{
  return unroll == other.unroll && rows == other.rows && filter_block == other.filter_block &&
      group_x == other.group_x && group_y == other.group_y &&
      filter_memory == other.filter_memory && tile == other.tile && mma == other.mma;
}

namespace {

/* "mma:ROWS[fFILTERS]:WXxWY[:global]", nothing else around it: at most 32 warps of 1024
 * work-items. */
std::optional<ConvolutionVariant>
parse_mma (const std::string & text, bool * memory_given)
{
  ConvolutionVariant variant;
  variant.mma = true;
  variant.unroll = MMA_VOXELS;
  variant.filter_memory = FilterMemory::Local;
  size_t pos = 4;
  bool has_filters = false;
  if (!read_small_number (text, pos, variant.rows) ||
      !read_optional_field (text, pos, 'f', variant.filter_block, has_filters) ||
      pos >= text.size () || text[pos++] != ':' ||
      !read_small_number (text, pos, variant.group_x) || pos >= text.size () ||
      text[pos++] != 'x' || !read_small_number (text, pos, variant.group_y))
    return std::nullopt;
  if (text.compare (pos, std::string::npos, ":global") == 0)
    variant.filter_memory = FilterMemory::Global;
  else if (pos != text.size ())
    return std::nullopt;
  if (variant.rows < 1 || variant.rows > 16 || (has_filters && (variant.filter_block < 8 ||
              variant.filter_block > 64 || variant.filter_block % 8 != 0)) ||
      variant.group_x < 1 || variant.group_y < 1 || variant.group_x * variant.group_y > 32)
    return std::nullopt;
  if (memory_given)
    *memory_given = false;
  return variant;
}

}  // namespace

std::optional<ConvolutionVariant>
ConvolutionVariant::parse (const std::string & text, bool * memory_given, std::string * why)
{
  /* UNROLL[xROWS][fFILTERS]:GXxGY[:MEMORY][:tile|:tile2], nothing else around it. */
  ConvolutionVariant variant;
  size_t pos = 0;
  bool has_rows = false, has_filters = false;
  if (text.compare (0, 4, "mma:") == 0)
    return parse_mma (text, memory_given);
  if (!read_small_number (text, pos, variant.unroll) ||
      !read_optional_field (text, pos, 'x', variant.rows, has_rows) ||
      !read_optional_field (text, pos, 'f', variant.filter_block, has_filters) ||
      pos >= text.size () || text[pos++] != ':' ||
      !read_small_number (text, pos, variant.group_x) || pos >= text.size () ||
      text[pos++] != 'x' || !read_small_number (text, pos, variant.group_y))
    return std::nullopt;
  /* "f0" is not a way of writing "all filters": that is the field left out. */
  std::string range;
  if (variant.unroll < 1 || variant.unroll > 16)
    range = "an unroll of " + std::to_string (variant.unroll) + " is not 1 to 16";
  else if (variant.rows < 1 || variant.rows > 16)
    range = std::to_string (variant.rows) + " rows are not 1 to 16";
  else if (has_filters && (variant.filter_block < 1 || variant.filter_block > 64))
    range = "a block of " + std::to_string (variant.filter_block) + " filters is not 1 to 64";
  else if (variant.group_x < 1 || variant.group_y < 1 || variant.group_x * variant.group_y > 4096)
    range = "a work-group of " + std::to_string (variant.group_x) + "x" +
        std::to_string (variant.group_y) + " is " + std::to_string (variant.group_x *
        variant.group_y) + " work-items; at least 1 and at most 4096 (and at most the "
        "device's CL_DEVICE_MAX_WORK_GROUP_SIZE)";
  if (!range.empty ()) {
    if (why)
      *why = range;
    return std::nullopt;
  }

  /* The fields after the work-group, each after a ':' and none empty. */
  std::vector<std::string> fields;
  if (pos < text.size ()) {
    if (text[pos] != ':')
      return std::nullopt;
    size_t start = pos + 1;
    while (true) {
      const size_t colon = text.find (':', start);
      fields.push_back (text.substr (start, colon == std::string::npos ? std::string::npos :
              colon - start));
      if (colon == std::string::npos)
        break;
      start = colon + 1;
    }
  }
  size_t field = 0;
  bool has_memory = false;
  if (field < fields.size ()) {
    if (const MemoryName *entry = entry_named (MEMORY_NAMES, fields[field].c_str ())) {
      variant.filter_memory = entry->memory;
      has_memory = true;
      field++;
    }
  }
  if (field < fields.size () && (fields[field] == "tile" || fields[field] == "tile2")) {
    variant.tile = fields[field] == "tile2" ? 2 : 1;
    field++;
  }
  if (field != fields.size ())
    return std::nullopt;
  if (memory_given)
    *memory_given = has_memory;
  return variant;
}

ConvolutionLimits
ConvolutionLimits::of (const Device & device)
{
  ConvolutionLimits limits = of (device.cl_device);
  limits.local_mem_bytes = device.local_mem_bytes;  /* GST_OPENCL_LOCAL_MEM_BYTES applied */
  return limits;
}

ConvolutionLimits
ConvolutionLimits::of (const cl::Device & device)
{
  ConvolutionLimits limits;
  limits.type = device.getInfo<CL_DEVICE_TYPE> ();
  limits.max_work_group_size = device.getInfo<CL_DEVICE_MAX_WORK_GROUP_SIZE> ();
  limits.local_mem_bytes = device.getInfo<CL_DEVICE_LOCAL_MEM_SIZE> ();
  limits.constant_bytes = device.getInfo<CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE> ();
  limits.nvidia_compute_capability = gst_opencl::nvidia_compute_capability (device);
  return limits;
}

void
Convolution::reset ()
{
  configured_ = false;
  have_variant_ = false;
  kernel_ = cl::Kernel ();
  filters_ = cl::Buffer ();
  fragments_ = cl::Buffer ();
}

void
Convolution::configure (Device & device, const ConvolutionSpec & spec,
    const std::vector<float> & taps)
{
  if ((int) taps.size () != spec.taps ())
    throw Failure (Failure::Kind::Settings, "a convolution of " +
        std::to_string (spec.num_filters) + " filters of " + std::to_string (spec.kx) + "x" +
        std::to_string (spec.ky) + "x" + std::to_string (spec.kz) + " needs " +
        std::to_string (spec.taps ()) + " taps, not " + std::to_string (taps.size ()));
  if (spec.kx % 2 == 0 || spec.ky % 2 == 0 || spec.kz % 2 == 0 || spec.kz > 16)
    throw Failure (Failure::Kind::Settings, "filter sizes must be odd (and at most 15 deep)");
  /* Kernel and filters of another context (the element restarted on another device) are of no
   * use here: a kernel may only take buffers of its own context. */
  if ((kernel_ () && kernel_.getInfo<CL_KERNEL_CONTEXT> ()() != device.context ()) ||
      (filters_ () && filters_.getInfo<CL_MEM_CONTEXT> ()() != device.context ()) ||
      (fragments_ () && fragments_.getInfo<CL_MEM_CONTEXT> ()() != device.context ()))
    reset ();
  bool same_spec = configured_ && spec.build_options () == spec_.build_options ();
  spec_ = spec;
  const size_t bytes = taps.size () * sizeof (float);
  if (!filters_ () || filters_.getInfo<CL_MEM_SIZE> () != bytes)
    filters_ = cl::Buffer (device.context, CL_MEM_READ_ONLY | CL_MEM_HOST_WRITE_ONLY, bytes);
  device.queue.enqueueWriteBuffer (filters_, CL_TRUE, 0, bytes, taps.data ());
  if (spec.mma_supported ()) {
    const std::vector<float> fragments = mma_fragments (spec, taps);
    const size_t fragment_bytes = fragments.size () * sizeof (float);
    if (!fragments_ () || fragments_.getInfo<CL_MEM_SIZE> () != fragment_bytes)
      fragments_ = cl::Buffer (device.context, CL_MEM_READ_ONLY | CL_MEM_HOST_WRITE_ONLY,
          fragment_bytes);
    device.queue.enqueueWriteBuffer (fragments_, CL_TRUE, 0, fragment_bytes, fragments.data ());
  } else {
    fragments_ = cl::Buffer ();
  }
  if (!same_spec) {
    have_variant_ = false;
    kernel_ = cl::Kernel ();
  }
  configured_ = true;
}

namespace {

/* Throws Failure (Settings) when a variant's work-group (`group_size` work-items) or its
 * `local` bytes of local memory exceed the device's. */
void
check_fits (const ConvolutionVariant & variant, const ConvolutionSpec & spec,
    const ConvolutionLimits & limits, size_t group_size, cl_ulong local)
{
  if (group_size > limits.max_work_group_size)
    throw Failure (Failure::Kind::Settings, "the work-group of convolution variant " +
        variant.to_string () + " (" + std::to_string (group_size) + " work-items) exceeds "
        "the device's limit of " + std::to_string (limits.max_work_group_size));
  if (local > 0 && local + LOCAL_MARGIN_BYTES > limits.local_mem_bytes)
    throw Failure (Failure::Kind::Settings, "convolution variant " + variant.to_string () +
        " needs " + std::to_string (local) + " bytes of local memory for " +
        std::to_string (spec.kx) + "x" + std::to_string (spec.ky) + "x" +
        std::to_string (spec.kz) + " filters; the device has " +
        std::to_string (limits.local_mem_bytes));
}

/* Convolution::resolve for mma variants. Off NVIDIA's tensor cores the kernel is emulated. */
ConvolutionVariant
resolve_mma (const ConvolutionVariant & requested, const ConvolutionSpec & spec,
    const ConvolutionLimits & limits)
{
  if (!spec.mma_supported ())
    throw Failure (Failure::Kind::Settings, "convolution variant " + requested.to_string () +
        " (tensor cores) takes uint8 volumes of one channel to a float tensor only");
  ConvolutionVariant variant = requested;
  variant.unroll = MMA_VOXELS;
  if (variant.filter_memory != FilterMemory::Global)
    variant.filter_memory = FilterMemory::Local;
  variant.tile = 0;
  variant.filter_block = mma_effective_filter_block (spec, variant.filter_block);
  check_fits (variant, spec, limits, (size_t) mma_group_size (variant),
      mma_local_bytes (spec, variant, !limits.tensor_cores ()));
  return variant;
}

}  // namespace

ConvolutionVariant
Convolution::resolve (const ConvolutionVariant & requested, bool memory_given,
    const ConvolutionSpec & spec, const ConvolutionLimits & limits)
{
  if (requested.mma)
    return resolve_mma (requested, spec, limits);
  ConvolutionVariant variant = requested;
  variant.filter_block = effective_filter_block (spec, variant.filter_block);
  if (!memory_given || !filter_fits (spec, variant, limits))
    variant.filter_memory = default_filter_memory (spec, variant, limits);
  check_fits (variant, spec, limits, (size_t) variant.group_x * variant.group_y,
      local_bytes (spec, variant));
  return variant;
}

namespace {

/* The shapes of the FP32 candidates on a device, and the accumulators (floats) one work-item of
 * them may hold. */
struct CandidateShapes
{
  std::vector<CandidateShape> shapes;
  int budget = 0;
};

CandidateShapes
fp32_shapes (const ConvolutionSpec & spec, const ConvolutionLimits & limits)
{
  /* Accumulators (floats) one work-item may hold in the GPU candidates: beyond this the register
   * file of a work-group of 128 spills or admits too few groups to hide latency. */
  constexpr int GPU_ACCUMULATORS = 128;
  /* The CPU candidates: the two largest unrolls whose accumulators stay within what a
   * vectorized work-group keeps in registers (measured with PoCL: 32 filters run best at unroll
   * 4 and twice as slow at 8); never more than MAX_ACCUMULATORS. */
  constexpr int CPU_ACCUMULATORS = 128;
  constexpr int MAX_ACCUMULATORS = 256;
  /* Accumulator floats per output, per filter block. */
  const int per_output = spec.num_filters * spec.channels;
  CandidateShapes result;
  std::vector<CandidateShape> & shapes = result.shapes;
  if (limits.type & CL_DEVICE_TYPE_GPU) {
    result.budget = GPU_ACCUMULATORS;
    const bool many = spec.output == ConvolutionSpec::Output::Tensor && spec.num_filters >= 8;
    for (const CandidateShape & shape : many ? GPU_MANY_FILTERS : GPU_FEW_FILTERS) {
      shapes.push_back (shape);
      /* The largest unroll of a plain row of outputs within the budget. */
      if (shape.unroll == 0) {
        shapes.back ().unroll = 8;
        while (shapes.back ().unroll > 1 && shapes.back ().unroll * per_output > result.budget)
          shapes.back ().unroll /= 2;
      }
    }
  } else {
    /* CPU drivers compile slowly: two candidates only, rows of outputs, work-group 16 x 4. */
    result.budget = MAX_ACCUMULATORS;
    for (int unroll : { 8, 4, 2, 1 }) {
      if (shapes.size () < 2 && (unroll == 1 || unroll * per_output <= CPU_ACCUMULATORS))
        shapes.push_back ({ unroll, 1, 0, 16, 4, FilterMemory::Constant, false, 0 });
    }
  }
  return result;
}

/* The tensor cores' variants (MMA_SHAPES) that fit the spec and the device, each once; none
 * without tensor cores or for a spec mma does not take. */
std::vector<ConvolutionVariant>
mma_candidates (const ConvolutionSpec & spec, const ConvolutionLimits & limits)
{
  std::vector<ConvolutionVariant> mma_list;
  if (!limits.tensor_cores () || !spec.mma_supported ())
    return mma_list;
  for (const MmaShape & shape : MMA_SHAPES) {
    ConvolutionVariant variant;
    variant.mma = true;
    variant.rows = shape.rows;
    variant.filter_block = shape.filters;
    variant.group_x = shape.warps_x;
    variant.group_y = shape.warps_y;
    variant.filter_memory = shape.b_global ? FilterMemory::Global : FilterMemory::Local;
    try {
      variant = Convolution::resolve (variant, false, spec, limits);
    } catch (const Failure &) {
      continue;
    }
    if (variant.rows * mma_filters_per_warp (spec, variant) / 8 * 4 > MMA_ACCUMULATORS)
      continue;
    if (std::find (mma_list.begin (), mma_list.end (), variant) == mma_list.end ())
      mma_list.push_back (variant);
  }
  return mma_list;
}

/* The FP32 variants of the shapes that fit the spec, the device and the accumulator budget,
 * each once; a plain row of outputs when none does. */
std::vector<ConvolutionVariant>
fp32_candidates (const CandidateShapes & shapes, const ConvolutionSpec & spec,
    const ConvolutionLimits & limits)
{
  std::vector<ConvolutionVariant> list;
  for (const CandidateShape & shape : shapes.shapes) {
    ConvolutionVariant variant;
    variant.unroll = shape.unroll;
    variant.rows = shape.rows;
    variant.filter_block = shape.filters;
    variant.group_x = shape.group_x;
    variant.group_y = shape.group_y;
    variant.filter_memory = shape.memory;
    variant.tile = shape.tile;
    try {
      variant = Convolution::resolve (variant, shape.memory_given, spec, limits);
    } catch (const Failure &) {
      continue;                 /* does not fit this device */
    }
    const int accumulators = variant.unroll * variant.rows * filters_per_item (spec, variant) *
        spec.channels;
    if (accumulators > shapes.budget && !(variant.unroll == 1 && variant.rows == 1))
      continue;
    if (std::find (list.begin (), list.end (), variant) == list.end ())
      list.push_back (variant);
  }
  if (list.empty ()) {
    ConvolutionVariant fallback;
    fallback.unroll = 1;
    fallback.group_x = 8;
    fallback.group_y = 1;
    fallback.filter_memory = default_filter_memory (spec, fallback, limits);
    list.push_back (fallback);
  }
  return list;
}

}  // namespace

std::vector<ConvolutionVariant>
Convolution::candidates (const ConvolutionSpec & spec, const ConvolutionLimits & limits)
{
  const CandidateShapes shapes = fp32_shapes (spec, limits);
  /* Tensor cores: the mma variants, first from MMA_DEFAULT_FILTERS filters on, else after the
   * FP32 ones. */
  const std::vector<ConvolutionVariant> mma_list = mma_candidates (spec, limits);
  std::vector<ConvolutionVariant> list = fp32_candidates (shapes, spec, limits);
  list.insert (spec.num_filters >= MMA_DEFAULT_FILTERS ? list.begin () : list.end (),
      mma_list.begin (), mma_list.end ());
  return list;
}

std::string
Convolution::tuning_key (const ConvolutionSpec & spec,
    const std::vector<ConvolutionVariant> & candidates)
{
  std::string names;
  for (const auto & candidate : candidates)
    names += candidate.to_string () + " ";
  gchar *text = g_strdup_printf ("%s source %016" G_GINT64_MODIFIER "x candidates %016"
      G_GINT64_MODIFIER "x", spec.build_options ().c_str (),
      (guint64) stable_hash (kernel_source ("convolve") + kernel_source ("convolve_mma")),
      (guint64) stable_hash (names));
  std::string key (text);
  g_free (text);
  return key;
}

Convolution::Program
Convolution::program (const ConvolutionSpec & spec, const ConvolutionVariant & variant,
    const ConvolutionLimits & limits)
{
  gchar *text;
  if (variant.mma)
    text = g_strdup_printf ("%s -DMMA_ROWS=%d -DMMA_FILTERS=%d -DWARPS_X=%d -DWARPS_Y=%d "
        "-DMMA_EMULATE=%d -DMMA_B_GLOBAL=%d", spec.build_options ().c_str (), variant.rows,
        mma_filters_per_warp (spec, variant), variant.group_x, variant.group_y,
        limits.tensor_cores () ? 0 : 1, variant.filter_memory == FilterMemory::Global ? 1 : 0);
  else
    text = g_strdup_printf ("%s -DUNROLL=%d -DROWS=%d -DFILTER_BLOCK=%d -DGROUP_X=%d "
        "-DGROUP_Y=%d -DFILTER_MEM=%d -DTILE=%d", spec.build_options ().c_str (),
        variant.unroll, variant.rows, filters_per_item (spec, variant), variant.group_x,
        variant.group_y, (int) variant.filter_memory, variant.tile);
  Program program;
  program.file = program.kernel = variant.mma ? "convolve_mma" : "convolve";
  program.options = text;
  g_free (text);
  return program;
}

std::vector<float>
Convolution::mma_fragments (const ConvolutionSpec & spec, const std::vector<float> & taps)
{
  /* [l][j][step][tile][lane] float4s: lane (g, t) holds hi and lo of taps 8 step + t and
   * 8 step + t + 4 of filter 8 tile + g, zero past KX and past N. */
  const int n = spec.num_filters;
  const int steps = (spec.kx + 7) / 8;
  const int tiles = mma_padded_filters (spec) / 8;
  std::vector<float> fragments ((size_t) spec.kz * spec.ky * steps * tiles * MMA_WARP * 4);
  size_t index = 0;
  for (int l = 0; l < spec.kz; l++) {
    for (int j = 0; j < spec.ky; j++) {
      for (int step = 0; step < steps; step++) {
        for (int tile = 0; tile < tiles; tile++) {
          for (int lane = 0; lane < MMA_WARP; lane++) {
            const int filter = tile * 8 + lane / 4;
            float hi[2], lo[2];
            for (int half = 0; half < 2; half++) {
              const int i = step * 8 + lane % 4 + half * 4;
              const float w = i < spec.kx && filter < n ?
                  taps[(((size_t) l * spec.ky + j) * spec.kx + i) * n + filter] : 0.0f;
              hi[half] = truncate_to_tf32 (w);
              lo[half] = round_to_tf32 (w - hi[half]);
            }
            fragments[index++] = hi[0];
            fragments[index++] = hi[1];
            fragments[index++] = lo[0];
            fragments[index++] = lo[1];
          }
        }
      }
    }
  }
  return fragments;
}

cl::Kernel
Convolution::build (Device & device, const ConvolutionVariant & variant) const
{
  const Program source = program (spec_, variant, ConvolutionLimits::of (device));
  GST_DEBUG ("convolution kernel %s [%s]", source.kernel.c_str (), source.options.c_str ());
  cl::Kernel kernel = device.kernel (source.file, source.kernel, source.options);
  size_t limit = kernel.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE> (device.cl_device);
  const size_t group = variant.mma ? (size_t) mma_group_size (variant) :
      (size_t) variant.group_x * variant.group_y;
  if (group > limit)
    throw Failure (Failure::Kind::Settings, "work-group " + variant.to_string () +
        " exceeds the kernel's limit of " + std::to_string (limit) + " on " + device.name);
  cl_ulong local = kernel.getWorkGroupInfo<CL_KERNEL_LOCAL_MEM_SIZE> (device.cl_device);
  if (local > device.local_mem_bytes)
    throw Failure (Failure::Kind::Settings, "variant " + variant.to_string () + " needs " +
        std::to_string (local) + " bytes of local memory; " + device.name + " has " +
        std::to_string (device.local_mem_bytes));
  return kernel;
}

void
Convolution::set_args (cl::Kernel & kernel, const ConvolutionVariant & variant,
    const ConvolutionArgs & a) const
{
  gst_opencl::set_args (kernel, *a.src, a.src_row_stride, a.src_plane_stride, a.slots, *a.dst,
      a.dst_offset, a.dst_row_stride, a.dst_plane_stride, a.width, a.height, a.depth,
      variant.mma ? fragments_ : filters_, a.scale, a.offset, a.alpha_src ? *a.alpha_src : *a.src,
      a.alpha_row_stride, a.alpha_plane_stride, a.src_offset);
}

void
Convolution::enqueue (ElementDevice * element, Device & device, const cl::Kernel & kernel,
    const ConvolutionVariant & variant, const ConvolutionArgs & args, size_t rows,
    size_t planes, cl::Event * event) const
{
  size_t columns, row_items, blocks;
  cl::NDRange local;
  if (variant.mma) {
    /* One-dimensional work-groups of warps; one work-group per GROUP_W x GROUP_H outputs. */
    const size_t group_w = (size_t) MMA_VOXELS * variant.group_x;
    const size_t group_h = (size_t) variant.rows * variant.group_y;
    columns = ((size_t) args.width + group_w - 1) / group_w * mma_group_size (variant);
    row_items = (rows + group_h - 1) / group_h;
    blocks = (size_t) (mma_padded_filters (spec_) / mma_filters_per_warp (spec_, variant));
    local = cl::NDRange ((size_t) mma_group_size (variant), 1, 1);
  } else {
    columns = ((size_t) args.width + variant.unroll - 1) / variant.unroll;
    row_items = (rows + variant.rows - 1) / variant.rows;
    blocks = (size_t) (spec_.num_filters / filters_per_item (spec_, variant));
    local = cl::NDRange ((size_t) variant.group_x, (size_t) variant.group_y, 1);
  }
  cl::NDRange global (columns, row_items, planes * blocks);
  if (element) {
    element->launch (kernel, global, local);
    return;
  }
  cl::NDRange padded ((columns + local.get ()[0] - 1) / local.get ()[0] * local.get ()[0],
      (row_items + local.get ()[1] - 1) / local.get ()[1] * local.get ()[1], planes * blocks);
  device.queue.enqueueNDRangeKernel (kernel, cl::NullRange, padded, local, nullptr, event);
}

void
Convolution::choose_variant (ElementDevice & element, const ConvolutionArgs & args)
{
  Device & device = element.device ();
  const ConvolutionLimits limits = ConvolutionLimits::of (device);
  const std::vector<ConvolutionVariant> variants = candidates (spec_, limits);
  std::vector<TuningCandidate> names;
  for (const auto & variant : variants)
    names.push_back ({ variant.to_string (), true });

  /* Each candidate is timed on the real data (a slab of it on CPUs); its kernel is built on
   * the warm-up launch and kept for the timed ones. This is the only place a Convolution waits
   * for the device. */
  /* Rows and planes timed per candidate on CPU devices: there the cost per output does not
   * depend on the extent, so a slab keeps tuning short. GPUs time the whole problem: a slab would
   * not fill them, and would favour the variants with the most work-items. */
  constexpr size_t TUNING_ROWS = 64;
  constexpr size_t TUNING_PLANES = 4;
  const bool slab = !(device.type & CL_DEVICE_TYPE_GPU);
  const size_t rows = slab ? std::min<size_t> (args.height, TUNING_ROWS) : args.height;
  const size_t planes = slab ? std::min<size_t> (args.depth, TUNING_PLANES) : args.depth;
  std::vector<cl::Kernel> kernels (variants.size ());
  auto time_one = [&](size_t index) -> double {
    cl::Kernel & kernel = kernels[index];
    if (!kernel ()) {
      kernel = build (device, variants[index]);
      set_args (kernel, variants[index], args);
    }
    cl::Event event;
    enqueue (nullptr, device, kernel, variants[index], args, rows, planes, &event);
    event.wait ();
    return event_milliseconds (event);
  };
  auto parses = [](const std::string & name) {
    return ConvolutionVariant::parse (name).has_value ();
  };
  /* A forced variant of the right form with a number out of range is told as such, not as a
   * name that is no variant. */
  const std::string forced = env::variant (FAMILY);
  if (!forced.empty ()) {
    std::string why;
    if (!ConvolutionVariant::parse (forced, nullptr, &why) && !why.empty ())
      throw Failure (Failure::Kind::Settings, variant_environment_name (FAMILY) + "=" + forced +
          ": " + why);
  }
  const std::string key = tuning_key (spec_, variants);
  const TuningChoice choice = tune_variant (device.cl_device, FAMILY, key, names, time_one, 3,
      parses);

  bool memory_given = false;
  auto chosen = ConvolutionVariant::parse (choice.name, &memory_given);
  if (!chosen)
    throw Failure (Failure::Kind::Failed, "convolution variant \"" + choice.name +
        "\" does not parse");
  variant_ = resolve (*chosen, memory_given, spec_, limits);
  if (choice.index < variants.size () && kernels[choice.index] () &&
      variants[choice.index] == variant_)
    kernel_ = kernels[choice.index];
  else
    kernel_ = build (device, variant_);
  GST_INFO ("convolution variant %s (%s) for [%s]", variant_.to_string ().c_str (),
      TuningChoice::source_name (choice.source), spec_.build_options ().c_str ());
  element.post_variant (FAMILY, key, names, choice);
}

void
Convolution::run (ElementDevice & element, const ConvolutionArgs & args)
{
  if (!configured_)
    throw Failure (Failure::Kind::Failed, "convolution run before it was configured");
  Device & device = element.device ();
  if (!have_variant_) {
    choose_variant (element, args);
    have_variant_ = true;
  }
  set_args (kernel_, variant_, args);
  enqueue (&element, device, kernel_, variant_, args, (size_t) args.height,
      (size_t) args.depth, nullptr);
}

std::optional<SeparableFactors>
separate (const std::vector<float> & taps, int kx, int ky, int kz, double relative_tolerance)
{
  if ((int) taps.size () != kx * ky * kz || taps.empty ())
    return std::nullopt;
  auto at = [&](int i, int j, int l) { return (double) taps[((size_t) l * ky + j) * kx + i]; };
  size_t peak = 0;
  for (size_t t = 1; t < taps.size (); t++) {
    if (std::fabs (taps[t]) > std::fabs (taps[peak]))
      peak = t;
  }
  const int i0 = (int) (peak % kx);
  const int j0 = (int) (peak / kx % ky);
  const int l0 = (int) (peak / ((size_t) kx * ky));
  const double m = at (i0, j0, l0);
  SeparableFactors factors;
  factors.x.resize (kx);
  factors.y.resize (ky);
  factors.z.resize (kz);
  if (m == 0.0) {
    /* All zero: any factors with a zero one. */
    std::fill (factors.y.begin (), factors.y.end (), 1.0f);
    std::fill (factors.z.begin (), factors.z.end (), 1.0f);
    return factors;
  }
  for (int i = 0; i < kx; i++)
    factors.x[i] = (float) at (i, j0, l0);
  for (int j = 0; j < ky; j++)
    factors.y[j] = (float) (at (i0, j, l0) / m);
  for (int l = 0; l < kz; l++)
    factors.z[l] = (float) (at (i0, j0, l) / m);
  const double limit = relative_tolerance * std::fabs (m);
  for (int l = 0; l < kz; l++) {
    for (int j = 0; j < ky; j++) {
      for (int i = 0; i < kx; i++) {
        double product = (double) factors.x[i] * factors.y[j] * factors.z[l];
        if (std::fabs (product - at (i, j, l)) > limit)
          return std::nullopt;
      }
    }
  }
  return factors;
}

}  // namespace gst_opencl
