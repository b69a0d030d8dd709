/* gst-opencl: the 16-bit luma plane of a frame (GRAY16_LE, or P010_10LE's Y plane) as floats
 * on the 8-bit scale, for openclmulticonvolve.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Sample (x, y) of the plane at `plane_offset` bytes, rows `stride` bytes apart, is a
 * little-endian 16-bit word w; out[y * width + x] = (w >> shift) * factor. The host passes
 * shift 0 and factor 1/257 for GRAY16 (65535 -> 255, and an 8-bit value v stored as v * 257
 * gives v back exactly) and shift 6 and factor 255/1023 for P010 (the 10-bit value 1023 ->
 * 255). Words are read byte by byte: no alignment is assumed. */
__kernel void
luma16_to_float (__global const uchar * frame, ulong plane_offset, int stride, int width,
    int height, uint shift, float factor, __global float * out)
{
  const int x = get_global_id (0);
  const int y = get_global_id (1);
  if (x >= width || y >= height)
    return;
  __global const uchar *sample = frame + plane_offset + (size_t) y * stride + (size_t) x * 2;
  const uint word = (uint) sample[0] | ((uint) sample[1] << 8);
  out[(size_t) y * width + x] = (float) (word >> shift) * factor;
}
