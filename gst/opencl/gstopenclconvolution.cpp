/* gst-opencl: the convolution kernel generator shared by openclconvolve3d and
 * openclmulticonvolve.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "opencl/gstopenclconvolution.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "opencl/gstopenclutils.h"

#define GST_CAT_DEFAULT gst_opencl_debug

namespace gst_opencl {

namespace {

/* Accumulators one work-item holds (floats); beyond this, registers spill. */
constexpr int MAX_ACCUMULATORS = 256;
constexpr int CPU_ACCUMULATORS = 128;
/* Rows and planes timed per candidate on CPU devices: there the cost per output does not depend
 * on the extent, so a slab keeps tuning short. GPUs time the whole problem: a slab would not
 * fill them, and would favour the variants with the most work-items. */
constexpr size_t TUNING_ROWS = 64;
constexpr size_t TUNING_PLANES = 4;
/* Part of the tuning file's hash: bump it when the candidates or the kernel change, so choices
 * made among the old ones are not reused. */
constexpr const char *TUNING_VERSION = "3";

const char *
memory_name (FilterMemory memory)
{
  switch (memory) {
    case FilterMemory::Global:
      return "global";
    case FilterMemory::Constant:
      return "constant";
    case FilterMemory::Local:
      return "local";
  }
  return "?";
}

bool
tuning_cache_enabled ()
{
  const char *value = g_getenv ("GST_OPENCL_TUNING_CACHE");
  return !value || g_strcmp0 (value, "0") != 0;
}

}  // namespace

std::string
ConvolutionSpec::build_options () const
{
  int out_mode = output == Output::Tensor ? 0 : output == Output::FloatPixels ? 1 : 2;
  gchar *text = g_strdup_printf ("-DKX=%d -DKY=%d -DKZ=%d -DNUM_FILTERS=%d -DCHANNELS=%d "
      "-DIN_FLOAT=%d -DOUT_MODE=%d -DOUT_PIXEL=%d -DCOPY_ALPHA=%d -DTEMPORAL=%d", kx, ky, kz,
      num_filters, channels, float_input ? 1 : 0, out_mode, out_pixel_bytes, copy_alpha ? 1 : 0,
      temporal ? 1 : 0);
  std::string options (text);
  g_free (text);
  return options;
}

std::string
ConvolutionVariant::to_string () const
{
  return std::to_string (unroll) + ":" + std::to_string (group_x) + "x" +
      std::to_string (group_y) + ":" + memory_name (filter_memory);
}

namespace {

/* Reads a decimal number of at most 4 digits at text[pos] into value and moves pos past it;
 * false when there is none or it is longer (so no value can overflow an int). */
bool
read_small_number (const std::string & text, size_t & pos, int &value)
{
  size_t start = pos;
  value = 0;
  while (pos < text.size () && g_ascii_isdigit (text[pos]) && pos - start < 5) {
    value = value * 10 + (text[pos] - '0');
    pos++;
  }
  return pos > start && pos - start <= 4;
}

}  // namespace

std::optional<ConvolutionVariant>
ConvolutionVariant::parse (const std::string & text, bool * memory_given)
{
  /* UNROLL:GXxGY[:MEMORY], nothing else around it. */
  ConvolutionVariant variant;
  size_t pos = 0;
  if (!read_small_number (text, pos, variant.unroll) || pos >= text.size () || text[pos++] != ':'
      || !read_small_number (text, pos, variant.group_x) || pos >= text.size ()
      || text[pos++] != 'x' || !read_small_number (text, pos, variant.group_y))
    return std::nullopt;
  if (variant.unroll < 1 || variant.unroll > 16 || variant.group_x < 1 || variant.group_y < 1 ||
      variant.group_x * variant.group_y > 4096)
    return std::nullopt;
  const bool has_memory = pos < text.size ();
  if (has_memory) {
    if (text[pos++] != ':')
      return std::nullopt;
    const std::string name = text.substr (pos);
    if (name == "global")
      variant.filter_memory = FilterMemory::Global;
    else if (name == "constant")
      variant.filter_memory = FilterMemory::Constant;
    else if (name == "local")
      variant.filter_memory = FilterMemory::Local;
    else
      return std::nullopt;
  }
  if (memory_given)
    *memory_given = has_memory;
  return variant;
}

void
Convolution::reset ()
{
  configured_ = false;
  have_variant_ = false;
  kernel_ = cl::Kernel ();
  filters_ = cl::Buffer ();
}

void
Convolution::configure (Device & device, const ConvolutionSpec & spec,
    const std::vector<float> & taps)
{
  if ((int) taps.size () != spec.taps ())
    throw Failure (Failure::Kind::Settings, "a convolution of " +
        std::to_string (spec.num_filters) + " filters of " + std::to_string (spec.kx) + "x" +
        std::to_string (spec.ky) + "x" + std::to_string (spec.kz) + " needs " +
        std::to_string (spec.taps ()) + " taps, not " + std::to_string (taps.size ()));
  if (spec.kx % 2 == 0 || spec.ky % 2 == 0 || spec.kz % 2 == 0 || spec.kz > 16)
    throw Failure (Failure::Kind::Settings, "filter sizes must be odd (and at most 15 deep)");
  bool same_spec = configured_ && spec.build_options () == spec_.build_options ();
  spec_ = spec;
  const size_t bytes = taps.size () * sizeof (float);
  if (!filters_ () || filters_.getInfo<CL_MEM_SIZE> () != bytes)
    filters_ = cl::Buffer (device.context, CL_MEM_READ_ONLY | CL_MEM_HOST_WRITE_ONLY, bytes);
  device.queue.enqueueWriteBuffer (filters_, CL_TRUE, 0, bytes, taps.data ());
  if (!same_spec) {
    have_variant_ = false;
    kernel_ = cl::Kernel ();
  }
  configured_ = true;
}

bool
Convolution::filter_fits (const Device & device, FilterMemory memory) const
{
  const cl_ulong bytes = (cl_ulong) spec_.taps () * sizeof (float);
  switch (memory) {
    case FilterMemory::Global:
      return true;
    case FilterMemory::Constant:
      return bytes <= device.device.getInfo<CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE> ();
    case FilterMemory::Local:
      return bytes + 1024 <= device.local_mem_bytes;
  }
  return false;
}

FilterMemory
Convolution::default_filter_memory (const Device & device) const
{
  if (filter_fits (device, FilterMemory::Constant))
    return FilterMemory::Constant;
  if (filter_fits (device, FilterMemory::Local))
    return FilterMemory::Local;
  return FilterMemory::Global;
}

cl::Kernel
Convolution::build (Device & device, const ConvolutionVariant & variant) const
{
  gchar *text = g_strdup_printf ("%s -DUNROLL=%d -DGROUP_X=%d -DGROUP_Y=%d -DFILTER_MEM=%d",
      spec_.build_options ().c_str (), variant.unroll, variant.group_x, variant.group_y,
      (int) variant.filter_memory);
  std::string options (text);
  g_free (text);
  GST_DEBUG ("convolution kernel [%s]", options.c_str ());
  cl::Kernel kernel = device.kernel ("convolve", "convolve", options);
  size_t limit = kernel.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE> (device.device);
  if ((size_t) variant.group_x * variant.group_y > limit)
    throw Failure (Failure::Kind::Settings, "work-group " + variant.to_string () +
        " exceeds the kernel's limit of " + std::to_string (limit) + " on " + device.name);
  return kernel;
}

void
Convolution::set_args (cl::Kernel & kernel, const ConvolutionArgs & a) const
{
  kernel.setArg (0, *a.src);
  kernel.setArg (1, a.src_row_stride);
  kernel.setArg (2, a.src_plane_stride);
  kernel.setArg (3, a.slots);
  kernel.setArg (4, *a.dst);
  kernel.setArg (5, a.dst_offset);
  kernel.setArg (6, a.dst_row_stride);
  kernel.setArg (7, a.dst_plane_stride);
  kernel.setArg (8, a.width);
  kernel.setArg (9, a.height);
  kernel.setArg (10, a.depth);
  kernel.setArg (11, filters_);
  kernel.setArg (12, a.scale);
  kernel.setArg (13, a.offset);
  kernel.setArg (14, a.alpha_src ? *a.alpha_src : *a.src);
  kernel.setArg (15, a.alpha_row_stride);
  kernel.setArg (16, a.alpha_plane_stride);
}

void
Convolution::enqueue (ElementDevice * element, Device & device, const cl::Kernel & kernel,
    const ConvolutionVariant & variant, const ConvolutionArgs & args, size_t rows,
    size_t planes, cl::Event * event) const
{
  const size_t columns = ((size_t) args.width + variant.unroll - 1) / variant.unroll;
  cl::NDRange global (columns, rows, planes);
  cl::NDRange local ((size_t) variant.group_x, (size_t) variant.group_y, 1);
  if (element) {
    element->launch (kernel, global, local);
    return;
  }
  cl::NDRange padded ((columns + variant.group_x - 1) / variant.group_x * variant.group_x,
      (rows + variant.group_y - 1) / variant.group_y * variant.group_y, planes);
  device.queue.enqueueNDRangeKernel (kernel, cl::NullRange, padded, local, nullptr, event);
}

std::vector<ConvolutionVariant>
Convolution::candidates (const Device & device) const
{
  const int per_output = spec_.num_filters * spec_.channels;
  std::vector<int> unrolls;
  std::vector<std::pair<int, int>> groups;
  std::vector<FilterMemory> memories { default_filter_memory (device) };
  if (device.type & CL_DEVICE_TYPE_GPU) {
    unrolls = { 1, 2, 4, 8 };
    groups = { { 32, 4 }, { 16, 8 } };
    if (memories[0] != FilterMemory::Local && filter_fits (device, FilterMemory::Local))
      memories.push_back (FilterMemory::Local);
  } else {
    /* CPU drivers compile slowly: two candidates only, the two largest unrolls whose
     * accumulators stay within what a vectorized work-group keeps in registers (measured with
     * PoCL: 32 filters run best at unroll 4 and twice as slow at 8). */
    unrolls.clear ();
    for (int unroll : { 8, 4, 2, 1 }) {
      if (unrolls.size () < 2 && (unroll == 1 || unroll * per_output <= CPU_ACCUMULATORS))
        unrolls.push_back (unroll);
    }
    groups = { { 16, 4 } };
  }
  std::vector<ConvolutionVariant> list;
  for (int unroll : unrolls) {
    if (unroll > 1 && unroll * per_output > MAX_ACCUMULATORS)
      continue;
    for (auto group : groups) {
      if ((size_t) group.first * group.second > device.max_work_group_size)
        continue;
      for (FilterMemory memory : memories)
        list.push_back ({ unroll, group.first, group.second, memory });
    }
  }
  if (list.empty ())
    list.push_back ({ 1, 8, 1, memories[0] });
  return list;
}

std::string
Convolution::tuning_path (const Device & device, const ConvolutionSpec & spec)
{
  cl::Platform platform (device.device.getInfo<CL_DEVICE_PLATFORM> ());
  std::string identity = std::string (TUNING_VERSION) + '\0' +
      platform.getInfo<CL_PLATFORM_NAME> () + '\0' + device.device.getInfo<CL_DEVICE_NAME> () +
      '\0' + device.device.getInfo<CL_DRIVER_VERSION> () + '\0' + spec.build_options ();
  gchar name[32];
  g_snprintf (name, sizeof name, "%016" G_GINT64_MODIFIER "x.txt",
      (guint64) stable_hash (identity));
  gchar *path = g_build_filename (g_get_user_cache_dir (), "gst-opencl", "tuning", name,
      nullptr);
  std::string result (path);
  g_free (path);
  return result;
}

void
Convolution::choose_variant (ElementDevice & element, const ConvolutionArgs & args)
{
  Device & device = element.device ();

  const char *forced = g_getenv ("GST_OPENCL_CONV_VARIANT");
  if (forced && *forced) {
    bool memory_given = false;
    auto variant = ConvolutionVariant::parse (forced, &memory_given);
    if (!variant)
      throw Failure (Failure::Kind::Settings, std::string ("GST_OPENCL_CONV_VARIANT=\"") +
          forced + "\" is not <unroll>:<group x>x<group y>[:constant|local|global]");
    if (!memory_given || !filter_fits (device, variant->filter_memory))
      variant->filter_memory = default_filter_memory (device);
    kernel_ = build (device, *variant);
    variant_ = *variant;
    GST_INFO ("convolution variant %s (GST_OPENCL_CONV_VARIANT)", variant_.to_string ().c_str ());
    return;
  }

  const std::string path = tuning_path (device, spec_);
  if (tuning_cache_enabled ()) {
    gchar *contents = nullptr;
    if (g_file_get_contents (path.c_str (), &contents, nullptr, nullptr)) {
      auto variant = ConvolutionVariant::parse (g_strstrip (contents));
      g_free (contents);
      if (variant && filter_fits (device, variant->filter_memory)) {
        try {
          kernel_ = build (device, *variant);
          variant_ = *variant;
          GST_INFO ("convolution variant %s from %s", variant_.to_string ().c_str (),
              path.c_str ());
          return;
        } catch (const std::exception & e) {
          GST_INFO ("cached variant in %s unusable (%s), tuning again", path.c_str (),
              e.what ());
        }
      }
    }
  }

  /* Time each candidate on the real data (a slab of it on CPUs): one untimed launch, then the
   * best of three. This is the only place a Convolution waits for the device. */
  const bool slab = !(device.type & CL_DEVICE_TYPE_GPU);
  const size_t rows = slab ? std::min<size_t> (args.height, TUNING_ROWS) : args.height;
  const size_t planes = slab ? std::min<size_t> (args.depth, TUNING_PLANES) : args.depth;
  double best_ns = -1.0;
  for (const auto & candidate : candidates (device)) {
    try {
      cl::Kernel kernel = build (device, candidate);
      set_args (kernel, args);
      double candidate_ns = -1.0;
      for (int repeat = 0; repeat < 4; repeat++) {
        cl::Event event;
        enqueue (nullptr, device, kernel, candidate, args, rows, planes, &event);
        event.wait ();
        if (repeat == 0)
          continue;
        double ns = (double) (event.getProfilingInfo<CL_PROFILING_COMMAND_END> () -
            event.getProfilingInfo<CL_PROFILING_COMMAND_START> ());
        candidate_ns = candidate_ns < 0 ? ns : std::min (candidate_ns, ns);
      }
      GST_DEBUG ("variant %s: %.0f ns", candidate.to_string ().c_str (), candidate_ns);
      if (best_ns < 0 || candidate_ns < best_ns) {
        best_ns = candidate_ns;
        variant_ = candidate;
        kernel_ = kernel;
      }
    } catch (const std::exception & e) {
      GST_INFO ("variant %s unusable: %s", candidate.to_string ().c_str (), e.what ());
    }
  }
  if (best_ns < 0)
    throw Failure (Failure::Kind::Failed, "no convolution variant runs on " + device.name);
  GST_INFO ("convolution variant %s chosen by timing (%.0f ns)",
      variant_.to_string ().c_str (), best_ns);

  if (tuning_cache_enabled ()) {
    gchar *dir = g_path_get_dirname (path.c_str ());
    g_mkdir_with_parents (dir, 0755);
    g_free (dir);
    std::string text = variant_.to_string () + "\n";
    GError *error = nullptr;
    if (!g_file_set_contents (path.c_str (), text.c_str (), -1, &error)) {
      GST_WARNING ("cannot write %s: %s", path.c_str (), error->message);
      g_clear_error (&error);
    }
  }
}

void
Convolution::run (ElementDevice & element, const ConvolutionArgs & args)
{
  if (!configured_)
    throw Failure (Failure::Kind::Failed, "convolution run before it was configured");
  Device & device = element.device ();
  if (!have_variant_) {
    choose_variant (element, args);
    have_variant_ = true;
  }
  set_args (kernel_, args);
  enqueue (&element, device, kernel_, variant_, args, (size_t) args.height,
      (size_t) args.depth, nullptr);
}

std::optional<SeparableFactors>
separate (const std::vector<float> & taps, int kx, int ky, int kz, double relative_tolerance)
{
  if ((int) taps.size () != kx * ky * kz || taps.empty ())
    return std::nullopt;
  auto at = [&](int i, int j, int l) { return (double) taps[((size_t) l * ky + j) * kx + i]; };
  size_t peak = 0;
  for (size_t t = 1; t < taps.size (); t++) {
    if (std::fabs (taps[t]) > std::fabs (taps[peak]))
      peak = t;
  }
  const int i0 = (int) (peak % kx);
  const int j0 = (int) (peak / kx % ky);
  const int l0 = (int) (peak / ((size_t) kx * ky));
  const double m = at (i0, j0, l0);
  SeparableFactors factors;
  factors.x.resize (kx);
  factors.y.resize (ky);
  factors.z.resize (kz);
  if (m == 0.0) {
    /* All zero: any factors with a zero one. */
    std::fill (factors.y.begin (), factors.y.end (), 1.0f);
    std::fill (factors.z.begin (), factors.z.end (), 1.0f);
    return factors;
  }
  for (int i = 0; i < kx; i++)
    factors.x[i] = (float) at (i, j0, l0);
  for (int j = 0; j < ky; j++)
    factors.y[j] = (float) (at (i0, j, l0) / m);
  for (int l = 0; l < kz; l++)
    factors.z[l] = (float) (at (i0, j0, l) / m);
  const double limit = relative_tolerance * std::fabs (m);
  for (int l = 0; l < kz; l++) {
    for (int j = 0; j < ky; j++) {
      for (int i = 0; i < kx; i++) {
        double product = (double) factors.x[i] * factors.y[j] * factors.z[l];
        if (std::fabs (product - at (i, j, l)) > limit)
          return std::nullopt;
      }
    }
  }
  return factors;
}

std::vector<float>
float_array_from_value (const GValue * value)
{
  std::vector<float> values;
  if (!GST_VALUE_HOLDS_ARRAY (value))
    return values;
  const guint count = gst_value_array_get_size (value);
  values.reserve (count);
  for (guint index = 0; index < count; index++) {
    const GValue *element = gst_value_array_get_value (value, index);
    GValue as_float = G_VALUE_INIT;
    g_value_init (&as_float, G_TYPE_FLOAT);
    if (g_value_transform (element, &as_float))
      values.push_back (g_value_get_float (&as_float));
    else
      values.push_back (NAN);
    g_value_unset (&as_float);
  }
  return values;
}

void
float_array_to_value (const std::vector<float> & values, GValue * value)
{
  for (float v : values) {
    GValue element = G_VALUE_INIT;
    g_value_init (&element, G_TYPE_FLOAT);
    g_value_set_float (&element, v);
    gst_value_array_append_and_take_value (value, &element);
  }
}

}  // namespace gst_opencl
