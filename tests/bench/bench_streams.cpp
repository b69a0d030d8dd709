/* gst-opencl benchmarks: how many video streams one device filters at once.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * For each N of --streams, each case of --cases and each context mode of --modes it runs N
 * pipelines at once in this one process, --runs times, and reports the aggregate frames per
 * second: every frame that reached a sink after the pipelines were set to PLAYING, over the wall
 * time from then until the last pipeline's sink had its EOS.
 *
 * Pipelines (one per stream, no queues: one streaming thread each):
 *   --device gpu   filesrc location=<clip, played --loops times> ! h264parse ! nvh264dec !
 *                  <case> ! fakesink sync=false
 *   --device cpu   videotestsrc num-buffers=<frames> pattern=<pattern> !
 *                  video/x-raw,format=<format>,width=W,height=H,framerate=30/1 ! <case> !
 *                  fakesink sync=false
 *                  or, with --clip, the clip decoded by avdec_h264 (a rehearsal of the GPU's
 *                  pipelines on a machine without NVIDIA's decoder)
 * Cases:
 *   baseline       nothing (the decoder, or the test source, alone; on the GPU into
 *                  video/x-raw(memory:CUDAMemory), as bench_pipeline's decode case)
 *   histogram      openclhistogram
 *   bilateral      openclbilateral (radius 4 from its defaults), on the decoder's NV12 as it
 *                  comes; after openclconvertscale ! video/x-raw(memory:OpenCLMemory),
 *                  format=RGBA only for a source format it does not take
 *   convertscale   openclconvertscale ! video/x-raw(memory:CUDAMemory),format=RGBA,width=1280,
 *                  height=720 after NVIDIA's decoders; elsewhere ! video/x-raw(memory:
 *                  OpenCLMemory),format=RGBA
 * Context modes (the baseline has no OpenCL element: it runs once per N, mode "none"):
 *   shared         every pipeline's elements use one gst.opencl.context: the first pipeline's
 *                  element creates it and posts have-context; a bus sync handler on every
 *                  pipeline keeps it and answers the other pipelines' need-context with it
 *                  (gst_element_set_context), as an application shares GStreamer's GL and CUDA
 *                  contexts
 *   separate       nobody answers need-context across pipelines: each pipeline creates its own
 * Start (--start): how the pipelines get going before the clock starts.
 *   sequential     each pipeline to PAUSED and prerolled before the next one is set to PAUSED
 *   together       (default) in shared mode pipeline 0 to PAUSED first, only until its contexts
 *                  (every type shared) were posted and kept, then every other pipeline to
 *                  PAUSED, and all of them prerolled at once (no pipeline sits prerolled while
 *                  another starts its decoder); separate mode and the baseline: all to PAUSED at
 *                  once
 *   playing        no preroll: the clock starts, then every pipeline straight to PLAYING
 *                  (pipeline 0 first in shared mode, as in together); the contexts, programs and
 *                  first frames are inside the time
 * In sequential and together the contexts, the programs and the first frames are made before
 * the clock starts. Every element's context is asked for with a context query (after preroll, or
 * at EOS for playing), and the run fails loudly unless the mode took effect: one context in all
 * for shared, one per pipeline (all different) for separate.
 *
 * Stalls: every run has --timeout seconds (default 60) from its first state change to its last
 * EOS, and every state change is made from a helper thread and waited for under that deadline,
 * so a call that never returns cannot hold the program. A run that does not preroll, post its
 * context or reach EOS in time is a stall: the row's error says which pipeline and phase, each
 * pipeline's state and, for each of its elements, its state and the buffers that passed its src
 * pads so far (a counting probe on every src pad); the full report (the pipelines' last bus
 * messages, this process's threads from /proc and, with --stacks-tool, every thread's stack)
 * goes to stderr and next to the JSON. Then every pipeline of the run is set to NULL, from
 * helper threads, 10 s at most (pipelines that do not get there are left behind, and the program
 * ends without gst_deinit); the next row goes on. Two stalled runs in a row stop the program.
 *
 * Per case and N:
 *   - aggregate fps per run: frames at the sinks after PLAYING / wall time to the last EOS.
 *     Frames the element leaves on the device (OpenCL memory into fakesink) are waited for at
 *     EOS: the sink's last buffer is mapped for reading before the end is taken;
 *   - the ratio of its median to the baseline's at the same N;
 *   - host time per frame in the element: the wall time from a buffer entering the measured
 *     element's sink pad to the element pushing its result on its src pad, taken by two pad
 *     probes on the same streaming thread (the element's chain function up to its push), every
 *     frame of every stream after PLAYING; median and quartiles;
 *   - the element's kernel-time (a recent frame's kernels, device time from profiling events)
 *     read at each pipeline's EOS, for the record; median over pipelines and runs. Read only
 *     there, it leaves the element timing one frame in 8 (launches without profiling events on
 *     the others); --read-kernel-time reads it as each frame leaves the element, so that every
 *     frame is timed (the host cost of the events, measured against the default).
 * Prints a table per N; --json PATH writes every figure. */
#include <dlfcn.h>
#include <glib/gstdio.h>
#include <gst/gst.h>
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <CL/cl.h>

#include "benchlib.h"

namespace {

using bench::Clock;
using bench::json_number;
using bench::json_string;

constexpr const char *kOpenCLContextType = "gst.opencl.context";
constexpr const char *kCudaContextType = "gst.cuda.context";
constexpr const char *kGLDisplayType = "gst.gl.GLDisplay";

struct Options
{
  std::string device = "gpu";
  std::vector<int> streams { 1, 2, 4, 8, 16 };
  std::vector<std::string> cases { "baseline", "histogram", "bilateral", "convertscale" };
  std::vector<std::string> modes { "shared", "separate" };
  int runs = 3;
  /* Decoded clip (always on the GPU) */
  std::string clip;
  std::string decoder;
  int loops = 2;
  bool share_cuda = false;
  bool share_gl = false;
  bool read_kernel_time = false;
  bool probe_context = false;
  /* Test pattern (on the CPU without --clip) */
  std::vector<bench::FrameSize> sizes { { 640, 360, 0 } };
  int frames = 30;
  std::string pattern = "smpte";
  std::string format = "RGBA";
  std::string json_path;
  int timeout_s = 60;
  int watchdog_s = 0;         /* 0: timeout_s + 120 */
  std::string start = "together";
  std::string stacks_tool;
  std::string stall_for_test;
  std::string stall_case;     /* --stall-for-test KIND:CASE: only that case's runs */

  bool gpu () const { return device == "gpu"; }
  /* Frames from a decoded clip rather than videotestsrc. */
  bool decode () const { return gpu () || !clip.empty (); }
  int width () const { return sizes[0].width; }
  int height () const { return sizes[0].height; }
};

Options
parse_options (int argc, char **argv)
{
  Options o;
  bench::OptionTable table;
  table.text ("--device gpu|cpu", &o.device, "gpu: NVIDIA's decoder into the elements on the "
      "GPU (needs nvh264dec and --clip); cpu: videotestsrc into the elements on the CPU device "
      "(PoCL) (default gpu)")
      .counts ("--streams N,...", &o.streams, 1, "pipelines at once (default 1,2,4,8,16)", 256)
      .list ("--cases C,...", &o.cases, "baseline, histogram, bilateral, convertscale (default "
      "all four)")
      .list ("--modes M,...", &o.modes, "shared, separate: one OpenCL context for all pipelines "
      "or one per pipeline (default both)")
      .count ("--runs R", &o.runs, 1, "runs of each case, mode and N (default 3)")
      .text ("--clip PATH", &o.clip, "the H.264 byte-stream clip every pipeline decodes "
      "(build-gpu/clips/clip-1080p.h264); needed on the GPU, optional on the CPU (instead of "
      "videotestsrc)")
      .text ("--decoder NAME", &o.decoder, "the clip's decoder (default nvh264dec on the GPU, "
      "avdec_h264 on the CPU)")
      .count ("--loops K", &o.loops, 1, "every pipeline plays the clip K times (default 2)",
      100)
      .flag ("--share-cuda", &o.share_cuda, true, "also share GStreamer's CUDA context "
      "(gst.cuda.context) between the pipelines, in every case and mode (default: each "
      "pipeline's decoder makes its own)")
      .flag ("--share-gl", &o.share_gl, true, "also share one GStreamer GL display "
      "(gst.gl.GLDisplay) between the pipelines of a run, in every case and mode (default: "
      "each pipeline's decoder makes its own, with a thread of its own, when GStreamer's "
      "decoder makes one)")
      .flag ("--read-kernel-time", &o.read_kernel_time, true, "read the measured element's "
      "kernel-time as each frame leaves it (after the frame's host time is taken), so that every "
      "frame launches with profiling events; without it only one frame in 8 does (default: "
      "read at EOS only)")
      .flag ("--probe-context", &o.probe_context, true, "after every run, make and release "
      "an OpenCL context on the device outside the plugin (plain clCreateContext) and print "
      "whether it could be made: tells a driver that no longer makes contexts from the "
      "plugin's own failures; on a GPU also the state of each CUDA primary context (active, "
      "and what synchronizing it returns: a fault's error stays in it)")
      .sizes ("--size WxH", &o.sizes, "videotestsrc: the frame size (default 640x360)")
      .count ("--frames F", &o.frames, 2, "videotestsrc: frames per pipeline (default 30)")
      .text ("--pattern NAME", &o.pattern, "videotestsrc: its pattern (default smpte)")
      .text ("--format FMT", &o.format, "videotestsrc: the format (default RGBA)")
      .text ("--json PATH", &o.json_path, "write the results as JSON")
      .count ("--timeout S", &o.timeout_s, 1, "a run's time, from its first state change to its "
      "last EOS: a run that takes longer is a stall (default 60)")
      .count ("--watchdog S", &o.watchdog_s, 1, "the longest any one step of the program may "
      "take, the parts the run's own limit does not cover (making the pipelines, freeing them) "
      "included; past it the program prints where it is, every thread's state and stacks, and "
      "exits with status 3 (default: --timeout + 120)")
      .text ("--start MODE", &o.start, "sequential: each pipeline prerolled before the next "
      "starts; together: all prerolled at once (shared mode: pipeline 0 first, until its "
      "context is posted); playing: straight to PLAYING, no preroll (default together)")
      .text ("--stacks-tool PATH", &o.stacks_tool, "on a stall, run PATH -p <this process> "
      "(eu-stack), 30 s at most, into the log and <json>.stall-<row>.txt")
      .text ("--stall-for-test KIND[:CASE]", &o.stall_for_test, "make the last pipeline of "
      "every run (of CASE only, when given) stall, to see what a stall prints: preroll (its "
      "sink gets nothing), eos (its sink gets the first buffer only, never EOS) or hang (its "
      "sink's streaming thread blocks for good, so it cannot be set to NULL either)");
  table.parse (argc, argv);
  if (o.device != "gpu" && o.device != "cpu")
    table.reject ("--device is gpu or cpu");
  if (o.sizes.size () != 1)
    table.reject ("--size takes one size");
  for (const auto & name : o.cases)
    if (name != "baseline" && name != "histogram" && name != "bilateral" &&
        name != "convertscale")
      table.reject ("unknown case " + name);
  for (const auto & mode : o.modes)
    if (mode != "shared" && mode != "separate")
      table.reject ("unknown mode " + mode);
  if (o.start != "sequential" && o.start != "together" && o.start != "playing")
    table.reject ("--start is sequential, together or playing");
  const size_t colon = o.stall_for_test.find (':');
  if (colon != std::string::npos) {
    o.stall_case = o.stall_for_test.substr (colon + 1);
    o.stall_for_test.resize (colon);
  }
  if (!o.stall_for_test.empty () && o.stall_for_test != "preroll" && o.stall_for_test != "eos" &&
      o.stall_for_test != "hang")
    table.reject ("--stall-for-test is preroll, eos or hang, then :CASE or nothing");
  if (!o.stacks_tool.empty () && !g_file_test (o.stacks_tool.c_str (), G_FILE_TEST_IS_EXECUTABLE))
    table.reject ("--stacks-tool: no program at " + o.stacks_tool);
  if (o.gpu () && o.clip.empty ())
    table.reject ("--device gpu needs --clip PATH");
  if (o.decoder.empty ())
    o.decoder = o.gpu () ? "nvh264dec" : "avdec_h264";
  return o;
}

/* ---- What runs ---- */

/* One case: the elements between the source and the sink. */
struct CaseSpec
{
  std::string name;
  std::string element;    /* the measured element's factory; "none" for the baseline */
  std::string chain;      /* " ! ..." between the source and the sink */
  std::vector<std::string> opencl_elements;  /* names of the chain's OpenCL elements */
};

/* The formats openclbilateral takes (docs/openclbilateral.md). */
bool
bilateral_takes (const std::string & format)
{
  for (const char *taken : { "RGBA", "BGRA", "RGBx", "BGRx", "GRAY8", "GRAY16_LE", "RGBA64_LE",
           "NV12", "I420", "P010_10LE" })
    if (format == taken)
      return true;
  return false;
}

CaseSpec
case_spec (const Options & o, const std::string & name)
{
  /* NVIDIA's decoders into CUDA memory in every case, said explicitly: the elements take it, and
   * the decoder picks it where downstream takes it (it looks at GL memory, and opens a GL
   * display, only where not). */
  const bool cuda = o.decode () && o.decoder.rfind ("nv", 0) == 0;
  const std::string decoded = cuda ? " ! video/x-raw(memory:CUDAMemory)" : "";
  const std::string to_device_rgba = decoded +
      " ! openclconvertscale name=convert ! video/x-raw(memory:OpenCLMemory),format=RGBA";
  /* Decoders give 4:2:0 YUV for the clips (nvh264dec NV12, avdec_h264 I420). */
  const std::string source_format = o.decode () ? "NV12" : o.format;
  if (name == "histogram")
    return { name, "openclhistogram", decoded + " ! openclhistogram name=measured",
      { "measured" } };
  if (name == "bilateral") {
    if (bilateral_takes (source_format))
      return { name, "openclbilateral", decoded + " ! openclbilateral name=measured",
        { "measured" } };
    return { name, "openclbilateral", to_device_rgba + " ! openclbilateral name=measured",
      { "convert", "measured" } };
  }
  /* On NVIDIA's decoders, the issue's case: to RGBA at 720p in CUDA memory, for a CUDA
   * element or encoder downstream. */
  if (name == "convertscale")
    return { name, "openclconvertscale", decoded + " ! openclconvertscale name=measured ! " +
      (cuda ? std::string ("video/x-raw(memory:CUDAMemory),format=RGBA,width=1280,height=720") :
          std::string ("video/x-raw(memory:OpenCLMemory),format=RGBA")), { "measured" } };
  /* NVIDIA's decoders alone into CUDA memory, as bench_pipeline's decode case. */
  return { "baseline", "none", decoded, {} };
}

std::string
pipeline_description (const Options & o, const std::string & clip, const CaseSpec & spec)
{
  std::string source;
  if (o.decode ()) {
    source = "filesrc location=\"" + clip + "\" ! h264parse ! " + o.decoder;
  } else {
    source = "videotestsrc num-buffers=" + std::to_string (o.frames) + " pattern=" + o.pattern +
        " ! video/x-raw,format=" + o.format + ",width=" + std::to_string (o.width ()) +
        ",height=" + std::to_string (o.height ()) + ",framerate=30/1";
  }
  return source + spec.chain + " ! fakesink name=sink sync=false";
}

/* ---- Contexts between pipelines ---- */

/* The GstOpenCLContext a gst.opencl.context GstContext carries (not a reference), or nullptr. */
gpointer
context_object (GstContext * context)
{
  const GstStructure *s = gst_context_get_structure (context);
  const GValue *value = s ? gst_structure_get_value (s, "context") : nullptr;
  return value && G_VALUE_HOLDS_OBJECT (value) ? g_value_get_object (value) : nullptr;
}

/* ---- One run's pipelines and what their buses say ---- */

struct Stream;

/* What the pipelines of one run share. The bus sync handler of every pipeline (on_message)
 * keeps the contexts the pipelines post (have-context) and, for the types it shares, answers
 * need-context with the first one kept; counts the OpenCL contexts made; notes every other
 * message in its pipeline's log (errors and EOS for the waits below) and drops it, so that
 * nothing piles up on the buses (openclhistogram posts an element message per frame). */
struct ContextBroker
{
  std::mutex lock;
  std::condition_variable changed;    /* a message was noted */
  std::set<std::string> shared_types;
  std::map<std::string, GstContext *> kept;
  std::set<gpointer> opencl_made;
  int opencl_have_context = 0;
  std::atomic<int> element_messages { 0 };
  const Clock::time_point made = Clock::now ();

  ContextBroker () = default;
  ContextBroker (const ContextBroker &) = delete;
  ContextBroker & operator= (const ContextBroker &) = delete;
  ~ContextBroker ()
  {
    for (auto & entry : kept)
      gst_context_unref (entry.second);
  }

  static GstBusSyncReply on_message (GstBus *, GstMessage * message, gpointer data);

  /* The shared types no context was kept for yet, joined by ", " (under `lock`). */
  std::string missing_types () const
  {
    std::string missing;
    for (const auto & type : shared_types)
      if (!kept.count (type))
        missing += (missing.empty () ? "" : ", ") + type;
    return missing;
  }

  /* Whether it answered. */
  bool answer (GstMessage * message)
  {
    const gchar *type = nullptr;
    if (!gst_message_parse_context_type (message, &type) || !type)
      return false;
    GstContext *context = nullptr;
    {
      std::lock_guard<std::mutex> guard (lock);
      auto found = kept.find (type);
      if (shared_types.count (type) && found != kept.end ())
        context = gst_context_ref (found->second);
    }
    if (!context)
      return false;
    gst_element_set_context (GST_ELEMENT (GST_MESSAGE_SRC (message)), context);
    gst_context_unref (context);
    return true;
  }

  /* The context's type. */
  std::string keep (GstMessage * message)
  {
    GstContext *context = nullptr;
    gst_message_parse_have_context (message, &context);
    if (!context)
      return "";
    const std::string type = gst_context_get_context_type (context);
    {
      std::lock_guard<std::mutex> guard (lock);
      if (type == kOpenCLContextType) {
        opencl_have_context++;
        opencl_made.insert (context_object (context));
      }
      if (shared_types.count (type) && !kept.count (type)) {
        kept[type] = context;
        context = nullptr;
      }
    }
    if (context)
      gst_context_unref (context);
    return type;
  }
};

/* The OpenCL context an element uses now (not a reference), asked with a context query on its
 * src pad; nullptr when it has none. */
gpointer
element_context (GstElement * element)
{
  GstQuery *query = gst_query_new_context (kOpenCLContextType);
  GstPad *pad = gst_element_get_static_pad (element, "src");
  gpointer found = nullptr;
  if (pad && gst_pad_query (pad, query)) {
    GstContext *context = nullptr;
    gst_query_parse_context (query, &context);
    if (context)
      found = context_object (context);
  }
  if (pad)
    gst_object_unref (pad);
  gst_query_unref (query);
  return found;
}

/* The objects an iterator gives (references), in its order. */
template <typename T>
std::vector<T *>
collect (GstIterator * iterator)
{
  std::vector<T *> items;
  GValue item = G_VALUE_INIT;
  bool more = true;
  while (more) {
    switch (gst_iterator_next (iterator, &item)) {
      case GST_ITERATOR_OK:
        items.push_back (static_cast<T *> (g_value_dup_object (&item)));
        g_value_reset (&item);
        break;
      case GST_ITERATOR_RESYNC:
        for (T *got : items)
          gst_object_unref (got);
        items.clear ();
        gst_iterator_resync (iterator);
        break;
      default:
        more = false;
        break;
    }
  }
  g_value_unset (&item);
  gst_iterator_free (iterator);
  return items;
}

/* "PAUSED", or "READY->PAUSED" while a change is pending; asked without waiting. */
std::string
state_text (GstElement * element)
{
  GstState current = GST_STATE_VOID_PENDING, pending = GST_STATE_VOID_PENDING;
  const GstStateChangeReturn ret = gst_element_get_state (element, &current, &pending, 0);
  std::string text = gst_element_state_get_name (current);
  if (pending != GST_STATE_VOID_PENDING)
    text += std::string ("->") + gst_element_state_get_name (pending);
  if (ret == GST_STATE_CHANGE_FAILURE)
    text += " (failed)";
  return text;
}

/* ---- One stream's probes ---- */

/* The buffers that passed one pad so far and the last event: a counting probe on every src pad
 * of every element (on a sink's sink pad), read when a run stalls. */
struct PadCount
{
  GstElement *element = nullptr;    /* a reference */
  std::string pad;
  bool input = false;               /* a sink's sink pad */
  std::atomic<guint64> buffers { 0 };
  std::atomic<int> last_event { 0 };   /* GstEventType; 0 before any */

  PadCount () = default;
  PadCount (const PadCount &) = delete;
  PadCount & operator= (const PadCount &) = delete;
  ~PadCount ()
  {
    if (element)
      gst_object_unref (element);
  }

  static GstPadProbeReturn on_data (GstPad *, GstPadProbeInfo * info, gpointer data)
  {
    auto *count = static_cast<PadCount *> (data);
    if (info->type & GST_PAD_PROBE_TYPE_BUFFER) {
      count->buffers.fetch_add (1, std::memory_order_relaxed);
    } else if (info->type & GST_PAD_PROBE_TYPE_BUFFER_LIST) {
      count->buffers.fetch_add (gst_buffer_list_length (GST_PAD_PROBE_INFO_BUFFER_LIST (info)),
          std::memory_order_relaxed);
    } else if (GstEvent *event = GST_PAD_PROBE_INFO_EVENT (info)) {
      count->last_event.store ((int) GST_EVENT_TYPE (event), std::memory_order_relaxed);
    }
    return GST_PAD_PROBE_OK;
  }

  /* "out=12" ("in=" for a sink's pad; the pad's name too when it is not src or sink). */
  std::string text () const
  {
    std::string label = input ? "in" : "out";
    if (pad != "src" && pad != "sink")
      label += "[" + pad + "]";
    return label + "=" + std::to_string (buffers.load (std::memory_order_relaxed));
  }

  std::string event_text () const
  {
    const int event = last_event.load (std::memory_order_relaxed);
    return event ? gst_event_type_get_name ((GstEventType) event) : "none";
  }
};

constexpr size_t kMessagesKept = 24;

struct Stream
{
  int index = 0;
  int objects = 0;        /* the pipeline and its elements, watched by watch_objects () */
  ContextBroker *broker = nullptr;
  GstElement *pipeline = nullptr;
  GstElement *sink = nullptr;
  GstElement *measured = nullptr;       /* nullptr for the baseline */
  std::vector<GstElement *> opencl;     /* every OpenCL element of the chain */
  std::vector<std::unique_ptr<PadCount>> counts;   /* from the source to the sink */
  std::string stall_test;               /* --stall-for-test, for this pipeline only */
  std::atomic<int> stall_passed { 0 };

  /* What its bus said (under broker->lock). */
  std::string bus_error;
  bool bus_eos = false;
  std::deque<std::string> messages;     /* the last kMessagesKept: "+T s source what" */
  int messages_before = 0;              /* those no longer kept */

  std::mutex lock;
  std::optional<Clock::time_point> start;   /* set when the clock starts */
  int frames = 0;                           /* frames at the sink after the start */
  std::optional<Clock::time_point> eos_at;
  /* The frame in the measured element: when it entered, on which thread. */
  std::optional<Clock::time_point> entered;
  std::thread::id entered_on;
  std::vector<double> element_ms;
  bool read_kernel_time = false;  /* --read-kernel-time */

  /* The pipeline is in NULL by now (teardown ()), or was never started. */
  ~Stream ()
  {
    for (GstElement *element : opencl)
      gst_object_unref (element);
    if (measured)
      gst_object_unref (measured);
    if (sink)
      gst_object_unref (sink);
    counts.clear ();
    if (pipeline) {
      GstBus *bus = gst_element_get_bus (pipeline);
      gst_bus_set_sync_handler (bus, nullptr, nullptr, nullptr);
      gst_object_unref (bus);
      gst_object_unref (pipeline);
    }
  }

  /* Under broker->lock. */
  void note (const std::string & what)
  {
    char when[32];
    std::snprintf (when, sizeof when, "+%.3f s ", std::chrono::duration<double> (Clock::now () -
            broker->made).count ());
    messages.push_back (when + what);
    if (messages.size () > kMessagesKept) {
      messages.pop_front ();
      messages_before++;
    }
  }

  bool timing (Clock::time_point now)
  {
    return start && now >= *start;
  }

  static GstPadProbeReturn on_element_input (GstPad *, GstPadProbeInfo *, gpointer data)
  {
    auto *stream = static_cast<Stream *> (data);
    const auto now = Clock::now ();
    std::lock_guard<std::mutex> guard (stream->lock);
    stream->entered = now;
    stream->entered_on = std::this_thread::get_id ();
    return GST_PAD_PROBE_OK;
  }

  static GstPadProbeReturn on_element_output (GstPad *, GstPadProbeInfo *, gpointer data)
  {
    auto *stream = static_cast<Stream *> (data);
    const auto now = Clock::now ();
    std::lock_guard<std::mutex> guard (stream->lock);
    if (stream->entered && stream->entered_on == std::this_thread::get_id () &&
        stream->timing (*stream->entered))
      stream->element_ms.push_back (std::chrono::duration<double, std::milli> (now -
              *stream->entered).count ());
    stream->entered.reset ();
    if (stream->read_kernel_time)
      bench::kernel_time_ms (stream->measured);
    return GST_PAD_PROBE_OK;
  }

  static GstPadProbeReturn on_sink_buffer (GstPad *, GstPadProbeInfo *, gpointer data)
  {
    auto *stream = static_cast<Stream *> (data);
    const auto now = Clock::now ();
    std::lock_guard<std::mutex> guard (stream->lock);
    if (stream->timing (now))
      stream->frames++;
    return GST_PAD_PROBE_OK;
  }

  /* At EOS: the last frame is done once the sink could read it (frames left on the device by
   * the element are waited for here), then the end is taken. */
  static GstPadProbeReturn on_sink_event (GstPad *, GstPadProbeInfo * info, gpointer data)
  {
    GstEvent *event = GST_PAD_PROBE_INFO_EVENT (info);
    if (!event || GST_EVENT_TYPE (event) != GST_EVENT_EOS)
      return GST_PAD_PROBE_OK;
    auto *stream = static_cast<Stream *> (data);
    GstSample *sample = nullptr;
    g_object_get (stream->sink, "last-sample", &sample, nullptr);
    if (GstBuffer *buffer = sample ? gst_sample_get_buffer (sample) : nullptr) {
      GstMapInfo map;
      if (gst_buffer_map (buffer, &map, GST_MAP_READ))
        gst_buffer_unmap (buffer, &map);
    }
    if (sample)
      gst_sample_unref (sample);
    const auto now = Clock::now ();
    std::lock_guard<std::mutex> guard (stream->lock);
    stream->eos_at = now;
    return GST_PAD_PROBE_OK;
  }

  /* --stall-for-test, on the sink's pad before every other probe there: preroll drops every
   * buffer, eos every buffer after the first, both drop EOS; hang blocks the first buffer's
   * streaming thread for good (holding the sink pad's stream lock: NULL cannot be reached). */
  static GstPadProbeReturn on_stall_test (GstPad *, GstPadProbeInfo * info, gpointer data)
  {
    auto *stream = static_cast<Stream *> (data);
    if (info->type & GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM) {
      GstEvent *event = GST_PAD_PROBE_INFO_EVENT (info);
      return event && GST_EVENT_TYPE (event) == GST_EVENT_EOS ? GST_PAD_PROBE_DROP :
          GST_PAD_PROBE_OK;
    }
    if (stream->stall_test == "hang")
      for (;;)
        g_usleep (G_USEC_PER_SEC);
    if (stream->stall_test == "eos" && stream->stall_passed++ == 0)
      return GST_PAD_PROBE_OK;
    return GST_PAD_PROBE_DROP;
  }

  /* A counting probe on every src pad of every element (a sink's sink pad). */
  void attach_counters ()
  {
    const auto data = (GstPadProbeType) (GST_PAD_PROBE_TYPE_BUFFER |
        GST_PAD_PROBE_TYPE_BUFFER_LIST | GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM);
    /* Sorted from the sinks up: reversed, from the source down. */
    std::vector<GstElement *> elements =
        collect<GstElement> (gst_bin_iterate_sorted (GST_BIN (pipeline)));
    std::reverse (elements.begin (), elements.end ());
    for (GstElement *element : elements) {
      std::vector<GstPad *> pads = collect<GstPad> (gst_element_iterate_src_pads (element));
      const bool input = pads.empty ();
      if (input)
        pads = collect<GstPad> (gst_element_iterate_sink_pads (element));
      for (GstPad *pad : pads) {
        auto count = std::make_unique<PadCount> ();
        count->element = GST_ELEMENT (gst_object_ref (element));
        count->pad = GST_OBJECT_NAME (pad);
        count->input = input;
        gst_pad_add_probe (pad, data, PadCount::on_data, count.get (), nullptr);
        counts.push_back (std::move (count));
        gst_object_unref (pad);
      }
      gst_object_unref (element);
    }
  }

  void attach_probes ()
  {
    GstPad *sink_pad = gst_element_get_static_pad (sink, "sink");
    if (!stall_test.empty ())
      gst_pad_add_probe (sink_pad, (GstPadProbeType) (GST_PAD_PROBE_TYPE_BUFFER |
              GST_PAD_PROBE_TYPE_BUFFER_LIST | GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM),
          on_stall_test, this, nullptr);
    gst_pad_add_probe (sink_pad, GST_PAD_PROBE_TYPE_BUFFER, on_sink_buffer, this, nullptr);
    gst_pad_add_probe (sink_pad, GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, on_sink_event, this,
        nullptr);
    gst_object_unref (sink_pad);
    attach_counters ();
    if (!measured)
      return;
    GstPad *in = gst_element_get_static_pad (measured, "sink");
    GstPad *out = gst_element_get_static_pad (measured, "src");
    gst_pad_add_probe (in, GST_PAD_PROBE_TYPE_BUFFER, on_element_input, this, nullptr);
    gst_pad_add_probe (out, GST_PAD_PROBE_TYPE_BUFFER, on_element_output, this, nullptr);
    gst_object_unref (in);
    gst_object_unref (out);
  }

  /* One line: "pipeline 1 READY->PAUSED: filesrc1 PAUSED out=5, ..., sink READY->PAUSED in=0". */
  std::string summary () const
  {
    std::string text = "pipeline " + std::to_string (index) + " " + state_text (pipeline) + ":";
    GstElement *last = nullptr;
    for (const auto & count : counts) {
      if (count->element != last)
        text += std::string (last ? ", " : " ") + GST_OBJECT_NAME (count->element) + " " +
            state_text (count->element);
      text += " " + count->text ();
      last = count->element;
    }
    return text;
  }

  /* Several lines: each element's state, buffers and last event, then the last bus messages.
   * (The states are asked outside broker->lock: the sync handler takes it.) */
  std::string report () const
  {
    const std::string state = state_text (pipeline);
    std::string elements;
    for (const auto & count : counts) {
      char line[256];
      std::snprintf (line, sizeof line, "    %-20s %-18s %-14s last event %s\n",
          GST_OBJECT_NAME (count->element), state_text (count->element).c_str (),
          count->text ().c_str (), count->event_text ().c_str ());
      elements += line;
    }
    std::lock_guard<std::mutex> guard (broker->lock);
    std::string text = "  pipeline " + std::to_string (index) + ": " + state + "; bus: " +
        (bus_eos ? "EOS" : "no EOS") + (bus_error.empty () ? "" : ", error: " + bus_error) +
        "\n" + elements + "    its bus's last messages" + (messages_before ? " (" +
        std::to_string (messages_before) + " before these)" : std::string ()) + ":\n";
    for (const auto & message : messages)
      text += "      " + message + "\n";
    return text;
  }
};

GstBusSyncReply
ContextBroker::on_message (GstBus *, GstMessage * message, gpointer data)
{
  auto *stream = static_cast<Stream *> (data);
  ContextBroker & broker = *stream->broker;
  const GstMessageType type = GST_MESSAGE_TYPE (message);
  /* A sync handler that drops a message owns it (GstBusSyncHandler): each one not unreffed kept
   * its source element, so its pipeline, decoder and contexts alive, and after about 60
   * pipelines in one process NVIDIA's decoder and OpenCL contexts could no longer be made. */
  if (type == GST_MESSAGE_ELEMENT) {
    broker.element_messages++;
    gst_message_unref (message);
    return GST_BUS_DROP;
  }
  /* Tags come often (h264parse's bitrates) and say nothing about where a pipeline is. */
  if (type == GST_MESSAGE_TAG) {
    gst_message_unref (message);
    return GST_BUS_DROP;
  }
  std::string what = std::string (GST_MESSAGE_SRC (message) ?
      GST_OBJECT_NAME (GST_MESSAGE_SRC (message)) : "?") + " " + GST_MESSAGE_TYPE_NAME (message);
  std::string error;
  switch (type) {
    case GST_MESSAGE_NEED_CONTEXT: {
      const gchar *context_type = nullptr;
      gst_message_parse_context_type (message, &context_type);
      const bool answered = broker.answer (message);
      what += std::string (" ") + (context_type ? context_type : "?") + (answered ?
          " (answered)" : " (not answered)");
      break;
    }
    case GST_MESSAGE_HAVE_CONTEXT:
      what += " " + broker.keep (message);
      break;
    case GST_MESSAGE_STATE_CHANGED: {
      GstState old_state, new_state, pending;
      gst_message_parse_state_changed (message, &old_state, &new_state, &pending);
      what += std::string (" ") + gst_element_state_get_name (old_state) + "->" +
          gst_element_state_get_name (new_state);
      if (pending != GST_STATE_VOID_PENDING)
        what += std::string (" (pending ") + gst_element_state_get_name (pending) + ")";
      break;
    }
    case GST_MESSAGE_STREAM_STATUS: {
      GstStreamStatusType status;
      GstElement *owner = nullptr;
      gst_message_parse_stream_status (message, &status, &owner);
      what += status == GST_STREAM_STATUS_TYPE_CREATE ? " create" :
          status == GST_STREAM_STATUS_TYPE_ENTER ? " enter" :
          status == GST_STREAM_STATUS_TYPE_LEAVE ? " leave" : "";
      break;
    }
    case GST_MESSAGE_ERROR:
      error = bench::error_text (message);
      what += ": " + error;
      break;
    case GST_MESSAGE_WARNING: {
      GError *warning = nullptr;
      gchar *debug = nullptr;
      gst_message_parse_warning (message, &warning, &debug);
      what += std::string (": ") + (warning ? warning->message : "") + (debug ? std::string (
              " (") + debug + ")" : std::string ());
      g_clear_error (&warning);
      g_free (debug);
      break;
    }
    default:
      break;
  }
  {
    std::lock_guard<std::mutex> guard (broker.lock);
    stream->note (what);
    if (type == GST_MESSAGE_ERROR && stream->bus_error.empty ())
      stream->bus_error = error;
    if (type == GST_MESSAGE_EOS)
      stream->bus_eos = true;
  }
  broker.changed.notify_all ();
  gst_message_unref (message);
  return GST_BUS_DROP;
}

/* ---- Results ---- */

struct Row
{
  std::string case_name, element, mode;
  std::string pipeline;   /* what runs */
  std::string shown;      /* the same with the clip's own path (the one played K times is gone) */
  int streams = 0;
  std::string error;
  bool stalled = false;
  std::string stall_where;    /* which pipeline and phase */
  std::string stall_report;   /* the pipelines' states and messages, the threads (no stacks) */
  std::string stall_file;     /* the whole report with the stacks, next to the JSON */
  std::string device_name, memory;
  std::vector<double> fps, wall_ms, frames;
  std::vector<double> element_ms, kernel_ms;
  int contexts = -1, contexts_made = -1, contexts_expected = 0;
  int element_messages = 0;

  bool has_opencl () const { return element != "none"; }
};

std::string
string_property (GstElement * element, const char *name)
{
  if (!g_object_class_find_property (G_OBJECT_GET_CLASS (element), name))
    return "";
  gchar *value = nullptr;
  g_object_get (element, name, &value, nullptr);
  std::string text = value ? value : "";
  g_free (value);
  return text;
}

/* Checks that the mode took effect: the contexts every stream's elements use. "" or why not. */
std::string
check_contexts (const std::vector<std::unique_ptr<Stream>> & streams, const std::string & mode,
    ContextBroker & broker, Row & row)
{
  std::set<gpointer> all;
  for (size_t i = 0; i < streams.size (); i++) {
    std::set<gpointer> own;
    for (GstElement *element : streams[i]->opencl) {
      gpointer context = element_context (element);
      if (!context)
        return "pipeline " + std::to_string (i) + ": " + GST_OBJECT_NAME (element) +
            " answered no OpenCL context";
      own.insert (context);
    }
    if (own.size () != 1)
      return "pipeline " + std::to_string (i) + "'s elements use " +
          std::to_string (own.size ()) + " OpenCL contexts, not one";
    all.insert (own.begin (), own.end ());
  }
  {
    std::lock_guard<std::mutex> guard (broker.lock);
    row.contexts_made = broker.opencl_have_context;
  }
  row.contexts = (int) all.size ();
  row.contexts_expected = mode == "shared" ? 1 : (int) streams.size ();
  if (row.contexts != row.contexts_expected || row.contexts_made != row.contexts_expected)
    return "the " + mode + " mode did not take effect: " + std::to_string (streams.size ()) +
        " pipelines use " + std::to_string (row.contexts) + " OpenCL contexts (" +
        std::to_string (row.contexts_made) + " made), expected " +
        std::to_string (row.contexts_expected);
  return "";
}

/* ---- Bounded state changes ---- */

/* gst_element_set_state from a thread of its own, so that a call that does not return cannot
 * hold the program: wait () gives up at a deadline (the thread is left to itself then). */
class StateCall
{
public:
  /* The thread is named "<label> to-<STATE>" (/proc shows it in a stall's report). */
  StateCall (GstElement * element, GstState state, const std::string & label)
    : shared_ (std::make_shared<Shared> ())
  {
    gst_object_ref (element);
    std::string name = label + " to-" + gst_element_state_get_name (state);
    name.resize (std::min<size_t> (name.size (), 15));
    std::thread ([shared = shared_, element, state, name] {
      pthread_setname_np (pthread_self (), name.c_str ());
      const GstStateChangeReturn ret = gst_element_set_state (element, state);
      gst_object_unref (element);
      {
        std::lock_guard<std::mutex> guard (shared->lock);
        shared->ret = ret;
      }
      shared->done.notify_all ();
    }).detach ();
  }

  /* The call's return, or nothing when it had not returned by `deadline_us` (monotonic; given
   * a second at least). */
  std::optional<GstStateChangeReturn> wait (gint64 deadline_us)
  {
    const gint64 left_us = std::max<gint64> (deadline_us - g_get_monotonic_time (),
        G_USEC_PER_SEC);
    std::unique_lock<std::mutex> guard (shared_->lock);
    shared_->done.wait_for (guard, std::chrono::microseconds (left_us),
        [this] { return shared_->ret.has_value (); });
    return shared_->ret;
  }

private:
  struct Shared
  {
    std::mutex lock;
    std::condition_variable done;
    std::optional<GstStateChangeReturn> ret;
  };
  std::shared_ptr<Shared> shared_;
};

/* ---- Where a stalled run stands ---- */

/* The first line of a small file, or "". */
std::string
first_line (const std::string & path)
{
  gchar *contents = nullptr;
  if (!g_file_get_contents (path.c_str (), &contents, nullptr, nullptr))
    return "";
  std::string text = contents;
  g_free (contents);
  return text.substr (0, text.find ('\n'));
}

/* The name of a system call a thread waits in (x86-64's numbers; the number elsewhere). */
std::string
syscall_name (const std::string & syscall)
{
  const std::string number = syscall.substr (0, syscall.find (' '));
#if defined(__x86_64__)
  static const std::map<std::string, std::string> names { { "0", "read" }, { "1", "write" },
    { "7", "poll" }, { "16", "ioctl" }, { "23", "select" }, { "35", "nanosleep" },
    { "61", "wait4" }, { "202", "futex" }, { "230", "clock_nanosleep" },
    { "232", "epoll_wait" }, { "247", "waitid" }, { "270", "pselect6" }, { "271", "ppoll" },
    { "281", "epoll_pwait" } };
  auto found = names.find (number);
  if (found != names.end ())
    return found->second;
#endif
  return number.empty () ? "?" : number;
}

/* This process's threads from /proc: name, state, kernel wait channel, system call, and the
 * kernel stack where it may be read (a thread stuck in a driver's ioctl shows there). */
std::string
threads_report (bool kernel_stacks)
{
  std::string text = "== this process's threads (/proc/self/task)\n";
  GDir *dir = g_dir_open ("/proc/self/task", 0, nullptr);
  if (!dir)
    return text + "  (cannot read /proc/self/task)\n";
  std::vector<long> tids;
  while (const gchar *name = g_dir_read_name (dir))
    tids.push_back (std::atol (name));
  g_dir_close (dir);
  std::sort (tids.begin (), tids.end ());
  for (long tid : tids) {
    const std::string task = "/proc/self/task/" + std::to_string (tid);
    std::string state;
    gchar *status = nullptr;
    if (g_file_get_contents ((task + "/status").c_str (), &status, nullptr, nullptr)) {
      const std::string all = status;
      const size_t at = all.find ("State:");
      if (at != std::string::npos)
        state = all.substr (at + 6, all.find ('\n', at) - at - 6);
      g_free (status);
    }
    state.erase (0, state.find_first_not_of (" \t"));
    char line[512];
    std::snprintf (line, sizeof line, "  thread %ld %-16s %-12s wchan %s, syscall %s\n", tid,
        first_line (task + "/comm").c_str (), state.c_str (),
        first_line (task + "/wchan").c_str (), syscall_name (first_line (task +
                "/syscall")).c_str ());
    text += line;
    gchar *stack = nullptr;
    if (kernel_stacks &&
        g_file_get_contents ((task + "/stack").c_str (), &stack, nullptr, nullptr)) {
      for (const auto & frame : bench::split (stack, '\n'))
        text += "      kernel: " + frame + "\n";
      g_free (stack);
    }
  }
  return text;
}

/* `tool -p <this process>` (eu-stack: every thread's stack), 30 s at most; its output. */
std::string
run_stacks_tool (const std::string & tool)
{
  std::string text = "== " + tool + " -p " + std::to_string (getpid ()) + "\n";
  gchar *path = nullptr;
  const int fd = g_file_open_tmp ("bench-streams-stacks-XXXXXX", &path, nullptr);
  if (fd < 0)
    return text + "(no temporary file for its output)\n";
  const std::string pid = std::to_string (getpid ());
  const auto started = Clock::now ();
  const pid_t child = fork ();
  if (child == 0) {
    dup2 (fd, STDOUT_FILENO);
    dup2 (fd, STDERR_FILENO);
    execl (tool.c_str (), tool.c_str (), "-p", pid.c_str (), (char *) nullptr);
    _exit (127);
  }
  close (fd);
  std::string end;
  if (child < 0) {
    end = "(fork failed)\n";
  } else {
    int status = 0;
    bool exited = false;
    while (bench::ms_since (started) < 30000) {
      const pid_t got = waitpid (child, &status, WNOHANG);
      if (got == child || got < 0) {
        exited = got == child;
        break;
      }
      g_usleep (50000);
    }
    if (!exited) {
      kill (child, SIGKILL);
      waitpid (child, &status, 0);
      /* A tracer killed while attaching can leave its SIGSTOP behind, and a stopped process
       * cannot continue itself: a process of its own sends SIGCONT for 2 s. */
      const pid_t self = getpid ();
      const pid_t nudger = fork ();
      if (nudger == 0) {
        for (int i = 0; i < 10; i++) {
          kill (self, SIGCONT);
          usleep (200000);
        }
        _exit (0);
      }
      if (nudger > 0)
        waitpid (nudger, nullptr, 0);
      end = "(given up after 30 s)\n";
    } else if (WIFEXITED (status) && WEXITSTATUS (status) != 0) {
      end = "(exit status " + std::to_string (WEXITSTATUS (status)) + ")\n";
    } else if (WIFSIGNALED (status)) {
      end = "(ended by signal " + std::to_string (WTERMSIG (status)) + ")\n";
    }
    char took[64];
    std::snprintf (took, sizeof took, "(took %.1f s)\n", bench::ms_since (started) * 1e-3);
    end += took;
  }
  gchar *output = nullptr;
  if (g_file_get_contents (path, &output, nullptr, nullptr)) {
    text += output;
    g_free (output);
  }
  g_remove (path);
  g_free (path);
  return text + end;
}

/* ---- One run ---- */

struct Run
{
  ContextBroker broker;
  std::vector<std::unique_ptr<Stream>> streams;   /* destroyed before the broker */

  /* "" or the first error a pipeline's bus had: "pipeline i: ...". */
  std::string bus_error ()
  {
    std::lock_guard<std::mutex> guard (broker.lock);
    for (const auto & stream : streams)
      if (!stream->bus_error.empty ())
        return "pipeline " + std::to_string (stream->index) + ": " + stream->bus_error;
    return "";
  }

  /* Waits until `ready ()`, a bus's error (into *error) or the deadline; whether ready. */
  bool wait_for (gint64 deadline_us, const std::function<bool ()> & ready, std::string * error)
  {
    while (true) {
      if (ready ())
        return true;
      *error = bus_error ();
      if (!error->empty () || g_get_monotonic_time () >= deadline_us)
        return false;
      std::unique_lock<std::mutex> guard (broker.lock);
      broker.changed.wait_for (guard, std::chrono::milliseconds (20));
    }
  }

  /* The pipelines for which `test` is false: "pipeline 1 of 2", "pipelines 1, 3 of 4". */
  std::string which (const std::function<bool (const Stream &)> & test) const
  {
    std::string list;
    int found = 0;
    for (const auto & stream : streams)
      if (!test (*stream)) {
        list += (list.empty () ? "" : ", ") + std::to_string (stream->index);
        found++;
      }
    return (found == 1 ? "pipeline " : "pipelines ") + list + " of " +
        std::to_string (streams.size ());
  }
};

/* Prerolled: in PAUSED or above with nothing pending; *failed when its state change failed. */
bool
prerolled (const Stream & stream, std::string * failed)
{
  GstState current = GST_STATE_VOID_PENDING, pending = GST_STATE_VOID_PENDING;
  const GstStateChangeReturn ret = gst_element_get_state (stream.pipeline, &current, &pending,
      0);
  if (ret == GST_STATE_CHANGE_FAILURE && failed->empty ())
    *failed = "pipeline " + std::to_string (stream.index) + " failed to preroll";
  return ret == GST_STATE_CHANGE_FAILURE || (ret != GST_STATE_CHANGE_ASYNC &&
      current >= GST_STATE_PAUSED);
}

/* How a run ended early: an error (it failed) or a stall (it did not get on in time: where). */
struct Outcome
{
  std::string error;
  std::string stall;
};

/* Starts the run's pipelines as --start says, plays them to EOS and takes the figures into
 * `row`; an outcome when it ended early. The caller tears down. */
std::optional<Outcome>
play (const Options & o, const CaseSpec & spec, const std::string & mode, Run & run, Row & row)
{
  auto & streams = run.streams;
  const gint64 deadline = g_get_monotonic_time () + (gint64) o.timeout_s * G_USEC_PER_SEC;
  const std::string within = "within the run's " + std::to_string (o.timeout_s) + " s";
  const std::string start_mode = "(" + o.start + " start)";
  auto stall = [] (const std::string & where) { return Outcome { "", where }; };
  auto failure = [&run] (const std::string & why) {
    const std::string error = run.bus_error ();
    return Outcome { why + (error.empty () ? "" : ": " + error), "" };
  };

  /* Pipeline i to `state`, under the run's deadline. */
  auto set = [&] (size_t i, GstState state) -> std::optional<Outcome> {
    StateCall call (streams[i]->pipeline, state, "p" + std::to_string (i));
    const auto ret = call.wait (deadline);
    const std::string name = gst_element_state_get_name (state);
    if (!ret)
      return stall ("set_state (" + name + ") of pipeline " + std::to_string (i) +
          " did not return " + within + " " + start_mode);
    if (*ret == GST_STATE_CHANGE_FAILURE)
      return failure ("pipeline " + std::to_string (i) + " would not go to " + name);
    return std::nullopt;
  };
  /* Pipeline 0 first, until every shared context type was posted and kept (or, should a type
   * never be posted, pipeline 0 prerolled or its sink had a frame); the others after. */
  auto contexts_first = [&] (GstState state) -> std::optional<Outcome> {
    if (auto out = set (0, state))
      return out;
    std::string error;
    const bool kept = run.wait_for (deadline, [&run] {
          {
            std::lock_guard<std::mutex> guard (run.broker.lock);
            if (run.broker.missing_types ().empty ())
              return true;
          }
          std::string unused;
          return prerolled (*run.streams[0], &unused) ||
              run.streams[0]->counts.back ()->buffers.load () > 0;
        }, &error);
    if (!error.empty ())
      return failure ("pipeline 0 failed before posting its contexts");
    if (!kept) {
      std::lock_guard<std::mutex> guard (run.broker.lock);
      return stall ("pipeline 0 did not post its " + run.broker.missing_types () +
          " context " + within + " (" + o.start + " start: pipeline 0 alone in " +
          gst_element_state_get_name (state) + ")");
    }
    return std::nullopt;
  };
  const bool first_alone = !run.broker.shared_types.empty ();
  auto start_clock = [&] {
    const auto start = Clock::now ();
    for (auto & stream : streams) {
      std::lock_guard<std::mutex> guard (stream->lock);
      stream->start = start;
    }
    return start;
  };

  std::optional<Clock::time_point> start;
  if (o.start == "sequential") {
    for (size_t i = 0; i < streams.size (); i++) {
      if (auto out = set (i, GST_STATE_PAUSED))
        return out;
      std::string error, failed;
      if (!run.wait_for (deadline, [&] { return prerolled (*streams[i], &failed); }, &error))
        return error.empty () ? stall ("pipeline " + std::to_string (i) + " did not preroll " +
            within + " (sequential start: " + (i == 0 ? std::string ("the first)") : i == 1 ?
                std::string ("pipeline 0 prerolled before it)") : "pipelines 0 to " +
                std::to_string (i - 1) + " prerolled before it)")) : failure ("pipeline " +
            std::to_string (i) + " failed in preroll");
      if (!failed.empty ())
        return failure (failed);
    }
  } else if (o.start == "together") {
    size_t from = 0;
    if (first_alone) {
      if (auto out = contexts_first (GST_STATE_PAUSED))
        return out;
      from = 1;
    }
    for (size_t i = from; i < streams.size (); i++)
      if (auto out = set (i, GST_STATE_PAUSED))
        return out;
    std::string error, failed;
    auto all = [&] {
      for (const auto & stream : streams)
        if (!prerolled (*stream, &failed))
          return false;
      return true;
    };
    if (!run.wait_for (deadline, all, &error)) {
      if (!error.empty ())
        return failure ("a pipeline failed in preroll");
      std::string unused;
      return stall (run.which ([&unused] (const Stream & stream) {
                return prerolled (stream, &unused);
              }) + " did not preroll " + within + " (together start: " + (first_alone ?
              "pipeline 0 first, then the others" : "all set to PAUSED at once") + ")");
    }
    if (!failed.empty ())
      return failure (failed);
  } else {
    start = start_clock ();
    size_t from = 0;
    if (first_alone) {
      if (auto out = contexts_first (GST_STATE_PLAYING))
        return out;
      from = 1;
    }
    for (size_t i = from; i < streams.size (); i++)
      if (auto out = set (i, GST_STATE_PLAYING))
        return out;
  }
  if (!start) {
    if (spec.element != "none") {
      const std::string why = check_contexts (streams, mode, run.broker, row);
      if (!why.empty ())
        return Outcome { why, "" };
    }
    start = start_clock ();
    for (size_t i = 0; i < streams.size (); i++)
      if (auto out = set (i, GST_STATE_PLAYING))
        return out;
  }

  /* Every pipeline's EOS, under the run's deadline. */
  std::string error;
  auto eos = [&run] (const Stream & stream) {
    std::lock_guard<std::mutex> guard (run.broker.lock);
    return stream.bus_eos;
  };
  auto all_eos = [&] {
    for (const auto & stream : streams)
      if (!eos (*stream))
        return false;
    return true;
  };
  if (!run.wait_for (deadline, all_eos, &error)) {
    if (!error.empty ())
      return Outcome { error, "" };
    return stall (run.which (eos) + " did not reach EOS " + within +
        " (EOS wait after PLAYING, " + o.start + " start)");
  }
  if (o.start == "playing" && spec.element != "none") {
    const std::string why = check_contexts (streams, mode, run.broker, row);
    if (!why.empty ())
      return Outcome { why, "" };
  }

  Clock::time_point end = *start;
  int frames = 0;
  for (auto & stream : streams) {
    std::lock_guard<std::mutex> guard (stream->lock);
    if (!stream->eos_at)
      return Outcome { "pipeline " + std::to_string (stream->index) +
        " ended without its sink seeing EOS", "" };
    end = std::max (end, *stream->eos_at);
    frames += stream->frames;
    row.element_ms.insert (row.element_ms.end (), stream->element_ms.begin (),
        stream->element_ms.end ());
  }
  for (auto & stream : streams)
    if (stream->measured)
      row.kernel_ms.push_back (bench::kernel_time_ms (stream->measured));
  if (spec.element != "none") {
    row.device_name = bench::device_name (streams[0]->measured);
    row.memory = string_property (streams[0]->measured, "memory");
  }
  const double wall_ms = std::chrono::duration<double, std::milli> (end - *start).count ();
  if (frames == 0 || wall_ms <= 0)
    return Outcome { "no frames reached the sinks after the start", "" };
  row.frames.push_back (frames);
  row.wall_ms.push_back (wall_ms);
  row.fps.push_back (frames / (wall_ms * 1e-3));
  row.element_messages += run.broker.element_messages.load ();
  return std::nullopt;
}

/* Pipelines left behind: they would not reach NULL (their runs are never freed). */
int left_behind = 0;
/* Pipelines and their elements made and finalized (a weak reference on each): after a run is
 * freed, every one of them must be gone, else something holds a reference (the program's own
 * leak, which once kept every decoder and context alive until the GPU ran out of them). */
std::atomic<int> objects_made { 0 };
std::atomic<int> objects_finalized { 0 };
std::atomic<int> objects_left_behind { 0 };

void
object_finalized (gpointer, GObject *)
{
  objects_finalized++;
}

/* The step the program is in and since when, for the watchdog thread (start_watchdog): the
 * run's own limit covers its pipelines from their first state change to the teardown, not
 * making them or freeing them (where decoders and contexts are destroyed), nor anything
 * between runs. A step that lasts past the watchdog's limit is reported and ends the program. */
struct Watchdog
{
  std::mutex lock;
  std::string step = "starting";
  Clock::time_point since = Clock::now ();

  void enter (const std::string & what)
  {
    std::lock_guard<std::mutex> guard (lock);
    step = what;
    since = Clock::now ();
  }
};
Watchdog watchdog;

/* Watches the pipeline and every element in it; how many. */
int
watch_objects (GstElement * pipeline)
{
  int count = 1;
  g_object_weak_ref (G_OBJECT (pipeline), object_finalized, nullptr);
  GstIterator *it = gst_bin_iterate_recurse (GST_BIN (pipeline));
  GValue item = G_VALUE_INIT;
  while (gst_iterator_next (it, &item) == GST_ITERATOR_OK) {
    g_object_weak_ref (G_OBJECT (g_value_get_object (&item)), object_finalized, nullptr);
    count++;
    g_value_reset (&item);
  }
  g_value_unset (&item);
  gst_iterator_free (it);
  objects_made += count;
  return count;
}

/* Every pipeline of the run to NULL, each from a thread of its own, 10 s in all; the indices
 * of those that did not get there. */
std::set<int>
teardown (Run & run)
{
  std::vector<std::unique_ptr<StateCall>> calls;
  for (auto & stream : run.streams)
    calls.push_back (std::make_unique<StateCall> (stream->pipeline, GST_STATE_NULL,
            "p" + std::to_string (stream->index)));
  const gint64 deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
  std::set<int> stuck;
  for (size_t i = 0; i < calls.size (); i++)
    if (!calls[i]->wait (deadline))
      stuck.insert ((int) i);
  return stuck;
}

/* The report of a stalled run: where, each pipeline, the threads; printed to stderr with the
 * stacks (--stacks-tool) and written with them and the threads' kernel stacks (where /proc
 * shows them) to `file` (when not ""). Its text without the stacks. */
std::string
report_stall (const Options & o, Run & run, const std::string & title, const std::string & file)
{
  std::string pipelines = "== STALL: " + title + "\n";
  for (const auto & stream : run.streams)
    pipelines += stream->report ();
  const std::string threads = threads_report (false);
  const std::string stacks = o.stacks_tool.empty () ? "" : run_stacks_tool (o.stacks_tool);
  std::fprintf (stderr, "%s%s%s", pipelines.c_str (), threads.c_str (), stacks.c_str ());
  if (!file.empty () && bench::write_file (file, pipelines + threads_report (true) + stacks))
    std::fprintf (stderr, "== the report is in %s\n", file.c_str ());
  std::fprintf (stderr, "== end of the stall report\n");
  std::fflush (stderr);
  return pipelines + threads;
}

/* --probe-context: "" when a bare OpenCL context can be made (and released) on the first device
 * of the run's type, outside the plugin; else what failed. */
std::string
probe_bare_context (const Options & o)
{
  cl_uint platforms = 0;
  if (clGetPlatformIDs (0, nullptr, &platforms) != CL_SUCCESS || platforms == 0)
    return "no OpenCL platform";
  std::vector<cl_platform_id> ids (platforms);
  clGetPlatformIDs (platforms, ids.data (), nullptr);
  const cl_device_type type = o.gpu () ? CL_DEVICE_TYPE_GPU : CL_DEVICE_TYPE_CPU;
  for (cl_platform_id platform : ids) {
    cl_device_id device = nullptr;
    if (clGetDeviceIDs (platform, type, 1, &device, nullptr) != CL_SUCCESS)
      continue;
    cl_int status = CL_SUCCESS;
    cl_context context = clCreateContext (nullptr, 1, &device, nullptr, nullptr, &status);
    if (context)
      clReleaseContext (context);
    return status == CL_SUCCESS ? "" : "clCreateContext failed with status " +
        std::to_string (status);
  }
  return "no such OpenCL device";
}

/* --probe-context on a GPU: the state of CUDA's primary context of each GPU, through the CUDA
 * driver (loaded here, not linked): whether it is active, and if so what synchronizing it
 * returns. NVIDIA's OpenCL contexts may run on it; an error that a fault left in it (sticky:
 * 700 an illegal address, 719 a launch failure) would stop every OpenCL context of the process
 * at once, where running out of something would not. "" without the driver. */
std::string
probe_cuda_primary ()
{
  using Status = int;
  static void *library = dlopen ("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library)
    return "";
  auto find = [] (const char *name) { return dlsym (library, name); };
  auto init = reinterpret_cast<Status (*) (unsigned)> (find ("cuInit"));
  auto count = reinterpret_cast<Status (*) (int *)> (find ("cuDeviceGetCount"));
  auto get = reinterpret_cast<Status (*) (int *, int)> (find ("cuDeviceGet"));
  auto state = reinterpret_cast<Status (*) (int, unsigned *, int *)> (
      find ("cuDevicePrimaryCtxGetState"));
  auto retain = reinterpret_cast<Status (*) (void **, int)> (find ("cuDevicePrimaryCtxRetain"));
  auto release = reinterpret_cast<Status (*) (int)> (find ("cuDevicePrimaryCtxRelease_v2"));
  auto push = reinterpret_cast<Status (*) (void *)> (find ("cuCtxPushCurrent_v2"));
  auto pop = reinterpret_cast<Status (*) (void **)> (find ("cuCtxPopCurrent_v2"));
  auto synchronize = reinterpret_cast<Status (*) ()> (find ("cuCtxSynchronize"));
  int devices = 0;
  if (!init || !count || !get || !state || !retain || !release || !push || !pop ||
      !synchronize || init (0) != 0 || count (&devices) != 0)
    return "";
  std::string text;
  for (int ordinal = 0; ordinal < devices; ordinal++) {
    int device = 0;
    unsigned flags = 0;
    int active = 0;
    if (get (&device, ordinal) != 0 || state (device, &flags, &active) != 0)
      continue;
    text += "; CUDA " + std::to_string (ordinal) + " primary context ";
    if (!active) {
      text += "inactive";
      continue;
    }
    void *context = nullptr;
    if (retain (&context, device) != 0) {
      text += "active, not retained";
      continue;
    }
    Status synced = -1;
    if (push (context) == 0) {
      synced = synchronize ();
      void *popped = nullptr;
      pop (&popped);
    }
    release (device);
    text += "active, synchronize " + std::to_string (synced);
  }
  return text;
}

/* One run of N pipelines: their figures are added to `row`; "" or why the run failed.
 * *stalled when it stalled (in its start, its EOS wait or its teardown). */
std::string
run_once (const Options & o, const CaseSpec & spec, const std::string & mode, int count,
    int run_number, Row & row, bool * stalled)
{
  const std::string what = std::to_string (count) + " streams, " + row.case_name + ", " +
      row.mode + ", run " + std::to_string (run_number);
  watchdog.enter ("making the pipelines (" + what + ")");
  auto run = std::make_unique<Run> ();
  if (mode == "shared")
    run->broker.shared_types.insert (kOpenCLContextType);
  if (o.share_cuda)
    run->broker.shared_types.insert (kCudaContextType);
  if (o.share_gl)
    run->broker.shared_types.insert (kGLDisplayType);

  for (int i = 0; i < count; i++) {
    auto stream = std::make_unique<Stream> ();
    stream->index = i;
    stream->broker = &run->broker;
    stream->read_kernel_time = o.read_kernel_time;
    std::string error;
    stream->pipeline = bench::parse_pipeline (row.pipeline, &error);
    if (!stream->pipeline)
      return "the pipeline does not link: " + error;
    stream->objects = watch_objects (stream->pipeline);
    GstBin *bin = GST_BIN (stream->pipeline);
    stream->sink = gst_bin_get_by_name (bin, "sink");
    if (spec.element != "none")
      stream->measured = gst_bin_get_by_name (bin, "measured");
    for (const auto & name : spec.opencl_elements) {
      GstElement *element = gst_bin_get_by_name (bin, name.c_str ());
      bench::set_device (element, o.device);
      stream->opencl.push_back (element);
    }
    if (i == count - 1 && (o.stall_case.empty () || o.stall_case == row.case_name))
      stream->stall_test = o.stall_for_test;
    stream->attach_probes ();
    GstBus *bus = gst_element_get_bus (stream->pipeline);
    gst_bus_set_sync_handler (bus, ContextBroker::on_message, stream.get (), nullptr);
    gst_object_unref (bus);
    run->streams.push_back (std::move (stream));
  }

  const std::string label = std::to_string (count) + "-" + row.case_name + "-" + row.mode + "-run" +
      std::to_string (run_number);
  const std::string title = std::to_string (count) + " streams, " + row.case_name + ", " +
      row.mode + ", run " + std::to_string (run_number) + ", " + o.start + " start";
  watchdog.enter ("playing the pipelines (" + what + ")");
  const std::optional<Outcome> outcome = play (o, spec, mode, *run, row);
  std::string error = outcome ? outcome->error : "";
  if (outcome && !outcome->stall.empty ()) {
    *stalled = true;
    row.stall_where = outcome->stall;
    row.stall_file = o.json_path.empty () ? "" : o.json_path + ".stall-" + label + ".txt";
    error = "stalled: " + outcome->stall;
    for (const auto & stream : run->streams)
      error += "; " + stream->summary ();
    row.stall_report = report_stall (o, *run, title + ": " + outcome->stall, row.stall_file);
    if (!row.stall_file.empty ())
      error += "; report: " + row.stall_file;
  }

  watchdog.enter ("setting the pipelines to NULL (" + what + ")");
  const std::set<int> stuck = teardown (*run);
  if (!stuck.empty ()) {
    *stalled = true;
    const std::string why = run->which ([&stuck] (const Stream & stream) {
          return !stuck.count (stream.index);
        }) + " did not reach NULL within 10 s: left behind";
    std::string summaries;
    for (const auto & stream : run->streams)
      summaries += "; " + stream->summary ();
    const std::string file = o.json_path.empty () ? "" : o.json_path + ".stall-" + label +
        "-teardown.txt";
    const std::string report = report_stall (o, *run, title + ", teardown: " + why, file);
    if (row.stall_where.empty ()) {
      row.stall_where = "teardown: " + why;
      row.stall_file = file;
      row.stall_report = report;
      error = "stalled in the teardown: " + why + summaries + (error.empty () ? "" :
          "; the run had failed: " + error);
    } else {
      error += "; teardown: " + why + summaries;
    }
    if (!file.empty ())
      error += "; report: " + file;
    left_behind += (int) stuck.size ();
    /* Their threads may still use the run: it stays. */
    for (const auto & stream : run->streams)
      objects_left_behind += stream->objects;
    run.release ();
    std::fprintf (stderr, "== teardown: %s\n", why.c_str ());
  }
  watchdog.enter ("freeing the pipelines (" + what + ")");
  run.reset ();
  watchdog.enter ("between runs (after " + what + ")");
  return error;
}

/* A thread that ends the program when one step (Watchdog::enter) lasts past the limit, after
 * printing the step, the threads and, with --stacks-tool, their stacks (also into
 * <json>.watchdog.txt). */
void
start_watchdog (const Options & o)
{
  const int limit_s = o.watchdog_s > 0 ? o.watchdog_s : o.timeout_s + 120;
  std::thread ([o, limit_s] {
        while (true) {
          std::this_thread::sleep_for (std::chrono::seconds (1));
          std::string step;
          double seconds;
          {
            std::lock_guard<std::mutex> guard (watchdog.lock);
            step = watchdog.step;
            seconds = std::chrono::duration<double> (Clock::now () - watchdog.since).count ();
          }
          if (seconds < limit_s)
            continue;
          const std::string head = "== WATCHDOG: " + step + " for " +
              std::to_string ((int) seconds) + " s (limit " + std::to_string (limit_s) +
              " s): ending the program\n";
          const std::string threads = threads_report (true);
          const std::string stacks = o.stacks_tool.empty () ? "" :
              run_stacks_tool (o.stacks_tool);
          std::fprintf (stderr, "%s%s%s", head.c_str (), threads.c_str (), stacks.c_str ());
          if (!o.json_path.empty ())
            bench::write_file (o.json_path + ".watchdog.txt", head + threads + stacks);
          std::fflush (stderr);
          std::fflush (stdout);
          _exit (3);
        }
      }).detach ();
}

/* ---- Output ---- */

double
median_of (const std::vector<double> & values)
{
  return values.empty () ? 0.0 : bench::summarize (values).median;
}

const Row *
baseline_of (const std::vector<Row> & rows, int streams)
{
  for (const auto & row : rows)
    if (row.case_name == "baseline" && row.streams == streams && row.error.empty () &&
        !row.fps.empty ())
      return &row;
  return nullptr;
}

void
print_header ()
{
  std::printf ("%7s  %-13s %-9s %10s %9s %10s %8s %8s %10s %10s\n", "streams", "case", "mode",
      "fps", "fps IQR", "per stream", "vs base", "contexts", "host ms", "kernel ms");
}

void
print_row (const Row & row, const std::vector<Row> & rows)
{
  if (row.stalled) {
    std::printf ("%7d  %-13s %-9s STALLED: %s%s\n", row.streams, row.case_name.c_str (),
        row.mode.c_str (), row.stall_where.c_str (), row.stall_file.empty () ? "" :
        (" (report: " + row.stall_file + ")").c_str ());
    std::fflush (stdout);
    return;
  }
  if (!row.error.empty ()) {
    std::printf ("%7d  %-13s %-9s failed: %s\n", row.streams, row.case_name.c_str (),
        row.mode.c_str (), row.error.c_str ());
    std::fflush (stdout);
    return;
  }
  const bench::Stats fps = bench::summarize (row.fps);
  const Row *base = baseline_of (rows, row.streams);
  char ratio[16] = "-";
  if (base && row.case_name != "baseline")
    std::snprintf (ratio, sizeof ratio, "%.3f", fps.median / median_of (base->fps));
  char contexts[16] = "-";
  if (row.contexts >= 0)
    std::snprintf (contexts, sizeof contexts, "%d", row.contexts);
  char host[16] = "-", kernel[16] = "-";
  if (!row.element_ms.empty ())
    std::snprintf (host, sizeof host, "%.3f", median_of (row.element_ms));
  if (!row.kernel_ms.empty ())
    std::snprintf (kernel, sizeof kernel, "%.3f", median_of (row.kernel_ms));
  std::printf ("%7d  %-13s %-9s %10.1f %9.1f %10.1f %8s %8s %10s %10s\n", row.streams,
      row.case_name.c_str (), row.mode.c_str (), fps.median, fps.q3 - fps.q1,
      fps.median / row.streams, ratio, contexts, host, kernel);
  std::fflush (stdout);
}

std::string
results_json (const Options & o, const std::string & command, const std::string & load_before,
    const std::string & clip_note, const std::vector<Row> & rows, const std::string & stopped,
    bool complete)
{
  std::string text = bench::json_opening ("streams", command);
  text += "  \"machine\": " + bench::JsonObject ().add ("cpu", json_string (bench::cpu_model ()))
      .number ("cores", g_get_num_processors ()).add ("loadavg_before", json_string (load_before))
      .add ("loadavg_after", json_string (bench::load_average ())).text () + ",\n";
  text += "  \"device\": " + json_string (o.device) + ",\n";
  std::string device_name;
  for (const auto & row : rows)
    if (!row.device_name.empty ())
      device_name = row.device_name;
  text += "  \"device_name\": " + json_string (device_name) + ",\n";
  bench::JsonObject source;
  if (o.decode ()) {
    source.add ("kind", json_string ("decode")).add ("decoder", json_string (o.decoder))
        .add ("clip", json_string (o.clip))
        .number ("loops", o.loops).add ("played", json_string (clip_note))
        .add ("cuda_context", json_string (o.share_cuda ? "shared" : "per pipeline"))
        .add ("gl_display", json_string (o.share_gl ? "shared" : "per pipeline"))
        .add ("kernel_time_read", json_string (o.read_kernel_time ? "each frame" : "at EOS"));
  } else {
    source.add ("kind", json_string ("videotestsrc")).add ("pattern", json_string (o.pattern))
        .add ("format", json_string (o.format)).number ("width", o.width ())
        .number ("height", o.height ()).number ("frames_per_pipeline", o.frames)
        .add ("kernel_time_read", json_string (o.read_kernel_time ? "each frame" : "at EOS"));
  }
  text += "  \"source\": " + source.text () + ",\n";
  text += "  \"runs\": " + std::to_string (o.runs) + ",\n";
  text += "  \"complete\": " + std::string (complete ? "true" : "false") + ",\n";
  text += "  \"start\": " + json_string (o.start) + ",\n";
  text += "  \"timeout_s\": " + std::to_string (o.timeout_s) + ",\n";
  text += "  \"stall_for_test\": " + (o.stall_for_test.empty () ? std::string ("null") :
      json_string (o.stall_for_test + (o.stall_case.empty () ? "" : ":" + o.stall_case))) +
      ",\n";
  text += "  \"stopped\": " + (stopped.empty () ? std::string ("null") :
      json_string (stopped)) + ",\n";
  text += "  \"pipelines_left_behind\": " + std::to_string (left_behind) + ",\n";
  const std::string fps_definition = o.start == "playing" ?
      "frames that reached the sinks from the moment the pipelines were set to PLAYING (start "
      "playing: no preroll, so the contexts, the programs and the first frames are inside the "
      "time; in shared mode pipeline 0 goes first, until its context is posted), over the wall "
      "time from then to the last pipeline's EOS at its sink (the sink's last buffer mapped for "
      "reading first, so frames left on the device are done); one sample per run" :
      "frames that reached the sinks after every pipeline was set to PLAYING (all prerolled in "
      "PAUSED first, start " + o.start + "), over the wall time from then to the last "
      "pipeline's EOS at its sink (the sink's last buffer mapped for reading first, so frames "
      "left on the device are done); one sample per run";
  text += "  \"definitions\": " + bench::JsonObject ()
      .add ("start", json_string ("sequential: each pipeline to PAUSED and prerolled before the "
      "next; together: all prerolled at once (shared contexts: pipeline 0 to PAUSED first, only "
      "until its contexts are posted); playing: every pipeline straight to PLAYING, no preroll "
      "(shared contexts: pipeline 0 first, until its contexts are posted)"))
      .add ("fps", json_string (fps_definition))
      .add ("stall", json_string ("a run that does not preroll, post its context or reach EOS "
      "within timeout_s of its first state change: error says where (the phase, then each "
      "pipeline's state and each element's state and buffers out of its src pads so far), "
      "stall_report has the bus messages and the threads, stall_file the same with every "
      "thread's stack; the pipelines are then set to NULL, 10 s at most"))
      .add ("ratio_to_baseline", json_string ("median fps over the baseline's median fps at "
      "the same number of streams"))
      .add ("element_host_ms", json_string ("wall time of each frame in the measured element: "
      "from its sink pad to its push on its src pad (buffer probes on both pads, same "
      "streaming thread, steady_clock); every frame of every stream and run after PLAYING"))
      .add ("kernel_ms", json_string ("the element's kernel-time (its last frame's kernels, "
      "device time from OpenCL profiling events) read at each pipeline's EOS; one sample per "
      "pipeline and run"))
      .add ("contexts", json_string ("distinct OpenCL contexts the chain's elements answered "
      "to a context query after preroll (at EOS for start playing); contexts_made: have-context messages of "
      "gst.opencl.context in the run; both must be 1 (shared) or the number of streams "
      "(separate)"))
      .text () + ",\n";
  text += "  \"cases\": [";
  for (size_t i = 0; i < rows.size (); i++) {
    const Row & r = rows[i];
    const bench::Stats fps = bench::summarize (r.fps);
    const Row *base = baseline_of (rows, r.streams);
    const bool ratio = base && r.case_name != "baseline" && !r.fps.empty ();
    text += std::string (i ? ",\n" : "\n") + "    {";
    text += "\"case\": " + json_string (r.case_name) + ", \"element\": " +
        json_string (r.element) + ", \"mode\": " + json_string (r.mode) + ", \"streams\": " +
        std::to_string (r.streams) + ",\n";
    text += "     \"ok\": " + std::string (r.error.empty () ? "true" : "false") +
        ", \"error\": " + json_string (r.error) + ", \"device_name\": " +
        json_string (r.device_name) + ", \"memory\": " + json_string (r.memory) + ",\n";
    if (r.stalled)
      text += "     \"stalled\": true, \"stall_where\": " + json_string (r.stall_where) +
          ", \"stall_file\": " + (r.stall_file.empty () ? std::string ("null") :
          json_string (r.stall_file)) + ",\n     \"stall_report\": " +
          json_string (r.stall_report) + ",\n";
    text += "     \"pipeline\": " + json_string (r.shown) + ",\n";
    text += "     \"fps\": " + bench::json_stats (fps) + ", \"fps_samples\": " +
        bench::json_samples (r.fps) + ",\n";
    text += "     \"fps_per_stream\": " + json_number (r.fps.empty () ? 0.0 : fps.median /
        r.streams) + ", \"baseline_fps\": " + (base ? json_number (median_of (base->fps)) :
        std::string ("null")) + ", \"ratio_to_baseline\": " + (ratio ?
        json_number (fps.median / median_of (base->fps)) : std::string ("null")) + ",\n";
    text += "     \"frames_samples\": " + bench::json_samples (r.frames) +
        ", \"wall_ms_samples\": " + bench::json_samples (r.wall_ms) + ",\n";
    text += "     \"contexts\": " + (r.contexts < 0 ? std::string ("null") :
        std::to_string (r.contexts)) + ", \"contexts_made\": " + (r.contexts_made < 0 ?
        std::string ("null") : std::to_string (r.contexts_made)) + ", \"element_messages\": " +
        std::to_string (r.element_messages) + ",\n";
    text += "     \"element_host_ms\": " + (r.element_ms.empty () ? std::string ("null") :
        bench::json_stats (bench::summarize (r.element_ms))) + ", \"element_host_frames\": " +
        std::to_string (r.element_ms.size ()) + ",\n";
    text += "     \"kernel_ms\": " + (r.kernel_ms.empty () ? std::string ("null") :
        bench::json_stats (bench::summarize (r.kernel_ms))) + ", \"kernel_ms_samples\": " +
        bench::json_samples (r.kernel_ms) + "}";
  }
  return text + "\n  ]\n}\n";
}

/* The clip played `loops` times: H.264 byte streams concatenated are one stream (each copy
 * starts with its parameter sets and an IDR frame). "" when it cannot be written. */
std::string
looped_clip (const Options & o, std::string * folder)
{
  if (o.loops == 1)
    return o.clip;
  gchar *contents = nullptr;
  gsize length = 0;
  if (!g_file_get_contents (o.clip.c_str (), &contents, &length, nullptr))
    return "";
  GError *error = nullptr;
  gchar *made = g_dir_make_tmp ("bench-streams-XXXXXX", &error);
  g_clear_error (&error);
  std::string path;
  if (made) {
    *folder = made;
    path = *folder + "/clip.h264";
    std::string looped;
    looped.reserve (length * (size_t) o.loops);
    for (int i = 0; i < o.loops; i++)
      looped.append (contents, length);
    if (!bench::write_file (path, looped))
      path.clear ();
  }
  g_free (made);
  g_free (contents);
  return path;
}

std::string
join (const std::vector<std::string> & parts, const std::string & separator)
{
  std::string text;
  for (const auto & part : parts)
    text += (text.empty () ? "" : separator) + part;
  return text;
}

bool
have_factory (const char *name)
{
  GstElementFactory *factory = gst_element_factory_find (name);
  if (factory)
    gst_object_unref (factory);
  return factory != nullptr;
}

}  // namespace

int
main (int argc, char **argv)
{
  const std::string command = bench::initialize (&argc, &argv);
  const Options o = parse_options (argc, argv);
  const std::string load_before = bench::load_average ();

  for (const char *element : { "openclhistogram", "openclbilateral", "openclconvertscale" })
    if (!bench::have_element (element))
      return 1;
  if (o.decode ()) {
    for (const std::string & element : { o.decoder, std::string ("h264parse") }) {
      if (have_factory (element.c_str ()))
        continue;
      const std::string why = element + " is not registered (nvh264dec: NVIDIA's driver and "
          "gstreamer1.0-plugins-bad; h264parse: gstreamer1.0-plugins-bad; avdec_h264: "
          "gstreamer1.0-libav)";
      std::printf ("%s: the streams benchmark skipped\n", why.c_str ());
      std::string json = bench::json_opening ("streams", command) + "  \"device\": " +
          json_string (o.device) + ",\n  \"skipped\": " + json_string (why) +
          ",\n  \"cases\": []\n}\n";
      int status = bench::finish (o.json_path, json, false);
      gst_deinit ();
      return status;
    }
    if (!g_file_test (o.clip.c_str (), G_FILE_TEST_IS_REGULAR)) {
      std::fprintf (stderr, "no clip at %s\n", o.clip.c_str ());
      return 2;
    }
  }
  std::string temporary;
  const std::string clip = o.decode () ? looped_clip (o, &temporary) : "";
  if (o.decode () && clip.empty ()) {
    std::fprintf (stderr, "cannot write the clip played %d times\n", o.loops);
    return 1;
  }
  const std::string clip_note = !o.decode () ? "" : o.loops == 1 ? o.clip :
      o.clip + " concatenated " + std::to_string (o.loops) + " times";

  if (o.decode ())
    std::printf ("%s: N pipelines of filesrc ! h264parse ! %s ! <case> ! fakesink, %d runs "
        "each\n", clip_note.c_str (), o.decoder.c_str (), o.runs);
  else
    std::printf ("videotestsrc %s %dx%d %s, %d frames per pipeline: N pipelines of <case> ! "
        "fakesink, %d runs each\n", o.pattern.c_str (), o.width (), o.height (),
        o.format.c_str (), o.frames, o.runs);
  std::printf ("start %s; a run has %d s from its first state change to its last EOS, or it "
      "stalled%s%s\n", o.start.c_str (), o.timeout_s, o.stacks_tool.empty () ? "" :
      ("; stacks on a stall from " + o.stacks_tool).c_str (), o.stall_for_test.empty () ? "" :
      ("; --stall-for-test " + o.stall_for_test + ": the last pipeline of every run" +
          (o.stall_case.empty () ? "" : " of " + o.stall_case) + " stalls").c_str ());
  std::fflush (stdout);
  /* eu-stack attaches to this process from a child: allowed where Yama would not let a
   * process trace its parent. */
  if (!o.stacks_tool.empty ())
    prctl (PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
  start_watchdog (o);

  /* Rows of one N, each run in turn (run 1 of every case and mode, then run 2, ...), so that
   * the cases see the same load on a shared machine. */
  std::vector<Row> rows;
  std::vector<std::string> stalls;    /* the stalled runs since the last run that did not */
  std::string stopped;
  for (int count : o.streams) {
    const size_t first = rows.size ();
    for (const auto & name : o.cases) {
      const CaseSpec spec = case_spec (o, name);
      const std::vector<std::string> modes = spec.element == "none" ?
          std::vector<std::string> { "none" } : o.modes;
      for (const auto & mode : modes) {
        Row row;
        row.case_name = spec.name;
        row.element = spec.element;
        row.mode = mode;
        row.streams = count;
        row.pipeline = pipeline_description (o, clip, spec);
        row.shown = pipeline_description (o, o.clip, spec);
        rows.push_back (row);
      }
    }
    for (int run = 0; run < o.runs && stopped.empty (); run++) {
      for (size_t i = first; i < rows.size (); i++) {
        Row & row = rows[i];
        if (!row.error.empty ())
          continue;
        const CaseSpec spec = case_spec (o, row.case_name);
        bool stalled = false;
        row.error = run_once (o, spec, row.mode == "none" ? "separate" : row.mode, count,
            run + 1, row, &stalled);
        row.stalled = stalled;
        if (o.probe_context) {
          const std::string probe = probe_bare_context (o);
          const std::string primary = o.gpu () ? probe_cuda_primary () : "";
          std::fprintf (stderr, "PROBE after %d streams, %s, %s, run %d: %s%s\n", count,
              row.case_name.c_str (), row.mode.c_str (), run + 1,
              probe.empty () ? "a bare OpenCL context was made" : probe.c_str (),
              primary.c_str ());
        }
        const int alive = objects_made - objects_finalized - objects_left_behind;
        if (alive > 0 && row.error.empty ())
          row.error = std::to_string (alive) + " pipelines or elements still alive after their "
              "runs were freed (a reference leak in this program)";
        if (!row.error.empty ())
          std::fprintf (stderr, "FAILED: %d streams, %s, %s: %s\n", count,
              row.case_name.c_str (), row.mode.c_str (), row.error.c_str ());
        std::fflush (stderr);
        if (!stalled) {
          stalls.clear ();
          continue;
        }
        stalls.push_back (std::to_string (count) + " streams " + row.case_name + " " +
            row.mode + " run " + std::to_string (run + 1));
        if (stalls.size () >= 2) {
          std::vector<std::string> rest;
          for (size_t j = first; j < rows.size (); j++)
            if (rows[j].error.empty () && (int) rows[j].fps.size () < o.runs) {
              rest.push_back (rows[j].case_name + " " + rows[j].mode + " at N = " +
                  std::to_string (count));
              if (rows[j].fps.empty ())
                rows[j].error = "not run: the program stopped after two stalled runs in a row";
            }
          for (int later : o.streams)
            if (later > count)
              rest.push_back ("N = " + std::to_string (later));
          stopped = "two runs stalled in a row (" + stalls[0] + ", then " + stalls[1] +
              "): stopped" + (rest.empty () ? std::string () : "; not run (or not every run): " +
              join (rest, ", "));
          break;
        }
      }
    }
    std::printf ("\n");
    print_header ();
    for (size_t i = first; i < rows.size (); i++)
      print_row (rows[i], rows);
    /* What there is so far, in case the program is killed before the end ("complete": false). */
    if (!o.json_path.empty ())
      bench::write_file (o.json_path, results_json (o, command, load_before, clip_note, rows,
              stopped, false));
    if (!stopped.empty ()) {
      std::printf ("\nSTOPPED: %s\n", stopped.c_str ());
      std::fprintf (stderr, "STOPPED: %s\n", stopped.c_str ());
      break;
    }
  }

  std::string device_name;
  for (const auto & row : rows)
    if (!row.device_name.empty ())
      device_name = row.device_name;
  std::printf ("\ndevice: %s; fps: frames at the sinks after PLAYING over the wall time to the "
      "last EOS (median of %d runs); host ms: each frame's time in the element (median)\n",
      device_name.empty () ? "(unknown)" : device_name.c_str (), o.runs);

  if (!temporary.empty ()) {
    g_remove ((temporary + "/clip.h264").c_str ());
    g_rmdir (temporary.c_str ());
  }
  const int status = bench::finish (o.json_path, results_json (o, command, load_before,
          clip_note, rows, stopped, true), bench::any_failed (rows) || !stopped.empty ());
  if (left_behind > 0) {
    /* gst_deinit () would wait for their streaming threads, and exit () would run the drivers'
     * teardown under them: neither may return. */
    std::printf ("%d pipelines were left behind (they would not reach NULL): ending without "
        "gst_deinit\n", left_behind);
    std::fflush (stdout);
    std::fflush (stderr);
    _exit (status ? status : 1);
  }
  /* GStreamer's threads end here, before exit () tears down the drivers (bench_pipeline). */
  gst_deinit ();
  return status;
}
