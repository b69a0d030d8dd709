/* gst-opencl example for openclkernel: Sobel edge detection, the gradient magnitude of the
 * frame's luma written as a grey level.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 *   openclkernel location=pipelines/kernels/sobel.cl
 *
 * No parameters. The 3x3 neighbourhood is read with a clamp-to-edge sampler, so the border
 * pixels repeat the edge instead of reading outside the frame. Luma is BT.601's weighting of
 * red, green and blue; with GRAY8 frames the grey level is in .x alone, so build with
 * build-options="-D GRAY" for them. The output is opaque. */
#ifdef GRAY
#define LUMA(c) ((c).x)
#else
#define LUMA(c) dot ((c).xyz, (float3) (0.299f, 0.587f, 0.114f))
#endif

__kernel void
sobel (__read_only image2d_t in, __write_only image2d_t out)
{
  const sampler_t edge = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE |
      CLK_FILTER_NEAREST;
  const int2 p = (int2) (get_global_id (0), get_global_id (1));
  if (p.x >= get_image_width (out) || p.y >= get_image_height (out))
    return;

  float l[3][3];
  for (int dy = -1; dy <= 1; dy++)
    for (int dx = -1; dx <= 1; dx++)
      l[dy + 1][dx + 1] = LUMA (read_imagef (in, edge, p + (int2) (dx, dy)));

  const float gx = (l[0][2] + 2.0f * l[1][2] + l[2][2]) - (l[0][0] + 2.0f * l[1][0] + l[2][0]);
  const float gy = (l[2][0] + 2.0f * l[2][1] + l[2][2]) - (l[0][0] + 2.0f * l[0][1] + l[0][2]);
  /* A step from black to white gives 4; scaled so that it is white. */
  const float m = fmin (1.0f, 0.25f * sqrt (gx * gx + gy * gy));
  write_imagef (out, p, (float4) (m, m, m, 1.0f));
}
