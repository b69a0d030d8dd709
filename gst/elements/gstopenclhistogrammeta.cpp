/* gst-opencl: openclhistogram's counts as a GstTensorMeta.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "elements/gstopenclhistogrammeta.h"

#ifdef HAVE_GST_ANALYTICS
#include <gst/analytics/analytics.h>
#endif

namespace gst_opencl_histogram {

#ifdef HAVE_GST_ANALYTICS

/* A tensor of its own for the frame's counts: the buffer it holds is new (a tensor that
 * pointed into the frame it is attached to would keep that frame alive). */
static GstTensor *
counts_tensor (guint channels, guint bins, const std::vector<uint32_t> & counts)
{
  const gsize values = (gsize) channels * bins;
  const gsize bytes = values * sizeof (uint32_t);
  GstBuffer *data = gst_buffer_new_allocate (nullptr, bytes, nullptr);
  gst_buffer_fill (data, 0, counts.data (), bytes);
  gsize dims[2] = { channels, bins };
  /* Takes `data`; NULL only when the buffer's size disagrees with the dims. */
  return gst_tensor_new_simple (g_quark_from_static_string (TENSOR_META_ID),
      GST_TENSOR_DATA_TYPE_UINT32, data, GST_TENSOR_DIM_ORDER_ROW_MAJOR, 2, dims);
}

bool
attach_tensor_meta (GstBuffer * buffer, guint channels, guint bins,
    const std::vector<uint32_t> & counts)
{
  g_return_val_if_fail (gst_buffer_is_writable (buffer), false);
  g_return_val_if_fail (counts.size () >= (size_t) channels * bins, false);
  GstTensor *tensor = counts_tensor (channels, bins, counts);
  if (!tensor)
    return false;
  GstTensorMeta *meta = gst_buffer_get_tensor_meta (buffer);
  if (!meta) {
    meta = gst_buffer_add_tensor_meta (buffer);
    GstTensor **tensors = g_new (GstTensor *, 1);
    tensors[0] = tensor;
    gst_tensor_meta_set (meta, 1, tensors);
    return true;
  }
  /* Upstream's tensors stay; a histogram of an earlier openclhistogram is replaced. The meta
   * takes a new array of tensors and frees the old one with its tensors: keep copies. */
  const GQuark id = g_quark_from_static_string (TENSOR_META_ID);
  GstTensor **tensors = g_new (GstTensor *, meta->num_tensors + 1);
  guint kept = 0;
  for (gsize i = 0; i < meta->num_tensors; i++)
    if (meta->tensors[i]->id != id)
      tensors[kept++] = gst_tensor_copy (meta->tensors[i]);
  tensors[kept++] = tensor;
  gst_tensor_meta_set (meta, kept, tensors);
  return true;
}

#else

bool
attach_tensor_meta (GstBuffer *, guint, guint, const std::vector<uint32_t> &)
{
  return false;
}

#endif

}  // namespace gst_opencl_histogram
