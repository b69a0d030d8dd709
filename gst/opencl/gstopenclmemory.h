/* gst-opencl: video frames held in OpenCL device memory, as a GstMemory type.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A GstOpenCLMemory holds one device buffer with every plane of a frame, laid out as its
 * GstVideoInfo says (offsets and strides). Elements of the plugin hand it to each other under the
 * caps feature memory:OpenCLMemory, so frames stay on the device between them.
 *
 * The host sees the frame on demand. Where the device shares the host's memory (CPU devices,
 * integrated GPUs: CL_DEVICE_HOST_UNIFIED_MEMORY) a host map is the device buffer mapped: no copy
 * at all. Elsewhere the host copy is pinned memory (mapped once): mapping for reading downloads
 * the frame into it (only when the device copy changed since the last download), mapping for
 * writing marks the host copy as the newer one (a map for writing only does not download first:
 * the writer replaces the frame) and it is uploaded, by DMA, at the next device access. Mapping with GST_MAP_OPENCL gives the device buffer
 * itself (a cl::Buffer *), after any pending upload; mapping it for writing marks the device copy
 * as the newer one. The in-order queue orders all of it, so no wait is needed but the download. */
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

#include "opencl/gstopenclcontext.h"

G_BEGIN_DECLS

#define GST_CAPS_FEATURE_MEMORY_OPENCL "memory:OpenCLMemory"
#define GST_OPENCL_MEMORY_TYPE_NAME "OpenCLMemory"
/* GStreamer's CUDA memory (gst-plugins-bad's cuda library), named here so that the caps rules
 * of frames in any memory need no CUDA header. */
#define GST_OPENCL_CAPS_FEATURE_MEMORY_CUDA "memory:CUDAMemory"

/* Map flag: the mapped pointer is the memory's cl::Buffer, not host bytes. */
#define GST_MAP_OPENCL ((GstMapFlags) (GST_MAP_FLAG_LAST << 1))

#define GST_TYPE_OPENCL_ALLOCATOR (gst_opencl_allocator_get_type ())
G_DECLARE_FINAL_TYPE (GstOpenCLAllocator, gst_opencl_allocator, GST, OPENCL_ALLOCATOR,
    GstAllocator)

#define GST_TYPE_OPENCL_BUFFER_POOL (gst_opencl_buffer_pool_get_type ())
G_DECLARE_FINAL_TYPE (GstOpenCLBufferPool, gst_opencl_buffer_pool, GST, OPENCL_BUFFER_POOL,
    GstBufferPool)

/* Registers the memory type; called once from plugin_init (and by tests). */
void gst_opencl_memory_init_once (void);

gboolean gst_is_opencl_memory (GstMemory * memory);

/* A pool of buffers of one GstOpenCLMemory each, with a GstVideoMeta, for `context`. Configure
 * it with gst_buffer_pool_config_set_params (caps with a video format); it sizes the memory
 * from the caps. */
GstBufferPool *gst_opencl_buffer_pool_new (GstOpenCLContext * context);

/* A pool option: its frames are made for the host to write or read (offered upstream). On a
 * device without unified memory each gets its pinned host copy when it is allocated, not at
 * its first map, so a producer's map calls nothing in the driver that a running kernel could
 * hold up (docs/reliability.md#kernels-that-never-end). */
#define GST_OPENCL_BUFFER_POOL_OPTION_HOST_VIEW "GstOpenCLBufferPoolOptionHostView"

G_END_DECLS

namespace gst_opencl {

/* Whether caps carry memory:OpenCLMemory. */
bool caps_are_opencl_memory (const GstCaps * caps);

/* A frame of GstOpenCLMemory seen from the device side: the buffer and its layout. */
struct DeviceFrameView
{
  cl::Buffer buffer;
  GstVideoInfo info;  /* offsets and strides of the planes in `buffer` */
};

/* Allocates one device frame laid out as `info` (its offsets, strides and size), with its host
 * copy made now when `host_view` (see GST_OPENCL_BUFFER_POOL_OPTION_HOST_VIEW). Throws. */
GstMemory *opencl_memory_alloc (GstOpenCLContext * context, const GstVideoInfo * info,
    bool host_view = false);

/* The context a GstOpenCLMemory belongs to (not a new reference). */
GstOpenCLContext *opencl_memory_context (GstMemory * memory);

/* The layout a GstOpenCLMemory was made with. */
const GstVideoInfo *opencl_memory_info (GstMemory * memory);

/* Device access without GstMapInfo bookkeeping, for elements on the frame path: makes the device
 * copy current (enqueues the upload of a newer host copy) and returns the buffer. With
 * `will_write`, the host copy becomes stale. Throws cl::Error. */
cl::Buffer opencl_memory_device_buffer (GstMemory * memory, bool will_write);

/* After the kernels that wrote the memory (through opencl_memory_device_buffer () or a device
 * view) are enqueued: the device copy is the newest; a host map downloads it (after them). */
void opencl_memory_written (GstMemory * memory);

/* After the kernels that read the memory are enqueued: a later copy into it (an upload of new
 * host pixels) waits only for them. Without it, such a copy waits for everything enqueued. */
void opencl_memory_used (GstMemory * memory);

/* The caps rule of elements whose frames keep format and size: each structure in system,
 * OpenCL or CUDA memory may come out in any of them (OpenCL memory first; CUDA memory only with
 * `cuda`: the device reaches it), GL memory stays GL memory. The result is intersected with
 * `filter` when given. For GstBaseTransform::transform_caps. */
GstCaps *transform_caps_any_memory (GstCaps * caps, GstCaps * filter, bool cuda = false);

/* The caps without their CUDA-memory structures (takes `caps`). */
GstCaps *without_cuda_memory (GstCaps * caps);

/* The caps with every structure's memory feature replaced by `feature` (a new caps). */
GstCaps *with_memory_feature (const GstCaps * caps, const char *feature);

/* Video caps of `formats` (a caps list such as "RGBA, BGRA") of any size and rate, plus
 * `extra_fields` when given, in system memory. */
GstCaps *video_caps (const gchar * formats, const gchar * extra_fields);

/* The same in OpenCL memory, then system memory, then (RGBA only) GL memory when the plugin is
 * built with GL and `gl_rgba` is true. */
GstCaps *video_caps_any_memory (const gchar * formats, const gchar * extra_fields, bool gl_rgba);

/* Sink and src pad templates of an element whose frames keep format and size: `formats` (a
 * caps list such as "RGBA, BGRA") in system and OpenCL memory, and RGBA in GL memory when the
 * plugin is built with GL and `gl_rgba` is true. */
void add_video_pad_templates (GstElementClass * element_class, const gchar * formats,
    bool gl_rgba);

/* Of the caps an element may output, only those in OpenCL memory when there are some (the next
 * element then reads the frame where it is). Takes `othercaps` and returns the caps to fixate.
 * For GstBaseTransform::fixate_caps when direction is GST_PAD_SINK. */
GstCaps *prefer_opencl_memory (GstCaps * othercaps);

/* The layout of `bytes` plain bytes (a tensor) in one GstOpenCLMemory: a single row of `bytes`
 * one-byte samples, no padding. Pools and memories of such a layout carry no GstVideoMeta. */
GstVideoInfo bytes_layout (gsize bytes);

/* The layout of fixed caps: video caps as GStreamer lays their frames out, other/tensors as
 * their bytes (`*bytes` set); false for anything else. */
bool caps_layout (const GstCaps * caps, GstVideoInfo * info, bool *bytes);

/* The video caps of an allocation query (an element error when it has none). */
bool allocation_video_info (GstElement * element, GstQuery * query, GstCaps ** caps,
    GstVideoInfo * info);

/* Puts `pool` first in an allocation query: replaces its first pool, or adds it. */
void put_allocation_pool (GstQuery * query, GstBufferPool * pool, guint size, guint min_buffers,
    guint max_buffers);

/* For decide_allocation with caps in OpenCL memory (video, or other/tensors as plain bytes):
 * puts a configured pool of `context` in the query, in place of any pool that is not one of
 * ours. Returns false after posting an element error. */
bool decide_opencl_pool (GstElement * element, GstQuery * query, GstOpenCLContext * context);

/* Whether system-memory frames may be the plugin's OpenCL memory (pools offered upstream and
 * taken for output): true unless GST_OPENCL_HOST_FRAMES=0, which keeps every system-memory
 * frame a plain one, copied to and from the device by the element (for comparisons). */
bool host_frames_enabled ();

/* For decide_allocation of an element that writes video frames of `caps` (not GL memory): caps
 * in OpenCL memory get a pool of `context`; with `host_frames`, so do caps in system memory when
 * downstream offers no pool or one of GStreamer's plain ones (frames are then OpenCL memory the
 * host sees on demand, and stay on the device between the plugin's elements). Returns true when
 * the query now holds such a pool; false when the caller decides (*failed: an error was posted). */
bool decide_frame_pool (GstElement * element, GstQuery * query, GstOpenCLContext * context,
    bool host_frames, bool *failed);

/* The buffer's only memory, or nullptr when it has several (or none). */
inline GstMemory *
sole_memory (GstBuffer * buffer)
{
  return gst_buffer_n_memory (buffer) == 1 ? gst_buffer_peek_memory (buffer, 0) : nullptr;
}

/* The device view of a buffer that holds one GstOpenCLMemory of `context` (its layout from the
 * buffer's GstVideoMeta when it has one), or false when it does not (system memory, several
 * memories, another context). */
bool buffer_device_frame (GstBuffer * buffer, GstOpenCLContext * context, bool will_write,
    DeviceFrameView * view);

}  // namespace gst_opencl
