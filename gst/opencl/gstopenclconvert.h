/* gst-opencl: colour conversion and scaling of one device frame into another
 * (kernels/convertscale.cl), shared by openclconvertscale and the sources.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gst/video/video.h>

#include <array>
#include <memory>
#include <vector>

#include "opencl/gstopenclelementdevice.h"
#include "opencl/gstopenclframe.h"

/* Every format the converter reads and writes, in caps list syntax. */
#define GST_OPENCL_CONVERT_FORMATS "NV12, I420, P010_10LE, GRAY8, GRAY16_LE, RGBA, BGRA, " \
    "RGBx, BGRx, RGBA64_LE"

namespace gst_opencl {

/* GstVideoScaleMethod's values, those the kernel has. */
enum class ScaleMethod { Nearest = 0, Bilinear = 1, Lanczos = 4, Cubic = 8 };

/* A rectangle of a frame, in pixels. */
struct PixelRect
{
  int x = 0, y = 0, w = 0, h = 0;
};

/* A tensor of R, G, B values made of a frame in place of an output frame: its element type, its
 * layout (NHWC: the three values of a pixel together; NCHW: a plane per channel), its width and
 * height (the picture's place in it as an output frame's). Densely packed, rows of pixels
 * innermost, top row first. */
struct TensorOutput
{
  bool half = false;    /* float16 (IEEE binary16, rounded to nearest even), else float32 */
  bool planar = false;  /* NCHW, else NHWC */
  int width = 1, height = 1;

  gsize bytes () const { return (gsize) width * height * 3 * (half ? 2 : 4); }
};

/* Per channel (R, G, B): value = (code - mean) * scale, code the full-range 8-bit value
 * (0 .. 255, unrounded). */
struct TensorNormalisation
{
  std::array<double, 3> mean { { 0.0, 0.0, 0.0 } };
  std::array<double, 3> scale { { 1.0, 1.0, 1.0 } };
};

/* Whether `format` is one of GST_OPENCL_CONVERT_FORMATS. */
bool converts_format (GstVideoFormat format);

/* One conversion, from frames described by one GstVideoInfo to frames described by another
 * (format, size, colorimetry and chroma site: docs/openclconvertscale.md defines it). Set up
 * once per caps: the kernel is built (from the program cache after the first time) and the
 * arguments that depend only on the two infos are set. Per frame: the frames' buffers and plane
 * layouts, the picture's rectangle and the method, then one launch; nothing is allocated,
 * built or waited for. */
class FrameConverter
{
public:
  FrameConverter ();
  ~FrameConverter ();
  FrameConverter (FrameConverter &&) noexcept;
  FrameConverter & operator= (FrameConverter &&) noexcept;

  /* Throws Failure for a format it does not convert, BuildFailure or cl::Error. */
  void configure (Device & device, const GstVideoInfo * in, const GstVideoInfo * out);

  /* The same conversion into a tensor (`out`) of the input's R, G, B values: a frame of any
   * of the formats, to full-range 8-bit R'G'B' as an RGBx output of the tensor's size with
   * square pixels, unrounded and unsaturated. Throws as configure (). */
  void configure_tensor (Device & device, const GstVideoInfo * in, const TensorOutput & out);

  bool configured () const { return general_[0] () != nullptr; }
  void reset () { *this = FrameConverter (); }

  /* Enqueues the conversion of `in` into `out` (frames of the configured formats and sizes, at
   * any offsets and strides) through device.launch (). With `add_borders` the input's display
   * aspect ratio is kept inside black borders. `crop`, when given, is the part of the input
   * that is the picture (a GstVideoCropMeta's rectangle, inside the frame); otherwise the
   * whole frame is. Throws cl::Error. */
  void convert (ElementDevice & device, const GstOpenCLFrame & in, const GstOpenCLFrame & out,
      ScaleMethod method = ScaleMethod::Bilinear, bool add_borders = false,
      const PixelRect * crop = nullptr);

  /* Enqueues the conversion of `in` into `out`, a buffer of at least the configured tensor's
   * bytes, values normalised by `norm`; borders (with `add_borders`) are RGB 0 normalised;
   * `crop` as for convert (). Throws cl::Error. */
  void convert_tensor (ElementDevice & device, const GstOpenCLFrame & in, const cl::Buffer & out,
      const TensorNormalisation & norm, ScaleMethod method = ScaleMethod::Bilinear,
      bool add_borders = false, const PixelRect * crop = nullptr);

private:
  GstVideoInfo in_ {}, out_ {};
  /* A tensor output: the map from input codes to 8-bit R, G, B (rows of three factors and an
   * offset, in double precision), before the normalisation of each frame's settings. */
  bool tensor_ = false;
  std::array<std::array<double, 4>, 3> rgb_map_ {};
  /* The general kernel: convert_scale (every method) and convert_scale_taps (nearest and
   * bilinear only, without the other methods' code: fewer registers on a GPU). Arguments that
   * depend only on the configuration are set on both; a frame's, on the one it runs. */
  std::array<cl::Kernel, 2> general_;
  cl::NDRange global_;
  /* The work-group of every launch: the driver's (NullRange), or GST_OPENCL_CONVERT_GROUP's
   * N x 1, the global sizes then rounded up to it (the kernels skip work-items past the
   * frame). */
  cl_uint group_ = 0;
  void launch (ElementDevice & device, cl::Kernel & kernel, const cl::NDRange & global);
  /* The general kernel's tap tables (nearest, bilinear): made at configure (), filled when the
   * picture's rectangle, the crop or the method changes, not per frame. A new table is written
   * without a host wait, from one of two host copies kept for it (TapUploads). */
  cl::Buffer taps_;
  struct TapUploads;
  std::unique_ptr<TapUploads> tap_uploads_;
  cl_int tx_count_ = 0, ty_count_ = 0;
  struct TapsKey
  {
    PixelRect rect, source;
    ScaleMethod method;
    bool operator== (const TapsKey & o) const;
  };
  bool taps_filled_ = false;
  TapsKey taps_key_ {};

  void fill_taps (ElementDevice & device, const TapsKey & key);
  /* The general kernel's launch size and tap tables for the configured output. */
  void set_up_general (Device & device);
  /* The general kernel that runs `method`. */
  cl::Kernel & general (ScaleMethod method);
  /* The general kernel on `in` (the picture: `source`), its output arguments set. */
  void launch_general (ElementDevice & device, const GstOpenCLFrame & in, ScaleMethod method,
      bool add_borders, const PixelRect & source);
  /* The unscaled kernels (convert_unscaled_nearest, _bilinear), where configure () found the
   * pair, sizes and device eligible; convert () takes them for the frames whose picture fills
   * the output, whose method is nearest or bilinear and whose packed rows are aligned. */
  cl::Kernel unscaled_[2];
  cl::NDRange unscaled_global_;

  bool takes_unscaled (const GstOpenCLFrame & in, const GstOpenCLFrame & out,
      ScaleMethod method, bool add_borders, const PixelRect & picture) const;
  /* The halving kernel (halve_packed), where configure () found the pair and sizes eligible:
   * 8-bit RGBA or BGRA to itself through the identity map, each side half the input's;
   * convert () takes it for bilinear frames whose picture is the whole input and output. */
  cl::Kernel halve_;
  cl::NDRange halve_global_;
  bool takes_halve (const GstOpenCLFrame & in, const GstOpenCLFrame & out, ScaleMethod method,
      bool add_borders, const PixelRect & picture) const;
  void convert_unscaled (ElementDevice & device, const GstOpenCLFrame & in,
      const GstOpenCLFrame & out, ScaleMethod method);
};

}  // namespace gst_opencl
