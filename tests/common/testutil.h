/* gst-opencl tests: frames, patterns, comparisons and pipeline helpers shared by the suites.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

namespace testutil {

/* Whether this is the full suite (the default: `meson test`, `bash tests/run.sh --full`) or the
 * quick one (`meson test --setup quick`, which `bash tests/run.sh` runs: GST_OPENCL_TEST_QUICK=1).
 * The quick suite keeps every element, memory path and format and every kind of input, with fewer
 * sizes, variants and repetitions; docs/testing.md says what it leaves out. */
bool full_suite ();

/* `full` in the full suite, `quick` in the quick one: what a loop goes over. */
template <typename T>
std::vector<T>
full_or_quick (std::initializer_list<T> full, std::initializer_list<T> quick)
{
  return full_suite () ? std::vector<T> (full) : std::vector<T> (quick);
}

/* Whether `text` contains `part`. */
bool contains (const std::string & text, const std::string & part);

/* `text` with each line break a space: an OpenCL program on one line, as a gst-launch line or a
 * property that the parser would cut at a backslash takes it. */
std::string one_line (const std::string & text);

/* The pieces of `text` between the occurrences of `separator` (one piece, `text`, when there is
 * none; empty pieces kept: "a,,b" is "a", "", "b"). */
std::vector<std::string> split (const std::string & text, const std::string & separator);

/* Fail at the caller's line unless the error text `error` (of run_pipeline () and the like)
 * contains `part`; or unless it is empty (the pipeline ran). Each evaluates `error` once. */
#define TESTUTIL_EXPECT_ERROR(error, part) do { \
    const std::string testutil_error = (error); \
    fail_unless (testutil::contains (testutil_error, part), "no \"%s\" in the error: %s", \
        std::string (part).c_str (), testutil_error.c_str ()); \
  } while (0)
#define TESTUTIL_EXPECT_NO_ERROR(error) do { \
    const std::string testutil_error = (error); \
    fail_unless (testutil_error.empty (), "unexpected error: %s", testutil_error.c_str ()); \
  } while (0)

enum class Pattern { Random, Edges, Flat, Gradient };
const char *pattern_name (Pattern pattern);

/* A host frame with explicit row stride (bytes), possibly padded. */
struct Frame
{
  int width = 0;
  int height = 0;
  int bytes_per_pixel = 0;
  int stride = 0;
  std::vector<uint8_t> bytes;

  Frame (int width, int height, int bytes_per_pixel, int stride = 0);
  uint8_t *row (int y) { return bytes.data () + (size_t) y * stride; }
  const uint8_t *row (int y) const { return bytes.data () + (size_t) y * stride; }
};

/* A frame of any video format in host memory, each plane's rows `padding` bytes longer than
 * GStreamer's default stride, the planes one after the other; every byte starts as `fill` (the
 * padding keeps it, so a kernel that read or wrote it shows). Samples are the format's stored
 * words: P010's 10-bit code sits in the high bits of its 16-bit word. */
struct PlanarFrame
{
  GstVideoInfo info;            /* the offsets and strides of `bytes` */
  std::vector<uint8_t> bytes;

  PlanarFrame (GstVideoFormat format, int width, int height, int padding = 0,
      uint8_t fill = 0xA5);
  /* The component whose samples start plane `plane`'s pixels. */
  guint component_of (guint plane) const;
  int rows (guint plane) const;
  /* Bytes of pixels in a row of the plane (no padding). */
  int row_bytes (guint plane) const;
  uint8_t *row (guint plane, int y)
  {
    return bytes.data () + info.offset[plane] + (size_t) y * info.stride[plane];
  }
  const uint8_t *row (guint plane, int y) const
  {
    return bytes.data () + info.offset[plane] + (size_t) y * info.stride[plane];
  }
  /* 1 or 2: the bytes of one sample. */
  int sample_bytes () const;
  /* The stored word of component `comp` at (x, y) of that component's grid, and its setter. */
  uint32_t get (int comp, int x, int y) const;
  void set (int comp, int x, int y, uint32_t word);
  /* A copy in a new buffer with a video meta of these offsets and strides. */
  GstBuffer *to_buffer () const;
};

/* Fills the pixels (not the padding) with a deterministic pattern. Random: uniform bytes;
 * Edges: dark/bright halves and a bright square, with light noise; Flat: one colour with light
 * noise; Gradient: ramps along x and y per channel. */
void fill (Frame & frame, Pattern pattern, uint32_t seed);

/* `frame` after fill (): Frame input = filled (Frame (w, h, 4), Pattern::Edges, seed). */
Frame filled (Frame frame, Pattern pattern, uint32_t seed);

/* Sets the float-array property `name` of `object` (filter taps) to `values`, each as a float. */
void set_float_array (gpointer object, const char *name, const std::vector<double> & values);

/* A GstBuffer holding a copy of the frame, with a GstVideoMeta carrying its stride; its memory
 * allocated with `params` (alignment) where given. */
GstBuffer *to_buffer (const Frame & frame, GstVideoFormat format,
    GstAllocationParams * params = nullptr);

/* Copies a mapped output buffer into a tightly described Frame (stride from its video meta). */
Frame from_buffer (GstBuffer * buffer, const GstVideoInfo * info);

struct Difference
{
  int max = 0;              /* largest |a - b| over all compared bytes */
  size_t over = 0;          /* bytes differing by more than the tolerance */
  int x = -1, y = -1, c = -1;  /* first byte over the tolerance */
};

/* Compares the pixels of two frames of the same size; `channel_tolerance[c]` per byte of a
 * pixel (use 0 for channels that must be exact). */
Difference compare (const Frame & a, const Frame & b, const std::vector<int> & channel_tolerance);
std::string describe (const Difference & difference);

/* An error or warning message's text and debug string, as "<message>\n<debug>". */
std::string message_text (GstMessage * message);

/* Pops every error message off the bus; returns the first one's message_text, "" when none. */
std::string first_error (GstBus * bus);

/* Fails the test unless the element has the property `name` and it is read-only. */
void expect_read_only (GstElement * element, const char *name);

/* The string property `name` of `object`; "" when it is NULL. */
std::string string_property (gpointer object, const char *name);

/* The error of `source_line ! capsfilter ! fakesink` run with the capsfilter's caps set to
 * `caps` after linking, so that a refusal comes from negotiation, not from parsing ("" when it
 * ran). */
std::string run_with_caps_after_linking (const std::string & source_line, const char *caps);

/* Parses a gst-launch style pipeline; fails the test when it cannot. */
GstElement *parse_pipeline (const std::string & launch_line);

/* Fails the test when the pipeline's bus holds an error message. */
void expect_no_error (GstElement * pipeline);

/* Runs a gst-launch style pipeline to the end. Returns "" at EOS, or the first error as
 * "<message>\n<debug>". Fails the test after `timeout_s` seconds. */
std::string run_pipeline (const std::string & launch_line, int timeout_s = 120);

/* Same, but with an already-built pipeline (taken over). */
std::string run_pipeline (GstElement * pipeline, int timeout_s = 120);

/* run_pipeline with the device's largest allocation lowered to `max_alloc_bytes`
 * (GST_OPENCL_MAX_ALLOC_BYTES, read when a context is created), for frames too large for it. */
std::string run_pipeline_with_max_alloc (const char *max_alloc_bytes,
    const std::string & launch_line);

/* CL_DEVICE_VENDOR of the device an element picks with an empty `device` property (the one
 * GST_OPENCL_DEVICE names, else the first GPU, else the first CPU device), or "" without OpenCL
 * devices. */
std::string default_device_vendor ();
/* Whether the default device exports semaphores as file descriptors
 * (CL_DEVICE_SEMAPHORE_EXPORT_HANDLE_TYPES_KHR lists CL_SEMAPHORE_HANDLE_OPAQUE_FD_KHR). */
bool default_device_exports_semaphore_fds ();
/* Whether it imports them (CL_DEVICE_SEMAPHORE_IMPORT_HANDLE_TYPES_KHR). */
bool default_device_imports_semaphore_fds ();
/* Whether a Vulkan driver is installed (an ICD manifest in one of the loader's folders). */
bool vulkan_driver_installed ();

/* CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT of the first CPU device (what device=cpu chooses), 0 when
 * there is none. */
guint cpu_device_native_float_lanes ();

/* CL_DEVICE_LOCAL_MEM_SIZE of that device, 0 without one. */
guint64 default_device_local_mem_bytes ();

/* CL_DEVICE_MEM_BASE_ADDR_ALIGN of that device, in bytes (1 without one). */
guint default_device_base_align_bytes ();

/* The loaded plugin's counters of bytes moved to and from the device (counting needs
 * GST_OPENCL_COUNT_TRANSFERS=1 before the plugin first moves a frame); a program's own copy of
 * the layer, linked in statically, counts nothing, hence the lookup in the plugin. */
void plugin_transfer_totals (guint64 * to_device, guint64 * to_host);
/* The same for the elements' kernel launches: all, and those with a profiling event. */
void plugin_launch_totals (guint64 * launches, guint64 * with_events);

/* Whether the caps negotiated on the element's pad carry the caps feature (e.g.
 * "memory:GLMemory"); fails the test when the pad has none. */
bool negotiated_feature (GstElement * element, const char *pad_name, const char *feature);

/* Fails the test, naming the caps, unless those caps carry the feature. */
void expect_negotiated_feature (GstElement * element, const char *pad_name, const char *feature);

/* The OpenCL context object an element answers a context query with (a new reference), or
 * nullptr when it has none; fails the test when the answer is not a gst.opencl.context holding
 * the object and a device-name. */
GObject *element_context (GstElement * element);

/* A gst.opencl.context GstContext holding `shared` (such an object, not taken), as an
 * application hands it to a pipeline with gst_element_set_context (). */
GstContext *application_context (GObject * shared);

/* Whether that device works on the host's memory (CL_DEVICE_HOST_UNIFIED_MEMORY). */
bool device_shares_host_memory ();

}  // namespace testutil
