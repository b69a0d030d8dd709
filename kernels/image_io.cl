/* gst-opencl: frames (or one plane of a frame) to and from normalised images, for devices that
 * cannot view a buffer as an image (no cl_khr_image2d_from_buffer, rows not aligned as it needs,
 * or a plane that does not start the buffer).
 *
 * The plane starts `offset` bytes into `frame`, rows `stride` bytes apart. A pixel is `channels`
 * samples (1, 2 or 4) of one byte, or of two (`wide`: 16-bit little-endian words, as GRAY16_LE,
 * RGBA64_LE and P010_10LE hold them). With 4 channels, `order` gives the sample that holds each
 * of red, green, blue and alpha, so the image is always RGBA whatever the frame's order; with 1
 * or 2 they are the image's R (and G) in the frame's order. Conversions are exact: v / 255 (or
 * v / 65535) in, round (x * 255) (or round (x * 65535)) out. */

float
sample_in (__global const uchar * pixel, int index, int wide)
{
  if (wide)
    return (pixel[2 * index] | (pixel[2 * index + 1] << 8)) / 65535.0f;
  return pixel[index] / 255.0f;
}

void
sample_out (__global uchar * pixel, int index, int wide, float value)
{
  if (wide) {
    const ushort v = convert_ushort_sat_rte (value * 65535.0f);
    pixel[2 * index] = (uchar) (v & 0xff);
    pixel[2 * index + 1] = (uchar) (v >> 8);
  } else {
    pixel[index] = convert_uchar_sat_rte (value * 255.0f);
  }
}

__kernel void
frame_to_image (__global const uchar * frame, int offset, int stride, int channels, int4 order,
    int wide, __write_only image2d_t image)
{
  const int x = get_global_id (0);
  const int y = get_global_id (1);
  if (x >= get_image_width (image) || y >= get_image_height (image))
    return;
  __global const uchar *pixel = frame + offset + (size_t) y * stride +
      (size_t) x * channels * (wide ? 2 : 1);
  float4 value = (float4) (sample_in (pixel, 0, wide), 0.0f, 0.0f, 1.0f);
  if (channels == 2)
    value.y = sample_in (pixel, 1, wide);
  else if (channels == 4)
    value = (float4) (sample_in (pixel, order.x, wide), sample_in (pixel, order.y, wide),
        sample_in (pixel, order.z, wide), sample_in (pixel, order.w, wide));
  write_imagef (image, (int2) (x, y), value);
}

__kernel void
image_to_frame (__read_only image2d_t image, __global uchar * frame, int offset, int stride,
    int channels, int4 order, int wide)
{
  const int x = get_global_id (0);
  const int y = get_global_id (1);
  if (x >= get_image_width (image) || y >= get_image_height (image))
    return;
  const sampler_t exact = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_NONE | CLK_FILTER_NEAREST;
  const float4 value = read_imagef (image, exact, (int2) (x, y));
  __global uchar *pixel = frame + offset + (size_t) y * stride +
      (size_t) x * channels * (wide ? 2 : 1);
  if (channels == 4) {
    sample_out (pixel, order.x, wide, value.x);
    sample_out (pixel, order.y, wide, value.y);
    sample_out (pixel, order.z, wide, value.z);
    sample_out (pixel, order.w, wide, value.w);
    return;
  }
  sample_out (pixel, 0, wide, value.x);
  if (channels == 2)
    sample_out (pixel, 1, wide, value.y);
}
