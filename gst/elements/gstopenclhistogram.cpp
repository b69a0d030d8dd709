/* gst-opencl: openclhistogram, per-frame histograms on the bus and drawn on the frame.
 * SPDX-License-Identifier: LGPL-2.1-or-later */

/**
 * SECTION:element-openclhistogram
 * @title: openclhistogram
 *
 * Counts, on an OpenCL device, how many samples of each channel fall in each of `bins` equal
 * ranges of the sample's full range (an 8-bit value v goes to bin v x bins / 256, a 16-bit one to
 * v x bins / 65536, a P010 10-bit one to v x bins / 1024), and posts the counts on the bus
 * as an element message named `opencl-histogram`, every frame or summed over `interval`
 * nanoseconds, the way `level` reports audio levels. Frames pass through untouched and uncopied;
 * with `draw`, the graph of the histogram is drawn into the top-left corner of each frame.
 *
 * Channels: `red`, `green`, `blue` and `luma` (Y = (299 R + 587 G + 114 B + 500) / 1000 in
 * integers, i.e. 0.299 R + 0.587 G + 0.114 B rounded to the nearest, halves up) for RGBA, BGRA,
 * RGBx, BGRx (also RGBA in GL memory) and RGBA64_LE (16-bit samples); `gray` for GRAY8 and
 * GRAY16_LE; `y`, `u`, `v` for I420, NV12 and P010_10LE, each plane at its own resolution.
 * P010's 10-bit values (the high 10 bits of each 16-bit word) are binned over their full range
 * 0..1023, whatever the caps' range says (limited-range video uses 64..940).
 *
 * The message's fields: `timestamp`, `stream-time`, `running-time` (of the first frame of the
 * interval), `duration` (the summed durations of its frames), all GstClockTime (guint64);
 * `frames` (guint), `bins` (guint), and per channel a GstValueArray (GST_TYPE_ARRAY) of `bins`
 * guint64 counts named after the channel. The counts of a channel add up to the number of its
 * samples in the summed frames. Frames do not wait for their counts: a message is posted when
 * the counts of the frame that fills its interval are back from the device (from the OpenCL
 * driver's thread), in frame order, and every message is posted before EOS goes downstream.
 *
 * Built against GStreamer 1.26's analytics library (gstreamer-analytics-1.0), each frame also
 * leaves with its own counts as a GstTensorMeta (`tensor-meta`): one uint32 tensor of dims
 * [channels, bins], row-major, id `opencl-histogram`. Built against 1.22 or 1.24, it does not.
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

#include <condition_variable>
#include <mutex>
#include <string>
#include <vector>

#include "elements/gstopenclhistogramcount.h"
#include "elements/gstopenclhistogrammessage.h"
#include "elements/gstopenclhistogrammeta.h"
#include "opencl/gstopenclproperties.h"
#include "opencl/gstopenclutils.h"

/* Shared with the element's device side (gstopenclhistogramcount.cpp). */
GST_DEBUG_CATEGORY (gst_opencl_histogram_debug);
#define GST_CAT_DEFAULT gst_opencl_histogram_debug

using namespace gst_opencl_histogram;

namespace {

constexpr guint DEFAULT_BINS = 256;
constexpr bool DEFAULT_POST_MESSAGES = true;
constexpr guint64 DEFAULT_INTERVAL_NS = 0;
constexpr bool DEFAULT_DRAW = false;
constexpr bool DEFAULT_TENSOR_META = TENSOR_META_AVAILABLE;

struct Settings
{
  guint bins = DEFAULT_BINS;
  bool post_messages = DEFAULT_POST_MESSAGES;
  guint64 interval_ns = DEFAULT_INTERVAL_NS;
  bool draw = DEFAULT_DRAW;
  bool tensor_meta = DEFAULT_TENSOR_META;
};

}  // namespace

namespace {

/* Frames whose counts are on their way back from the device, oldest first. The streaming thread
 * does not wait for a frame's counts: each read's completion callback (a driver thread) takes
 * every frame that has arrived, in frame order, into the interval and posts the messages that
 * closes, so messages come as soon as the counts are on the host. The streaming thread waits
 * only when every slot is taken, at EOS, at a caps change, a flush and a stop (drain ()). Host
 * memory of the slots is allocated once. */
class PendingCounts
{
public:
  static constexpr size_t kSlots = 3;

  struct Slot
  {
    /* What the read's completion callback gets: the element and this slot's index. */
    struct Callback
    {
      GstOpenCLHistogram *self = nullptr;
      size_t index = 0;
    } callback;
    cl::Event read;
    std::vector<cl_uint> counts = std::vector<cl_uint> (COUNT_SLOTS, 0);
    guint bins = 0;
    GstClockTime pts = GST_CLOCK_TIME_NONE, duration = GST_CLOCK_TIME_NONE;
    GstSegment segment;
    bool arrived = false;
    cl_int status = CL_COMPLETE;
  };

  std::mutex lock;               /* the slots, and the interval they are summed into */
  std::condition_variable freed; /* a slot was taken into the interval */

  /* The slot for the next frame's counts, once one is free (streaming thread). Its previous
   * read event is let go here, not in the callback: nothing of OpenCL is called from there. */
  Slot & next ()
  {
    std::unique_lock<std::mutex> guard (lock);
    freed.wait (guard, [this] { return count_ < kSlots; });
    Slot & slot = slots_[(head_ + count_) % kSlots];
    slot.read = cl::Event ();
    slot.arrived = false;
    slot.status = CL_COMPLETE;
    return slot;
  }
  /* Counts `slot` (from next ()) as pending, and its callback as running until it calls
   * callback_done (); the caller sets the read's callback after. */
  size_t push ()
  {
    std::lock_guard<std::mutex> guard (lock);
    callbacks_++;
    return (head_ + count_++) % kSlots;
  }
  /* The end of a callback, after it no longer touches the element. */
  void callback_done ()
  {
    {
      std::lock_guard<std::mutex> guard (lock);
      callbacks_--;
    }
    freed.notify_all ();
  }
  Slot & at (size_t index) { return slots_[index]; }
  /* Under `lock`: the oldest frame once its counts arrived, else null. */
  Slot *oldest_arrived () { return count_ > 0 && slots_[head_].arrived ? &slots_[head_] : nullptr; }
  /* Under `lock`. */
  void pop ()
  {
    head_ = (head_ + 1) % kSlots;
    count_--;
  }
  /* Waits until every pending frame has been taken and every callback has ended (streaming
   * thread, and stop: the element outlives its callbacks). */
  void drain ()
  {
    std::unique_lock<std::mutex> guard (lock);
    freed.wait (guard, [this] { return count_ == 0 && callbacks_ == 0; });
  }

  ~PendingCounts () { drain (); }

private:
  Slot slots_[kSlots];
  size_t head_ = 0, count_ = 0;
  size_t callbacks_ = 0;  /* callbacks set and not yet ended */
};

}  // namespace

struct GstOpenCLHistogramImpl
{
  std::mutex lock;
  Settings settings;
  State state;
  Interval interval;       /* under pending.lock */
  PendingCounts pending;
  PendingCounts::Slot *reading = nullptr;  /* process_ip read this frame's counts into it */

  void drop_run ()
  {
    pending.drain ();
    reading = nullptr;
    {
      std::lock_guard<std::mutex> guard (pending.lock);
      interval.reset ();
    }
    state = State ();
  }
};

GST_OPENCL_DEFINE_ELEMENT_TYPE (GstOpenCLHistogram, gst_opencl_histogram, GstOpenCLFilter,
    GST_TYPE_OPENCL_FILTER, GstOpenCLHistogramImpl, openclhistogram, GST_TYPE_OPENCL_HISTOGRAM);

static Settings
settings_snapshot (GstOpenCLHistogramImpl * impl)
{
  std::lock_guard<std::mutex> lock (impl->lock);
  return impl->settings;
}

/* Under pending.lock: the interval's message (when asked for one, else null), its times
 * placed in `segment`; a new interval starts. Post it outside the lock. */
static GstMessage *
close_interval (GstOpenCLHistogram * self, const GstSegment & segment)
{
  auto *impl = self->impl;
  if (impl->interval.frames == 0)
    return nullptr;
  GstMessage *message = settings_snapshot (impl).post_messages ?
      interval_message (GST_OBJECT (self), segment, impl->interval) : nullptr;
  impl->interval.reset ();
  return message;
}

static void
post_all (GstOpenCLHistogram * self, std::vector<GstMessage *> & messages)
{
  for (GstMessage *message : messages)
    gst_element_post_message (GST_ELEMENT (self), message);
  messages.clear ();
}

/* Waits for every frame's counts, then posts the interval so far (streaming thread). */
static void
post_interval (GstOpenCLHistogram * self)
{
  auto *impl = self->impl;
  impl->pending.drain ();
  GstMessage *message;
  {
    std::lock_guard<std::mutex> guard (impl->pending.lock);
    message = close_interval (self, GST_BASE_TRANSFORM (self)->segment);
  }
  if (message)
    gst_element_post_message (GST_ELEMENT (self), message);
}

/* Under pending.lock: adds one frame's counts to the interval; closes it when full. */
static void
accumulate (GstOpenCLHistogram * self, const PendingCounts::Slot & frame,
    std::vector<GstMessage *> & messages)
{
  auto *impl = self->impl;
  auto add_closed = [&](GstMessage * message) {
    if (message)
      messages.push_back (message);
  };
  if (!impl->interval.accepts (frame.bins))
    add_closed (close_interval (self, frame.segment));
  if (impl->interval.add (impl->state.layout.channel_names, frame.bins, frame.counts, frame.pts,
          frame.duration, settings_snapshot (impl).interval_ns))
    add_closed (close_interval (self, frame.segment));
}

/* A frame's counts are on the host (a driver thread): takes every frame that has arrived into
 * the interval, in order, and posts what that closes. `data` is the slot's Callback. It calls
 * nothing of OpenCL, and the element waits for it to end before it stops (drain ()). */
static void CL_CALLBACK
on_counts_read (cl_event, cl_int status, void *data)
{
  const auto callback = *static_cast<PendingCounts::Slot::Callback *> (data);
  GstOpenCLHistogram *self = callback.self;
  auto & pending = self->impl->pending;
  std::vector<GstMessage *> messages;
  bool failed = false;
  {
    std::lock_guard<std::mutex> guard (pending.lock);
    PendingCounts::Slot & slot = pending.at (callback.index);
    slot.arrived = true;
    slot.status = status;
    while (PendingCounts::Slot * oldest = pending.oldest_arrived ()) {
      if (oldest->status < 0)
        failed = true;
      else
        accumulate (self, *oldest, messages);
      pending.pop ();
    }
  }
  pending.freed.notify_all ();
  post_all (self, messages);
  if (failed)
    GST_ELEMENT_ERROR (self, RESOURCE, READ, ("reading the histogram back failed"),
        ("the read of a frame's counts ended with status %d", status));
  pending.callback_done ();
}

static gboolean
gst_opencl_histogram_set_info (GstOpenCLFilter * filter, gst_opencl::ElementDevice & device,
    const GstVideoInfo * in_info, const GstVideoInfo *)
{
  auto *self = GST_OPENCL_HISTOGRAM (filter);
  auto *impl = self->impl;
  return GST_OPENCL_GUARD (filter, "cannot set up the histogram", [&]() {
    /* Frames summed under the old caps are reported before the channels may change. */
    post_interval (self);
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
    allocate_counts (device.device (), state);
  });
}

static gboolean
gst_opencl_histogram_process_ip (GstOpenCLFilter * filter, gst_opencl::ElementDevice & device,
    const GstOpenCLFrame * frame,
    gboolean frame_writable, gboolean * frame_written, gboolean * results_now)
{
  auto *impl = GST_OPENCL_HISTOGRAM (filter)->impl;
  return GST_OPENCL_GUARD (filter, "histogram failed", [&]() {
    const Settings settings = settings_snapshot (impl);
    State & state = impl->state;
    ensure_kernels (filter, state, frame, settings.bins);
    auto & queue = device.queue ();
    const size_t count_bytes = (size_t) state.channels * settings.bins * sizeof (cl_uint);
    const guint counted = count_frame (filter, state, frame, settings.bins);
    /* Not blocking: the read's callback takes the counts (set by after_frame). */
    PendingCounts::Slot & slot = impl->pending.next ();
    queue.enqueueReadBuffer (state.counts[counted], CL_FALSE, 0, count_bytes,
        slot.counts.data (), nullptr, &slot.read);
    slot.bins = settings.bins;
    impl->reading = &slot;
    /* The frame's tensor meta carries its own counts: they are needed before it leaves. */
    *results_now = settings.tensor_meta;
    if (settings.draw && frame_writable) {
      draw_graph (filter, state, frame, settings.bins, state.counts[counted]);
      *frame_written = TRUE;
    }
  });
}

static gboolean
gst_opencl_histogram_after_frame (GstOpenCLFilter * filter, gst_opencl::ElementDevice & device,
    GstBuffer * buffer)
{
  auto *trans = GST_BASE_TRANSFORM (filter);
  auto *self = GST_OPENCL_HISTOGRAM (filter);
  auto *impl = self->impl;
  PendingCounts::Slot *frame = impl->reading;
  impl->reading = nullptr;
  if (!frame)
    return TRUE;
  frame->pts = GST_BUFFER_PTS (buffer);
  /* A frame's duration: the buffer's, else one frame period from the caps, else unknown. */
  frame->duration = GST_BUFFER_DURATION_IS_VALID (buffer) ? GST_BUFFER_DURATION (buffer) :
      impl->state.frame_period_ns;
  frame->segment = trans->segment;
  gboolean ok = GST_OPENCL_GUARD (trans, "reading the histogram back failed", [&]() {
    /* prepare_output_buffer made the buffer writable for this; process_ip asked the base to
     * wait for the counts. */
    if (settings_snapshot (impl).tensor_meta && gst_buffer_is_writable (buffer)) {
      gst_opencl::device_of (trans).wait (frame->read);
      attach_tensor_meta (buffer, impl->state.channels, frame->bins, frame->counts);
    }
    cl::Event read = frame->read;
    auto *callback = &frame->callback;
    callback->self = self;
    callback->index = impl->pending.push ();
    try {
      read.setCallback (CL_COMPLETE, on_counts_read, callback);
    } catch (...) {
      /* No callback will take this frame: its read is waited for, and taken, here. */
      cl_int status = CL_COMPLETE;
      try {
        read.wait ();
      } catch (const cl::Error & e) {
        status = e.err ();
      }
      on_counts_read (nullptr, status, callback);
      throw;
    }
    /* A callback is only sure to come for a command that was flushed to the device (rusticl
     * holds commands until then). */
    device.queue ().flush ();
  });
  return ok;
}

/* Passthrough hands on the input buffer, which is not writable when something else holds it
 * too (a tee): a tensor meta then goes on a new buffer around the same memory (no pixels are
 * copied). */
static GstFlowReturn
gst_opencl_histogram_prepare_output_buffer (GstBaseTransform * trans, GstBuffer * input,
    GstBuffer ** output)
{
  GstFlowReturn ret = GST_BASE_TRANSFORM_CLASS (gst_opencl_histogram_parent_class)->
      prepare_output_buffer (trans, input, output);
  if (ret == GST_FLOW_OK && *output == input && !gst_buffer_is_writable (input) &&
      settings_snapshot (GST_OPENCL_HISTOGRAM (trans)->impl).tensor_meta)
    *output = gst_buffer_copy (input);
  return ret;
}

static gboolean
gst_opencl_histogram_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  auto *self = GST_OPENCL_HISTOGRAM (trans);
  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_EOS:
      /* Every frame's counts, then the last, partial interval, are reported. */
      post_interval (self);
      break;
    case GST_EVENT_FLUSH_STOP:
      self->impl->pending.drain ();
      {
        std::lock_guard<std::mutex> guard (self->impl->pending.lock);
        self->impl->interval.reset ();
      }
      break;
    default:
      break;
  }
  return GST_BASE_TRANSFORM_CLASS (gst_opencl_histogram_parent_class)->sink_event (trans, event);
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

/* bins is stored rounded down to a power of two in range; a value that was not one is warned
 * about on the bus, outside the settings' lock. */
static guint
bins_from (guint requested)
{
  return power_of_two_floor (CLAMP (requested, MIN_BINS, MAX_BINS));
}

static void
store_bins (Settings & settings, const GValue * value)
{
  settings.bins = bins_from (g_value_get_uint (value));
}

static void
warn_rounded_bins (GObject * object, const GValue * value)
{
  const guint requested = g_value_get_uint (value);
  const guint bins = bins_from (requested);
  if (bins != requested)
    GST_ELEMENT_WARNING (object, LIBRARY, SETTINGS,
        ("bins must be a power of two from 2 to 256: %u rounded down to %u", requested, bins),
        (nullptr));
}

static void
store_tensor_meta (Settings & settings, const GValue * value)
{
  settings.tensor_meta = TENSOR_META_AVAILABLE && g_value_get_boolean (value);
}

static void
warn_no_tensor_meta (GObject * object, const GValue * value)
{
  if (!TENSOR_META_AVAILABLE && g_value_get_boolean (value))
    GST_ELEMENT_WARNING (object, LIBRARY, SETTINGS,
        ("tensor-meta needs a plugin built against gstreamer-analytics-1.0 1.26 or later"),
        (nullptr));
}

static void
gst_opencl_histogram_class_init (GstOpenCLHistogramClass * klass)
{
  auto *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  auto *filter_class = GST_OPENCL_FILTER_CLASS (klass);

  auto properties = gst_opencl::element_class_begin<GstOpenCLHistogram> (klass, GST_CAT_DEFAULT,
      "openclhistogram", "OpenCL histogram");

  /**
   * GstOpenCLHistogram:bins:
   *
   * Bins per channel, a power of two from 2 to 256: an 8-bit value v falls in bin
   * v x bins / 256, a 16-bit one in v x bins / 65536, a P010 10-bit one in v x bins / 1024.
   * Other values are rounded down to a power of two, with a warning on the bus.
   */
  properties.add (g_param_spec_uint ("bins", "Bins",
      "Bins per channel, a power of two (others are rounded down): value v falls in bin "
      "v * bins / 256 (8-bit), v * bins / 65536 (16-bit), v * bins / 1024 (P010's 10 bits)",
      MIN_BINS, MAX_BINS, DEFAULT_BINS, gst_opencl::PROPERTY_PLAYING), store_bins,
      [] (const GstOpenCLHistogramImpl & impl, GValue * value) {
        g_value_set_uint (value, impl.settings.bins);
      }, warn_rounded_bins);
  /**
   * GstOpenCLHistogram:post-messages:
   *
   * Whether to post an `opencl-histogram` element message per interval.
   */
  properties.add (g_param_spec_boolean ("post-messages", "Post messages",
      "Post an opencl-histogram element message per interval", DEFAULT_POST_MESSAGES,
      gst_opencl::PROPERTY_PLAYING), &Settings::post_messages);
  /**
   * GstOpenCLHistogram:interval:
   *
   * Nanoseconds of video summed into one message: 0 posts one per frame. Otherwise frames are
   * summed until their durations reach the interval, to the nearest frame (within half of the
   * last frame's duration); a frame without a known duration (no buffer duration, no
   * framerate) closes the interval, and at EOS the partial one is posted.
   */
  properties.add (g_param_spec_uint64 ("interval", "Interval",
      "Nanoseconds of video summed into one message (0 = every frame)", 0, G_MAXUINT64,
      DEFAULT_INTERVAL_NS, gst_opencl::PROPERTY_PLAYING), &Settings::interval_ns);
  /**
   * GstOpenCLHistogram:draw:
   *
   * Draw the graph of each frame's histogram into its top-left corner (at most 256 x 128
   * pixels): red, green and blue bars for RGB formats, the gray or y histogram otherwise, lit at
   * the format's largest value (255, 65535, P010's 1023).
   * When off, frames pass through uncopied.
   */
  properties.add (g_param_spec_boolean ("draw", "Draw",
      "Draw each frame's histogram into its top-left corner", DEFAULT_DRAW,
      gst_opencl::PROPERTY_PLAYING),
      &Settings::draw, [] (GObject * object, const GValue * value) {
        /* Drawing needs writable frames; without it frames pass through uncopied. */
        gst_opencl_filter_set_analysis (GST_OPENCL_FILTER (object), g_value_get_boolean (value));
      });
  /**
   * GstOpenCLHistogram:tensor-meta:
   *
   * Attach each frame's counts to it as a GstTensorMeta (GStreamer analytics): one uint32 tensor
   * of dims [channels, bins], row-major, id `opencl-histogram`. On by default when the plugin
   * was built against gstreamer-analytics-1.0 1.26 or later; without it (GStreamer 1.22, 1.24)
   * off, and setting it warns and attaches nothing.
   */
  properties.add (g_param_spec_boolean ("tensor-meta", "Tensor meta",
      "Attach each frame's counts as a GstTensorMeta (needs GStreamer analytics 1.26)",
      DEFAULT_TENSOR_META, gst_opencl::PROPERTY_PLAYING), store_tensor_meta,
      [] (const GstOpenCLHistogramImpl & impl, GValue * value) {
        g_value_set_boolean (value, impl.settings.tensor_meta);
      }, warn_no_tensor_meta);

  gst_element_class_set_static_metadata (GST_ELEMENT_CLASS (klass), "OpenCL histogram",
      "Filter/Analyzer/Video", "Per-frame histograms on an OpenCL device, posted on the bus "
      "and optionally drawn on the frame", "gst-opencl developers");
  gst_opencl_filter_class_add_pad_templates (filter_class, GST_OPENCL_FILTER_FORMATS, TRUE);

  trans_class->prepare_output_buffer = gst_opencl_histogram_prepare_output_buffer;
  trans_class->sink_event = gst_opencl_histogram_sink_event;
  filter_class->set_info = gst_opencl_histogram_set_info;
  filter_class->process_ip = gst_opencl_histogram_process_ip;
  filter_class->after_frame = gst_opencl_histogram_after_frame;
}
