/* gst-opencl tests: openclconvertscale's other/tensors outputs against their CPU reference
 * (double precision, tests/reference/convertscale_reference.cpp): float32 and float16, NHWC and
 * NCHW, per-channel mean and scale, letterboxed and stretched, from every input format at odd
 * sizes with padded rows, random and structured frames; and the caps: a tensor size from
 * downstream or fixated to the input's, and tensors the element does not give refused with a
 * clear error.
 *
 * Tolerances, in the tensor's units: float32 within 1e-3 of the reference in 8-bit units times
 * the channel's scale (the kernel samples and maps in float; its error is about 1e-5 of 255);
 * float16 within that plus half a unit in the last place of binary16 (2^-11 of the value,
 * 2^-25 below the normal range), its rounding to nearest even.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/check/gstcheck.h>
#include <gst/video/video.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "common/suite.h"
#include "common/testutil.h"
#include "reference/convertscale_reference.h"

using convertscale_reference::Method;
using convertscale_reference::method_nick;

namespace {

enum class Content { Random, Structured };

struct Norm
{
  std::array<double, 3> mean, scale;
};

/* ImageNet's, and one with negative and large factors. */
const Norm IMAGENET { { { 123.675, 116.28, 103.53 } }, { { 1 / 58.395, 1 / 57.12, 1 / 57.375 } } };
const Norm SKEWED { { { 10.0, 200.0, 0.0 } }, { { 2.0, -1.0, 0.5 } } };

struct Case
{
  GstVideoFormat format;
  int in_w, in_h, out_w, out_h;
  bool half, nchw, borders;
  Content content;
  const Norm *norm;
  Method method = Method::Bilinear;
  /* What brings the frames to the element: "openclupload ! " (OpenCL memory), "cudaupload ! "
   * (CUDA memory), or nothing (system memory). */
  std::string upstream;
  /* A GstVideoCropMeta on the input, when w > 0. */
  convertscale_reference::Crop crop { 0, 0, 0, 0 };
  /* Bytes each input row is longer than the caps' stride. */
  int pad = 6;
  /* The tensor's memory: "" (system memory) or "memory:OpenCLMemory" (the output buffer must
   * then be OpenCL memory: the kernel writes it on the device). */
  std::string out_memory;
};


std::string
describe (const Case & c)
{
  return std::string (gst_video_format_to_string (c.format)) + " " + std::to_string (c.in_w) +
      "x" + std::to_string (c.in_h) + " -> " + std::to_string (c.out_w) + "x" +
      std::to_string (c.out_h) + (c.half ? " float16" : " float32") + (c.nchw ? " nchw" :
      " nhwc") + (c.borders ? " letterboxed" : " stretched") + (c.content == Content::Random ?
      " random" : " structured") + " " + method_nick (c.method) + (c.crop.w > 0 ?
      " cropped" : "") + (c.out_memory.empty () ? "" : " into " + c.out_memory);
}

/* A frame of `info`, each row of each plane `pad` bytes longer than the info's stride. */
GstBuffer *
make_frame (const GstVideoInfo * info, Content content, uint32_t seed, int pad,
    GstVideoInfo * padded)
{
  *padded = *info;
  gsize offset = 0;
  for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
    const int rows = p > 0 && GST_VIDEO_INFO_N_PLANES (info) > 1 ? (info->height + 1) / 2 :
        info->height;
    padded->stride[p] = info->stride[p] + pad;
    padded->offset[p] = offset;
    offset += (gsize) padded->stride[p] * rows;
  }
  padded->size = offset;
  GstBuffer *buffer = gst_buffer_new_allocate (nullptr, padded->size, nullptr);
  gst_buffer_add_video_meta_full (buffer, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_INFO_FORMAT (info), info->width, info->height, GST_VIDEO_INFO_N_PLANES (info),
      padded->offset, padded->stride);
  GstVideoFrame frame;
  fail_unless (gst_video_frame_map (&frame, padded, buffer, GST_MAP_WRITE));
  std::mt19937 rng (seed);
  for (guint c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (info); c++) {
    const int max = (1 << GST_VIDEO_INFO_COMP_DEPTH (info, c)) - 1;
    for (int y = 0; y < GST_VIDEO_FRAME_COMP_HEIGHT (&frame, c); y++) {
      for (int x = 0; x < GST_VIDEO_FRAME_COMP_WIDTH (&frame, c); x++) {
        /* Structured: bands and steps, full scale, different per component. */
        const int code = content == Content::Random ? (int) (rng () % (max + 1)) :
            max * ((x / 3 + 2 * (y / 4) + (int) c) % 5) / 4;
        convertscale_reference::set_component (&frame, c, x, y, code);
      }
    }
  }
  gst_video_frame_unmap (&frame);
  return buffer;
}

std::string
dimensions_of (const Case & c)
{
  const std::string w = std::to_string (c.out_w), h = std::to_string (c.out_h);
  return c.nchw ? w + ":" + h + ":3:1" : "3:" + w + ":" + h + ":1";
}

/* The caps of the case's input frames, as appsrc gives them. */
std::string
input_caps (const Case & c)
{
  return std::string ("video/x-raw,format=") + gst_video_format_to_string (c.format) +
      ",width=" + std::to_string (c.in_w) + ",height=" + std::to_string (c.in_h) +
      ",framerate=30/1";
}

/* The one output buffer of `input` through appsrc ! openclconvertscale ! appsink, or null with
 * *error set. */
GstBuffer *
convert (const Case & c, GstBuffer * input, std::string * error)
{
  const std::string line = "appsrc name=src format=time caps=\"" + input_caps (c) + "\" ! " +
      c.upstream +
      "openclconvertscale name=cs tensor-layout=" +
      (c.nchw ? "nchw" : "nhwc") + " add-borders=" + (c.borders ? "true" : "false") +
      " method=" + method_nick (c.method) +
      " ! appsink name=sink sync=false caps=\"other/tensors" + (c.out_memory.empty () ? "" :
          "(" + c.out_memory + ")") + ",format=static,num_tensors=1,types=" +
      (c.half ? "float16" : "float32") + ",dimensions=" + dimensions_of (c) + "\"";
  GstElement *pipeline = testutil::parse_pipeline (line);
  GstElement *src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  GstElement *cs = gst_bin_get_by_name (GST_BIN (pipeline), "cs");
  testutil::set_float_array (cs, "tensor-mean", { c.norm->mean.begin (), c.norm->mean.end () });
  testutil::set_float_array (cs, "tensor-scale", { c.norm->scale.begin (),
          c.norm->scale.end () });
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  GST_BUFFER_PTS (input) = 0;
  gst_app_src_push_buffer (GST_APP_SRC (src), input);
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  GstSample *sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink), 300 * GST_SECOND);
  GstBuffer *output = sample ? gst_buffer_ref (gst_sample_get_buffer (sample)) : nullptr;
  if (sample)
    gst_sample_unref (sample);
  GstBus *bus = gst_element_get_bus (pipeline);
  *error = testutil::first_error (bus);
  gst_object_unref (bus);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  for (GstElement *e : { src, sink, cs, pipeline })
    gst_object_unref (e);
  return output;
}

double
half_to_double (guint16 h)
{
  const int exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
  const double sign = (h & 0x8000) ? -1.0 : 1.0;
  if (exponent == 0)
    return sign * std::ldexp (mantissa, -24);
  if (exponent == 31)
    return mantissa ? NAN : sign * INFINITY;
  return sign * std::ldexp (1024 + mantissa, exponent - 25);
}

/* Value v of channel ch at (x, y) of the tensor. */
double
tensor_value (const Case & c, const guint8 * data, int x, int y, int ch)
{
  const gsize index = c.nchw ? ((gsize) ch * c.out_h + y) * c.out_w + x :
      ((gsize) y * c.out_w + x) * 3 + ch;
  if (c.half) {
    guint16 h;
    memcpy (&h, data + index * 2, 2);
    return half_to_double (GUINT16_FROM_LE (h));
  }
  float f;
  memcpy (&f, data + index * 4, 4);
  return f;
}

/* Compares the tensor with the reference; fails naming the first value out of bounds. */
void
check_tensor (const Case & c, GstBuffer * input, const GstVideoInfo * in_info, GstBuffer * out)
{
  const gsize bytes = (gsize) c.out_w * c.out_h * 3 * (c.half ? 2 : 4);
  fail_unless_equals_int ((int) gst_buffer_get_size (out), (int) bytes);
  GstVideoInfo rgb;
  gst_video_info_set_format (&rgb, GST_VIDEO_FORMAT_RGBx, c.out_w, c.out_h);
  GstVideoFrame in;
  fail_unless (gst_video_frame_map (&in, in_info, input, GST_MAP_READ));
  GstMapInfo map;
  fail_unless (gst_buffer_map (out, &map, GST_MAP_READ));
  double worst = 0;
  for (int y = 0; y < c.out_h; y++) {
    for (int x = 0; x < c.out_w; x++) {
      double rgb_values[3];
      convertscale_reference::rgb_values (&in, &rgb, c.method, c.borders, x, y, rgb_values,
          c.crop.w > 0 ? &c.crop : nullptr);
      for (int ch = 0; ch < 3; ch++) {
        const double want = (rgb_values[ch] - c.norm->mean[ch]) * c.norm->scale[ch];
        const double got = tensor_value (c, map.data, x, y, ch);
        const double bound = 1e-3 * std::fabs (c.norm->scale[ch]) + (c.half ?
            std::ldexp (std::fabs (want), -11) + std::ldexp (1.0, -25) : 0.0);
        const double off = std::fabs (got - want);
        worst = std::max (worst, off / bound);
        fail_unless (off <= bound, "%s: channel %d at %d,%d: %.7f, reference %.7f (bound %g)",
            describe (c).c_str (), ch, x, y, got, want, bound);
      }
    }
  }
  GST_INFO ("%s: largest difference %.3f of the bound", describe (c).c_str (), worst);
  gst_buffer_unmap (out, &map);
  gst_video_frame_unmap (&in);
}

void
run_case (const Case & c, uint32_t seed)
{
  /* The reference reads the frame as the element does: with the caps' defaults for what they
   * leave out. (GStreamer 1.24 and later leave gst_video_info_set_format's chroma site unknown,
   * where caps without one read as centred: an info made by set_format would differ from the
   * element's in siting.) */
  GstVideoInfo info, padded;
  GstCaps *caps = gst_caps_from_string (input_caps (c).c_str ());
  fail_unless (caps && gst_video_info_from_caps (&info, caps));
  gst_caps_unref (caps);
  GstBuffer *input = make_frame (&info, c.content, seed, c.pad, &padded);
  if (c.crop.w > 0) {
    GstVideoCropMeta *crop = gst_buffer_add_video_crop_meta (input);
    crop->x = c.crop.x;
    crop->y = c.crop.y;
    crop->width = c.crop.w;
    crop->height = c.crop.h;
  }
  gst_buffer_ref (input);
  std::string error;
  GstBuffer *output = convert (c, input, &error);
  fail_unless (output != nullptr, "%s: no output: %s", describe (c).c_str (), error.c_str ());
  fail_unless (error.empty (), "%s: %s", describe (c).c_str (), error.c_str ());
  /* The memory the caps say: OpenCL memory written on the device, or plain system memory. */
  fail_unless_equals_int (gst_buffer_n_memory (output), 1);
  const bool opencl = gst_memory_is_type (gst_buffer_peek_memory (output, 0), "OpenCLMemory");
  fail_unless (opencl == !c.out_memory.empty (), "%s: the tensor is%s OpenCL memory",
      describe (c).c_str (), opencl ? "" : " not");
  check_tensor (c, input, &padded, output);
  gst_buffer_unref (output);
  gst_buffer_unref (input);
}

const std::vector<GstVideoFormat> FORMATS = { GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_I420,
  GST_VIDEO_FORMAT_P010_10LE, GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_FORMAT_GRAY16_LE,
  GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_BGRA, GST_VIDEO_FORMAT_RGBx, GST_VIDEO_FORMAT_BGRx,
  GST_VIDEO_FORMAT_RGBA64_LE };

/* The cases in every format of FORMATS (their own `format` left out), seeds from `seed` on. */
void
run_every_format (std::initializer_list<Case> cases, uint32_t seed)
{
  for (GstVideoFormat format : FORMATS) {
    for (Case c : cases) {
      c.format = format;
      run_case (c, seed++);
    }
  }
}

}  // namespace

/* Every input format, scaled 65x49 -> 40x30 (stretched) into float32 NHWC and letterboxed into
 * 32x32 float16 NCHW, random frames, ImageNet's normalisation. */
GST_START_TEST (test_every_format_scaled)
{
  run_every_format ({ { {}, 65, 49, 40, 30, false, false, false, Content::Random, &IMAGENET },
        { {}, 65, 49, 32, 32, true, true, true, Content::Random, &IMAGENET } }, 1);
}
GST_END_TEST;

/* Every input format at its own odd size 33x17, structured frames: float32 NCHW and float16
 * NHWC, a normalisation with negative and large factors. */
GST_START_TEST (test_every_format_unscaled)
{
  run_every_format ({ { {}, 33, 17, 33, 17, false, true, true, Content::Structured, &SKEWED },
        { {}, 33, 17, 33, 17, true, false, false, Content::Structured, &SKEWED } }, 100);
}
GST_END_TEST;

/* The four type and layout pairs, letterboxed both ways (pillarbox and letterbox), nearest and
 * bilinear, on the decoder formats. */
GST_START_TEST (test_layouts_and_borders)
{
  uint32_t seed = 200;
  for (GstVideoFormat format : { GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_P010_10LE }) {
    for (bool half : { false, true }) {
      for (bool nchw : { false, true }) {
        Case wide { format, 65, 49, 41, 19, half, nchw, true, Content::Structured, &IMAGENET };
        Case tall { format, 33, 47, 27, 13, half, nchw, true, Content::Random, &SKEWED };
        tall.method = Method::Nearest;
        run_case (wide, seed++);
        run_case (tall, seed++);
      }
    }
  }
}
GST_END_TEST;

/* Catmull-Rom and lanczos (values beyond 0 .. 255 kept: no saturation), and a
 * GstVideoCropMeta's rectangle as the picture (an inference region), letterboxed and
 * stretched. */
GST_START_TEST (test_methods_and_crop)
{
  uint32_t seed = 600;
  for (GstVideoFormat format : { GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_BGRx }) {
    for (Method method : { Method::Cubic, Method::Lanczos }) {
      Case c { format, 65, 49, 27, 19, false, false, false, Content::Structured, &SKEWED };
      c.method = method;
      run_case (c, seed++);
    }
    Case cropped { format, 65, 49, 24, 24, true, true, true, Content::Random, &IMAGENET };
    cropped.crop = convertscale_reference::Crop { 7, 5, 41, 29 };
    run_case (cropped, seed++);
    cropped.borders = cropped.half = cropped.nchw = false;
    cropped.crop = convertscale_reference::Crop { 0, 3, 33, 45 };
    run_case (cropped, seed++);
  }
}
GST_END_TEST;

/* Frames in OpenCL memory (openclupload before the element) in. */
GST_START_TEST (test_opencl_memory_in)
{
  uint32_t seed = 300;
  for (GstVideoFormat format : { GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_I420,
          GST_VIDEO_FORMAT_RGBA }) {
    Case c { format, 65, 49, 40, 30, false, false, true, Content::Random, &IMAGENET };
    c.upstream = "openclupload ! ";
    run_case (c, seed++);
    c.half = c.nchw = true;
    run_case (c, seed++);
  }
}
GST_END_TEST;

/* Tensors in OpenCL memory out (the kernel writes the output buffer on the device; the test
 * maps it, which downloads it), from frames in system and in OpenCL memory, both types and
 * layouts, letterboxed and cropped. */
GST_START_TEST (test_opencl_memory_out)
{
  uint32_t seed = 700;
  for (GstVideoFormat format : { GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_P010_10LE,
          GST_VIDEO_FORMAT_RGBA }) {
    for (const char *upstream : { "", "openclupload ! " }) {
      Case c { format, 65, 49, 40, 30, false, false, true, Content::Random, &IMAGENET };
      c.upstream = upstream;
      c.out_memory = "memory:OpenCLMemory";
      run_case (c, seed++);
      c.half = c.nchw = true;
      c.borders = false;
      c.content = Content::Structured;
      c.crop = convertscale_reference::Crop { 7, 5, 41, 29 };
      run_case (c, seed++);
    }
  }
}
GST_END_TEST;

/* The first buffer that reaches the appsink named "sink" of `line`; fails on an error. */
static GstBuffer *
pull_one (const std::string & line)
{
  GstElement *pipeline = testutil::parse_pipeline (line);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  GstSample *sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink), 120 * GST_SECOND);
  GstBuffer *buffer = sample ? gst_buffer_ref (gst_sample_get_buffer (sample)) : nullptr;
  if (sample)
    gst_sample_unref (sample);
  GstBus *bus = gst_element_get_bus (pipeline);
  const std::string error = testutil::first_error (bus);
  gst_object_unref (bus);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  fail_unless (error.empty (), "%s: %s", line.c_str (), error.c_str ());
  return buffer;
}

/* Sorted values of each group of three floats (a pixel's R, G, B in NHWC). */
static std::vector<float>
sorted_triples (GstBuffer * buffer)
{
  GstMapInfo map;
  fail_unless (gst_buffer_map (buffer, &map, GST_MAP_READ));
  std::vector<float> values (map.size / sizeof (float));
  memcpy (values.data (), map.data, values.size () * sizeof (float));
  gst_buffer_unmap (buffer, &map);
  for (size_t i = 0; i + 3 <= values.size (); i += 3)
    std::sort (values.begin () + i, values.begin () + i + 3);
  return values;
}

/* openclconvertscale ! openclsort with the tensor in OpenCL memory between them and after:
 * the sort copies it in and out on the device. Each pixel's three values come out sorted, equal
 * to the system-memory tensor sorted here. */
GST_START_TEST (test_tensor_stays_on_device)
{
  const std::string head = "videotestsrc num-buffers=1 pattern=smpte ! "
      "video/x-raw,format=NV12,width=48,height=32 ! openclconvertscale ! ";
  const std::string tensor = "other/tensors,format=static,num_tensors=1,types=float32,"
      "dimensions=(string)3:24:16:1";
  GstBuffer *plain = pull_one (head + tensor + " ! appsink name=sink");
  GstBuffer *sorted = pull_one (head + "other/tensors(memory:OpenCLMemory)," +
      tensor.substr (std::string ("other/tensors,").size ()) + " ! openclsort ! appsink "
      "name=sink caps=\"other/tensors(memory:OpenCLMemory)\"");
  fail_unless (plain && sorted, "no tensor");
  fail_unless (gst_memory_is_type (gst_buffer_peek_memory (sorted, 0), "OpenCLMemory"),
      "the sorted tensor is not OpenCL memory");
  const std::vector<float> want = sorted_triples (plain), got = sorted_triples (sorted);
  GstMapInfo map;
  fail_unless (gst_buffer_map (sorted, &map, GST_MAP_READ));
  fail_unless_equals_int ((int) map.size, (int) (want.size () * sizeof (float)));
  fail_unless (memcmp (map.data, want.data (), map.size) == 0,
      "the sorted tensor differs from the host's sort");
  gst_buffer_unmap (sorted, &map);
  /* And the sort's input really was unsorted somewhere (else the check above proves little). */
  GstMapInfo raw;
  fail_unless (gst_buffer_map (plain, &raw, GST_MAP_READ));
  fail_unless (memcmp (raw.data, want.data (), raw.size) != 0, "the tensor was sorted already");
  gst_buffer_unmap (plain, &raw);
  fail_unless (got == want);
  gst_buffer_unref (plain);
  gst_buffer_unref (sorted);
}
GST_END_TEST;

/* Frames in CUDA memory (cudaupload before the element), where GStreamer's CUDA elements exist
 * and the device reaches CUDA memory (the GPU machine: tests/gpu-suite.sh); skipped elsewhere. */
GST_START_TEST (test_cuda_memory_in)
{
  GstElementFactory *cudaupload = gst_element_factory_find ("cudaupload");
  if (!cudaupload || testutil::default_device_vendor ().find ("NVIDIA") == std::string::npos) {
    GST_INFO ("no cudaupload or no NVIDIA device: skipped");
    if (cudaupload)
      gst_object_unref (cudaupload);
    return;
  }
  gst_object_unref (cudaupload);
  uint32_t seed = 400;
  for (GstVideoFormat format : { GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_P010_10LE,
          GST_VIDEO_FORMAT_RGBA }) {
    Case c { format, 65, 49, 40, 30, true, true, true, Content::Random, &IMAGENET };
    c.upstream = "cudaupload ! video/x-raw(memory:CUDAMemory) ! ";
    run_case (c, seed++);
  }
}
GST_END_TEST;

/* RGBA frames in GL memory (glupload before the element), where there is a display. */
GST_START_TEST (test_gl_memory_in)
{
  GstElementFactory *glupload = gst_element_factory_find ("glupload");
  const bool display = g_getenv ("DISPLAY") || g_getenv ("GST_GL_PLATFORM");
  if (!glupload || !display) {
    GST_INFO ("no glupload or no display: skipped");
    if (glupload)
      gst_object_unref (glupload);
    return;
  }
  gst_object_unref (glupload);
  Case c { GST_VIDEO_FORMAT_RGBA, 65, 49, 32, 32, false, false, true, Content::Random,
    &IMAGENET };
  c.upstream = "glupload ! video/x-raw(memory:GLMemory),format=RGBA ! ";
  /* Rows padded by a whole number of pixels: GStreamer's GL memory cannot hold a row stride
   * that is not a multiple of the pixel size (its upload skews the texture's rows), which the
   * element then reads as it is (docs/testing.md, the GPU runs of 2026-11-28). */
  c.pad = 8;
  run_case (c, 500);
  c.half = c.nchw = true;
  run_case (c, 501);
}
GST_END_TEST;

/* videotestsrc's NV12 into a 224x224 float32 tensor, as gst-launch-1.0 would run it. */
GST_START_TEST (test_negotiates)
{
  const std::string error = testutil::run_pipeline ("videotestsrc num-buffers=2 ! "
      "video/x-raw,format=NV12,width=96,height=64 ! openclconvertscale ! other/tensors,"
      "format=static,num_tensors=1,dimensions=3:224:224:1,types=float32 ! fakesink");
  fail_unless (error.empty (), "%s", error.c_str ());
}
GST_END_TEST;

/* The output caps of a pipeline whose tensor caps leave `dimensions` out. */
static std::string
fixated_dimensions (const char *layout, const char *types)
{
  GstElement *pipeline = testutil::parse_pipeline (std::string ("videotestsrc num-buffers=1 ! "
          "video/x-raw,format=I420,width=33,height=17 ! openclconvertscale tensor-layout=") +
      layout + " ! appsink name=sink caps=\"other/tensors,types=" + types + "\"");
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  GstSample *sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink), 120 * GST_SECOND);
  fail_unless (sample != nullptr, "no tensor");
  const GstStructure *s = gst_caps_get_structure (gst_sample_get_caps (sample), 0);
  const std::string dimensions = gst_structure_get_string (s, "dimensions");
  const gsize element = g_str_equal (gst_structure_get_string (s, "types"), "float16") ? 2 : 4;
  fail_unless_equals_int ((int) gst_buffer_get_size (gst_sample_get_buffer (sample)),
      (int) (33 * 17 * 3 * element));
  gst_sample_unref (sample);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  return dimensions;
}

/* Without dimensions downstream, the tensor is the input's size in the layout's order. */
GST_START_TEST (test_fixated_to_input_size)
{
  /* Named strings: the check's macro keeps the pointer past the statement. */
  const std::string nhwc = fixated_dimensions ("nhwc", "float32");
  const std::string nchw = fixated_dimensions ("nchw", "float16");
  fail_unless_equals_string (nhwc.c_str (), "3:33:17:1");
  fail_unless_equals_string (nchw.c_str (), "33:17:3:1");
}
GST_END_TEST;

/* Tensors the element does not give: an error that says what it gives, no crash. */
GST_START_TEST (test_bad_tensor_caps)
{
  std::string error = testutil::run_pipeline ("videotestsrc num-buffers=2 ! "
      "video/x-raw,format=NV12,width=64,height=48 ! openclconvertscale ! other/tensors,"
      "format=static,num_tensors=1,dimensions=4:224:224:1,types=float32 ! fakesink");
  fail_unless (testutil::contains (error, "3 channels"), "error: %s", error.c_str ());
  error = testutil::run_pipeline ("videotestsrc num-buffers=2 ! "
      "video/x-raw,format=NV12,width=64,height=48 ! openclconvertscale tensor-layout=nchw ! "
      "other/tensors,format=static,num_tensors=1,dimensions=3:224:224:1,types=float32 ! "
      "fakesink");
  fail_unless (testutil::contains (error, "W:H:3:1"), "error: %s", error.c_str ());
  /* int32: the pad templates refuse the link, naming the caps; linked before the caps are
   * set, negotiation fails (not-negotiated), with no crash. */
  GError *parse_error = nullptr;
  GstElement *pipeline = gst_parse_launch ("videotestsrc num-buffers=2 ! "
      "video/x-raw,format=NV12,width=64,height=48 ! openclconvertscale ! other/tensors,"
      "format=static,num_tensors=1,dimensions=4:224:224:1,types=int32 ! fakesink", &parse_error);
  fail_unless (parse_error != nullptr && testutil::contains (parse_error->message,
          "types=(string)int32"), "no link error");
  g_clear_error (&parse_error);
  gst_clear_object (&pipeline);
  pipeline = testutil::parse_pipeline ("videotestsrc num-buffers=2 ! "
      "video/x-raw,format=NV12,width=64,height=48 ! openclconvertscale ! capsfilter name=f ! "
      "fakesink");
  GstElement *filter = gst_bin_get_by_name (GST_BIN (pipeline), "f");
  GstCaps *caps = gst_caps_from_string ("other/tensors,format=static,num_tensors=1,"
      "dimensions=4:224:224:1,types=int32");
  g_object_set (filter, "caps", caps, nullptr);
  gst_caps_unref (caps);
  gst_object_unref (filter);
  error = testutil::run_pipeline (pipeline);
  fail_unless (testutil::contains (error, "not-negotiated"), "error: %s", error.c_str ());
  /* A mean of two values. */
  pipeline = testutil::parse_pipeline ("videotestsrc num-buffers=2 ! "
      "video/x-raw,format=NV12,width=64,height=48 ! openclconvertscale name=cs ! other/tensors,"
      "types=float32 ! fakesink");
  GstElement *cs = gst_bin_get_by_name (GST_BIN (pipeline), "cs");
  testutil::set_float_array (cs, "tensor-mean", { 1.0, 2.0 });
  gst_object_unref (cs);
  error = testutil::run_pipeline (pipeline);
  fail_unless (testutil::contains (error, "tensor-mean needs 3 values"), "error: %s",
      error.c_str ());
}
GST_END_TEST;

static Suite *
convertscale_tensor_suite (void)
{
  return TESTUTIL_SUITE ("openclconvertscale-tensor", 600, test_every_format_scaled,
      test_every_format_unscaled, test_layouts_and_borders, test_methods_and_crop,
      test_opencl_memory_in, test_opencl_memory_out, test_tensor_stays_on_device,
      test_cuda_memory_in, test_gl_memory_in, test_negotiates,
      test_fixated_to_input_size, test_bad_tensor_caps);
}

int
main (int argc, char **argv)
{
  gst_check_init (&argc, &argv);
  return gst_check_run_suite (convertscale_tensor_suite (), "convertscale_tensor", __FILE__);
}
