/* gst-opencl: the kernel sources embedded at build time.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "opencl/gstopenclkernels.h"

#include <gst/gst.h>

#include "opencl/gstopenclenv.h"
#include "opencl/gstopenclutils.h"

#define GST_CAT_DEFAULT gst_opencl_debug

namespace gst_opencl {

std::string
kernel_source (const std::string & name)
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

}  // namespace gst_opencl
