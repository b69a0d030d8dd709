/* gst-opencl: frames to and from 8-bit normalised images, for devices that cannot view a buffer
 * as an image (no cl_khr_image2d_from_buffer, or rows not aligned as it needs).
 *
 * A frame's pixel is `channels` bytes (4, or 1 for GRAY8); `order` gives the byte that holds
 * each of red, green, blue and alpha, so the image is always RGBA (or R) whatever the frame's
 * byte order. Conversions are exact: v / 255 in, round (x * 255) out. */

__kernel void
frame_to_image (__global const uchar * frame, int stride, int channels, int4 order,
    __write_only image2d_t image)
{
  const int x = get_global_id (0);
  const int y = get_global_id (1);
  if (x >= get_image_width (image) || y >= get_image_height (image))
    return;
  __global const uchar *pixel = frame + (size_t) y * stride + (size_t) x * channels;
  float4 value;
  if (channels == 1)
    value = (float4) (pixel[0] / 255.0f, 0.0f, 0.0f, 1.0f);
  else
    value = (float4) (pixel[order.x], pixel[order.y], pixel[order.z], pixel[order.w]) / 255.0f;
  write_imagef (image, (int2) (x, y), value);
}

__kernel void
image_to_frame (__read_only image2d_t image, __global uchar * frame, int stride, int channels,
    int4 order)
{
  const int x = get_global_id (0);
  const int y = get_global_id (1);
  if (x >= get_image_width (image) || y >= get_image_height (image))
    return;
  const sampler_t exact = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_NONE | CLK_FILTER_NEAREST;
  const uchar4 value = convert_uchar4_sat_rte (read_imagef (image, exact, (int2) (x, y)) * 255.0f);
  __global uchar *pixel = frame + (size_t) y * stride + (size_t) x * channels;
  if (channels == 1) {
    pixel[0] = value.x;
    return;
  }
  pixel[order.x] = value.x;
  pixel[order.y] = value.y;
  pixel[order.z] = value.z;
  pixel[order.w] = value.w;
}
