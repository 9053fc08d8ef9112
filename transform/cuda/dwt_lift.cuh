// Device primitives of the GPU DWT: whole-sample symmetric extension and the lifting steps of
// the 5/3 reversible and 9/7 irreversible filters (15444-1 Annex F), applied by a thread
// block to a tile held in shared memory.
//
// Tile convention: a tile window starts at an even absolute coordinate, so window index k has
// the parity of its absolute coordinate: even k = low-pass, odd k = high-pass. A lifting step
// updates the positions of one parity in [1, n - 1) from their two neighbours; after all steps
// the values at distance >= L::kHalo from the window's ends are exact.
#pragma once

#include <cstdint>

namespace gj2k::transform::cuda::dev {

inline constexpr int kThreads = 256;  // threads per block of every DWT kernel

// Whole-sample symmetric extension (F.3.7, F.4.7): the coordinate in [a, b) that p mirrors
// to, for a signal of length b - a >= 1. Lifting the periodically mirrored signal gives the
// same in-range values as the standard's finite extension, since every lifting step keeps the
// symmetry about a and b - 1.
__device__ __forceinline__ int64_t mirror(int64_t p, int64_t a, int64_t b) {
  if (p >= a && p < b) return p;
  const int64_t n = b - a;
  if (n == 1) return a;
  const int64_t period = 2 * (n - 1);
  int64_t q = (p - a) % period;
  if (q < 0) q += period;
  if (q >= n) q = period - q;
  return a + q;
}

// 5/3 reversible lifting, integer (F.3.8.1 eq. F-9 forward, F.4.8.1 eq. F-8 inverse). The
// floors are computed without overflow and the final sum wraps like the reference's int64
// arithmetic cast to int32, so even extreme inputs give identical results.
struct Lift53 {
  using T = int32_t;
  static constexpr int kHalo = 2;
  static constexpr int kSteps = 2;
  // floor((l + r) / 2) for any int32 l, r (l = 2p + a, r = 2q + b: p + q + (a & b)).
  __device__ static T half_sum(T l, T r) { return (l >> 1) + (r >> 1) + (l & r & 1); }
  // floor((l + r + 2) / 4) = floor((floor((l + r) / 2) + 1) / 2).
  __device__ static T quarter_sum(T l, T r) {
    const T a = half_sum(l, r);
    return (a >> 1) + (a & 1);
  }
  __device__ static T wrap_add(T a, T b) {
    return static_cast<T>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b));
  }
  __device__ static T wrap_sub(T a, T b) {
    return static_cast<T>(static_cast<uint32_t>(a) - static_cast<uint32_t>(b));
  }
  // Forward step s: s = 0 predicts odd positions, s = 1 updates even ones.
  template <int S>
  __device__ static T fwd(T c, T l, T r) {
    if constexpr (S == 0)
      return wrap_sub(c, half_sum(l, r));
    else
      return wrap_add(c, quarter_sum(l, r));
  }
  // Inverse step s: s = 0 undoes the update (even), s = 1 the prediction (odd).
  template <int S>
  __device__ static T inv(T c, T l, T r) {
    if constexpr (S == 0)
      return wrap_sub(c, quarter_sum(l, r));
    else
      return wrap_add(c, half_sum(l, r));
  }
  // 1-sample signals at an odd coordinate (F.3.7 / F.4.7).
  __device__ static T twice(T v) { return wrap_add(v, v); }
  __device__ static T half(T v) { return v / 2; }
  // Subband gains: none for 5/3.
  __device__ static T gain1_fwd(T v, bool) { return v; }
  __device__ static T gain1_inv(T v, bool) { return v; }
  __device__ static T gain_fwd(T v, bool, bool, bool, bool) { return v; }
  __device__ static T gain_inv(T v, bool, bool, bool, bool) { return v; }
};

// 9/7 irreversible lifting, float32 (F.3.8.2, F.4.8.2, Table F.4). Forward: low-pass outputs
// scaled by 1/K, high-pass by K (dwt.h); inverse: the reverse.
struct Lift97 {
  using T = float;
  static constexpr int kHalo = 4;
  static constexpr int kSteps = 4;
  static constexpr float kAlpha = -1.586134342059924f;
  static constexpr float kBeta = -0.052980118572961f;
  static constexpr float kGamma = 0.882911075530934f;
  static constexpr float kDelta = 0.443506852043971f;
  static constexpr float kK = 1.230174104914001f;
  static constexpr float kInvK = static_cast<float>(1.0 / 1.230174104914001);
  // c + coef (l + r) rounded after each operation, never fused into an FMA: the operations of
  // the CPU's lifting (dwt_cpu.cpp, Lift97Add / Lift97Sub), so that both give the same floats.
  template <int S>
  __device__ static T fwd(T c, T l, T r) {
    constexpr float coef = S == 0 ? kAlpha : S == 1 ? kBeta : S == 2 ? kGamma : kDelta;
    return __fadd_rn(c, __fmul_rn(coef, __fadd_rn(l, r)));
  }
  template <int S>
  __device__ static T inv(T c, T l, T r) {
    constexpr float coef = S == 0 ? kDelta : S == 1 ? kGamma : S == 2 ? kBeta : kAlpha;
    return __fsub_rn(c, __fmul_rn(coef, __fadd_rn(l, r)));
  }
  __device__ static T twice(T v) { return v * 2.0f; }
  __device__ static T half(T v) { return v * 0.5f; }
  // The K scaling of one direction (low-pass forward 1/K, high-pass K; inverse the reverse),
  // applied where the CPU applies it: forward after that direction's lifting, inverse before
  // it. The fused kernels (the codec's default) use these, so that their results equal the
  // CPU's bit for bit.
  __device__ static T gain1_fwd(T v, bool low) { return __fmul_rn(v, low ? kInvK : kK); }
  __device__ static T gain1_inv(T v, bool low) { return __fmul_rn(v, low ? kK : kInvK); }
  // The K scaling of both directions, folded into one multiply (lifting is linear, so where it
  // happens changes only float rounding): the other variants. A direction of length 1 has no
  // lifting and no K.
  __device__ static T gain_fwd(T v, bool xlow, bool ylow, bool x_one, bool y_one) {
    const float fx = x_one ? 1.0f : (xlow ? kInvK : kK);
    const float fy = y_one ? 1.0f : (ylow ? kInvK : kK);
    return v * (fx * fy);
  }
  __device__ static T gain_inv(T v, bool xlow, bool ylow, bool x_one, bool y_one) {
    const float fx = x_one ? 1.0f : (xlow ? kK : kInvK);
    const float fy = y_one ? 1.0f : (ylow ? kK : kInvK);
    return v * (fx * fy);
  }
};

// One lifting step down the columns [C0, C0 + NC) of a tile of RH rows, pitch P: rows of the
// step's parity in [1, RH - 1).
template <class L, bool kFwd, int S, int RH, int P, int C0, int NC>
__device__ __forceinline__ void vstep(typename L::T* s) {
  constexpr bool odd = kFwd ? (S % 2 == 0) : (S % 2 == 1);
  constexpr int k0 = odd ? 1 : 2;
  constexpr int nr = (RH - k0) / 2;
  for (int i = threadIdx.x; i < nr * NC; i += kThreads) {
    typename L::T* p = s + (k0 + 2 * (i / NC)) * P + C0 + i % NC;
    if constexpr (kFwd)
      *p = L::template fwd<S>(*p, p[-P], p[P]);
    else
      *p = L::template inv<S>(*p, p[-P], p[P]);
  }
}

// One lifting step along the rows [R0, R0 + NR) of a tile CW columns wide, pitch P.
template <class L, bool kFwd, int S, int CW, int P, int R0, int NR>
__device__ __forceinline__ void hstep(typename L::T* s) {
  constexpr bool odd = kFwd ? (S % 2 == 0) : (S % 2 == 1);
  constexpr int k0 = odd ? 1 : 2;
  constexpr int nc = (CW - k0) / 2;
  for (int i = threadIdx.x; i < nc * NR; i += kThreads) {
    typename L::T* p = s + (R0 + i / nc) * P + k0 + 2 * (i % nc);
    if constexpr (kFwd)
      *p = L::template fwd<S>(*p, p[-1], p[1]);
    else
      *p = L::template inv<S>(*p, p[-1], p[1]);
  }
}

// All lifting steps of one direction, with the barriers between them (and after the last).
template <class L, bool kFwd, int RH, int P, int C0, int NC>
__device__ __forceinline__ void vlift(typename L::T* s) {
  vstep<L, kFwd, 0, RH, P, C0, NC>(s);
  __syncthreads();
  vstep<L, kFwd, 1, RH, P, C0, NC>(s);
  __syncthreads();
  if constexpr (L::kSteps == 4) {
    vstep<L, kFwd, 2, RH, P, C0, NC>(s);
    __syncthreads();
    vstep<L, kFwd, 3, RH, P, C0, NC>(s);
    __syncthreads();
  }
}

template <class L, bool kFwd, int CW, int P, int R0, int NR>
__device__ __forceinline__ void hlift(typename L::T* s) {
  hstep<L, kFwd, 0, CW, P, R0, NR>(s);
  __syncthreads();
  hstep<L, kFwd, 1, CW, P, R0, NR>(s);
  __syncthreads();
  if constexpr (L::kSteps == 4) {
    hstep<L, kFwd, 2, CW, P, R0, NR>(s);
    __syncthreads();
    hstep<L, kFwd, 3, CW, P, R0, NR>(s);
    __syncthreads();
  }
}

// Lifting of a register column v[0..RH) (row 0 at an even coordinate); values within kHalo of
// either end are garbage afterwards.
template <class L, bool kFwd, int S, int RH>
__device__ __forceinline__ void vstep_reg(typename L::T (&v)[RH]) {
  constexpr bool odd = kFwd ? (S % 2 == 0) : (S % 2 == 1);
#pragma unroll
  for (int k = odd ? 1 : 2; k < RH - 1; k += 2) {
    if constexpr (kFwd)
      v[k] = L::template fwd<S>(v[k], v[k - 1], v[k + 1]);
    else
      v[k] = L::template inv<S>(v[k], v[k - 1], v[k + 1]);
  }
}
template <class L, bool kFwd, int RH>
__device__ __forceinline__ void vlift_reg(typename L::T (&v)[RH]) {
  vstep_reg<L, kFwd, 0>(v);
  vstep_reg<L, kFwd, 1>(v);
  if constexpr (L::kSteps == 4) {
    vstep_reg<L, kFwd, 2>(v);
    vstep_reg<L, kFwd, 3>(v);
  }
}

// 1-D lifting of a whole row s[0..w) in shared memory (w >= 2, absolute start x0), by a block
// of kThreads threads, with whole-sample symmetric extension at both ends (F.3.7): a missing
// neighbour is the other neighbour. Ends with a barrier.
template <class L, bool kFwd, int S, int kThreads>
__device__ __forceinline__ void row_step(typename L::T* s, int64_t x0, int64_t w) {
  constexpr bool odd = kFwd ? (S % 2 == 0) : (S % 2 == 1);
  const int64_t k0 = ((x0 & 1) != 0) == odd ? 0 : 1;  // first index of the step's parity
  for (int64_t k = k0 + 2 * int64_t{threadIdx.x}; k < w; k += 2 * kThreads) {
    const typename L::T l = k > 0 ? s[k - 1] : s[k + 1];
    const typename L::T r = k < w - 1 ? s[k + 1] : s[k - 1];
    if constexpr (kFwd)
      s[k] = L::template fwd<S>(s[k], l, r);
    else
      s[k] = L::template inv<S>(s[k], l, r);
  }
  __syncthreads();
}
template <class L, bool kFwd, int kThreads>
__device__ __forceinline__ void lift_row(typename L::T* s, int64_t x0, int64_t w) {
  row_step<L, kFwd, 0, kThreads>(s, x0, w);
  row_step<L, kFwd, 1, kThreads>(s, x0, w);
  if constexpr (L::kSteps == 4) {
    row_step<L, kFwd, 2, kThreads>(s, x0, w);
    row_step<L, kFwd, 3, kThreads>(s, x0, w);
  }
}

}  // namespace gj2k::transform::cuda::dev
