/* gst-opencl tests: the meta policy (docs/design.md, "Metas"). Every element of the plugin that
 * takes input gets frames through "appsrc ! <element> ! appsink", each carrying a custom meta
 * without tags, one tagged `video`, one tagged `video` and `colorspace`, one tagged `memory`
 * and a GstVideoRegionOfInterestMeta, all with the frame's own values; each output frame must
 * carry the metas the policy keeps for the element, with its input frame's values:
 * - an output that is the input's picture (filters, transfers, the temporal filter, a filter
 *   bank's video): every meta but the `memory` one (`colorspace` only where the format stays),
 *   the region scaled with the picture where the size changes;
 * - in place (analysis): the frame itself, every meta;
 * - another picture (sorted pixels, tensors): the meta without tags only.
 * The elements are a table: an element that takes input and has no row fails test_coverage.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/check/gstcheck.h>
#include <gst/video/video.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "common/reliability.h"
#include "common/suite.h"
#include "common/testutil.h"

namespace {

constexpr GstClockTime FRAME_NS = GST_SECOND / 30;
constexpr int FRAMES = 4;

/* ---- the custom metas ---- */

enum class Custom { Plain, Video, Colorspace, Memory, Count };

const char *
custom_name (Custom kind)
{
  static const char *const names[] = { "the meta without tags", "the video meta",
    "the colorspace meta", "the memory meta" };
  return names[(int) kind];
}

struct TestMeta
{
  GstMeta meta;
  guint32 value;
};

gboolean
test_meta_init (GstMeta * meta, gpointer, GstBuffer *)
{
  reinterpret_cast<TestMeta *> (meta)->value = 0;
  return TRUE;
}

/* Copies keep the value; other transforms (scale) are not known to these metas. */
gboolean
test_meta_transform (GstBuffer * dest, GstMeta * meta, GstBuffer *, GQuark type, gpointer)
{
  if (!GST_META_TRANSFORM_IS_COPY (type))
    return FALSE;
  auto *copy = reinterpret_cast<TestMeta *> (gst_buffer_add_meta (dest, meta->info, nullptr));
  copy->value = reinterpret_cast<TestMeta *> (meta)->value;
  return TRUE;
}

struct Registered
{
  GType api[(int) Custom::Count];
  const GstMetaInfo *info[(int) Custom::Count];
};

/* Registered on first use (in the forked test, like everything else of GStreamer's). */
const Registered &
registered ()
{
  static Registered r = [] {
    Registered made {};
    const gchar *plain[] = { nullptr };
    const gchar *video[] = { GST_META_TAG_VIDEO_STR, nullptr };
    const gchar *colorspace[] = { GST_META_TAG_VIDEO_STR, GST_META_TAG_VIDEO_COLORSPACE_STR,
      nullptr };
    const gchar *memory[] = { GST_META_TAG_MEMORY_STR, nullptr };
    const gchar **tags[] = { plain, video, colorspace, memory };
    const char *names[] = { "Plain", "Video", "Colorspace", "Memory" };
    for (int k = 0; k < (int) Custom::Count; k++) {
      std::string api = std::string ("GstOpenCLTest") + names[k] + "MetaAPI";
      std::string impl = std::string ("GstOpenCLTest") + names[k] + "Meta";
      made.api[k] = gst_meta_api_type_register (g_intern_string (api.c_str ()), tags[k]);
      made.info[k] = gst_meta_register (made.api[k], g_intern_string (impl.c_str ()),
          sizeof (TestMeta), test_meta_init, nullptr, test_meta_transform);
    }
    return made;
  } ();
  return r;
}

/* The values input frame i carries. */
guint32
custom_value (Custom kind, int i)
{
  return 1000 * ((guint32) kind + 1) + (guint32) i;
}

GstVideoRectangle
roi_of (int i)
{
  return GstVideoRectangle { 1 + i, 2, 6, 4 + i };
}

/* ---- the elements ---- */

enum class Keeps
{
  Picture,   /* the output is the input's picture: every meta but `memory` */
  InPlace,   /* the frame itself goes on: every meta */
  Untagged,  /* another picture: the meta without tags only */
};

struct Row
{
  const char *name;
  /* The elements of the plugin the row sends frames through. */
  std::vector<const char *> factories;
  std::string segment;
  std::string in_caps;
  /* appsink's caps: what the element is asked to make. */
  std::string out_caps;
  Keeps keeps;
  /* Keeps::Picture: whether the format (so the `colorspace` meta) stays. */
  bool same_format = true;
  /* Output size over input size (the region scales with it). */
  int scale = 1;
};

const char *const COPY_KERNEL = "openclkernel source=\"__kernel void copy (__read_only "
    "image2d_t in, __write_only image2d_t out) { int2 p = (int2) (get_global_id (0), "
    "get_global_id (1)); write_imagef (out, p, read_imagef (in, p)); }\"";

const char *const RESAMPLE_KERNEL = "openclkernel source=\"__kernel void resample (__read_only "
    "image2d_t in, __write_only image2d_t out, int width, int height) { const sampler_t s = "
    "CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_LINEAR; int x = "
    "get_global_id (0), y = get_global_id (1); if (x >= width || y >= height) return; "
    "write_imagef (out, (int2) (x, y), read_imagef (in, s, (float2) ((x + 0.5f) / width, "
    "(y + 0.5f) / height))); }\"";

const char *const RGBA = "video/x-raw,format=RGBA,width=16,height=16,framerate=30/1";
const char *const GRAY8 = "video/x-raw,format=GRAY8,width=16,height=16,framerate=30/1";
const char *const INT32_ROWS = "other/tensors,format=static,num_tensors=1,types=int32,"
    "dimensions=(string)16:4,framerate=(fraction)0/1";
const char *const SHARPEN = "openclmulticonvolve num-kernels=1 kernel-size=3 "
    "kernels=\"<0,-1,0,-1,5,-1,0,-1,0>\"";

const std::vector<Row> &
rows ()
{
  static const std::vector<Row> table = {
    { "bilateral", { "openclbilateral" }, "openclbilateral sigma-spatial=0.5", RGBA,
      "video/x-raw", Keeps::Picture },
    { "bilateral-on-device", { "openclupload", "openclbilateral", "opencldownload" },
      "openclupload ! openclbilateral sigma-spatial=0.5 ! opencldownload", RGBA, "video/x-raw",
      Keeps::Picture },
    { "upload-download", { "openclupload", "opencldownload" }, "openclupload ! opencldownload",
      RGBA, "video/x-raw", Keeps::Picture },
    { "histogram", { "openclhistogram" }, "openclhistogram bins=16", RGBA, "video/x-raw",
      Keeps::InPlace },
    { "histogram-draw", { "openclhistogram" }, "openclhistogram bins=16 draw=true", RGBA,
      "video/x-raw", Keeps::InPlace },
    { "kernel", { "openclkernel" }, COPY_KERNEL, RGBA, "video/x-raw", Keeps::Picture },
    { "kernel-resample", { "openclkernel" }, RESAMPLE_KERNEL, RGBA,
      "video/x-raw,width=32,height=32", Keeps::Picture, true, 2 },
    { "convolve3d", { "openclconvolve3d" }, "openclconvolve3d kernel-depth=3 sigma-t=1", RGBA,
      "video/x-raw", Keeps::Picture },
    { "multiconvolve-gray", { "openclmulticonvolve" }, SHARPEN, GRAY8,
      "video/x-raw,format=GRAY8", Keeps::Picture },
    { "multiconvolve-rgba", { "openclmulticonvolve" }, "openclmulticonvolve num-kernels=2 "
      "kernel-size=1 kernels=\"<1,0.5>\"", GRAY8, "video/x-raw,format=RGBA", Keeps::Picture,
      false },
    { "multiconvolve-tensors", { "openclmulticonvolve" }, SHARPEN, GRAY8, "other/tensors",
      Keeps::Untagged },
    { "convertscale", { "openclconvertscale" }, "openclconvertscale", RGBA,
      "video/x-raw,format=NV12", Keeps::Picture, false },
    { "convertscale-scaled", { "openclconvertscale" }, "openclconvertscale", RGBA,
      "video/x-raw,format=RGBA,width=32,height=32", Keeps::Picture, true, 2 },
    { "sort-video", { "openclsort" }, "openclsort", RGBA, "video/x-raw", Keeps::Untagged },
    { "sort-tensors", { "openclsort" }, "openclsort", INT32_ROWS, "other/tensors",
      Keeps::Untagged },
  };
  return table;
}

const Row &
row_named (const std::string & name)
{
  for (const Row & row : rows ()) {
    if (name == row.name)
      return row;
  }
  fail ("no row %s", name.c_str ());
  return rows ().front ();
}

/* ---- frames through a row ---- */

gsize
buffer_bytes (const std::string & caps_text)
{
  if (caps_text == INT32_ROWS)
    return 16 * 4 * sizeof (gint32);
  GstCaps *caps = gst_caps_from_string (caps_text.c_str ());
  GstVideoInfo info;
  fail_unless (gst_video_info_from_caps (&info, caps));
  gst_caps_unref (caps);
  return info.size;
}

GstBuffer *
input_frame (gsize bytes, int i)
{
  const Registered & r = registered ();
  GstBuffer *buffer = gst_buffer_new_allocate (nullptr, bytes, nullptr);
  GstMapInfo map;
  fail_unless (gst_buffer_map (buffer, &map, GST_MAP_WRITE));
  for (gsize b = 0; b < map.size; b++)
    map.data[b] = (guint8) (b * 13 + i * 7);
  gst_buffer_unmap (buffer, &map);
  for (int k = 0; k < (int) Custom::Count; k++) {
    auto *meta = reinterpret_cast<TestMeta *> (gst_buffer_add_meta (buffer, r.info[k],
            nullptr));
    meta->value = custom_value ((Custom) k, i);
  }
  const GstVideoRectangle roi = roi_of (i);
  GstVideoRegionOfInterestMeta *meta = gst_buffer_add_video_region_of_interest_meta (buffer,
      "test-roi", roi.x, roi.y, roi.w, roi.h);
  meta->id = 10 + i;
  GST_BUFFER_PTS (buffer) = i * FRAME_NS;
  GST_BUFFER_DURATION (buffer) = FRAME_NS;
  return buffer;
}

/* The metas of API `api` on `buffer`. */
std::vector<GstMeta *>
metas_of (GstBuffer * buffer, GType api)
{
  std::vector<GstMeta *> found;
  gpointer state = nullptr;
  while (GstMeta *meta = gst_buffer_iterate_meta_filtered (buffer, &state, api))
    found.push_back (meta);
  return found;
}

/* Output frame `i` of `row` carries what the policy keeps, with input frame i's values. */
void
check_output (const Row & row, GstBuffer * buffer, int i)
{
  const Registered & r = registered ();
  const bool in_place = row.keeps == Keeps::InPlace;
  const bool picture = row.keeps != Keeps::Untagged;
  const bool expected[] = { true, picture, picture && row.same_format, in_place };
  for (int k = 0; k < (int) Custom::Count; k++) {
    auto found = metas_of (buffer, r.api[k]);
    const char *what = custom_name ((Custom) k);
    if (!expected[k]) {
      fail_unless (found.empty (), "%s, frame %d: %s was not dropped", row.name, i, what);
      continue;
    }
    fail_unless (found.size () == 1, "%s, frame %d: %zu of %s, expected 1", row.name, i,
        found.size (), what);
    const guint32 value = reinterpret_cast<TestMeta *> (found[0])->value;
    fail_unless (value == custom_value ((Custom) k, i), "%s, frame %d: %s holds %u, expected "
        "%u (another frame's)", row.name, i, what, value, custom_value ((Custom) k, i));
  }

  auto rois = metas_of (buffer, GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE);
  if (!picture) {
    fail_unless (rois.empty (), "%s, frame %d: the region of interest was not dropped",
        row.name, i);
    return;
  }
  fail_unless (rois.size () == 1, "%s, frame %d: %zu regions of interest, expected 1",
      row.name, i, rois.size ());
  auto *roi = reinterpret_cast<GstVideoRegionOfInterestMeta *> (rois[0]);
  const GstVideoRectangle want = roi_of (i);
  fail_unless (roi->roi_type == g_quark_from_string ("test-roi") && roi->id == 10 + i,
      "%s, frame %d: region %s id %d", row.name, i, g_quark_to_string (roi->roi_type), roi->id);
  fail_unless (roi->x == (guint) (want.x * row.scale) && roi->y == (guint) (want.y * row.scale) &&
      roi->w == (guint) (want.w * row.scale) && roi->h == (guint) (want.h * row.scale),
      "%s, frame %d: region %u,%u %ux%u, expected %d,%d %dx%d", row.name, i, roi->x, roi->y,
      roi->w, roi->h, want.x * row.scale, want.y * row.scale, want.w * row.scale,
      want.h * row.scale);
}

void
run_row (const Row & row)
{
  std::string line = "appsrc name=src format=time caps=\"" + row.in_caps + "\" ! " +
      row.segment + " ! appsink name=sink sync=false caps=\"" + row.out_caps + "\"";
  GstElement *pipeline = testutil::parse_pipeline (line);
  GstElement *src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  gst_element_set_state (pipeline, GST_STATE_PLAYING);

  const gsize bytes = buffer_bytes (row.in_caps);
  for (int i = 0; i < FRAMES; i++)
    fail_unless_equals_int (gst_app_src_push_buffer (GST_APP_SRC (src), input_frame (bytes, i)),
        GST_FLOW_OK);
  gst_app_src_end_of_stream (GST_APP_SRC (src));

  std::set<int> seen;
  std::string error;
  reliability::pull_until_done (pipeline, sink, 120 * GST_SECOND, [&](GstSample * sample) {
        GstBuffer *buffer = gst_sample_get_buffer (sample);
        fail_unless (GST_BUFFER_PTS_IS_VALID (buffer), "%s: an output without a timestamp",
            row.name);
        const int i = (int) (GST_BUFFER_PTS (buffer) / FRAME_NS);
        fail_unless (i >= 0 && i < FRAMES && seen.insert (i).second,
            "%s: an output of pts %" GST_TIME_FORMAT, row.name,
            GST_TIME_ARGS (GST_BUFFER_PTS (buffer)));
        check_output (row, buffer, i);
      }, &error, row.segment);
  fail_unless (error.empty (), "%s: %s", row.name, error.c_str ());
  fail_unless_equals_int ((int) seen.size (), FRAMES);
  gst_object_unref (src);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
}

void
run_rows (std::initializer_list<const char *> names)
{
  for (const char *name : names)
    run_row (row_named (name));
}

}  // namespace

/* Every element of the plugin that takes input has a row (sources make frames without
 * metas). */
GST_START_TEST (test_coverage)
{
  std::set<std::string> covered;
  for (const Row & row : rows ())
    covered.insert (row.factories.begin (), row.factories.end ());
  GList *features = gst_registry_get_feature_list_by_plugin (gst_registry_get (), "opencl");
  int takers = 0;
  for (GList *l = features; l; l = l->next) {
    if (!GST_IS_ELEMENT_FACTORY (l->data))
      continue;
    auto *factory = GST_ELEMENT_FACTORY (l->data);
    bool takes_input = false;
    for (const GList *t = gst_element_factory_get_static_pad_templates (factory); t;
        t = t->next)
      takes_input |= static_cast<GstStaticPadTemplate *> (t->data)->direction == GST_PAD_SINK;
    if (!takes_input)
      continue;
    takers++;
    const char *name = gst_plugin_feature_get_name (GST_PLUGIN_FEATURE (factory));
    fail_unless (covered.count (name) == 1, "%s takes input but has no row in test_meta",
        name);
  }
  gst_plugin_feature_list_free (features);
  fail_unless (takers >= 8, "only %d elements take input: is the plugin loaded?", takers);
}
GST_END_TEST;

GST_START_TEST (test_filters)
{
  run_rows ({ "bilateral", "kernel", "multiconvolve-gray", "multiconvolve-rgba",
        "convertscale" });
}
GST_END_TEST;

GST_START_TEST (test_scaled)
{
  run_rows ({ "kernel-resample", "convertscale-scaled" });
}
GST_END_TEST;

GST_START_TEST (test_in_place)
{
  run_rows ({ "histogram", "histogram-draw" });
}
GST_END_TEST;

GST_START_TEST (test_transfer)
{
  run_rows ({ "upload-download", "bilateral-on-device" });
}
GST_END_TEST;

/* Output n of a window of frames carries input n's metas, the drained outputs at EOS too. */
GST_START_TEST (test_temporal)
{
  run_rows ({ "convolve3d" });
}
GST_END_TEST;

GST_START_TEST (test_other_picture)
{
  run_rows ({ "sort-video", "sort-tensors", "multiconvolve-tensors" });
}
GST_END_TEST;

static Suite *
meta_suite (void)
{
  return TESTUTIL_SUITE ("meta", 600, test_coverage, test_filters, test_scaled, test_in_place,
      test_transfer, test_temporal, test_other_picture);
}

GST_CHECK_MAIN (meta);
