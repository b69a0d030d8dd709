/* gst-opencl benchmarks: whole pipelines into fakesink, frame by frame.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Cases (--cases, W x H from --sizes, N = warm-up + frames):
 *   resident    openclmandelboxsrc ! openclbilateral radius=4 ! openclhistogram ! fakesink, frames
 *               in OpenCL memory from the source to the sink (nothing is read back but the counts)
 *   round-trip  the same with `opencldownload ! openclupload` between the elements: every frame
 *               goes to the host and back between each pair
 *   filter-host videotestsrc pattern=solid-color ! RGBA ! openclbilateral radius=4 ! fakesink: one
 *               filter on system memory in and out, the sink mapping each frame for reading as
 *               a real consumer would (frames the plugin leaves on the device are read then)
 *   histogram-host  videotestsrc pattern=solid-color ! RGBA ! openclhistogram ! fakesink: the
 *               analysis element on system memory (upload, kernels, the counts read back)
 *   filter-pool videotestsrc pattern=solid-color ! RGBA ! openclupload ! openclbilateral radius=4
 *               ! RGBA ! fakesink: a filter fed OpenCL memory from a pool (openclupload's), its
 *               output read back to system memory (so that the wall time waits for the kernel)
 *   kernel-resident  openclkernelsrc (a kernel filling each frame with its number) ! OpenCL memory
 *               RGBA ! openclkernel (a trivial copy through __global buffers) ! fakesink: the
 *               programmable elements' own cost over their kernels, frames resident on the device
 *   kernel-image-resident  the same with both kernels reading and writing image2d_t frames
 *   decode      filesrc (GST_OPENCL_BENCH_CLIP, an H.264 clip) ! h264parse ! nvh264dec ! CUDA
 *               memory ! fakesink: NVIDIA's decoder alone, the ceiling of the next two
 *   decode-histogram  the same into openclhistogram, frames in CUDA memory
 *   decode-histogram-host  the same through system memory (nvh264dec downloads each frame)
 *   gl          gltestsrc ! GL memory RGBA ! openclbilateral radius=4 ! gldownload ! fakesink: GL
 *               textures in and out of the filter by the best interop path the drivers allow
 *               (reported as the element's `gl-interop`)
 *   gl-host     the same with GST_OPENCL_GL_INTEROP=host-copy: the textures cross the host
 *   gl-sink     gl without gldownload: the textures go into fakesink (no read-back queued on GL)
 *   gl-source   gltestsrc ! GL memory RGBA ! fakesink: GL drawing the frames alone
 *   gl-histogram  gltestsrc ! GL memory RGBA ! openclhistogram ! fakesink: GL frames read by a
 *               short kernel (one hand-over to OpenCL and back per frame, no copy out)
 *   gl-histogram-drawn  the same with glshader before the element: GL draws each frame twice
 *   gl-peer     gltestsrc ! GL memory RGBA ! glshader ! fakesink: glshader with its default
 *               shader, a GL filter of GStreamer's own drawing each frame: the peer of gl-sink
 *               (not followed by gldownload: GStreamer 1.22's gldownload after a GL filter
 *               posts a critical warning per frame)
 *   source-host videotestsrc pattern=solid-color ! RGBA ! fakesink, the sink mapping each frame:
 *               the CPU's cost of drawing a frame, which filter-host and histogram-host include
 *   filter-app  appsrc ! RGBA ! openclbilateral radius=4 ! RGBA ! fakesink: the application
 *               writes each frame into a buffer of the pool the element offers (found with an
 *               allocation query, as a producer's decide_allocation would), drawing it whole the
 *               first time a buffer is seen and then writing the frame number into its first
 *               pixel; every frame is still uploaded whole (a map for writing makes the host copy
 *               the newer one) and read back whole by the sink. The frame path without the cost
 *               of drawing pixels on the CPU.
 *   filter-app-queued  the same with a queue before the sink: the sink's read of frame n runs
 *               on its own thread while the element takes frame n+1
 *   histogram-app  appsrc (as filter-app) ! RGBA ! openclhistogram ! fakesink
 * Per frame, after --warmup frames:
 *   - wall: the steady_clock interval between frames at the sink (no queues: one streaming
 *     thread does everything, so this is the pipeline's time per frame);
 *   - per element: its `kernel-time` as the frame leaves it (device time from profiling events;
 *     for frames that stay on the device it lags by a frame or so, the medians are unaffected),
 *     and for filters the host time from the frame entering its sink pad to leaving its src pad;
 *   - overhead: wall minus the sum of the elements' kernel times, also as a fraction of that sum;
 *   - bytes moved between host and device per frame (GST_OPENCL_COUNT_TRANSFERS counters of the
 *     plugin, read through its exported gst_opencl_transfer_totals).
 * Prints a table; --json PATH writes every figure and sample.
 */
#include <gmodule.h>
#include <gst/gst.h>
#include <gst/video/video.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "benchlib.h"

namespace {

using bench::Clock;
using TotalsFunction = void (*) (guint64 *, guint64 *);

TotalsFunction transfer_totals = nullptr;

struct ElementProbe
{
  std::string name;
  GstElement *element = nullptr;
  bool has_sink = false;
  std::optional<Clock::time_point> entered;
  int frames = 0;
  std::vector<double> kernel_ms;
  std::vector<double> element_ms;
};

struct CaseRun
{
  std::mutex lock;
  int warmup = 0;
  std::vector<ElementProbe> elements;
  bench::FrameClock sink_clock;
  bool read_frames = false;  /* the sink reads each frame's pixels, as a real consumer would */
  guint64 bytes_to_device_start = 0, bytes_to_host_start = 0;
  guint64 bytes_to_device_end = 0, bytes_to_host_end = 0;
  std::string device_name;
};

/* An application feeding appsrc "app": `frames` frames written into buffers of the pool the
 * element downstream offers (system memory buffers of its own when it offers none). */
struct AppFeeder
{
  GstElement *appsrc = nullptr;
  GstVideoInfo info;
  int frames = 0, pushed = 0;
  GstBufferPool *pool = nullptr;
  bool from_pool = false;

  ~AppFeeder ()
  {
    if (pool) {
      gst_buffer_pool_set_active (pool, FALSE);
      gst_object_unref (pool);
    }
  }

  void find_pool ()
  {
    GstCaps *caps = gst_video_info_to_caps (&info);
    GstQuery *query = gst_query_new_allocation (caps, TRUE);
    GstPad *src = gst_element_get_static_pad (appsrc, "src");
    if (gst_pad_peer_query (src, query) && gst_query_get_n_allocation_pools (query) > 0) {
      guint size = 0, min = 0, max = 0;
      gst_query_parse_nth_allocation_pool (query, 0, &pool, &size, &min, &max);
      if (pool) {
        GstStructure *config = gst_buffer_pool_get_config (pool);
        gst_buffer_pool_config_set_params (config, caps, MAX (size, (guint) info.size),
            MAX (min, 2u), 0);
        from_pool = gst_buffer_pool_set_config (pool, config) &&
            gst_buffer_pool_set_active (pool, TRUE);
      }
    }
    gst_object_unref (src);
    gst_query_unref (query);
    gst_caps_unref (caps);
  }

  static void on_need_data (GstElement * element, guint, gpointer data)
  {
    auto *feeder = static_cast<AppFeeder *> (data);
    if (feeder->pushed == 0)
      feeder->find_pool ();
    if (feeder->pushed >= feeder->frames) {
      GstFlowReturn ret;
      g_signal_emit_by_name (element, "end-of-stream", &ret);
      return;
    }
    GstBuffer *buffer = nullptr;
    if (!feeder->from_pool ||
        gst_buffer_pool_acquire_buffer (feeder->pool, &buffer, nullptr) != GST_FLOW_OK)
      buffer = gst_buffer_new_allocate (nullptr, feeder->info.size, nullptr);
    static GQuark drawn = g_quark_from_static_string ("bench-pipeline-drawn");
    GstMapInfo map;
    if (gst_buffer_map (buffer, &map, GST_MAP_WRITE)) {
      /* Buffers come back from the pool with their pixels: draw each one once. */
      GstMemory *memory = gst_buffer_peek_memory (buffer, 0);
      if (!gst_mini_object_get_qdata (GST_MINI_OBJECT (memory), drawn)) {
        for (gsize i = 0; i < map.size; i++)
          map.data[i] = (guint8) (i * 7 + (i >> 12));
        gst_mini_object_set_qdata (GST_MINI_OBJECT (memory), drawn, GINT_TO_POINTER (1),
            nullptr);
      }
      std::memcpy (map.data, &feeder->pushed, sizeof feeder->pushed);
      gst_buffer_unmap (buffer, &map);
    }
    const GstClockTime duration = gst_util_uint64_scale_int (GST_SECOND, 1, 30);
    GST_BUFFER_PTS (buffer) = feeder->pushed * duration;
    GST_BUFFER_DURATION (buffer) = duration;
    feeder->pushed++;
    GstFlowReturn ret;
    g_signal_emit_by_name (element, "push-buffer", buffer, &ret);
    gst_buffer_unref (buffer);
  }
};

struct ProbeRef
{
  CaseRun *run;
  size_t index;
};

GstPadProbeReturn
on_element_input (GstPad *, GstPadProbeInfo *, gpointer data)
{
  auto *ref = static_cast<ProbeRef *> (data);
  std::lock_guard<std::mutex> guard (ref->run->lock);
  ref->run->elements[ref->index].entered = Clock::now ();
  return GST_PAD_PROBE_OK;
}

GstPadProbeReturn
on_element_output (GstPad *, GstPadProbeInfo *, gpointer data)
{
  auto *ref = static_cast<ProbeRef *> (data);
  auto now = Clock::now ();
  auto & probe = ref->run->elements[ref->index];
  const double kernel_ms = bench::kernel_time_ms (probe.element);
  std::lock_guard<std::mutex> guard (ref->run->lock);
  if (ref->run->device_name.empty ())
    ref->run->device_name = bench::device_name (probe.element);
  if (probe.frames++ >= ref->run->warmup) {
    probe.kernel_ms.push_back (kernel_ms);
    if (probe.has_sink && probe.entered)
      probe.element_ms.push_back (std::chrono::duration<double, std::milli> (now -
              *probe.entered).count ());
  }
  return GST_PAD_PROBE_OK;
}

GstPadProbeReturn
on_sink_input (GstPad *, GstPadProbeInfo * info, gpointer data)
{
  auto *run = static_cast<CaseRun *> (data);
  if (run->read_frames) {
    /* Frames the plugin leaves on the device reach the host here, when they are mapped. */
    GstMapInfo map;
    GstBuffer *buffer = GST_PAD_PROBE_INFO_BUFFER (info);
    if (buffer && gst_buffer_map (buffer, &map, GST_MAP_READ))
      gst_buffer_unmap (buffer, &map);
  }
  auto now = Clock::now ();
  std::lock_guard<std::mutex> guard (run->lock);
  /* Transfers between the last warm-up frame's arrival and the last frame's. */
  if (transfer_totals) {
    const int seen = run->sink_clock.frames;
    if (seen + 1 == run->warmup || (run->warmup == 0 && seen == 0))
      transfer_totals (&run->bytes_to_device_start, &run->bytes_to_host_start);
    transfer_totals (&run->bytes_to_device_end, &run->bytes_to_host_end);
  }
  run->sink_clock.tick (now);
  return GST_PAD_PROBE_OK;
}

std::string
describe_case (const std::string & name, int width, int height, int buffers,
    std::vector<std::string> *measured)
{
  const std::string device_caps = "video/x-raw(memory:OpenCLMemory),format=RGBA,width=" +
      std::to_string (width) + ",height=" + std::to_string (height) + ",framerate=30/1";
  const std::string host_caps = "video/x-raw,format=RGBA,width=" + std::to_string (width) +
      ",height=" + std::to_string (height) + ",framerate=30/1";
  const std::string n = std::to_string (buffers);
  if (name == "resident") {
    *measured = { "mandelbox", "bilateral", "histogram" };
    return "openclmandelboxsrc name=mandelbox num-buffers=" + n + " animate=false ! " +
        device_caps + " ! openclbilateral name=bilateral radius=4 ! " + device_caps +
        " ! openclhistogram name=histogram ! fakesink name=sink sync=false";
  }
  if (name == "round-trip") {
    *measured = { "mandelbox", "bilateral", "histogram" };
    return "openclmandelboxsrc name=mandelbox num-buffers=" + n + " animate=false ! " +
        device_caps + " ! opencldownload ! " + host_caps + " ! openclupload ! " + device_caps +
        " ! openclbilateral name=bilateral radius=4 ! " + device_caps + " ! opencldownload ! " +
        host_caps + " ! openclupload ! " + device_caps +
        " ! openclhistogram name=histogram ! fakesink name=sink sync=false";
  }
  if (name.rfind ("gl", 0) == 0) {
    /* GST_OPENCL_BENCH_GL_PATTERN: another gltestsrc pattern (what drawing costs GL). */
    const char *pattern = g_getenv ("GST_OPENCL_BENCH_GL_PATTERN");
    const std::string source = std::string ("gltestsrc pattern=") +
        (pattern ? pattern : "smpte") + " num-buffers=" + n + " ! video/x-raw(memory:GLMemory),"
        "format=RGBA,width=" + std::to_string (width) + ",height=" + std::to_string (height) +
        ",framerate=30/1 ! ";
    if (name == "gl-source")
      return source + "fakesink name=sink sync=false";
    if (name == "gl-peer")
      return source + "glshader ! fakesink name=sink sync=false";
    if (name == "gl-histogram" || name == "gl-histogram-drawn") {
      *measured = { "histogram" };
      return source + (name == "gl-histogram-drawn" ? "glshader ! " : "") +
          "openclhistogram name=histogram ! fakesink name=sink sync=false";
    }
    if (name == "gl" || name == "gl-host" || name == "gl-sink") {
      *measured = { "bilateral" };
      return source + "openclbilateral name=bilateral radius=4 ! " +
          (name == "gl-sink" ? "" : "gldownload ! ") + "fakesink name=sink sync=false";
    }
  }
  if (name == "kernel-resident" || name == "kernel-image-resident") {
    *measured = { "source", "kernel" };
    const bool images = name == "kernel-image-resident";
    const std::string fill = images ?
        "__kernel void fill (__write_only image2d_t out, int frame) { write_imagef (out, "
        "(int2) (get_global_id (0), get_global_id (1)), (float4) ((frame % 256) / 255.0f)); }" :
        "__kernel void fill (__global uint * dst, int dst_stride, int frame) { "
        "dst[get_global_id (1) * (dst_stride / 4) + get_global_id (0)] = frame; }";
    const std::string copy = images ?
        "__kernel void copy (__read_only image2d_t in, __write_only image2d_t out) { int2 p = "
        "(int2) (get_global_id (0), get_global_id (1)); write_imagef (out, p, "
        "read_imagef (in, p)); }" :
        "__kernel void copy (__global const uint * src, __global uint * dst, int src_stride, "
        "int dst_stride) { int x = get_global_id (0), y = get_global_id (1); "
        "dst[y * (dst_stride / 4) + x] = src[y * (src_stride / 4) + x]; }";
    return "openclkernelsrc name=source num-buffers=" + n + " source=\"" + fill + "\" ! " +
        device_caps + " ! openclkernel name=kernel source=\"" + copy + "\" ! " + device_caps +
        " ! fakesink name=sink sync=false";
  }
  if (name == "decode" || name == "decode-histogram" || name == "decode-histogram-host") {
    const char *clip = g_getenv ("GST_OPENCL_BENCH_CLIP");
    if (!clip)
      return "";
    const std::string decode = std::string ("filesrc location=") + clip +
        " ! h264parse ! nvh264dec";
    if (name == "decode")
      return decode + " ! video/x-raw(memory:CUDAMemory) ! fakesink name=sink sync=false";
    *measured = { "histogram" };
    return decode + (name == "decode-histogram" ? " ! video/x-raw(memory:CUDAMemory)" :
        " ! video/x-raw") + " ! openclhistogram name=histogram ! fakesink name=sink sync=false";
  }
  const std::string app_source = "appsrc name=app format=time caps=\"" + host_caps + "\" ! " +
      host_caps;
  if (name == "filter-app" || name == "filter-app-queued") {
    *measured = { "bilateral" };
    return app_source + " ! openclbilateral name=bilateral radius=4 ! " + host_caps +
        (name == "filter-app-queued" ? " ! queue max-size-buffers=3" : "") +
        " ! fakesink name=sink sync=false";
  }
  if (name == "histogram-app") {
    *measured = { "histogram" };
    return app_source + " ! openclhistogram name=histogram ! " + host_caps +
        " ! fakesink name=sink sync=false";
  }
  const std::string host_source = "videotestsrc pattern=solid-color num-buffers=" + n + " ! " +
      host_caps;
  if (name == "source-host")
    return host_source + " ! fakesink name=sink sync=false";
  if (name == "filter-host") {
    *measured = { "bilateral" };
    return host_source + " ! openclbilateral name=bilateral radius=4 ! " + host_caps +
        " ! fakesink name=sink sync=false";
  }
  if (name == "histogram-host") {
    *measured = { "histogram" };
    return host_source + " ! openclhistogram name=histogram ! " + host_caps +
        " ! fakesink name=sink sync=false";
  }
  if (name == "filter-pool") {
    *measured = { "bilateral" };
    return host_source + " ! openclupload ! " + device_caps +
        " ! openclbilateral name=bilateral radius=4 ! " + host_caps +
        " ! fakesink name=sink sync=false";
  }
  return "";
}

struct Result
{
  std::string name;
  int width = 0, height = 0, frames = 0;
  std::string description, error, device_name;
  std::string gl_interop;  /* the first measured element's `gl-interop` */
  std::vector<ElementProbe> elements;
  std::vector<double> wall_ms;
  double to_device_per_frame = -1, to_host_per_frame = -1;
};

Result
run_case (const std::string & name, int width, int height, int frames, int warmup, int timeout,
    const std::string & device)
{
  Result result;
  result.name = name;
  result.width = width;
  result.height = height;
  std::vector<std::string> measured;
  result.description = describe_case (name, width, height, warmup + frames, &measured);
  if (result.description.empty ()) {
    result.error = name.rfind ("decode", 0) == 0 ? "no clip (GST_OPENCL_BENCH_CLIP)" :
        "unknown case";
    return result;
  }
  GstElement *pipeline = bench::parse_pipeline (result.description, &result.error);
  if (!pipeline)
    return result;
  CaseRun run;
  run.warmup = warmup;
  run.sink_clock.warmup = warmup;
  run.read_frames = name == "filter-host" || name == "histogram-host" ||
      name == "filter-pool" || name == "source-host" || name.find ("-app") != std::string::npos;
  for (const auto & element_name : measured) {
    ElementProbe probe;
    probe.name = element_name;
    probe.element = gst_bin_get_by_name (GST_BIN (pipeline), element_name.c_str ());
    bench::set_device (probe.element, device);
    run.elements.push_back (probe);
  }
  std::vector<ProbeRef> refs (run.elements.size ());
  for (size_t i = 0; i < run.elements.size (); i++) {
    refs[i] = { &run, i };
    GstPad *src = gst_element_get_static_pad (run.elements[i].element, "src");
    gst_pad_add_probe (src, GST_PAD_PROBE_TYPE_BUFFER, on_element_output, &refs[i], nullptr);
    gst_object_unref (src);
    GstPad *sink = gst_element_get_static_pad (run.elements[i].element, "sink");
    if (sink) {
      run.elements[i].has_sink = true;
      gst_pad_add_probe (sink, GST_PAD_PROBE_TYPE_BUFFER, on_element_input, &refs[i], nullptr);
      gst_object_unref (sink);
    }
  }
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  GstPad *sink_pad = gst_element_get_static_pad (sink, "sink");
  gst_pad_add_probe (sink_pad, GST_PAD_PROBE_TYPE_BUFFER, on_sink_input, &run, nullptr);
  gst_object_unref (sink_pad);
  gst_object_unref (sink);

  AppFeeder feeder;
  feeder.appsrc = gst_bin_get_by_name (GST_BIN (pipeline), "app");
  if (feeder.appsrc) {
    gst_video_info_set_format (&feeder.info, GST_VIDEO_FORMAT_RGBA, width, height);
    feeder.frames = warmup + frames;
    g_signal_connect (feeder.appsrc, "need-data", G_CALLBACK (AppFeeder::on_need_data),
        &feeder);
  }

  /* Elements may only be asked for a device before they start. */
  const bool host_copy = name == "gl-host";
  if (host_copy)
    g_setenv ("GST_OPENCL_GL_INTEROP", "host-copy", TRUE);
  result.error = bench::run_to_eos (pipeline, timeout);
  if (host_copy)
    g_unsetenv ("GST_OPENCL_GL_INTEROP");
  if (!run.elements.empty ()) {
    GParamSpec *spec = g_object_class_find_property (G_OBJECT_GET_CLASS (
            run.elements[0].element), "gl-interop");
    if (spec) {
      gint value = 0;
      g_object_get (run.elements[0].element, "gl-interop", &value, nullptr);
      GEnumClass *enum_class = G_ENUM_CLASS (g_type_class_ref (spec->value_type));
      GEnumValue *named = g_enum_get_value (enum_class, value);
      result.gl_interop = named ? named->value_nick : "?";
      g_type_class_unref (enum_class);
    }
  }
  for (auto & probe : run.elements)
    gst_object_unref (probe.element);
  gst_object_unref (pipeline);
  if (feeder.appsrc) {
    if (!feeder.from_pool && result.error.empty ())
      result.error = "the element offered no pool";
    gst_object_unref (feeder.appsrc);
  }

  result.elements = run.elements;
  result.wall_ms = run.sink_clock.intervals_ms;
  result.frames = (int) result.wall_ms.size ();
  result.device_name = run.device_name;
  if (transfer_totals && result.frames > 0) {
    result.to_device_per_frame = (double) (run.bytes_to_device_end -
        run.bytes_to_device_start) / result.frames;
    result.to_host_per_frame = (double) (run.bytes_to_host_end - run.bytes_to_host_start) /
        result.frames;
  }
  if (result.error.empty () && result.frames < frames)
    result.error = "measured " + std::to_string (result.frames) + " of " +
        std::to_string (frames) + " frames";
  return result;
}

void
find_transfer_counters ()
{
  GstPlugin *plugin = gst_registry_find_plugin (gst_registry_get (), "opencl");
  if (!plugin)
    return;
  GstPlugin *loaded = gst_plugin_load (plugin);
  gst_object_unref (plugin);
  if (!loaded)
    return;
  GModule *module = g_module_open (gst_plugin_get_filename (loaded), G_MODULE_BIND_LAZY);
  gst_object_unref (loaded);
  gpointer symbol = nullptr;
  if (module && g_module_symbol (module, "gst_opencl_transfer_totals", &symbol))
    transfer_totals = (TotalsFunction) symbol;
}

double
kernel_sum (const Result & r)
{
  double sum = 0;
  for (const auto & e : r.elements)
    sum += bench::summarize (e.kernel_ms).median;
  return sum;
}

/* One case's line of the table. */
void
print_row (const Result & r, int name_width)
{
  char label[32];
  std::snprintf (label, sizeof label, "%dx%d", r.width, r.height);
  if (!r.error.empty ()) {
    std::printf ("%-*s %-10s failed: %s\n", name_width, r.name.c_str (), label, r.error.c_str ());
    std::fflush (stdout);
    return;
  }
  double wall = bench::summarize (r.wall_ms).median;
  double kernels = kernel_sum (r);
  std::printf ("%-*s %-10s %6d %9.3f %9.3f %9.3f %7.1f%% %11.2f %11.2f ", name_width,
      r.name.c_str (), label, r.frames, wall, kernels, wall - kernels,
      100.0 * (wall - kernels) / kernels, r.to_device_per_frame * 1e-6,
      r.to_host_per_frame * 1e-6);
  for (const auto & e : r.elements)
    std::printf (" %s %.3f / %s", e.name.c_str (), bench::summarize (e.kernel_ms).median,
        e.has_sink ? std::to_string (bench::summarize (e.element_ms).median).c_str () : "-");
  if (r.gl_interop != "none" && !r.gl_interop.empty ())
    std::printf ("  gl-interop %s", r.gl_interop.c_str ());
  std::printf ("\n");
  std::fflush (stdout);
}

/* The results file: every case's figures and samples. */
std::string
results_json (const std::string & command, int warmup, const std::vector<Result> & results)
{
  std::ostringstream out;
  out << "{\n  \"benchmark\": \"pipelines\",\n  \"command\": " << bench::json_string (command)
      << ",\n  \"warmup\": " << warmup << ",\n  \"cases\": [\n";
  for (size_t i = 0; i < results.size (); i++) {
    const auto & r = results[i];
    double wall = bench::summarize (r.wall_ms).median;
    double kernels = kernel_sum (r);
    out << "    {\"case\": " << bench::json_string (r.name) << ", \"width\": " << r.width <<
        ", \"height\": " << r.height << ", \"frames\": " << r.frames << ", \"ok\": " <<
        (r.error.empty () ? "true" : "false") << ", \"error\": " <<
        bench::json_string (r.error) << ", \"device_name\": " <<
        bench::json_string (r.device_name) << ", \"gl_interop\": " <<
        bench::json_string (r.gl_interop) << ",\n     \"pipeline\": " <<
        bench::json_string (r.description) << ",\n     \"wall_ms\": " <<
        bench::json_stats (bench::summarize (r.wall_ms)) << ", \"kernel_sum_ms\": " <<
        bench::json_number (kernels) << ", \"overhead_ms\": " <<
        bench::json_number (wall - kernels) << ", \"overhead_fraction\": " <<
        bench::json_number (kernels > 0 ? (wall - kernels) / kernels : 0) <<
        ", \"bytes_to_device_per_frame\": " << bench::json_number (r.to_device_per_frame) <<
        ", \"bytes_to_host_per_frame\": " << bench::json_number (r.to_host_per_frame) <<
        ",\n     \"wall_samples\": " << bench::json_samples (r.wall_ms) <<
        ",\n     \"elements\": [";
    for (size_t j = 0; j < r.elements.size (); j++) {
      const auto & e = r.elements[j];
      out << (j ? ", " : "") << "{\"name\": " << bench::json_string (e.name) <<
          ", \"kernel_ms\": " << bench::json_stats (bench::summarize (e.kernel_ms)) <<
          ", \"element_ms\": " << (e.has_sink ? bench::json_stats (bench::summarize (
                      e.element_ms)) : std::string ("null")) << "}";
    }
    out << "]}" << (i + 1 < results.size () ? "," : "") << "\n";
  }
  out << "  ]\n}\n";
  return out.str ();
}

struct Options : bench::FrameOptions
{
  Options ()
    : FrameOptions ({ { 1920, 1080, 0 }, { 3840, 2160, 0 } }, 20, 3)
  {
  }

  std::vector<std::string> cases { "resident", "round-trip", "filter-host" };
};

Options
parse_options (int argc, char **argv)
{
  Options options;
  options.warmup_minimum = 0;
  bench::OptionTable table = bench::frame_option_table (options);
  table.list ("--cases C,...", &options.cases, "resident, round-trip, filter-host, "
      "kernel-resident, kernel-image-resident, decode, decode-histogram, "
      "decode-histogram-host (these three: GST_OPENCL_BENCH_CLIP), "
      "histogram-host, filter-pool, gl, gl-host, gl-sink, gl-source, gl-peer, gl-histogram, gl-histogram-drawn, source-host, filter-app, filter-app-queued, "
      "histogram-app (default resident,round-trip,filter-host)");
  table.parse (argc, argv);
  return options;
}

}  // namespace

int
main (int argc, char **argv)
{
  g_setenv ("GST_OPENCL_COUNT_TRANSFERS", "1", TRUE);
  gst_init (&argc, &argv);
  const std::string command = bench::command_line ("bench_pipeline", argc, argv);
  const Options options = parse_options (argc, argv);
  find_transfer_counters ();
  if (!transfer_totals)
    std::fprintf (stderr, "the plugin exports no transfer counters: bytes not counted\n");

  /* The case column: as wide as the longest name asked for, 12 at least. */
  int name_width = 12;
  for (const auto & name : options.cases)
    name_width = std::max (name_width, (int) name.size ());
  std::printf ("%-*s %-10s %6s %9s %9s %9s %8s %11s %11s  per element: kernel / in-out ms\n",
      name_width, "case", "size", "frames", "wall ms", "kernels", "overhead", "ovh %",
      "to dev MB", "to host MB");
  std::vector<Result> results;
  for (const auto & size : options.sizes) {
    for (const auto & name : options.cases) {
      int n = size.frames ? size.frames : options.frames;
      results.push_back (run_case (name, size.width, size.height, n, options.warmup,
              options.timeout_s, options.device));
      print_row (results.back (), name_width);
    }
  }

  int status = bench::any_failed (results) ? 1 : 0;
  if (!options.json_path.empty () && !bench::write_file (options.json_path,
          results_json (command, options.warmup, results)))
    status = 1;
  /* GStreamer's threads (task pools, GL) end here, before exit () tears down the drivers: a
   * thread of NVIDIA's GL driver that outlived main crashed the program in 4 of 90 exits on
   * the H100 (SIGSEGV in pthread_mutex_lock from a thread's exit; gst-launch-1.0, which ends
   * with gst_deinit, never did: tests/bench/results/gl-soak-h100). */
  gst_deinit ();
  return status;
}
