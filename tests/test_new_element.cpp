/* gst-opencl tests: docs/design.md's "Adding an element", followed from a test. The element
 * (testinvert: RGB inverted, alpha kept) is a GstOpenCLFilter subclass defined and registered
 * here, its kernel given as source and built through the device's program cache; it runs in
 * "appsrc ! testinvert ! appsink" on system memory (rows padded or not) and on OpenCL memory,
 * and every frame out must equal the CPU's inversion of the frame in, byte for byte.
 *
 * The shared layer is linked in statically (the base classes come from it), and the plugin is
 * never loaded here: its copy of the layer would register the same types again.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/check/gstcheck.h>

#include <mutex>
#include <string>
#include <vector>

#include "common/suite.h"
#include "common/testutil.h"
#include "opencl/gstopenclcontext.h"
#include "opencl/gstopenclfilter.h"
#include "opencl/gstopenclmemory.h"
#include "opencl/gstopenclutils.h"

/* ---- The element, as the checklist has it. */

G_BEGIN_DECLS
#define GST_TYPE_TEST_INVERT (gst_test_invert_get_type ())
G_DECLARE_FINAL_TYPE (GstTestInvert, gst_test_invert, GST, TEST_INVERT, GstOpenCLFilter)
G_END_DECLS

namespace {

/* Plain OpenCL C, as a file of kernels/ would hold it. */
const char *const INVERT_SOURCE = R"CL(
__kernel void
invert (__global const uchar * src, ulong src_offset, int src_stride,
    __global uchar * dst, ulong dst_offset, int dst_stride, int width, int height)
{
  const int x = get_global_id (0);
  const int y = get_global_id (1);
  if (x >= width || y >= height)
    return;
  const uchar4 p = vload4 (0, src + src_offset + (size_t) y * src_stride + 4 * x);
  vstore4 ((uchar4) (255 - p.x, 255 - p.y, 255 - p.z, p.w), 0,
      dst + dst_offset + (size_t) y * dst_stride + 4 * x);
}
)CL";

/* No properties: Settings would sit here, behind the lock. State comes from the caps. */
struct State
{
  cl::Kernel kernel;
  int width = 0;
  int height = 0;
};

}  // namespace

struct GstTestInvertImpl
{
  std::mutex lock;
  State state;
};

struct _GstTestInvert
{
  GstOpenCLFilter parent;
  GstTestInvertImpl *impl;
};

G_DEFINE_TYPE (GstTestInvert, gst_test_invert, GST_TYPE_OPENCL_FILTER);

static gboolean
gst_test_invert_set_info (GstOpenCLFilter * filter, gst_opencl::ElementDevice & element,
    const GstVideoInfo * in_info, const GstVideoInfo *)
{
  State & state = GST_TEST_INVERT (filter)->impl->state;
  return GST_OPENCL_GUARD (filter, "cannot set up the inversion", [&]() {
    auto & device = element.device ();
    /* A kernel given as source: the device's program cache builds it once (and keeps the
     * binary on disk), as device.kernel () does for the files of kernels/. */
    cl::Program program = device.programs.get (device.context, device.cl_device, "testinvert",
        INVERT_SOURCE, "");
    state.kernel = cl::Kernel (program, "invert");
    state.width = GST_VIDEO_INFO_WIDTH (in_info);
    state.height = GST_VIDEO_INFO_HEIGHT (in_info);
  });
}

static gboolean
gst_test_invert_process (GstOpenCLFilter * filter, gst_opencl::ElementDevice & device,
    const GstOpenCLFrame * in, const GstOpenCLFrame * out)
{
  State & state = GST_TEST_INVERT (filter)->impl->state;
  return GST_OPENCL_GUARD (filter, "inversion failed", [&]() {
    cl::Kernel & kernel = state.kernel;
    kernel.setArg (0, in->buffer);
    kernel.setArg (1, (cl_ulong) GST_VIDEO_INFO_PLANE_OFFSET (&in->info, 0));
    kernel.setArg (2, (cl_int) GST_VIDEO_INFO_PLANE_STRIDE (&in->info, 0));
    kernel.setArg (3, out->buffer);
    kernel.setArg (4, (cl_ulong) GST_VIDEO_INFO_PLANE_OFFSET (&out->info, 0));
    kernel.setArg (5, (cl_int) GST_VIDEO_INFO_PLANE_STRIDE (&out->info, 0));
    kernel.setArg (6, (cl_int) state.width);
    kernel.setArg (7, (cl_int) state.height);
    device.launch (kernel, cl::NDRange (state.width, state.height),
        cl::NDRange (8, 8));
  });
}

static gboolean
gst_test_invert_stop (GstBaseTransform * trans)
{
  GST_TEST_INVERT (trans)->impl->state = State ();
  return GST_BASE_TRANSFORM_CLASS (gst_test_invert_parent_class)->stop (trans);
}

static void
gst_test_invert_init (GstTestInvert * self)
{
  self->impl = new GstTestInvertImpl ();
}

static void
gst_test_invert_finalize (GObject * object)
{
  delete GST_TEST_INVERT (object)->impl;
  G_OBJECT_CLASS (gst_test_invert_parent_class)->finalize (object);
}

static void
gst_test_invert_class_init (GstTestInvertClass * klass)
{
  G_OBJECT_CLASS (klass)->finalize = gst_test_invert_finalize;
  GST_BASE_TRANSFORM_CLASS (klass)->stop = gst_test_invert_stop;
  auto *filter_class = GST_OPENCL_FILTER_CLASS (klass);
  filter_class->set_info = gst_test_invert_set_info;
  filter_class->process = gst_test_invert_process;
  gst_opencl_filter_class_add_pad_templates (filter_class, "RGBA", FALSE);
  gst_element_class_set_static_metadata (GST_ELEMENT_CLASS (klass), "Test inversion",
      "Filter/Video", "RGB inverted, alpha kept (tests/test_new_element.cpp)",
      "gst-opencl developers");
}

/* ---- The test. */

namespace {

using testutil::Frame;

constexpr int WIDTH = 37;
constexpr int HEIGHT = 19;
constexpr int FRAMES = 3;

/* The CPU reference: every pixel's red, green and blue inverted, alpha kept. */
Frame
inverted (const Frame & in)
{
  Frame out (in.width, in.height, 4);
  for (int y = 0; y < in.height; y++)
    for (int x = 0; x < in.width; x++)
      for (int c = 0; c < 4; c++)
        out.row (y)[4 * x + c] = c == 3 ? in.row (y)[4 * x + c] : 255 - in.row (y)[4 * x + c];
  return out;
}

std::vector<Frame>
input_frames (int stride)
{
  std::vector<Frame> frames;
  for (int i = 0; i < FRAMES; i++) {
    frames.emplace_back (WIDTH, HEIGHT, 4, stride);
    testutil::fill (frames.back (), testutil::Pattern::Random, 1700 + i);
  }
  return frames;
}

std::string
caps_text (bool opencl_memory)
{
  return std::string ("video/x-raw") + (opencl_memory ? "(" GST_CAPS_FEATURE_MEMORY_OPENCL ")" :
      "") + ",format=RGBA,width=" + std::to_string (WIDTH) + ",height=" +
      std::to_string (HEIGHT) + ",framerate=30/1";
}

/* The frame in a buffer of OpenCL memory from a pool of `context`. */
GstBuffer *
opencl_buffer (GstBufferPool * pool, const Frame & frame)
{
  GstBuffer *buffer = nullptr;
  fail_unless (gst_buffer_pool_acquire_buffer (pool, &buffer, nullptr) == GST_FLOW_OK);
  fail_unless (gst_is_opencl_memory (gst_buffer_peek_memory (buffer, 0)));
  GstVideoInfo info;
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_RGBA, WIDTH, HEIGHT);
  GstVideoFrame mapped;
  fail_unless (gst_video_frame_map (&mapped, &info, buffer, GST_MAP_WRITE));
  for (int y = 0; y < HEIGHT; y++)
    memcpy ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&mapped, 0) +
        (size_t) y * GST_VIDEO_FRAME_PLANE_STRIDE (&mapped, 0), frame.row (y), 4 * WIDTH);
  gst_video_frame_unmap (&mapped);
  return buffer;
}

/* Pushes the frames through "appsrc ! testinvert ! appsink" and checks every frame out against
 * the reference. With `context`, both ends are in OpenCL memory of that context (the pipeline
 * is given it, as an application would) and the input comes from a pool of it. */
void
run_and_check (const std::vector<Frame> & frames, GstOpenCLContext * context,
    const std::string & label)
{
  const bool opencl = context != nullptr;
  GstElement *pipeline = testutil::parse_pipeline ("appsrc name=src format=time caps=\"" +
      caps_text (opencl) + "\" ! testinvert name=invert ! appsink name=sink sync=false caps=\"" +
      caps_text (opencl) + "\"");
  GstBufferPool *pool = nullptr;
  if (opencl) {
    GstContext *wrapped = gst_context_new (GST_OPENCL_CONTEXT_TYPE_STR, TRUE);
    gst_structure_set (gst_context_writable_structure (wrapped), "context",
        GST_TYPE_OPENCL_CONTEXT, context, "device-name", G_TYPE_STRING,
        gst_opencl_context_device (context).name.c_str (), nullptr);
    gst_element_set_context (pipeline, wrapped);
    gst_context_unref (wrapped);
    pool = gst_opencl_buffer_pool_new (context);
    GstStructure *config = gst_buffer_pool_get_config (pool);
    GstCaps *caps = gst_caps_from_string (caps_text (true).c_str ());
    GstVideoInfo info;
    gst_video_info_from_caps (&info, caps);
    gst_buffer_pool_config_set_params (config, caps, GST_VIDEO_INFO_SIZE (&info), 0, 0);
    gst_caps_unref (caps);
    fail_unless (gst_buffer_pool_set_config (pool, config));
    fail_unless (gst_buffer_pool_set_active (pool, TRUE));
  }
  GstElement *src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  GstElement *invert = gst_bin_get_by_name (GST_BIN (pipeline), "invert");
  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) != GST_STATE_CHANGE_FAILURE);

  GstVideoInfo info;
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_RGBA, WIDTH, HEIGHT);
  for (size_t i = 0; i < frames.size (); i++) {
    GstBuffer *buffer = opencl ? opencl_buffer (pool, frames[i]) :
        testutil::to_buffer (frames[i], GST_VIDEO_FORMAT_RGBA);
    GST_BUFFER_PTS (buffer) = i * GST_SECOND / 30;
    GST_BUFFER_DURATION (buffer) = GST_SECOND / 30;
    fail_unless (gst_app_src_push_buffer (GST_APP_SRC (src), buffer) == GST_FLOW_OK);
    GstSample *sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink), 60 * GST_SECOND);
    GstBus *bus = gst_element_get_bus (pipeline);
    const std::string error = testutil::first_error (bus);
    gst_object_unref (bus);
    fail_unless (sample != nullptr, "%s: no frame %zu out (%s)", label.c_str (), i,
        error.c_str ());
    const Frame actual = testutil::from_buffer (gst_sample_get_buffer (sample), &info);
    gst_sample_unref (sample);
    const auto difference = testutil::compare (actual, inverted (frames[i]), { 0, 0, 0, 0 });
    fail_unless (difference.over == 0, "%s, frame %zu: %s", label.c_str (), i,
        testutil::describe (difference).c_str ());
  }
  const char *memory = opencl ? GST_CAPS_FEATURE_MEMORY_OPENCL : "memory:SystemMemory";
  testutil::expect_negotiated_feature (invert, "sink", memory);
  testutil::expect_negotiated_feature (invert, "src", memory);

  gst_element_set_state (pipeline, GST_STATE_NULL);
  if (pool) {
    gst_buffer_pool_set_active (pool, FALSE);
    gst_object_unref (pool);
  }
  gst_object_unref (invert);
  gst_object_unref (sink);
  gst_object_unref (src);
  gst_object_unref (pipeline);
}

}  // namespace

GST_START_TEST (test_system_memory)
{
  run_and_check (input_frames (0), nullptr, "system memory");
}
GST_END_TEST;

GST_START_TEST (test_system_memory_padded_rows)
{
  run_and_check (input_frames (4 * WIDTH + 12), nullptr, "system memory, padded rows");
}
GST_END_TEST;

GST_START_TEST (test_opencl_memory)
{
  GstOpenCLContext *context = gst_opencl_context_new ("");
  run_and_check (input_frames (0), context, "OpenCL memory");
  gst_object_unref (context);
}
GST_END_TEST;

/* The reference itself: a kernel that did nothing, or inverted alpha too, would fail (255 - v
 * never equals v). */
GST_START_TEST (test_reference_changes_every_colour_byte)
{
  const Frame in = input_frames (0)[0];
  const Frame out = inverted (in);
  for (int y = 0; y < HEIGHT; y++)
    for (int x = 0; x < WIDTH; x++)
      for (int c = 0; c < 4; c++)
        fail_unless ((out.row (y)[4 * x + c] == in.row (y)[4 * x + c]) == (c == 3));
}
GST_END_TEST;

static Suite *
new_element_suite (void)
{
  /* What plugin_init does for the plugin's elements (outside any test: no check macros). */
  gst_opencl_memory_init_once ();
  if (!gst_element_register (nullptr, "testinvert", GST_RANK_NONE, GST_TYPE_TEST_INVERT))
    g_error ("testinvert could not be registered");
  return TESTUTIL_SUITE ("new-element", 300, test_reference_changes_every_colour_byte,
      test_system_memory, test_system_memory_padded_rows, test_opencl_memory);
}

TESTUTIL_LAYER_MAIN (new_element);
