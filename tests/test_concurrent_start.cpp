/* gst-opencl tests: many pipelines started at the same moment from many threads of one process.
 *
 * Every pipeline has its own OpenCL context (nothing answers the context messages across
 * pipelines), so each start lists the platforms, chooses a device, creates a context and a
 * queue and builds or loads its programs while the others do the same. The first round runs with
 * empty program caches (the plugin's and the driver's), so that the builds overlap too. Every
 * frame of every pipeline is checked against its own CPU reference: a frame of one stream in
 * another, or a failed start, fails the test (docs/reliability.md).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/check/gstcheck.h>
#include <gst/video/video.h>

#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/suite.h"
#include "common/testutil.h"
#include "reference/bilateral_reference.h"
#include "reference/sort_reference.h"

using testutil::Frame;
using testutil::Pattern;

namespace {

/* What one pipeline runs between its appsrc and its appsink. */
enum class Chain { Bilateral, Sort, BilateralSort };

struct Stream
{
  Chain chain = Chain::Bilateral;
  GstVideoFormat format = GST_VIDEO_FORMAT_RGBA;
  int width = 0;
  int height = 0;
  uint32_t seed = 0;
};

const int kFramesPerStream = 2;
const int kBilateralRadius = 2;

std::string
chain_text (Chain chain)
{
  const std::string bilateral = "openclbilateral radius=" + std::to_string (kBilateralRadius);
  switch (chain) {
    case Chain::Bilateral:
      return bilateral;
    case Chain::Sort:
      return "openclsort";
    case Chain::BilateralSort:
      return bilateral + " ! openclsort";
  }
  return "";
}

Frame
expected_output (const Stream & stream, const Frame & input)
{
  const bool gray = stream.format == GST_VIDEO_FORMAT_GRAY8;
  Frame filtered = input;
  if (stream.chain != Chain::Sort) {
    reference::BilateralParams params;
    params.radius = kBilateralRadius;
    reference::bilateral (input.bytes.data (), input.stride, filtered.bytes.data (),
        filtered.stride, input.width, input.height, input.bytes_per_pixel, params);
  }
  if (stream.chain == Chain::Bilateral)
    return filtered;
  return reference::sort_pixels (filtered, gray, false, reference::PixelKey::Luma, false, false);
}

/* All threads wait here, then start their pipelines together. */
class StartGate
{
public:
  explicit StartGate (int count) : waiting_ (count) {}

  void arrive_and_wait ()
  {
    std::unique_lock<std::mutex> held (lock_);
    if (--waiting_ == 0)
      opened_.notify_all ();
    else
      opened_.wait (held, [this] { return waiting_ == 0; });
  }

private:
  std::mutex lock_;
  std::condition_variable opened_;
  int waiting_;
};

/* The first error on the pipeline's bus, or "". */
std::string
bus_error (GstElement * pipeline)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *message = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  gst_object_unref (bus);
  if (!message)
    return "";
  std::string text = testutil::message_text (message);
  gst_message_unref (message);
  return text;
}

/* Runs one stream; "" when every frame matched its reference, else what went wrong. Called
 * from several threads at once: it must not call check's fail macros. */
std::string
run_stream (const Stream & stream, StartGate & gate)
{
  const std::string caps = std::string ("video/x-raw,format=") +
      gst_video_format_to_string (stream.format) + ",width=" + std::to_string (stream.width) +
      ",height=" + std::to_string (stream.height) + ",framerate=30/1";
  const std::string launch = "appsrc name=src format=time caps=" + caps + " ! " +
      chain_text (stream.chain) + " ! appsink name=sink sync=false";
  GError *parse_error = nullptr;
  GstElement *pipeline = gst_parse_launch (launch.c_str (), &parse_error);
  if (!pipeline) {
    std::string text = parse_error ? parse_error->message : "no pipeline";
    g_clear_error (&parse_error);
    gate.arrive_and_wait ();
    return "cannot make \"" + launch + "\": " + text;
  }
  GstElement *src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  GstVideoInfo info;
  gst_video_info_set_format (&info, stream.format, stream.width, stream.height);

  gate.arrive_and_wait ();
  std::string failure;
  if (gst_element_set_state (pipeline, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE)
    failure = "cannot start: " + bus_error (pipeline);

  for (int i = 0; i < kFramesPerStream && failure.empty (); i++) {
    Frame input = testutil::filled (Frame (stream.width, stream.height,
            GST_VIDEO_INFO_COMP_PSTRIDE (&info, 0)), Pattern::Random, stream.seed + i);
    GstBuffer *buffer = testutil::to_buffer (input, stream.format);
    GST_BUFFER_PTS (buffer) = i * GST_SECOND / 30;
    if (gst_app_src_push_buffer (GST_APP_SRC (src), buffer) != GST_FLOW_OK) {
      failure = "frame " + std::to_string (i) + " refused: " + bus_error (pipeline);
      break;
    }
    GstSample *sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink), 120 * GST_SECOND);
    if (!sample) {
      failure = "no output for frame " + std::to_string (i) + ": " + bus_error (pipeline);
      break;
    }
    Frame actual = testutil::from_buffer (gst_sample_get_buffer (sample), &info);
    gst_sample_unref (sample);
    const std::vector<int> tolerance = input.bytes_per_pixel == 4 ?
        std::vector<int> { 1, 1, 1, 0 } : std::vector<int> { 1 };
    auto difference = testutil::compare (actual, expected_output (stream, input), tolerance);
    if (difference.over != 0)
      failure = "frame " + std::to_string (i) + ": " + testutil::describe (difference);
  }
  if (failure.empty ()) {
    std::string error = bus_error (pipeline);
    if (!error.empty ())
      failure = "error on the bus: " + error;
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (src);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  if (failure.empty ())
    return "";
  return std::string (gst_video_format_to_string (stream.format)) + " " +
      std::to_string (stream.width) + "x" + std::to_string (stream.height) + " \"" +
      chain_text (stream.chain) + "\": " + failure;
}

/* Starts `streams` at once, one thread each, and fails with every stream's failure. */
void
run_round (const std::vector<Stream> & streams, int round)
{
  StartGate gate ((int) streams.size ());
  std::vector<std::string> failures (streams.size ());
  std::vector<std::thread> threads;
  for (size_t i = 0; i < streams.size (); i++)
    threads.emplace_back ([&, i] { failures[i] = run_stream (streams[i], gate); });
  for (auto & thread : threads)
    thread.join ();
  std::string report;
  for (size_t i = 0; i < failures.size (); i++) {
    if (!failures[i].empty ())
      report += "\n  stream " + std::to_string (i) + ": " + failures[i];
  }
  fail_unless (report.empty (), "round %d:%s", round, report.c_str ());
}

/* Streams of every chain on RGBA and GRAY8, of different sizes, each with its own frames. */
std::vector<Stream>
streams_of_round (int count, int round)
{
  const Chain chains[] = { Chain::Bilateral, Chain::Sort, Chain::BilateralSort };
  std::vector<Stream> streams;
  for (int i = 0; i < count; i++) {
    Stream stream;
    stream.chain = chains[i % 3];
    stream.format = (i / 3) % 2 == 0 ? GST_VIDEO_FORMAT_RGBA : GST_VIDEO_FORMAT_GRAY8;
    stream.width = 24 + 8 * i;
    stream.height = 16 + 4 * (i % 5);
    stream.seed = (uint32_t) (1000 * round + 10 * i + 1);
    streams.push_back (stream);
  }
  return streams;
}

/* A fresh, empty folder for this process's caches: the plugin's programs and PoCL's kernels. */
void
use_empty_caches ()
{
  gchar *dir = g_dir_make_tmp ("gst-opencl-concurrent-XXXXXX", nullptr);
  fail_unless (dir != nullptr);
  g_setenv ("XDG_CACHE_HOME", dir, TRUE);
  gchar *pocl = g_build_filename (dir, "pocl", nullptr);
  g_setenv ("POCL_CACHE_DIR", pocl, TRUE);
  g_free (pocl);
  g_free (dir);
}

int
env_int (const char *name, int fallback)
{
  const char *text = g_getenv (name);
  return text && *text ? std::atoi (text) : fallback;
}

}  // namespace

/* Twenty rounds of eight pipelines (GST_OPENCL_TEST_START_ROUNDS, _STREAMS), the first with
 * empty caches. Before the driver lock, PoCL crashed in 3 of 4 runs of two pipelines. */
GST_START_TEST (test_pipelines_start_together)
{
  use_empty_caches ();
  const int rounds = env_int ("GST_OPENCL_TEST_START_ROUNDS", 20);
  const int streams = env_int ("GST_OPENCL_TEST_START_STREAMS", 8);
  for (int round = 0; round < rounds; round++)
    run_round (streams_of_round (streams, round), round);
}

GST_END_TEST;

/* Elements created and set to PAUSED from many threads at once, with no pipeline around them:
 * each opens its device in start () at the same moment. */
GST_START_TEST (test_elements_open_together)
{
  const char *factories[] = { "openclbilateral", "openclsort", "openclhistogram",
    "openclconvolve3d", "openclmulticonvolve", "openclmandelboxsrc", "openclupload",
    "opencldownload",
  };
  const int count = G_N_ELEMENTS (factories);
  StartGate gate (count);
  std::vector<std::string> failures (count);
  std::vector<std::thread> threads;
  for (int i = 0; i < count; i++) {
    threads.emplace_back ([&, i] {
          GstElement *element = gst_element_factory_make (factories[i], nullptr);
          gate.arrive_and_wait ();
          if (!element) {
            failures[i] = "no element";
            return;
          }
          if (gst_element_set_state (element, GST_STATE_PAUSED) == GST_STATE_CHANGE_FAILURE)
            failures[i] = "PAUSED failed";
          gchar *name = nullptr;
          g_object_get (element, "device-name", &name, nullptr);
          if (failures[i].empty () && (!name || !*name))
            failures[i] = "no device-name in PAUSED";
          g_free (name);
          gst_element_set_state (element, GST_STATE_NULL);
          gst_object_unref (element);
        });
  }
  for (auto & thread : threads)
    thread.join ();
  for (int i = 0; i < count; i++)
    fail_unless (failures[i].empty (), "%s: %s", factories[i], failures[i].c_str ());
}

GST_END_TEST;

static Suite *
concurrent_start_suite (void)
{
  return TESTUTIL_SUITE ("concurrent-start", 0, test_pipelines_start_together,
      test_elements_open_together);
}

GST_CHECK_MAIN (concurrent_start);
