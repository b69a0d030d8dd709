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

struct State
{
  int channels = 1;
  bool separable = false;
  int width = 0, height = 0;
  /* Non-separable: one pass over the ring. */
  gst_opencl::Convolution direct;
  /* Separable: x then y per input frame into a float ring, t per output frame. */
  gst_opencl::Convolution pass_x, pass_y, pass_t;
  cl::Buffer float_ring;     /* slot_count frames of width x height x channels floats */
  cl::Buffer float_scratch;  /* the x pass's output */
  cl_int float_row_stride = 0;
  cl_int float_slot_stride = 0;
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

struct GstOpenCLConvolve3DImpl
{
  std::mutex lock;
  Settings settings;
  State state;

  void drop_run () { state = State (); }
};

struct _GstOpenCLConvolve3D
{
  GstOpenCLTemporalFilter parent;
  GstOpenCLConvolve3DImpl *impl;
};

#define FORMATS "RGBA, BGRA, RGBx, BGRx, GRAY8"

G_DEFINE_TYPE (GstOpenCLConvolve3D, gst_opencl_convolve3d, GST_TYPE_OPENCL_TEMPORAL_FILTER);
GST_ELEMENT_REGISTER_DEFINE (openclconvolve3d, "openclconvolve3d", GST_RANK_NONE,
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
    state.channels = GST_VIDEO_INFO_FORMAT (info) == GST_VIDEO_FORMAT_GRAY8 ? 1 : 4;
    state.width = GST_VIDEO_INFO_WIDTH (info);
    state.height = GST_VIDEO_INFO_HEIGHT (info);
    std::vector<float> taps = make_taps (settings);
    auto factors = gst_opencl::separate (taps, settings.width, settings.height,
        settings.depth);
    state.separable = factors.has_value ();

    gst_opencl::ConvolutionSpec spec;
    spec.channels = state.channels;
    spec.temporal = true;
    spec.output = gst_opencl::ConvolutionSpec::Output::BytePixels;
    spec.out_pixel_bytes = state.channels;
    spec.copy_alpha = state.channels == 4;
    if (!state.separable) {
      spec.kx = settings.width;
      spec.ky = settings.height;
      spec.kz = settings.depth;
      state.direct.configure (device, spec, taps);
      state.float_ring = cl::Buffer ();
      state.float_scratch = cl::Buffer ();
      GST_INFO_OBJECT (filter, "%dx%dx%d kernel, direct", spec.kx, spec.ky, spec.kz);
      return;
    }

    /* t pass: the float ring to pixels. */
    spec.kz = settings.depth;
    spec.float_input = true;
    state.pass_t.configure (device, spec, factors->z);
    /* x pass: one ring slot to the scratch frame; y pass: scratch to a float ring slot. */
    gst_opencl::ConvolutionSpec spatial;
    spatial.channels = state.channels;
    spatial.output = gst_opencl::ConvolutionSpec::Output::FloatPixels;
    spatial.kx = settings.width;
    spatial.temporal = true;
    state.pass_x.configure (device, spatial, factors->x);
    spatial.kx = 1;
    spatial.ky = settings.height;
    spatial.temporal = false;
    spatial.float_input = true;
    state.pass_y.configure (device, spatial, factors->y);

    state.float_row_stride = state.width * state.channels;
    state.float_slot_stride = state.float_row_stride * state.height;
    const size_t frame_bytes = (size_t) state.float_slot_stride * sizeof (float);
    if (frame_bytes * ring->slot_count > device.max_alloc_bytes ||
        (guint64) state.float_slot_stride * ring->slot_count > (guint64) G_MAXINT32)
      throw gst_opencl::Failure (gst_opencl::Failure::Kind::TooLarge, "the float frames of "
          "the separable passes (" + std::to_string (ring->slot_count) + " x " +
          std::to_string (frame_bytes) + " = " + std::to_string (frame_bytes *
              ring->slot_count) + " bytes) exceed the largest buffer " + device.name +
          " can allocate (" + std::to_string (device.max_alloc_bytes) + " bytes)");
    state.float_ring = cl::Buffer (device.context, CL_MEM_READ_WRITE | CL_MEM_HOST_NO_ACCESS,
        frame_bytes * ring->slot_count);
    state.float_scratch = cl::Buffer (device.context, CL_MEM_READ_WRITE |
        CL_MEM_HOST_NO_ACCESS, frame_bytes);
    GST_INFO_OBJECT (filter, "%dx%dx%d kernel, separable: three 1D passes", settings.width,
        settings.height, settings.depth);
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
    gst_opencl::ConvolutionArgs x;
    x.src = &ring->buffer;
    x.src_row_stride = GST_VIDEO_INFO_PLANE_STRIDE (&ring->info, 0);
    x.src_plane_stride = (cl_int) ring->slot_bytes;
    x.slots.s[0] = (cl_int) slot;
    x.dst = &state.float_scratch;
    x.dst_row_stride = state.float_row_stride;
    x.dst_plane_stride = state.float_slot_stride;
    x.width = state.width;
    x.height = state.height;
    state.pass_x.run (element, x);

    gst_opencl::ConvolutionArgs y;
    y.src = &state.float_scratch;
    y.src_row_stride = state.float_row_stride;
    y.src_plane_stride = state.float_slot_stride;
    y.dst = &state.float_ring;
    y.dst_offset = (cl_int) slot * state.float_slot_stride;
    y.dst_row_stride = state.float_row_stride;
    y.dst_plane_stride = state.float_slot_stride;
    y.width = state.width;
    y.height = state.height;
    state.pass_y.run (element, y);
  });
}

static gboolean
gst_opencl_convolve3d_process (GstOpenCLTemporalFilter * filter,
    gst_opencl::ElementDevice & element,
    const GstOpenCLFrameRing * ring, const guint * slots, const GstOpenCLFrame * out)
{
  auto *impl = GST_OPENCL_CONVOLVE3D (filter)->impl;
  State & state = impl->state;
  return GST_OPENCL_GUARD (filter, "convolution failed", [&]() {
    gst_opencl::ConvolutionArgs args;
    for (guint l = 0; l < ring->slot_count; l++)
      args.slots.s[l] = (cl_int) slots[l];
    args.dst = &out->buffer;
    args.dst_offset = (cl_int) GST_VIDEO_INFO_PLANE_OFFSET (&out->info, 0);
    args.dst_row_stride = GST_VIDEO_INFO_PLANE_STRIDE (&out->info, 0);
    args.dst_plane_stride = 0;
    args.width = state.width;
    args.height = state.height;
    args.alpha_src = &ring->buffer;
    args.alpha_row_stride = GST_VIDEO_INFO_PLANE_STRIDE (&ring->info, 0);
    args.alpha_plane_stride = (cl_int) ring->slot_bytes;
    if (state.separable) {
      args.src = &state.float_ring;
      args.src_row_stride = state.float_row_stride;
      args.src_plane_stride = state.float_slot_stride;
      state.pass_t.run (element, args);
    } else {
      args.src = &ring->buffer;
      args.src_row_stride = args.alpha_row_stride;
      args.src_plane_stride = args.alpha_plane_stride;
      state.direct.run (element, args);
    }
  });
}

static void
gst_opencl_convolve3d_init (GstOpenCLConvolve3D * self)
{
  self->impl = new GstOpenCLConvolve3DImpl ();
}

static void
gst_opencl_convolve3d_class_init (GstOpenCLConvolve3DClass * klass)
{
  auto *temporal_class = GST_OPENCL_TEMPORAL_FILTER_CLASS (klass);

  GST_DEBUG_CATEGORY_INIT (gst_opencl_convolve3d_debug, "openclconvolve3d", 0,
      "OpenCL spatio-temporal convolution");

  gst_opencl::stop_drops_run<GstOpenCLConvolve3D> (GST_BASE_TRANSFORM_CLASS (klass));

  /* PROPERTY_READY: the window and the float frames are sized from these when caps are set. */
  gst_opencl::ElementProperties<GstOpenCLConvolve3D> properties (G_OBJECT_CLASS (klass));
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
  gst_opencl_temporal_filter_class_add_pad_templates (temporal_class, FORMATS, TRUE);

  temporal_class->get_radius = gst_opencl_convolve3d_get_radius;
  temporal_class->set_info = gst_opencl_convolve3d_set_info;
  temporal_class->frame_uploaded = gst_opencl_convolve3d_frame_uploaded;
  temporal_class->process = gst_opencl_convolve3d_process;

  gst_type_mark_as_plugin_api (GST_TYPE_OPENCL_CONVOLVE3D_PRESET, (GstPluginAPIFlags) 0);
}
