/* gst-opencl tests: how GL frames reach the kernels (gst_opencl::GlInterop).
 *
 * - the path choice, as a pure function of what the drivers offer, for every combination that
 *   decides it, with the reasons it gives;
 * - the cl_khr_gl_sharing context properties built for a real GL context (the part of that path
 *   no driver here can run);
 * - GL pipelines of every element that takes or makes GL memory (the filters, the temporal
 *   filter, the source, openclupload and opencldownload), each compared byte for byte with the
 *   same pipeline in system memory; the `gl-interop` property they report; and the bytes that
 *   crossed the host on the way (none on an interop path). The expected path is what
 *   gst_opencl::choose_gl_interop () gives for the drivers of the run, probed here (host-copy
 *   with PoCL and Mesa, external-memory on NVIDIA, khr-gl-sharing with a driver that has it).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include <gmodule.h>
#include <gst/check/gstcheck.h>
#include <gst/app/gstappsink.h>
#include <gst/gl/gl.h>
#include <gst/gl/gstglfuncs.h>
#include <gst/video/video.h>

#include <CL/cl_gl.h>
#include <dlfcn.h>

#include <cstring>
#include <functional>
#include <initializer_list>
#include <string>
#include <vector>

#include "common/suite.h"
#include "common/testutil.h"
#include "opencl/gstopenclcudadriver.h"
#include "opencl/gstopencldevice.h"
#include "opencl/gstopenclglcopy.h"
#include "opencl/gstopenclglinterop.h"
#include "opencl/gstopenclsemaphore.h"
#include "opencl/gstopenclutils.h"

using gst_opencl::GlInteropPath;
using gst_opencl::GlInteropProbe;
using testutil::contains;

namespace {

/* Everything every path needs. */
GlInteropProbe
full_probe ()
{
  GlInteropProbe probe;
  probe.gl_platform_egl_or_glx = true;
  probe.gl_memory_object_fd = true;
  probe.gl_pixel_buffers = true;
  probe.gl_uuid = "00112233445566778899aabbccddeeff";
  probe.cl_gl_sharing = true;
  probe.cl_gl_event = true;
  probe.cl_context_is_gl_bound = false;
  probe.cl_can_bind_context = true;
  probe.cl_external_memory_fd = true;
  probe.cl_uuid = probe.gl_uuid;
  probe.exporter = true;
  probe.exporter_uuid = probe.gl_uuid;
  probe.format_rgba = true;
  return probe;
}

GlInteropPath
choose (const GlInteropProbe & probe, std::string * reasons,
    GlInteropPath wanted = GlInteropPath::KhrGlSharing)
{
  return gst_opencl::choose_gl_interop (probe, reasons, wanted);
}


/* Fails unless `probe` and `wanted` choose `expected`, with `reason` among the reasons given;
 * `what` names the case. */
void
expect_choice (const char *what, const GlInteropProbe & probe, GlInteropPath expected,
    const char *reason, GlInteropPath wanted = GlInteropPath::KhrGlSharing)
{
  std::string reasons;
  fail_unless (choose (probe, &reasons, wanted) == expected, "%s: not the expected path (%s)",
      what, reasons.c_str ());
  fail_unless (contains (reasons, reason), "%s: no \"%s\" in the reasons: %s", what, reason,
      reasons.c_str ());
}

/* One probe spoiled from full_probe () and the choice expected of it. */
struct ChoiceCase
{
  const char *what;
  void (*spoil) (GlInteropProbe &);  /* nullptr: the full probe */
  GlInteropPath expected;
  const char *reason;
  GlInteropPath wanted = GlInteropPath::KhrGlSharing;
};

void
expect_choices (std::initializer_list<ChoiceCase> cases)
{
  for (const auto & c : cases) {
    GlInteropProbe probe = full_probe ();
    if (c.spoil)
      c.spoil (probe);
    expect_choice (c.what, probe, c.expected, c.reason, c.wanted);
  }
}

}  // namespace

GST_START_TEST (test_choice_best_first)
{
  std::string reasons;
  GlInteropProbe probe = full_probe ();
  fail_unless (choose (probe, &reasons) == GlInteropPath::KhrGlSharing);
  fail_unless (reasons.empty (), "reasons for the best path: %s", reasons.c_str ());

  /* A context already bound does not need binding. */
  probe.cl_can_bind_context = false;
  probe.cl_context_is_gl_bound = true;
  fail_unless (choose (probe, &reasons) == GlInteropPath::KhrGlSharing);

  /* Without cl_khr_gl_sharing (the GPU machine's case): external memory, saying why. */
  probe = full_probe ();
  probe.cl_gl_sharing = false;
  fail_unless (choose (probe, &reasons) == GlInteropPath::ExternalMemory);
  fail_unless (contains (reasons, "khr-gl-sharing not used: the OpenCL device lacks "
          "cl_khr_gl_sharing"), "%s", reasons.c_str ());
  fail_if (contains (reasons, "external-memory not used"), "%s", reasons.c_str ());

  /* Neither: host copy, with a reason for each. */
  probe.cl_external_memory_fd = false;
  fail_unless (choose (probe, &reasons) == GlInteropPath::HostCopy);
  fail_unless (contains (reasons, "lacks cl_khr_gl_sharing"), "%s", reasons.c_str ());
  fail_unless (contains (reasons, "external-memory not used: the OpenCL device lacks "
          "cl_khr_external_memory_opaque_fd"), "%s", reasons.c_str ());
}
GST_END_TEST;

GST_START_TEST (test_choice_khr_conditions)
{
  expect_choices ({
        { "no EGL or GLX", [](GlInteropProbe & p) { p.gl_platform_egl_or_glx = false; },
          GlInteropPath::ExternalMemory, "neither EGL nor GLX" },
        { "no context binding", [](GlInteropProbe & p) { p.cl_can_bind_context = false; },
          GlInteropPath::ExternalMemory,
          "no OpenCL context can be created against the GL context" },
      });
}
GST_END_TEST;

GST_START_TEST (test_choice_external_memory_conditions)
{
  struct Case
  {
    const char *what;
    void (*spoil) (GlInteropProbe &);
    const char *reason;
  };
  const Case cases[] = {
    { "GL lacks memory objects", [](GlInteropProbe & p) { p.gl_memory_object_fd = false; },
      "lacks GL_EXT_memory_object_fd" },
    { "no pixel buffers", [](GlInteropProbe & p) { p.gl_pixel_buffers = false; },
      "no pixel buffer objects" },
    { "no exporter", [](GlInteropProbe & p) {
        p.exporter = false;
        p.exporter_error = "no CUDA driver (libcuda.so.1) to export memory";
      }, "no exporter of device memory: no CUDA driver" },
    { "no OpenCL UUID", [](GlInteropProbe & p) { p.cl_uuid.clear (); },
      "does not tell its UUID" },
    { "exporter on another device", [](GlInteropProbe & p) {
        p.exporter_uuid = "ffeeddccbbaa99887766554433221100";
      }, "the exporter's device is not the OpenCL device" },
    { "GL on another device", [](GlInteropProbe & p) {
        p.gl_uuid = "ffeeddccbbaa99887766554433221100";
      }, "the GL device is not the OpenCL device" },
  };
  for (const auto & c : cases) {
    GlInteropProbe probe = full_probe ();
    probe.cl_gl_sharing = false;
    c.spoil (probe);
    expect_choice (c.what, probe, GlInteropPath::HostCopy, c.reason);
  }
  /* A GL that does not tell its UUID is taken on trust (the exporter and OpenCL agree). */
  GlInteropProbe probe = full_probe ();
  probe.cl_gl_sharing = false;
  probe.gl_uuid.clear ();
  fail_unless (choose (probe, nullptr) == GlInteropPath::ExternalMemory);
}
GST_END_TEST;

GST_START_TEST (test_choice_format_and_wish)
{
  expect_choices ({
        { "not RGBA", [](GlInteropProbe & p) { p.format_rgba = false; },
          GlInteropPath::HostCopy, "not single-plane RGBA" },
        { "external memory wished", nullptr, GlInteropPath::ExternalMemory,
          "GST_OPENCL_GL_INTEROP asks for external-memory", GlInteropPath::ExternalMemory },
        { "host copy wished", nullptr, GlInteropPath::HostCopy,
          "external-memory not used: GST_OPENCL_GL_INTEROP asks for host-copy",
          GlInteropPath::HostCopy },
      });
  /* A wish for a better path than possible gets the best possible. */
  GlInteropProbe probe = full_probe ();
  std::string reasons;
  probe.cl_gl_sharing = false;
  fail_unless (choose (probe, &reasons, GlInteropPath::KhrGlSharing) ==
      GlInteropPath::ExternalMemory);
}
GST_END_TEST;

GST_START_TEST (test_wanted_from_environment)
{
  g_unsetenv ("GST_OPENCL_GL_INTEROP");
  fail_unless (gst_opencl::wanted_gl_interop () == GlInteropPath::KhrGlSharing);
  g_setenv ("GST_OPENCL_GL_INTEROP", "host-copy", TRUE);
  fail_unless (gst_opencl::wanted_gl_interop () == GlInteropPath::HostCopy);
  g_setenv ("GST_OPENCL_GL_INTEROP", "external-memory", TRUE);
  fail_unless (gst_opencl::wanted_gl_interop () == GlInteropPath::ExternalMemory);
  g_setenv ("GST_OPENCL_GL_INTEROP", "khr-gl-sharing", TRUE);
  fail_unless (gst_opencl::wanted_gl_interop () == GlInteropPath::KhrGlSharing);
  for (const char *bad : { "fast", "host_copy", "none", " host-copy" }) {
    g_setenv ("GST_OPENCL_GL_INTEROP", bad, TRUE);
    bool thrown = false;
    try {
      gst_opencl::wanted_gl_interop ();
    } catch (const gst_opencl::Failure & failure) {
      thrown = contains (failure.what (), "is not a path");
    }
    fail_unless (thrown, "\"%s\" accepted", bad);
  }
  g_unsetenv ("GST_OPENCL_GL_INTEROP");
}
GST_END_TEST;

GST_START_TEST (test_extension_lists)
{
  const std::string list = "cl_khr_gl_sharing_ext cl_khr_gl_event cl_khr_icd";
  fail_unless (gst_opencl::extension_listed (list, "cl_khr_gl_event"));
  fail_unless (gst_opencl::extension_listed (list, "cl_khr_icd"));
  fail_unless (gst_opencl::extension_listed (list, "cl_khr_gl_sharing_ext"));
  fail_if (gst_opencl::extension_listed (list, "cl_khr_gl_sharing"));
  fail_if (gst_opencl::extension_listed (list, "khr_icd"));
  fail_if (gst_opencl::extension_listed (list, ""));
  fail_if (gst_opencl::extension_listed ("", "cl_khr_icd"));
}
GST_END_TEST;

/* A GL context of this machine's default display, or nullptr (said on stderr: the test then
 * skips) where none can be made; *display is set with it. */
static GstGLContext *
new_gl_context (GstGLDisplay ** display)
{
  *display = gst_gl_display_new ();
  GstGLContext *context = gst_gl_context_new (*display);
  GError *error = nullptr;
  if (gst_gl_context_create (context, nullptr, &error))
    return context;
  g_printerr ("no GL context here (%s): skipped\n", error ? error->message : "?");
  g_clear_error (&error);
  gst_object_unref (context);
  gst_clear_object (display);
  return nullptr;
}

/* The context properties of path (a) for a real GL context (Mesa under Xvfb here). */
GST_START_TEST (test_sharing_properties)
{
  GstGLDisplay *display = nullptr;
  GstGLContext *context = new_gl_context (&display);
  if (!context)
    return;
  const cl_platform_id platform = reinterpret_cast<cl_platform_id> (0x1234);
  std::string why_not;
  auto properties = gst_opencl::gl_sharing_properties (context, platform, &why_not);
  const GstGLPlatform gl_platform = gst_gl_context_get_gl_platform (context);
  g_printerr ("GL platform %s\n", gl_platform == GST_GL_PLATFORM_EGL ? "EGL" :
      gl_platform == GST_GL_PLATFORM_GLX ? "GLX" : "other");
  if (gl_platform == GST_GL_PLATFORM_EGL || gl_platform == GST_GL_PLATFORM_GLX) {
    fail_unless_equals_int (properties.size (), 7);
    fail_unless (properties[0] == CL_GL_CONTEXT_KHR);
    fail_unless (properties[1] == (cl_context_properties) gst_gl_context_get_gl_context (context));
    fail_unless (properties[1] != 0);
    fail_unless (properties[2] == (gl_platform == GST_GL_PLATFORM_EGL ? CL_EGL_DISPLAY_KHR :
            CL_GLX_DISPLAY_KHR));
    fail_unless (properties[3] != 0);
    if (gl_platform == GST_GL_PLATFORM_GLX)
      fail_unless (properties[3] == (cl_context_properties) gst_gl_display_get_handle (display));
    fail_unless (properties[4] == CL_CONTEXT_PLATFORM);
    fail_unless (properties[5] == (cl_context_properties) platform);
    fail_unless (properties[6] == 0);
  } else {
    fail_unless (properties.empty ());
    TESTUTIL_EXPECT_ERROR (why_not, "EGL and GLX only");
  }
  gst_object_unref (context);
  gst_object_unref (display);
}
GST_END_TEST;

/* The compute-shader copies of the external-memory path (gst_opencl::GlFrameCopy), on this
 * machine's GL: a texture of every byte value in every channel, at a size that is not a multiple
 * of the shaders' 16x16 groups, into a buffer and back into another texture, byte for byte.
 * Where the context is below GL 4.3 init () must say so, and the copies are not run. */
GST_START_TEST (test_compute_copy_round_trip)
{
  GstGLDisplay *display = nullptr;
  GstGLContext *context = new_gl_context (&display);
  if (!context)
    return;
  struct Run
  {
    int width = 37, height = 23;
    std::vector<guint8> pixels, through_buffer, back;
    bool ready = false, gl43 = false;
    std::string why_not;
    GLenum error = GL_NO_ERROR;
  } run;
  run.pixels.resize ((size_t) run.width * run.height * 4);
  for (size_t i = 0; i < run.pixels.size (); i++)
    run.pixels[i] = (guint8) ((i * 131 + i / 97) & 0xff);
  run.pixels[0] = 0;
  run.pixels[1] = 255;
  gst_gl_context_thread_add (context, [](GstGLContext * gl_context, gpointer data) {
        auto & r = *static_cast<Run *> (data);
        const GstGLFuncs *gl = gl_context->gl_vtable;
        r.gl43 = !(gst_gl_context_get_gl_api (gl_context) & GST_GL_API_GLES2) &&
            gst_gl_context_check_gl_version (gl_context,
                (GstGLAPI) (GST_GL_API_OPENGL | GST_GL_API_OPENGL3), 4, 3);
        gst_opencl::GlFrameCopy copy;
        r.ready = copy.init (gl_context, &r.why_not);
        if (!r.ready)
          return;
        GLuint textures[2], buffer, framebuffer;
        gl->GenTextures (2, textures);
        for (int t = 0; t < 2; t++) {
          gl->BindTexture (GL_TEXTURE_2D, textures[t]);
          gl->TexImage2D (GL_TEXTURE_2D, 0, GL_RGBA8, r.width, r.height, 0, GL_RGBA,
              GL_UNSIGNED_BYTE, t == 0 ? r.pixels.data () : nullptr);
          gl->TexParameteri (GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
        }
        gl->BindTexture (GL_TEXTURE_2D, 0);
        const GLsizeiptr bytes = (GLsizeiptr) r.pixels.size ();
        gl->GenBuffers (1, &buffer);
        gl->BindBuffer (GL_ARRAY_BUFFER, buffer);
        gl->BufferData (GL_ARRAY_BUFFER, bytes, nullptr, GL_DYNAMIC_COPY);
        gl->BindBuffer (GL_ARRAY_BUFFER, 0);

        copy.texture_to_buffer (gl_context, textures[0], buffer, r.width, r.height);
        gl->Finish ();
        r.through_buffer.resize (r.pixels.size ());
        gl->BindBuffer (GL_ARRAY_BUFFER, buffer);
        void *mapped = gl->MapBufferRange (GL_ARRAY_BUFFER, 0, bytes, GL_MAP_READ_BIT);
        if (mapped)
          std::memcpy (r.through_buffer.data (), mapped, r.pixels.size ());
        gl->UnmapBuffer (GL_ARRAY_BUFFER);
        gl->BindBuffer (GL_ARRAY_BUFFER, 0);

        copy.buffer_to_texture (gl_context, buffer, textures[1], r.width, r.height);
        gl->Finish ();
        r.back.resize (r.pixels.size ());
        gl->GenFramebuffers (1, &framebuffer);
        gl->BindFramebuffer (GL_FRAMEBUFFER, framebuffer);
        gl->FramebufferTexture2D (GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D,
            textures[1], 0);
        gl->PixelStorei (GL_PACK_ALIGNMENT, 1);
        gl->ReadPixels (0, 0, r.width, r.height, GL_RGBA, GL_UNSIGNED_BYTE, r.back.data ());
        gl->BindFramebuffer (GL_FRAMEBUFFER, 0);
        r.error = gl->GetError ();
        gl->DeleteFramebuffers (1, &framebuffer);
        gl->DeleteBuffers (1, &buffer);
        gl->DeleteTextures (2, textures);
        copy.clear (gl_context);
      }, &run);
  g_printerr ("GL 4.3: %s; compute copy: %s\n", run.gl43 ? "yes" : "no",
      run.ready ? "ready" : run.why_not.c_str ());
  fail_unless (run.ready == run.gl43, "GL 4.3 is %s, yet the copy is %s (%s)",
      run.gl43 ? "there" : "not there", run.ready ? "ready" : "not ready", run.why_not.c_str ());
  if (run.ready) {
    fail_unless_equals_int (run.error, GL_NO_ERROR);
    for (size_t i = 0; i < run.pixels.size (); i++) {
      fail_unless (run.through_buffer[i] == run.pixels[i], "texture -> buffer: byte %zu is %u, "
          "not %u", i, run.through_buffer[i], run.pixels[i]);
      fail_unless (run.back[i] == run.pixels[i], "buffer -> texture: byte %zu is %u, not %u",
          i, run.back[i], run.pixels[i]);
    }
  }
  gst_object_unref (context);
  gst_object_unref (display);
}
GST_END_TEST;

namespace {

/* The plugin's host <-> device byte counters (GST_OPENCL_COUNT_TRANSFERS=1, set in main). */
void
transfer_totals (guint64 * to_device, guint64 * to_host)
{
  testutil::plugin_transfer_totals (to_device, to_host);
}

/* ---- What the drivers of this run offer, asked through the layer's probes of the OpenCL device
 * and the GL context (those GlInterop::configure uses); configure () also sets the chosen path
 * up, so the test asks the rest itself (context binding, the CUDA exporter), and the path the
 * element reports must be the one choose_gl_interop () gives for the answers. */

/* The device an element without a `device` property runs on. */
cl::Device
element_device ()
{
  return gst_opencl::select_device (std::string ());
}

/* The exporter the element looks for: the CUDA driver with the calls it allocates and exports
 * memory with, and a CUDA device whose UUID is `uuid`. */
bool
cuda_exporter_for (const std::string & uuid, std::string * why_not)
{
  void *cuda = dlopen ("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!cuda) {
    *why_not = "no CUDA driver (libcuda.so.1)";
    return false;
  }
  for (const char *name : { "cuDevicePrimaryCtxRetain", "cuDevicePrimaryCtxRelease_v2",
           "cuCtxPushCurrent_v2", "cuCtxPopCurrent_v2", "cuMemGetAllocationGranularity",
           "cuMemCreate", "cuMemExportToShareableHandle", "cuMemRelease" }) {
    if (!dlsym (cuda, name)) {
      *why_not = std::string ("the CUDA driver lacks ") + name;
      return false;
    }
  }
  auto init = reinterpret_cast<int (*) (unsigned)> (dlsym (cuda, "cuInit"));
  auto device_count = reinterpret_cast<int (*) (int *)> (dlsym (cuda, "cuDeviceGetCount"));
  auto device_get = reinterpret_cast<int (*) (int *, int)> (dlsym (cuda, "cuDeviceGet"));
  auto device_uuid = reinterpret_cast<int (*) (unsigned char *, int)> (dlsym (cuda,
          "cuDeviceGetUuid"));
  int count = 0;
  if (!init || !device_count || !device_get || !device_uuid || init (0) != 0 ||
      device_count (&count) != 0) {
    *why_not = "the CUDA driver does not initialise";
    return false;
  }
  for (int ordinal = 0; ordinal < count; ordinal++) {
    int device = 0;
    unsigned char bytes[16];
    if (device_get (&device, ordinal) == 0 && device_uuid (bytes, device) == 0 &&
        gst_opencl::hex_bytes (bytes, sizeof bytes) == uuid)
      return true;
  }
  *why_not = "no CUDA device has the OpenCL device's UUID";
  return false;
}

/* The probe for RGBA frames between `gl` and `device`, in a pipeline whose OpenCL context was
 * not created against GL (the elements make their own). */
GlInteropProbe
probe_drivers (GstGLContext * gl, const cl::Device & device)
{
  GlInteropProbe probe;
  probe.format_rgba = true;
  gst_opencl::probe_cl_device (device, probe);
  gst_opencl::probe_gl_context (gl, probe);

  probe.cl_context_is_gl_bound = false;
  if (probe.cl_gl_sharing)
    probe.cl_can_bind_context = !gst_opencl::gl_sharing_properties (gl,
        gst_opencl::platform_id (device), nullptr).empty ();
  if (probe.cl_external_memory_fd && probe.gl_memory_object_fd && !probe.cl_uuid.empty ()) {
    probe.exporter = cuda_exporter_for (probe.cl_uuid, &probe.exporter_error);
    if (probe.exporter)
      probe.exporter_uuid = probe.cl_uuid;
  }
  return probe;
}

/* The GL context of the pipeline's GL elements (glupload, gldownload: their `context`), which
 * the OpenCL elements beside them share. */
GstGLContext *
pipeline_gl_context (GstElement * pipeline)
{
  GstGLContext *context = nullptr;
  GstIterator *elements = gst_bin_iterate_recurse (GST_BIN (pipeline));
  GValue item = G_VALUE_INIT;
  while (!context && gst_iterator_next (elements, &item) == GST_ITERATOR_OK) {
    auto *element = GST_ELEMENT (g_value_get_object (&item));
    GParamSpec *spec = g_object_class_find_property (G_OBJECT_GET_CLASS (element), "context");
    if (spec && G_PARAM_SPEC_VALUE_TYPE (spec) == GST_TYPE_GL_CONTEXT)
      g_object_get (element, "context", &context, nullptr);
    g_value_reset (&item);
  }
  g_value_unset (&item);
  gst_iterator_free (elements);
  return context;
}

/* The device an element runs on beside the GL context `gl`: with the device automatic, the
 * OpenCL device with the GL context's UUID (GL_EXT_memory_object) where there is one, else the
 * default one; the device GST_OPENCL_DEVICE names when it is set. Says on stderr which rule
 * applied. */
cl::Device
device_beside_gl (GstGLContext * gl)
{
  const char *set = g_getenv ("GST_OPENCL_DEVICE");
  if (set && *set)
    return element_device ();  /* a device that is set is kept */
  GlInteropProbe probe;
  gst_opencl::probe_gl_context (gl, probe);
  const std::string there = gst_opencl::device_string_of_uuid (probe.gl_uuid);
  g_printerr ("GL context's GPU UUID \"%s\": %s\n", probe.gl_uuid.c_str (), there.empty () ?
      "no OpenCL device has it, the default device" : there.c_str ());
  return there.empty () ? element_device () : gst_opencl::select_device (there);
}

/* The path choose_gl_interop () gives for the drivers `element` of `pipeline` runs on, with
 * GST_OPENCL_GL_INTEROP as the element reads it. Checks first that the element runs on the
 * device the test probes (device_beside_gl). */
std::string
expected_path (GstElement * pipeline, GstElement * element)
{
  GstGLContext *gl = pipeline_gl_context (pipeline);
  fail_unless (gl != nullptr, "no GL element with a context in the pipeline");
  cl::Device device = device_beside_gl (gl);
  gchar *device_name = nullptr;
  g_object_get (element, "device-name", &device_name, nullptr);
  const std::string probed_name = gst_opencl::describe_device (device);
  fail_unless_equals_string (device_name, probed_name.c_str ());
  g_free (device_name);
  const GlInteropProbe probe = probe_drivers (gl, device);
  gst_object_unref (gl);
  std::string reasons;
  const GlInteropPath path = gst_opencl::choose_gl_interop (probe, &reasons,
      gst_opencl::wanted_gl_interop ());
  g_printerr ("probe: OpenCL gl_sharing=%d gl_event=%d external_memory_fd=%d uuid=%s; GL "
      "egl_or_glx=%d memory_object_fd=%d pixel_buffers=%d uuid=%s; can_bind=%d exporter=%d "
      "(%s): %s\n%s", probe.cl_gl_sharing, probe.cl_gl_event, probe.cl_external_memory_fd,
      probe.cl_uuid.c_str (), probe.gl_platform_egl_or_glx, probe.gl_memory_object_fd,
      probe.gl_pixel_buffers, probe.gl_uuid.c_str (), probe.cl_can_bind_context,
      probe.exporter, probe.exporter_error.c_str (), gst_opencl::gl_interop_path_name (path),
      reasons.c_str ());
  return gst_opencl::gl_interop_path_name (path);
}

/* Runs `launch` (ending in `appsink name=sink`) and returns every frame's bytes; reads the
 * `gl-interop` property of the element named `probe`, when given, and with `expected` the path
 * the drivers should give it; `inspect` sees the pipeline and that element before they go. */
std::vector<std::vector<guint8>>
run_frames (const std::string & launch, const char *probe = nullptr,
    std::string * interop = nullptr, std::string * expected = nullptr,
    std::vector<std::string> *warnings = nullptr,
    const std::function<void (GstElement *, GstElement *)> & inspect = nullptr)
{
  GError *error = nullptr;
  GstElement *pipeline = gst_parse_launch (launch.c_str (), &error);
  fail_unless (pipeline != nullptr, "%s: %s", launch.c_str (), error ? error->message : "");
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  g_object_set (sink, "sync", FALSE, nullptr);
  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) != GST_STATE_CHANGE_FAILURE);
  std::vector<std::vector<guint8>> frames;
  while (GstSample *sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink),
          120 * GST_SECOND)) {
    GstVideoInfo info;
    fail_unless (gst_video_info_from_caps (&info, gst_sample_get_caps (sample)));
    GstVideoFrame frame;
    fail_unless (gst_video_frame_map (&frame, &info, gst_sample_get_buffer (sample),
            GST_MAP_READ));
    std::vector<guint8> bytes;
    for (gint y = 0; y < GST_VIDEO_INFO_HEIGHT (&info); y++) {
      const guint8 *row = static_cast<const guint8 *> (GST_VIDEO_FRAME_PLANE_DATA (&frame, 0)) +
          (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0);
      bytes.insert (bytes.end (), row, row + GST_VIDEO_INFO_WIDTH (&info) * 4);
    }
    gst_video_frame_unmap (&frame);
    gst_sample_unref (sample);
    frames.push_back (std::move (bytes));
  }
  /* What the bus holds: the warnings (their texts), the first error or end of stream. */
  GstMessage *message = nullptr;
  while (GstMessage *next = gst_bus_pop_filtered (GST_ELEMENT_BUS (pipeline),
          (GstMessageType) (GST_MESSAGE_ERROR | GST_MESSAGE_EOS | GST_MESSAGE_WARNING))) {
    if (GST_MESSAGE_TYPE (next) == GST_MESSAGE_WARNING) {
      GError *warning = nullptr;
      gst_message_parse_warning (next, &warning, nullptr);
      if (warnings)
        warnings->push_back (warning->message);
      g_clear_error (&warning);
      gst_message_unref (next);
    } else if (!message) {
      message = next;
    } else {
      gst_message_unref (next);
    }
  }
  if (message) {
    std::string text;
    if (GST_MESSAGE_TYPE (message) == GST_MESSAGE_ERROR) {
      GError *bus_error = nullptr;
      gchar *debug = nullptr;
      gst_message_parse_error (message, &bus_error, &debug);
      text = std::string (bus_error->message) + " (" + (debug ? debug : "") + ")";
      g_clear_error (&bus_error);
      g_free (debug);
    }
    gst_message_unref (message);
    fail_unless (text.empty (), "%s: error on the bus: %s", launch.c_str (), text.c_str ());
  }
  if (probe && interop) {
    GstElement *element = gst_bin_get_by_name (GST_BIN (pipeline), probe);
    fail_unless (element != nullptr);
    gint value = 0;
    g_object_get (element, "gl-interop", &value, nullptr);
    GEnumValue *named = g_enum_get_value (G_ENUM_CLASS (g_type_class_peek (
                G_PARAM_SPEC_VALUE_TYPE (g_object_class_find_property (
                        G_OBJECT_GET_CLASS (element), "gl-interop")))), value);
    *interop = named ? named->value_nick : "?";
    if (expected)
      *expected = expected_path (pipeline, element);
    if (inspect)
      inspect (pipeline, element);
    gst_object_unref (element);
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  return frames;
}

/* The element `name` in `gl_chain` (GL memory around it) and in `system_chain` (the same in
 * system memory) must give identical frames, and report the expected path. On the interop paths
 * the only bytes through the host are those the chain moves on purpose: `uploaded` frames from
 * system memory to the device (openclupload) and `downloaded` frames back (opencldownload). */
void
check_same_frames (const char *name, const std::string & gl_chain,
    const std::string & system_chain, size_t frames_expected, guint64 uploaded = 0,
    guint64 downloaded = 0)
{
  std::string interop, expected;
  guint64 to_device_before = 0, to_host_before = 0, to_device = 0, to_host = 0;
  transfer_totals (&to_device_before, &to_host_before);
  auto gl_frames = run_frames (gl_chain, name, &interop, &expected);
  transfer_totals (&to_device, &to_host);
  to_device -= to_device_before;
  to_host -= to_host_before;
  auto system_frames = run_frames (system_chain);
  g_printerr ("%s: gl-interop=%s, %zu frames, %" G_GUINT64_FORMAT " bytes to the device, %"
      G_GUINT64_FORMAT " to the host\n", name, interop.c_str (), gl_frames.size (), to_device,
      to_host);
  fail_unless_equals_string (interop.c_str (), expected.c_str ());
  /* The host copy moves every frame both ways through the plugin; the interop paths never. */
  fail_unless_equals_int (gl_frames.size (), frames_expected);
  const guint64 frame_bytes = gl_frames.empty () ? 0 : gl_frames[0].size ();
  if (interop == "host-copy") {
    fail_unless (to_device > uploaded * frame_bytes || to_host > downloaded * frame_bytes,
        "host-copy moved nothing through the host for GL");
  } else {
    fail_unless (to_device == uploaded * frame_bytes && to_host == downloaded * frame_bytes,
        "%s moved %" G_GUINT64_FORMAT " + %" G_GUINT64_FORMAT " bytes through the host, not %"
        G_GUINT64_FORMAT " + %" G_GUINT64_FORMAT, interop.c_str (), to_device, to_host,
        uploaded * frame_bytes, downloaded * frame_bytes);
  }
  fail_unless_equals_int (system_frames.size (), frames_expected);
  for (size_t i = 0; i < frames_expected; i++) {
    fail_unless_equals_int (gl_frames[i].size (), system_frames[i].size ());
    size_t differing = 0, first = 0;
    for (size_t b = 0; b < gl_frames[i].size (); b++)
      if (gl_frames[i][b] != system_frames[i][b] && differing++ == 0)
        first = b;
    fail_unless (differing == 0, "%s frame %zu: %zu bytes differ, first at byte %zu (%u vs %u)",
        name, i, differing, first, differing ? gl_frames[i][first] : 0,
        differing ? system_frames[i][first] : 0);
  }
}

const char *kSource = "videotestsrc pattern=ball num-buffers=4 ! "
    "video/x-raw,format=RGBA,width=72,height=40,framerate=30/1";
const char *kSink = "video/x-raw,format=RGBA ! appsink name=sink";

/* `filter` (named f) between GL memory gives the frames it gives between system memory. */
void
check_filter_in_gl (const std::string & filter)
{
  check_same_frames ("f",
      std::string (kSource) + " ! glupload ! " + filter + " ! gldownload ! " + kSink,
      std::string (kSource) + " ! " + filter + " ! " + kSink, 4);
}

}  // namespace

GST_START_TEST (test_bilateral_gl_matches_system)
{
  check_filter_in_gl ("openclbilateral name=f");
}
GST_END_TEST;

GST_START_TEST (test_histogram_draw_gl_matches_system)
{
  /* In place: the graph is drawn into the GL texture itself. */
  check_filter_in_gl ("openclhistogram name=f draw=true");
}
GST_END_TEST;

GST_START_TEST (test_convolve3d_gl_matches_system)
{
  /* A temporal window: GL frames go into the window, outputs into GL frames. */
  check_filter_in_gl ("openclconvolve3d name=f");
}
GST_END_TEST;

GST_START_TEST (test_mandelbox_gl_matches_system)
{
  const char *source = "openclmandelboxsrc name=f num-buffers=2 animate=false steps=40 ! ";
  check_same_frames ("f",
      std::string (source) + "video/x-raw(memory:GLMemory),format=RGBA,width=64,height=48 ! "
      "gldownload ! " + kSink,
      std::string (source) + "video/x-raw,format=RGBA,width=64,height=48 ! appsink name=sink",
      2);
}
GST_END_TEST;

GST_START_TEST (test_upload_from_gl_matches_system)
{
  /* GL textures into OpenCL memory and back to system memory: the frames themselves. */
  check_same_frames ("f",
      std::string (kSource) + " ! glupload ! openclupload name=f ! opencldownload ! " + kSink,
      std::string (kSource) + " ! identity ! " + kSink, 4, 0, 4);
}
GST_END_TEST;

GST_START_TEST (test_download_to_gl_matches_system)
{
  check_same_frames ("f",
      std::string (kSource) + " ! openclupload ! opencldownload name=f ! "
      "video/x-raw(memory:GLMemory) ! gldownload ! " + kSink,
      std::string (kSource) + " ! identity ! " + kSink, 4, 4, 0);
}
GST_END_TEST;

/* Whether GL and OpenCL can share semaphores for `element` of `pipeline`: GL_EXT_semaphore_fd
 * in the pipeline's GL context, and OpenCL exports or imports them (Vulkan makes them then). */
bool
semaphores_possible (GstElement * pipeline, std::string * why)
{
  if (!gst_opencl::opencl_shares_semaphores (element_device (), why))
    return false;
  GstGLContext *gl = pipeline_gl_context (pipeline);
  fail_unless (gl != nullptr, "no GL element with a context in the pipeline");
  const bool gl_has = gst_gl_context_check_feature (gl, "GL_EXT_semaphore_fd");
  gst_object_unref (gl);
  if (!gl_has)
    *why = "GL lacks GL_EXT_semaphore_fd";
  return gl_has;
}

/* GL's copies ordered with the kernels by semaphores on the device and by host waits give the
 * same frames (a filter, one drawing in place, a temporal window; 24 frames, so that each
 * semaphore is handed over many times), and `memory` says which order each took: "gl
 * (semaphores)" exactly where the external-memory path has semaphores (GST_OPENCL_GL_ORDER
 * unset or semaphores), "gl" under GST_OPENCL_GL_ORDER=host. */
GST_START_TEST (test_gl_orders)
{
  const std::string source = "videotestsrc pattern=ball num-buffers=24 ! "
      "video/x-raw,format=RGBA,width=72,height=40,framerate=30/1 ! glupload ! ";
  for (const char *filter : { "openclbilateral name=f", "openclhistogram name=f draw=true",
          "openclconvolve3d name=f" }) {
    const std::string launch = source + filter + " ! gldownload ! " + kSink;
    std::vector<std::vector<guint8>> frames[3];
    std::string memory[3], interop[3];
    bool possible = false;
    std::string why;
    const char *orders[3] = { "host", "semaphores", nullptr };
    for (int i = 0; i < 3; i++) {
      if (orders[i])
        g_setenv ("GST_OPENCL_GL_ORDER", orders[i], TRUE);
      else
        g_unsetenv ("GST_OPENCL_GL_ORDER");
      frames[i] = run_frames (launch, "f", &interop[i], nullptr, nullptr,
          [&](GstElement * pipeline, GstElement * element) {
            memory[i] = testutil::string_property (element, "memory");
            if (i == 1)
              possible = semaphores_possible (pipeline, &why);
          });
      g_printerr ("%s, GST_OPENCL_GL_ORDER=%s: gl-interop %s, memory \"%s\"\n", filter,
          orders[i] ? orders[i] : "(unset)", interop[i].c_str (), memory[i].c_str ());
    }
    g_unsetenv ("GST_OPENCL_GL_ORDER");
    const bool semaphores = interop[1] == "external-memory" && possible;
    if (interop[1] == "external-memory" && !possible)
      g_printerr ("no semaphores here: %s\n", why.c_str ());
    /* "gl" for an element in place, "gl -> gl" for the others: each side says its order. */
    fail_unless (memory[0] == "gl" || memory[0] == "gl -> gl", "%s", memory[0].c_str ());
    std::string expected = memory[0];
    if (semaphores)
      expected = memory[0] == "gl" ? "gl (semaphores)" : "gl (semaphores) -> gl (semaphores)";
    for (int i = 1; i < 3; i++)
      fail_unless_equals_string (memory[i].c_str (), expected.c_str ());
    for (int i = 1; i < 3; i++) {
      fail_unless_equals_int (frames[i].size (), 24);
      fail_unless_equals_int (frames[0].size (), 24);
      for (size_t f = 0; f < frames[0].size (); f++)
        fail_unless (frames[i][f] == frames[0][f], "%s: frame %zu differs between the "
            "orders %s and host", filter, f, orders[i] ? orders[i] : "(unset)");
    }
  }
}
GST_END_TEST;

/* Devices follow the GL context: with the device automatic, an element given GL frames runs on
 * the OpenCL device with the GL context's UUID where one has it (device_beside_gl), and one whose
 * device is set (GST_OPENCL_DEVICE) stays there; the frames are the same. Where GL and OpenCL
 * tell no common UUID (Mesa's llvmpipe and PoCL here; one GPU on the GPU machine, which both
 * are) the element stays on the default device: the move itself is follow_device's, which
 * test_cuda's two-GPU case exercises. */
GST_START_TEST (test_device_follows_gl_context)
{
  const std::string launch = std::string ("videotestsrc pattern=ball num-buffers=4 ! "
      "video/x-raw,format=RGBA,width=72,height=40,framerate=30/1 ! glupload ! ") +
      "openclbilateral name=f ! gldownload ! " + kSink;
  std::string followed_name, pinned_name, wanted_name;
  std::string interop;  /* inspect () is called with it */
  auto followed = run_frames (launch, "f", &interop, nullptr, nullptr,
      [&](GstElement * pipeline, GstElement * element) {
        followed_name = testutil::string_property (element, "device-name");
        GstGLContext *gl = pipeline_gl_context (pipeline);
        fail_unless (gl != nullptr, "no GL context in the pipeline");
        wanted_name = gst_opencl::describe_device (device_beside_gl (gl));
        gst_object_unref (gl);
      });
  fail_unless (!wanted_name.empty (), "the pipeline was not inspected");
  fail_unless_equals_string (followed_name.c_str (), wanted_name.c_str ());
  /* The default device, named: it is kept whatever the GL context's GPU. */
  cl::Device fallback = element_device ();
  cl::Platform platform (fallback.getInfo<CL_DEVICE_PLATFORM> ());
  std::vector<cl::Device> devices;
  platform.getDevices (CL_DEVICE_TYPE_ALL, &devices);
  size_t index = 0;
  while (index < devices.size () && devices[index]() != fallback ())
    index++;
  fail_unless (index < devices.size ());
  const std::string named = platform.getInfo<CL_PLATFORM_NAME> () + ":" +
      std::to_string (index);
  g_setenv ("GST_OPENCL_DEVICE", named.c_str (), TRUE);
  auto pinned = run_frames (launch, "f", &interop, nullptr, nullptr,
      [&](GstElement *, GstElement * element) {
        pinned_name = testutil::string_property (element, "device-name");
      });
  g_unsetenv ("GST_OPENCL_DEVICE");
  /* Named strings: the check's macro keeps its pointers past the statement. */
  const std::string fallback_name = gst_opencl::describe_device (fallback);
  fail_unless_equals_string (pinned_name.c_str (), fallback_name.c_str ());
  fail_unless_equals_int (followed.size (), 4);
  fail_unless (followed == pinned || followed_name != pinned_name,
      "the same device gave other frames");
}
GST_END_TEST;

GST_START_TEST (test_system_memory_reports_none)
{
  std::string interop;
  auto frames = run_frames (std::string (kSource) + " ! openclbilateral name=f ! " + kSink, "f",
      &interop);
  fail_unless_equals_int (frames.size (), 4);
  fail_unless_equals_string (interop.c_str (), "none");
}
GST_END_TEST;

GST_START_TEST (test_asking_for_host_copy)
{
  /* Whatever the drivers allow, GST_OPENCL_GL_INTEROP=host-copy gets the host copy. */
  g_setenv ("GST_OPENCL_GL_INTEROP", "host-copy", TRUE);
  std::string interop;
  auto frames = run_frames (std::string (kSource) +
      " ! glupload ! openclbilateral name=f ! gldownload ! " + kSink, "f", &interop);
  g_unsetenv ("GST_OPENCL_GL_INTEROP");
  fail_unless_equals_int (frames.size (), 4);
  fail_unless_equals_string (interop.c_str (), "host-copy");
}
GST_END_TEST;

GST_START_TEST (test_asking_for_an_unavailable_path_warns)
{
  /* A path asked for by name: the element takes it when the drivers allow it, silently, and
   * otherwise the best path they allow, with a WARNING on the bus naming the request. */
  for (const char *asked : { "khr-gl-sharing", "external-memory", "host-copy" }) {
    g_setenv ("GST_OPENCL_GL_INTEROP", asked, TRUE);
    std::string interop, expected;
    std::vector<std::string> warnings;
    auto frames = run_frames (std::string (kSource) +
        " ! glupload ! openclbilateral name=f ! gldownload ! " + kSink, "f", &interop,
        &expected, &warnings);
    g_unsetenv ("GST_OPENCL_GL_INTEROP");
    fail_unless_equals_int (frames.size (), 4);
    fail_unless_equals_string (interop.c_str (), expected.c_str ());
    const std::string request = std::string ("GST_OPENCL_GL_INTEROP=") + asked;
    size_t about_it = 0;
    for (const auto & text : warnings)
      if (contains (text, request.c_str ()))
        about_it++;
    g_printerr ("asked for %s: got %s, %zu warnings about it\n", asked, interop.c_str (),
        about_it);
    if (expected == asked)
      fail_unless (about_it == 0, "%s is possible, yet a warning came", asked);
    else
      fail_unless (about_it > 0, "asked for %s, got %s without a warning on the bus", asked,
          interop.c_str ());
  }
}
GST_END_TEST;

static Suite *
gl_interop_suite (void)
{
  Suite *suite = suite_create ("opencl-gl-interop");
  TESTUTIL_ADD_CASE (suite, "choice", 0, test_choice_best_first, test_choice_khr_conditions,
      test_choice_external_memory_conditions, test_choice_format_and_wish,
      test_wanted_from_environment, test_extension_lists);
  TESTUTIL_ADD_CASE (suite, "gl", 600, test_sharing_properties, test_compute_copy_round_trip,
      test_bilateral_gl_matches_system,
      test_histogram_draw_gl_matches_system, test_convolve3d_gl_matches_system,
      test_mandelbox_gl_matches_system, test_upload_from_gl_matches_system,
      test_download_to_gl_matches_system, test_gl_orders, test_device_follows_gl_context,
      test_system_memory_reports_none,
      test_asking_for_host_copy, test_asking_for_an_unavailable_path_warns);
  return suite;
}

int
main (int argc, char **argv)
{
  g_setenv ("GST_OPENCL_COUNT_TRANSFERS", "1", TRUE);
  gst_check_init (&argc, &argv);
  return gst_check_run_suite (gl_interop_suite (), "gl_interop", __FILE__);
}
