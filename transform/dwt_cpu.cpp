// Fast CPU lifting DWT (Galiano et al., multicore lifting): see dwt_cpu.h for the scheme.
//
// Lifting on deinterleaved halves. For a 1-D signal of n >= 2 samples starting at absolute
// coordinate i0 with parity p = i0 & 1, the low (even-coordinate) samples form L[0, nL) and the
// high ones H[0, nH). The neighbours of H[k] in the interleaved signal are L[k - p] and
// L[k - p + 1]; those of L[k] are H[k - (1 - p)] and H[k - (1 - p) + 1]. Whole-sample symmetric
// extension (F.3.7) mirrors about the first and last samples, and every lifting step keeps the
// signal symmetric about them, so an out-of-range neighbour index -1 or nS is simply clamped
// to 0 or nS - 1. A step is therefore T[k] = op(T[k], S[clamp(k - o)], S[clamp(k - o + 1)])
// with o = p (high from low) or o = 1 - p (low from high).
#include <omp.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "gj2k/error.h"
#include "transform/dwt_cpu.h"

namespace gj2k::transform {

void check_dwt_args(const void* data, size_t stride, const Rect& tc, int levels, const char* what) {
  if (levels < 0 || levels > kMaxLevels)
    throw Error(ErrorCode::kInvalidArgument,
                std::string(what) + ": levels " + std::to_string(levels) + " outside 0..32");
  if (tc.empty()) return;
  if (data == nullptr)
    throw Error(ErrorCode::kInvalidArgument, std::string(what) + ": null buffer");
  if (stride < tc.width())
    throw Error(ErrorCode::kInvalidArgument, std::string(what) + ": stride " +
                                                 std::to_string(stride) + " < width " +
                                                 std::to_string(tc.width()));
}

namespace cpu {
namespace {

// Work below this many samples per level runs on the calling thread only.
constexpr size_t kParallelMin = 1 << 15;

// The calling thread's scratch of at least n elements, kept for the thread's life: a pass
// allocating its own (hundreds of KiB per thread and pass) paid for fresh pages and, on
// return to the system, for TLB shootdowns across every core.
template <class T>
T* scratch(size_t n) {
  thread_local std::vector<T> buffer;
  if (buffer.size() < n) buffer.resize(n);
  return buffer.data();
}

// ---- the lifting operations (same arithmetic, same order as dwt_ref.cpp) --------------------

struct Predict53Fwd {  // H -= floor((a + b) / 2)
  int32_t operator()(int32_t t, int32_t a, int32_t b) const { return t - ((a + b) >> 1); }
};
struct Update53Fwd {  // L += floor((a + b + 2) / 4)
  int32_t operator()(int32_t t, int32_t a, int32_t b) const { return t + ((a + b + 2) >> 2); }
};
struct Update53Inv {
  int32_t operator()(int32_t t, int32_t a, int32_t b) const { return t - ((a + b + 2) >> 2); }
};
struct Predict53Inv {
  int32_t operator()(int32_t t, int32_t a, int32_t b) const { return t + ((a + b) >> 1); }
};
struct Lift97Add {  // t + c (a + b)
  float c;
  float operator()(float t, float a, float b) const { return t + c * (a + b); }
};
struct Lift97Sub {  // t - c (a + b)
  float c;
  float operator()(float t, float a, float b) const { return t - c * (a + b); }
};

inline size_t clampi(std::ptrdiff_t i, size_t n) {
  return i < 0 ? 0 : (static_cast<size_t>(i) >= n ? n - 1 : static_cast<size_t>(i));
}

// One lifting step on a row: t[k] = op(t[k], s[clamp(k - o)], s[clamp(k - o + 1)]), k < nt.
template <class T, class Op>
inline void step_row(T* __restrict t, size_t nt, const T* __restrict s, size_t ns, int o, Op op) {
  const size_t mid_lo = std::min<size_t>(nt, o);
  const size_t mid_hi = std::min<size_t>(nt, ns - 1 + o);  // s index k - o + 1 <= ns - 1
  for (size_t k = 0; k < mid_lo; ++k) {
    const auto a = clampi(std::ptrdiff_t(k) - o, ns), b = clampi(std::ptrdiff_t(k) - o + 1, ns);
    t[k] = op(t[k], s[a], s[b]);
  }
  for (size_t k = mid_lo; k < mid_hi; ++k) t[k] = op(t[k], s[k - o], s[k - o + 1]);
  for (size_t k = std::max(mid_lo, mid_hi); k < nt; ++k) {
    const auto a = clampi(std::ptrdiff_t(k) - o, ns), b = clampi(std::ptrdiff_t(k) - o + 1, ns);
    t[k] = op(t[k], s[a], s[b]);
  }
}

// The same step on a strip: element k of t / s is a row of `lanes` samples, `pitch` apart.
template <class T, class Op>
inline void step_strip(T* t, size_t nt, const T* s, size_t ns, int o, size_t pitch, size_t lanes,
                       Op op) {
  for (size_t k = 0; k < nt; ++k) {
    T* __restrict tr = t + k * pitch;
    const T* __restrict a = s + clampi(std::ptrdiff_t(k) - o, ns) * pitch;
    const T* __restrict b = s + clampi(std::ptrdiff_t(k) - o + 1, ns) * pitch;
    for (size_t j = 0; j < lanes; ++j) tr[j] = op(tr[j], a[j], b[j]);
  }
}

template <class T, class F>
inline void scale_row(T* t, size_t n, F f) {
  for (size_t k = 0; k < n; ++k) t[k] = t[k] * f;
}

// ---- kernels: the lifting sequence on (L, nL, H, nH) for one "element" kind ----------------
// Kern::forward(step, scale, ...) / inverse(...) are written once over abstract step/scale
// functors so rows and strips share the sequence.

struct Kern53 {
  using T = int32_t;
  template <class Step, class Scale>
  static void forward(Step step, Scale, int p) {
    step(/*high*/ true, p, Predict53Fwd{});
    step(false, 1 - p, Update53Fwd{});
  }
  template <class Step, class Scale>
  static void inverse(Step step, Scale, int p) {
    step(false, 1 - p, Update53Inv{});
    step(true, p, Predict53Inv{});
  }
  static T single_fwd(T v) { return v * 2; }
  static T single_inv(T v) { return v / 2; }
};

struct Kern97 {
  using T = float;
  template <class Step, class Scale>
  static void forward(Step step, Scale scale, int p) {
    step(true, p, Lift97Add{static_cast<float>(kDwt97Alpha)});
    step(false, 1 - p, Lift97Add{static_cast<float>(kDwt97Beta)});
    step(true, p, Lift97Add{static_cast<float>(kDwt97Gamma)});
    step(false, 1 - p, Lift97Add{static_cast<float>(kDwt97Delta)});
    scale(true, static_cast<float>(kDwt97K));
    scale(false, static_cast<float>(1.0 / kDwt97K));
  }
  template <class Step, class Scale>
  static void inverse(Step step, Scale scale, int p) {
    scale(false, static_cast<float>(kDwt97K));
    scale(true, static_cast<float>(1.0 / kDwt97K));
    step(false, 1 - p, Lift97Sub{static_cast<float>(kDwt97Delta)});
    step(true, p, Lift97Sub{static_cast<float>(kDwt97Gamma)});
    step(false, 1 - p, Lift97Sub{static_cast<float>(kDwt97Beta)});
    step(true, p, Lift97Sub{static_cast<float>(kDwt97Alpha)});
  }
  static T single_fwd(T v) { return v * 2.0f; }
  static T single_inv(T v) { return v / 2.0f; }
};

// ---- one 1-D pass over rows (horizontal) ---------------------------------------------------

template <class K, bool Forward>
void horizontal(Plane<typename K::T> pl, const Rect& a) {
  using T = typename K::T;
  const uint32_t w = a.width(), h = a.height();
  if (w == 0 || h == 0) return;
  if (w == 1) {  // F.3.7 / F.4.7 length-1 rule
    if (a.x0 & 1)
      for (uint32_t y = 0; y < h; ++y) {
        T& v = pl.data[y * pl.stride];
        v = Forward ? K::single_fwd(v) : K::single_inv(v);
      }
    return;
  }
  const int p = a.x0 & 1;
  const size_t nl = (size_t{a.x1} + 1) / 2 - (size_t{a.x0} + 1) / 2, nh = w - nl;
#pragma omp parallel if (size_t{w} * h >= kParallelMin)
  {
    T* const tmp = scratch<T>(w);
    T* L = tmp;
    T* H = tmp + nl;
    auto step = [&](bool high, int o, auto op) {
      if (high)
        step_row(H, nh, L, nl, o, op);
      else
        step_row(L, nl, H, nh, o, op);
    };
    auto scale = [&](bool high, T f) {
      if (high)
        scale_row(H, nh, f);
      else
        scale_row(L, nl, f);
    };
#pragma omp for schedule(static)
    for (uint32_t y = 0; y < h; ++y) {
      T* row = pl.data + y * pl.stride;
      if constexpr (Forward) {
        // Deinterleave: the first sample is low when p == 0.
        const T* src_l = row + p;
        const T* src_h = row + (1 - p);
        for (size_t k = 0; k < nl; ++k) L[k] = src_l[2 * k];
        for (size_t k = 0; k < nh; ++k) H[k] = src_h[2 * k];
        K::forward(step, scale, p);
        std::memcpy(row, tmp, w * sizeof(T));
      } else {
        std::memcpy(tmp, row, w * sizeof(T));
        K::inverse(step, scale, p);
        T* dst_l = row + p;
        T* dst_h = row + (1 - p);
        for (size_t k = 0; k < nl; ++k) dst_l[2 * k] = L[k];
        for (size_t k = 0; k < nh; ++k) dst_h[2 * k] = H[k];
      }
    }
  }
}

// ---- one 1-D pass over columns (vertical), strips of kStripWidth columns ------------------

template <class K, bool Forward>
void vertical(Plane<typename K::T> pl, const Rect& a) {
  using T = typename K::T;
  const uint32_t w = a.width(), h = a.height();
  if (w == 0 || h == 0) return;
  if (h == 1) {
    if (a.y0 & 1)
      for (uint32_t x = 0; x < w; ++x)
        pl.data[x] = Forward ? K::single_fwd(pl.data[x]) : K::single_inv(pl.data[x]);
    return;
  }
  const int p = a.y0 & 1;
  const size_t nl = (size_t{a.y1} + 1) / 2 - (size_t{a.y0} + 1) / 2, nh = h - nl;
  const size_t S = kStripWidth;
  const size_t strips = (w + S - 1) / S;
#pragma omp parallel if (size_t{w} * h >= kParallelMin)
  {
    T* const tmp = scratch<T>(size_t{h} * S);
    T* L = tmp;
    T* H = tmp + nl * S;
    size_t lanes = S;
    auto step = [&](bool high, int o, auto op) {
      if (high)
        step_strip(H, nh, L, nl, o, S, lanes, op);
      else
        step_strip(L, nl, H, nh, o, S, lanes, op);
    };
    auto scale = [&](bool high, T f) {
      if (high)
        scale_row(H, nh * S, f);
      else
        scale_row(L, nl * S, f);
    };
#pragma omp for schedule(static)
    for (size_t s = 0; s < strips; ++s) {
      const size_t x = s * S;
      lanes = std::min(S, size_t{w} - x);
      T* col = pl.data + x;
      if constexpr (Forward) {
        for (uint32_t y = 0; y < h; ++y) {  // deinterleave rows into the strip
          const size_t dst = ((y & 1) == static_cast<uint32_t>(p)) ? y / 2 : nl + y / 2;
          std::memcpy(tmp + dst * S, col + y * pl.stride, lanes * sizeof(T));
        }
        // Rows of parity p (relative) are low: absolute y0 + y even <=> (y & 1) == p.
        K::forward(step, scale, p);
        for (uint32_t y = 0; y < h; ++y)
          std::memcpy(col + y * pl.stride, tmp + size_t{y} * S, lanes * sizeof(T));
      } else {
        for (uint32_t y = 0; y < h; ++y)
          std::memcpy(tmp + size_t{y} * S, col + y * pl.stride, lanes * sizeof(T));
        K::inverse(step, scale, p);
        for (uint32_t y = 0; y < h; ++y) {
          const size_t src = ((y & 1) == static_cast<uint32_t>(p)) ? y / 2 : nl + y / 2;
          std::memcpy(col + y * pl.stride, tmp + src * S, lanes * sizeof(T));
        }
      }
    }
  }
}

template <class K>
void fdwt(Plane<typename K::T> pl, const Rect& tc, int levels, const char* what) {
  check_dwt_args(pl.data, pl.stride, tc, levels, what);
  if (tc.empty()) return;
  for (int n = 1; n <= levels; ++n) {
    const Rect a = subband_rect(tc, n - 1, Band::kLL);
    if (a.empty()) break;
    vertical<K, true>(pl, a);  // 2D_SD: VER_SD then HOR_SD (F.3.2)
    horizontal<K, true>(pl, a);
  }
}

template <class K>
void idwt(Plane<typename K::T> pl, const Rect& tc, int levels, const char* what) {
  check_dwt_args(pl.data, pl.stride, tc, levels, what);
  if (tc.empty()) return;
  for (int n = levels; n >= 1; --n) {
    const Rect a = subband_rect(tc, n - 1, Band::kLL);
    if (a.empty()) continue;
    horizontal<K, false>(pl, a);  // 2D_SR: HOR_SR then VER_SR (F.4.2)
    vertical<K, false>(pl, a);
  }
}

}  // namespace

void forward53(Plane<int32_t> p, const Rect& tc, int levels) {
  fdwt<Kern53>(p, tc, levels, "cpu forward 5/3 DWT");
}
void inverse53(Plane<int32_t> p, const Rect& tc, int levels) {
  idwt<Kern53>(p, tc, levels, "cpu inverse 5/3 DWT");
}
void forward97(Plane<float> p, const Rect& tc, int levels) {
  fdwt<Kern97>(p, tc, levels, "cpu forward 9/7 DWT");
}
void inverse97(Plane<float> p, const Rect& tc, int levels) {
  idwt<Kern97>(p, tc, levels, "cpu inverse 9/7 DWT");
}

}  // namespace cpu
}  // namespace gj2k::transform
