/* gst-opencl: error names, checked calls and the exception boundary.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gst/gst.h>
#include <stdexcept>
#include <string>

#include "opencl/gstopenclbindings.h"

G_BEGIN_DECLS
GST_DEBUG_CATEGORY_EXTERN (gst_opencl_debug);
G_END_DECLS

/* "CL_OUT_OF_RESOURCES" for -5; "CL_UNKNOWN_ERROR(<n>)" for codes it does not know. */
const char *gst_opencl_error_name (cl_int code);

/* Checks a raw OpenCL result; on failure logs the call, file and line and throws cl::Error. */
void gst_opencl_check (cl_int code, const char *call, const char *file, int line);
#define GST_OPENCL_CHECK(call_expr) \
  gst_opencl_check ((call_expr), #call_expr, __FILE__, __LINE__)

namespace gst_opencl {

/* An error that is not a failed OpenCL call: no device, bad configuration, a frame too large.
 * Its `kind` picks the GStreamer error it becomes (post_exception). */
class Failure : public std::runtime_error
{
public:
  /* Abandoned: the host stopped waiting for a command that did not end (gstopenclwait.h). */
  enum class Kind { NotFound, Settings, Failed, TooLarge, Abandoned };
  Failure (Kind kind, const std::string & message)
    : std::runtime_error (message), kind (kind) {}
  Kind kind;
};

/* A program that failed to compile: carries the whole build log. */
class BuildFailure : public std::runtime_error
{
public:
  BuildFailure (const std::string & message, std::string log)
    : std::runtime_error (message), build_log (std::move (log)) {}
  std::string build_log;
};

/* The text of the file at `path`, read through at most `max_bytes` (and one byte more, to tell
 * that there is more): a file larger than that, or a device that never ends (/dev/zero), is
 * refused, not read whole into memory. Throws Failure (`kind`): "cannot read <what>: <reason>"
 * or "<what> is larger than <max_bytes> bytes"; `what` names the file ("the kernel file 'k.cl'"). */
std::string read_file_bounded (const std::string & path, size_t max_bytes,
    const std::string & what, Failure::Kind kind);

/* Whether a set of `pspec` is refused because the element runs: a property flagged
 * GST_PARAM_MUTABLE_READY ("changeable only in NULL or READY state", what the element reads
 * when it starts or negotiates) set in PAUSED or PLAYING once caps are negotiated keeps its
 * value, with a WARNING on the bus naming it, rather than taking a value that changes nothing. */
bool refused_while_running (GObject * object, GParamSpec * pspec);

/* Bytes as lower-case hex digits (device and GL UUIDs, as the GL interop's probe compares
 * them). */
std::string hex_bytes (const unsigned char *bytes, size_t n);

/* Describes any exception in one line: "clEnqueueNDRangeKernel failed: CL_OUT_OF_RESOURCES". */
std::string describe_exception (std::exception_ptr error);

/* Posts the exception as a GST_ELEMENT_ERROR on the element's bus (resource error for devices,
 * library error for builds, stream error otherwise), with the build log as debug text. */
void post_exception (GstElement * element, std::exception_ptr error, const char *context,
    const char *file, const char *function, int line);

/* Runs `body`, turning any exception into an element error; returns FALSE when one was thrown.
 * Every GObject virtual function of the plugin goes through this, so no exception escapes into
 * GStreamer's C code. */
template <typename Body>
gboolean guard_impl (GstElement * element, const char *context, const char *file,
    const char *function, int line, Body && body) noexcept
{
  try {
    body ();
    return TRUE;
  } catch (...) {
    post_exception (element, std::current_exception (), context, file, function, line);
    return FALSE;
  }
}

}  // namespace gst_opencl

/* Variadic so that a lambda body with commas passes through the preprocessor whole. */
#define GST_OPENCL_GUARD(element, context, ...) \
  gst_opencl::guard_impl (GST_ELEMENT_CAST (element), (context), __FILE__, GST_FUNCTION, \
      __LINE__, __VA_ARGS__)
