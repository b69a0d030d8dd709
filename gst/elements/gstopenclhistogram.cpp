/* gst-opencl: openclhistogram, per-frame histograms on the bus and drawn on the frame.
 * SPDX-License-Identifier: LGPL-2.1-or-later */

/**
 * SECTION:element-openclhistogram
 * @title: openclhistogram
 *
 * Counts, on an OpenCL device, how many samples of each channel fall in each of `bins` equal
 * ranges of the 8-bit value (value v goes to bin v x bins / 256), and posts the counts on the bus
 * as an element message named `opencl-histogram`, every frame or summed over `interval`
 * nanoseconds, the way `level` reports audio levels. Frames pass through untouched and uncopied;
 * with `draw`, the graph of the histogram is drawn into the top-left corner of each frame.
 *
 * Channels: `red`, `green`, `blue` and `luma` (Y = (299 R + 587 G + 114 B + 500) / 1000 in
 * integers, i.e. 0.299 R + 0.587 G + 0.114 B rounded to the nearest, halves up) for RGBA, BGRA,
 * RGBx, BGRx (also RGBA in GL memory); `gray` for GRAY8; `y`, `u`, `v` for I420 and NV12, each
 * plane at its own resolution.
 *
 * The message's fields: `timestamp`, `stream-time`, `running-time` (of the first frame of the
 * interval), `duration` (the summed durations of its frames), all GstClockTime (guint64);
 * `frames` (guint), `bins` (guint), and per channel a GstValueArray (GST_TYPE_ARRAY) of `bins`
 * guint64 counts named after the channel. The counts of a channel add up to the number of its
 * samples in the summed frames.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 -m videotestsrc num-buffers=3 ! video/x-raw,format=RGBA ! \
 *     openclhistogram bins=16 ! fakesink
 * gst-launch-1.0 videotestsrc ! video/x-raw,format=NV12 ! openclhistogram draw=true ! \
 *     videoconvert ! autovideosink
 * ]|
 */
#include "elements/gstopenclhistogram.h"

#include <algorithm>
#include <mutex>
#include <string>
#include <vector>

#include "opencl/gstopenclkernels.h"
#include "opencl/gstopenclprogram.h"
#include "opencl/gstopencltuning.h"
#include "opencl/gstopenclutils.h"

GST_DEBUG_CATEGORY_STATIC (gst_opencl_histogram_debug);
#define GST_CAT_DEFAULT gst_opencl_histogram_debug

namespace {

constexpr guint MIN_BINS = 2;
constexpr guint MAX_BINS = 256;
constexpr guint DEFAULT_BINS = 256;
constexpr gboolean DEFAULT_POST_MESSAGES = TRUE;
constexpr guint64 DEFAULT_INTERVAL_NS = 0;
constexpr gboolean DEFAULT_DRAW = FALSE;

/* The graph's corner: at most this many pixels (of the first plane). */
constexpr int DRAW_MAX_WIDTH = 256;
constexpr int DRAW_MAX_HEIGHT = 128;
/* Work-groups per compute unit: enough to fill a device, few enough that merging the
 * work-groups' histograms stays cheap. */
constexpr size_t GROUPS_PER_COMPUTE_UNIT = 4;
constexpr size_t MAX_GROUP_SIZE = 256;
constexpr guint MAX_COPIES = 8;
constexpr guint CPU_COPIES = 4;
/* red, green, blue and luma: the most channels a format has. */
constexpr guint MAX_CHANNELS = 4;

struct Settings
{
  guint bins = DEFAULT_BINS;
  gboolean post_messages = DEFAULT_POST_MESSAGES;
  guint64 interval_ns = DEFAULT_INTERVAL_NS;
  gboolean draw = DEFAULT_DRAW;
};

/* The largest power of two not above `value` (value >= 1). */
guint
power_of_two_floor (guint value)
{
  guint result = 1;
  while (result * 2 <= value)
    result *= 2;
  return result;
}

/* One kernel launch over one plane: which samples of its pixels it counts. */
struct PlanePass
{
  guint plane = 0;
  guint component = 0;      /* the plane's first component: gives its width and height */
  int pixel_bytes = 1;
  int channels = 1;         /* samples counted per pixel, at byte offsets sample_offset[] */
  int sample_offset[3] = { 0, 0, 0 };
  bool luma = false;        /* also count Y from the three samples (red, green, blue) */
  guint first_channel = 0;  /* where its counts start in the counts buffer, in channels */
  cl::Kernel kernel;
};

/* What a video format turns into: channel names, in the order of the counts, and passes. */
struct Layout
{
  std::vector<const char *> channel_names;
  std::vector<PlanePass> passes;
  bool yuv = false;
};

PlanePass
single_sample_pass (guint plane, guint component, int pixel_bytes, guint first_channel)
{
  PlanePass pass;
  pass.plane = plane;
  pass.component = component;
  pass.pixel_bytes = pixel_bytes;
  pass.first_channel = first_channel;
  return pass;
}

Layout
layout_for (GstVideoFormat format)
{
  Layout layout;
  switch (format) {
    case GST_VIDEO_FORMAT_RGBA:
    case GST_VIDEO_FORMAT_RGBx:
    case GST_VIDEO_FORMAT_BGRA:
    case GST_VIDEO_FORMAT_BGRx:{
      bool bgr = format == GST_VIDEO_FORMAT_BGRA || format == GST_VIDEO_FORMAT_BGRx;
      PlanePass pass = single_sample_pass (0, 0, 4, 0);
      pass.channels = 3;
      pass.sample_offset[0] = bgr ? 2 : 0;
      pass.sample_offset[1] = 1;
      pass.sample_offset[2] = bgr ? 0 : 2;
      pass.luma = true;
      layout.channel_names = { "red", "green", "blue", "luma" };
      layout.passes.push_back (pass);
      break;
    }
    case GST_VIDEO_FORMAT_GRAY8:
      layout.channel_names = { "gray" };
      layout.passes.push_back (single_sample_pass (0, 0, 1, 0));
      break;
    case GST_VIDEO_FORMAT_I420:
      layout.yuv = true;
      layout.channel_names = { "y", "u", "v" };
      for (guint plane = 0; plane < 3; plane++)
        layout.passes.push_back (single_sample_pass (plane, plane, 1, plane));
      break;
    case GST_VIDEO_FORMAT_NV12:{
      layout.yuv = true;
      layout.channel_names = { "y", "u", "v" };
      layout.passes.push_back (single_sample_pass (0, 0, 1, 0));
      PlanePass chroma = single_sample_pass (1, 1, 2, 1);
      chroma.channels = 2;
      chroma.sample_offset[1] = 1;
      layout.passes.push_back (chroma);
      break;
    }
    default:
      break;
  }
  return layout;
}

/* Derived from caps (set_info) and built lazily in process_ip. */
struct State
{
  Layout layout;
  guint channels = 0;
  int width = 0;
  int height = 0;
  bool kernels_ready = false;
  cl::Kernel draw_kernel;
  cl::Kernel fill_kernel;
  size_t group_size = MAX_GROUP_SIZE;
  size_t max_groups = 1;
  size_t compute_units = 1;
  bool groups_chosen = false;        /* work-groups per compute unit chosen by the tuner */
  cl::Buffer counts;                 /* MAX_CHANNELS x MAX_BINS uint, allocated once */
  std::vector<cl_uint> counts_host;  /* the last frame's counts, read back without blocking */
  guint frame_bins = 0;              /* bins of the counts in counts_host */
  GstClockTime frame_period_ns = GST_CLOCK_TIME_NONE;  /* from the framerate, if any */
};

/* Frames summed for the next message. Touched only from the streaming thread. */
struct Interval
{
  guint frames = 0;
  guint bins = 0;
  std::vector<const char *> channel_names;
  std::vector<guint64> sums;
  GstClockTime timestamp = GST_CLOCK_TIME_NONE;
  GstClockTime duration_ns = 0;

  void reset ()
  {
    frames = 0;
    timestamp = GST_CLOCK_TIME_NONE;
    duration_ns = 0;
  }
};

}  // namespace

struct GstOpenCLHistogramImpl
{
  std::mutex lock;
  Settings settings;
  State state;
  Interval interval;
};

struct _GstOpenCLHistogram
{
  GstOpenCLFilter parent;
  GstOpenCLHistogramImpl *impl;
};

enum
{
  PROP_0,
  PROP_BINS,
  PROP_POST_MESSAGES,
  PROP_INTERVAL,
  PROP_DRAW,
};

#define FORMATS "RGBA, BGRA, RGBx, BGRx, GRAY8, I420, NV12"

G_DEFINE_TYPE (GstOpenCLHistogram, gst_opencl_histogram, GST_TYPE_OPENCL_FILTER);
GST_ELEMENT_REGISTER_DEFINE (openclhistogram, "openclhistogram", GST_RANK_NONE,
    GST_TYPE_OPENCL_HISTOGRAM);

static void
gst_opencl_histogram_set_property (GObject * object, guint prop_id, const GValue * value,
    GParamSpec * pspec)
{
  auto *self = GST_OPENCL_HISTOGRAM (object);
  auto *impl = self->impl;
  std::unique_lock<std::mutex> lock (impl->lock);
  auto & s = impl->settings;
  switch (prop_id) {
    case PROP_BINS:{
      const guint requested = g_value_get_uint (value);
      const guint bins = power_of_two_floor (CLAMP (requested, MIN_BINS, MAX_BINS));
      s.bins = bins;
      GST_DEBUG_OBJECT (object, "bins %u", bins);
      if (bins != requested) {
        lock.unlock ();
        GST_ELEMENT_WARNING (object, LIBRARY, SETTINGS,
            ("bins must be a power of two from 2 to 256: %u rounded down to %u", requested,
                bins), (nullptr));
      }
      break;
    }
    case PROP_POST_MESSAGES:
      s.post_messages = g_value_get_boolean (value);
      GST_DEBUG_OBJECT (object, "post-messages %d", s.post_messages);
      break;
    case PROP_INTERVAL:
      s.interval_ns = g_value_get_uint64 (value);
      GST_DEBUG_OBJECT (object, "interval %" GST_TIME_FORMAT, GST_TIME_ARGS (s.interval_ns));
      break;
    case PROP_DRAW:
      s.draw = g_value_get_boolean (value);
      GST_DEBUG_OBJECT (object, "draw %d", s.draw);
      /* Drawing needs writable frames; without it frames pass through uncopied. */
      gst_opencl_filter_set_analysis (GST_OPENCL_FILTER (object), s.draw);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
gst_opencl_histogram_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  auto *impl = GST_OPENCL_HISTOGRAM (object)->impl;
  std::lock_guard<std::mutex> lock (impl->lock);
  const auto & s = impl->settings;
  switch (prop_id) {
    case PROP_BINS:
      g_value_set_uint (value, s.bins);
      break;
    case PROP_POST_MESSAGES:
      g_value_set_boolean (value, s.post_messages);
      break;
    case PROP_INTERVAL:
      g_value_set_uint64 (value, s.interval_ns);
      break;
    case PROP_DRAW:
      g_value_set_boolean (value, s.draw);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static Settings
settings_snapshot (GstOpenCLHistogramImpl * impl)
{
  std::lock_guard<std::mutex> lock (impl->lock);
  return impl->settings;
}

/* Builds the interval's message and posts it (when asked to), then starts a new interval. */
static void
post_interval (GstOpenCLHistogram * self)
{
  auto *impl = self->impl;
  Interval & interval = impl->interval;
  if (interval.frames == 0)
    return;
  if (settings_snapshot (impl).post_messages) {
    auto *trans = GST_BASE_TRANSFORM (self);
    GstClockTime stream_time = GST_CLOCK_TIME_NONE, running_time = GST_CLOCK_TIME_NONE;
    if (GST_CLOCK_TIME_IS_VALID (interval.timestamp) &&
        trans->segment.format == GST_FORMAT_TIME) {
      stream_time = gst_segment_to_stream_time (&trans->segment, GST_FORMAT_TIME,
          interval.timestamp);
      running_time = gst_segment_to_running_time (&trans->segment, GST_FORMAT_TIME,
          interval.timestamp);
    }
    GstStructure *structure = gst_structure_new ("opencl-histogram",
        "timestamp", G_TYPE_UINT64, (guint64) interval.timestamp,
        "stream-time", G_TYPE_UINT64, (guint64) stream_time,
        "running-time", G_TYPE_UINT64, (guint64) running_time,
        "duration", G_TYPE_UINT64, (guint64) interval.duration_ns,
        "frames", G_TYPE_UINT, interval.frames,
        "bins", G_TYPE_UINT, interval.bins, nullptr);
    for (size_t channel = 0; channel < interval.channel_names.size (); channel++) {
      GValue array = G_VALUE_INIT;
      g_value_init (&array, GST_TYPE_ARRAY);
      for (guint bin = 0; bin < interval.bins; bin++) {
        GValue count = G_VALUE_INIT;
        g_value_init (&count, G_TYPE_UINT64);
        g_value_set_uint64 (&count, interval.sums[channel * interval.bins + bin]);
        gst_value_array_append_and_take_value (&array, &count);
      }
      gst_structure_take_value (structure, interval.channel_names[channel], &array);
    }
    gst_element_post_message (GST_ELEMENT (self),
        gst_message_new_element (GST_OBJECT (self), structure));
  }
  interval.reset ();
}

/* A frame's duration: the buffer's, else one frame period from the caps, else unknown. */
static GstClockTime
frame_duration (const State & state, GstBuffer * buffer)
{
  if (GST_BUFFER_DURATION_IS_VALID (buffer))
    return GST_BUFFER_DURATION (buffer);
  return state.frame_period_ns;
}

/* Adds the frame's counts (read back by process_ip) to the interval; posts when it is full. */
static void
accumulate (GstOpenCLHistogram * self, GstBuffer * buffer)
{
  auto *impl = self->impl;
  const State & state = impl->state;
  Interval & interval = impl->interval;
  const Settings settings = settings_snapshot (impl);

  if (interval.frames > 0 && interval.bins != state.frame_bins)
    post_interval (self);
  if (interval.frames == 0) {
    interval.bins = state.frame_bins;
    interval.channel_names = state.layout.channel_names;
    interval.sums.assign ((size_t) state.channels * state.frame_bins, 0);
    interval.timestamp = GST_BUFFER_PTS (buffer);
  }
  for (size_t i = 0; i < interval.sums.size (); i++)
    interval.sums[i] += state.counts_host[i];
  interval.frames++;

  GstClockTime duration = frame_duration (state, buffer);
  if (GST_CLOCK_TIME_IS_VALID (duration))
    interval.duration_ns += duration;
  /* Full to the nearest frame: within half this frame of the interval (3 frames of 1/30 s,
   * 99999999 ns in integer nanoseconds, fill an interval of 100 ms). A frame of unknown length
   * cannot be placed in time: it closes the interval. */
  if (settings.interval_ns == 0 || !GST_CLOCK_TIME_IS_VALID (duration) ||
      interval.duration_ns + duration / 2 >= settings.interval_ns)
    post_interval (self);
}

static gboolean
gst_opencl_histogram_set_info (GstOpenCLFilter * filter, const GstVideoInfo * in_info,
    const GstVideoInfo *)
{
  auto *self = GST_OPENCL_HISTOGRAM (filter);
  auto *impl = self->impl;
  /* Frames summed under the old caps are reported before the channels may change. */
  post_interval (self);
  return GST_OPENCL_GUARD (filter, "cannot set up the histogram", [&]() {
    State & state = impl->state;
    state.layout = layout_for (GST_VIDEO_INFO_FORMAT (in_info));
    if (state.layout.passes.empty ())
      throw gst_opencl::Failure (gst_opencl::Failure::Kind::Settings,
          std::string ("unsupported format ") +
          gst_video_format_to_string (GST_VIDEO_INFO_FORMAT (in_info)));
    state.channels = state.layout.channel_names.size ();
    state.width = GST_VIDEO_INFO_WIDTH (in_info);
    state.height = GST_VIDEO_INFO_HEIGHT (in_info);
    state.frame_period_ns = GST_VIDEO_INFO_FPS_N (in_info) > 0 &&
        GST_VIDEO_INFO_FPS_D (in_info) > 0 ? gst_util_uint64_scale_int (GST_SECOND,
        GST_VIDEO_INFO_FPS_D (in_info), GST_VIDEO_INFO_FPS_N (in_info)) : GST_CLOCK_TIME_NONE;
    state.kernels_ready = false;
    state.groups_chosen = false;
    if (!state.counts ()) {
      state.counts = cl::Buffer (gst_opencl_filter_device (filter).context, CL_MEM_READ_WRITE,
          MAX_CHANNELS * MAX_BINS * sizeof (cl_uint));
      state.counts_host.assign (MAX_CHANNELS * MAX_BINS, 0);
    }
  });
}

/* Work-group size, sub-histogram copies and group count for the device. */
static void
choose_shape (const gst_opencl::Device & device, guint hist_channels, State & state,
    guint * copies)
{
  const size_t device_limit = power_of_two_floor ((guint) std::min (MAX_GROUP_SIZE,
          std::max<size_t> (1, device.max_work_group_size)));
  /* On a CPU a work-group runs on one core, one work-item after another: one work-item per
   * group then counts a contiguous run of pixels with plain adds, like a CPU loop would. */
  state.group_size = device.type & CL_DEVICE_TYPE_CPU ? 1 : device_limit;
  /* For tests and measurements: GST_OPENCL_HISTOGRAM_GROUP_SIZE forces the work-group size
   * (rounded down to a power of two within the device's limit). */
  if (const gchar *forced = g_getenv ("GST_OPENCL_HISTOGRAM_GROUP_SIZE")) {
    guint64 value = g_ascii_strtoull (forced, nullptr, 10);
    if (value >= 1)
      state.group_size = power_of_two_floor ((guint) std::min<guint64> (value, device_limit));
  }
  const cl_ulong copy_bytes = (cl_ulong) hist_channels * MAX_BINS * sizeof (cl_uint);
  if (copy_bytes > device.local_mem_bytes)
    throw gst_opencl::Failure (gst_opencl::Failure::Kind::Settings,
        device.name + " has too little local memory for a histogram");
  /* Half the local memory at most, so several work-groups fit on a compute unit. */
  *copies = 1;
  /* A single work-item uses its copies in turn, pixel by pixel: on a one-colour frame its adds
   * then form COPIES independent chains instead of one. */
  const guint copy_users = state.group_size == 1 ? CPU_COPIES : state.group_size;
  while (*copies * 2 <= MAX_COPIES && *copies * 2 <= copy_users &&
      copy_bytes * *copies * 2 <= device.local_mem_bytes / 2)
    *copies *= 2;
  cl_uint compute_units = device.device.getInfo<CL_DEVICE_MAX_COMPUTE_UNITS> ();
  state.compute_units = std::max<cl_uint> (1, compute_units);
  state.max_groups = std::max<size_t> (1, compute_units * GROUPS_PER_COMPUTE_UNIT);
}

static std::string
pass_options (const PlanePass & pass, size_t group_size, guint copies)
{
  gchar *text = g_strdup_printf ("-DPIXEL_BYTES=%d -DCHANNELS=%d -DCH0=%d -DCH1=%d -DCH2=%d "
      "-DLUMA=%d -DGROUP_SIZE=%zu -DCOPIES=%u -DMAX_BINS=%u", pass.pixel_bytes, pass.channels,
      pass.sample_offset[0], pass.sample_offset[1], pass.sample_offset[2], pass.luma ? 1 : 0,
      group_size, copies, MAX_BINS);
  std::string options (text);
  g_free (text);
  return options;
}

static void
ensure_kernels (GstOpenCLFilter * filter, State & state)
{
  if (state.kernels_ready)
    return;
  auto & device = gst_opencl_filter_device (filter);
  guint hist_channels = 0;
  for (const auto & pass : state.layout.passes)
    hist_channels = std::max<guint> (hist_channels, pass.channels + (pass.luma ? 1 : 0));
  guint copies = 1;
  choose_shape (device, hist_channels, state, &copies);
  for (auto & pass : state.layout.passes) {
    std::string options = pass_options (pass, state.group_size, copies);
    pass.kernel = device.kernel ("histogram", "histogram", options);
    GST_DEBUG_OBJECT (filter, "plane %u: [%s]", pass.plane, options.c_str ());
  }
  /* The graph goes on the first plane, with that plane's program. */
  std::string first = pass_options (state.layout.passes[0], state.group_size, copies);
  state.draw_kernel = device.kernel ("histogram", "draw", first);
  state.fill_kernel = device.kernel ("histogram", "fill_region", first);
  state.kernels_ready = true;
}

/* Sets the counting kernel's arguments for one plane; false when the plane is empty. */
static bool
prepare_count (State & state, PlanePass & pass, const GstOpenCLFrame * frame, guint bins,
    size_t *global)
{
  const GstVideoInfo *info = &frame->info;
  const guint width = GST_VIDEO_INFO_COMP_WIDTH (info, pass.component);
  const guint height = GST_VIDEO_INFO_COMP_HEIGHT (info, pass.component);
  const guint64 pixels = (guint64) width * height;
  if (pixels == 0)
    return false;
  if (pixels > G_MAXUINT32)
    throw gst_opencl::Failure (gst_opencl::Failure::Kind::TooLarge, "plane too large");
  /* Contiguous runs of whole group-widths, one per work-group. */
  const guint64 per_group_wanted = (pixels + state.max_groups - 1) / state.max_groups;
  const guint64 per_group = (per_group_wanted + state.group_size - 1) / state.group_size *
      state.group_size;
  const size_t groups = (size_t) ((pixels + per_group - 1) / per_group);
  cl::Kernel & kernel = pass.kernel;
  kernel.setArg (0, frame->buffer);
  kernel.setArg (1, (cl_ulong) GST_VIDEO_INFO_PLANE_OFFSET (info, pass.plane));
  kernel.setArg (2, (cl_int) GST_VIDEO_INFO_PLANE_STRIDE (info, pass.plane));
  kernel.setArg (3, (cl_int) width);
  kernel.setArg (4, (cl_uint) pixels);
  kernel.setArg (5, (cl_uint) per_group);
  kernel.setArg (6, (cl_uint) bins);
  kernel.setArg (7, (cl_uint) (8 - g_bit_nth_lsf (bins, -1)));
  kernel.setArg (8, state.counts);
  kernel.setArg (9, (cl_uint) pass.first_channel);
  *global = groups * state.group_size;
  return true;
}

static void
count_plane (GstOpenCLFilter * filter, State & state, PlanePass & pass,
    const GstOpenCLFrame * frame, guint bins)
{
  size_t global = 0;
  if (prepare_count (state, pass, frame, bins, &global))
    gst_opencl_filter_launch (filter, pass.kernel, cl::NDRange (global),
        cl::NDRange (state.group_size));
}

/* Work-groups per compute unit, the tuner's candidates (family "histogram", forced with
 * GST_OPENCL_VARIANT_HISTOGRAM=groups-N): more groups fill the device sooner, fewer merge fewer
 * sub-histograms into the counts with global atomics. The first is the default. */
constexpr size_t GROUPS_CANDIDATES[] = { GROUPS_PER_COMPUTE_UNIT, 1, 2, 8, 16 };

/* Chooses the work-group count once per format, timing the candidates on this frame (the counts
 * are cleared again before the frame is counted for real). */
static void
choose_groups (GstOpenCLFilter * filter, State & state, const GstOpenCLFrame * frame,
    guint bins, size_t count_bytes)
{
  if (state.groups_chosen)
    return;
  auto & device = gst_opencl_filter_device (filter);
  std::vector<gst_opencl::TuningCandidate> candidates;
  for (size_t groups : GROUPS_CANDIDATES)
    candidates.push_back ({ "groups-" + std::to_string (groups), true });
  auto time_one = [&](size_t index) -> double {
    state.max_groups = state.compute_units * GROUPS_CANDIDATES[index];
    device.queue.enqueueFillBuffer (state.counts, (cl_uint) 0, 0, count_bytes);
    double total = 0.0;
    for (auto & pass : state.layout.passes) {
      size_t global = 0;
      if (!prepare_count (state, pass, frame, bins, &global))
        continue;
      cl::Event event;
      device.queue.enqueueNDRangeKernel (pass.kernel, cl::NullRange, cl::NDRange (global),
          cl::NDRange (state.group_size), nullptr, &event);
      event.wait ();
      total += gst_opencl::event_milliseconds (event);
    }
    return total;
  };
  std::string planes;
  for (const auto & pass : state.layout.passes)
    planes += "plane " + std::to_string (pass.plane) + " bytes " +
        std::to_string (pass.pixel_bytes) + " channels " + std::to_string (pass.channels) +
        (pass.luma ? " luma " : " ");
  gchar *key = g_strdup_printf ("%s%dx%d group %zu source %016" G_GINT64_MODIFIER "x",
      planes.c_str (), state.width, state.height, state.group_size,
      (guint64) gst_opencl::stable_hash (gst_opencl::kernel_source ("histogram")));
  size_t chosen = 0;
  try {
    chosen = gst_opencl::choose_variant (device.device, "histogram", key, candidates, time_one);
  } catch (...) {
    g_free (key);
    throw;
  }
  g_free (key);
  state.max_groups = state.compute_units * GROUPS_CANDIDATES[chosen];
  state.groups_chosen = true;
  GST_INFO_OBJECT (filter, "%zu work-groups per compute unit", GROUPS_CANDIDATES[chosen]);
}

/* The graph in the top-left corner; for YUV, the chroma under it is made neutral (grey). */
static void
draw_graph (GstOpenCLFilter * filter, State & state, const GstOpenCLFrame * frame, guint bins)
{
  const GstVideoInfo *info = &frame->info;
  const int draw_width = std::min (state.width, DRAW_MAX_WIDTH);
  const int draw_height = std::min (state.height, DRAW_MAX_HEIGHT);
  cl::Kernel & draw = state.draw_kernel;
  draw.setArg (0, frame->buffer);
  draw.setArg (1, (cl_ulong) GST_VIDEO_INFO_PLANE_OFFSET (info, 0));
  draw.setArg (2, (cl_int) GST_VIDEO_INFO_PLANE_STRIDE (info, 0));
  draw.setArg (3, (cl_int) draw_width);
  draw.setArg (4, (cl_int) draw_height);
  draw.setArg (5, (cl_uint) bins);
  draw.setArg (6, state.counts);
  const cl::NDRange local (16, std::max<size_t> (1, state.group_size / 16));
  gst_opencl_filter_launch (filter, draw, cl::NDRange (draw_width, draw_height), local);
  if (!state.layout.yuv)
    return;
  for (guint plane = 1; plane < GST_VIDEO_INFO_N_PLANES (info); plane++) {
    const int chroma_width = (draw_width + 1) / 2;
    const int chroma_height = (draw_height + 1) / 2;
    const int row_bytes = chroma_width * GST_VIDEO_INFO_COMP_PSTRIDE (info, plane);
    cl::Kernel & fill = state.fill_kernel;
    fill.setArg (0, frame->buffer);
    fill.setArg (1, (cl_ulong) GST_VIDEO_INFO_PLANE_OFFSET (info, plane));
    fill.setArg (2, (cl_int) GST_VIDEO_INFO_PLANE_STRIDE (info, plane));
    fill.setArg (3, (cl_int) row_bytes);
    fill.setArg (4, (cl_int) chroma_height);
    fill.setArg (5, (cl_uchar) 128);
    gst_opencl_filter_launch (filter, fill, cl::NDRange (row_bytes, chroma_height), local);
  }
}

static gboolean
gst_opencl_histogram_process_ip (GstOpenCLFilter * filter, const GstOpenCLFrame * frame,
    gboolean frame_writable, gboolean * frame_written)
{
  auto *impl = GST_OPENCL_HISTOGRAM (filter)->impl;
  return GST_OPENCL_GUARD (filter, "histogram failed", [&]() {
    const Settings settings = settings_snapshot (impl);
    State & state = impl->state;
    ensure_kernels (filter, state);
    auto & queue = gst_opencl_filter_device (filter).queue;
    const size_t count_bytes = (size_t) state.channels * settings.bins * sizeof (cl_uint);
    choose_groups (filter, state, frame, settings.bins, count_bytes);
    queue.enqueueFillBuffer (state.counts, (cl_uint) 0, 0, count_bytes);
    for (auto & pass : state.layout.passes)
      count_plane (filter, state, pass, frame, settings.bins);
    /* Not blocking: the base waits for the queue before transform_ip returns. */
    queue.enqueueReadBuffer (state.counts, CL_FALSE, 0, count_bytes, state.counts_host.data ());
    state.frame_bins = settings.bins;
    if (settings.draw && frame_writable) {
      draw_graph (filter, state, frame, settings.bins);
      *frame_written = TRUE;
    }
  });
}

static GstFlowReturn
gst_opencl_histogram_transform_ip (GstBaseTransform * trans, GstBuffer * buffer)
{
  GstFlowReturn ret =
      GST_BASE_TRANSFORM_CLASS (gst_opencl_histogram_parent_class)->transform_ip (trans, buffer);
  if (ret == GST_FLOW_OK)
    accumulate (GST_OPENCL_HISTOGRAM (trans), buffer);
  return ret;
}

static gboolean
gst_opencl_histogram_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  auto *self = GST_OPENCL_HISTOGRAM (trans);
  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_EOS:
      /* The last, partial interval is reported too. */
      post_interval (self);
      break;
    case GST_EVENT_FLUSH_STOP:
      self->impl->interval.reset ();
      break;
    default:
      break;
  }
  return GST_BASE_TRANSFORM_CLASS (gst_opencl_histogram_parent_class)->sink_event (trans, event);
}

static gboolean
gst_opencl_histogram_stop (GstBaseTransform * trans)
{
  auto *impl = GST_OPENCL_HISTOGRAM (trans)->impl;
  impl->interval.reset ();
  impl->state = State ();
  return GST_BASE_TRANSFORM_CLASS (gst_opencl_histogram_parent_class)->stop (trans);
}

static void
gst_opencl_histogram_init (GstOpenCLHistogram * self)
{
  self->impl = new GstOpenCLHistogramImpl ();
  gst_opencl_filter_set_analysis (GST_OPENCL_FILTER (self), DEFAULT_DRAW);
  /* An analyser reports on every frame and passes every frame on: late frames are not its to
   * drop (the sink still can). */
  gst_base_transform_set_qos_enabled (GST_BASE_TRANSFORM (self), FALSE);
}

static void
gst_opencl_histogram_finalize (GObject * object)
{
  delete GST_OPENCL_HISTOGRAM (object)->impl;
  G_OBJECT_CLASS (gst_opencl_histogram_parent_class)->finalize (object);
}

static void
gst_opencl_histogram_class_init (GstOpenCLHistogramClass * klass)
{
  auto *gobject_class = G_OBJECT_CLASS (klass);
  auto *element_class = GST_ELEMENT_CLASS (klass);
  auto *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  auto *filter_class = GST_OPENCL_FILTER_CLASS (klass);

  GST_DEBUG_CATEGORY_INIT (gst_opencl_histogram_debug, "openclhistogram", 0,
      "OpenCL histogram");

  gobject_class->set_property = gst_opencl_histogram_set_property;
  gobject_class->get_property = gst_opencl_histogram_get_property;
  gobject_class->finalize = gst_opencl_histogram_finalize;

  const auto flags = (GParamFlags) (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_PLAYING);
  /**
   * GstOpenCLHistogram:bins:
   *
   * Bins per channel, a power of two from 2 to 256: value v falls in bin v x bins / 256. Other
   * values are rounded down to a power of two, with a warning on the bus.
   */
  g_object_class_install_property (gobject_class, PROP_BINS,
      g_param_spec_uint ("bins", "Bins",
          "Bins per channel, a power of two (others are rounded down): value v falls in bin "
          "v * bins / 256", MIN_BINS, MAX_BINS, DEFAULT_BINS, flags));
  /**
   * GstOpenCLHistogram:post-messages:
   *
   * Whether to post an `opencl-histogram` element message per interval.
   */
  g_object_class_install_property (gobject_class, PROP_POST_MESSAGES,
      g_param_spec_boolean ("post-messages", "Post messages",
          "Post an opencl-histogram element message per interval", DEFAULT_POST_MESSAGES,
          flags));
  /**
   * GstOpenCLHistogram:interval:
   *
   * Nanoseconds of video summed into one message: 0 posts one per frame. Otherwise frames are
   * summed until their durations reach the interval, to the nearest frame (within half of the
   * last frame's duration); a frame without a known duration (no buffer duration, no
   * framerate) closes the interval, and at EOS the partial one is posted.
   */
  g_object_class_install_property (gobject_class, PROP_INTERVAL,
      g_param_spec_uint64 ("interval", "Interval",
          "Nanoseconds of video summed into one message (0 = every frame)", 0, G_MAXUINT64,
          DEFAULT_INTERVAL_NS, flags));
  /**
   * GstOpenCLHistogram:draw:
   *
   * Draw the graph of each frame's histogram into its top-left corner (at most 256 x 128
   * pixels): red, green and blue bars for RGB formats, the gray or y histogram otherwise.
   * When off, frames pass through uncopied.
   */
  g_object_class_install_property (gobject_class, PROP_DRAW,
      g_param_spec_boolean ("draw", "Draw",
          "Draw each frame's histogram into its top-left corner", DEFAULT_DRAW, flags));

  gst_element_class_set_static_metadata (element_class, "OpenCL histogram",
      "Filter/Analyzer/Video", "Per-frame histograms on an OpenCL device, posted on the bus "
      "and optionally drawn on the frame", "gst-opencl developers");
  gst_opencl_filter_class_add_pad_templates (filter_class, FORMATS, TRUE);

  trans_class->transform_ip = gst_opencl_histogram_transform_ip;
  trans_class->sink_event = gst_opencl_histogram_sink_event;
  trans_class->stop = gst_opencl_histogram_stop;
  filter_class->set_info = gst_opencl_histogram_set_info;
  filter_class->process_ip = gst_opencl_histogram_process_ip;
}
