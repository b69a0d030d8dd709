/* gst-opencl: the multi-filter correlation of convolve.cl as an implicit matrix product on
 * NVIDIA tensor cores (TF32 mma.sync through inline PTX), or an exact emulation of it.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * out_n(x,y,z) = sum_{i,j,l} f_n(i,j,l) in(clamp(x+i-CX), clamp(y+j-CY), clamp(z+l-CZ)), as in
 * convolve.cl, read as a matrix product: rows (M) are output voxels, 16 consecutive along x;
 * columns (N) are filters, 8 per tile; the inner dimension (K) walks the taps, one filter row
 * (l, j) at a time, its KX taps padded with zero weights to KX_PAD, a multiple of 8. One K-step
 * of 8 taps is one m16n8k8 product per tile of 8 filters. The uint8 inputs are integers below
 * 2048, so TF32 holds them exactly; each weight w is split into hi (w with its 13 low mantissa
 * bits cleared) and lo (w - hi rounded to TF32), done once on the host (the `fragments`
 * argument), and every product is accumulated as A hi + A lo: the error is that of FP32
 * arithmetic (hi + lo is w within 2^-21 |w|), not of TF32's 10-bit mantissa.
 *
 * Each warp (32 consecutive work-items; the work-group is one-dimensional, WARPS warps) owns
 * MMA_ROWS rows of 16 voxels, at consecutive y, and MMA_FILTERS filters. The work-group owns
 * WARPS_X x WARPS_Y warps' outputs of one plane z; per input plane l it stages the clamped input
 * rows it needs as floats, and that plane's weight fragments, in local memory (two buffers: the
 * next plane is loaded while this one is used). Per K-step a warp loads the A fragments of its
 * MMA_ROWS + KY - 1 input rows once into registers; each of them serves KY filter rows of up to
 * MMA_ROWS output rows. A B fragment (hi and lo of two taps, one
 * float4 per lane, already in fragment order) serves the warp's MMA_ROWS output rows.
 *
 * Fragment layout of m16n8k8 .tf32, lane = 0..31, g = lane / 4, t = lane % 4:
 *   A (16x8): a0 = A[g][t], a1 = A[g+8][t], a2 = A[g][t+4], a3 = A[g+8][t+4]
 *   B (8x8):  b0 = B[t][g], b1 = B[t+4][g]
 *   C (16x8): c0 = C[g][2t], c1 = C[g][2t+1], c2 = C[g+8][2t], c3 = C[g+8][2t+1]
 * Here A[m][k] is the input under tap k of voxel x0 + m, B[k][n] the tap k of filter n.
 *
 * MMA_EMULATE 1 computes each product without tensor cores: every lane writes its fragments to
 * its warp's local scratch and then computes its own c0..c3 from them, exactly by the layout
 * above (operands truncated to TF32 as the hardware reads them, sums in FP32). It is slow, but
 * it runs on any OpenCL device and exercises every index of the PTX path, so the CPU tests check
 * the layout.
 *
 * Only uchar input, one channel, float tensor output (OUT_MODE 0) and volumes (TEMPORAL 0).
 *
 * Build options (the file builds on its own without any):
 *   KX, KY, KZ, NUM_FILTERS, CHANNELS, IN_FLOAT, IN_SHORT, OUT_MODE, OUT_PIXEL, OUT_SHIFT,
 *   COPY_ALPHA, TEMPORAL
 *                  as in convolve.cl (the spec's options; the last eight only checked)
 *   MMA_ROWS       output rows of 16 voxels per warp
 *   MMA_FILTERS    filters per warp, a multiple of 8 dividing NUM_FILTERS rounded up to 8
 *   WARPS_X, WARPS_Y  warps of a work-group along x and y
 *   MMA_EMULATE    1: the emulation above (any device), 0: mma.sync (NVIDIA, sm_80 or later)
 *   MMA_B_GLOBAL   0: B fragments staged in local memory per plane, 1: read from global memory
 *                  (through the L1 cache: no staging, but each load waits on the cache) */
/* Defaults: the blog's case, 8 filters of 7^3. */
#ifndef KX
#define KX 7
#endif
#ifndef KY
#define KY 7
#endif
#ifndef KZ
#define KZ 7
#endif
#ifndef NUM_FILTERS
#define NUM_FILTERS 8
#endif
#ifndef MMA_ROWS
#define MMA_ROWS 2
#endif
#ifndef MMA_FILTERS
#define MMA_FILTERS ((NUM_FILTERS + 7) / 8 * 8)
#endif
#ifndef WARPS_X
#define WARPS_X 2
#endif
#ifndef WARPS_Y
#define WARPS_Y 2
#endif
#ifndef MMA_EMULATE
#define MMA_EMULATE 1
#endif
#ifndef MMA_B_GLOBAL
#define MMA_B_GLOBAL 0
#endif

#if (defined (IN_FLOAT) && IN_FLOAT) || (defined (IN_SHORT) && IN_SHORT) || \
    (defined (CHANNELS) && CHANNELS != 1) || \
    (defined (OUT_MODE) && OUT_MODE != 0) || (defined (TEMPORAL) && TEMPORAL)
#error "the mma variant takes uchar volumes of one channel to a float tensor only"
#endif

#define CX ((KX - 1) / 2)
#define CY ((KY - 1) / 2)
#define CZ ((KZ - 1) / 2)

#define WARP 32
#define KX_PAD ((KX + 7) / 8 * 8)
/* K-steps of 8 taps per filter row. */
#define X_STEPS (KX_PAD / 8)
#define FILTERS_PADDED ((NUM_FILTERS + 7) / 8 * 8)
#define ALL_TILES (FILTERS_PADDED / 8)
#define FILTER_TILES (MMA_FILTERS / 8)
#if MMA_FILTERS % 8 != 0 || FILTERS_PADDED % MMA_FILTERS != 0
#error "MMA_FILTERS must be a multiple of 8 that divides NUM_FILTERS rounded up to 8"
#endif
#define BLOCKS (FILTERS_PADDED / MMA_FILTERS)
#define WARPS (WARPS_X * WARPS_Y)
#define GROUP_SIZE (WARPS * WARP)
/* Outputs of a work-group: GROUP_W voxels along x, GROUP_H rows. */
#define GROUP_W (16 * WARPS_X)
#define GROUP_H (MMA_ROWS * WARPS_Y)
/* The staged plane: column c, row r hold input (group x - CX + c, group y - CY + r). */
#define TILE_PITCH (GROUP_W + KX_PAD - 1)
#define TILE_H (GROUP_H + KY - 1)
#define TILE_VALUES (TILE_PITCH * TILE_H)
/* Input rows one warp reads per plane. */
#define WINDOW_ROWS (MMA_ROWS + KY - 1)
/* One plane's B fragments of the work-group's filters: KY rows x X_STEPS steps x tiles. */
#define PLANE_FRAGMENTS (KY * X_STEPS * FILTER_TILES * WARP)

#if MMA_EMULATE
/* Values a lane holds for one product: a0..a3, b0, b1. */
#define SCRATCH_PER_LANE 6

/* The operand as the tensor core reads a .tf32 register: its 13 low mantissa bits ignored. */
inline float
tf32_operand (uint bits)
{
  return as_float (bits & 0xffffe000u);
}

/* c += A B for one m16n8k8 product, computed by the warp through `scratch` (its own
 * WARP * SCRATCH_PER_LANE words). Every work-item of the work-group must call it together. */
inline void
mma_m16n8k8 (float *c, const uint *a, uint b0, uint b1, __local uint *scratch, int lane)
{
  barrier (CLK_LOCAL_MEM_FENCE);        /* the previous product's reads are done */
  __local uint *mine = scratch + lane * SCRATCH_PER_LANE;
  mine[0] = a[0];
  mine[1] = a[1];
  mine[2] = a[2];
  mine[3] = a[3];
  mine[4] = b0;
  mine[5] = b1;
  barrier (CLK_LOCAL_MEM_FENCE);
  const int g = lane / 4;
  const int t = lane % 4;
  for (int r = 0; r < 4; r++) {
    /* c_r is C[m][n]: m = g (+8 for c2, c3), n = 2t (+1 for c1, c3). */
    const int m = g + (r / 2) * 8;
    const int n = 2 * t + r % 2;
    float sum = c[r];
    for (int k = 0; k < 8; k++) {
      /* A[m][k] sits in lane (m % 8) * 4 + k % 4, register (m / 8) + 2 (k / 4);
       * B[k][n] in lane n * 4 + k % 4, register k / 4. */
      const uint a_bits = scratch[((m % 8) * 4 + k % 4) * SCRATCH_PER_LANE + m / 8 + 2 * (k / 4)];
      const uint b_bits = scratch[(n * 4 + k % 4) * SCRATCH_PER_LANE + 4 + k / 4];
      sum = fma (tf32_operand (a_bits), tf32_operand (b_bits), sum);
    }
    c[r] = sum;
  }
}
#else
inline void
mma_m16n8k8 (float *c, const uint *a, uint b0, uint b1)
{
  float d0, d1, d2, d3;
  asm ("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
      "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
      : "=f" (d0), "=f" (d1), "=f" (d2), "=f" (d3)
      : "r" (a[0]), "r" (a[1]), "r" (a[2]), "r" (a[3]), "r" (b0), "r" (b1),
      "f" (c[0]), "f" (c[1]), "f" (c[2]), "f" (c[3]));
  c[0] = d0;
  c[1] = d1;
  c[2] = d2;
  c[3] = d3;
}
#endif

/* Values of the staged plane and fragments each work-item carries. */
#define TILE_PART ((TILE_VALUES + GROUP_SIZE - 1) / GROUP_SIZE)
#define WEIGHT_PART ((PLANE_FRAGMENTS + GROUP_SIZE - 1) / GROUP_SIZE)

/* The emulation's barriers sit inside the product loops: kept as loops there (a CPU compiler
 * would otherwise copy hundreds of barriers), unrolled for the tensor cores. */
#if MMA_EMULATE
#define MMA_PRODUCT(c, a, b0, b1) mma_m16n8k8 ((c), (a), (b0), (b1), warp_scratch, lane)
#else
#define MMA_PRODUCT(c, a, b0, b1) mma_m16n8k8 ((c), (a), (b0), (b1))
#endif

__kernel __attribute__ ((reqd_work_group_size (GROUP_SIZE, 1, 1)))
void
convolve_mma (__global const uchar * src, int src_row_stride, int src_plane_stride,
    int16 slots, __global uchar *dst, int dst_offset, int dst_row_stride, int dst_plane_stride,
    int width, int height, int depth, __global const float4 *restrict fragments, float scale,
    float offset,
    __global const uchar * alpha_src, int alpha_row_stride, int alpha_plane_stride,
    int src_offset)
{
  __local float tile_storage[2 * TILE_VALUES];
#if !MMA_B_GLOBAL
  __local float4 weight_storage[2 * PLANE_FRAGMENTS];
#endif
  const int local_index = (int) get_local_id (0);
  const int lane = local_index % WARP;
  const int warp = local_index / WARP;
  const int g = lane / 4;
  const int t = lane % 4;
  const int warp_x = warp % WARPS_X;
  const int warp_y = warp / WARPS_X;
#if MMA_EMULATE
  __local uint scratch[WARPS * WARP * SCRATCH_PER_LANE];
  __local uint *warp_scratch = scratch + warp * WARP * SCRATCH_PER_LANE;
#endif
  const int block = (int) get_global_id (2) % BLOCKS;
  const int z = (int) get_global_id (2) / BLOCKS;
  const int group_x = (int) get_group_id (0) * GROUP_W;
  const int group_y = (int) get_group_id (1) * GROUP_H;

  float acc[MMA_ROWS][FILTER_TILES][4];
#pragma unroll
  for (int r = 0; r < MMA_ROWS; r++) {
#pragma unroll
    for (int f = 0; f < FILTER_TILES; f++) {
#pragma unroll
      for (int q = 0; q < 4; q++)
        acc[r][f][q] = 0.0f;
    }
  }

  /* The lane's first A value in the staged plane: row warp_y * MMA_ROWS, column of voxel
   * warp_x * 16 + g under tap t. */
  const int window = warp_y * MMA_ROWS * TILE_PITCH + warp_x * 16 + g + t;

  /* A pipeline over the planes: iteration l loads plane l from global memory into registers,
   * runs the products of plane l - 1 from its local buffer meanwhile (the loads' latency hides
   * behind them), then stores plane l into the other buffer; one barrier per plane. Each
   * work-item carries TILE_PART input values and WEIGHT_PART fragments; consecutive work-items
   * read consecutive values (coalesced, no bank conflicts when stored). */
  float tile_part[TILE_PART];
#if !MMA_B_GLOBAL
  float4 weight_part[WEIGHT_PART];
#endif
  for (int l = 0; l <= KZ; l++) {
    if (l < KZ) {
      __global const uchar *plane = src + (size_t) clamp (z + l - CZ, 0, depth - 1) *
          (size_t) src_plane_stride;
#pragma unroll
      for (int p = 0; p < TILE_PART; p++) {
        const int k = local_index + p * GROUP_SIZE;
        const int r = k / TILE_PITCH;
        const int c = k - r * TILE_PITCH;
        /* Past the end of the tile (the last part only): loaded from a place that exists, never
         * stored. */
        tile_part[p] = convert_float (plane[(size_t) clamp (group_y - CY + r, 0, height - 1) *
                src_row_stride + clamp (group_x - CX + c, 0, width - 1)]);
      }
#if !MMA_B_GLOBAL
      /* The plane's fragments of the work-group's tiles: [j][step][tile][lane] of
       * [j][step][all tiles][lane]. */
      __global const float4 *plane_fragments = fragments + ((size_t) l * KY * X_STEPS *
          ALL_TILES + block * FILTER_TILES) * WARP;
#pragma unroll
      for (int p = 0; p < WEIGHT_PART; p++) {
        const int k = min (local_index + p * GROUP_SIZE, PLANE_FRAGMENTS - 1);
        const int row_step = k / (WARP * FILTER_TILES);
        weight_part[p] = plane_fragments[(size_t) row_step * ALL_TILES * WARP +
            k % (WARP * FILTER_TILES)];
      }
#endif
    }

    if (l > 0) {
      __local const float *tile = tile_storage + ((l - 1) % 2) * TILE_VALUES;
#if MMA_B_GLOBAL
      /* B fragment (j, s, f): [j][step][all tiles][lane] from the block's first tile. */
      __global const float4 *weights = fragments + ((size_t) (l - 1) * KY * X_STEPS *
          ALL_TILES + block * FILTER_TILES) * WARP;
#define B_TILES ALL_TILES
#else
      __local const float4 *weights = weight_storage + ((l - 1) % 2) * PLANE_FRAGMENTS;
#define B_TILES FILTER_TILES
#endif
#if !MMA_EMULATE
#pragma unroll
#endif
      for (int s = 0; s < X_STEPS; s++) {
        /* The A fragments of the warp's input rows for taps 8s .. 8s+7. */
        uint a[WINDOW_ROWS][4];
#if !MMA_EMULATE
#pragma unroll
#endif
        for (int q = 0; q < WINDOW_ROWS; q++) {
          __local const float *row = tile + window + q * TILE_PITCH + s * 8;
          a[q][0] = as_uint (row[0]);
          a[q][1] = as_uint (row[8]);
          a[q][2] = as_uint (row[4]);
          a[q][3] = as_uint (row[12]);
        }
#if !MMA_EMULATE
#pragma unroll
#endif
        for (int j = 0; j < KY; j++) {
#if !MMA_EMULATE
#pragma unroll
#endif
          for (int f = 0; f < FILTER_TILES; f++) {
            /* hi and lo of taps 8s + t and 8s + t + 4 of filter g of the tile. */
            const float4 b = weights[((j * X_STEPS + s) * B_TILES + f) * WARP + lane];
#if !MMA_EMULATE
#pragma unroll
#endif
            for (int r = 0; r < MMA_ROWS; r++) {
              /* Output row r reads input row r + j under filter row j. */
              MMA_PRODUCT (acc[r][f], a[r + j], as_uint (b.s0), as_uint (b.s1));
              MMA_PRODUCT (acc[r][f], a[r + j], as_uint (b.s2), as_uint (b.s3));
            }
          }
        }
      }
    }

    if (l < KZ) {
      __local float *tile = tile_storage + (l % 2) * TILE_VALUES;
#pragma unroll
      for (int p = 0; p < TILE_PART; p++) {
        const int k = local_index + p * GROUP_SIZE;
        if (k < TILE_VALUES)
          tile[k] = tile_part[p];
      }
#if !MMA_B_GLOBAL
      __local float4 *weights = weight_storage + (l % 2) * PLANE_FRAGMENTS;
#pragma unroll
      for (int p = 0; p < WEIGHT_PART; p++) {
        const int k = local_index + p * GROUP_SIZE;
        if (k < PLANE_FRAGMENTS)
          weights[k] = weight_part[p];
      }
#endif
    }
    barrier (CLK_LOCAL_MEM_FENCE);
  }

  const int x_first = group_x + warp_x * 16 + g;
#pragma unroll
  for (int r = 0; r < MMA_ROWS; r++) {
    const int y = group_y + warp_y * MMA_ROWS + r;
    if (y >= height)
      break;
    __global float *out = (__global float *) dst + dst_offset + (size_t) z * dst_plane_stride +
        (size_t) y * dst_row_stride;
#pragma unroll
    for (int f = 0; f < FILTER_TILES; f++) {
      const int n = block * MMA_FILTERS + f * 8 + 2 * t;
#pragma unroll
      for (int q = 0; q < 4; q++) {
        const int x = x_first + (q / 2) * 8;
        if (x < width && n + q % 2 < NUM_FILTERS)
          out[(size_t) x * NUM_FILTERS + n + q % 2] = acc[r][f][q];
      }
    }
  }
  (void) slots;
  (void) alpha_src;
  (void) alpha_row_stride;
  (void) alpha_plane_stride;
  (void) scale;
  (void) offset;
}
