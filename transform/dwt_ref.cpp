// Spec-literal Annex F reference DWT (ISO/IEC 15444-1:2019 Annex F). Clarity over speed: every
// step is one loop of the standard's equations over the range of indices the standard gives.
#include "transform/dwt_ref.h"

#include <cstdint>
#include <string>
#include <vector>

#include "gj2k/error.h"

namespace gj2k::transform::ref {
namespace {

// Extension margin: the most any filter reaches beyond [i0, i1) (Tables F.2 / F.3: 4 for 9/7).
constexpr int64_t kExt = 4;

// 1D_EXTR (F.3.7 / F.4.7): periodic symmetric extension, PSE_O(i) =
// i0 + min(mod(i - i0, 2(i1 - i0 - 1)), 2(i1 - i0 - 1) - mod(i - i0, 2(i1 - i0 - 1))).
// Requires i1 - i0 >= 2 (length 1 is handled before extension).
int64_t pse(int64_t i, int64_t i0, int64_t i1) {
  const int64_t period = 2 * (i1 - i0 - 1);
  int64_t m = (i - i0) % period;
  if (m < 0) m += period;
  return i0 + (m < period - m ? m : period - m);
}

// An extended signal indexed by absolute coordinate i in [i0 - kExt, i1 + kExt).
template <class T>
struct Extended {
  int64_t i0, i1;
  std::vector<T> v;
  Extended(const T* x, int64_t i0_, int64_t i1_) : i0(i0_), i1(i1_), v(i1_ - i0_ + 2 * kExt) {
    for (int64_t i = i0 - kExt; i < i1 + kExt; ++i) (*this)[i] = x[pse(i, i0, i1) - i0];
  }
  T& operator[](int64_t i) { return v[static_cast<size_t>(i - i0 + kExt)]; }
  void store(T* x) {
    for (int64_t i = i0; i < i1; ++i) x[i - i0] = (*this)[i];
  }
};

// First even / odd coordinate >= a.
int64_t first_even(int64_t a) {
  return a + (a & 1);
}
int64_t first_odd(int64_t a) {
  return a + ((a & 1) ^ 1);
}

// floor(a / 2^s) for signed a: C++20 defines >> on negative values as arithmetic shift.
int64_t floor_shift(int64_t a, int s) {
  return a >> s;
}

}  // namespace

// ---- 1-D, 5/3 reversible -------------------------------------------------------------------

void sd_1d_53(int32_t* x, uint32_t i0, uint32_t i1) {
  if (i1 <= i0) return;
  if (i1 - i0 == 1) {  // F.3.7: a single sample is kept if i0 is even, doubled if odd
    if (i0 & 1) x[0] = static_cast<int32_t>(int64_t{x[0]} * 2);
    return;
  }
  Extended<int32_t> e(x, i0, i1);  // 1D_EXTR
  // 1D_FILTR_5-3R, F.3.8.1 (the lifting form of the 5/3 analysis filters):
  //   Y(2n+1) = X(2n+1) - floor((X(2n) + X(2n+2)) / 2)        for i0 - 1 <= 2n+1 < i1 + 1
  //   Y(2n)   = X(2n) + floor((Y(2n-1) + Y(2n+1) + 2) / 4)     for i0 <= 2n < i1
  // Each step reads only samples of the other parity, so it is done in place.
  for (int64_t i = first_odd(int64_t{i0} - 1); i < int64_t{i1} + 1; i += 2)
    e[i] = static_cast<int32_t>(e[i] - floor_shift(int64_t{e[i - 1]} + e[i + 1], 1));
  for (int64_t i = first_even(i0); i < i1; i += 2)
    e[i] = static_cast<int32_t>(e[i] + floor_shift(int64_t{e[i - 1]} + e[i + 1] + 2, 2));
  e.store(x);
}

void sr_1d_53(int32_t* x, uint32_t i0, uint32_t i1) {
  if (i1 <= i0) return;
  if (i1 - i0 == 1) {  // F.4.7: kept if i0 is even, halved if odd (the forward doubled it)
    if (i0 & 1) x[0] = x[0] / 2;
    return;
  }
  Extended<int32_t> e(x, i0, i1);  // 1D_EXTR
  // 1D_IFILTR_5-3R, F.4.8.1:
  //   X(2n)   = Y(2n) - floor((Y(2n-1) + Y(2n+1) + 2) / 4)     for i0 - 1 <= 2n < i1 + 1
  //   X(2n+1) = Y(2n+1) + floor((X(2n) + X(2n+2)) / 2)         for i0 <= 2n+1 < i1
  for (int64_t i = first_even(int64_t{i0} - 1); i < int64_t{i1} + 1; i += 2)
    e[i] = static_cast<int32_t>(e[i] - floor_shift(int64_t{e[i - 1]} + e[i + 1] + 2, 2));
  for (int64_t i = first_odd(i0); i < i1; i += 2)
    e[i] = static_cast<int32_t>(e[i] + floor_shift(int64_t{e[i - 1]} + e[i + 1], 1));
  e.store(x);
}

// ---- 1-D, 9/7 irreversible -----------------------------------------------------------------

void sd_1d_97(float* x, uint32_t i0, uint32_t i1) {
  if (i1 <= i0) return;
  if (i1 - i0 == 1) {  // F.3.7
    if (i0 & 1) x[0] = x[0] * 2.0f;
    return;
  }
  const float a = static_cast<float>(kDwt97Alpha), b = static_cast<float>(kDwt97Beta);
  const float g = static_cast<float>(kDwt97Gamma), d = static_cast<float>(kDwt97Delta);
  const float k = static_cast<float>(kDwt97K), inv_k = static_cast<float>(1.0 / kDwt97K);
  Extended<float> e(x, i0, i1);  // 1D_EXTR
  const int64_t s = i0, t = i1;
  // 1D_FILTR_9-7I, F.3.8.2, steps 1 to 6 (the ranges are exactly those on which the
  // outputs in [i0, i1) depend):
  for (int64_t i = first_odd(s - 3); i < t + 3; i += 2) e[i] = e[i] + a * (e[i - 1] + e[i + 1]);
  for (int64_t i = first_even(s - 2); i < t + 2; i += 2) e[i] = e[i] + b * (e[i - 1] + e[i + 1]);
  for (int64_t i = first_odd(s - 1); i < t + 1; i += 2) e[i] = e[i] + g * (e[i - 1] + e[i + 1]);
  for (int64_t i = first_even(s); i < t; i += 2) e[i] = e[i] + d * (e[i - 1] + e[i + 1]);
  for (int64_t i = first_odd(s); i < t; i += 2) e[i] = k * e[i];       // step 5: high * K
  for (int64_t i = first_even(s); i < t; i += 2) e[i] = inv_k * e[i];  // step 6: low * 1/K
  e.store(x);
}

void sr_1d_97(float* x, uint32_t i0, uint32_t i1) {
  if (i1 <= i0) return;
  if (i1 - i0 == 1) {  // F.4.7
    if (i0 & 1) x[0] = x[0] / 2.0f;
    return;
  }
  const float a = static_cast<float>(kDwt97Alpha), b = static_cast<float>(kDwt97Beta);
  const float g = static_cast<float>(kDwt97Gamma), d = static_cast<float>(kDwt97Delta);
  const float k = static_cast<float>(kDwt97K), inv_k = static_cast<float>(1.0 / kDwt97K);
  Extended<float> e(x, i0, i1);  // 1D_EXTR
  const int64_t s = i0, t = i1;
  // 1D_IFILTR_9-7I, F.4.8.2, steps 1 to 6 (ranges as above):
  for (int64_t i = first_even(s - 3); i < t + 3; i += 2) e[i] = k * e[i];     // low * K
  for (int64_t i = first_odd(s - 4); i < t + 4; i += 2) e[i] = inv_k * e[i];  // high * 1/K
  for (int64_t i = first_even(s - 3); i < t + 3; i += 2) e[i] = e[i] - d * (e[i - 1] + e[i + 1]);
  for (int64_t i = first_odd(s - 2); i < t + 2; i += 2) e[i] = e[i] - g * (e[i - 1] + e[i + 1]);
  for (int64_t i = first_even(s - 1); i < t + 1; i += 2) e[i] = e[i] - b * (e[i - 1] + e[i + 1]);
  for (int64_t i = first_odd(s); i < t; i += 2) e[i] = e[i] - a * (e[i - 1] + e[i + 1]);
  e.store(x);
}

// ---- 2-D -----------------------------------------------------------------------------------

namespace {

// Position along one axis, in the buffer after 2D_DEINTERLEAVE (F.3.5), of the sample at
// absolute coordinate i of a resolution spanning [i0, i1): low-pass (even i) samples first, in
// order, then the high-pass (odd i) samples.
uint32_t deinterleaved(uint32_t i, uint32_t i0, uint32_t i1) {
  const uint32_t n_low = (i1 + 1) / 2 - (i0 + 1) / 2;  // ceil(i1/2) - ceil(i0/2)
  return (i & 1) ? n_low + (i / 2 - i0 / 2) : i / 2 - (i0 + 1) / 2;
}

// 2D_SD (F.3.2) of one level on the w x h top-left region holding resolution `a`:
// VER_SD (F.3.3) on every column, then HOR_SD (F.3.4) on every row, then 2D_DEINTERLEAVE.
template <class T, void (*Sd)(T*, uint32_t, uint32_t)>
void sd_2d(Plane<T> p, const Rect& a) {
  const uint32_t w = a.width(), h = a.height();
  std::vector<T> line(w > h ? w : h);
  for (uint32_t x = 0; x < w; ++x) {  // VER_SD
    for (uint32_t y = 0; y < h; ++y) line[y] = p.data[y * p.stride + x];
    Sd(line.data(), a.y0, a.y1);
    for (uint32_t y = 0; y < h; ++y) p.data[y * p.stride + x] = line[y];
  }
  for (uint32_t y = 0; y < h; ++y) Sd(p.data + y * p.stride, a.x0, a.x1);  // HOR_SD
  // 2D_DEINTERLEAVE (F.3.5): a(u, v) goes to its subband's place in the Mallat arrangement.
  std::vector<T> copy(size_t{w} * h);
  for (uint32_t y = 0; y < h; ++y)
    for (uint32_t x = 0; x < w; ++x) copy[size_t{y} * w + x] = p.data[y * p.stride + x];
  for (uint32_t y = 0; y < h; ++y) {
    const uint32_t yd = deinterleaved(a.y0 + y, a.y0, a.y1);
    for (uint32_t x = 0; x < w; ++x)
      p.data[yd * p.stride + deinterleaved(a.x0 + x, a.x0, a.x1)] = copy[size_t{y} * w + x];
  }
}

// 2D_SR (F.4.2) of one level: 2D_INTERLEAVE (F.4.3), then HOR_SR (F.4.4) on every row, then
// VER_SR (F.4.5) on every column.
template <class T, void (*Sr)(T*, uint32_t, uint32_t)>
void sr_2d(Plane<T> p, const Rect& a) {
  const uint32_t w = a.width(), h = a.height();
  std::vector<T> copy(size_t{w} * h);
  for (uint32_t y = 0; y < h; ++y)
    for (uint32_t x = 0; x < w; ++x) copy[size_t{y} * w + x] = p.data[y * p.stride + x];
  for (uint32_t y = 0; y < h; ++y) {
    const uint32_t yd = deinterleaved(a.y0 + y, a.y0, a.y1);
    for (uint32_t x = 0; x < w; ++x)
      p.data[y * p.stride + x] = copy[size_t{yd} * w + deinterleaved(a.x0 + x, a.x0, a.x1)];
  }
  for (uint32_t y = 0; y < h; ++y) Sr(p.data + y * p.stride, a.x0, a.x1);  // HOR_SR
  std::vector<T> line(h);
  for (uint32_t x = 0; x < w; ++x) {  // VER_SR
    for (uint32_t y = 0; y < h; ++y) line[y] = p.data[y * p.stride + x];
    Sr(line.data(), a.y0, a.y1);
    for (uint32_t y = 0; y < h; ++y) p.data[y * p.stride + x] = line[y];
  }
}

// FDWT (F.3.1): level n = 1..levels splits the LL of level n - 1 (resolution levels - n + 1).
template <class T, void (*Sd)(T*, uint32_t, uint32_t)>
void fdwt(Plane<T> p, const Rect& tc, int levels, const char* what) {
  check_dwt_args(p.data, p.stride, tc, levels, what);
  if (tc.empty()) return;
  for (int n = 1; n <= levels; ++n) {
    const Rect a = subband_rect(tc, n - 1, Band::kLL);
    if (a.empty()) break;  // every later level is empty too
    sd_2d<T, Sd>(p, a);
  }
}

// IDWT (F.4.1): levels down to 1, each rebuilding the LL of level n - 1.
template <class T, void (*Sr)(T*, uint32_t, uint32_t)>
void idwt(Plane<T> p, const Rect& tc, int levels, const char* what) {
  check_dwt_args(p.data, p.stride, tc, levels, what);
  if (tc.empty()) return;
  for (int n = levels; n >= 1; --n) {
    const Rect a = subband_rect(tc, n - 1, Band::kLL);
    if (!a.empty()) sr_2d<T, Sr>(p, a);
  }
}

}  // namespace

void forward53(Plane<int32_t> p, const Rect& tc, int levels) {
  fdwt<int32_t, sd_1d_53>(p, tc, levels, "reference forward 5/3 DWT");
}
void inverse53(Plane<int32_t> p, const Rect& tc, int levels) {
  idwt<int32_t, sr_1d_53>(p, tc, levels, "reference inverse 5/3 DWT");
}
void forward97(Plane<float> p, const Rect& tc, int levels) {
  fdwt<float, sd_1d_97>(p, tc, levels, "reference forward 9/7 DWT");
}
void inverse97(Plane<float> p, const Rect& tc, int levels) {
  idwt<float, sr_1d_97>(p, tc, levels, "reference inverse 9/7 DWT");
}

}  // namespace gj2k::transform::ref
