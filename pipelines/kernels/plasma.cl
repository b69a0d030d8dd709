/* gst-opencl example for openclkernelsrc: the classic plasma effect, sums of sines of the
 * position and the time mapped to a cycle of colours.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 *   openclkernelsrc location=pipelines/kernels/plasma.cl parameters="p,speed=1.0"
 *
 * width, height (int)  the frame's size, filled by the element
 * time (float)         seconds of stream time, filled by the element
 * speed (float)        how fast the plasma moves: 1 is the natural pace, 0 a still picture
 *
 * Coordinates are scaled by the height, so the pattern keeps its shape at any aspect ratio. */
__kernel void
plasma (__write_only image2d_t out, int width, int height, float time, float speed)
{
  const int x = get_global_id (0), y = get_global_id (1);
  if (x >= width || y >= height)
    return;

  const float t = time * speed;
  /* About -1..1 vertically, the centre of the frame at 0. */
  const float2 uv = ((float2) (x, y) - 0.5f * (float2) (width, height)) * (2.0f / height);

  float v = sin (uv.x * 5.0f + t);
  v += sin (5.0f * (uv.x * sin (0.5f * t) + uv.y * cos (0.33f * t)) + t);
  const float2 c = uv + (float2) (0.8f * sin (0.2f * t), 0.8f * cos (0.33f * t));
  v += sin (sqrt (25.0f * dot (c, c) + 1.0f) + t);
  v += sin (uv.y * 4.0f - 1.3f * t);

  const float phase = M_PI_F * 0.5f * v;
  const float3 colour = 0.5f + 0.5f * (float3) (sin (phase), sin (phase + 2.0944f),
      sin (phase + 4.1888f));
  write_imagef (out, (int2) (x, y), (float4) (colour, 1.0f));
}
