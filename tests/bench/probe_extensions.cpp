/* gst-opencl: what each OpenCL device offers for sharing frames with GL and other APIs, as
 * evidence for docs/memory.md's table of GL paths. For every platform and device: the sharing
 * extensions it lists (a device extension, the same whatever GL context, EGL or GLX, an
 * application would share with it). Prints one JSON object.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <cstdio>
#include <string>
#include <vector>

/* A string property of a platform or device, through its clGet*Info. */
template<typename Object, typename Info> static std::string
info_text (cl_int (*get) (Object, Info, size_t, void *, size_t *), Object object, Info what)
{
  size_t size = 0;
  get (object, what, 0, nullptr, &size);
  std::string text (size, '\0');
  get (object, what, size, text.data (), nullptr);
  return text.c_str ();
}

static std::string
platform_text (cl_platform_id platform, cl_platform_info what)
{
  return info_text (clGetPlatformInfo, platform, what);
}

static std::string
device_text (cl_device_id device, cl_device_info what)
{
  return info_text (clGetDeviceInfo, device, what);
}

/* A device query that answers a list of cl_uint (the semaphore handle types), as a JSON list of
 * hex numbers. */
static std::string
device_uints (cl_device_id device, cl_device_info what)
{
  cl_uint values[16] = {};
  size_t bytes = 0;
  std::string text = "[";
  if (clGetDeviceInfo (device, what, sizeof values, values, &bytes) == CL_SUCCESS) {
    for (size_t i = 0; i < bytes / sizeof values[0]; i++) {
      char number[16];
      snprintf (number, sizeof number, "%s\"0x%x\"", i ? ", " : "", values[i]);
      text += number;
    }
  }
  return text + "]";
}

int
main ()
{
  static const char *wanted[] = {
    "cl_khr_gl_sharing", "cl_khr_gl_event", "cl_khr_egl_image", "cl_khr_egl_event",
    "cl_khr_external_memory", "cl_khr_external_memory_opaque_fd",
    "cl_khr_external_memory_dma_buf", "cl_khr_external_semaphore_opaque_fd",
    "cl_khr_image2d_from_buffer",
  };
  cl_uint n_platforms = 0;
  clGetPlatformIDs (0, nullptr, &n_platforms);
  std::vector<cl_platform_id> platforms (n_platforms);
  clGetPlatformIDs (n_platforms, platforms.data (), nullptr);
  printf ("{\"platforms\": [");
  for (cl_uint p = 0; p < n_platforms; p++) {
    printf ("%s\n  {\"name\": \"%s\", \"version\": \"%s\", \"devices\": [", p ? "," : "",
        platform_text (platforms[p], CL_PLATFORM_NAME).c_str (),
        platform_text (platforms[p], CL_PLATFORM_VERSION).c_str ());
    cl_uint n_devices = 0;
    clGetDeviceIDs (platforms[p], CL_DEVICE_TYPE_ALL, 0, nullptr, &n_devices);
    std::vector<cl_device_id> devices (n_devices);
    clGetDeviceIDs (platforms[p], CL_DEVICE_TYPE_ALL, n_devices, devices.data (), nullptr);
    for (cl_uint d = 0; d < n_devices; d++) {
      const std::string extensions = " " + device_text (devices[d], CL_DEVICE_EXTENSIONS) + " ";
      printf ("%s\n    {\"name\": \"%s\", \"driver\": \"%s\"", d ? "," : "",
          device_text (devices[d], CL_DEVICE_NAME).c_str (),
          device_text (devices[d], CL_DRIVER_VERSION).c_str ());
      for (const char *name : wanted)
        printf (", \"%s\": %s", name,
            extensions.find (std::string (" ") + name + " ") != std::string::npos ?
            "true" : "false");
      /* cl_khr_external_semaphore: the handle types the device imports and exports (0x2055 is
       * an opaque file descriptor, 0x2058 a sync file). */
      printf (", \"semaphore_import_types\": %s, \"semaphore_export_types\": %s}",
          device_uints (devices[d], 0x204D).c_str (), device_uints (devices[d], 0x204E).c_str ());
    }
    printf ("]}");
  }
  printf ("\n]}\n");
  return 0;
}
