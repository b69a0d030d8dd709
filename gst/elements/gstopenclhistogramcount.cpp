/* gst-opencl: openclhistogram's device side: layouts, tuned kernel variants, counting and
 * drawing.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "elements/gstopenclhistogramcount.h"

#include <algorithm>

#include "opencl/gstopenclenv.h"
#include "opencl/gstopenclkernels.h"
#include "opencl/gstopenclprogram.h"
#include "opencl/gstopencltuning.h"
#include "opencl/gstopenclutils.h"

GST_DEBUG_CATEGORY_EXTERN (gst_opencl_histogram_debug);
#define GST_CAT_DEFAULT gst_opencl_histogram_debug

namespace gst_opencl_histogram {

namespace {

/* The graph's corner: at most this many pixels (of the first plane). */
constexpr int DRAW_MAX_WIDTH = 256;
constexpr int DRAW_MAX_HEIGHT = 128;
/* Work-group variants: local memory for the sub-histograms of one work-group (two thirds of
 * 48 KiB, so that several groups share a compute unit), and at most one copy per bank. */
constexpr cl_ulong GROUP_HIST_BYTES = 32 * 1024;
constexpr guint MAX_COPIES = 32;
/* One-work-item variants: copies the work-item cycles through, sample by sample. */
constexpr guint CPU_COPIES = 4;
/* The largest count a 16-bit counter holds. */
constexpr guint64 PACKED_COUNTER_MAX = 65535;

/* How a plane is counted: the candidates of the tuner (gst_opencl::choose_variant, family
 * "histogram", forced with GST_OPENCL_VARIANT_HISTOGRAM=<name>). See kernels/histogram.cl.
 *  - GPU variants, "<counters>[-runs]-<group size>x<groups per compute unit>": work-groups of
 *    that size, a grid stride over the plane with that many groups per compute unit (more when
 *    16-bit counters need it); counters "p16" (16 bits, two channels per word: twice the copies)
 *    or "c32" (32 bits); "runs" counts runs of one bin before the local atomic.
 *  - CPU variants, "cpu-<N>k": one work-item per group, each counting a contiguous stretch of
 *    about N x 1024 pixels (at least `groups_per_unit` groups per compute unit): short stretches
 *    keep the cores balanced when one of them is busy with something else (the last group on a
 *    slowed core is what the frame waits for), long ones merge fewer histograms (each merge
 *    costs some microseconds of a core); "cpu-x4" is 4 groups per compute unit whatever the
 *    size. */
struct Variant
{
  const char *name;
  size_t group_size;       /* 1: the one-work-item kernel */
  bool packed;
  bool runs;
  guint groups_per_unit;   /* GPU: the grid; CPU: the least */
  guint pixels_per_group;  /* CPU: 0 for a fixed count */
};

/* GPU variants of 512 and 1024 work-items were dropped: on an H100 a forced 512-wide one never
 * finished its first frame of the benchmark, and the tuner chose a 256-wide one there. */
constexpr Variant VARIANTS[] = {
  { "p16-256x2", 256, true, false, 2, 0 },
  { "p16-256x4", 256, true, false, 4, 0 },
  { "p16-runs-256x4", 256, true, true, 4, 0 },
  { "c32-256x4", 256, false, false, 4, 0 },
  { "c32-runs-256x4", 256, false, true, 4, 0 },
  { "cpu-64k", 1, false, false, 4, 64 * 1024 },
  { "cpu-256k", 1, false, false, 4, 256 * 1024 },
  { "cpu-x4", 1, false, false, 4, 0 },
};
constexpr size_t N_VARIANTS = sizeof (VARIANTS) / sizeof (VARIANTS[0]);

PlanePass
single_sample_pass (guint plane, guint component, int pixel_bytes, guint first_channel,
    int sample_bytes = 1)
{
  PlanePass pass;
  pass.plane = plane;
  pass.component = component;
  pass.pixel_bytes = pixel_bytes;
  pass.sample_bytes = sample_bytes;
  pass.first_channel = first_channel;
  return pass;
}

/* Red, green, blue (at `sample_bytes` x 0, 1, 2, or 2, 1, 0 for `bgr`) and their luma, in
 * pixels of four samples. */
void
rgb_layout (Layout & layout, bool bgr, int sample_bytes)
{
  PlanePass pass = single_sample_pass (0, 0, 4 * sample_bytes, 0, sample_bytes);
  pass.channels = 3;
  pass.sample_offset[0] = (bgr ? 2 : 0) * sample_bytes;
  pass.sample_offset[1] = sample_bytes;
  pass.sample_offset[2] = (bgr ? 0 : 2) * sample_bytes;
  pass.luma = true;
  layout.channel_names = { "red", "green", "blue", "luma" };
  layout.passes.push_back (pass);
}

/* A Y plane and one plane of interleaved U and V (NV12, P010). */
void
semi_planar_layout (Layout & layout, int sample_bytes, int low_bits)
{
  layout.yuv = true;
  layout.channel_names = { "y", "u", "v" };
  PlanePass luma = single_sample_pass (0, 0, sample_bytes, 0, sample_bytes);
  luma.low_bits = low_bits;
  layout.passes.push_back (luma);
  PlanePass chroma = single_sample_pass (1, 1, 2 * sample_bytes, 1, sample_bytes);
  chroma.low_bits = low_bits;
  chroma.channels = 2;
  chroma.sample_offset[1] = sample_bytes;
  layout.passes.push_back (chroma);
}

}  // namespace

Layout
layout_for (GstVideoFormat format)
{
  Layout layout;
  switch (format) {
    case GST_VIDEO_FORMAT_RGBA:
    case GST_VIDEO_FORMAT_RGBx:
    case GST_VIDEO_FORMAT_BGRA:
    case GST_VIDEO_FORMAT_BGRx:
      rgb_layout (layout, format == GST_VIDEO_FORMAT_BGRA || format == GST_VIDEO_FORMAT_BGRx, 1);
      break;
    case GST_VIDEO_FORMAT_RGBA64_LE:
      rgb_layout (layout, false, 2);
      break;
    case GST_VIDEO_FORMAT_GRAY8:
      layout.channel_names = { "gray" };
      layout.passes.push_back (single_sample_pass (0, 0, 1, 0));
      break;
    case GST_VIDEO_FORMAT_GRAY16_LE:
      layout.channel_names = { "gray" };
      layout.passes.push_back (single_sample_pass (0, 0, 2, 0, 2));
      break;
    case GST_VIDEO_FORMAT_I420:
      layout.yuv = true;
      layout.channel_names = { "y", "u", "v" };
      for (guint plane = 0; plane < 3; plane++)
        layout.passes.push_back (single_sample_pass (plane, plane, 1, plane));
      break;
    case GST_VIDEO_FORMAT_NV12:
      semi_planar_layout (layout, 1, 0);
      break;
    case GST_VIDEO_FORMAT_P010_10LE:
      semi_planar_layout (layout, 2, 6);
      break;
    default:
      break;
  }
  return layout;
}

namespace {

/* Sub-histogram copies of a variant for a pass on the device; throws when none fits. */
guint
copies_for (const gst_opencl::Device & device, const Variant & variant, const PlanePass & pass)
{
  if (variant.group_size == 1)
    return CPU_COPIES;
  const guint rows = variant.packed ? (pass.hist_channels () + 1) / 2 : pass.hist_channels ();
  const cl_ulong copy_bytes = (cl_ulong) rows * MAX_BINS * sizeof (cl_uint);
  const cl_ulong budget = std::min (GROUP_HIST_BYTES, device.local_mem_bytes);
  if (copy_bytes > budget)
    throw gst_opencl::Failure (gst_opencl::Failure::Kind::Settings,
        device.name + " has too little local memory for a histogram");
  return std::min (power_of_two_floor ((guint) (budget / copy_bytes)),
      std::min (MAX_COPIES, (guint) variant.group_size));
}

std::string
pass_options (const PlanePass & pass, const Variant & variant)
{
  gchar *text = g_strdup_printf ("-DPIXEL_BYTES=%d -DSAMPLE_BYTES=%d -DLOW_BITS=%d "
      "-DCHANNELS=%d -DCH0=%d -DCH1=%d -DCH2=%d "
      "-DLUMA=%d -DGROUP_SIZE=%zu -DCOPIES=%u -DPACKED=%d -DRUNS=%d -DMAX_BINS=%u",
      pass.pixel_bytes, pass.sample_bytes, pass.low_bits, pass.channels, pass.sample_offset[0],
      pass.sample_offset[1],
      pass.sample_offset[2], pass.luma ? 1 : 0, variant.group_size, pass.copies,
      variant.packed ? 1 : 0, variant.runs ? 1 : 0, MAX_BINS);
  std::string options (text);
  g_free (text);
  return options;
}

/* Builds the counting kernel of every pass for a variant (the program cache keeps the builds);
 * throws when the device cannot run it. */
void
build_variant (GstOpenCLFilter * filter, State & state, const Variant & variant)
{
  auto & device = gst_opencl::device_of (filter).device ();
  if (variant.group_size > device.max_work_group_size)
    throw gst_opencl::Failure (gst_opencl::Failure::Kind::Settings,
        std::string ("variant ") + variant.name + " needs work-groups of " +
        std::to_string (variant.group_size) + ", more than " + device.name + " has");
  for (auto & pass : state.layout.passes) {
    pass.copies = copies_for (device, variant, pass);
    std::string options = pass_options (pass, variant);
    pass.kernel = device.kernel ("histogram", "histogram", options);
    /* The compiled kernel may allow less than the device (registers, local memory). */
    const size_t allowed =
        pass.kernel.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE> (device.cl_device);
    if (variant.group_size > allowed)
      throw gst_opencl::Failure (gst_opencl::Failure::Kind::Settings,
          std::string ("variant ") + variant.name + " needs work-groups of " +
          std::to_string (variant.group_size) + ", its kernel allows " +
          std::to_string (allowed) + " on " + device.name);
    GST_DEBUG_OBJECT (filter, "%s plane %u: [%s]", variant.name, pass.plane, options.c_str ());
  }
}

/* How the kernel reads one plane of a frame (see kernels/histogram.cl). */
struct PlaneGeometry
{
  cl_ulong offset = 0;
  cl_int stride = 0;
  guint spans = 0;
  guint span_words = 0;  /* 16-byte words at the start of each span */
  guint span_tail = 0;   /* pixels after them */
  guint64 pixels = 0;
};

PlaneGeometry
plane_geometry (const State & state, const PlanePass & pass, const GstVideoInfo * info)
{
  PlaneGeometry g;
  const guint width = GST_VIDEO_INFO_COMP_WIDTH (info, pass.component);
  const guint height = GST_VIDEO_INFO_COMP_HEIGHT (info, pass.component);
  g.pixels = (guint64) width * height;
  if (g.pixels == 0)
    return g;
  const guint64 row_bytes = (guint64) width * pass.pixel_bytes;
  if (g.pixels > G_MAXUINT32 || row_bytes * height > G_MAXUINT32)
    throw gst_opencl::Failure (gst_opencl::Failure::Kind::TooLarge, "plane too large");
  g.offset = GST_VIDEO_INFO_PLANE_OFFSET (info, pass.plane);
  g.stride = GST_VIDEO_INFO_PLANE_STRIDE (info, pass.plane);
  /* Words need 16-byte alignment: the buffer's start is aligned far more than that. */
  const bool aligned = state.words && g.offset % 16 == 0;
  if (height == 1 || (guint64) g.stride == row_bytes) {
    /* Rows without padding between them: the plane is one span. */
    const guint64 bytes = row_bytes * height;
    g.spans = 1;
    g.span_words = aligned ? (guint) (bytes / 16) : 0;
    g.span_tail = (guint) ((bytes - (guint64) g.span_words * 16) / pass.pixel_bytes);
  } else {
    g.spans = height;
    g.span_words = aligned && g.stride % 16 == 0 ? (guint) (row_bytes / 16) : 0;
    g.span_tail = (guint) ((row_bytes - (guint64) g.span_words * 16) / pass.pixel_bytes);
  }
  return g;
}

/* Work-groups for one plane. */
size_t
group_count (const State & state, const Variant & variant, const PlanePass & pass,
    const PlaneGeometry & g)
{
  const guint64 words = (guint64) g.spans * g.span_words;
  const guint64 tails = (guint64) g.spans * g.span_tail;
  const guint64 units = std::max<guint64> (1, words + tails);
  guint64 groups = (guint64) state.compute_units * variant.groups_per_unit;
  if (variant.group_size == 1 && variant.pixels_per_group)
    groups = std::max (groups, (g.pixels + variant.pixels_per_group - 1) /
        variant.pixels_per_group);
  if (state.forced_groups)
    groups = state.forced_groups;
  /* No more groups than there is work for. */
  groups = std::max<guint64> (1, std::min (groups, (units + variant.group_size - 1) /
          variant.group_size));
  if (variant.packed) {
    /* Every 16-bit counter stays below 65536: the work-items sharing a copy count at most that
     * many samples of a channel. More groups mean fewer samples per work-item. */
    const guint64 sharing = variant.group_size / pass.copies;
    const guint64 pixels_per_word = 16 / pass.pixel_bytes;
    auto most_per_copy = [&](guint64 n) {
      const guint64 items = n * variant.group_size;
      return sharing * ((words + items - 1) / items * pixels_per_word + (tails + items - 1) /
          items);
    };
    while (most_per_copy (groups) > PACKED_COUNTER_MAX)
      groups *= 2;
  }
  return (size_t) groups;
}

/* Enqueues the counting of every plane of `frame` into counts[current] through `launch`, the
 * first launch clearing the other buffer, and makes the other buffer current for the next frame
 * once anything was enqueued. Returns the index of the buffer counted into. */
template<typename Launch>
guint
enqueue_counting (State & state, const Variant & variant, const GstOpenCLFrame * frame,
    guint bins, Launch launch)
{
  const guint current = state.current;
  bool cleared = false;
  try {
    for (auto & pass : state.layout.passes) {
      const PlaneGeometry g = plane_geometry (state, pass, &frame->info);
      if (g.pixels == 0)
        continue;
      const size_t groups = group_count (state, variant, pass, g);
      const guint words = g.spans * g.span_words;
      const guint tails = g.spans * g.span_tail;
      cl::Kernel & kernel = pass.kernel;
      gst_opencl::set_args (kernel, frame->buffer, g.offset, g.stride, (cl_uint) g.spans,
          (cl_uint) g.span_words, (cl_uint) g.span_tail, (cl_uint) ((words + groups - 1) / groups),
          (cl_uint) ((tails + groups - 1) / groups), (cl_uint) bins,
          (cl_uint) pass.bin_shift (bins), state.counts[current], (cl_uint) pass.first_channel,
          state.counts[1 - current], (cl_uint) (cleared ? 0 : COUNT_SLOTS));
      launch (kernel, cl::NDRange (groups * variant.group_size),
          cl::NDRange (variant.group_size));
      cleared = true;
    }
  } catch (...) {
    if (cleared)
      state.current = 1 - current;
    throw;
  }
  if (cleared)
    state.current = 1 - current;
  return current;
}

/* A frame with `info`'s layout holding pseudo-random bytes: what the tuner times on, so that
 * the choice (kept on disk) does not depend on what the first frame happens to show. */
cl::Buffer
random_frame (gst_opencl::Device & device, const GstVideoInfo * info)
{
  gsize bytes = GST_VIDEO_INFO_SIZE (info);
  for (guint plane = 0; plane < GST_VIDEO_INFO_N_PLANES (info); plane++)
    bytes = std::max<gsize> (bytes, GST_VIDEO_INFO_PLANE_OFFSET (info, plane) +
        (gsize) GST_VIDEO_INFO_PLANE_STRIDE (info, plane) * gst_opencl::plane_rows (info, plane));
  std::vector<guint32> words ((bytes + 3) / 4);
  guint32 x = 2463534242u;
  for (auto & word : words) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    word = x;
  }
  return cl::Buffer (device.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
      words.size () * sizeof (guint32), words.data ());
}

}  // namespace

/* Chooses the variant once per caps (forced, cached, or timed on a random frame with this
 * frame's layout: see gst_opencl::choose_variant) and builds its kernels. */
bool
ensure_kernels (GstOpenCLFilter * filter, State & state, const GstOpenCLFrame * frame,
    guint bins)
{
  if (state.kernels_ready)
    return false;
  auto & device = gst_opencl::device_of (filter).device ();
  state.compute_units = std::max<cl_uint> (1,
      device.cl_device.getInfo<CL_DEVICE_MAX_COMPUTE_UNITS> ());
  state.words = device.cl_device.getInfo<CL_DEVICE_ENDIAN_LITTLE> () == CL_TRUE;
  /* For tests and measurements: GST_OPENCL_HISTOGRAM_GROUPS forces the work-groups per plane
   * (16-bit counters still get as many as they need). */
  state.forced_groups = (size_t) gst_opencl::env::number (
      gst_opencl::env::Variable::HistogramGroups);

  /* The device's kind of variant first (the first is its default); the others can be forced
   * but are not timed there. */
  const bool cpu = (device.type & CL_DEVICE_TYPE_CPU) != 0;
  std::vector<size_t> order;
  for (size_t i = 0; i < N_VARIANTS; i++)
    if ((VARIANTS[i].group_size == 1) == cpu)
      order.push_back (i);
  for (size_t i = 0; i < N_VARIANTS; i++)
    if ((VARIANTS[i].group_size == 1) != cpu)
      order.push_back (i);
  std::vector<gst_opencl::TuningCandidate> candidates;
  for (size_t i : order)
    candidates.push_back ({ VARIANTS[i].name, (VARIANTS[i].group_size == 1) == cpu });

  cl::Buffer timing_frame;
  auto time_one = [&](size_t candidate) -> double {
    const Variant & variant = VARIANTS[order[candidate]];
    build_variant (filter, state, variant);
    if (!timing_frame ())
      timing_frame = random_frame (device, &frame->info);
    const GstOpenCLFrame random { timing_frame, frame->info };
    std::vector<cl::Event> events;
    enqueue_counting (state, variant, &random, bins, [&](cl::Kernel & kernel,
            const cl::NDRange & global, const cl::NDRange & local) {
          cl::Event event;
          device.queue.enqueueNDRangeKernel (kernel, cl::NullRange, global, local, nullptr,
              &event);
          events.push_back (event);
        });
    double total = 0.0;
    for (auto & event : events) {
      event.wait ();
      total += gst_opencl::event_milliseconds (event);
    }
    return total;
  };
  std::string planes;
  for (const auto & pass : state.layout.passes)
    planes += "plane " + std::to_string (pass.plane) + " bytes " +
        std::to_string (pass.pixel_bytes) + " sample " + std::to_string (pass.sample_bytes) +
        " channels " + std::to_string (pass.channels) +
        (pass.luma ? " luma " : " ");
  gchar *key = g_strdup_printf ("%s%dx%d source %016" G_GINT64_MODIFIER "x", planes.c_str (),
      state.width, state.height,
      (guint64) gst_opencl::stable_hash (gst_opencl::kernel_source ("histogram")));
  size_t chosen = 0;
  try {
    chosen = order[gst_opencl::device_of (filter).tune ("histogram", key, candidates,
            time_one).index];
  } catch (...) {
    g_free (key);
    throw;
  }
  g_free (key);
  state.variant = chosen;
  build_variant (filter, state, VARIANTS[chosen]);
  /* The graph goes on the first plane, with that plane's program. */
  std::string first = pass_options (state.layout.passes[0], VARIANTS[chosen]);
  state.draw_kernel = device.kernel ("histogram", "draw", first);
  state.fill_kernel = device.kernel ("histogram", "fill_region", first);
  state.kernels_ready = true;
  GST_INFO_OBJECT (filter, "variant %s", VARIANTS[chosen].name);
  return true;
}

void
draw_graph (GstOpenCLFilter * filter, State & state, const GstOpenCLFrame * frame, guint bins,
    const cl::Buffer & counts)
{
  const GstVideoInfo *info = &frame->info;
  const int draw_width = std::min (state.width, DRAW_MAX_WIDTH);
  const int draw_height = std::min (state.height, DRAW_MAX_HEIGHT);
  cl::Kernel & draw = state.draw_kernel;
  gst_opencl::set_args (draw, frame->buffer, (cl_ulong) GST_VIDEO_INFO_PLANE_OFFSET (info, 0),
      (cl_int) GST_VIDEO_INFO_PLANE_STRIDE (info, 0), (cl_int) draw_width, (cl_int) draw_height,
      (cl_uint) bins, counts);
  const size_t group_size = std::min<size_t> (256, VARIANTS[state.variant].group_size);
  const cl::NDRange local (16, std::max<size_t> (1, group_size / 16));
  gst_opencl::device_of (filter).launch (draw, cl::NDRange (draw_width, draw_height), local);
  if (!state.layout.yuv)
    return;
  /* Neutral chroma: the middle code, 128 for 8 bits, 512 (in the high bits) for P010. */
  const PlanePass & luma = state.layout.passes[0];
  const cl_uint neutral = 1u << (8 * luma.sample_bytes - 1);
  for (guint plane = 1; plane < GST_VIDEO_INFO_N_PLANES (info); plane++) {
    const int chroma_width = (draw_width + 1) / 2;
    const int chroma_height = (draw_height + 1) / 2;
    const int row_samples = chroma_width * GST_VIDEO_INFO_COMP_PSTRIDE (info, plane) /
        luma.sample_bytes;
    cl::Kernel & fill = state.fill_kernel;
    gst_opencl::set_args (fill, frame->buffer, (cl_ulong) GST_VIDEO_INFO_PLANE_OFFSET (info, plane),
        (cl_int) GST_VIDEO_INFO_PLANE_STRIDE (info, plane), (cl_int) row_samples,
        (cl_int) chroma_height, neutral);
    gst_opencl::device_of (filter).launch (fill, cl::NDRange (row_samples, chroma_height),
        local);
  }
}


void
allocate_counts (gst_opencl::Device & device, State & state)
{
  if (state.counts[0] ())
    return;
  for (auto & buffer : state.counts) {
    buffer = cl::Buffer (device.context, CL_MEM_READ_WRITE, COUNT_SLOTS * sizeof (cl_uint));
    device.queue.enqueueFillBuffer (buffer, (cl_uint) 0, 0, COUNT_SLOTS * sizeof (cl_uint));
  }
  state.current = 0;
}

guint
count_frame (GstOpenCLFilter * filter, State & state, const GstOpenCLFrame * frame, guint bins)
{
  return enqueue_counting (state, VARIANTS[state.variant], frame, bins,
      [&](cl::Kernel & kernel, const cl::NDRange & global, const cl::NDRange & local) {
        gst_opencl::device_of (filter).launch (kernel, global, local);
      });
}

}  // namespace gst_opencl_histogram
