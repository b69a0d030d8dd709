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
 * ## Example launch lines
 * |[
 * gst-launch-1.0 videotestsrc ! video/x-raw,format=RGBA ! openclbilateral sigma-range=30 ! \
 *     videoconvert ! autovideosink
 * gst-launch-1.0 videotestsrc ! glupload ! openclbilateral ! glimagesink
 * ]|
 */
#include "elements/gstopenclbilateral.h"

#include <cmath>
#include <mutex>
#include <new>
#include <vector>

#include "opencl/gstopenclutils.h"

GST_DEBUG_CATEGORY_STATIC (gst_opencl_bilateral_debug);
#define GST_CAT_DEFAULT gst_opencl_bilateral_debug

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
  int channels = 0;
  int mode = -1;
  int radius = -1;
  bool operator== (const KernelKey & o) const
  {
    return channels == o.channels && mode == o.mode && radius == o.radius;
  }
};

struct State
{
  int channels = 0;
  cl_float4 luma {};
  KernelKey key;
  cl::Kernel kernel;
  size_t group_w = 16, group_h = 16, out_x = 2;
  bool tile_float = true;
  cl::Buffer spatial_log2;                /* (2 * MAX_RADIUS + 1)^2 floats, allocated once */
  std::vector<float> spatial_host;        /* source of the last non-blocking upload */
  double table_sigma = -1.0;
  int table_radius = -1;
};

}  // namespace

struct GstOpenCLBilateralImpl
{
  std::mutex lock;
  Settings settings;
  State state;
};

struct _GstOpenCLBilateral
{
  GstOpenCLFilter parent;
  GstOpenCLBilateralImpl *impl;
};

enum
{
  PROP_0,
  PROP_SIGMA_SPATIAL,
  PROP_SIGMA_RANGE,
  PROP_RADIUS,
  PROP_MODE,
};

#define FORMATS "RGBA, BGRA, RGBx, BGRx, GRAY8"

G_DEFINE_TYPE (GstOpenCLBilateral, gst_opencl_bilateral, GST_TYPE_OPENCL_FILTER);
GST_ELEMENT_REGISTER_DEFINE (openclbilateral, "openclbilateral", GST_RANK_NONE,
    GST_TYPE_OPENCL_BILATERAL);

GType
gst_opencl_bilateral_mode_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {(gint) Mode::Color, "One weight per neighbour from the Euclidean RGB distance", "color"},
    {(gint) Mode::Luma, "One weight per neighbour from the luma difference (fast)", "luma"},
    {(gint) Mode::PerChannel, "Each channel weighted by its own difference", "per-channel"},
    {0, nullptr, nullptr},
  };
  if (g_once_init_enter (&type)) {
    GType registered = g_enum_register_static ("GstOpenCLBilateralMode", values);
    g_once_init_leave (&type, registered);
  }
  return type;
}

static void
gst_opencl_bilateral_set_property (GObject * object, guint prop_id, const GValue * value,
    GParamSpec * pspec)
{
  auto *impl = GST_OPENCL_BILATERAL (object)->impl;
  std::lock_guard<std::mutex> lock (impl->lock);
  auto & s = impl->settings;
  switch (prop_id) {
    case PROP_SIGMA_SPATIAL:
      s.sigma_spatial = g_value_get_double (value);
      GST_DEBUG_OBJECT (object, "sigma-spatial %g", s.sigma_spatial);
      break;
    case PROP_SIGMA_RANGE:
      s.sigma_range = g_value_get_double (value);
      GST_DEBUG_OBJECT (object, "sigma-range %g", s.sigma_range);
      break;
    case PROP_RADIUS:
      s.radius = g_value_get_int (value);
      GST_DEBUG_OBJECT (object, "radius %d", s.radius);
      break;
    case PROP_MODE:
      s.mode = (Mode) g_value_get_enum (value);
      GST_DEBUG_OBJECT (object, "mode %d", (int) s.mode);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
gst_opencl_bilateral_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  auto *impl = GST_OPENCL_BILATERAL (object)->impl;
  std::lock_guard<std::mutex> lock (impl->lock);
  const auto & s = impl->settings;
  switch (prop_id) {
    case PROP_SIGMA_SPATIAL:
      g_value_set_double (value, s.sigma_spatial);
      break;
    case PROP_SIGMA_RANGE:
      g_value_set_double (value, s.sigma_range);
      break;
    case PROP_RADIUS:
      g_value_set_int (value, s.radius);
      break;
    case PROP_MODE:
      g_value_set_enum (value, (gint) s.mode);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static gboolean
gst_opencl_bilateral_set_info (GstOpenCLFilter * filter, const GstVideoInfo * in_info,
    const GstVideoInfo *)
{
  auto *impl = GST_OPENCL_BILATERAL (filter)->impl;
  return GST_OPENCL_GUARD (filter, "cannot set up the bilateral filter", [&]() {
    State & state = impl->state;
    auto format = GST_VIDEO_INFO_FORMAT (in_info);
    state.channels = format == GST_VIDEO_FORMAT_GRAY8 ? 1 : 4;
    bool bgr = format == GST_VIDEO_FORMAT_BGRA || format == GST_VIDEO_FORMAT_BGRx;
    state.luma = bgr ? cl_float4 { { 0.114f, 0.587f, 0.299f, 0.0f } } :
        cl_float4 { { 0.299f, 0.587f, 0.114f, 0.0f } };
    if (!state.spatial_log2 ()) {
      const size_t span = 2 * MAX_RADIUS + 1;
      state.spatial_log2 = cl::Buffer (gst_opencl_filter_device (filter).context,
          CL_MEM_READ_ONLY | CL_MEM_HOST_WRITE_ONLY, span * span * sizeof (float));
    }
    /* Kernels are (re)built lazily in process (), from the program cache. */
    state.key = KernelKey ();
  });
}

/* Picks the work-group shape and tile type for a radius: on GPUs a float tile (no conversion
 * per tap) when one fits local memory with groups of at least 8 rows, else a byte tile and the
 * tallest group whose tile fits. CPU devices keep bytes (local memory is ordinary memory there,
 * and the conversion vectorises). */
static void
choose_group (const gst_opencl::Device & device, int channels, int radius, State & state)
{
  state.group_w = 16;
  state.out_x = 2;
  /* GST_OPENCL_BILATERAL_TILE=float|byte forces a tile type: tests run the GPU's float tile
   * on CPU devices with it. */
  const char *forced = g_getenv ("GST_OPENCL_BILATERAL_TILE");
  const bool want_float = forced ? g_strcmp0 (forced, "float") == 0 :
      (device.type & CL_DEVICE_TYPE_GPU) != 0;
  for (bool tile_float : { true, false }) {
    if (tile_float && !want_float)
      continue;
    const size_t pixel_bytes = tile_float ? channels * sizeof (float) : channels;
    for (size_t group_h : { 16, 8, 4, 2, 1 }) {
      if (tile_float && group_h < 8)
        break;
      size_t tile_bytes = (state.group_w * state.out_x + 2 * radius) * (group_h + 2 * radius) *
          pixel_bytes;
      if (tile_bytes + 1024 <= device.local_mem_bytes &&
          state.group_w * group_h <= device.max_work_group_size) {
        state.group_h = group_h;
        state.tile_float = tile_float;
        return;
      }
    }
  }
  throw gst_opencl::Failure (gst_opencl::Failure::Kind::Settings,
      "radius " + std::to_string (radius) + " needs more local memory than " + device.name +
      " has");
}

static void
ensure_kernel (GstOpenCLFilter * filter, State & state, const Settings & settings)
{
  KernelKey key { state.channels, state.channels == 1 ? 0 : (int) settings.mode,
    effective_radius (settings) };
  if (key == state.key && state.kernel ())
    return;
  auto & device = gst_opencl_filter_device (filter);
  choose_group (device, key.channels, key.radius, state);
  const bool poly_exp2 = (device.type & CL_DEVICE_TYPE_CPU) != 0;
  gchar *options = g_strdup_printf ("-cl-mad-enable -DCHANNELS=%d -DMODE=%d -DRADIUS=%d "
      "-DGROUP_W=%zu -DGROUP_H=%zu -DOUT_X=%zu -DPOLY_EXP2=%d -DTILE_FLOAT=%d", key.channels,
      key.mode, key.radius, state.group_w, state.group_h, state.out_x, poly_exp2 ? 1 : 0,
      state.tile_float ? 1 : 0);
  std::string build_options (options);
  g_free (options);
  state.kernel = device.kernel ("bilateral", "bilateral", build_options);
  state.key = key;
  GST_DEBUG_OBJECT (filter, "kernel [%s]", build_options.c_str ());
}

/* log2 of the spatial weight per offset, so the kernel does exp2 (range + spatial) once. */
static void
ensure_spatial_table (GstOpenCLFilter * filter, State & state, const Settings & settings)
{
  int radius = state.key.radius;
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
  gst_opencl_filter_device (filter).queue.enqueueWriteBuffer (state.spatial_log2, CL_FALSE, 0,
      state.spatial_host.size () * sizeof (float), state.spatial_host.data ());
  state.table_radius = radius;
  state.table_sigma = settings.sigma_spatial;
}

static gboolean
gst_opencl_bilateral_process (GstOpenCLFilter * filter, const GstOpenCLFrame * in,
    const GstOpenCLFrame * out)
{
  auto *impl = GST_OPENCL_BILATERAL (filter)->impl;
  return GST_OPENCL_GUARD (filter, "bilateral filter failed", [&]() {
    Settings settings;
    {
      std::lock_guard<std::mutex> lock (impl->lock);
      settings = impl->settings;
    }
    State & state = impl->state;
    ensure_kernel (filter, state, settings);
    ensure_spatial_table (filter, state, settings);

    const int width = GST_VIDEO_INFO_WIDTH (&in->info);
    const int height = GST_VIDEO_INFO_HEIGHT (&in->info);
    const float range_scale = (float) (-M_LOG2E /
        (2.0 * settings.sigma_range * settings.sigma_range));
    cl::Kernel & kernel = state.kernel;
    kernel.setArg (0, in->buffer);
    kernel.setArg (1, (cl_int) GST_VIDEO_INFO_PLANE_STRIDE (&in->info, 0));
    kernel.setArg (2, out->buffer);
    kernel.setArg (3, (cl_int) GST_VIDEO_INFO_PLANE_STRIDE (&out->info, 0));
    kernel.setArg (4, (cl_int) width);
    kernel.setArg (5, (cl_int) height);
    kernel.setArg (6, state.spatial_log2);
    kernel.setArg (7, range_scale);
    kernel.setArg (8, state.luma);
    size_t columns = (width + state.out_x - 1) / state.out_x;
    gst_opencl_filter_launch (filter, kernel, cl::NDRange (columns, height),
        cl::NDRange (state.group_w, state.group_h));
  });
}

static void
gst_opencl_bilateral_init (GstOpenCLBilateral * self)
{
  self->impl = new GstOpenCLBilateralImpl ();
}

static void
gst_opencl_bilateral_finalize (GObject * object)
{
  delete GST_OPENCL_BILATERAL (object)->impl;
  G_OBJECT_CLASS (gst_opencl_bilateral_parent_class)->finalize (object);
}

static void
gst_opencl_bilateral_class_init (GstOpenCLBilateralClass * klass)
{
  auto *gobject_class = G_OBJECT_CLASS (klass);
  auto *element_class = GST_ELEMENT_CLASS (klass);
  auto *filter_class = GST_OPENCL_FILTER_CLASS (klass);

  GST_DEBUG_CATEGORY_INIT (gst_opencl_bilateral_debug, "openclbilateral", 0,
      "OpenCL bilateral filter");

  gobject_class->set_property = gst_opencl_bilateral_set_property;
  gobject_class->get_property = gst_opencl_bilateral_get_property;
  gobject_class->finalize = gst_opencl_bilateral_finalize;

  const auto flags = (GParamFlags) (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_CONTROLLABLE | GST_PARAM_MUTABLE_PLAYING);
  /**
   * GstOpenCLBilateral:sigma-spatial:
   *
   * Standard deviation of the spatial Gaussian, in pixels.
   */
  g_object_class_install_property (gobject_class, PROP_SIGMA_SPATIAL,
      g_param_spec_double ("sigma-spatial", "Spatial sigma",
          "Standard deviation of the spatial Gaussian in pixels", MIN_SIGMA,
          MAX_SIGMA_SPATIAL, DEFAULT_SIGMA_SPATIAL, flags));
  /**
   * GstOpenCLBilateral:sigma-range:
   *
   * Standard deviation of the range Gaussian in 8-bit intensity units (OpenCV's sigmaColor).
   */
  g_object_class_install_property (gobject_class, PROP_SIGMA_RANGE,
      g_param_spec_double ("sigma-range", "Range sigma",
          "Standard deviation of the range (colour) Gaussian in 8-bit intensity units",
          MIN_SIGMA, MAX_SIGMA_RANGE, DEFAULT_SIGMA_RANGE, flags));
  /**
   * GstOpenCLBilateral:radius:
   *
   * Half the window side: the window is (2 radius + 1)^2 pixels. 0 picks ceil(2 sigma-spatial),
   * at most 32.
   */
  g_object_class_install_property (gobject_class, PROP_RADIUS,
      g_param_spec_int ("radius", "Radius",
          "Window radius in pixels; 0 = automatic, ceil(2 x sigma-spatial) capped at 32",
          0, MAX_RADIUS, DEFAULT_RADIUS, flags));
  /**
   * GstOpenCLBilateral:mode:
   *
   * How the colour difference of RGB formats is measured. GRAY8 ignores it.
   */
  g_object_class_install_property (gobject_class, PROP_MODE,
      g_param_spec_enum ("mode", "Mode", "How colour differences are weighted (RGB formats)",
          GST_TYPE_OPENCL_BILATERAL_MODE, (gint) DEFAULT_MODE, flags));

  gst_element_class_set_static_metadata (element_class, "OpenCL bilateral filter",
      "Filter/Effect/Video", "Edge-preserving bilateral smoothing on an OpenCL device",
      "gst-opencl developers");
  gst_opencl_filter_class_add_pad_templates (filter_class, FORMATS, TRUE);

  filter_class->set_info = gst_opencl_bilateral_set_info;
  filter_class->process = gst_opencl_bilateral_process;

  gst_type_mark_as_plugin_api (GST_TYPE_OPENCL_BILATERAL_MODE, (GstPluginAPIFlags) 0);
}
