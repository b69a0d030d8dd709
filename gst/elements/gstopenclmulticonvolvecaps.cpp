/* gst-opencl: openclmulticonvolve's caps (frames or volumes in, tensors or video out).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "elements/gstopenclmulticonvolvecaps.h"

#include <string>

#include "opencl/gstopenclmemory.h"
#include "opencl/gstopencltensor.h"
#include "opencl/gstopenclutils.h"

namespace gst_opencl_multi_convolve {

void
append_outputs (const GstStructure * in, int num_kernels, bool cuda, GstCaps * result)
{
  GstCaps *one = gst_caps_new_full (gst_structure_copy (in), nullptr);
  gint fps_n = 0, fps_d = 1;
  gst_structure_get_fraction (in, "framerate", &fps_n, &fps_d);
  if (gst_structure_has_name (in, "video/x-raw")) {
    gint width = 0, height = 0;
    if (gst_caps_is_fixed (one) && gst_structure_get_int (in, "width", &width) &&
        gst_structure_get_int (in, "height", &height)) {
      gst_opencl::TensorInfo info;
      info.type = gst_opencl::TensorType::Float32;
      info.dimensions = { (guint) num_kernels, (guint) width, (guint) height };
      gst_caps_append (result, gst_opencl::tensor_info_to_caps (info, fps_n, fps_d));
    } else {
      gst_caps_append (result, gst_caps_from_string (
              gst_opencl::tensor_template_caps ("float32").c_str ()));
    }
    if (num_kernels <= 4) {
      GstStructure *video = gst_structure_copy (in);
      gst_structure_set (video, "format", G_TYPE_STRING, num_kernels == 1 ? "GRAY8" : "RGBA",
          nullptr);
      /* The responses are not YUV: a YUV input's chroma siting and matrix do not apply. */
      const gchar *format = gst_structure_get_string (in, "format");
      if (!format || g_strcmp0 (format, "GRAY8") != 0)
        gst_structure_remove_fields (video, "chroma-site", "colorimetry", nullptr);
      GstStructure *in_cuda = cuda ? gst_structure_copy (video) : nullptr;
      gst_caps_append_structure (result, video);
      if (in_cuda)
        gst_caps_append_structure_full (result, in_cuda,
            gst_caps_features_new (GST_OPENCL_CAPS_FEATURE_MEMORY_CUDA, nullptr));
    }
  } else {
    std::string why;
    auto info = gst_opencl::tensor_info_from_caps (one, &why);
    if (info && info->type == gst_opencl::TensorType::UInt8) {
      gst_opencl::TensorInfo out;
      out.type = gst_opencl::TensorType::Float32;
      out.dimensions.push_back ((guint) num_kernels);
      for (guint d : info->dimensions)
        out.dimensions.push_back (d);
      gst_caps_append (result, gst_opencl::tensor_info_to_caps (out, fps_n, fps_d));
    } else {
      gst_caps_append (result, gst_caps_from_string (
              gst_opencl::tensor_template_caps ("float32").c_str ()));
    }
  }
  gst_caps_unref (one);
}

Shape
shape_of (GstCaps * incaps, GstCaps * outcaps, int num_kernels)
{
  using gst_opencl::Failure;
  Shape shape;
  shape.video_in = !gst_opencl::caps_are_tensors (incaps);
  if (shape.video_in) {
    if (!gst_video_info_from_caps (&shape.in_video, incaps))
      throw Failure (Failure::Kind::Settings, "invalid video input caps");
    shape.width = GST_VIDEO_INFO_WIDTH (&shape.in_video);
    shape.height = GST_VIDEO_INFO_HEIGHT (&shape.in_video);
    shape.depth = 1;
    switch (GST_VIDEO_INFO_FORMAT (&shape.in_video)) {
      case GST_VIDEO_FORMAT_GRAY8:
      case GST_VIDEO_FORMAT_NV12:
      case GST_VIDEO_FORMAT_I420:
        break;
      case GST_VIDEO_FORMAT_GRAY16_LE:
        shape.luma_words = true;
        shape.luma_factor = 1.0f / 257.0f;
        break;
      case GST_VIDEO_FORMAT_P010_10LE:
        shape.luma_words = true;
        shape.luma_shift = 6;
        shape.luma_factor = 255.0f / 1023.0f;
        break;
      default:
        throw Failure (Failure::Kind::Settings, std::string ("unsupported video format ") +
            gst_video_format_to_string (GST_VIDEO_INFO_FORMAT (&shape.in_video)));
    }
  } else {
    std::string why;
    auto info = gst_opencl::tensor_info_from_caps (incaps, &why);
    if (!info)
      throw Failure (Failure::Kind::Settings, "input tensor: " + why);
    if (info->type != gst_opencl::TensorType::UInt8)
      throw Failure (Failure::Kind::Settings, "input tensor must be uint8");
    for (gsize d = 3; d < info->dimensions.size (); d++) {
      if (info->dimensions[d] != 1)
        throw Failure (Failure::Kind::Settings, "input tensor has more than 3 dimensions");
    }
    shape.width = (int) info->dimension (0);
    shape.height = (int) info->dimension (1);
    shape.depth = (int) info->dimension (2);
  }

  shape.video_out = !gst_opencl::caps_are_tensors (outcaps);
  if (shape.video_out) {
    if (!shape.video_in || !gst_video_info_from_caps (&shape.out_video, outcaps))
      throw Failure (Failure::Kind::Settings, "video output needs video input");
    const bool gray = GST_VIDEO_INFO_FORMAT (&shape.out_video) == GST_VIDEO_FORMAT_GRAY8;
    if ((gray && num_kernels != 1) || num_kernels > 4)
      throw Failure (Failure::Kind::Settings, "video output holds 1 (GRAY8) or up to 4 "
          "(RGBA) responses, not " + std::to_string (num_kernels));
    if (GST_VIDEO_INFO_WIDTH (&shape.out_video) != shape.width ||
        GST_VIDEO_INFO_HEIGHT (&shape.out_video) != shape.height)
      throw Failure (Failure::Kind::Settings, "output size differs from the input's");
    shape.out_bytes = shape.out_video.size;
  } else {
    auto info = gst_opencl::tensor_info_from_caps (outcaps, nullptr);
    if (!info || info->type != gst_opencl::TensorType::Float32 ||
        info->dimension (0) != (guint) num_kernels ||
        info->dimension (1) != (guint) shape.width || info->dimension (2) !=
        (guint) shape.height || info->dimension (3) != (guint) shape.depth)
      throw Failure (Failure::Kind::Settings, "output tensor must be float32 N:W:H[:D] with "
          "N = num-kernels and the input's size");
    shape.out_bytes = info->size_bytes ();
  }
  return shape;
}

}  // namespace gst_opencl_multi_convolve
