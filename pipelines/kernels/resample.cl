/* gst-opencl example for openclkernel: a kernel that may change the frame's size. It takes
 * width and height, so the element lets downstream ask for another output size; each output
 * pixel then samples the input bilinearly (normalised coordinates, so any ratio works).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 *   filesrc location=in.avi ! decodebin ! videoconvert ! video/x-raw,format=RGBA \
 *       ! openclkernel location=pipelines/kernels/resample.cl \
 *       ! video/x-raw,width=320,height=180 ! ...
 *
 * width, height (int): the output frame's size, filled by the element. */
__kernel void
resample (__read_only image2d_t in, __write_only image2d_t out, int width, int height)
{
  const sampler_t bilinear = CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_CLAMP_TO_EDGE |
      CLK_FILTER_LINEAR;
  const int x = get_global_id (0), y = get_global_id (1);
  if (x >= width || y >= height)
    return;
  /* The centre of the output pixel, as a fraction of the frame: the same place in the input. */
  const float2 at = (float2) ((x + 0.5f) / width, (y + 0.5f) / height);
  write_imagef (out, (int2) (x, y), read_imagef (in, bilinear, at));
}
