/* gst-opencl: error names, checked calls and the exception boundary.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "opencl/gstopenclutils.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

GST_DEBUG_CATEGORY (gst_opencl_debug);
#define GST_CAT_DEFAULT gst_opencl_debug

const char *
gst_opencl_error_name (cl_int code)
{
  switch (code) {
#define NAME(c) case c: return #c
    NAME (CL_SUCCESS);
    NAME (CL_DEVICE_NOT_FOUND);
    NAME (CL_DEVICE_NOT_AVAILABLE);
    NAME (CL_COMPILER_NOT_AVAILABLE);
    NAME (CL_MEM_OBJECT_ALLOCATION_FAILURE);
    NAME (CL_OUT_OF_RESOURCES);
    NAME (CL_OUT_OF_HOST_MEMORY);
    NAME (CL_PROFILING_INFO_NOT_AVAILABLE);
    NAME (CL_MEM_COPY_OVERLAP);
    NAME (CL_IMAGE_FORMAT_MISMATCH);
    NAME (CL_IMAGE_FORMAT_NOT_SUPPORTED);
    NAME (CL_BUILD_PROGRAM_FAILURE);
    NAME (CL_MAP_FAILURE);
    NAME (CL_MISALIGNED_SUB_BUFFER_OFFSET);
    NAME (CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    NAME (CL_COMPILE_PROGRAM_FAILURE);
    NAME (CL_LINKER_NOT_AVAILABLE);
    NAME (CL_LINK_PROGRAM_FAILURE);
    NAME (CL_DEVICE_PARTITION_FAILED);
    NAME (CL_KERNEL_ARG_INFO_NOT_AVAILABLE);
    NAME (CL_INVALID_VALUE);
    NAME (CL_INVALID_DEVICE_TYPE);
    NAME (CL_INVALID_PLATFORM);
    NAME (CL_INVALID_DEVICE);
    NAME (CL_INVALID_CONTEXT);
    NAME (CL_INVALID_QUEUE_PROPERTIES);
    NAME (CL_INVALID_COMMAND_QUEUE);
    NAME (CL_INVALID_HOST_PTR);
    NAME (CL_INVALID_MEM_OBJECT);
    NAME (CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
    NAME (CL_INVALID_IMAGE_SIZE);
    NAME (CL_INVALID_SAMPLER);
    NAME (CL_INVALID_BINARY);
    NAME (CL_INVALID_BUILD_OPTIONS);
    NAME (CL_INVALID_PROGRAM);
    NAME (CL_INVALID_PROGRAM_EXECUTABLE);
    NAME (CL_INVALID_KERNEL_NAME);
    NAME (CL_INVALID_KERNEL_DEFINITION);
    NAME (CL_INVALID_KERNEL);
    NAME (CL_INVALID_ARG_INDEX);
    NAME (CL_INVALID_ARG_VALUE);
    NAME (CL_INVALID_ARG_SIZE);
    NAME (CL_INVALID_KERNEL_ARGS);
    NAME (CL_INVALID_WORK_DIMENSION);
    NAME (CL_INVALID_WORK_GROUP_SIZE);
    NAME (CL_INVALID_WORK_ITEM_SIZE);
    NAME (CL_INVALID_GLOBAL_OFFSET);
    NAME (CL_INVALID_EVENT_WAIT_LIST);
    NAME (CL_INVALID_EVENT);
    NAME (CL_INVALID_OPERATION);
    NAME (CL_INVALID_GL_OBJECT);
    NAME (CL_INVALID_BUFFER_SIZE);
    NAME (CL_INVALID_MIP_LEVEL);
    NAME (CL_INVALID_GLOBAL_WORK_SIZE);
    NAME (CL_INVALID_PROPERTY);
    NAME (CL_INVALID_IMAGE_DESCRIPTOR);
    NAME (CL_INVALID_COMPILER_OPTIONS);
    NAME (CL_INVALID_LINKER_OPTIONS);
    NAME (CL_INVALID_DEVICE_PARTITION_COUNT);
#undef NAME
    case -1001:
      return "CL_PLATFORM_NOT_FOUND_KHR";
    default:
      break;
  }
  static thread_local char unknown[48];
  g_snprintf (unknown, sizeof unknown, "CL_UNKNOWN_ERROR(%d)", code);
  return unknown;
}

void
gst_opencl_check (cl_int code, const char *call, const char *file, int line)
{
  if (code == CL_SUCCESS)
    return;
  gst_debug_log (gst_opencl_debug, GST_LEVEL_WARNING, file, "gst_opencl_check", line, nullptr,
      "%s failed: %s", call, gst_opencl_error_name (code));
  throw cl::Error (code, call);
}

namespace gst_opencl {

bool
refused_while_running (GObject * object, GParamSpec * pspec)
{
  if (!(pspec->flags & GST_PARAM_MUTABLE_READY) || !GST_IS_ELEMENT (object))
    return false;
  GstElement *element = GST_ELEMENT (object);
  GST_OBJECT_LOCK (element);
  const GstState state = GST_STATE (element);
  GST_OBJECT_UNLOCK (element);
  if (state <= GST_STATE_READY)
    return false;
  /* Before caps are negotiated the element has not read its settings yet (a harness, or a
   * pipeline still prerolling): the value is taken and used. */
  bool negotiated = false;
  gst_element_foreach_pad (element, [](GstElement *, GstPad * pad, gpointer data) -> gboolean {
        if (gst_pad_has_current_caps (pad))
          *static_cast<bool *> (data) = true;
        return TRUE;
      }, &negotiated);
  if (!negotiated)
    return false;
  GST_ELEMENT_WARNING (element, CORE, STATE_CHANGE, ("property '%s' can change only in the "
          "NULL or READY state; it keeps its value while %s", pspec->name,
          gst_element_state_get_name (state)), ("set it before the pipeline starts, or stop "
          "it first"));
  return true;
}

std::string
read_file_bounded (const std::string & path, size_t max_bytes, const std::string & what,
    Failure::Kind kind)
{
  FILE *file = fopen (path.c_str (), "rb");
  if (!file)
    throw Failure (kind, "cannot read " + what + ": " + g_strerror (errno));
  std::string text;
  char chunk[65536];
  bool failed = false;
  while (text.size () <= max_bytes) {
    const size_t want = MIN (sizeof chunk, max_bytes + 1 - text.size ());
    const size_t got = fread (chunk, 1, want, file);
    text.append (chunk, got);
    if (got < want) {
      failed = ferror (file) != 0;
      break;
    }
  }
  const int read_errno = errno;
  fclose (file);
  if (failed)
    throw Failure (kind, "cannot read " + what + ": " + g_strerror (read_errno));
  if (text.size () > max_bytes)
    throw Failure (kind, what + " is larger than " + std::to_string (max_bytes) + " bytes");
  return text;
}

std::string
describe_exception (std::exception_ptr error)
{
  try {
    std::rethrow_exception (error);
  } catch (const cl::Error & e) {
    return std::string (e.what () ? e.what () : "OpenCL call") + " failed: " +
        gst_opencl_error_name (e.err ());
  } catch (const std::bad_alloc &) {
    return "out of host memory";
  } catch (const std::exception & e) {
    return e.what ();
  } catch (...) {
    return "unknown error";
  }
}

void
post_exception (GstElement * element, std::exception_ptr error, const char *context,
    const char *file, const char *function, int line)
{
  std::string text = describe_exception (error);
  if (context && *context)
    text = std::string (context) + ": " + text;

  GQuark domain = GST_STREAM_ERROR;
  gint code = GST_STREAM_ERROR_FAILED;
  std::string debug;
  try {
    std::rethrow_exception (error);
  } catch (const BuildFailure & e) {
    domain = GST_LIBRARY_ERROR;
    code = GST_LIBRARY_ERROR_INIT;
    debug = "build log:\n" + e.build_log;
  } catch (const Failure & e) {
    switch (e.kind) {
      case Failure::Kind::NotFound:
        domain = GST_RESOURCE_ERROR;
        code = GST_RESOURCE_ERROR_NOT_FOUND;
        break;
      case Failure::Kind::Settings:
        domain = GST_RESOURCE_ERROR;
        code = GST_RESOURCE_ERROR_SETTINGS;
        break;
      case Failure::Kind::TooLarge:
        domain = GST_STREAM_ERROR;
        code = GST_STREAM_ERROR_FORMAT;
        break;
      case Failure::Kind::Abandoned:
        domain = GST_RESOURCE_ERROR;
        code = GST_RESOURCE_ERROR_BUSY;
        break;
      case Failure::Kind::Failed:
        break;
    }
  } catch (const cl::Error & e) {
    domain = GST_RESOURCE_ERROR;
    code = GST_RESOURCE_ERROR_FAILED;
    if (e.err () == CL_MEM_OBJECT_ALLOCATION_FAILURE || e.err () == CL_OUT_OF_RESOURCES ||
        e.err () == CL_OUT_OF_HOST_MEMORY)
      code = GST_RESOURCE_ERROR_NO_SPACE_LEFT;
  } catch (...) {
  }

  GST_CAT_ERROR_OBJECT (gst_opencl_debug, element, "%s", text.c_str ());
  gst_element_message_full (element, GST_MESSAGE_ERROR, domain, code,
      g_strdup (text.c_str ()), debug.empty () ? nullptr : g_strdup (debug.c_str ()), file,
      function, line);
}

std::string
hex_bytes (const unsigned char *bytes, size_t n)
{
  static const char digits[] = "0123456789abcdef";
  std::string text;
  for (size_t i = 0; i < n; i++) {
    text += digits[bytes[i] >> 4];
    text += digits[bytes[i] & 15];
  }
  return text;
}

}  // namespace gst_opencl
