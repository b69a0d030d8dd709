/* gst-opencl benchmarks: how fast plain C++ on this machine's cores counts what openclhistogram
 * counts (red, green, blue and luma of RGBA frames, 256 bins each), so that the element's CPU
 * figures can be read against what the cores themselves allow rather than against the copy
 * bandwidth alone. No OpenCL and no GStreamer: each method runs on --threads threads, each
 * counting a contiguous share of the frame into its own tables, merged at the end (the merge and
 * the clearing of the tables are timed with the counting).
 *
 *   bench_count_bound [--size WxH] [--frames N] [--threads T] [--ceilings FILE] [--json FILE]
 *
 * Methods:
 *   read     sums the frame as 64-bit words: what reading alone costs (no counting);
 *   stores   one store per sample to the counter the sample selects, without reading it first:
 *            the store rate, the most any counting with one counter update per sample can reach;
 *   count-1  one counter per bin and channel, read, incremented and written back per sample;
 *   count-4  four copies of every histogram, pixel k of a group of four into copy k (what the
 *            element's CPU kernel does): a run of one bin makes four chains instead of one;
 *   pairs    two joint tables of 256 x 256 counters, (red, green) and (blue, luma): two counter
 *            updates per pixel instead of four, the four histograms summed out of the tables at
 *            the end (the tables are 256 KiB each, beyond the first-level cache).
 * Every method that counts must give the same histograms as count-1 (checked on every frame
 * kind; a difference fails the program). Frames: random bytes, and one colour.
 * Prints one line per frame kind and method: median ms per frame, GB/s of frame read, and with
 * --ceilings (a bench_ceilings JSON of the same machine) the fraction of its copy bandwidth.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;
constexpr int BINS = 256;
constexpr int CHANNELS = 4;     /* red, green, blue, luma */
using Histograms = std::vector<uint32_t>;       /* CHANNELS x BINS */

inline uint32_t
luma (uint32_t r, uint32_t g, uint32_t b)
{
  return (299u * r + 587u * g + 114u * b + 500u) / 1000u;
}

/* Pixel i as one 32-bit load (the bytes read one by one would be read again after every
 * counter store, which may alias them). */
struct Pixel
{
  uint32_t r, g, b;
};

inline Pixel
pixel (const uint8_t *frame, size_t i)
{
  uint32_t word;
  std::memcpy (&word, frame + 4 * i, 4);
  return { word & 0xffu, (word >> 8) & 0xffu, (word >> 16) & 0xffu };
}

/* One thread's tables, allocated once. */
struct Scratch
{
  std::vector<uint32_t> copies = std::vector<uint32_t> (4 * CHANNELS * BINS);
  std::vector<uint32_t> pairs = std::vector<uint32_t> (2 * BINS * BINS);
  uint64_t sum = 0;
};

/* Counts pixels [begin, end) of `frame` (RGBA) into hist (CHANNELS x BINS, zeroed by the
 * caller) with the method's own tables. */
using Method = void (*) (const uint8_t * frame, size_t begin, size_t end, Scratch & s,
    uint32_t * hist);

void
read_only (const uint8_t *frame, size_t begin, size_t end, Scratch &s, uint32_t *)
{
  const uint64_t *words = reinterpret_cast<const uint64_t *> (frame);
  uint64_t a = 0, b = 0;
  size_t w = begin / 2, last = end / 2;
  for (; w + 1 < last; w += 2) {
    a += words[w];
    b ^= words[w + 1];
  }
  s.sum = a + b;
}

void
stores_only (const uint8_t *frame, size_t begin, size_t end, Scratch &s, uint32_t *)
{
  uint32_t *t = s.copies.data ();
  for (size_t i = begin; i < end; i++) {
    uint32_t word;
    std::memcpy (&word, frame + 4 * i, 4);
    const uint32_t v = (uint32_t) i;
    t[word & 0xffu] = v;
    t[BINS + ((word >> 8) & 0xffu)] = v;
    t[2 * BINS + ((word >> 16) & 0xffu)] = v;
    t[3 * BINS + (word >> 24)] = v;
  }
}

void
count_1 (const uint8_t *frame, size_t begin, size_t end, Scratch &, uint32_t *hist)
{
  for (size_t i = begin; i < end; i++) {
    const Pixel p = pixel (frame, i);
    hist[p.r]++;
    hist[BINS + p.g]++;
    hist[2 * BINS + p.b]++;
    hist[3 * BINS + luma (p.r, p.g, p.b)]++;
  }
}

void
count_4 (const uint8_t *frame, size_t begin, size_t end, Scratch &s, uint32_t *hist)
{
  uint32_t *t = s.copies.data ();
  std::memset (t, 0, s.copies.size () * sizeof (uint32_t));
  size_t i = begin;
  for (; i + 4 <= end; i += 4) {
    for (int k = 0; k < 4; k++) {
      const Pixel p = pixel (frame, i + k);
      uint32_t *copy = t + k * CHANNELS * BINS;
      copy[p.r]++;
      copy[BINS + p.g]++;
      copy[2 * BINS + p.b]++;
      copy[3 * BINS + luma (p.r, p.g, p.b)]++;
    }
  }
  count_1 (frame, i, end, s, hist);
  for (int k = 0; k < 4; k++)
    for (int j = 0; j < CHANNELS * BINS; j++)
      hist[j] += t[k * CHANNELS * BINS + j];
}

void
pairs (const uint8_t *frame, size_t begin, size_t end, Scratch &s, uint32_t *hist)
{
  uint32_t *rg = s.pairs.data (), *by = rg + BINS * BINS;
  std::memset (rg, 0, s.pairs.size () * sizeof (uint32_t));
  for (size_t i = begin; i < end; i++) {
    const Pixel p = pixel (frame, i);
    rg[p.r * BINS + p.g]++;
    by[p.b * BINS + luma (p.r, p.g, p.b)]++;
  }
  for (int a = 0; a < BINS; a++) {
    uint32_t row_rg = 0, row_by = 0;
    for (int b = 0; b < BINS; b++) {
      row_rg += rg[a * BINS + b];
      row_by += by[a * BINS + b];
      hist[BINS + b] += rg[a * BINS + b];
      hist[3 * BINS + b] += by[a * BINS + b];
    }
    hist[a] += row_rg;
    hist[2 * BINS + a] += row_by;
  }
}

struct Named
{
  const char *name;
  Method method;
  bool counts;
};

const Named METHODS[] = {
  { "read", read_only, false },
  { "stores", stores_only, false },
  { "count-1", count_1, true },
  { "count-4", count_4, true },
  { "pairs", pairs, true },
};

/* One frame with `threads` threads (the calling one among them); the threads' histograms are
 * summed into `out`. */
void
run_frame (const Named &m, const std::vector<uint8_t> &frame, std::vector<Scratch> &scratch,
    std::vector<Histograms> &partial, Histograms &out)
{
  const size_t pixels = frame.size () / 4, threads = scratch.size ();
  auto work = [&](size_t t) {
    std::fill (partial[t].begin (), partial[t].end (), 0u);
    m.method (frame.data (), pixels * t / threads, pixels * (t + 1) / threads, scratch[t],
        partial[t].data ());
  };
  std::vector<std::thread> others;
  for (size_t t = 1; t < threads; t++)
    others.emplace_back (work, t);
  work (0);
  for (auto &thread : others)
    thread.join ();
  std::fill (out.begin (), out.end (), 0u);
  for (size_t t = 0; t < threads; t++)
    for (size_t j = 0; j < out.size (); j++)
      out[j] += partial[t][j];
}

/* The first line of a file that starts with `key`, after the colon ("" if none). */
std::string
proc_field (const char *path, const std::string &key)
{
  std::ifstream file (path);
  std::string line;
  while (std::getline (file, line))
    if (line.compare (0, key.size (), key) == 0) {
      const size_t colon = line.find (':');
      return colon == std::string::npos ? "" : line.substr (line.find_first_not_of (" \t",
              colon + 1));
    }
  return "";
}

std::string
load_average ()
{
  std::ifstream file ("/proc/loadavg");
  std::string a, b, c;
  file >> a >> b >> c;
  return a + " " + b + " " + c;
}

/* A JSON string of plain text (quotes and backslashes escaped; control characters dropped). */
std::string
quoted (const std::string &text)
{
  std::string out = "\"";
  for (char ch : text) {
    if (ch == '"' || ch == '\\')
      out += '\\';
    if ((unsigned char) ch >= 0x20)
      out += ch;
  }
  return out + "\"";
}

double
median (std::vector<double> v)
{
  std::sort (v.begin (), v.end ());
  return v.empty () ? 0 : v[v.size () / 2];
}

/* bench_ceilings' copy bandwidth ("copy": {... "bytes_per_s": X}), or 0. */
double
copy_bandwidth (const std::string &path)
{
  std::ifstream file (path);
  std::stringstream text;
  text << file.rdbuf ();
  const std::string s = text.str ();
  const size_t copy = s.find ("\"copy\"");
  if (copy == std::string::npos)
    return 0;
  const size_t key = s.find ("\"bytes_per_s\"", copy);
  if (key == std::string::npos)
    return 0;
  const size_t colon = s.find (':', key);
  return colon == std::string::npos ? 0 : std::strtod (s.c_str () + colon + 1, nullptr);
}

int
usage ()
{
  std::fprintf (stderr, "usage: bench_count_bound [--size WxH] [--frames N] [--threads T] "
      "[--ceilings FILE] [--json FILE]\n");
  return 2;
}

}  // namespace

int
main (int argc, char **argv)
{
  int width = 3840, height = 2160, frames = 40;
  int threads = (int) std::max (1u, std::thread::hardware_concurrency ());
  std::string ceilings, json_path;
  for (int i = 1; i < argc; i++) {
    const std::string arg = argv[i];
    if (i + 1 >= argc)
      return usage ();
    const char *value = argv[++i];
    if (arg == "--size") {
      if (std::sscanf (value, "%dx%d", &width, &height) != 2 || width < 4 || height < 1 ||
          width > 16384 || height > 16384)
        return usage ();
    } else if (arg == "--frames") {
      frames = std::atoi (value);
      if (frames < 1 || frames > 100000)
        return usage ();
    } else if (arg == "--threads") {
      threads = std::atoi (value);
      if (threads < 1 || threads > 256)
        return usage ();
    } else if (arg == "--ceilings") {
      ceilings = value;
    } else if (arg == "--json") {
      json_path = value;
    } else {
      return usage ();
    }
  }
  std::string command = "bench_count_bound";
  for (int i = 1; i < argc; i++)
    command += std::string (" ") + argv[i];
  const std::string load_before = load_average ();
  const double copy = ceilings.empty ()? 0 : copy_bandwidth (ceilings);
  if (!ceilings.empty () && copy <= 0) {
    std::fprintf (stderr, "no copy bandwidth in %s\n", ceilings.c_str ());
    return 1;
  }
  const size_t bytes = (size_t) width * height * 4;
  std::vector<uint8_t> random_frame (bytes), flat_frame (bytes);
  std::mt19937 rng (1234);
  for (auto &b : random_frame)
    b = (uint8_t) rng ();
  for (size_t i = 0; i < bytes; i += 4) {
    flat_frame[i] = 200;
    flat_frame[i + 1] = 120;
    flat_frame[i + 2] = 40;
    flat_frame[i + 3] = 255;
  }
  std::vector<Scratch> scratch (threads);
  std::vector<Histograms> partial (threads, Histograms (CHANNELS * BINS));
  std::string json = "{\"benchmark\": \"count_bound\", \"width\": " + std::to_string (width) +
      ", \"height\": " + std::to_string (height) + ", \"threads\": " +
      std::to_string (threads) + ", \"frames\": " + std::to_string (frames) +
      ", \"copy_bytes_per_s\": " + std::to_string (copy) + ", \"cases\": [";
  bool failed = false, first_case = true;
  std::printf ("%dx%d RGBA, %d threads, %d frames%s\n", width, height, threads, frames,
      copy > 0 ? "" : " (no --ceilings: no fraction of the copy bandwidth)");
  struct FrameKind
  {
    const char *name;
    const std::vector<uint8_t> *frame;
  };
  const FrameKind kinds[] = { { "random", &random_frame }, { "one colour", &flat_frame } };
  for (const FrameKind &kind : kinds) {
    Histograms reference (CHANNELS * BINS), result (CHANNELS * BINS);
    run_frame (METHODS[2], *kind.frame, scratch, partial, reference);
    for (const Named &m : METHODS) {
      std::vector<double> ms;
      for (int f = -2; f < frames; f++) {
        const auto start = Clock::now ();
        run_frame (m, *kind.frame, scratch, partial, result);
        const double elapsed =
            std::chrono::duration<double, std::milli> (Clock::now () - start).count ();
        if (f >= 0)
          ms.push_back (elapsed);
        if (m.counts && result != reference) {
          std::fprintf (stderr, "%s: %s counts differ from count-1\n", kind.name, m.name);
          failed = true;
          break;
        }
      }
      const double med = median (ms), gbps = bytes / (med * 1e-3) * 1e-9;
      const double samples_per_ns = (double) bytes / (med * 1e6);
      std::printf ("%-10s %-8s %8.3f ms  %6.2f GB/s  %5.2f samples/ns", kind.name, m.name, med,
          gbps, samples_per_ns);
      if (copy > 0)
        std::printf ("  %5.1f%% of copy", 100.0 * gbps * 1e9 / copy);
      std::printf ("\n");
      char line[512];
      std::snprintf (line, sizeof line, "%s{\"frame\": \"%s\", \"method\": \"%s\", "
          "\"median_ms\": %.6f, \"gb_per_s\": %.4f, \"of_copy\": %.4f}", first_case ? "" : ", ",
          kind.name, m.name, med, gbps, copy > 0 ? gbps * 1e9 / copy : -1.0);
      json += line;
      first_case = false;
    }
  }
  json += "], \"failed\": " + std::string (failed ? "true" : "false") + ", \"command\": " +
      quoted (command) + ", \"machine\": {\"cpu\": " +
      quoted (proc_field ("/proc/cpuinfo", "model name")) + ", \"cores\": " +
      std::to_string (std::thread::hardware_concurrency ()) + ", \"loadavg_before\": " +
      quoted (load_before) + ", \"loadavg_after\": " + quoted (load_average ()) + "}}\n";
  if (!json_path.empty ()) {
    std::ofstream out (json_path);
    out << json;
    if (!out) {
      std::fprintf (stderr, "cannot write %s\n", json_path.c_str ());
      return 1;
    }
  }
  return failed ? 1 : 0;
}
