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

#include "opencl/gstopenclframe.h"
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
/* red, green, blue and luma: the most channels a format has. */
constexpr guint MAX_CHANNELS = 4;
/* Uints in each counts buffer: what the kernel clears in the other buffer. */
constexpr guint COUNT_SLOTS = MAX_CHANNELS * MAX_BINS;
/* Work-group variants: local memory for the sub-histograms of one work-group (two thirds of
 * 48 KiB, so that several groups share a compute unit), and at most one copy per bank. */
constexpr cl_ulong GROUP_HIST_BYTES = 32 * 1024;
constexpr guint MAX_COPIES = 32;
/* One-work-item variants: copies the work-item cycles through, sample by sample. */
constexpr guint CPU_COPIES = 4;
/* The largest count a 16-bit counter holds. */
constexpr guint64 PACKED_COUNTER_MAX = 65535;

/* How a plane is counted: the candidates of the tuner (gst_opencl::choose_variant, family
 * "histogram", forced with GST_OPENCL_VARIANT_HISTOGRAM=<name>). See kernels/histogram.cl.
 *  - GPU variants, "<counters>[-runs]-<group size>x<groups per compute unit>": work-groups of
 *    that size, a grid stride over the plane with that many groups per compute unit (more when
 *    16-bit counters need it); counters "p16" (16 bits, two channels per word: twice the copies)
 *    or "c32" (32 bits); "runs" counts runs of one bin before the local atomic.
 *  - CPU variants, "cpu-<N>k": one work-item per group, each counting a contiguous stretch of
 *    about N x 1024 pixels (at least `groups_per_unit` groups per compute unit): short stretches
 *    keep the cores balanced when one of them is busy with something else (the last group on a
 *    slowed core is what the frame waits for), long ones merge fewer histograms (each merge
 *    costs some microseconds of a core); "cpu-x4" is 4 groups per compute unit whatever the
 *    size. */
struct Variant
{
  const char *name;
  size_t group_size;       /* 1: the one-work-item kernel */
  bool packed;
  bool runs;
  guint groups_per_unit;   /* GPU: the grid; CPU: the least */
  guint pixels_per_group;  /* CPU: 0 for a fixed count */
};

/* GPU variants of 512 and 1024 work-items were dropped: on an H100 a forced 512-wide one never
 * finished its first frame of the benchmark, and the tuner chose a 256-wide one there. */
constexpr Variant VARIANTS[] = {
  { "p16-256x2", 256, true, false, 2, 0 },
  { "p16-256x4", 256, true, false, 4, 0 },
  { "p16-runs-256x4", 256, true, true, 4, 0 },
  { "c32-256x4", 256, false, false, 4, 0 },
  { "c32-runs-256x4", 256, false, true, 4, 0 },
  { "cpu-64k", 1, false, false, 4, 64 * 1024 },
  { "cpu-256k", 1, false, false, 4, 256 * 1024 },
  { "cpu-x4", 1, false, false, 4, 0 },
};
constexpr size_t N_VARIANTS = sizeof (VARIANTS) / sizeof (VARIANTS[0]);

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
  guint copies = 1;         /* sub-histograms per work-group, for the variant built */
  cl::Kernel kernel;

  guint hist_channels () const
  {
    return channels + (luma ? 1 : 0);
  }
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
  bool kernels_ready = false;        /* the variant is chosen and its kernels are built */
  size_t variant = 0;                /* index into VARIANTS */
  cl::Kernel draw_kernel;
  cl::Kernel fill_kernel;
  size_t compute_units = 1;
  bool words = true;                 /* the device is little-endian: planes read as words */
  size_t forced_groups = 0;          /* GST_OPENCL_HISTOGRAM_GROUPS, for tests; 0: none */
  /* Two buffers of COUNT_SLOTS uint, allocated once: a frame counts into counts[current] and
   * clears the other, which the next frame counts into (see kernels/histogram.cl). */
  cl::Buffer counts[2];
  guint current = 0;
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
  std::string variant;  /* VARIANTS[state.variant].name once chosen, for the property */
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
  PROP_VARIANT,
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
    case PROP_VARIANT:
      g_value_set_string (value, impl->variant.empty () ? nullptr : impl->variant.c_str ());
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
    auto & device = gst_opencl_filter_device (filter);
    if (!state.counts[0] ()) {
      for (auto & buffer : state.counts) {
        buffer = cl::Buffer (device.context, CL_MEM_READ_WRITE, COUNT_SLOTS * sizeof (cl_uint));
        device.queue.enqueueFillBuffer (buffer, (cl_uint) 0, 0, COUNT_SLOTS * sizeof (cl_uint));
      }
      state.current = 0;
      state.counts_host.assign (COUNT_SLOTS, 0);
    }
  });
}

/* Sub-histogram copies of a variant for a pass on the device; throws when none fits. */
static guint
copies_for (const gst_opencl::Device & device, const Variant & variant, const PlanePass & pass)
{
  if (variant.group_size == 1)
    return CPU_COPIES;
  const guint rows = variant.packed ? (pass.hist_channels () + 1) / 2 : pass.hist_channels ();
  const cl_ulong copy_bytes = (cl_ulong) rows * MAX_BINS * sizeof (cl_uint);
  const cl_ulong budget = std::min (GROUP_HIST_BYTES, device.local_mem_bytes);
  if (copy_bytes > budget)
    throw gst_opencl::Failure (gst_opencl::Failure::Kind::Settings,
        device.name + " has too little local memory for a histogram");
  return std::min (power_of_two_floor ((guint) (budget / copy_bytes)),
      std::min (MAX_COPIES, (guint) variant.group_size));
}

static std::string
pass_options (const PlanePass & pass, const Variant & variant)
{
  gchar *text = g_strdup_printf ("-DPIXEL_BYTES=%d -DCHANNELS=%d -DCH0=%d -DCH1=%d -DCH2=%d "
      "-DLUMA=%d -DGROUP_SIZE=%zu -DCOPIES=%u -DPACKED=%d -DRUNS=%d -DMAX_BINS=%u",
      pass.pixel_bytes, pass.channels, pass.sample_offset[0], pass.sample_offset[1],
      pass.sample_offset[2], pass.luma ? 1 : 0, variant.group_size, pass.copies,
      variant.packed ? 1 : 0, variant.runs ? 1 : 0, MAX_BINS);
  std::string options (text);
  g_free (text);
  return options;
}

/* Builds the counting kernel of every pass for a variant (the program cache keeps the builds);
 * throws when the device cannot run it. */
static void
build_variant (GstOpenCLFilter * filter, State & state, const Variant & variant)
{
  auto & device = gst_opencl_filter_device (filter);
  if (variant.group_size > device.max_work_group_size)
    throw gst_opencl::Failure (gst_opencl::Failure::Kind::Settings,
        std::string ("variant ") + variant.name + " needs work-groups of " +
        std::to_string (variant.group_size) + ", more than " + device.name + " has");
  for (auto & pass : state.layout.passes) {
    pass.copies = copies_for (device, variant, pass);
    std::string options = pass_options (pass, variant);
    pass.kernel = device.kernel ("histogram", "histogram", options);
    /* The compiled kernel may allow less than the device (registers, local memory). */
    const size_t allowed =
        pass.kernel.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE> (device.device);
    if (variant.group_size > allowed)
      throw gst_opencl::Failure (gst_opencl::Failure::Kind::Settings,
          std::string ("variant ") + variant.name + " needs work-groups of " +
          std::to_string (variant.group_size) + ", its kernel allows " +
          std::to_string (allowed) + " on " + device.name);
    GST_DEBUG_OBJECT (filter, "%s plane %u: [%s]", variant.name, pass.plane, options.c_str ());
  }
}

/* How the kernel reads one plane of a frame (see kernels/histogram.cl). */
struct PlaneGeometry
{
  cl_ulong offset = 0;
  cl_int stride = 0;
  guint spans = 0;
  guint span_words = 0;  /* 16-byte words at the start of each span */
  guint span_tail = 0;   /* pixels after them */
  guint64 pixels = 0;
};

static PlaneGeometry
plane_geometry (const State & state, const PlanePass & pass, const GstVideoInfo * info)
{
  PlaneGeometry g;
  const guint width = GST_VIDEO_INFO_COMP_WIDTH (info, pass.component);
  const guint height = GST_VIDEO_INFO_COMP_HEIGHT (info, pass.component);
  g.pixels = (guint64) width * height;
  if (g.pixels == 0)
    return g;
  const guint64 row_bytes = (guint64) width * pass.pixel_bytes;
  if (g.pixels > G_MAXUINT32 || row_bytes * height > G_MAXUINT32)
    throw gst_opencl::Failure (gst_opencl::Failure::Kind::TooLarge, "plane too large");
  g.offset = GST_VIDEO_INFO_PLANE_OFFSET (info, pass.plane);
  g.stride = GST_VIDEO_INFO_PLANE_STRIDE (info, pass.plane);
  /* Words need 16-byte alignment: the buffer's start is aligned far more than that. */
  const bool aligned = state.words && g.offset % 16 == 0;
  if (height == 1 || (guint64) g.stride == row_bytes) {
    /* Rows without padding between them: the plane is one span. */
    const guint64 bytes = row_bytes * height;
    g.spans = 1;
    g.span_words = aligned ? (guint) (bytes / 16) : 0;
    g.span_tail = (guint) ((bytes - (guint64) g.span_words * 16) / pass.pixel_bytes);
  } else {
    g.spans = height;
    g.span_words = aligned && g.stride % 16 == 0 ? (guint) (row_bytes / 16) : 0;
    g.span_tail = (guint) ((row_bytes - (guint64) g.span_words * 16) / pass.pixel_bytes);
  }
  return g;
}

/* Work-groups for one plane. */
static size_t
group_count (const State & state, const Variant & variant, const PlanePass & pass,
    const PlaneGeometry & g)
{
  const guint64 words = (guint64) g.spans * g.span_words;
  const guint64 tails = (guint64) g.spans * g.span_tail;
  const guint64 units = std::max<guint64> (1, words + tails);
  guint64 groups = (guint64) state.compute_units * variant.groups_per_unit;
  if (variant.group_size == 1 && variant.pixels_per_group)
    groups = std::max (groups, (g.pixels + variant.pixels_per_group - 1) /
        variant.pixels_per_group);
  if (state.forced_groups)
    groups = state.forced_groups;
  /* No more groups than there is work for. */
  groups = std::max<guint64> (1, std::min (groups, (units + variant.group_size - 1) /
          variant.group_size));
  if (variant.packed) {
    /* Every 16-bit counter stays below 65536: the work-items sharing a copy count at most that
     * many samples of a channel. More groups mean fewer samples per work-item. */
    const guint64 sharing = variant.group_size / pass.copies;
    const guint64 pixels_per_word = 16 / pass.pixel_bytes;
    auto most_per_copy = [&](guint64 n) {
      const guint64 items = n * variant.group_size;
      return sharing * ((words + items - 1) / items * pixels_per_word + (tails + items - 1) /
          items);
    };
    while (most_per_copy (groups) > PACKED_COUNTER_MAX)
      groups *= 2;
  }
  return (size_t) groups;
}

/* Enqueues the counting of every plane of `frame` into counts[current] through `launch`, the
 * first launch clearing the other buffer, and makes the other buffer current for the next frame
 * once anything was enqueued. Returns the index of the buffer counted into. */
template<typename Launch>
static guint
enqueue_counting (State & state, const Variant & variant, const GstOpenCLFrame * frame,
    guint bins, Launch launch)
{
  const guint current = state.current;
  bool cleared = false;
  try {
    for (auto & pass : state.layout.passes) {
      const PlaneGeometry g = plane_geometry (state, pass, &frame->info);
      if (g.pixels == 0)
        continue;
      const size_t groups = group_count (state, variant, pass, g);
      const guint words = g.spans * g.span_words;
      const guint tails = g.spans * g.span_tail;
      cl::Kernel & kernel = pass.kernel;
      kernel.setArg (0, frame->buffer);
      kernel.setArg (1, g.offset);
      kernel.setArg (2, g.stride);
      kernel.setArg (3, (cl_uint) g.spans);
      kernel.setArg (4, (cl_uint) g.span_words);
      kernel.setArg (5, (cl_uint) g.span_tail);
      kernel.setArg (6, (cl_uint) ((words + groups - 1) / groups));
      kernel.setArg (7, (cl_uint) ((tails + groups - 1) / groups));
      kernel.setArg (8, (cl_uint) bins);
      kernel.setArg (9, (cl_uint) (8 - g_bit_nth_lsf (bins, -1)));
      kernel.setArg (10, state.counts[current]);
      kernel.setArg (11, (cl_uint) pass.first_channel);
      kernel.setArg (12, state.counts[1 - current]);
      kernel.setArg (13, (cl_uint) (cleared ? 0 : COUNT_SLOTS));
      launch (kernel, cl::NDRange (groups * variant.group_size),
          cl::NDRange (variant.group_size));
      cleared = true;
    }
  } catch (...) {
    if (cleared)
      state.current = 1 - current;
    throw;
  }
  if (cleared)
    state.current = 1 - current;
  return current;
}

/* A frame with `info`'s layout holding pseudo-random bytes: what the tuner times on, so that
 * the choice (kept on disk) does not depend on what the first frame happens to show. */
static cl::Buffer
random_frame (gst_opencl::Device & device, const GstVideoInfo * info)
{
  gsize bytes = GST_VIDEO_INFO_SIZE (info);
  for (guint plane = 0; plane < GST_VIDEO_INFO_N_PLANES (info); plane++)
    bytes = std::max<gsize> (bytes, GST_VIDEO_INFO_PLANE_OFFSET (info, plane) +
        (gsize) GST_VIDEO_INFO_PLANE_STRIDE (info, plane) * gst_opencl::plane_rows (info, plane));
  std::vector<guint32> words ((bytes + 3) / 4);
  guint32 x = 2463534242u;
  for (auto & word : words) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    word = x;
  }
  return cl::Buffer (device.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
      words.size () * sizeof (guint32), words.data ());
}

/* Chooses the variant once per caps (forced, cached, or timed on a random frame with this
 * frame's layout: see gst_opencl::choose_variant) and builds its kernels. */
static void
ensure_kernels (GstOpenCLFilter * filter, State & state, const GstOpenCLFrame * frame,
    guint bins)
{
  if (state.kernels_ready)
    return;
  auto *impl = GST_OPENCL_HISTOGRAM (filter)->impl;
  auto & device = gst_opencl_filter_device (filter);
  state.compute_units = std::max<cl_uint> (1,
      device.device.getInfo<CL_DEVICE_MAX_COMPUTE_UNITS> ());
  state.words = device.device.getInfo<CL_DEVICE_ENDIAN_LITTLE> () == CL_TRUE;
  /* For tests and measurements: GST_OPENCL_HISTOGRAM_GROUPS forces the work-groups per plane
   * (16-bit counters still get as many as they need). */
  state.forced_groups = 0;
  if (const gchar *forced = g_getenv ("GST_OPENCL_HISTOGRAM_GROUPS"))
    state.forced_groups = (size_t) std::min<guint64> (g_ascii_strtoull (forced, nullptr, 10),
        G_MAXUINT32);

  /* The device's kind of variant first (the first is its default); the others can be forced
   * but are not timed there. */
  const bool cpu = (device.type & CL_DEVICE_TYPE_CPU) != 0;
  std::vector<size_t> order;
  for (size_t i = 0; i < N_VARIANTS; i++)
    if ((VARIANTS[i].group_size == 1) == cpu)
      order.push_back (i);
  for (size_t i = 0; i < N_VARIANTS; i++)
    if ((VARIANTS[i].group_size == 1) != cpu)
      order.push_back (i);
  std::vector<gst_opencl::TuningCandidate> candidates;
  for (size_t i : order)
    candidates.push_back ({ VARIANTS[i].name, (VARIANTS[i].group_size == 1) == cpu });

  cl::Buffer timing_frame;
  auto time_one = [&](size_t candidate) -> double {
    const Variant & variant = VARIANTS[order[candidate]];
    build_variant (filter, state, variant);
    if (!timing_frame ())
      timing_frame = random_frame (device, &frame->info);
    const GstOpenCLFrame random { timing_frame, frame->info };
    std::vector<cl::Event> events;
    enqueue_counting (state, variant, &random, bins, [&](cl::Kernel & kernel,
            const cl::NDRange & global, const cl::NDRange & local) {
          cl::Event event;
          device.queue.enqueueNDRangeKernel (kernel, cl::NullRange, global, local, nullptr,
              &event);
          events.push_back (event);
        });
    double total = 0.0;
    for (auto & event : events) {
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
  gchar *key = g_strdup_printf ("%s%dx%d source %016" G_GINT64_MODIFIER "x", planes.c_str (),
      state.width, state.height,
      (guint64) gst_opencl::stable_hash (gst_opencl::kernel_source ("histogram")));
  size_t chosen = 0;
  try {
    chosen = order[gst_opencl::choose_variant (device.device, "histogram", key, candidates,
            time_one)];
  } catch (...) {
    g_free (key);
    throw;
  }
  g_free (key);
  state.variant = chosen;
  build_variant (filter, state, VARIANTS[chosen]);
  /* The graph goes on the first plane, with that plane's program. */
  std::string first = pass_options (state.layout.passes[0], VARIANTS[chosen]);
  state.draw_kernel = device.kernel ("histogram", "draw", first);
  state.fill_kernel = device.kernel ("histogram", "fill_region", first);
  state.kernels_ready = true;
  {
    std::lock_guard<std::mutex> lock (impl->lock);
    impl->variant = VARIANTS[chosen].name;
  }
  GST_INFO_OBJECT (filter, "variant %s", VARIANTS[chosen].name);
}

/* The graph in the top-left corner; for YUV, the chroma under it is made neutral (grey). */
static void
draw_graph (GstOpenCLFilter * filter, State & state, const GstOpenCLFrame * frame, guint bins,
    const cl::Buffer & counts)
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
  draw.setArg (6, counts);
  const size_t group_size = std::min<size_t> (256, VARIANTS[state.variant].group_size);
  const cl::NDRange local (16, std::max<size_t> (1, group_size / 16));
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
    ensure_kernels (filter, state, frame, settings.bins);
    auto & queue = gst_opencl_filter_device (filter).queue;
    const size_t count_bytes = (size_t) state.channels * settings.bins * sizeof (cl_uint);
    const guint counted = enqueue_counting (state, VARIANTS[state.variant], frame,
        settings.bins, [&](cl::Kernel & kernel, const cl::NDRange & global,
            const cl::NDRange & local) {
          gst_opencl_filter_launch (filter, kernel, global, local);
        });
    /* Not blocking: the base waits for the queue before transform_ip returns. */
    queue.enqueueReadBuffer (state.counts[counted], CL_FALSE, 0, count_bytes,
        state.counts_host.data ());
    state.frame_bins = settings.bins;
    if (settings.draw && frame_writable) {
      draw_graph (filter, state, frame, settings.bins, state.counts[counted]);
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
  {
    std::lock_guard<std::mutex> lock (impl->lock);
    impl->variant.clear ();
  }
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
  /**
   * GstOpenCLHistogram:variant:
   *
   * The kernel variant counting the frames, once the first frame chose it (NULL before and
   * after stopping): forced with GST_OPENCL_VARIANT_HISTOGRAM=<name>, else the one chosen on this
   * device before (remembered on disk), else the fastest on a frame of random bytes with the
   * stream's layout. GST_OPENCL_TUNING=0 takes the device's default. See
   * docs/openclhistogram.md for the variants.
   */
  g_object_class_install_property (gobject_class, PROP_VARIANT,
      g_param_spec_string ("variant", "Variant",
          "The kernel variant counting the frames (chosen on the first frame)", nullptr,
          (GParamFlags) (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS)));

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
