/* gst-opencl: the convolution kernel generator shared by openclconvolve3d and
 * openclmulticonvolve.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * One kernel source (kernels/convolve.cl) computes a centred, same-size correlation with every
 * border clamped to the edge, for N filters of KX x KY x KZ taps at once. What it reads and
 * writes, the filter size, N and the variant (outputs per work-item along x and y, filters per
 * work-item, work-group shape, where the filters and the input are read from) are build
 * options; each combination is one program from the context's program cache.
 *
 * The variant is chosen per device and spec the first time a Convolution runs, by the shared
 * tuner (gst_opencl::tune_variant, family "convolution"): GST_OPENCL_VARIANT_CONVOLUTION forces
 * one (any variant string, not only the candidates), GST_OPENCL_TUNING=0 takes the device's
 * default, otherwise the choice is remembered or timed on the real data and cached on disk. */
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "opencl/gstopenclcontext.h"
#include "opencl/gstopenclelementdevice.h"

namespace gst_opencl {

/* What one convolution program computes (everything but the variant). */
struct ConvolutionSpec
{
  enum class Output {
    Tensor,       /* float, the N responses of a voxel contiguous */
    FloatPixels,  /* float, `channels` values per pixel (separable intermediates; N = 1) */
    BytePixels,   /* uchar pixels of `out_pixel_bytes`: value * scale + offset, saturated */
    ShortPixels,  /* ushort pixels of `channels` samples: value * scale + offset, rounded to
                   * a multiple of 2^out_shift and saturated (N = 1) */
  };

  int kx = 1, ky = 1, kz = 1;  /* odd */
  int num_filters = 1;
  int channels = 1;            /* 1, 2 or 4 interleaved channels filtered alike */
  bool float_input = false;    /* else uchar, or ushort with short_input */
  bool short_input = false;    /* ushort (16-bit) samples */
  Output output = Output::Tensor;
  int out_pixel_bytes = 1;     /* BytePixels: 1 or 4 (1 channel), 2 (2), 4 (4) */
  int out_shift = 0;           /* ShortPixels: low bits left 0 (6 for P010) */
  bool copy_alpha = false;     /* Byte or ShortPixels with 4 channels: sample 3 from the
                                * centre plane */
  bool temporal = false;       /* the third axis is a ring of frames addressed through slots */

  int taps () const { return kx * ky * kz * num_filters; }
  /* Whether the tensor-core (mma) variants compute this spec: uchar volumes of one channel to
   * a float tensor. */
  bool mma_supported () const;
  /* The build options that do not depend on the variant. */
  std::string build_options () const;
};

enum class FilterMemory { Global = 0, Constant = 1, Local = 2 };

/* How the kernel is laid out over work-items (see kernels/convolve.cl), or, with `mma`, the
 * tensor-core kernel (kernels/convolve_mma.cl): there `rows` is the rows of 16 voxels per warp,
 * `filter_block` the filters per warp (a multiple of 8; 0: all), group_x x group_y the warps of
 * a work-group, and unroll and the memory fields do not apply. */
struct ConvolutionVariant
{
  int unroll = 4;            /* outputs per work-item along x */
  int rows = 1;              /* outputs per work-item along y */
  int filter_block = 0;      /* filters per work-item (tensor output only); 0: all N */
  int group_x = 16;
  int group_y = 4;
  FilterMemory filter_memory = FilterMemory::Constant;
  /* The work-group's input plane staged in local memory: 0 no, 1 one buffer, 2 two buffers
   * (the next plane loaded into registers while one is computed). */
  int tile = 0;
  bool mma = false;          /* the tensor-core kernel */

  /* "<unroll>[x<rows>][f<filters>]:<group x>x<group y>:<constant|local|global>[:tile|:tile2]", the
   * rows and filters fields left out when 1 and all; for mma variants
   * "mma:<rows per warp>[f<filters per warp>]:<warps x>x<warps y>". */
  std::string to_string () const;
  /* Parses to_string ()'s form, strictly; the memory field is optional (nullopt there =
   * automatic). When the form is right but a number is out of its range, *why (if given) says
   * which ("a work-group of 128x64 is 8192 work-items; at most 4096"). */
  static std::optional<ConvolutionVariant> parse (const std::string & text,
      bool * memory_given = nullptr, std::string * why = nullptr);
  bool operator== (const ConvolutionVariant & other) const;
  bool operator!= (const ConvolutionVariant & other) const { return !(*this == other); }
};

/* What a device offers the convolution's variants. */
struct ConvolutionLimits
{
  cl_device_type type = CL_DEVICE_TYPE_CPU;
  size_t max_work_group_size = 0;
  cl_ulong local_mem_bytes = 0;
  cl_ulong constant_bytes = 0;
  /* NVIDIA compute capability x 10 (90 on an H100), 0 elsewhere: mma variants run on tensor
   * cores from 80 on, and are emulated below. */
  int nvidia_compute_capability = 0;

  bool tensor_cores () const { return nvidia_compute_capability >= 80; }

  static ConvolutionLimits of (const Device & device);
  static ConvolutionLimits of (const cl::Device & device);
};

/* One launch. Strides and offsets are in elements of the buffer's scalar type (bytes for
 * uchar, ushorts for 16-bit samples, floats for float); a pixel is `channels` elements; the
 * alpha strides are in bytes. width x height x depth is the input and output size;
 * with a temporal spec, depth is 1 and `slots` gives the ring slot of each of the KZ taps. */
struct ConvolutionArgs
{
  const cl::Buffer *src = nullptr;
  cl_int src_offset = 0;  /* where the input (plane 0 or slot 0) starts */
  cl_int src_row_stride = 0;
  cl_int src_plane_stride = 0;
  cl_int16 slots {};
  const cl::Buffer *dst = nullptr;
  cl_int dst_offset = 0;  /* where plane 0 starts */
  cl_int dst_row_stride = 0;
  cl_int dst_plane_stride = 0;
  cl_int width = 0;
  cl_int height = 0;
  cl_int depth = 1;
  cl_float scale = 1.0f;
  cl_float offset = 0.0f;
  /* copy_alpha: the RGBA frames (ring) the alpha sample comes from, at slots[KZ / 2]. */
  const cl::Buffer *alpha_src = nullptr;
  cl_int alpha_row_stride = 0;
  cl_int alpha_plane_stride = 0;
};

class Convolution
{
public:
  /* The tuner's family name: GST_OPENCL_VARIANT_CONVOLUTION forces a variant. */
  static constexpr const char *FAMILY = "convolution";

  /* Sets the computation and uploads the taps (num_filters * kx * ky * kz floats, filter index
   * fastest, then x, y, z). Blocks on the upload: call when configuring, not per frame. Throws
   * Failure (Settings) on a wrong tap count, cl::Error on device errors. */
  void configure (Device & device, const ConvolutionSpec & spec,
      const std::vector<float> & taps);
  bool configured () const { return configured_; }
  void reset ();

  /* Enqueues the kernel through `element` (timed for kernel-time). The first run picks the
   * variant (which may time candidates and wait for them) and posts it on the bus
   * (ElementDevice::post_variant). Throws. */
  void run (ElementDevice & element, const ConvolutionArgs & args);

  const ConvolutionSpec & spec () const { return spec_; }
  /* Valid after the first run: the variant as it runs for this spec on this device (automatic
   * filter memory resolved, the filter block reduced to a divisor of N). */
  const ConvolutionVariant & variant () const { return variant_; }

  /* The variants timed for `spec` on a device with these limits, the device's default first
   * (public so that tests can run the GPU's candidates on any device). */
  static std::vector<ConvolutionVariant> candidates (const ConvolutionSpec & spec,
      const ConvolutionLimits & limits);
  /* The tuner's key: the spec's build options, a hash of the kernel source and of the
   * candidates' names (a changed list is timed again). */
  static std::string tuning_key (const ConvolutionSpec & spec,
      const std::vector<ConvolutionVariant> & candidates);
  /* `variant` as it runs for `spec` (see variant ()): automatic or unfitting filter memory
   * replaced by the default, the filter block by a divisor of N. Throws Failure (Settings) when
   * the work-group or the local memory it needs exceed the limits. */
  static ConvolutionVariant resolve (const ConvolutionVariant & variant, bool memory_given,
      const ConvolutionSpec & spec, const ConvolutionLimits & limits);

  /* The program of a resolved variant: kernel file (without .cl), kernel name and build
   * options (public for the benchmark, which prints the NVIDIA compiler's report of each). */
  struct Program
  {
    std::string file, kernel, options;
  };
  static Program program (const ConvolutionSpec & spec, const ConvolutionVariant & variant,
      const ConvolutionLimits & limits);
  /* The taps as the mma kernel reads them: per filter row (l, j), K-step s of 8 taps, tile of
   * 8 filters and lane, one float4 of the B fragments' hi and lo parts (see
   * kernels/convolve_mma.cl). */
  static std::vector<float> mma_fragments (const ConvolutionSpec & spec,
      const std::vector<float> & taps);

private:
  cl::Kernel build (Device & device, const ConvolutionVariant & variant) const;
  void set_args (cl::Kernel & kernel, const ConvolutionVariant & variant,
      const ConvolutionArgs & args) const;
  void choose_variant (ElementDevice & element, const ConvolutionArgs & args);
  void enqueue (ElementDevice * element, Device & device, const cl::Kernel & kernel,
      const ConvolutionVariant & variant, const ConvolutionArgs & args, size_t rows,
      size_t planes, cl::Event * event) const;

  bool configured_ = false;
  ConvolutionSpec spec_;
  cl::Buffer filters_;
  cl::Buffer fragments_;     /* mma_fragments () of the taps, for specs mma supports */
  bool have_variant_ = false;
  ConvolutionVariant variant_;
  cl::Kernel kernel_;
};

/* Rank-1 factors of a kx x ky x kz filter (x fastest): taps(i,j,l) = x[i] y[j] z[l] within
 * `relative_tolerance` x max |taps| everywhere; nullopt when it does not factor. */
struct SeparableFactors
{
  std::vector<float> x, y, z;
};
std::optional<SeparableFactors> separate (const std::vector<float> & taps, int kx, int ky,
    int kz, double relative_tolerance = 1e-5);

}  // namespace gst_opencl
