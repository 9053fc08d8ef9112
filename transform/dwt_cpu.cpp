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

#include "core/isa.h"
#include "core/thread_pool.h"
#include "gj2k/error.h"
#include "transform/dwt_cpu.h"
#include "transform/dwt_cpu_kernels.h"
#include "transform/dwt_cpu_v3.h"

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

using namespace kernels;  // dwt_cpu_kernels.h

// The 1-D passes in the host's instruction-set variant (core/isa.h): the kernels compiled here
// or their x86-64-v3 build (dwt_cpu_v3.cpp).
template <class K, bool Forward>
void row_pass(typename K::T* x, size_t n, int p, typename K::T* tmp) {
#if GJ2K_HAVE_ISA_V3
  if (core::use_isa_v3()) {
    if constexpr (std::is_same_v<K, Kern53>)
      v3::row53(Forward, x, n, p, tmp);
    else
      v3::row97(Forward, x, n, p, tmp);
    return;
  }
#endif
  fused_row<K, Forward>(x, n, p, tmp);
}
template <class K, bool Forward>
void strip_pass(typename K::T* x, size_t along, size_t n, int p, size_t lanes, typename K::T* tmp,
                size_t tp) {
#if GJ2K_HAVE_ISA_V3
  if (core::use_isa_v3()) {
    if constexpr (std::is_same_v<K, Kern53>)
      v3::strip53(Forward, x, along, n, p, lanes, tmp, tp);
    else
      v3::strip97(Forward, x, along, n, p, lanes, tmp, tp);
    return;
  }
#endif
  with_fixed_lanes(lanes, [&](auto l) { fused_pass<K, Forward>(x, along, n, p, l, tmp, tp); });
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
          row_pass<K, Forward>(pl.data + y * pl.stride, w, p, tmp);
      },
      size_t{w} * h >= kParallelMin ? 0 : 1);
}

// ---- one 1-D pass over columns (vertical), strips of vertical_strip_width columns --------

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
  const size_t S = vertical_strip_width(w, h);
  const size_t strips = (w + S - 1) / S;
  core::parallel_blocks(
      strips,
      [&](size_t first, size_t last) {
        T* const tmp = scratch<T>(size_t{h} * S);
        for (size_t s = static_cast<size_t>(first); s < last; ++s) {
          const size_t x = s * S;
          strip_pass<K, Forward>(pl.data + x, pl.stride, h, p, std::min<size_t>(S, w - x), tmp, S);
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
  // Where the sub-signal's output at position i (e0 <= i < e1) lies in its halves kept one
  // after the other, the nl() low ones then the nh() high ones.
  size_t slot(size_t i) const {
    const size_t j = i - e0;
    return ((j & 1) == static_cast<size_t>(p)) ? (j - p) / 2 : nl() + (j + p - 1) / 2;
  }
};

// How many of the coordinates [c0, c1) are even: a signal's low samples (F.3.7).
size_t low_count(uint32_t c0, uint32_t c1) {
  return (size_t{c1} + 1) / 2 - (size_t{c0} + 1) / 2;
}

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
  const size_t nl_all = low_count(a.x0, a.x1);
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
          for (size_t i = x.i0; i < x.i1; ++i) row[i] = tmp[x.slot(i)];  // L, then H
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
  const size_t nl_all = low_count(a.y0, a.y1);
  const size_t nl = y.nl(), nh = y.nh();
  const size_t S = vertical_strip_width(c1 - c0, nl + nh);
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
          for (size_t i = y.i0; i < y.i1; ++i)  // L, then H
            std::memcpy(col + i * pl.stride, tmp + y.slot(i) * S, lanes * sizeof(T));
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

// ---- the finest level in bands of rows (inverse53_rows / inverse97_rows) -------------------

template <class K>
void band_pass(const typename K::T* plane, size_t stride, size_t w, int px, size_t l0, size_t nl,
               size_t h0, size_t nh, int py, typename K::T* band, typename K::T* tmp) {
#if GJ2K_HAVE_ISA_V3
  if (core::use_isa_v3()) {
    if constexpr (std::is_same_v<K, Kern53>)
      v3::band53(plane, stride, w, px, l0, nl, h0, nh, py, band, tmp);
    else
      v3::band97(plane, stride, w, px, l0, nl, h0, nh, py, band, tmp);
    return;
  }
#endif
  band_inverse<K>(plane, stride, w, px, l0, nl, h0, nh, py, band, tmp);
}

// Rows [y0, y1) of the finest level come from the vertical sub-signal window1 gives (the rows
// widened by kWindowMargin, exact inside as for idwt_window): its low and high rows through
// HOR_SR into the band, VER_SR on the band, and row i is the band's row at its position.
template <class K>
void inverse_rows(Plane<typename K::T> pl, const Rect& tc, size_t y0, size_t y1,
                  std::vector<typename K::T>& scratch, typename K::T** rows, const char* what) {
  using T = typename K::T;
  check_dwt_args(pl.data, pl.stride, tc, 1, what);
  const size_t w = tc.width(), h = tc.height();
  if (y1 > h || y0 >= y1)
    throw Error(ErrorCode::kInvalidArgument, std::string(what) + ": rows " + std::to_string(y0) +
                                                 ".." + std::to_string(y1) + " outside 0.." +
                                                 std::to_string(h));
  if (w == 0) {  // rows of no samples
    for (size_t i = y0; i < y1; ++i) rows[i - y0] = nullptr;
    return;
  }
  const Window1 y = window1(tc.y0, h, y0, y1);
  const size_t nl_all = low_count(tc.y0, tc.y1);
  const size_t nl = y.nl(), nh = y.nh();
  if (scratch.size() < (nl + nh + 1) * w) scratch.resize((nl + nh + 1) * w);
  T* const band = scratch.data();
  band_pass<K>(pl.data, pl.stride, w, static_cast<int>(tc.x0 & 1u), y.l0, nl, nl_all + y.h0, nh,
               y.p, band, band + (nl + nh) * w);
  for (size_t i = y0; i < y1; ++i) rows[i - y0] = band + y.slot(i) * w;
}

}  // namespace

void inverse53_rows(Plane<int32_t> p, const Rect& tc, size_t y0, size_t y1,
                    std::vector<int32_t>& scratch, int32_t** rows) {
  inverse_rows<Kern53>(p, tc, y0, y1, scratch, rows, "cpu inverse 5/3 DWT (rows)");
}
void inverse97_rows(Plane<float> p, const Rect& tc, size_t y0, size_t y1,
                    std::vector<float>& scratch, float** rows) {
  inverse_rows<Kern97>(p, tc, y0, y1, scratch, rows, "cpu inverse 9/7 DWT (rows)");
}

void inverse53_window(Plane<int32_t> p, const Rect& tc, int levels, const Rect& want) {
  idwt_window<Kern53>(p, tc, levels, want, "cpu inverse 5/3 DWT (window)");
}
void inverse97_window(Plane<float> p, const Rect& tc, int levels, const Rect& want) {
  idwt_window<Kern97>(p, tc, levels, want, "cpu inverse 9/7 DWT (window)");
}

void forward53(Plane<int32_t> p, const Rect& tc, int levels) {
  fdwt<Kern53>(p, tc, levels, "cpu forward 5/3 DWT");
}

// The busiest thread's columns: parallel_blocks hands each thread a contiguous run of strips,
// so fewer, wider strips can load the threads unevenly (2,560 columns on 16 threads: 20 strips
// of 128, two for some threads and one for others).
size_t vertical_strip_width(size_t w, size_t h) {
  const size_t threads = w * h >= kParallelMin && !core::in_parallel()
                             ? static_cast<size_t>(std::max(1, core::max_threads()))
                             : 1;
  auto busiest = [&](size_t s) { return ((w + s - 1) / s + threads - 1) / threads * s; };
  for (const size_t s : kStripWidths)
    if (h * s * 4 <= kStripScratchBytes && busiest(s) <= busiest(kStripWidth)) return s;
  return kStripWidth;
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
