// The fast CPU DWT's kernels (dwt_cpu.cpp; the scheme is described there and in dwt_cpu.h):
// the lifting operations, the 5/3 and 9/7 lifting sequences, and the fused 1-D passes over one
// row (fused_row) and one strip of columns (fused_pass). Header-only and free of the thread
// pool, so that dwt_cpu_v3.cpp can compile them for x86-64-v3 (core/isa.h) as well.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "transform/dwt.h"
#include "transform/dwt_cpu.h"  // kStripWidths

namespace gj2k::transform::cpu::kernels {

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

// The step and scale functors that K::forward / K::inverse apply to the halves L (nl
// elements) and H (nh) of one row, or of a strip of `lanes` columns S apart (lanes is read at
// each call: the last strip of a pass is narrower).
template <class T>
auto row_step(T* L, size_t nl, T* H, size_t nh) {
  return [=](bool high, int o, auto op) {
    if (high)
      step_row(H, nh, L, nl, o, op);
    else
      step_row(L, nl, H, nh, o, op);
  };
}
template <class T>
auto row_scale(T* L, size_t nl, T* H, size_t nh) {
  return [=](bool high, T f) {
    if (high)
      scale_row(H, nh, f);
    else
      scale_row(L, nl, f);
  };
}
template <class T>
auto strip_step(T* L, size_t nl, T* H, size_t nh, size_t S, const size_t& lanes) {
  return [=, &lanes](bool high, int o, auto op) {
    if (high)
      step_strip(H, nh, L, nl, o, S, lanes, op);
    else
      step_strip(L, nl, H, nh, o, S, lanes, op);
  };
}
template <class T>
auto strip_scale(T* L, size_t nl, T* H, size_t nh, size_t S) {
  return [=](bool high, T f) {
    if (high)
      scale_row(H, nh * S, f);
    else
      scale_row(L, nl * S, f);
  };
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

// ---- the whole-signal passes: lifting steps fused with the (de)interleaving ----------------
// Every sample goes through the same float operations in the same order as the reference; the
// passes only choose where intermediates live so that the buffer is read once and written once
// per pass. Inverse (F.4.8): the halves are copied to scratch (scaled, 9/7; for 5/3 the first
// update step reads L from the buffer), the middle steps run in scratch and the last step writes
// the interleaved output to the buffer. Forward (F.3.8): the input is deinterleaved into scratch
// with the first predict step, and the last update step (and the scaling, 9/7) writes the
// halves back.

// A run of "elements" k, each `lanes` samples at base + k * pitch (rows of a strip).
template <class T>
struct Elems {
  T* base;
  size_t pitch;
  T* at(size_t k) const { return base + k * pitch; }
};

// n: a size_t, or a std::integral_constant for full strips (fixed trip counts unroll).
template <class T, class N, class Op>
inline void lanes_op(T* d, const T* t, const T* a, const T* b, N n, Op op) {
  if (d == t) {
    T* __restrict dd = d;
    const T* __restrict aa = a;
    const T* __restrict bb = b;
    for (size_t j = 0; j < n; ++j) dd[j] = op(dd[j], aa[j], bb[j]);
  } else {
    T* __restrict dd = d;
    const T* __restrict tt = t;
    const T* __restrict aa = a;
    const T* __restrict bb = b;
    for (size_t j = 0; j < n; ++j) dd[j] = op(tt[j], aa[j], bb[j]);
  }
}

template <class T, class N>
inline void lanes_copy(T* __restrict d, const T* __restrict t, N n) {
  for (size_t j = 0; j < n; ++j) d[j] = t[j];
}

template <class T, class N>
inline void lanes_scale(T* d, const T* t, N n, T f) {
  if (d == t) {
    T* __restrict dd = d;
    for (size_t j = 0; j < n; ++j) dd[j] = dd[j] * f;
  } else {
    T* __restrict dd = d;
    const T* __restrict tt = t;
    for (size_t j = 0; j < n; ++j) dd[j] = tt[j] * f;
  }
}

// out[k] = op(in[k], s[clamp(k - o)], s[clamp(k - o + 1)]) for k < nt (out may be in), each
// element `lanes` wide; then, when post != 1, out[k] *= post (the K scaling that follows the
// last forward step, F.3.8.2).
template <class T, class N, class Op>
inline void lift(Elems<T> out, Elems<const T> in, size_t nt, Elems<const T> s, size_t ns, int o,
                 N lanes, Op op, T post = T(1)) {
  for (size_t k = 0; k < nt; ++k) {
    const T* a = s.at(clampi(std::ptrdiff_t(k) - o, ns));
    const T* b = s.at(clampi(std::ptrdiff_t(k) - o + 1, ns));
    lanes_op(out.at(k), in.at(k), a, b, lanes, op);
    if (post != T(1)) lanes_scale(out.at(k), out.at(k), lanes, post);
  }
}

template <class T>
Elems<const T> cview(Elems<T> e) {
  return {e.base, e.pitch};
}

// The lifting sequences of F.3.8 / F.4.8 split for the fused passes. Inverse: optional
// scaling, steps on L (o = 1 - p) and H (o = p) alternating, the last one on H. Forward: the
// first step on H, then alternating, the last on L, then optional scaling.
struct Fused53 {
  using T = int32_t;
  static constexpr bool kScaled = false;
  // Inverse: L *= kLow, H *= kHigh first (F.4.8.2); forward: L *= kFwdLow, H *= kFwdHigh last
  // (F.3.8.2). 1 where there is no scaling.
  static constexpr T kLow = 1, kHigh = 1, kFwdLow = 1, kFwdHigh = 1;
  // Inverse steps before the last, as (high, op) pairs, in order.
  template <class F>
  static void inv_mid(F step) {
    step(false, Update53Inv{});
  }
  static Predict53Inv inv_last() { return {}; }
  static Predict53Fwd fwd_first() { return {}; }
  template <class F>
  static void fwd_mid(F) {}
  static Update53Fwd fwd_last() { return {}; }
};

struct Fused97 {
  using T = float;
  static constexpr bool kScaled = true;
  static constexpr T kLow = static_cast<float>(kDwt97K), kHigh = static_cast<float>(1.0 / kDwt97K);
  static constexpr T kFwdLow = kHigh, kFwdHigh = kLow;
  template <class F>
  static void inv_mid(F step) {
    step(false, Lift97Sub{static_cast<float>(kDwt97Delta)});
    step(true, Lift97Sub{static_cast<float>(kDwt97Gamma)});
    step(false, Lift97Sub{static_cast<float>(kDwt97Beta)});
  }
  static Lift97Sub inv_last() { return {static_cast<float>(kDwt97Alpha)}; }
  static Lift97Add fwd_first() { return {static_cast<float>(kDwt97Alpha)}; }
  template <class F>
  static void fwd_mid(F step) {
    step(false, Lift97Add{static_cast<float>(kDwt97Beta)});
    step(true, Lift97Add{static_cast<float>(kDwt97Gamma)});
  }
  static Lift97Add fwd_last() { return {static_cast<float>(kDwt97Delta)}; }
};

template <class K>
struct FusedOf;
template <>
struct FusedOf<Kern53> {
  using type = Fused53;
};
template <>
struct FusedOf<Kern97> {
  using type = Fused97;
};

// f(lanes) with lanes as a std::integral_constant where it is one of kStripWidths (a full
// strip: fixed trip counts unroll and vectorise without a remainder), else as a size_t.
template <class F>
inline void with_fixed_lanes(size_t lanes, F&& f) {
  switch (lanes) {
    case kStripWidths[0]:
      return f(std::integral_constant<size_t, kStripWidths[0]>{});
    case kStripWidths[1]:
      return f(std::integral_constant<size_t, kStripWidths[1]>{});
    case kStripWidths[2]:
      return f(std::integral_constant<size_t, kStripWidths[2]>{});
    default:
      return f(lanes);
  }
}

// One 1-D pass over a strip of `lanes` columns: n >= 2 samples of parity p, sample i of the
// strip at x + i * along. The strip goes through scratch once (tmp: n elements of `lanes`
// samples, tp apart, L then H): the first lifting step reads the buffer and writes scratch,
// the middle steps stay in scratch, the last writes the buffer. The buffer's rows are read
// once and written once, in order; rows along a power-of-two-like stride map to few cache
// sets, so scratch (contiguous) rather than the buffer carries the reuse between steps.
template <class K, bool Forward, class N>
void fused_pass(typename K::T* x, size_t along, size_t n, int p, N lanes, typename K::T* tmp,
                size_t tp) {
  using F = typename FusedOf<K>::type;
  using T = typename K::T;
  const size_t nl = (n + 1 - static_cast<size_t>(p)) / 2, nh = n - nl;
  const int ol = 1 - p, oh = p;  // neighbour offsets of steps on L and on H
  const Elems<T> Ls{tmp, tp}, Hs{tmp + nl * tp, tp};
  if constexpr (!Forward) {
    // Mallat halves: L at elements [0, nl), H at [nl, n) of x.
    const Elems<T> Lx{x, along}, Hx{x + nl * along, along};
    bool first = true;
    if constexpr (F::kScaled) {  // F.4.8.2 steps 1-2: L *= K, H *= 1/K
      for (size_t k = 0; k < nl; ++k) lanes_scale(Ls.at(k), Lx.at(k), lanes, F::kLow);
      for (size_t k = 0; k < nh; ++k) lanes_scale(Hs.at(k), Hx.at(k), lanes, F::kHigh);
      first = false;
    } else {
      for (size_t k = 0; k < nh; ++k) lanes_copy(Hs.at(k), Hx.at(k), lanes);
    }
    F::inv_mid([&](bool high, auto op) {
      if (high) {
        lift(Hs, cview(Hs), nh, cview(Ls), nl, oh, lanes, op);
      } else {  // the first step reads L from x, later ones from scratch
        lift(Ls, first ? cview(Lx) : cview(Ls), nl, cview(Hs), nh, ol, lanes, op);
        first = false;
      }
    });
    // Last step on H, written interleaved: output i is low when (i & 1) == p.
    const auto last = F::inv_last();
    for (size_t i = 0; i < n; ++i) {
      T* d = x + i * along;
      const size_t k = i >> 1;  // (i - p) / 2 for low, (i - (1 - p)) / 2 for high
      if ((i & 1) == static_cast<size_t>(p)) {
        lanes_copy(d, Ls.at(k), lanes);
      } else {
        const T* a = Ls.at(clampi(std::ptrdiff_t(k) - oh, nl));
        const T* b = Ls.at(clampi(std::ptrdiff_t(k) - oh + 1, nl));
        lanes_op(d, Hs.at(k), a, b, lanes, last);
      }
    }
  } else {
    // Interleaved input: low j at element 2 j + p, high j at 2 j + 1 - p.
    const Elems<T> Lx{x + p * along, 2 * along}, Hx{x + (1 - p) * along, 2 * along};
    for (size_t k = 0; k < nl; ++k) lanes_copy(Ls.at(k), Lx.at(k), lanes);
    lift(Hs, cview(Hx), nh, cview(Ls), nl, oh, lanes, F::fwd_first());
    F::fwd_mid([&](bool high, auto op) {
      if (high)
        lift(Hs, cview(Hs), nh, cview(Ls), nl, oh, lanes, op);
      else
        lift(Ls, cview(Ls), nl, cview(Hs), nh, ol, lanes, op);
    });
    const Elems<T> Lo{x, along}, Ho{x + nl * along, along};
    lift(Lo, cview(Ls), nl, cview(Hs), nh, ol, lanes, F::fwd_last(), F::kFwdLow);
    for (size_t k = 0; k < nh; ++k) {
      if constexpr (F::kScaled)
        lanes_scale(Ho.at(k), Hs.at(k), lanes, F::kFwdHigh);
      else
        lanes_copy(Ho.at(k), Hs.at(k), lanes);
    }
  }
}

// The row form of lift, out-of-place: out[k] = op(in[k], s[clamp(k - o)], s[clamp(k - o + 1)])
// (times post when post != 1), k < nt; no aliasing between out and in or s, the clamps only at
// the ends so that the middle vectorises.
template <class T, class Op>
inline void lift_row(T* __restrict out, const T* __restrict in, size_t nt, const T* __restrict s,
                     size_t ns, int o, Op op, T post = T(1)) {
  auto one = [&](size_t k) {
    const T v =
        op(in[k], s[clampi(std::ptrdiff_t(k) - o, ns)], s[clampi(std::ptrdiff_t(k) - o + 1, ns)]);
    out[k] = post != T(1) ? v * post : v;
  };
  const size_t mid_lo = std::min<size_t>(nt, o);
  const size_t mid_hi = std::max(mid_lo, std::min<size_t>(nt, ns - 1 + o));
  for (size_t k = 0; k < mid_lo; ++k) one(k);
  if (post != T(1)) {
    for (size_t k = mid_lo; k < mid_hi; ++k) out[k] = op(in[k], s[k - o], s[k - o + 1]) * post;
  } else {
    for (size_t k = mid_lo; k < mid_hi; ++k) out[k] = op(in[k], s[k - o], s[k - o + 1]);
  }
  for (size_t k = mid_hi; k < nt; ++k) one(k);
}

// x[2 k + p] = L[k], x[2 k + 1 - p] = H[k] (one loop storing both, so that it vectorises).
template <class T>
inline void interleave(T* __restrict x, const T* __restrict L, size_t nl, const T* __restrict H,
                       size_t nh, int p) {
  const T* __restrict a = p ? H : L;  // a at even positions, b at odd: na == nb or nb + 1
  const T* __restrict b = p ? L : H;
  const size_t na = p ? nh : nl, nb = p ? nl : nh;
  for (size_t k = 0; k < nb; ++k) {
    x[2 * k] = a[k];
    x[2 * k + 1] = b[k];
  }
  if (na > nb) x[2 * nb] = a[nb];
}

// The inverse of interleave.
template <class T>
inline void deinterleave(T* __restrict L, size_t nl, T* __restrict H, size_t nh,
                         const T* __restrict x, int p) {
  T* __restrict a = p ? H : L;
  T* __restrict b = p ? L : H;
  const size_t na = p ? nh : nl, nb = p ? nl : nh;
  for (size_t k = 0; k < nb; ++k) {
    a[k] = x[2 * k];
    b[k] = x[2 * k + 1];
  }
  if (na > nb) a[nb] = x[2 * nb];
}

// The inverse fused_pass for one row of n >= 2 samples (parity p): the Mallat halves at src,
// the interleaved output to dst (src itself, or a row that does not overlap it), tmp of n
// samples; the loops run over samples with no aliasing between the rows and scratch, so they
// vectorise.
template <class K>
void fused_row_inverse(const typename K::T* src, typename K::T* dst, size_t n, int p,
                       typename K::T* __restrict tmp) {
  using F = typename FusedOf<K>::type;
  using T = typename K::T;
  const size_t nl = (n + 1 - static_cast<size_t>(p)) / 2, nh = n - nl;
  const int ol = 1 - p, oh = p;
  T* __restrict L = tmp;
  T* __restrict H = tmp + nl;
  const T* xl = src;
  const T* xh = src + nl;
  bool first = true;
  if constexpr (F::kScaled) {
    for (size_t k = 0; k < nl; ++k) L[k] = xl[k] * F::kLow;
    for (size_t k = 0; k < nh; ++k) H[k] = xh[k] * F::kHigh;
    first = false;
  } else {
    std::memcpy(H, xh, nh * sizeof(T));
  }
  F::inv_mid([&](bool high, auto op) {
    if (high) {
      step_row(H, nh, L, nl, oh, op);
    } else if (first) {
      lift_row(L, xl, nl, H, nh, ol, op);
      first = false;
    } else {
      step_row(L, nl, H, nh, ol, op);
    }
  });
  // Last step on H, then dst interleaved: low k at 2 k + p, high k at 2 k + 1 - p.
  step_row(H, nh, L, nl, oh, F::inv_last());
  interleave(dst, L, nl, H, nh, p);
}

// fused_pass for one row of n >= 2 samples in x (parity p), tmp of n samples.
template <class K, bool Forward>
void fused_row(typename K::T* __restrict x, size_t n, int p, typename K::T* __restrict tmp) {
  using F = typename FusedOf<K>::type;
  using T = typename K::T;
  if constexpr (!Forward) {
    fused_row_inverse<K>(x, x, n, p, tmp);
  } else {
    const size_t nl = (n + 1 - static_cast<size_t>(p)) / 2, nh = n - nl;
    const int ol = 1 - p, oh = p;
    T* __restrict L = tmp;
    T* __restrict H = tmp + nl;
    deinterleave(L, nl, H, nh, x, p);
    step_row(H, nh, L, nl, oh, F::fwd_first());
    F::fwd_mid([&](bool high, auto op) {
      if (high)
        step_row(H, nh, L, nl, oh, op);
      else
        step_row(L, nl, H, nh, ol, op);
    });
    lift_row(x, L, nl, H, nh, ol, F::fwd_last(), F::kFwdLow);
    T* __restrict xh_out = x + nl;
    if constexpr (F::kScaled) {
      for (size_t k = 0; k < nh; ++k) xh_out[k] = H[k] * F::kFwdHigh;
    } else {
      std::memcpy(xh_out, H, nh * sizeof(T));
    }
  }
}

// One band of the finest level's inverse for inverse53_rows / inverse97_rows (dwt_cpu.h): nl
// rows of the plane from row l0 (low) and nh from row h0 (high), each w samples of parity px,
// go through HOR_SR (F.4.2) into `band` (the low rows, then the high rows, w apart); then
// VER_SR of the nl + nh rows (parity py) runs on the band's columns in place, all w of them at
// once. tmp: w samples. The vertical steps read and write only the band, which the caller
// keeps small enough to stay in a core's cache.
template <class K>
void band_inverse(const typename K::T* plane, size_t stride, size_t w, int px, size_t l0, size_t nl,
                  size_t h0, size_t nh, int py, typename K::T* band, typename K::T* tmp) {
  using T = typename K::T;
  auto row = [&](const T* src, T* dst) {
    if (w >= 2) {
      fused_row_inverse<K>(src, dst, w, px, tmp);
    } else {
      dst[0] = px ? K::single_inv(src[0]) : src[0];  // F.4.7: one sample
    }
  };
  for (size_t k = 0; k < nl; ++k) row(plane + (l0 + k) * stride, band + k * w);
  for (size_t k = 0; k < nh; ++k) row(plane + (h0 + k) * stride, band + (nl + k) * w);
  T* const L = band;
  T* const H = band + nl * w;
  if (nl + nh == 1) {  // F.4.7: a one-sample column, halved at an odd coordinate
    if (py)
      for (size_t j = 0; j < w; ++j) band[j] = K::single_inv(band[j]);
    return;
  }
  const size_t lanes = w;
  K::inverse(strip_step(L, nl, H, nh, w, lanes), strip_scale(L, nl, H, nh, w), py);
}

}  // namespace gj2k::transform::cpu::kernels
