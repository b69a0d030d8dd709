/* gst-opencl: semaphores made by Vulkan (see gstopenclvulkan.h).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "opencl/gstopenclvulkan.h"

#include "opencl/gstopenclutils.h"

#ifdef HAVE_VULKAN_HEADERS

#define VK_NO_PROTOTYPES
#include <vulkan/vulkan.h>

#include <dirent.h>
#include <dlfcn.h>

#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <vector>

namespace gst_opencl {

namespace {

/* The "library_path" of an ICD manifest, "" when it has none. */
std::string
library_of_manifest (const std::string & path)
{
  std::ifstream file (path);
  std::stringstream text;
  text << file.rdbuf ();
  const std::string json = text.str ();
  const size_t key = json.find ("\"library_path\"");
  if (key == std::string::npos)
    return "";
  const size_t colon = json.find (':', key);
  const size_t open = colon == std::string::npos ? colon : json.find ('"', colon + 1);
  const size_t close = open == std::string::npos ? open : json.find ('"', open + 1);
  return close == std::string::npos ? "" : json.substr (open + 1, close - open - 1);
}

/* A driver named by a manifest in `dir`, called directly: its vk_icdGetInstanceProcAddr after
 * agreeing the interface version. `tried` collects what did not serve. */
PFN_vkGetInstanceProcAddr
driver_in (const char *dir, std::string * description, std::string * tried)
{
  DIR *folder = opendir (dir);
  if (!folder)
    return nullptr;
  PFN_vkGetInstanceProcAddr found = nullptr;
  while (const dirent *entry = readdir (folder)) {
    const std::string name = entry->d_name;
    if (name.size () < 5 || name.compare (name.size () - 5, 5, ".json") != 0)
      continue;
    const std::string manifest = std::string (dir) + "/" + name;
    const std::string library = library_of_manifest (manifest);
    void *driver = library.empty () ? nullptr : dlopen (library.c_str (), RTLD_NOW | RTLD_LOCAL);
    if (!driver) {
      *tried += manifest + (library.empty () ? ": no library_path; " : ": cannot open " +
              library + "; ");
      continue;
    }
    using Negotiate = VkResult (VKAPI_PTR *) (uint32_t *);
    auto negotiate = reinterpret_cast<Negotiate> (dlsym (driver,
            "vk_icdNegotiateLoaderICDInterfaceVersion"));
    /* Version 5: the loader's current interface (physical devices enumerated by the driver). */
    uint32_t version = 5;
    found = reinterpret_cast<PFN_vkGetInstanceProcAddr> (dlsym (driver,
            "vk_icdGetInstanceProcAddr"));
    if (!found || (negotiate && negotiate (&version) != VK_SUCCESS)) {
      *tried += manifest + ": " + library + " is not a Vulkan driver of interface 1 to 5; ";
      found = nullptr;
      continue;
    }
    *description = "driver " + library + " from " + manifest + " (interface " +
        std::to_string (version) + ")";
    break;
  }
  closedir (folder);
  return found;
}

/* One GPU's Vulkan device and the calls its semaphores need. */
struct GpuDevice
{
  VkDevice device = VK_NULL_HANDLE;
  PFN_vkCreateSemaphore create = nullptr;
  PFN_vkDestroySemaphore destroy = nullptr;
  PFN_vkGetSemaphoreFdKHR get_fd = nullptr;
};

/* The process's Vulkan: its entry point, one instance, a device per GPU (by UUID). Made on first
 * use and never destroyed (as the CUDA driver: a static destructor would run after the
 * drivers' own). */
class Vulkan
{
public:
  static Vulkan & get ()
  {
    static Vulkan *vulkan = new Vulkan ();
    return *vulkan;
  }

  const std::string & description () const { return description_; }

  /* The device of the GPU with `uuid` that exports binary semaphores as opaque file
   * descriptors. Throws Failure. */
  const GpuDevice & device_for (const std::string & uuid)
  {
    std::lock_guard<std::mutex> hold (lock_);
    if (!instance_)
      throw Failure (Failure::Kind::NotFound, "no Vulkan: " + description_);
    auto known = devices_.find (uuid);
    if (known != devices_.end ())
      return known->second;
    return devices_.emplace (uuid, make_device (find_physical (uuid))).first->second;
  }

private:
  std::mutex lock_;
  PFN_vkGetInstanceProcAddr entry_ = nullptr;
  VkInstance instance_ = VK_NULL_HANDLE;
  std::string description_;
  std::map<std::string, GpuDevice> devices_;

  template<typename T> T call (const char *name)
  {
    return reinterpret_cast<T> (entry_ (instance_, name));
  }

  Vulkan ()
  {
    if (void *loader = dlopen ("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL)) {
      entry_ = reinterpret_cast<PFN_vkGetInstanceProcAddr> (dlsym (loader,
              "vkGetInstanceProcAddr"));
      description_ = "loader libvulkan.so.1";
    }
    std::string tried;
    for (const char *dir : { "/etc/vulkan/icd.d", "/usr/share/vulkan/icd.d",
            "/usr/local/etc/vulkan/icd.d", "/usr/local/share/vulkan/icd.d" }) {
      if (entry_)
        break;
      entry_ = driver_in (dir, &description_, &tried);
    }
    if (!entry_) {
      description_ = "no Vulkan loader (libvulkan.so.1) and no usable driver manifest" +
          (tried.empty () ? std::string () : ": " + tried);
      return;
    }
    VkApplicationInfo app {};
    app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
    app.pApplicationName = "gst-opencl";
    app.apiVersion = VK_API_VERSION_1_1;
    VkInstanceCreateInfo info {};
    info.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
    info.pApplicationInfo = &app;
    auto create = call<PFN_vkCreateInstance> ("vkCreateInstance");
    const VkResult result = create ? create (&info, nullptr, &instance_) :
        VK_ERROR_INITIALIZATION_FAILED;
    if (result != VK_SUCCESS) {
      instance_ = VK_NULL_HANDLE;
      description_ += ", but vkCreateInstance failed (VkResult " + std::to_string (result) + ")";
    }
  }

  VkPhysicalDevice find_physical (const std::string & uuid)
  {
    auto enumerate = call<PFN_vkEnumeratePhysicalDevices> ("vkEnumeratePhysicalDevices");
    auto properties = call<PFN_vkGetPhysicalDeviceProperties2> (
        "vkGetPhysicalDeviceProperties2");
    auto semaphores = call<PFN_vkGetPhysicalDeviceExternalSemaphoreProperties> (
        "vkGetPhysicalDeviceExternalSemaphoreProperties");
    if (!enumerate || !properties || !semaphores)
      throw Failure (Failure::Kind::NotFound, "Vulkan 1.1's device queries are missing");
    uint32_t count = 0;
    enumerate (instance_, &count, nullptr);
    std::vector<VkPhysicalDevice> physical (count);
    enumerate (instance_, &count, physical.data ());
    for (VkPhysicalDevice device : physical) {
      VkPhysicalDeviceIDProperties ids {};
      ids.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES;
      VkPhysicalDeviceProperties2 props {};
      props.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
      props.pNext = &ids;
      properties (device, &props);
      if (hex_bytes (ids.deviceUUID, VK_UUID_SIZE) != uuid)
        continue;
      VkPhysicalDeviceExternalSemaphoreInfo ask {};
      ask.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_SEMAPHORE_INFO;
      ask.handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
      VkExternalSemaphoreProperties caps {};
      caps.sType = VK_STRUCTURE_TYPE_EXTERNAL_SEMAPHORE_PROPERTIES;
      semaphores (device, &ask, &caps);
      if (!(caps.externalSemaphoreFeatures & VK_EXTERNAL_SEMAPHORE_FEATURE_EXPORTABLE_BIT))
        throw Failure (Failure::Kind::NotFound, std::string ("Vulkan's ") +
            props.properties.deviceName + " exports no semaphore as a file descriptor");
      return device;
    }
    throw Failure (Failure::Kind::NotFound, "no Vulkan device has the GPU's UUID " + uuid +
        " (" + std::to_string (count) + " devices)");
  }

  GpuDevice make_device (VkPhysicalDevice physical)
  {
    const float priority = 1.0f;
    VkDeviceQueueCreateInfo queue {};
    queue.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
    queue.queueFamilyIndex = 0;
    queue.queueCount = 1;
    queue.pQueuePriorities = &priority;
    const char *extensions[] = { VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME };
    VkDeviceCreateInfo info {};
    info.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
    info.queueCreateInfoCount = 1;
    info.pQueueCreateInfos = &queue;
    info.enabledExtensionCount = 1;
    info.ppEnabledExtensionNames = extensions;
    GpuDevice gpu;
    auto create = call<PFN_vkCreateDevice> ("vkCreateDevice");
    const VkResult result = create (physical, &info, nullptr, &gpu.device);
    if (result != VK_SUCCESS)
      throw Failure (Failure::Kind::Failed, "vkCreateDevice with " +
          std::string (VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME) + " failed (VkResult " +
          std::to_string (result) + ")");
    auto device_call = call<PFN_vkGetDeviceProcAddr> ("vkGetDeviceProcAddr");
    gpu.create = reinterpret_cast<PFN_vkCreateSemaphore> (device_call (gpu.device,
            "vkCreateSemaphore"));
    gpu.destroy = reinterpret_cast<PFN_vkDestroySemaphore> (device_call (gpu.device,
            "vkDestroySemaphore"));
    gpu.get_fd = reinterpret_cast<PFN_vkGetSemaphoreFdKHR> (device_call (gpu.device,
            "vkGetSemaphoreFdKHR"));
    if (!gpu.create || !gpu.destroy || !gpu.get_fd)
      throw Failure (Failure::Kind::Failed, "the Vulkan device lacks vkGetSemaphoreFdKHR");
    return gpu;
  }
};

}  // namespace

struct VulkanSemaphore::Impl
{
  const GpuDevice *gpu = nullptr;
  VkSemaphore semaphore = VK_NULL_HANDLE;
};

VulkanSemaphore::VulkanSemaphore (const std::string & uuid) : impl_ (new Impl ())
{
  impl_->gpu = &Vulkan::get ().device_for (uuid);
  VkExportSemaphoreCreateInfo exported {};
  exported.sType = VK_STRUCTURE_TYPE_EXPORT_SEMAPHORE_CREATE_INFO;
  exported.handleTypes = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
  VkSemaphoreCreateInfo info {};
  info.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO;
  info.pNext = &exported;
  const VkResult result = impl_->gpu->create (impl_->gpu->device, &info, nullptr,
      &impl_->semaphore);
  if (result != VK_SUCCESS)
    throw Failure (Failure::Kind::Failed, "vkCreateSemaphore (exportable) failed (VkResult " +
        std::to_string (result) + ")");
}

VulkanSemaphore::~VulkanSemaphore ()
{
  if (impl_->semaphore)
    impl_->gpu->destroy (impl_->gpu->device, impl_->semaphore, nullptr);
}

int
VulkanSemaphore::export_fd ()
{
  VkSemaphoreGetFdInfoKHR info {};
  info.sType = VK_STRUCTURE_TYPE_SEMAPHORE_GET_FD_INFO_KHR;
  info.semaphore = impl_->semaphore;
  info.handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
  int fd = -1;
  const VkResult result = impl_->gpu->get_fd (impl_->gpu->device, &info, &fd);
  if (result != VK_SUCCESS || fd < 0)
    throw Failure (Failure::Kind::Failed, "vkGetSemaphoreFdKHR failed (VkResult " +
        std::to_string (result) + ")");
  return fd;
}

std::string
vulkan_entry_description ()
{
  return Vulkan::get ().description ();
}

}  // namespace gst_opencl

#else /* built without Vulkan's headers */

namespace gst_opencl {

struct VulkanSemaphore::Impl
{
};

VulkanSemaphore::VulkanSemaphore (const std::string &)
{
  throw Failure (Failure::Kind::NotFound, vulkan_entry_description ());
}

VulkanSemaphore::~VulkanSemaphore () = default;

int
VulkanSemaphore::export_fd ()
{
  return -1;
}

std::string
vulkan_entry_description ()
{
  return "built without Vulkan's headers (libvulkan-dev)";
}

}  // namespace gst_opencl

#endif
