/* gst-opencl: the kernel sources embedded at build time.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "opencl/gstopenclkernels.h"

#include <gst/gst.h>

#include <algorithm>
#include <vector>

#include "opencl/gstopenclenv.h"
#include "opencl/gstopenclutils.h"

#define GST_CAT_DEFAULT gst_opencl_debug

namespace gst_opencl {

namespace {

/* The file's own text, from the override folder or the plugin. */
std::string
file_source (const std::string & name)
{
  const std::string override_dir = env::text (env::Variable::KernelDir);
  if (!override_dir.empty ()) {
    gchar *path = g_build_filename (override_dir.c_str (), (name + ".cl").c_str (), nullptr);
    gchar *contents = nullptr;
    GError *error = nullptr;
    bool exists = g_file_test (path, G_FILE_TEST_EXISTS);
    if (exists && g_file_get_contents (path, &contents, nullptr, &error)) {
      GST_INFO ("kernel %s from %s (GST_OPENCL_KERNEL_DIR)", name.c_str (), path);
      std::string source (contents);
      g_free (contents);
      g_free (path);
      return source;
    }
    if (exists) {
      std::string message = std::string ("cannot read kernel override ") + path + ": " +
          (error ? error->message : "unknown error");
      g_clear_error (&error);
      g_free (path);
      throw Failure (Failure::Kind::Settings, message);
    }
    g_free (path);
  }
  for (const auto *kernel = gst_opencl_embedded_kernels; kernel->name; kernel++) {
    if (name == kernel->name)
      return kernel->source;
  }
  throw Failure (Failure::Kind::Failed, "no kernel source named " + name);
}

/* `text` with each line `#include "<other>.cl"` replaced by <other>'s source, expanded too;
 * `open` holds the files being expanded, to refuse a cycle. */
std::string
expand_includes (const std::string & name, const std::string & text,
    std::vector<std::string> & open)
{
  static const std::string directive = "#include \"";
  std::string out;
  size_t line = 0;
  while (line < text.size ()) {
    size_t end = text.find ('\n', line);
    end = end == std::string::npos ? text.size () : end + 1;
    const std::string current = text.substr (line, end - line);
    const size_t close = current.find (".cl\"");
    if (current.compare (0, directive.size (), directive) == 0 && close != std::string::npos) {
      const std::string other = current.substr (directive.size (),
          close - directive.size ());
      if (std::find (open.begin (), open.end (), other) != open.end ())
        throw Failure (Failure::Kind::Failed, "kernel " + name + " includes " + other +
            ", which includes it");
      open.push_back (other);
      out += expand_includes (other, file_source (other), open);
      open.pop_back ();
      if (!out.empty () && out.back () != '\n')
        out += '\n';
    } else {
      out += current;
    }
    line = end;
  }
  return out;
}

}  // namespace

std::string
kernel_source (const std::string & name)
{
  std::vector<std::string> open { name };
  return expand_includes (name, file_source (name), open);
}

}  // namespace gst_opencl
