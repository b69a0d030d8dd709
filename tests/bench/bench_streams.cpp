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
 *   bilateral      openclbilateral (radius 4 from its defaults); after openclconvertscale !
 *                  video/x-raw(memory:OpenCLMemory),format=RGBA where the source's format is
 *                  not one it takes (RGB formats and GRAY8: the decoders' NV12 and I420 are
 *                  not)
 *   convertscale   openclconvertscale ! video/x-raw(memory:OpenCLMemory),format=RGBA
 * Context modes (the baseline has no OpenCL element: it runs once per N, mode "none"):
 *   shared         every pipeline's elements use one gst.opencl.context: the first pipeline's
 *                  element creates it and posts have-context; a bus sync handler on every
 *                  pipeline keeps it and answers the other pipelines' need-context with it
 *                  (gst_element_set_context), as an application shares GStreamer's GL and CUDA
 *                  contexts
 *   separate       nobody answers need-context across pipelines: each pipeline creates its own
 * The pipelines are brought to PAUSED one after the other (so that the first one's context
 * exists before the next one asks), and prerolled: the context, the programs and the first
 * frames are made before the clock starts. Then every element's context is asked for with a
 * context query, and the run fails loudly unless the mode took effect: one context in all for
 * shared, one per pipeline (all different) for separate.
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
 *   - the element's kernel-time (its last frame's kernels, device time from profiling events)
 *     read at each pipeline's EOS, for the record; median over pipelines and runs.
 * Prints a table per N; --json PATH writes every figure. */
#include <glib/gstdio.h>
#include <gst/gst.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "benchlib.h"

namespace {

using bench::Clock;
using bench::json_number;
using bench::json_string;

constexpr const char *kOpenCLContextType = "gst.opencl.context";
constexpr const char *kCudaContextType = "gst.cuda.context";

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
  /* Test pattern (on the CPU without --clip) */
  std::vector<bench::FrameSize> sizes { { 640, 360, 0 } };
  int frames = 30;
  std::string pattern = "smpte";
  std::string format = "RGBA";
  std::string json_path;
  int timeout_s = 600;

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
      .sizes ("--size WxH", &o.sizes, "videotestsrc: the frame size (default 640x360)")
      .count ("--frames F", &o.frames, 2, "videotestsrc: frames per pipeline (default 30)")
      .text ("--pattern NAME", &o.pattern, "videotestsrc: its pattern (default smpte)")
      .text ("--format FMT", &o.format, "videotestsrc: the format (default RGBA)")
      .text ("--json PATH", &o.json_path, "write the results as JSON")
      .count ("--timeout S", &o.timeout_s, 1, "give up on a run after S seconds (default 600)");
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
  for (const char *taken : { "RGBA", "BGRA", "RGBx", "BGRx", "GRAY8" })
    if (format == taken)
      return true;
  return false;
}

CaseSpec
case_spec (const Options & o, const std::string & name)
{
  const std::string to_device_rgba =
      " ! openclconvertscale name=convert ! video/x-raw(memory:OpenCLMemory),format=RGBA";
  /* Decoders give 4:2:0 YUV for the clips (nvh264dec NV12, avdec_h264 I420). */
  const std::string source_format = o.decode () ? "NV12" : o.format;
  if (name == "histogram")
    return { name, "openclhistogram", " ! openclhistogram name=measured", { "measured" } };
  if (name == "bilateral") {
    if (bilateral_takes (source_format))
      return { name, "openclbilateral", " ! openclbilateral name=measured", { "measured" } };
    return { name, "openclbilateral", to_device_rgba + " ! openclbilateral name=measured",
      { "convert", "measured" } };
  }
  if (name == "convertscale")
    return { name, "openclconvertscale", " ! openclconvertscale name=measured ! "
      "video/x-raw(memory:OpenCLMemory),format=RGBA", { "measured" } };
  /* NVIDIA's decoders alone into CUDA memory, as bench_pipeline's decode case. */
  const bool cuda = o.decode () && o.decoder.rfind ("nv", 0) == 0;
  return { "baseline", "none", cuda ? " ! video/x-raw(memory:CUDAMemory)" : "", {} };
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

/* The bus sync handler of every pipeline of one run: keeps the contexts the pipelines post
 * (have-context) and, for the types it shares, answers need-context with the first one kept;
 * counts the OpenCL contexts made; drops element messages (openclhistogram posts one per frame:
 * an application reads them, a benchmark must not let them pile up on the bus). */
struct ContextBroker
{
  std::mutex lock;
  std::set<std::string> shared_types;
  std::map<std::string, GstContext *> kept;
  std::set<gpointer> opencl_made;
  int opencl_have_context = 0;
  std::atomic<int> element_messages { 0 };

  ContextBroker () = default;
  ContextBroker (const ContextBroker &) = delete;
  ContextBroker & operator= (const ContextBroker &) = delete;
  ~ContextBroker ()
  {
    for (auto & entry : kept)
      gst_context_unref (entry.second);
  }

  static GstBusSyncReply on_message (GstBus *, GstMessage * message, gpointer data)
  {
    auto *broker = static_cast<ContextBroker *> (data);
    switch (GST_MESSAGE_TYPE (message)) {
      case GST_MESSAGE_NEED_CONTEXT:
        broker->answer (message);
        break;
      case GST_MESSAGE_HAVE_CONTEXT:
        broker->keep (message);
        break;
      case GST_MESSAGE_ELEMENT:
        broker->element_messages++;
        return GST_BUS_DROP;
      default:
        break;
    }
    return GST_BUS_PASS;
  }

  void answer (GstMessage * message)
  {
    const gchar *type = nullptr;
    if (!gst_message_parse_context_type (message, &type) || !type)
      return;
    GstContext *context = nullptr;
    {
      std::lock_guard<std::mutex> guard (lock);
      auto found = kept.find (type);
      if (shared_types.count (type) && found != kept.end ())
        context = gst_context_ref (found->second);
    }
    if (!context)
      return;
    gst_element_set_context (GST_ELEMENT (GST_MESSAGE_SRC (message)), context);
    gst_context_unref (context);
  }

  void keep (GstMessage * message)
  {
    GstContext *context = nullptr;
    gst_message_parse_have_context (message, &context);
    if (!context)
      return;
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

/* ---- One stream's probes ---- */

struct Stream
{
  GstElement *pipeline = nullptr;
  GstElement *sink = nullptr;
  GstElement *measured = nullptr;       /* nullptr for the baseline */
  std::vector<GstElement *> opencl;     /* every OpenCL element of the chain */
  std::string error;

  std::mutex lock;
  std::optional<Clock::time_point> start;   /* set when the pipelines are set to PLAYING */
  int frames = 0;                           /* frames at the sink after the start */
  std::optional<Clock::time_point> eos_at;
  /* The frame in the measured element: when it entered, on which thread. */
  std::optional<Clock::time_point> entered;
  std::thread::id entered_on;
  std::vector<double> element_ms;

  ~Stream ()
  {
    for (GstElement *element : opencl)
      gst_object_unref (element);
    if (measured)
      gst_object_unref (measured);
    if (sink)
      gst_object_unref (sink);
    if (pipeline) {
      gst_element_set_state (pipeline, GST_STATE_NULL);
      gst_object_unref (pipeline);
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

  void attach_probes ()
  {
    GstPad *sink_pad = gst_element_get_static_pad (sink, "sink");
    gst_pad_add_probe (sink_pad, GST_PAD_PROBE_TYPE_BUFFER, on_sink_buffer, this, nullptr);
    gst_pad_add_probe (sink_pad, GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, on_sink_event, this,
        nullptr);
    gst_object_unref (sink_pad);
    if (!measured)
      return;
    GstPad *in = gst_element_get_static_pad (measured, "sink");
    GstPad *out = gst_element_get_static_pad (measured, "src");
    gst_pad_add_probe (in, GST_PAD_PROBE_TYPE_BUFFER, on_element_input, this, nullptr);
    gst_pad_add_probe (out, GST_PAD_PROBE_TYPE_BUFFER, on_element_output, this, nullptr);
    gst_object_unref (in);
    gst_object_unref (out);
  }
};

/* ---- Results ---- */

struct Row
{
  std::string case_name, element, mode;
  std::string pipeline;   /* what runs */
  std::string shown;      /* the same with the clip's own path (the one played K times is gone) */
  int streams = 0;
  std::string error;
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

/* The error a pipeline's bus holds, or a default. */
std::string
bus_error (GstElement * pipeline, const std::string & otherwise)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  std::string error = otherwise;
  if (GstMessage *message = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR)) {
    error += ": " + bench::error_text (message);
    gst_message_unref (message);
  }
  gst_object_unref (bus);
  return error;
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

/* One run of N pipelines: their figures are added to `row`; "" or why the run failed. */
std::string
run_once (const Options & o, const CaseSpec & spec,
    const std::string & mode, int count, Row & row)
{
  ContextBroker broker;
  if (mode == "shared")
    broker.shared_types.insert (kOpenCLContextType);
  if (o.share_cuda)
    broker.shared_types.insert (kCudaContextType);

  std::vector<std::unique_ptr<Stream>> streams;
  for (int i = 0; i < count; i++) {
    auto stream = std::make_unique<Stream> ();
    std::string error;
    stream->pipeline = bench::parse_pipeline (row.pipeline, &error);
    if (!stream->pipeline)
      return "the pipeline does not link: " + error;
    GstBin *bin = GST_BIN (stream->pipeline);
    stream->sink = gst_bin_get_by_name (bin, "sink");
    if (spec.element != "none")
      stream->measured = gst_bin_get_by_name (bin, "measured");
    for (const auto & name : spec.opencl_elements) {
      GstElement *element = gst_bin_get_by_name (bin, name.c_str ());
      bench::set_device (element, o.device);
      stream->opencl.push_back (element);
    }
    stream->attach_probes ();
    GstBus *bus = gst_element_get_bus (stream->pipeline);
    gst_bus_set_sync_handler (bus, ContextBroker::on_message, &broker, nullptr);
    gst_object_unref (bus);
    streams.push_back (std::move (stream));
  }

  /* One after the other, so that in shared mode the first pipeline's context is kept before
   * the next pipeline asks for one. */
  const GstClockTime preroll_limit = (GstClockTime) o.timeout_s * GST_SECOND;
  for (size_t i = 0; i < streams.size (); i++) {
    GstElement *pipeline = streams[i]->pipeline;
    GstStateChangeReturn ret = gst_element_set_state (pipeline, GST_STATE_PAUSED);
    if (ret != GST_STATE_CHANGE_FAILURE)
      ret = gst_element_get_state (pipeline, nullptr, nullptr, preroll_limit);
    if (ret == GST_STATE_CHANGE_FAILURE || ret == GST_STATE_CHANGE_ASYNC)
      return bus_error (pipeline, "pipeline " + std::to_string (i) + (ret ==
              GST_STATE_CHANGE_ASYNC ? " did not preroll in time" : " would not preroll"));
  }
  if (spec.element != "none") {
    std::string why = check_contexts (streams, mode, broker, row);
    if (!why.empty ())
      return why;
    row.device_name = bench::device_name (streams[0]->measured);
    row.memory = string_property (streams[0]->measured, "memory");
  }

  const auto start = Clock::now ();
  for (auto & stream : streams) {
    std::lock_guard<std::mutex> guard (stream->lock);
    stream->start = start;
  }
  for (size_t i = 0; i < streams.size (); i++)
    if (gst_element_set_state (streams[i]->pipeline, GST_STATE_PLAYING) ==
        GST_STATE_CHANGE_FAILURE)
      return bus_error (streams[i]->pipeline, "pipeline " + std::to_string (i) +
          " would not play");
  /* Every pipeline's bus in turn, under one deadline. */
  const gint64 deadline = g_get_monotonic_time () + (gint64) o.timeout_s * G_USEC_PER_SEC;
  for (size_t i = 0; i < streams.size (); i++) {
    GstBus *bus = gst_element_get_bus (streams[i]->pipeline);
    const int left_s = (int) std::max<gint64> (1, (deadline - g_get_monotonic_time ()) /
        G_USEC_PER_SEC);
    std::string error = bench::wait_for_eos (bus, left_s);
    gst_object_unref (bus);
    if (!error.empty ())
      return "pipeline " + std::to_string (i) + ": " + error;
  }

  Clock::time_point end = start;
  int frames = 0;
  for (auto & stream : streams) {
    std::lock_guard<std::mutex> guard (stream->lock);
    if (!stream->eos_at)
      return "a pipeline ended without its sink seeing EOS";
    end = std::max (end, *stream->eos_at);
    frames += stream->frames;
    row.element_ms.insert (row.element_ms.end (), stream->element_ms.begin (),
        stream->element_ms.end ());
  }
  for (auto & stream : streams)
    if (stream->measured)
      row.kernel_ms.push_back (bench::kernel_time_ms (stream->measured));
  const double wall_ms = std::chrono::duration<double, std::milli> (end - start).count ();
  if (frames == 0 || wall_ms <= 0)
    return "no frames reached the sinks after PLAYING";
  row.frames.push_back (frames);
  row.wall_ms.push_back (wall_ms);
  row.fps.push_back (frames / (wall_ms * 1e-3));
  row.element_messages += broker.element_messages.load ();
  return "";
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
    const std::string & clip_note, const std::vector<Row> & rows)
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
        .add ("cuda_context", json_string (o.share_cuda ? "shared" : "per pipeline"));
  } else {
    source.add ("kind", json_string ("videotestsrc")).add ("pattern", json_string (o.pattern))
        .add ("format", json_string (o.format)).number ("width", o.width ())
        .number ("height", o.height ()).number ("frames_per_pipeline", o.frames);
  }
  text += "  \"source\": " + source.text () + ",\n";
  text += "  \"runs\": " + std::to_string (o.runs) + ",\n";
  text += "  \"definitions\": " + bench::JsonObject ()
      .add ("fps", json_string ("frames that reached the sinks after every pipeline was set to "
      "PLAYING (all prerolled in PAUSED first), over the wall time from then to the last "
      "pipeline's EOS at its sink (the sink's last buffer mapped for reading first, so frames "
      "left on the device are done); one sample per run"))
      .add ("ratio_to_baseline", json_string ("median fps over the baseline's median fps at "
      "the same number of streams"))
      .add ("element_host_ms", json_string ("wall time of each frame in the measured element: "
      "from its sink pad to its push on its src pad (buffer probes on both pads, same "
      "streaming thread, steady_clock); every frame of every stream and run after PLAYING"))
      .add ("kernel_ms", json_string ("the element's kernel-time (its last frame's kernels, "
      "device time from OpenCL profiling events) read at each pipeline's EOS; one sample per "
      "pipeline and run"))
      .add ("contexts", json_string ("distinct OpenCL contexts the chain's elements answered "
      "to a context query after preroll; contexts_made: have-context messages of "
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

  /* Rows of one N, each run in turn (run 1 of every case and mode, then run 2, ...), so that
   * the cases see the same load on a shared machine. */
  std::vector<Row> rows;
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
    for (int run = 0; run < o.runs; run++) {
      for (size_t i = first; i < rows.size (); i++) {
        Row & row = rows[i];
        if (!row.error.empty ())
          continue;
        const CaseSpec spec = case_spec (o, row.case_name);
        row.error = run_once (o, spec, row.mode == "none" ? "separate" : row.mode, count,
            row);
        if (!row.error.empty ())
          std::fprintf (stderr, "FAILED: %d streams, %s, %s: %s\n", count,
              row.case_name.c_str (), row.mode.c_str (), row.error.c_str ());
      }
    }
    std::printf ("\n");
    print_header ();
    for (size_t i = first; i < rows.size (); i++)
      print_row (rows[i], rows);
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
          clip_note, rows), bench::any_failed (rows));
  /* GStreamer's threads end here, before exit () tears down the drivers (bench_pipeline). */
  gst_deinit ();
  return status;
}
