/* gst-opencl: a user kernel's arguments (openclkernel, openclkernelsrc): the role of each, from
 * its name, type and qualifiers (clGetKernelArgInfo), and the values of the `parameters`
 * structure encoded for clSetKernelArg. docs/openclkernel.md states the contract.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gst/gst.h>

#include <string>
#include <vector>

#include "opencl/gstopenclbindings.h"

namespace gst_opencl {

/* What the element gives an argument, found from its name, type and qualifiers. */
enum class ArgRole
{
  InputImage, OutputImage, SrcBuffer, DstBuffer, SrcStride, DstStride, Width, Height, Time,
  Frame, Parameter,
  /* One plane of a multi-plane frame (NV12, I420, P010_10LE), by name: `src_y`, `dst_uv`, ...
   * as an image or a buffer, and `src_y_stride`, `src_y_width`, `src_y_height`. */
  PlaneImage, PlaneBuffer, PlaneStride, PlaneWidth, PlaneHeight,
};

/* Whether `role` is one of the Plane* roles. */
bool is_plane_role (ArgRole role);

/* An OpenCL C scalar or vector type: kind 'i' (signed), 'u' (unsigned) or 'f' (floating). */
struct ArgType
{
  char kind = 0;
  unsigned bytes = 0;  /* of one lane */
  unsigned lanes = 0;  /* 1, 2, 3, 4, 8 or 16 */
  unsigned size () const { return bytes * (lanes == 3 ? 4 : lanes); }
};

struct KernelArgument
{
  cl_uint index = 0;
  std::string name;
  std::string type_name;  /* as the driver spells it: "float4", "uchar*", "image2d_t" */
  ArgRole role = ArgRole::Parameter;
  ArgType type;           /* scalars and vectors; what a PlaneBuffer points to (or none) */
  /* Plane* roles: the input's (src_) or the output's (dst_) plane, named "y", "u", "v" or
   * "uv". */
  bool input = false;
  std::string plane;
};

/* A kernel-argument value encoded for clSetKernelArg. */
struct ParameterValue
{
  cl_uint index = 0;
  std::string field;
  ArgType type;
  unsigned char bytes[128] = {};
};

bool has_role (const std::vector<KernelArgument> & arguments, ArgRole role);

/* The arguments of `kernel` (built with -cl-kernel-arg-info) and their roles. Throws Failure
 * naming the argument when one cannot be given (a __local buffer, an unknown type, a second
 * output image, ...) or when the kernel writes nothing. */
std::vector<KernelArgument> read_kernel_arguments (const cl::Kernel & kernel,
    const std::string & kernel_name, bool for_source);

/* The Parameter arguments' values from `parameters`, by name. Throws Failure naming the
 * argument when a field is missing or of the wrong type or size. */
std::vector<ParameterValue> bind_parameters (const std::vector<KernelArgument> & arguments,
    const GstStructure * parameters);

/* One lane of `type` from a number (`exact_integer`: `integer` is the value); false when out of
 * the type's range. */
bool encode_lane (const ArgType & type, unsigned char *out, double number, bool exact_integer,
    gint64 integer);

/* "float4", "uint", ...: the OpenCL C name of `type`. */
std::string type_text (const ArgType & type);

}  // namespace gst_opencl
