/* gst-opencl: openclmandelboxsrc, a video source that ray-marches the Mandelbox.
 * SPDX-License-Identifier: LGPL-2.1-or-later */

/**
 * SECTION:element-openclmandelboxsrc
 * @title: openclmandelboxsrc
 *
 * Renders the Mandelbox fractal with a distance-estimator ray marcher on an OpenCL device, one
 * kernel launch per frame: box and sphere folds colour the surface, which is lit by an ambient
 * term and one point light. The camera orbits the origin (`yaw`, `pitch`, `distance`, `fov`);
 * with `animate` (the default) the yaw advances with the stream time at `rotation-speed` degrees
 * per second. Where a ray misses, the pixel is transparent black. With `animate=false` and the
 * other properties at their defaults, a square frame is the picture of the article "GPU
 * Computing with OpenCL" (eye at (0, 0, -15), view plane 10 units wide, light at (5, 5, -10)).
 * docs/openclmandelboxsrc.md defines the picture exactly.
 *
 * Frames come in RGBA, BGRA, RGBx and BGRx, rendered directly, or in NV12, I420, P010_10LE,
 * GRAY8, GRAY16_LE and RGBA64_LE: the RGBA picture converted on the device (as
 * openclconvertscale converts, with the negotiated colorimetry and chroma site), so an encoder
 * takes them without a copy through the host. They come in system or OpenCL memory, and in
 * CUDA memory (memory:CUDAMemory, copied on the device) where the device is NVIDIA's and
 * downstream asks for it.
 *
 * Every property but `device` and `is-live` may change while playing; the next frame uses it.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 openclmandelboxsrc ! video/x-raw,width=640,height=360 ! videoconvert ! \
 *     autovideosink
 * gst-launch-1.0 openclmandelboxsrc num-buffers=1 animate=false ! \
 *     video/x-raw,width=512,height=512 ! videoconvert ! pngenc ! filesink location=mandelbox.png
 * gst-launch-1.0 openclmandelboxsrc is-live=true ! glimagesink
 * gst-launch-1.0 openclmandelboxsrc num-buffers=150 ! video/x-raw,format=NV12 ! x264enc ! \
 *     h264parse ! mp4mux ! filesink location=mandelbox.mp4
 * ]|
 */
#include "elements/gstopenclmandelboxsrc.h"

#include <algorithm>
#include <cmath>
#include <mutex>
#include <string>
#include <vector>

#include "opencl/gstopenclproperties.h"
#include "opencl/gstopenclenv.h"
#include "opencl/gstopencltuning.h"
#include "opencl/gstopenclutils.h"

GST_DEBUG_CATEGORY_STATIC (gst_opencl_mandelbox_src_debug);
#define GST_CAT_DEFAULT gst_opencl_mandelbox_src_debug

namespace {

constexpr double DEFAULT_SCALE = 3.0;
constexpr int DEFAULT_ITERATIONS = 50;
constexpr int DEFAULT_STEPS = 100;
constexpr double DEFAULT_YAW = 0.0;
constexpr double DEFAULT_PITCH = 0.0;
constexpr double DEFAULT_DISTANCE = 15.0;
/* 2 atan (1/2) in degrees: the article's view plane, 10 units high and 10 units from the eye. */
constexpr double DEFAULT_FOV = 53.13010235415598;
constexpr double DEFAULT_LIGHT_X = 5.0;
constexpr double DEFAULT_LIGHT_Y = 5.0;
constexpr double DEFAULT_LIGHT_Z = -10.0;
constexpr gboolean DEFAULT_ANIMATE = TRUE;
constexpr double DEFAULT_ROTATION_SPEED = 10.0;

constexpr double MAX_ABS_SCALE = 10.0;
constexpr int MAX_ITERATIONS = 1000;
constexpr int MAX_STEPS = 10000;
constexpr double MIN_DISTANCE = 0.01;
constexpr double MAX_DISTANCE = 1000.0;
constexpr double MIN_FOV = 1.0;
constexpr double MAX_FOV = 179.0;
constexpr double MAX_ABS_LIGHT = 1000.0;
constexpr double MAX_ABS_ROTATION_SPEED = 3600.0;

/* Rays give up this far beyond the eye's distance: the article's 100 units at distance 15. */
constexpr double RAY_LENGTH_BEYOND_DISTANCE = 85.0;

/* The kernel's `order` argument. */
constexpr cl_int ORDER_RGB = 0;
constexpr cl_int ORDER_BGR = 1;

struct Settings
{
  double scale = DEFAULT_SCALE;
  int iterations = DEFAULT_ITERATIONS;
  int steps = DEFAULT_STEPS;
  double yaw = DEFAULT_YAW;
  double pitch = DEFAULT_PITCH;
  double distance = DEFAULT_DISTANCE;
  double fov = DEFAULT_FOV;
  double light[3] = { DEFAULT_LIGHT_X, DEFAULT_LIGHT_Y, DEFAULT_LIGHT_Z };
  bool animate = DEFAULT_ANIMATE;
  double rotation_speed = DEFAULT_ROTATION_SPEED;
};

/* The kernel variants (family "mandelbox"; GST_OPENCL_VARIANT_MANDELBOX=<name> forces one on any
 * device). `scalar` is one work-item per pixel, for GPUs. The `lanes-WxHxC` kernels, for CPU
 * devices, which cannot vectorise the scalar kernel's data-dependent loops across work-items
 * themselves, march W x H pixels per float vector (16 or 8 lanes) and C such vectors side by
 * side per work-item (a tile of W x HC pixels). */
struct Variant
{
  const char *name;
  int tile_width, vector_height, chains;    /* 1, 1, 0: the scalar kernel */
};
constexpr Variant VARIANTS[] = { { "scalar", 1, 1, 0 }, { "lanes-4x4x3", 4, 4, 3 },
  { "lanes-4x4x2", 4, 4, 2 }, { "lanes-4x4x1", 4, 4, 1 }, { "lanes-8x2x2", 8, 2, 2 },
  { "lanes-16x1x2", 16, 1, 2 }, { "lanes-4x2x2", 4, 2, 2 } };
/* A CPU device's variant follows the width of its native float vector
 * (CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT): 16-lane tiles where a vector holds 16 floats (AVX-512:
 * lanes-4x4x3 led there, tests/bench/results/cpu-pocl-mandelbox-variants.json), 8-lane tiles
 * otherwise (AVX2: lanes-4x2x2 ran at 9.0 fps against 6.1 for lanes-4x4x3 at 640x360; SSE and
 * NEON split them in two). GST_OPENCL_CPU_LANES=<n> stands in for the device's width (tests, and
 * comparisons on one machine). */
constexpr size_t CPU_WIDE = 1, CPU_NARROW = 6;
static_assert (VARIANTS[CPU_WIDE].tile_width == 4 && VARIANTS[CPU_WIDE].vector_height == 4 &&
    VARIANTS[CPU_WIDE].chains == 3, "CPU_WIDE is lanes-4x4x3");
static_assert (VARIANTS[CPU_NARROW].tile_width == 4 && VARIANTS[CPU_NARROW].vector_height == 2 &&
    VARIANTS[CPU_NARROW].chains == 2, "CPU_NARROW is lanes-4x2x2");

size_t
cpu_variant_for (const cl::Device & device)
{
  cl_uint lanes = device.getInfo<CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT> ();
  if (const guint64 forced = gst_opencl::env::number (gst_opencl::env::Variable::CpuLanes))
    lanes = (cl_uint) forced;
  return lanes >= 16 ? CPU_WIDE : CPU_NARROW;
}

struct State
{
  cl::Kernel kernel;
  int tile_width = 1, tile_height = 1;
  cl_int order = ORDER_RGB;
  cl_int opaque = 0;     /* RGBx/BGRx: the fourth byte is 255 everywhere */
  cl::NDRange group;
};

/* The camera of one frame, as the kernel takes it. */
struct Camera
{
  cl_float4 eye, forward, right, up;
};

cl_float4
to_float4 (double x, double y, double z)
{
  return cl_float4 { { (float) x, (float) y, (float) z, 0.0f } };
}

/* The orbit camera: at yaw = pitch = 0 the eye is at (0, 0, -distance) looking along +z with
 * +x right and +y up. Yaw turns the eye about the y axis (positive yaw moves it towards -x),
 * pitch raises it towards +y; it always looks at the origin. Right and up come scaled by
 * tan (fov / 2), so a pixel's ray is forward + u right + v up. */
Camera
make_camera (const Settings & s, double yaw_degrees)
{
  const double yaw = yaw_degrees * G_PI / 180.0;
  const double pitch = s.pitch * G_PI / 180.0;
  const double half_height = std::tan (s.fov * G_PI / 360.0);
  const double cy = std::cos (yaw), sy = std::sin (yaw);
  const double cp = std::cos (pitch), sp = std::sin (pitch);
  Camera camera;
  camera.eye = to_float4 (-s.distance * cp * sy, s.distance * sp, -s.distance * cp * cy);
  camera.forward = to_float4 (cp * sy, -sp, cp * cy);
  camera.right = to_float4 (cy * half_height, 0.0, -sy * half_height);
  camera.up = to_float4 (sp * sy * half_height, cp * half_height, sp * cy * half_height);
  return camera;
}

/* The yaw of the frame at `stream_time`: the property, plus the rotation when animated. */
double
frame_yaw (const Settings & s, GstClockTime stream_time)
{
  if (!s.animate || !GST_CLOCK_TIME_IS_VALID (stream_time))
    return s.yaw;
  double seconds = (double) stream_time / GST_SECOND;
  return std::fmod (s.yaw + s.rotation_speed * seconds, 360.0);
}

}  // namespace

using GstOpenCLMandelboxSrcImpl = gst_opencl::ElementImpl<Settings, State>;

#define FORMATS "RGBA, BGRA, RGBx, BGRx"

GST_OPENCL_DEFINE_ELEMENT (GstOpenCLMandelboxSrc, gst_opencl_mandelbox_src, GstOpenCLSrc,
    GST_TYPE_OPENCL_SRC, GstOpenCLMandelboxSrcImpl, openclmandelboxsrc,
    GST_TYPE_OPENCL_MANDELBOX_SRC);

static gboolean
gst_opencl_mandelbox_src_set_info (GstOpenCLSrc * src, gst_opencl::ElementDevice & element,
    const GstVideoInfo * info)
{
  auto *impl = GST_OPENCL_MANDELBOX_SRC (src)->impl;
  return GST_OPENCL_GUARD (src, "cannot set up the Mandelbox renderer", [&]() {
    State & state = impl->state;
    const auto format = GST_VIDEO_INFO_FORMAT (info);
    state.order = format == GST_VIDEO_FORMAT_BGRA || format == GST_VIDEO_FORMAT_BGRx ?
        ORDER_BGR : ORDER_RGB;
    state.opaque = format == GST_VIDEO_FORMAT_RGBx || format == GST_VIDEO_FORMAT_BGRx;
    auto & device = element.device ();
    /* One build for every setting (all are arguments); from the cache after the first. */
    if (!state.kernel ()) {
      std::vector<gst_opencl::TuningCandidate> names;
      for (const Variant & variant : VARIANTS)
        names.push_back ({ variant.name, false });
      const long forced = gst_opencl::forced_variant ("mandelbox", names);
      const bool cpu = (device.type & CL_DEVICE_TYPE_CPU) != 0;
      const size_t index = forced >= 0 ? (size_t) forced :
          cpu ? cpu_variant_for (device.cl_device) : 0;
      const Variant & variant = VARIANTS[index];
      gst_opencl::TuningChoice choice;
      choice.index = index;
      choice.name = variant.name;
      choice.source = forced >= 0 ? gst_opencl::TuningChoice::Source::Forced :
          gst_opencl::TuningChoice::Source::Default;
      element.post_variant ("mandelbox", "", names, choice);
      state.tile_width = variant.tile_width;
      state.tile_height = variant.vector_height * std::max (variant.chains, 1);
      state.kernel = variant.chains == 0 ? device.kernel ("mandelbox", "mandelbox", "") :
          device.kernel ("mandelbox", "mandelbox_lanes", "-D LANES=" +
              std::to_string (variant.tile_width * variant.vector_height) + " -D TILE_WIDTH=" +
              std::to_string (variant.tile_width) + " -D CHAINS=" +
              std::to_string (variant.chains));
      GST_INFO_OBJECT (src, "variant %s", variant.name);
    }
    /* Neighbouring rays take similar paths: square tiles keep a group's work even. A work-item
     * of the lanes kernels is a tile of pixels: groups of 2 x 2 tiles. */
    if (state.tile_width * state.tile_height > 1)
      state.group = cl::NDRange (2, 2);
    else
      state.group = device.max_work_group_size >= 64 ? cl::NDRange (8, 8) : cl::NullRange;
  });
}

static gboolean
gst_opencl_mandelbox_src_render (GstOpenCLSrc * src, gst_opencl::ElementDevice & device,
    const GstOpenCLFrame * out, GstClockTime,
    GstClockTime stream_time)
{
  auto *impl = GST_OPENCL_MANDELBOX_SRC (src)->impl;
  return GST_OPENCL_GUARD (src, "Mandelbox rendering failed", [&]() {
    Settings s;
    {
      std::lock_guard<std::mutex> lock (impl->lock);
      s = impl->settings;
    }
    State & state = impl->state;
    const double yaw = frame_yaw (s, stream_time);
    const Camera camera = make_camera (s, yaw);
    const int width = GST_VIDEO_INFO_WIDTH (&out->info);
    const int height = GST_VIDEO_INFO_HEIGHT (&out->info);

    cl::Kernel & kernel = state.kernel;
    gst_opencl::set_args (kernel, out->buffer, (cl_int) GST_VIDEO_INFO_PLANE_STRIDE (&out->info, 0),
        (cl_int) width, (cl_int) height, camera.eye, camera.forward, camera.right, camera.up,
        to_float4 (s.light[0], s.light[1], s.light[2]), (cl_float) s.scale, (cl_int) s.iterations,
        (cl_int) s.steps, (cl_float) (s.distance + RAY_LENGTH_BEYOND_DISTANCE), state.order,
        state.opaque);
    const int columns = (width + state.tile_width - 1) / state.tile_width;
    const int rows = (height + state.tile_height - 1) / state.tile_height;
    device.launch (kernel, cl::NDRange (columns, rows), state.group);
    GST_LOG_OBJECT (src, "frame at stream time %" GST_TIME_FORMAT ", yaw %.3f",
        GST_TIME_ARGS (stream_time), yaw);
  });
}

static void
gst_opencl_mandelbox_src_class_init (GstOpenCLMandelboxSrcClass * klass)
{
  auto *src_class = GST_OPENCL_SRC_CLASS (klass);

  auto properties = gst_opencl::element_class_begin<GstOpenCLMandelboxSrc> (klass, GST_CAT_DEFAULT,
      "openclmandelboxsrc", "OpenCL Mandelbox source");

  /**
   * GstOpenCLMandelboxSrc:scale:
   *
   * The Mandelbox's scale: each iteration maps z to scale z + c after the folds.
   */
  properties.add (g_param_spec_double ("scale", "Scale",
      "Mandelbox scale (z = scale * fold(z) + c)", -MAX_ABS_SCALE, MAX_ABS_SCALE, DEFAULT_SCALE,
      gst_opencl::PROPERTY_CONTROLLABLE), &Settings::scale);
  /**
   * GstOpenCLMandelboxSrc:iterations:
   *
   * Iterations of the distance estimator; a point that has not escaped by then is inside.
   */
  properties.add (g_param_spec_int ("iterations", "Iterations",
      "Iterations of the distance estimator per evaluation", 1, MAX_ITERATIONS,
      DEFAULT_ITERATIONS, gst_opencl::PROPERTY_CONTROLLABLE), &Settings::iterations);
  /**
   * GstOpenCLMandelboxSrc:steps:
   *
   * Most ray-marching steps per pixel; a ray that has not hit by then is a miss.
   */
  properties.add (g_param_spec_int ("steps", "Steps", "Most ray-marching steps per pixel", 1,
      MAX_STEPS, DEFAULT_STEPS, gst_opencl::PROPERTY_CONTROLLABLE), &Settings::steps);
  /**
   * GstOpenCLMandelboxSrc:yaw:
   *
   * Camera angle about the y axis, in degrees (with `animate`, at stream time 0).
   */
  properties.add (g_param_spec_double ("yaw", "Yaw",
      "Camera angle about the y axis in degrees (at stream time 0 when animated)", -360.0,
      360.0, DEFAULT_YAW, gst_opencl::PROPERTY_CONTROLLABLE), &Settings::yaw);
  /**
   * GstOpenCLMandelboxSrc:pitch:
   *
   * Camera elevation above the x-z plane, in degrees; the camera looks down at the origin for
   * positive values.
   */
  properties.add (g_param_spec_double ("pitch", "Pitch",
      "Camera elevation above the x-z plane in degrees", -90.0, 90.0, DEFAULT_PITCH,
      gst_opencl::PROPERTY_CONTROLLABLE),
      &Settings::pitch);
  /**
   * GstOpenCLMandelboxSrc:distance:
   *
   * Distance of the eye from the origin it looks at. Rays are followed up to distance + 85.
   */
  properties.add (g_param_spec_double ("distance", "Distance",
      "Distance of the camera from the origin", MIN_DISTANCE, MAX_DISTANCE, DEFAULT_DISTANCE,
      gst_opencl::PROPERTY_CONTROLLABLE), &Settings::distance);
  /**
   * GstOpenCLMandelboxSrc:fov:
   *
   * Vertical field of view in degrees; the horizontal one follows the frame's aspect ratio.
   * The default, 2 atan (1/2), is the article's view plane: 10 units high, 10 units away.
   */
  properties.add (g_param_spec_double ("fov", "Field of view",
      "Vertical field of view in degrees (horizontal follows the aspect ratio)", MIN_FOV,
      MAX_FOV, DEFAULT_FOV, gst_opencl::PROPERTY_CONTROLLABLE), &Settings::fov);
  /**
   * GstOpenCLMandelboxSrc:light-x:
   *
   * x coordinate of the point light, in world space (it does not move with the camera).
   */
  properties.add (g_param_spec_double ("light-x", "Light x",
      "x of the point light in world space", -MAX_ABS_LIGHT, MAX_ABS_LIGHT, DEFAULT_LIGHT_X,
      gst_opencl::PROPERTY_CONTROLLABLE), &Settings::light, 0);
  /**
   * GstOpenCLMandelboxSrc:light-y:
   *
   * y coordinate of the point light, in world space.
   */
  properties.add (g_param_spec_double ("light-y", "Light y",
      "y of the point light in world space", -MAX_ABS_LIGHT, MAX_ABS_LIGHT, DEFAULT_LIGHT_Y,
      gst_opencl::PROPERTY_CONTROLLABLE), &Settings::light, 1);
  /**
   * GstOpenCLMandelboxSrc:light-z:
   *
   * z coordinate of the point light, in world space.
   */
  properties.add (g_param_spec_double ("light-z", "Light z",
      "z of the point light in world space", -MAX_ABS_LIGHT, MAX_ABS_LIGHT, DEFAULT_LIGHT_Z,
      gst_opencl::PROPERTY_CONTROLLABLE), &Settings::light, 2);
  /**
   * GstOpenCLMandelboxSrc:animate:
   *
   * Turn the camera with the stream time: the frame's yaw is yaw + rotation-speed x t.
   */
  properties.add (g_param_spec_boolean ("animate", "Animate",
      "Turn the camera about the y axis with the stream time", DEFAULT_ANIMATE,
      gst_opencl::PROPERTY_CONTROLLABLE),
      &Settings::animate);
  /**
   * GstOpenCLMandelboxSrc:rotation-speed:
   *
   * How fast the camera turns when animated, in degrees per second of stream time.
   */
  properties.add (g_param_spec_double ("rotation-speed", "Rotation speed",
      "Yaw change per second of stream time when animated, in degrees",
      -MAX_ABS_ROTATION_SPEED, MAX_ABS_ROTATION_SPEED, DEFAULT_ROTATION_SPEED,
      gst_opencl::PROPERTY_CONTROLLABLE),
      &Settings::rotation_speed);

  gst_element_class_set_static_metadata (GST_ELEMENT_CLASS (klass), "OpenCL Mandelbox source",
      "Source/Video", "Ray-marches the Mandelbox fractal on an OpenCL device",
      "gst-opencl developers");
  gst_opencl_src_class_add_pad_template (src_class, FORMATS, TRUE);

  src_class->set_info = gst_opencl_mandelbox_src_set_info;
  src_class->render = gst_opencl_mandelbox_src_render;
}
