/* gst-opencl tests: frames in flight across caps changes. Three sources of different formats and
 * sizes feed every video element of the plugin (and chains of them) through an input-selector
 * whose active pad changes many times, with flushing seeks and a stop while playing. Half of the
 * switches let a frame of the old pad arrive after the new pad's caps, as input-selector does
 * when the old pad's thread was on its way to push when the pad changed (here made to happen
 * every time: the frame is held at the selector's source pad until the element has the new
 * caps). Every frame that comes out must equal what the same chain makes of that source's frame
 * in a pipeline of its own, and the pipeline must neither fail nor crash. The first programs are
 * built with empty caches (a fresh XDG_CACHE_HOME and POCL_CACHE_DIR), so the first caps changes
 * wait for the compiler while frames queue up behind them. */
#include <gst/app/gstappsink.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <glib/gstdio.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <condition_variable>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "common/suite.h"
#include "common/testutil.h"

namespace {

/* One source: a still pattern, so that every frame of it is the same. */
struct Input
{
  const char *format;
  int width;
  int height;
  const char *pattern;
};

struct Case
{
  const char *chain;
  std::vector<Input> inputs;
};

/* Switches per phase: before the flushing seek, after it, and after a restart. */
constexpr guint SWITCHES_BEFORE_SEEK = 6;
constexpr guint SWITCHES_BEFORE_STOP = 12;
constexpr guint SWITCHES_AFTER_RESTART = 4;
/* Buffers of the active pad between two switches. */
constexpr guint BUFFERS_PER_SWITCH = 3;

std::string
caps_of (const Input & input)
{
  return std::string ("video/x-raw,format=") + input.format + ",width=" +
      std::to_string (input.width) + ",height=" + std::to_string (input.height) +
      ",framerate=30/1";
}

std::string
source_of (const Input & input, int buffers)
{
  return std::string ("videotestsrc pattern=") + input.pattern +
      (buffers > 0 ? " num-buffers=" + std::to_string (buffers) : "") + " ! " + caps_of (input);
}

/* What a frame is (caps without memory) and its pixels, packed: rows without their padding, for
 * video; the whole buffer otherwise (tensors). Empty when the buffer is not a frame of its caps. */
std::vector<guint8>
sample_bytes (GstSample * sample, std::string * key)
{
  GstCaps *caps = gst_sample_get_caps (sample);
  GstBuffer *buffer = gst_sample_get_buffer (sample);
  std::vector<guint8> bytes;
  GstVideoInfo info;
  if (caps && gst_structure_has_name (gst_caps_get_structure (caps, 0), "video/x-raw") &&
      gst_video_info_from_caps (&info, caps)) {
    *key = std::string (GST_VIDEO_INFO_NAME (&info)) + " " +
        std::to_string (GST_VIDEO_INFO_WIDTH (&info)) + "x" +
        std::to_string (GST_VIDEO_INFO_HEIGHT (&info));
    GstVideoMeta *meta = gst_buffer_get_video_meta (buffer);
    if (gst_buffer_get_size (buffer) < info.size || (meta &&
            (meta->format != GST_VIDEO_INFO_FORMAT (&info) ||
                meta->width != (guint) GST_VIDEO_INFO_WIDTH (&info) ||
                meta->height != (guint) GST_VIDEO_INFO_HEIGHT (&info))))
      return bytes;
    GstVideoFrame frame;
    if (!gst_video_frame_map (&frame, &info, buffer, GST_MAP_READ))
      return bytes;
    for (guint c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (&info); c++) {
      const guint plane = GST_VIDEO_INFO_COMP_PLANE (&info, c);
      /* Each plane once, by its first component (NV12's UV plane is components 1 and 2). */
      if (c > 0 && GST_VIDEO_INFO_COMP_PLANE (&info, c - 1) == plane)
        continue;
      const gsize row_bytes = (gsize) GST_VIDEO_INFO_COMP_WIDTH (&info, c) *
          GST_VIDEO_INFO_COMP_PSTRIDE (&info, c);
      const guint8 *data = static_cast<const guint8 *> (GST_VIDEO_FRAME_PLANE_DATA (&frame,
              plane));
      for (gint y = 0; y < GST_VIDEO_INFO_COMP_HEIGHT (&info, c); y++) {
        const guint8 *row = data + (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, plane);
        bytes.insert (bytes.end (), row, row + row_bytes);
      }
    }
    gst_video_frame_unmap (&frame);
    return bytes;
  }
  GstCaps *plain = gst_caps_copy (caps);
  gst_caps_set_features (plain, 0, nullptr);
  gchar *text = gst_caps_to_string (plain);
  *key = text;
  g_free (text);
  gst_caps_unref (plain);
  GstMapInfo map;
  if (gst_buffer_map (buffer, &map, GST_MAP_READ)) {
    bytes.assign (map.data, map.data + map.size);
    gst_buffer_unmap (buffer, &map);
  }
  return bytes;
}

/* What the chain makes of one source's frame, in a pipeline of its own (no switching): the
 * frame's key and bytes; every frame of that run must be the same. */
std::pair<std::string, std::vector<guint8>>
reference (const Case & test_case, const Input & input)
{
  GstElement *pipeline = testutil::parse_pipeline (source_of (input, 3) + " ! " +
      test_case.chain + " ! appsink name=sink sync=false");
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  std::string key;
  std::vector<guint8> first;
  int frames = 0;
  while (GstSample *sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink),
          300 * GST_SECOND)) {
    std::string frame_key;
    std::vector<guint8> bytes = sample_bytes (sample, &frame_key);
    gst_sample_unref (sample);
    fail_unless (!bytes.empty (), "%s on %s: an output frame that is not one of its caps",
        test_case.chain, caps_of (input).c_str ());
    if (frames++ == 0) {
      key = frame_key;
      first = bytes;
    }
    fail_unless (frame_key == key && bytes == first, "%s on %s: the frames of a still source "
        "differ", test_case.chain, caps_of (input).c_str ());
  }
  testutil::expect_no_error (pipeline);
  fail_unless (frames == 3, "%s on %s: %d frames out of 3", test_case.chain,
      caps_of (input).c_str (), frames);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  return { key, first };
}

/* The switching, done by the streaming threads themselves at fixed buffer counts, so that the
 * order of frames and caps is the same in every run. */
struct Switching
{
  GstElement *selector = nullptr;
  std::vector<GstPad *> pads;
  size_t active = 0;

  std::mutex lock;
  std::condition_variable changed;
  guint buffers = 0;          /* of the active pad since the last switch */
  guint switches = 0;
  guint late_frames = 0;      /* frames of the old pad let through after the new pad's caps */
  guint caps_events = 0;      /* caps events the first element of the chain received */
  bool switch_inside = false; /* a clean switch once this buffer is inside the element */
  bool quiet = false;         /* no switching: a seek or a stop is under way */
  /* The held frame let go and not yet at the element: pushed by the old pad's thread, which a
   * flush coming down the new pad does not wait for, so a seek waits for it (set_quiet). */
  GstBuffer *released = nullptr;

  /* Under `lock`. */
  void switch_pad ()
  {
    active = (active + 1) % pads.size ();
    g_object_set (selector, "active-pad", pads[active], nullptr);
    switches++;
    buffers = 0;
  }
};

/* At the selector's source pad, in the thread of the pad that pushes: every BUFFERS_PER_SWITCH
 * buffers the active pad changes. On odd switches the buffer on its way is held until the element
 * has the new pad's caps, then let go: a frame of the old caps after the new ones. Only frames
 * that say what they are (a video meta, as the plugin's pool frames have) are held: a plain
 * buffer of the wrong size cannot be told from a truncated one, which is an error. Other frames
 * get a clean switch instead. */
GstPadProbeReturn
at_selector (GstPad *, GstPadProbeInfo * info, gpointer data)
{
  auto *sw = static_cast<Switching *> (data);
  GstBuffer *buffer = GST_PAD_PROBE_INFO_BUFFER (info);
  std::unique_lock<std::mutex> lock (sw->lock);
  if (sw->quiet || ++sw->buffers < BUFFERS_PER_SWITCH)
    return GST_PAD_PROBE_OK;
  if (sw->switches % 2 == 0 || !gst_buffer_get_video_meta (buffer)) {
    sw->switch_inside = true;
    return GST_PAD_PROBE_OK;
  }
  const guint caps_before = sw->caps_events;
  sw->switch_pad ();
  const bool arrived = sw->changed.wait_for (lock, std::chrono::seconds (20), [&] {
        return sw->quiet || sw->caps_events != caps_before;
      });
  /* Held across a seek's flush, the frame would come after it, before any segment: dropped. */
  if (sw->quiet)
    return GST_PAD_PROBE_DROP;
  if (arrived)
    sw->late_frames++;
  sw->released = buffer;
  return GST_PAD_PROBE_OK;
}

/* At the element's sink pad, with its stream lock held: the buffer is the element's before any
 * caps of the next pad can be, so this switch leaves nothing of the old caps in flight. */
GstPadProbeReturn
at_element (GstPad *, GstPadProbeInfo * info, gpointer data)
{
  auto *sw = static_cast<Switching *> (data);
  std::lock_guard<std::mutex> lock (sw->lock);
  if (GST_PAD_PROBE_INFO_TYPE (info) & GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM) {
    if (GST_EVENT_TYPE (GST_PAD_PROBE_INFO_EVENT (info)) == GST_EVENT_CAPS) {
      sw->caps_events++;
      sw->changed.notify_all ();
    }
    return GST_PAD_PROBE_OK;
  }
  if (GST_PAD_PROBE_INFO_BUFFER (info) == sw->released) {
    sw->released = nullptr;
    sw->changed.notify_all ();
  }
  if (sw->switch_inside && !sw->quiet)
    sw->switch_pad ();
  sw->switch_inside = false;
  return GST_PAD_PROBE_OK;
}

/* The sink answers the allocation query as a video sink would (it takes video metas), so that an
 * element working in place, which passes that answer upstream, still has its pool taken and the
 * sources' frames say what they are. */
GstPadProbeReturn
answer_allocation (GstPad *, GstPadProbeInfo * info, gpointer)
{
  GstQuery *query = GST_PAD_PROBE_INFO_QUERY (info);
  if (GST_QUERY_TYPE (query) != GST_QUERY_ALLOCATION)
    return GST_PAD_PROBE_OK;
  gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, nullptr);
  return GST_PAD_PROBE_HANDLED;
}

/* Every output frame against the reference of its caps. */
struct Outputs
{
  std::map<std::string, std::vector<guint8>> references;
  std::mutex lock;
  std::map<std::string, guint> frames;
  guint wrong = 0;
  std::string first_wrong;
};

GstFlowReturn
on_sample (GstAppSink * sink, gpointer data)
{
  auto *outputs = static_cast<Outputs *> (data);
  GstSample *sample = gst_app_sink_pull_sample (sink);
  if (!sample)
    return GST_FLOW_OK;
  std::string key;
  std::vector<guint8> bytes = sample_bytes (sample, &key);
  gst_sample_unref (sample);
  std::lock_guard<std::mutex> lock (outputs->lock);
  auto reference = outputs->references.find (key);
  if (reference == outputs->references.end () || bytes != reference->second) {
    if (outputs->wrong++ == 0)
      outputs->first_wrong = key + (reference == outputs->references.end () ?
          " (no such reference)" : bytes.empty () ? " (not a frame of its caps)" :
          " (pixels differ)");
  }
  outputs->frames[key]++;
  return GST_FLOW_OK;
}

/* Waits until `switches` switches were made; fails on a bus error or after 300 s (compiles
 * under AddressSanitizer on a loaded machine take minutes). */
void
wait_for_switches (GstElement * pipeline, Switching & sw, guint switches, const char *chain)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  const gint64 deadline = g_get_monotonic_time () + 300 * G_TIME_SPAN_SECOND;
  for (;;) {
    std::string error = testutil::first_error (bus);
    fail_unless (error.empty (), "%s: the pipeline failed: %s", chain, error.c_str ());
    {
      std::lock_guard<std::mutex> lock (sw.lock);
      if (sw.switches >= switches)
        break;
      fail_unless (g_get_monotonic_time () < deadline, "%s: %u switches in 300 s, %u expected",
          chain, sw.switches, switches);
    }
    g_usleep (5000);
  }
  gst_object_unref (bus);
}

/* Quiet: no more switching, and a held frame already let go has reached the element. Without
 * that wait, the seek's flush (down the new pad) could pass the element while the old pad's
 * thread was still pushing that frame, which then arrived after the flush and before the new
 * segment: GStreamer's "Got data flow before segment event" warning, 2 runs in 26 here. */
void
set_quiet (Switching & sw, bool quiet)
{
  std::unique_lock<std::mutex> lock (sw.lock);
  sw.quiet = quiet;
  sw.buffers = 0;
  sw.switch_inside = false;
  sw.changed.notify_all ();
  if (quiet)
    fail_unless (sw.changed.wait_for (lock, std::chrono::seconds (60), [&] {
          return sw.released == nullptr; }), "a frame let go by the selector never reached "
        "the element");
}

void
run_case (const Case & test_case)
{
  Outputs outputs;
  for (const Input & input : test_case.inputs)
    outputs.references.insert (reference (test_case, input));

  /* The queue keeps the sink's preroll (after the seek's flush) out of the element's streaming
   * thread: a pipeline's seek reaches the sources one after the other, and a source whose thread
   * waited for that preroll inside the element could not be flushed (a deadlock of the pipeline,
   * not of the plugin). */
  std::string launch = std::string ("input-selector name=sel ! ") + test_case.chain +
      " ! queue ! appsink name=sink sync=false";
  for (size_t i = 0; i < test_case.inputs.size (); i++)
    launch += " " + source_of (test_case.inputs[i], 0) + " ! sel.sink_" + std::to_string (i);
  GstElement *pipeline = testutil::parse_pipeline (launch);
  Switching sw;
  sw.selector = gst_bin_get_by_name (GST_BIN (pipeline), "sel");
  for (size_t i = 0; i < test_case.inputs.size (); i++)
    sw.pads.push_back (gst_element_get_static_pad (sw.selector,
            ("sink_" + std::to_string (i)).c_str ()));
  g_object_set (sw.selector, "active-pad", sw.pads[0], nullptr);
  GstPad *selector_src = gst_element_get_static_pad (sw.selector, "src");
  GstPad *element_sink = gst_pad_get_peer (selector_src);
  gst_pad_add_probe (selector_src, GST_PAD_PROBE_TYPE_BUFFER, at_selector, &sw, nullptr);
  gst_pad_add_probe (element_sink, (GstPadProbeType) (GST_PAD_PROBE_TYPE_BUFFER |
          GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM), at_element, &sw, nullptr);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  GstPad *sink_pad = gst_element_get_static_pad (sink, "sink");
  gst_pad_add_probe (sink_pad, GST_PAD_PROBE_TYPE_QUERY_DOWNSTREAM, answer_allocation, nullptr,
      nullptr);
  gst_object_unref (sink_pad);
  GstAppSinkCallbacks callbacks {};
  callbacks.new_sample = on_sample;
  gst_app_sink_set_callbacks (GST_APP_SINK (sink), &callbacks, &outputs, nullptr);

  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  wait_for_switches (pipeline, sw, SWITCHES_BEFORE_SEEK, test_case.chain);
  /* A flushing seek back to the start while frames are on the device. */
  set_quiet (sw, true);
  fail_unless (gst_element_seek_simple (pipeline, GST_FORMAT_TIME,
          (GstSeekFlags) (GST_SEEK_FLAG_FLUSH | GST_SEEK_FLAG_ACCURATE), 0),
      "%s: the seek failed", test_case.chain);
  set_quiet (sw, false);
  wait_for_switches (pipeline, sw, SWITCHES_BEFORE_STOP, test_case.chain);
  /* Stopped while playing, with frames in flight; then once more from the start. */
  set_quiet (sw, true);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  testutil::expect_no_error (pipeline);
  set_quiet (sw, false);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  wait_for_switches (pipeline, sw, SWITCHES_BEFORE_STOP + SWITCHES_AFTER_RESTART,
      test_case.chain);
  set_quiet (sw, true);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  testutil::expect_no_error (pipeline);

  GST_INFO ("%s: %u switches, %u frames of the old caps after the new ones", test_case.chain,
      sw.switches, sw.late_frames);
  fail_unless (sw.late_frames >= 2, "%s: only %u frames of old caps came after new caps",
      test_case.chain, sw.late_frames);
  fail_unless (outputs.wrong == 0, "%s: %u of the output frames are wrong, the first %s",
      test_case.chain, outputs.wrong, outputs.first_wrong.c_str ());
  for (const auto & reference : outputs.references)
    fail_unless (outputs.frames[reference.first] >= 2, "%s: %u frames of %s out",
        test_case.chain, outputs.frames[reference.first], reference.first.c_str ());

  for (GstPad *pad : sw.pads)
    gst_object_unref (pad);
  gst_object_unref (element_sink);
  gst_object_unref (selector_src);
  gst_object_unref (sw.selector);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
}

/* Three formats and sizes each element takes (docs/<element>.md); the sizes small, so that the
 * switching and not the kernels takes the time. */
const Input RGBA { "RGBA", 64, 48, "smpte100" };
const Input BGRX { "BGRx", 48, 32, "circular" };
const Input GRAY { "GRAY8", 40, 30, "checkers-8" };
const Input NV12 { "NV12", 32, 24, "gamut" };
const Input GRAY_SMALL { "GRAY8", 24, 16, "spokes" };
const Input GRAY_WIDE { "GRAY8", 56, 20, "circular" };

const char *const INVERT = "openclkernel source=\"__kernel void invert (__read_only image2d_t "
    "in, __write_only image2d_t out) { int2 p = (int2) (get_global_id (0), get_global_id (1)); "
    "float4 c = read_imagef (in, p); write_imagef (out, p, (float4) (1.0f - c.xyz, c.w)); }\"";

/* Every video element and four chains of them, each with the three inputs it switches
 * between. */
const Case CASES[] = {
  { "openclbilateral", { RGBA, BGRX, GRAY } },
  { "openclhistogram draw=true bins=64", { RGBA, NV12, GRAY } },
  { "openclsort", { RGBA, BGRX, GRAY } },
  { "openclconvolve3d kernel-depth=3 sigma-t=1", { RGBA, BGRX, GRAY } },
  { "openclmulticonvolve num-kernels=1 kernel-size=3 kernels=\"<0,-1,0,-1,5,-1,0,-1,0>\"",
    { GRAY, GRAY_SMALL, GRAY_WIDE } },
  { INVERT, { RGBA, BGRX, GRAY } },
  { "openclbilateral ! openclsort", { RGBA, BGRX, GRAY } },
  { "openclbilateral ! openclhistogram draw=true bins=64", { RGBA, BGRX, GRAY } },
  { "openclconvolve3d kernel-depth=3 sigma-t=1 ! openclbilateral", { RGBA, BGRX, GRAY } },
  { "openclupload ! openclbilateral ! opencldownload", { RGBA, BGRX, GRAY } },
};

/* Each of CASES, a loop test. */
GST_START_TEST (test_chain)
{
  run_case (CASES[__i__]);
}
GST_END_TEST;

/* A plain buffer (system memory, no video meta) of exactly the earlier caps' frame size, after
 * new caps: the first frames of a source's own pool after input-selector switched to it. It is
 * dropped, not refused as truncated; a buffer of any other wrong size is still an error. */
GST_START_TEST (test_plain_frame_of_earlier_caps)
{
  GstHarness *h = gst_harness_new ("openclbilateral");
  GstVideoInfo earlier, current;
  gst_video_info_set_format (&earlier, GST_VIDEO_FORMAT_GRAY8, 64, 48);
  gst_video_info_set_format (&current, GST_VIDEO_FORMAT_RGBA, 40, 30);
  gst_harness_set_src_caps (h, gst_video_info_to_caps (&earlier));
  testutil::Frame gray = testutil::filled (testutil::Frame (64, 48, 1),
      testutil::Pattern::Random, 1);
  fail_unless_equals_int (gst_harness_push (h, testutil::to_buffer (gray,
              GST_VIDEO_FORMAT_GRAY8)), GST_FLOW_OK);
  gst_buffer_unref (gst_harness_pull (h));

  gst_harness_set_src_caps (h, gst_video_info_to_caps (&current));
  GstBuffer *plain = gst_buffer_new_allocate (nullptr, GST_VIDEO_INFO_SIZE (&earlier), nullptr);
  gst_buffer_memset (plain, 0, 0x5a, gst_buffer_get_size (plain));
  fail_unless (gst_buffer_get_video_meta (plain) == nullptr);
  fail_unless_equals_int (gst_harness_push (h, plain), GST_FLOW_OK);
  fail_unless (gst_harness_try_pull (h) == nullptr, "the earlier caps' frame was processed");
  testutil::Frame rgba = testutil::filled (testutil::Frame (40, 30, 4),
      testutil::Pattern::Random, 2);
  fail_unless_equals_int (gst_harness_push (h, testutil::to_buffer (rgba,
              GST_VIDEO_FORMAT_RGBA)), GST_FLOW_OK);
  GstBuffer *out = gst_harness_pull (h);
  fail_unless (out != nullptr);
  fail_unless_equals_int (gst_buffer_get_size (out), GST_VIDEO_INFO_SIZE (&current));
  gst_buffer_unref (out);

  /* Neither size: refused with an error, as a truncated frame. */
  GstBuffer *odd = gst_buffer_new_allocate (nullptr, GST_VIDEO_INFO_SIZE (&earlier) - 1, nullptr);
  gst_buffer_memset (odd, 0, 0, gst_buffer_get_size (odd));
  fail_if (gst_harness_push (h, odd) == GST_FLOW_OK, "a truncated frame was taken");
  gst_harness_teardown (h);
}
GST_END_TEST;

Suite *
inflight_suite (void)
{
  Suite *s = suite_create ("inflight");
  TCase *tc = TESTUTIL_ADD_CASE (s, "general", 0, test_plain_frame_of_earlier_caps);
  tcase_add_loop_test (tc, test_chain, 0, G_N_ELEMENTS (CASES));
  return s;
}

}  // namespace

/* Empty program caches for one round: a fresh folder for the plugin's cache (XDG_CACHE_HOME) and
 * PoCL's (POCL_CACHE_DIR), set before a test case's process (check's fork mode) reaches the
 * driver; removed with remove_caches (). */
static gchar *
empty_caches ()
{
  gchar *cache = g_dir_make_tmp ("gst-opencl-inflight-XXXXXX", nullptr);
  gchar *xdg = g_build_filename (cache, "xdg", nullptr);
  gchar *pocl = g_build_filename (cache, "pocl", nullptr);
  g_mkdir (pocl, 0700);
  g_setenv ("XDG_CACHE_HOME", xdg, TRUE);
  g_setenv ("POCL_CACHE_DIR", pocl, TRUE);
  g_free (pocl);
  g_free (xdg);
  return cache;
}

static void
remove_caches (gchar * cache)
{
  gchar *command[] = { (gchar *) "rm", (gchar *) "-rf", cache, nullptr };
  g_spawn_sync (nullptr, command, nullptr, G_SPAWN_SEARCH_PATH, nullptr, nullptr, nullptr,
      nullptr, nullptr, nullptr);
  g_free (cache);
}

int
main (int argc, char **argv)
{
  /* GST_OPENCL_TEST_COLD_CACHES=1: empty program caches, the plugin's and PoCL's, so that the
   * first caps of each element wait for the compiler with frames queued behind them (the
   * report's conditions); GST_OPENCL_TEST_COLD_ROUNDS=N runs the whole suite N times, each from
   * empty caches (the `inflight-cold` test: 3 rounds). Warm caches by default: the test holds
   * the old pad's frame until the new caps are in anyway. An earlier PoCL 3.1 run here once
   * failed to build a program with empty caches ("failed to build the program", no log); 16
   * cold runs in a row passed since on this machine, loaded by two builds, and the cold test
   * keeps watching for it. */
  const bool cold = g_strcmp0 (g_getenv ("GST_OPENCL_TEST_COLD_CACHES"), "1") == 0;
  const char *rounds_text = g_getenv ("GST_OPENCL_TEST_COLD_ROUNDS");
  const int rounds = cold && rounds_text ? std::max (1, atoi (rounds_text)) : 1;
  gst_check_init (&argc, &argv);
  int failed = 0;
  for (int round = 0; round < rounds; round++) {
    gchar *cache = cold ? empty_caches () : nullptr;
    failed += gst_check_run_suite (inflight_suite (), "inflight", __FILE__);
    if (cache)
      remove_caches (cache);
  }
  return failed;
}
