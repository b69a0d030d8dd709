/* gst-opencl: LSD radix sort of rows of 32-bit keys in 1 + 32 / RADIX_BITS launches: one kernel
 * counts the digits of every pass in one read of the keys, then one kernel per pass ranks and
 * scatters tiles, each tile finding where its digits go by looking back at the tiles before it
 * (a "decoupled look-back", after Merrill and Garland's single-pass prefix scan and their
 * onesweep radix sort).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Compiled after sort.cl (to_word, from_word, SENTINEL) and radixsort.cl (the build options,
 * the tile in local memory, load_tile, rank_tile, scatter_ranked), in one program.
 *
 *   onesweep_histograms  work-group g counts a run of tiles of one row: the digit counts of
 *                        every pass, added to histograms[(row * RADIX_PASSES + pass) *
 *                        RADIX_DIGITS + digit]. It also clears what the passes will need
 *                        cleared: the tile counters and the first pass's tile states.
 *   onesweep_scatter     one pass. A work-group takes the next tile number from a global
 *                        counter (so it only ever waits on tiles whose work-groups have
 *                        started and run: safe without forward-progress guarantees for
 *                        work-groups not yet started, PoCL's included), counts the tile's
 *                        digits and publishes them, ranks the tile in local memory, looks
 *                        back for the number of keys of each digit in the row's tiles before it,
 *                        publishes the sum, and scatters. The first tile of a row starts from
 *                        the row's histogram (an exclusive scan over the digits) and then
 *                        clears that histogram for the next sort.
 *
 * A tile's state for one digit is one 32-bit word: a flag in the top two bits (none yet, the
 * tile's own count, or the inclusive sum of the row's tiles up to it) and the value in the low
 * 30 bits, written with one atomic store, so a reader sees a count and its flag together. Rows
 * hold fewer than 2^30 keys. The passes alternate between two state arrays: pass p clears its
 * tiles' states in the other one, which pass p + 1 then uses.
 *
 * Histograms start cleared (the host clears them when it allocates them) and every first tile
 * clears its row's histogram for the pass once it has read it, so after every sort they are
 * clear again. */

#define RADIX_PASSES (32 / RADIX_BITS)

#define STATE_NONE 0u
#define STATE_COUNT 1u
#define STATE_INCLUSIVE 2u
#define STATE_SHIFT 30
#define STATE_VALUE_MASK ((1u << STATE_SHIFT) - 1u)

inline void
publish_state (volatile __global uint * state, uint flag, uint value)
{
  atomic_xchg (state, (flag << STATE_SHIFT) | value);
}

/* The number of keys of digit `digit` in the tiles of the row before flat tile `tile` (block
 * `block` > 0 of its row): walks back through the tiles' states, adding counts, until it meets
 * an inclusive sum (the row's first tile always publishes one). */
inline uint
look_back (volatile __global const uint * states, uint tile, uint digit)
{
  uint sum = 0;
  uint previous = tile - 1;
  for (;;) {
    uint word;
    do {
      word = states[previous * RADIX_DIGITS + digit];
    } while ((word >> STATE_SHIFT) == STATE_NONE);
    sum += word & STATE_VALUE_MASK;
    if ((word >> STATE_SHIFT) == STATE_INCLUSIVE)
      return sum;
    previous--;
  }
}

/* Work-group g counts tiles part * tiles_per_group .. + tiles_per_group - 1 of row g /
 * groups_per_row (part = g % groups_per_row), clipped to the row. */
__kernel __attribute__ ((reqd_work_group_size (RADIX_GROUP, 1, 1)))
void
onesweep_histograms (__global const uint * keys, __global uint * histograms,
    __global uint * first_states, __global uint * tile_counters, uint length,
    uint tiles_per_row, uint groups_per_row, uint tiles_per_group, int key_type, int descending)
{
  __local uint counts[RADIX_PASSES * RADIX_DIGITS];
  const uint lid = get_local_id (0);
  const uint group = get_group_id (0);
  const uint row = group / groups_per_row;
  const uint part = group - row * groups_per_row;
  const uint first_tile = part * tiles_per_group;
  const uint end_tile = min (first_tile + tiles_per_group, tiles_per_row);

  for (uint i = lid; i < RADIX_PASSES * RADIX_DIGITS; i += RADIX_GROUP)
    counts[i] = 0;
  if (group == 0)
    for (uint p = lid; p < RADIX_PASSES; p += RADIX_GROUP)
      tile_counters[p] = 0;
  const uint states_end = (row * tiles_per_row + end_tile) * RADIX_DIGITS;
  for (uint i = (row * tiles_per_row + first_tile) * RADIX_DIGITS + lid; i < states_end;
      i += RADIX_GROUP)
    first_states[i] = 0;
  barrier (CLK_LOCAL_MEM_FENCE);

  __global const uint *row_keys = keys + row * length;
  const uint end = min (end_tile * RADIX_TILE, length);
  uint run_digit[RADIX_PASSES], run[RADIX_PASSES];
#pragma unroll
  for (uint p = 0; p < RADIX_PASSES; p++)
    run[p] = run_digit[p] = 0;
  for (uint i = first_tile * RADIX_TILE + lid; i < end; i += RADIX_GROUP) {
    const uint word = to_word (row_keys[i], key_type, descending);
#pragma unroll
    for (uint p = 0; p < RADIX_PASSES; p++)
      count_in_run (counts + p * RADIX_DIGITS, digit_of (word, p * RADIX_BITS), &run_digit[p],
          &run[p]);
  }
#pragma unroll
  for (uint p = 0; p < RADIX_PASSES; p++)
    end_run (counts + p * RADIX_DIGITS, run_digit[p], run[p]);
  barrier (CLK_LOCAL_MEM_FENCE);

  __global uint *row_histograms = histograms + row * RADIX_PASSES * RADIX_DIGITS;
  for (uint i = lid; i < RADIX_PASSES * RADIX_DIGITS; i += RADIX_GROUP)
    if (counts[i] != 0)
      atomic_add (&row_histograms[i], counts[i]);
}

/* Exclusive prefix sum over the digits of `values`, in place, by the whole work-group. */
inline void
scan_digits (__local uint * values, __local uint * scratch)
{
  const uint lid = get_local_id (0);
#define DIGITS_PER_ITEM (RADIX_DIGITS > RADIX_GROUP ? RADIX_DIGITS / RADIX_GROUP : 1)
  const uint first = lid * DIGITS_PER_ITEM;
  uint mine[DIGITS_PER_ITEM];
  uint sum = 0;
#pragma unroll
  for (uint k = 0; k < DIGITS_PER_ITEM; k++) {
    mine[k] = first + k < RADIX_DIGITS ? values[first + k] : 0;
    sum += mine[k];
  }
  uint total;
  uint running = group_scan_uint (sum, scratch, &total);
#pragma unroll
  for (uint k = 0; k < DIGITS_PER_ITEM; k++) {
    if (first + k < RADIX_DIGITS)
      values[first + k] = running;
    running += mine[k];
  }
#undef DIGITS_PER_ITEM
  barrier (CLK_LOCAL_MEM_FENCE);
}

/* One pass over the digit at pass * RADIX_BITS: src to dst, tile by tile in the order the
 * work-groups take them. */
__kernel __attribute__ ((reqd_work_group_size (RADIX_GROUP, 1, 1)))
void
onesweep_scatter (__global const uint * src, __global uint * dst, __global uint * histograms,
    volatile __global uint * states, __global uint * next_states,
    volatile __global uint * tile_counters, uint length, uint tiles_per_row, uint pass,
    int map_keys, int unmap_keys, int key_type, int descending)
{
  __local uint tile[TILE_WORDS];
  __local split_counters scan[RADIX_GROUP];
  __local uint scratch[RADIX_GROUP];
  __local uint counts[RADIX_DIGITS];
  __local uint base[RADIX_DIGITS];
  __local uint taken;
  const uint lid = get_local_id (0);
  if (lid == 0)
    taken = atomic_inc (&tile_counters[pass]);
  for (uint d = lid; d < RADIX_DIGITS; d += RADIX_GROUP)
    counts[d] = 0;
  barrier (CLK_LOCAL_MEM_FENCE);
  const uint flat_tile = taken;
  const uint row = flat_tile / tiles_per_row;
  const uint block = flat_tile - row * tiles_per_row;
  const uint start = block * RADIX_TILE;
  const uint valid = min ((uint) RADIX_TILE, length - start);
  const uint shift = pass * RADIX_BITS;
  volatile __global uint *tile_states = states + flat_tile * RADIX_DIGITS;

  load_tile (src + row * length + start, valid, tile, map_keys, key_type, descending);

  /* The tile's digit counts. */
  uint run_digit = 0, run = 0;
#pragma unroll
  for (uint j = 0; j < RADIX_KEYS_PER_ITEM; j++) {
    const uint l = j * RADIX_GROUP + lid;
    if (l < valid)
      count_in_run (counts, digit_of (tile[TILE_INDEX (l)], shift), &run_digit, &run);
  }
  end_run (counts, run_digit, run);
  barrier (CLK_LOCAL_MEM_FENCE);

  /* Published before the ranking, so that the tiles after this one can go on meanwhile. The
   * first tile of a row starts from the row's histogram; every tile runs the scan, so that no
   * barrier depends on the tile (PoCL needs barriers that every work-item meets). */
  __global uint *row_histogram = histograms + (row * RADIX_PASSES + pass) * RADIX_DIGITS;
  for (uint d = lid; d < RADIX_DIGITS; d += RADIX_GROUP)
    base[d] = block == 0 ? row_histogram[d] : 0;
  barrier (CLK_LOCAL_MEM_FENCE);
  scan_digits (base, scratch);
  for (uint d = lid; d < RADIX_DIGITS; d += RADIX_GROUP) {
    if (block == 0) {
      publish_state (&tile_states[d], STATE_INCLUSIVE, base[d] + counts[d]);
      row_histogram[d] = 0;
    } else {
      publish_state (&tile_states[d], STATE_COUNT, counts[d]);
    }
  }

  uint x[RADIX_KEYS_PER_ITEM];
  rank_tile (tile, scan, x, shift);

  if (block != 0) {
    for (uint d = lid; d < RADIX_DIGITS; d += RADIX_GROUP) {
      const uint before = look_back (states, flat_tile, d);
      publish_state (&tile_states[d], STATE_INCLUSIVE, before + counts[d]);
      base[d] = before;
    }
  }
  /* The next pass's states of this tile, cleared while nothing reads them. */
  for (uint d = lid; d < RADIX_DIGITS; d += RADIX_GROUP)
    next_states[flat_tile * RADIX_DIGITS + d] = 0;
  barrier (CLK_LOCAL_MEM_FENCE);

  scatter_ranked (tile, base, x, shift, valid, dst + row * length, unmap_keys, key_type,
      descending);
}
