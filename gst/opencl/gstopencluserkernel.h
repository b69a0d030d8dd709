/* gst-opencl: a user's own OpenCL kernel, run on every frame by openclkernel and
 * openclkernelsrc: its properties, its build (in the background while playing), the binding of
 * its arguments by name, the frames as images or buffers, and its controllable parameters.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The kernel's contract is in docs/openclkernel.md. In short: read_only / write_only image2d_t
 * arguments are the input and output frames (normalised 8- or 16-bit, RGBA channel order
 * whatever the frame's byte order); `__global` arguments named src and dst are the frames'
 * bytes, with src_stride and dst_stride; on NV12, I420 and P010_10LE frames each plane is an
 * image or buffer argument of its own (src_y, src_uv or src_u and src_v, dst_...), with
 * <plane>_stride, _width and _height; width, height, time and frame are filled by the element;
 * every other argument comes, by name, from the `parameters` structure.
 *
 * Checked mode (`checked`, or GST_OPENCL_CHECKED=1), for developing kernels: src and dst are
 * not the frames but sub-buffers of buffers of the element's own, made once, with guard zones
 * before and after them; the guards are filled with a known byte before the kernel and read
 * back after it (the host waits), and any changed byte is an element error naming the kernel,
 * the side and the first offset. dst is copied into the frame only when nothing changed. */
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "opencl/gstopenclcontext.h"
#include "opencl/gstopenclelementdevice.h"
#include "opencl/gstopenclframe.h"
#include "opencl/gstopenclkernelargs.h"
#include "opencl/gstopenclproperties.h"

G_BEGIN_DECLS

/* One numeric parameter of a user kernel, as a child object of the element (GstChildProxy):
 * `value` is controllable, so a GstController binding or gst-launch's `name::value=` sets it. */
#define GST_TYPE_OPENCL_KERNEL_PARAM (gst_opencl_kernel_param_get_type ())
G_DECLARE_FINAL_TYPE (GstOpenCLKernelParam, gst_opencl_kernel_param, GST, OPENCL_KERNEL_PARAM,
    GstObject)

G_END_DECLS

namespace gst_opencl {

/* A built kernel and what its arguments are. Built once per source, never per frame. */
struct UserKernel
{
  cl::Program program;
  cl::Kernel kernel;
  std::string kernel_name;
  std::string origin;  /* the file, or "the source property" */
  std::vector<KernelArgument> arguments;

  bool has (ArgRole role) const;
  bool uses_images () const
  {
    return has (ArgRole::InputImage) || has (ArgRole::OutputImage) || has (ArgRole::PlaneImage);
  }
};

/* A global or local size: absent (the default), a pair, or a scale of the frame's size. */
struct SizeSpec
{
  bool set = false;
  bool scaled = false;
  size_t width = 0, height = 0;
  double scale_x = 1.0, scale_y = 1.0;
  std::string text;
};

class UserKernelHost
{
public:
  explicit UserKernelHost (bool for_source);
  UserKernelHost (const UserKernelHost &) = delete;
  UserKernelHost & operator= (const UserKernelHost &) = delete;
  ~UserKernelHost ();

  /* Adds the host's properties to an element class's table; `of` finds an instance's host;
   * `for_source`: openclkernelsrc's wording (no input frame). */
  static void install_properties (PropertyTable & table, UserKernelHost & (*of) (GObject *),
      bool for_source);

  /* Builds the kernel now unless the one built last is still current (from start, so a broken
   * program fails the state change and caps know whether it samples). Throws. */
  void ensure_built (ElementDevice & device);

  /* Negotiation: builds the kernel when it is new (synchronously), binds its arguments to the
   * frames and the parameters, makes the images it needs. `in` is null for a source. Throws
   * Failure / BuildFailure naming what is wrong. */
  void prepare (GstElement * element, ElementDevice & device, const GstVideoInfo * in,
      const GstVideoInfo * out);

  /* Whether the kernel built last takes width and height (then it may resample); true before
   * any is built, so that pads link in NULL. */
  bool takes_size ();

  /* Whether the kernel built last takes frames of `format` on both sides (its frame arguments
   * fit the format's planes); true before any is built. */
  bool takes_format (GstVideoFormat format);

  /* Per frame: takes up a kernel built in the background and changed parameters (a WARNING and
   * the old ones when they do not fit), syncs the parameters' controllers at `stream_time`, sets
   * the arguments and launches through `device`. No allocation, build or wait after warm-up;
   * in checked mode, one wait for the guards, and a Failure naming what the kernel wrote
   * outside its frames (the output frame is then left as it was). Throws cl::Error. */
  void run (GstElement * element, ElementDevice & device, const GstOpenCLFrame * in,
      const GstOpenCLFrame & out, GstClockTime stream_time, guint64 frame_number);

  /* Stop: waits for a background build, drops the kernel, the images and their views. */
  void stop ();

  /* GstChildProxy: the parameters' child objects. An element calls attach () on its instance
   * and lists child_proxy_init in G_IMPLEMENT_INTERFACE (GST_TYPE_CHILD_PROXY, ...). */
  void attach (GObject * element);
  static void child_proxy_init (gpointer iface, gpointer data);
  GObject *child_by_name (const gchar * name);
  GObject *child_by_index (guint index);
  guint children_count ();

private:
  /* Its properties, in the order they are installed. */
  enum PropertyOffset : guint
  {
    LOCATION = 0, SOURCE, KERNEL, PARAMETERS, BUILD_OPTIONS, GLOBAL_SIZE, LOCAL_SIZE, TIMEOUT,
    CHECKED
  };

  /* A property row's set and get. */
  void write (GstElement * element, PropertyOffset offset, const GValue * value);
  void read (PropertyOffset offset, GValue * value);

  /* What the program is built from: copied whole, under the lock, for a build. */
  struct ProgramSettings
  {
    std::string location;
    std::string source;
    bool source_wins = false;  /* the later of location and source */
    std::string kernel;
    std::string build_options;
  };
  struct Settings
  {
    ProgramSettings program;
    GstStructure *parameters = nullptr;
    SizeSpec global, local;
    bool checked = false;
  };
  struct Frames;  /* images and their views (gstopencluserkernel.cpp) */
  struct Checked; /* checked mode's guarded copies of src and dst (gstopencluserkernel.cpp) */

  /* The string member a property offset stands for (location, source, kernel, build-options);
   * null for the others. */
  static std::string ProgramSettings::*program_text (guint offset);

  std::shared_ptr<UserKernel> build (ElementDevice & device, const ProgramSettings & settings);
  void start_background_build (GstElement * element);
  void background_build (GstElement * element);
  void update_children (GstElement * element, const GstStructure * parameters);
  void take_updates (GstElement * element);
  void set_frame_arguments (ElementDevice & device, const GstOpenCLFrame * in,
      const GstOpenCLFrame & out, GstClockTime stream_time, guint64 frame_number);
  /* Checked mode, per frame: the guarded copies for the frames' layouts (made only when a
   * layout is new: at negotiation, or when checked mode is turned on while playing), their
   * guards filled and the frames' bytes copied in; after the kernel, the guards read back and
   * checked (the one wait), and dst copied into the output frame. Throws Failure naming what
   * the kernel wrote outside its frames. */
  void guard_frames (Device & device, const GstOpenCLFrame * in, const GstOpenCLFrame & out);
  void check_and_copy_out (Device & device, const GstOpenCLFrame * in,
      const GstOpenCLFrame & out);

  std::mutex lock_;  /* settings_, generations, pending_, children_ */
  Settings settings_;
  bool for_source_ = false;
  guint64 program_generation_ = 0;     /* changes of what the program is built from */
  guint64 parameters_generation_ = 0;  /* changes of `parameters` */
  guint64 global_generation_ = 0;      /* changes of global-size / local-size */
  std::vector<GstOpenCLKernelParam *> children_;  /* parented to the element */

  /* The background build: one thread at a time, for the latest generation. */
  std::mutex builder_lock_;  /* builder_ itself, taken before lock_ */
  std::thread builder_;
  bool building_ = false;
  std::shared_ptr<UserKernel> pending_;
  guint64 pending_generation_ = 0;
  ElementDevice *device_ = nullptr;  /* from prepare () to stop () */

  /* What the streaming thread runs with (touched only there, and in prepare/stop). */
  std::shared_ptr<UserKernel> current_;
  guint64 current_generation_ = 0;
  guint64 applied_parameters_ = 0;
  guint64 applied_sizes_ = 0;
  std::vector<ParameterValue> values_;
  cl::NDRange global_ = cl::NullRange, local_ = cl::NullRange;
  GstVideoInfo out_info_ {};
  bool have_in_ = false;
  GstVideoInfo in_info_ {};
  std::unique_ptr<Frames> frames_;
  /* `timeout`, in milliseconds (0: none): how long the host waits for a frame's kernel. */
  std::atomic<guint> timeout_ms_ { 0 };
  const UserKernel *named_in_waits_ = nullptr;  /* the kernel the waits' messages name */
  bool checked_ = false;        /* checked mode for the frame being run */
  bool checked_by_env_ = false; /* GST_OPENCL_CHECKED=1, read at negotiation */
  std::unique_ptr<Checked> guarded_;
};

/* The private struct (`impl`) of openclkernel and openclkernelsrc, or the base of one: the host,
 * stopped when the element stops (drop_run, for stop_drops_run). */
struct UserKernelImpl
{
  explicit UserKernelImpl (bool for_source) : host (for_source) {}
  virtual ~UserKernelImpl () = default;

  void drop_run () { host.stop (); }

  UserKernelHost host;
};

/* The class side of openclkernel and openclkernelsrc, whose instance holds `impl`, a
 * UserKernelImpl: install () adds the host's properties to the class's PropertyTable and takes
 * over finalize, which deletes `impl`. The stop is stop_drops_run's (gstopenclproperties.h). */
template <typename Element>
class UserKernelElement
{
public:
  static void install (GObjectClass * klass, bool for_source)
  {
    parent_finalize = G_OBJECT_CLASS (g_type_class_peek_parent (klass))->finalize;
    klass->finalize = finalize;
    UserKernelHost::install_properties (PropertyTable::of (klass), [] (GObject * object)
        -> UserKernelHost & { return reinterpret_cast<Element *> (object)->impl->host; },
        for_source);
  }

private:
  static inline GObjectFinalizeFunc parent_finalize = nullptr;

  static void finalize (GObject * object)
  {
    delete reinterpret_cast<Element *> (object)->impl;
    parent_finalize (object);
  }
};

}  // namespace gst_opencl

/* The GObject frame of an element that runs a user's kernel: GST_OPENCL_DEFINE_ELEMENT_TYPE's,
 * with the child proxy that reaches the kernel's arguments. */
#define GST_OPENCL_DEFINE_USER_KERNEL_ELEMENT(TypeName, type_name, Parent, parent_type, Impl, \
    factory, type) \
  GST_OPENCL_ELEMENT_INSTANCE (TypeName, Parent, Impl); \
  G_DEFINE_TYPE_WITH_CODE (TypeName, type_name, parent_type, \
      G_IMPLEMENT_INTERFACE (GST_TYPE_CHILD_PROXY, gst_opencl::UserKernelHost::child_proxy_init)); \
  GST_ELEMENT_REGISTER_DEFINE (factory, #factory, GST_RANK_NONE, type)
