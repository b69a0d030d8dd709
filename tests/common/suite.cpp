/* gst-opencl tests: check suites built from lists of tests.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "common/suite.h"
#include "common/testutil.h"

#include <string>
#include <vector>

namespace testutil {

TCase *
add_case (Suite * suite, const char *case_name, int timeout_s, const char *test_names,
    std::initializer_list<TFun> tests)
{
  /* The preprocessor joins the list's tokens with ", " (line breaks become one space). */
  std::vector<std::string> names = split (test_names, ",");
  for (std::string & name : names) {
    name.erase (0, name.find_first_not_of (' '));
    name.erase (name.find_last_not_of (' ') + 1);
  }
  g_assert (names.size () == tests.size ());

  TCase *tc = tcase_create (case_name);
  if (timeout_s > 0)
    tcase_set_timeout (tc, timeout_s);
  suite_add_tcase (suite, tc);
  size_t i = 0;
  for (TFun test : tests) {
    /* check keeps the name's pointer: the strings live as long as the process. */
    _tcase_add_test (tc, test, g_intern_string (names[i++].c_str ()), 0, 0, 0, 1);
  }
  return tc;
}

}  // namespace testutil
