/* gst-opencl: per-frame histograms of one plane, and the graph drawn into the frame.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * `histogram` counts the samples of one plane into `counts` (uint, channel-major: channel c,
 * bin b at (first_channel + c) * bins + b). `counts` must be zero before the first plane of a
 * frame; the launch may zero another buffer, `clear` (its first `clear_count` uints), so that the
 * host can alternate two count buffers and never clear one with a launch of its own: frame n
 * counts into buffer n % 2 and clears buffer (n + 1) % 2, whose counts were read back before (the
 * queue is in order).
 *
 * The plane is read as `spans` spans `stride` bytes apart (one span for a plane without padding
 * between rows, else one per row). A span starts with `span_words` 16-byte words, read as uint4
 * (4 RGBA pixels, 2 RGBA64 pixels, 8 two-byte pixels or 16 bytes at once), and ends with
 * `span_tail` pixels read byte by byte. The host chooses words only where they are 16-byte aligned (plane offset, and the
 * stride when there are several spans); otherwise span_words is 0 and every pixel is a tail
 * pixel. Samples come out of the words with shifts, so the device must be little-endian (the host
 * checks).
 *
 * Work-groups of GROUP_SIZE > 1 (GPUs): every work-item takes words the global size apart (a grid
 * stride: neighbouring work-items read neighbouring words, the whole device reads one contiguous
 * stretch at a time), two words in flight per step, then the tail pixels the same way. It counts
 * into COPIES sub-histograms in local memory, copy = local id % COPIES, the copies of a bin side
 * by side so that the work-items of one warp that hit the same bin hit different banks. With
 * PACKED the counters are 16 bits, two channels (0 and 1, 2 and 3) sharing each 32-bit word, so
 * twice the copies fit in the same local memory; the host keeps every counter below 65536 (it
 * launches enough work-groups that no copy is shared by work-items that count more samples than
 * that). With RUNS every work-item keeps, per channel, the bin of its last samples and how many
 * in a row fell there, and adds the run with one local atomic when the bin changes: a frame of
 * one colour then costs one atomic per channel per work-item rather than one per sample. At the
 * end every work-group sums its copies (reading them in an order that keeps a warp on distinct
 * banks) and adds its non-zero bins to `counts` with one global atomic each.
 *
 * With GROUP_SIZE 1 (CPU devices, where a work-group runs on one core anyway) the single
 * work-item counts `words_per_group` words and `tail_per_group` tail pixels, contiguous runs of
 * the plane, with plain adds into the histograms it owns (COPIES per channel, each a row of
 * MAX_BINS): sample k of a word goes to copy k % COPIES, so a run of one bin makes COPIES
 * independent chains of adds instead of one (only this kind reads words_per_group and
 * tail_per_group).
 *
 * Samples are SAMPLE_BYTES wide (1, or 2 little-endian bytes: GRAY16, RGBA64, P010), and a
 * sample v falls in bin v >> bin_shift, bin_shift = 8 x SAMPLE_BYTES - log2 (bins) (the host
 * passes it). For P010, whose 10 bits sit in the high bits of each 16-bit word, that is the bin
 * of its 10-bit value (v >> 6) x bins / 1024 with any bins up to 1024: P010 is counted as 16-bit
 * samples, and the 6 low bits never reach a bin.
 *
 * `draw` renders the bars of the first DRAW_CHANNELS channels into the top-left
 * draw_width x draw_height pixels of the plane (see docs/openclhistogram.md for the exact rule);
 * `fill_region` sets a rectangle of samples (neutral chroma under the graph).
 *
 * Build options (all have defaults so the file builds on its own):
 *   PIXEL_BYTES  bytes from one pixel to the next in the plane (8, 4, 2 or 1)
 *   SAMPLE_BYTES bytes of one sample (1, or 2: a little-endian 16-bit word)
 *   LOW_BITS     low bits of a 16-bit sample that carry no value (6 for P010, else 0): what
 *                `draw` and `fill_region` write keeps them 0
 *   CHANNELS     samples counted per pixel (1..3), at byte offsets CH0, CH1, CH2 of the pixel
 *   LUMA         1: also count Y = (299 CH0 + 587 CH1 + 114 CH2 + 500) / 1000 as channel
 *                CHANNELS (CH0..CH2 must then be red, green, blue, in pixels of 4 samples)
 *   GROUP_SIZE   work-items per work-group;  COPIES: sub-histograms per work-group (power of 2)
 *   PACKED       16-bit counters, two channels per word (GROUP_SIZE > 1 only)
 *   RUNS         count runs of one bin before adding them (GROUP_SIZE > 1 only)
 *   MAX_BINS     largest bin count (the local histograms are sized for it)
 */
#ifndef PIXEL_BYTES
#define PIXEL_BYTES 4
#endif
#ifndef SAMPLE_BYTES
#define SAMPLE_BYTES 1
#endif
#ifndef LOW_BITS
#define LOW_BITS 0
#endif
#ifndef CHANNELS
#define CHANNELS 3
#endif
#ifndef CH0
#define CH0 0
#endif
#ifndef CH1
#define CH1 1
#endif
#ifndef CH2
#define CH2 2
#endif
#ifndef LUMA
#define LUMA 1
#endif
#ifndef GROUP_SIZE
#define GROUP_SIZE 256
#endif
#ifndef COPIES
#define COPIES 16
#endif
#ifndef PACKED
#define PACKED 1
#endif
#ifndef RUNS
#define RUNS 0
#endif
#ifndef MAX_BINS
#define MAX_BINS 256
#endif

#if GROUP_SIZE == 1
#undef PACKED
#define PACKED 0
#undef RUNS
#define RUNS 0
#endif

#define HIST_CHANNELS (CHANNELS + LUMA)
#define DRAW_CHANNELS CHANNELS
#define PIXELS_PER_WORD (16 / PIXEL_BYTES)
/* Rows of MAX_BINS x COPIES words in local memory: one per channel, or per pair when PACKED. */
#define HIST_ROWS (PACKED ? (HIST_CHANNELS + 1) / 2 : HIST_CHANNELS)
#define HIST_WORDS (HIST_ROWS * MAX_BINS * COPIES)
/* The row of channel c, and where in its word its 16-bit counter sits (a channel without a
 * partner, the last of an odd count, has the whole word). */
#define ROW_OF(c) (PACKED ? (c) / 2 : (c))
#define PAIRED(c) (PACKED && ((c) ^ 1) < HIST_CHANNELS)
#define HALF_SHIFT(c) (PAIRED (c) ? 16 * ((c) & 1) : 0)
/* Local memory banks (32 on the GPUs this is tuned for; elsewhere only the merge order
 * changes). */
#define BANKS 32

#define SAMPLE_BITS (8 * SAMPLE_BYTES)
#define SAMPLE_MASK ((1u << SAMPLE_BITS) - 1u)
/* The largest value a sample holds, its unused low bits 0 (255, 65535, 0xffc0 for P010). */
#define SAMPLE_TOP (SAMPLE_MASK & ~((1u << LOW_BITS) - 1u))

/* The sample at byte `index` (0..15, a constant once unrolled; even for 16-bit samples) of a
 * 16-byte word held as four uints. */
#define WORD_SAMPLE(u, index) (((u)[(index) / 4] >> (8 * ((index) % 4))) & SAMPLE_MASK)

/* The sample at `sample` (any alignment), little-endian. */
inline uint
load_sample (__global const uchar * sample)
{
#if SAMPLE_BYTES == 2
  return (uint) sample[0] | ((uint) sample[1] << 8);
#else
  return sample[0];
#endif
}

/* Writes `value` at `sample` (any alignment), little-endian. */
inline void
store_sample (__global uchar * sample, uint value)
{
  sample[0] = (uchar) value;
#if SAMPLE_BYTES == 2
  sample[1] = (uchar) (value >> 8);
#endif
}

inline uint
luma_of (uint red, uint green, uint blue)
{
  return (299u * red + 587u * green + 114u * blue + 500u) / 1000u;
}

#if LUMA && PIXEL_BYTES != 4 * SAMPLE_BYTES
#error "LUMA needs pixels of 4 samples"
#endif

/* The luma of the 4 pixels of a word (when LUMA), computed side by side: as vector operations a
 * CPU does the multiplications four at a time instead of keeping its one scalar multiplier busy
 * with them. */
inline uint4
word_luma (uint4 word)
{
#if LUMA && SAMPLE_BYTES == 1
  const uint4 mask = (uint4) 0xffu;
  return ((uint4) 299u * ((word >> (uint4) (8 * CH0)) & mask) +
      (uint4) 587u * ((word >> (uint4) (8 * CH1)) & mask) +
      (uint4) 114u * ((word >> (uint4) (8 * CH2)) & mask) + (uint4) 500u) / (uint4) 1000u;
#else
  return (uint4) 0u;
#endif
}

/* The samples of pixel k of a word (u: its four uints, luma: word_luma ()), and its luma when
 * LUMA. */
inline void
word_pixel (const uint * u, const uint * luma, int k, uint * value)
{
  value[0] = WORD_SAMPLE (u, k * PIXEL_BYTES + CH0);
#if CHANNELS > 1
  value[1] = WORD_SAMPLE (u, k * PIXEL_BYTES + CH1);
#endif
#if CHANNELS > 2
  value[2] = WORD_SAMPLE (u, k * PIXEL_BYTES + CH2);
#endif
#if LUMA && SAMPLE_BYTES == 1
  value[CHANNELS] = luma[k];
#elif LUMA
  /* Two 16-bit pixels per word: the scalar form (65535 x 1000 + 500 fits a uint). */
  value[CHANNELS] = luma_of (value[0], value[1], value[2]);
#endif
}

/* Declares u and luma, the four uints of a word and their lumas, as word_pixel () takes them. */
#define WORD_LANES(word) \
  const uint u[4] = { (word).s0, (word).s1, (word).s2, (word).s3 }; \
  const uint4 luma4 = word_luma (word); \
  const uint luma[4] = { luma4.s0, luma4.s1, luma4.s2, luma4.s3 }

/* The samples of one pixel read byte by byte, and its luma when LUMA. */
inline void
byte_pixel (__global const uchar * pixel, uint * value)
{
  value[0] = load_sample (pixel + CH0);
#if CHANNELS > 1
  value[1] = load_sample (pixel + CH1);
#endif
#if CHANNELS > 2
  value[2] = load_sample (pixel + CH2);
#endif
#if LUMA
  value[CHANNELS] = luma_of (value[0], value[1], value[2]);
#endif
}

/* Word w of the plane (16-byte aligned, as the host guarantees). */
inline __global const uint4 *
word_at (__global const uchar * plane, int stride, uint spans, uint span_words, uint w)
{
  if (spans == 1)
    return (__global const uint4 *) plane + w;
  const uint span = w / span_words;
  return (__global const uint4 *) (plane + (size_t) span * stride) + (w - span * span_words);
}

/* Tail pixel t of the plane. */
inline __global const uchar *
tail_at (__global const uchar * plane, int stride, uint span_words, uint span_tail, uint t)
{
  const uint span = t / span_tail;
  return plane + (size_t) span * stride + (size_t) span_words * 16 +
      (size_t) (t - span * span_tail) * PIXEL_BYTES;
}

#if GROUP_SIZE == 1

/* One work-item owns the histogram: plain adds, sample k of a word into copy k % COPIES. */
inline void
count_pixel (__local uint * hist, const uint * value, uint copy, uint bin_shift)
{
#pragma unroll
  for (int c = 0; c < HIST_CHANNELS; c++)
    hist[(c * COPIES + copy) * MAX_BINS + (value[c] >> bin_shift)]++;
}

inline __attribute__ ((always_inline)) void
count_word (__local uint * hist, uint4 word, uint bin_shift)
{
  WORD_LANES (word);
#pragma unroll
  for (int k = 0; k < PIXELS_PER_WORD; k++) {
    uint value[HIST_CHANNELS];
    word_pixel (u, luma, k, value);
    count_pixel (hist, value, k % COPIES, bin_shift);
  }
}

/* n consecutive words; inlined, so that a constant bin_shift of 0 takes the shifts away. */
inline __attribute__ ((always_inline)) void
count_words (__local uint * hist, __global const uint4 * word, uint n, uint bin_shift)
{
  for (uint i = 0; i < n; i++)
    count_word (hist, word[i], bin_shift);
}

#else

/* Adds n samples of channel c in `bin` to this work-item's copy. */
inline void
add_local (__local uint * hist, uint copy, int c, uint bin, uint n)
{
  atomic_add (&hist[(ROW_OF (c) * MAX_BINS + bin) * COPIES + copy], n << HALF_SHIFT (c));
}

inline void
count_pixel (__local uint * hist, const uint * value, uint copy, uint bin_shift,
    uint * run_bin, uint * run_length)
{
#pragma unroll
  for (int c = 0; c < HIST_CHANNELS; c++) {
    const uint bin = value[c] >> bin_shift;
#if RUNS
    if (bin != run_bin[c]) {
      add_local (hist, copy, c, run_bin[c], run_length[c]);
      run_bin[c] = bin;
      run_length[c] = 0;
    }
    run_length[c]++;
#else
    add_local (hist, copy, c, bin, 1);
#endif
  }
}

inline __attribute__ ((always_inline)) void
count_word (__local uint * hist, uint4 word, uint copy, uint bin_shift, uint * run_bin,
    uint * run_length)
{
  WORD_LANES (word);
#pragma unroll
  for (int k = 0; k < PIXELS_PER_WORD; k++) {
    uint value[HIST_CHANNELS];
    word_pixel (u, luma, k, value);
    count_pixel (hist, value, copy, bin_shift, run_bin, run_length);
  }
}

#endif

__kernel __attribute__ ((reqd_work_group_size (GROUP_SIZE, 1, 1)))
void
histogram (__global const uchar * frame, ulong plane_offset, int stride, uint spans,
    uint span_words, uint span_tail, uint words_per_group, uint tail_per_group, uint bins,
    uint bin_shift, __global uint * counts, uint first_channel, __global uint * clear,
    uint clear_count)
{
  __local uint hist[HIST_WORDS];

  const uint lid = get_local_id (0);
  for (uint i = lid; i < HIST_WORDS; i += GROUP_SIZE)
    hist[i] = 0;
  if (get_group_id (0) == 0) {
    for (uint i = lid; i < clear_count; i += GROUP_SIZE)
      clear[i] = 0;
  }
  barrier (CLK_LOCAL_MEM_FENCE);

  __global const uchar *plane = frame + plane_offset;
  const uint words = spans * span_words;
  const uint tails = spans * span_tail;
#if GROUP_SIZE == 1
  /* A contiguous run of words, then one of tail pixels; the span and column follow along. */
  {
    const uint group = get_group_id (0);
    const uint first = (uint) min ((ulong) words, (ulong) group * words_per_group);
    const uint end = first + min (words - first, words_per_group);
    /* A span's share of the run at a time: no bookkeeping per word. With 256 bins (no shift)
     * the loop is a copy of its own with the shift gone, one instruction fewer per sample. */
    for (uint w = first; w < end;) {
      const uint span = w / span_words;
      const uint column = w - span * span_words;
      const uint n = min (end - w, span_words - column);
      __global const uint4 *word =
          (__global const uint4 *) (plane + (size_t) span * stride) + column;
      if (bin_shift == 0)
        count_words (hist, word, n, 0);
      else
        count_words (hist, word, n, bin_shift);
      w += n;
    }
    const uint tail_first = (uint) min ((ulong) tails, (ulong) group * tail_per_group);
    const uint tail_end = tail_first + min (tails - tail_first, tail_per_group);
    for (uint t = tail_first; t < tail_end; t++) {
      uint value[HIST_CHANNELS];
      byte_pixel (tail_at (plane, stride, span_words, span_tail, t), value);
      count_pixel (hist, value, t % COPIES, bin_shift);
    }
  }
#else
  {
    const uint copy = lid % COPIES;
    uint run_bin[HIST_CHANNELS];
    uint run_length[HIST_CHANNELS];
#pragma unroll
    for (int c = 0; c < HIST_CHANNELS; c++) {
      run_bin[c] = 0;
      run_length[c] = 0;
    }
    const uint step = get_global_size (0);
    uint w = get_global_id (0);
    /* Two loads in flight before the counting that waits for them. */
    for (; w + step < words; w += 2 * step) {
      const uint4 a = *word_at (plane, stride, spans, span_words, w);
      const uint4 b = *word_at (plane, stride, spans, span_words, w + step);
      count_word (hist, a, copy, bin_shift, run_bin, run_length);
      count_word (hist, b, copy, bin_shift, run_bin, run_length);
    }
    if (w < words)
      count_word (hist, *word_at (plane, stride, spans, span_words, w), copy, bin_shift,
          run_bin, run_length);
    for (uint t = get_global_id (0); t < tails; t += step) {
      uint value[HIST_CHANNELS];
      byte_pixel (tail_at (plane, stride, span_words, span_tail, t), value);
      count_pixel (hist, value, copy, bin_shift, run_bin, run_length);
    }
#if RUNS
#pragma unroll
    for (int c = 0; c < HIST_CHANNELS; c++)
      add_local (hist, copy, c, run_bin[c], run_length[c]);
#endif
  }
#endif
  barrier (CLK_LOCAL_MEM_FENCE);

  __global uint *out = counts + first_channel * bins;
  const uint bin_bits = SAMPLE_BITS - bin_shift;
  /* Neighbouring work-items take neighbouring bins; each starts at another copy so that a warp
   * reads 32 distinct banks. */
  const uint copy_step = COPIES < BANKS ? lid / (BANKS / COPIES) : lid;
  for (uint slot = lid; slot < HIST_CHANNELS * bins; slot += GROUP_SIZE) {
    const uint c = slot >> bin_bits;
    const uint bin = slot & (bins - 1);
#if GROUP_SIZE == 1
    uint sum = 0;
    for (uint k = 0; k < COPIES; k++)
      sum += hist[(c * COPIES + k) * MAX_BINS + bin];
#else
    const uint shift = PAIRED (c) ? 16 * (c & 1) : 0;
    const uint mask = PAIRED (c) ? 0xffffu : 0xffffffffu;
    __local const uint *cell = hist + (ROW_OF (c) * MAX_BINS + bin) * COPIES;
    uint sum = 0;
    for (uint k = 0; k < COPIES; k++)
      sum += (cell[(k + copy_step) & (COPIES - 1)] >> shift) & mask;
#endif
    if (sum)
      atomic_add (&out[slot], sum);
  }
}

/* Bars of channels 0 .. DRAW_CHANNELS - 1 of `counts`, each scaled to its own tallest bin. Column
 * x shows bin x * bins / draw_width; a bar of count n is max (1, n * draw_height / peak) pixels
 * tall (0 when n is 0), standing on the bottom row of the region. Inside the region, the sample of
 * a lit channel becomes SAMPLE_TOP (255, 65535, P010's 1023) and every other sample a quarter of
 * its value (the dimmed background; of the 10-bit value for P010). Every work-item of a group takes part in finding the peaks before any returns. */
__kernel void
draw (__global uchar * frame, ulong plane_offset, int stride, int draw_width, int draw_height,
    uint bins, __global const uint * counts)
{
  __local uint peak[DRAW_CHANNELS];
  const uint lid = get_local_id (1) * get_local_size (0) + get_local_id (0);
  const uint group_size = get_local_size (0) * get_local_size (1);
  if (lid < DRAW_CHANNELS)
    peak[lid] = 0;
  barrier (CLK_LOCAL_MEM_FENCE);
  for (uint i = lid; i < DRAW_CHANNELS * bins; i += group_size)
    atomic_max (&peak[i / bins], counts[i]);
  barrier (CLK_LOCAL_MEM_FENCE);

  const int x = get_global_id (0);
  const int y = get_global_id (1);
  if (x >= draw_width || y >= draw_height)
    return;
  const uint bin = (uint) x * bins / (uint) draw_width;
  const uint row_from_bottom = (uint) (draw_height - 1 - y);
  __global uchar *pixel = frame + plane_offset + (size_t) y * stride + (size_t) x * PIXEL_BYTES;
  const int offsets[3] = { CH0, CH1, CH2 };
  for (int c = 0; c < DRAW_CHANNELS; c++) {
    const uint n = counts[c * bins + bin];
    const uint bar = n ? max (1u, (uint) ((ulong) n * (ulong) draw_height / peak[c])) : 0u;
    __global uchar *sample = pixel + offsets[c];
    store_sample (sample, row_from_bottom < bar ? SAMPLE_TOP :
        (load_sample (sample) >> 2) & SAMPLE_TOP);
  }
}

/* Sets `row_samples` samples of each of `rows` rows to `value`. */
__kernel void
fill_region (__global uchar * frame, ulong plane_offset, int stride, int row_samples, int rows,
    uint value)
{
  const int x = get_global_id (0);
  const int y = get_global_id (1);
  if (x < row_samples && y < rows)
    store_sample (frame + plane_offset + (size_t) y * stride + (size_t) x * SAMPLE_BYTES, value);
}
