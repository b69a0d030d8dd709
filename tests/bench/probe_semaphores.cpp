/* gst-opencl: not a benchmark, a probe. Can OpenCL and CUDA order each other on the GPU through a
 * semaphore that Vulkan exports, where neither of them exports one (NVIDIA's OpenCL imports
 * semaphores as opaque file descriptors but exports none; CUDA only imports)? docs/memory.md,
 * "Ordering CUDA frames", says why this is asked.
 *
 * Steps, each printed as one JSON line ({"step": ..., "ok": ..., ...}); the last line says how far
 * it got:
 *   vulkan       how the plugin's Vulkan room (gstopenclvulkan.h) reached Vulkan: the loader, or
 *                an installed driver's library named by its ICD manifest, called directly;
 *   semaphore    on the GPU whose UUID is the OpenCL device's, a binary semaphore made
 *                exportable, two file descriptors of it;
 *   import       one descriptor imported by OpenCL (clCreateSemaphoreWithPropertiesKHR), the
 *                other by CUDA (cuImportExternalSemaphore);
 *   round-trips  ROUNDS times: CUDA signals on its stream, OpenCL's queue waits and signals, CUDA
 *                waits; then the host waits for CUDA's stream; the mean microseconds per round.
 * A step that cannot run says why and the probe stops (exit 0: an answer, not a failure; exit 1
 * only for bad arguments). Run it under `timeout`: a wait nothing signals would hang.
 *
 * usage: bench_probe_semaphores [--device gpu] [--rounds N]
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "opencl/gstopencldevice.h"
#include "opencl/gstopenclcudadriver.h"
#include "opencl/gstopenclsemaphore.h"
#include "opencl/gstopenclutils.h"
#include "opencl/gstopenclvulkan.h"

namespace {

void
report (const char *step, bool ok, const std::string & fields)
{
  std::printf ("{\"step\": \"%s\", \"ok\": %s%s%s}\n", step, ok ? "true" : "false",
      fields.empty () ? "" : ", ", fields.c_str ());
  std::fflush (stdout);
}

std::string
quoted (const std::string & text)
{
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\')
      out += '\\';
    out += c;
  }
  return out + "\"";
}

int
run (const std::string & device_string, int rounds)
{
  const cl::Device cl_device = gst_opencl::select_device (device_string);
  const cl::Context cl_context (cl_device);
  const cl::CommandQueue cl_queue (cl_context, cl_device);
  const std::string uuid = gst_opencl::cl_device_uuid (cl_device);
  report ("vulkan", true, "\"how\": " + quoted (gst_opencl::vulkan_entry_description ()));
  std::unique_ptr<gst_opencl::VulkanSemaphore> vulkan;
  int fds[2] = { -1, -1 };
  try {
    vulkan = std::make_unique<gst_opencl::VulkanSemaphore> (uuid);
    fds[0] = vulkan->export_fd ();
    fds[1] = vulkan->export_fd ();
  } catch (const std::exception & e) {
    report ("semaphore", false, "\"opencl_uuid\": \"" + uuid + "\", \"why\": " +
        quoted (e.what ()));
    return 0;
  }
  report ("semaphore", true, "\"opencl_uuid\": \"" + uuid + "\", \"fds\": [" +
      std::to_string (fds[0]) + ", " + std::to_string (fds[1]) + "]");
  /* Step 4: the imports. */
  gst_opencl::ClSemaphoreCalls calls (cl_device);
  auto & cuda = gst_opencl::CudaDriver::get ();
  std::string found;
  std::string error;
  const int cuda_device = gst_opencl::cuda_device_for_uuid (uuid, &found, &error);
  if (!calls.usable () || !cuda.orders () || cuda_device < 0) {
    report ("import", false, "\"why\": " + quoted (!calls.usable () ?
            "the OpenCL platform lacks the semaphore calls" : !cuda.orders () ?
            "the CUDA driver lacks external semaphores" : "no CUDA device: " + error));
    return 0;
  }
  gst_opencl::PrimaryContext context (cuda_device);
  const cl_ulong properties[] = { gst_opencl::kClSemaphoreType,
    gst_opencl::kClSemaphoreTypeBinary, gst_opencl::kClSemaphoreHandleOpaqueFd,
    (cl_ulong) fds[0], 0 };
  cl_int status = CL_SUCCESS;
  gst_opencl::ClSemaphore cl_semaphore = calls.create (cl_context (), properties, &status);
  gst_opencl::CudaSemaphoreHandle handle {};
  handle.type = 1;   /* CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD */
  handle.handle.fd = fds[1];
  gst_opencl::CUexternalSemaphore cuda_semaphore = nullptr;
  const int imported = context.current () ? cuda.import_semaphore (&cuda_semaphore, &handle) : -1;
  report ("import", cl_semaphore && status == CL_SUCCESS && imported == 0,
      "\"opencl_status\": " + std::to_string (status) + ", \"cuda_result\": " +
      std::to_string (imported));
  if (!cl_semaphore || status != CL_SUCCESS || imported != 0)
    return 0;
  /* Step 5: round trips. */
  gst_opencl::CUstream stream = nullptr;
  cuda.stream_create (&stream, 1);   /* CU_STREAM_NON_BLOCKING */
  gst_opencl::CudaSemaphoreParams params {};
  cl_command_queue queue = cl_queue ();
  const auto start = std::chrono::steady_clock::now ();
  int failed_at = -1;
  std::string why;
  for (int i = 0; i < rounds && failed_at < 0; i++) {
    int r = cuda.signal_semaphores (&cuda_semaphore, &params, 1, stream);
    cl_int s = r == 0 ? calls.wait (queue, 1, &cl_semaphore, nullptr, 0, nullptr, nullptr) : 0;
    s = r == 0 && s == CL_SUCCESS ? calls.signal (queue, 1, &cl_semaphore, nullptr, 0, nullptr,
        nullptr) : s;
    s = s == CL_SUCCESS ? clFlush (queue) : s;
    r = r == 0 && s == CL_SUCCESS ? cuda.wait_semaphores (&cuda_semaphore, &params, 1, stream) : r;
    if (r != 0 || s != CL_SUCCESS) {
      failed_at = i;
      why = "CUresult " + std::to_string (r) + ", cl_int " + std::to_string (s);
    }
  }
  const int synced = cuda.stream_synchronize (stream);
  const double us = std::chrono::duration<double, std::micro> (
      std::chrono::steady_clock::now () - start).count ();
  clFinish (queue);
  report ("round-trips", failed_at < 0 && synced == 0, "\"rounds\": " + std::to_string (rounds) +
      ", \"us_per_round\": " + std::to_string (us / rounds) + ", \"synchronize\": " +
      std::to_string (synced) + (failed_at < 0 ? std::string () : ", \"failed_at\": " +
          std::to_string (failed_at) + ", \"why\": " + quoted (why)));
  cuda.stream_destroy (stream);
  cuda.destroy_semaphore (cuda_semaphore);
  calls.release (cl_semaphore);
  return 0;
}

}  // namespace

int
main (int argc, char **argv)
{
  std::string device = "gpu";
  int rounds = 1000;
  for (int i = 1; i < argc; i++) {
    const std::string arg = argv[i];
    if (arg == "--device" && i + 1 < argc)
      device = argv[++i];
    else if (arg == "--rounds" && i + 1 < argc)
      rounds = std::max (1, std::atoi (argv[++i]));
    else {
      std::fprintf (stderr, "usage: bench_probe_semaphores [--device gpu] [--rounds N]\n");
      return 1;
    }
  }
  gst_init (&argc, &argv);
  try {
    return run (device, rounds);
  } catch (const std::exception & e) {
    report ("error", false, "\"why\": " + quoted (e.what ()));
    return 0;
  }
}
