// Fused single-pass 2-D DWT level kernels: register columns + warp-shuffle rows.
//
// The block-based single pass of Kula et al., with van der Laan et al.'s observation that the
// vertical pass should keep a whole column window per thread: a block of 128 threads owns a
// window 128 columns wide (a TW = 128 - 2 L::kHalo tile plus its halo) and TH + 2 kHalo rows.
//   forward (2D_SD, F.3.2): each thread loads its window column into registers (coalesced
//     across the block), lifts it vertically there, and parks the TH central rows in shared
//     memory; then each warp takes whole rows, 4 samples per lane (one 16-byte shared load),
//     lifts them horizontally with one warp shuffle per step, and writes the four subbands.
//   inverse (2D_SR, F.4.2): warps gather window rows from the subbands, lift horizontally with
//     shuffles and park all rows in shared memory; each thread then lifts its column in
//     registers and writes the TH central samples.
// Window positions start at an even absolute coordinate, so parity is known at compile time
// (except that a 1-sample signal mirrors every position onto its one sample);
// values within kHalo of a window edge are garbage and never stored.
#include <algorithm>

#include "transform/cuda/cuda_check.h"
#include "transform/cuda/dwt_kernels.h"
#include "transform/cuda/dwt_lift.cuh"

namespace gj2k::transform::cuda {
namespace {

constexpr int kCols = 128;  // window columns = threads per block
constexpr unsigned kFull = 0xffffffffu;

template <class T>
struct Vec4;
template <>
struct Vec4<int32_t> {
  using type = int4;
  using pair = int2;
};
template <>
struct Vec4<float> {
  using type = float4;
  using pair = float2;
};

// Horizontal lifting of a 128-sample window row held as 4 consecutive samples per lane.
template <class L, bool kFwd, int S>
__device__ __forceinline__ void hstep_shfl(typename L::T (&e)[4]) {
  using T = typename L::T;
  constexpr bool odd = kFwd ? (S % 2 == 0) : (S % 2 == 1);
  auto op = [](T c, T l, T r) {
    if constexpr (kFwd)
      return L::template fwd<S>(c, l, r);
    else
      return L::template inv<S>(c, l, r);
  };
  if constexpr (odd) {
    const T next0 = __shfl_down_sync(kFull, e[0], 1);
    e[1] = op(e[1], e[0], e[2]);
    e[3] = op(e[3], e[2], next0);
  } else {
    const T prev3 = __shfl_up_sync(kFull, e[3], 1);
    e[0] = op(e[0], prev3, e[1]);
    e[2] = op(e[2], e[1], e[3]);
  }
}
template <class L, bool kFwd>
__device__ __forceinline__ void hlift_shfl(typename L::T (&e)[4]) {
  hstep_shfl<L, kFwd, 0>(e);
  hstep_shfl<L, kFwd, 1>(e);
  if constexpr (L::kSteps == 4) {
    hstep_shfl<L, kFwd, 2>(e);
    hstep_shfl<L, kFwd, 3>(e);
  }
}

// Hot kernel, one function on purpose (as fused_inv_kernel).
template <class L, int TH>
__global__ void __launch_bounds__(kCols) fused_fwd_kernel(const LevelFwdArgs<typename L::T> a) {
  using T = typename L::T;
  using V = typename Vec4<T>::type;
  constexpr int H = L::kHalo, TW = kCols - 2 * H, RH = TH + 2 * H;
  __shared__ __align__(16) T s[TH][kCols];
  const int64_t x0 = a.x0, x1 = a.x1, y0 = a.y0, y1 = a.y1;
  const bool x_one = x1 - x0 == 1, y_one = y1 - y0 == 1;
  const bool x_twice = x_one && (x0 & 1), y_twice = y_one && (y0 & 1);
  const int64_t cx0 = (x0 + 1) >> 1, fx0 = x0 >> 1, cy0 = (y0 + 1) >> 1, fy0 = y0 >> 1;
  const int64_t wl = ((x1 + 1) >> 1) - cx0, hl = ((y1 + 1) >> 1) - cy0;
  const int64_t xb = (x0 & ~int64_t{1}) + int64_t{blockIdx.x} * TW;
  const int64_t ybase = y0 & ~int64_t{1};
  const int64_t ntiles_y = (y1 - ybase + TH - 1) / TH;
  const int c = threadIdx.x, lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const T* col = a.src + (dev::mirror(xb - H + c, x0, x1) - x0);
  // This lane's outputs: window columns 4 lane + j; lows (j even) go to consecutive columns
  // lo_col, lo_col + 1 of LL/LH, highs to hi_col, hi_col + 1 of HL/HH.
  const int64_t hb = (xb - H) >> 1;  // xb - H is even
  const int64_t lo_col = hb + 2 * lane - cx0, hi_col = wl + hb + 2 * lane - fx0;
  bool ok[4];
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    const int k = 4 * lane + j;
    const int64_t ax = xb - H + k;
    ok[j] = k >= H && k < H + TW && ax >= x0 && ax < x1;
  }
  const bool all_ok = ok[0] && ok[1] && ok[2] && ok[3];
  for (int64_t ty = blockIdx.y; ty < ntiles_y; ty += gridDim.y) {
    const int64_t yb = ybase + ty * TH;
    const bool y_inside = yb - H >= y0 && yb + TH + H <= y1;
    T v[RH];
    if (y_inside) {
      const T* p = col + static_cast<size_t>(yb - H - y0) * a.src_pitch;
#pragma unroll
      for (int r = 0; r < RH; ++r) v[r] = p[r * a.src_pitch];
    } else {
#pragma unroll
      for (int r = 0; r < RH; ++r)
        v[r] = col[static_cast<size_t>(dev::mirror(yb - H + r, y0, y1) - y0) * a.src_pitch];
    }
    if (!y_one) {
      dev::vlift_reg<L, true>(v);
      // VER_SD's K scaling before the rows are lifted, as the CPU's vertical pass does (row r
      // has the parity of yb - H + r, with yb and H even).
#pragma unroll
      for (int r = 0; r < RH; ++r) v[r] = L::gain1_fwd(v[r], (r & 1) == 0);
    } else if (y_twice) {  // a 1-row signal's VER_SD (F.3.7)
#pragma unroll
      for (int r = 0; r < RH; ++r) v[r] = L::twice(v[r]);
    }
#pragma unroll
    for (int r = 0; r < TH; ++r) s[r][c] = v[r + H];
    __syncthreads();
#pragma unroll
    for (int i = 0; i < TH / 4; ++i) {
      const int r = warp + 4 * i;
      const int64_t ay = yb + r;
      const V q = *reinterpret_cast<const V*>(&s[r][4 * lane]);
      T e[4] = {q.x, q.y, q.z, q.w};
      if (!x_one) hlift_shfl<L, true>(e);
      if (ay < y0 || ay >= y1) continue;
      const bool ylow = !(ay & 1);
      const int64_t oy = ylow ? (ay >> 1) - cy0 : hl + (ay >> 1) - fy0;
      T* brow = a.bands + static_cast<size_t>(oy) * a.bands_pitch;
      T* lo = (ylow ? a.ll + static_cast<size_t>(oy) * a.ll_pitch : brow) + lo_col;
      T* hi = brow + hi_col;
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        if (!x_one) e[j] = L::gain1_fwd(e[j], (j & 1) == 0);
        if (x_twice) e[j] = L::twice(e[j]);
      }
      using P = typename Vec4<T>::pair;
      if (all_ok &&
          ((reinterpret_cast<uintptr_t>(lo) | reinterpret_cast<uintptr_t>(hi)) & 7) == 0) {
        *reinterpret_cast<P*>(lo) = P{e[0], e[2]};
        *reinterpret_cast<P*>(hi) = P{e[1], e[3]};
      } else {
#pragma unroll
        for (int j = 0; j < 4; ++j) {
          if (ok[j]) ((j & 1) == 0 ? lo : hi)[j >> 1] = e[j];
        }
      }
    }
    __syncthreads();
  }
}

// Hot kernel, one function on purpose: the column window stays in registers from the loads
// through both lifting directions to the stores, which device-function boundaries would break.
template <class L, int TH>
__global__ void __launch_bounds__(kCols) fused_inv_kernel(const LevelInvArgs<typename L::T> a) {
  using T = typename L::T;
  using V = typename Vec4<T>::type;
  constexpr int H = L::kHalo, TW = kCols - 2 * H, RH = TH + 2 * H;
  static_assert(RH % 4 == 0, "rows are shared by 4 warps");
  __shared__ __align__(16) T s[RH][kCols];
  const int64_t x0 = a.x0, x1 = a.x1, y0 = a.y0, y1 = a.y1;
  const bool x_one = x1 - x0 == 1, y_one = y1 - y0 == 1;
  const bool x_half = x_one && (x0 & 1), y_half = y_one && (y0 & 1);
  const int64_t cx0 = (x0 + 1) >> 1, fx0 = x0 >> 1, cy0 = (y0 + 1) >> 1, fy0 = y0 >> 1;
  const int64_t wl = ((x1 + 1) >> 1) - cx0, hl = ((y1 + 1) >> 1) - cy0;
  const int64_t xb = (x0 & ~int64_t{1}) + int64_t{blockIdx.x} * TW;
  const int64_t ybase = y0 & ~int64_t{1};
  const int64_t ntiles_y = (y1 - ybase + TH - 1) / TH;
  const int c = threadIdx.x, lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  // This lane's 4 window columns: where each sits in the subbands (mirroring keeps parity).
  // (A 1-sample signal maps every position to x0, whatever the position's parity.)
  int64_t ix[4];
  bool xl[4];
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    const int64_t ax = dev::mirror(xb - H + 4 * lane + j, x0, x1);
    xl[j] = !(ax & 1);
    ix[j] = xl[j] ? (ax >> 1) - cx0 : wl + (ax >> 1) - fx0;
  }
  // Unmirrored lanes read lows (ix[0], ix[0] + 1) and highs (ix[1], ix[1] + 1) as pairs.
  const bool pairs = xl[0] && !xl[1] && xl[2] && !xl[3] && ix[2] == ix[0] + 1 && ix[3] == ix[1] + 1;
  for (int64_t ty = blockIdx.y; ty < ntiles_y; ty += gridDim.y) {
    const int64_t yb = ybase + ty * TH;
    const bool y_inside = yb - H >= y0 && yb + TH + H <= y1;
    // All of this warp's window rows are loaded before any is lifted, so that the loads are
    // in flight together (the shuffles would otherwise serialise them row by row).
    constexpr int kRows = RH / 4;
    T e[kRows][4];
    bool ylow[kRows];
#pragma unroll
    for (int i = 0; i < kRows; ++i) {
      const int r = warp + 4 * i;
      const int64_t ay = y_inside ? yb - H + r : dev::mirror(yb - H + r, y0, y1);
      ylow[i] = !(ay & 1);
      const int64_t iy = ylow[i] ? (ay >> 1) - cy0 : hl + (ay >> 1) - fy0;
      const T* brow = a.bands + static_cast<size_t>(iy) * a.bands_pitch;
      const T* lrow = ylow[i] ? a.ll + static_cast<size_t>(iy) * a.ll_pitch : brow;
      using P = typename Vec4<T>::pair;
      const T* lo = lrow + ix[0];
      const T* hi = brow + ix[1];
      if (pairs && ((reinterpret_cast<uintptr_t>(lo) | reinterpret_cast<uintptr_t>(hi)) & 7) == 0) {
        const P l2 = *reinterpret_cast<const P*>(lo), h2 = *reinterpret_cast<const P*>(hi);
        e[i][0] = l2.x, e[i][1] = h2.x, e[i][2] = l2.y, e[i][3] = h2.y;
      } else {
#pragma unroll
        for (int j = 0; j < 4; ++j) e[i][j] = (xl[j] ? lrow : brow)[ix[j]];
      }
    }
#pragma unroll
    for (int i = 0; i < kRows; ++i) {
      const int r = warp + 4 * i;
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        if (x_half) e[i][j] = L::half(e[i][j]);  // a 1-column signal's HOR_SR (F.4.7)
        if (!x_one) e[i][j] = L::gain1_inv(e[i][j], xl[j]);
      }
      if (!x_one) hlift_shfl<L, false>(e[i]);
      *reinterpret_cast<V*>(&s[r][4 * lane]) = V{e[i][0], e[i][1], e[i][2], e[i][3]};
    }
    __syncthreads();
    T v[RH];
#pragma unroll
    for (int r = 0; r < RH; ++r) v[r] = s[r][c];
    if (!y_one) {
      // VER_SR's K scaling, then its lifting (the CPU's vertical pass; row parity as above).
#pragma unroll
      for (int r = 0; r < RH; ++r) v[r] = L::gain1_inv(v[r], (r & 1) == 0);
      dev::vlift_reg<L, false>(v);
    }
    const int64_t ax = xb - H + c;
    if (c >= H && c < H + TW && ax >= x0 && ax < x1) {
      T* out = a.dst + (ax - x0);
      if (yb >= y0 && yb + TH <= y1) {
        T* p = out + static_cast<size_t>(yb - y0) * a.dst_pitch;
#pragma unroll
        for (int r = 0; r < TH; ++r) p[r * a.dst_pitch] = v[r + H];
      } else {
#pragma unroll
        for (int r = 0; r < TH; ++r) {
          const int64_t ay = yb + r;
          if (ay < y0 || ay >= y1) continue;
          const T val = v[r + H];
          out[static_cast<size_t>(ay - y0) * a.dst_pitch] = y_half ? L::half(val) : val;
        }
      }
    }
    __syncthreads();
  }
}

template <class L>
dim3 fused_grid(uint32_t x0, uint32_t y0, uint32_t x1, uint32_t y1, int th, int max_grid_y) {
  constexpr int tw = kCols - 2 * L::kHalo;
  const uint64_t gx = (uint64_t{x1} - (x0 & ~1u) + tw - 1) / tw;
  const uint64_t gy = (uint64_t{y1} - (y0 & ~1u) + th - 1) / th;
  return dim3(static_cast<unsigned>(gx),
              static_cast<unsigned>(std::min<uint64_t>(gy, std::max(1, max_grid_y))));
}

template <class L, class A>
void fwd(const A& a, FusedRows rows, int max_grid_y, cudaStream_t st) {
  if (a.x1 <= a.x0 || a.y1 <= a.y0) return;
  if (rows == FusedRows::k16) {
    fused_fwd_kernel<L, 16>
        <<<fused_grid<L>(a.x0, a.y0, a.x1, a.y1, 16, max_grid_y), kCols, 0, st>>>(a);
  } else {
    fused_fwd_kernel<L, 32>
        <<<fused_grid<L>(a.x0, a.y0, a.x1, a.y1, 32, max_grid_y), kCols, 0, st>>>(a);
  }
  GJ2K_CUDA_CHECK_LAUNCH("fused_fwd_kernel launch");
}
template <class L, class A>
void inv(const A& a, FusedRows rows, int max_grid_y, cudaStream_t st) {
  if (a.x1 <= a.x0 || a.y1 <= a.y0) return;
  if (rows == FusedRows::k16) {
    fused_inv_kernel<L, 16>
        <<<fused_grid<L>(a.x0, a.y0, a.x1, a.y1, 16, max_grid_y), kCols, 0, st>>>(a);
  } else {
    fused_inv_kernel<L, 32>
        <<<fused_grid<L>(a.x0, a.y0, a.x1, a.y1, 32, max_grid_y), kCols, 0, st>>>(a);
  }
  GJ2K_CUDA_CHECK_LAUNCH("fused_inv_kernel launch");
}

}  // namespace

void launch_fused_fwd53(const LevelFwdArgs<int32_t>& a, FusedRows rows, int max_grid_y,
                        cudaStream_t stream) {
  fwd<dev::Lift53>(a, rows, max_grid_y, stream);
}
void launch_fused_fwd97(const LevelFwdArgs<float>& a, FusedRows rows, int max_grid_y,
                        cudaStream_t stream) {
  fwd<dev::Lift97>(a, rows, max_grid_y, stream);
}
void launch_fused_inv53(const LevelInvArgs<int32_t>& a, FusedRows rows, int max_grid_y,
                        cudaStream_t stream) {
  inv<dev::Lift53>(a, rows, max_grid_y, stream);
}
void launch_fused_inv97(const LevelInvArgs<float>& a, FusedRows rows, int max_grid_y,
                        cudaStream_t stream) {
  inv<dev::Lift97>(a, rows, max_grid_y, stream);
}

}  // namespace gj2k::transform::cuda
