/* gst-opencl tests: the property fuzzer. Every writable property of every element of the plugin
 * (found in the registry, so a new element is fuzzed without a change here) is set to random,
 * extreme and malformed values, before the pipeline starts and while it plays, for a fixed,
 * seeded number of sets. A set fails on a crash (check forks each element's test), a critical
 * or warning from GLib or GStreamer, an ERROR message that does not say what is wrong, a
 * pipeline that neither ends nor fails, and a state change back to NULL that does not return.
 *
 * PROPERTY_FUZZ_SEED (default 1), PROPERTY_FUZZ_SETS (sets per element, default below) and
 * PROPERTY_FUZZ_ONLY=<element>[:<set>] (one element, or one set of it, to replay a failure).
 * docs/testing.md, "The property fuzzer".
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include <gst/check/gstcheck.h>
#include <glib/gstdio.h>

#include <algorithm>
#include <atomic>
#include <cfloat>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstring>
#include <functional>
#include <limits>
#include <mutex>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "common/suite.h"
#include "common/testutil.h"

namespace {

/* Sets per element when PROPERTY_FUZZ_SETS is not given: the whole test took 79 s on PoCL with
 * 2 cores from empty kernel caches, 30 s with warm ones (docs/testing.md). The quick suite
 * (testutil::full_suite ()) runs the first QUICK_SETS of them. */
constexpr int DEFAULT_SETS = 12;
constexpr int QUICK_SETS = 3;
/* Frames to wait for after PLAYING and after each round of changes while playing. */
constexpr int FRAMES_PER_STEP = 2;
/* Bounds: frames of one step, EOS at the end, the change back to NULL, and a whole set. */
constexpr int STEP_TIMEOUT_S = 20;
constexpr int EOS_TIMEOUT_S = 30;
constexpr int NULL_TIMEOUT_S = 20;
constexpr int SET_TIMEOUT_S = 180;

/* ---- settings from the environment ---- */

guint64
fuzz_seed ()
{
  const char *text = g_getenv ("PROPERTY_FUZZ_SEED");
  return text && *text ? g_ascii_strtoull (text, nullptr, 0) : 1;
}

int
fuzz_sets ()
{
  const char *text = g_getenv ("PROPERTY_FUZZ_SETS");
  return text && *text ? (int) g_ascii_strtoll (text, nullptr, 10) :
      testutil::full_suite () ? DEFAULT_SETS : QUICK_SETS;
}

/* PROPERTY_FUZZ_ONLY=<element>[:<set>]: the element ("" for all) and the set (-1 for all). */
std::pair<std::string, int>
fuzz_only ()
{
  std::string text = g_getenv ("PROPERTY_FUZZ_ONLY") ? g_getenv ("PROPERTY_FUZZ_ONLY") : "";
  const size_t colon = text.find (':');
  if (colon == std::string::npos)
    return { text, -1 };
  return { text.substr (0, colon), (int) g_ascii_strtoll (text.c_str () + colon + 1, nullptr,
          10) };
}

/* ---- a random generator whose sequence is the same on every platform ---- */

class Rng
{
public:
  explicit Rng (guint64 seed) : state_ (seed) {}

  /* splitmix64 */
  guint64 next ()
  {
    guint64 z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  /* 0 .. n - 1 (0 when n is 0). */
  guint64 below (guint64 n) { return n ? next () % n : 0; }
  double unit () { return (double) (next () >> 11) * 0x1.0p-53; }
  bool chance (double p) { return unit () < p; }
  template <typename T> const T & pick (const std::vector<T> & values)
  {
    return values[below (values.size ())];
  }

private:
  guint64 state_;
};

guint64
mix (guint64 a, guint64 b)
{
  Rng rng (a * 0x2545F4914F6CDD1Dull ^ b);
  return rng.next ();
}

guint64
text_hash (const std::string & text)
{
  guint64 hash = 1469598103934665603ull;  /* FNV-1a */
  for (unsigned char c : text)
    hash = (hash ^ c) * 1099511628211ull;
  return hash;
}

/* The set's own generator: the same values whatever ran before it (replay). */
Rng
set_rng (const std::string & factory, int set)
{
  return Rng (mix (mix (fuzz_seed (), text_hash (factory)), (guint64) set));
}

/* ---- GLib's criticals and warnings, recorded instead of aborting ---- */

std::mutex log_mutex;
std::vector<std::string> logged;

void
record_log (const gchar * domain, GLogLevelFlags level, const gchar * message, gpointer)
{
  if (!(level & (G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING))) {
    g_log_default_handler (domain, level, message, nullptr);
    return;
  }
  std::string text = std::string (level & G_LOG_LEVEL_CRITICAL ? "CRITICAL" : "WARNING") +
      " (" + (domain ? domain : "default domain") + "): " + (message ? message : "");
  g_printerr ("property-fuzz: %s\n", text.c_str ());
  std::lock_guard<std::mutex> lock (log_mutex);
  logged.push_back (text);
}

/* GstCheck makes criticals and warnings fatal and fails the test from whatever thread logs them;
 * here they are recorded and judged with the set that caused them. */
void
install_log_handlers ()
{
  g_log_set_always_fatal ((GLogLevelFlags) G_LOG_FATAL_MASK);
  for (const char *domain : { "GLib", "GLib-GObject", "GLib-GIO", "GStreamer", "GStreamer-Video",
          "GStreamer-Base", "GStreamer-Check" }) {
    g_log_set_fatal_mask (domain, G_LOG_LEVEL_ERROR);
    g_log_set_handler (domain, (GLogLevelFlags) (G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING),
        record_log, nullptr);
  }
  g_log_set_handler (nullptr, (GLogLevelFlags) (G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING),
      record_log, nullptr);
  g_log_set_default_handler (record_log, nullptr);
}

std::vector<std::string>
take_logged ()
{
  std::lock_guard<std::mutex> lock (log_mutex);
  std::vector<std::string> out;
  out.swap (logged);
  return out;
}

/* ---- a watchdog: fails the test (check's fork mode ends the process) when a step hangs ---- */

class Watchdog
{
public:
  Watchdog (int seconds, std::function<std::string ()> what)
    : thread_ ([this, seconds, what] {
        std::unique_lock<std::mutex> lock (mutex_);
        if (!cv_.wait_for (lock, std::chrono::seconds (seconds), [this] { return done_; })) {
          const std::string text = what ();
          g_printerr ("property-fuzz: %s\n", text.c_str ());
          fail ("%s", text.c_str ());
        }
      })
  {
  }
  ~Watchdog ()
  {
    {
      std::lock_guard<std::mutex> lock (mutex_);
      done_ = true;
    }
    cv_.notify_all ();
    thread_.join ();
  }

private:
  std::mutex mutex_;
  std::condition_variable cv_;
  bool done_ = false;
  std::thread thread_;
};

/* ---- the elements of the plugin and what they take ---- */

std::vector<std::string>
plugin_factories ()
{
  std::vector<std::string> names;
  GList *features = gst_registry_get_feature_list_by_plugin (gst_registry_get (), "opencl");
  for (GList *l = features; l; l = l->next) {
    if (GST_IS_ELEMENT_FACTORY (l->data))
      names.push_back (gst_plugin_feature_get_name (GST_PLUGIN_FEATURE (l->data)));
  }
  gst_plugin_feature_list_free (features);
  std::sort (names.begin (), names.end ());
  return names;
}

std::vector<std::string>
strings_of (const GValue * value)
{
  std::vector<std::string> out;
  if (!value)
    return out;
  if (G_VALUE_HOLDS_STRING (value)) {
    out.push_back (g_value_get_string (value));
  } else if (GST_VALUE_HOLDS_LIST (value)) {
    for (guint i = 0; i < gst_value_list_get_size (value); i++) {
      const GValue *item = gst_value_list_get_value (value, i);
      if (G_VALUE_HOLDS_STRING (item))
        out.push_back (g_value_get_string (item));
    }
  }
  return out;
}

/* What a pad takes or gives, by kind: formats of video in system memory, formats of video in
 * OpenCL memory, and tensor types. Video only in GL or CUDA memory is not listed: it needs a GL
 * context or an NVIDIA device, which CI does not have. */
struct Takes
{
  std::vector<std::string> video;
  std::vector<std::string> opencl_video;
  std::vector<std::string> tensors;
  bool empty () const { return video.empty () && opencl_video.empty () && tensors.empty (); }
};

/* What the pad `pad_name` of a new `factory` element answers a caps query with (the templates
 * may promise more: opencldownload's sink template lists system memory, which its caps query
 * leaves out), restricted to the formats in `feedable` when that is not empty. */
Takes
takes_of (const char *factory, const char *pad_name, const std::vector<std::string> & feedable)
{
  Takes takes;
  GstElement *element = gst_element_factory_make (factory, nullptr);
  fail_unless (element != nullptr, "cannot make %s", factory);
  GstPad *pad = gst_element_get_static_pad (element, pad_name);
  GstCaps *caps = pad ? gst_pad_query_caps (pad, nullptr) : gst_caps_new_empty ();
  for (guint i = 0; i < gst_caps_get_size (caps); i++) {
    const GstStructure *s = gst_caps_get_structure (caps, i);
    GstCapsFeatures *features = gst_caps_get_features (caps, i);
    if (gst_structure_has_name (s, "video/x-raw")) {
      std::vector<std::string> *list = nullptr;
      if (gst_caps_features_is_equal (features, GST_CAPS_FEATURES_MEMORY_SYSTEM_MEMORY))
        list = &takes.video;
      else if (gst_caps_features_contains (features, "memory:OpenCLMemory"))
        list = &takes.opencl_video;
      if (!list)
        continue;
      for (const auto & format : strings_of (gst_structure_get_value (s, "format"))) {
        if ((feedable.empty () || std::find (feedable.begin (), feedable.end (), format) !=
                feedable.end ()) && std::find (list->begin (), list->end (), format) ==
            list->end ())
          list->push_back (format);
      }
    } else if (gst_structure_has_name (s, "other/tensors")) {
      for (const auto & type : strings_of (gst_structure_get_value (s, "types"))) {
        if (std::find (takes.tensors.begin (), takes.tensors.end (), type) ==
            takes.tensors.end ())
          takes.tensors.push_back (type);
      }
    }
  }
  gst_caps_unref (caps);
  if (pad)
    gst_object_unref (pad);
  gst_object_unref (element);
  return takes;
}

/* The formats videotestsrc makes. */
std::vector<std::string>
test_source_formats ()
{
  return takes_of ("videotestsrc", "src", {}).video;
}

struct Target
{
  std::string factory;
  bool source = false;
  Takes takes;
  /* The element gives tensors and video: a video caps filter after it picks the video. */
  bool video_out_choice = false;
};

Target
target_of (const std::string & name)
{
  Target target;
  target.factory = name;
  GstElementFactory *factory = gst_element_factory_find (name.c_str ());
  fail_unless (factory != nullptr, "no factory %s", name.c_str ());
  bool has_sink = false;
  for (const GList *l = gst_element_factory_get_static_pad_templates (factory); l; l = l->next) {
    if (static_cast<GstStaticPadTemplate *> (l->data)->direction == GST_PAD_SINK)
      has_sink = true;
  }
  target.source = !has_sink;
  if (target.source) {
    target.takes = takes_of (name.c_str (), "src", {});
  } else {
    target.takes = takes_of (name.c_str (), "sink", test_source_formats ());
    Takes out = takes_of (name.c_str (), "src", {});
    target.video_out_choice = !out.tensors.empty () && !out.video.empty ();
  }
  gst_object_unref (factory);
  return target;
}

/* ---- files the string properties point at ---- */

struct Files
{
  std::string dir;
  std::string filter_image, filter_bytes, filter_params, two_kernels, source_kernel, broken,
      with_nul, empty, filters9, filters_short;
};
Files files;

/* The start of an image filter's body: a sampler `s` and the pixel `p` of the output, which
 * returns past the output's edges. */
#define IMAGE_PIXEL_START \
    "  const sampler_t s = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE |\n" \
    "      CLK_FILTER_NEAREST;\n" \
    "  const int2 p = (int2) (get_global_id (0), get_global_id (1));\n" \
    "  if (p.x >= get_image_width (out) || p.y >= get_image_height (out))\n" \
    "    return;\n"

const char *const FILTER_IMAGE_CL =
    "__kernel void gain (__read_only image2d_t in, __write_only image2d_t out, float strength)\n"
    "{\n"
    IMAGE_PIXEL_START
    "  write_imagef (out, p, read_imagef (in, s, p) * strength);\n"
    "}\n";

/* Bytes per pixel clamped to 1..4 and rows bounded by their strides: any parameter is safe. */
const char *const FILTER_BYTES_CL =
    "__kernel void bytes (__global const uchar * src, __global uchar * dst, int src_stride,\n"
    "    int dst_stride, int width, int height, int bpp, float gain, int offset)\n"
    "{\n"
    "  const int x = get_global_id (0), y = get_global_id (1);\n"
    "  if (x >= width || y >= height)\n"
    "    return;\n"
    "  const int n = clamp (bpp, 1, 4);\n"
    "  for (int c = 0; c < n; c++) {\n"
    "    const int i = x * n + c;\n"
    "    if (i < src_stride && i < dst_stride)\n"
    "      dst[y * dst_stride + i] = convert_uchar_sat_rte (src[y * src_stride + i] * gain +\n"
    "          offset);\n"
    "  }\n"
    "}\n";

/* Parameters of many kinds: a vector, small and wide integers, a double. */
const char *const FILTER_PARAMS_CL =
    "__kernel void tint (__read_only image2d_t in, __write_only image2d_t out, float4 tint,\n"
    "    int2 shift, uchar n, long big, ulong ubig, double d, float time, int frame)\n"
    "{\n"
    IMAGE_PIXEL_START
    "  const float k = (float) (n + (big & 3) + (ubig & 3) + frame) + (float) d + time;\n"
    "  write_imagef (out, p, read_imagef (in, s, p + shift) * tint + k * 0.0f);\n"
    "}\n";

const char *const TWO_KERNELS_CL =
    "__kernel void first (__read_only image2d_t in, __write_only image2d_t out)\n"
    "{\n"
    "  const int2 p = (int2) (get_global_id (0), get_global_id (1));\n"
    "  if (p.x < get_image_width (out) && p.y < get_image_height (out))\n"
    "    write_imagef (out, p, (float4) (0.5f));\n"
    "}\n"
    "__kernel void second (__write_only image2d_t out, int width, int height, float speed)\n"
    "{\n"
    "  const int x = get_global_id (0), y = get_global_id (1);\n"
    "  if (x < width && y < height)\n"
    "    write_imagef (out, (int2) (x, y), (float4) (speed));\n"
    "}\n";

const char *const SOURCE_CL =
    "__kernel void plasma (__write_only image2d_t out, int width, int height, float time,\n"
    "    float speed)\n"
    "{\n"
    "  const int x = get_global_id (0), y = get_global_id (1);\n"
    "  if (x >= width || y >= height)\n"
    "    return;\n"
    "  const float v = sin (x * 0.1f + time * speed) + cos (y * 0.1f);\n"
    "  write_imagef (out, (int2) (x, y), (float4) (0.5f + 0.25f * v, 0.5f, 0.5f, 1.0f));\n"
    "}\n";

const char *const LOCAL_ARG_CL =
    "__kernel void scratch (__read_only image2d_t in, __write_only image2d_t out,\n"
    "    __local float * tmp)\n"
    "{\n"
    "}\n";

const char *const BROKEN_CL = "__kernel void broken (__write_only image2d_t out) { not C }\n";

std::string
write_file (const std::string & name, const std::string & bytes)
{
  std::string path = files.dir + "/" + name;
  if (!g_file_set_contents (path.c_str (), bytes.data (), (gssize) bytes.size (), nullptr))
    g_error ("cannot write %s", path.c_str ());
  return path;
}

void
make_files ()
{
  gchar *dir = g_dir_make_tmp ("gst-opencl-property-fuzz-XXXXXX", nullptr);
  if (!dir)
    g_error ("cannot make a temporary folder");
  files.dir = dir;
  g_free (dir);
  files.filter_image = write_file ("gain.cl", FILTER_IMAGE_CL);
  files.filter_bytes = write_file ("bytes.cl", FILTER_BYTES_CL);
  files.filter_params = write_file ("tint.cl", FILTER_PARAMS_CL);
  files.two_kernels = write_file ("two.cl", TWO_KERNELS_CL);
  files.source_kernel = write_file ("plasma.cl", SOURCE_CL);
  files.broken = write_file ("broken.cl", BROKEN_CL);
  files.with_nul = write_file ("nul.cl", std::string (FILTER_IMAGE_CL) + std::string (1, '\0') +
      "x");
  files.empty = write_file ("empty.cl", "");
  float taps[9] = { 0, -1, 0, -1, 5, -1, 0, -1, 0 };
  files.filters9 = write_file ("filters9.raw", std::string ((const char *) taps, sizeof taps));
  files.filters_short = write_file ("short.raw", "abcdefg");
}

void
remove_files ()
{
  for (const std::string & path : { files.filter_image, files.filter_bytes, files.filter_params,
          files.two_kernels, files.source_kernel, files.broken, files.with_nul, files.empty,
          files.filters9, files.filters_short })
    g_remove (path.c_str ());
  g_rmdir (files.dir.c_str ());
}

/* ---- values ---- */

/* `text` cut to about `size` characters, saying how long it was. */
std::string
cut (const std::string & text, size_t size)
{
  if (text.size () <= size)
    return text;
  return text.substr (0, size * 3 / 4) + "... (" + std::to_string (text.size ()) +
      " characters)";
}

std::string
garbage (Rng & rng, size_t length, bool binary)
{
  std::string text;
  for (size_t i = 0; i < length; i++)
    text += binary ? (char) (1 + rng.below (255)) : (char) (32 + rng.below (95));
  return text;
}

/* Strings any string property gets: empty, garbage, 64 KiB, bytes that are not UTF-8, paths. */
std::string
any_string (Rng & rng)
{
  switch (rng.below (10)) {
    case 0:
      return "";
    case 1:
      return garbage (rng, 1 + rng.below (40), false);
    case 2:
      return std::string (65536, 'a' + (char) rng.below (26));
    case 3:
      return garbage (rng, 65536, false);
    case 4:
      return garbage (rng, 1 + rng.below (64), true);
    case 5:
      return rng.pick (std::vector<std::string> { "/dev/zero", "/nonexistent", "/", "/dev/null",
              "/nonexistent/file.cl", "/proc/self/status", files.dir });
    case 6:
      return "%s%s%s%n%x%p%%";
    case 7:
      return "\xc3\xbc\xe2\x82\xac\xf0\x9f\x98\x80 \n\t\"'\\";
    case 8:
      return " ";
    default:
      return std::to_string ((gint64) rng.next ());
  }
}

/* Valid-looking strings for the properties whose syntax the element pages give
 * (docs/openclkernel.md, docs/openclmulticonvolve.md, the README's device strings). */
std::vector<std::string>
valid_strings (const std::string & name, bool source)
{
  if (name == "device")
    return { "gpu", "pocl", "pocl:0", "Portable Computing Language:1", " cpu ", "no-such-device",
      ":", ":0", "portable:", "portable:-1", "portable:99999999999999999999", "cpu:0",
      "portable:0x1", "portable:+0" };
  if (name == "location") {
    if (source)
      return { files.source_kernel, files.two_kernels, files.broken, files.with_nul,
        files.empty, files.filter_image };
    return { files.filter_image, files.filter_bytes, files.filter_params, files.two_kernels,
      files.broken, files.with_nul, files.empty, files.source_kernel };
  }
  if (name == "source") {
    if (source)
      return { SOURCE_CL, TWO_KERNELS_CL, BROKEN_CL, FILTER_IMAGE_CL, LOCAL_ARG_CL };
    return { FILTER_IMAGE_CL, FILTER_BYTES_CL, FILTER_PARAMS_CL, TWO_KERNELS_CL, BROKEN_CL,
      SOURCE_CL, LOCAL_ARG_CL };
  }
  if (name == "kernel")
    return { "", "gain", "bytes", "tint", "first", "second", "plasma", "scratch", "nothere",
      "gain ", "0" };
  if (name == "build-options")
    return { "", "-D FOO=1", "-cl-fast-relaxed-math", "-cl-std=CL1.2", "-cl-std=CL9.9",
      "-I /nonexistent", "-D", "-Werror", "--no-such-option", "-cl-opt-disable", "-w",
      "-DX=\"" };
  /* Sizes past what a CPU device runs in reasonable time (65536x65536 work-items a frame) are
   * left out: valid and slow, not a defect. */
  if (name == "global-size")
    return { "", "67x45", "31x17", "1x1", "65536x1", "1x65536", "65537x1", "0x0", "31,17",
      "scale,x=0.5,y=0.5", "scale,x=64,y=1", "scale,x=64.0001,y=1", "scale,x=0,y=1",
      "scale,x=-1,y=1", "scale,x=nan,y=1", "scale,x=inf,y=inf", "scale,x=1e-300,y=1e-300",
      "scale", "scale,x=1", "x", "1x", "x1", "-1x-1", "4294967297x1", "1x1x1", "1e3x2",
      "scale,x=(string)a,y=1", "scale,x=<1,2>,y=1" };
  if (name == "local-size")
    return { "", "1x1", "8x8", "16x16", "3x5", "64x64", "128x128", "4097x1", "1x4097", "0x0",
      "0x8", "65536x65536", "4294967296x1", "scale,x=2,y=2", "8", "8x", "-8x8", " 8x8 ",
      "8X8", "67x45" };
  if (name == "kernels-file")
    return { files.filters9, files.filters_short, "/dev/zero", "/tmp", "/nonexistent", "",
      files.filter_image };
  return {};
}

/* Devices that open here (PoCL's platform is "Portable Computing Language"). */
const std::vector<std::string> &
working_devices ()
{
  static const std::vector<std::string> list = { "", "cpu", "CPU", "portable",
    "Portable Computing Language:0" };
  return list;
}

/* Valid-looking parameters (docs/openclkernel.md, "Parameters"), for the kernels above. */
const std::vector<std::string> &
valid_parameters ()
{
  static const std::vector<std::string> list = {
    "p,strength=0.8", "p,strength=(float)1.0", "p,speed=1.0", "p,bpp=4,gain=1.25,offset=-7",
    "p,bpp=1000,gain=1e30,offset=-2147483648",
    "p,tint=<0.1,0.2,0.3,1.0>,shift=<1,-1>,n=200,big=(gint64)-9223372036854775807,"
    "ubig=(guint64)18446744073709551615,d=1e300",
    "p,tint=<0.1,0.2,0.3>,shift=<1,-1>,n=300,big=1,ubig=-1,d=1.5",
    "p,strength=0.8,speed=2.5,bpp=4,gain=1.5,offset=3,tint=<1.0,1.0,1.0,1.0>,shift=<0,0>,n=1,"
    "big=1,ubig=(guint64)1,d=1.0", "p", "p,width=5,height=(string)a,time=1,frame=2.5",
  };
  return list;
}

/* A number within [lo, hi]: an end, the default, zero, a small or power-of-two value, or any. */
template <typename T>
T
pick_integer (Rng & rng, T lo, T hi, T def)
{
  std::vector<T> candidates = { lo, hi, def };
  for (long double v : { 0.0L, 1.0L, -1.0L, 2.0L, 3.0L, 5.0L, 7.0L, 8.0L, 15.0L, 16.0L, 31.0L,
          32.0L, 100.0L, 255.0L, 256.0L, 1000.0L, 65535.0L, 65536.0L, 2147483647.0L,
          2147483648.0L, 4294967295.0L }) {
    if (v >= (long double) lo && v <= (long double) hi)
      candidates.push_back ((T) v);
  }
  if (lo < hi) {
    candidates.push_back ((T) (lo + 1));
    candidates.push_back ((T) (hi - 1));
  }
  if (rng.chance (0.8))
    return rng.pick (candidates);
  /* Uniform over the range, in unsigned arithmetic (the span may not fit T). */
  const guint64 span = (guint64) hi - (guint64) lo;
  const guint64 offset = span == std::numeric_limits<guint64>::max () ? rng.next () :
      rng.below (span + 1);
  return (T) ((guint64) lo + offset);
}

template <typename T>
T
pick_real (Rng & rng, T lo, T hi, T def)
{
  std::vector<T> candidates = { lo, hi, def, std::nextafter (lo, hi), std::nextafter (hi, lo),
    (T) 0.5, (T) 1, (T) 2, (T) -1, (T) 1e-6, (T) 1e6, std::numeric_limits<T>::denorm_min (),
    std::numeric_limits<T>::min () };
  if (lo <= 0 && hi >= 0) {
    candidates.push_back ((T) 0);
    candidates.push_back ((T) -0.0);
  }
  T value;
  switch (rng.below (3)) {
    case 0:
      value = rng.pick (candidates);
      break;
    case 1:                    /* uniform */
      value = (T) ((long double) lo + ((long double) hi - (long double) lo) * rng.unit ());
      break;
    default:{                  /* any magnitude, either sign */
      const double exponent = -40.0 + 80.0 * rng.unit ();
      value = (T) (std::pow (10.0, exponent) * (rng.chance (0.5) ? -1 : 1));
      break;
    }
  }
  return std::clamp (value, lo, hi);
}

void set_scalar (Rng & rng, GParamSpec * pspec, GValue * value);

/* A GstStructure of random fields: names the kernels above use and others, values of every
 * type a structure holds, numbers at their extremes, arrays of every length. */
GstStructure *
random_structure (Rng & rng, int depth = 0)
{
  static const std::vector<std::string> names = { "strength", "speed", "gain", "offset", "bpp",
    "tint", "shift", "n", "big", "ubig", "d", "width", "height", "time", "frame", "src", "dst",
    "src_stride", "out", "in", "tmp", "other" };
  GstStructure *s = gst_structure_new_empty (rng.chance (0.9) ? "p" : "x-other");
  const int fields = rng.chance (0.05) ? 300 : (int) rng.below (7);
  for (int i = 0; i < fields; i++) {
    std::string name = rng.chance (0.8) ? rng.pick (names) : "f" + std::to_string (rng.below (
            1000));
    GValue v = G_VALUE_INIT;
    switch (rng.below (10)) {
      case 0:
        g_value_init (&v, G_TYPE_INT);
        g_value_set_int (&v, rng.pick (std::vector<gint> { 0, 1, -1, 3, 4, 255, 256, 300,
                    G_MAXINT, G_MININT }));
        break;
      case 1:
        g_value_init (&v, G_TYPE_UINT);
        g_value_set_uint (&v, rng.pick (std::vector<guint> { 0, 4, G_MAXUINT }));
        break;
      case 2:
        g_value_init (&v, G_TYPE_INT64);
        g_value_set_int64 (&v, rng.pick (std::vector<gint64> { G_MININT64, G_MAXINT64, 0 }));
        break;
      case 3:
        g_value_init (&v, G_TYPE_UINT64);
        g_value_set_uint64 (&v, rng.chance (0.5) ? G_MAXUINT64 : 1);
        break;
      case 4:
        g_value_init (&v, G_TYPE_DOUBLE);
        g_value_set_double (&v, rng.pick (std::vector<double> { 0.0, -0.0, 0.8, 1.5, -7.0,
                    1e300, -1e300, DBL_MAX, DBL_MIN, 5e-324, NAN, INFINITY, -INFINITY }));
        break;
      case 5:
        g_value_init (&v, G_TYPE_FLOAT);
        g_value_set_float (&v, rng.pick (std::vector<float> { FLT_MAX, 1.0f, NAN, INFINITY }));
        break;
      case 6:
        g_value_init (&v, G_TYPE_BOOLEAN);
        g_value_set_boolean (&v, rng.chance (0.5));
        break;
      case 7:
        g_value_init (&v, G_TYPE_STRING);
        g_value_set_string (&v, rng.chance (0.5) ? "" : garbage (rng, rng.chance (0.2) ? 4096 :
                8, false).c_str ());
        break;
      case 8:{                 /* an array of numbers (a vector parameter) */
        gst_value_array_init (&v, 0);
        const guint length = rng.pick (std::vector<guint> { 0, 1, 2, 3, 4, 5, 8, 16, 1000 });
        const int type = (int) rng.below (3);
        for (guint k = 0; k < length; k++) {
          GValue item = G_VALUE_INIT;
          if (type == 0) {
            g_value_init (&item, G_TYPE_INT);
            g_value_set_int (&item, (gint) rng.next ());
          } else if (type == 1) {
            g_value_init (&item, G_TYPE_DOUBLE);
            g_value_set_double (&item, rng.chance (0.2) ? NAN : rng.unit ());
          } else {
            g_value_init (&item, G_TYPE_STRING);
            g_value_set_string (&item, "a");
          }
          gst_value_array_append_and_take_value (&v, &item);
        }
        break;
      }
      default:
        if (depth < 2 && rng.chance (0.5)) {
          g_value_init (&v, GST_TYPE_STRUCTURE);
          GstStructure *inner = random_structure (rng, depth + 1);
          gst_value_set_structure (&v, inner);
          gst_structure_free (inner);
        } else {
          g_value_init (&v, GST_TYPE_FRACTION);
          gst_value_set_fraction (&v, 1, 3);
        }
        break;
    }
    gst_structure_take_value (s, name.c_str (), &v);
  }
  return s;
}

/* An array for a GstValueArray property of `element_spec` elements: lengths that fit the
 * elements' sizes (k x k x N, k x k x k) and others. */
void
set_array (Rng & rng, GParamSpec * element_spec, GValue * value)
{
  static const std::vector<guint> lengths = { 0, 1, 2, 9, 18, 25, 27, 36, 45, 75, 125, 343,
    3375, 7200 };
  guint length = rng.chance (0.8) ? rng.pick (lengths) : (guint) rng.below (200);
  /* Often every element equal (a box, a delta), else each its own. */
  const bool same = rng.chance (0.5);
  GValue first = G_VALUE_INIT;
  for (guint i = 0; i < length; i++) {
    GValue item = G_VALUE_INIT;
    if (same && i > 0) {
      g_value_init (&item, G_VALUE_TYPE (&first));
      g_value_copy (&first, &item);
    } else if (element_spec) {
      set_scalar (rng, element_spec, &item);
    } else {
      g_value_init (&item, G_TYPE_FLOAT);
      g_value_set_float (&item, (float) rng.unit ());
    }
    if (i == 0) {
      g_value_init (&first, G_VALUE_TYPE (&item));
      g_value_copy (&item, &first);
    }
    gst_value_array_append_and_take_value (value, &item);
  }
  if (G_IS_VALUE (&first))
    g_value_unset (&first);
}

/* A value of a numeric param spec (GParamSpecInt, ...) within its range, set with SET. */
template <typename Spec, typename T, void (*SET) (GValue *, T)>
void
set_number (Rng & rng, GParamSpec * pspec, GValue * value)
{
  const auto *spec = reinterpret_cast<const Spec *> (pspec);
  if constexpr (std::is_floating_point_v<T>)
    SET (value, pick_real<T> (rng, spec->minimum, spec->maximum, spec->default_value));
  else
    SET (value, pick_integer<T> (rng, spec->minimum, spec->maximum, spec->default_value));
}

/* The numeric param specs, with the types of their values. */
struct NumberSpec
{
  GType pspec_type;
  void (*set) (Rng & rng, GParamSpec * pspec, GValue * value);
};

const std::vector<NumberSpec> &
number_specs ()
{
  static const std::vector<NumberSpec> specs = {
    { G_TYPE_PARAM_INT, set_number<GParamSpecInt, gint, g_value_set_int> },
    { G_TYPE_PARAM_UINT, set_number<GParamSpecUInt, guint, g_value_set_uint> },
    { G_TYPE_PARAM_LONG, set_number<GParamSpecLong, glong, g_value_set_long> },
    { G_TYPE_PARAM_ULONG, set_number<GParamSpecULong, gulong, g_value_set_ulong> },
    { G_TYPE_PARAM_INT64, set_number<GParamSpecInt64, gint64, g_value_set_int64> },
    { G_TYPE_PARAM_UINT64, set_number<GParamSpecUInt64, guint64, g_value_set_uint64> },
    { G_TYPE_PARAM_CHAR, set_number<GParamSpecChar, gint8, g_value_set_schar> },
    { G_TYPE_PARAM_UCHAR, set_number<GParamSpecUChar, guchar, g_value_set_uchar> },
    { G_TYPE_PARAM_FLOAT, set_number<GParamSpecFloat, gfloat, g_value_set_float> },
    { G_TYPE_PARAM_DOUBLE, set_number<GParamSpecDouble, gdouble, g_value_set_double> },
  };
  return specs;
}

/* A value of a scalar (and string) param spec, in its range: GObject refuses anything else
 * with a warning of its own, which would be the fuzzer's fault. */
void
set_scalar (Rng & rng, GParamSpec * pspec, GValue * value)
{
  g_value_init (value, G_PARAM_SPEC_VALUE_TYPE (pspec));
  for (const NumberSpec & number : number_specs ()) {
    if (G_TYPE_CHECK_INSTANCE_TYPE (pspec, number.pspec_type)) {
      number.set (rng, pspec, value);
      return;
    }
  }
  if (G_IS_PARAM_SPEC_BOOLEAN (pspec)) {
    g_value_set_boolean (value, rng.chance (0.5));
  } else if (G_IS_PARAM_SPEC_ENUM (pspec)) {
    auto *s = G_PARAM_SPEC_ENUM (pspec);
    g_value_set_enum (value, s->enum_class->values[rng.below (s->enum_class->n_values)].value);
  } else if (G_IS_PARAM_SPEC_FLAGS (pspec)) {
    auto *s = G_PARAM_SPEC_FLAGS (pspec);
    guint flags = 0;
    for (guint i = 0; i < s->flags_class->n_values; i++) {
      if (rng.chance (0.5))
        flags |= s->flags_class->values[i].value;
    }
    g_value_set_flags (value, flags & s->flags_class->mask);
  } else {
    g_value_unset (value);
  }
}

/* A value for `pspec`; false when the fuzzer has none for its type (pointers, objects).
 * `wild` (0..1) is how often strings and structures are malformed rather than plausible. */
bool
make_value (Rng & rng, GParamSpec * pspec, bool source, double wild, GValue * value)
{
  const GType type = G_PARAM_SPEC_VALUE_TYPE (pspec);
  if (G_IS_PARAM_SPEC_STRING (pspec)) {
    g_value_init (value, G_TYPE_STRING);
    const auto valid = valid_strings (pspec->name, source);
    const bool device = g_strcmp0 (pspec->name, "device") == 0;
    if (rng.chance (0.05))
      g_value_set_string (value, nullptr);
    else if (device && !rng.chance (wild))
      g_value_set_string (value, rng.pick (working_devices ()).c_str ());
    else if (!valid.empty () && (device || !rng.chance (wild)))
      g_value_set_string (value, rng.pick (valid).c_str ());
    else
      g_value_set_string (value, any_string (rng).c_str ());
    return true;
  }
  if (type == GST_TYPE_STRUCTURE) {
    g_value_init (value, GST_TYPE_STRUCTURE);
    const double roll = rng.unit ();
    GstStructure *s = nullptr;
    if (roll < 0.05)
      s = nullptr;
    else if (roll > wild && g_strcmp0 (pspec->name, "parameters") == 0)
      s = gst_structure_from_string (rng.pick (valid_parameters ()).c_str (), nullptr);
    else
      s = random_structure (rng);
    gst_value_set_structure (value, s);
    if (s)
      gst_structure_free (s);
    return true;
  }
  if (type == GST_TYPE_CAPS) {
    g_value_init (value, GST_TYPE_CAPS);
    static const std::vector<const char *> caps = { nullptr, "ANY", "EMPTY",
      "video/x-raw,format=RGBA,width=67,height=45", "video/x-raw,format=(string)NOPE,width=-1",
      "other/tensors,format=static,num_tensors=1,types=uint8,dimensions=(string)0:0",
      "x/y;z/w,a=(int)[1,2]" };
    const char *text = rng.pick (caps);
    GstCaps *c = text ? gst_caps_from_string (text) : nullptr;
    gst_value_set_caps (value, c);
    if (c)
      gst_caps_unref (c);
    return true;
  }
  if (GST_IS_PARAM_SPEC_ARRAY_LIST (pspec)) {
    gst_value_array_init (value, 0);
    set_array (rng, GST_PARAM_SPEC_ARRAY_LIST (pspec)->element_spec, value);
    return true;
  }
  set_scalar (rng, pspec, value);
  return G_IS_VALUE (value);
}

/* A value as the report prints it: numbers in full (17 digits), enums by nick, long values
 * cut, with their length (the replay makes the whole value again). */
std::string
show (const GValue * value)
{
  if (G_VALUE_HOLDS_STRING (value) && g_value_get_string (value) == nullptr)
    return "NULL";
  if (G_VALUE_HOLDS_BOXED (value) && g_value_get_boxed (value) == nullptr)
    return "NULL";
  std::string out;
  if (GST_VALUE_HOLDS_ARRAY (value)) {
    out = "<";
    for (guint i = 0; i < gst_value_array_get_size (value) && out.size () < 200; i++)
      out += std::string (i ? ", " : "") + show (gst_value_array_get_value (value, i));
    out += "> (" + std::to_string (gst_value_array_get_size (value)) + " values)";
  } else if (G_VALUE_HOLDS_DOUBLE (value) || G_VALUE_HOLDS_FLOAT (value)) {
    char text[G_ASCII_DTOSTR_BUF_SIZE];
    out = g_ascii_dtostr (text, sizeof text, G_VALUE_HOLDS_DOUBLE (value) ?
        g_value_get_double (value) : (double) g_value_get_float (value));
    if (std::signbit (G_VALUE_HOLDS_DOUBLE (value) ? g_value_get_double (value) :
            g_value_get_float (value)) && out == "0")
      out = "-0";
  } else if (G_VALUE_HOLDS_ENUM (value)) {
    GEnumClass *klass = G_ENUM_CLASS (g_type_class_ref (G_VALUE_TYPE (value)));
    GEnumValue *v = g_enum_get_value (klass, g_value_get_enum (value));
    out = v ? v->value_nick : std::to_string (g_value_get_enum (value));
    g_type_class_unref (klass);
  } else {
    gchar *text = g_strdup_value_contents (value);
    out = text;
    g_free (text);
  }
  return cut (out, 160);
}

/* Properties the fuzzer sets: writable, not construct-only, not the object's name and parent,
 * and not deprecated (GLib warns on those with G_ENABLE_DIAGNOSTIC=1: GstBaseSrc's typefind). */
bool
fuzzable (GParamSpec * pspec)
{
  if (!(pspec->flags & G_PARAM_WRITABLE) || (pspec->flags & G_PARAM_CONSTRUCT_ONLY) ||
      (pspec->flags & G_PARAM_DEPRECATED))
    return false;
  return g_strcmp0 (pspec->name, "name") != 0 && g_strcmp0 (pspec->name, "parent") != 0;
}

/* ---- errors: which are explained ---- */

/* Words that say nothing of what is wrong on their own. */
bool
content_free_word (const std::string & word)
{
  static const std::vector<std::string> words = { "opencl", "error", "errors", "failed",
    "failure", "code", "returned", "status", "call", "the", "with", "in", "of", "an", "a",
    "internal", "data", "stream", "streaming", "stopped", "reason", "not", "negotiated",
    "unknown" };
  gchar *lower = g_ascii_strdown (word.c_str (), -1);
  const bool found = std::find (words.begin (), words.end (), lower) != words.end ();
  g_free (lower);
  /* OpenCL's names: CL_OUT_OF_RESOURCES, clEnqueueNDRangeKernel. */
  return found || g_str_has_prefix (word.c_str (), "CL_") || (word.size () > 2 &&
      word[0] == 'c' && word[1] == 'l' && g_ascii_isupper (word[2]));
}

/* Whether `text` says something beyond an OpenCL error code and GStreamer's stock words: at
 * least two words of three letters or more that are not in content_free_word (). */
bool
specific (const std::string & text)
{
  int words = 0;
  std::string word;
  for (size_t i = 0; i <= text.size (); i++) {
    const char c = i < text.size () ? text[i] : ' ';
    if (g_ascii_isalnum (c) || c == '_' || c == '-') {
      word += c;
      continue;
    }
    bool letters = false;
    for (char w : word)
      letters |= g_ascii_isalpha (w);
    if (word.size () >= 3 && letters && !content_free_word (word))
      words++;
    word.clear ();
  }
  return words >= 2;
}

/* Why an ERROR message is unexplained, "" when it is clear. The rule: it comes from an element
 * of this plugin (the fuzzed one or the openclupload feeding it), not from a GStreamer element
 * reporting what an element of ours did to it ("Internal data stream error" from the source),
 * and its text, or GStreamer's stock text with a debug string of the element's own, names what
 * is wrong: more than an OpenCL error code. */
std::string
unexplained (GstMessage * message)
{
  GError *error = nullptr;
  gchar *debug = nullptr;
  gst_message_parse_error (message, &error, &debug);
  std::string text = error && error->message ? error->message : "";
  std::string detail = debug ? debug : "";
  gchar *stock = error ? gst_error_get_message (error->domain, error->code) : g_strdup ("");
  const bool stock_text = text.empty () || text == stock;
  g_free (stock);
  g_clear_error (&error);
  g_free (debug);

  GstObject *src = GST_MESSAGE_SRC (message);
  GstElementFactory *factory = GST_IS_ELEMENT (src) ? gst_element_get_factory (GST_ELEMENT (src))
      : nullptr;
  GstPlugin *plugin = factory ? gst_plugin_feature_get_plugin (GST_PLUGIN_FEATURE (factory)) :
      nullptr;
  const bool ours = plugin && g_strcmp0 (gst_plugin_get_name (plugin), "opencl") == 0;
  if (plugin)
    gst_object_unref (plugin);
  if (!ours)
    return std::string ("posted by ") + GST_OBJECT_NAME (src) + ", not by an opencl element";
  /* The debug string begins with the source file and function; the element's own words follow
   * the element's path. */
  std::string own_detail = detail;
  const size_t path = own_detail.find ("): /");
  if (path != std::string::npos) {
    const size_t line = own_detail.find ('\n', path);
    own_detail = line == std::string::npos ? "" : own_detail.substr (line + 1);
  }
  if (stock_text && !specific (own_detail))
    return "GStreamer's stock text and no explanation in the debug string";
  if (!stock_text && !specific (text) && !specific (own_detail))
    return "only an OpenCL error code";
  return "";
}

/* ---- one set ---- */

struct SetReport
{
  std::string header;          /* seed, element, set, pipeline */
  std::vector<std::string> applied;
  std::vector<std::string> problems;
  std::vector<std::string> errors;     /* clear ERROR texts, for the summary */
  std::vector<std::string> warnings;   /* WARNING texts, for the summary */

  std::string describe () const
  {
    std::string text = header + "\n  values applied, in order:";
    for (const auto & a : applied)
      text += "\n    " + a;
    if (applied.empty ())
      text += " (none)";
    return text;
  }
};

std::string
launch_line (Rng & rng, const Target & target)
{
  const std::string element = target.factory + " name=fuzzed";
  const std::string sink = " ! fakesink name=sink sync=false";
  if (target.source && target.takes.video.empty () && target.takes.opencl_video.empty ())
    return element + sink;  /* tensors: the element's own shape */
  if (target.source) {
    const bool opencl = !target.takes.opencl_video.empty () && rng.chance (0.25);
    const auto & formats = opencl ? target.takes.opencl_video : target.takes.video;
    const bool tiny = rng.chance (0.1);
    return element + " ! capsfilter caps=\"video/x-raw" + (opencl ? "(memory:OpenCLMemory)" :
        "") + ",format=" + rng.pick (formats) + (tiny ? ",width=1,height=1" :
        ",width=31,height=17") + "\"" + sink;
  }
  std::vector<int> kinds;
  if (!target.takes.video.empty ())
    kinds.insert (kinds.end (), { 0, 0, 0 });
  if (!target.takes.opencl_video.empty ())
    kinds.push_back (1);
  if (!target.takes.tensors.empty ())
    kinds.insert (kinds.end (), { 2, 2 });
  const int kind = rng.pick (kinds);
  if (kind == 2) {
    const std::string type = rng.pick (target.takes.tensors);
    const std::vector<std::pair<std::string, int>> shapes = { { "13:5:3", 195 },
      { "8:8:8", 512 }, { "16:4:1", 64 }, { "1:1:1", 1 }, { "67:45:2", 6030 } };
    const auto & shape = rng.pick (shapes);
    const int bytes = shape.second * (type == "uint8" || type == "int8" ? 1 :
        type == "float64" || type == "int64" || type == "uint64" ? 8 :
        type == "float16" || type == "int16" || type == "uint16" ? 2 : 4);
    return "fakesrc name=in sizetype=fixed sizemax=" + std::to_string (bytes) +
        " filltype=random ! capsfilter caps=\"other/tensors,format=static,num_tensors=1,types=" +
        type + ",dimensions=(string)" + shape.first + ",framerate=(fraction)0/1\" ! " + element +
        sink;
  }
  /* Video: RGBA most of the time, at a small odd size, else any format the element takes. */
  const auto & formats = kind == 1 ? target.takes.opencl_video : target.takes.video;
  std::string format = std::find (formats.begin (), formats.end (), "RGBA") != formats.end () &&
      rng.chance (0.6) ? "RGBA" : rng.pick (formats);
  static const std::vector<std::string> patterns = { "ball", "snow", "black", "smpte",
    "gradient" };
  std::string line = "videotestsrc name=in pattern=" + rng.pick (patterns) +
      " ! capsfilter caps=\"video/x-raw,format=" + format +
      ",width=67,height=45,framerate=30/1\" ! " + (kind == 1 ? "openclupload ! " : "") + element;
  if (kind == 0 && target.video_out_choice && rng.chance (0.5))
    line += " ! video/x-raw";
  return line + sink;
}

/* Bus messages of a set, as they come. */
struct BusState
{
  bool eos = false;
  GstMessage *first_error = nullptr;
  std::vector<std::string> warnings;
  bool done () const { return eos || first_error; }
};

void
drain_bus (GstBus * bus, BusState & state, GstClockTime wait)
{
  while (GstMessage *message = gst_bus_timed_pop_filtered (bus, wait,
          (GstMessageType) (GST_MESSAGE_EOS | GST_MESSAGE_ERROR | GST_MESSAGE_WARNING))) {
    wait = 0;
    switch (GST_MESSAGE_TYPE (message)) {
      case GST_MESSAGE_EOS:
        state.eos = true;
        break;
      case GST_MESSAGE_ERROR:
        if (!state.first_error) {
          state.first_error = gst_message_ref (message);
        }
        break;
      default:
        state.warnings.push_back (testutil::message_text (message));
        break;
    }
    gst_message_unref (message);
  }
}

/* Waits until `frames` more buffers reached the sink, or the pipeline ended or failed; false
 * when neither happened in time. */
bool
wait_frames (GstBus * bus, BusState & state, std::atomic<int> & count, int frames)
{
  const int target = count.load () + frames;
  const gint64 end = g_get_monotonic_time () + STEP_TIMEOUT_S * G_TIME_SPAN_SECOND;
  while (!state.done () && count.load () < target) {
    if (g_get_monotonic_time () > end)
      return false;
    drain_bus (bus, state, 20 * GST_MSECOND);
  }
  return true;
}

/* The writable properties of `object` (and, for the mid-stream rounds, of its children). */
std::vector<GParamSpec *>
fuzzable_properties (GObject * object)
{
  guint n = 0;
  GParamSpec **specs = g_object_class_list_properties (G_OBJECT_GET_CLASS (object), &n);
  std::vector<GParamSpec *> out;
  for (guint i = 0; i < n; i++) {
    if (fuzzable (specs[i]))
      out.push_back (specs[i]);
  }
  g_free (specs);
  return out;
}

/* Reads every readable property (the getters run against whatever the setters left). */
void
read_all (GObject * object)
{
  guint n = 0;
  GParamSpec **specs = g_object_class_list_properties (G_OBJECT_GET_CLASS (object), &n);
  for (guint i = 0; i < n; i++) {
    if (!(specs[i]->flags & G_PARAM_READABLE) || G_IS_PARAM_SPEC_OBJECT (specs[i]))
      continue;
    GValue v = G_VALUE_INIT;
    g_value_init (&v, G_PARAM_SPEC_VALUE_TYPE (specs[i]));
    g_object_get_property (object, specs[i]->name, &v);
    g_value_unset (&v);
  }
  g_free (specs);
}

/* Sets one property of `object` to a random value and records it (printed at once, so that a
 * crash's log shows the value that caused it). */
void
apply (Rng & rng, GObject * object, GParamSpec * pspec, const Target & target, double wild,
    const std::string & phase, const std::string & owner, SetReport & report)
{
  GValue value = G_VALUE_INIT;
  if (!make_value (rng, pspec, target.source, wild, &value))
    return;
  /* Only values GObject takes: the fuzzer tests the element, not GObject's range check. */
  if (!g_param_value_is_valid (pspec, &value)) {
    g_value_unset (&value);
    g_value_init (&value, G_PARAM_SPEC_VALUE_TYPE (pspec));
    g_param_value_set_default (pspec, &value);
  }
  std::string line = phase + ": " + owner + pspec->name + " = " + show (&value);
  g_printerr ("property-fuzz:   %s\n", line.c_str ());
  report.applied.push_back (line);
  g_object_set_property (object, pspec->name, &value);
  g_value_unset (&value);
}

/* A setting that runs, for the properties the elements of the plugin need before they run
 * (by name, so that an element with the same properties gets it too): a kernel and its
 * parameters, a filter bank. */
void
apply_base (GObject * object, const Target & target, SetReport & report)
{
  auto set = [&](const char *name, const GValue * value) {
    GParamSpec *pspec = g_object_class_find_property (G_OBJECT_GET_CLASS (object), name);
    if (!pspec || !fuzzable (pspec) || G_PARAM_SPEC_VALUE_TYPE (pspec) != G_VALUE_TYPE (value))
      return;
    std::string line = std::string ("NULL (running setting): ") + name + " = " + show (value);
    g_printerr ("property-fuzz:   %s\n", line.c_str ());
    report.applied.push_back (line);
    g_object_set_property (object, name, value);
  };
  GValue v = G_VALUE_INIT;
  g_value_init (&v, G_TYPE_STRING);
  g_value_set_string (&v, target.source ? SOURCE_CL : FILTER_IMAGE_CL);
  set ("source", &v);
  g_value_unset (&v);
  g_value_init (&v, GST_TYPE_STRUCTURE);
  GstStructure *parameters = gst_structure_from_string ("p,strength=0.8,speed=1.0", nullptr);
  gst_value_set_structure (&v, parameters);
  gst_structure_free (parameters);
  set ("parameters", &v);
  g_value_unset (&v);
  g_value_init (&v, G_TYPE_INT);
  g_value_set_int (&v, 1);
  set ("num-kernels", &v);
  g_value_set_int (&v, 3);
  set ("kernel-size", &v);
  g_value_set_int (&v, 2);
  set ("dims", &v);
  g_value_unset (&v);
  gst_value_array_init (&v, 9);
  for (float tap : { 0.f, -1.f, 0.f, -1.f, 5.f, -1.f, 0.f, -1.f, 0.f }) {
    GValue item = G_VALUE_INIT;
    g_value_init (&item, G_TYPE_FLOAT);
    g_value_set_float (&item, tap);
    gst_value_array_append_and_take_value (&v, &item);
  }
  set ("kernels", &v);
  g_value_unset (&v);
}

/* A random child of a GstChildProxy element (openclkernel's parameters), a new reference, or
 * nullptr. */
GObject *
random_child (Rng & rng, GstElement * element)
{
  if (!GST_IS_CHILD_PROXY (element))
    return nullptr;
  const guint n = gst_child_proxy_get_children_count (GST_CHILD_PROXY (element));
  if (n == 0)
    return nullptr;
  return gst_child_proxy_get_child_by_index (GST_CHILD_PROXY (element), (guint) rng.below (n));
}

SetReport
run_set (const Target & target, int set)
{
  Rng rng = set_rng (target.factory, set);
  const gint64 start = g_get_monotonic_time ();
  SetReport report;
  const std::string line = launch_line (rng, target);
  report.header = "seed " + std::to_string (fuzz_seed ()) + ", " + target.factory + ", set " +
      std::to_string (set) + " (replay: PROPERTY_FUZZ_SEED=" + std::to_string (fuzz_seed ()) +
      " PROPERTY_FUZZ_ONLY=" + target.factory + ":" + std::to_string (set) + ")\n  pipeline: " +
      line;
  g_printerr ("property-fuzz: %s\n", report.header.c_str ());
  take_logged ();

  std::mutex step_mutex;
  std::string step = "building the pipeline";
  auto set_step = [&](const std::string & text) {
    std::lock_guard<std::mutex> lock (step_mutex);
    step = text;
  };
  /* The whole set, setters included (one that blocks on a streaming thread is a hang too). */
  Watchdog set_watchdog (SET_TIMEOUT_S, [&] {
        std::lock_guard<std::mutex> lock (step_mutex);
        return "hang: the set did not finish in " + std::to_string (SET_TIMEOUT_S) +
            " s, last step: " + step + "\n" + report.describe ();
      });

  GstElement *pipeline = testutil::parse_pipeline (line);
  GstElement *element = gst_bin_get_by_name (GST_BIN (pipeline), "fuzzed");
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  GstBus *bus = gst_element_get_bus (pipeline);
  std::atomic<int> frames { 0 };
  GstPad *sink_pad = gst_element_get_static_pad (sink, "sink");
  gst_pad_add_probe (sink_pad, (GstPadProbeType) (GST_PAD_PROBE_TYPE_BUFFER |
          GST_PAD_PROBE_TYPE_BUFFER_LIST), [](GstPad *, GstPadProbeInfo *,
          gpointer data) -> GstPadProbeReturn {
        (*static_cast<std::atomic<int> *> (data))++;
        return GST_PAD_PROBE_OK;
      }, &frames, nullptr);
  gst_object_unref (sink_pad);

  const auto properties = fuzzable_properties (G_OBJECT (element));
  /* Before PLAYING (in NULL or READY), while PLAYING, or both; half of the sets from a
   * setting that runs, so that the changes while PLAYING meet a running element. */
  const int plan = (int) rng.below (3);
  const bool before = plan != 1, during = plan != 0;
  const bool based = rng.chance (0.5);
  const double wild = rng.pick (std::vector<double> { 0.15, 0.4, 0.8 });
  const std::string plan_text = "plan: " + std::string (based ? "a running setting, " : "") +
      (before ? "before PLAYING" : "") + (before && during ? " and " : "") +
      (during ? "while PLAYING" : "") + ", wildness " + std::to_string (wild).substr (0, 4);
  report.header += "\n  " + plan_text;
  g_printerr ("property-fuzz:   %s\n", plan_text.c_str ());
  if (based)
    apply_base (G_OBJECT (element), target, report);
  BusState state;
  /* Waits for frames after `since`; none is a warning (the element may be slow), not a failure. */
  auto expect_frames = [&](const std::string & since) {
    if (!wait_frames (bus, state, frames, FRAMES_PER_STEP))
      report.warnings.push_back ("no frame within " + std::to_string (STEP_TIMEOUT_S) +
          " s of " + since);
  };
  if (before) {
    const bool ready = rng.chance (0.5);
    if (ready) {
      set_step ("NULL -> READY");
      gst_element_set_state (pipeline, GST_STATE_READY);
    }
    const double share = based ? rng.pick (std::vector<double> { 0.1, 0.25, 0.5 }) :
        rng.pick (std::vector<double> { 1.0, 0.5, 0.25 });
    set_step ("setting properties before PLAYING");
    for (GParamSpec *pspec : properties) {
      if (rng.chance (share))
        apply (rng, G_OBJECT (element), pspec, target, wild, ready ? "READY" : "NULL", "",
            report);
    }
  }
  set_step ("-> PLAYING");
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  set_step ("waiting for the first frames");
  expect_frames ("PLAYING");
  if (during) {
    const int rounds = 1 + (int) rng.below (3);
    for (int round = 0; round < rounds && !state.done (); round++) {
      const int changes = 1 + (int) rng.below (4);
      set_step ("setting properties while PLAYING, round " + std::to_string (round));
      for (int c = 0; c < changes; c++) {
        GObject *child = rng.chance (0.15) ? random_child (rng, element) : nullptr;
        if (child) {
          auto child_properties = fuzzable_properties (child);
          if (!child_properties.empty ())
            apply (rng, child, rng.pick (child_properties), target, wild, "PLAYING",
                std::string (GST_IS_OBJECT (child) ? GST_OBJECT_NAME (child) : "child") + "::",
                report);
          read_all (child);
          g_object_unref (child);
        } else if (!properties.empty ()) {
          apply (rng, G_OBJECT (element), rng.pick (properties), target, wild, "PLAYING", "",
              report);
        }
      }
      read_all (G_OBJECT (element));
      set_step ("waiting for frames after round " + std::to_string (round));
      expect_frames ("round " + std::to_string (round));
    }
  }
  /* A quarter of the sets stop and start again: back to READY, a few values, PLAYING (values
   * an element reads when it starts, taken after a run). */
  if (!state.done () && rng.chance (0.25)) {
    set_step ("PLAYING -> READY");
    gst_element_set_state (pipeline, GST_STATE_READY);
    const int changes = 1 + (int) rng.below (4);
    set_step ("setting properties in READY after PLAYING");
    for (int c = 0; c < changes && !properties.empty (); c++)
      apply (rng, G_OBJECT (element), rng.pick (properties), target, wild, "READY (restart)", "",
          report);
    set_step ("READY -> PLAYING");
    gst_element_set_state (pipeline, GST_STATE_PLAYING);
    set_step ("waiting for frames after the restart");
    expect_frames ("the restart");
  }
  read_all (G_OBJECT (element));

  /* The end: EOS from the sources, then EOS or an ERROR on the bus. */
  if (!state.done ()) {
    set_step ("waiting for EOS");
    gst_element_send_event (pipeline, gst_event_new_eos ());
    const gint64 end = g_get_monotonic_time () + EOS_TIMEOUT_S * G_TIME_SPAN_SECOND;
    while (!state.done () && g_get_monotonic_time () < end)
      drain_bus (bus, state, 100 * GST_MSECOND);
    if (!state.done ())
      report.problems.push_back ("hang: neither EOS nor an ERROR within " +
          std::to_string (EOS_TIMEOUT_S) + " s of sending EOS (" +
          std::to_string (frames.load ()) + " frames passed)");
  }
  const char *ending = state.first_error ? "ERROR" : state.eos ? "EOS" : "neither";
  if (state.first_error) {
    const std::string why = unexplained (state.first_error);
    const std::string text = testutil::message_text (state.first_error);
    if (!why.empty ())
      report.problems.push_back ("unexplained ERROR (" + why + ") from " +
          GST_OBJECT_NAME (GST_MESSAGE_SRC (state.first_error)) + ": " + text);
    else
      report.errors.push_back (text);
    gst_message_unref (state.first_error);
  }
  for (const auto & w : state.warnings)
    report.warnings.push_back (w);

  {
    set_step ("-> NULL");
    Watchdog null_watchdog (NULL_TIMEOUT_S, [&] {
          return "hang: the change back to NULL did not return in " +
              std::to_string (NULL_TIMEOUT_S) + " s\n" + report.describe ();
        });
    gst_element_set_state (pipeline, GST_STATE_NULL);
  }
  gst_object_unref (bus);
  gst_object_unref (sink);
  gst_object_unref (element);
  gst_object_unref (pipeline);

  for (const auto & log : take_logged ())
    report.problems.push_back (log);
  g_printerr ("property-fuzz:   end: %s, %d frames, %.1f s\n", ending, frames.load (),
      (g_get_monotonic_time () - start) / 1e6);
  return report;
}

std::vector<std::string> &
factories ()
{
  static std::vector<std::string> list;
  return list;
}

}  // namespace

/* The registry lists the plugin's elements: none at all means the plugin did not load. */
GST_START_TEST (test_plugin_has_elements)
{
  fail_if (factories ().empty (), "the registry lists no element of the opencl plugin "
      "(GST_PLUGIN_PATH=%s)", g_getenv ("GST_PLUGIN_PATH"));
}
GST_END_TEST;

/* One element, every set (check runs it in a process of its own: a crash fails this element). */
GST_START_TEST (test_fuzz_element)
{
  install_log_handlers ();
  const std::string name = factories ().at (__i__);
  const auto only = fuzz_only ();
  if (!only.first.empty () && only.first != name)
    return;
  const Target target = target_of (name);
  if (target.takes.empty ()) {
    /* Video only in GL or CUDA memory (a GL context or an NVIDIA device, which CI does not
     * have), or media other than video and tensors: nothing here can feed it. */
    g_print ("property-fuzz: %s skipped: its pads take no video in system or OpenCL memory and "
        "no tensors\n", name.c_str ());
    return;
  }
  const int sets = fuzz_sets ();
  std::vector<std::string> failures;
  std::vector<std::string> errors, warnings;
  const gint64 start = g_get_monotonic_time ();
  for (int set = 0; set < sets || (only.second >= 0 && set <= only.second); set++) {
    if (only.second >= 0 && set != only.second)
      continue;
    SetReport report = run_set (target, set);
    for (const auto & e : report.errors) {
      const std::string line = cut (e.substr (0, e.find ('\n')), 200);
      if (std::find (errors.begin (), errors.end (), line) == errors.end ())
        errors.push_back (line);
    }
    for (const auto & w : report.warnings) {
      const std::string line = cut (w.substr (0, w.find ('\n')), 200);
      if (std::find (warnings.begin (), warnings.end (), line) == warnings.end ())
        warnings.push_back (line);
    }
    if (!report.problems.empty ()) {
      std::string text = report.describe () + "\n  found:";
      for (const auto & p : report.problems)
        text += "\n    " + p;
      g_printerr ("property-fuzz: FAILED %s\n", text.c_str ());
      failures.push_back (text);
    }
  }
  g_print ("property-fuzz: %s: %d sets in %.1f s, %zu failed; %zu distinct errors, %zu distinct "
      "warnings\n", name.c_str (), only.second >= 0 ? 1 : sets,
      (g_get_monotonic_time () - start) / 1e6, failures.size (), errors.size (),
      warnings.size ());
  for (const auto & e : errors)
    g_print ("  error: %s\n", e.c_str ());
  for (const auto & w : warnings)
    g_print ("  warning: %s\n", w.c_str ());
  if (!failures.empty ()) {
    std::string all;
    for (const auto & f : failures)
      all += f + "\n";
    fail ("%zu of the sets of %s failed:\n%s", failures.size (), name.c_str (), all.c_str ());
  }
}
GST_END_TEST;

static Suite *
property_fuzz_suite (void)
{
  Suite *suite = suite_create ("property-fuzz");
  TCase *tc = testutil::add_case (suite, "general", 900, "test_plugin_has_elements",
      { test_plugin_has_elements });
  factories () = plugin_factories ();
  tcase_add_loop_test (tc, test_fuzz_element, 0, (int) factories ().size ());
  return suite;
}

int
main (int argc, char **argv)
{
  /* One convolution variant, as the convolution suites force it: no timing of candidates. */
  g_setenv ("GST_OPENCL_VARIANT_CONVOLUTION", "4:8x4", TRUE);
  gst_check_init (&argc, &argv);
  make_files ();
  const int result = gst_check_run_suite (property_fuzz_suite (), "property_fuzz", __FILE__);
  remove_files ();
  return result;
}
