/* gst-opencl: the build options both bilateral kernels (bilateral.cl, bilateral_vec.cl) share,
 * with the defaults that let each build on its own; they say what each option means. Included
 * by them (gst_opencl::kernel_source expands the #include line).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef CHANNELS
#define CHANNELS 4
#endif
#ifndef SAMPLE_BITS
#define SAMPLE_BITS 8
#endif
#ifndef SAMPLE_SHIFT
#define SAMPLE_SHIFT 0
#endif
#ifndef PLANAR
#define PLANAR 0
#endif
#ifndef MODE
#define MODE 0
#endif
#ifndef RADIUS
#define RADIUS 4
#endif
