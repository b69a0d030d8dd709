/* gst-opencl tests: frames in CUDA memory (memory:CUDAMemory).
 *
 * Everywhere: the pad templates offer CUDA memory, the `memory` property says what each pad
 * negotiated, and a device that does not reach CUDA memory refuses it at negotiation (an error
 * on the bus, not a crash). On an NVIDIA device with GStreamer's CUDA elements (the GPU machine,
 * tests/gpu-suite.sh), the CUDA path itself: frames from cudaupload and nvh264dec through
 * openclupload/opencldownload, filters (openclsort, openclmulticonvolve among them), an analysis
 * element and the sources equal the frames of the system-memory path bit for bit, and decoded frames equal a software decoder's (MD5 of every
 * frame, made with tests/media/make-h264-clips.sh into GST_OPENCL_TEST_CLIPS). */
#include <fstream>
#include <string>
#include <vector>

#include <gst/app/gstappsink.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>

#include "common/reliability.h"
#include "common/suite.h"
#include "common/testutil.h"

namespace {

bool
has_element (const char *name)
{
  GstElementFactory *factory = gst_element_factory_find (name);
  if (factory)
    gst_object_unref (factory);
  return factory != nullptr;
}

/* The CUDA path is expected where the default device is NVIDIA's and GStreamer's CUDA elements
 * exist; everywhere else CUDA memory must be refused. Decided from facts, not from trying. */
bool
expect_cuda ()
{
  static const bool expected = testutil::default_device_vendor ().find ("NVIDIA") !=
      std::string::npos && has_element ("cudaupload") && has_element ("cudadownload");
  return expected;
}

/* The CUDA path's copies are ordered by semaphores where the device exports them (and CUDA
 * imports them: every CUDA driver with external semaphores does), or where it imports them and
 * a Vulkan driver is installed to make them (gst/opencl/gstopenclvulkan.h). */
bool expect_cuda_semaphores ();

/* The word the `memory` property gives CUDA frames under the current GST_OPENCL_CUDA_ORDER
 * (host waits unless it says semaphores). */
std::string
cuda_word ()
{
  const char *order = g_getenv ("GST_OPENCL_CUDA_ORDER");
  const bool asked = order && g_str_equal (order, "semaphores");
  return asked && expect_cuda_semaphores () ? "cuda (semaphores)" : "cuda";
}

bool
expect_cuda_semaphores ()
{
  static const bool expected = expect_cuda () &&
      (testutil::default_device_exports_semaphore_fds () ||
      (testutil::default_device_imports_semaphore_fds () && testutil::vulkan_driver_installed ()));
  return expected;
}

/* cudaupload passes system memory through when downstream takes it: the caps ask for CUDA. */
const std::string to_cuda = " ! cudaupload ! video/x-raw(memory:CUDAMemory)";

std::string
source (const char *format, int width, int height, int frames)
{
  return "videotestsrc pattern=ball num-buffers=" + std::to_string (frames) +
      " ! video/x-raw,format=" + format + ",width=" + std::to_string (width) + ",height=" +
      std::to_string (height) + ",framerate=30/1";
}

/* openclmulticonvolve with two 3x3 filters (a Sobel pair), RGBA video out. */
const std::string multiconvolve = " ! openclmulticonvolve num-kernels=2 kernel-size=3 "
    "kernels=\"<-1,-1, 0,-2, 1,-1, -2,0, 0,0, 2,0, -1,1, 0,2, 1,1>\" scale=0.25 offset=128";

/* The sources, each a few frames of one still picture. */
const char *const sources[] = {
  "openclmandelboxsrc animate=false iterations=6 steps=24 num-buffers=3",
  "openclkernelsrc num-buffers=3 source=\"__kernel void ramp (__write_only image2d_t out, "
      "int width, int height) { int2 p = (int2) (get_global_id (0), get_global_id (1)); "
      "write_imagef (out, p, (float4) ((float) p.x / width, (float) p.y / height, 0.5f, "
      "1.0f)); }\"",
};

std::string
source_caps (const char *memory, const char *format, int width, int height)
{
  return std::string (" ! video/x-raw") + memory + ",format=" + format + ",width=" +
      std::to_string (width) + ",height=" + std::to_string (height);
}

std::vector<reliability::Output>
frames_of (const std::string & line)
{
  std::string error;
  auto frames = reliability::pull_all (line, &error);
  fail_unless (error.empty (), "%s: %s", line.c_str (), error.c_str ());
  fail_unless (!frames.empty (), "%s: no frames", line.c_str ());
  return frames;
}

void
expect_same_frames (const std::string & reference_line, const std::string & line)
{
  auto expected = frames_of (reference_line);
  auto got = frames_of (line);
  fail_unless_equals_int (got.size (), expected.size ());
  for (size_t i = 0; i < got.size (); i++)
    fail_unless (got[i].pixels == expected[i].pixels, "frame %zu of %s differs from %s", i,
        line.c_str (), reference_line.c_str ());
}

/* The element named "subject" of the pipeline (a new reference; stop () drops both). */
GstElement *
subject_of (GstElement * pipeline)
{
  GstElement *subject = gst_bin_get_by_name (GST_BIN (pipeline), "subject");
  fail_unless (subject != nullptr);
  return subject;
}

void
stop (GstElement * pipeline, GstElement * subject)
{
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (subject);
  gst_object_unref (pipeline);
}

/* Runs the pipeline to EOS and returns the `memory` property of the element named "subject"
 * (read before the pipeline stops), and every opencl-histogram message as text. */
std::string
run_and_read_memory (const std::string & line, std::vector<std::string> * histograms = nullptr)
{
  GstElement *pipeline = testutil::parse_pipeline (line);
  GstElement *subject = subject_of (pipeline);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  GstBus *bus = gst_element_get_bus (pipeline);
  std::string error;
  for (;;) {
    GstMessage *message = gst_bus_timed_pop_filtered (bus, 120 * GST_SECOND,
        (GstMessageType) (GST_MESSAGE_EOS | GST_MESSAGE_ERROR | GST_MESSAGE_ELEMENT));
    fail_unless (message != nullptr, "%s: timed out", line.c_str ());
    const GstMessageType type = GST_MESSAGE_TYPE (message);
    if (type == GST_MESSAGE_ELEMENT && histograms &&
        gst_message_has_name (message, "opencl-histogram")) {
      gchar *text = gst_structure_to_string (gst_message_get_structure (message));
      histograms->push_back (text);
      g_free (text);
    }
    if (type == GST_MESSAGE_ERROR)
      error = testutil::message_text (message);
    gst_message_unref (message);
    if (type != GST_MESSAGE_ELEMENT)
      break;
  }
  gst_object_unref (bus);
  fail_unless (error.empty (), "%s: %s", line.c_str (), error.c_str ());
  std::string text = testutil::string_property (subject, "memory");
  stop (pipeline, subject);
  return text;
}

void
expect_memory (const std::string & line, const char *expected,
    std::vector<std::string> * histograms = nullptr)
{
  const std::string memory = run_and_read_memory (line, histograms);
  /* "cuda" in `expected` stands for the CUDA word of the current order. */
  std::string wanted = expected;
  for (size_t at = wanted.find ("cuda"); at != std::string::npos;
      at = wanted.find ("cuda", at + cuda_word ().size ()))
    wanted.replace (at, 4, cuda_word ());
  fail_unless (memory == wanted, "%s: memory is \"%s\", not \"%s\"", line.c_str (),
      memory.c_str (), wanted.c_str ());
}

bool
template_has_cuda (const char *factory_name, const char *pad)
{
  GstElementFactory *factory = gst_element_factory_find (factory_name);
  fail_unless (factory != nullptr, "no %s", factory_name);
  GstCaps *caps = nullptr;
  for (const GList *l = gst_element_factory_get_static_pad_templates (factory); l; l = l->next) {
    auto *templ = static_cast<GstStaticPadTemplate *> (l->data);
    if (g_str_equal (templ->name_template, pad))
      caps = gst_static_pad_template_get_caps (templ);
  }
  gst_object_unref (factory);
  fail_unless (caps != nullptr);
  bool found = false;
  for (guint i = 0; i < gst_caps_get_size (caps); i++) {
    GstCapsFeatures *features = gst_caps_get_features (caps, i);
    found = found || (features && gst_caps_features_contains (features, "memory:CUDAMemory"));
  }
  gst_caps_unref (caps);
  return found;
}

std::string
clip_path (const char *file)
{
  const char *dir = g_getenv ("GST_OPENCL_TEST_CLIPS");
  return dir ? std::string (dir) + "/" + file : std::string ();
}

/* The H.264 clip of GST_OPENCL_TEST_CLIPS when CUDA is expected, `decoder` exists and so does
 * the clip; "" otherwise. */
std::string
decodable_clip (const char *decoder)
{
  const std::string clip = clip_path ("clip-360p.h264");
  if (!expect_cuda () || !has_element (decoder) || clip.empty () ||
      !g_file_test (clip.c_str (), G_FILE_TEST_EXISTS))
    return "";
  return clip;
}

std::vector<std::string>
md5_of_frames (const std::vector<reliability::Output> & frames)
{
  std::vector<std::string> sums;
  for (const auto & frame : frames) {
    gchar *sum = g_compute_checksum_for_data (G_CHECKSUM_MD5, frame.pixels.data (),
        frame.pixels.size ());
    sums.push_back (sum);
    g_free (sum);
  }
  return sums;
}

/* openclsort, openclmulticonvolve (its video input and output) and the sources in CUDA
 * memory, against the same elements in system memory. */
void
check_elements_of_issue_26 (int w, int h)
{
  for (const char *format : { "RGBA", "NV12", "P010_10LE" }) {
    const std::string src = source (format, w, h, 3);
    expect_same_frames (src + " ! openclsort", src + to_cuda +
        " ! openclsort ! video/x-raw(memory:CUDAMemory) ! cudadownload");
  }
  expect_memory (source ("NV12", w, h, 2) + to_cuda + " ! openclsort name=subject ! fakesink",
      "cuda -> cuda");
  /* 8-bit luma read from the frame as it came, and 16-bit luma converted to floats first
   * (cudaupload's formats: no GRAY8). */
  for (const char *format : { "NV12", "P010_10LE" }) {
    const std::string src = source (format, w, h, 3);
    const std::string reference = src + multiconvolve + " ! video/x-raw,format=RGBA";
    expect_same_frames (reference, src + to_cuda + multiconvolve + " ! video/x-raw,format=RGBA");
    expect_same_frames (reference, src + to_cuda + multiconvolve +
        " ! video/x-raw(memory:CUDAMemory),format=RGBA ! cudadownload");
  }
  expect_memory (source ("NV12", w, h, 2) + to_cuda + multiconvolve + " name=subject ! "
      "video/x-raw(memory:CUDAMemory),format=RGBA ! fakesink", "cuda -> cuda");
  for (const char *line : sources) {
    for (const char *format : { "RGBA", "NV12" })
      expect_same_frames (line + source_caps ("", format, w, h), line +
          source_caps ("(memory:CUDAMemory)", format, w, h) + " ! cudadownload");
  }
}

}  // namespace

GST_START_TEST (test_templates_offer_cuda_memory)
{
  for (const char *name : { "openclbilateral", "openclhistogram", "openclconvolve3d",
          "openclsort", "openclmulticonvolve" }) {
    fail_unless (template_has_cuda (name, "sink"), "%s sink", name);
    fail_unless (template_has_cuda (name, "src"), "%s src", name);
  }
  fail_unless (template_has_cuda ("openclmandelboxsrc", "src"));
  fail_unless (template_has_cuda ("openclkernelsrc", "src"));
  fail_unless (template_has_cuda ("openclupload", "sink"));
  fail_unless (template_has_cuda ("opencldownload", "src"));
}
GST_END_TEST;

GST_START_TEST (test_memory_property)
{
  const std::string src = source ("RGBA", 64, 48, 3);
  expect_memory (src + " ! openclbilateral name=subject ! video/x-raw ! fakesink",
      "system -> system");
  expect_memory (src + " ! openclbilateral name=subject ! video/x-raw(memory:OpenCLMemory) ! "
      "fakesink", "system -> opencl");
  expect_memory (src + " ! openclhistogram name=subject ! fakesink", "system");
  expect_memory (src + " ! openclupload ! opencldownload name=subject ! fakesink",
      "opencl -> system");
  GstElement *element = gst_element_factory_make ("openclbilateral", nullptr);
  testutil::expect_read_only (element, "memory");
  gst_object_unref (element);
}
GST_END_TEST;

/* Without CUDA on the device, CUDA memory is refused at negotiation with an error; with it, the
 * same pipelines run and say so. */
GST_START_TEST (test_cuda_memory_negotiation)
{
  const std::string src = source ("RGBA", 64, 48, 3);
  const std::string gray = source ("GRAY8", 33, 17, 3);
  const std::string to_cuda_out = " ! video/x-raw(memory:CUDAMemory) ! fakesink";
  /* Each case: the line, the line where CUDA is reachable when it differs, and the `memory` it
   * then reports. openclsort keeps its caps (CUDA in too): without a CUDA producer it does not
   * even link, so its refusal is test_cuda_caps_refused_by_element's. */
  struct Case
  {
    std::string line, cuda_line;
    const char *memory;
  };
  const Case cases[] = {
    { src + " ! openclbilateral name=subject" + to_cuda_out, "", "system -> cuda" },
    { src + " ! openclupload ! opencldownload name=subject" + to_cuda_out, "", "opencl -> cuda" },
    { "", src + to_cuda + " ! openclsort name=subject" + to_cuda_out, "cuda -> cuda" },
    { gray + multiconvolve + " name=subject ! video/x-raw(memory:CUDAMemory),format=RGBA ! "
          "fakesink", "", "system -> cuda" },
    { std::string (sources[0]) + " name=subject" + source_caps ("(memory:CUDAMemory)", "NV12",
          33, 17) + " ! fakesink", "", "cuda" },
    { std::string (sources[1]) + " name=subject" + source_caps ("(memory:CUDAMemory)", "RGBA",
          33, 17) + " ! fakesink", "", "cuda" },
  };
  for (const Case & c : cases) {
    if (expect_cuda ()) {
      expect_memory (c.cuda_line.empty () ? c.line : c.cuda_line, c.memory);
    } else if (!c.line.empty ()) {
      const std::string error = testutil::run_pipeline (c.line);
      fail_unless (error.find ("not-negotiated") != std::string::npos ||
          error.find ("negotiat") != std::string::npos, "%s: %s", c.line.c_str (),
          error.c_str ());
    }
  }
}
GST_END_TEST;

/* Without CUDA on the device, an element handed CUDA-memory caps directly (no CUDA element
 * needed: the harness sends the caps event) refuses them as not negotiated, without a crash. */
GST_START_TEST (test_cuda_caps_refused_by_element)
{
  if (expect_cuda ()) {
    GST_INFO ("CUDA reachable: the other tests run the CUDA path");
    return;
  }
  const char *caps = "video/x-raw(memory:CUDAMemory),format=NV12,width=33,height=17,"
      "framerate=30/1";
  const std::string elements[] = { "openclsort", "openclbilateral", multiconvolve.substr (3) };
  for (const std::string & element : elements) {
    GstHarness *harness = gst_harness_new_parse (element.c_str ());
    gst_harness_set_src_caps_str (harness, caps);
    GstBuffer *buffer = gst_buffer_new_allocate (nullptr, 33 * 17 * 2, nullptr);
    fail_unless_equals_int (gst_harness_push (harness, buffer), GST_FLOW_NOT_NEGOTIATED);
    gst_harness_teardown (harness);
  }
}
GST_END_TEST;

/* Frames from cudaupload through every route, against the system-memory path. */
GST_START_TEST (test_cuda_frames_match_system_memory)
{
  if (!expect_cuda ()) {
    GST_INFO ("no CUDA path on this device: test_cuda_memory_negotiation covers the refusal");
    return;
  }
  for (auto size : { std::pair<int, int> { 97, 61 }, std::pair<int, int> { 640, 360 } }) {
    const auto [w, h] = size;
    const std::string rgba = source ("RGBA", w, h, 4);
    const std::string nv12 = source ("NV12", w, h, 4);
    /* Transfers, both ways, RGBA and NV12. */
    for (const std::string & src : { rgba, nv12 }) {
      expect_same_frames (src, src + to_cuda + " ! openclupload ! opencldownload");
      expect_same_frames (src, src + " ! openclupload ! opencldownload ! "
          "video/x-raw(memory:CUDAMemory) ! cudadownload");
    }
    /* A filter: CUDA in, OpenCL or CUDA out. */
    const std::string reference = rgba + " ! openclbilateral";
    expect_same_frames (reference, rgba + to_cuda + " ! openclbilateral ! opencldownload");
    expect_same_frames (reference, rgba + to_cuda + " ! openclbilateral ! "
        "video/x-raw(memory:CUDAMemory) ! cudadownload");
    expect_memory (rgba + to_cuda + " ! openclbilateral name=subject ! "
        "video/x-raw(memory:CUDAMemory) ! fakesink", "cuda -> cuda");
    /* Analysis in place, counting and drawing. */
    for (const char *settings : { "", " draw=true" }) {
      std::vector<std::string> expected, got;
      run_and_read_memory (nv12 + " ! openclhistogram name=subject" + settings + " ! fakesink",
          &expected);
      expect_memory (nv12 + to_cuda + " ! openclhistogram name=subject" + settings +
          " ! fakesink", "cuda", &got);
      fail_unless_equals_int (got.size (), expected.size ());
      for (size_t i = 0; i < got.size (); i++)
        fail_unless_equals_string (got[i].c_str (), expected[i].c_str ());
    }
    expect_same_frames (rgba + " ! openclhistogram draw=true", rgba + to_cuda +
        " ! openclhistogram draw=true ! cudadownload");
    check_elements_of_issue_26 (w, h);
  }
}
GST_END_TEST;

/* nvh264dec's frames: the same as a software decoder's, through the CUDA path unchanged, and
 * analysed as the system-memory path analyses them. */
GST_START_TEST (test_decoded_frames)
{
  const std::string clip = decodable_clip ("nvh264dec");
  if (clip.empty ()) {
    GST_INFO ("no NVDEC, or no clips (GST_OPENCL_TEST_CLIPS): skipped");
    return;
  }
  std::vector<std::string> expected_md5;
  std::ifstream sums (clip_path ("clip-360p.md5"));
  for (std::string line; std::getline (sums, line);)
    expected_md5.push_back (line);
  fail_unless (!expected_md5.empty ());
  const std::string decode = "filesrc location=" + clip + " ! h264parse ! nvh264dec";
  const auto host = md5_of_frames (frames_of (decode + " ! video/x-raw,format=NV12"));
  fail_unless (host == expected_md5, "nvh264dec's frames differ from the software decoder's");
  const auto through = md5_of_frames (frames_of (decode + " ! openclupload ! opencldownload"));
  fail_unless (through == expected_md5, "frames through the CUDA path differ");
  expect_memory (decode + " ! openclupload name=subject ! fakesink", "cuda -> opencl");
  std::vector<std::string> on_cuda, on_host;
  expect_memory (decode + " ! openclhistogram name=subject ! fakesink", "cuda", &on_cuda);
  run_and_read_memory (decode + " ! video/x-raw ! openclhistogram name=subject ! fakesink",
      &on_host);
  fail_unless_equals_int (on_cuda.size (), expected_md5.size ());
  fail_unless (on_cuda == on_host, "histograms of CUDA frames differ from the host path's");
  /* The decoder's NV12 into the elements with no conversion on the host: the bilateral filter
   * on NV12 and openclconvertscale to RGBA at 720p, CUDA frames against the host path bit for
   * bit, and CUDA memory out of openclconvertscale too. */
  expect_same_frames (decode + " ! video/x-raw ! openclbilateral",
      decode + " ! openclbilateral ! opencldownload");
  const std::string bilateral_memory = run_and_read_memory (decode +
      " ! openclbilateral name=subject ! fakesink");
  fail_unless (g_str_has_prefix (bilateral_memory.c_str (), "cuda ->"),
      "nvh264dec ! openclbilateral: memory is \"%s\", not CUDA in", bilateral_memory.c_str ());
  const std::string to_720p = " ! openclconvertscale ! video/x-raw,format=RGBA,width=1280,height=720";
  expect_same_frames (decode + " ! video/x-raw" + to_720p, decode + to_720p);
  expect_same_frames (decode + " ! video/x-raw" + to_720p, decode +
      " ! openclconvertscale ! video/x-raw(memory:CUDAMemory),format=RGBA,width=1280,"
      "height=720 ! cudadownload");
  expect_memory (decode + " ! openclconvertscale name=subject ! video/x-raw(memory:CUDAMemory),"
      "format=RGBA,width=1280,height=720 ! fakesink", "cuda -> cuda");
  /* A filter after NVIDIA's own conversion to RGBA, where this GStreamer has cudaconvert. */
  if (has_element ("cudaconvert")) {
    const std::string rgba = decode + " ! cudaconvert ! video/x-raw(memory:CUDAMemory),"
        "format=RGBA";
    expect_same_frames (rgba + " ! cudadownload ! openclbilateral",
        rgba + " ! openclbilateral ! opencldownload");
  }
}
GST_END_TEST;

/* The copies ordered by semaphores (GST_OPENCL_CUDA_ORDER=semaphores) and by the host (the
 * default) give the same frames, and the `memory` property says which order a stream has. */
GST_START_TEST (test_cuda_orders)
{
  if (!expect_cuda ()) {
    GST_INFO ("no CUDA path on this device");
    return;
  }
  const std::string rgba = source ("RGBA", 320, 180, 12);
  const std::string nv12 = source ("NV12", 320, 180, 12);
  const std::string lines[] = {
    rgba + to_cuda + " ! openclbilateral ! video/x-raw(memory:CUDAMemory) ! cudadownload",
    rgba + to_cuda + " ! openclbilateral ! opencldownload",
    nv12 + to_cuda + " ! openclconvertscale ! video/x-raw(memory:CUDAMemory),format=RGBA,"
        "width=160,height=90 ! cudadownload",
    nv12 + to_cuda + " ! openclsort ! video/x-raw(memory:CUDAMemory) ! cudadownload",
  };
  for (const std::string & line : lines) {
    g_setenv ("GST_OPENCL_CUDA_ORDER", "host", TRUE);
    auto host = frames_of (line);
    g_setenv ("GST_OPENCL_CUDA_ORDER", "semaphores", TRUE);
    auto device = frames_of (line);
    g_unsetenv ("GST_OPENCL_CUDA_ORDER");
    fail_unless_equals_int (device.size (), host.size ());
    for (size_t i = 0; i < host.size (); i++)
      fail_unless (device[i].pixels == host[i].pixels, "frame %zu of %s differs between the "
          "orders", i, line.c_str ());
  }
  const std::string subject = rgba + to_cuda + " ! openclbilateral name=subject ! "
      "video/x-raw(memory:CUDAMemory) ! fakesink";
  g_setenv ("GST_OPENCL_CUDA_ORDER", "host", TRUE);
  const std::string host_memory = run_and_read_memory (subject);
  g_unsetenv ("GST_OPENCL_CUDA_ORDER");
  const std::string default_memory = run_and_read_memory (subject);
  g_setenv ("GST_OPENCL_CUDA_ORDER", "semaphores", TRUE);
  const std::string asked_memory = run_and_read_memory (subject);
  g_unsetenv ("GST_OPENCL_CUDA_ORDER");
  fail_unless_equals_string (host_memory.c_str (), "cuda -> cuda");
  fail_unless_equals_string (default_memory.c_str (), "cuda -> cuda");
  const std::string expected = expect_cuda_semaphores () ?
      "cuda (semaphores) -> cuda (semaphores)" : "cuda -> cuda";
  fail_unless_equals_string (asked_memory.c_str (), expected.c_str ());
}
GST_END_TEST;

std::string
device_name_of (const std::string & line)
{
  GstElement *pipeline = testutil::parse_pipeline (line);
  GstElement *subject = subject_of (pipeline);
  fail_unless (gst_element_set_state (pipeline, GST_STATE_PAUSED) != GST_STATE_CHANGE_FAILURE);
  fail_unless (gst_element_get_state (pipeline, nullptr, nullptr, 60 * GST_SECOND) ==
      GST_STATE_CHANGE_SUCCESS, "%s: no preroll", line.c_str ());
  std::string text = testutil::string_property (subject, "device-name");
  stop (pipeline, subject);
  return text;
}

/* Whether the element has a cuda-device-id property (GStreamer's CUDA elements since 1.20). */
static bool
has_cuda_device_property (const char *name)
{
  GstElement *element = gst_element_factory_make (name, nullptr);
  if (!element)
    return false;
  const bool has = g_object_class_find_property (G_OBJECT_GET_CLASS (element),
      "cuda-device-id") != nullptr;
  gst_object_unref (element);
  return has;
}

/* `line`, whose element gets (`in`) or gives frames in CUDA memory of another GPU, against
 * `reference`: the same frames by peer copies and with GST_OPENCL_CUDA_PEERS=0, and only the
 * second way moves bytes through the host (uploads in, downloads out). Needs
 * GST_OPENCL_COUNT_TRANSFERS=1 from the process's first copy on. */
static void
expect_both_ways (const std::string & reference, const std::string & line, bool in)
{
  guint64 up[3], down[3];
  g_unsetenv ("GST_OPENCL_CUDA_PEERS");
  testutil::plugin_transfer_totals (&up[0], &down[0]);
  expect_same_frames (reference, line);
  testutil::plugin_transfer_totals (&up[1], &down[1]);
  g_setenv ("GST_OPENCL_CUDA_PEERS", "0", TRUE);
  expect_same_frames (reference, line);
  testutil::plugin_transfer_totals (&up[2], &down[2]);
  g_unsetenv ("GST_OPENCL_CUDA_PEERS");
  const guint64 *moved = in ? up : down;
  GST_INFO ("%s: %" G_GUINT64_FORMAT " bytes through the host by peer copies, %"
      G_GUINT64_FORMAT " without them", line.c_str (), moved[1] - moved[0],
      moved[2] - moved[1]);
  fail_unless (moved[1] == moved[0], "%s: %" G_GUINT64_FORMAT " bytes went through the host "
      "with peer copies", line.c_str (), moved[1] - moved[0]);
  fail_unless (moved[2] > moved[1], "%s: with GST_OPENCL_CUDA_PEERS=0 no frame went through "
      "the host", line.c_str ());
}

/* On a machine with two NVIDIA GPUs: an element with no device set follows the decoder of the
 * second GPU there (device-name tells the twins apart by their index), and its frames are the
 * first GPU's path's; kept on the first GPU, it takes (and gives) the second GPU's frames by
 * peer copies, or through the host without them, with the same frames. */
GST_START_TEST (test_device_follows_cuda_frames)
{
  const std::string clip = decodable_clip ("nvh264device1dec");
  if (clip.empty ()) {
    GST_INFO ("no second NVDEC device, or no clips: skipped");
    return;
  }
  /* Read once per process, at the first copy: set before any pipeline. */
  g_setenv ("GST_OPENCL_COUNT_TRANSFERS", "1", TRUE);
  const std::string decode0 = "filesrc location=" + clip + " ! h264parse ! nvh264dec";
  const std::string decode1 = "filesrc location=" + clip + " ! h264parse ! nvh264device1dec";
  const std::string tail = " ! openclbilateral name=subject ! opencldownload ! fakesink";
  const std::string on0 = device_name_of (decode0 + tail);
  const std::string on1 = device_name_of (decode1 + tail);
  fail_unless (on0 != on1, "both decoders' frames ran on %s", on0.c_str ());
  /* Pinned to the first decoder's device ("NVIDIA:<its index>"), the element stays there. */
  const size_t hash = on0.find (" #");
  const std::string first = hash == std::string::npos ? "gpu" :
      "NVIDIA:" + std::to_string (atoi (on0.c_str () + hash + 2));
  g_setenv ("GST_OPENCL_DEVICE", first.c_str (), TRUE);
  const std::string pinned = device_name_of (decode1 + tail);
  g_unsetenv ("GST_OPENCL_DEVICE");
  fail_unless (pinned == on0, "a device set by GST_OPENCL_DEVICE was not kept: %s",
      pinned.c_str ());
  expect_same_frames (decode0 + " ! openclbilateral ! opencldownload",
      decode1 + " ! openclbilateral ! opencldownload");
  /* Kept on the first GPU, the element takes the second GPU's frames by a peer copy, or (peer
   * copies refused, as where the GPUs have no peer access) through host memory. */
  g_setenv ("GST_OPENCL_DEVICE", first.c_str (), TRUE);
  expect_both_ways (decode0 + " ! openclbilateral ! opencldownload",
      decode1 + " ! openclbilateral ! opencldownload", true);
  /* The other way: the element on the first GPU writes into the CUDA memory of a downloader
   * of the second (its pool), against the same element writing into the first GPU's. */
  if (has_cuda_device_property ("cudadownload")) {
    const std::string into = decode0 + " ! openclbilateral ! video/x-raw(memory:CUDAMemory) ! "
        "cudadownload";
    expect_both_ways (into + " cuda-device-id=0", into + " cuda-device-id=1", false);
  }
  g_unsetenv ("GST_OPENCL_DEVICE");
  g_unsetenv ("GST_OPENCL_COUNT_TRANSFERS");
}
GST_END_TEST;

static Suite *
cuda_suite ()
{
  return TESTUTIL_SUITE ("cuda", 600, test_templates_offer_cuda_memory, test_memory_property,
      test_cuda_memory_negotiation, test_cuda_caps_refused_by_element,
      test_cuda_frames_match_system_memory, test_decoded_frames, test_cuda_orders,
      test_device_follows_cuda_frames);
}

GST_CHECK_MAIN (cuda);
