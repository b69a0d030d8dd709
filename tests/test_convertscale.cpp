/* gst-opencl tests: openclconvertscale against its CPU reference (double precision): every
 * format pair at an odd size and with padded rows, random and structured frames, every matrix
 * and range, chroma sites, scaling (nearest, bilinear, lanczos and bicubic, up and down, with
 * and without borders), crop metas, passthrough, a round trip NV12 -> RGBA -> NV12, OpenCL
 * memory in and out, GStreamer's videoconvertscale on a few pairs, and the unscaled kernels
 * against the general one.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/base/gstbasetransform.h>
#include <gst/check/gstcheck.h>
#include <gst/video/video.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "common/suite.h"
#include "common/testutil.h"
#include "reference/convertscale_reference.h"

using convertscale_reference::compare;
using convertscale_reference::Difference;
using convertscale_reference::Method;
using convertscale_reference::method_nick;

namespace {

const std::vector<GstVideoFormat> &
all_formats ()
{
  static const std::vector<GstVideoFormat> formats = { GST_VIDEO_FORMAT_NV12,
    GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_P010_10LE, GST_VIDEO_FORMAT_GRAY8,
    GST_VIDEO_FORMAT_GRAY16_LE, GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_BGRA,
    GST_VIDEO_FORMAT_RGBx, GST_VIDEO_FORMAT_BGRx, GST_VIDEO_FORMAT_RGBA64_LE };
  return formats;
}

/* The largest difference from the reference the element may have, in codes of the output's
 * depth: rounding half up in float (the kernel) and double (the reference) differs by one
 * where the exact value is within float error of a half. 1 for 8-, 10- and 16-bit output. */
constexpr int BOUND = 1;
/* And few of them: at most this share of a frame's samples may differ at all (2.6% at most
 * seen, on 16-bit outputs; a kernel that rounds at 0.3 instead of 0.5 has 40%). */
constexpr double MAX_SHARE_OFF = 0.05;

enum class Content { Random, Structured, Smooth };

/* The rows of plane `plane`. */
int
plane_rows (const GstVideoInfo * info, guint plane)
{
  for (guint c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (info); c++) {
    if (GST_VIDEO_FORMAT_INFO_PLANE (info->finfo, c) == plane)
      return GST_VIDEO_FORMAT_INFO_SCALE_HEIGHT (info->finfo, c, info->height);
  }
  return info->height;
}

/* A frame of `info`: `pad` extra bytes at the end of every row of every plane. */
GstBuffer *
make_frame (const GstVideoInfo * info, Content content, uint32_t seed, int pad = 0)
{
  GstVideoInfo padded = *info;
  gsize offset = 0;
  for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
    padded.stride[p] = info->stride[p] + pad;
    padded.offset[p] = offset;
    offset += (gsize) padded.stride[p] * plane_rows (info, p);
  }
  padded.size = offset;
  GstBuffer *buffer = gst_buffer_new_allocate (nullptr, padded.size, nullptr);
  gst_buffer_add_video_meta_full (buffer, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_INFO_FORMAT (info), info->width, info->height,
      GST_VIDEO_INFO_N_PLANES (info), padded.offset, padded.stride);
  GstVideoFrame frame;
  fail_unless (gst_video_frame_map (&frame, &padded, buffer, GST_MAP_WRITE));
  std::mt19937 rng (seed);
  const GstVideoFormatInfo *finfo = info->finfo;
  for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
    guint8 *data = static_cast<guint8 *> (frame.data[p]);
    for (gsize i = 0; i < (gsize) padded.stride[p] * plane_rows (info, p); i++)
      data[i] = (guint8) rng ();
  }
  if (content != Content::Random) {
    /* Ramps and bands: each component's code from its position, smooth or with steps. */
    for (guint c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (info); c++) {
      const int depth = GST_VIDEO_FORMAT_INFO_DEPTH (finfo, c);
      const int max = (1 << depth) - 1;
      const int w = GST_VIDEO_FRAME_COMP_WIDTH (&frame, c);
      const int h = GST_VIDEO_FRAME_COMP_HEIGHT (&frame, c);
      for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
          double v;
          /* Smooth: ramps inside the RGB gamut (chroma near neutral on YUV formats). */
          const bool chroma = GST_VIDEO_INFO_IS_YUV (info) && c > 0;
          if (content == Content::Smooth)
            v = (chroma ? 0.45 : 0.3) + (chroma ? 0.1 : 0.4) * (x + 2.0 * y + 5.0 * c) /
                (w + 2.0 * h + 15.0);
          else
            v = ((x / 4 + y / 3 + (int) c) % 5) / 4.0;
          if (c == 3)
            v = 1.0 - v / 2;
          const int code = (int) std::lround (v * max);
          convertscale_reference::set_component (&frame, c, x, y, code);
        }
      }
    }
  }
  gst_video_frame_unmap (&frame);
  return buffer;
}

struct Run
{
  std::vector<GstBuffer *> out;
  GstCaps *out_caps = nullptr;
  std::string error;
  bool passthrough = false;
  guint64 kernel_time_ns = 0;

  Run () = default;
  Run (const Run &) = delete;
  ~Run ()
  {
    for (GstBuffer *b : out)
      gst_buffer_unref (b);
    if (out_caps)
      gst_caps_unref (out_caps);
  }
};

/* One OpenCL context for the many short pipelines of a test, where the test asks for it
 * (`SharingContext`): the first pipeline's, handed to the others as an application's would
 * be. A context of its own for each costs its creation and its programs' loading every time:
 * on NVIDIA's driver about half a second a pipeline, so test_unscaled_kernel's 400 pipelines
 * took 200-250 s on an H200, and the whole program more than the GPU suite's ten minutes. */
struct SharingContext
{
  GstContext *context = nullptr;
  SharingContext ();
  ~SharingContext ();
  SharingContext (const SharingContext &) = delete;
};

SharingContext *sharing = nullptr;

SharingContext::SharingContext ()
{
  sharing = this;
}

SharingContext::~SharingContext ()
{
  sharing = nullptr;
  if (context)
    gst_context_unref (context);
}

/* Pushes `frames` (taken) of `in_caps` through "appsrc ! <middle> ! appsink caps=<out_caps>",
 * middle holding one openclconvertscale named "cs"; on the test's shared context where it
 * has one. */
void
run_frames (const std::string & in_caps, const std::string & middle,
    const std::string & out_caps, std::vector<GstBuffer *> frames, Run & run)
{
  const std::string line = "appsrc name=src format=time caps=\"" + in_caps + "\" ! " + middle +
      " ! appsink name=sink sync=false caps=\"" + out_caps + "\"";
  GstElement *pipeline = testutil::parse_pipeline (line);
  GstElement *src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  GstElement *cs = gst_bin_get_by_name (GST_BIN (pipeline), "cs");
  GstBus *bus = gst_element_get_bus (pipeline);
  if (sharing && sharing->context)
    gst_element_set_context (pipeline, sharing->context);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  for (size_t i = 0; i < frames.size (); i++) {
    GST_BUFFER_PTS (frames[i]) = i * GST_SECOND / 30;
    GST_BUFFER_DURATION (frames[i]) = GST_SECOND / 30;
    gst_app_src_push_buffer (GST_APP_SRC (src), frames[i]);
  }
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  /* Until EOS, or an error stops the stream. */
  for (int waited = 0; waited < 120 && !gst_app_sink_is_eos (GST_APP_SINK (sink));) {
    GstSample *sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink), GST_SECOND);
    if (!sample) {
      waited++;
      GstMessage *error = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
      if (error) {
        run.error = testutil::message_text (error);
        gst_message_unref (error);
        break;
      }
      continue;
    }
    run.out.push_back (gst_buffer_ref (gst_sample_get_buffer (sample)));
    if (!run.out_caps)
      run.out_caps = gst_caps_ref (gst_sample_get_caps (sample));
    gst_sample_unref (sample);
  }
  if (run.error.empty ())
    run.error = testutil::first_error (bus);
  run.passthrough = GST_IS_BASE_TRANSFORM (cs) &&
      gst_base_transform_is_passthrough (GST_BASE_TRANSFORM (cs));
  if (g_object_class_find_property (G_OBJECT_GET_CLASS (cs), "kernel-time"))
    g_object_get (cs, "kernel-time", &run.kernel_time_ns, nullptr);
  if (sharing && !sharing->context && run.error.empty ()) {
    GObject *shared = testutil::element_context (cs);
    if (shared) {
      sharing->context = testutil::application_context (shared);
      g_object_unref (shared);
    }
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (cs);
  gst_object_unref (src);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
}

std::string
caps_of (GstVideoFormat format, int w, int h, const std::string & extra = "")
{
  return std::string ("video/x-raw,format=") + gst_video_format_to_string (format) +
      ",width=" + std::to_string (w) + ",height=" + std::to_string (h) +
      ",framerate=30/1" + extra;
}

struct Pair
{
  GstVideoFormat in, out;
  int iw, ih, ow, oh;
  std::string in_extra = "", out_extra = "";
  Method method = Method::Bilinear;
  bool add_borders = true;
  int pad = 0;
  bool opencl = false;  /* through openclupload and opencldownload */
  /* A GstVideoCropMeta on every input (w 0: none), and the rectangle the element is expected
   * to use (the meta's clipped to the frame). */
  GstVideoRectangle crop_meta { 0, 0, 0, 0 };
  convertscale_reference::Crop crop { 0, 0, 0, 0 };
};


/* Runs a random, a structured and a smooth frame of the pair and checks them against the
 * reference; returns the largest difference. */
int
check_pair (const Pair & pair, uint32_t seed)
{
  const std::string in_caps = caps_of (pair.in, pair.iw, pair.ih, pair.in_extra);
  const std::string out_caps = caps_of (pair.out, pair.ow, pair.oh, pair.out_extra);
  GstCaps *caps = gst_caps_from_string (in_caps.c_str ());
  GstVideoInfo in_info;
  fail_unless (gst_video_info_from_caps (&in_info, caps));
  gst_caps_unref (caps);
  std::vector<GstBuffer *> inputs;
  for (Content content : { Content::Random, Content::Structured, Content::Smooth })
    inputs.push_back (make_frame (&in_info, content, seed++, pair.pad));
  if (pair.crop_meta.w > 0) {
    for (GstBuffer *b : inputs) {
      GstVideoCropMeta *meta = gst_buffer_add_video_crop_meta (b);
      meta->x = pair.crop_meta.x;
      meta->y = pair.crop_meta.y;
      meta->width = pair.crop_meta.w;
      meta->height = pair.crop_meta.h;
    }
  }
  std::vector<GstBuffer *> pushed;
  for (GstBuffer *b : inputs)
    pushed.push_back (gst_buffer_ref (b));
  const std::string element = std::string ("openclconvertscale name=cs method=") +
      method_nick (pair.method) + " add-borders=" + (pair.add_borders ? "true" : "false");
  const std::string middle = pair.opencl ? "openclupload ! " + element + " ! " +
      std::string ("video/x-raw(memory:OpenCLMemory) ! opencldownload") : element;
  Run run;
  run_frames (in_caps, middle, out_caps, pushed, run);
  const std::string what = in_caps + " -> " + out_caps;
  fail_unless (run.error.empty (), "%s: %s", what.c_str (), run.error.c_str ());
  fail_unless_equals_int ((int) run.out.size (), (int) inputs.size ());
  GstVideoInfo out_info;
  fail_unless (gst_video_info_from_caps (&out_info, run.out_caps));
  int worst = 0;
  for (size_t i = 0; i < inputs.size (); i++) {
    const Difference difference = compare (inputs[i], &in_info, run.out[i], &out_info,
        pair.method, pair.add_borders, pair.crop_meta.w > 0 ? &pair.crop : nullptr);
    const int d = difference.worst;
    fail_if (gst_buffer_get_video_crop_meta (run.out[i]), "%s: the applied crop went on",
        what.c_str ());
    gchar *negotiated = gst_caps_to_string (run.out_caps);
    fail_unless (d <= BOUND, "%s, frame %zu (method %d, borders %d, pad %d): off by %d, %s "
        "(output %s)", what.c_str (), i, (int) pair.method, pair.add_borders, pair.pad, d,
        difference.where.c_str (), negotiated);
    g_free (negotiated);
    fail_unless (difference.share_off <= MAX_SHARE_OFF, "%s, frame %zu: %.1f%% of the samples "
        "differ from the reference (rounding?)", what.c_str (), i, 100 * difference.share_off);
    worst = MAX (worst, d);
  }
  for (GstBuffer *b : inputs)
    gst_buffer_unref (b);
  return worst;
}

const char *
name (GstVideoFormat format)
{
  return gst_video_format_to_string (format);
}

/* The frames the converter logs (category openclconvert, LOG: "unscaled kernel" or "general
 * kernel" per frame), counted while a test listens. */
struct KernelCounts
{
  std::atomic<int> unscaled { 0 }, general { 0 }, halving { 0 };
};

void
count_kernels (GstDebugCategory * category, GstDebugLevel, const gchar *, const gchar *,
    gint, GObject *, GstDebugMessage * message, gpointer user_data)
{
  if (strcmp (gst_debug_category_get_name (category), "openclconvert") != 0)
    return;
  auto *counts = static_cast<KernelCounts *> (user_data);
  const gchar *text = gst_debug_message_get (message);
  if (strcmp (text, "unscaled kernel") == 0)
    counts->unscaled++;
  else if (strcmp (text, "general kernel") == 0)
    counts->general++;
  else if (strcmp (text, "halving kernel") == 0)
    counts->halving++;
}

/* Whether two output frames of `info` hold the same bytes in every plane's rows (not the
 * padding after them); `where` says where they first differ. */
bool
same_bytes (GstBuffer * a, GstBuffer * b, const GstVideoInfo * info, std::string * where)
{
  GstVideoFrame fa, fb;
  fail_unless (gst_video_frame_map (&fa, info, a, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&fb, info, b, GST_MAP_READ));
  bool same = true;
  for (guint c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (info) && same; c++) {
    const guint plane = GST_VIDEO_FORMAT_INFO_PLANE (info->finfo, c);
    const int bytes = GST_VIDEO_FRAME_COMP_PSTRIDE (&fa, c) * GST_VIDEO_FRAME_COMP_WIDTH (&fa, c);
    for (int y = 0; y < GST_VIDEO_FRAME_COMP_HEIGHT (&fa, c) && same; y++) {
      const guint8 *ra = static_cast<const guint8 *> (GST_VIDEO_FRAME_PLANE_DATA (&fa, plane)) + y *
          GST_VIDEO_FRAME_PLANE_STRIDE (&fa, plane);
      const guint8 *rb = static_cast<const guint8 *> (GST_VIDEO_FRAME_PLANE_DATA (&fb, plane)) + y *
          GST_VIDEO_FRAME_PLANE_STRIDE (&fb, plane);
      for (int i = 0; i < bytes; i++) {
        if (ra[i] != rb[i]) {
          *where = "plane " + std::to_string (plane) + " row " + std::to_string (y) + " byte " +
              std::to_string (i) + ": " + std::to_string (ra[i]) + " and " +
              std::to_string (rb[i]);
          same = false;
          break;
        }
      }
    }
  }
  gst_video_frame_unmap (&fa);
  gst_video_frame_unmap (&fb);
  return same;
}

/* One conversion with GST_OPENCL_CONVERT_FAST=`fast` (0: the general kernel; runs, blocks: that
 * unscaled kernel): a random and a smooth frame of `pair` (sizes equal, no borders asked). */
void
run_unscaled (const Pair & pair, uint32_t seed, const char *fast, Run & run)
{
  const std::string in_caps = caps_of (pair.in, pair.iw, pair.ih, pair.in_extra);
  GstVideoInfo in_info;
  GstCaps *caps = gst_caps_from_string (in_caps.c_str ());
  fail_unless (gst_video_info_from_caps (&in_info, caps));
  gst_caps_unref (caps);
  g_setenv ("GST_OPENCL_CONVERT_FAST", fast, TRUE);
  run_frames (in_caps, std::string ("openclconvertscale name=cs add-borders=false method=") +
      (pair.method == Method::Nearest ? "nearest-neighbour" : "bilinear"),
      caps_of (pair.out, pair.ow, pair.oh, pair.out_extra),
      { make_frame (&in_info, Content::Random, seed, pair.pad),
        make_frame (&in_info, Content::Smooth, seed + 1, pair.pad) }, run);
  g_unsetenv ("GST_OPENCL_CONVERT_FAST");
}

/* The pair with each unscaled kernel that has it (runs; blocks from 4:2:0 to 8-bit packed RGB)
 * and without: the same bytes, and each run took the kernel it was meant to. */
void
check_unscaled (const Pair & pair, uint32_t seed, KernelCounts & counts)
{
  const std::string what = caps_of (pair.in, pair.iw, pair.ih, pair.in_extra) + " -> " +
      caps_of (pair.out, pair.ow, pair.oh, pair.out_extra) + (pair.method == Method::Nearest ?
      " nearest" : " bilinear") + " pad " + std::to_string (pair.pad);
  Run general;
  counts.unscaled = counts.general = 0;
  run_unscaled (pair, seed, "0", general);
  fail_unless (general.error.empty (), "%s: %s", what.c_str (), general.error.c_str ());
  fail_unless (counts.unscaled == 0 && counts.general == 2, "%s: with GST_OPENCL_CONVERT_FAST=0 "
      "the unscaled kernel took %d frames", what.c_str (), counts.unscaled.load ());
  fail_unless_equals_int ((int) general.out.size (), 2);
  GstVideoInfo out_info;
  fail_unless (gst_video_info_from_caps (&out_info, general.out_caps));
  const bool blocks = GST_VIDEO_INFO_IS_YUV (&out_info) ? false : pair.out !=
      GST_VIDEO_FORMAT_RGBA64_LE;
  for (const char *kind : { "runs", "blocks" }) {
    if (!blocks && strcmp (kind, "blocks") == 0)
      continue;
    Run fast;
    counts.unscaled = counts.general = 0;
    run_unscaled (pair, seed, kind, fast);
    fail_unless (fast.error.empty (), "%s (%s): %s", what.c_str (), kind, fast.error.c_str ());
    fail_unless (counts.unscaled == 2 && counts.general == 0, "%s: the unscaled kernel (%s) "
        "took %d frames, the general one %d", what.c_str (), kind, counts.unscaled.load (),
        counts.general.load ());
    fail_unless_equals_int ((int) fast.out.size (), 2);
    for (size_t i = 0; i < 2; i++) {
      std::string where;
      fail_unless (same_bytes (fast.out[i], general.out[i], &out_info, &where),
          "%s, %s frame: the unscaled kernel (%s) differs from the general one at %s",
          what.c_str (), i == 0 ? "random" : "smooth", kind, where.c_str ());
    }
  }
}

/* `pair` through the general kernel (GST_OPENCL_CONVERT_FAST=0) and with the fast kernels
 * allowed (=1): the same bytes, and the halving kernel took both frames exactly when `halves`. */
void
check_halving (const Pair & pair, uint32_t seed, KernelCounts & counts, bool halves)
{
  const std::string what = caps_of (pair.in, pair.iw, pair.ih, pair.in_extra) + " -> " +
      caps_of (pair.out, pair.ow, pair.oh, pair.out_extra) + (pair.method == Method::Nearest ?
      " nearest" : " bilinear") + " pad " + std::to_string (pair.pad);
  Run runs[2];
  for (int fast = 0; fast < 2; fast++) {
    counts.general = counts.halving = 0;
    run_unscaled (pair, seed, fast ? "1" : "0", runs[fast]);
    fail_unless (runs[fast].error.empty (), "%s: %s", what.c_str (), runs[fast].error.c_str ());
    fail_unless_equals_int ((int) runs[fast].out.size (), 2);
    const bool expected = fast && halves;
    fail_unless (counts.halving == (expected ? 2 : 0) && counts.general == (expected ? 0 : 2),
        "%s, GST_OPENCL_CONVERT_FAST=%d: the halving kernel took %d frames, the general one %d",
        what.c_str (), fast, counts.halving.load (), counts.general.load ());
  }
  GstVideoInfo out_info;
  fail_unless (gst_video_info_from_caps (&out_info, runs[0].out_caps));
  for (size_t i = 0; i < 2; i++) {
    std::string where;
    fail_unless (same_bytes (runs[1].out[i], runs[0].out[i], &out_info, &where),
        "%s, %s frame: the fast path differs from the general kernel at %s", what.c_str (),
        i == 0 ? "random" : "smooth", where.c_str ());
  }
}

}  // namespace

/* The halving kernel (8-bit RGBA or BGRA to itself, half the size each way, bilinear) gives the
 * general kernel's bytes: output widths of whole runs of four and not (the last work-item's
 * pixel by pixel), padded rows; and it is not taken where it does not apply (another format,
 * not exactly half, nearest). */
GST_START_TEST (test_halving_kernel)
{
  SharingContext one_context;
  KernelCounts counts;
  gst_debug_set_threshold_for_name ("openclconvert", GST_LEVEL_LOG);
  gst_debug_remove_log_function (gst_debug_log_default);
  gst_debug_add_log_function (count_kernels, &counts, nullptr);
  uint32_t seed = 9000;
  for (GstVideoFormat format : { GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_BGRA }) {
    Pair whole { format, format, 64, 48, 32, 24 };
    check_halving (whole, seed += 3, counts, true);
    Pair odd { format, format, 74, 50, 37, 25 };
    odd.pad = 12;
    check_halving (odd, seed += 3, counts, true);
    Pair wide { format, format, 642, 38, 321, 19 };
    wide.pad = 4;
    check_halving (wide, seed += 3, counts, true);
  }
  Pair other { GST_VIDEO_FORMAT_RGBx, GST_VIDEO_FORMAT_RGBx, 64, 48, 32, 24 };
  check_halving (other, seed += 3, counts, false);
  Pair swizzle { GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_BGRA, 64, 48, 32, 24 };
  check_halving (swizzle, seed += 3, counts, false);
  Pair not_half { GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_RGBA, 65, 48, 32, 24 };
  check_halving (not_half, seed += 3, counts, false);
  Pair nearest { GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_RGBA, 64, 48, 32, 24 };
  nearest.method = Method::Nearest;
  check_halving (nearest, seed += 3, counts, false);
  gst_debug_remove_log_function (count_kernels);
  gst_debug_add_log_function (gst_debug_log_default, nullptr, nullptr);
}
GST_END_TEST;

/* Every pair of different formats at 65x49, rows packed and padded. */
GST_START_TEST (test_every_format_pair)
{
  SharingContext one_context;
  uint32_t seed = 1;
  for (GstVideoFormat in : all_formats ()) {
    for (GstVideoFormat out : all_formats ()) {
      if (in == out)
        continue;
      Pair pair { in, out, 65, 49, 65, 49 };
      pair.pad = (seed % 3 == 0) ? 12 : 0;
      const int d = check_pair (pair, seed += 3);
      GST_INFO ("%s -> %s: within %d", name (in), name (out), d);
    }
  }
}
GST_END_TEST;

/* Padded rows on every input format (to RGBA and to NV12). */
GST_START_TEST (test_padded_rows)
{
  uint32_t seed = 500;
  for (GstVideoFormat in : all_formats ()) {
    for (GstVideoFormat out : { GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_NV12 }) {
      if (in == out)
        continue;
      Pair pair { in, out, 33, 17, 33, 17 };
      pair.pad = 20;
      check_pair (pair, seed += 3);
    }
  }
}
GST_END_TEST;

/* Every matrix (BT.601, BT.709, BT.2020) and range (limited, full) of the YUV side, both ways,
 * 8 and 10 bits; and YUV to YUV between different matrices and ranges. */
GST_START_TEST (test_matrices_and_ranges)
{
  SharingContext one_context;
  const char *colorimetries[] = { "1:4:5:4", "2:4:5:4", "1:3:5:1", "2:3:5:1", "1:6:13:9",
    "2:6:13:9" };
  uint32_t seed = 1000;
  for (const char *colorimetry : colorimetries) {
    const std::string extra = std::string (",colorimetry=") + colorimetry;
    for (GstVideoFormat yuv : { GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_I420,
            GST_VIDEO_FORMAT_P010_10LE }) {
      for (GstVideoFormat rgb : { GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_RGBA64_LE,
              GST_VIDEO_FORMAT_GRAY8 }) {
        Pair to_rgb { yuv, rgb, 35, 21, 35, 21, extra };
        check_pair (to_rgb, seed += 3);
        Pair from_rgb { rgb, yuv, 35, 21, 35, 21, "", extra };
        check_pair (from_rgb, seed += 3);
      }
    }
    Pair yuv_to_yuv { GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_P010_10LE, 35, 21, 35, 21,
      extra, ",colorimetry=2:3:5:1" };
    check_pair (yuv_to_yuv, seed += 3);
  }
}
GST_END_TEST;

/* Chroma sites: MPEG-2 (cosited horizontally), JPEG (centred) and cosited both ways, read and
 * written, also between two sites. */
GST_START_TEST (test_chroma_sites)
{
  uint32_t seed = 2000;
  for (const char *site : { "mpeg2", "jpeg", "cosited" }) {
    const std::string extra = std::string (",chroma-site=") + site;
    Pair read { GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_RGBA, 33, 19, 33, 19, extra };
    check_pair (read, seed += 3);
    Pair write { GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_I420, 33, 19, 33, 19, "", extra };
    check_pair (write, seed += 3);
    Pair across { GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_P010_10LE, 33, 19, 33, 19, extra,
      ",chroma-site=jpeg" };
    check_pair (across, seed += 3);
  }
}
GST_END_TEST;

/* The format pairs of the scaling tests: every reader and writer kind. */
const GstVideoFormat SCALED_PAIRS[][2] = { { GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_RGBA },
  { GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_RGBA },
  { GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_NV12 },
  { GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_P010_10LE },
  { GST_VIDEO_FORMAT_GRAY16_LE, GST_VIDEO_FORMAT_BGRx } };

/* Each size (input width and height, output width and height) with each of SCALED_PAIRS, with
 * and without borders, scaled by `method`; the frames without borders have rows `pad` bytes
 * longer. The seeds go on from `seed`. */
static void
check_scaled (Method method, std::initializer_list<std::array<int, 4>> sizes, int pad,
    uint32_t & seed)
{
  for (const auto & size : sizes) {
    for (const auto & formats : SCALED_PAIRS) {
      for (bool borders : { true, false }) {
        Pair pair { formats[0], formats[1], size[0], size[1], size[2], size[3] };
        pair.method = method;
        pair.add_borders = borders;
        pair.pad = borders ? 0 : pad;
        check_pair (pair, seed += 3);
      }
    }
  }
}

/* Scaling up and down, nearest, bilinear and bicubic, with and without borders. */
GST_START_TEST (test_scaling)
{
  SharingContext one_context;
  uint32_t seed = 3000;
  for (Method method : { Method::Nearest, Method::Bilinear, Method::Cubic })
    check_scaled (method, { { 65, 49, 31, 23 }, { 65, 49, 130, 97 }, { 33, 17, 50, 50 },
          { 40, 30, 17, 41 } }, 0, seed);
}
GST_END_TEST;

/* Lanczos: down (the window widened by about 2 and 4), up, and one size, with and without
 * borders, on pairs that take every reader and writer kind. */
GST_START_TEST (test_lanczos)
{
  uint32_t seed = 7000;
  check_scaled (Method::Lanczos, { { 65, 49, 31, 23 }, { 65, 49, 16, 13 }, { 33, 17, 50, 50 },
        { 41, 29, 41, 29 } }, 3, seed);
}
GST_END_TEST;

/* A GstVideoCropMeta: its rectangle (odd and even origins and sizes, one reaching past the
 * frame and clipped) is the picture, with every method; the same size in and out too, where
 * the unscaled kernels would otherwise convert the whole frame. The meta is not on the
 * output (check_pair). */
GST_START_TEST (test_crop_meta)
{
  struct Case
  {
    GstVideoFormat in, out;
    int ow, oh;
    GstVideoRectangle meta;
    convertscale_reference::Crop used;
  };
  const Case cases[] = {
    { GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_RGBA, 40, 30, { 3, 5, 40, 30 }, { 3, 5, 40, 30 } },
    { GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_RGBA, 65, 49, { 10, 7, 33, 21 }, { 10, 7, 33, 21 } },
    { GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_NV12, 31, 23, { 2, 2, 31, 23 }, { 2, 2, 31, 23 } },
    { GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_I420, 20, 20, { 1, 1, 63, 47 }, { 1, 1, 63, 47 } },
    { GST_VIDEO_FORMAT_P010_10LE, GST_VIDEO_FORMAT_RGBA64_LE, 24, 18, { 41, 30, 40, 40 },
      { 41, 30, 24, 19 } },
    { GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_FORMAT_GRAY8, 64, 48, { 0, 0, 65, 49 },
      { 0, 0, 65, 49 } },
  };
  const Method methods[] = { Method::Bilinear, Method::Nearest, Method::Lanczos, Method::Cubic };
  uint32_t seed = 8000;
  for (const Case & c : cases) {
    for (Method method : methods) {
      Pair pair { c.in, c.out, 65, 49, c.ow, c.oh };
      pair.method = method;
      pair.crop_meta = c.meta;
      pair.crop = c.used;
      check_pair (pair, seed += 3);
    }
  }
}
GST_END_TEST;

/* A crop that changes from frame to frame (a tracker's box): each frame's output is its own
 * crop's, so the tap tables written for one frame never reach another (the element writes them
 * without waiting, from two host copies used in turn). */
GST_START_TEST (test_crop_per_frame)
{
  const GstVideoRectangle crops[] = {
    { 3, 5, 40, 30 }, { 10, 7, 33, 21 }, { 0, 0, 65, 49 }, { 20, 11, 17, 29 }, { 3, 5, 40, 30 },
    { 1, 2, 60, 44 }, { 10, 7, 33, 21 },
  };
  const std::string in_caps = caps_of (GST_VIDEO_FORMAT_NV12, 65, 49);
  const std::string out_caps = caps_of (GST_VIDEO_FORMAT_RGBA, 40, 30);
  GstCaps *caps = gst_caps_from_string (in_caps.c_str ());
  GstVideoInfo in_info;
  fail_unless (gst_video_info_from_caps (&in_info, caps));
  gst_caps_unref (caps);
  uint32_t seed = 8500;
  for (Method method : { Method::Bilinear, Method::Nearest }) {
    std::vector<GstBuffer *> inputs, pushed;
    for (const GstVideoRectangle & crop : crops) {
      GstBuffer *frame = make_frame (&in_info, Content::Random, seed++, 0);
      GstVideoCropMeta *meta = gst_buffer_add_video_crop_meta (frame);
      meta->x = crop.x;
      meta->y = crop.y;
      meta->width = crop.w;
      meta->height = crop.h;
      inputs.push_back (frame);
      pushed.push_back (gst_buffer_ref (frame));
    }
    Run run;
    run_frames (in_caps, std::string ("openclconvertscale name=cs add-borders=false method=") +
        method_nick (method), out_caps, pushed, run);
    fail_unless (run.error.empty (), "%s", run.error.c_str ());
    fail_unless_equals_int ((int) run.out.size (), (int) inputs.size ());
    GstVideoInfo out_info;
    fail_unless (gst_video_info_from_caps (&out_info, run.out_caps));
    for (size_t i = 0; i < inputs.size (); i++) {
      const convertscale_reference::Crop used { crops[i].x, crops[i].y, crops[i].w,
        crops[i].h };
      const Difference d = compare (inputs[i], &in_info, run.out[i], &out_info, method,
          false, &used);
      fail_unless (d.worst <= BOUND, "frame %zu (method %s, crop %d,%d %dx%d): off by %d, %s",
          i, method_nick (method), crops[i].x, crops[i].y, crops[i].w, crops[i].h, d.worst,
          d.where.c_str ());
    }
    for (GstBuffer *b : inputs)
      gst_buffer_unref (b);
  }
}
GST_END_TEST;

/* Upstream is told that the element applies crops (the allocation query), so that a decoder
 * can leave them to it. */
GST_START_TEST (test_crop_meta_offered)
{
  const std::string in_caps = caps_of (GST_VIDEO_FORMAT_NV12, 64, 48);
  GstElement *pipeline = testutil::parse_pipeline ("appsrc name=src format=time caps=\"" +
      in_caps + "\" ! openclconvertscale ! video/x-raw,format=RGBA ! fakesink");
  fail_unless (gst_element_set_state (pipeline, GST_STATE_PAUSED) !=
      GST_STATE_CHANGE_FAILURE);
  GstElement *src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  GstPad *pad = gst_element_get_static_pad (src, "src");
  GstCaps *caps = gst_caps_from_string (in_caps.c_str ());
  fail_unless (gst_pad_push_event (pad, gst_event_new_stream_start ("crop")));
  fail_unless (gst_pad_push_event (pad, gst_event_new_caps (caps)));
  GstQuery *query = gst_query_new_allocation (caps, TRUE);
  fail_unless (gst_pad_peer_query (pad, query), "the allocation query was not answered");
  fail_unless (gst_query_find_allocation_meta (query, GST_VIDEO_CROP_META_API_TYPE, nullptr),
      "the crop meta is not offered upstream");
  gst_query_unref (query);
  gst_caps_unref (caps);
  gst_object_unref (pad);
  gst_object_unref (src);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
}
GST_END_TEST;

/* The same caps on both sides: no kernel, the buffer goes on as it came. */
GST_START_TEST (test_passthrough)
{
  for (GstVideoFormat format : { GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_RGBA,
          GST_VIDEO_FORMAT_P010_10LE }) {
    const std::string caps = caps_of (format, 65, 49);
    GstCaps *c = gst_caps_from_string (caps.c_str ());
    GstVideoInfo info;
    fail_unless (gst_video_info_from_caps (&info, c));
    gst_caps_unref (c);
    GstBuffer *frame = make_frame (&info, Content::Random, 5);
    Run run;
    run_frames (caps, "openclconvertscale name=cs", caps, { gst_buffer_ref (frame) }, run);
    fail_unless (run.error.empty (), "%s", run.error.c_str ());
    fail_unless_equals_int ((int) run.out.size (), 1);
    fail_unless (run.passthrough, "%s: not in passthrough", caps.c_str ());
    GstMapInfo a, b;
    fail_unless (gst_buffer_map (frame, &a, GST_MAP_READ));
    fail_unless (gst_buffer_map (run.out[0], &b, GST_MAP_READ));
    fail_unless (a.size == b.size && memcmp (a.data, b.data, a.size) == 0,
        "%s: the frame changed", caps.c_str ());
    gst_buffer_unmap (frame, &a);
    gst_buffer_unmap (run.out[0], &b);
    fail_unless_equals_uint64 (run.kernel_time_ns, 0);
    gst_buffer_unref (frame);
  }
  /* Fixation keeps the input's format and size when downstream leaves them open. */
  Run run;
  GstVideoInfo info;
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_I420, 31, 17);
  run_frames (caps_of (GST_VIDEO_FORMAT_I420, 31, 17), "openclconvertscale name=cs",
      "video/x-raw", { make_frame (&info, Content::Random, 6) }, run);
  fail_unless (run.error.empty (), "%s", run.error.c_str ());
  fail_unless (run.passthrough);
}
GST_END_TEST;

/* NV12 -> RGBA -> NV12 in one pipeline, on smooth in-gamut frames: luma within 1, chroma within
 * 2 (the round trip's chroma is upsampled bilinearly, then point-sampled at the MPEG-2 site,
 * which averages two rows: a vertical low-pass, small on smooth content). */
GST_START_TEST (test_round_trip)
{
  GstVideoInfo info;
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_NV12, 65, 49);
  GstBuffer *frame = make_frame (&info, Content::Smooth, 9);
  Run run;
  run_frames (caps_of (GST_VIDEO_FORMAT_NV12, 65, 49), "openclconvertscale name=cs ! "
      "video/x-raw,format=RGBA ! openclconvertscale", caps_of (GST_VIDEO_FORMAT_NV12, 65, 49),
      { gst_buffer_ref (frame) }, run);
  fail_unless (run.error.empty (), "%s", run.error.c_str ());
  fail_unless_equals_int ((int) run.out.size (), 1);
  GstVideoFrame a, b;
  fail_unless (gst_video_frame_map (&a, &info, frame, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&b, &info, run.out[0], GST_MAP_READ));
  int worst[3] = { 0, 0, 0 };
  for (int c = 0; c < 3; c++) {
    for (int y = 0; y < GST_VIDEO_FRAME_COMP_HEIGHT (&a, c); y++)
      for (int x = 0; x < GST_VIDEO_FRAME_COMP_WIDTH (&a, c); x++)
        worst[c] = MAX (worst[c], std::abs (convertscale_reference::component (&a, c, x, y) -
                convertscale_reference::component (&b, c, x, y)));
  }
  gst_video_frame_unmap (&a);
  gst_video_frame_unmap (&b);
  gst_buffer_unref (frame);
  fail_unless (worst[0] <= 1 && worst[1] <= 2 && worst[2] <= 2, "round trip off by Y %d, "
      "U %d, V %d", worst[0], worst[1], worst[2]);
}
GST_END_TEST;

/* Frames in OpenCL memory in and out (openclupload before, OpenCL-memory caps after). */
GST_START_TEST (test_opencl_memory)
{
  uint32_t seed = 4000;
  const GstVideoFormat pairs[][2] = { { GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_RGBA },
    { GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_I420 },
    { GST_VIDEO_FORMAT_P010_10LE, GST_VIDEO_FORMAT_RGBA64_LE },
    { GST_VIDEO_FORMAT_GRAY16_LE, GST_VIDEO_FORMAT_NV12 } };
  for (const auto & formats : pairs) {
    Pair pair { formats[0], formats[1], 65, 49, 40, 30 };
    pair.opencl = true;
    check_pair (pair, seed += 3);
  }
}
GST_END_TEST;

/* GStreamer's videoconvertscale on the same frames, smooth ones at the same size: YUV to RGB
 * within 5 codes, RGB to YUV within 2, RGB swizzles exact. videoconvertscale's 8-bit paths
 * work in fixed point and truncate (GStreamer 1.22 turns RGBA 144,160,176 into NV12 and back
 * into 140,155,171, where this element gives 142,160,174, and the double-precision reference
 * agrees with it within 1), and it filters chroma with its own taps; so an exact match is not
 * expected. Smooth content keeps the filters' part small. */
GST_START_TEST (test_against_videoconvertscale)
{
  GstElementFactory *factory = gst_element_factory_find ("videoconvertscale");
  const char *reference = factory ? "videoconvertscale" : "videoconvert";
  if (factory)
    gst_object_unref (factory);
  struct
  {
    GstVideoFormat formats[2];
    int bound;
  } const pairs[] = { { { GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_RGBA }, 5 },
    { { GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_BGRx }, 5 },
    { { GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_NV12 }, 2 },
    { { GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_BGRA }, 0 } };
  for (const auto & pair : pairs) {
    const GstVideoFormat *formats = pair.formats;
    const std::string in_caps = caps_of (formats[0], 64, 48);
    const std::string out_caps = caps_of (formats[1], 64, 48);
    GstVideoInfo info, out_info;
    gst_video_info_set_format (&info, formats[0], 64, 48);
    GstBuffer *frame = make_frame (&info, Content::Smooth, 77);
    Run ours, theirs;
    run_frames (in_caps, "openclconvertscale name=cs", out_caps, { gst_buffer_ref (frame) },
        ours);
    run_frames (in_caps, std::string (reference) + " ! identity name=cs", out_caps,
        { gst_buffer_ref (frame) }, theirs);
    fail_unless (ours.error.empty () && theirs.error.empty (), "%s %s", ours.error.c_str (),
        theirs.error.c_str ());
    fail_unless (gst_video_info_from_caps (&out_info, ours.out_caps));
    GstVideoFrame a, b;
    fail_unless (gst_video_frame_map (&a, &out_info, ours.out[0], GST_MAP_READ));
    fail_unless (gst_video_frame_map (&b, &out_info, theirs.out[0], GST_MAP_READ));
    int worst = 0;
    for (guint c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (&out_info); c++)
      for (int y = 0; y < GST_VIDEO_FRAME_COMP_HEIGHT (&a, c); y++)
        for (int x = 0; x < GST_VIDEO_FRAME_COMP_WIDTH (&a, c); x++)
        {
          const int d = std::abs (convertscale_reference::component (&a, c, x, y) -
              convertscale_reference::component (&b, c, x, y));
          worst = MAX (worst, d);
        }
    gst_video_frame_unmap (&a);
    gst_video_frame_unmap (&b);
    gst_buffer_unref (frame);
    g_print ("%s -> %s: within %d of %s\n", name (formats[0]), name (formats[1]), worst,
        reference);
    fail_unless (worst <= pair.bound, "%s -> %s: %d from %s", name (formats[0]),
        name (formats[1]), worst, reference);
  }
}
GST_END_TEST;

/* The unscaled kernel (4:2:0 <-> packed RGB at one size, nearest and bilinear) against the
 * general kernel, byte for byte: every pair both ways at 65x49 with padded rows (the sites
 * and colorimetries of the tests above in turn on the 4:2:0 side, both methods) and at
 * 641x479; and NV12 <-> RGBA with every site, colorimetry and method. Each run is checked to
 * have taken the kernel it asked for. */
GST_START_TEST (test_unscaled_kernel)
{
  SharingContext one_context;
  const char *sites[] = { "mpeg2", "jpeg", "cosited" };
  const char *colorimetries[] = { "1:4:5:4", "2:4:5:4", "1:3:5:1", "2:3:5:1", "1:6:13:9",
    "2:6:13:9" };
  const GstVideoFormat yuv[] = { GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_I420,
    GST_VIDEO_FORMAT_P010_10LE };
  const GstVideoFormat rgb[] = { GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_BGRA,
    GST_VIDEO_FORMAT_RGBx, GST_VIDEO_FORMAT_BGRx, GST_VIDEO_FORMAT_RGBA64_LE };
  KernelCounts counts;
  gst_debug_set_threshold_for_name ("openclconvert", GST_LEVEL_LOG);
  gst_debug_remove_log_function (gst_debug_log_default);
  gst_debug_add_log_function (count_kernels, &counts, nullptr);
  uint32_t seed = 6000;
  int turn = 0;
  for (GstVideoFormat y : yuv) {
    for (GstVideoFormat r : rgb) {
      for (bool to_rgb : { true, false }) {
        for (Method method : { Method::Bilinear, Method::Nearest }) {
          const std::string extra = std::string (",chroma-site=") + sites[turn % 3] +
              ",colorimetry=" + colorimetries[turn % 6];
          turn++;
          Pair pair { to_rgb ? y : r, to_rgb ? r : y, 65, 49, 65, 49 };
          (to_rgb ? pair.in_extra : pair.out_extra) = extra;
          pair.method = method;
          pair.pad = 12;
          check_unscaled (pair, seed += 3, counts);
        }
        Pair large { to_rgb ? y : r, to_rgb ? r : y, 641, 479, 641, 479 };
        large.pad = 8;
        check_unscaled (large, seed += 3, counts);
        /* Rows on 16-byte boundaries: the runs' aligned vector reads and writes. */
        Pair aligned { to_rgb ? y : r, to_rgb ? r : y, 160, 38, 160, 38 };
        check_unscaled (aligned, seed += 3, counts);
      }
    }
  }
  for (const char *site : sites) {
    for (const char *colorimetry : colorimetries) {
      for (Method method : { Method::Bilinear, Method::Nearest }) {
        const std::string extra = std::string (",chroma-site=") + site + ",colorimetry=" +
            colorimetry;
        Pair read { GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_RGBA, 33, 19, 33, 19, extra };
        read.method = method;
        check_unscaled (read, seed += 3, counts);
        Pair write { GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_NV12, 33, 19, 33, 19, "", extra };
        write.method = method;
        check_unscaled (write, seed += 3, counts);
      }
    }
  }
  gst_debug_remove_log_function (count_kernels);
  gst_debug_add_log_function (gst_debug_log_default, nullptr, nullptr);
}
GST_END_TEST;

/* The conversion kernels in work-groups of a width that divides no launch's (24: the global
 * sizes rounded up, the kernels skipping what lies past the frame) and in the driver's (0)
 * give the bytes of the device's default width (GST_OPENCL_CONVERT_GROUP unset): the blocks,
 * the runs and the general kernel (unscaled and scaled pairs), random and smooth frames with
 * padded rows. */
GST_START_TEST (test_work_groups)
{
  struct Case
  {
    Pair pair;
    const char *fast;
  };
  const Case cases[] = {
    { { GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_RGBA, 65, 49, 65, 49 }, "blocks" },
    { { GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_BGRx, 65, 49, 65, 49 }, "runs" },
    { { GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_NV12, 65, 49, 65, 49 }, "0" },
    { { GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_BGRA, 65, 49, 40, 30 }, "1" },
    { { GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_I420, 65, 49, 27, 61 }, "1" },
  };
  uint32_t seed = 9000;
  for (const Case & c : cases) {
    Pair pair = c.pair;
    pair.pad = 12;
    const std::string what = std::string (name (pair.in)) + " -> " + name (pair.out) + " " +
        std::to_string (pair.ow) + "x" + std::to_string (pair.oh) + " (" + c.fast + ")";
    Run base;
    g_unsetenv ("GST_OPENCL_CONVERT_GROUP");
    run_unscaled (pair, seed, c.fast, base);
    fail_unless (base.error.empty (), "%s: %s", what.c_str (), base.error.c_str ());
    fail_unless_equals_int ((int) base.out.size (), 2);
    GstVideoInfo out_info;
    fail_unless (gst_video_info_from_caps (&out_info, base.out_caps));
    for (const char *width : { "24", "0" }) {
      Run grouped;
      g_setenv ("GST_OPENCL_CONVERT_GROUP", width, TRUE);
      run_unscaled (pair, seed, c.fast, grouped);
      g_unsetenv ("GST_OPENCL_CONVERT_GROUP");
      fail_unless (grouped.error.empty (), "%s, groups of %s: %s", what.c_str (), width,
          grouped.error.c_str ());
      fail_unless_equals_int ((int) grouped.out.size (), 2);
      for (size_t i = 0; i < 2; i++) {
        std::string where;
        fail_unless (same_bytes (grouped.out[i], base.out[i], &out_info, &where),
            "%s, %s frame: groups of %s differ from the default's at %s", what.c_str (),
            i == 0 ? "random" : "smooth", width, where.c_str ());
      }
    }
    seed += 3;
  }
}
GST_END_TEST;

static Suite *
convertscale_suite (void)
{
  return TESTUTIL_SUITE ("openclconvertscale", 600, test_passthrough, test_every_format_pair,
      test_padded_rows, test_matrices_and_ranges, test_chroma_sites, test_scaling,
      test_lanczos, test_crop_meta, test_crop_per_frame, test_crop_meta_offered, test_round_trip,
      test_opencl_memory, test_against_videoconvertscale, test_unscaled_kernel,
      test_halving_kernel, test_work_groups);
}

GST_CHECK_MAIN (convertscale);
