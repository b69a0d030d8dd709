/* gst-opencl bench: which range weights suit openclbilateral's chroma planes, measured on the
 * CPU reference (no device): a synthetic 4:2:0 frame with luma and chroma edges, among them an
 * iso-luminant one (same luma, other colour), plus Gaussian noise on every plane; its chroma
 * filtered with weights from (pair) the Euclidean distance of U and V, as the element does,
 * (own) each chroma value alone, U and V filtered as two gray planes, (luma) the co-sited luma
 * (the mean of the 2x2 luma samples over each chroma sample). Prints the PSNR of
 * U and V against the noiseless chroma.
 *
 *   g++ -O2 -std=c++17 -Itests tests/bench/bilateral_chroma_quality.cpp \
 *       tests/reference/bilateral_reference.cpp -o /tmp/chroma-quality && /tmp/chroma-quality
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

#include "reference/bilateral_reference.h"

namespace {

constexpr int W = 256, H = 192, CW = W / 2, CH = H / 2;
constexpr double SIGMA_SPATIAL = 2.0, SIGMA_RANGE = 25.0;
constexpr int RADIUS = 4;

struct Yuv
{
  std::vector<double> y = std::vector<double> (W * H), u = std::vector<double> (CW * CH),
      v = std::vector<double> (CW * CH);
};

/* The clean frame: a grey ramp, a red disc, a blue square, and a green band beside a pink
 * band of the same luma (BT.601 full range). */
Yuv
clean_frame ()
{
  Yuv f;
  std::vector<double> r (W * H), g (W * H), b (W * H);
  for (int y = 0; y < H; y++) {
    for (int x = 0; x < W; x++) {
      double R = 90 + x / 8.0, G = 90 + x / 8.0, B = 90 + y / 8.0;
      if ((x - 70) * (x - 70) + (y - 60) * (y - 60) < 40 * 40) { R = 200; G = 40; B = 40; }
      if (x > 150 && x < 230 && y > 20 && y < 90) { R = 30; G = 60; B = 210; }
      if (y > 120 && y < 170 && x > 20 && x < 230) {
        /* Green left, pink right, equal luma: 0.299 R + 0.587 G + 0.114 B = 120. */
        if (x < 125) { R = 60; G = 160; B = 71.4; } else { R = 200; G = 80; B = 116.1; }
      }
      const int i = y * W + x;
      r[i] = R; g[i] = G; b[i] = B;
      f.y[i] = 0.299 * R + 0.587 * G + 0.114 * B;
    }
  }
  for (int y = 0; y < CH; y++) {
    for (int x = 0; x < CW; x++) {
      double u = 0, v = 0;
      for (int k = 0; k < 4; k++) {
        const int i = (2 * y + k / 2) * W + 2 * x + k % 2;
        u += 128 - 0.168736 * r[i] - 0.331264 * g[i] + 0.5 * b[i];
        v += 128 + 0.5 * r[i] - 0.418688 * g[i] - 0.081312 * b[i];
      }
      f.u[y * CW + x] = u / 4;
      f.v[y * CW + x] = v / 4;
    }
  }
  return f;
}

std::vector<uint8_t>
quantise (const std::vector<double> & plane, double noise, std::mt19937 & rng)
{
  std::normal_distribution<double> n (0.0, noise);
  std::vector<uint8_t> out (plane.size ());
  for (size_t i = 0; i < plane.size (); i++)
    out[i] = (uint8_t) std::clamp (std::nearbyint (plane[i] + n (rng)), 0.0, 255.0);
  return out;
}

double
psnr (const std::vector<uint8_t> & a, const std::vector<double> & clean)
{
  double se = 0;
  for (size_t i = 0; i < a.size (); i++)
    se += (a[i] - clean[i]) * (a[i] - clean[i]);
  return 10 * std::log10 (255.0 * 255.0 / (se / a.size ()));
}

/* Chroma with weights from a guide of the chroma plane's size: w = spatial x range(guide). */
std::vector<uint8_t>
guided (const std::vector<uint8_t> & plane, const std::vector<double> & guide)
{
  std::vector<uint8_t> out (plane.size ());
  for (int y = 0; y < CH; y++) {
    for (int x = 0; x < CW; x++) {
      double sum = 0, wsum = 0;
      for (int dy = -RADIUS; dy <= RADIUS; dy++) {
        for (int dx = -RADIUS; dx <= RADIUS; dx++) {
          const int qx = std::clamp (x + dx, 0, CW - 1), qy = std::clamp (y + dy, 0, CH - 1);
          const double d = guide[qy * CW + qx] - guide[y * CW + x];
          const double w = std::exp (-(dx * dx + dy * dy) / (2 * SIGMA_SPATIAL * SIGMA_SPATIAL) -
              d * d / (2 * SIGMA_RANGE * SIGMA_RANGE));
          sum += w * plane[qy * CW + qx];
          wsum += w;
        }
      }
      out[y * CW + x] = (uint8_t) std::nearbyint (sum / wsum);
    }
  }
  return out;
}

void
measure (double noise)
{
  std::mt19937 rng (26);
  const Yuv clean = clean_frame ();
  const auto y = quantise (clean.y, noise, rng), u = quantise (clean.u, noise, rng),
      v = quantise (clean.v, noise, rng);
  reference::BilateralParams params;
  params.sigma_spatial = SIGMA_SPATIAL;
  params.sigma_range = SIGMA_RANGE;
  params.radius = RADIUS;
  reference::BilateralSamples one;
  one.channels = 1;
  std::vector<uint8_t> own_u (u.size ()), own_v (v.size ()), pair (2 * u.size ());
  reference::bilateral_plane (u.data (), CW, own_u.data (), CW, CW, CH, one, params);
  reference::bilateral_plane (v.data (), CW, own_v.data (), CW, CW, CH, one, params);
  /* The pair: UV distance, as the RGB colour mode (channels 4, the third and fourth zero). */
  std::vector<uint8_t> uv4 (4 * u.size (), 0), out4 (4 * u.size ());
  for (size_t i = 0; i < u.size (); i++) { uv4[4 * i] = u[i]; uv4[4 * i + 1] = v[i]; }
  reference::BilateralSamples four;
  reference::bilateral_plane (uv4.data (), 4 * CW, out4.data (), 4 * CW, CW, CH, four, params);
  std::vector<uint8_t> pair_u (u.size ()), pair_v (v.size ());
  for (size_t i = 0; i < u.size (); i++) { pair_u[i] = out4[4 * i]; pair_v[i] = out4[4 * i + 1]; }
  std::vector<double> luma_guide (u.size ());
  for (int cy = 0; cy < CH; cy++)
    for (int cx = 0; cx < CW; cx++)
      luma_guide[cy * CW + cx] = (y[2 * cy * W + 2 * cx] + y[2 * cy * W + 2 * cx + 1] +
          y[(2 * cy + 1) * W + 2 * cx] + y[(2 * cy + 1) * W + 2 * cx + 1]) / 4.0;
  const auto luma_u = guided (u, luma_guide), luma_v = guided (v, luma_guide);
  std::printf ("| %.0f | %.2f / %.2f | %.2f / %.2f | %.2f / %.2f | %.2f / %.2f |\n", noise,
      psnr (u, clean.u), psnr (v, clean.v), psnr (pair_u, clean.u), psnr (pair_v, clean.v),
      psnr (own_u, clean.u), psnr (own_v, clean.v), psnr (luma_u, clean.u),
      psnr (luma_v, clean.v));
}

}  // namespace

int
main ()
{
  std::printf ("%dx%d 4:2:0, sigma-spatial %.1f, sigma-range %.1f, radius %d; U / V PSNR in dB\n\n"
      "| noise sigma | noisy | U, V pair (the element) | U, V each alone | co-sited luma |\n"
      "| --- | --- | --- | --- | --- |\n", W, H, SIGMA_SPATIAL, SIGMA_RANGE, RADIUS);
  for (double noise : { 3.0, 6.0, 12.0 })
    measure (noise);
  return 0;
}
