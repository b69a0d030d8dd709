/* gst-opencl example for openclkernel: a chroma key. Pixels whose colour is near the key colour
 * become transparent, so a compositor shows what lies beneath.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 *   openclkernel location=pipelines/kernels/chromakey.cl \
 *       parameters="p,key=<0.0,1.0,0.0,1.0>,tolerance=0.2,softness=0.1"
 *
 * key (float4)       the key colour as red, green, blue, alpha in 0..1 (alpha is ignored)
 * tolerance (float)  pixels whose chroma is within this distance of the key's are transparent
 * softness (float)   over this much more distance, alpha rises from 0 to the pixel's own, so
 *                    anti-aliased edges blend (0: a hard edge)
 *
 * The distance is measured between the colours' chroma (Cb, Cr of BT.601, each in -0.5..0.5),
 * not their RGB values, so a shadow on the green screen is keyed like the lit part. Give the
 * output a format with alpha (RGBA, BGRA, ARGB, ABGR): with RGBx-like formats the alpha written
 * goes into the padding byte and is ignored downstream. */
__kernel void
chromakey (__read_only image2d_t in, __write_only image2d_t out, float4 key, float tolerance,
    float softness)
{
  const int2 p = (int2) (get_global_id (0), get_global_id (1));
  if (p.x >= get_image_width (out) || p.y >= get_image_height (out))
    return;

  const float4 c = read_imagef (in, p);
  const float3 to_cb = (float3) (-0.168736f, -0.331264f, 0.5f);
  const float3 to_cr = (float3) (0.5f, -0.418688f, -0.081312f);
  const float2 chroma = (float2) (dot (c.xyz, to_cb), dot (c.xyz, to_cr));
  const float2 key_chroma = (float2) (dot (key.xyz, to_cb), dot (key.xyz, to_cr));
  const float d = distance (chroma, key_chroma);

  const float keep = softness > 0.0f ? smoothstep (tolerance, tolerance + softness, d) :
      (d > tolerance ? 1.0f : 0.0f);
  write_imagef (out, p, (float4) (c.xyz, c.w * keep));
}
