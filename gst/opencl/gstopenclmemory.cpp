/* gst-opencl: video frames held in OpenCL device memory, as a GstMemory type.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "opencl/gstopenclmemory.h"


#include <memory>
#include <mutex>
#include <new>
#include <vector>

#include <gst/video/gstvideopool.h>

#include "opencl/gstopenclenv.h"
#include "opencl/gstopenclutils.h"
#include "opencl/gstopenclstats.h"
#include "opencl/gstopencltensor.h"

#define GST_CAT_DEFAULT gst_opencl_debug

namespace {

/* Which copy of the frame holds the latest pixels (discrete devices). */
enum class Newest { Device, Host, Both };

/* A frame's memory. On a device that shares the host's memory the host sees the device buffer
 * itself, mapped while the host has it mapped: no copy either way. Elsewhere the host copy is
 * pinned (a CL_MEM_ALLOC_HOST_PTR buffer mapped once, for the memory's life), so uploads and
 * downloads run at the link's DMA rate, and it is copied only when the other side needs it. */
struct MemoryImpl
{
  std::mutex lock;
  GstOpenCLContext *context = nullptr;  /* a reference */
  cl::Buffer buffer;
  GstVideoInfo info {};
  bool unified = false;
  guint8 *host = nullptr;               /* the mapped host view, once made */
  /* unified */
  guint host_maps = 0;                  /* nested host maps of `buffer` */
  /* discrete */
  cl::Buffer pinned;                    /* the host copy, made at the first host map */
  Newest newest = Newest::Device;
  cl::Event upload;                     /* the last upload from `host`, while it may run */
  /* Where copies run on their own queues: an event after the device's last use of `buffer`
   * (marked when the frame path has enqueued a frame's kernels), which a copy into or out of it
   * waits for. `unmarked_use`: the buffer was handed to kernels since, without a mark; a copy
   * then waits for everything enqueued on the kernels' queue so far. */
  cl::Event last_use;
  bool unmarked_use = false;
  std::vector<cl::Event> wait_list;     /* a copy's wait list, kept from frame to frame */

  gst_opencl::Device & device () { return gst_opencl_context_device (context); }
  cl::CommandQueue & queue () { return device ().queue; }

  ~MemoryImpl ()
  {
    if (context && device ().waits.abandoned ()) {
      /* A command that will not end may use the buffer, and NVIDIA's driver blocks an unmap or
       * a release of it until that command ends: the buffers are kept (gstopenclwait.h). */
      pinned () = nullptr;
      buffer () = nullptr;
      host = nullptr;
      host_maps = 0;
    }
    try {
      if (pinned () && host)
        queue ().enqueueUnmapMemObject (pinned, host);
      else if (unified && host_maps > 0)
        queue ().enqueueUnmapMemObject (buffer, host);
    } catch (...) {
      GST_WARNING ("cannot unmap the host view of OpenCL memory");
    }
    /* The OpenCL objects go before the context reference: this memory may hold the last one,
     * and no object of the plugin outlives the context (and queue) it was made in. */
    upload = cl::Event ();
    last_use = cl::Event ();
    wait_list.clear ();
    pinned = cl::Buffer ();
    buffer = cl::Buffer ();
    gst_clear_object (&context);
  }
};

}  // namespace

struct GstOpenCLMemory
{
  GstMemory memory;
  MemoryImpl *impl;
};

struct _GstOpenCLAllocator
{
  GstAllocator parent;
};

G_DEFINE_TYPE (GstOpenCLAllocator, gst_opencl_allocator, GST_TYPE_ALLOCATOR);

static GstAllocator *opencl_allocator = nullptr;

static MemoryImpl *
impl_of (GstMemory * memory)
{
  return reinterpret_cast<GstOpenCLMemory *> (memory)->impl;
}

/* Waits for the last upload from the host copy, so the host copy may be written again. */
static void
finish_upload (MemoryImpl * impl)
{
  if (impl->upload ()) {
    gst_opencl::wait_event (impl->device (), impl->upload, nullptr);
    impl->upload = cl::Event ();
  }
}

/* Marks the device's use of the buffer as enqueued: later copies wait for what is on the
 * kernels' queue now. */
static void
mark_device_use (MemoryImpl * impl)
{
  if (!impl->unified && impl->device ().separate_transfers ()) {
    impl->queue ().enqueueMarkerWithWaitList (nullptr, &impl->last_use);
    impl->unmarked_use = false;
  }
}

/* What a copy on a transfer queue waits for: the device's last use of the buffer (nothing,
 * once the host has waited for it here, unless GST_OPENCL_TRANSFER_ORDER=events). Null for
 * nothing; else `impl->wait_list` (kept, so nothing is allocated per frame). */
static const std::vector<cl::Event> *
after_device_use (MemoryImpl * impl)
{
  if (impl->unmarked_use)
    mark_device_use (impl);
  if (!impl->last_use ())
    return nullptr;
  if (impl->device ().transfer_order != gst_opencl::Device::TransferOrder::Events) {
    gst_opencl::wait_event (impl->device (), impl->last_use, nullptr);
    return nullptr;
  }
  /* Another queue waits for the marker: it must have been flushed (OpenCL's rule for events
   * shared between queues). */
  impl->queue ().flush ();
  impl->wait_list.assign (1, impl->last_use);
  return &impl->wait_list;
}

/* Uploads the host copy. With transfer queues, on the upload queue once the device no longer
 * uses the buffer, and kernels enqueued later wait for it; the host does not wait. */
static void
upload_host_copy (MemoryImpl * impl)
{
  finish_upload (impl);
  auto & device = impl->device ();
  if (device.separate_transfers ()) {
    device.upload_queue.enqueueWriteBuffer (impl->buffer, CL_FALSE, 0, impl->info.size,
        impl->host, after_device_use (impl), &impl->upload);
    if (device.transfer_order == gst_opencl::Device::TransferOrder::HostUpload) {
      gst_opencl::wait_event (device, impl->upload, nullptr);
    } else {
      device.upload_queue.flush ();
      impl->wait_list.assign (1, impl->upload);
      device.queue.enqueueBarrierWithWaitList (&impl->wait_list);
    }
  } else {
    device.queue.enqueueWriteBuffer (impl->buffer, CL_FALSE, 0, impl->info.size, impl->host,
        nullptr, &impl->upload);
  }
  gst_opencl::count_transfer (true, impl->info.size);
  impl->newest = Newest::Both;
}

/* Downloads the device copy into the host copy and waits for it. With transfer queues, on the
 * download queue after the device's last use of the buffer, so other frames' uploads and
 * kernels go on meanwhile. */
static void
download_device_copy (MemoryImpl * impl, guint8 * host)
{
  finish_upload (impl);
  auto & device = impl->device ();
  cl::Event read;
  if (device.separate_transfers ()) {
    device.download_queue.enqueueReadBuffer (impl->buffer, CL_FALSE, 0, impl->info.size, host,
        after_device_use (impl), &read);
  } else {
    device.queue.enqueueReadBuffer (impl->buffer, CL_FALSE, 0, impl->info.size, host, nullptr,
        &read);
  }
  gst_opencl::wait_event (device, read, nullptr);
  gst_opencl::count_transfer (false, impl->info.size);
  impl->newest = Newest::Both;
}

/* Unified memory: the host maps the device buffer. The blocking map orders it after the kernels
 * that wrote the frame (one in-order queue); nested maps share it. */
static guint8 *
map_unified (MemoryImpl * impl)
{
  if (impl->host_maps == 0) {
    cl::Event mapped;
    auto *host = static_cast<guint8 *> (impl->queue ().enqueueMapBuffer (impl->buffer, CL_FALSE,
            CL_MAP_READ | CL_MAP_WRITE, 0, impl->info.size, nullptr, &mapped));
    gst_opencl::wait_event (impl->device (), mapped, nullptr);
    impl->host = host;
  }
  impl->host_maps++;
  return impl->host;
}

static void
unmap_unified (MemoryImpl * impl)
{
  if (impl->host_maps == 0 || --impl->host_maps > 0)
    return;
  /* Commands enqueued later (kernels) run after the unmap: they see what the host wrote. */
  impl->queue ().enqueueUnmapMemObject (impl->buffer, impl->host);
  impl->host = nullptr;
}

/* Discrete devices: the pinned host copy, made once. */
static guint8 *
pinned_host_copy (MemoryImpl * impl)
{
  if (!impl->host) {
    auto & device = gst_opencl_context_device (impl->context);
    impl->pinned = cl::Buffer (device.context, CL_MEM_ALLOC_HOST_PTR | CL_MEM_READ_WRITE,
        impl->info.size);
    cl::Event mapped;
    auto *host = static_cast<guint8 *> (impl->queue ().enqueueMapBuffer (impl->pinned, CL_FALSE,
            CL_MAP_READ | CL_MAP_WRITE, 0, impl->info.size, nullptr, &mapped));
    gst_opencl::wait_event (device, mapped, nullptr);
    impl->host = host;
  }
  return impl->host;
}

static gpointer
gst_opencl_memory_map (GstMemory * memory, gsize, GstMapFlags flags)
{
  MemoryImpl *impl = impl_of (memory);
  std::lock_guard<std::mutex> lock (impl->lock);
  try {
    if (flags & GST_MAP_OPENCL) {
      if (!impl->unified && impl->newest == Newest::Host)
        upload_host_copy (impl);
      if (flags & GST_MAP_WRITE)
        impl->newest = Newest::Device;
      impl->unmarked_use = true;
      return &impl->buffer;
    }
    if (impl->unified)
      return map_unified (impl);
    guint8 *host = pinned_host_copy (impl);
    if (impl->newest == Newest::Device && (flags & GST_MAP_READ)) {
      /* The host needs the pixels now: the one blocking call of this path. A map for writing
       * only gets the host copy as it is (GStreamer's GL and CUDA memory do the same): the
       * writer replaces the frame. */
      download_device_copy (impl, host);
    }
    if (flags & GST_MAP_WRITE) {
      finish_upload (impl);
      impl->newest = Newest::Host;
    }
    return host;
  } catch (...) {
    GST_ERROR ("cannot map OpenCL memory %p: %s", memory,
        gst_opencl::describe_exception (std::current_exception ()).c_str ());
    return nullptr;
  }
}

static void
gst_opencl_memory_unmap_full (GstMemory * memory, GstMapInfo * info)
{
  MemoryImpl *impl = impl_of (memory);
  if (!impl->unified || (info->flags & GST_MAP_OPENCL))
    return;
  std::lock_guard<std::mutex> lock (impl->lock);
  try {
    unmap_unified (impl);
  } catch (...) {
    GST_ERROR ("cannot unmap OpenCL memory %p: %s", memory,
        gst_opencl::describe_exception (std::current_exception ()).c_str ());
  }
}

static GstMemory *
gst_opencl_memory_share (GstMemory *, gssize, gssize)
{
  return nullptr;  /* a sub-range of a device frame is not a frame */
}

static GstMemory *
gst_opencl_allocator_alloc (GstAllocator *, gsize, GstAllocationParams *)
{
  g_critical ("OpenCL memory needs a context: use gst_opencl::opencl_memory_alloc ()");
  return nullptr;
}

static void
gst_opencl_allocator_free (GstAllocator *, GstMemory * memory)
{
  auto *opencl_memory = reinterpret_cast<GstOpenCLMemory *> (memory);
  {
    /* Pending uploads read the host copy: let them finish before it goes. */
    std::lock_guard<std::mutex> lock (opencl_memory->impl->lock);
    try {
      finish_upload (opencl_memory->impl);
    } catch (...) {
      GST_WARNING ("an upload into freed OpenCL memory failed");
    }
  }
  delete opencl_memory->impl;
  g_free (opencl_memory);
}

static void
gst_opencl_allocator_class_init (GstOpenCLAllocatorClass * klass)
{
  auto *allocator_class = GST_ALLOCATOR_CLASS (klass);
  allocator_class->alloc = gst_opencl_allocator_alloc;
  allocator_class->free = gst_opencl_allocator_free;
}

static void
gst_opencl_allocator_init (GstOpenCLAllocator * self)
{
  auto *allocator = GST_ALLOCATOR_CAST (self);
  allocator->mem_type = GST_OPENCL_MEMORY_TYPE_NAME;
  allocator->mem_map = gst_opencl_memory_map;
  allocator->mem_unmap_full = gst_opencl_memory_unmap_full;
  allocator->mem_share = gst_opencl_memory_share;
  GST_OBJECT_FLAG_SET (allocator, GST_ALLOCATOR_FLAG_CUSTOM_ALLOC);
}

void
gst_opencl_memory_init_once (void)
{
  static gsize done = 0;
  if (g_once_init_enter (&done)) {
    opencl_allocator = GST_ALLOCATOR (g_object_new (GST_TYPE_OPENCL_ALLOCATOR, nullptr));
    gst_object_ref_sink (opencl_allocator);
    /* The registry keeps its own reference; ours lives as long as the process. */
    gst_allocator_register (GST_OPENCL_MEMORY_TYPE_NAME,
        GST_ALLOCATOR (gst_object_ref (opencl_allocator)));
    GST_OBJECT_FLAG_SET (opencl_allocator, GST_OBJECT_FLAG_MAY_BE_LEAKED);
    g_once_init_leave (&done, 1);
  }
}

gboolean
gst_is_opencl_memory (GstMemory * memory)
{
  return memory && memory->allocator && GST_IS_OPENCL_ALLOCATOR (memory->allocator);
}

namespace gst_opencl {

bool
caps_are_opencl_memory (const GstCaps * caps)
{
  if (!caps || gst_caps_is_empty (caps) || gst_caps_is_any (caps))
    return false;
  GstCapsFeatures *features = gst_caps_get_features (caps, 0);
  return features && gst_caps_features_contains (features, GST_CAPS_FEATURE_MEMORY_OPENCL);
}

GstMemory *
opencl_memory_alloc (GstOpenCLContext * context, const GstVideoInfo * info, bool host_view)
{
  gst_opencl_memory_init_once ();
  auto & device = gst_opencl_context_device (context);
  if (info->size == 0 || (guint64) info->size > device.max_alloc_bytes)
    throw Failure (Failure::Kind::TooLarge, "a frame of " + std::to_string (info->size) +
        " bytes does not fit one allocation on " + device.name + " (largest " +
        std::to_string (device.max_alloc_bytes) + " bytes)");
  auto impl = std::make_unique<MemoryImpl> ();
  impl->unified = device.host_unified_memory;
  impl->buffer = cl::Buffer (device.context, impl->unified ?
      CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR : CL_MEM_READ_WRITE, info->size);
  impl->context = GST_OPENCL_CONTEXT (gst_object_ref (context));
  impl->info = *info;
  if (host_view && !impl->unified)
    pinned_host_copy (impl.get ());

  auto *memory = g_new0 (GstOpenCLMemory, 1);
  gst_memory_init (GST_MEMORY_CAST (memory), (GstMemoryFlags) GST_MEMORY_FLAG_NO_SHARE,
      opencl_allocator, nullptr, info->size, 0, 0, info->size);
  memory->impl = impl.release ();
  return GST_MEMORY_CAST (memory);
}

GstOpenCLContext *
opencl_memory_context (GstMemory * memory)
{
  return impl_of (memory)->context;
}

const GstVideoInfo *
opencl_memory_info (GstMemory * memory)
{
  return &impl_of (memory)->info;
}

cl::Buffer
opencl_memory_device_buffer (GstMemory * memory, bool will_write)
{
  MemoryImpl *impl = impl_of (memory);
  std::lock_guard<std::mutex> lock (impl->lock);
  if (!impl->unified && impl->newest == Newest::Host)
    upload_host_copy (impl);
  if (will_write)
    impl->newest = Newest::Device;
  impl->unmarked_use = true;
  return impl->buffer;
}

void
opencl_memory_written (GstMemory * memory)
{
  MemoryImpl *impl = impl_of (memory);
  std::lock_guard<std::mutex> lock (impl->lock);
  impl->newest = Newest::Device;
  mark_device_use (impl);
}

void
opencl_memory_used (GstMemory * memory)
{
  MemoryImpl *impl = impl_of (memory);
  std::lock_guard<std::mutex> lock (impl->lock);
  mark_device_use (impl);
}


GstCaps *
transform_caps_any_memory (GstCaps * caps, GstCaps * filter, bool cuda)
{
  GstCaps *result = gst_caps_new_empty ();
  for (guint i = 0; i < gst_caps_get_size (caps); i++) {
    GstCapsFeatures *features = gst_caps_get_features (caps, i);
    const GstStructure *structure = gst_caps_get_structure (caps, i);
    bool keep = features && (gst_caps_features_contains (features, "memory:GLMemory") ||
        gst_caps_features_is_any (features));
    if (keep) {
      result = gst_caps_merge_structure_full (result, gst_structure_copy (structure),
          gst_caps_features_copy (features));
      continue;
    }
    for (const char *memory : { GST_CAPS_FEATURE_MEMORY_OPENCL,
            GST_OPENCL_CAPS_FEATURE_MEMORY_CUDA, GST_CAPS_FEATURE_MEMORY_SYSTEM_MEMORY }) {
      if (!cuda && g_str_equal (memory, GST_OPENCL_CAPS_FEATURE_MEMORY_CUDA))
        continue;
      result = gst_caps_merge_structure_full (result, gst_structure_copy (structure),
          gst_caps_features_new (memory, nullptr));
    }
  }
  if (filter) {
    GstCaps *filtered = gst_caps_intersect_full (filter, result, GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref (result);
    result = filtered;
  }
  return result;
}

GstCaps *
without_cuda_memory (GstCaps * caps)
{
  GstCaps *result = gst_caps_new_empty ();
  for (guint i = 0; i < gst_caps_get_size (caps); i++) {
    GstCapsFeatures *features = gst_caps_get_features (caps, i);
    if (features && !gst_caps_features_is_any (features) &&
        gst_caps_features_contains (features, GST_OPENCL_CAPS_FEATURE_MEMORY_CUDA))
      continue;
    result = gst_caps_merge_structure_full (result,
        gst_structure_copy (gst_caps_get_structure (caps, i)),
        features ? gst_caps_features_copy (features) : nullptr);
  }
  gst_caps_unref (caps);
  return result;
}

GstCaps *
with_memory_feature (const GstCaps * caps, const char *feature)
{
  GstCaps *result = gst_caps_copy (caps);
  for (guint i = 0; i < gst_caps_get_size (result); i++)
    gst_caps_set_features (result, i, gst_caps_features_new (feature, nullptr));
  return result;
}

GstCaps *
video_caps (const gchar * formats, const gchar * extra_fields)
{
  return gst_caps_from_string (("video/x-raw, format=(string){ " + std::string (formats) +
          " }, width=(int)[1, max], height=(int)[1, max], framerate=(fraction)[0/1, max]" +
          (extra_fields ? std::string (", ") + extra_fields : "")).c_str ());
}

GstCaps *
video_caps_any_memory (const gchar * formats, const gchar * extra_fields, bool gl_rgba)
{
  GstCaps *caps = video_caps (formats, extra_fields);
  /* The same formats in OpenCL memory, first: frames that stay on the device between elements. */
  caps = gst_caps_merge (with_memory_feature (caps, GST_CAPS_FEATURE_MEMORY_OPENCL), caps);
#ifdef HAVE_GL
  const std::string fields = std::string ("width=(int)[1, max], height=(int)[1, max], "
      "framerate=(fraction)[0/1, max]") + (extra_fields ? std::string (", ") + extra_fields : "");
  if (gl_rgba)
    gst_caps_append (caps, gst_caps_from_string (("video/x-raw(memory:GLMemory), "
                "format=(string)RGBA, texture-target=(string)2D, " + fields).c_str ()));
#else
  (void) gl_rgba;
#endif
  return caps;
}

void
add_video_pad_templates (GstElementClass * element_class, const gchar * formats, bool gl_rgba)
{
  /* Frames in CUDA memory first (NVIDIA's decoders and CUDA elements then keep them on the
   * device); offered only where the device reaches CUDA memory (transform_caps_any_memory). */
  GstCaps *plain = video_caps (formats, nullptr);
  GstCaps *caps = with_memory_feature (plain, GST_OPENCL_CAPS_FEATURE_MEMORY_CUDA);
  gst_caps_unref (plain);
  caps = gst_caps_merge (caps, video_caps_any_memory (formats, nullptr, gl_rgba));
  gst_element_class_add_pad_template (element_class,
      gst_pad_template_new ("sink", GST_PAD_SINK, GST_PAD_ALWAYS, caps));
  gst_element_class_add_pad_template (element_class,
      gst_pad_template_new ("src", GST_PAD_SRC, GST_PAD_ALWAYS, caps));
  gst_caps_unref (caps);
}

GstCaps *
prefer_opencl_memory (GstCaps * othercaps)
{
  GstCaps *on_device = gst_caps_new_empty ();
  for (guint i = 0; i < gst_caps_get_size (othercaps); i++) {
    GstCapsFeatures *features = gst_caps_get_features (othercaps, i);
    if (features && gst_caps_features_contains (features, GST_CAPS_FEATURE_MEMORY_OPENCL))
      gst_caps_append_structure_full (on_device,
          gst_structure_copy (gst_caps_get_structure (othercaps, i)),
          gst_caps_features_copy (features));
  }
  if (gst_caps_is_empty (on_device)) {
    gst_caps_unref (on_device);
    return othercaps;
  }
  gst_caps_unref (othercaps);
  return on_device;
}

GstVideoInfo
bytes_layout (gsize bytes)
{
  GstVideoInfo info;
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, 16, 1);
  info.width = (gint) MIN (bytes, (gsize) G_MAXINT);
  info.stride[0] = (gint) MIN (bytes, (gsize) G_MAXINT);
  info.size = bytes;
  return info;
}

bool
caps_layout (const GstCaps * caps, GstVideoInfo * info, bool *bytes)
{
  *bytes = false;
  if (!caps || !gst_caps_is_fixed (caps))
    return false;
  if (caps_are_tensors (caps)) {
    std::string why;
    const auto tensor = tensor_info_from_caps (caps, &why);
    if (!tensor)
      return false;
    *info = bytes_layout (tensor->size_bytes ());
    *bytes = true;
    return true;
  }
  return gst_video_info_from_caps (info, caps);
}

bool
allocation_video_info (GstElement * element, GstQuery * query, GstCaps ** caps,
    GstVideoInfo * info)
{
  *caps = nullptr;
  gst_query_parse_allocation (query, caps, nullptr);
  if (*caps && gst_video_info_from_caps (info, *caps))
    return true;
  GST_ELEMENT_ERROR (element, CORE, NEGOTIATION, ("no video caps in the allocation query"),
      (nullptr));
  return false;
}

void
put_allocation_pool (GstQuery * query, GstBufferPool * pool, guint size, guint min_buffers,
    guint max_buffers)
{
  if (gst_query_get_n_allocation_pools (query) > 0)
    gst_query_set_nth_allocation_pool (query, 0, pool, size, min_buffers, max_buffers);
  else
    gst_query_add_allocation_pool (query, pool, size, min_buffers, max_buffers);
}

bool
decide_opencl_pool (GstElement * element, GstQuery * query, GstOpenCLContext * context)
{
  GstCaps *caps = nullptr;
  GstVideoInfo info;
  bool bytes = false;
  gst_query_parse_allocation (query, &caps, nullptr);
  if (!caps_layout (caps, &info, &bytes)) {
    GST_ELEMENT_ERROR (element, CORE, NEGOTIATION, ("no video or tensor caps in the allocation "
            "query"), ("caps %" GST_PTR_FORMAT, caps));
    return false;
  }
  guint min_buffers = 2, max_buffers = 0;
  GstBufferPool *pool = nullptr;
  if (gst_query_get_n_allocation_pools (query) > 0) {
    guint size;
    gst_query_parse_nth_allocation_pool (query, 0, &pool, &size, &min_buffers, &max_buffers);
    min_buffers = MAX (min_buffers, 2u);
  }
  if (pool && !GST_IS_OPENCL_BUFFER_POOL (pool))
    gst_clear_object (&pool);
  if (!pool)
    pool = gst_opencl_buffer_pool_new (context);
  GstStructure *config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, caps, (guint) info.size, min_buffers, max_buffers);
  if (!bytes)
    gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  if (!gst_buffer_pool_set_config (pool, config)) {
    gst_object_unref (pool);
    GST_ELEMENT_ERROR (element, RESOURCE, SETTINGS, ("cannot configure the OpenCL buffer pool"),
        ("caps %" GST_PTR_FORMAT, caps));
    return false;
  }
  put_allocation_pool (query, pool, (guint) info.size, min_buffers, max_buffers);
  gst_object_unref (pool);
  return true;
}

bool
host_frames_enabled ()
{
  return env::flag (env::Variable::HostFrames);
}

/* A pool nobody else depends on: GStreamer's own system-memory pools may be replaced by ours
 * (a sink's pool of special memory, an XImage or a dmabuf pool, is kept). */
static bool
pool_is_plain (GstBufferPool * pool)
{
  return !pool || G_OBJECT_TYPE (pool) == GST_TYPE_BUFFER_POOL ||
      G_OBJECT_TYPE (pool) == GST_TYPE_VIDEO_BUFFER_POOL;
}

bool
decide_frame_pool (GstElement * element, GstQuery * query, GstOpenCLContext * context,
    bool host_frames, bool *failed)
{
  *failed = false;
  GstCaps *caps = nullptr;
  gst_query_parse_allocation (query, &caps, nullptr);
  GstVideoInfo info;
  if (!caps || !context || !gst_video_info_from_caps (&info, caps))
    return false;
  bool ours = caps_are_opencl_memory (caps);
  if (!ours && host_frames && host_frames_enabled ()) {
    GstCapsFeatures *features = gst_caps_get_features (caps, 0);
    GstBufferPool *pool = nullptr;
    if (gst_query_get_n_allocation_pools (query) > 0)
      gst_query_parse_nth_allocation_pool (query, 0, &pool, nullptr, nullptr, nullptr);
    ours = (!features || gst_caps_features_is_equal (features,
            GST_CAPS_FEATURES_MEMORY_SYSTEM_MEMORY)) && pool_is_plain (pool);
    gst_clear_object (&pool);
  }
  if (!ours)
    return false;
  try {
    *failed = !decide_opencl_pool (element, query, context);
  } catch (...) {
    GST_ELEMENT_ERROR (element, RESOURCE, FAILED, ("cannot create an OpenCL buffer pool"),
        ("%s", describe_exception (std::current_exception ()).c_str ()));
    *failed = true;
  }
  return !*failed;
}

bool
buffer_device_frame (GstBuffer * buffer, GstOpenCLContext * context, bool will_write,
    DeviceFrameView * view)
{
  if (gst_buffer_n_memory (buffer) != 1)
    return false;
  GstMemory *memory = gst_buffer_peek_memory (buffer, 0);
  if (!gst_is_opencl_memory (memory) || impl_of (memory)->context != context)
    return false;
  view->info = impl_of (memory)->info;
  if (GstVideoMeta * meta = gst_buffer_get_video_meta (buffer)) {
    for (guint plane = 0; plane < meta->n_planes; plane++) {
      view->info.offset[plane] = meta->offset[plane];
      view->info.stride[plane] = meta->stride[plane];
    }
  }
  view->buffer = opencl_memory_device_buffer (memory, will_write);
  return true;
}

}  // namespace gst_opencl

/* The buffer pool. */

struct GstOpenCLBufferPoolImpl
{
  GstOpenCLContext *context = nullptr;
  GstVideoInfo info {};
  bool bytes = false;  /* plain bytes (tensor caps): no video meta */
  bool host_view = false;  /* GST_OPENCL_BUFFER_POOL_OPTION_HOST_VIEW */
};

struct _GstOpenCLBufferPool
{
  GstBufferPool parent;
  GstOpenCLBufferPoolImpl *impl;
};

G_DEFINE_TYPE (GstOpenCLBufferPool, gst_opencl_buffer_pool, GST_TYPE_BUFFER_POOL);

static const gchar **
gst_opencl_buffer_pool_get_options (GstBufferPool *)
{
  static const gchar *options[] = { GST_BUFFER_POOL_OPTION_VIDEO_META,
    GST_OPENCL_BUFFER_POOL_OPTION_HOST_VIEW, nullptr };
  return options;
}

static gboolean
gst_opencl_buffer_pool_set_config (GstBufferPool * pool, GstStructure * config)
{
  auto *impl = GST_OPENCL_BUFFER_POOL (pool)->impl;
  GstCaps *caps = nullptr;
  guint size, min_buffers, max_buffers;
  if (!gst_buffer_pool_config_get_params (config, &caps, &size, &min_buffers, &max_buffers) ||
      !gst_opencl::caps_layout (caps, &impl->info, &impl->bytes)) {
    GST_WARNING_OBJECT (pool, "no video or tensor caps in the configuration");
    return FALSE;
  }
  gst_buffer_pool_config_set_params (config, caps, (guint) impl->info.size, min_buffers,
      max_buffers);
  impl->host_view = gst_buffer_pool_config_has_option (config,
      GST_OPENCL_BUFFER_POOL_OPTION_HOST_VIEW);
  return GST_BUFFER_POOL_CLASS (gst_opencl_buffer_pool_parent_class)->set_config (pool, config);
}

static GstFlowReturn
gst_opencl_buffer_pool_alloc_buffer (GstBufferPool * pool, GstBuffer ** buffer,
    GstBufferPoolAcquireParams *)
{
  auto *impl = GST_OPENCL_BUFFER_POOL (pool)->impl;
  try {
    GstMemory *memory = gst_opencl::opencl_memory_alloc (impl->context, &impl->info,
        impl->host_view);
    *buffer = gst_buffer_new ();
    gst_buffer_append_memory (*buffer, memory);
    if (impl->bytes)
      return GST_FLOW_OK;
    const GstVideoInfo *info = &impl->info;
    gst_buffer_add_video_meta_full (*buffer, GST_VIDEO_FRAME_FLAG_NONE,
        GST_VIDEO_INFO_FORMAT (info), GST_VIDEO_INFO_WIDTH (info), GST_VIDEO_INFO_HEIGHT (info),
        GST_VIDEO_INFO_N_PLANES (info), (gsize *) info->offset, (gint *) info->stride);
    return GST_FLOW_OK;
  } catch (...) {
    GST_ERROR_OBJECT (pool, "cannot allocate an OpenCL frame: %s",
        gst_opencl::describe_exception (std::current_exception ()).c_str ());
    return GST_FLOW_ERROR;
  }
}

static void
gst_opencl_buffer_pool_finalize (GObject * object)
{
  auto *impl = GST_OPENCL_BUFFER_POOL (object)->impl;
  gst_clear_object (&impl->context);
  delete impl;
  G_OBJECT_CLASS (gst_opencl_buffer_pool_parent_class)->finalize (object);
}

static void
gst_opencl_buffer_pool_class_init (GstOpenCLBufferPoolClass * klass)
{
  auto *pool_class = GST_BUFFER_POOL_CLASS (klass);
  G_OBJECT_CLASS (klass)->finalize = gst_opencl_buffer_pool_finalize;
  pool_class->get_options = gst_opencl_buffer_pool_get_options;
  pool_class->set_config = gst_opencl_buffer_pool_set_config;
  pool_class->alloc_buffer = gst_opencl_buffer_pool_alloc_buffer;
}

static void
gst_opencl_buffer_pool_init (GstOpenCLBufferPool * self)
{
  self->impl = new GstOpenCLBufferPoolImpl ();
}

GstBufferPool *
gst_opencl_buffer_pool_new (GstOpenCLContext * context)
{
  gst_opencl_memory_init_once ();
  auto *pool = GST_OPENCL_BUFFER_POOL (g_object_new (GST_TYPE_OPENCL_BUFFER_POOL, nullptr));
  gst_object_ref_sink (pool);
  pool->impl->context = GST_OPENCL_CONTEXT (gst_object_ref (context));
  return GST_BUFFER_POOL_CAST (pool);
}
