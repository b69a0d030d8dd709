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

#ifdef LANES
/* The CPU variant (built with -D LANES=8 or 16): one work-item renders LANES neighbouring
 * pixels of a row, each lane of a float vector one pixel, so the march runs LANES rays at a
 * time on the vector unit. A CPU device runs a work-group's work-items one after another and
 * cannot vectorise across them through the march's data-dependent loops; here the vectors are
 * explicit. Every lane does what the scalar kernel above does for its pixel, operation for
 * operation (a lane that has finished keeps its values: each update is committed through a
 * mask), and the loops stop when no lane needs them any more. Vector lengths are written out
 * (x x + y y + z z) where the scalar kernel calls dot, length and normalize. */
#define VECTOR_OF(type, n) type##n
#define VECTOR(type, n) VECTOR_OF (type, n)
#define floatv VECTOR (float, LANES)
#define intv VECTOR (int, LANES)
#define uintv VECTOR (uint, LANES)
#define convert_floatv VECTOR (convert_float, LANES)
#define convert_uintv VECTOR (convert_uint, LANES)
#define vstorev VECTOR (vstore, LANES)

/* The LANES pixels of a work-item: a tile TILE_WIDTH wide (a row of LANES by default). */
#ifndef TILE_WIDTH
#define TILE_WIDTH LANES
#endif
#define TILE_HEIGHT (LANES / TILE_WIDTH)

#if LANES == 8
#define LANE_INDEX ((intv) (0, 1, 2, 3, 4, 5, 6, 7))
#elif LANES == 16
#define LANE_INDEX ((intv) (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15))
#else
#error "LANES must be 8 or 16"
#endif

/* Whether any lane of a mask is set. PoCL's any () tests the lanes one by one (about 40
 * instructions for 16 lanes, as many as a round of the estimator); halving the vector with ORs
 * takes a few. */
inline bool
any_lane (intv mask)
{
#if LANES == 16
  int8 half8 = mask.lo | mask.hi;
#else
  int8 half8 = mask;
#endif
  int4 half4 = half8.lo | half8.hi;
  int2 half2 = half4.lo | half4.hi;
  return (half2.x | half2.y) < 0;
}

/* Points or directions of LANES pixels, one coordinate per vector. */
typedef struct
{
  floatv x, y, z;
} Lanes3;

/* |z| > BAILOUT_RADIUS, tested on |z|^2 without the square root: with a correctly rounded
 * sqrt, sqrt (r2) > 1024 exactly when r2 > 0x1.000002p+20 (1024^2 + 1/8 rounds down to 1024). */
#define BAILOUT_RADIUS2 0x1.000002p+20f

/* estimate_distance () for the lanes in `wanted` (-1 lanes; the others come back as garbage).
 * The estimate |z| / |factor| is taken once, after the loop, from the values of each lane's last
 * round: the same numbers as taking it every round, without a square root and a division per
 * round. */
void
estimate_lanes (Lanes3 c, float scale, int iterations, intv wanted, floatv * distance,
    Lanes3 * colour)
{
  Lanes3 z = c;
  floatv factor = (floatv) scale;
  floatv modulus2 = (floatv) 0.0f;
  Lanes3 col = { (floatv) 0.0f, (floatv) 0.0f, (floatv) 0.0f };
  /* Lanes still iterating: wanted and not escaped. */
  intv live = wanted;
  for (int n = 0; n < iterations && any_lane (live); n++) {
    /* Box fold (a comparison gives -1 per true lane, hence the subtractions). */
    intv folds = -(fabs (z.x) > 1.0f) - (fabs (z.y) > 1.0f) - (fabs (z.z) > 1.0f);
    Lanes3 w;
    w.x = clamp (z.x, -1.0f, 1.0f) * 2.0f - z.x;
    w.y = clamp (z.y, -1.0f, 1.0f) * 2.0f - z.y;
    w.z = clamp (z.z, -1.0f, 1.0f) * 2.0f - z.z;
    floatv red = col.x + convert_floatv (folds) * 0.1f;

    /* Sphere fold: z and factor scaled by 4, by 1 / r2 or (an exact no-op) by 1. */
    floatv r2 = w.x * w.x + w.y * w.y + w.z * w.z;
    intv inner = r2 < MIN_RADIUS2;
    intv folded = r2 < FIXED_RADIUS2;
    floatv k = select (select ((floatv) 1.0f, FIXED_RADIUS2 / r2, folded),
        (floatv) (FIXED_RADIUS2 / MIN_RADIUS2), inner);
    w.x *= k;
    w.y *= k;
    w.z *= k;
    floatv f = factor * k;
    floatv green = select (col.y, col.y + 0.1f, folded);

    w.x = w.x * scale + c.x;
    w.y = w.y * scale + c.y;
    w.z = w.z * scale + c.z;
    f *= scale;
    floatv m2 = w.x * w.x + w.y * w.y + w.z * w.z;

    z.x = select (z.x, w.x, live);
    z.y = select (z.y, w.y, live);
    z.z = select (z.z, w.z, live);
    factor = select (factor, f, live);
    col.x = select (col.x, red, live);
    col.y = select (col.y, green, live);
    modulus2 = select (modulus2, m2, live);
    live &= ~(m2 > BAILOUT_RADIUS2);
  }
  /* Lanes that never escaped are inside (a lane still live after an early exit cannot be). */
  *distance = select (sqrt (modulus2) / fabs (factor), (floatv) 0.0f, live);
  colour->x = clamp (col.x, 0.0f, 1.0f);
  colour->y = clamp (col.y, 0.0f, 1.0f);
  colour->z = clamp (col.z, 0.0f, 1.0f);
}

floatv
distance_lanes (Lanes3 p, float scale, int iterations, intv wanted)
{
  floatv distance;
  Lanes3 colour;
  estimate_lanes (p, scale, iterations, wanted, &distance, &colour);
  return distance;
}

/* surface_normal () for the lanes in `wanted`. */
Lanes3
normal_lanes (Lanes3 p, floatv offset, float scale, int iterations, intv wanted)
{
  floatv g[3];
  for (int axis = 0; axis < 3; axis++) {
    Lanes3 plus = p, minus = p;
    if (axis == 0) {
      plus.x = p.x + offset;
      minus.x = p.x - offset;
    } else if (axis == 1) {
      plus.y = p.y + offset;
      minus.y = p.y - offset;
    } else {
      plus.z = p.z + offset;
      minus.z = p.z - offset;
    }
    g[axis] = (distance_lanes (plus, scale, iterations, wanted) -
        distance_lanes (minus, scale, iterations, wanted)) / (2.0f * offset);
  }
  Lanes3 n;
  floatv norm = sqrt (g[0] * g[0] + g[1] * g[1] + g[2] * g[2]);
  n.x = g[0] / norm;
  n.y = g[1] / norm;
  n.z = g[2] / norm;
  return n;
}

__kernel void
mandelbox_lanes (__global uchar * out, int stride_bytes, int width, int height,
    float4 eye, float4 forward, float4 right, float4 up, float4 light,
    float scale, int iterations, int steps, float max_ray_length, int order, int opaque)
{
  const int x0 = get_global_id (0) * TILE_WIDTH;
  const int y0 = get_global_id (1) * TILE_HEIGHT;
  if (x0 >= width || y0 >= height)
    return;

  const intv x = x0 + LANE_INDEX % TILE_WIDTH;
  const intv y = y0 + LANE_INDEX / TILE_WIDTH;
  const intv inside = x < width & y < height;
  const floatv u = convert_floatv (2 * x - width) / (float) height;
  const floatv v = convert_floatv (height - 2 - 2 * y) / (float) height;
  Lanes3 direction;
  direction.x = forward.x + u * right.x + v * up.x;
  direction.y = forward.y + u * right.y + v * up.y;
  direction.z = forward.z + u * right.z + v * up.z;
  const floatv direction_length = sqrt (direction.x * direction.x +
      direction.y * direction.y + direction.z * direction.z);
  direction.x /= direction_length;
  direction.y /= direction_length;
  direction.z /= direction_length;

  Lanes3 position = { (floatv) eye.x, (floatv) eye.y, (floatv) eye.z };
  floatv ray_length = (floatv) 0.0f;
  floatv epsilon = (floatv) MIN_EPSILON;
  intv marching = inside;
  intv hit = (intv) 0;
  Lanes3 colour = { (floatv) 0.0f, (floatv) 0.0f, (floatv) 0.0f };
  for (int step = 0; step < steps && any_lane (marching); step++) {
    floatv distance;
    Lanes3 step_colour;
    estimate_lanes (position, scale, iterations, marching, &distance, &step_colour);
    colour.x = select (colour.x, step_colour.x, marching);
    colour.y = select (colour.y, step_colour.y, marching);
    colour.z = select (colour.z, step_colour.z, marching);
    position.x = select (position.x, position.x + direction.x * distance, marching);
    position.y = select (position.y, position.y + direction.y * distance, marching);
    position.z = select (position.z, position.z + direction.z * distance, marching);
    ray_length = select (ray_length, ray_length + distance, marching);
    const intv missed = ray_length > max_ray_length;
    const intv reached = ~missed & (distance < epsilon);
    hit |= marching & reached;
    marching &= ~missed & ~reached;
    epsilon = select (epsilon, fmax (MIN_EPSILON, EPSILON_PER_UNIT * ray_length), marching);
  }

  const Lanes3 normal = normal_lanes (position, epsilon / 2.0f, scale, iterations, hit);
  Lanes3 to_light;
  to_light.x = light.x - position.x;
  to_light.y = light.y - position.y;
  to_light.z = light.z - position.z;
  const floatv light_length = sqrt (to_light.x * to_light.x + to_light.y * to_light.y +
      to_light.z * to_light.z);
  to_light.x /= light_length;
  to_light.y /= light_length;
  to_light.z /= light_length;
  const floatv lambert = normal.x * to_light.x + normal.y * to_light.y + normal.z * to_light.z;
  const intv lit = lambert > 0.0f;
  /* The conversion truncates, as the scalar kernel's does. */
  const uintv red = convert_uintv (clamp (select ((floatv) 0.0f, colour.x * lambert, lit) +
          AMBIENT, 0.0f, 1.0f) * 255.0f);
  const uintv green = convert_uintv (clamp (select ((floatv) 0.0f, colour.y * lambert, lit) +
          AMBIENT, 0.0f, 1.0f) * 255.0f);
  const uintv blue = convert_uintv (clamp (select ((floatv) 0.0f, colour.z * lambert, lit) +
          AMBIENT, 0.0f, 1.0f) * 255.0f);
  const uintv first = order == ORDER_BGR ? blue : red;
  const uintv third = order == ORDER_BGR ? red : blue;
  /* Little-endian RGBA (or BGRA) words; a miss is transparent (opaque) black. */
  const uintv shaded = first | green << 8 | third << 16 | (uintv) 0xff000000u;
  const uintv pixels = select ((uintv) (opaque ? 0xff000000u : 0u), shaded, hit);

  /* A row of the tile at a time; lanes outside the frame are not stored. */
  for (int row = 0; row < TILE_HEIGHT && y0 + row < height; row++) {
    __global uint *line = (__global uint *) (out + (size_t) (y0 + row) * stride_bytes);
    for (int column = 0; column < TILE_WIDTH && x0 + column < width; column++)
      line[x0 + column] = pixels[row * TILE_WIDTH + column];
  }
}
#endif
