/* gst-opencl tests: the frame path of system-memory pipelines. Frames from the pools the plugin
 * offers are what the device reads (no host copy on a device that shares the host's memory),
 * nothing waits per frame, and the results are those of the plain path (every frame copied in
 * and out, GST_OPENCL_HOST_FRAMES=0) bit for bit, through flushing seeks, EOS, pauses and a
 * slow sink. The pinned path of discrete devices is run too (GST_OPENCL_ZERO_COPY=0). */
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/check/gstcheck.h>

#include <string>
#include <thread>
#include <vector>

#include "common/suite.h"
#include "common/testutil.h"

namespace {

struct Frame
{
  GstClockTime pts;
  std::vector<guint8> bytes;
  bool opencl_memory;
};

void
transfer_totals (guint64 * to_device, guint64 * to_host)
{
  testutil::plugin_transfer_totals (to_device, to_host);
}

/* The environment a run is made in: which frame path the plugin takes. */
struct Mode
{
  const char *name;
  const char *host_frames;  /* GST_OPENCL_HOST_FRAMES */
  const char *zero_copy;    /* GST_OPENCL_ZERO_COPY */
  const char *transfer_queues = "1";  /* GST_OPENCL_TRANSFER_QUEUES */
  const char *transfer_order = "host";  /* GST_OPENCL_TRANSFER_ORDER */
};

const Mode PLAIN { "plain copies", "0", "1" };
const Mode ZERO_COPY { "pool, zero copy", "1", "1" };
/* Copies on their own queues, ordered with the kernels by events. */
const Mode PINNED { "pool, pinned copies", "1", "0" };
const Mode ONE_QUEUE { "pool, pinned copies on the kernels' queue", "1", "0", "0" };
/* Copies on their own queues ordered by wait lists alone. */
const Mode EVENTS { "pool, pinned copies ordered by events", "1", "0", "1", "events" };

std::string
source (int frames)
{
  return "videotestsrc pattern=ball num-buffers=" + std::to_string (frames) +
      " ! video/x-raw,format=RGBA,width=96,height=64,framerate=30/1";
}

Frame
take (GstSample * sample)
{
  GstBuffer *buffer = gst_sample_get_buffer (sample);
  Frame frame;
  frame.pts = GST_BUFFER_PTS (buffer);
  GstMemory *memory = gst_buffer_peek_memory (buffer, 0);
  frame.opencl_memory = g_strcmp0 (memory->allocator->mem_type, "OpenCLMemory") == 0;
  GstMapInfo map;
  fail_unless (gst_buffer_map (buffer, &map, GST_MAP_READ));
  frame.bytes.assign (map.data, map.data + map.size);
  gst_buffer_unmap (buffer, &map);
  gst_sample_unref (sample);
  return frame;
}

void
set_mode (const Mode & mode)
{
  g_setenv ("GST_OPENCL_HOST_FRAMES", mode.host_frames, TRUE);
  g_setenv ("GST_OPENCL_ZERO_COPY", mode.zero_copy, TRUE);
  g_setenv ("GST_OPENCL_TRANSFER_QUEUES", mode.transfer_queues, TRUE);
  g_setenv ("GST_OPENCL_TRANSFER_ORDER", mode.transfer_order, TRUE);
}

/* Runs `description` (ending in appsink name=sink) to EOS and returns every frame. With
 * `slow_sink`, the sink holds each frame for a few milliseconds first. */
std::vector<Frame>
run (const Mode & mode, const std::string & description, bool slow_sink = false)
{
  set_mode (mode);
  GstElement *pipeline = testutil::parse_pipeline (description);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  fail_unless_equals_int (gst_element_set_state (pipeline, GST_STATE_PLAYING),
      GST_STATE_CHANGE_ASYNC);
  std::vector<Frame> frames;
  while (GstSample * sample = gst_app_sink_pull_sample (GST_APP_SINK (sink))) {
    if (slow_sink)
      std::this_thread::sleep_for (std::chrono::milliseconds (4));
    frames.push_back (take (sample));
  }
  fail_unless (gst_app_sink_is_eos (GST_APP_SINK (sink)), "%s: no EOS", mode.name);
  testutil::expect_no_error (pipeline);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  return frames;
}

void
expect_same_frames (const std::vector<Frame> & expected, const std::vector<Frame> & got,
    const std::string & label)
{
  fail_unless_equals_int (got.size (), expected.size ());
  for (size_t i = 0; i < got.size (); i++) {
    fail_unless_equals_uint64 (got[i].pts, expected[i].pts);
    fail_unless (got[i].bytes == expected[i].bytes, "%s: frame %zu differs from the plain "
        "path's", label.c_str (), i);
  }
}

const char *ELEMENTS[] = {
  "openclbilateral radius=3 sigma-range=40",
  "openclhistogram draw=true",
  "openclconvolve3d",
  "openclsort key=luma",
};

}  // namespace

/* Every element, through each frame path: the same frames as copying each frame in and out. */
GST_START_TEST (test_paths_give_the_same_frames)
{
  for (const char *element : ELEMENTS) {
    const std::string description = source (6) + " ! " + element +
        " ! appsink name=sink sync=false";
    auto plain = run (PLAIN, description);
    fail_unless_equals_int (plain.size (), 6);
    for (const Mode *mode : { &ZERO_COPY, &PINNED, &ONE_QUEUE, &EVENTS }) {
      auto frames = run (*mode, description);
      expect_same_frames (plain, frames, std::string (element) + ", " + mode->name);
    }
  }
}
GST_END_TEST;

/* Two filters with queues between them and before the sink: each element and the sink on its
 * own thread, so uploads, kernels and downloads of different frames are in flight at once (on
 * the transfer queues where the device has them). Every frame equals the plain path's. */
GST_START_TEST (test_threads_overlap_copies_and_kernels)
{
  const std::string chain = source (16) + " ! openclbilateral ! queue max-size-buffers=3 ! "
      "video/x-raw,format=RGBA ! openclbilateral radius=2 ! queue max-size-buffers=3";
  auto plain = run (PLAIN, chain + " ! appsink name=sink sync=false");
  fail_unless_equals_int (plain.size (), 16);
  for (const Mode *mode : { &ZERO_COPY, &PINNED, &ONE_QUEUE, &EVENTS }) {
    expect_same_frames (plain, run (*mode, chain + " ! appsink name=sink sync=false"),
        std::string ("threads, ") + mode->name);
    expect_same_frames (plain, run (*mode, chain + " ! appsink name=sink sync=false "
            "max-buffers=1", true), std::string ("threads, slow sink, ") + mode->name);
  }
}
GST_END_TEST;

/* A chain of pool frames on a device that shares the host's memory: nothing is copied between
 * host and device, and the frames reaching the sink are the plugin's memory. With pinned copies
 * each frame goes up once and down once (the sink maps it). */
GST_START_TEST (test_pool_frames_are_not_copied)
{
  const int frames = 5;
  const gsize frame_bytes = 96 * 64 * 4;
  const std::string description = source (frames) +
      " ! openclbilateral ! openclbilateral ! appsink name=sink sync=false";
  g_setenv ("GST_OPENCL_COUNT_TRANSFERS", "1", TRUE);

  guint64 up_before, down_before, up, down;
  transfer_totals (&up_before, &down_before);
  auto zero_copy = run (ZERO_COPY, description);
  transfer_totals (&up, &down);
  fail_unless_equals_int (zero_copy.size (), frames);
  for (const auto & frame : zero_copy)
    fail_unless (frame.opencl_memory, "the sink got a frame that is not the plugin's memory");
  if (testutil::device_shares_host_memory ()) {
    fail_unless_equals_uint64 (up - up_before, 0);
    fail_unless_equals_uint64 (down - down_before, 0);
  }

  transfer_totals (&up_before, &down_before);
  auto pinned = run (PINNED, description);
  transfer_totals (&up, &down);
  fail_unless_equals_uint64 (up - up_before, frames * frame_bytes);
  fail_unless_equals_uint64 (down - down_before, frames * frame_bytes);
  expect_same_frames (zero_copy, pinned, "pinned");
  g_unsetenv ("GST_OPENCL_COUNT_TRANSFERS");
}
GST_END_TEST;

/* Pushes `count` RGBA 96x64 frames (the same pixels each run) through
 * "appsrc ! openclbilateral ! appsink", each buffer's data starting `offset` bytes after a
 * multiple of the device's base alignment, and returns what came out. */
std::vector<Frame>
run_foreign_frames (int count, gsize offset)
{
  set_mode (ZERO_COPY);
  GstElement *pipeline = testutil::parse_pipeline ("appsrc name=src format=time "
      "caps=video/x-raw,format=RGBA,width=96,height=64,framerate=30/1 ! "
      "openclbilateral radius=3 sigma-range=40 ! appsink name=sink sync=false");
  GstElement *src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  const gsize bytes = 96 * 64 * 4;
  const guint align = testutil::default_device_base_align_bytes ();
  fail_unless ((align & (align - 1)) == 0, "a base alignment of %u bytes", align);
  GstAllocationParams params;
  gst_allocation_params_init (&params);
  params.align = align - 1;
  for (int i = 0; i < count; i++) {
    GstBuffer *buffer = gst_buffer_new_allocate (nullptr, bytes + offset, &params);
    gst_buffer_resize (buffer, (gssize) offset, (gssize) bytes);
    GstMapInfo map;
    fail_unless (gst_buffer_map (buffer, &map, GST_MAP_WRITE));
    fail_unless_equals_uint64 ((guintptr) map.data % align, offset);
    for (gsize b = 0; b < bytes; b++)
      map.data[b] = (guint8) ((b * 7 + (b / 384) * 13 + i * 29) & 0xff);
    gst_buffer_unmap (buffer, &map);
    GST_BUFFER_PTS (buffer) = i * GST_SECOND / 30;
    GST_BUFFER_DURATION (buffer) = GST_SECOND / 30;
    fail_unless_equals_int (gst_app_src_push_buffer (GST_APP_SRC (src), buffer), GST_FLOW_OK);
  }
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  std::vector<Frame> frames;
  while (GstSample * sample = gst_app_sink_pull_sample (GST_APP_SINK (sink)))
    frames.push_back (take (sample));
  testutil::expect_no_error (pipeline);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (src);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  return frames;
}

/* Frames the application made (appsrc): where the device works on the host's memory and a frame
 * starts at the device's base alignment, the kernels use it in place (nothing copied); a
 * misaligned frame is copied in; both give the same output. */
GST_START_TEST (test_aligned_foreign_frames_are_not_copied)
{
  const int count = 4;
  const gsize frame_bytes = 96 * 64 * 4;
  g_setenv ("GST_OPENCL_COUNT_TRANSFERS", "1", TRUE);
  guint64 up_before, down_before, up, down;
  transfer_totals (&up_before, &down_before);
  auto aligned = run_foreign_frames (count, 0);
  transfer_totals (&up, &down);
  const guint64 aligned_up = up - up_before;
  transfer_totals (&up_before, &down_before);
  auto misaligned = run_foreign_frames (count, 1);
  transfer_totals (&up, &down);
  const guint64 misaligned_up = up - up_before;
  fail_unless_equals_int (aligned.size (), count);
  expect_same_frames (misaligned, aligned, "aligned foreign frames");
  fail_unless_equals_uint64 (misaligned_up, count * frame_bytes);
  const guint64 expected_up = testutil::device_shares_host_memory () ? 0 : count * frame_bytes;
  fail_unless_equals_uint64 (aligned_up, expected_up);
  g_unsetenv ("GST_OPENCL_COUNT_TRANSFERS");
}
GST_END_TEST;

/* A sink slower than the device: frames still leave in order, every one correct. */
GST_START_TEST (test_slow_sink_keeps_order)
{
  const std::string description = source (12) +
      " ! openclbilateral ! appsink name=sink sync=false max-buffers=1";
  auto plain = run (PLAIN, description);
  for (const Mode *mode : { &ZERO_COPY, &PINNED, &ONE_QUEUE })
    expect_same_frames (plain, run (*mode, description, true), mode->name);
}
GST_END_TEST;

/* Frames in flight across a flushing seek and pauses: after the seek the first frame is the one
 * sought, later ones follow in order, and each equals the plain path's frame of that time. */
GST_START_TEST (test_seek_and_pause_in_flight)
{
  const std::string description = source (30) +
      " ! openclbilateral ! appsink name=sink sync=true max-buffers=2";
  auto plain = run (PLAIN, source (30) + " ! openclbilateral ! appsink name=sink sync=false");
  for (const Mode *mode : { &ZERO_COPY, &PINNED }) {
    set_mode (*mode);
    GstElement *pipeline = testutil::parse_pipeline (description);
    GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
    gst_element_set_state (pipeline, GST_STATE_PLAYING);
    std::vector<Frame> frames;
    for (int i = 0; i < 4; i++)
      frames.push_back (take (gst_app_sink_pull_sample (GST_APP_SINK (sink))));
    gst_element_set_state (pipeline, GST_STATE_PAUSED);
    gst_element_get_state (pipeline, nullptr, nullptr, GST_CLOCK_TIME_NONE);
    const GstClockTime target = plain[20].pts;
    fail_unless (gst_element_seek_simple (pipeline, GST_FORMAT_TIME,
            (GstSeekFlags) (GST_SEEK_FLAG_FLUSH | GST_SEEK_FLAG_ACCURATE), target));
    gst_element_get_state (pipeline, nullptr, nullptr, GST_CLOCK_TIME_NONE);
    gst_element_set_state (pipeline, GST_STATE_PLAYING);
    for (int i = 0; i < 10; i++) {
      GstSample *sample = gst_app_sink_pull_sample (GST_APP_SINK (sink));
      fail_unless (sample != nullptr, "%s: the stream ended %d frames after the seek",
          mode->name, i);
      frames.push_back (take (sample));
    }
    testutil::expect_no_error (pipeline);
    gst_element_set_state (pipeline, GST_STATE_NULL);
    gst_object_unref (sink);
    gst_object_unref (pipeline);

    fail_unless_equals_int (frames.size (), 4 + 10);
    for (size_t i = 0; i < frames.size (); i++) {
      const size_t index = i < 4 ? i : 20 + (i - 4);
      fail_unless_equals_uint64 (frames[i].pts, plain[index].pts);
      fail_unless (frames[i].bytes == plain[index].bytes, "%s: frame %zu (source frame %zu) "
          "differs from the plain path's", mode->name, i, index);
    }
  }
}
GST_END_TEST;

/* openclhistogram's counts in flight across pauses, a flushing seek and EOS: no frame is
 * lost or reported twice or out of order. Before the seek, messages for the frames from the
 * first on, in order, with nothing of the sought part; after it, one message for each frame
 * from the sought one on, in order, to the last one played, all on the bus before EOS. */
GST_START_TEST (test_histogram_counts_across_seek_and_eos)
{
  const std::string description = source (30) +
      " ! openclhistogram ! appsink name=sink sync=true max-buffers=2";
  for (const Mode *mode : { &ZERO_COPY, &PINNED }) {
    set_mode (*mode);
    GstElement *pipeline = testutil::parse_pipeline (description);
    GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
    GstBus *bus = gst_element_get_bus (pipeline);
    gst_element_set_state (pipeline, GST_STATE_PLAYING);
    for (int i = 0; i < 4; i++)
      gst_sample_unref (gst_app_sink_pull_sample (GST_APP_SINK (sink)));
    gst_element_set_state (pipeline, GST_STATE_PAUSED);
    gst_element_get_state (pipeline, nullptr, nullptr, GST_CLOCK_TIME_NONE);
    auto pts_of = [](guint64 n) { return gst_util_uint64_scale (n, GST_SECOND, 30); };
    const GstClockTime target = pts_of (20);
    fail_unless (gst_element_seek_simple (pipeline, GST_FORMAT_TIME,
            (GstSeekFlags) (GST_SEEK_FLAG_FLUSH | GST_SEEK_FLAG_ACCURATE), target));
    gst_element_get_state (pipeline, nullptr, nullptr, GST_CLOCK_TIME_NONE);
    gst_element_set_state (pipeline, GST_STATE_PLAYING);
    std::vector<GstClockTime> played;
    while (GstSample *sample = gst_app_sink_pull_sample (GST_APP_SINK (sink))) {
      played.push_back (GST_BUFFER_PTS (gst_sample_get_buffer (sample)));
      gst_sample_unref (sample);
    }
    /* The sought frame is the one that holds `target`. */
    fail_unless (played.size () >= 10 && played[0] <= target && played[0] > pts_of (18),
        "%s: %zu frames after the seek, the first at %" GST_TIME_FORMAT, mode->name,
        played.size (), GST_TIME_ARGS (played.empty () ? 0 : played[0]));
    /* Every message is on the bus before EOS. */
    std::vector<GstClockTime> stamps;
    bool eos = false;
    while (GstMessage *message = gst_bus_timed_pop (bus, eos ? 0 : 10 * GST_SECOND)) {
      const GstStructure *s = gst_message_get_structure (message);
      fail_if (GST_MESSAGE_TYPE (message) == GST_MESSAGE_ERROR, "%s: an error", mode->name);
      if (GST_MESSAGE_TYPE (message) == GST_MESSAGE_EOS)
        eos = true;
      if (GST_MESSAGE_TYPE (message) == GST_MESSAGE_ELEMENT && s &&
          gst_structure_has_name (s, "opencl-histogram")) {
        fail_if (eos, "%s: a histogram message after EOS", mode->name);
        guint64 timestamp = 0;
        guint frames = 0;
        fail_unless (gst_structure_get_uint64 (s, "timestamp", &timestamp));
        fail_unless (gst_structure_get_uint (s, "frames", &frames));
        fail_unless_equals_int (frames, 1);
        stamps.push_back (timestamp);
      }
      gst_message_unref (message);
    }
    fail_unless (eos, "%s: no EOS on the bus", mode->name);
    gst_element_set_state (pipeline, GST_STATE_NULL);
    gst_object_unref (bus);
    gst_object_unref (sink);
    gst_object_unref (pipeline);

    /* Before the seek: frames 0, 1, 2, ... (those processed before the pause). */
    size_t i = 0;
    for (; i < stamps.size () && stamps[i] < pts_of (18); i++)
      fail_unless_equals_uint64 (stamps[i], pts_of (i));
    fail_unless (i >= 4, "%s: %zu messages before the seek, 4 frames were played", mode->name,
        i);
    /* After it, consecutive frames from the sought one (or the one before, which the sink
     * clipped) to the last one played. */
    fail_unless (i < stamps.size () && stamps[i] <= played[0], "%s: no message for the first "
        "frame after the seek", mode->name);
    const guint64 first_frame = gst_util_uint64_scale_round (stamps[i], 30, GST_SECOND);
    for (size_t k = i; k < stamps.size (); k++)
      fail_unless_equals_uint64 (stamps[k], pts_of (first_frame + (k - i)));
    fail_unless_equals_uint64 (stamps.back (), played.back ());
  }
}
GST_END_TEST;

/* What one run of `frames` frames through openclbilateral launched: kernels in all, kernels with
 * a profiling event, the frames' bytes, the device's name, and the kernel-time read after the
 * run. With `read_each_frame`, a probe reads `kernel-time` as each frame leaves the element. */
struct LaunchRun
{
  guint64 launches = 0, with_events = 0, kernel_time = 0;
  std::vector<Frame> frames;
  std::string device_name;
};

static GstPadProbeReturn
read_kernel_time (GstPad *, GstPadProbeInfo *, gpointer element)
{
  guint64 ns = 0;
  g_object_get (element, "kernel-time", &ns, nullptr);
  return GST_PAD_PROBE_OK;
}

static LaunchRun
run_launches (int frames, bool read_each_frame)
{
  set_mode (ZERO_COPY);
  GstElement *pipeline = testutil::parse_pipeline (source (frames) +
      " ! openclbilateral name=f ! appsink name=sink sync=false");
  GstElement *filter = gst_bin_get_by_name (GST_BIN (pipeline), "f");
  if (read_each_frame) {
    GstPad *pad = gst_element_get_static_pad (filter, "src");
    gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, read_kernel_time, filter, nullptr);
    gst_object_unref (pad);
  }
  LaunchRun run;
  guint64 launches_before, events_before;
  testutil::plugin_launch_totals (&launches_before, &events_before);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  while (GstSample * sample = gst_app_sink_pull_sample (GST_APP_SINK (sink)))
    run.frames.push_back (take (sample));
  gst_object_unref (sink);
  testutil::expect_no_error (pipeline);
  testutil::plugin_launch_totals (&run.launches, &run.with_events);
  run.launches -= launches_before;
  run.with_events -= events_before;
  run.device_name = testutil::string_property (filter, "device-name");
  g_object_get (filter, "kernel-time", &run.kernel_time, nullptr);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (filter);
  gst_object_unref (pipeline);
  return run;
}

/* Profiling events only where kernel-time needs them: a pipeline that never reads it launches
 * one frame in 8 with events (each event costs NVIDIA's driver about 6 us of host time per
 * launch); one that reads it as each frame leaves the element times every frame. Both give the
 * same frames, and kernel-time holds a figure either way. Where the device's waits need an
 * event per kernel (Mesa's rusticl answers a kernel's status only once it ends) every launch
 * has one. */
GST_START_TEST (test_events_only_when_kernel_time_is_read)
{
  g_setenv ("GST_OPENCL_COUNT_TRANSFERS", "1", TRUE);
  const int frames = 40;
  const LaunchRun unread = run_launches (frames, false);
  const LaunchRun read = run_launches (frames, true);
  g_unsetenv ("GST_OPENCL_COUNT_TRANSFERS");
  fail_unless_equals_int (unread.frames.size (), frames);
  expect_same_frames (unread.frames, read.frames, "kernel-time read each frame");
  /* One bilateral kernel per RGBA frame. */
  fail_unless_equals_uint64 (unread.launches, frames);
  fail_unless_equals_uint64 (read.launches, frames);
  fail_unless_equals_uint64 (read.with_events, frames);
  const bool events_always = testutil::contains (unread.device_name, "rusticl");
  fail_unless_equals_uint64 (unread.with_events, events_always ? frames : frames / 8);
  fail_unless (unread.kernel_time > 0, "kernel-time is 0 with frames timed one in 8");
  fail_unless (read.kernel_time > 0, "kernel-time is 0 with every frame timed");
}
GST_END_TEST;

static Suite *
frame_path_suite (void)
{
  return TESTUTIL_SUITE ("frame-path", 600,
      test_paths_give_the_same_frames, test_pool_frames_are_not_copied,
      test_aligned_foreign_frames_are_not_copied,
      test_slow_sink_keeps_order, test_threads_overlap_copies_and_kernels,
      test_seek_and_pause_in_flight, test_histogram_counts_across_seek_and_eos,
      test_events_only_when_kernel_time_is_read);
}

GST_CHECK_MAIN (frame_path);
