/* gst-opencl tests: frames, patterns, comparisons and pipeline helpers shared by the suites.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "common/testutil.h"

#include <gmodule.h>

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <gst/check/gstcheck.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <random>

namespace testutil {

const char *
pattern_name (Pattern pattern)
{
  static const char *const names[] = { "random", "edges", "flat", "gradient" };
  return names[(int) pattern];
}

Frame::Frame (int w, int h, int bpp, int row_stride)
  : width (w), height (h), bytes_per_pixel (bpp),
    stride (row_stride ? row_stride : w * bpp), bytes ((size_t) stride * h, 0xA5)
{
}

void
set_float_array (gpointer object, const char *name, const std::vector<double> & values)
{
  GValue array = G_VALUE_INIT;
  gst_value_array_init (&array, values.size ());
  for (double v : values) {
    GValue element_value = G_VALUE_INIT;
    g_value_init (&element_value, G_TYPE_FLOAT);
    g_value_set_float (&element_value, (float) v);
    gst_value_array_append_and_take_value (&array, &element_value);
  }
  g_object_set_property (G_OBJECT (object), name, &array);
  g_value_unset (&array);
}

bool
full_suite ()
{
  const char *quick = g_getenv ("GST_OPENCL_TEST_QUICK");
  return !quick || !*quick || g_str_equal (quick, "0");
}

bool
contains (const std::string & text, const std::string & part)
{
  return text.find (part) != std::string::npos;
}

std::string
one_line (const std::string & text)
{
  std::string line = text;
  std::replace (line.begin (), line.end (), '\n', ' ');
  return line;
}

std::vector<std::string>
split (const std::string & text, const std::string & separator)
{
  std::vector<std::string> pieces;
  for (size_t start = 0; start <= text.size ();) {
    size_t end = text.find (separator, start);
    if (end == std::string::npos)
      end = text.size ();
    pieces.push_back (text.substr (start, end - start));
    start = end + separator.size ();
  }
  return pieces;
}

void
fill (Frame & frame, Pattern pattern, uint32_t seed)
{
  std::mt19937 random (seed);
  std::uniform_int_distribution<int> byte (0, 255);
  std::uniform_int_distribution<int> noise (-6, 6);
  const int bpp = frame.bytes_per_pixel;
  auto clamp8 = [](int v) { return (uint8_t) std::clamp (v, 0, 255); };
  for (int y = 0; y < frame.height; y++) {
    uint8_t *row = frame.row (y);
    for (int x = 0; x < frame.width; x++) {
      for (int c = 0; c < bpp; c++) {
        int value = 0;
        switch (pattern) {
          case Pattern::Random:
            value = byte (random);
            break;
          case Pattern::Edges:{
            bool bright = x >= frame.width / 2;
            bool square = x >= frame.width / 5 && x < frame.width / 3 &&
                y >= frame.height / 4 && y < frame.height * 3 / 4;
            int base = (bright || square) ? 200 - 30 * c : 30 + 20 * c;
            value = base + noise (random);
            break;
          }
          case Pattern::Flat:
            value = 90 + 40 * c + noise (random);
            break;
          case Pattern::Gradient:
            value = (x * 255) / std::max (1, frame.width - 1) * (c % 2 ? 1 : 0) +
                (y * 255) / std::max (1, frame.height - 1) * (c % 2 ? 0 : 1);
            value = value / (c == 2 ? 2 : 1);
            break;
        }
        row[x * bpp + c] = clamp8 (value);
      }
    }
  }
}

Frame
filled (Frame frame, Pattern pattern, uint32_t seed)
{
  fill (frame, pattern, seed);
  return frame;
}

GstBuffer *
to_buffer (const Frame & frame, GstVideoFormat format, GstAllocationParams * params)
{
  GstBuffer *buffer = gst_buffer_new_allocate (nullptr, frame.bytes.size (), params);
  gst_buffer_fill (buffer, 0, frame.bytes.data (), frame.bytes.size ());
  gsize offset[GST_VIDEO_MAX_PLANES] = { 0 };
  gint stride[GST_VIDEO_MAX_PLANES] = { frame.stride };
  gst_buffer_add_video_meta_full (buffer, GST_VIDEO_FRAME_FLAG_NONE, format, frame.width,
      frame.height, 1, offset, stride);
  return buffer;
}

Frame
from_buffer (GstBuffer * buffer, const GstVideoInfo * info)
{
  GstVideoFrame mapped;
  fail_unless (gst_video_frame_map (&mapped, info, buffer, GST_MAP_READ));
  Frame frame (GST_VIDEO_FRAME_WIDTH (&mapped), GST_VIDEO_FRAME_HEIGHT (&mapped),
      GST_VIDEO_FRAME_COMP_PSTRIDE (&mapped, 0));
  const auto *data = static_cast<const uint8_t *> (GST_VIDEO_FRAME_PLANE_DATA (&mapped, 0));
  const int stride = GST_VIDEO_FRAME_PLANE_STRIDE (&mapped, 0);
  for (int y = 0; y < frame.height; y++)
    std::memcpy (frame.row (y), data + (size_t) y * stride, (size_t) frame.width *
        frame.bytes_per_pixel);
  gst_video_frame_unmap (&mapped);
  return frame;
}

Difference
compare (const Frame & a, const Frame & b, const std::vector<int> & channel_tolerance)
{
  fail_unless_equals_int (a.width, b.width);
  fail_unless_equals_int (a.height, b.height);
  fail_unless_equals_int (a.bytes_per_pixel, b.bytes_per_pixel);
  Difference difference;
  for (int y = 0; y < a.height; y++) {
    for (int x = 0; x < a.width; x++) {
      for (int c = 0; c < a.bytes_per_pixel; c++) {
        int d = std::abs ((int) a.row (y)[x * a.bytes_per_pixel + c] -
            (int) b.row (y)[x * b.bytes_per_pixel + c]);
        difference.max = std::max (difference.max, d);
        if (d > channel_tolerance[c]) {
          if (difference.over++ == 0) {
            difference.x = x;
            difference.y = y;
            difference.c = c;
          }
        }
      }
    }
  }
  return difference;
}

std::string
describe (const Difference & d)
{
  char text[160];
  g_snprintf (text, sizeof text, "max difference %d, %zu bytes over tolerance, first at "
      "x=%d y=%d channel %d", d.max, d.over, d.x, d.y, d.c);
  return text;
}

std::string
message_text (GstMessage * message)
{
  GError *error = nullptr;
  gchar *debug = nullptr;
  if (GST_MESSAGE_TYPE (message) == GST_MESSAGE_WARNING)
    gst_message_parse_warning (message, &error, &debug);
  else
    gst_message_parse_error (message, &error, &debug);
  std::string text = std::string (error->message) + "\n" + (debug ? debug : "");
  g_clear_error (&error);
  g_free (debug);
  return text;
}

std::string
first_error (GstBus * bus)
{
  std::string text;
  while (GstMessage *message = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR)) {
    if (text.empty ())
      text = message_text (message);
    gst_message_unref (message);
  }
  return text;
}

std::string
run_pipeline (GstElement * pipeline, int timeout_s)
{
  fail_unless (pipeline != nullptr);
  GstBus *bus = gst_element_get_bus (pipeline);
  std::string result;
  GstStateChangeReturn change = gst_element_set_state (pipeline, GST_STATE_PLAYING);
  GstMessage *message = gst_bus_timed_pop_filtered (bus, (GstClockTime) timeout_s * GST_SECOND,
      (GstMessageType) (GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
  fail_unless (message != nullptr, "pipeline neither finished nor failed in %d s (state change "
      "returned %d)", timeout_s, change);
  if (GST_MESSAGE_TYPE (message) == GST_MESSAGE_ERROR) {
    result = message_text (message);
    fail_unless (!result.empty ());
  }
  gst_message_unref (message);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipeline);
  return result;
}

void
expect_read_only (GstElement * element, const char *name)
{
  GParamSpec *spec = g_object_class_find_property (G_OBJECT_GET_CLASS (element), name);
  fail_unless (spec != nullptr, "no property %s", name);
  fail_unless (!(spec->flags & G_PARAM_WRITABLE), "%s is writable", name);
}

std::string
string_property (gpointer object, const char *name)
{
  gchar *value = nullptr;
  g_object_get (object, name, &value, nullptr);
  std::string text = value ? value : "";
  g_free (value);
  return text;
}

GstElement *
parse_pipeline (const std::string & launch_line)
{
  GError *error = nullptr;
  GstElement *pipeline = gst_parse_launch (launch_line.c_str (), &error);
  fail_unless (pipeline != nullptr && error == nullptr, "cannot parse \"%s\": %s",
      launch_line.c_str (), error ? error->message : "");
  return pipeline;
}

void
expect_no_error (GstElement * pipeline)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *message = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  gst_object_unref (bus);
  if (!message)
    return;
  std::string text = message_text (message);
  gst_message_unref (message);
  fail ("the pipeline failed: %s", text.c_str ());
}

std::string
run_pipeline (const std::string & launch_line, int timeout_s)
{
  return run_pipeline (parse_pipeline (launch_line), timeout_s);
}

std::string
run_with_caps_after_linking (const std::string & source_line, const char *caps)
{
  GstElement *pipeline = parse_pipeline (source_line + " ! capsfilter name=caps ! fakesink");
  GstElement *capsfilter = gst_bin_get_by_name (GST_BIN (pipeline), "caps");
  GstCaps *parsed = gst_caps_from_string (caps);
  g_object_set (capsfilter, "caps", parsed, nullptr);
  gst_caps_unref (parsed);
  gst_object_unref (capsfilter);
  return run_pipeline (pipeline);
}

std::string
run_pipeline_with_max_alloc (const char *max_alloc_bytes, const std::string & launch_line)
{
  g_setenv ("GST_OPENCL_MAX_ALLOC_BYTES", max_alloc_bytes, TRUE);
  std::string error = run_pipeline (launch_line);
  g_unsetenv ("GST_OPENCL_MAX_ALLOC_BYTES");
  return error;
}

/* The device an element picks with an empty `device` property: the one GST_OPENCL_DEVICE names
 * ("gpu", "cpu", "<platform name substring>[:<index>]", as gstopencldevice.cpp reads it), else
 * the first GPU, else the first CPU device. */
static cl_device_id
default_device ()
{
  cl_uint n_platforms = 0;
  if (clGetPlatformIDs (0, nullptr, &n_platforms) != CL_SUCCESS || n_platforms == 0)
    return nullptr;
  std::vector<cl_platform_id> platforms (n_platforms);
  if (clGetPlatformIDs (n_platforms, platforms.data (), nullptr) != CL_SUCCESS)
    return nullptr;
  auto first_of_type = [&](cl_device_type type) -> cl_device_id {
    for (cl_platform_id platform : platforms) {
      cl_device_id device = nullptr;
      if (clGetDeviceIDs (platform, type, 1, &device, nullptr) == CL_SUCCESS && device)
        return device;
    }
    return nullptr;
  };
  gchar *wanted = g_strstrip (g_ascii_strdown (g_getenv ("GST_OPENCL_DEVICE") ?
          g_getenv ("GST_OPENCL_DEVICE") : "", -1));
  std::string text = wanted;
  g_free (wanted);
  if (text == "gpu")
    return first_of_type (CL_DEVICE_TYPE_GPU);
  if (text == "cpu")
    return first_of_type (CL_DEVICE_TYPE_CPU);
  if (!text.empty ()) {
    std::string substring = text;
    cl_uint index = 0;
    const size_t colon = text.rfind (':');
    if (colon != std::string::npos && colon + 1 < text.size () &&
        text.find_first_not_of ("0123456789", colon + 1) == std::string::npos) {
      substring = text.substr (0, colon);
      index = (cl_uint) std::stoul (text.substr (colon + 1));
    }
    for (cl_platform_id platform : platforms) {
      char name[256] = { 0 };
      clGetPlatformInfo (platform, CL_PLATFORM_NAME, sizeof (name) - 1, name, nullptr);
      gchar *lower = g_ascii_strdown (name, -1);
      const bool match = std::string (lower).find (substring) != std::string::npos;
      g_free (lower);
      cl_uint count = 0;
      if (!match || clGetDeviceIDs (platform, CL_DEVICE_TYPE_ALL, 0, nullptr, &count) !=
          CL_SUCCESS || index >= count)
        continue;
      std::vector<cl_device_id> devices (count);
      if (clGetDeviceIDs (platform, CL_DEVICE_TYPE_ALL, count, devices.data (), nullptr) ==
          CL_SUCCESS)
        return devices[index];
    }
    return nullptr;
  }
  cl_device_id device = first_of_type (CL_DEVICE_TYPE_GPU);
  return device ? device : first_of_type (CL_DEVICE_TYPE_CPU);
}

/* One value of the default device's CL_DEVICE_* `param`, or `fallback` without one. */
template<typename T> T
default_device_info (cl_device_info param, T fallback)
{
  cl_device_id device = default_device ();
  T value {};
  if (!device || clGetDeviceInfo (device, param, sizeof (value), &value, nullptr) != CL_SUCCESS)
    return fallback;
  return value;
}

guint
cpu_device_native_float_lanes ()
{
  cl_uint n_platforms = 0;
  if (clGetPlatformIDs (0, nullptr, &n_platforms) != CL_SUCCESS || n_platforms == 0)
    return 0;
  std::vector<cl_platform_id> platforms (n_platforms);
  if (clGetPlatformIDs (n_platforms, platforms.data (), nullptr) != CL_SUCCESS)
    return 0;
  for (cl_platform_id platform : platforms) {
    cl_device_id device = nullptr;
    cl_uint lanes = 0;
    if (clGetDeviceIDs (platform, CL_DEVICE_TYPE_CPU, 1, &device, nullptr) == CL_SUCCESS &&
        device && clGetDeviceInfo (device, CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT, sizeof (lanes),
            &lanes, nullptr) == CL_SUCCESS)
      return lanes;
  }
  return 0;
}

guint64
default_device_local_mem_bytes ()
{
  return default_device_info<cl_ulong> (CL_DEVICE_LOCAL_MEM_SIZE, 0);
}

guint
default_device_base_align_bytes ()
{
  return MAX (default_device_info<cl_uint> (CL_DEVICE_MEM_BASE_ADDR_ALIGN, 8) / 8, 1u);
}

std::string
default_device_vendor ()
{
  cl_device_id device = default_device ();
  char vendor[256] = { 0 };
  if (!device || clGetDeviceInfo (device, CL_DEVICE_VENDOR, sizeof (vendor) - 1, vendor,
          nullptr) != CL_SUCCESS)
    return "";
  return vendor;
}

namespace {

/* Whether the default device lists CL_SEMAPHORE_HANDLE_OPAQUE_FD_KHR under `query`
 * (CL_DEVICE_SEMAPHORE_IMPORT_HANDLE_TYPES_KHR or _EXPORT_). */
bool
default_device_lists_semaphore_fds (cl_device_info query)
{
  cl_device_id device = default_device ();
  cl_uint types[8] = {};
  size_t bytes = 0;
  if (!device || clGetDeviceInfo (device, query, sizeof types, types, &bytes) != CL_SUCCESS)
    return false;
  for (size_t i = 0; i < bytes / sizeof types[0]; i++)
    if (types[i] == 0x2055 /* CL_SEMAPHORE_HANDLE_OPAQUE_FD_KHR */)
      return true;
  return false;
}

}  // namespace

bool
default_device_exports_semaphore_fds ()
{
  return default_device_lists_semaphore_fds (0x204E);
}

bool
default_device_imports_semaphore_fds ()
{
  return default_device_lists_semaphore_fds (0x204D);
}

bool
vulkan_driver_installed ()
{
  for (const char *dir : { "/etc/vulkan/icd.d", "/usr/share/vulkan/icd.d",
          "/usr/local/etc/vulkan/icd.d", "/usr/local/share/vulkan/icd.d" }) {
    GDir *folder = g_dir_open (dir, 0, nullptr);
    if (!folder)
      continue;
    bool found = false;
    while (const char *name = g_dir_read_name (folder))
      found = found || g_str_has_suffix (name, ".json");
    g_dir_close (folder);
    if (found)
      return true;
  }
  return false;
}

/* A pair of counters the plugin exports (gst/opencl/gstopenclstats.h), looked up by name. */
static void
plugin_totals (const char *name, guint64 * first, guint64 * second)
{
  GstPlugin *plugin = gst_registry_find_plugin (gst_registry_get (), "opencl");
  fail_unless (plugin != nullptr, "the opencl plugin is not in the registry");
  GstPlugin *loaded = gst_plugin_load (plugin);
  gst_object_unref (plugin);
  fail_unless (loaded != nullptr);
  GModule *module = g_module_open (gst_plugin_get_filename (loaded), G_MODULE_BIND_LAZY);
  gst_object_unref (loaded);
  gpointer symbol = nullptr;
  fail_unless (module && g_module_symbol (module, name, &symbol), "no %s in the plugin", name);
  reinterpret_cast<void (*) (guint64 *, guint64 *)> (symbol) (first, second);
  g_module_close (module);  /* the plugin stays loaded: the registry holds it */
}

void
plugin_transfer_totals (guint64 * to_device, guint64 * to_host)
{
  plugin_totals ("gst_opencl_transfer_totals", to_device, to_host);
}

void
plugin_launch_totals (guint64 * launches, guint64 * with_events)
{
  plugin_totals ("gst_opencl_launch_totals", launches, with_events);
}

bool
device_shares_host_memory ()
{
  cl_device_id device = default_device ();
  cl_bool unified = CL_FALSE;
  return device && clGetDeviceInfo (device, CL_DEVICE_HOST_UNIFIED_MEMORY, sizeof (unified),
      &unified, nullptr) == CL_SUCCESS && unified;
}

namespace {

/* The pad's negotiated caps (a new reference); fails the test when there are none. */
GstCaps *
negotiated_caps (GstElement * element, const char *pad_name)
{
  GstPad *pad = gst_element_get_static_pad (element, pad_name);
  fail_unless (pad != nullptr, "%s has no pad %s", GST_ELEMENT_NAME (element), pad_name);
  GstCaps *caps = gst_pad_get_current_caps (pad);
  gst_object_unref (pad);
  fail_unless (caps != nullptr, "nothing negotiated on %s:%s", GST_ELEMENT_NAME (element),
      pad_name);
  return caps;
}

}  // namespace

bool
negotiated_feature (GstElement * element, const char *pad_name, const char *feature)
{
  GstCaps *caps = negotiated_caps (element, pad_name);
  bool found = gst_caps_features_contains (gst_caps_get_features (caps, 0), feature);
  gst_caps_unref (caps);
  return found;
}

void
expect_negotiated_feature (GstElement * element, const char *pad_name, const char *feature)
{
  GstCaps *caps = negotiated_caps (element, pad_name);
  fail_unless (gst_caps_features_contains (gst_caps_get_features (caps, 0), feature),
      "negotiated %" GST_PTR_FORMAT ", not %s", caps, feature);
  gst_caps_unref (caps);
}

GstContext *
application_context (GObject * shared)
{
  GstContext *context = gst_context_new ("gst.opencl.context", TRUE);
  GValue value = G_VALUE_INIT;
  g_value_init (&value, G_OBJECT_TYPE (shared));
  g_value_set_object (&value, shared);
  gst_structure_set_value (gst_context_writable_structure (context), "context", &value);
  g_value_unset (&value);
  return context;
}

GObject *
element_context (GstElement * element)
{
  GstQuery *query = gst_query_new_context ("gst.opencl.context");
  GObject *object = nullptr;
  if (gst_element_query (element, query)) {
    GstContext *context = nullptr;
    gst_query_parse_context (query, &context);
    fail_unless (context != nullptr);
    fail_unless_equals_string (gst_context_get_context_type (context), "gst.opencl.context");
    const GstStructure *s = gst_context_get_structure (context);
    const GValue *value = gst_structure_get_value (s, "context");
    fail_unless (value != nullptr && G_VALUE_HOLDS_OBJECT (value));
    object = G_OBJECT (g_value_dup_object (value));
    fail_unless (gst_structure_get_string (s, "device-name") != nullptr);
  }
  gst_query_unref (query);
  return object;
}

}  // namespace testutil

namespace testutil {

PlanarFrame::PlanarFrame (GstVideoFormat format, int width, int height, int padding,
    uint8_t fill)
{
  gst_video_info_set_format (&info, format, width, height);
  gsize offset = 0;
  for (guint plane = 0; plane < GST_VIDEO_INFO_N_PLANES (&info); plane++) {
    info.stride[plane] += padding;
    info.offset[plane] = offset;
    offset += (gsize) info.stride[plane] * rows (plane);
  }
  info.size = offset;
  bytes.assign (offset, fill);
}

guint
PlanarFrame::component_of (guint plane) const
{
  for (guint comp = 0; comp < GST_VIDEO_INFO_N_COMPONENTS (&info); comp++)
    if (GST_VIDEO_INFO_COMP_PLANE (&info, comp) == plane)
      return comp;
  return 0;
}

int
PlanarFrame::rows (guint plane) const
{
  return GST_VIDEO_INFO_COMP_HEIGHT (&info, component_of (plane));
}

int
PlanarFrame::row_bytes (guint plane) const
{
  const guint comp = component_of (plane);
  return GST_VIDEO_INFO_COMP_WIDTH (&info, comp) * GST_VIDEO_INFO_COMP_PSTRIDE (&info, comp);
}

int
PlanarFrame::sample_bytes () const
{
  return GST_VIDEO_INFO_COMP_DEPTH (&info, 0) > 8 ? 2 : 1;
}

uint32_t
PlanarFrame::get (int comp, int x, int y) const
{
  const uint8_t *p = row (GST_VIDEO_INFO_COMP_PLANE (&info, comp), y) +
      (size_t) x * GST_VIDEO_INFO_COMP_PSTRIDE (&info, comp) +
      GST_VIDEO_INFO_COMP_POFFSET (&info, comp);
  return sample_bytes () == 2 ? (uint32_t) (p[0] | (p[1] << 8)) : p[0];
}

void
PlanarFrame::set (int comp, int x, int y, uint32_t word)
{
  uint8_t *p = row (GST_VIDEO_INFO_COMP_PLANE (&info, comp), y) +
      (size_t) x * GST_VIDEO_INFO_COMP_PSTRIDE (&info, comp) +
      GST_VIDEO_INFO_COMP_POFFSET (&info, comp);
  p[0] = (uint8_t) word;
  if (sample_bytes () == 2)
    p[1] = (uint8_t) (word >> 8);
}

GstBuffer *
PlanarFrame::to_buffer () const
{
  GstBuffer *buffer = gst_buffer_new_allocate (nullptr, bytes.size (), nullptr);
  gst_buffer_fill (buffer, 0, bytes.data (), bytes.size ());
  gst_buffer_add_video_meta_full (buffer, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_INFO_FORMAT (&info), GST_VIDEO_INFO_WIDTH (&info),
      GST_VIDEO_INFO_HEIGHT (&info), GST_VIDEO_INFO_N_PLANES (&info), (gsize *) info.offset,
      (gint *) info.stride);
  return buffer;
}

}  // namespace testutil
