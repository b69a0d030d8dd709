/* gst-opencl fuzz target: other/tensors caps through gst_opencl::tensor_info_from_caps. The
 * first byte picks what the rest is: whole caps text, or only the dimensions field of otherwise
 * valid tensor caps (so the dimension parser is reached more often). Built as a libFuzzer
 * program by tests/fuzz/run.sh, and as a replay of the stored corpus by `meson test`.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include <gst/gst.h>

#include <cstdint>
#include <cstdlib>
#include <string>

#include "opencl/gstopencltensor.h"
#include "opencl/gstopenclutils.h"

/* LLVMFuzzerInitialize: gst_init.cpp. */

extern "C" int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  if (size == 0)
    return 0;
  std::string rest (reinterpret_cast<const char *> (data) + 1, size - 1);
  rest = rest.c_str ();  /* caps text ends at the first NUL */
  std::string text = (data[0] & 1) ? rest :
      "other/tensors,format=static,num_tensors=1,types=uint8,dimensions=(string)\"" + rest + "\"";
  /* GStreamer's caps parser leaks on unclosed lists (tests/sanitize.supp names it); nested
   * deeper than LeakSanitizer's stack depth the suppression cannot see that frame, so deep
   * nesting, which no tensor caps have, is not given to it. */
  size_t open_brackets = 0;
  for (char c : text)
    open_brackets += c == '{' || c == '<' || c == '[' || c == '(';
  if (open_brackets > 8)
    return 0;
  GstCaps *caps = gst_caps_from_string (text.c_str ());
  if (!caps)
    return 0;
  std::string why;
  auto info = gst_opencl::tensor_info_from_caps (caps, &why);
  gst_caps_unref (caps);
  if (!info) {
    if (why.empty ())
      abort ();  /* every refusal says why */
    return 0;
  }
  /* Accepted: 1 to 16 dimensions of 1 .. G_MAXINT, and a byte size that did not wrap. */
  if (info->dimensions.empty () || info->dimensions.size () > 16)
    abort ();
  gsize bytes = info->element_bytes ();
  for (guint dimension : info->dimensions) {
    if (dimension < 1 || dimension > (guint) G_MAXINT)
      abort ();
    if (__builtin_mul_overflow (bytes, (gsize) dimension, &bytes))
      abort ();
  }
  if (bytes != info->size_bytes () || bytes > (gsize) G_MAXSSIZE)
    abort ();
  /* Caps made from it parse back to the same tensor. */
  GstCaps *again = gst_opencl::tensor_info_to_caps (*info, 30, 1);
  auto reparsed = gst_opencl::tensor_info_from_caps (again, nullptr);
  gst_caps_unref (again);
  if (!reparsed || !(*reparsed == *info))
    abort ();
  return 0;
}
