// 9/7 DWT by filter-bank convolution (Galiano et al., the convolution variant of their multicore
// CPU method): the analysis filters (9-tap low, 7-tap high) and synthesis filters (7-tap low,
// 9-tap high) that are equivalent to the Annex F lifting with its K scaling, applied directly
// to the whole-sample symmetrically extended signal. Strips of columns and rows are spread over
// OpenMP threads exactly as in the lifting variant (dwt_cpu.cpp).
#include <algorithm>
#include <cstring>
#include <vector>

#include "core/thread_pool.h"
#include "transform/dwt_cpu.h"

namespace gj2k::transform {
namespace {

// Lifting in double on a long interleaved signal (absolute index = array index), mirrored at
// the ends; used only to derive the filter taps from impulse responses.
constexpr int kProbe = 64, kCentre = 32;

void lift_d(double* x, bool forward) {
  auto at = [&](int i) { return x[i < 0 ? -i : (i >= kProbe ? 2 * (kProbe - 1) - i : i)]; };
  auto step = [&](int parity, double c) {
    std::vector<double> y(x, x + kProbe);
    for (int i = parity; i < kProbe; i += 2) y[i] = x[i] + c * (at(i - 1) + at(i + 1));
    std::copy(y.begin(), y.end(), x);
  };
  if (forward) {
    step(1, kDwt97Alpha), step(0, kDwt97Beta), step(1, kDwt97Gamma), step(0, kDwt97Delta);
    for (int i = 0; i < kProbe; ++i) x[i] *= (i & 1) ? kDwt97K : 1.0 / kDwt97K;
  } else {
    for (int i = 0; i < kProbe; ++i) x[i] *= (i & 1) ? 1.0 / kDwt97K : kDwt97K;
    step(0, -kDwt97Delta), step(1, -kDwt97Gamma), step(0, -kDwt97Beta), step(1, -kDwt97Alpha);
  }
}

double impulse_response(bool forward, int at, int read) {
  double x[kProbe] = {};
  x[at] = 1.0;
  lift_d(x, forward);
  return x[read];
}

}  // namespace

const Dwt97Filters& dwt97_filters() {
  static const Dwt97Filters f = [] {
    Dwt97Filters r{};
    const int c = kCentre;  // even: a low-pass position
    for (int k = 0; k < 5; ++k) r.lo[k] = impulse_response(true, c + k, c);
    for (int k = 0; k < 4; ++k) r.hi[k] = impulse_response(true, c + 1 + k, c + 1);
    for (int d = 0; d < 4; ++d) r.syn_lo[d] = impulse_response(false, c, c + d);
    for (int d = 0; d < 5; ++d) r.syn_hi[d] = impulse_response(false, c + 1, c + 1 + d);
    return r;
  }();
  return f;
}

namespace conv {
namespace {

constexpr size_t kParallelMin = 1 << 15;
constexpr int kMargin = 4;  // the longest filter reaches 4 samples each way

// Index into [0, n), n >= 2, after whole-sample symmetric reflection (F.3.7).
inline size_t reflect(std::ptrdiff_t i, std::ptrdiff_t n) {
  while (i < 0 || i >= n) i = i < 0 ? -i : 2 * (n - 1) - i;
  return static_cast<size_t>(i);
}

struct Taps {  // float copies of dwt97_filters()
  float lo[5], hi[4], syn_lo[4], syn_hi[5];
  Taps() {
    const Dwt97Filters& f = dwt97_filters();
    for (int k = 0; k < 5; ++k) lo[k] = static_cast<float>(f.lo[k]);
    for (int k = 0; k < 4; ++k) hi[k] = static_cast<float>(f.hi[k]);
    for (int k = 0; k < 4; ++k) syn_lo[k] = static_cast<float>(f.syn_lo[k]);
    for (int k = 0; k < 5; ++k) syn_hi[k] = static_cast<float>(f.syn_hi[k]);
  }
};

// Analysis output at an element whose neighbours are e[-4..4] (elements `pitch` apart, `lanes`
// wide): low-pass if `low`, else high-pass.
inline void analyse(float* __restrict out, const float* e, size_t pitch, size_t lanes, bool low,
                    const Taps& t) {
  const float *m1 = e - pitch, *p1 = e + pitch, *m2 = e - 2 * pitch, *p2 = e + 2 * pitch;
  const float *m3 = e - 3 * pitch, *p3 = e + 3 * pitch;
  if (low) {
    const float *m4 = e - 4 * pitch, *p4 = e + 4 * pitch;
    for (size_t j = 0; j < lanes; ++j)
      out[j] = t.lo[0] * e[j] + t.lo[1] * (m1[j] + p1[j]) + t.lo[2] * (m2[j] + p2[j]) +
               t.lo[3] * (m3[j] + p3[j]) + t.lo[4] * (m4[j] + p4[j]);
  } else {
    for (size_t j = 0; j < lanes; ++j)
      out[j] = t.hi[0] * e[j] + t.hi[1] * (m1[j] + p1[j]) + t.hi[2] * (m2[j] + p2[j]) +
               t.hi[3] * (m3[j] + p3[j]);
  }
}

// Synthesis output at an element of interleaved coefficients e (neighbours e[-4..4]): at a
// low-parity position the low coefficients sit at even offsets, the high ones at odd offsets;
// at a high-parity position the other way round.
inline void synthesise(float* __restrict out, const float* e, size_t pitch, size_t lanes, bool low,
                       const Taps& t) {
  const float *m1 = e - pitch, *p1 = e + pitch, *m2 = e - 2 * pitch, *p2 = e + 2 * pitch;
  const float *m3 = e - 3 * pitch, *p3 = e + 3 * pitch;
  if (low) {
    for (size_t j = 0; j < lanes; ++j)
      out[j] = t.syn_lo[0] * e[j] + t.syn_lo[2] * (m2[j] + p2[j]) + t.syn_hi[1] * (m1[j] + p1[j]) +
               t.syn_hi[3] * (m3[j] + p3[j]);
  } else {
    const float *m4 = e - 4 * pitch, *p4 = e + 4 * pitch;
    for (size_t j = 0; j < lanes; ++j)
      out[j] = t.syn_hi[0] * e[j] + t.syn_hi[2] * (m2[j] + p2[j]) + t.syn_hi[4] * (m4[j] + p4[j]) +
               t.syn_lo[1] * (m1[j] + p1[j]) + t.syn_lo[3] * (m3[j] + p3[j]);
  }
}

// Position after deinterleaving of relative index y (parity p = absolute start & 1).
inline size_t deint(size_t y, int p, size_t nl) {
  return ((y & 1) == static_cast<size_t>(p)) ? y / 2 : nl + y / 2;
}

template <bool Forward>
void horizontal(Plane<float> pl, const Rect& a, const Taps& t) {
  const uint32_t w = a.width(), h = a.height();
  if (w == 0 || h == 0) return;
  if (w == 1) {
    if (a.x0 & 1)
      for (uint32_t y = 0; y < h; ++y) {
        float& v = pl.data[y * pl.stride];
        v = Forward ? v * 2.0f : v / 2.0f;
      }
    return;
  }
  const int p = a.x0 & 1;
  const size_t nl = (size_t{a.x1} + 1) / 2 - (size_t{a.x0} + 1) / 2;
  core::parallel_blocks(
      h,
      [&](size_t first, size_t last) {
        std::vector<float> ext(w + 2 * kMargin);
        float* e = ext.data() + kMargin;
        for (uint32_t y = static_cast<uint32_t>(first); y < last; ++y) {
          float* row = pl.data + y * pl.stride;
          if constexpr (Forward) {
            std::memcpy(e, row, w * sizeof(float));
          } else {  // interleave the Mallat row
            for (size_t j = 0; j < w; ++j) e[j] = row[deint(j, p, nl)];
          }
          for (int k = 1; k <= kMargin; ++k) {
            e[-k] = e[reflect(-k, w)];
            e[w - 1 + k] = e[reflect(std::ptrdiff_t(w) - 1 + k, w)];
          }
          for (size_t j = 0; j < w; ++j) {
            const bool low = ((j & 1) == static_cast<size_t>(p));
            if constexpr (Forward)
              analyse(row + deint(j, p, nl), e + j, 1, 1, low, t);
            else
              synthesise(row + j, e + j, 1, 1, low, t);
          }
        }
      },
      size_t{w} * h >= kParallelMin ? 0 : 1);
}

template <bool Forward>
void vertical(Plane<float> pl, const Rect& a, const Taps& t) {
  const uint32_t w = a.width(), h = a.height();
  if (w == 0 || h == 0) return;
  if (h == 1) {
    if (a.y0 & 1)
      for (uint32_t x = 0; x < w; ++x) pl.data[x] = Forward ? pl.data[x] * 2.0f : pl.data[x] / 2.0f;
    return;
  }
  const int p = a.y0 & 1;
  const size_t nl = (size_t{a.y1} + 1) / 2 - (size_t{a.y0} + 1) / 2;
  const size_t S = cpu::kStripWidth, strips = (w + S - 1) / S;
  core::parallel_blocks(
      strips,
      [&](size_t first, size_t last) {
        std::vector<float> ext((h + 2 * kMargin) * S);
        float* e = ext.data() + kMargin * S;
        for (size_t s = static_cast<size_t>(first); s < last; ++s) {
          const size_t x = s * S, lanes = std::min(S, size_t{w} - x);
          float* col = pl.data + x;
          for (uint32_t y = 0; y < h; ++y) {  // interleaved rows of the strip
            const size_t src = Forward ? y : deint(y, p, nl);
            std::memcpy(e + size_t{y} * S, col + src * pl.stride, lanes * sizeof(float));
          }
          for (int k = 1; k <= kMargin; ++k) {
            std::memcpy(e - k * std::ptrdiff_t(S), e + reflect(-k, h) * S, lanes * sizeof(float));
            std::memcpy(e + (h - 1 + k) * S, e + reflect(std::ptrdiff_t(h) - 1 + k, h) * S,
                        lanes * sizeof(float));
          }
          for (uint32_t y = 0; y < h; ++y) {
            const bool low = ((y & 1) == static_cast<uint32_t>(p));
            if constexpr (Forward)
              analyse(col + deint(y, p, nl) * pl.stride, e + size_t{y} * S, S, lanes, low, t);
            else
              synthesise(col + size_t{y} * pl.stride, e + size_t{y} * S, S, lanes, low, t);
          }
        }
      },
      size_t{w} * h >= kParallelMin ? 0 : 1);
}

}  // namespace

void forward97(Plane<float> pl, const Rect& tc, int levels) {
  check_dwt_args(pl.data, pl.stride, tc, levels, "convolution forward 9/7 DWT");
  if (tc.empty()) return;
  const Taps t;
  for (int n = 1; n <= levels; ++n) {
    const Rect a = subband_rect(tc, n - 1, Band::kLL);
    if (a.empty()) break;
    vertical<true>(pl, a, t);
    horizontal<true>(pl, a, t);
  }
}

void inverse97(Plane<float> pl, const Rect& tc, int levels) {
  check_dwt_args(pl.data, pl.stride, tc, levels, "convolution inverse 9/7 DWT");
  if (tc.empty()) return;
  const Taps t;
  for (int n = levels; n >= 1; --n) {
    const Rect a = subband_rect(tc, n - 1, Band::kLL);
    if (a.empty()) continue;
    horizontal<false>(pl, a, t);
    vertical<false>(pl, a, t);
  }
}

}  // namespace conv
}  // namespace gj2k::transform
