/* gst-opencl: the Mandelbox, ray-marched with a distance estimator, one work-item per pixel.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The picture (docs/openclmandelboxsrc.md defines it exactly):
 *   - distance estimator: `iterations` rounds of box fold (|axis| > 1 is reflected about +-1),
 *     sphere fold (minimum radius 0.5, fixed radius 1) and z = scale z + c, with the running
 *     derivative `factor`; the estimate is |z| / |factor|, 0 for a point that never escapes
 *     (|z| > 1024). Every box fold adds (0.1, 0, 0) to the colour and every sphere fold
 *     (0, 0.1, 0); the sum is clamped to [0, 1].
 *   - march: up to `steps` steps of the estimated distance from the eye; a hit when the estimate
 *     falls below epsilon = max(1e-6, ray length / 1024), a miss past `max_ray_length`.
 *   - shading: normal from central differences of the estimator (offset epsilon / 2), ambient
 *     0.1 plus the fold colour times max(0, N.L) for the point light; channels truncated to
 *     8 bits, alpha 255. A miss is (0, 0, 0, 0).
 *
 * The host passes the camera: the eye, the unit forward vector and the right and up vectors
 * already scaled by tan(fov / 2). Pixel (x, y), row 0 at the top, looks along
 *   forward + u right + v up,  u = (2x - width) / height,  v = (height - 2 - 2y) / height,
 * the article's sample points (pixel corners) with the view plane's height fixed and its width
 * following the frame's aspect ratio.
 *
 * Everything that varies at run time is an argument, so changing a property never rebuilds. */

#define BAILOUT_RADIUS 1024.0f
#define FIXED_RADIUS2 1.0f
#define MIN_RADIUS2 0.25f
#define MIN_EPSILON 1.0e-6f
#define EPSILON_PER_UNIT (1.0f / 1024.0f)
#define AMBIENT 0.1f
#define BOX_FOLD_COLOUR ((float3) (0.1f, 0.0f, 0.0f))
#define SPHERE_FOLD_COLOUR ((float3) (0.0f, 0.1f, 0.0f))

/* Channel orders of the output (the `order` argument). */
#define ORDER_RGB 0
#define ORDER_BGR 1

typedef struct
{
  float distance;
  float3 colour;
} Estimate;

Estimate
estimate_distance (float3 c, float scale, int iterations)
{
  float3 z = c;
  float factor = scale;
  Estimate estimate;
  estimate.distance = 0.0f;
  estimate.colour = (float3) (0.0f);

  int n;
  for (n = 0; n < iterations; n++) {
    /* Box fold: a coordinate above 1 becomes 2 - z, one below -1 becomes -2 - z. */
    int folds = (fabs (z.x) > 1.0f) + (fabs (z.y) > 1.0f) + (fabs (z.z) > 1.0f);
    z = clamp (z, -1.0f, 1.0f) * 2.0f - z;
    estimate.colour += (float) folds * BOX_FOLD_COLOUR;

    float r2 = dot (z, z);
    if (r2 < MIN_RADIUS2) {
      z *= FIXED_RADIUS2 / MIN_RADIUS2;
      factor *= FIXED_RADIUS2 / MIN_RADIUS2;
      estimate.colour += SPHERE_FOLD_COLOUR;
    } else if (r2 < FIXED_RADIUS2) {
      z *= FIXED_RADIUS2 / r2;
      factor *= FIXED_RADIUS2 / r2;
      estimate.colour += SPHERE_FOLD_COLOUR;
    }

    z = z * scale + c;
    factor *= scale;
    float r = length (z);
    estimate.distance = r / fabs (factor);
    if (r > BAILOUT_RADIUS)
      break;
  }
  estimate.colour = clamp (estimate.colour, 0.0f, 1.0f);
  if (n == iterations)
    estimate.distance = 0.0f;
  return estimate;
}

float3
surface_normal (float3 p, float offset, float scale, int iterations)
{
  float3 dx = (float3) (offset, 0.0f, 0.0f);
  float3 dy = (float3) (0.0f, offset, 0.0f);
  float3 dz = (float3) (0.0f, 0.0f, offset);
  float3 gradient = (float3) (
      estimate_distance (p + dx, scale, iterations).distance -
      estimate_distance (p - dx, scale, iterations).distance,
      estimate_distance (p + dy, scale, iterations).distance -
      estimate_distance (p - dy, scale, iterations).distance,
      estimate_distance (p + dz, scale, iterations).distance -
      estimate_distance (p - dz, scale, iterations).distance);
  return normalize (gradient / (2.0f * offset));
}

__kernel void
mandelbox (__global uchar * out, int stride_bytes, int width, int height,
    float4 eye, float4 forward, float4 right, float4 up, float4 light,
    float scale, int iterations, int steps, float max_ray_length, int order, int opaque)
{
  const int x = get_global_id (0);
  const int y = get_global_id (1);
  if (x >= width || y >= height)
    return;

  const float u = (float) (2 * x - width) / (float) height;
  const float v = (float) (height - 2 - 2 * y) / (float) height;
  const float3 direction = normalize (forward.xyz + u * right.xyz + v * up.xyz);

  float3 position = eye.xyz;
  float ray_length = 0.0f;
  float epsilon = MIN_EPSILON;
  bool hit = false;
  Estimate estimate;
  for (int step = 0; step < steps; step++) {
    estimate = estimate_distance (position, scale, iterations);
    position += direction * estimate.distance;
    ray_length += estimate.distance;
    if (ray_length > max_ray_length)
      break;
    if (estimate.distance < epsilon) {
      hit = true;
      break;
    }
    epsilon = fmax (MIN_EPSILON, EPSILON_PER_UNIT * ray_length);
  }

  uchar4 pixel = (uchar4) (0, 0, 0, opaque ? 255 : 0);
  if (hit) {
    float3 normal = surface_normal (position, epsilon / 2.0f, scale, iterations);
    float3 to_light = normalize (light.xyz - position);
    float lambert = dot (normal, to_light);
    float3 diffuse = lambert > 0.0f ? estimate.colour * lambert : (float3) (0.0f);
    /* The conversion truncates, as the article's (uint) casts do. */
    uint3 rgb = convert_uint3 (clamp (diffuse + AMBIENT, 0.0f, 1.0f) * 255.0f);
    pixel = order == ORDER_BGR ? (uchar4) (rgb.z, rgb.y, rgb.x, 255) :
        (uchar4) (rgb.x, rgb.y, rgb.z, 255);
  }
  vstore4 (pixel, 0, out + (size_t) y * stride_bytes + (size_t) x * 4);
}
