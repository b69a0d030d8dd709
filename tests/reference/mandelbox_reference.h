/* gst-opencl tests: CPU reference of openclmandelboxsrc's picture.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The renderer is written once, as templates on the number type, from the definition in
 * docs/openclmandelboxsrc.md: the tests instantiate it in double precision (render_mandelbox),
 * the benchmark's OpenMP renderer in single precision, like the kernel. It shares no code with
 * the element: the camera is derived here again from the property values. */
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>

namespace reference {

/* What the picture depends on: the element's properties, with the animation already applied
 * (yaw_degrees is the yaw of the frame). */
struct MandelboxView
{
  double scale = 3.0;
  int iterations = 50;
  int steps = 100;
  double yaw_degrees = 0.0;
  double pitch_degrees = 0.0;
  double distance = 15.0;
  /* 2 atan (1/2): a view plane 10 units high, 10 units in front of the eye. */
  double fov_degrees = 53.13010235415598;
  double light[3] = { 5.0, 5.0, -10.0 };
};

/* Renders width x height pixels of 4 bytes (R, G, B, A; B, G, R, A when `bgr`), row 0 at the
 * top, rows `stride` bytes apart, in double precision. The fourth byte is alpha (0 where the ray
 * misses), or 255 everywhere when `opaque_padding` (the x of RGBx and BGRx). */
void render_mandelbox (const MandelboxView & view, int width, int height, uint8_t * pixels,
    size_t stride, bool bgr = false, bool opaque_padding = false);

namespace mandelbox {

constexpr double BAILOUT_RADIUS = 1024.0;
constexpr double FIXED_RADIUS2 = 1.0;
constexpr double MIN_RADIUS2 = 0.25;
constexpr double MIN_EPSILON = 1.0e-6;
constexpr double EPSILON_PER_UNIT = 1.0 / 1024.0;
constexpr double AMBIENT = 0.1;
constexpr double FOLD_COLOUR = 0.1;
/* The march gives up this far beyond the eye's distance from the origin (100 at distance 15). */
constexpr double RAY_LENGTH_BEYOND_DISTANCE = 85.0;

template <typename Real>
struct Vec3
{
  Real x = 0, y = 0, z = 0;

  Vec3 operator+ (const Vec3 & o) const { return { x + o.x, y + o.y, z + o.z }; }
  Vec3 operator- (const Vec3 & o) const { return { x - o.x, y - o.y, z - o.z }; }
  Vec3 operator* (Real s) const { return { x * s, y * s, z * s }; }
  Vec3 operator/ (Real s) const { return { x / s, y / s, z / s }; }
};

template <typename Real>
Real
dot (const Vec3<Real> & a, const Vec3<Real> & b)
{
  return a.x * b.x + a.y * b.y + a.z * b.z;
}

template <typename Real>
Real
length (const Vec3<Real> & v)
{
  return std::sqrt (dot (v, v));
}

template <typename Real>
Vec3<Real>
normalize (const Vec3<Real> & v)
{
  return v / length (v);
}

/* The camera of one frame: eye, unit forward, and right and up scaled by tan (fov / 2). */
template <typename Real>
struct Camera
{
  Vec3<Real> eye, forward, right, up;
  Real max_ray_length = 0;
};

/* The orbit camera: yaw turns about the y axis, pitch raises the eye above the x-z plane; the
 * eye looks at the origin from `distance`. Computed in double, then rounded to Real. */
template <typename Real>
Camera<Real>
make_camera (const MandelboxView & view)
{
  const double yaw = view.yaw_degrees * M_PI / 180.0;
  const double pitch = view.pitch_degrees * M_PI / 180.0;
  const double half_height = std::tan (view.fov_degrees * M_PI / 360.0);
  const double cy = std::cos (yaw), sy = std::sin (yaw), cp = std::cos (pitch),
      sp = std::sin (pitch);
  auto vec = [](double x, double y, double z) { return Vec3<Real> { (Real) x, (Real) y,
        (Real) z }; };
  Camera<Real> camera;
  camera.eye = vec (-view.distance * cp * sy, view.distance * sp, -view.distance * cp * cy);
  camera.forward = vec (cp * sy, -sp, cp * cy);
  camera.right = vec (cy * half_height, 0.0, -sy * half_height);
  camera.up = vec (sp * sy * half_height, cp * half_height, sp * cy * half_height);
  camera.max_ray_length = (Real) (view.distance + RAY_LENGTH_BEYOND_DISTANCE);
  return camera;
}

template <typename Real>
struct Estimate
{
  Real distance = 0;
  Vec3<Real> colour;
};

/* One coordinate of the box fold; adds the fold colour when it reflects. */
template <typename Real>
void
box_fold (Real & value, Real & red)
{
  if (value > Real (1)) {
    value = Real (2) - value;
    red += Real (FOLD_COLOUR);
  } else if (value < Real (-1)) {
    value = Real (-2) - value;
    red += Real (FOLD_COLOUR);
  }
}

template <typename Real>
Estimate<Real>
estimate_distance (const Vec3<Real> & c, Real scale, int iterations)
{
  Vec3<Real> z = c;
  Real factor = scale;
  Estimate<Real> estimate;
  int n;
  for (n = 0; n < iterations; n++) {
    box_fold (z.x, estimate.colour.x);
    box_fold (z.y, estimate.colour.x);
    box_fold (z.z, estimate.colour.x);

    const Real r2 = dot (z, z);
    if (r2 < Real (MIN_RADIUS2)) {
      z = z * Real (FIXED_RADIUS2 / MIN_RADIUS2);
      factor *= Real (FIXED_RADIUS2 / MIN_RADIUS2);
      estimate.colour.y += Real (FOLD_COLOUR);
    } else if (r2 < Real (FIXED_RADIUS2)) {
      z = z * (Real (FIXED_RADIUS2) / r2);
      factor *= Real (FIXED_RADIUS2) / r2;
      estimate.colour.y += Real (FOLD_COLOUR);
    }

    z = z * scale + c;
    factor *= scale;
    const Real r = length (z);
    estimate.distance = r / std::fabs (factor);
    if (r > Real (BAILOUT_RADIUS))
      break;
  }
  estimate.colour.x = std::clamp (estimate.colour.x, Real (0), Real (1));
  estimate.colour.y = std::clamp (estimate.colour.y, Real (0), Real (1));
  if (n == iterations)
    estimate.distance = 0;
  return estimate;
}

/* The gradient of the estimate by central differences, normalised. */
template <typename Real>
Vec3<Real>
surface_normal (const Vec3<Real> & p, Real offset, Real scale, int iterations)
{
  auto difference = [&](const Vec3<Real> & step) {
    return estimate_distance (p + step, scale, iterations).distance -
        estimate_distance (p - step, scale, iterations).distance;
  };
  Vec3<Real> gradient { difference ({ offset, 0, 0 }), difference ({ 0, offset, 0 }),
    difference ({ 0, 0, offset }) };
  return normalize (gradient / (Real (2) * offset));
}

/* The R, G, B, A of pixel (x, y), row 0 at the top. */
template <typename Real>
std::array<uint8_t, 4>
shade_pixel (const MandelboxView & view, const Camera<Real> & camera, int x, int y, int width,
    int height)
{
  /* The article's sample points (pixel corners), the y axis up, the view plane's height fixed. */
  const Real u = (Real) (2 * x - width) / (Real) height;
  const Real v = (Real) (height - 2 - 2 * y) / (Real) height;
  const Vec3<Real> direction = normalize (camera.forward + camera.right * u + camera.up * v);
  const Real scale = (Real) view.scale;

  Vec3<Real> position = camera.eye;
  Real ray_length = 0;
  Real epsilon = Real (MIN_EPSILON);
  bool hit = false;
  Estimate<Real> estimate;
  for (int step = 0; step < view.steps; step++) {
    estimate = estimate_distance (position, scale, view.iterations);
    position = position + direction * estimate.distance;
    ray_length += estimate.distance;
    if (ray_length > camera.max_ray_length)
      break;
    if (estimate.distance < epsilon) {
      hit = true;
      break;
    }
    epsilon = std::max (Real (MIN_EPSILON), Real (EPSILON_PER_UNIT) * ray_length);
  }
  if (!hit)
    return { 0, 0, 0, 0 };

  const Vec3<Real> normal = surface_normal (position, epsilon / Real (2), scale,
      view.iterations);
  const Vec3<Real> light { (Real) view.light[0], (Real) view.light[1], (Real) view.light[2] };
  const Vec3<Real> to_light = normalize (light - position);
  const Real lambert = dot (normal, to_light);
  /* NaN (a zero gradient) fails the test and leaves the ambient term alone, as on the device. */
  const Vec3<Real> diffuse = lambert > Real (0) ? estimate.colour * lambert : Vec3<Real> ();
  auto channel = [](Real value) {
    return (uint8_t) (unsigned) (std::clamp (value + Real (AMBIENT), Real (0), Real (1)) *
        Real (255));
  };
  return { channel (diffuse.x), channel (diffuse.y), channel (diffuse.z), 255 };
}

}  // namespace mandelbox
}  // namespace reference
