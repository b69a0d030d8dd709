/* gst-opencl: arrays and volumes as `other/tensors` caps.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "opencl/gstopencltensor.h"

#include <cstring>

#include "opencl/gstopenclnametable.h"

namespace gst_opencl {

namespace {

constexpr const char *TENSORS_MEDIA_TYPE = "other/tensors";

struct TypeName
{
  TensorType type;
  const char *name;
  gsize bytes;
};

constexpr TypeName TYPE_NAMES[] = {
  { TensorType::Int32, "int32", 4 },
  { TensorType::UInt32, "uint32", 4 },
  { TensorType::Float32, "float32", 4 },
  { TensorType::UInt8, "uint8", 1 },
  { TensorType::Float16, "float16", 2 },
};

/* "W:H:D" -> { W, H, D }; nullopt on anything but 1..16 positive integers. */
std::optional<std::vector<guint>>
parse_dimensions (const char *text)
{
  std::vector<guint> dimensions;
  gchar **parts = g_strsplit (text, ":", -1);
  bool ok = parts[0] != nullptr;
  for (gchar **part = parts; ok && *part; part++) {
    gchar *end = nullptr;
    guint64 value = g_ascii_strtoull (g_strstrip (*part), &end, 10);
    ok = **part && end && *end == '\0' && value >= 1 && value <= G_MAXINT;
    dimensions.push_back ((guint) value);
  }
  g_strfreev (parts);
  if (!ok || dimensions.size () > 16)
    return std::nullopt;
  return dimensions;
}

}  // namespace

gsize
TensorInfo::element_bytes () const
{
  const TypeName *entry = entry_with (TYPE_NAMES, &TypeName::type, type);
  return entry ? entry->bytes : 0;
}

gsize
TensorInfo::element_count () const
{
  gsize count = 1;
  for (guint dimension : dimensions)
    count *= dimension;
  return dimensions.empty () ? 0 : count;
}

guint
TensorInfo::dimension (gsize index) const
{
  return index < dimensions.size () ? dimensions[index] : 1;
}

bool
TensorInfo::operator== (const TensorInfo & other) const
{
  return type == other.type && dimensions == other.dimensions;
}

const char *
tensor_type_name (TensorType type)
{
  const TypeName *entry = entry_with (TYPE_NAMES, &TypeName::type, type);
  return entry ? entry->name : "unknown";
}

std::optional<TensorType>
tensor_type_from_name (const char *name)
{
  if (const TypeName *entry = entry_named (TYPE_NAMES, name))
    return entry->type;
  return std::nullopt;
}

std::optional<TensorInfo>
tensor_info_from_caps (const GstCaps * caps, std::string * why)
{
  auto fail = [why] (const std::string & reason) -> std::optional<TensorInfo> {
    if (why)
      *why = reason;
    return std::nullopt;
  };
  if (!caps || gst_caps_get_size (caps) != 1 || !gst_caps_is_fixed (caps))
    return fail ("tensor caps must be fixed");
  const GstStructure *s = gst_caps_get_structure (caps, 0);
  if (!gst_structure_has_name (s, TENSORS_MEDIA_TYPE))
    return fail ("not other/tensors");
  const char *format = gst_structure_get_string (s, "format");
  if (format && std::strcmp (format, "static") != 0)
    return fail (std::string ("tensor format \"") + format + "\" is not supported (static only)");
  gint count = 1;
  if (gst_structure_get_int (s, "num_tensors", &count) && count != 1)
    return fail ("exactly one tensor per buffer is supported, not " + std::to_string (count));
  auto type = tensor_type_from_name (gst_structure_get_string (s, "types"));
  if (!type)
    return fail ("unsupported or missing tensor type");
  const char *dimensions_text = gst_structure_get_string (s, "dimensions");
  if (!dimensions_text)
    return fail ("missing tensor dimensions");
  auto dimensions = parse_dimensions (dimensions_text);
  if (!dimensions)
    return fail (std::string ("malformed tensor dimensions \"") + dimensions_text + "\"");
  TensorInfo info;
  info.type = *type;
  info.dimensions = std::move (*dimensions);
  /* Sixteen dimensions of up to 2^31 - 1 each overflow gsize: the byte size must be exact and
   * fit a buffer (G_MAXSSIZE), or nothing downstream can size or check a buffer by it. */
  gsize bytes = info.element_bytes ();
  for (guint dimension : info.dimensions) {
    if (bytes > (gsize) G_MAXSSIZE / dimension)
      return fail (std::string ("tensor dimensions \"") + dimensions_text +
          "\" describe more bytes than a buffer can hold");
    bytes *= dimension;
  }
  return info;
}

GstCaps *
tensor_info_to_caps (const TensorInfo & info, gint fps_n, gint fps_d)
{
  std::string dimensions;
  for (gsize i = 0; i < info.dimensions.size (); i++)
    dimensions += (i ? ":" : "") + std::to_string (info.dimensions[i]);
  return gst_caps_new_simple (TENSORS_MEDIA_TYPE,
      "format", G_TYPE_STRING, "static",
      "num_tensors", G_TYPE_INT, 1,
      "types", G_TYPE_STRING, tensor_type_name (info.type),
      "dimensions", G_TYPE_STRING, dimensions.c_str (),
      "framerate", GST_TYPE_FRACTION, fps_n, fps_d, nullptr);
}

bool
caps_are_tensors (const GstCaps * caps)
{
  if (!caps || gst_caps_is_empty (caps) || gst_caps_is_any (caps))
    return false;
  return gst_structure_has_name (gst_caps_get_structure (caps, 0), TENSORS_MEDIA_TYPE);
}

std::string
tensor_template_caps (const char *types)
{
  return std::string (TENSORS_MEDIA_TYPE) + ", format=(string)static, num_tensors=(int)1, "
      "types=(string)" + types + ", framerate=(fraction)[0/1, max]";
}

}  // namespace gst_opencl
