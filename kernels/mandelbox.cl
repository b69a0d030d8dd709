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
/* The CPU variants (built with -D LANES=8 or 16, -D TILE_WIDTH, -D CHAINS): one work-item renders
 * a tile of CHAINS x LANES pixels, each lane of a float vector one pixel, so the march runs LANES
 * rays at a time on the vector unit. A CPU device runs a work-group's work-items one after
 * another and cannot vectorise across them through the march's data-dependent loops; here the
 * vectors are explicit. CHAINS vectors are marched side by side: one round of the estimator is
 * a chain of dependent operations (fold, square, divide, multiply-add) whose latency, not the
 * vector unit's throughput, bounds one vector; independent vectors fill the gaps.
 *
 * Every lane does what the scalar kernel above does for its pixel, operation for operation (a
 * lane that has finished keeps what it needs: each update is committed through a mask), and the
 * loops stop when no lane needs them any more. Where the scalar kernel calls dot, length and
 * normalize, this one writes them out (x x + y y + z z, sqrt, x rsqrt (x.x)): the pictures agree
 * to within 2 per channel, and at 128x128 in all but 2 of 16384 pixels exactly. */
#define VECTOR_OF(type, n) type##n
#define VECTOR(type, n) VECTOR_OF (type, n)
#define floatv VECTOR (float, LANES)
#define intv VECTOR (int, LANES)
#define uintv VECTOR (uint, LANES)
#define convert_floatv VECTOR (convert_float, LANES)
#define convert_uintv VECTOR (convert_uint, LANES)

/* The pixels of one vector: TILE_WIDTH x (LANES / TILE_WIDTH); a work-item's tile stacks CHAINS
 * of them. */
#ifndef TILE_WIDTH
#define TILE_WIDTH LANES
#endif
#ifndef CHAINS
#define CHAINS 1
#endif
#define VECTOR_HEIGHT (LANES / TILE_WIDTH)
#define TILE_HEIGHT (CHAINS * VECTOR_HEIGHT)

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

/* The estimator's state for one vector of points. */
typedef struct
{
  Lanes3 c, z;
  floatv factor, modulus2, red, green;
  intv live;    /* lanes still iterating: asked for and not escaped */
} Estimator;

inline Estimator
estimator_start (Lanes3 c, float scale, intv wanted)
{
  Estimator e;
  e.c = c;
  e.z = c;
  e.factor = (floatv) scale;
  e.modulus2 = (floatv) 0.0f;
  e.red = (floatv) 0.0f;
  e.green = (floatv) 0.0f;
  e.live = wanted;
  return e;
}

/* One round of estimate_distance () for the live lanes. The estimate |z| / |factor| is taken
 * once, in estimator_distance, from each lane's last round: the same numbers as taking it every
 * round, without a square root and a division per round. */
inline __attribute__ ((always_inline)) void
estimator_round (Estimator * e, float scale)
{
  /* Box fold. A coordinate folds (|z| > 1) exactly when clamping changes it; the count of
   * folds is summed as floats 0 and 1, the same number as the scalar kernel's converted int. */
  Lanes3 w;
  w.x = clamp (e->z.x, -1.0f, 1.0f);
  w.y = clamp (e->z.y, -1.0f, 1.0f);
  w.z = clamp (e->z.z, -1.0f, 1.0f);
  const floatv folds = select ((floatv) 0.0f, (floatv) 1.0f, w.x != e->z.x) +
      select ((floatv) 0.0f, (floatv) 1.0f, w.y != e->z.y) +
      select ((floatv) 0.0f, (floatv) 1.0f, w.z != e->z.z);
  w.x = w.x * 2.0f - e->z.x;
  w.y = w.y * 2.0f - e->z.y;
  w.z = w.z * 2.0f - e->z.z;
  const floatv red = e->red + folds * 0.1f;

  /* Sphere fold: z and factor scaled by 4, by 1 / r2 or (an exact no-op) by 1. */
  const floatv r2 = w.x * w.x + w.y * w.y + w.z * w.z;
  const intv inner = r2 < MIN_RADIUS2;
  const intv folded = r2 < FIXED_RADIUS2;
  const floatv k = select (select ((floatv) 1.0f, FIXED_RADIUS2 / r2, folded),
      (floatv) (FIXED_RADIUS2 / MIN_RADIUS2), inner);
  w.x *= k;
  w.y *= k;
  w.z *= k;
  floatv f = e->factor * k;
  const floatv green = select (e->green, e->green + 0.1f, folded);

  w.x = w.x * scale + e->c.x;
  w.y = w.y * scale + e->c.y;
  w.z = w.z * scale + e->c.z;
  f *= scale;
  const floatv m2 = w.x * w.x + w.y * w.y + w.z * w.z;

  /* What the estimate needs is kept per lane from its last live round; z itself goes on
   * changing in lanes that have finished, where nothing reads it any more. */
  const intv live = e->live;
  e->z = w;
  e->factor = select (e->factor, f, live);
  e->red = select (e->red, red, live);
  e->green = select (e->green, green, live);
  e->modulus2 = select (e->modulus2, m2, live);
  e->live = live & ~(m2 > BAILOUT_RADIUS2);
}

/* The estimate after the rounds; lanes still live ran all of them without escaping: inside. */
inline floatv
estimator_distance (const Estimator * e)
{
  return select (sqrt (e->modulus2) / fabs (e->factor), (floatv) 0.0f, e->live);
}

/* estimate_distance () for CHAINS vectors of points, the lanes in `wanted` (-1 lanes; the others
 * come back as garbage); `colour` may be null. */
inline __attribute__ ((always_inline)) void
estimate_chains (const Lanes3 * c, float scale, int iterations, const intv * wanted,
    floatv * distance, Lanes3 * colour)
{
  Estimator e[CHAINS];
  intv busy = (intv) 0;
#pragma unroll
  for (int h = 0; h < CHAINS; h++) {
    e[h] = estimator_start (c[h], scale, wanted[h]);
    busy |= wanted[h];
  }
  for (int n = 0; n < iterations && any_lane (busy); n++) {
    busy = (intv) 0;
#pragma unroll
    for (int h = 0; h < CHAINS; h++) {
      estimator_round (&e[h], scale);
      busy |= e[h].live;
    }
  }
#pragma unroll
  for (int h = 0; h < CHAINS; h++) {
    distance[h] = estimator_distance (&e[h]);
    if (colour) {
      colour[h].x = clamp (e[h].red, 0.0f, 1.0f);
      colour[h].y = clamp (e[h].green, 0.0f, 1.0f);
      colour[h].z = (floatv) 0.0f;
    }
  }
}

/* surface_normal () for the lanes in `wanted`: the gradient's component along `axis`. */
void
gradient_chains (const Lanes3 * p, const floatv * offset, int axis, float scale, int iterations,
    const intv * wanted, floatv * gradient)
{
  Lanes3 plus[CHAINS], minus[CHAINS];
  floatv distance_plus[CHAINS], distance_minus[CHAINS];
#pragma unroll
  for (int h = 0; h < CHAINS; h++) {
    plus[h] = p[h];
    minus[h] = p[h];
    if (axis == 0) {
      plus[h].x = p[h].x + offset[h];
      minus[h].x = p[h].x - offset[h];
    } else if (axis == 1) {
      plus[h].y = p[h].y + offset[h];
      minus[h].y = p[h].y - offset[h];
    } else {
      plus[h].z = p[h].z + offset[h];
      minus[h].z = p[h].z - offset[h];
    }
  }
  estimate_chains (plus, scale, iterations, wanted, distance_plus, 0);
  estimate_chains (minus, scale, iterations, wanted, distance_minus, 0);
#pragma unroll
  for (int h = 0; h < CHAINS; h++)
    gradient[h] = (distance_plus[h] - distance_minus[h]) / (2.0f * offset[h]);
}

/* normalize () of LANES vectors. */
inline Lanes3
normalized (Lanes3 a)
{
  const floatv scale = rsqrt (a.x * a.x + a.y * a.y + a.z * a.z);
  a.x *= scale;
  a.y *= scale;
  a.z *= scale;
  return a;
}

/* The pixel words of one vector (little-endian RGBA or BGRA; a miss is transparent or opaque
 * black), shaded as the scalar kernel shades a pixel. */
inline uintv
shade_lanes (Lanes3 position, Lanes3 gradient, Lanes3 colour, intv hit, float4 light,
    int order, int opaque)
{
  const Lanes3 normal = normalized (gradient);
  Lanes3 to_light;
  to_light.x = light.x - position.x;
  to_light.y = light.y - position.y;
  to_light.z = light.z - position.z;
  to_light = normalized (to_light);
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
  const uintv shaded = first | green << 8 | third << 16 | (uintv) 0xff000000u;
  return select ((uintv) (opaque ? 0xff000000u : 0u), shaded, hit);
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

  Lanes3 direction[CHAINS], position[CHAINS], colour[CHAINS];
  floatv ray_length[CHAINS], epsilon[CHAINS];
  intv marching[CHAINS], hit[CHAINS];
  intv busy = (intv) 0;
#pragma unroll
  for (int h = 0; h < CHAINS; h++) {
    const intv x = x0 + LANE_INDEX % TILE_WIDTH;
    const intv y = y0 + h * VECTOR_HEIGHT + LANE_INDEX / TILE_WIDTH;
    const floatv u = convert_floatv (2 * x - width) / (float) height;
    const floatv v = convert_floatv (height - 2 - 2 * y) / (float) height;
    Lanes3 d;
    d.x = forward.x + u * right.x + v * up.x;
    d.y = forward.y + u * right.y + v * up.y;
    d.z = forward.z + u * right.z + v * up.z;
    direction[h] = normalized (d);
    position[h].x = (floatv) eye.x;
    position[h].y = (floatv) eye.y;
    position[h].z = (floatv) eye.z;
    colour[h].x = colour[h].y = colour[h].z = (floatv) 0.0f;
    ray_length[h] = (floatv) 0.0f;
    epsilon[h] = (floatv) MIN_EPSILON;
    marching[h] = x < width & y < height;
    hit[h] = (intv) 0;
    busy |= marching[h];
  }

  for (int step = 0; step < steps && any_lane (busy); step++) {
    floatv distance[CHAINS];
    Lanes3 step_colour[CHAINS];
    estimate_chains (position, scale, iterations, marching, distance, step_colour);
    busy = (intv) 0;
#pragma unroll
    for (int h = 0; h < CHAINS; h++) {
      const intv m = marching[h];
      colour[h].x = select (colour[h].x, step_colour[h].x, m);
      colour[h].y = select (colour[h].y, step_colour[h].y, m);
      colour[h].z = select (colour[h].z, step_colour[h].z, m);
      position[h].x = select (position[h].x, position[h].x + direction[h].x * distance[h], m);
      position[h].y = select (position[h].y, position[h].y + direction[h].y * distance[h], m);
      position[h].z = select (position[h].z, position[h].z + direction[h].z * distance[h], m);
      ray_length[h] = select (ray_length[h], ray_length[h] + distance[h], m);
      const intv missed = ray_length[h] > max_ray_length;
      const intv reached = ~missed & (distance[h] < epsilon[h]);
      hit[h] |= m & reached;
      marching[h] = m & ~missed & ~reached;
      epsilon[h] = select (epsilon[h],
          fmax ((floatv) MIN_EPSILON, EPSILON_PER_UNIT * ray_length[h]), marching[h]);
      busy |= marching[h];
    }
  }

  /* The normal at the hits: central differences, offset epsilon / 2 along each axis. */
  floatv offset[CHAINS], gx[CHAINS], gy[CHAINS], gz[CHAINS];
#pragma unroll
  for (int h = 0; h < CHAINS; h++)
    offset[h] = epsilon[h] / 2.0f;
  gradient_chains (position, offset, 0, scale, iterations, hit, gx);
  gradient_chains (position, offset, 1, scale, iterations, hit, gy);
  gradient_chains (position, offset, 2, scale, iterations, hit, gz);

#pragma unroll
  for (int h = 0; h < CHAINS; h++) {
    const Lanes3 gradient = { gx[h], gy[h], gz[h] };
    const uintv pixels = shade_lanes (position[h], gradient, colour[h], hit[h], light, order,
        opaque);
    /* A row of the vector's pixels at a time; lanes outside the frame are not stored. The lanes
     * go through a private array: OpenCL C has no vector subscript by a variable. */
    uint words[LANES];
    VECTOR (vstore, LANES) (pixels, 0, words);
    for (int row = 0; row < VECTOR_HEIGHT; row++) {
      const int y = y0 + h * VECTOR_HEIGHT + row;
      if (y >= height)
        break;
      __global uint *line = (__global uint *) (out + (size_t) y * stride_bytes);
      for (int column = 0; column < TILE_WIDTH && x0 + column < width; column++)
        line[x0 + column] = words[row * TILE_WIDTH + column];
    }
  }
}
#endif
