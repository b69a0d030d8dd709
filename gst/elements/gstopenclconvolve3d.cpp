/* gst-opencl: openclconvolve3d, a convolution over x, y and time.
 * SPDX-License-Identifier: LGPL-2.1-or-later */

/**
 * SECTION:element-openclconvolve3d
 * @title: openclconvolve3d
 *
 * Filters a video with a kernel-width x kernel-height x kernel-depth kernel whose third axis is
 * time: output frame n is the correlation of input frames n - d .. n + d,
 * d = (kernel-depth - 1) / 2, with the kernel (centred, same size, every border clamped to the
 * edge; the first frame stands for the frames before it and, at EOS, the last for the frames
 * after it). This is what scipy.ndimage.correlate (..., mode='nearest') computes on the stack
 * of frames. Colour channels are filtered alike; alpha (or the x byte) comes from frame n.
 * YUV frames (I420, NV12, P010_10LE) have every plane filtered on its own at its own size
 * (chroma rounded up) with the same taps; NV12's and P010's UV plane as two channels filtered
 * alike. 16-bit samples (GRAY16_LE, RGBA64_LE) are rounded and saturated to 0..65535; P010's
 * words to the nearest multiple of 64 (the 10-bit value, low 6 bits 0).
 * Output n keeps input n's timestamps and leaves the element once input n + d has arrived, so
 * the element adds d frames of latency. Separable kernels (the presets, and custom kernels
 * that factor within float tolerance) run as three 1D passes.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 videotestsrc pattern=snow ! video/x-raw,format=RGBA ! \
 *     openclconvolve3d kernel-depth=5 sigma-t=1.5 ! videoconvert ! autovideosink
 * gst-launch-1.0 videotestsrc ! video/x-raw,format=GRAY8 ! openclconvolve3d preset=custom \
 *     kernel-width=3 kernel-height=1 kernel-depth=3 \
 *     kernel="<0,0,0, -1,2,-1, 0,0,0>" normalize=false ! videoconvert ! autovideosink
 * ]|
 */
#include "elements/gstopenclconvolve3d.h"

#include <algorithm>
#include <cmath>
#include <mutex>
#include <new>
#include <vector>

#include "opencl/gstopenclconvolution.h"
#include "opencl/gstopenclproperties.h"
#include "opencl/gstopenclutils.h"

GST_DEBUG_CATEGORY_STATIC (gst_opencl_convolve3d_debug);
#define GST_CAT_DEFAULT gst_opencl_convolve3d_debug

namespace {

enum class Preset : int { Gaussian = 0, Box = 1, Custom = 2 };

constexpr int DEFAULT_KERNEL_WIDTH = 5;
constexpr int DEFAULT_KERNEL_HEIGHT = 5;
constexpr int DEFAULT_KERNEL_DEPTH = 3;
constexpr int MAX_KERNEL_SIZE = 15;
constexpr Preset DEFAULT_PRESET = Preset::Gaussian;
constexpr double DEFAULT_SIGMA = 1.0;
constexpr double MIN_SIGMA = 0.01;
constexpr double MAX_SIGMA = 100.0;
constexpr bool DEFAULT_NORMALIZE = true;

struct Settings
{
  int width = DEFAULT_KERNEL_WIDTH;
  int height = DEFAULT_KERNEL_HEIGHT;
  int depth = DEFAULT_KERNEL_DEPTH;
  Preset preset = DEFAULT_PRESET;
  double sigma_xy = DEFAULT_SIGMA;
  double sigma_t = DEFAULT_SIGMA;
  std::vector<float> kernel;
  bool normalize = DEFAULT_NORMALIZE;
};

/* One plane of the frame and the passes that filter it (its own programs: the channel count
 * differs between NV12's planes). Offsets and strides in elements of the sample type (bytes
 * or ushorts) for the ring and the output, floats for the float ring. */
struct Plane
{
  int width = 0, height = 0;
  int channels = 1;
  cl_int ring_offset = 0;      /* where the plane starts in ring slot 0 */
  cl_int ring_row_stride = 0;
  /* Non-separable: one pass over the ring. */
  gst_opencl::Convolution direct;
  /* Separable: x then y per input frame into the float ring, t per output frame. */
  gst_opencl::Convolution pass_x, pass_y, pass_t;
  cl_int float_offset = 0;     /* the plane's slot_count frames in the float ring */
  cl_int float_row_stride = 0;
  cl_int float_slot_stride = 0;
};

struct State
{
  bool separable = false;
  int sample_bytes = 1;        /* 2 for 16-bit samples (GRAY16, RGBA64, P010) */
  int out_shift = 0;           /* low bits of each 16-bit output sample left 0 (P010: 6) */
  cl_int ring_slot_stride = 0; /* elements between ring slots */
  std::vector<Plane> planes;
  cl::Buffer float_ring;       /* every plane's slot_count float frames, plane after plane */
  cl::Buffer float_scratch;    /* the x pass's output, one frame of the largest plane */
};

/* Samples of exp (-x^2 / (2 sigma^2)) at the taps of an odd size. */
std::vector<double>
gaussian (int size, double sigma)
{
  std::vector<double> values (size);
  const int centre = (size - 1) / 2;
  for (int i = 0; i < size; i++)
    values[i] = std::exp (-(double) ((i - centre) * (i - centre)) / (2.0 * sigma * sigma));
  return values;
}

void
check_size (const char *name, int size)
{
  if (size < 1 || size > MAX_KERNEL_SIZE || size % 2 == 0)
    throw gst_opencl::Failure (gst_opencl::Failure::Kind::Settings, std::string (name) +
        " must be odd, 1 .. 15, not " + std::to_string (size));
}

/* The taps, x fastest, then y, then t (t = 0 the oldest frame), normalized when asked. */
std::vector<float>
make_taps (const Settings & s)
{
  check_size ("kernel-width", s.width);
  check_size ("kernel-height", s.height);
  check_size ("kernel-depth", s.depth);
  const size_t count = (size_t) s.width * s.height * s.depth;
  std::vector<double> taps (count, 1.0);
  if (s.preset == Preset::Gaussian) {
    auto gx = gaussian (s.width, s.sigma_xy);
    auto gy = gaussian (s.height, s.sigma_xy);
    auto gt = gaussian (s.depth, s.sigma_t);
    for (int l = 0; l < s.depth; l++)
      for (int j = 0; j < s.height; j++)
        for (int i = 0; i < s.width; i++)
          taps[((size_t) l * s.height + j) * s.width + i] = gx[i] * gy[j] * gt[l];
  } else if (s.preset == Preset::Custom) {
    if (s.kernel.size () != count)
      throw gst_opencl::Failure (gst_opencl::Failure::Kind::Settings, "kernel has " +
          std::to_string (s.kernel.size ()) + " values but kernel-width x kernel-height x "
          "kernel-depth = " + std::to_string (s.width) + "x" + std::to_string (s.height) + "x" +
          std::to_string (s.depth) + " needs " + std::to_string (count));
    for (size_t t = 0; t < count; t++) {
      if (!std::isfinite (s.kernel[t]))
        throw gst_opencl::Failure (gst_opencl::Failure::Kind::Settings,
            "kernel value " + std::to_string (t) + " is not a finite number");
      taps[t] = s.kernel[t];
    }
  }
  double sum = 0.0;
  for (double v : taps)
    sum += v;
  const bool divide = s.normalize && std::fabs (sum) > 1e-12;
  std::vector<float> result (count);
  for (size_t t = 0; t < count; t++)
    result[t] = (float) (divide ? taps[t] / sum : taps[t]);
  return result;
}

}  // namespace

using GstOpenCLConvolve3DImpl = gst_opencl::ElementImpl<Settings, State>;

GST_OPENCL_DEFINE_ELEMENT (GstOpenCLConvolve3D, gst_opencl_convolve3d, GstOpenCLTemporalFilter,
    GST_TYPE_OPENCL_TEMPORAL_FILTER, GstOpenCLConvolve3DImpl, openclconvolve3d,
    GST_TYPE_OPENCL_CONVOLVE3D);

GType
gst_opencl_convolve3d_preset_get_type (void)
{
  return gst_opencl::enum_type ("GstOpenCLConvolve3DPreset", {
        { (gint) Preset::Gaussian, "Gaussian of sigma-xy in x and y and sigma-t in time",
        "gaussian" },
        { (gint) Preset::Box, "Every tap equal (a mean when normalized)", "box" },
        { (gint) Preset::Custom, "The taps of the kernel property", "custom" },
      });
}

static guint
gst_opencl_convolve3d_get_radius (GstOpenCLTemporalFilter * filter)
{
  auto *impl = GST_OPENCL_CONVOLVE3D (filter)->impl;
  std::lock_guard<std::mutex> lock (impl->lock);
  int depth = CLAMP (impl->settings.depth, 1, MAX_KERNEL_SIZE);
  return (guint) (depth - 1) / 2;
}

/* The planes of `info` as the passes see them: each plane's size (chroma rounded up), its
 * samples per pixel and where it lies in a ring slot. */
static void
describe_planes (State & state, const GstVideoInfo * info, const GstOpenCLFrameRing * ring)
{
  const GstVideoFormat format = GST_VIDEO_INFO_FORMAT (info);
  state.sample_bytes = format == GST_VIDEO_FORMAT_GRAY16_LE ||
      format == GST_VIDEO_FORMAT_RGBA64_LE || format == GST_VIDEO_FORMAT_P010_10LE ? 2 : 1;
  state.out_shift = format == GST_VIDEO_FORMAT_P010_10LE ? 6 : 0;
  state.ring_slot_stride = (cl_int) (ring->slot_bytes / state.sample_bytes);
  state.planes = std::vector<Plane> (GST_VIDEO_INFO_N_PLANES (info));
  for (guint p = 0; p < state.planes.size (); p++) {
    guint component = 0;
    while (GST_VIDEO_INFO_COMP_PLANE (info, component) != p)
      component++;
    Plane & plane = state.planes[p];
    plane.width = GST_VIDEO_INFO_COMP_WIDTH (info, component);
    plane.height = GST_VIDEO_INFO_COMP_HEIGHT (info, component);
    /* RGBx's x byte counts: the pixel is four samples, the fourth copied. */
    plane.channels = GST_VIDEO_INFO_COMP_PSTRIDE (info, component) / state.sample_bytes;
    plane.ring_offset = (cl_int) (GST_VIDEO_INFO_PLANE_OFFSET (&ring->info, p) /
        state.sample_bytes);
    plane.ring_row_stride = GST_VIDEO_INFO_PLANE_STRIDE (&ring->info, p) / state.sample_bytes;
  }
}

/* The pass that writes output pixels, from the ring (direct) or from the float ring (t). */
static gst_opencl::ConvolutionSpec
output_spec (const State & state, const Plane & plane)
{
  gst_opencl::ConvolutionSpec spec;
  spec.channels = plane.channels;
  spec.temporal = true;
  spec.short_input = state.sample_bytes == 2;
  if (state.sample_bytes == 2) {
    spec.output = gst_opencl::ConvolutionSpec::Output::ShortPixels;
    spec.out_shift = state.out_shift;
  } else {
    spec.output = gst_opencl::ConvolutionSpec::Output::BytePixels;
    spec.out_pixel_bytes = plane.channels;
  }
  spec.copy_alpha = plane.channels == 4;
  return spec;
}

/* The separable passes of every plane and the float frames between them. */
static void
configure_separable (State & state, gst_opencl::Device & device, const Settings & settings,
    const gst_opencl::SeparableFactors & factors, guint slot_count)
{
  size_t ring_floats = 0, scratch_floats = 0;
  for (Plane & plane : state.planes) {
    /* t pass: the float ring to pixels. */
    gst_opencl::ConvolutionSpec spec = output_spec (state, plane);
    spec.kz = settings.depth;
    spec.float_input = true;
    spec.short_input = false;
    plane.pass_t.configure (device, spec, factors.z);
    /* x pass: one ring slot to the scratch frame; y pass: scratch to a float ring slot. */
    gst_opencl::ConvolutionSpec spatial;
    spatial.channels = plane.channels;
    spatial.output = gst_opencl::ConvolutionSpec::Output::FloatPixels;
    spatial.kx = settings.width;
    spatial.temporal = true;
    spatial.short_input = state.sample_bytes == 2;
    plane.pass_x.configure (device, spatial, factors.x);
    spatial.kx = 1;
    spatial.ky = settings.height;
    spatial.temporal = false;
    spatial.float_input = true;
    spatial.short_input = false;
    plane.pass_y.configure (device, spatial, factors.y);

    plane.float_row_stride = plane.width * plane.channels;
    plane.float_slot_stride = plane.float_row_stride * plane.height;
    plane.float_offset = (cl_int) ring_floats;
    ring_floats += (size_t) plane.float_slot_stride * slot_count;
    scratch_floats = std::max (scratch_floats, (size_t) plane.float_slot_stride);
  }
  const size_t ring_bytes = ring_floats * sizeof (float);
  if (ring_bytes > device.max_alloc_bytes || ring_floats > (size_t) G_MAXINT32)
    throw gst_opencl::Failure (gst_opencl::Failure::Kind::TooLarge, "the float frames of "
        "the separable passes (" + std::to_string (slot_count) + " frames, " +
        std::to_string (ring_bytes) + " bytes) exceed the largest buffer " + device.name +
        " can allocate (" + std::to_string (device.max_alloc_bytes) + " bytes)");
  state.float_ring = cl::Buffer (device.context, CL_MEM_READ_WRITE | CL_MEM_HOST_NO_ACCESS,
      ring_bytes);
  state.float_scratch = cl::Buffer (device.context, CL_MEM_READ_WRITE |
      CL_MEM_HOST_NO_ACCESS, scratch_floats * sizeof (float));
}

static gboolean
gst_opencl_convolve3d_set_info (GstOpenCLTemporalFilter * filter,
    gst_opencl::ElementDevice & element, const GstVideoInfo * info,
    const GstOpenCLFrameRing * ring)
{
  auto *impl = GST_OPENCL_CONVOLVE3D (filter)->impl;
  return GST_OPENCL_GUARD (filter, "cannot set up the convolution", [&]() {
    Settings settings;
    {
      std::lock_guard<std::mutex> lock (impl->lock);
      settings = impl->settings;
    }
    auto & device = element.device ();
    State & state = impl->state;
    state = State ();
    describe_planes (state, info, ring);
    std::vector<float> taps = make_taps (settings);
    auto factors = gst_opencl::separate (taps, settings.width, settings.height,
        settings.depth);
    state.separable = factors.has_value ();
    if (state.separable) {
      configure_separable (state, device, settings, *factors, ring->slot_count);
      GST_INFO_OBJECT (filter, "%dx%dx%d kernel, separable: three 1D passes per plane",
          settings.width, settings.height, settings.depth);
      return;
    }
    for (Plane & plane : state.planes) {
      gst_opencl::ConvolutionSpec spec = output_spec (state, plane);
      spec.kx = settings.width;
      spec.ky = settings.height;
      spec.kz = settings.depth;
      plane.direct.configure (device, spec, taps);
    }
    GST_INFO_OBJECT (filter, "%dx%dx%d kernel, direct", settings.width, settings.height,
        settings.depth);
  });
}

static gboolean
gst_opencl_convolve3d_frame_uploaded (GstOpenCLTemporalFilter * filter,
    gst_opencl::ElementDevice & element, const GstOpenCLFrameRing * ring, guint slot)
{
  auto *impl = GST_OPENCL_CONVOLVE3D (filter)->impl;
  State & state = impl->state;
  if (!state.separable)
    return TRUE;
  return GST_OPENCL_GUARD (filter, "convolution failed", [&]() {
    for (Plane & plane : state.planes) {
      gst_opencl::ConvolutionArgs x;
      x.src = &ring->buffer;
      x.src_offset = plane.ring_offset;
      x.src_row_stride = plane.ring_row_stride;
      x.src_plane_stride = state.ring_slot_stride;
      x.slots.s[0] = (cl_int) slot;
      x.dst = &state.float_scratch;
      x.dst_row_stride = plane.float_row_stride;
      x.dst_plane_stride = plane.float_slot_stride;
      x.width = plane.width;
      x.height = plane.height;
      plane.pass_x.run (element, x);

      gst_opencl::ConvolutionArgs y;
      y.src = &state.float_scratch;
      y.src_row_stride = plane.float_row_stride;
      y.src_plane_stride = plane.float_slot_stride;
      y.dst = &state.float_ring;
      y.dst_offset = plane.float_offset + (cl_int) slot * plane.float_slot_stride;
      y.dst_row_stride = plane.float_row_stride;
      y.dst_plane_stride = plane.float_slot_stride;
      y.width = plane.width;
      y.height = plane.height;
      plane.pass_y.run (element, y);
    }
  });
}

/* Plane `p` of the output frame in elements of the sample type. */
static void
set_output_plane (gst_opencl::ConvolutionArgs & args, const State & state,
    const GstOpenCLFrame * out, guint p)
{
  const gsize offset = GST_VIDEO_INFO_PLANE_OFFSET (&out->info, p);
  const gint stride = GST_VIDEO_INFO_PLANE_STRIDE (&out->info, p);
  if (offset % state.sample_bytes != 0 || stride % state.sample_bytes != 0)
    throw gst_opencl::Failure (gst_opencl::Failure::Kind::Failed, "output plane " +
        std::to_string (p) + " (offset " + std::to_string (offset) + ", stride " +
        std::to_string (stride) + " bytes) is not aligned to its 16-bit samples");
  args.dst = &out->buffer;
  args.dst_offset = (cl_int) (offset / state.sample_bytes);
  args.dst_row_stride = stride / state.sample_bytes;
  args.dst_plane_stride = 0;
}

static gboolean
gst_opencl_convolve3d_process (GstOpenCLTemporalFilter * filter,
    gst_opencl::ElementDevice & element,
    const GstOpenCLFrameRing * ring, const guint * slots, const GstOpenCLFrame * out)
{
  auto *impl = GST_OPENCL_CONVOLVE3D (filter)->impl;
  State & state = impl->state;
  return GST_OPENCL_GUARD (filter, "convolution failed", [&]() {
    for (guint p = 0; p < state.planes.size (); p++) {
      Plane & plane = state.planes[p];
      gst_opencl::ConvolutionArgs args;
      for (guint l = 0; l < ring->slot_count; l++)
        args.slots.s[l] = (cl_int) slots[l];
      set_output_plane (args, state, out, p);
      args.width = plane.width;
      args.height = plane.height;
      /* Only single-plane formats have four samples a pixel: their alpha is at offset 0. */
      args.alpha_src = &ring->buffer;
      args.alpha_row_stride = GST_VIDEO_INFO_PLANE_STRIDE (&ring->info, p);
      args.alpha_plane_stride = (cl_int) ring->slot_bytes;
      if (state.separable) {
        args.src = &state.float_ring;
        args.src_offset = plane.float_offset;
        args.src_row_stride = plane.float_row_stride;
        args.src_plane_stride = plane.float_slot_stride;
        plane.pass_t.run (element, args);
      } else {
        args.src = &ring->buffer;
        args.src_offset = plane.ring_offset;
        args.src_row_stride = plane.ring_row_stride;
        args.src_plane_stride = state.ring_slot_stride;
        plane.direct.run (element, args);
      }
    }
  });
}

static void
gst_opencl_convolve3d_class_init (GstOpenCLConvolve3DClass * klass)
{
  auto *temporal_class = GST_OPENCL_TEMPORAL_FILTER_CLASS (klass);

  auto properties = gst_opencl::element_class_begin<GstOpenCLConvolve3D> (klass, GST_CAT_DEFAULT,
      "openclconvolve3d", "OpenCL spatio-temporal convolution");

  /* PROPERTY_READY: the window and the float frames are sized from these when caps are set. */
  /**
   * GstOpenCLConvolve3D:kernel-width:
   *
   * Taps along x (odd, 1 .. 15).
   */
  properties.add (g_param_spec_int ("kernel-width", "Kernel width", "Taps along x (odd)", 1,
      MAX_KERNEL_SIZE, DEFAULT_KERNEL_WIDTH, gst_opencl::PROPERTY_READY), &Settings::width);
  /**
   * GstOpenCLConvolve3D:kernel-height:
   *
   * Taps along y (odd, 1 .. 15).
   */
  properties.add (g_param_spec_int ("kernel-height", "Kernel height", "Taps along y (odd)", 1,
      MAX_KERNEL_SIZE, DEFAULT_KERNEL_HEIGHT, gst_opencl::PROPERTY_READY), &Settings::height);
  /**
   * GstOpenCLConvolve3D:kernel-depth:
   *
   * Taps along time, in frames (odd, 1 .. 15): the window is the output frame and
   * (kernel-depth - 1) / 2 frames on each side, which is also the latency in frames.
   */
  properties.add (g_param_spec_int ("kernel-depth", "Kernel depth",
      "Taps along time in frames (odd); (depth - 1) / 2 frames of latency", 1,
      MAX_KERNEL_SIZE, DEFAULT_KERNEL_DEPTH, gst_opencl::PROPERTY_READY), &Settings::depth);
  /**
   * GstOpenCLConvolve3D:preset:
   *
   * Where the taps come from: a Gaussian (sigma-xy, sigma-t), a box, or the kernel property.
   */
  properties.add (g_param_spec_enum ("preset", "Preset", "Where the taps come from",
      GST_TYPE_OPENCL_CONVOLVE3D_PRESET, (gint) DEFAULT_PRESET, gst_opencl::PROPERTY_READY),
      &Settings::preset);
  /**
   * GstOpenCLConvolve3D:sigma-xy:
   *
   * Standard deviation of the gaussian preset along x and y, in pixels.
   */
  properties.add (g_param_spec_double ("sigma-xy", "Sigma x/y",
      "Standard deviation of the gaussian preset along x and y in pixels", MIN_SIGMA,
      MAX_SIGMA, DEFAULT_SIGMA, gst_opencl::PROPERTY_READY), &Settings::sigma_xy);
  /**
   * GstOpenCLConvolve3D:sigma-t:
   *
   * Standard deviation of the gaussian preset along time, in frames.
   */
  properties.add (g_param_spec_double ("sigma-t", "Sigma t",
      "Standard deviation of the gaussian preset along time in frames", MIN_SIGMA,
      MAX_SIGMA, DEFAULT_SIGMA, gst_opencl::PROPERTY_READY), &Settings::sigma_t);
  /**
   * GstOpenCLConvolve3D:kernel:
   *
   * The taps of the custom preset: kernel-width x kernel-height x kernel-depth floats, x
   * fastest, then y, then t with t = 0 the oldest frame. Any other length is an error when the
   * stream starts.
   */
  properties.add (gst_opencl::float_array_spec ("kernel", "Kernel",
      "Taps of the custom preset: width x height x depth floats, x fastest, then y, then "
      "t (t = 0 the oldest frame)",
      gst_opencl::PROPERTY_READY), &Settings::kernel);
  /**
   * GstOpenCLConvolve3D:normalize:
   *
   * Divide the taps by their sum (when it is not 0), so flat areas keep their value.
   */
  properties.add (g_param_spec_boolean ("normalize", "Normalize",
      "Divide the taps by their sum when it is not 0", DEFAULT_NORMALIZE,
      gst_opencl::PROPERTY_READY),
      &Settings::normalize);
  /**
   * GstOpenCLConvolve3D:separable:
   *
   * Whether the running kernel factors into x, y and t and runs as three 1D passes (set when
   * caps are set).
   */
  properties.add_read_only (g_param_spec_boolean ("separable", "Separable",
      "Whether the running kernel is applied as three 1D passes (set with the caps)",
      FALSE, (GParamFlags) (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS)),
      [] (const GstOpenCLConvolve3DImpl & impl, GValue * value) {
        g_value_set_boolean (value, impl.state.separable);
      });

  gst_element_class_set_static_metadata (GST_ELEMENT_CLASS (klass),
      "OpenCL spatio-temporal convolution",
      "Filter/Effect/Video", "Convolves video over x, y and time on an OpenCL device",
      "gst-opencl developers");
  gst_opencl_temporal_filter_class_add_pad_templates (temporal_class, GST_OPENCL_FILTER_FORMATS, TRUE);

  temporal_class->get_radius = gst_opencl_convolve3d_get_radius;
  temporal_class->set_info = gst_opencl_convolve3d_set_info;
  temporal_class->frame_uploaded = gst_opencl_convolve3d_frame_uploaded;
  temporal_class->process = gst_opencl_convolve3d_process;

  gst_type_mark_as_plugin_api (GST_TYPE_OPENCL_CONVOLVE3D_PRESET, (GstPluginAPIFlags) 0);
}
