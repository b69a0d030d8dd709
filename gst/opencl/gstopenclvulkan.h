/* gst-opencl: semaphores made by Vulkan, for drivers that import semaphores but export none.
 *
 * NVIDIA's OpenCL imports a semaphore given as an opaque file descriptor, and so does CUDA, but
 * neither makes one that the other can import (docs/memory.md, "Ordering CUDA frames"). Vulkan
 * does: a binary semaphore created exportable is handed out as file descriptors, one for each
 * importer. This room reaches Vulkan at run time, through the loader (libvulkan.so.1) where
 * there is one, else through the library an installed driver's ICD manifest names, called
 * directly (the GPU machine has NVIDIA's driver and no loader). One instance per process and
 * one device per GPU, made on first use and kept for the process's life; nothing per frame.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <memory>
#include <string>

namespace gst_opencl {

/* One binary semaphore of the GPU whose UUID (hex, as cl_device_uuid () gives it) is `uuid`,
 * exportable as opaque file descriptors. Thread-safe to make and destroy. */
class VulkanSemaphore
{
public:
  /* Throws Failure when Vulkan, the GPU or the export is missing (the message says which). */
  explicit VulkanSemaphore (const std::string & uuid);
  ~VulkanSemaphore ();
  VulkanSemaphore (const VulkanSemaphore &) = delete;
  VulkanSemaphore & operator= (const VulkanSemaphore &) = delete;

  /* A new file descriptor of the semaphore; the caller owns it (an import takes it over).
   * Throws Failure. */
  int export_fd ();

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/* How Vulkan was reached ("loader libvulkan.so.1", "driver <library> from <manifest>"), or
 * why it was not; made once. */
std::string vulkan_entry_description ();

}  // namespace gst_opencl
