// In-place separable 2-D DWT level kernels after van der Laan et al.: a vertical pass over
// image-high column slabs with a sliding window, and a horizontal pass with a whole row in
// shared memory. Needs scratch for half of the rows only (not a second full-size buffer).
//
// Vertical pass (one thread per column, the window in registers, chunks of S rows top to
// bottom; a warp reads and writes 128-byte row segments):
//   forward: low rows go straight to their Mallat row (y/2 - ceil(y0/2)), which lies above
//     every row that a later window still reads; high rows go to scratch and are copied to
//     rows [hl, h) afterwards (host side).
//   inverse: the low rows were copied to scratch before (host side); high rows are read in
//     place: the rows a chunk writes never hold a high row that a later chunk needs, because
//     the last chunk is extended (by E = 2 kHalo + 6 rows) to take in every remaining row.
// Horizontal pass (one block per row, grid-stride): the row is read into shared memory, lifted
// there, and written back deinterleaved (forward) or interleaved (inverse).
// Forward = vertical then horizontal (2D_SD, F.3.2); inverse = horizontal then vertical.
#include <algorithm>

#include "transform/cuda/cuda_check.h"
#include "transform/cuda/dwt_kernels.h"
#include "transform/cuda/dwt_lift.cuh"

namespace gj2k::transform::cuda {
namespace {

constexpr int kS = 32;  // rows written per chunk of the vertical pass
constexpr int kColThreads =
    32;  // columns per block of the vertical pass (one warp: spread over SMs)
constexpr int kRowThreads = 256;  // threads per row of the horizontal pass

template <class L, bool kFwd, int S>
__device__ __forceinline__ void vertical_chunk(const LaanVertArgs<typename L::T>& a, int64_t xo,
                                               int64_t yb, int64_t write_end) {
  using T = typename L::T;
  constexpr int H = L::kHalo, RW = S + 2 * H;
  const int64_t y0 = a.y0, y1 = a.y1;
  const bool y_one = y1 - y0 == 1;
  const int64_t cy0 = (y0 + 1) >> 1, fy0 = y0 >> 1, hl = ((y1 + 1) >> 1) - cy0;
  T v[RW];
#pragma unroll
  for (int r = 0; r < RW; ++r) {
    const int64_t ay = dev::mirror(yb - H + r, y0, y1);
    if constexpr (kFwd) {
      const T x = a.data[static_cast<size_t>(ay - y0) * a.pitch + xo];
      v[r] = y_one && (y0 & 1) ? L::twice(x) : x;  // a 1-row signal's VER_SD (F.3.7)
    } else {
      const bool ylow = !(ay & 1);
      const T x = ylow ? a.tmp[static_cast<size_t>((ay >> 1) - cy0) * a.tmp_pitch + xo]
                       : a.data[static_cast<size_t>(hl + (ay >> 1) - fy0) * a.pitch + xo];
      v[r] = L::gain_inv(x, true, ylow, true, y_one);
    }
  }
  if (!y_one) {
    if constexpr (kFwd)
      dev::vlift_reg<L, true>(v);
    else
      dev::vlift_reg<L, false>(v);
  }
#pragma unroll
  for (int r = H; r < RW - H; ++r) {
    const int64_t ay = yb - H + r;
    if (ay < y0 || ay >= write_end) continue;
    if constexpr (kFwd) {
      const bool ylow = !(ay & 1);
      const T x = L::gain_fwd(v[r], true, ylow, true, y_one);
      if (ylow)
        a.data[static_cast<size_t>((ay >> 1) - cy0) * a.pitch + xo] = x;
      else
        a.tmp[static_cast<size_t>((ay >> 1) - fy0) * a.tmp_pitch + xo] = x;
    } else {
      a.data[static_cast<size_t>(ay - y0) * a.pitch + xo] =
          y_one && (y0 & 1) ? L::half(v[r]) : v[r];  // VER_SR of a 1-row signal (F.4.7)
    }
  }
}

template <class L, bool kFwd>
__global__ void __launch_bounds__(kColThreads)
    laan_vertical_kernel(const LaanVertArgs<typename L::T> a) {
  constexpr int E = 2 * L::kHalo + 6;
  const int64_t xo = int64_t{blockIdx.x} * kColThreads + threadIdx.x;
  if (xo >= int64_t{a.x1} - a.x0) return;
  const int64_t y1 = a.y1;
  for (int64_t yb = a.y0 & ~int64_t{1};; yb += kS) {
    if (yb + kS + E >= y1) {  // the last chunk takes every remaining row
      vertical_chunk<L, kFwd, kS + E>(a, xo, yb, y1);
      break;
    }
    vertical_chunk<L, kFwd, kS>(a, xo, yb, yb + kS);
  }
}

template <class L, bool kFwd>
__global__ void __launch_bounds__(kRowThreads) laan_row_kernel(const LaanRowArgs<typename L::T> a) {
  using T = typename L::T;
  extern __shared__ __align__(16) unsigned char smem[];
  T* s = reinterpret_cast<T*>(smem);
  const int64_t x0 = a.x0, x1 = a.x1, w = x1 - x0;
  const bool x_one = w == 1;
  const int64_t cx0 = (x0 + 1) >> 1, fx0 = x0 >> 1, wl = ((x1 + 1) >> 1) - cx0;
  for (int64_t row = blockIdx.x; row < a.rows; row += gridDim.x) {
    T* p = a.data + static_cast<size_t>(row) * a.pitch;
    for (int64_t k = threadIdx.x; k < w; k += kRowThreads) {
      if constexpr (kFwd) {
        s[k] = p[k];
      } else {  // interleave: absolute coordinate x0 + k
        const int64_t ax = x0 + k;
        const bool xlow = !(ax & 1);
        T v = p[xlow ? (ax >> 1) - cx0 : wl + (ax >> 1) - fx0];
        if (x_one && (x0 & 1)) v = L::half(v);  // HOR_SR of a 1-sample row (F.4.7)
        s[k] = L::gain_inv(v, xlow, true, x_one, true);
      }
    }
    __syncthreads();
    if (!x_one) dev::lift_row<L, kFwd, kRowThreads>(s, x0, w);
    for (int64_t k = threadIdx.x; k < w; k += kRowThreads) {
      if constexpr (kFwd) {
        const int64_t ax = x0 + k;
        const bool xlow = !(ax & 1);
        T v = L::gain_fwd(s[k], xlow, true, x_one, true);
        if (x_one && (x0 & 1)) v = L::twice(v);  // HOR_SD of a 1-sample row (F.3.7)
        p[xlow ? (ax >> 1) - cx0 : wl + (ax >> 1) - fx0] = v;
      } else {
        p[k] = s[k];
      }
    }
    __syncthreads();
  }
}

template <class L, bool kFwd>
void launch_vertical(const LaanVertArgs<typename L::T>& a, cudaStream_t st) {
  if (a.x1 <= a.x0 || a.y1 <= a.y0) return;
  const unsigned gx =
      static_cast<unsigned>((uint64_t{a.x1} - a.x0 + kColThreads - 1) / kColThreads);
  laan_vertical_kernel<L, kFwd><<<gx, kColThreads, 0, st>>>(a);
  GJ2K_CUDA_CHECK_LAUNCH("laan_vertical_kernel launch");
}

template <class L, bool kFwd>
void launch_rows(const LaanRowArgs<typename L::T>& a, cudaStream_t st) {
  if (a.x1 <= a.x0 || a.rows == 0) return;
  const size_t smem = size_t{a.x1 - a.x0} * sizeof(typename L::T);
  auto kernel = laan_row_kernel<L, kFwd>;
  if (smem > 48 * 1024)
    GJ2K_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         static_cast<int>(smem)));
  const unsigned grid = static_cast<unsigned>(std::min<uint64_t>(a.rows, 1u << 20));
  kernel<<<grid, kRowThreads, smem, st>>>(a);
  GJ2K_CUDA_CHECK_LAUNCH("laan_row_kernel launch");
}

}  // namespace

void launch_laan_vertical53(const LaanVertArgs<int32_t>& a, bool forward, cudaStream_t st) {
  forward ? launch_vertical<dev::Lift53, true>(a, st) : launch_vertical<dev::Lift53, false>(a, st);
}
void launch_laan_vertical97(const LaanVertArgs<float>& a, bool forward, cudaStream_t st) {
  forward ? launch_vertical<dev::Lift97, true>(a, st) : launch_vertical<dev::Lift97, false>(a, st);
}
void launch_laan_rows53(const LaanRowArgs<int32_t>& a, bool forward, cudaStream_t st) {
  forward ? launch_rows<dev::Lift53, true>(a, st) : launch_rows<dev::Lift53, false>(a, st);
}
void launch_laan_rows97(const LaanRowArgs<float>& a, bool forward, cudaStream_t st) {
  forward ? launch_rows<dev::Lift97, true>(a, st) : launch_rows<dev::Lift97, false>(a, st);
}

}  // namespace gj2k::transform::cuda
