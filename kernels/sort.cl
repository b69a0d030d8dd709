/* gst-opencl: bitonic sort of rows of 32-bit keys (int32, uint32, float32).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Every row of `length` keys is padded to `padded` (the next power of two) with sentinel words
 * and sorted by a bitonic network. The network always sorts unsigned words ascending: keys are
 * mapped to order-preserving words on the way in (to_word) and back on the way out (from_word),
 * and a descending sort complements the words. One program serves every key type and order,
 * so only one build is ever needed per device.
 *
 * Words of all rows lie one after another (row r at r * padded), so a flat word index f decides
 * everything: the direction of stage k at f is descending when (f & k) != 0, except in the last
 * stage (k == padded) where the whole row is ascending.
 *
 *   sort_chunks   loads `chunk` words into local memory (mapping keys, padding with sentinels),
 *                 runs every stage up to min(padded, chunk) there, stores the words (or, when
 *                 that was the whole sort, the keys).
 *   sort_global_N one work-item holds N = 2, 4, 8 or 16 words in registers and runs log2(N)
 *                 consecutive steps of one stage on them: one pass over global memory per
 *                 log2(N) strides (the strides >= chunk with local stages, every stride
 *                 without).
 *   sort_merge    the steps of one stage with strides < chunk, in local memory; the last stage
 *                 stores the keys.
 *   sort_pad      (CPUs, no local stages) maps and pads the keys into the words;
 *   sort_unpad    maps the sorted words of the rows back to keys.
 * The host enqueues them back to back on an in-order queue with no wait in between. */

#define KEY_INT32 0
#define KEY_UINT32 1
#define KEY_FLOAT32 2

#define SENTINEL 0xFFFFFFFFu

/* Floats in the total order -inf < ... < -0.0 < +0.0 < ... < +inf < NaN, NaNs by their bits
 * as unsigned integers (positive NaNs by payload, then negative NaNs by payload). The map is a
 * bijection of the 2^32 bit patterns onto the words:
 *   negative, not NaN (0x80000000 .. 0xFF800000) -> 0xFF800000 - bits (0 .. 0x7F800000)
 *   sign bit clear, NaNs too (0 .. 0x7FFFFFFF)   -> bits + 0x7F800001 (0x7F800001 .. 0xFF800000)
 *   negative NaN (0xFF800001 .. 0xFFFFFFFF)      -> bits              (0xFF800001 .. 0xFFFFFFFF)
 * so -0.0 (word 0x7F800000) sorts just before +0.0 (word 0x7F800001). */
inline uint
to_word (uint bits, int key_type, int descending)
{
  uint word = bits;
  if (key_type == KEY_INT32) {
    word = bits ^ 0x80000000u;
  } else if (key_type == KEY_FLOAT32) {
    if ((bits & 0x80000000u) == 0)
      word = bits + 0x7F800001u;
    else if (bits <= 0xFF800000u)
      word = 0xFF800000u - bits;
  }
  return descending ? ~word : word;
}

inline uint
from_word (uint word, int key_type, int descending)
{
  if (descending)
    word = ~word;
  if (key_type == KEY_INT32)
    return word ^ 0x80000000u;
  if (key_type == KEY_FLOAT32) {
    if (word <= 0x7F800000u)
      return 0xFF800000u - word;
    if (word <= 0xFF800000u)
      return word - 0x7F800001u;
  }
  return word;
}

/* The lower index of compare-exchange pair `pair` at `stride` (a power of two): `pair` with a
 * zero bit inserted at the stride's position. */
inline uint
pair_low (uint pair, uint stride)
{
  return (pair << 1) - (pair & (stride - 1));
}

/* One compare-exchange step of stage k at distance D among the eight words x[0..7] that start
 * at flat index `first`; every index is a constant, so x stays in registers. */
#define OCTET_EXCHANGE(i, j) \
  { \
    const bool descending = k != padded && ((first + (i)) & k) != 0; \
    const uint a = x[i], b = x[j]; \
    const bool swap = descending ? a < b : a > b; \
    x[i] = swap ? b : a; \
    x[j] = swap ? a : b; \
  }
#define OCTET_STEP_4 OCTET_EXCHANGE (0, 4) OCTET_EXCHANGE (1, 5) OCTET_EXCHANGE (2, 6) \
  OCTET_EXCHANGE (3, 7)
#define OCTET_STEP_2 OCTET_EXCHANGE (0, 2) OCTET_EXCHANGE (1, 3) OCTET_EXCHANGE (4, 6) \
  OCTET_EXCHANGE (5, 7)
#define OCTET_STEP_1 OCTET_EXCHANGE (0, 1) OCTET_EXCHANGE (2, 3) OCTET_EXCHANGE (4, 5) \
  OCTET_EXCHANGE (6, 7)

/* Strides `stride` (4, 2 or 1) down to 1 of stage k on the work-item's eight words of the tile,
 * in registers. */
inline void
octet_steps (__local uint * words, uint first, uint k, uint stride, uint padded)
{
  uint x[8];
  const uint8 loaded = vload8 (0, words);
  x[0] = loaded.s0; x[1] = loaded.s1; x[2] = loaded.s2; x[3] = loaded.s3;
  x[4] = loaded.s4; x[5] = loaded.s5; x[6] = loaded.s6; x[7] = loaded.s7;
  if (stride >= 4) {
    OCTET_STEP_4
  }
  if (stride >= 2) {
    OCTET_STEP_2
  }
  OCTET_STEP_1
  vstore8 ((uint8) (x[0], x[1], x[2], x[3], x[4], x[5], x[6], x[7]), 0, words);
}

/* Stages k_first .. k_last (powers of two) on the chunk in `tile`, whose first word has the flat
 * index `base`. Strides start at min(k / 2, chunk / 2): longer ones were done in global memory.
 * When every work-item owns eight words (the GPU shape), strides 4, 2 and 1 of each stage run in
 * its registers, one barrier for three steps; longer strides, and other shapes, run pair by
 * pair in local memory. Ends with a barrier. */
inline void
local_stages (__local uint * tile, uint chunk, uint base, uint k_first, uint k_last,
    uint padded)
{
  const uint lid = get_local_id (0);
  const uint items = get_local_size (0);
  const uint pairs = chunk >> 1;
  const bool octets = chunk == items * 8;
  for (uint k = k_first; k != 0 && k <= k_last; k <<= 1) {
    uint stride = min (k, chunk) >> 1;
    for (; stride > 0 && !(octets && stride < 8); stride >>= 1) {
      barrier (CLK_LOCAL_MEM_FENCE);
      for (uint pair = lid; pair < pairs; pair += items) {
        const uint low = pair_low (pair, stride);
        const bool descending = k != padded && ((base + low) & k) != 0;
        const uint a = tile[low];
        const uint b = tile[low + stride];
        const bool swap = descending ? a < b : a > b;
        tile[low] = swap ? b : a;
        tile[low + stride] = swap ? a : b;
      }
    }
    if (stride > 0) {
      barrier (CLK_LOCAL_MEM_FENCE);
      octet_steps (tile + lid * 8, base + lid * 8, k, stride, padded);
    }
  }
  barrier (CLK_LOCAL_MEM_FENCE);
}

/* Writes the chunk back: words to `words`, or keys to the unpadded rows of `keys`. */
inline void
store_chunk (__local const uint * tile, uint chunk, uint base, __global uint * words,
    __global uint * keys, uint rows, uint length, uint padded_log2, int key_type,
    int descending, int store_keys)
{
  const uint lid = get_local_id (0);
  const uint items = get_local_size (0);
  for (uint l = lid; l < chunk; l += items) {
    const uint flat = base + l;
    if (store_keys) {
      const uint row = flat >> padded_log2;
      const uint position = flat & ((1u << padded_log2) - 1);
      if (row < rows && position < length)
        keys[row * length + position] = from_word (tile[l], key_type, descending);
    } else {
      words[flat] = tile[l];
    }
  }
}

__kernel void
sort_chunks (__global const uint * src, __global uint * words, __global uint * dst,
    __local uint * tile, uint rows, uint length, uint padded_log2, uint chunk, int key_type,
    int descending, int store_keys)
{
  const uint lid = get_local_id (0);
  const uint items = get_local_size (0);
  const uint padded = 1u << padded_log2;
  const uint base = (uint) get_group_id (0) * chunk;
  for (uint l = lid; l < chunk; l += items) {
    const uint flat = base + l;
    const uint row = flat >> padded_log2;
    const uint position = flat & (padded - 1);
    tile[l] = row < rows && position < length ?
        to_word (src[row * length + position], key_type, descending) : SENTINEL;
  }
  local_stages (tile, chunk, base, 2, min (padded, chunk), padded);
  store_chunk (tile, chunk, base, words, dst, rows, length, padded_log2, key_type, descending,
      store_keys);
}

__kernel void
sort_merge (__global uint * words, __global uint * dst, __local uint * tile, uint rows,
    uint length, uint padded_log2, uint chunk, uint k, int key_type, int descending,
    int store_keys)
{
  const uint lid = get_local_id (0);
  const uint items = get_local_size (0);
  const uint base = (uint) get_group_id (0) * chunk;
  for (uint l = lid; l < chunk; l += items)
    tile[l] = words[base + l];
  local_stages (tile, chunk, base, k, k, 1u << padded_log2);
  store_chunk (tile, chunk, base, words, dst, rows, length, padded_log2, key_type, descending,
      store_keys);
}

__kernel void
sort_pad (__global const uint * src, __global uint * words, uint rows, uint length,
    uint padded_log2, int key_type, int descending)
{
  const uint flat = get_global_id (0);
  const uint row = flat >> padded_log2;
  const uint position = flat & ((1u << padded_log2) - 1);
  if (row >= rows)
    return;
  words[flat] = position < length ?
      to_word (src[row * length + position], key_type, descending) : SENTINEL;
}

__kernel void
sort_unpad (__global const uint * words, __global uint * dst, uint rows, uint length,
    uint padded_log2, int key_type, int descending)
{
  const uint index = get_global_id (0);
  if (index >= rows * length)
    return;
  const uint row = index / length;
  const uint position = index - row * length;
  dst[index] = from_word (words[(row << padded_log2) + position], key_type, descending);
}

/* Compare-exchange of registers x[i] and x[j] (i < j) in the block's direction. */
#define EXCHANGE(i, j) \
  { \
    const uint a = x[i], b = x[j]; \
    const bool swap = descending ? a < b : a > b; \
    x[i] = swap ? b : a; \
    x[j] = swap ? a : b; \
  }

/* The steps of distance d among 2^STEPS registers, written out so every index is a constant and
 * the registers stay registers on every compiler. */
#define STEPS_1 EXCHANGE (0, 1)
#define LEVEL_4_2 EXCHANGE (0, 2) EXCHANGE (1, 3)
#define LEVEL_4_1 EXCHANGE (0, 1) EXCHANGE (2, 3)
#define STEPS_2 LEVEL_4_2 LEVEL_4_1
#define LEVEL_8_4 EXCHANGE (0, 4) EXCHANGE (1, 5) EXCHANGE (2, 6) EXCHANGE (3, 7)
#define LEVEL_8_2 EXCHANGE (0, 2) EXCHANGE (1, 3) EXCHANGE (4, 6) EXCHANGE (5, 7)
#define LEVEL_8_1 EXCHANGE (0, 1) EXCHANGE (2, 3) EXCHANGE (4, 5) EXCHANGE (6, 7)
#define STEPS_3 LEVEL_8_4 LEVEL_8_2 LEVEL_8_1
#define LEVEL_16_8 EXCHANGE (0, 8) EXCHANGE (1, 9) EXCHANGE (2, 10) EXCHANGE (3, 11) \
  EXCHANGE (4, 12) EXCHANGE (5, 13) EXCHANGE (6, 14) EXCHANGE (7, 15)
#define LEVEL_16_4 EXCHANGE (0, 4) EXCHANGE (1, 5) EXCHANGE (2, 6) EXCHANGE (3, 7) \
  EXCHANGE (8, 12) EXCHANGE (9, 13) EXCHANGE (10, 14) EXCHANGE (11, 15)
#define LEVEL_16_2 EXCHANGE (0, 2) EXCHANGE (1, 3) EXCHANGE (4, 6) EXCHANGE (5, 7) \
  EXCHANGE (8, 10) EXCHANGE (9, 11) EXCHANGE (12, 14) EXCHANGE (13, 15)
#define LEVEL_16_1 EXCHANGE (0, 1) EXCHANGE (2, 3) EXCHANGE (4, 5) EXCHANGE (6, 7) \
  EXCHANGE (8, 9) EXCHANGE (10, 11) EXCHANGE (12, 13) EXCHANGE (14, 15)
#define STEPS_4 LEVEL_16_8 LEVEL_16_4 LEVEL_16_2 LEVEL_16_1

/* STEPS consecutive steps of stage k, strides stride_first, stride_first / 2, ...: work-item q
 * holds the 2^STEPS words base + t * smallest (t < 2^STEPS) of one aligned block of
 * 2 * stride_first words, so every step is a compare-exchange between two of its registers.
 * All words of the block share the direction (k >= 2 * stride_first). */
#define DEFINE_SORT_GLOBAL(NAME, STEPS, NETWORK) \
__kernel void \
NAME (__global uint * words, uint work_items, uint k, uint stride_first, uint padded) \
{ \
  const uint q = get_global_id (0); \
  if (q >= work_items) \
    return; \
  const uint smallest = stride_first >> (STEPS - 1); \
  const uint low = q & (smallest - 1); \
  const uint base = ((q - low) << STEPS) + low; \
  const bool descending = k != padded && (base & k) != 0; \
  uint x[1 << STEPS]; \
  for (uint t = 0; t < (1u << STEPS); t++) \
    x[t] = words[base + t * smallest]; \
  NETWORK \
  for (uint t = 0; t < (1u << STEPS); t++) \
    words[base + t * smallest] = x[t]; \
}

DEFINE_SORT_GLOBAL (sort_global_2, 1, STEPS_1)
DEFINE_SORT_GLOBAL (sort_global_4, 2, STEPS_2)
DEFINE_SORT_GLOBAL (sort_global_8, 3, STEPS_3)
DEFINE_SORT_GLOBAL (sort_global_16, 4, STEPS_4)
