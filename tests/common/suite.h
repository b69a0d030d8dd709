/* gst-opencl tests: check suites built from lists of tests, so that every suite says only its
 * name, its timeout and its tests.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gst/check/gstcheck.h>

#include <initializer_list>

namespace testutil {

/* Adds a test case `case_name` to `suite` holding `tests`, in order; `test_names` is the list's
 * text ("test_a, test_b", as the macros below stringify it), so check reports each test by its
 * name. `timeout_s` 0 keeps check's default (CK_DEFAULT_TIMEOUT). */
TCase *add_case (Suite * suite, const char *case_name, int timeout_s, const char *test_names,
    std::initializer_list<TFun> tests);

}  // namespace testutil

#define TESTUTIL_ADD_CASE(suite, case_name, timeout_s, ...) \
  testutil::add_case ((suite), (case_name), (timeout_s), #__VA_ARGS__, { __VA_ARGS__ })

/* A suite `name` of one test case, "general". */
#define TESTUTIL_SUITE(name, timeout_s, ...) \
  [] { \
    Suite *suite_ = suite_create (name); \
    TESTUTIL_ADD_CASE (suite_, "general", (timeout_s), __VA_ARGS__); \
    return suite_; \
  } ()

/* GST_CHECK_MAIN for a test that links the shared layer in statically: the layer's debug
 * category is then the test's to register. */
#define TESTUTIL_LAYER_MAIN(name) \
  int \
  main (int argc, char **argv) \
  { \
    gst_check_init (&argc, &argv); \
    GST_DEBUG_CATEGORY_INIT (gst_opencl_debug, "opencl", 0, "OpenCL shared layer"); \
    return gst_check_run_suite (name##_suite (), #name, __FILE__); \
  }
