/* gst-opencl: frames in CUDA memory on the OpenCL device (see gstopenclcuda.h).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "opencl/gstopenclcuda.h"

#include <dlfcn.h>
#include <unistd.h>

#include <CL/cl_ext.h>

#include <map>
#include <mutex>
#include <type_traits>
#include <vector>

#include "opencl/gstopenclbindings.h"
#include "opencl/gstopenclcontext.h"
#include "opencl/gstopenclcudaorder.h"
#include "opencl/gstopencldevice.h"
#include "opencl/gstopenclenv.h"
#include "opencl/gstopenclmemory.h"
#include "opencl/gstopenclutils.h"

#define GST_CAT_DEFAULT gst_opencl_debug

namespace gst_opencl {

namespace {

/* GStreamer's CUDA map flag (gst/cuda/gstcudamemory.h, the same since 1.22): a map of CUDA
 * memory with it gives the device pointer. */
constexpr int kGstMapCuda = GST_MAP_FLAG_LAST << 1;
constexpr const char *kCudaMemoryType = "gst.cuda.memory";

/* The public head of GstCudaMemory (1.22 to 1.26): the layout of a buffer without a video
 * meta. */
struct CudaMemoryHead
{
  GstMemory mem;
  GstObject *context;
  GstVideoInfo info;
};

constexpr unsigned kCudaEventDisableTiming = 0x2;
/* GST_CUDA_MEMORY_TRANSFER_NEED_SYNC (1.24): the memory's writer left work on its stream. */
constexpr guint kCudaMemoryNeedSync = GST_MEMORY_FLAG_LAST << 2;

/* Enqueues the copy of a frame's planes between two device layouts of it on `stream`, in the
 * CUDA context current. */
void
copy_planes (const GstVideoInfo * info, CUdeviceptr from, const gsize * from_offsets,
    const gint * from_strides, CUdeviceptr to, const gsize * to_offsets, const gint * to_strides,
    CUstream stream)
{
  auto & cuda = CudaDriver::get ();
  GST_LOG ("copying %u planes 0x%llx -> 0x%llx", GST_VIDEO_INFO_N_PLANES (info), from, to);
  for (guint plane = 0; plane < GST_VIDEO_INFO_N_PLANES (info); plane++) {
    CudaCopy2D copy {};
    copy.src_memory_type = 2;
    copy.src_device = from + from_offsets[plane];
    copy.src_pitch = (size_t) from_strides[plane];
    copy.dst_memory_type = 2;
    copy.dst_device = to + to_offsets[plane];
    copy.dst_pitch = (size_t) to_strides[plane];
    copy.width_bytes = plane_row_bytes (info, plane);
    copy.height = plane_rows (info, plane);
    if (copy.width_bytes > copy.src_pitch || copy.width_bytes > copy.dst_pitch)
      throw Failure (Failure::Kind::Failed, "a CUDA frame's rows are shorter than its pixels");
    if (copy.width_bytes == 0 || copy.height == 0)
      continue;
    check_cuda (cuda.copy_2d_async (&copy, stream), "the CUDA copy of a frame");
  }
}

/* The CUDA memory of a buffer mapped for the device, with its planes' layout, and the context
 * that owns it current; undone on scope exit. */
class CudaMap
{
public:
  CudaMap (GstBuffer * buffer, const GstVideoInfo * info, bool write)
  {
    memory_ = sole_memory (buffer);
    if (!memory_ || !is_cuda_memory (memory_))
      throw Failure (Failure::Kind::Failed, "a buffer under CUDA-memory caps is not one CUDA "
          "memory");
    const GstMapFlags flags = (GstMapFlags) ((write ? GST_MAP_WRITE : GST_MAP_READ) |
        kGstMapCuda);
    GST_LOG ("mapping CUDA memory %p for %s", memory_, write ? "writing" : "reading");
    if (!gst_memory_map (memory_, &map_, flags))
      throw Failure (Failure::Kind::Failed, "cannot map the CUDA memory of a frame");
    mapped_ = true;
    pointer = (CUdeviceptr) (uintptr_t) map_.data;
    if (GstVideoMeta * meta = gst_buffer_get_video_meta (buffer)) {
      for (guint plane = 0; plane < meta->n_planes && plane < GST_VIDEO_MAX_PLANES; plane++) {
        offsets[plane] = meta->offset[plane];
        strides[plane] = meta->stride[plane];
      }
    } else {
      const GstVideoInfo & own = reinterpret_cast<CudaMemoryHead *> (memory_)->info;
      for (guint plane = 0; plane < GST_VIDEO_MAX_PLANES; plane++) {
        offsets[plane] = own.offset[plane];
        strides[plane] = own.stride[plane];
      }
    }
    if (GST_VIDEO_INFO_WIDTH (info) <= 0)
      throw Failure (Failure::Kind::Failed, "no frame layout for the CUDA memory");
    auto & cuda = CudaDriver::get ();
    CUcontext owner = nullptr;
    if (cuda.pointer_attribute (&owner, 1 /* CU_POINTER_ATTRIBUTE_CONTEXT */, pointer) == 0 &&
        owner && cuda.push (owner) == 0)
      pushed_ = true;
    else
      throw Failure (Failure::Kind::Failed, "the CUDA memory of a frame has no context");
    context = owner;
  }

  /* The stream GStreamer's CUDA memory is written and read on (1.24 and later; null for the
   * legacy default stream, and before 1.24). */
  CUstream memory_stream () const
  {
    auto & library = GstCudaLibrary::get ();
    if (!library.memory_get_stream)
      return nullptr;
    void *stream = library.memory_get_stream (memory_);
    return stream ? library.stream_get_handle (stream) : nullptr;
  }
  /* Whether the memory's writer left work on its stream that readers must wait for. */
  bool needs_sync () const
  {
    return GST_MEMORY_FLAG_IS_SET (memory_, kCudaMemoryNeedSync) && memory_stream ();
  }
  ~CudaMap ()
  {
    CUcontext popped = nullptr;
    if (pushed_)
      CudaDriver::get ().pop (&popped);
    if (mapped_)
      gst_memory_unmap (memory_, &map_);
  }
  CudaMap (const CudaMap &) = delete;
  CudaMap & operator= (const CudaMap &) = delete;

  CUdeviceptr pointer = 0;
  CUcontext context = nullptr;
  gsize offsets[GST_VIDEO_MAX_PLANES] {};
  gint strides[GST_VIDEO_MAX_PLANES] {};

private:
  GstMemory *memory_ = nullptr;
  GstMapInfo map_ {};
  bool mapped_ = false;
  bool pushed_ = false;
};

/* Memory CUDA allocated and exported, imported by OpenCL and mapped into CUDA's address space. */
struct SharedBuffer
{
  CudaAllocation allocation;
  int cuda_device = -1;
  CUdeviceptr address = 0;
  bool mapped = false;
  int cl_fd = -1;
  cl::Buffer buffer;
  cl::Event done;       /* the end of the last frame's kernels on it */
  /* Outputs copied out on the memory's stream: the end of CUDA's last copy out of it, which
   * the kernels that write it next wait for. */
  CUevent copied = nullptr;
  CUcontext copied_context = nullptr;
  bool copy_pending = false;

  /* `peers`: whether other GPUs that can reach it as a peer are let in (GST_OPENCL_CUDA_PEERS). */
  SharedBuffer (const Device & device, int cuda, size_t bytes, bool peers) : cuda_device (cuda)
  {
    std::string error;
    GST_DEBUG ("shared buffer of %zu bytes on CUDA device %d", bytes, cuda);
    if (!cuda_allocate_exportable (cuda, bytes, &allocation, &error))
      throw Failure (Failure::Kind::Failed, error);
    cl_fd = allocation.fd;
    allocation.fd = -1;
    auto & driver = CudaDriver::get ();
    PrimaryContext current (cuda);
    /* Its own GPU, and every GPU that reaches it as a peer (NVLink, PCIe): frames decoded on
     * another GPU are copied in by that GPU's context, a peer copy (docs/scaling.md). */
    std::vector<CudaAccessDesc> access { { 1, cuda, 3 } };
    int count = 0;
    if (peers && driver.can_access_peer && driver.device_get_count (&count) == 0) {
      for (int other = 0; other < count; other++) {
        int can = 0;
        if (other != cuda && driver.can_access_peer (&can, other, cuda) == 0 && can)
          access.push_back ({ 1, other, 3 });
      }
    }
    if (!current.current () ||
        driver.address_reserve (&address, allocation.bytes, 0, 0, 0) != 0) {
      address = 0;
      throw Failure (Failure::Kind::Failed, "CUDA cannot reserve an address range");
    }
    if (driver.map (address, allocation.bytes, 0, allocation.handle, 0) != 0)
      throw Failure (Failure::Kind::Failed, "CUDA cannot map its exported memory");
    mapped = true;
    if (driver.set_access (address, allocation.bytes, access.data (), access.size ()) != 0)
      throw Failure (Failure::Kind::Failed, "CUDA cannot make its exported memory accessible");
    GST_DEBUG ("mapped at 0x%llx; importing fd %d into OpenCL", address, cl_fd);
    buffer = import_external_memory (device, cl_fd, allocation.bytes);
    GST_DEBUG ("imported");
  }

  ~SharedBuffer ()
  {
    try {
      if (done ())
        done.wait ();
    } catch (...) {
    }
    buffer = cl::Buffer ();
    auto & driver = CudaDriver::get ();
    if (copied) {
      CudaContextScope scope (copied_context);
      if (copy_pending)
        driver.event_synchronize (copied);
      driver.event_destroy (copied);
    }
    if (mapped)
      driver.unmap (address, allocation.bytes);
    if (address)
      driver.address_free (address, allocation.bytes);
    if (cl_fd >= 0)
      close (cl_fd);
    cuda_release (allocation);
  }

  SharedBuffer (const SharedBuffer &) = delete;
  SharedBuffer & operator= (const SharedBuffer &) = delete;
};

}  // namespace

/* ---- what the rest of the layer uses ---------------------------------------------------- */

bool
caps_are_cuda (const GstCaps * caps)
{
  for (guint i = 0; caps && i < gst_caps_get_size (caps); i++) {
    GstCapsFeatures *features = gst_caps_get_features (caps, i);
    if (features && !gst_caps_features_is_any (features) &&
        gst_caps_features_contains (features, GST_OPENCL_CAPS_FEATURE_MEMORY_CUDA))
      return true;
  }
  return false;
}

bool
is_cuda_memory (GstMemory * memory)
{
  return memory && gst_memory_is_type (memory, kCudaMemoryType);
}

int
cuda_device_of (const Device & device, std::string * why)
{
  static std::mutex lock;
  static auto *answers = new std::map<cl_device_id, std::pair<int, std::string>> ();
  std::lock_guard<std::mutex> hold (lock);
  auto known = answers->find (device.cl_device ());
  if (known == answers->end ()) {
    std::string reason, found;
    int ordinal = -1;
    const std::string extensions = device.cl_device.getInfo<CL_DEVICE_EXTENSIONS> ();
    if (extensions.find ("cl_khr_external_memory_opaque_fd") == std::string::npos)
      reason = "the OpenCL device cannot import external memory "
          "(no cl_khr_external_memory_opaque_fd)";
    else if (!GstCudaLibrary::get ().usable)
      reason = "GStreamer's CUDA library (libgstcuda-1.0.so.0) cannot be loaded";
    else
      ordinal = cuda_device_for_uuid (cl_device_uuid (device.cl_device), &found, &reason);
    known = answers->emplace (device.cl_device (), std::make_pair (ordinal, reason)).first;
    if (ordinal < 0)
      GST_INFO ("no CUDA memory for %s: %s", device.name.c_str (), reason.c_str ());
  }
  if (why)
    *why = known->second.second;
  return known->second.first;
}

int
cuda_device_of (ElementDevice & device)
{
  return device.started () ? cuda_device_of (device.device (), nullptr) : -1;
}

int
upstream_cuda_device (GstPad * sink_pad)
{
  if (!sink_pad)
    return -1;
  GstQuery *query = gst_query_new_context ("gst.cuda.context");
  int ordinal = -1;
  GstContext *context = nullptr;
  if (gst_pad_peer_query (sink_pad, query)) {
    gst_query_parse_context (query, &context);
    guint id = 0;
    if (context && gst_structure_get_uint (gst_context_get_structure (context),
            "cuda-device-id", &id))
      ordinal = (int) id;
  }
  gst_query_unref (query);
  return ordinal;
}

std::string
cuda_twin_device_string (int cuda_device)
{
  auto & cuda = CudaDriver::get ();
  int handle = 0;
  unsigned char bytes[16];
  if (!cuda.error ().empty () || cuda.device_get (&handle, cuda_device) != 0 ||
      cuda.device_get_uuid (bytes, handle) != 0)
    return "";
  return device_string_of_uuid (hex_bytes (bytes, sizeof bytes));
}

bool
cuda_negotiable (ElementDevice & device)
{
  return !device.started () || cuda_device_of (device) >= 0;
}

GstCaps *
negotiable_caps (ElementDevice & device, GstCaps * caps)
{
  return cuda_negotiable (device) ? caps : without_cuda_memory (caps);
}

/* ---- CudaBridge -------------------------------------------------------------------------- */

void
CudaBridge::set_context (GstElement * element, GstContext * context)
{
  auto & library = GstCudaLibrary::get ();
  if (library.usable)
    library.handle_set_context (element, context, -1, &context_);
}

bool
CudaBridge::handle_context_query (GstElement * element, GstQuery * query)
{
  auto & library = GstCudaLibrary::get ();
  return library.usable && context_ &&
      library.handle_context_query (element, query, context_);
}

bool
CudaBridge::ensure_context (GstElement * element, int cuda_device)
{
  auto & library = GstCudaLibrary::get ();
  if (!library.usable)
    return false;
  if (context_) {
    guint id = 0;
    g_object_get (context_, "cuda-device-id", &id, nullptr);
    if ((int) id == cuda_device)
      return true;
    gst_clear_object (&context_);
  }
  return library.ensure_element_context (element, cuda_device, &context_) && context_;
}

bool
CudaBridge::decide_allocation (GstElement * element, GstQuery * query, int cuda_device)
{
  GstCaps *caps = nullptr;
  GstVideoInfo info;
  if (!allocation_video_info (element, query, &caps, &info))
    return false;
  guint size = info.size, min_buffers = 2, max_buffers = 0;
  GstBufferPool *pool = nullptr;
  if (gst_query_get_n_allocation_pools (query) > 0)
    gst_query_parse_nth_allocation_pool (query, 0, &pool, &size, &min_buffers, &max_buffers);
  if (pool) {
    /* Downstream's pool serves if its buffers are CUDA memory (a CUDA element's pool). */
    GstBuffer *probe = nullptr;
    bool cuda = false;
    if (gst_buffer_pool_set_active (pool, TRUE) &&
        gst_buffer_pool_acquire_buffer (pool, &probe, nullptr) == GST_FLOW_OK) {
      cuda = is_cuda_memory (sole_memory (probe));
      gst_buffer_unref (probe);
    }
    gst_buffer_pool_set_active (pool, FALSE);
    if (cuda) {
      gst_object_unref (pool);
      return true;
    }
    gst_clear_object (&pool);
  }
  GST_DEBUG_OBJECT (element, "a CUDA buffer pool for CUDA device %d", cuda_device);
  if (!ensure_context (element, cuda_device)) {
    GST_ELEMENT_ERROR (element, RESOURCE, FAILED, ("no CUDA context for CUDA-memory output"),
        ("CUDA device %d", cuda_device));
    return false;
  }
  GST_DEBUG_OBJECT (element, "CUDA context %" GST_PTR_FORMAT, context_);
  pool = GstCudaLibrary::get ().buffer_pool_new (context_);
  GstStructure *config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, caps, MAX (size, (guint) info.size),
      MAX (min_buffers, 2u), max_buffers);
  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  /* The CUDA pool changes the size to its pitched frames' and says so by refusing the first
   * configuration: the changed one is taken when it still holds the caps' frames. */
  bool configured = gst_buffer_pool_set_config (pool, config);
  if (!configured) {
    config = gst_buffer_pool_get_config (pool);
    if (gst_buffer_pool_config_validate_params (config, caps, info.size, MAX (min_buffers, 2u),
            max_buffers))
      configured = gst_buffer_pool_set_config (pool, config);  /* takes the config */
    else
      gst_structure_free (config);
  }
  if (!configured) {
    gst_object_unref (pool);
    GST_ELEMENT_ERROR (element, RESOURCE, SETTINGS, ("cannot configure a CUDA buffer pool"),
        ("caps %" GST_PTR_FORMAT, caps));
    return false;
  }
  put_allocation_pool (query, pool, info.size, MAX (min_buffers, 2u), max_buffers);
  gst_object_unref (pool);
  return true;
}

void
CudaBridge::reset ()
{
  gst_clear_object (&context_);
}

/* ---- CudaFrames -------------------------------------------------------------------------- */

/* A port's shared buffers, used in turn. */
class CudaSlots
{
public:
  static constexpr size_t kSlots = 3;

  GstVideoInfo info {};
  std::vector<std::unique_ptr<SharedBuffer>> slots;
  cl_context context = nullptr;
  size_t next = 0;
  SharedBuffer *current = nullptr;
  bool acquired = false;
  EnqueueExternalMemObjects acquire_call = nullptr;
  EnqueueExternalMemObjects release_call = nullptr;
  /* The port's stream and semaphore; semaphores are chosen when the buffers are made. */
  CudaOrdering order;
  bool semaphores = false;
  /* Whether a peer copy may bring frames of another GPU (GST_OPENCL_CUDA_PEERS, read with the
   * caps), and what was found of each GPU frames came from: whether a copy of its context
   * reaches the shared buffers. The last frame's GstCudaContext (held, so that its address
   * cannot come back as another context's) and its GPU, and the element's own CUDA device for
   * its OpenCL context, so that a frame costs no property read and no lookup. */
  bool peers = true;
  std::map<int, bool> reached;
  GstObject *last_context = nullptr;
  int last_device = -1;
  cl_context own_context = nullptr;
  int own_device = -1;

  ~CudaSlots ()
  {
    slots.clear ();  /* their last copies out may still use the held context's CUDA context */
    forget ();
  }

  /* Drops what was learnt of the frames' GPUs: new caps, a reset. */
  void forget ()
  {
    reached.clear ();
    gst_clear_object (&last_context);
    own_context = nullptr;
  }

  /* Whether the frames of `memory` (CUDA memory) can be copied on the device into (or out of)
   * the shared buffers of the element's GPU: the same GPU, or one with peer access to it. Where
   * not, the frame path maps the memory on the host instead: GStreamer's CUDA memory stages it
   * in pinned host memory, and the element copies it in or out as a frame in system memory. */
  bool reaches (ElementDevice & element, GstMemory * memory)
  {
    GstObject *owner = reinterpret_cast<CudaMemoryHead *> (memory)->context;
    if (owner != last_context) {
      guint id = 0;
      if (!owner || !g_object_class_find_property (G_OBJECT_GET_CLASS (owner),
              "cuda-device-id"))
        return true;  /* not told: the copy says whether it reaches */
      g_object_get (owner, "cuda-device-id", &id, nullptr);
      gst_object_replace (&last_context, owner);
      last_device = (int) id;
    }
    if (own_context != element.device ().context ()) {
      own_device = cuda_device_of (element.device (), nullptr);
      own_context = element.device ().context ();
      reached.clear ();  /* found for another GPU of the element's */
    }
    const int own = own_device;
    if (own < 0 || last_device == own)
      return true;
    auto known = reached.find (last_device);
    if (known != reached.end ())
      return known->second;
    auto & driver = CudaDriver::get ();
    int can = 0;
    const bool peer = peers && driver.can_access_peer &&
        driver.can_access_peer (&can, last_device, own) == 0 && can;
    if (peer)
      GST_INFO ("frames of CUDA device %d reach %s (CUDA device %d) by peer copies",
          last_device, element.device ().name.c_str (), own);
    else
      GST_INFO ("frames of CUDA device %d pass through host memory to %s (CUDA device %d): "
          "%s", last_device, element.device ().name.c_str (), own,
          peers ? "no peer access between the GPUs" : "GST_OPENCL_CUDA_PEERS=0");
    reached.emplace (last_device, peer);
    return peer;
  }

  /* The next buffer, made for the negotiated frames on first use; waits only for the kernels
   * of the frame that used it kSlots frames ago. */
  SharedBuffer & take (ElementDevice & element)
  {
    auto & device = element.device ();
    if (context != device.context () || slots.empty ()) {
      slots.clear ();
      std::string why;
      const int cuda = cuda_device_of (device, &why);
      if (cuda < 0)
        throw Failure (Failure::Kind::Failed, "no CUDA memory on " + device.name + ": " + why);
      order.reset ();
      for (size_t i = 0; i < kSlots; i++)
        slots.push_back (std::make_unique<SharedBuffer> (device, cuda, MAX (info.size,
                    (gsize) 1), peers));
      semaphores = cuda_semaphores_chosen (device, cuda, &why);
      context = device.context ();
      acquire_call = external_memory_call (device.cl_device,
          "clEnqueueAcquireExternalMemObjectsKHR");
      release_call = external_memory_call (device.cl_device,
          "clEnqueueReleaseExternalMemObjectsKHR");
      next = 0;
      GST_INFO ("CUDA frames: %zu shared buffers of %" G_GSIZE_FORMAT " bytes on %s, "
          "ordered by %s", kSlots, info.size, device.name.c_str (),
          semaphores ? "semaphores" : ("the host: " + why).c_str ());
    }
    SharedBuffer & slot = *slots[next];
    next = (next + 1) % slots.size ();
    if (slot.done ()) {
      element.wait (slot.done);
      slot.done = cl::Event ();
    }
    if (slot.copy_pending) {
      CudaContextScope scope (slot.copied_context);
      check_cuda (CudaDriver::get ().event_synchronize (slot.copied),
          "waiting for a CUDA copy out");
      slot.copy_pending = false;
    }
    return slot;
  }

  void acquire (ElementDevice & element, SharedBuffer & slot, GstOpenCLFrame * frame)
  {
    if (acquire_call) {
      cl_mem memory = slot.buffer ();
      const cl_int status = acquire_call (element.queue () (), 1, &memory, 0, nullptr,
          nullptr);
      if (status != CL_SUCCESS)
        throw cl::Error (status, "clEnqueueAcquireExternalMemObjectsKHR");
    }
    current = &slot;
    acquired = true;
    frame->buffer = slot.buffer;
    frame->info = info;
  }

  void release (ElementDevice & element)
  {
    if (!acquired || !current)
      return;
    acquired = false;
    auto & queue = element.queue ();
    if (release_call) {
      cl_mem memory = current->buffer ();
      cl_event event = nullptr;
      const cl_int status = release_call (queue (), 1, &memory, 0, nullptr, &event);
      if (status != CL_SUCCESS)
        throw cl::Error (status, "clEnqueueReleaseExternalMemObjectsKHR");
      current->done = cl::Event (event);
    } else {
      cl::Event marker;
      queue.enqueueMarkerWithWaitList (nullptr, &marker);
      current->done = marker;
    }
  }
};

CudaFrames::CudaFrames () : slots_ (std::make_unique<CudaSlots> ())
{
}

CudaFrames::~CudaFrames () = default;

void
CudaFrames::configure (const GstVideoInfo * info)
{
  if (!slots_->info.finfo || !gst_video_info_is_equal (info, &slots_->info))
    slots_->slots.clear ();
  slots_->info = *info;
  slots_->current = nullptr;
  slots_->acquired = false;
  const bool peers = env::flag (env::Variable::CudaPeers);
  if (peers != slots_->peers)
    slots_->slots.clear ();  /* made with the other rule of access */
  slots_->peers = peers;
  slots_->forget ();
}

void
CudaFrames::reset ()
{
  slots_->order.reset ();
  slots_->slots.clear ();
  slots_->current = nullptr;
  slots_->acquired = false;
  slots_->context = nullptr;
  slots_->forget ();
}

bool
CudaFrames::to_device (ElementDevice & device, GstBuffer * buffer, GstOpenCLFrame * frame)
{
  GstMemory *memory = sole_memory (buffer);
  if (!is_cuda_memory (memory) || !slots_->reaches (device, memory))
    return false;
  SharedBuffer & slot = slots_->take (device);
  {
    CudaMap source (buffer, &slots_->info, false);
    auto & order = slots_->order;
    order.prepare (source.context, slots_->semaphores);
    if (source.needs_sync ())
      order.follow (source.memory_stream ());
    order.before_copy_in (device);
    copy_planes (&slots_->info, source.pointer, source.offsets, source.strides, slot.address,
        slots_->info.offset, slots_->info.stride, order.stream ());
    order.copied_in (device, buffer);
  }
  slots_->acquire (device, slot, frame);
  return true;
}

bool
CudaFrames::device_frame (ElementDevice & device, GstBuffer * buffer, GstOpenCLFrame * frame)
{
  GstMemory *memory = sole_memory (buffer);
  if (!is_cuda_memory (memory) || !slots_->reaches (device, memory))
    return false;
  slots_->acquire (device, slots_->take (device), frame);
  return true;
}

bool
CudaFrames::from_device (ElementDevice & device, GstBuffer * buffer)
{
  SharedBuffer *slot = slots_->current;
  if (!slot)
    throw Failure (Failure::Kind::Failed, "no device frame to copy into CUDA memory");
  slots_->release (device);
  CudaMap target (buffer, &slots_->info, true);
  auto & order = slots_->order;
  order.prepare (target.context, slots_->semaphores);
  /* On the memory's own stream where it has one: its readers wait for that stream (GStreamer
   * marks the memory so when it is mapped for writing). Else on the port's, waited for here. */
  CUstream memory_stream = target.memory_stream ();
  CUstream stream = memory_stream ? memory_stream : order.stream ();
  order.before_copy_out (device, slot->done, stream);
  /* Without semaphores (or once given up) the host waited for the kernels just now. */
  const bool waited = !order.semaphores ();
  copy_planes (&slots_->info, slot->address, slots_->info.offset, slots_->info.stride,
      target.pointer, target.offsets, target.strides, stream);
  order.after_copy_out (stream);
  auto & cuda = CudaDriver::get ();
  if (!memory_stream || !cuda.orders ()) {
    /* The copy came after the kernels: they are done too. */
    check_cuda (cuda.stream_synchronize (stream), "the CUDA copy of a frame");
    return true;
  }
  if (!slot->copied)
    check_cuda (cuda.event_create (&slot->copied, kCudaEventDisableTiming), "cuEventCreate");
  slot->copied_context = target.context;
  check_cuda (cuda.event_record (slot->copied, stream), "cuEventRecord");
  slot->copy_pending = true;
  return waited;
}

void
CudaFrames::end_frame (ElementDevice & device)
{
  slots_->release (device);
}

}  // namespace gst_opencl
