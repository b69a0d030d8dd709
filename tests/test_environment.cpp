/* gst-opencl tests: the GST_OPENCL_* environment variables (gst/opencl/gstopenclenv.h).
 *
 * - The code's table against README.md's (the table whose header starts "| variable |"): no
 *   variable missing on either side, every word of a word variable and every tuned family in
 *   the README's row.
 * - No getenv of a GST_OPENCL_* name in gst/ outside gstopenclenv.cpp: a call whose argument
 *   is a string literal of another name is allowed, one whose name is built at run time is not.
 * - The table's rows are well formed; the accessors parse as the rows say, warn once of a
 *   malformed value and take the default (or throw, in the rows that say so), read the Once
 *   variables once and the others at every call.
 *
 * The shared layer is linked in statically; `test_environment --table` prints the code's table.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include <gst/check/gstcheck.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "common/suite.h"
#include "common/testutil.h"
#include "opencl/gstopenclenv.h"
#include "opencl/gstopenclutils.h"

namespace env = gst_opencl::env;
using env::Variable;

namespace {

std::string
read_text (const std::string & path)
{
  gchar *contents = nullptr;
  GError *error = nullptr;
  if (!g_file_get_contents (path.c_str (), &contents, nullptr, &error)) {
    std::string message = error->message;
    g_clear_error (&error);
    fail ("cannot read %s: %s", path.c_str (), message.c_str ());
  }
  std::string text (contents);
  g_free (contents);
  return text;
}

/* A README table's rows: the whole line of each, by the variable its first cell names
 * (GST_OPENCL_ and the capitals, digits, underscores and <FAMILY> that follow). */
struct ReadmeRow
{
  std::string name;
  std::string line;
};

std::vector<ReadmeRow>
readme_rows (const std::string & readme)
{
  std::vector<ReadmeRow> rows;
  bool in_table = false;
  for (const std::string & line : testutil::split (readme, "\n")) {
    if (!in_table) {
      in_table = line.rfind ("| variable |", 0) == 0;
      continue;
    }
    if (line.rfind ("|", 0) != 0)
      break;
    if (line.rfind ("| ---", 0) == 0)
      continue;
    const std::string first = line.substr (1, line.find ('|', 1) - 1);
    const size_t at = first.find ("GST_OPENCL_");
    std::string name;
    if (at != std::string::npos) {
      size_t end = at;
      while (end < first.size () && (g_ascii_isupper (first[end]) ||
              g_ascii_isdigit (first[end]) || first[end] == '_' || first[end] == '<' ||
              first[end] == '>'))
        end++;
      name = first.substr (at, end - at);
    }
    rows.push_back ({ name, line });
  }
  return rows;
}

/* What differs between the code's table and the README's: one line per problem. */
std::vector<std::string>
readme_problems (const std::string & readme)
{
  std::vector<std::string> problems;
  const auto rows = readme_rows (readme);
  if (rows.empty ())
    return { "README.md has no table whose header starts \"| variable |\"" };
  size_t n = 0;
  const env::Entry *table = env::table (&n);
  std::set<std::string> code_names;
  for (size_t i = 0; i < n; i++) {
    const env::Entry & row = table[i];
    code_names.insert (row.name);
    auto readme_row = std::find_if (rows.begin (), rows.end (),
        [&](const ReadmeRow & r) { return r.name == row.name; });
    if (readme_row == rows.end ()) {
      problems.push_back (std::string (row.name) + ": in the code's table, not in README.md's");
      continue;
    }
    for (size_t w = 0; w < G_N_ELEMENTS (row.words) && row.words[w]; w++)
      if (readme_row->line.find (std::string ("`") + row.words[w] + "`") == std::string::npos)
        problems.push_back (std::string (row.name) + ": README.md's row lacks `" +
            row.words[w] + "`");
    if (row.variable == Variable::Variant)
      for (size_t f = 0; env::FAMILIES[f]; f++) {
        const std::string family = env::variant_name (env::FAMILIES[f]).substr (
            strlen ("GST_OPENCL_VARIANT_"));
        if (readme_row->line.find ("`" + family + "`") == std::string::npos)
          problems.push_back (std::string (row.name) + ": README.md's row lacks the family `" +
              family + "`");
      }
  }
  for (const ReadmeRow & row : rows) {
    if (row.name.empty ())
      problems.push_back ("a README.md row names no GST_OPENCL_ variable: " + row.line);
    else if (!code_names.count (row.name))
      problems.push_back (row.name + ": in README.md's table, not in the code's");
  }
  return problems;
}

/* The calls of getenv in `text` (a source file) that read a GST_OPENCL_ variable or a name
 * built at run time, as "<line>: <the line>". */
std::vector<std::string>
getenv_problems (const std::string & text)
{
  std::vector<std::string> problems;
  GRegex *call = g_regex_new ("\\b(?:g_environ_getenv\\s*\\([^,]*,|(?:g_|std::|secure_)?getenv"
      "\\s*\\()\\s*(\"[^\"]*)?", GRegexCompileFlags (0), GRegexMatchFlags (0), nullptr);
  const auto lines = testutil::split (text, "\n");
  for (size_t i = 0; i < lines.size (); i++) {
    GMatchInfo *match = nullptr;
    g_regex_match (call, lines[i].c_str (), GRegexMatchFlags (0), &match);
    while (g_match_info_matches (match)) {
      gchar *literal = g_match_info_fetch (match, 1);
      if (!literal || !*literal || g_str_has_prefix (literal, "\"GST_OPENCL_"))
        problems.push_back (std::to_string (i + 1) + ": " + lines[i]);
      g_free (literal);
      g_match_info_next (match, nullptr);
    }
    g_match_info_free (match);
  }
  g_regex_unref (call);
  return problems;
}

void
scan_sources (const std::string & folder, const std::string & relative,
    std::vector<std::string> & problems, size_t & files)
{
  GDir *dir = g_dir_open (folder.c_str (), 0, nullptr);
  fail_unless (dir != nullptr, "cannot open %s", folder.c_str ());
  while (const gchar *name = g_dir_read_name (dir)) {
    const std::string path = folder + G_DIR_SEPARATOR_S + name;
    const std::string shown = relative + "/" + name;
    if (g_file_test (path.c_str (), G_FILE_TEST_IS_DIR)) {
      scan_sources (path, shown, problems, files);
      continue;
    }
    if (!(g_str_has_suffix (name, ".cpp") || g_str_has_suffix (name, ".h") ||
            g_str_has_suffix (name, ".c") || g_str_has_suffix (name, ".cc") ||
            g_str_has_suffix (name, ".hpp") || g_str_has_suffix (name, ".inc")))
      continue;
    files++;
    if (shown == "gst/opencl/gstopenclenv.cpp" || shown == "gst/opencl/gstopenclenv.h")
      continue;
    for (const std::string & problem : getenv_problems (read_text (path)))
      problems.push_back (shown + ":" + problem);
  }
  g_dir_close (dir);
}

/* The GST_WARNINGs of the layer's debug category, while a Warnings lives. */
class Warnings
{
public:
  Warnings ()
  {
    gst_debug_set_threshold_for_name ("opencl", GST_LEVEL_WARNING);
    gst_debug_add_log_function (log, this, nullptr);
  }
  ~Warnings ()
  {
    gst_debug_remove_log_function_by_data (this);
  }
  std::vector<std::string> taken ()
  {
    std::lock_guard<std::mutex> guard (lock_);
    auto messages = std::move (messages_);
    messages_.clear ();
    return messages;
  }

private:
  static void log (GstDebugCategory * category, GstDebugLevel level, const gchar *,
      const gchar *, gint, GObject *, GstDebugMessage * message, gpointer data)
  {
    if (level != GST_LEVEL_WARNING || g_strcmp0 (gst_debug_category_get_name (category),
            "opencl") != 0)
      return;
    auto *self = static_cast<Warnings *> (data);
    std::lock_guard<std::mutex> guard (self->lock_);
    self->messages_.push_back (gst_debug_message_get (message));
  }

  std::mutex lock_;
  std::vector<std::string> messages_;
};

/* Whether `run` throws a Failure of kind Settings whose message holds `text`. */
template <typename Run>
bool
throws_settings (Run && run, const char *text)
{
  try {
    run ();
  } catch (const gst_opencl::Failure & failure) {
    return failure.kind == gst_opencl::Failure::Kind::Settings &&
        strstr (failure.what (), text) != nullptr;
  }
  return false;
}

std::string
joined (const std::vector<std::string> & lines)
{
  std::string text;
  for (const auto & line : lines)
    text += "\n  " + line;
  return text;
}

}  // namespace

GST_START_TEST (test_readme_table_is_the_code_table)
{
  const std::string readme = read_text (std::string (SOURCE_ROOT) + "/README.md");
  const auto problems = readme_problems (readme);
  fail_unless (problems.empty (), "README.md's table of environment variables is not the code's "
      "(gst/opencl/gstopenclenv.cpp):%s", joined (problems).c_str ());

  /* The check sees a row taken out, and a row of a variable the code does not have. */
  const std::string row = "| `GST_OPENCL_ZERO_COPY` |";
  const size_t at = readme.find (row);
  fail_unless (at != std::string::npos);
  std::string without = readme;
  without.erase (at, readme.find ('\n', at) + 1 - at);
  auto missing = readme_problems (without);
  fail_unless (missing.size () == 1 && missing[0].find ("GST_OPENCL_ZERO_COPY: in the code's "
          "table") == 0, "a missing row not seen:%s", joined (missing).c_str ());
  std::string extra = readme;
  extra.insert (at, "| `GST_OPENCL_NO_SUCH` | `0`, `1` | nothing |\n");
  auto unknown = readme_problems (extra);
  fail_unless (unknown.size () == 1 && unknown[0].find ("GST_OPENCL_NO_SUCH: in README.md's") ==
      0, "an extra row not seen:%s", joined (unknown).c_str ());
}
GST_END_TEST;

GST_START_TEST (test_no_getenv_outside_the_table)
{
  /* The scan itself: literal names of the plugin and names built at run time are found. */
  fail_unless_equals_int (getenv_problems ("const char *v = g_getenv (\"GST_OPENCL_X\");\n"
          "if (getenv (name.c_str ()))\n"
          "  std::getenv(\"GST_OPENCL_Y\");\n"
          "g_environ_getenv (envp, \"GST_OPENCL_Z\");\n").size (), 4);
  fail_unless (getenv_problems ("const char *home = g_getenv (\"HOME\");\n").empty ());

  std::vector<std::string> problems;
  size_t files = 0;
  scan_sources (std::string (SOURCE_ROOT) + "/gst", "gst", problems, files);
  fail_unless (files > 50, "only %zu source files under gst/", files);
  fail_unless (problems.empty (), "getenv of GST_OPENCL_ variables outside "
      "gst/opencl/gstopenclenv.cpp (read them through gst_opencl::env):%s",
      joined (problems).c_str ());
}
GST_END_TEST;

GST_START_TEST (test_rows_are_well_formed)
{
  size_t n = 0;
  const env::Entry *table = env::table (&n);
  std::set<std::string> names;
  std::set<int> variables;
  for (size_t i = 0; i < n; i++) {
    const env::Entry & row = table[i];
    fail_unless (g_str_has_prefix (row.name, "GST_OPENCL_"), "%s", row.name);
    fail_unless (!g_str_has_prefix (row.name, "GST_OPENCL_TEST_"), "%s is the tests'", row.name);
    fail_unless (names.insert (row.name).second, "%s twice", row.name);
    fail_unless (variables.insert ((int) row.variable).second, "%s: its variable twice",
        row.name);
    fail_unless (&env::entry (row.variable) == &row, "%s", row.name);
    fail_unless (row.values && *row.values && row.effect && *row.effect, "%s", row.name);
    size_t words = 0;
    while (words < G_N_ELEMENTS (row.words) && row.words[words])
      words++;
    switch (row.parse) {
      case env::Parse::Flag:
        fail_unless (row.fallback <= 1 && words == 0, "%s", row.name);
        break;
      case env::Parse::Number:
        fail_unless (row.min <= row.max && row.expected && words == 0, "%s", row.name);
        break;
      case env::Parse::Word:
        fail_unless (words >= 2 && row.fallback_word >= -1 && row.fallback_word < (int) words &&
            row.expected, "%s", row.name);
        break;
      case env::Parse::Text:
        fail_unless (row.read == env::Read::AtSetup && words == 0, "%s", row.name);
        break;
    }
  }
  std::set<std::string> families;
  for (size_t f = 0; env::FAMILIES[f]; f++)
    fail_unless (families.insert (env::variant_name (env::FAMILIES[f])).second, "%s twice",
        env::FAMILIES[f]);
  fail_unless (env::variant_name ("sort-onesweep") == "GST_OPENCL_VARIANT_SORT_ONESWEEP");
}
GST_END_TEST;

GST_START_TEST (test_values_parse_as_the_rows_say)
{
  Warnings warnings;
  /* Flags. */
  g_unsetenv ("GST_OPENCL_ZERO_COPY");
  fail_unless (env::flag (Variable::ZeroCopy));
  g_setenv ("GST_OPENCL_ZERO_COPY", "0", TRUE);
  fail_if (env::flag (Variable::ZeroCopy));
  g_setenv ("GST_OPENCL_ZERO_COPY", "", TRUE);
  fail_unless (env::flag (Variable::ZeroCopy), "an empty value is not as unset");
  g_setenv ("GST_OPENCL_CHECKED", "1", TRUE);
  fail_unless (env::flag (Variable::Checked));
  g_unsetenv ("GST_OPENCL_CHECKED");
  fail_if (env::flag (Variable::Checked));
  /* Numbers, with their ranges. */
  g_setenv ("GST_OPENCL_CPU_LANES", "8", TRUE);
  fail_unless_equals_uint64 (env::number (Variable::CpuLanes), 8);
  g_setenv ("GST_OPENCL_HISTOGRAM_GROUPS", "0", TRUE);
  fail_unless_equals_uint64 (env::number (Variable::HistogramGroups), 0);
  g_setenv ("GST_OPENCL_MAX_ALLOC_BYTES", "65536", TRUE);
  fail_unless_equals_uint64 (env::number (Variable::MaxAllocBytes), 65536);
  g_unsetenv ("GST_OPENCL_MAX_ALLOC_BYTES");
  fail_unless_equals_uint64 (env::number (Variable::MaxAllocBytes), 0);
  /* Words: the index of the word in the row. */
  g_setenv ("GST_OPENCL_TRANSFER_ORDER", "host-upload", TRUE);
  fail_unless_equals_int (env::word (Variable::TransferOrder), 2);
  g_unsetenv ("GST_OPENCL_TRANSFER_ORDER");
  fail_unless_equals_int (env::word (Variable::TransferOrder), 0);
  g_unsetenv ("GST_OPENCL_GL_INTEROP");
  fail_unless_equals_int (env::word (Variable::GlInterop), -1);
  /* Text and the families' variants. */
  g_setenv ("GST_OPENCL_DEVICE", "cpu", TRUE);
  fail_unless (env::text (Variable::Device) == "cpu");
  g_setenv ("GST_OPENCL_VARIANT_SORT_RADIX", "32x4", TRUE);
  fail_unless (env::variant ("sort-radix") == "32x4");
  g_unsetenv ("GST_OPENCL_VARIANT_SORT_RADIX");
  fail_unless (env::variant ("sort-radix").empty ());
  g_unsetenv ("GST_OPENCL_DEVICE");
  g_unsetenv ("GST_OPENCL_CPU_LANES");
  g_unsetenv ("GST_OPENCL_HISTOGRAM_GROUPS");
  g_unsetenv ("GST_OPENCL_ZERO_COPY");
  const auto told = warnings.taken ();
  fail_unless (told.empty (), "warnings for good values:%s", joined (told).c_str ());
}
GST_END_TEST;

GST_START_TEST (test_malformed_values_warn_once)
{
  Warnings warnings;
  const struct
  {
    const char *name, *value;
    std::function<bool ()> took_default;
    const char *expected;
  } cases[] = {
    { "GST_OPENCL_CPU_LANES", "banana",
        [] { return env::number (Variable::CpuLanes) == 0; },
        "GST_OPENCL_CPU_LANES=banana is not a lane count (a whole number from 1 to 64)" },
    { "GST_OPENCL_CPU_LANES", "65",
        [] { return env::number (Variable::CpuLanes) == 0; },
        "GST_OPENCL_CPU_LANES=65 is not a lane count" },
    { "GST_OPENCL_ZERO_COPY", "no",
        [] { return env::flag (Variable::ZeroCopy); },
        "GST_OPENCL_ZERO_COPY=no is not 0 or 1" },
    { "GST_OPENCL_COUNT_TRANSFERS", "yes",
        [] { return !env::flag (Variable::CountTransfers); },
        "GST_OPENCL_COUNT_TRANSFERS=yes is not 0 or 1" },
    { "GST_OPENCL_TRANSFER_ORDER", "sideways",
        [] { return env::word (Variable::TransferOrder) == 0; },
        "GST_OPENCL_TRANSFER_ORDER=sideways is not an order: host, events or host-upload" },
    { "GST_OPENCL_BILATERAL_TILE", "half",
        [] { return env::word (Variable::BilateralTile) == -1; },
        "GST_OPENCL_BILATERAL_TILE=half is not a tile: float or byte" },
  };
  for (const auto & c : cases) {
    g_setenv (c.name, c.value, TRUE);
    for (int twice = 0; twice < 2; twice++)
      fail_unless (c.took_default (), "%s=%s: not the default", c.name, c.value);
    g_unsetenv (c.name);
    const auto told = warnings.taken ();
    fail_unless (told.size () == 1 && told[0].find (c.expected) == 0 &&
        told[0].find ("the default is used") != std::string::npos,
        "%s=%s: not one warning \"%s...\":%s", c.name, c.value, c.expected,
        joined (told).c_str ());
  }

  /* Errors where the rows say so, each time. */
  g_setenv ("GST_OPENCL_MAX_ALLOC_BYTES", "banana", TRUE);
  for (int twice = 0; twice < 2; twice++)
    fail_unless (throws_settings ([] { env::number (Variable::MaxAllocBytes); },
            "GST_OPENCL_MAX_ALLOC_BYTES=banana is not a number of bytes (a whole number from "
            "1)"));
  g_setenv ("GST_OPENCL_MAX_ALLOC_BYTES", "0", TRUE);
  fail_unless (throws_settings ([] { env::number (Variable::MaxAllocBytes); }, "=0 is not"));
  g_unsetenv ("GST_OPENCL_MAX_ALLOC_BYTES");
  g_setenv ("GST_OPENCL_GL_INTEROP", "fast", TRUE);
  fail_unless (throws_settings ([] { env::word (Variable::GlInterop); },
          "GST_OPENCL_GL_INTEROP=fast is not a path: host-copy, external-memory or "
          "khr-gl-sharing"));
  g_unsetenv ("GST_OPENCL_GL_INTEROP");
  const auto told = warnings.taken ();
  fail_unless (told.empty (), "warnings for errors:%s", joined (told).c_str ());
}
GST_END_TEST;

GST_START_TEST (test_read_once_or_at_every_setup)
{
  /* Read::AtSetup: every call sees the value of the moment. */
  fail_unless (env::entry (Variable::Tuning).read == env::Read::AtSetup);
  g_setenv ("GST_OPENCL_TUNING", "0", TRUE);
  fail_if (env::flag (Variable::Tuning));
  g_unsetenv ("GST_OPENCL_TUNING");
  fail_unless (env::flag (Variable::Tuning));
  /* Read::Once: the first call's value for the whole process. */
  fail_unless (env::entry (Variable::ImageViews).read == env::Read::Once);
  g_setenv ("GST_OPENCL_IMAGE_VIEWS", "0", TRUE);
  fail_if (env::flag (Variable::ImageViews));
  g_unsetenv ("GST_OPENCL_IMAGE_VIEWS");
  fail_if (env::flag (Variable::ImageViews), "GST_OPENCL_IMAGE_VIEWS read again");
  g_setenv ("GST_OPENCL_TUNING", "0", TRUE);
}
GST_END_TEST;

static Suite *
environment_suite ()
{
  return TESTUTIL_SUITE ("environment", 0, test_readme_table_is_the_code_table,
      test_no_getenv_outside_the_table, test_rows_are_well_formed,
      test_values_parse_as_the_rows_say, test_malformed_values_warn_once,
      test_read_once_or_at_every_setup);
}

/* TESTUTIL_LAYER_MAIN, and `--table`: the code's table, one variable a line. */
int
main (int argc, char **argv)
{
  if (argc > 1 && g_str_equal (argv[1], "--table")) {
    size_t n = 0;
    const env::Entry *table = env::table (&n);
    for (size_t i = 0; i < n; i++)
      g_print ("%s\t%s\t%s\t%s\n", table[i].name,
          table[i].read == env::Read::Once ? "once" : "at setup", table[i].values,
          table[i].effect);
    return 0;
  }
  gst_check_init (&argc, &argv);
  GST_DEBUG_CATEGORY_INIT (gst_opencl_debug, "opencl", 0, "OpenCL shared layer");
  return gst_check_run_suite (environment_suite (), "environment", __FILE__);
}
