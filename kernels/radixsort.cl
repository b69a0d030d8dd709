/* gst-opencl: LSD radix sort of rows of 32-bit keys (int32, uint32, float32).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Compiled after sort.cl, in one program (DeviceSort builds sort.cl + radixsort.cl): the keys
 * become the same order-preserving unsigned words as in the bitonic sort (to_word on the way in,
 * from_word on the way out, descending by complementing), so both sorts give the same result
 * bit for bit.
 *
 * The words are sorted by digits of RADIX_BITS bits (8: four passes, 4: eight), least
 * significant first; each pass is a stable counting sort, so after the last one the words are in
 * order. Every row is cut into blocks of `tile` keys (the last one shorter); a pass is
 *   1. radix_count[_serial]   the digit counts of every block, stored at
 *                             counts[(row * RADIX_DIGITS + digit) * blocks_per_row + block];
 *   2. radix_scan_reduce,     an exclusive prefix sum over that whole array in place, so that the
 *      radix_scan_top,        entry of (row, digit, block) becomes the index where the first key
 *      radix_scan_down        of that digit in that block goes: the rows lie one after another
 *                             and row r's keys sum to r * length, so one flat scan serves every
 *                             row of a batch;
 *   3. radix_scatter[_serial] every key to its place, in its block's order.
 * The first pass reads and maps the keys, the last one maps the words back to keys.
 *
 * Two shapes of count and scatter:
 *   tiled (GPUs)  a work-group of RADIX_GROUP work-items holds a tile of RADIX_KEYS_PER_ITEM
 *                 keys per work-item. The count is a local histogram (each work-item adds runs of
 *                 equal digits with one atomic, so equal keys do not all hit one counter). The
 *                 scatter ranks the tile stably in local memory: split steps of
 *                 RADIX_SPLIT_BITS bits of the digit (four of 2 bits for 8-bit digits), each a
 *                 work-group prefix sum of 16-bit counters packed in a ulong (or a ulong4),
 *                 leave the tile ordered by digit; a key then goes to its digit's index plus its distance from
 *                 the digit's first key in the tile. Consecutive work-items write consecutive
 *                 keys of a digit.
 *   serial (CPUs) one work-item counts, then scatters, one whole block in order: on a CPU a
 *                 work-group runs on one core and a plain loop is the fastest counting sort.
 *
 * Build options:
 *   RADIX_BITS           bits per digit, 8 or 4
 *   RADIX_GROUP          work-items per work-group (a power of two; 1 for the serial kernels)
 *   RADIX_KEYS_PER_ITEM  keys per work-item of the tiled kernels (the tile is at most 32768 keys,
 *                        so that a split step's counts fit in 16 bits)
 *   RADIX_SPLIT_BITS     bits of the digit each split step of the tiled ranking takes, 2 (four
 *                        16-bit counters in a ulong) or 4 (sixteen, in a ulong4): half the
 *                        steps, four times the scanned data */

#ifndef RADIX_BITS
#define RADIX_BITS 8
#endif
#ifndef RADIX_GROUP
#define RADIX_GROUP 256
#endif
#ifndef RADIX_KEYS_PER_ITEM
#define RADIX_KEYS_PER_ITEM 16
#endif
#ifndef RADIX_SPLIT_BITS
#define RADIX_SPLIT_BITS 2
#endif

#define RADIX_TILE (RADIX_GROUP * RADIX_KEYS_PER_ITEM)
#define RADIX_DIGITS (1 << RADIX_BITS)
#define RADIX_DIGIT_MASK (RADIX_DIGITS - 1)
/* Entries of the count array each work-item scans per round (radix_scan_down). */
#define SCAN_ITEMS 4

#if RADIX_TILE > 32768
#error "a radix tile holds at most 32768 keys"
#endif
#if RADIX_BITS != 4 && RADIX_BITS != 8
#error "radix digits of 4 or 8 bits"
#endif
#if RADIX_SPLIT_BITS != 2 && RADIX_SPLIT_BITS != 4
#error "split steps of 2 or 4 bits"
#endif

inline uint
digit_of (uint word, uint shift)
{
  return (word >> shift) & RADIX_DIGIT_MASK;
}

inline uint
pass_word (uint value, int map_keys, int key_type, int descending)
{
  return map_keys ? to_word (value, key_type, descending) : value;
}

inline uint
count_index (uint row, uint digit, uint blocks_per_row, uint block)
{
  return (row * RADIX_DIGITS + digit) * blocks_per_row + block;
}

/* Counting digits into a local histogram, one work-item's keys after another: runs of equal
 * digits go in with one atomic (count_in_run for each key, then end_run), so that equal keys do
 * not all hit one counter. */
inline void
count_in_run (__local uint * counts, uint digit, uint * run_digit, uint * run)
{
  if (*run != 0 && digit != *run_digit) {
    atomic_add (&counts[*run_digit], *run);
    *run = 0;
  }
  *run_digit = digit;
  (*run)++;
}

inline void
end_run (__local uint * counts, uint run_digit, uint run)
{
  if (run != 0)
    atomic_add (&counts[run_digit], run);
}

/* The keys a serial work-item owns: block `block` of row `row`, keys [start, end) of the row. */
typedef struct
{
  uint row;
  uint block;
  uint start;
  uint end;
} SerialBlock;

inline SerialBlock
serial_block (uint task, uint blocks_per_row, uint tile, uint length)
{
  SerialBlock owned;
  owned.row = task / blocks_per_row;
  owned.block = task - owned.row * blocks_per_row;
  owned.start = owned.block * tile;
  owned.end = min (owned.start + tile, length);
  return owned;
}

/* Exclusive prefix sum of `value` over the work-group (Hillis-Steele in local memory, one entry
 * per work-item); *total receives the sum of all. Every work-item calls it; it ends with a
 * barrier, so `scratch` may be used again at once. */
#define DEFINE_GROUP_SCAN(NAME, TYPE) \
inline TYPE \
NAME (TYPE value, __local TYPE * scratch, TYPE * total) \
{ \
  const uint lid = get_local_id (0); \
  const uint items = get_local_size (0); \
  scratch[lid] = value; \
  barrier (CLK_LOCAL_MEM_FENCE); \
  for (uint offset = 1; offset < items; offset <<= 1) { \
    const TYPE before = lid >= offset ? scratch[lid - offset] : (TYPE) 0; \
    barrier (CLK_LOCAL_MEM_FENCE); \
    scratch[lid] += before; \
    barrier (CLK_LOCAL_MEM_FENCE); \
  } \
  const TYPE inclusive = scratch[lid]; \
  *total = scratch[items - 1]; \
  barrier (CLK_LOCAL_MEM_FENCE); \
  return inclusive - value; \
}

DEFINE_GROUP_SCAN (group_scan_uint, uint)
#if RADIX_SPLIT_BITS == 2
DEFINE_GROUP_SCAN (group_scan_ulong, ulong)
#else
DEFINE_GROUP_SCAN (group_scan_ulong4, ulong4)
#endif

/* 1. Counts, tiled: work-group g is block g % blocks_per_row of row g / blocks_per_row. */
__kernel __attribute__ ((reqd_work_group_size (RADIX_GROUP, 1, 1)))
void
radix_count (__global const uint * keys, __global uint * counts, uint length,
    uint blocks_per_row, uint shift, int map_keys, int key_type, int descending)
{
  __local uint histogram[RADIX_DIGITS];
  const uint lid = get_local_id (0);
  const uint group = get_group_id (0);
  const uint row = group / blocks_per_row;
  const uint block = group - row * blocks_per_row;
  for (uint d = lid; d < RADIX_DIGITS; d += RADIX_GROUP)
    histogram[d] = 0;
  barrier (CLK_LOCAL_MEM_FENCE);

  const uint start = block * RADIX_TILE;
  const uint valid = min ((uint) RADIX_TILE, length - start);
  __global const uint *tile = keys + row * length + start;
  uint run_digit = 0, run = 0;
#pragma unroll
  for (uint j = 0; j < RADIX_KEYS_PER_ITEM; j++) {
    const uint l = j * RADIX_GROUP + lid;
    if (l < valid)
      count_in_run (histogram, digit_of (pass_word (tile[l], map_keys, key_type, descending),
              shift), &run_digit, &run);
  }
  end_run (histogram, run_digit, run);
  barrier (CLK_LOCAL_MEM_FENCE);
  for (uint d = lid; d < RADIX_DIGITS; d += RADIX_GROUP)
    counts[count_index (row, d, blocks_per_row, block)] = histogram[d];
}

/* 1. Counts, serial: work-item t counts block t % blocks_per_row of row t / blocks_per_row, of
 * `tile` keys, by itself. */
__kernel void
radix_count_serial (__global const uint * keys, __global uint * counts, uint rows, uint length,
    uint blocks_per_row, uint tile, uint shift, int map_keys, int key_type, int descending)
{
  const uint task = get_global_id (0);
  if (task >= rows * blocks_per_row)
    return;
  const SerialBlock owned = serial_block (task, blocks_per_row, tile, length);
  __global const uint *row_keys = keys + owned.row * length;
  uint histogram[RADIX_DIGITS] = { 0 };
  if (map_keys) {
    for (uint i = owned.start; i < owned.end; i++)
      histogram[digit_of (to_word (row_keys[i], key_type, descending), shift)]++;
  } else {
    for (uint i = owned.start; i < owned.end; i++)
      histogram[digit_of (row_keys[i], shift)]++;
  }
  for (uint d = 0; d < RADIX_DIGITS; d++)
    counts[count_index (owned.row, d, blocks_per_row, owned.block)] = histogram[d];
}

/* 2a. sums[g] = the sum of counts[g * span .. (g + 1) * span - 1] (clipped to `total`). */
__kernel __attribute__ ((reqd_work_group_size (RADIX_GROUP, 1, 1)))
void
radix_scan_reduce (__global const uint * counts, __global uint * sums, uint total, uint span)
{
  __local uint scratch[RADIX_GROUP];
  const uint lid = get_local_id (0);
  const uint group = get_group_id (0);
  const uint begin = group * span;
  const uint end = min (begin + span, total);
  uint sum = 0;
  for (uint i = begin + lid; i < end; i += RADIX_GROUP)
    sum += counts[i];
  uint all;
  group_scan_uint (sum, scratch, &all);
  if (lid == 0)
    sums[group] = all;
}

/* 2b. One work-group: the exclusive prefix sum of sums[0 .. count - 1], in place. */
__kernel __attribute__ ((reqd_work_group_size (RADIX_GROUP, 1, 1)))
void
radix_scan_top (__global uint * sums, uint count)
{
  __local uint scratch[RADIX_GROUP];
  const uint lid = get_local_id (0);
  uint carry = 0;
  for (uint first = 0; first < count; first += RADIX_GROUP) {
    const uint i = first + lid;
    const uint value = i < count ? sums[i] : 0;
    uint all;
    const uint before = group_scan_uint (value, scratch, &all);
    if (i < count)
      sums[i] = carry + before;
    carry += all;
  }
}

/* 2c. The exclusive prefix sum of span g of the counts, in place, starting at sums[g]. Each
 * round covers RADIX_GROUP x SCAN_ITEMS entries, SCAN_ITEMS consecutive ones per work-item. */
__kernel __attribute__ ((reqd_work_group_size (RADIX_GROUP, 1, 1)))
void
radix_scan_down (__global uint * counts, __global const uint * sums, uint total, uint span)
{
  __local uint scratch[RADIX_GROUP];
  const uint lid = get_local_id (0);
  const uint group = get_group_id (0);
  const uint begin = group * span;
  const uint end = min (begin + span, total);
  uint carry = sums[group];
  for (uint first = begin; first < end; first += RADIX_GROUP * SCAN_ITEMS) {
    const uint mine = first + lid * SCAN_ITEMS;
    uint values[SCAN_ITEMS];
    uint sum = 0;
#pragma unroll
    for (uint t = 0; t < SCAN_ITEMS; t++) {
      values[t] = mine + t < end ? counts[mine + t] : 0;
      sum += values[t];
    }
    uint all;
    uint running = carry + group_scan_uint (sum, scratch, &all);
#pragma unroll
    for (uint t = 0; t < SCAN_ITEMS; t++) {
      if (mine + t < end)
        counts[mine + t] = running;
      running += values[t];
    }
    carry += all;
  }
}

/* The tile in local memory, one padding word per 32 so that a work-item's run of
 * RADIX_KEYS_PER_ITEM words and the work-group's run of consecutive words both spread over the
 * banks. */
#define TILE_INDEX(l) ((l) + ((l) >> 5))
#define TILE_WORDS (RADIX_TILE + (RADIX_TILE >> 5))

/* Loads the `valid` keys of a block into the tile as words, with sentinel words after them
 * (they carry the largest digit of every pass and come last, so after a stable ranking they
 * stay last and are never written). Ends with a barrier. */
inline void
load_tile (__global const uint * keys, uint valid, __local uint * tile, int map_keys,
    int key_type, int descending)
{
  const uint lid = get_local_id (0);
#pragma unroll
  for (uint j = 0; j < RADIX_KEYS_PER_ITEM; j++) {
    const uint l = j * RADIX_GROUP + lid;
    tile[TILE_INDEX (l)] = l < valid ?
        pass_word (keys[l], map_keys, key_type, descending) : SENTINEL;
  }
  barrier (CLK_LOCAL_MEM_FENCE);
}

/* The scratch of one split step's work-group scan: a ulong of four 16-bit counters per
 * work-item for 2-bit steps, a ulong4 of sixteen for 4-bit ones. */
#if RADIX_SPLIT_BITS == 2
typedef ulong split_counters;
#else
typedef ulong4 split_counters;
#endif

#if RADIX_SPLIT_BITS == 2
/* One stable split of x by two bits at split_shift into the tile. Counter v of a work-item (16
 * bits at 16 v of a ulong) counts its keys whose two bits are v. */
inline void
split_tile (__local uint * tile, __local split_counters * scan, const uint * x, uint split_shift)
{
  ulong mine = 0;
#pragma unroll
  for (uint j = 0; j < RADIX_KEYS_PER_ITEM; j++)
    mine += (ulong) 1 << (16 * ((x[j] >> split_shift) & 3));
  ulong total;
  const ulong before = group_scan_ulong (mine, scan, &total);
  /* Field v of `position`: keys with bits < v in the tile + keys with bits v before mine. */
  ulong position = before + (total << 16) + (total << 32) + (total << 48);
#pragma unroll
  for (uint j = 0; j < RADIX_KEYS_PER_ITEM; j++) {
    const uint field = 16 * ((x[j] >> split_shift) & 3);
    tile[TILE_INDEX ((uint) (position >> field) & 0xFFFFu)] = x[j];
    position += (ulong) 1 << field;
  }
}
#else
/* The same by four bits: counter v (16 bits at 16 (v % 4) of component v / 4). */
inline void
split_tile (__local uint * tile, __local split_counters * scan, const uint * x, uint split_shift)
{
  ulong4 mine = (ulong4) (0);
#pragma unroll
  for (uint j = 0; j < RADIX_KEYS_PER_ITEM; j++) {
    const uint v = (x[j] >> split_shift) & 15;
    const ulong one = (ulong) 1 << (16 * (v & 3));
    mine += (ulong4) (v < 4 ? one : 0, v >> 2 == 1 ? one : 0, v >> 2 == 2 ? one : 0,
        v >= 12 ? one : 0);
  }
  ulong4 total;
  const ulong4 before = group_scan_ulong4 (mine, scan, &total);
  /* The keys with bits < v in the tile, packed the same way, added to `before`. */
  const ulong totals[4] = { total.s0, total.s1, total.s2, total.s3 };
  ulong smaller[4];
  ulong running = 0;
#pragma unroll
  for (uint w = 0; w < 4; w++) {
    smaller[w] = 0;
#pragma unroll
    for (uint f = 0; f < 4; f++) {
      smaller[w] |= running << (16 * f);
      running += (totals[w] >> (16 * f)) & 0xFFFFu;
    }
  }
  ulong p0 = before.s0 + smaller[0], p1 = before.s1 + smaller[1];
  ulong p2 = before.s2 + smaller[2], p3 = before.s3 + smaller[3];
#pragma unroll
  for (uint j = 0; j < RADIX_KEYS_PER_ITEM; j++) {
    const uint v = (x[j] >> split_shift) & 15;
    const uint field = 16 * (v & 3);
    const uint w = v >> 2;
    const ulong packed = w == 0 ? p0 : w == 1 ? p1 : w == 2 ? p2 : p3;
    tile[TILE_INDEX ((uint) (packed >> field) & 0xFFFFu)] = x[j];
    const ulong one = (ulong) 1 << field;
    p0 += w == 0 ? one : 0;
    p1 += w == 1 ? one : 0;
    p2 += w == 2 ? one : 0;
    p3 += w == 3 ? one : 0;
  }
}
#endif

/* Ranks the loaded tile stably by the digit at `shift`, in place, one split step per
 * RADIX_SPLIT_BITS bits, lowest first; afterwards work-item lid holds tile positions
 * lid * K .. lid * K + K - 1 (in order) in x. */
inline void
rank_tile (__local uint * tile, __local split_counters * scan, uint * x, uint shift)
{
  const uint first = get_local_id (0) * RADIX_KEYS_PER_ITEM;
#pragma unroll
  for (uint j = 0; j < RADIX_KEYS_PER_ITEM; j++)
    x[j] = tile[TILE_INDEX (first + j)];

  for (uint bit = 0; bit < RADIX_BITS; bit += RADIX_SPLIT_BITS) {
    split_tile (tile, scan, x, shift + bit);
    barrier (CLK_LOCAL_MEM_FENCE);
#pragma unroll
    for (uint j = 0; j < RADIX_KEYS_PER_ITEM; j++)
      x[j] = tile[TILE_INDEX (first + j)];
    /* The next split's scan has barriers before anyone writes the tile again. */
  }
}

/* Writes the ranked tile (x as rank_tile left it) to `out`: base[d] holds, on entry, the index
 * in `out` where the tile's first key of digit d goes. Each digit's run in the ranked tile
 * has one first key, whose work-item turns base[d] into that index minus the key's position, so
 * that a key goes to base[d] plus its position (a sum in 32 bits: base[d] may wrap below 0,
 * the sum may not); consecutive work-items write consecutive keys of a digit. */
inline void
scatter_ranked (__local const uint * tile, __local uint * base, const uint * x, uint shift,
    uint valid, __global uint * out, int unmap_keys, int key_type, int descending)
{
  const uint lid = get_local_id (0);
  const uint first = lid * RADIX_KEYS_PER_ITEM;
  uint previous = lid == 0 ? RADIX_DIGITS : digit_of (tile[TILE_INDEX (first - 1)], shift);
#pragma unroll
  for (uint j = 0; j < RADIX_KEYS_PER_ITEM; j++) {
    const uint d = digit_of (x[j], shift);
    if (d != previous)
      base[d] -= first + j;
    previous = d;
  }
  barrier (CLK_LOCAL_MEM_FENCE);

#pragma unroll
  for (uint j = 0; j < RADIX_KEYS_PER_ITEM; j++) {
    const uint l = j * RADIX_GROUP + lid;
    if (l < valid) {
      const uint word = tile[TILE_INDEX (l)];
      out[base[digit_of (word, shift)] + l] = unmap_keys ?
          from_word (word, key_type, descending) : word;
    }
  }
}

/* 3. Scatter, tiled: loads the block, ranks it by digit in local memory, and writes every key
 * to offsets[(row, digit, block)] plus its distance from the first key of its digit in the
 * ranked tile. */
__kernel __attribute__ ((reqd_work_group_size (RADIX_GROUP, 1, 1)))
void
radix_scatter (__global const uint * src, __global uint * dst, __global const uint * offsets,
    uint length, uint blocks_per_row, uint shift, int map_keys, int unmap_keys, int key_type,
    int descending)
{
  __local uint tile[TILE_WORDS];
  __local split_counters scan[RADIX_GROUP];
  __local uint base[RADIX_DIGITS];
  const uint lid = get_local_id (0);
  const uint group = get_group_id (0);
  const uint row = group / blocks_per_row;
  const uint block = group - row * blocks_per_row;
  const uint start = block * RADIX_TILE;
  const uint valid = min ((uint) RADIX_TILE, length - start);

  load_tile (src + row * length + start, valid, tile, map_keys, key_type, descending);
  /* The offsets are flat indices into dst; rank_tile's barriers come before anyone reads
   * base. */
  for (uint d = lid; d < RADIX_DIGITS; d += RADIX_GROUP)
    base[d] = offsets[count_index (row, d, blocks_per_row, block)];
  uint x[RADIX_KEYS_PER_ITEM];
  rank_tile (tile, scan, x, shift);
  scatter_ranked (tile, base, x, shift, valid, dst, unmap_keys, key_type, descending);
}

/* 3. Scatter, serial: work-item t moves the keys of block t (as in radix_count_serial) in
 * order, each to the next free index of its digit. */
__kernel void
radix_scatter_serial (__global const uint * src, __global uint * dst,
    __global const uint * offsets, uint rows, uint length, uint blocks_per_row, uint tile,
    uint shift, int map_keys, int unmap_keys, int key_type, int descending)
{
  const uint task = get_global_id (0);
  if (task >= rows * blocks_per_row)
    return;
  const SerialBlock owned = serial_block (task, blocks_per_row, tile, length);
  __global const uint *row_keys = src + owned.row * length;
  uint next[RADIX_DIGITS];
  for (uint d = 0; d < RADIX_DIGITS; d++)
    next[d] = offsets[count_index (owned.row, d, blocks_per_row, owned.block)];
  if (map_keys) {
    for (uint i = owned.start; i < owned.end; i++) {
      const uint word = to_word (row_keys[i], key_type, descending);
      dst[next[digit_of (word, shift)]++] = word;
    }
  } else if (unmap_keys) {
    for (uint i = owned.start; i < owned.end; i++) {
      const uint word = row_keys[i];
      dst[next[digit_of (word, shift)]++] = from_word (word, key_type, descending);
    }
  } else {
    for (uint i = owned.start; i < owned.end; i++) {
      const uint word = row_keys[i];
      dst[next[digit_of (word, shift)]++] = word;
    }
  }
}
