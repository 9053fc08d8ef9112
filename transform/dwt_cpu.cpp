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
#include <algorithm>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "core/thread_pool.h"
#include "gj2k/error.h"
#include "transform/dwt_cpu.h"

namespace gj2k::transform {

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

// fused_pass for one row of n >= 2 samples in x (parity p), tmp of n samples; the loops run
// over samples and have no aliasing between buffer and scratch, so they vectorise.
template <class K, bool Forward>
void fused_row(typename K::T* __restrict x, size_t n, int p, typename K::T* __restrict tmp) {
  using F = typename FusedOf<K>::type;
  using T = typename K::T;
  const size_t nl = (n + 1 - static_cast<size_t>(p)) / 2, nh = n - nl;
  const int ol = 1 - p, oh = p;
  T* __restrict L = tmp;
  T* __restrict H = tmp + nl;
  if constexpr (!Forward) {
    const T* xl = x;
    const T* xh = x + nl;
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
    // Last step on H, then x interleaved: low k at 2 k + p, high k at 2 k + 1 - p.
    step_row(H, nh, L, nl, oh, F::inv_last());
    interleave(x, L, nl, H, nh, p);
  } else {
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
  core::parallel_blocks(
      h,
      [&](size_t first, size_t last) {
        T* const tmp = scratch<T>(w);
        for (uint32_t y = static_cast<uint32_t>(first); y < last; ++y)
          fused_row<K, Forward>(pl.data + y * pl.stride, w, p, tmp);
      },
      size_t{w} * h >= kParallelMin ? 0 : 1);
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
  constexpr size_t S = kStripWidth;
  const size_t strips = (w + S - 1) / S;
  core::parallel_blocks(
      strips,
      [&](size_t first, size_t last) {
        T* const tmp = scratch<T>(size_t{h} * S);
        for (size_t s = static_cast<size_t>(first); s < last; ++s) {
          const size_t x = s * S;
          T* const col = pl.data + x;
          if (x + S <= w)  // a full strip: fixed lane count
            fused_pass<K, Forward>(col, pl.stride, h, p, std::integral_constant<size_t, S>{}, tmp,
                                   S);
          else
            fused_pass<K, Forward>(col, pl.stride, h, p, size_t{w} - x, tmp, S);
        }
      },
      size_t{w} * h >= kParallelMin ? 0 : 1);
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

// ---- windowed inverse (region decoding) -----------------------------------------------------
// One 1-D signal of n samples whose first sample has absolute coordinate c0; positions
// [i0, i1) are wanted. The lifting runs on the sub-signal [e0, e1): the wanted positions
// widened by kWindowMargin and clipped to the signal. Its low samples are L[l0, l1) and its
// high ones H[h0, h1) of the whole signal's deinterleaved halves, and p is the parity of its
// first coordinate. Where [e0, e1) ends inside the signal, the clamped neighbours differ from
// the true ones; each inverse lifting step carries that one sample further in (2 steps for
// 5/3, 4 for 9/7), so positions more than 4 inside are computed exactly as by the whole
// transform: same inputs, same operations in the same order (bit-identical, 9/7 included).
constexpr size_t kWindowMargin = 6;

struct Window1 {
  size_t i0, i1, e0, e1, l0, l1, h0, h1;
  int p;
  size_t nl() const { return l1 - l0; }
  size_t nh() const { return h1 - h0; }
  // The sub-signal's output at position i (e0 <= i < e1), from its halves Ls / Hs.
  template <class T>
  T at(size_t i, const T* Ls, const T* Hs) const {
    const size_t j = i - e0;
    return ((j & 1) == static_cast<size_t>(p)) ? Ls[(j - p) / 2] : Hs[(j + p - 1) / 2];
  }
};

Window1 window1(uint32_t c0, size_t n, size_t i0, size_t i1) {
  Window1 w;
  w.i0 = i0;
  w.i1 = i1;
  w.e0 = i0 > kWindowMargin ? i0 - kWindowMargin : 0;
  w.e1 = std::min(n, i1 + kWindowMargin);
  const size_t lo = c0 & 1u;  // position i is low (even coordinate) when i % 2 == lo
  auto first = [](size_t e, size_t off) { return e <= off ? size_t{0} : (e - off + 1) / 2; };
  w.l0 = first(w.e0, lo);
  w.l1 = first(w.e1, lo);
  w.h0 = first(w.e0, 1 - lo);
  w.h1 = first(w.e1, 1 - lo);
  w.p = static_cast<int>((c0 + w.e0) & 1u);
  return w;
}

// HOR_SR on rows [r0, r1) and [r2, r3) of the level's area a, wanting output columns
// [x.i0, x.i1) (x = window1 over the rows).
template <class K>
void horizontal_window(Plane<typename K::T> pl, const Rect& a, const Window1& x,
                       const size_t (&rows)[4]) {
  using T = typename K::T;
  const size_t nl_all = (size_t{a.x1} + 1) / 2 - (size_t{a.x0} + 1) / 2;
  const size_t nl = x.nl(), nh = x.nh();
  const size_t count = (rows[1] - rows[0]) + (rows[3] - rows[2]);
  auto row_at = [&](size_t k) {
    return k < rows[1] - rows[0] ? rows[0] + k : rows[2] + (k - (rows[1] - rows[0]));
  };
  if (a.width() == 1) {  // F.4.7 length-1 rule, on the rows asked for only
    if (a.x0 & 1)
      for (size_t k = 0; k < count; ++k) {
        T& v = pl.data[row_at(k) * pl.stride];
        v = K::single_inv(v);
      }
    return;
  }
  core::parallel_blocks(
      count,
      [&](size_t first, size_t last) {
        T* const tmp = scratch<T>(nl + nh);
        T* L = tmp;
        T* H = tmp + nl;
        const auto step = row_step(L, nl, H, nh);
        const auto scale = row_scale(L, nl, H, nh);
        for (size_t k = static_cast<size_t>(first); k < last; ++k) {
          T* row = pl.data + row_at(k) * pl.stride;
          std::memcpy(L, row + x.l0, nl * sizeof(T));
          std::memcpy(H, row + nl_all + x.h0, nh * sizeof(T));
          K::inverse(step, scale, x.p);
          for (size_t i = x.i0; i < x.i1; ++i) row[i] = x.at(i, L, H);
        }
      },
      count * (x.e1 - x.e0) >= kParallelMin ? 0 : 1);
}

// VER_SR on columns [c0, c1) of the level's area a, wanting output rows [y.i0, y.i1).
template <class K>
void vertical_window(Plane<typename K::T> pl, const Rect& a, const Window1& y, size_t c0,
                     size_t c1) {
  using T = typename K::T;
  if (a.height() == 1) {  // F.4.7 length-1 rule, on the columns asked for only
    if (a.y0 & 1)
      for (size_t x = c0; x < c1; ++x) pl.data[x] = K::single_inv(pl.data[x]);
    return;
  }
  const size_t nl_all = (size_t{a.y1} + 1) / 2 - (size_t{a.y0} + 1) / 2;
  const size_t nl = y.nl(), nh = y.nh();
  const size_t S = kStripWidth;
  const size_t strips = (c1 - c0 + S - 1) / S;
  core::parallel_blocks(
      strips,
      [&](size_t first, size_t last) {
        T* const tmp = scratch<T>((nl + nh) * S);
        T* L = tmp;
        T* H = tmp + nl * S;
        size_t lanes = S;
        const auto step = strip_step(L, nl, H, nh, S, lanes);
        const auto scale = strip_scale(L, nl, H, nh, S);
        for (size_t s = static_cast<size_t>(first); s < last; ++s) {
          const size_t x = c0 + s * S;
          lanes = std::min(S, c1 - x);
          T* col = pl.data + x;
          for (size_t k = 0; k < nl; ++k)
            std::memcpy(L + k * S, col + (y.l0 + k) * pl.stride, lanes * sizeof(T));
          for (size_t k = 0; k < nh; ++k)
            std::memcpy(H + k * S, col + (nl_all + y.h0 + k) * pl.stride, lanes * sizeof(T));
          K::inverse(step, scale, y.p);
          for (size_t i = y.i0; i < y.i1; ++i) {
            const size_t j = i - y.e0;
            const T* src = ((j & 1) == static_cast<size_t>(y.p)) ? L + (j - y.p) / 2 * S
                                                                 : H + (j + y.p - 1) / 2 * S;
            std::memcpy(col + i * pl.stride, src, lanes * sizeof(T));
          }
        }
      },
      (c1 - c0) * (y.e1 - y.e0) >= kParallelMin ? 0 : 1);
}

template <class K>
void idwt_window(Plane<typename K::T> pl, const Rect& tc, int levels, const Rect& want,
                 const char* what) {
  check_dwt_args(pl.data, pl.stride, tc, levels, what);
  const Rect w0{std::max(want.x0, tc.x0), std::max(want.y0, tc.y0), std::min(want.x1, tc.x1),
                std::min(want.y1, tc.y1)};
  if (tc.empty() || levels == 0 || w0.x0 >= w0.x1 || w0.y0 >= w0.y1) return;
  // The wanted window of each level's output (positions inside its area), finest first. The
  // passes read only inside the windows (no level is done whole: the caller may leave
  // coefficients far from the window unwritten).
  struct Level {
    Rect a;
    Window1 x, y;
  };
  std::vector<Level> plan(static_cast<size_t>(levels) + 1);
  size_t wx0 = w0.x0 - tc.x0, wx1 = w0.x1 - tc.x0, wy0 = w0.y0 - tc.y0, wy1 = w0.y1 - tc.y0;
  for (int n = 1; n <= levels; ++n) {
    Level& lv = plan[static_cast<size_t>(n)];
    lv.a = subband_rect(tc, n - 1, Band::kLL);
    if (lv.a.empty()) break;
    lv.x = window1(lv.a.x0, lv.a.width(), wx0, wx1);
    lv.y = window1(lv.a.y0, lv.a.height(), wy0, wy1);
    wx0 = lv.x.l0;  // the level below must be right on the low samples read here
    wx1 = lv.x.l1;
    wy0 = lv.y.l0;
    wy1 = lv.y.l1;
  }
  for (int n = levels; n >= 1; --n) {
    const Level& lv = plan[static_cast<size_t>(n)];
    if (lv.a.empty()) continue;
    const size_t nlv = (size_t{lv.a.y1} + 1) / 2 - (size_t{lv.a.y0} + 1) / 2;
    const size_t rows[4] = {lv.y.l0, lv.y.l1, nlv + lv.y.h0, nlv + lv.y.h1};
    horizontal_window<K>(pl, lv.a, lv.x, rows);
    vertical_window<K>(pl, lv.a, lv.y, lv.x.i0, lv.x.i1);
  }
}

}  // namespace

void inverse53_window(Plane<int32_t> p, const Rect& tc, int levels, const Rect& want) {
  idwt_window<Kern53>(p, tc, levels, want, "cpu inverse 5/3 DWT (window)");
}
void inverse97_window(Plane<float> p, const Rect& tc, int levels, const Rect& want) {
  idwt_window<Kern97>(p, tc, levels, want, "cpu inverse 9/7 DWT (window)");
}

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
