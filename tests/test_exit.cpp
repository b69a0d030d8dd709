/* gst-opencl tests: a process that used every OpenCL device it finds exits cleanly.
 *
 * The checks run the scenario in a child process (this program with --scenario), because what
 * they look at happens when a process ends: the child creates contexts on every device of every
 * platform (NVIDIA's and PoCL's on the GPU machine), runs a short pipeline on each, all at once,
 * then on each device a pipeline whose context the application hands to a second pipeline (as
 * test_application_shares_context_between_pipelines does), restarts one pipeline on each device
 * in turn, lets everything go, calls
 * gst_deinit () and returns from main. The parent asserts that the child's exit status is 0
 * and that its stderr holds neither "pure virtual method called" nor "terminate called".
 *
 * The child runs with tests/common/cl_release_check.cpp preloaded (when it was built next to
 * this program, and not under AddressSanitizer, which must come first in the process): it counts
 * the program's OpenCL references and the parent also asserts that at the end of main none is
 * left, that no object was released after its context, and that nothing was released after
 * main (from a static destructor or an atexit handler). Those checks run with
 * GST_OPENCL_CONTEXT_LINGER=0; a third keeps the contexts no pipeline uses for an hour, as an
 * application that exits within the default 5 seconds of its last pipeline does: at the end of
 * main the only objects left are those parked contexts (at most one per device, with their
 * queues and programs), and nothing is released after main.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include <gst/check/gstcheck.h>

#include <dlfcn.h>

#include <CL/cl.h>

#include <string>
#include <vector>

#include "common/suite.h"
#include "common/testutil.h"

namespace {

/* ---- the scenario, in the child --------------------------------------------------------- */

struct DeviceChoice
{
  std::string spec;      /* "<platform name>:<index>", the elements' device property */
  std::string platform;  /* as the platform names itself */
  std::string name;
};

std::string
trimmed (const char *text)
{
  std::string s (text);
  const char *space = " \t\r\n";
  size_t first = s.find_first_not_of (space);
  if (first == std::string::npos)
    return "";
  return s.substr (first, s.find_last_not_of (space) - first + 1);
}

std::vector<DeviceChoice>
every_device ()
{
  std::vector<DeviceChoice> devices;
  cl_uint n_platforms = 0;
  if (clGetPlatformIDs (0, nullptr, &n_platforms) != CL_SUCCESS || n_platforms == 0)
    return devices;
  std::vector<cl_platform_id> platforms (n_platforms);
  clGetPlatformIDs (n_platforms, platforms.data (), nullptr);
  for (cl_platform_id platform : platforms) {
    char platform_name[256] = { 0 };
    clGetPlatformInfo (platform, CL_PLATFORM_NAME, sizeof platform_name - 1, platform_name,
        nullptr);
    cl_uint n_devices = 0;
    if (clGetDeviceIDs (platform, CL_DEVICE_TYPE_ALL, 0, nullptr, &n_devices) != CL_SUCCESS)
      continue;
    std::vector<cl_device_id> ids (n_devices);
    clGetDeviceIDs (platform, CL_DEVICE_TYPE_ALL, n_devices, ids.data (), nullptr);
    for (cl_uint i = 0; i < n_devices; i++) {
      char device_name[256] = { 0 };
      clGetDeviceInfo (ids[i], CL_DEVICE_NAME, sizeof device_name - 1, device_name, nullptr);
      devices.push_back ({ trimmed (platform_name) + ":" + std::to_string (i),
            trimmed (platform_name), trimmed (device_name) });
    }
  }
  return devices;
}

int scenario_failures = 0;

void
scenario_fail (const std::string & what)
{
  g_printerr ("scenario: FAIL %s\n", what.c_str ());
  scenario_failures++;
}

/* Sets `device` on every element of the bin that has the property. */
void
set_device (GstElement * bin, const std::string & spec)
{
  GstIterator *it = gst_bin_iterate_recurse (GST_BIN (bin));
  GValue item = G_VALUE_INIT;
  while (gst_iterator_next (it, &item) == GST_ITERATOR_OK) {
    GObject *element = G_OBJECT (g_value_get_object (&item));
    if (g_object_class_find_property (G_OBJECT_GET_CLASS (element), "device"))
      g_object_set (element, "device", spec.c_str (), nullptr);
    g_value_reset (&item);
  }
  g_value_unset (&item);
  gst_iterator_free (it);
}

GstElement *
pipeline_on (const char *description, const std::string & spec)
{
  GError *error = nullptr;
  GstElement *pipeline = gst_parse_launch (description, &error);
  if (!pipeline) {
    scenario_fail (std::string ("cannot parse ") + description + ": " +
        (error ? error->message : "?"));
    g_clear_error (&error);
    return nullptr;
  }
  set_device (pipeline, spec);
  return pipeline;
}

/* Waits for EOS; any error or a timeout is a failure. */
void
wait_eos (GstElement * pipeline, const std::string & what)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *message = gst_bus_timed_pop_filtered (bus, 300 * GST_SECOND,
      (GstMessageType) (GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
  if (!message) {
    scenario_fail (what + ": no EOS within 300 s");
  } else if (GST_MESSAGE_TYPE (message) == GST_MESSAGE_ERROR) {
    GError *error = nullptr;
    gchar *debug = nullptr;
    gst_message_parse_error (message, &error, &debug);
    scenario_fail (what + ": " + error->message + " (" + (debug ? debug : "") + ")");
    g_clear_error (&error);
    g_free (debug);
  }
  if (message)
    gst_message_unref (message);
  gst_object_unref (bus);
}

bool
reach_state (GstElement * pipeline, GstState state, const std::string & what)
{
  if (gst_element_set_state (pipeline, state) == GST_STATE_CHANGE_FAILURE ||
      gst_element_get_state (pipeline, nullptr, nullptr, 300 * GST_SECOND) !=
      GST_STATE_CHANGE_SUCCESS) {
    std::string why;
    GstBus *bus = gst_element_get_bus (pipeline);
    if (GstMessage *message = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR)) {
      GError *error = nullptr;
      gst_message_parse_error (message, &error, nullptr);
      why = std::string (": ") + error->message;
      g_clear_error (&error);
      gst_message_unref (message);
    }
    gst_object_unref (bus);
    scenario_fail (what + ": cannot reach " + gst_element_state_get_name (state) + why);
    return false;
  }
  return true;
}

std::string
device_name_of (GstElement * pipeline, const char *element_name)
{
  GstElement *element = gst_bin_get_by_name (GST_BIN (pipeline), element_name);
  gchar *name = nullptr;
  if (element) {
    g_object_get (element, "device-name", &name, nullptr);
    gst_object_unref (element);
  }
  std::string text = name ? name : "";
  g_free (name);
  return text;
}

/* The OpenCL context an element answers a context query with (a new reference), or nullptr. */
GObject *
element_context (GstElement * pipeline, const char *element_name)
{
  GstElement *element = gst_bin_get_by_name (GST_BIN (pipeline), element_name);
  if (!element)
    return nullptr;
  GstQuery *query = gst_query_new_context ("gst.opencl.context");
  GObject *object = nullptr;
  if (gst_element_query (element, query)) {
    GstContext *context = nullptr;
    gst_query_parse_context (query, &context);
    const GValue *value = context ?
        gst_structure_get_value (gst_context_get_structure (context), "context") : nullptr;
    if (value && G_VALUE_HOLDS_OBJECT (value))
      object = G_OBJECT (g_value_dup_object (value));
  }
  gst_query_unref (query);
  gst_object_unref (element);
  return object;
}

/* One pipeline per device, all playing at once: contexts on every platform live together. */
void
every_device_at_once (const std::vector<DeviceChoice> & devices)
{
  std::vector<GstElement *> pipelines;
  for (const auto & device : devices) {
    GstElement *pipeline = pipeline_on ("videotestsrc num-buffers=3 ! "
        "video/x-raw,format=RGBA,width=32,height=16 ! openclupload ! "
        "openclbilateral name=f ! opencldownload ! fakesink", device.spec);
    if (pipeline) {
      pipelines.push_back (pipeline);
      gst_element_set_state (pipeline, GST_STATE_PLAYING);
    }
  }
  for (size_t i = 0; i < pipelines.size (); i++) {
    wait_eos (pipelines[i], "pipeline on " + devices[i].spec);
    std::string used = device_name_of (pipelines[i], "f");
    g_print ("scenario: %s ran on %s\n", devices[i].spec.c_str (), used.c_str ());
    if (used.find (devices[i].platform) == std::string::npos)
      scenario_fail ("the pipeline for " + devices[i].spec + " ran on \"" + used + "\"");
  }
  for (GstElement *pipeline : pipelines) {
    gst_element_set_state (pipeline, GST_STATE_NULL);
    gst_object_unref (pipeline);
  }
}

/* As test_application_shares_context_between_pipelines: one pipeline's context handed by the
 * application to a second one, both running, torn down second first. */
void
shared_between_pipelines (const DeviceChoice & device)
{
  const std::string what = "shared context on " + device.spec;
  GstElement *first = pipeline_on ("videotestsrc num-buffers=3 ! "
      "video/x-raw,format=RGBA,width=32,height=16 ! openclbilateral name=a ! "
      "openclbilateral name=b radius=2 ! fakesink", device.spec);
  if (!first)
    return;
  GstElement *second = nullptr;
  GObject *shared = nullptr;
  if (reach_state (first, GST_STATE_PAUSED, what + " (first)") &&
      (shared = element_context (first, "a")) != nullptr) {
    GstContext *context = testutil::application_context (shared);
    second = pipeline_on ("videotestsrc num-buffers=2 ! "
        "video/x-raw,format=GRAY8,width=8,height=8 ! openclbilateral name=x ! fakesink",
        device.spec);
    if (second) {
      gst_element_set_context (second, context);
      if (reach_state (second, GST_STATE_PLAYING, what + " (second)"))
        wait_eos (second, what + " (second)");
      GObject *used = element_context (second, "x");
      if (used != shared)
        scenario_fail (what + ": the second pipeline did not use the context it was given");
      if (used)
        g_object_unref (used);
    }
    gst_context_unref (context);
    if (reach_state (first, GST_STATE_PLAYING, what + " (first)"))
      wait_eos (first, what + " (first)");
  } else if (!shared) {
    scenario_fail (what + ": the first pipeline has no OpenCL context");
  }
  if (shared)
    g_object_unref (shared);
  if (second) {
    gst_element_set_state (second, GST_STATE_NULL);
    gst_object_unref (second);
  }
  gst_element_set_state (first, GST_STATE_NULL);
  gst_object_unref (first);
}

/* One pipeline of the elements that keep kernels and buffers between frames, run on every
 * device in turn: NULL, a new `device`, PLAYING again. What an element kept from the last run
 * belongs to the last context; taken into the next run, it fails there (a kernel takes only
 * buffers of its own context), and kept until the element is finalized, it outlives the
 * context. */
void
restarted_on_every_device (const std::vector<DeviceChoice> & devices)
{
  GstElement *pipeline = pipeline_on ("openclmandelboxsrc name=src num-buffers=2 ! "
      "video/x-raw,format=RGBA,width=32,height=16,framerate=30/1 ! openclbilateral name=f ! "
      "openclconvolve3d ! fakesink", devices.front ().spec);
  if (!pipeline)
    return;
  for (int round = 0; round < 2; round++) {
    for (const auto & device : devices) {
      const std::string what = "restart on " + device.spec;
      set_device (pipeline, device.spec);
      if (reach_state (pipeline, GST_STATE_PLAYING, what))
        wait_eos (pipeline, what);
      std::string used = device_name_of (pipeline, "f");
      if (used.find (device.name) == std::string::npos)
        scenario_fail (what + ": ran on \"" + used + "\"");
      gst_element_set_state (pipeline, GST_STATE_NULL);
    }
  }
  gst_object_unref (pipeline);
}

int
run_scenario ()
{
  gst_init (nullptr, nullptr);
  std::vector<DeviceChoice> devices = every_device ();
  g_print ("scenario: %zu OpenCL devices\n", devices.size ());
  for (const auto & device : devices)
    g_print ("scenario: device \"%s\": %s\n", device.spec.c_str (), device.name.c_str ());
  if (devices.empty ()) {
    gst_deinit ();
    return 77;
  }
  every_device_at_once (devices);
  for (const auto & device : devices)
    shared_between_pipelines (device);
  restarted_on_every_device (devices);
  gst_deinit ();
  using Finish = long (*) ();
  /* With contexts kept for reuse the parent reads what is left from cl_release_check's line. */
  const bool parked = g_strcmp0 (g_getenv ("GST_OPENCL_CONTEXT_LINGER"), "0") != 0;
  if (auto finish = reinterpret_cast<Finish> (dlsym (RTLD_DEFAULT, "cl_release_check_finish"))) {
    if (finish () != 0 && !parked)
      scenario_fail ("OpenCL objects are still referenced or were released late");
  }
  g_print ("scenario: %s, returning from main\n", scenario_failures ? "failed" : "done");
  return scenario_failures ? 1 : 0;
}

/* ---- the checks, in the parent ---------------------------------------------------------- */

std::string
own_directory ()
{
  gchar *exe = g_file_read_link ("/proc/self/exe", nullptr);
  fail_unless (exe != nullptr);
  gchar *dir = g_path_get_dirname (exe);
  std::string result (dir);
  g_free (dir);
  g_free (exe);
  return result;
}

struct ChildResult
{
  gint status = -1;
  std::string out, err;
  bool checked_references = false;
};

ChildResult
run_child (const std::vector<std::pair<std::string, std::string>> & extra_env)
{
  const std::string dir = own_directory ();
  const std::string exe = dir + "/test_exit";
  gchar **env = g_get_environ ();
  ChildResult result;
#if !defined(__SANITIZE_ADDRESS__)
  const std::string shim = dir + "/cl_release_check.so";
  if (g_file_test (shim.c_str (), G_FILE_TEST_EXISTS)) {
    const gchar *before = g_environ_getenv (env, "LD_PRELOAD");
    std::string preload = shim + (before && *before ? std::string (":") + before : "");
    env = g_environ_setenv (env, "LD_PRELOAD", preload.c_str (), TRUE);
    result.checked_references = true;
  }
#endif
  for (const auto & [name, value] : extra_env)
    env = g_environ_setenv (env, name.c_str (), value.c_str (), TRUE);
  const gchar *argv[] = { exe.c_str (), "--scenario", nullptr };
  gchar *out = nullptr, *err = nullptr;
  GError *error = nullptr;
  gboolean spawned = g_spawn_sync (nullptr, (gchar **) argv, env, G_SPAWN_DEFAULT, nullptr,
      nullptr, &out, &err, &result.status, &error);
  g_strfreev (env);
  fail_unless (spawned, "cannot run %s: %s", exe.c_str (), error ? error->message : "?");
  result.out = out ? out : "";
  result.err = err ? err : "";
  g_free (out);
  g_free (err);
  g_print ("---- child stdout\n%s---- child stderr\n%s---- child status %d\n",
      result.out.c_str (), result.err.c_str (), result.status);
  return result;
}

void
check_clean_exit (const ChildResult & child, bool parked_contexts = false)
{
  fail_if (child.err.find ("pure virtual") != std::string::npos,
      "the process called a pure virtual method");
  fail_if (child.err.find ("terminate called") != std::string::npos,
      "the process called std::terminate");
  fail_if (child.err.find ("scenario: FAIL") != std::string::npos, "the scenario failed");
  fail_unless (WIFEXITED (child.status), "the process did not exit normally (status %d%s)",
      child.status, WIFSIGNALED (child.status) ? ", killed by a signal" : "");
  fail_unless (WEXITSTATUS (child.status) == 0 || WEXITSTATUS (child.status) == 77,
      "exit status %d", WEXITSTATUS (child.status));
  if (WEXITSTATUS (child.status) == 77) {
    g_print ("no OpenCL device: nothing to check\n");
    return;
  }
  fail_unless (child.out.find ("returning from main") != std::string::npos);
  if (child.checked_references && !parked_contexts) {
    fail_unless (child.err.find ("cl-release-check: at the end of main: 0 contexts, 0 queues, "
            "0 programs, 0 kernels, 0 memory objects still referenced; 0 released after their "
            "context") != std::string::npos, "OpenCL objects outlived the scenario");
    fail_if (child.err.find ("after the program finished") != std::string::npos,
        "an OpenCL object was released after main (a static destructor or atexit handler)");
  } else if (child.checked_references) {
    /* Only the parked contexts are left: at most one per device, no kernel, no memory. */
    const char *line = strstr (child.err.c_str (), "cl-release-check: at the end of main: ");
    fail_unless (line != nullptr, "no cl_release_check report");
    int contexts = -1, queues = -1, programs = -1, kernels = -1, memory = -1, late = -1;
    fail_unless (sscanf (line, "cl-release-check: at the end of main: %d contexts, %d queues, "
            "%d programs, %d kernels, %d memory objects still referenced; %d released",
            &contexts, &queues, &programs, &kernels, &memory, &late) == 6, "%s", line);
    int devices = 0;
    const char *said = strstr (child.out.c_str (), "scenario: ");
    fail_unless (said && sscanf (said, "scenario: %d OpenCL devices", &devices) == 1);
    fail_unless (contexts >= 1 && contexts <= devices, "%d contexts kept for %d devices",
        contexts, devices);
    fail_unless (queues >= contexts && queues <= 3 * contexts, "%d queues", queues);
    fail_unless (kernels == 0 && memory == 0 && late == 0, "%s", line);
    fail_if (child.err.find ("after the program finished") != std::string::npos,
        "an OpenCL object was released after main (a static destructor or atexit handler)");
  } else {
    g_print ("cl_release_check.so not used: only the exit status was checked\n");
  }
}

}  // namespace

GST_START_TEST (test_process_using_every_device_exits_cleanly)
{
  check_clean_exit (run_child ({ { "GST_OPENCL_CONTEXT_LINGER", "0" } }));
}
GST_END_TEST;

/* PoCL with two devices (its pthread and basic drivers): two contexts on one platform. On a
 * machine without PoCL the variable changes nothing and the check repeats the first. */
GST_START_TEST (test_two_devices_of_one_platform_exit_cleanly)
{
  ChildResult child = run_child ({ { "POCL_DEVICES", "pthread basic" },
        { "GST_OPENCL_CONTEXT_LINGER", "0" } });
  check_clean_exit (child);
}
GST_END_TEST;

/* Contexts that no pipeline uses are kept (GST_OPENCL_CONTEXT_LINGER), here past the end of
 * the process: exiting with them parked is clean, and only they are left (the third check of
 * the file's comment). Two PoCL devices, so that one context per device is kept. */
GST_START_TEST (test_exit_with_contexts_kept_for_reuse)
{
  ChildResult child = run_child ({ { "POCL_DEVICES", "pthread basic" },
        { "GST_OPENCL_CONTEXT_LINGER", "3600" } });
  check_clean_exit (child, true);
}
GST_END_TEST;

static Suite *
exit_suite (void)
{
  return TESTUTIL_SUITE ("exit", 900, test_process_using_every_device_exits_cleanly,
      test_two_devices_of_one_platform_exit_cleanly, test_exit_with_contexts_kept_for_reuse);
}

int
main (int argc, char **argv)
{
  if (argc > 1 && g_strcmp0 (argv[1], "--scenario") == 0)
    return run_scenario ();
  gst_check_init (&argc, &argv);
  return gst_check_run_suite (exit_suite (), "exit", __FILE__);
}
