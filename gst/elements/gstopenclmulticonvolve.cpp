/* gst-opencl: openclmulticonvolve, a bank of N filters applied in one pass.
 * SPDX-License-Identifier: LGPL-2.1-or-later */

/**
 * SECTION:element-openclmulticonvolve
 * @title: openclmulticonvolve
 *
 * Correlates every frame (dims=2: k x k filters) or volume (dims=3: k x k x k filters) with N
 * filters at once: out_n(x,y,z) = sum f_n(i,j,l) in(x+i-c, y+j-c, z+l-c) over the filter, with
 * c = (k - 1) / 2 and coordinates clamped to the edge, which is what
 * scipy.ndimage.correlate (..., mode='nearest') computes. Each work-item computes a block of
 * outputs along x and y for a block of the filters, so every value it loads is used many times;
 * the block shapes are kernel variants, timed on the device on first use (see
 * docs/openclmulticonvolve.md; GST_OPENCL_VARIANT_CONVOLUTION forces one). The element posts an
 * `opencl-variant` element message saying which it runs.
 *
 * Input: the luma of video frames (in system, OpenCL or CUDA memory): GRAY8, the Y plane of NV12
 * and I420, and 16-bit luma on the same 0..255 scale as floats, GRAY16_LE as value / 257 and
 * P010_10LE's 10-bit Y as (value >> 6) x 255 / 1023 (so that an 8-bit frame widened to either
 * gives the same responses, to within a rounding); or one volume per buffer as
 * other/tensors,format=static,num_tensors=1,types=uint8,dimensions=W:H:D (innermost first).
 * The chroma of NV12, I420 and P010 is not used.
 * Output: other/tensors,types=float32,dimensions=N:W:H[:D], the N responses of a voxel
 * contiguous; or, for video input (of any of its formats) when downstream asks for video and
 * N <= 4, GRAY8 (N = 1) or RGBA (responses in R, G, B, A; a missing alpha is 255) holding
 * response * scale + offset, rounded and saturated to 8 bits, in system memory or (where
 * downstream asks for it) CUDA memory.
 *
 * The filters come from `kernels` or `kernels-file`: N x k^dims floats, the filter index
 * fastest, then x, y and z.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 filesrc location=volume.raw blocksize=16777216 ! \
 *     other/tensors,format=static,num_tensors=1,types=uint8,dimensions=256:256:256 ! \
 *     openclmulticonvolve num-kernels=8 kernel-size=7 dims=3 kernels-file=filters.raw ! \
 *     filesink location=responses.raw
 * gst-launch-1.0 videotestsrc ! video/x-raw,format=GRAY8 ! openclmulticonvolve \
 *     num-kernels=2 kernel-size=3 kernels="<-1,-1, 0,-2, 1,-1, -2,0, 0,0, 2,0, -1,1, 0,2, 1,1>" \
 *     scale=0.25 offset=128 ! video/x-raw,format=RGBA ! videoconvert ! autovideosink
 * ]|
 */
#include "elements/gstopenclmulticonvolve.h"
#include "elements/gstopenclmulticonvolvecaps.h"

#include <glib/gstdio.h>
#include <gst/video/video.h>

#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <mutex>
#include <new>
#include <vector>

#include "opencl/gstopenclbindings.h"
#include "opencl/gstopenclconvolution.h"
#include "opencl/gstopenclcuda.h"
#include "opencl/gstopenclframepath.h"
#include "opencl/gstopenclmemory.h"
#include "opencl/gstopencltensor.h"
#include "opencl/gstopenclproperties.h"
#include "opencl/gstopenclutils.h"

GST_DEBUG_CATEGORY_STATIC (gst_opencl_multi_convolve_debug);
#define GST_CAT_DEFAULT gst_opencl_multi_convolve_debug

namespace {

constexpr int DEFAULT_NUM_KERNELS = 1;
constexpr int MAX_NUM_KERNELS = 32;
constexpr int DEFAULT_KERNEL_SIZE = 3;
constexpr int MAX_KERNEL_SIZE = 15;
constexpr int DEFAULT_DIMS = 2;
constexpr double DEFAULT_SCALE = 1.0;
constexpr double DEFAULT_OFFSET = 0.0;

struct Settings
{
  int num_kernels = DEFAULT_NUM_KERNELS;
  int kernel_size = DEFAULT_KERNEL_SIZE;
  int dims = DEFAULT_DIMS;
  std::vector<float> kernels;
  std::string kernels_file;
  double scale = DEFAULT_SCALE;
  double offset = DEFAULT_OFFSET;
};

/* The shape of the negotiated caps, and what the bank runs with. */
struct State : gst_opencl_multi_convolve::Shape
{
  /* What the bank reads: width x height x depth bytes, rows packed (volumes, GRAY8); the whole
   * frame in its caps' layout (NV12, I420: the bank reads plane 0); or width x height floats,
   * rows packed (16-bit luma, converted from `frame`). */
  cl::Buffer input;
  cl_int input_row_stride = 0;   /* in elements of the input: bytes or floats */
  cl::Buffer frame;              /* 16-bit luma: the frame as it came, in its caps' layout */
  cl::Kernel to_float;           /* 16-bit luma: frame -> input (kernels/luma16.cl) */
  cl::Buffer output;        /* tensor output only */
  gst_opencl::Convolution convolution;
};

/* The filters as the settings give them; throws Failure (Settings) on any mismatch. */
std::vector<float>
load_filters (const Settings & s)
{
  if (s.kernel_size % 2 == 0)
    throw gst_opencl::Failure (gst_opencl::Failure::Kind::Settings, "kernel-size must be odd, "
        "not " + std::to_string (s.kernel_size));
  size_t per_filter = 1;
  for (int d = 0; d < s.dims; d++)
    per_filter *= (size_t) s.kernel_size;
  const size_t expected = per_filter * (size_t) s.num_kernels;
  const std::string shape = std::to_string (s.num_kernels) + " filters of " +
      std::to_string (s.kernel_size) + "^" + std::to_string (s.dims) + " taps need " +
      std::to_string (expected) + " floats";

  std::vector<float> filters;
  if (!s.kernels_file.empty ()) {
    if (!s.kernels.empty ())
      throw gst_opencl::Failure (gst_opencl::Failure::Kind::Settings,
          "set kernels or kernels-file, not both");
    /* Read through the size the bank needs and no further: a larger file (or /dev/zero) is
     * refused without reading it whole. */
    const size_t expected_bytes = expected * sizeof (float);
    /* Quoted valid UTF-8 and at most 200 bytes long: the value may be any bytes. */
    gchar *shown = g_utf8_make_valid (s.kernels_file.c_str (), (gssize) MIN (s.kernels_file.size (),
            (size_t) 200));
    const std::string what = "kernels-file \"" + std::string (shown) +
        (s.kernels_file.size () > 200 ? "... (" + std::to_string (s.kernels_file.size ()) +
            " bytes)" : "") + "\"";
    g_free (shown);
    const std::string needs = shape + " (" + std::to_string (expected_bytes) +
        " bytes of little-endian float32)";
    std::string contents;
    try {
      contents = gst_opencl::read_file_bounded (s.kernels_file, expected_bytes, what,
          gst_opencl::Failure::Kind::Settings);
    } catch (const gst_opencl::Failure & failure) {
      if (g_str_has_prefix (failure.what (), "cannot read"))
        throw;
      /* A regular file's size is known without reading it; a device's is not. */
      GStatBuf status;
      const bool regular = g_stat (s.kernels_file.c_str (), &status) == 0 &&
          S_ISREG (status.st_mode);
      throw gst_opencl::Failure (gst_opencl::Failure::Kind::Settings, what + " holds " +
          (regular ? std::to_string ((guint64) status.st_size) : "more than " +
              std::to_string (expected_bytes)) + " bytes, but " + needs);
    }
    if (contents.size () != expected_bytes)
      throw gst_opencl::Failure (gst_opencl::Failure::Kind::Settings, what + " holds " +
          std::to_string (contents.size ()) + " bytes, but " + needs);
    filters.resize (expected);
    for (size_t t = 0; t < expected; t++) {
      guint32 bits;
      memcpy (&bits, contents.data () + t * sizeof (float), sizeof bits);
      bits = GUINT32_FROM_LE (bits);
      memcpy (&filters[t], &bits, sizeof bits);
    }
  } else {
    if (s.kernels.empty ())
      throw gst_opencl::Failure (gst_opencl::Failure::Kind::Settings,
          "no filters: set kernels or kernels-file (" + shape + ")");
    if (s.kernels.size () != expected)
      throw gst_opencl::Failure (gst_opencl::Failure::Kind::Settings, "kernels has " +
          std::to_string (s.kernels.size ()) + " values, but " + shape);
    filters = s.kernels;
  }
  for (size_t t = 0; t < filters.size (); t++) {
    if (!std::isfinite (filters[t]))
      throw gst_opencl::Failure (gst_opencl::Failure::Kind::Settings, "filter value " +
          std::to_string (t) + " is not a finite number");
  }
  return filters;
}

}  // namespace

using GstOpenCLMultiConvolveImpl = gst_opencl::ElementImpl<Settings, State>;

#define VIDEO_IN_CAPS "video/x-raw, format=(string)" GST_OPENCL_MULTI_CONVOLVE_VIDEO_FORMATS \
    ", width=(int)[1, max], height=(int)[1, max], framerate=(fraction)[0/1, max]"
#define VIDEO_OUT_CAPS "video/x-raw, format=(string){ GRAY8, RGBA }, width=(int)[1, max], " \
    "height=(int)[1, max], framerate=(fraction)[0/1, max]"

GST_OPENCL_DEFINE_ELEMENT (GstOpenCLMultiConvolve, gst_opencl_multi_convolve,
    GstOpenCLBaseTransform, GST_TYPE_OPENCL_BASE_TRANSFORM, GstOpenCLMultiConvolveImpl,
    openclmulticonvolve, GST_TYPE_OPENCL_MULTI_CONVOLVE);

static GstCaps *
gst_opencl_multi_convolve_transform_caps (GstBaseTransform * trans, GstPadDirection direction,
    GstCaps * caps, GstCaps * filter)
{
  auto *impl = GST_OPENCL_MULTI_CONVOLVE (trans)->impl;
  auto & device = gst_opencl::device_of (trans);
  GstCaps *result;
  if (direction == GST_PAD_SRC) {
    /* Any output comes from any input of the sink template (sizes are checked in set_caps);
     * frames in CUDA memory where the device reaches it. */
    result = gst_opencl::negotiable_caps (device,
        gst_pad_get_pad_template_caps (GST_BASE_TRANSFORM_SINK_PAD (trans)));
  } else {
    int num_kernels;
    {
      std::lock_guard<std::mutex> lock (impl->lock);
      num_kernels = CLAMP (impl->settings.num_kernels, 1, MAX_NUM_KERNELS);
    }
    result = gst_caps_new_empty ();
    for (guint i = 0; i < gst_caps_get_size (caps); i++)
      gst_opencl_multi_convolve::append_outputs (gst_caps_get_structure (caps, i),
          num_kernels, gst_opencl::cuda_negotiable (device), result);
  }
  if (filter) {
    GstCaps *intersected = gst_caps_intersect_full (filter, result, GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref (result);
    result = intersected;
  }
  GST_LOG_OBJECT (trans, "%s %" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT,
      direction == GST_PAD_SINK ? "sink" : "src", caps, result);
  return result;
}

/* The device buffers the bank reads its input from (see State), and the conversion of 16-bit
 * luma, set up once per caps. */
static void
allocate_input (State & state, gst_opencl::Device & device)
{
  const size_t voxels = (size_t) state.width * state.height * state.depth;
  const GstVideoFormat format = state.video_in ? GST_VIDEO_INFO_FORMAT (&state.in_video) :
      GST_VIDEO_FORMAT_UNKNOWN;
  state.input_row_stride = state.width;
  if (!state.video_in || format == GST_VIDEO_FORMAT_GRAY8) {
    state.input = cl::Buffer (device.context, CL_MEM_READ_ONLY | CL_MEM_HOST_WRITE_ONLY, voxels);
    return;
  }
  if (!state.luma_words) {
    state.input = cl::Buffer (device.context, CL_MEM_READ_ONLY | CL_MEM_HOST_WRITE_ONLY,
        GST_VIDEO_INFO_SIZE (&state.in_video));
    state.input_row_stride = GST_VIDEO_INFO_PLANE_STRIDE (&state.in_video, 0);
    return;
  }
  state.frame = cl::Buffer (device.context, CL_MEM_READ_ONLY | CL_MEM_HOST_WRITE_ONLY,
      GST_VIDEO_INFO_SIZE (&state.in_video));
  state.input = cl::Buffer (device.context, CL_MEM_READ_WRITE | CL_MEM_HOST_NO_ACCESS,
      voxels * sizeof (cl_float));
  state.to_float = device.kernel ("luma16", "luma16_to_float", "");
  gst_opencl::set_args (state.to_float, state.frame,
      (cl_ulong) GST_VIDEO_INFO_PLANE_OFFSET (&state.in_video, 0),
      (cl_int) GST_VIDEO_INFO_PLANE_STRIDE (&state.in_video, 0), (cl_int) state.width,
      (cl_int) state.height, (cl_uint) state.luma_shift, (cl_float) state.luma_factor,
      state.input);
}

static void
configure (GstOpenCLMultiConvolve * self, gst_opencl::Device & device, GstCaps * incaps,
    GstCaps * outcaps)
{
  auto *impl = self->impl;
  Settings settings;
  {
    std::lock_guard<std::mutex> lock (impl->lock);
    settings = impl->settings;
  }
  using gst_opencl::Failure;
  State & state = impl->state;
  const std::vector<float> filters = load_filters (settings);

  static_cast<gst_opencl_multi_convolve::Shape &> (state) =
      gst_opencl_multi_convolve::shape_of (incaps, outcaps, settings.num_kernels);

  const guint64 voxels = (guint64) state.width * state.height * state.depth;
  const guint64 out_bytes = state.video_out ? (guint64) state.out_video.size :
      voxels * settings.num_kernels * sizeof (float);
  const guint64 in_bytes = !state.video_in ? voxels : std::max<guint64> (
      GST_VIDEO_INFO_SIZE (&state.in_video), state.luma_words ? voxels * sizeof (float) : 0);
  if (in_bytes > device.max_alloc_bytes || out_bytes > device.max_alloc_bytes ||
      voxels * settings.num_kernels > (guint64) G_MAXINT32)
    throw Failure (Failure::Kind::TooLarge, "a " + std::to_string (state.width) + "x" +
        std::to_string (state.height) + "x" + std::to_string (state.depth) + " input with " +
        std::to_string (settings.num_kernels) + " filters (" + std::to_string (in_bytes) +
        " bytes in, " + std::to_string (out_bytes) + " bytes out) exceeds the largest buffer " +
        device.name + " can allocate (" + std::to_string (device.max_alloc_bytes) + " bytes)");
  allocate_input (state, device);
  /* Video output goes where the frame path puts the output frame. */
  if (!state.video_out)
    state.output = cl::Buffer (device.context, CL_MEM_WRITE_ONLY | CL_MEM_HOST_READ_ONLY,
        (size_t) out_bytes);

  gst_opencl::ConvolutionSpec spec;
  spec.kx = spec.ky = settings.kernel_size;
  spec.kz = settings.dims == 3 ? settings.kernel_size : 1;
  spec.num_filters = settings.num_kernels;
  spec.float_input = state.luma_words;
  if (state.video_out) {
    spec.output = gst_opencl::ConvolutionSpec::Output::BytePixels;
    spec.out_pixel_bytes = GST_VIDEO_INFO_COMP_PSTRIDE (&state.out_video, 0);
  }
  state.convolution.configure (device, spec, filters);
  GST_INFO_OBJECT (self, "%d filters of %d^%d on %dx%dx%d, %s output", spec.num_filters,
      settings.kernel_size, settings.dims, state.width, state.height, state.depth,
      state.video_out ? "video" : "tensor");
}

static gboolean
gst_opencl_multi_convolve_configure (GstOpenCLBaseTransform * base,
    gst_opencl::ElementDevice & device, gst_opencl::FramePorts &, GstCaps * incaps,
    GstCaps * outcaps)
{
  /* The base configures the ports of the video sides (their memory: system, OpenCL, CUDA). */
  GstVideoInfo in_info, out_info;
  if (!gst_opencl_base_transform_configure_ports (base, incaps, outcaps, &in_info, &out_info))
    return FALSE;
  return GST_OPENCL_GUARD (base, "cannot configure the filter bank", [&]() {
    configure (GST_OPENCL_MULTI_CONVOLVE (base), device.device (), incaps, outcaps);
  });
}

/* After a caps event GstBaseTransform could not take: when no output of this element for
 * those caps is one downstream takes, says so. GstBaseTransform says nothing (its source then
 * stops with "not-negotiated"), and the outputs depend on num-kernels, which may have changed
 * since the pads were linked: video output holds at most 4 responses. */
static void
explain_negotiation (GstBaseTransform * trans, GstCaps * incaps)
{
  auto *impl = GST_OPENCL_MULTI_CONVOLVE (trans)->impl;
  int num_kernels;
  {
    std::lock_guard<std::mutex> lock (impl->lock);
    num_kernels = impl->settings.num_kernels;
  }
  GstCaps *offered = gst_opencl_multi_convolve_transform_caps (trans, GST_PAD_SINK, incaps,
      nullptr);
  GstCaps *downstream = gst_pad_peer_query_caps (GST_BASE_TRANSFORM_SRC_PAD (trans), nullptr);
  if (!gst_caps_can_intersect (offered, downstream)) {
    gchar *offered_text = gst_caps_to_string (offered);
    gchar *downstream_text = gst_caps_to_string (downstream);
    const bool video_in = !gst_opencl::caps_are_tensors (incaps);
    /* Downstream asks for CUDA memory where the device does not reach it. */
    const bool no_cuda = video_in && gst_opencl::caps_are_cuda (downstream) &&
        !gst_opencl::cuda_negotiable (gst_opencl::device_of (trans));
    GST_ELEMENT_ERROR (trans, CORE, NEGOTIATION, ("downstream takes none of the outputs for "
            "num-kernels=%d: %s%s", num_kernels, !video_in ? "volume input gives float32 "
            "tensors only" : num_kernels > 4 ? "video output holds at most 4 responses (RGBA), "
            "so only float32 tensors are left" : num_kernels > 1 ? "the outputs are float32 "
            "tensors and RGBA video" : "the outputs are float32 tensors and GRAY8 video",
            no_cuda ? ", in system memory only (the device does not reach CUDA memory: it is "
            "not negotiable)" : ""),
        ("outputs for %" GST_PTR_FORMAT ": %s; downstream takes %s", incaps, offered_text,
            downstream_text));
    g_free (offered_text);
    g_free (downstream_text);
  }
  gst_caps_unref (offered);
  gst_caps_unref (downstream);
}

static gboolean
gst_opencl_multi_convolve_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  GstCaps *incaps = nullptr;
  if (GST_EVENT_TYPE (event) == GST_EVENT_CAPS) {
    gst_event_parse_caps (event, &incaps);
    gst_caps_ref (incaps);
  }
  const gboolean ok = GST_BASE_TRANSFORM_CLASS (gst_opencl_multi_convolve_parent_class)->
      sink_event (trans, event);
  if (incaps) {
    if (!ok)
      explain_negotiation (trans, incaps);
    gst_caps_unref (incaps);
  }
  return ok;
}

/* Enqueues the copy of the input frame or volume into the packed device volume. */
static void
upload_input (GstOpenCLMultiConvolveImpl * impl, gst_opencl::ElementDevice & device,
    gst_opencl::FramePort & in_port, GstBuffer * inbuf)
{
  State & state = impl->state;
  const gsize volume_bytes = (gsize) state.width * state.height * state.depth;
  if (!state.video_in) {
    /* A static tensor's buffer is exactly its caps' size: longer is as malformed as shorter. */
    if (gst_buffer_get_size (inbuf) != volume_bytes)
      throw gst_opencl::Failure (gst_opencl::Failure::Kind::Failed, "input buffer of " +
          std::to_string (gst_buffer_get_size (inbuf)) + " bytes does not match the " +
          std::to_string (volume_bytes) + "-byte volume of its caps");
    gst_opencl::copy_bytes_in (device, in_port, inbuf, state.input, volume_bytes);
    return;
  }
  /* GRAY8 packed; other formats in their caps' layout, every plane (the frame path copies
   * frames whole), the bank or the conversion reading plane 0. */
  GstOpenCLFrame packed { state.luma_words ? state.frame : state.input, state.in_video };
  if (GST_VIDEO_INFO_FORMAT (&state.in_video) == GST_VIDEO_FORMAT_GRAY8) {
    packed.info.offset[0] = 0;
    packed.info.stride[0] = state.width;
  }
  gst_opencl::copy_frame_in (device, in_port, inbuf, packed);
  if (state.luma_words)
    device.launch (state.to_float, cl::NDRange (state.width, state.height),
        cl::NDRange (16, 4));
}

static gst_opencl::ConvolutionArgs
convolution_args (State & state, double scale, double offset)
{
  gst_opencl::ConvolutionArgs args;
  args.src = &state.input;
  args.src_row_stride = state.input_row_stride;
  args.src_plane_stride = state.input_row_stride * state.height;
  args.dst = &state.output;
  args.width = state.width;
  args.height = state.height;
  args.depth = state.depth;
  args.scale = (cl_float) scale;
  args.offset = (cl_float) offset;
  args.dst_row_stride = state.width * state.convolution.spec ().num_filters;
  args.dst_plane_stride = args.dst_row_stride * state.height;
  return args;
}

/* Responses as video: the kernels write the output frame where the frame path puts it. */
static bool
run_into_frame (GstOpenCLMultiConvolveImpl * impl, gst_opencl::ElementDevice & device,
    gst_opencl::FramePort & out_port, gst_opencl::ConvolutionArgs & args, GstBuffer * outbuf)
{
  gst_opencl::FrameTrip out (device, out_port, outbuf, gst_opencl::FrameAccess::Write);
  args.dst = &out.frame ().buffer;
  args.dst_row_stride = GST_VIDEO_INFO_PLANE_STRIDE (&out.frame ().info, 0);
  impl->state.convolution.run (device, args);
  return out.finish (true);
}

static GstFlowReturn
gst_opencl_multi_convolve_transform_frames (GstOpenCLBaseTransform * base,
    gst_opencl::ElementDevice & device, gst_opencl::FramePorts & ports, GstBuffer * inbuf,
    GstBuffer * outbuf)
{
  auto *impl = GST_OPENCL_MULTI_CONVOLVE (base)->impl;
  State & state = impl->state;
  double scale, offset;
  {
    std::lock_guard<std::mutex> lock (impl->lock);
    scale = impl->settings.scale;
    offset = impl->settings.offset;
  }
  gboolean ok = GST_OPENCL_GUARD (base, "filter bank failed", [&]() {
    gst_opencl::FrameWork work (device);
    upload_input (impl, device, ports.in, inbuf);
    gst_opencl::ConvolutionArgs args = convolution_args (state, scale, offset);
    bool waited = true;
    if (state.video_out) {
      waited = run_into_frame (impl, device, ports.out, args, outbuf);
    } else {
      state.convolution.run (device, args);
      waited = gst_opencl::copy_bytes_out (device, state.output, outbuf, state.out_bytes);
    }
    work.end (waited);
  });
  return ok ? GST_FLOW_OK : GST_FLOW_ERROR;
}

static void
gst_opencl_multi_convolve_class_init (GstOpenCLMultiConvolveClass * klass)
{
  auto *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  auto *base_class = GST_OPENCL_BASE_TRANSFORM_CLASS (klass);

  auto properties = gst_opencl::element_class_begin<GstOpenCLMultiConvolve> (klass, GST_CAT_DEFAULT,
      "openclmulticonvolve", "OpenCL filter bank");

  /* Caps depend on the PROPERTY_READY ones: they take effect at the next negotiation. */
  /**
   * GstOpenCLMultiConvolve:num-kernels:
   *
   * N, the number of filters: the output holds N responses per voxel.
   */
  properties.add (g_param_spec_int ("num-kernels", "Number of kernels",
      "Filters applied in one pass (N)", 1, MAX_NUM_KERNELS, DEFAULT_NUM_KERNELS,
      gst_opencl::PROPERTY_READY),
      &Settings::num_kernels);
  /**
   * GstOpenCLMultiConvolve:kernel-size:
   *
   * Taps of each filter along every axis (odd, 1 .. 15).
   */
  properties.add (g_param_spec_int ("kernel-size", "Kernel size",
      "Taps per axis of every filter (odd)", 1, MAX_KERNEL_SIZE, DEFAULT_KERNEL_SIZE,
      gst_opencl::PROPERTY_READY),
      &Settings::kernel_size);
  /**
   * GstOpenCLMultiConvolve:dims:
   *
   * 2: k x k filters on each frame or slice; 3: k x k x k filters on the volume.
   */
  properties.add (g_param_spec_int ("dims", "Dimensions",
      "2: k x k filters per slice; 3: k x k x k", 2, 3, DEFAULT_DIMS, gst_opencl::PROPERTY_READY),
      &Settings::dims);
  /**
   * GstOpenCLMultiConvolve:kernels:
   *
   * The filters: num-kernels x kernel-size^dims floats, filter index fastest, then x, y, z.
   */
  properties.add (gst_opencl::float_array_spec ("kernels", "Kernels",
      "The filters: N x k^dims floats, filter index fastest, then x, y, z",
      gst_opencl::PROPERTY_READY), &Settings::kernels);
  /**
   * GstOpenCLMultiConvolve:kernels-file:
   *
   * A file of raw little-endian float32 filters in the order of `kernels` (used instead of
   * it).
   */
  properties.add (g_param_spec_string ("kernels-file", "Kernels file",
      "Raw little-endian float32 filters in the order of kernels", nullptr,
      gst_opencl::PROPERTY_READY),
      &Settings::kernels_file);
  /**
   * GstOpenCLMultiConvolve:scale:
   *
   * Video output only: each response is multiplied by this before offset is added.
   */
  properties.add (g_param_spec_double ("scale", "Scale",
      "Video output: response * scale + offset", -G_MAXDOUBLE, G_MAXDOUBLE, DEFAULT_SCALE,
      gst_opencl::PROPERTY_CONTROLLABLE), &Settings::scale);
  /**
   * GstOpenCLMultiConvolve:offset:
   *
   * Video output only: added to each scaled response before rounding and saturation.
   */
  properties.add (g_param_spec_double ("offset", "Offset",
      "Video output: response * scale + offset", -G_MAXDOUBLE, G_MAXDOUBLE, DEFAULT_OFFSET,
      gst_opencl::PROPERTY_CONTROLLABLE), &Settings::offset);

  gst_element_class_set_static_metadata (GST_ELEMENT_CLASS (klass), "OpenCL filter bank",
      "Filter/Video", "Correlates frames or volumes with N filters in one pass on an OpenCL "
      "device", "gst-opencl developers");

  /* Frames in CUDA or OpenCL memory are read on the device (a device-to-device copy); video
   * output in system or CUDA memory. */
  GstCaps *video_in = gst_caps_from_string (VIDEO_IN_CAPS);
  GstCaps *sink = gst_opencl::with_memory_feature (video_in,
      GST_OPENCL_CAPS_FEATURE_MEMORY_CUDA);
  gst_caps_append (sink, gst_opencl::with_memory_feature (video_in,
          GST_CAPS_FEATURE_MEMORY_OPENCL));
  gst_caps_append (sink, video_in);
  gst_caps_append (sink, gst_caps_from_string (
          gst_opencl::tensor_template_caps ("uint8").c_str ()));
  gst_element_class_add_pad_template (GST_ELEMENT_CLASS (klass),
      gst_pad_template_new ("sink", GST_PAD_SINK, GST_PAD_ALWAYS, sink));
  gst_caps_unref (sink);
  GstCaps *src = gst_caps_from_string (gst_opencl::tensor_template_caps ("float32").c_str ());
  GstCaps *video_out = gst_caps_from_string (VIDEO_OUT_CAPS);
  gst_caps_append (src, gst_opencl::with_memory_feature (video_out,
          GST_OPENCL_CAPS_FEATURE_MEMORY_CUDA));
  gst_caps_append (src, video_out);
  gst_element_class_add_pad_template (GST_ELEMENT_CLASS (klass),
      gst_pad_template_new ("src", GST_PAD_SRC, GST_PAD_ALWAYS, src));
  gst_caps_unref (src);

  /* Its own caps rule (frames in, tensors or video out), fixated as GstBaseTransform does. */
  gst_opencl_base_transform_class_keep_caps (base_class);
  trans_class->transform_caps = gst_opencl_multi_convolve_transform_caps;
  trans_class->sink_event = gst_opencl_multi_convolve_sink_event;
  base_class->configure = gst_opencl_multi_convolve_configure;
  base_class->transform_frames = gst_opencl_multi_convolve_transform_frames;
}
