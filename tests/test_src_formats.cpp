/* gst-opencl tests: the sources' converted formats. openclmandelboxsrc and openclkernelsrc give
 * NV12, I420, P010_10LE, GRAY8, GRAY16_LE and RGBA64_LE by converting their RGBA frames on the
 * device; each such frame is checked against the CPU reference conversion
 * (tests/reference/convertscale_reference) of the same source's RGBA frame, with the same
 * properties and frame number, at an odd size and at the default size, with the colorimetry
 * and chroma site negotiated (the defaults, and ones downstream asks for), in system and
 * OpenCL memory, and into downstream's buffers with padded rows.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include <gst/app/gstappsink.h>
#include <gst/check/gstcheck.h>
#include <gst/video/video.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "common/suite.h"
#include "common/testutil.h"
#include "reference/convertscale_reference.h"

namespace {

/* The converter's bound (docs/openclconvertscale.md, test_convertscale): within 1 code of the
 * double-precision reference, and at most a few percent of the samples off at all. */
constexpr int BOUND = 1;
constexpr double MAX_SHARE_OFF = 0.05;

const char *const CONVERTED[] = { "NV12", "I420", "P010_10LE", "GRAY8", "GRAY16_LE",
  "RGBA64_LE" };

/* A user kernel whose RGBA frame has every value: hashed noise (alpha included) on the right,
 * ramps on the left, different in every frame. */
const char *const PATTERN_KERNEL =
    "__kernel void pattern (__write_only image2d_t out, int width, int height, int frame) {\n"
    "  const int2 p = (int2) (get_global_id (0), get_global_id (1));\n"
    "  uint h = (uint) p.x * 73856093u ^ (uint) p.y * 19349663u ^ (uint) frame * 83492791u;\n"
    "  h = (h ^ (h >> 13)) * 2654435761u;\n"
    "  float4 c = (float4) (h & 255, (h >> 8) & 255, (h >> 16) & 255, h >> 24) / 255.0f;\n"
    "  if (p.x < width / 2)\n"
    "    c = (float4) ((float) p.x / width, (float) p.y / height, 0.5f, 1.0f);\n"
    "  write_imagef (out, p, c);\n"
    "}\n";

struct Source
{
  const char *factory;
  void (*set_up) (GstElement * element);
};

void
mandelbox_view (GstElement * element)
{
  g_object_set (element, "animate", FALSE, "yaw", 30.0, "pitch", 15.0, nullptr);
}

void
pattern_kernel (GstElement * element)
{
  g_object_set (element, "source", PATTERN_KERNEL, nullptr);
}

const Source SOURCES[] = { { "openclmandelboxsrc", mandelbox_view },
  { "openclkernelsrc", pattern_kernel } };

/* One frame of a source and the caps it came with. */
struct Output
{
  GstBuffer *buffer = nullptr;
  GstVideoInfo info {};

  Output () = default;
  Output (const Output &) = delete;
  Output (Output && other) : buffer (other.buffer), info (other.info) { other.buffer = nullptr; }
  ~Output ()
  {
    if (buffer)
      gst_buffer_unref (buffer);
  }
};

/* The `frame`th frame (0 the first) of `source` under `caps`; `middle`, if any, sits between
 * the caps and the appsink (opencldownload after OpenCL caps). */
/* A video pool of the test's own type: the sources keep a downstream pool they do not know
 * (they replace GStreamer's plain pools with the plugin's), so its padded rows reach them. */
struct PaddedPool
{
  GstVideoBufferPool parent;
};
struct PaddedPoolClass
{
  GstVideoBufferPoolClass parent_class;
};
G_DEFINE_TYPE (PaddedPool, padded_pool, GST_TYPE_VIDEO_BUFFER_POOL);
static void padded_pool_init (PaddedPool *) {}
static void padded_pool_class_init (PaddedPoolClass *) {}

/* Rows this many pixels longer than the frame (odd: strides no multiple of anything), and
 * rows below it. */
constexpr guint PAD_RIGHT = 13, PAD_BOTTOM = 3;

/* Answers the allocation query with a pool of padded rows and GstVideoMeta. */
GstPadProbeReturn
offer_padded_pool (GstPad *, GstPadProbeInfo * info, gpointer)
{
  GstQuery *query = GST_PAD_PROBE_INFO_QUERY (info);
  if (GST_QUERY_TYPE (query) != GST_QUERY_ALLOCATION)
    return GST_PAD_PROBE_OK;
  GstCaps *caps = nullptr;
  gst_query_parse_allocation (query, &caps, nullptr);
  GstVideoInfo vinfo;
  fail_unless (caps && gst_video_info_from_caps (&vinfo, caps));
  GstBufferPool *pool = GST_BUFFER_POOL (g_object_new (padded_pool_get_type (), nullptr));
  GstStructure *config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, caps, (guint) vinfo.size, 0, 0);
  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_ALIGNMENT);
  GstVideoAlignment align;
  gst_video_alignment_reset (&align);
  align.padding_right = PAD_RIGHT;
  align.padding_bottom = PAD_BOTTOM;
  gst_buffer_pool_config_set_video_alignment (config, &align);
  fail_unless (gst_buffer_pool_set_config (pool, config));
  config = gst_buffer_pool_get_config (pool);
  guint size = 0;
  gst_buffer_pool_config_get_params (config, nullptr, &size, nullptr, nullptr);
  gst_structure_free (config);
  gst_query_add_allocation_pool (query, pool, size, 0, 0);
  gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, nullptr);
  gst_object_unref (pool);
  return GST_PAD_PROBE_HANDLED;
}

Output
pull (const Source & source, const std::string & caps, int frame,
    const std::string & middle = "", bool padded = false)
{
  const std::string line = std::string (source.factory) + " name=src num-buffers=" +
      std::to_string (frame + 1) + " ! " + caps + " ! " + (middle.empty () ? "" : middle +
      " ! ") + "appsink name=sink sync=false";
  GstElement *pipeline = testutil::parse_pipeline (line);
  GstElement *src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  source.set_up (src);
  if (padded) {
    GstPad *pad = gst_element_get_static_pad (sink, "sink");
    gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_QUERY_DOWNSTREAM, offer_padded_pool, nullptr,
        nullptr);
    gst_object_unref (pad);
  }
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  Output out;
  for (int i = 0; i <= frame; i++) {
    GstSample *sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink), 120 * GST_SECOND);
    if (!sample) {
      GstBus *bus = gst_element_get_bus (pipeline);
      const std::string error = testutil::first_error (bus);
      gst_object_unref (bus);
      fail ("%s: no frame %d (%s)", line.c_str (), i, error.c_str ());
    }
    if (i == frame) {
      out.buffer = gst_buffer_ref (gst_sample_get_buffer (sample));
      fail_unless (gst_video_info_from_caps (&out.info, gst_sample_get_caps (sample)));
    }
    gst_sample_unref (sample);
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (src);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  return out;
}

/* Fails unless `got` is the reference conversion of `rgba` into got's format, colorimetry and
 * chroma site, within BOUND and MAX_SHARE_OFF, component by component over every sample. */
void
expect_conversion_of (Output & rgba, Output & got, const std::string & what)
{
  const convertscale_reference::Difference d = convertscale_reference::compare (rgba.buffer,
      &rgba.info, got.buffer, &got.info, convertscale_reference::Method::Bilinear, false);
  GST_INFO ("%s: largest difference %d, %.3f%% of %zu samples off", what.c_str (), d.worst,
      100.0 * d.share_off, d.samples);
  fail_unless (d.worst <= BOUND, "%s: off by %d, %s", what.c_str (), d.worst, d.where.c_str ());
  fail_unless (d.share_off <= MAX_SHARE_OFF, "%s: %.2f%% of the samples off by one",
      what.c_str (), 100.0 * d.share_off);
}

std::string
caps_of (const char *format, int width, int height, const std::string & extra = "",
    const char *memory = nullptr)
{
  std::string caps = std::string ("video/x-raw") + (memory ? std::string ("(") + memory + ")" :
      "") + ",format=" + format;
  if (width > 0)
    caps += ",width=" + std::to_string (width) + ",height=" + std::to_string (height);
  return caps + extra;
}

/* Fails unless the RGBA frame is a picture: many values, so that a blank frame cannot pass. */
void
expect_picture (Output & rgba, const std::string & what)
{
  GstVideoFrame frame;
  fail_unless (gst_video_frame_map (&frame, &rgba.info, rgba.buffer, GST_MAP_READ));
  std::vector<bool> seen (256, false);
  int values = 0;
  for (int y = 0; y < GST_VIDEO_INFO_HEIGHT (&rgba.info); y++) {
    const guint8 *row = static_cast<const guint8 *> (GST_VIDEO_FRAME_PLANE_DATA (&frame, 0)) +
        (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0);
    for (int x = 0; x < GST_VIDEO_INFO_WIDTH (&rgba.info) * 4; x++) {
      values += !seen[row[x]];
      seen[row[x]] = true;
    }
  }
  gst_video_frame_unmap (&frame);
  fail_unless (values >= 32, "%s: the RGBA frame has only %d byte values", what.c_str (),
      values);
}

/* Every converted format of every source at width x height (0: the sources' default size),
 * frame `frame`, against the reference conversion of the RGBA frame. */
void
check_every_format (int width, int height, int frame)
{
  for (const Source & source : SOURCES) {
    Output rgba = pull (source, caps_of ("RGBA", width, height), frame);
    expect_picture (rgba, source.factory);
    for (const char *format : CONVERTED) {
      Output got = pull (source, caps_of (format, width, height), frame);
      fail_unless_equals_string (GST_VIDEO_INFO_NAME (&got.info), format);
      fail_unless_equals_int (GST_VIDEO_INFO_WIDTH (&got.info),
          GST_VIDEO_INFO_WIDTH (&rgba.info));
      fail_unless_equals_int (GST_VIDEO_INFO_HEIGHT (&got.info),
          GST_VIDEO_INFO_HEIGHT (&rgba.info));
      expect_conversion_of (rgba, got, std::string (source.factory) + " " + format + " " +
          std::to_string (GST_VIDEO_INFO_WIDTH (&got.info)) + "x" +
          std::to_string (GST_VIDEO_INFO_HEIGHT (&got.info)) + " frame " +
          std::to_string (frame));
    }
  }
}

}  // namespace

/* 65x49: odd both ways, so 4:2:0 chroma planes are 33x25 (rounded up); the second frame. */
GST_START_TEST (test_odd_size)
{
  check_every_format (65, 49, 1);
}
GST_END_TEST;

/* Nothing but the format asked for: the default size, 1280x720, whose YUV frames are BT.709
 * limited range (GStreamer's default for caps without colorimetry at that height). */
GST_START_TEST (test_default_size)
{
  check_every_format (0, 0, 0);
  Output nv12 = pull (SOURCES[0], caps_of ("NV12", 0, 0), 0);
  fail_unless_equals_int (GST_VIDEO_INFO_WIDTH (&nv12.info), 1280);
  fail_unless_equals_int (GST_VIDEO_INFO_HEIGHT (&nv12.info), 720);
  fail_unless_equals_int (nv12.info.colorimetry.matrix, GST_VIDEO_COLOR_MATRIX_BT709);
  fail_unless_equals_int (nv12.info.colorimetry.range, GST_VIDEO_COLOR_RANGE_16_235);
}
GST_END_TEST;

/* A frame kept after its pipeline stopped while the kernel that writes it still ran maps
 * afterwards, with the pixels the kernel wrote: the plugin's own kernels are waited for at the
 * stop, never given up (on rusticl's llvmpipe this 640x360 frame takes seconds, past the 2 s
 * grace after which the device's queue used to be given up, and the map then failed). The
 * pixels are those of the same frame read before its pipeline stopped. */
GST_START_TEST (test_kept_frame_maps_after_stop)
{
  const Source & source = SOURCES[0];  /* openclmandelboxsrc: the slowest kernel here */
  const std::string caps = caps_of ("RGBA", 640, 360);
  GstElement *pipeline = testutil::parse_pipeline (std::string (source.factory) +
      " name=src num-buffers=1 ! " + caps + " ! appsink name=sink sync=false");
  GstElement *src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  source.set_up (src);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  GstSample *sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink), 120 * GST_SECOND);
  fail_unless (sample != nullptr, "no frame");
  GstBuffer *buffer = gst_sample_get_buffer (sample);
  std::vector<guint8> before (gst_buffer_get_size (buffer));
  fail_unless_equals_int ((int) gst_buffer_extract (buffer, 0, before.data (), before.size ()),
      (int) before.size ());
  gst_sample_unref (sample);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (src);
  gst_object_unref (sink);
  gst_object_unref (pipeline);

  GTimer *timer = g_timer_new ();
  Output kept = pull (source, caps, 0);  /* stopped as soon as the frame came */
  const double stop = g_timer_elapsed (timer, nullptr);
  g_timer_destroy (timer);
  g_print ("test_kept_frame_maps_after_stop: the second pipeline ran and stopped in %.2f s\n",
      stop);
  GstMapInfo map;
  fail_unless (gst_buffer_map (kept.buffer, &map, GST_MAP_READ),
      "a frame kept after its pipeline stopped does not map");
  fail_unless_equals_int ((int) map.size, (int) before.size ());
  fail_unless (memcmp (map.data, before.data (), before.size ()) == 0,
      "the kept frame differs from the same frame read before its pipeline stopped");
  gst_buffer_unmap (kept.buffer, &map);
  expect_picture (kept, "kept frame");
}
GST_END_TEST;

/* The colorimetry and chroma site downstream asks for (a list: the source fixes the default of
 * the size) are the ones the frame is converted with. */
GST_START_TEST (test_negotiated_colorimetry)
{
  struct Case
  {
    const char *format, *extra;
    GstVideoColorMatrix matrix;
    GstVideoColorRange range;
  } cases[] = {
    { "NV12", ",colorimetry=bt709", GST_VIDEO_COLOR_MATRIX_BT709, GST_VIDEO_COLOR_RANGE_16_235 },
    { "I420", ",colorimetry=(string)1:4:0:0,chroma-site=jpeg", GST_VIDEO_COLOR_MATRIX_BT601,
        GST_VIDEO_COLOR_RANGE_0_255 },
    { "P010_10LE", ",colorimetry=bt2020", GST_VIDEO_COLOR_MATRIX_BT2020,
        GST_VIDEO_COLOR_RANGE_16_235 },
    { "NV12", ",colorimetry={ (string)bt2020, (string)bt601 }", GST_VIDEO_COLOR_MATRIX_BT601,
        GST_VIDEO_COLOR_RANGE_16_235 },
  };
  for (const Source & source : SOURCES) {
    Output rgba = pull (source, caps_of ("RGBA", 41, 23), 0);
    for (const Case & c : cases) {
      Output got = pull (source, caps_of (c.format, 41, 23, c.extra), 0);
      const std::string what = std::string (source.factory) + " " + c.format + c.extra;
      fail_unless_equals_int (got.info.colorimetry.matrix, c.matrix);
      fail_unless_equals_int (got.info.colorimetry.range, c.range);
      expect_conversion_of (rgba, got, what);
    }
  }
}
GST_END_TEST;

/* Frames in OpenCL memory: converted where they are, read back by opencldownload. */
GST_START_TEST (test_opencl_memory)
{
  for (const Source & source : SOURCES) {
    Output rgba = pull (source, caps_of ("RGBA", 33, 17), 0);
    for (const char *format : { "NV12", "P010_10LE" }) {
      Output got = pull (source, caps_of (format, 33, 17, "", "memory:OpenCLMemory"), 0,
          "opencldownload ! video/x-raw");
      expect_conversion_of (rgba, got, std::string (source.factory) + " " + format +
          " in OpenCL memory");
    }
  }
}
GST_END_TEST;

/* Output buffers with padded rows (downstream's pool): every plane written at its own stride. */
GST_START_TEST (test_padded_rows)
{
  for (const Source & source : SOURCES) {
    Output rgba = pull (source, caps_of ("RGBA", 65, 49), 0);
    for (const char *format : { "NV12", "I420", "P010_10LE", "GRAY16_LE" }) {
      Output got = pull (source, caps_of (format, 65, 49), 0, "", true);
      GstVideoMeta *meta = gst_buffer_get_video_meta (got.buffer);
      fail_unless (meta != nullptr, "%s %s: no video meta", source.factory, format);
      const int pixel_bytes = GST_VIDEO_FORMAT_INFO_PSTRIDE (got.info.finfo, 0);
      fail_unless_equals_int (meta->stride[0], GST_ROUND_UP_4 ((65 + (int) PAD_RIGHT) *
              pixel_bytes));
      expect_conversion_of (rgba, got, std::string (source.factory) + " " + format +
          " with padded rows (stride " + std::to_string (meta->stride[0]) + ")");
    }
  }
}
GST_END_TEST;

/* What the sources cannot make fails negotiation (caps set after linking, so that the failure
 * comes from negotiation, not from parsing). */
GST_START_TEST (test_other_formats_refused)
{
  for (const Source & source : SOURCES) {
    const std::string error = testutil::run_with_caps_after_linking (std::string (
            source.factory) + " num-buffers=1", "video/x-raw,format=YUY2,width=16,height=16");
    fail_unless (error.find ("not-negotiated") != std::string::npos, "%s: %s", source.factory,
        error.c_str ());
  }
}
GST_END_TEST;

static Suite *
src_formats_suite (void)
{
  return TESTUTIL_SUITE ("src-formats", 600, test_odd_size, test_default_size,
      test_kept_frame_maps_after_stop, test_negotiated_colorimetry, test_opencl_memory,
      test_padded_rows, test_other_formats_refused);
}

GST_CHECK_MAIN (src_formats);
