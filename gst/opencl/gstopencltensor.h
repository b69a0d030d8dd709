/* gst-opencl: arrays and volumes as `other/tensors` caps (NNStreamer's convention).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * One tensor per buffer: other/tensors, format=static, num_tensors=1, types=<type>,
 * dimensions=<d0>:<d1>:..., with d0 the innermost (fastest varying) dimension. A buffer holds
 * the product of the dimensions in elements of the type, densely packed. */
#pragma once

#include <gst/gst.h>

#include <optional>
#include <string>
#include <vector>

namespace gst_opencl {

enum class TensorType { Int32, UInt32, Float32, UInt8, Float16 };

struct TensorInfo
{
  TensorType type = TensorType::UInt8;
  std::vector<guint> dimensions;  /* innermost first; every entry >= 1 */

  gsize element_bytes () const;
  gsize element_count () const;
  gsize size_bytes () const { return element_bytes () * element_count (); }
  /* dimensions[i], or 1 beyond the ones given (NNStreamer pads with 1). */
  guint dimension (gsize index) const;
  bool operator== (const TensorInfo & other) const;
};

/* "int32", "uint32", "float32", "uint8", "float16" (IEEE 754 binary16, NNStreamer's name) */
const char *tensor_type_name (TensorType type);
std::optional<TensorType> tensor_type_from_name (const char *name);

/* Parses fixed caps; std::nullopt when they are not one static tensor of a known type with
 * well-formed dimensions (then `why` says what is wrong). */
std::optional<TensorInfo> tensor_info_from_caps (const GstCaps * caps, std::string * why);

/* Fixed caps for `info`; `framerate` is copied when given (0/1 otherwise). */
GstCaps *tensor_info_to_caps (const TensorInfo & info, gint fps_n = 0, gint fps_d = 1);

/* Whether caps are other/tensors (fixed or not). */
bool caps_are_tensors (const GstCaps * caps);

/* The caps string of a pad template accepting one static tensor of the listed types, e.g.
 * "{ int32, uint32, float32 }" or "uint8". */
std::string tensor_template_caps (const char *types);

}  // namespace gst_opencl
