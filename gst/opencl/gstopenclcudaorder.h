/* gst-opencl: the order of a port's CUDA copies and its kernels (the CUDA frames,
 * gstopenclcuda.h).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The copies run on a CUDA stream of the port's own, never on the legacy default stream: that
 * one waits for every other stream of the context, so the copies of one pipeline would wait for
 * the decoders and copies of every other pipeline on the GPU, and they for it.
 *
 * With semaphores (OpenCL's cl_khr_external_semaphore_opaque_fd and CUDA's external semaphores;
 * made by OpenCL where it exports them, else by Vulkan, gstopenclvulkan.h), each direction of a
 * port has two binary semaphores. An input's copy signals one on the stream and the kernels'
 * queue waits for it; before the next copy the queue signals the other and the stream waits for
 * it. An output's kernels signal one and the stream waits for it before copying out; after the
 * copy the stream signals the other, which the queue waits for before the next hand-over. So
 * each semaphore is signalled and waited for in turn, and the host waits for neither side. Without them (or GST_OPENCL_CUDA_ORDER=host) the host
 * waits: for an input's copy before the kernels are enqueued, for the kernels before an output's
 * copy. */
#pragma once

#include <gst/gst.h>

#include <deque>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "opencl/gstopenclcudadriver.h"
#include "opencl/gstopenclelementdevice.h"

namespace gst_opencl {

/* Whether the CUDA frames of `device` are ordered by semaphores: GST_OPENCL_CUDA_ORDER (read
 * each time) does not say host, and both drivers have them; a semaphore is made, exported and
 * imported once per device to be sure. `why` says why not. */
bool cuda_semaphores_chosen (const Device & device, int cuda_device, std::string * why);

class SharedSemaphore;

class CudaOrdering
{
public:
  CudaOrdering ();
  ~CudaOrdering ();
  CudaOrdering (const CudaOrdering &) = delete;
  CudaOrdering & operator= (const CudaOrdering &) = delete;

  /* Ready in `context`, which is current: a stream of its own, and semaphores when
   * `semaphores` (made for each direction on its first frame). What was made in another
   * context goes first. */
  void prepare (CUcontext context, bool semaphores);
  bool semaphores () const { return semaphores_; }
  CUstream stream () const { return stream_; }

  /* Input, before the copy: the stream waits (on the device) for the work the memory's writer
   * left on `writer_stream`. */
  void follow (CUstream writer_stream);
  /* Input, before the copy: with semaphores, the stream waits for the kernels enqueued so far
   * (the last frame's), which hand it back. */
  void before_copy_in (ElementDevice & element);
  /* Input: the copy of `buffer` is enqueued on the stream; the element's kernels must not run
   * before it ends. `buffer` is held until the copy is done. */
  void copied_in (ElementDevice & element, GstBuffer * buffer);
  /* Output: the kernels that write the shared buffer, whose end is `done` (null: everything
   * enqueued so far), are enqueued; `stream` must not copy it out before they end. */
  void before_copy_out (ElementDevice & element, const cl::Event & done, CUstream stream);
  /* Output: the copy out is enqueued on `stream`; with semaphores, it hands the queue back. */
  void after_copy_out (CUstream stream);

  /* Waits for what is enqueued and lets everything go. */
  void reset ();

private:
  CUevent spare_event ();
  /* Lets the held buffers whose copies ended go; waits for the oldest beyond `keep`. */
  void release_held (size_t keep);
  /* The semaphore failed: the host orders from now on. */
  void give_up_semaphores (const std::string & why);

  CUcontext context_ = nullptr;
  CUstream stream_ = nullptr;
  CUevent writer_event_ = nullptr;
  /* With semaphores, each direction's hand-overs: `ahead` from the side that wrote the shared
   * buffer to the side that reads it, `back` the other way once it has, so that every binary
   * semaphore is signalled and waited for in turn (a second signal before its wait, which a
   * side running ahead would give, is lost, and its wait never ends: four pipelines on one
   * queue hung so on the H200). `primed`: a hand-over went ahead, so the next waits for the one
   * back. */
  struct Channel
  {
    std::unique_ptr<SharedSemaphore> ahead, back;
    bool primed = false;
  };
  Channel in_, out_;
  bool semaphores_ = false;
  /* Whether `channel` has its semaphores (made on its first use: a port uses one direction,
   * both only in place); false when the port orders on the host. */
  bool has_channel (Channel & channel, const Device & device);
  void drop_channels ();
  bool gave_up_ = false;
  std::deque<std::pair<CUevent, GstBuffer *>> held_;
  std::vector<CUevent> spare_;
};

/* `context` current for the scope (nothing when null). */
class CudaContextScope
{
public:
  explicit CudaContextScope (CUcontext context);
  ~CudaContextScope ();
  CudaContextScope (const CudaContextScope &) = delete;
  CudaContextScope & operator= (const CudaContextScope &) = delete;

private:
  bool pushed_ = false;
};

}  // namespace gst_opencl
