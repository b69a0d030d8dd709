/* gst-opencl: checked mode of openclkernel (gstopencluserkernel.cpp): whether a user's kernel
 * wrote into its input frame. `a` is the input frame, `b` the copy the kernel was given; each
 * work-item compares 16 bytes and adds the bytes that differ to result[0] and the lowest
 * offset among them to result[1] (which start at 0 and 0xffffffff). */

__kernel void
count_changed (__global const uchar * a, __global const uchar * b, uint bytes,
    __global uint * result)
{
  const uint start = (uint) get_global_id (0) * 16;
  const uint end = min (start + 16, bytes);
  /* The usual case: 16 bytes the same, compared at once. */
  if (end - start == 16 && all (vload16 (get_global_id (0), a) ==
          vload16 (get_global_id (0), b)))
    return;
  uint changed = 0, first = 0xffffffff;
  for (uint i = start; i < end; i++) {
    if (a[i] != b[i]) {
      if (changed == 0)
        first = i;
      changed++;
    }
  }
  if (changed) {
    atomic_add (&result[0], changed);
    atomic_min (&result[1], first);
  }
}
