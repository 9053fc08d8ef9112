// Block-based single-pass 2-D DWT level kernels (Kula et al., block-based 2-D lifting; the
// sliding halo of van der Laan et al. applied in both directions) and their launchers.
//
// A thread block owns a TW x TH tile of the level's input (forward) or output (inverse), tiles
// anchored at even absolute coordinates. It loads the tile plus a halo of L::kHalo samples on
// every side (mirrored at the resolution's borders, F.3.7), lifts vertically then horizontally
// (forward, 2D_SD F.3.2) or horizontally then vertically (inverse, 2D_SR F.4.2) in shared
// memory, and writes each result sample once. Every sample is read once and written once per
// level from device memory (halo re-reads hit L2).
#include <algorithm>

#include "transform/cuda/cuda_check.h"
#include "transform/cuda/dwt_kernels.h"
#include "transform/cuda/dwt_lift.cuh"

namespace gj2k::transform::cuda {
namespace {

using dev::kThreads;

// What both block kernels know of one level's resolution [x0, x1) x [y0, y1) (F.3.1, F.4:
// low-pass samples at even positions): single-sample axes and whether such an axis sits at
// an odd position (the 1-sample signal of F.3.7 / F.4.7), the first low and high index of each
// axis, the low-pass sizes, this block's first column and the tile rows of the level.
struct Geometry {
  int64_t x0, x1, y0, y1, cx0, fx0, cy0, fy0, wl, hl, xb, ybase, ntiles_y;
  bool x_one, y_one, x_odd, y_odd;
};

template <class Args>
__device__ Geometry geometry(const Args& a, int tw, int th) {
  Geometry g;
  g.x0 = a.x0, g.x1 = a.x1, g.y0 = a.y0, g.y1 = a.y1;
  g.x_one = g.x1 - g.x0 == 1, g.y_one = g.y1 - g.y0 == 1;
  g.x_odd = g.x_one && (g.x0 & 1), g.y_odd = g.y_one && (g.y0 & 1);
  g.cx0 = (g.x0 + 1) >> 1, g.fx0 = g.x0 >> 1, g.cy0 = (g.y0 + 1) >> 1, g.fy0 = g.y0 >> 1;
  g.wl = ((g.x1 + 1) >> 1) - g.cx0, g.hl = ((g.y1 + 1) >> 1) - g.cy0;
  g.xb = (g.x0 & ~int64_t{1}) + int64_t{blockIdx.x} * tw;
  g.ybase = g.y0 & ~int64_t{1};
  g.ntiles_y = (g.y1 - g.ybase + th - 1) / th;
  return g;
}

template <class L, int TW, int TH>
__global__ void __launch_bounds__(kThreads) block_fwd_kernel(const LevelFwdArgs<typename L::T> a) {
  using T = typename L::T;
  constexpr int H = L::kHalo, CW = TW + 2 * H, RH = TH + 2 * H, P = CW;
  __shared__ T s[RH * P];
  const Geometry g = geometry(a, TW, TH);
  const int64_t x0 = g.x0, x1 = g.x1, y0 = g.y0, y1 = g.y1, xb = g.xb, ybase = g.ybase;
  const bool x_one = g.x_one, y_one = g.y_one, x_twice = g.x_odd, y_twice = g.y_odd;
  const int64_t cx0 = g.cx0, fx0 = g.fx0, cy0 = g.cy0, fy0 = g.fy0, wl = g.wl, hl = g.hl;
  for (int64_t ty = blockIdx.y; ty < g.ntiles_y; ty += gridDim.y) {
    const int64_t yb = ybase + ty * TH;
    for (int i = threadIdx.x; i < RH * CW; i += kThreads) {
      const int r = i / CW, c = i % CW;
      const int64_t ay = dev::mirror(yb - H + r, y0, y1), ax = dev::mirror(xb - H + c, x0, x1);
      const T v = a.src[static_cast<size_t>(ay - y0) * a.src_pitch + (ax - x0)];
      s[r * P + c] = y_twice ? L::twice(v) : v;  // a 1-row signal's VER_SD (F.3.7)
    }
    __syncthreads();
    if (!y_one) dev::vlift<L, true, RH, P, 0, CW>(s);
    if (!x_one) dev::hlift<L, true, CW, P, H, TH>(s);
    // Store lows then highs of each tile row, so a warp writes contiguous runs.
    for (int i = threadIdx.x; i < TH * TW; i += kThreads) {
      const int r = H + i / TW, j = i % TW;
      const int c = H + (j < TW / 2 ? 2 * j : 2 * (j - TW / 2) + 1);
      const int64_t ay = yb + r - H, ax = xb + c - H;
      if (ay < y0 || ay >= y1 || ax < x0 || ax >= x1) continue;
      const bool xlow = !(ax & 1), ylow = !(ay & 1);
      T v = L::gain_fwd(s[r * P + c], xlow, ylow, x_one, y_one);
      if (x_twice) v = L::twice(v);
      const int64_t ox = xlow ? (ax >> 1) - cx0 : wl + (ax >> 1) - fx0;
      const int64_t oy = ylow ? (ay >> 1) - cy0 : hl + (ay >> 1) - fy0;
      if (xlow && ylow)
        a.ll[static_cast<size_t>(oy) * a.ll_pitch + ox] = v;
      else
        a.bands[static_cast<size_t>(oy) * a.bands_pitch + ox] = v;
    }
    __syncthreads();
  }
}

template <class L, int TW, int TH>
__global__ void __launch_bounds__(kThreads) block_inv_kernel(const LevelInvArgs<typename L::T> a) {
  using T = typename L::T;
  constexpr int H = L::kHalo, CW = TW + 2 * H, RH = TH + 2 * H, P = CW;
  __shared__ T s[RH * P];
  const Geometry g = geometry(a, TW, TH);
  const int64_t x0 = g.x0, x1 = g.x1, y0 = g.y0, y1 = g.y1, xb = g.xb, ybase = g.ybase;
  const bool x_one = g.x_one, y_one = g.y_one, x_half = g.x_odd, y_half = g.y_odd;
  const int64_t cx0 = g.cx0, fx0 = g.fx0, cy0 = g.cy0, fy0 = g.fy0, wl = g.wl, hl = g.hl;
  for (int64_t ty = blockIdx.y; ty < g.ntiles_y; ty += gridDim.y) {
    const int64_t yb = ybase + ty * TH;
    // Gather lows then highs of each window row (contiguous in the subbands).
    for (int i = threadIdx.x; i < RH * CW; i += kThreads) {
      const int r = i / CW, j = i % CW;
      const int c = j < CW / 2 ? 2 * j : 2 * (j - CW / 2) + 1;
      const int64_t ay = dev::mirror(yb - H + r, y0, y1), ax = dev::mirror(xb - H + c, x0, x1);
      const bool xlow = !(ax & 1), ylow = !(ay & 1);
      const int64_t ix = xlow ? (ax >> 1) - cx0 : wl + (ax >> 1) - fx0;
      const int64_t iy = ylow ? (ay >> 1) - cy0 : hl + (ay >> 1) - fy0;
      T v = xlow && ylow ? a.ll[static_cast<size_t>(iy) * a.ll_pitch + ix]
                         : a.bands[static_cast<size_t>(iy) * a.bands_pitch + ix];
      if (x_half) v = L::half(v);  // a 1-column signal's HOR_SR (F.4.7)
      s[r * P + c] = L::gain_inv(v, xlow, ylow, x_one, y_one);
    }
    __syncthreads();
    if (!x_one) dev::hlift<L, false, CW, P, 0, RH>(s);
    if (!y_one) dev::vlift<L, false, RH, P, H, TW>(s);
    for (int i = threadIdx.x; i < TH * TW; i += kThreads) {
      const int r = H + i / TW, c = H + i % TW;
      const int64_t ay = yb + r - H, ax = xb + c - H;
      if (ay < y0 || ay >= y1 || ax < x0 || ax >= x1) continue;
      const T v = s[r * P + c];
      a.dst[static_cast<size_t>(ay - y0) * a.dst_pitch + (ax - x0)] = y_half ? L::half(v) : v;
    }
    __syncthreads();
  }
}

dim3 block_grid(uint32_t x0, uint32_t y0, uint32_t x1, uint32_t y1, int tw, int th,
                int max_grid_y) {
  const uint64_t gx = (uint64_t{x1} - (x0 & ~1u) + tw - 1) / tw;
  const uint64_t gy = (uint64_t{y1} - (y0 & ~1u) + th - 1) / th;
  return dim3(static_cast<unsigned>(gx),
              static_cast<unsigned>(std::min<uint64_t>(gy, std::max(1, max_grid_y))));
}

template <class L, class Args>
void launch_fwd(const Args& a, BlockTile tile, int max_grid_y, cudaStream_t stream) {
  if (a.x1 <= a.x0 || a.y1 <= a.y0) return;
  if (tile == BlockTile::k128x16) {
    block_fwd_kernel<L, 128, 16>
        <<<block_grid(a.x0, a.y0, a.x1, a.y1, 128, 16, max_grid_y), kThreads, 0, stream>>>(a);
  } else {
    block_fwd_kernel<L, 64, 32>
        <<<block_grid(a.x0, a.y0, a.x1, a.y1, 64, 32, max_grid_y), kThreads, 0, stream>>>(a);
  }
  GJ2K_CUDA_CHECK_LAUNCH("block_fwd_kernel launch");
}

template <class L, class Args>
void launch_inv(const Args& a, BlockTile tile, int max_grid_y, cudaStream_t stream) {
  if (a.x1 <= a.x0 || a.y1 <= a.y0) return;
  if (tile == BlockTile::k128x16) {
    block_inv_kernel<L, 128, 16>
        <<<block_grid(a.x0, a.y0, a.x1, a.y1, 128, 16, max_grid_y), kThreads, 0, stream>>>(a);
  } else {
    block_inv_kernel<L, 64, 32>
        <<<block_grid(a.x0, a.y0, a.x1, a.y1, 64, 32, max_grid_y), kThreads, 0, stream>>>(a);
  }
  GJ2K_CUDA_CHECK_LAUNCH("block_inv_kernel launch");
}

}  // namespace

void launch_block_fwd53(const LevelFwdArgs<int32_t>& a, BlockTile tile, int max_grid_y,
                        cudaStream_t stream) {
  launch_fwd<dev::Lift53>(a, tile, max_grid_y, stream);
}
void launch_block_fwd97(const LevelFwdArgs<float>& a, BlockTile tile, int max_grid_y,
                        cudaStream_t stream) {
  launch_fwd<dev::Lift97>(a, tile, max_grid_y, stream);
}
void launch_block_inv53(const LevelInvArgs<int32_t>& a, BlockTile tile, int max_grid_y,
                        cudaStream_t stream) {
  launch_inv<dev::Lift53>(a, tile, max_grid_y, stream);
}
void launch_block_inv97(const LevelInvArgs<float>& a, BlockTile tile, int max_grid_y,
                        cudaStream_t stream) {
  launch_inv<dev::Lift97>(a, tile, max_grid_y, stream);
}

}  // namespace gj2k::transform::cuda
