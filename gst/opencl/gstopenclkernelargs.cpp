/* gst-opencl: a user kernel's arguments: their roles from names, types and qualifiers, and the
 * values of `parameters` encoded for them.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "opencl/gstopenclkernelargs.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>

#include "opencl/gstopenclutils.h"

namespace gst_opencl {

namespace {


bool
parse_arg_type (const std::string & name, ArgType & type)
{
  static const struct { const char *name; char kind; unsigned bytes; } scalars[] = {
    { "uchar", 'u', 1 }, { "char", 'i', 1 }, { "ushort", 'u', 2 }, { "short", 'i', 2 },
    { "uint", 'u', 4 }, { "int", 'i', 4 }, { "ulong", 'u', 8 }, { "long", 'i', 8 },
    { "float", 'f', 4 }, { "double", 'f', 8 },
  };
  for (const auto & scalar : scalars) {
    const size_t length = strlen (scalar.name);
    if (name.compare (0, length, scalar.name) != 0)
      continue;
    const std::string rest = name.substr (length);
    unsigned lanes = rest.empty () ? 1 : (unsigned) atoi (rest.c_str ());
    if (!rest.empty () && rest.find_first_not_of ("0123456789") != std::string::npos)
      continue;
    if (lanes != 1 && lanes != 2 && lanes != 3 && lanes != 4 && lanes != 8 && lanes != 16)
      return false;
    type = ArgType { scalar.kind, scalar.bytes, lanes };
    return true;
  }
  return false;
}

const char *
gvalue_type_name (const GValue * value)
{
  GType type = G_VALUE_TYPE (value);
  if (type == G_TYPE_INT || type == G_TYPE_INT64)
    return "an integer";
  if (type == G_TYPE_UINT || type == G_TYPE_UINT64)
    return "an unsigned integer";
  if (type == G_TYPE_FLOAT || type == G_TYPE_DOUBLE)
    return "a floating-point number";
  if (type == G_TYPE_STRING)
    return "a string";
  if (type == G_TYPE_BOOLEAN)
    return "a boolean";
  if (GST_VALUE_HOLDS_ARRAY (value))
    return "an array";
  if (GST_VALUE_HOLDS_LIST (value))
    return "a list";
  return g_type_name (type);
}

/* A plane argument's name: "src_" or "dst_", a plane ("y", "u", "v", "uv"), then nothing or
 * `suffix` ("_stride", "_width", "_height"). Fills `arg`'s input and plane. */
bool
plane_name (KernelArgument & arg, const std::string & suffix)
{
  const std::string & name = arg.name;
  if (name.size () <= 4 + suffix.size () || (name.compare (0, 4, "src_") != 0 &&
          name.compare (0, 4, "dst_") != 0) ||
      name.compare (name.size () - suffix.size (), suffix.size (), suffix) != 0)
    return false;
  const std::string plane = name.substr (4, name.size () - 4 - suffix.size ());
  if (plane != "y" && plane != "u" && plane != "v" && plane != "uv")
    return false;
  arg.input = name[0] == 's';
  arg.plane = plane;
  return true;
}

/* The int arguments a plane gives: src_uv_stride, src_uv_width, src_uv_height, ... */
bool
plane_scalar (KernelArgument & arg, bool for_source)
{
  static const struct { const char *suffix; ArgRole role; } filled[] = {
    { "_stride", ArgRole::PlaneStride }, { "_width", ArgRole::PlaneWidth },
    { "_height", ArgRole::PlaneHeight },
  };
  for (const auto & f : filled) {
    if (for_source || !plane_name (arg, f.suffix))
      continue;
    if (arg.type.lanes != 1 || arg.type.kind == 'f')
      throw Failure (Failure::Kind::Settings, "argument '" + arg.name + "' (" +
          arg.type_name + "): the element fills " + arg.name + ": make it an int");
    arg.role = f.role;
    return true;
  }
  return false;
}

}  // namespace

bool
is_plane_role (ArgRole role)
{
  return role == ArgRole::PlaneImage || role == ArgRole::PlaneBuffer ||
      role == ArgRole::PlaneStride || role == ArgRole::PlaneWidth ||
      role == ArgRole::PlaneHeight;
}

bool
encode_lane (const ArgType & type, unsigned char *out, double number, bool exact_integer,
    gint64 integer)
{
  if (type.kind == 'f') {
    /* NaN and infinities are refused, and so are numbers a float cannot hold (1e300 became
     * infinity in the kernel). */
    if (!std::isfinite (number) || (type.bytes == 4 && std::fabs (number) > FLT_MAX))
      return false;
    if (type.bytes == 4) {
      float v = (float) number;
      memcpy (out, &v, 4);
    } else {
      memcpy (out, &number, 8);
    }
    return true;
  }
  gint64 v = exact_integer ? integer : (gint64) std::llround (number);
  if (type.kind == 'u' && v < 0)
    return false;
  if (type.bytes < 8) {
    const unsigned bits = type.bytes * 8;
    const gint64 lo = type.kind == 'u' ? 0 : -(G_GINT64_CONSTANT (1) << (bits - 1));
    const gint64 hi = type.kind == 'u' ? (G_GINT64_CONSTANT (1) << bits) - 1 :
        (G_GINT64_CONSTANT (1) << (bits - 1)) - 1;
    if (v < lo || v > hi)
      return false;
  }
  /* Little-endian hosts and devices: the low bytes of the 64-bit value. */
  memcpy (out, &v, type.bytes);
  return true;
}

/* One lane from a structure field's value: integers for integer arguments, any number for
 * floating ones. Returns an empty string, or what is wrong. */
static std::string
encode_scalar (const ArgType & type, const GValue * value, unsigned char *out)
{
  GType gtype = G_VALUE_TYPE (value);
  bool integer = true;
  gint64 as_integer = 0;
  double number = 0.0;
  if (gtype == G_TYPE_INT)
    as_integer = g_value_get_int (value);
  else if (gtype == G_TYPE_UINT)
    as_integer = g_value_get_uint (value);
  else if (gtype == G_TYPE_INT64)
    as_integer = g_value_get_int64 (value);
  else if (gtype == G_TYPE_UINT64)
    as_integer = (gint64) MIN (g_value_get_uint64 (value), (guint64) G_MAXINT64);
  else if (gtype == G_TYPE_FLOAT)
    integer = false, number = g_value_get_float (value);
  else if (gtype == G_TYPE_DOUBLE)
    integer = false, number = g_value_get_double (value);
  else
    return std::string ("is ") + gvalue_type_name (value);
  if (integer)
    number = (double) as_integer;
  else if (type.kind != 'f')
    return "is a floating-point number (write it as (int) for an integer argument)";
  if (type.kind == 'f' && !std::isfinite (number))
    return "is not a finite number";
  if (!encode_lane (type, out, number, integer, as_integer))
    return "is out of the argument's range";
  return "";
}

std::string
type_text (const ArgType & type)
{
  static const char *names[3][9] = {
    { "", "char", "short", "", "int", "", "", "", "long" },
    { "", "uchar", "ushort", "", "uint", "", "", "", "ulong" },
    { "", "", "", "", "float", "", "", "", "double" },
  };
  const int row = type.kind == 'i' ? 0 : type.kind == 'u' ? 1 : 2;
  std::string text = names[row][type.bytes];
  if (type.lanes > 1)
    text += std::to_string (type.lanes);
  return text;
}


bool
has_role (const std::vector<KernelArgument> & arguments, ArgRole role)
{
  return std::any_of (arguments.begin (), arguments.end (), [&](const KernelArgument & a) {
    return a.role == role;
  });
}

/* An image or pointer named as a plane (src_y, dst_uv, ...): its role, checked against its
 * qualifiers. False for other arguments. */
static bool
plane_frame (KernelArgument & arg, cl_kernel_arg_address_qualifier address,
    cl_kernel_arg_access_qualifier access, bool for_source, const std::string & what)
{
  if (for_source || !plane_name (arg, ""))
    return false;
  if (arg.type_name.rfind ("image2d_t", 0) == 0) {
    if (access != (arg.input ? CL_KERNEL_ARG_ACCESS_READ_ONLY : CL_KERNEL_ARG_ACCESS_WRITE_ONLY))
      throw Failure (Failure::Kind::Settings, what + (arg.input ? ": an input plane is "
              "__read_only" : ": an output plane is __write_only"));
    arg.role = ArgRole::PlaneImage;
    return true;
  }
  if (address == CL_KERNEL_ARG_ADDRESS_GLOBAL ||
      (arg.input && address == CL_KERNEL_ARG_ADDRESS_CONSTANT)) {
    arg.role = ArgRole::PlaneBuffer;
    /* What it points to ("ushort*"), so that negotiation can match it with the samples' size. */
    std::string pointee = arg.type_name;
    if (!pointee.empty () && pointee.back () == '*')
      pointee.pop_back ();
    if (!parse_arg_type (pointee, arg.type))
      arg.type = ArgType ();
    return true;
  }
  return false;
}

/* A scalar's role: one the element fills (width, time, ...), checked against its type, or a
 * parameter. */
static ArgRole
filled_role (const KernelArgument & arg, bool for_source, const std::string & what)
{
  static const struct { const char *name; ArgRole role; bool floating; } filled[] = {
    { "src_stride", ArgRole::SrcStride, false }, { "dst_stride", ArgRole::DstStride, false },
    { "width", ArgRole::Width, false }, { "height", ArgRole::Height, false },
    { "frame", ArgRole::Frame, false }, { "time", ArgRole::Time, true },
  };
  for (const auto & f : filled) {
    if (arg.name != f.name || (f.role == ArgRole::SrcStride && for_source))
      continue;
    if (arg.type.lanes != 1 || (f.floating != (arg.type.kind == 'f')))
      throw Failure (Failure::Kind::Settings, what + ": the element fills " + f.name +
          (f.floating ? " with seconds: make it a float" : ": make it an int"));
    return f.role;
  }
  return ArgRole::Parameter;
}

std::vector<KernelArgument>
read_kernel_arguments (const cl::Kernel & kernel, const std::string & kernel_name,
    bool for_source)
{
  std::vector<KernelArgument> arguments;
  const std::string who = "kernel '" + kernel_name + "'";
  const cl_uint n_args = kernel.getInfo<CL_KERNEL_NUM_ARGS> ();
  for (cl_uint i = 0; i < n_args; i++) {
    KernelArgument arg;
    arg.index = i;
    cl_kernel_arg_address_qualifier address;
    cl_kernel_arg_access_qualifier access;
    try {
      arg.name = kernel.getArgInfo<CL_KERNEL_ARG_NAME> (i);
      arg.type_name = kernel.getArgInfo<CL_KERNEL_ARG_TYPE_NAME> (i);
      address = kernel.getArgInfo<CL_KERNEL_ARG_ADDRESS_QUALIFIER> (i);
      access = kernel.getArgInfo<CL_KERNEL_ARG_ACCESS_QUALIFIER> (i);
    } catch (const cl::Error & e) {
      throw Failure (Failure::Kind::Failed, "the driver gives no argument names for " + who +
          " (" + gst_opencl_error_name (e.err ()) + ")");
    }
    /* Some drivers keep a trailing NUL in the strings. */
    arg.name = arg.name.c_str ();
    arg.type_name = arg.type_name.c_str ();
    const std::string what = "argument '" + arg.name + "' (" + arg.type_name + ") of " + who;
    if (plane_frame (arg, address, access, for_source, what)) {
      /* one plane of a multi-plane frame */
    } else if (arg.type_name.rfind ("image2d_t", 0) == 0) {
      if (access == CL_KERNEL_ARG_ACCESS_READ_ONLY && !for_source)
        arg.role = ArgRole::InputImage;
      else if (access == CL_KERNEL_ARG_ACCESS_WRITE_ONLY)
        arg.role = ArgRole::OutputImage;
      else
        throw Failure (Failure::Kind::Settings, what + (for_source ?
                ": a source's kernel takes one __write_only image2d_t, its output" :
                ": images are the __read_only input and the __write_only output"));
      if (has_role (arguments, arg.role))
        throw Failure (Failure::Kind::Settings, what + ": a second " +
            (arg.role == ArgRole::InputImage ? "input" : "output") + " image");
    } else if (address == CL_KERNEL_ARG_ADDRESS_GLOBAL ||
        address == CL_KERNEL_ARG_ADDRESS_CONSTANT) {
      if (arg.name == "src" && !for_source)
        arg.role = ArgRole::SrcBuffer;
      else if (arg.name == "dst")
        arg.role = ArgRole::DstBuffer;
      else
        throw Failure (Failure::Kind::Settings, what + ": the only buffers given are " +
            (for_source ? "dst, the output frame" : "src and dst, the input and output "
                "frames"));
    } else if (address == CL_KERNEL_ARG_ADDRESS_LOCAL) {
      throw Failure (Failure::Kind::Settings, what + ": __local arguments cannot be given; "
          "declare local memory inside the kernel");
    } else if (!parse_arg_type (arg.type_name, arg.type)) {
      throw Failure (Failure::Kind::Settings, what + ": only integer, float and double "
          "scalars and vectors can be given");
    } else if (plane_scalar (arg, for_source)) {
      /* a plane's stride or size */
    } else {
      arg.role = filled_role (arg, for_source, what);
    }
    arguments.push_back (arg);
  }
  const bool writes_plane = std::any_of (arguments.begin (), arguments.end (),
      [] (const KernelArgument & a) {
        return !a.input && (a.role == ArgRole::PlaneImage || a.role == ArgRole::PlaneBuffer);
      });
  if (!has_role (arguments, ArgRole::OutputImage) && !has_role (arguments, ArgRole::DstBuffer) &&
      !writes_plane)
    throw Failure (Failure::Kind::Settings, who + " writes nothing: give it a __write_only "
        "image2d_t argument or a __global buffer named dst (or dst_y, ... on YUV frames)");
  return arguments;
}

std::vector<ParameterValue>
bind_parameters (const std::vector<KernelArgument> & arguments,
    const GstStructure * parameters)
{
  std::vector<ParameterValue> values;
  for (const auto & arg : arguments) {
    if (arg.role != ArgRole::Parameter)
      continue;
    const std::string what = "kernel argument '" + arg.name + "' (" + arg.type_name + ")";
    const GValue *v = parameters ? gst_structure_get_value (parameters, arg.name.c_str ()) :
        nullptr;
    if (!v) {
      const std::string one = arg.type.kind == 'f' ? "1.0" : "1";
      /* The casts a GstStructure knows: (int), (uint), (float), (double); else a plain 1. */
      std::string example = arg.type.bytes == 4 || arg.type.kind == 'f' ?
          "(" + type_text (ArgType { arg.type.kind, arg.type.bytes, 1 }) + ")" + one : one;
      if (arg.type.lanes > 1) {
        example = "<" + one;
        for (unsigned lane = 1; lane < arg.type.lanes; lane++)
          example += ", " + one;
        example += ">";
      }
      throw Failure (Failure::Kind::Settings, what + " has no value: give it in parameters, "
          "e.g. parameters=\"p," + arg.name + "=" + example + "\"");
    }
    ParameterValue value;
    value.index = arg.index;
    value.field = arg.name;
    value.type = arg.type;
    std::string problem;
    if (arg.type.lanes == 1) {
      problem = encode_scalar (arg.type, v, value.bytes);
    } else if (!GST_VALUE_HOLDS_ARRAY (v)) {
      problem = std::string ("is ") + gvalue_type_name (v) + ", not an array <...> of " +
          std::to_string (arg.type.lanes) + " numbers";
    } else if (gst_value_array_get_size (v) != arg.type.lanes) {
      problem = "has " + std::to_string (gst_value_array_get_size (v)) + " numbers, not " +
          std::to_string (arg.type.lanes);
    } else {
      for (unsigned lane = 0; lane < arg.type.lanes && problem.empty (); lane++) {
        problem = encode_scalar (arg.type, gst_value_array_get_value (v, lane),
            value.bytes + lane * arg.type.bytes);
        if (!problem.empty ())
          problem = "element " + std::to_string (lane) + " " + problem;
      }
    }
    if (!problem.empty ())
      throw Failure (Failure::Kind::Settings, "parameters field '" + arg.name + "' " +
          problem + ": " + what + " is " + type_text (arg.type));
    values.push_back (value);
  }
  return values;
}

}  // namespace gst_opencl
