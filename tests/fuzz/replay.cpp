/* gst-opencl: runs a fuzz target's LLVMFuzzerTestOneInput over stored inputs (files, or every
 * file of the folders given), so `meson test` replays the corpus and every crash once found
 * without needing clang. Exit status 0 when all ran (a bad input aborts).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include <glib.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput (const uint8_t * data, size_t size);
extern "C" int LLVMFuzzerInitialize (int *argc, char ***argv) __attribute__ ((weak));

static int
run_file (const std::string & path)
{
  gchar *contents = nullptr;
  gsize length = 0;
  GError *error = nullptr;
  if (!g_file_get_contents (path.c_str (), &contents, &length, &error)) {
    fprintf (stderr, "%s\n", error->message);
    g_error_free (error);
    return 1;
  }
  LLVMFuzzerTestOneInput (reinterpret_cast<const uint8_t *> (contents), length);
  g_free (contents);
  return 0;
}

int
main (int argc, char **argv)
{
  if (LLVMFuzzerInitialize)
    LLVMFuzzerInitialize (&argc, &argv);
  int inputs = 0, failures = 0;
  for (int i = 1; i < argc; i++) {
    if (g_file_test (argv[i], G_FILE_TEST_IS_DIR)) {
      GDir *dir = g_dir_open (argv[i], 0, nullptr);
      std::vector<std::string> names;
      while (const gchar *name = g_dir_read_name (dir))
        names.push_back (std::string (argv[i]) + "/" + name);
      g_dir_close (dir);
      for (const auto & name : names) {
        failures += run_file (name);
        inputs++;
      }
    } else {
      failures += run_file (argv[i]);
      inputs++;
    }
  }
  printf ("%d inputs replayed\n", inputs);
  return failures || inputs == 0 ? 1 : 0;
}
