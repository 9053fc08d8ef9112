// Single-kernel lattice 1-D DWT passes after Puchala and Stokfiszewski ("lattice structure
// ... one call of the kernel function", shared memory and registers for the inter-stage
// communication).
//
// The lattice of a lifting factorisation: every thread owns one butterfly, the pair
// (x[2P], x[2P + 1]) of absolute coordinates (even = low-pass, odd = high-pass, 15444-1
// F.3.2), held in registers through all stages. Stage S updates one member of every pair from
// the neighbouring pair's other member (the lattice's shift between stages), which the
// neighbour publishes in shared memory; one barrier pair per stage, no global
// synchronisation. Blocks are the paper's trapezoids (its Fig. 4): NP pairs are loaded, each
// stage leaves one more pair at either edge inexact, so a block writes the NP - 2 HP inner
// pairs (HP = L::kHalo / 2: 1 for 5/3, 2 for 9/7) and neighbouring blocks overlap by 2 HP pairs
// (the paper's K = M - 2 overlap). The boundary is JPEG 2000's whole-sample symmetric extension
// (F.3.7), applied when the pairs are loaded (the paper's periodic extension does not apply).
//
// One kernel per 1-D pass: rows (one line per block row, 256 pairs along it) or columns (32
// adjacent columns x 32 pairs per block, so a warp reads 128-byte row segments). The pass is
// out of place: interleaved samples on one side, the deinterleaved line (lows [0, nl), highs
// [nl, n)) on the other.
#include <algorithm>

#include "transform/cuda/cuda_check.h"
#include "transform/cuda/dwt_kernels.h"
#include "transform/cuda/dwt_lift.cuh"

namespace gj2k::transform::cuda {
namespace {

template <class L, bool kFwd, int TL, int NP>
__global__ void __launch_bounds__(TL* NP) lattice_kernel(const LatticeArgs<typename L::T> a) {
  using T = typename L::T;
  constexpr int HP = L::kHalo / 2;
  __shared__ T sh[NP * TL];
  const int lane = static_cast<int>(threadIdx.x) % TL, pi = static_cast<int>(threadIdx.x) / TL;
  const int64_t a0 = a.a0, a1 = a.a1;
  const bool one = a1 - a0 == 1;
  const int64_t cx0 = (a0 + 1) >> 1, fx0 = a0 >> 1, nl = ((a1 + 1) >> 1) - cx0;
  const int64_t P = fx0 + int64_t{blockIdx.x} * (NP - 2 * HP) + pi - HP;
  const bool writer = pi >= HP && pi < NP - HP;
  // Index along the deinterleaved line of absolute coordinate ax.
  auto split_index = [&](int64_t ax) { return (ax & 1) ? nl + (ax >> 1) - fx0 : (ax >> 1) - cx0; };
  for (int64_t lb = int64_t{blockIdx.y} * TL; lb < a.nlines; lb += int64_t{gridDim.y} * TL) {
    const int64_t line = lb + lane;
    const bool live = line < a.nlines;
    T e{}, o{};
    if (live) {
      const T* in = a.in + static_cast<size_t>(line) * a.in_ls;
      const int64_t ae = dev::mirror(2 * P, a0, a1), ao = dev::mirror(2 * P + 1, a0, a1);
      if constexpr (kFwd) {
        e = in[static_cast<size_t>(ae - a0) * a.in_es];
        o = in[static_cast<size_t>(ao - a0) * a.in_es];
        if (one && (a0 & 1)) e = o = L::twice(o);  // HOR_SD of a 1-sample odd line (F.3.7)
      } else {
        e = in[static_cast<size_t>(split_index(ae)) * a.in_es];
        o = in[static_cast<size_t>(split_index(ao)) * a.in_es];
        if (one && (a0 & 1)) e = o = L::half(o);  // HOR_SR of a 1-sample odd line (F.4.7)
        e = L::gain_inv(e, true, true, one, true);
        o = L::gain_inv(o, false, true, one, true);
      }
    }
    if (!one) {  // uniform across the block: every thread reaches each barrier
#pragma unroll
      for (int s = 0; s < L::kSteps; ++s) {
        // Forward: even stages update the odd member from (e, next e), odd stages the even
        // member from (previous o, o). Inverse: the reverse order.
        const bool upd_odd = kFwd ? (s % 2 == 0) : (s % 2 == 1);
        sh[pi * TL + lane] = upd_odd ? e : o;
        __syncthreads();
        if (upd_odd) {
          const T en = pi + 1 < NP ? sh[(pi + 1) * TL + lane] : e;
          o = kFwd ? (s == 0   ? L::template fwd<0>(o, e, en)
                      : s == 2 ? L::template fwd<2>(o, e, en)
                               : o)
                   : (s == 1   ? L::template inv<1>(o, e, en)
                      : s == 3 ? L::template inv<3>(o, e, en)
                               : o);
        } else {
          const T op = pi > 0 ? sh[(pi - 1) * TL + lane] : o;
          e = kFwd ? (s == 1   ? L::template fwd<1>(e, op, o)
                      : s == 3 ? L::template fwd<3>(e, op, o)
                               : e)
                   : (s == 0   ? L::template inv<0>(e, op, o)
                      : s == 2 ? L::template inv<2>(e, op, o)
                               : e);
        }
        __syncthreads();
      }
    }
    if (!live || !writer) continue;
    T* out = a.out + static_cast<size_t>(line) * a.out_ls;
    const int64_t ae = 2 * P, ao = 2 * P + 1;
    if constexpr (kFwd) {
      if (ae >= a0 && ae < a1)
        out[static_cast<size_t>(split_index(ae)) * a.out_es] =
            L::gain_fwd(e, true, true, one, true);
      if (ao >= a0 && ao < a1)
        out[static_cast<size_t>(split_index(ao)) * a.out_es] =
            L::gain_fwd(o, false, true, one, true);
    } else {
      if (ae >= a0 && ae < a1) out[static_cast<size_t>(ae - a0) * a.out_es] = e;
      if (ao >= a0 && ao < a1) out[static_cast<size_t>(ao - a0) * a.out_es] = o;
    }
  }
}

template <class L, bool kFwd, int TL, int NP>
void launch(const LatticeArgs<typename L::T>& a, cudaStream_t st) {
  if (a.a1 <= a.a0 || a.nlines == 0) return;
  constexpr int HP = L::kHalo / 2;
  const uint64_t pairs = (uint64_t{a.a1} + 1) / 2 - a.a0 / 2;
  const uint64_t gx = (pairs + (NP - 2 * HP) - 1) / (NP - 2 * HP);
  const uint64_t gy = std::min<uint64_t>((uint64_t{a.nlines} + TL - 1) / TL, 65535);
  lattice_kernel<L, kFwd, TL, NP>
      <<<dim3(static_cast<unsigned>(gx), static_cast<unsigned>(gy)), TL * NP, 0, st>>>(a);
  GJ2K_CUDA_CHECK_LAUNCH("lattice_kernel launch");
}

template <class L>
void dispatch(const LatticeArgs<typename L::T>& a, bool columns, bool forward, cudaStream_t st) {
  if (columns)
    forward ? launch<L, true, 32, 32>(a, st) : launch<L, false, 32, 32>(a, st);
  else
    forward ? launch<L, true, 1, 256>(a, st) : launch<L, false, 1, 256>(a, st);
}

}  // namespace

void launch_lattice53(const LatticeArgs<int32_t>& a, bool columns, bool forward,
                      cudaStream_t stream) {
  dispatch<dev::Lift53>(a, columns, forward, stream);
}
void launch_lattice97(const LatticeArgs<float>& a, bool columns, bool forward,
                      cudaStream_t stream) {
  dispatch<dev::Lift97>(a, columns, forward, stream);
}

}  // namespace gj2k::transform::cuda
