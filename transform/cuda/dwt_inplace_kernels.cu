// In-place 1-D DWT passes over a unified buffer after Ikuzawa et al. ("Reducing memory usage by
// the lifting-based DWT with a unified buffer on a GPU"): the input buffer is also the output
// buffer, and the only extra device memory is the list of permutation seeds (fewer than
// ceil(n / 2b) numbers per line length, their Theorem 1).
//
// A forward pass over a line of n samples (absolute coordinates [a0, a1)):
//  1. Chunk generation (their Algorithm 1): every segment of 2b samples becomes
//     [its lows | its highs] (b each; parity from the absolute coordinate, F.3.2). The last,
//     partial segment of r < 2b samples becomes [rl lows | rh highs].
//  2. Chunk rearrangement (their Algorithm 2): the 2q chunks of the q full segments are
//     permuted so that the q low chunks precede the q high chunks. Slot i receives the chunk at
//     2i mod (2q - 1) (their Eq. 4); the permutation is a product of disjoint circular
//     permutations, one per thread block, each started from its representative element (seed,
//     precomputed on the host by their Algorithm 3). Every moved chunk is read once and
//     written once; chunks 0 and 2q - 1 never move.
//  3. Tail fix-up (our addition for n not a multiple of 2b, the paper assumes powers of two):
//     the rl tail lows are moved in front of the high chunks, which shift up by rl. One thread
//     block per line group walks the high chunks from the last to the first, so each piece is
//     read before the piece below it overwrites it.
//  4. Lifting (their Eqs. 1 and 2 on the block layout): every lifting step reads only samples
//     of the other parity, which now lie in the other half, so it runs in place with one
//     thread per updated sample and no hazard. Symmetric extension (F.3.7) maps a missing
//     neighbour to the other one.
//  5. 9/7 only: the K scaling of this direction, folded into the last two lifting steps.
// The inverse pass runs the same steps backwards (the rearrangement follows each cycle the
// other way: slot i receives the chunk at i / 2 mod (2q - 1)).
//
// Rows: the chunk kernels use one line per block (b threads); columns: 32 adjacent columns per
// block, so a warp reads 128-byte row segments ("a row of 32 neighbouring columns to a warp").
#include <algorithm>
#include <cstdint>

#include "transform/cuda/cuda_check.h"
#include "transform/cuda/dwt_kernels.h"
#include "transform/cuda/dwt_lift.cuh"

namespace gj2k::transform::cuda {
namespace {

constexpr int64_t kB = kInplaceChunk;
constexpr unsigned kMaxGridY = 65535;

// Geometry of one line (all lines of a pass share it).
struct LineGeom {
  int64_t a0, a1, n, q, r, p0, rl, nl, cx0, fx0;
  __host__ __device__ explicit LineGeom(uint32_t x0, uint32_t x1) {
    a0 = x0, a1 = x1, n = a1 - a0, q = n / (2 * kB), r = n - 2 * kB * q, p0 = a0 & 1;
    rl = p0 ? r / 2 : (r + 1) / 2;
    cx0 = (a0 + 1) >> 1, fx0 = a0 >> 1, nl = ((a1 + 1) >> 1) - cx0;
  }
};

template <class T>
__device__ __forceinline__ T* at(const InplaceArgs<T>& a, int64_t line, int64_t pos) {
  return a.data + static_cast<size_t>(line) * a.ls + static_cast<size_t>(pos) * a.es;
}

// Step 1 (forward) or its inverse: one segment of 2b samples x TL lines per block.
template <class T, bool kFwd, int TL, int NT>
__global__ void __launch_bounds__(NT) chunk_gen_kernel(const InplaceArgs<T> a) {
  __shared__ T s[2 * kB * TL];
  const LineGeom g(a.a0, a.a1);
  const int64_t s0 = int64_t{blockIdx.x} * 2 * kB;
  const int64_t len = g.n - s0 < 2 * kB ? g.n - s0 : 2 * kB;
  const int64_t sl = g.p0 ? len / 2 : (len + 1) / 2;  // lows in this segment
  for (int64_t lb = int64_t{blockIdx.y} * TL; lb < a.nlines; lb += int64_t{gridDim.y} * TL) {
    for (int64_t i = threadIdx.x; i < len * TL; i += NT) {
      const int64_t l = i % TL, k = i / TL;
      if (lb + l < a.nlines) s[k * TL + l] = *at(a, lb + l, s0 + k);
    }
    __syncthreads();
    for (int64_t i = threadIdx.x; i < len * TL; i += NT) {
      const int64_t l = i % TL, k = i / TL;
      if (lb + l >= a.nlines) continue;
      if constexpr (kFwd) {  // output position k <- interleaved index src
        const int64_t src = k < sl ? 2 * k + g.p0 : 2 * (k - sl) + (1 - g.p0);
        *at(a, lb + l, s0 + k) = s[src * TL + l];
      } else {  // interleaved index k <- its place in [lows | highs]
        const bool low = ((k + g.p0) & 1) == 0;
        const int64_t src = low ? k >> 1 : sl + (k >> 1);
        *at(a, lb + l, s0 + k) = s[src * TL + l];
      }
    }
    __syncthreads();
  }
}

// Step 2 (Algorithm 2): one circular permutation (seed) x TL lines per block; each thread
// moves the same E elements of every chunk of the cycle, so no barrier is needed.
template <class T, bool kFwd, int TL, int NT>
__global__ void __launch_bounds__(NT) chunk_perm_kernel(const InplaceArgs<T> a) {
  constexpr int E = static_cast<int>(kB) * TL / NT;
  const LineGeom g(a.a0, a.a1);
  const int64_t m = 2 * g.q - 1;
  const int64_t seed = a.seeds[blockIdx.x];
  auto next = [&](int64_t i) {
    if constexpr (kFwd)
      return (2 * i) % m;
    else
      return (i & 1) ? (i + m) / 2 : i / 2;
  };
  for (int64_t lb = int64_t{blockIdx.y} * TL; lb < a.nlines; lb += int64_t{gridDim.y} * TL) {
    T w[E];
#pragma unroll
    for (int e = 0; e < E; ++e) {
      const int64_t f = threadIdx.x + e * NT, l = f % TL, k = f / TL;
      if (lb + l < a.nlines) w[e] = *at(a, lb + l, seed * kB + k);
    }
    int64_t i = seed;
    for (int64_t nx = next(i); nx != seed; i = nx, nx = next(i)) {
#pragma unroll
      for (int e = 0; e < E; ++e) {
        const int64_t f = threadIdx.x + e * NT, l = f % TL, k = f / TL;
        if (lb + l < a.nlines) *at(a, lb + l, i * kB + k) = *at(a, lb + l, nx * kB + k);
      }
    }
#pragma unroll
    for (int e = 0; e < E; ++e) {
      const int64_t f = threadIdx.x + e * NT, l = f % TL, k = f / TL;
      if (lb + l < a.nlines) *at(a, lb + l, i * kB + k) = w[e];
    }
  }
}

// Step 3: [L chunks | H chunks | rl tail lows | tail highs] <-> [L | tail lows | H | tail highs].
template <class T, bool kFwd, int TL, int NT>
__global__ void __launch_bounds__(NT) tail_fix_kernel(const InplaceArgs<T> a) {
  constexpr int E = static_cast<int>(kB) * TL / NT;
  const LineGeom g(a.a0, a.a1);
  const int64_t qb = g.q * kB, rl = g.rl;
  const int64_t from = kFwd ? 2 * qb : qb, to = kFwd ? qb : 2 * qb;  // the tail lows
  for (int64_t lb = int64_t{blockIdx.y} * TL; lb < a.nlines; lb += int64_t{gridDim.y} * TL) {
    T tail[E], v[E];
#pragma unroll
    for (int e = 0; e < E; ++e) {
      const int64_t f = threadIdx.x + e * NT, l = f % TL, k = f / TL;
      if (lb + l < a.nlines && k < rl) tail[e] = *at(a, lb + l, from + k);
    }
    __syncthreads();
    for (int64_t c = 0; c < g.q; ++c) {
      // Forward shifts the high chunks up by rl, last chunk first; inverse down, first first.
      const int64_t piece = qb + (kFwd ? g.q - 1 - c : c) * kB;
      const int64_t src = kFwd ? piece : piece + rl, dst = kFwd ? piece + rl : piece;
#pragma unroll
      for (int e = 0; e < E; ++e) {
        const int64_t f = threadIdx.x + e * NT, l = f % TL, k = f / TL;
        if (lb + l < a.nlines) v[e] = *at(a, lb + l, src + k);
      }
      __syncthreads();
#pragma unroll
      for (int e = 0; e < E; ++e) {
        const int64_t f = threadIdx.x + e * NT, l = f % TL, k = f / TL;
        if (lb + l < a.nlines) *at(a, lb + l, dst + k) = v[e];
      }
      __syncthreads();
    }
#pragma unroll
    for (int e = 0; e < E; ++e) {
      const int64_t f = threadIdx.x + e * NT, l = f % TL, k = f / TL;
      if (lb + l < a.nlines && k < rl) *at(a, lb + l, to + k) = tail[e];
    }
    __syncthreads();
  }
}

// Runs f(line, j) over nlines x count without divisions: rows with j along threadIdx.x
// (contiguous), columns with 32 lines along the warp (128-byte row segments).
template <bool kCols, class F>
__device__ __forceinline__ void for_each_2d(int64_t nlines, int64_t count, F f) {
  if constexpr (kCols) {
    const int64_t line = int64_t{blockIdx.x} * 32 + threadIdx.x % 32;
    if (line >= nlines) return;
    for (int64_t j = int64_t{blockIdx.y} * 8 + threadIdx.x / 32; j < count;
         j += int64_t{gridDim.y} * 8)
      f(line, j);
  } else {
    for (int64_t line = blockIdx.y; line < nlines; line += gridDim.y)
      for (int64_t j = int64_t{blockIdx.x} * 256 + threadIdx.x; j < count;
           j += int64_t{gridDim.x} * 256)
        f(line, j);
  }
}
dim3 grid_2d(bool cols, int64_t nlines, int64_t count) {
  auto cap = [](int64_t v, int64_t hi) {
    return static_cast<unsigned>(std::clamp<int64_t>(v, 1, hi));
  };
  if (cols) return dim3(cap((nlines + 31) / 32, INT32_MAX), cap((count + 7) / 8, kMaxGridY));
  return dim3(cap((count + 255) / 256, INT32_MAX), cap(nlines, kMaxGridY));
}

template <class L>
__host__ __device__ constexpr float gain_k() {
  if constexpr (L::kSteps == 4)
    return L::kK;
  else
    return 1.0f;
}

// Step 4: lifting step S in the block layout, one thread per updated sample. 9/7 (step 5
// folded in, saving a pass): the updated sample is the step applied to (pre * own value,
// nb * neighbours), times post. Forward: step 2 writes its highs times K, step 3 reads them
// with nb = 1/K and writes its lows times 1/K. Inverse: step 0 takes its lows times K and the
// highs times 1/K, step 1 its own highs times 1/K. Each kernel scales only samples it writes,
// so the steps stay hazard-free. Only float rounding changes (lifting is linear).
template <class L, bool kFwd, int S, bool kCols>
__global__ void __launch_bounds__(256) lift_step_kernel(const InplaceArgs<typename L::T> a) {
  using T = typename L::T;
  const LineGeom g(a.a0, a.a1);
  constexpr bool upd_odd = kFwd ? (S % 2 == 0) : (S % 2 == 1);
  constexpr bool k97 = L::kSteps == 4;
  constexpr float k = gain_k<L>(), ik = 1.0f / k;  // 1 for 5/3
  constexpr float pre = kFwd ? 1.0f : S == 0 ? k : S == 1 ? ik : 1.0f;
  constexpr float nb = (kFwd ? S == 3 : S == 0) ? ik : 1.0f;
  constexpr float post = !kFwd ? 1.0f : S == 2 ? k : S == 3 ? ik : 1.0f;
  const int64_t count = upd_odd ? g.n - g.nl : g.nl;
  for_each_2d<kCols>(a.nlines, count, [&](int64_t line, int64_t j) {
    auto place = [&](int64_t ax) {
      return (ax & 1) ? g.nl + (ax >> 1) - g.fx0 : (ax >> 1) - g.cx0;
    };
    const int64_t ax = upd_odd ? 2 * (g.fx0 + j) + 1 : 2 * (g.cx0 + j);
    int64_t lx = ax - 1, rx = ax + 1;
    if (lx < g.a0) lx = rx;
    if (rx >= g.a1) rx = lx;
    T* p = at(a, line, upd_odd ? g.nl + j : j);
    T c = *p, l = *at(a, line, place(lx)), r = *at(a, line, place(rx));
    if constexpr (k97) {
      if constexpr (pre != 1.0f) c *= pre;
      if constexpr (nb != 1.0f) l *= nb, r *= nb;
    }
    T v;
    if constexpr (kFwd)
      v = L::template fwd<S>(c, l, r);
    else
      v = L::template inv<S>(c, l, r);
    if constexpr (k97 && post != 1.0f) v *= post;
    *p = v;
  });
}

// Step 5 and 1-sample lines: K scaling (9/7, n >= 2) or the odd-coordinate 1-sample rule
// (F.3.7 / F.4.7), in the block layout.
template <class L, bool kFwd, bool kCols>
__global__ void __launch_bounds__(256) pointwise_kernel(const InplaceArgs<typename L::T> a) {
  const LineGeom g(a.a0, a.a1);
  const bool one = g.n == 1;
  for_each_2d<kCols>(a.nlines, g.n, [&](int64_t line, int64_t j) {
    typename L::T* p = at(a, line, j);
    const bool low = j < g.nl;
    if (one)
      *p = kFwd ? L::twice(*p) : L::half(*p);
    else
      *p = kFwd ? L::gain_fwd(*p, low, true, false, true) : L::gain_inv(*p, low, true, false, true);
  });
}

template <class L, bool kFwd, int S, bool kCols>
void lift_step(const InplaceArgs<typename L::T>& a, const LineGeom& g, cudaStream_t st) {
  lift_step_kernel<L, kFwd, S, kCols><<<grid_2d(kCols, a.nlines, (g.n + 1) / 2), 256, 0, st>>>(a);
  GJ2K_CUDA_CHECK_LAUNCH("inplace lift_step_kernel launch");
}

template <class L, bool kFwd, bool kCols>
void lift_all(const InplaceArgs<typename L::T>& a, const LineGeom& g, cudaStream_t st) {
  lift_step<L, kFwd, 0, kCols>(a, g, st);
  lift_step<L, kFwd, 1, kCols>(a, g, st);
  if constexpr (L::kSteps == 4) {
    lift_step<L, kFwd, 2, kCols>(a, g, st);
    lift_step<L, kFwd, 3, kCols>(a, g, st);
  }
}

template <class L, bool kFwd, bool kCols>
void pointwise(const InplaceArgs<typename L::T>& a, const LineGeom& g, cudaStream_t st) {
  pointwise_kernel<L, kFwd, kCols><<<grid_2d(kCols, a.nlines, g.n), 256, 0, st>>>(a);
  GJ2K_CUDA_CHECK_LAUNCH("inplace pointwise_kernel launch");
}

template <class L, bool kFwd, bool kCols>
void pass(const InplaceArgs<typename L::T>& a, cudaStream_t st) {
  using T = typename L::T;
  constexpr int TL = kCols ? 32 : 1, NT = kCols ? 256 : static_cast<int>(kB);
  const LineGeom g(a.a0, a.a1);
  if (g.n <= 0 || a.nlines == 0) return;
  if (g.n == 1) {
    if (g.p0) pointwise<L, kFwd, kCols>(a, g, st);
    return;
  }
  const unsigned gy =
      static_cast<unsigned>(std::min<uint64_t>((uint64_t{a.nlines} + TL - 1) / TL, kMaxGridY));
  const unsigned segs = static_cast<unsigned>(g.q + (g.r > 0 ? 1 : 0));
  const bool perm = g.q >= 2 && a.nseeds > 0, fix = g.q >= 1 && g.rl > 0;
  if constexpr (kFwd) {
    chunk_gen_kernel<T, true, TL, NT><<<dim3(segs, gy), NT, 0, st>>>(a);
    GJ2K_CUDA_CHECK_LAUNCH("inplace chunk_gen_kernel launch");
    if (perm) {
      chunk_perm_kernel<T, true, TL, NT><<<dim3(a.nseeds, gy), NT, 0, st>>>(a);
      GJ2K_CUDA_CHECK_LAUNCH("inplace chunk_perm_kernel launch");
    }
    if (fix) {
      tail_fix_kernel<T, true, TL, NT><<<dim3(1, gy), NT, 0, st>>>(a);
      GJ2K_CUDA_CHECK_LAUNCH("inplace tail_fix_kernel launch");
    }
    lift_all<L, true, kCols>(a, g, st);
  } else {
    lift_all<L, false, kCols>(a, g, st);
    if (fix) {
      tail_fix_kernel<T, false, TL, NT><<<dim3(1, gy), NT, 0, st>>>(a);
      GJ2K_CUDA_CHECK_LAUNCH("inplace tail_fix_kernel launch");
    }
    if (perm) {
      chunk_perm_kernel<T, false, TL, NT><<<dim3(a.nseeds, gy), NT, 0, st>>>(a);
      GJ2K_CUDA_CHECK_LAUNCH("inplace chunk_perm_kernel launch");
    }
    chunk_gen_kernel<T, false, TL, NT><<<dim3(segs, gy), NT, 0, st>>>(a);
    GJ2K_CUDA_CHECK_LAUNCH("inplace chunk_gen_kernel launch");
  }
}

template <class L>
void dispatch(const InplaceArgs<typename L::T>& a, bool columns, bool forward, cudaStream_t st) {
  if (columns)
    forward ? pass<L, true, true>(a, st) : pass<L, false, true>(a, st);
  else
    forward ? pass<L, true, false>(a, st) : pass<L, false, false>(a, st);
}

}  // namespace

void launch_inplace53(const InplaceArgs<int32_t>& a, bool columns, bool forward,
                      cudaStream_t stream) {
  dispatch<dev::Lift53>(a, columns, forward, stream);
}
void launch_inplace97(const InplaceArgs<float>& a, bool columns, bool forward,
                      cudaStream_t stream) {
  dispatch<dev::Lift97>(a, columns, forward, stream);
}

}  // namespace gj2k::transform::cuda
