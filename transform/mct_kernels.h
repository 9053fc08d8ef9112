// The inverse colour transforms and DC shifts of the decoder (Annex G), the loops behind
// mct.h's rct_inverse_dc_shift, ict_inverse_dc_shift, float_to_int_dc_shift and
// dc_shift_inverse_clamp; with the G.3 coefficients and the rounding and clamping helpers that
// mct.cpp shares. Header-only, so that mct_v3.cpp can compile them for x86-64-v3
// (core/isa.h) as well.
#pragma once

#include <cstddef>
#include <cstdint>

namespace gj2k::transform::kernels {

// G.3 coefficients.
constexpr float kYR = 0.299f, kYG = 0.587f, kYB = 0.114f;
constexpr float kCbR = -0.16875f, kCbG = -0.33126f, kCbB = 0.5f;
constexpr float kCrR = 0.5f, kCrG = -0.41869f, kCrB = -0.08131f;
constexpr float kRCr = 1.402f, kGCb = -0.34413f, kGCr = -0.71414f, kBCb = 1.772f;

// Round to nearest (ties to even) and clamp to [lo, hi]; NaN becomes lo. The same result as
// std::nearbyint in the default rounding mode, written so that loops vectorise: adding
// 1.5 * 2^52 leaves no fraction bits, so the addition itself rounds t (|t| <= 2^31 after the
// clamp, far inside the 2^51 where this holds), and subtracting it back is exact.
inline int32_t round_clamp(double t, int32_t lo, int32_t hi) {
  constexpr double kRound = 6755399441055744.0;  // 1.5 * 2^52
  t = t > lo ? t : lo;
  t = t < hi ? t : hi;
  return static_cast<int32_t>((t + kRound) - kRound);
}
inline int32_t clamp_i(int64_t v, int32_t lo, int32_t hi) {
  return static_cast<int32_t>(v < lo ? lo : (v > hi ? hi : v));
}

// Whether every coefficient of c0..c2[0, n) lies in [-2^28, 2^28): then the inverse RCT's
// sums with offsets of at most 2^30 stay within 32 bits.
inline bool rct_fits_32(const int32_t* c0, const int32_t* c1, const int32_t* c2, size_t n) {
  constexpr uint32_t kBias = 1u << 28;
  uint32_t any = 0;
  for (size_t i = 0; i < n; ++i)
    any |= (static_cast<uint32_t>(c0[i]) + kBias) | (static_cast<uint32_t>(c1[i]) + kBias) |
           (static_cast<uint32_t>(c2[i]) + kBias);
  return any < 2 * kBias;
}

inline void rct_inverse_dc_shift(int32_t* __restrict c0, int32_t* __restrict c1,
                                 int32_t* __restrict c2, size_t n, const int32_t offset[3],
                                 const int32_t lo[3], const int32_t hi[3]) {
  // Runs of coefficients within rct_fits_32 take a 32-bit loop that vectorises; others (only
  // corrupt or extreme data) the 64-bit one below. Both give the same samples.
  constexpr size_t kRun = 1024;
  const int32_t o0 = offset[0], o1 = offset[1], o2 = offset[2];
  const int32_t l0 = lo[0], l1 = lo[1], l2 = lo[2], h0 = hi[0], h1 = hi[1], h2 = hi[2];
  auto small = [](int32_t o) { return o >= -(1 << 30) && o <= (1 << 30); };
  const bool offsets_fit = small(o0) && small(o1) && small(o2);
  size_t i = 0;
  while (offsets_fit && i < n) {
    const size_t len = n - i < kRun ? n - i : kRun;
    if (!rct_fits_32(c0 + i, c1 + i, c2 + i, len)) break;
    for (const size_t end = i + len; i < end; ++i) {
      const int32_t y = c0[i], u = c1[i], v = c2[i];
      const int32_t g = y - ((u + v) >> 2);
      const int32_t r = v + g + o0, gg = g + o1, b = u + g + o2;
      c0[i] = r < l0 ? l0 : (r > h0 ? h0 : r);
      c1[i] = gg < l1 ? l1 : (gg > h1 ? h1 : gg);
      c2[i] = b < l2 ? l2 : (b > h2 ? h2 : b);
    }
  }
  for (; i < n; ++i) {
    const int32_t y = c0[i], u = c1[i], v = c2[i];
    const int32_t g = y - ((u + v) >> 2);
    c0[i] = clamp_i(int64_t{v} + g + offset[0], lo[0], hi[0]);
    c1[i] = clamp_i(int64_t{g} + offset[1], lo[1], hi[1]);
    c2[i] = clamp_i(int64_t{u} + g + offset[2], lo[2], hi[2]);
  }
}

inline void ict_inverse_dc_shift(const float* __restrict in0, const float* __restrict in1,
                                 const float* __restrict in2, int32_t* __restrict c0,
                                 int32_t* __restrict c1, int32_t* __restrict c2, size_t n,
                                 const int32_t offset[3], const int32_t lo[3],
                                 const int32_t hi[3]) {
  for (size_t i = 0; i < n; ++i) {
    const float y = in0[i], cb = in1[i], cr = in2[i];
    const float r = y + kRCr * cr, g = y + kGCb * cb + kGCr * cr, b = y + kBCb * cb;
    c0[i] = round_clamp(double{r} + offset[0], lo[0], hi[0]);
    c1[i] = round_clamp(double{g} + offset[1], lo[1], hi[1]);
    c2[i] = round_clamp(double{b} + offset[2], lo[2], hi[2]);
  }
}

inline void float_to_int_dc_shift(const float* __restrict in, int32_t* __restrict out, size_t n,
                                  int32_t offset, int32_t lo, int32_t hi) {
  for (size_t i = 0; i < n; ++i) out[i] = round_clamp(double{in[i]} + offset, lo, hi);
}

inline void dc_shift_inverse_clamp(int32_t* x, size_t n, int32_t offset, int32_t lo, int32_t hi) {
  // x + offset clamped to [lo, hi] is x clamped to [lo - offset, hi - offset], plus offset. When
  // those bounds fit in 32 bits (every component's range and DC offset: G.1.2), the sum cannot
  // overflow and the loop runs in 32-bit lanes, twice as many per vector as 64-bit sums.
  const int64_t l = int64_t{lo} - offset, h = int64_t{hi} - offset;
  if (lo <= hi && l >= INT32_MIN && h <= INT32_MAX) {
    const auto l32 = static_cast<int32_t>(l), h32 = static_cast<int32_t>(h);
    for (size_t i = 0; i < n; ++i) {
      const int32_t v = x[i];
      x[i] = (v < l32 ? l32 : (v > h32 ? h32 : v)) + offset;
    }
    return;
  }
  for (size_t i = 0; i < n; ++i) x[i] = clamp_i(int64_t{x[i]} + offset, lo, hi);
}

}  // namespace gj2k::transform::kernels
