/* gst-opencl: frames in CUDA memory (memory:CUDAMemory, as nvh264dec, cudaupload and
 * cudaconvert produce them) on the OpenCL device, copied on the device only.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Nothing of CUDA is needed to build: the CUDA driver (libcuda.so.1) and GStreamer's CUDA
 * library (libgstcuda-1.0.so.0, for its context and buffer pool) are loaded when first needed,
 * and CUDA memory is recognised by its GstMemory type name and mapped with GStreamer's CUDA map
 * flag, whose value is part of that library's ABI.
 *
 * The path: the CUDA driver allocates device memory that it exports as a file descriptor;
 * OpenCL imports it (cl_khr_external_memory_opaque_fd) and CUDA maps it into its address space.
 * A frame in CUDA memory is copied by the CUDA driver into such memory (one 2D copy per plane,
 * device to device) and the kernels read it there; a result is copied the other way once the
 * kernels are done. Each port keeps a few such buffers in turn, so the copy of a frame never
 * waits for the kernels of the frame before it. */
#pragma once

#include <gst/video/video.h>

#include <memory>
#include <string>

#include "opencl/gstopenclcudadriver.h"
#include "opencl/gstopenclelementdevice.h"
#include "opencl/gstopenclforeign.h"
#include "opencl/gstopenclframe.h"
#include "opencl/gstopenclmemory.h"


namespace gst_opencl {

/* Whether any structure of `caps` is in CUDA memory. */
bool caps_are_cuda (const GstCaps * caps);

/* Whether the memory is GStreamer's CUDA memory. */
bool is_cuda_memory (GstMemory * memory);

/* The ordinal of the CUDA device that is `device` (same UUID), or -1 with `why` said: no CUDA
 * driver, no such device, no exportable memory, no OpenCL import of it, or no GStreamer CUDA
 * library. Answered once per device and remembered. */
int cuda_device_of (const Device & device, std::string * why);

/* The CUDA device that is the element's OpenCL device (frames in CUDA memory reach it), or -1
 * (not started, or no such device: cuda_device_of () says why). */
int cuda_device_of (ElementDevice & device);

/* The CUDA device of the frames upstream of `sink_pad` sends: the cuda-device-id of the
 * gst.cuda.context its peer answers a context query with (a decoder's, cudaupload's); -1 when
 * nobody answers. */
int upstream_cuda_device (GstPad * sink_pad);

/* A device string ("<platform>:<index>") that names the OpenCL device which is CUDA device
 * `cuda_device` (the same UUID); "" when no OpenCL device is. */
std::string cuda_twin_device_string (int cuda_device);

/* For an element's caps (transform_caps, a source's get_caps): whether CUDA-memory caps may be
 * offered. Before the element starts (links made in NULL state) they may, as the pad templates
 * say; once started, only where the element's device is a CUDA device. */
bool cuda_negotiable (ElementDevice & device);

/* `caps` (taken) without CUDA-memory structures where cuda_negotiable () says no. */
GstCaps *negotiable_caps (ElementDevice & device, GstCaps * caps);

/* An element's CUDA side: GStreamer's CUDA context (shared with the pipeline's CUDA elements
 * through the gst.cuda.context GstContext) and pools of CUDA memory for output. */
class CudaBridge
{
public:
  CudaBridge () = default;
  CudaBridge (const CudaBridge &) = delete;
  CudaBridge & operator= (const CudaBridge &) = delete;
  ~CudaBridge () { reset (); }

  void set_context (GstElement * element, GstContext * context);
  bool handle_context_query (GstElement * element, GstQuery * query);
  /* Makes sure a CUDA context of `cuda_device` exists (the pipeline's, else a new one). */
  bool ensure_context (GstElement * element, int cuda_device);
  /* Puts a pool of CUDA memory for the query's caps into an allocation query that has no pool
   * (or one whose buffers are not CUDA memory). False with an element error posted. */
  bool decide_allocation (GstElement * element, GstQuery * query, int cuda_device);
  void reset ();

private:
  GstObject *context_ = nullptr;   /* a GstCudaContext */
};

class CudaSlots;

/* One port's frames in CUDA memory, as the frame path's ForeignFrames: each frame copied on
 * the device into (or out of) memory CUDA exports and OpenCL imports. */
class CudaFrames : public ForeignFrames
{
public:
  CudaFrames ();
  ~CudaFrames () override;
  CudaFrames (const CudaFrames &) = delete;
  CudaFrames & operator= (const CudaFrames &) = delete;

  /* The negotiated frames; drops the buffers of another layout. */
  void configure (const GstVideoInfo * info) override;
  void reset () override;
  void drop_device_buffers () override { reset (); }

  /* Copies the frame of `buffer` (CUDA memory) into a shared buffer, which `frame` describes;
   * false when the buffer is not CUDA memory, or is a GPU's whose copies do not reach the
   * element's (no peer access, or GST_OPENCL_CUDA_PEERS=0): the frame path maps it on the host
   * then, through GStreamer's pinned staging memory. */
  bool to_device (ElementDevice & device, GstBuffer * buffer, GstOpenCLFrame * frame) override;
  /* A shared buffer for the kernels to write the frame of `buffer` into; false as for
   * to_device. */
  bool device_frame (ElementDevice & device, GstBuffer * buffer,
      GstOpenCLFrame * frame) override;
  /* The kernels of this frame are enqueued and wrote the shared buffer: waits for them and
   * copies it into `buffer`'s CUDA memory. */
  bool from_device (ElementDevice & device, GstBuffer * buffer) override;
  /* The kernels of this frame only read the shared buffer: it is free again once they end. */
  void end_frame (ElementDevice & device) override;

private:
  std::unique_ptr<CudaSlots> slots_;
};

}  // namespace gst_opencl
