/* gst-opencl tests: every video element on real media. A short clip is encoded when the test
 * runs (VP8 in WebM), decoded through decodebin, uridecodebin and playbin into each element, and
 * every output is compared with the element's CPU reference applied to the same clip decoded
 * without the element, frame by frame, matched by timestamp, with the tolerances of the
 * element's own suite. A flushing, accurate seek into the middle of the clip must resume at the
 * seek position with the frames decoded there.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include <gst/app/gstappsink.h>
#include <gst/check/gstcheck.h>
#include <gst/video/video.h>

#include <glib/gstdio.h>

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/suite.h"
#include "common/element_checks.h"
#include "common/reliability.h"
#include "common/testutil.h"
#include "reference/bilateral_reference.h"
#include "reference/convolution_reference.h"
#include "reference/histogram_reference.h"
#include "reference/sort_reference.h"

using testutil::Frame;

namespace {

constexpr int CLIP_WIDTH = 160;
constexpr int CLIP_HEIGHT = 96;
constexpr int CLIP_FRAMES = 24;
/* 40 ms a frame: whole milliseconds, the unit of WebM's timestamps, so decoded timestamps are
 * exactly n x 40 ms. */
constexpr int CLIP_FPS = 25;
constexpr GstClockTime FRAME_NS = GST_SECOND / CLIP_FPS;
/* Key frames every 10 frames: an accurate seek to frame 12 decodes from frame 10 and the
 * decoder drops frames 10 and 11. */
constexpr int SEEK_FRAME = 12;

const char *const needed_factories[] = {
  "vp8enc", "webmmux", "vp8dec", "matroskademux", "decodebin", "uridecodebin", "playbin",
  "appsink",
};

bool
have_codecs ()
{
  for (const char *name : needed_factories) {
    if (GstElementFactory *factory = gst_element_factory_find (name)) {
      gst_object_unref (factory);
      continue;
    }
    g_printerr ("no %s: media checks skipped\n", name);
    return false;
  }
  return true;
}

/* The clip: SMPTE bars moving sideways (a picture that changes every frame, with flat areas,
 * edges and the encoder's ringing), in a temporary folder removed with it. */
struct Clip
{
  std::string dir;
  std::string path;

  Clip ()
  {
    gchar *made = g_dir_make_tmp ("gst-opencl-media-XXXXXX", nullptr);
    fail_unless (made != nullptr);
    dir = made;
    g_free (made);
    path = dir + "/clip.webm";
    const std::string error = testutil::run_pipeline ("videotestsrc num-buffers=" +
        std::to_string (CLIP_FRAMES) + " pattern=smpte horizontal-speed=3 ! "
        "video/x-raw,format=I420,width=" + std::to_string (CLIP_WIDTH) + ",height=" +
        std::to_string (CLIP_HEIGHT) + ",framerate=" + std::to_string (CLIP_FPS) + "/1 ! "
        "vp8enc deadline=1 threads=1 keyframe-max-dist=10 ! webmmux ! "
        "filesink location=\"" + path + "\"");
    fail_unless (error.empty (), "encoding the clip: %s", error.c_str ());
  }
  ~Clip ()
  {
    g_remove (path.c_str ());
    g_rmdir (dir.c_str ());
  }
  std::string uri () const
  {
    gchar *text = gst_filename_to_uri (path.c_str (), nullptr);
    std::string result = text;
    g_free (text);
    return result;
  }
  /* The clip decoded and converted to `format`, as the start of a launch line. */
  std::string decoded (const char *format) const
  {
    return "filesrc location=\"" + path + "\" ! decodebin ! videoconvert ! "
        "video/x-raw,format=" + format;
  }
};

using Sample = std::shared_ptr<GstSample>;
using Message = std::shared_ptr<GstMessage>;

/* What reached the appsink of a pipeline, in order, the element messages on its bus, and its
 * first error ("" when it reached EOS). */
struct Run
{
  std::vector<Sample> samples;
  std::vector<Message> messages;
  std::string error;
};

/* Plays `pipeline` (taken over) to its end, pulling every sample from `sink`. With a valid
 * `seek_to`, the pipeline prerolls first and seeks there (flushing, accurate). */
Run
play (GstElement * pipeline, GstElement * sink, GstClockTime seek_to = GST_CLOCK_TIME_NONE)
{
  Run run;
  GstBus *bus = gst_element_get_bus (pipeline);
  bool ended = false;
  /* Keeps element messages, notes the error; true at EOS or an error. */
  auto take = [&run](GstMessage * message) {
    const GstMessageType type = GST_MESSAGE_TYPE (message);
    if (type == GST_MESSAGE_ERROR && run.error.empty ())
      run.error = testutil::message_text (message);
    if (type == GST_MESSAGE_ELEMENT)
      run.messages.emplace_back (message, [](GstMessage * m) { gst_message_unref (m); });
    else
      gst_message_unref (message);
    return type == GST_MESSAGE_EOS || type == GST_MESSAGE_ERROR;
  };
  if (GST_CLOCK_TIME_IS_VALID (seek_to)) {
    gst_element_set_state (pipeline, GST_STATE_PAUSED);
    if (gst_element_get_state (pipeline, nullptr, nullptr, 60 * GST_SECOND) !=
        GST_STATE_CHANGE_SUCCESS) {
      while (GstMessage *message = gst_bus_pop (bus))
        take (message);
      fail ("the pipeline did not preroll: %s", run.error.c_str ());
    }
    fail_unless (gst_element_seek_simple (pipeline, GST_FORMAT_TIME,
            (GstSeekFlags) (GST_SEEK_FLAG_FLUSH | GST_SEEK_FLAG_ACCURATE), seek_to),
        "the seek to %" GST_TIME_FORMAT " was refused", GST_TIME_ARGS (seek_to));
  }
  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  const gint64 deadline_us = g_get_monotonic_time () + 120 * G_USEC_PER_SEC;
  auto keep = [&run](GstSample * sample) {
    run.samples.emplace_back (sample, [](GstSample * s) { gst_sample_unref (s); });
  };
  while (!ended) {
    if (GstSample *sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink),
            20 * GST_MSECOND)) {
      keep (sample);
      continue;
    }
    GstMessage *message = nullptr;
    while (!ended && (message = gst_bus_pop (bus)) != nullptr)
      ended = take (message);
    fail_unless (g_get_monotonic_time () < deadline_us, "no EOS after 120 s");
  }
  /* Samples still queued when EOS was posted. */
  if (run.error.empty ())
    while (GstSample *sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink), 0))
      keep (sample);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipeline);
  return run;
}

/* Plays a launch line that ends in "appsink name=sink". */
Run
play (const std::string & launch_line, GstClockTime seek_to = GST_CLOCK_TIME_NONE)
{
  GstElement *pipeline = testutil::parse_pipeline (launch_line);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  fail_unless (sink != nullptr);
  Run run = play (pipeline, sink, seek_to);
  gst_object_unref (sink);
  fail_unless (run.error.empty (), "%s: %s", launch_line.c_str (), run.error.c_str ());
  return run;
}

const char *const APPSINK = " ! appsink name=sink sync=false";

GstVideoInfo
video_info (const Sample & sample)
{
  GstVideoInfo info;
  fail_unless (gst_video_info_from_caps (&info, gst_sample_get_caps (sample.get ())));
  return info;
}

GstClockTime
pts (const Sample & sample)
{
  return GST_BUFFER_PTS (gst_sample_get_buffer (sample.get ()));
}

/* Frames by timestamp. */
using Frames = std::map<GstClockTime, Frame>;

/* The clip decoded without any element of ours (the elements' inputs), after checking that it
 * is the clip: every frame, 40 ms apart from 0, the picture moving. */
Frames
decoded_frames (const Clip & clip, const char *format)
{
  Run run = play (clip.decoded (format) + APPSINK);
  fail_unless_equals_int (run.samples.size (), CLIP_FRAMES);
  Frames frames;
  for (size_t n = 0; n < run.samples.size (); n++) {
    const GstClockTime time = pts (run.samples[n]);
    fail_unless_equals_uint64 (time, n * FRAME_NS);
    GstVideoInfo info = video_info (run.samples[n]);
    fail_unless_equals_int (GST_VIDEO_INFO_WIDTH (&info), CLIP_WIDTH);
    fail_unless_equals_int (GST_VIDEO_INFO_HEIGHT (&info), CLIP_HEIGHT);
    frames.emplace (time, testutil::from_buffer (gst_sample_get_buffer (run.samples[n].get ()),
            &info));
  }
  const Frame & first = frames.begin ()->second;
  const Frame & middle = frames.at (SEEK_FRAME * FRAME_NS);
  fail_unless (testutil::compare (first, middle, std::vector<int> (4, 8)).over > 0,
      "the decoded %s picture does not move", format);
  return frames;
}

/* `make` applied to every frame from `from` on. */
Frames
expected_frames (const Frames & inputs, const std::function<Frame (const Frame &)> & make,
    GstClockTime from = 0)
{
  Frames expected;
  for (auto it = inputs.lower_bound (from); it != inputs.end (); ++it)
    expected.emplace (it->first, make (it->second));
  return expected;
}

/* The reference must change the decoded pictures; else an element that passed its input
 * through would match it. */
void
check_reference_changes_frames (const Frames & inputs, const Frames & expected,
    const std::vector<int> & tolerance, const char *element)
{
  size_t changed = 0;
  for (const auto & [time, frame] : expected)
    changed += testutil::compare (inputs.at (time), frame, tolerance).over > 0;
  fail_unless (changed > 0, "the %s reference leaves the decoded frames as they are", element);
}

/* The frames a run delivered against `expected`: the same timestamps in the same order (the
 * first at the first expected one, increasing after, none missing or added), every frame within
 * `tolerance` of the expected one at its timestamp. */
void
check_frames (const Run & run, const Frames & expected, const std::vector<int> & tolerance,
    const std::string & label)
{
  auto want = expected.begin ();
  for (size_t n = 0; n < run.samples.size () && want != expected.end (); n++, ++want) {
    const GstClockTime time = pts (run.samples[n]);
    fail_unless (time == want->first, "%s: output %zu at %" GST_TIME_FORMAT ", expected %"
        GST_TIME_FORMAT, label.c_str (), n, GST_TIME_ARGS (time), GST_TIME_ARGS (want->first));
    GstVideoInfo info = video_info (run.samples[n]);
    Frame actual = testutil::from_buffer (gst_sample_get_buffer (run.samples[n].get ()), &info);
    auto difference = testutil::compare (actual, want->second, tolerance);
    fail_unless (difference.over == 0, "%s: frame at %" GST_TIME_FORMAT ": %s", label.c_str (),
        GST_TIME_ARGS (time), testutil::describe (difference).c_str ());
  }
  fail_unless_equals_int (run.samples.size (), expected.size ());
}

/* The defaults of openclbilateral (radius: automatic, ceil (2 sigma-spatial) = 4). */
reference::BilateralParams
bilateral_defaults ()
{
  reference::BilateralParams params;
  params.radius = 4;
  return params;
}

/* openclbilateral's reference for the frames from `from` on. */
Frames
bilateral_frames (const Frames & inputs, const reference::BilateralParams & params,
    GstClockTime from = 0)
{
  return expected_frames (inputs, [&params](const Frame & in) {
        Frame out (in.width, in.height, in.bytes_per_pixel);
        reference::bilateral (in.bytes.data (), in.stride, out.bytes.data (), out.stride,
            in.width, in.height, in.bytes_per_pixel, params);
        return out;
      }, from);
}

/* openclbilateral's tolerance (test_bilateral): colour within 1, the fourth byte exact. */
const std::vector<int> BILATERAL_TOLERANCE { 1, 1, 1, 0 };
/* openclconvolve3d's (test_convolve3d): the same. */
const std::vector<int> CONVOLVE3D_TOLERANCE { 1, 1, 1, 0 };

/* openclconvolve3d's reference over the frames from `from` on, as one stream (the window is
 * clamped at its first and last frame). */
Frames
convolve3d_expected (const Frames & inputs, const reference::Convolve3dKernel & kernel,
    GstClockTime from = 0)
{
  std::vector<Frame> stream;
  for (auto it = inputs.lower_bound (from); it != inputs.end (); ++it)
    stream.push_back (it->second);
  std::vector<Frame> outputs = reference::convolve3d_frames (stream, kernel);
  Frames expected;
  auto it = inputs.lower_bound (from);
  for (Frame & frame : outputs)
    expected.emplace ((it++)->first, std::move (frame));
  return expected;
}

/* A reference::HistogramFrame over a mapped I420 frame. */
reference::HistogramFrame
histogram_view (GstVideoFrame * frame)
{
  reference::HistogramFrame view;
  view.format = reference::HistogramFormat::I420;
  view.width = GST_VIDEO_FRAME_WIDTH (frame);
  view.height = GST_VIDEO_FRAME_HEIGHT (frame);
  for (guint plane = 0; plane < 3; plane++) {
    view.planes[plane] = static_cast<uint8_t *> (GST_VIDEO_FRAME_PLANE_DATA (frame, plane));
    view.strides[plane] = GST_VIDEO_FRAME_PLANE_STRIDE (frame, plane);
  }
  return view;
}

std::string
float_array (const std::vector<double> & values)
{
  std::string text = "\"<";
  for (size_t i = 0; i < values.size (); i++)
    text += (i ? ", " : "") + std::to_string (values[i]);
  return text + ">\"";
}

/* `element` on the clip decoded by decodebin and converted to `format`, every frame against
 * `reference` of the clip decoded without it. */
void
check_after_decodebin (const char *format, const std::string & element,
    const std::function<Frames (const Frames &)> & reference, const std::vector<int> & tolerance)
{
  if (!have_codecs ())
    return;
  Clip clip;
  const Frames inputs = decoded_frames (clip, format);
  const Frames expected = reference (inputs);
  check_reference_changes_frames (inputs, expected, tolerance, element.c_str ());
  Run run = play (clip.decoded (format) + " ! " + element + APPSINK);
  check_frames (run, expected, tolerance, "decodebin ! " + element);
}

}  // namespace

GST_START_TEST (test_bilateral)
{
  check_after_decodebin ("RGBA", "openclbilateral", [](const Frames & inputs) {
        return bilateral_frames (inputs, bilateral_defaults ());
      }, BILATERAL_TOLERANCE);
}
GST_END_TEST;

/* I420 as the decoder gives it: one message per frame with the counts of that frame's planes,
 * and the frame with the graph drawn over it. */
GST_START_TEST (test_histogram)
{
  if (!have_codecs ())
    return;
  Clip clip;
  const int bins = 64;
  Run inputs = play (clip.decoded ("I420") + APPSINK);
  Run run = play (clip.decoded ("I420") + " ! openclhistogram bins=" + std::to_string (bins) +
      " draw=true" + APPSINK);
  fail_unless_equals_int (inputs.samples.size (), CLIP_FRAMES);
  fail_unless_equals_int (run.samples.size (), CLIP_FRAMES);

  std::map<GstClockTime, Message> messages;
  for (const Message & message : run.messages) {
    const GstStructure *s = gst_message_get_structure (message.get ());
    if (gst_structure_has_name (s, "opencl-histogram"))
      fail_unless (messages.emplace (checks::uint64_field (s, "timestamp"), message).second,
          "two messages for one timestamp");
  }
  fail_unless_equals_int (messages.size (), CLIP_FRAMES);

  for (size_t n = 0; n < inputs.samples.size (); n++) {
    const GstClockTime time = pts (inputs.samples[n]);
    fail_unless_equals_uint64 (time, n * FRAME_NS);
    fail_unless_equals_uint64 (pts (run.samples[n]), time);
    const std::string label = "frame at " + std::to_string (time / GST_MSECOND) + " ms";
    GstVideoInfo info = video_info (inputs.samples[n]);
    GstBuffer *input = gst_sample_get_buffer (inputs.samples[n].get ());

    GstVideoFrame frame;
    fail_unless (gst_video_frame_map (&frame, &info, input, GST_MAP_READ));
    const auto counts = reference::histogram (histogram_view (&frame), bins);
    gst_video_frame_unmap (&frame);
    fail_unless (messages.count (time), "%s: no opencl-histogram message", label.c_str ());
    checks::check_histogram_message (messages[time].get (), reference::HistogramFormat::I420,
        bins, 1, counts, label);

    GstBuffer *drawn = gst_buffer_copy_deep (input);
    fail_unless (gst_video_frame_map (&frame, &info, drawn, GST_MAP_WRITE));
    auto view = histogram_view (&frame);
    reference::draw_histogram (view, counts, bins);
    gst_video_frame_unmap (&frame);
    const auto expected = reliability::packed_pixels (drawn, &info);
    gst_buffer_unref (drawn);
    fail_unless (expected != reliability::packed_pixels (input, &info),
        "%s: the reference drew nothing", label.c_str ());
    GstVideoInfo out_info = video_info (run.samples[n]);
    fail_unless (reliability::packed_pixels (gst_sample_get_buffer (run.samples[n].get ()),
            &out_info) == expected, "%s: the drawn frame differs from the reference drawing",
        label.c_str ());
  }
}
GST_END_TEST;

GST_START_TEST (test_convolve3d)
{
  /* The element's defaults: Gaussian 5x5x3, sigma 1. */
  check_after_decodebin ("RGBA", "openclconvolve3d", [](const Frames & inputs) {
        return convolve3d_expected (inputs, reference::Convolve3dKernel ());
      }, CONVOLVE3D_TOLERANCE);
}
GST_END_TEST;

/* GRAY8 frames into a bank of three 3x3 filters (Sobel x, Sobel y, Laplacian): one float
 * tensor of responses per frame. */
GST_START_TEST (test_multiconvolve)
{
  if (!have_codecs ())
    return;
  Clip clip;
  const Frames inputs = decoded_frames (clip, "GRAY8");
  const int n_filters = 3, size = 3;
  const double sobel_x[] = { -1, 0, 1, -2, 0, 2, -1, 0, 1 };
  const double sobel_y[] = { -1, -2, -1, 0, 0, 0, 1, 2, 1 };
  const double laplacian[] = { 0, 1, 0, 1, -4, 1, 0, 1, 0 };
  std::vector<double> bank;  /* the filter index fastest */
  for (int tap = 0; tap < size * size; tap++)
    bank.insert (bank.end (), { sobel_x[tap], sobel_y[tap], laplacian[tap] });
  Run run = play (clip.decoded ("GRAY8") + " ! openclmulticonvolve num-kernels=3 "
      "kernel-size=3 dims=2 kernels=" + float_array (bank) + " ! other/tensors" + APPSINK);
  fail_unless_equals_int (run.samples.size (), inputs.size ());
  auto input = inputs.begin ();
  for (size_t n = 0; n < run.samples.size (); n++, ++input) {
    const GstClockTime time = pts (run.samples[n]);
    fail_unless_equals_uint64 (time, input->first);
    std::vector<double> pixels;
    for (int y = 0; y < CLIP_HEIGHT; y++)
      pixels.insert (pixels.end (), input->second.row (y), input->second.row (y) + CLIP_WIDTH);
    checks::check_convolution_floats (gst_sample_get_buffer (run.samples[n].get ()),
        reference::correlate (pixels, CLIP_WIDTH, CLIP_HEIGHT, 1, bank, n_filters, size, size,
            1), bank, n_filters, "responses at " + std::to_string (time / GST_MSECOND) + " ms");
  }
}
GST_END_TEST;

/* Pixel sorting of the rows, by luma, descending, in BGRx (the key depends on the order). */
GST_START_TEST (test_sort)
{
  check_after_decodebin ("BGRx", "openclsort direction=rows key=luma order=descending",
      [](const Frames & inputs) {
        return expected_frames (inputs, [](const Frame & in) {
              return reference::sort_pixels (in, false, true, reference::PixelKey::Luma, false,
                  true);
            });
      }, std::vector<int> (4, 0));
}
GST_END_TEST;

/* uridecodebin from a file:// URI, into openclbilateral with other settings, in BGRx. */
GST_START_TEST (test_uridecodebin)
{
  if (!have_codecs ())
    return;
  Clip clip;
  const Frames inputs = decoded_frames (clip, "BGRx");
  auto params = bilateral_defaults ();
  params.mode = reference::BilateralMode::Luma;
  params.sigma_range = 40.0;
  params.bgr = true;
  const Frames expected = bilateral_frames (inputs, params);
  Run run = play ("uridecodebin uri=\"" + clip.uri () + "\" ! videoconvert ! "
      "video/x-raw,format=BGRx ! openclbilateral mode=luma sigma-range=40" + APPSINK);
  check_frames (run, expected, BILATERAL_TOLERANCE, "uridecodebin ! openclbilateral");
}
GST_END_TEST;

/* playbin with a bin around openclbilateral as its video-filter and an appsink as its
 * video-sink. */
GST_START_TEST (test_playbin_video_filter)
{
  if (!have_codecs ())
    return;
  Clip clip;
  const Frames expected = bilateral_frames (decoded_frames (clip, "RGBA"),
      bilateral_defaults ());

  GstElement *playbin = gst_element_factory_make ("playbin", nullptr);
  GError *error = nullptr;
  GstElement *filter = gst_parse_bin_from_description ("videoconvert ! "
      "video/x-raw,format=RGBA ! openclbilateral", TRUE, &error);
  fail_unless (filter != nullptr && error == nullptr, "%s", error ? error->message : "");
  GstElement *sink = gst_element_factory_make ("appsink", nullptr);
  GstCaps *caps = gst_caps_from_string ("video/x-raw,format=RGBA");
  g_object_set (sink, "caps", caps, "sync", FALSE, nullptr);
  gst_caps_unref (caps);
  gst_util_set_object_arg (G_OBJECT (playbin), "flags", "video");
  g_object_set (playbin, "uri", clip.uri ().c_str (), "video-filter", filter, "video-sink",
      gst_object_ref (sink), nullptr);
  Run run = play (playbin, sink);
  gst_object_unref (sink);
  fail_unless (run.error.empty (), "playbin: %s", run.error.c_str ());
  check_frames (run, expected, BILATERAL_TOLERANCE, "playbin video-filter=openclbilateral");
}
GST_END_TEST;

/* A flushing, accurate seek to frame 12 while paused: the first frame out is frame 12 (in a
 * segment that starts there), the rest follow in order, and each equals the reference of the
 * frame decoded at its timestamp. openclconvolve3d starts its window again at the seek: its
 * reference is that of the stream from frame 12 on. */
GST_START_TEST (test_flushing_seek)
{
  if (!have_codecs ())
    return;
  Clip clip;
  const GstClockTime seek_to = SEEK_FRAME * FRAME_NS;
  const Frames inputs = decoded_frames (clip, "RGBA");

  Run run = play (clip.decoded ("RGBA") + " ! openclbilateral" + APPSINK, seek_to);
  fail_unless (!run.samples.empty (), "nothing after the seek");
  const GstSegment *segment = gst_sample_get_segment (run.samples[0].get ());
  fail_unless (segment != nullptr && segment->start == seek_to, "the segment after the seek "
      "starts at %" GST_TIME_FORMAT, GST_TIME_ARGS (segment ? segment->start : 0));
  check_frames (run, bilateral_frames (inputs, bilateral_defaults (), seek_to),
      BILATERAL_TOLERANCE, "openclbilateral after the seek");

  reference::Convolve3dKernel kernel;
  const Frames from_seek = convolve3d_expected (inputs, kernel, seek_to);
  /* Without the seek, frame 12's window holds frame 11: a window that did not start again
   * would not match. */
  fail_unless (testutil::compare (from_seek.at (seek_to), convolve3d_expected (inputs,
              kernel).at (seek_to), CONVOLVE3D_TOLERANCE).over > 0);
  run = play (clip.decoded ("RGBA") + " ! openclconvolve3d" + APPSINK, seek_to);
  check_frames (run, from_seek, CONVOLVE3D_TOLERANCE, "openclconvolve3d after the seek");
}
GST_END_TEST;

static Suite *
media_suite (void)
{
  return TESTUTIL_SUITE ("media", 300,
      test_bilateral, test_histogram, test_convolve3d, test_multiconvolve, test_sort,
      test_uridecodebin, test_playbin_video_filter, test_flushing_seek);
}

GST_CHECK_MAIN (media);
