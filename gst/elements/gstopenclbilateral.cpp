/* gst-opencl: openclbilateral, an edge-preserving bilateral filter.
 * SPDX-License-Identifier: LGPL-2.1-or-later */

/**
 * SECTION:element-openclbilateral
 * @title: openclbilateral
 *
 * Smooths a video while keeping its edges: each output pixel is the average of the pixels in a
 * (2 radius + 1)^2 square around it, weighted by their distance (sigma-spatial) and by how much
 * their colour differs from the centre's (sigma-range, in 8-bit units as OpenCV's sigmaColor).
 * Borders are clamped to the edge; alpha passes through. The kernel runs on any OpenCL device.
 *
 * On NV12, I420 and P010_10LE the luma plane is filtered as a gray frame (weights from luma)
 * and the chroma at its own size, U and V together, weighted by the distance of the (U, V) pair
 * (on the test frames of docs/openclbilateral.md this kept chroma edges better than weights from
 * each chroma value alone or from the co-sited luma). On 16-bit formats (GRAY16_LE, RGBA64_LE)
 * and P010's 10-bit codes, sigma-range keeps its 8-bit units: it is scaled to the depth (x257 at
 * 16 bits), and P010's results are 10-bit codes with the low 6 bits zero.
 *
 * Two kernels compute the filter: one in explicit 16-lane vectors for CPU devices and one with
 * a local-memory tile for GPUs. Their variants (vector width, work-group shape, tile type) are
 * timed on the first frame of each radius and mode on a device and the fastest is cached on disk;
 * GST_OPENCL_VARIANT_BILATERAL=<name> forces one and GST_OPENCL_TUNING=0 takes the device's
 * default (see docs/openclbilateral.md).
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 videotestsrc ! video/x-raw,format=RGBA ! openclbilateral sigma-range=30 ! \
 *     videoconvert ! autovideosink
 * gst-launch-1.0 videotestsrc ! glupload ! openclbilateral ! glimagesink
 * ]|
 */
#include "elements/gstopenclbilateral.h"
#include "elements/gstopenclbilateralvariants.h"

#include <algorithm>
#include <cmath>
#include <mutex>
#include <new>
#include <vector>

#include "opencl/gstopenclenv.h"
#include "opencl/gstopenclkernels.h"
#include "opencl/gstopenclprogram.h"
#include "opencl/gstopenclproperties.h"
#include "opencl/gstopencltuning.h"
#include "opencl/gstopenclutils.h"

GST_DEBUG_CATEGORY_STATIC (gst_opencl_bilateral_debug);
#define GST_CAT_DEFAULT gst_opencl_bilateral_debug

using gst_opencl_bilateral::BYTE_TILE_DEFAULT;
using gst_opencl_bilateral::FLOAT_TILE_DEFAULT;
using gst_opencl_bilateral::PixelLayout;
using gst_opencl_bilateral::Shape;
using gst_opencl_bilateral::VARIANTS;
using gst_opencl_bilateral::Variant;
using gst_opencl_bilateral::choose_group;
using gst_opencl_bilateral::global_size;

namespace {

enum class Mode : int { Color = 0, Luma = 1, PerChannel = 2 };

constexpr double DEFAULT_SIGMA_SPATIAL = 2.0;
constexpr double DEFAULT_SIGMA_RANGE = 25.0;
constexpr int DEFAULT_RADIUS = 0;
constexpr Mode DEFAULT_MODE = Mode::Color;
constexpr int MAX_RADIUS = 32;

constexpr double MIN_SIGMA = 0.01;
constexpr double MAX_SIGMA_SPATIAL = 1000.0;
constexpr double MAX_SIGMA_RANGE = 100000.0;

struct Settings
{
  double sigma_spatial = DEFAULT_SIGMA_SPATIAL;
  double sigma_range = DEFAULT_SIGMA_RANGE;
  int radius = DEFAULT_RADIUS;
  Mode mode = DEFAULT_MODE;
};

/* The radius the kernel runs with: the property, or ceil(2 sigma-spatial) capped at 32. */
int
effective_radius (const Settings & s)
{
  if (s.radius > 0)
    return s.radius;
  return (int) std::min<double> (MAX_RADIUS, std::ceil (2.0 * s.sigma_spatial));
}

/* What the built kernel depends on. */
struct KernelKey
{
  PixelLayout pixels;
  int mode = -1;
  int radius = -1;
  bool operator== (const KernelKey & o) const
  {
    return pixels == o.pixels && mode == o.mode && radius == o.radius;
  }
};

/* One plane of the format (two for a planar pair: `plane` and `second`) and the kernel slot that
 * filters it. */
struct PlaneJob
{
  guint plane = 0;
  PixelLayout pixels;
  size_t slot = 0;
  guint second = 0;
};

/* A kernel built for a key, rebuilt when the key changes. */
struct Slot
{
  KernelKey key;
  cl::Kernel kernel;
  size_t variant = 2;                     /* index into VARIANTS */
  Shape shape;
};

struct State
{
  cl_float4 luma {};
  std::vector<PlaneJob> planes;
  std::vector<Slot> slots;
  cl::Buffer spatial_log2;                /* (2 * MAX_RADIUS + 1)^2 floats, allocated once */
  std::vector<float> spatial_host;        /* source of the last non-blocking upload */
  double table_sigma = -1.0;
  int table_radius = -1;
};

/* The planes of a format and their pixels: packed RGB as one plane of 4 channels, gray as one
 * of 1, YUV as luma (1 channel) and a chroma pair (2: interleaved on NV12 and P010, U and V
 * planes together on I420, so chroma is weighted the same way on both). */
std::vector<PlaneJob>
plane_jobs (GstVideoFormat format)
{
  const PixelLayout rgba { 4, 8, 0 }, rgba64 { 4, 16, 0 }, gray8 { 1, 8, 0 },
      gray16 { 1, 16, 0 }, pair8 { 2, 8, 0 }, p010_luma { 1, 16, 6 }, p010_pair { 2, 16, 6 },
      planes_u_v { 2, 8, 0, true };
  switch (format) {
    case GST_VIDEO_FORMAT_GRAY8:
      return { { 0, gray8, 0 } };
    case GST_VIDEO_FORMAT_GRAY16_LE:
      return { { 0, gray16, 0 } };
    case GST_VIDEO_FORMAT_RGBA64_LE:
      return { { 0, rgba64, 0 } };
    case GST_VIDEO_FORMAT_I420:
      return { { 0, gray8, 0 }, { 1, planes_u_v, 1, 2 } };
    case GST_VIDEO_FORMAT_NV12:
      return { { 0, gray8, 0 }, { 1, pair8, 1 } };
    case GST_VIDEO_FORMAT_P010_10LE:
      return { { 0, p010_luma, 0 }, { 1, p010_pair, 1 } };
    default:
      return { { 0, rgba, 0 } };
  }
}

/* sigma-range is in 8-bit units: one of them is (2^depth - 1) / 255 codes of the plane's depth
 * (257 at 16 bits, 1023 / 255 for P010's 10-bit codes). */
double
range_unit (const PixelLayout & pixels)
{
  return (double) ((1 << (pixels.sample_bits - pixels.shift)) - 1) / 255.0;
}

}  // namespace

using GstOpenCLBilateralImpl = gst_opencl::ElementImpl<Settings, State>;

GST_OPENCL_DEFINE_ELEMENT (GstOpenCLBilateral, gst_opencl_bilateral, GstOpenCLFilter,
    GST_TYPE_OPENCL_FILTER, GstOpenCLBilateralImpl, openclbilateral, GST_TYPE_OPENCL_BILATERAL);

GType
gst_opencl_bilateral_mode_get_type (void)
{
  return gst_opencl::enum_type ("GstOpenCLBilateralMode", {
        { (gint) Mode::Color, "One weight per neighbour from the Euclidean RGB distance", "color" },
        { (gint) Mode::Luma, "One weight per neighbour from the luma difference (fast)", "luma" },
        { (gint) Mode::PerChannel, "Each channel weighted by its own difference", "per-channel" },
      });
}

static gboolean
gst_opencl_bilateral_set_info (GstOpenCLFilter * filter, gst_opencl::ElementDevice & device,
    const GstVideoInfo * in_info, const GstVideoInfo *)
{
  auto *impl = GST_OPENCL_BILATERAL (filter)->impl;
  return GST_OPENCL_GUARD (filter, "cannot set up the bilateral filter", [&]() {
    State & state = impl->state;
    auto format = GST_VIDEO_INFO_FORMAT (in_info);
    bool bgr = format == GST_VIDEO_FORMAT_BGRA || format == GST_VIDEO_FORMAT_BGRx;
    state.luma = bgr ? cl_float4 { { 0.114f, 0.587f, 0.299f, 0.0f } } :
        cl_float4 { { 0.299f, 0.587f, 0.114f, 0.0f } };
    if (!state.spatial_log2 ()) {
      const size_t span = 2 * MAX_RADIUS + 1;
      state.spatial_log2 = cl::Buffer (device.device ().context,
          CL_MEM_READ_ONLY | CL_MEM_HOST_WRITE_ONLY, span * span * sizeof (float));
    }
    state.planes = plane_jobs (format);
    /* Kernels are (re)built lazily in process (), from the program cache. */
    state.slots.assign (state.planes.back ().slot + 1, Slot ());
  });
}

/* Builds the kernel of one variant (from the program cache). */
static cl::Kernel
build_variant (GstOpenCLFilter * filter, const KernelKey & key, const Variant & variant,
    Shape * shape)
{
  auto & device = gst_opencl::device_of (filter).device ();
  *shape = choose_group (device, variant, key.pixels, key.radius);
  const std::string options = gst_opencl_bilateral::build_options (device, variant, *shape,
      key.pixels, key.mode, key.radius);
  GST_DEBUG_OBJECT (filter, "variant %s kernel [%s]", variant.name, options.c_str ());
  const char *file = variant.vector ? "bilateral_vec" : "bilateral";
  return device.kernel (file, file, options);
}

/* The width and height of a plane, in its own pixels. */
static void
plane_size (const GstVideoInfo * info, guint plane, int *width, int *height)
{
  /* Plane p of every format here starts with component p. */
  *width = GST_VIDEO_INFO_COMP_WIDTH (info, plane);
  *height = GST_VIDEO_INFO_COMP_HEIGHT (info, plane);
}

static void
set_arguments (cl::Kernel & kernel, const GstOpenCLFrame * in, const GstOpenCLFrame * out,
    const PlaneJob & job, int height, const State & state, const Settings & settings)
{
  const double sigma_range = settings.sigma_range * range_unit (job.pixels);
  const float range_scale = (float) (-M_LOG2E / (2.0 * sigma_range * sigma_range));
  int width, plane_height;
  plane_size (&in->info, job.plane, &width, &plane_height);
  gst_opencl::set_args (kernel, in->buffer,
      (cl_int) GST_VIDEO_INFO_PLANE_OFFSET (&in->info, job.plane),
      (cl_int) GST_VIDEO_INFO_PLANE_STRIDE (&in->info, job.plane), out->buffer,
      (cl_int) GST_VIDEO_INFO_PLANE_OFFSET (&out->info, job.plane),
      (cl_int) GST_VIDEO_INFO_PLANE_STRIDE (&out->info, job.plane), (cl_int) width,
      (cl_int) std::min (height, plane_height), state.spatial_log2, range_scale, state.luma);
  const guint second = job.pixels.planar ? job.second : job.plane;
  kernel.setArg (11, cl_int4 { { (cl_int) GST_VIDEO_INFO_PLANE_OFFSET (&in->info, second),
          GST_VIDEO_INFO_PLANE_STRIDE (&in->info, second),
          (cl_int) GST_VIDEO_INFO_PLANE_OFFSET (&out->info, second),
          GST_VIDEO_INFO_PLANE_STRIDE (&out->info, second) } });
}

/* Chooses the variant for the key (forced, cached, or timed on this frame: see
 * gst_opencl::choose_variant) and builds its kernel. */
static void
ensure_kernel (GstOpenCLFilter * filter, State & state, const Settings & settings,
    const KernelKey & key, const PlaneJob & job, const GstOpenCLFrame * in,
    const GstOpenCLFrame * out)
{
  Slot & slot = state.slots[job.slot];
  if (key == slot.key && slot.kernel ())
    return;
  auto & device = gst_opencl::device_of (filter).device ();
  const bool cpu = (device.type & CL_DEVICE_TYPE_CPU) != 0;
  const std::vector<size_t> order = gst_opencl_bilateral::candidate_order (device, key.pixels,
      key.radius);
  std::vector<gst_opencl::TuningCandidate> candidates;
  for (size_t i : order)
    candidates.push_back ({ VARIANTS[i].name, VARIANTS[i].vector == cpu });

  int width, height;
  plane_size (&in->info, job.plane, &width, &height);
  /* Timed on a band of the plane: enough rows to fill the device, few enough to stay quick. */
  const int rows = std::min (height, cpu ? 128 : 1024);
  auto time_one = [&](size_t candidate) -> double {
    const Variant & variant = VARIANTS[order[candidate]];
    Shape shape;
    cl::Kernel kernel = build_variant (filter, key, variant, &shape);
    set_arguments (kernel, in, out, job, rows, state, settings);
    cl::Event event;
    device.queue.enqueueNDRangeKernel (kernel, cl::NullRange, global_size (shape, width, rows),
        cl::NDRange (shape.group_w, shape.group_h), nullptr, &event);
    event.wait ();
    return gst_opencl::event_milliseconds (event);
  };
  const std::string sources = gst_opencl::kernel_source ("bilateral") + '\0' +
      gst_opencl::kernel_source ("bilateral_vec");
  gchar *tuning_key = g_strdup_printf ("channels %d bits %d shift %d planar %d mode %d "
      "radius %d source %016" G_GINT64_MODIFIER "x", key.pixels.channels,
      key.pixels.sample_bits, key.pixels.shift, (int) key.pixels.planar, key.mode, key.radius,
      (guint64) gst_opencl::stable_hash (sources));
  size_t chosen;
  try {
    /* GST_OPENCL_BILATERAL_TILE=float|byte (without GST_OPENCL_VARIANT_BILATERAL) picks the tiled
     * kernel's default shape with that tile, on any device: tests run the GPU's kernels on the
     * CPU with it. */
    using gst_opencl::env::Variable;
    const int tile = gst_opencl::env::word (Variable::BilateralTile);  /* float, byte */
    if (tile >= 0 && gst_opencl::env::variant ("bilateral").empty ()) {
      chosen = tile == 0 ? FLOAT_TILE_DEFAULT : BYTE_TILE_DEFAULT;
      gst_opencl::TuningChoice forced;
      forced.index = candidates.size ();
      forced.name = VARIANTS[chosen].name;
      forced.source = gst_opencl::TuningChoice::Source::Forced;
      gst_opencl::device_of (filter).post_variant ("bilateral", tuning_key, candidates, forced);
    } else {
      chosen = order[gst_opencl::device_of (filter).tune ("bilateral", tuning_key, candidates,
              time_one).index];
    }
  } catch (...) {
    g_free (tuning_key);
    throw;
  }
  g_free (tuning_key);
  slot.kernel = build_variant (filter, key, VARIANTS[chosen], &slot.shape);
  slot.variant = chosen;
  slot.key = key;
  GST_INFO_OBJECT (filter, "variant %s", VARIANTS[chosen].name);
}

/* log2 of the spatial weight per offset, so the kernel does exp2 (range + spatial) once. */
static void
ensure_spatial_table (GstOpenCLFilter * filter, State & state, const Settings & settings,
    int radius)
{
  if (state.table_radius == radius && state.table_sigma == settings.sigma_spatial)
    return;
  const int span = 2 * radius + 1;
  const double scale = -M_LOG2E / (2.0 * settings.sigma_spatial * settings.sigma_spatial);
  state.spatial_host.resize ((size_t) span * span);
  for (int dy = -radius; dy <= radius; dy++)
    for (int dx = -radius; dx <= radius; dx++)
      state.spatial_host[(dy + radius) * span + dx + radius] = (float) ((dx * dx + dy * dy) *
          scale);
  /* Not blocking: spatial_host is left alone until the frame's final read has completed. */
  gst_opencl::device_of (filter).queue ().enqueueWriteBuffer (state.spatial_log2, CL_FALSE, 0,
      state.spatial_host.size () * sizeof (float), state.spatial_host.data ());
  state.table_radius = radius;
  state.table_sigma = settings.sigma_spatial;
}

/* 16-bit samples are read as 16-bit words: their planes must start and their rows step on even
 * bytes. */
static void
check_alignment (const GstOpenCLFrame * frame, const PlaneJob & job)
{
  if (job.pixels.sample_bits != 16)
    return;
  const gsize offset = GST_VIDEO_INFO_PLANE_OFFSET (&frame->info, job.plane);
  const gint stride = GST_VIDEO_INFO_PLANE_STRIDE (&frame->info, job.plane);
  if (offset % 2 != 0 || stride % 2 != 0)
    throw gst_opencl::Failure (gst_opencl::Failure::Kind::Settings, "plane " +
        std::to_string (job.plane) + " of a 16-bit frame at offset " + std::to_string (offset) +
        " with rows of " + std::to_string (stride) + " bytes: 16-bit samples need even ones");
}

static gboolean
gst_opencl_bilateral_process (GstOpenCLFilter * filter, gst_opencl::ElementDevice & device,
    const GstOpenCLFrame * in, const GstOpenCLFrame * out)
{
  auto *impl = GST_OPENCL_BILATERAL (filter)->impl;
  return GST_OPENCL_GUARD (filter, "bilateral filter failed", [&]() {
    Settings settings;
    {
      std::lock_guard<std::mutex> lock (impl->lock);
      settings = impl->settings;
    }
    State & state = impl->state;
    const int radius = effective_radius (settings);
    ensure_spatial_table (filter, state, settings, radius);
    for (const PlaneJob & job : state.planes) {
      check_alignment (in, job);
      check_alignment (out, job);
      /* Modes are for RGB: gray planes have one difference, chroma pairs one per channel. */
      KernelKey key { job.pixels, job.pixels.channels == 4 ? (int) settings.mode : 0, radius };
      ensure_kernel (filter, state, settings, key, job, in, out);
      Slot & slot = state.slots[job.slot];
      int width, height;
      plane_size (&in->info, job.plane, &width, &height);
      set_arguments (slot.kernel, in, out, job, height, state, settings);
      device.launch (slot.kernel, global_size (slot.shape, width, height),
          cl::NDRange (slot.shape.group_w, slot.shape.group_h));
    }
  });
}

static void
gst_opencl_bilateral_class_init (GstOpenCLBilateralClass * klass)
{
  auto *filter_class = GST_OPENCL_FILTER_CLASS (klass);

  auto properties = gst_opencl::element_class_begin<GstOpenCLBilateral> (klass, GST_CAT_DEFAULT,
      "openclbilateral", "OpenCL bilateral filter");

  /**
   * GstOpenCLBilateral:sigma-spatial:
   *
   * Standard deviation of the spatial Gaussian, in pixels.
   */
  properties.add (g_param_spec_double ("sigma-spatial", "Spatial sigma",
      "Standard deviation of the spatial Gaussian in pixels", MIN_SIGMA,
      MAX_SIGMA_SPATIAL, DEFAULT_SIGMA_SPATIAL, gst_opencl::PROPERTY_CONTROLLABLE),
      &Settings::sigma_spatial);
  /**
   * GstOpenCLBilateral:sigma-range:
   *
   * Standard deviation of the range Gaussian in 8-bit intensity units (OpenCV's sigmaColor),
   * on every format: scaled to the samples' depth on 16-bit and 10-bit frames.
   */
  properties.add (g_param_spec_double ("sigma-range", "Range sigma",
      "Standard deviation of the range (colour) Gaussian in 8-bit intensity units, "
      "whatever the format's depth",
      MIN_SIGMA, MAX_SIGMA_RANGE, DEFAULT_SIGMA_RANGE, gst_opencl::PROPERTY_CONTROLLABLE),
      &Settings::sigma_range);
  /**
   * GstOpenCLBilateral:radius:
   *
   * Half the window side: the window is (2 radius + 1)^2 pixels. 0 picks ceil(2 sigma-spatial),
   * at most 32.
   */
  properties.add (g_param_spec_int ("radius", "Radius",
      "Window radius in pixels; 0 = automatic, ceil(2 x sigma-spatial) capped at 32",
      0, MAX_RADIUS, DEFAULT_RADIUS, gst_opencl::PROPERTY_CONTROLLABLE), &Settings::radius);
  /**
   * GstOpenCLBilateral:mode:
   *
   * How the colour difference of RGB formats (RGBA64_LE too) is measured. Gray and YUV formats
   * ignore it.
   */
  properties.add (g_param_spec_enum ("mode", "Mode",
      "How colour differences are weighted (RGB formats; gray and YUV ignore it)", GST_TYPE_OPENCL_BILATERAL_MODE,
      (gint) DEFAULT_MODE, gst_opencl::PROPERTY_CONTROLLABLE), &Settings::mode);

  gst_element_class_set_static_metadata (GST_ELEMENT_CLASS (klass), "OpenCL bilateral filter",
      "Filter/Effect/Video", "Edge-preserving bilateral smoothing on an OpenCL device",
      "gst-opencl developers");
  gst_opencl_filter_class_add_pad_templates (filter_class, GST_OPENCL_FILTER_FORMATS, TRUE);

  filter_class->set_info = gst_opencl_bilateral_set_info;
  filter_class->process = gst_opencl_bilateral_process;

  gst_type_mark_as_plugin_api (GST_TYPE_OPENCL_BILATERAL_MODE, (GstPluginAPIFlags) 0);
}
