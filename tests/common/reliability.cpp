/* gst-opencl tests: helpers of the reliability suite.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "common/reliability.h"
#include "common/testutil.h"

#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/check/gstcheck.h>
#include <glib/gstdio.h>

#include <algorithm>
#include <cstdio>
#include <random>
#include <unistd.h>

namespace reliability {

namespace {

/* Bytes of pixels in one row of a plane (no padding). */
gsize
row_bytes (const GstVideoInfo * info, guint plane)
{
  gint components[GST_VIDEO_MAX_COMPONENTS];
  gst_video_format_info_component (info->finfo, plane, components);
  gint comp = components[0];
  return (gsize) GST_VIDEO_INFO_COMP_WIDTH (info, comp) * GST_VIDEO_INFO_COMP_PSTRIDE (info, comp);
}

gsize
plane_height (const GstVideoInfo * info, guint plane)
{
  gint components[GST_VIDEO_MAX_COMPONENTS];
  gst_video_format_info_component (info->finfo, plane, components);
  return GST_VIDEO_INFO_COMP_HEIGHT (info, components[0]);
}

Output
to_output (GstSample * sample)
{
  Output output;
  GstCaps *caps = gst_sample_get_caps (sample);
  gchar *text = gst_caps_to_string (caps);
  output.caps = text;
  g_free (text);
  GstVideoInfo info;
  fail_unless (gst_video_info_from_caps (&info, caps));
  output.pixels = packed_pixels (gst_sample_get_buffer (sample), &info);
  return output;
}

}  // namespace

GstCaps *
make_caps (const FrameSpec & spec)
{
  GstVideoInfo info;
  gst_video_info_set_format (&info, spec.format, spec.width, spec.height);
  info.fps_n = 30;
  info.fps_d = 1;
  return gst_video_info_to_caps (&info);
}

GstBuffer *
make_buffer (const FrameSpec & spec, GstClockTime pts)
{
  GstVideoInfo info;
  gst_video_info_set_format (&info, spec.format, spec.width, spec.height);
  gsize offsets[GST_VIDEO_MAX_PLANES] = { 0 };
  gint strides[GST_VIDEO_MAX_PLANES] = { 0 };
  gsize total = 0;
  for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES (&info); p++) {
    strides[p] = (gint) (GST_VIDEO_INFO_PLANE_STRIDE (&info, p) + spec.pad);
    offsets[p] = total;
    total += (gsize) strides[p] * plane_height (&info, p);
  }
  if (!spec.pad) {
    for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES (&info); p++)
      offsets[p] = GST_VIDEO_INFO_PLANE_OFFSET (&info, p);
    total = GST_VIDEO_INFO_SIZE (&info);
  }
  GstBuffer *buffer = gst_buffer_new_allocate (nullptr, MAX (total, (gsize) 1), nullptr);
  GstMapInfo map;
  fail_unless (gst_buffer_map (buffer, &map, GST_MAP_WRITE));
  std::mt19937 random (spec.seed);
  for (gsize i = 0; i < map.size; i++)
    map.data[i] = 0xA5 ^ (uint8_t) (i * 7);  /* padding: never a pixel's value by design */
  gsize packed = 0;
  for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES (&info); p++) {
    gsize bytes = row_bytes (&info, p);
    for (gsize y = 0; y < plane_height (&info, p); y++) {
      uint8_t *row = map.data + offsets[p] + y * strides[p];
      for (gsize x = 0; x < bytes; x++, packed++)
        row[x] = spec.pixels.empty () ? (uint8_t) (random () >> 24) : spec.pixels.at (packed);
    }
  }
  gst_buffer_unmap (buffer, &map);
  if (spec.pad)
    gst_buffer_add_video_meta_full (buffer, GST_VIDEO_FRAME_FLAG_NONE, spec.format, spec.width,
        spec.height, GST_VIDEO_INFO_N_PLANES (&info), offsets, strides);
  if (spec.truncate)
    gst_buffer_resize (buffer, 0, gst_buffer_get_size (buffer) - MIN (spec.truncate,
            gst_buffer_get_size (buffer)));
  GST_BUFFER_PTS (buffer) = pts;
  GST_BUFFER_DURATION (buffer) = GST_SECOND / 30;
  return buffer;
}

std::vector<uint8_t>
packed_pixels (GstBuffer * buffer, const GstVideoInfo * info)
{
  GstVideoFrame frame;
  fail_unless (gst_video_frame_map (&frame, const_cast<GstVideoInfo *> (info), buffer,
          GST_MAP_READ));
  std::vector<uint8_t> pixels;
  for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES (&frame); p++) {
    gsize bytes = row_bytes (info, p);
    const auto *data = static_cast<const uint8_t *> (GST_VIDEO_FRAME_PLANE_DATA (&frame, p));
    for (gsize y = 0; y < plane_height (info, p); y++) {
      const uint8_t *row = data + y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, p);
      pixels.insert (pixels.end (), row, row + bytes);
    }
  }
  gst_video_frame_unmap (&frame);
  return pixels;
}

std::vector<Output>
run_frames (const std::string & segment, const std::vector<FrameSpec> & frames,
    std::string * error, GstContext * context)
{
  std::string line = "appsrc name=src format=time ! " + segment +
      " ! appsink name=sink sync=false caps=video/x-raw";
  GstElement *pipeline = testutil::parse_pipeline (line);
  if (context)
    gst_element_set_context (pipeline, context);
  GstElement *src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  gst_element_set_state (pipeline, GST_STATE_PLAYING);

  std::vector<Output> outputs;
  GstClockTime pts = 0;
  for (const auto & spec : frames) {
    GstCaps *caps = make_caps (spec);
    GstBuffer *buffer = make_buffer (spec, pts);
    pts += GST_SECOND / 30;
    GstSample *sample = gst_sample_new (buffer, caps, nullptr, nullptr);
    gst_buffer_unref (buffer);
    gst_caps_unref (caps);
    GstFlowReturn flow = gst_app_src_push_sample (GST_APP_SRC (src), sample);
    gst_sample_unref (sample);
    if (flow != GST_FLOW_OK)
      break;
  }
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  pull_until_done (pipeline, sink, 120 * GST_SECOND, [&](GstSample * sample) {
        outputs.push_back (to_output (sample));
      }, error, segment);
  gst_object_unref (src);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  return outputs;
}

std::vector<Output>
pull_all (const std::string & launch_line, std::string * error, GstContext * context)
{
  std::string line = launch_line + " ! appsink name=sink sync=false caps=video/x-raw";
  GstElement *pipeline = testutil::parse_pipeline (line);
  if (context)
    gst_element_set_context (pipeline, context);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  std::vector<Output> outputs;
  pull_until_done (pipeline, sink, 120 * GST_SECOND, [&](GstSample * sample) {
        outputs.push_back (to_output (sample));
      }, error, line);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  return outputs;
}

void
pull_until_done (GstElement * pipeline, GstElement * sink, GstClockTime timeout,
    const std::function<void (GstSample *)> & take, std::string * error,
    const std::string & what)
{
  while (GstSample *sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink), timeout)) {
    take (sample);
    gst_sample_unref (sample);
  }
  GstBus *bus = gst_element_get_bus (pipeline);
  *error = testutil::first_error (bus);
  gst_object_unref (bus);
  fail_unless (!error->empty () || gst_app_sink_is_eos (GST_APP_SINK (sink)),
      "%s: neither EOS nor an error", what.c_str ());
  gst_element_set_state (pipeline, GST_STATE_NULL);
}

uint64_t
resident_bytes ()
{
  FILE *file = fopen ("/proc/self/statm", "r");
  fail_unless (file != nullptr);
  unsigned long long size = 0, resident = 0;
  fail_unless (fscanf (file, "%llu %llu", &size, &resident) == 2);
  fclose (file);
  return resident * (uint64_t) sysconf (_SC_PAGESIZE);
}

void
MemoryGrowth::add (double step, uint64_t bytes)
{
  samples_.emplace_back (step, bytes);
}

double
MemoryGrowth::median_slope () const
{
  std::vector<double> slopes;
  for (size_t i = 1; i < samples_.size (); i++) {
    const double span = samples_[i].first - samples_[i - 1].first;
    if (span > 0)
      slopes.push_back (((double) samples_[i].second - (double) samples_[i - 1].second) / span);
  }
  if (slopes.empty ())
    return 0;
  std::sort (slopes.begin (), slopes.end ());
  const size_t middle = slopes.size () / 2;
  return slopes.size () % 2 ? slopes[middle] : (slopes[middle - 1] + slopes[middle]) / 2;
}

double
MemoryGrowth::least_squares_slope () const
{
  const double n = (double) samples_.size ();
  if (n < 2)
    return 0;
  double mean_x = 0, mean_y = 0;
  for (const auto & [x, y] : samples_) {
    mean_x += x / n;
    mean_y += (double) y / n;
  }
  double covariance = 0, variance = 0;
  for (const auto & [x, y] : samples_) {
    covariance += (x - mean_x) * ((double) y - mean_y);
    variance += (x - mean_x) * (x - mean_x);
  }
  return variance > 0 ? covariance / variance : 0;
}

double
MemoryGrowth::steady_slope () const
{
  return std::min (median_slope (), least_squares_slope ());
}

double
MemoryGrowth::steady_growth_bytes () const
{
  if (samples_.size () < 2)
    return 0;
  return steady_slope () * (samples_.back ().first - samples_.front ().first);
}

std::string
MemoryGrowth::describe () const
{
  if (samples_.empty ())
    return "no samples";
  char text[256];
  g_snprintf (text, sizeof text, "%.2f -> %.2f MiB over %.0f steps, median %.1f KiB/step, "
      "least squares %.1f KiB/step, %zu samples", samples_.front ().second / 1048576.0,
      samples_.back ().second / 1048576.0, samples_.back ().first - samples_.front ().first,
      median_slope () / 1024, least_squares_slope () / 1024, samples_.size ());
  return text;
}

KernelOverride::KernelOverride (const std::string & files, const std::string & source)
{
  gchar *made = g_dir_make_tmp ("gst-opencl-kernels-XXXXXX", nullptr);
  dir = made;
  g_free (made);
  gchar **names = g_strsplit (files.c_str (), ",", -1);
  for (gchar **name = names; *name; name++) {
    paths.push_back (dir + "/" + *name + ".cl");
    g_file_set_contents (paths.back ().c_str (), source.c_str (), -1, nullptr);
  }
  g_strfreev (names);
  g_setenv ("GST_OPENCL_KERNEL_DIR", dir.c_str (), TRUE);
}

KernelOverride::~KernelOverride ()
{
  g_unsetenv ("GST_OPENCL_KERNEL_DIR");
  for (const auto & path : paths)
    g_remove (path.c_str ());
  g_rmdir (dir.c_str ());
}

GstElement *
first_of (GstElement * pipeline, const char *factory)
{
  GstIterator *it = gst_bin_iterate_recurse (GST_BIN (pipeline));
  GValue item = G_VALUE_INIT;
  GstElement *found = nullptr;
  while (!found && gst_iterator_next (it, &item) == GST_ITERATOR_OK) {
    auto *element = GST_ELEMENT (g_value_get_object (&item));
    GstElementFactory *f = gst_element_get_factory (element);
    if (f && g_str_equal (GST_OBJECT_NAME (f), factory))
      found = GST_ELEMENT (gst_object_ref (element));
    g_value_reset (&item);
  }
  g_value_unset (&item);
  gst_iterator_free (it);
  fail_unless (found != nullptr, "no %s", factory);
  return found;
}

GstContext *
borrow_context (const std::string & pipeline_line, const char *factory_name, GstElement ** holder)
{
  GstElement *pipeline = gst_parse_launch (pipeline_line.c_str (), nullptr);
  fail_unless (pipeline != nullptr);
  fail_unless (gst_element_set_state (pipeline, GST_STATE_PAUSED) != GST_STATE_CHANGE_FAILURE);
  fail_unless (gst_element_get_state (pipeline, nullptr, nullptr, 120 * GST_SECOND) ==
      GST_STATE_CHANGE_SUCCESS);
  GstElement *element = first_of (pipeline, factory_name);
  GObject *shared = testutil::element_context (element);
  gst_object_unref (element);
  fail_unless (shared != nullptr);
  GstContext *context = testutil::application_context (shared);
  g_object_unref (shared);
  *holder = pipeline;
  return context;
}

}  // namespace reliability
