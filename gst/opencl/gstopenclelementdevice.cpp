/* gst-opencl: the device, context and kernel timing every OpenCL element shares.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "opencl/gstopenclelementdevice.h"

#include <algorithm>

#include "opencl/gstopencldevice.h"
#include "opencl/gstopenclstats.h"
#include "opencl/gstopenclutils.h"

#define GST_CAT_DEFAULT gst_opencl_debug

/* The paths' names: the property's nicks, gl_interop_path_name () and GST_OPENCL_GL_INTEROP. */
static const GEnumValue gl_interop_values[] = {
  { (gint) gst_opencl::GlInteropPath::None, "No frames in GL memory", "none" },
  { (gint) gst_opencl::GlInteropPath::HostCopy,
      "Through system memory (download and upload)", "host-copy" },
  { (gint) gst_opencl::GlInteropPath::ExternalMemory,
      "Device memory imported by OpenCL and GL, copied on the device", "external-memory" },
  { (gint) gst_opencl::GlInteropPath::KhrGlSharing,
      "GL textures wrapped as OpenCL images (cl_khr_gl_sharing)", "khr-gl-sharing" },
  { 0, nullptr, nullptr },
};

GType
gst_opencl_gl_interop_get_type (void)
{
  static GType type = 0;
  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("GstOpenCLGLInterop", gl_interop_values));
  return type;
}

namespace gst_opencl {

/* Read from the enum's table without registering the type: programs that link the layer in
 * statically (the tests) load the plugin too, which registers it. */
const char *
gl_interop_path_name (GlInteropPath path)
{
  for (const GEnumValue *value = gl_interop_values; value->value_nick; value++)
    if (value->value == (gint) path)
      return value->value_nick;
  return "?";
}


ElementDevice::~ElementDevice ()
{
  /* Events of the last frames first: they belong to the context, which this may hold last. */
  discard_frame ();
  if (context_)
    gst_opencl_context_device (context_).waits.remove_watch (&watch_);
  gst_clear_object (&context_);
}

void
ElementDevice::install_properties (PropertyTable & table, ElementDevice & (*of) (GObject *))
{
  /* A read-only row: the value as `read` gives it. */
  auto reader = [of] (void (ElementDevice::*read) (GstElement *, GValue *)) {
    return [of, read] (GObject * object, GValue * value) {
      (of (object).*read) (GST_ELEMENT (object), value);
    };
  };
  /**
   * GstOpenCLElement:device:
   *
   * The OpenCL device: empty for automatic (the first GPU, else the first CPU device), "gpu",
   * "cpu", or "<platform name substring>[:<device index>]". When empty, the environment variable
   * GST_OPENCL_DEVICE is read. Takes effect at the next start. When automatic, an element that
   * receives CUDA memory moves to that memory's GPU at caps time, and one that takes or gives GL
   * memory to the GL context's GPU where GL tells it (docs/scaling.md).
   */
  table.add (
      g_param_spec_string ("device", "Device",
          "OpenCL device: empty = automatic (first GPU, else first CPU, or the GPU of CUDA "
          "frames received or of the GL context; GST_OPENCL_DEVICE overrides), \"gpu\", "
          "\"cpu\" or "
          "\"<platform name substring>[:<device index>]\"",
          "", (GParamFlags) (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
              GST_PARAM_MUTABLE_READY)),
      [of] (GObject * object, const GValue * value) { of (object).write_device (value); },
      reader (&ElementDevice::read_device));
  /**
   * GstOpenCLElement:device-name:
   *
   * The device in use, "<device name> (<platform name>)"; NULL before the element starts. Two
   * devices of one model are told apart by their index in the platform: "<device name> #1
   * (<platform name>)".
   */
  table.add (
      g_param_spec_string ("device-name", "Device name",
          "The OpenCL device in use, as \"<device> (<platform>)\" (set once started)", nullptr,
          (GParamFlags) (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS)), nullptr,
      reader (&ElementDevice::read_device_name));
  /**
   * GstOpenCLElement:kernel-time:
   *
   * Device time of the kernels of a recent frame, in nanoseconds, from OpenCL profiling events.
   * While it is read (a read within the last 8 frames) every frame is timed, so a reader that
   * reads it per frame gets each frame's figure (a few frames late where results stay on the
   * device); otherwise one frame in 8 is timed and the others launch without profiling events,
   * which spares the host their cost (about 6 us a launch on NVIDIA's driver).
   */
  table.add (
      g_param_spec_uint64 ("kernel-time", "Kernel time",
          "Device time of a recent frame's kernels in nanoseconds (OpenCL profiling events; "
          "every frame is timed while this is read, one in 8 otherwise)",
          0, G_MAXUINT64, 0, (GParamFlags) (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS)), nullptr,
      reader (&ElementDevice::read_kernel_time));
  /**
   * GstOpenCLElement:gl-interop:
   *
   * How frames in GL memory reach the kernels, chosen at caps negotiation, best first:
   * khr-gl-sharing (textures wrapped as OpenCL images), external-memory (device memory
   * imported by both APIs, copied on the device), host-copy (through system memory); none when
   * no GL memory was negotiated. The debug log (GST_DEBUG=opencl:5) says why better paths were
   * not taken; GST_OPENCL_GL_INTEROP=<path> asks for a lesser one.
   */
  table.add (
      g_param_spec_enum ("gl-interop", "GL interop",
          "How frames in GL memory reach the kernels (chosen at negotiation, best possible)",
          GST_TYPE_OPENCL_GL_INTEROP, 0,
          (GParamFlags) (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS)), nullptr,
      reader (&ElementDevice::read_gl_interop));
  /**
   * GstOpenCLElement:memory:
   *
   * The memory of the frames the element takes and gives, as negotiated: "system", "opencl",
   * "gl" or "cuda", as "<in> -> <out>" for filters ("cuda -> opencl"), one word for analysis
   * elements and sources; NULL before negotiation. Frames in CUDA memory (nvh264dec,
   * cudaupload) are copied on the device; docs/memory.md says how each memory travels.
   */
  table.add (
      g_param_spec_string ("memory", "Memory",
          "The memory of the frames taken and given, as negotiated: system, opencl, gl or "
          "cuda (\"<in> -> <out>\")", nullptr,
          (GParamFlags) (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS)), nullptr,
      reader (&ElementDevice::read_memory));
  /**
   * GstOpenCLElement:variant:
   *
   * The kernel variant the element runs, for elements whose kernels come in tuned variants
   * (chosen on the first frame: forced with GST_OPENCL_VARIANT_<FAMILY>, else remembered, else
   * timed; GST_OPENCL_TUNING=0 takes the device's default): its name, or "family=name" joined
   * by ", " when the element tunes several families. NULL before the first choice, after a
   * stop, and for elements without variants. Each choice is also posted as an
   * `opencl-variant` element message (docs/performance.md).
   */
  table.add (
      g_param_spec_string ("variant", "Variant",
          "The kernel variant in use (chosen on the first frame; \"family=name, ...\" when "
          "several are tuned)", nullptr,
          (GParamFlags) (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS)), nullptr,
      reader (&ElementDevice::read_variant));
}

void
ElementDevice::set_memory (const std::string & memory)
{
  std::lock_guard<std::mutex> lock (settings_lock_);
  memory_ = memory;
}

void
ElementDevice::write_device (const GValue * value)
{
  std::lock_guard<std::mutex> lock (settings_lock_);
  const gchar *text = g_value_get_string (value);
  device_property_ = text ? text : "";
}

void
ElementDevice::read_device (GstElement *, GValue * value)
{
  std::lock_guard<std::mutex> lock (settings_lock_);
  g_value_set_string (value, device_property_.c_str ());
}

void
ElementDevice::read_device_name (GstElement * element, GValue * value)
{
  GST_OBJECT_LOCK (element);
  g_value_set_string (value, context_ ?
      gst_opencl_context_device (context_).name.c_str () : nullptr);
  GST_OBJECT_UNLOCK (element);
}

void
ElementDevice::read_kernel_time (GstElement * element, GValue * value)
{
  try {
    harvest_deferred ();
  } catch (...) {
    GST_WARNING_OBJECT (element, "cannot read the profiling events of the last frame");
  }
  g_value_set_uint64 (value, kernel_time_ns_.load ());
  kernel_time_read_at_ = frames_.load ();
}

void
ElementDevice::read_gl_interop (GstElement *, GValue * value)
{
  g_value_set_enum (value, gl_interop_.load ());
}

void
ElementDevice::read_memory (GstElement *, GValue * value)
{
  std::lock_guard<std::mutex> lock (settings_lock_);
  g_value_set_string (value, memory_.empty () ? nullptr : memory_.c_str ());
}

void
ElementDevice::read_variant (GstElement *, GValue * value)
{
  std::lock_guard<std::mutex> lock (settings_lock_);
  std::string text;
  for (const auto & variant : variants_)
    text += (text.empty () ? "" : ", ") + (variants_.size () == 1 ? variant.second :
        variant.first + "=" + variant.second);
  g_value_set_string (value, text.empty () ? nullptr : text.c_str ());
}

std::string
ElementDevice::device_string ()
{
  std::lock_guard<std::mutex> lock (settings_lock_);
  return effective_device_string (device_property_);
}

void
ElementDevice::set_context (GstElement * element, GstContext * context)
{
  auto spec = parse_device_spec (device_string ());
  if (spec)
    gst_opencl_handle_set_context (element, context, *spec, &context_);
}

bool
ElementDevice::handle_context_query (GstElement * element, GstQuery * query)
{
  if (GST_QUERY_TYPE (query) != GST_QUERY_CONTEXT)
    return false;
  GST_OBJECT_LOCK (element);
  GstOpenCLContext *context = context_ ? GST_OPENCL_CONTEXT (gst_object_ref (context_)) :
      nullptr;
  GST_OBJECT_UNLOCK (element);
  bool answered = gst_opencl_handle_context_query (element, query, context);
  gst_clear_object (&context);
  return answered;
}

void
ElementDevice::start (GstElement * element)
{
  kernel_time_ns_ = 0;
  gl_interop_ = 0;
  watch_.clear_stop ();
  set_memory ("");
  {
    std::lock_guard<std::mutex> lock (settings_lock_);
    variants_.clear ();
  }
  discard_frame ();
  gst_opencl_ensure_element_context (element, device_string (), &context_);
  element_ = element;
  watch_.element = element;
  gst_opencl_context_device (context_).waits.add_watch (&watch_);
  GST_INFO_OBJECT (element, "running on %s", gst_opencl_context_device (context_).name.c_str ());
}

void
ElementDevice::bind_to_gl (GstElement * element,
    const std::vector<cl_context_properties> & gl_properties)
{
  replace_context (element, gst_opencl_context_new (device_string (), &gl_properties));
  GST_INFO_OBJECT (element, "OpenCL context created against the GL context");
}

void
ElementDevice::follow_device (GstElement * element, const std::string & device_string)
{
  replace_context (element, gst_opencl_context_new (device_string));
  GST_INFO_OBJECT (element, "following the frames to %s", device ().name.c_str ());
}

void
ElementDevice::replace_context (GstElement * element, GstOpenCLContext * bound)
{
  GST_OBJECT_LOCK (element);
  GstOpenCLContext *old = context_;
  context_ = bound;
  GST_OBJECT_UNLOCK (element);
  if (old)
    gst_opencl_context_device (old).waits.remove_watch (&watch_);
  gst_opencl_context_device (bound).waits.add_watch (&watch_);
  discard_frame ();
  gst_clear_object (&old);
  gst_opencl_post_have_context (element, bound);
}

void
ElementDevice::stop (GstElement * element)
{
  if (context_ && !device ().waits.abandoned ()) {
    /* The element's work ends before its watch goes. A kernel that may never end (a user's)
     * is given up here, within the grace of a stop, which also frees a wait upstream (a map of
     * the frame it writes) that would otherwise wait for it with no watch at all. The
     * plugin's own kernels are waited for: they end, and giving the queue up would leave the
     * frames they write unmappable for good. */
    if (watch_.stop_requested_at.load () == 0)
      watch_.request_stop ();
    try {
      finish ();
    } catch (const std::exception & e) {
      GST_WARNING_OBJECT (element, "at stop: %s", e.what ());
    }
  }
  discard_frame ();
  {
    std::lock_guard<std::mutex> lock (settings_lock_);
    variants_.clear ();
  }
  element_ = nullptr;
  GST_OBJECT_LOCK (element);
  GstOpenCLContext *context = context_;
  context_ = nullptr;
  GST_OBJECT_UNLOCK (element);
  if (context)
    gst_opencl_context_device (context).waits.remove_watch (&watch_);
  watch_.element = nullptr;
  gst_clear_object (&context);
}

void
ElementDevice::state_changing (GstStateChange transition)
{
  if (transition == GST_STATE_CHANGE_PAUSED_TO_READY)
    watch_.request_stop ();
  else if (transition == GST_STATE_CHANGE_READY_TO_PAUSED)
    watch_.clear_stop ();
}

void
ElementDevice::post_variant (const std::string & family, const std::string & key,
    const std::vector<TuningCandidate> & candidates, const TuningChoice & choice)
{
  {
    std::lock_guard<std::mutex> lock (settings_lock_);
    auto known = std::find_if (variants_.begin (), variants_.end (),
        [&] (const std::pair<std::string, std::string> & v) { return v.first == family; });
    if (known != variants_.end ())
      known->second = choice.name;
    else
      variants_.emplace_back (family, choice.name);
  }
  if (!element_)
    return;
  GstStructure *structure = gst_structure_new ("opencl-variant",
      "family", G_TYPE_STRING, family.c_str (),
      "key", G_TYPE_STRING, key.c_str (),
      "variant", G_TYPE_STRING, choice.name.c_str (),
      "source", G_TYPE_STRING, TuningChoice::source_name (choice.source), nullptr);
  GValue names = G_VALUE_INIT, times = G_VALUE_INIT;
  g_value_init (&names, GST_TYPE_ARRAY);
  g_value_init (&times, GST_TYPE_ARRAY);
  for (size_t i = 0; i < candidates.size (); i++) {
    GValue name = G_VALUE_INIT, time = G_VALUE_INIT;
    g_value_init (&name, G_TYPE_STRING);
    g_value_set_string (&name, candidates[i].name.c_str ());
    gst_value_array_append_and_take_value (&names, &name);
    g_value_init (&time, G_TYPE_DOUBLE);
    g_value_set_double (&time, i < choice.median_ms.size () ? choice.median_ms[i] : -1.0);
    gst_value_array_append_and_take_value (&times, &time);
  }
  gst_structure_take_value (structure, "candidates", &names);
  gst_structure_take_value (structure, "median-ms", &times);
  gst_element_post_message (element_, gst_message_new_element (GST_OBJECT (element_),
          structure));
}

TuningChoice
ElementDevice::tune (const std::string & family, const std::string & key,
    const std::vector<TuningCandidate> & candidates,
    const std::function<double (size_t)> & time_one, int runs,
    const std::function<bool (const std::string &)> & accepts_forced)
{
  TuningChoice choice = tune_variant (device ().cl_device, family, key, candidates, time_one,
      runs, accepts_forced);
  post_variant (family, key, candidates, choice);
  return choice;
}

Device &
ElementDevice::device ()
{
  if (!context_)
    throw Failure (Failure::Kind::NotFound, "no OpenCL device (the element is not started)");
  return gst_opencl_context_device (context_);
}

void
ElementDevice::launch (const cl::Kernel & kernel, const cl::NDRange & global,
    const cl::NDRange & local, const std::vector<cl::Event> * wait_for, cl::Event * event_out)
{
  size_t rounded[3] = { 1, 1, 1 };
  for (size_t axis = 0; axis < global.dimensions (); axis++) {
    size_t group = local.dimensions () > axis ? local.get ()[axis] : 1;
    rounded[axis] = (global.get ()[axis] + group - 1) / group * group;
  }
  cl::NDRange padded = global.dimensions () == 1 ? cl::NDRange (rounded[0]) :
      global.dimensions () == 2 ? cl::NDRange (rounded[0], rounded[1]) :
      cl::NDRange (rounded[0], rounded[1], rounded[2]);
  Device & cl_device = device ();
  if (!frame_started_) {
    frame_started_ = true;
    frame_timed_ = timing_frame ();
  }
  const bool watched = cl_device.waits.status_query_blocks || watch_.timeout_ms.load () != 0;
  if (!frame_timed_ && !event_out && !watched) {
    cl_device.queue.enqueueNDRangeKernel (kernel, cl::NullRange, padded, local, wait_for);
    count_launch (false);
    return;
  }
  cl::Event event;
  cl_device.queue.enqueueNDRangeKernel (kernel, cl::NullRange, padded, local, wait_for, &event);
  count_launch (true);
  if (frame_timed_)
    kernel_events_.push_back (event);
  watch_.note_launch (event, cl_device.waits.status_query_blocks);
  if (event_out)
    *event_out = event;
}

bool
ElementDevice::timing_frame ()
{
  const guint64 frame = frames_.load (), read_at = kernel_time_read_at_.load ();
  return frame % kKernelTimeEvery == 0 ||
      (read_at != kNeverRead && frame - read_at <= kKernelTimeEvery);
}

void
ElementDevice::frame_over ()
{
  if (!frame_started_)
    return;  /* nothing launched: not a frame of the count */
  frame_started_ = false;
  frames_++;
}

void
ElementDevice::sum_kernel_time (std::vector<cl::Event> & events)
{
  if (events.empty ())
    return;  /* a frame launched without events, or none: the last figure stays */
  guint64 total_ns = 0;
  for (const auto & event : events) {
    total_ns += event.getProfilingInfo<CL_PROFILING_COMMAND_END> () -
        event.getProfilingInfo<CL_PROFILING_COMMAND_START> ();
  }
  kernel_time_ns_ = total_ns;
  events.clear ();
}

void
ElementDevice::finish_frame ()
{
  {
    /* The host waited for this frame: every earlier one is done too (one in-order queue). */
    std::lock_guard<std::mutex> lock (deferred_lock_);
    for (auto & frame : deferred_)
      frame.clear ();
    deferred_head_ = deferred_count_ = 0;
  }
  frame_over ();
  sum_kernel_time (kernel_events_);
}

/* The in-order queue completes a frame's kernels in order: the last one done means all are, and
 * an older frame is done before a newer one. */
bool
ElementDevice::oldest_deferred_done (bool wait)
{
  auto & oldest = deferred_[deferred_head_];
  if (!oldest.empty ()) {
    if (wait)
      this->wait (oldest.back ());
    else if (device ().waits.status_query_blocks ?
        !watch_.kernels_ended (deferred_launches_[deferred_head_]) :
        oldest.back ().getInfo<CL_EVENT_COMMAND_EXECUTION_STATUS> () != CL_COMPLETE)
      return false;
    sum_kernel_time (oldest);
  }
  deferred_head_ = (deferred_head_ + 1) % deferred_.size ();
  deferred_count_--;
  return true;
}

void
ElementDevice::harvest_deferred ()
{
  std::lock_guard<std::mutex> lock (deferred_lock_);
  while (deferred_count_ > 0 && oldest_deferred_done (false)) {
  }
}

void
ElementDevice::defer_frame ()
{
  frame_over ();
  std::lock_guard<std::mutex> lock (deferred_lock_);
  /* Frames done by now give their kernel times; only when kMaxFramesInFlight frames of this
   * element are still on the queue does the host wait, for the oldest if it is timed (an
   * untimed one has no event and leaves its slot; the next timed frame bounds the queue, see
   * defer_frame in the header). That bound keeps a
   * pipeline whose sink never maps (fakesink) from queueing work without limit, and costs
   * nothing while the device keeps up. */
  while (deferred_count_ > 0 && oldest_deferred_done (false)) {
  }
  if (deferred_count_ == deferred_.size ())
    oldest_deferred_done (true);
  const size_t index = (deferred_head_ + deferred_count_) % deferred_.size ();
  auto & slot = deferred_[index];
  deferred_launches_[index] = watch_.launches ();
  slot.clear ();
  slot.swap (kernel_events_);  /* both keep their capacity: nothing allocated per frame */
  deferred_count_++;
}

void
ElementDevice::discard_frame ()
{
  frame_over ();
  kernel_events_.clear ();
  std::lock_guard<std::mutex> lock (deferred_lock_);
  for (auto & frame : deferred_)
    frame.clear ();
  deferred_head_ = deferred_count_ = 0;
}

}  // namespace gst_opencl
