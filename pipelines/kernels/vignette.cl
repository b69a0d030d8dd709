/* gst-opencl example for openclkernel: a vignette, the frame darkened towards its corners.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 *   openclkernel location=pipelines/kernels/vignette.cl parameters="p,strength=0.8"
 *
 * strength (float): 0 leaves the frame as it is, 1 makes the corners black; values above 1
 * widen the dark border. It is a numeric parameter, so it is also the child object `strength`
 * whose `value` can be set while playing or animated (pipelines/kernel-vignette.py).
 *
 * The kernel takes no width and height arguments: it reads the size from the image, so the
 * element keeps the input's size. Alpha (or the padding byte) is passed through. */
__kernel void
vignette (__read_only image2d_t in, __write_only image2d_t out, float strength)
{
  const int2 p = (int2) (get_global_id (0), get_global_id (1));
  const int2 size = get_image_dim (out);
  if (p.x >= size.x || p.y >= size.y)
    return;

  /* Pixel centre relative to the frame's centre: r is 0 there and 1 at the corners. */
  const float2 half_size = 0.5f * convert_float2 (size);
  const float2 d = (convert_float2 (p) + 0.5f - half_size) / half_size;
  const float r = length (d) * M_SQRT1_2_F;

  /* Untouched in the middle, a smooth fall-off from 40% of the way out to the corners. */
  const float shade = fmax (0.0f, 1.0f - strength * smoothstep (0.4f, 1.0f, r));
  const float4 c = read_imagef (in, p);
  write_imagef (out, p, (float4) (c.xyz * shade, c.w));
}
