// The 2-D discrete wavelet transform of a tile-component (ISO/IEC 15444-1 Annex F).
//
// Contract, shared by every variant (reference, fast CPU, GPU):
// - The buffer holds the tile-component `tc` (absolute coordinates on its component's grid):
//   width(tc) x height(tc) samples, row-major, row pitch `stride` samples (>= width).
// - forward(levels) replaces the samples by the Mallat arrangement of their subbands after
//   `levels` decomposition levels (see band_placement in geometry.h); inverse undoes it.
//   levels = 0 leaves the buffer untouched. Levels past the point where a resolution is empty
//   are allowed; a 1-sample signal follows the 1D_SD / 1D_SR procedures (F.3.7, F.4.7: kept if
//   its coordinate is even, else doubled forward and halved inverse); empty extents: no-ops.
// - 1-D lifting parity comes from the absolute coordinate of the first sample (i0 = x0 or y0 of
//   the resolution being split), with whole-sample symmetric extension (F.3.7, F.4.7).
// - 5/3 (reversible): int32, exactly F.3.8.1 / F.4.8.1. Perfect reconstruction. Callers keep
//   every coefficient within +-2^30 so that the lifting sums fit in int32 (17-bit input stays
//   below 2^29 even at the worst-case 5/3 gain of 1.5^2 per level over 10 levels).
// - 9/7 (irreversible): float32 lifting with the Table F.4 constants and the K scaling of
//   F.3.8.2 / F.4.8.2: low-pass outputs scaled by 1/K, high-pass by K (forward).
// - Only the buffer is touched; no element outside [0, height) x [0, width) rows of the stride.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "transform/geometry.h"

namespace gj2k::transform {

// 9/7 lifting parameters, ISO/IEC 15444-1 Table F.4 (checked against the standard's
// Table F.4 values; K is the scaling parameter of F.3.8.2 step 5/6 and F.4.8.2 step 1/2).
// Forward (F.3.8.2): high-pass (odd) outputs are multiplied by K, low-pass (even) by 1/K;
// inverse (F.4.8.2): low-pass by K, high-pass by 1/K. With this scaling the analysis low-pass
// has DC gain 1 (the unscaled lifting yields K at DC) and the analysis high-pass has Nyquist
// gain 2 (unscaled: 2/K), the same normalisation as the 5/3 filters (tests check both).
inline constexpr double kDwt97Alpha = -1.586134342059924;
inline constexpr double kDwt97Beta = -0.052980118572961;
inline constexpr double kDwt97Gamma = 0.882911075530934;
inline constexpr double kDwt97Delta = 0.443506852043971;
inline constexpr double kDwt97K = 1.230174104914001;

// The 9/7 filter bank equivalent to the lifting above (same scaling), derived numerically
// from the Table F.4 lifting by impulse responses (double precision). Symmetric filters, tap
// t[k] applies at offsets +-k: analysis low (9 taps), high (7 taps), synthesis low (7 taps),
// high (9 taps). Used by the convolution variant and the subband L2 norms.
struct Dwt97Filters {
  double lo[5], hi[4];          // analysis: low output at even i, high output at odd i
  double syn_lo[4], syn_hi[5];  // synthesis: response of one low / high coefficient
};
const Dwt97Filters& dwt97_filters();

template <class T>
struct Plane {
  T* data = nullptr;
  size_t stride = 0;  // samples between the starts of two rows
};

// The subband `band` of level n (as band_placement) as a view into a transformed buffer.
template <class T>
Plane<T> subband_plane(Plane<T> p, const Rect& tc, int levels, int n, Band band) {
  const BandPlacement pl = band_placement(tc, levels, n, band);
  return {p.data + size_t{pl.y_off} * p.stride + pl.x_off, p.stride};
}

// One signature per kernel; variants fill a DwtOps table (docs/ARCHITECTURE.md, "Variants").
using Dwt53Fn = void (*)(Plane<int32_t> p, const Rect& tc, int levels);
using Dwt97Fn = void (*)(Plane<float> p, const Rect& tc, int levels);

struct DwtOps {
  const char* name = "";
  Dwt53Fn forward53 = nullptr;
  Dwt53Fn inverse53 = nullptr;
  Dwt97Fn forward97 = nullptr;
  Dwt97Fn inverse97 = nullptr;
};

enum class DwtVariant {
  kReference,    // spec-literal Annex F lifting (dwt_ref.cpp), kept forever
  kCpu,          // fast multithreaded CPU lifting (Galiano et al. multicore lifting)
  kCpuConvolve,  // 9/7 by filter-bank convolution (Galiano et al.); 5/3 as kCpu
};

// Shared by every CPU variant, the reference included: the argument checks of the contract
// above (levels 0..32; for a non-empty tc a buffer and stride >= width). Throws
// Error(kInvalidArgument) naming `what`.
void check_dwt_args(const void* data, size_t stride, const Rect& tc, int levels, const char* what);

// The table for a CPU variant. GPU variants live in transform/cuda/ (device buffers, streams).
const DwtOps& dwt_ops(DwtVariant variant);

// For benchmarking: the variants the codec's tile stages use, process-wide (the CLI's --dwt).
// The CPU stages take dwt_ops(codec_cpu_dwt()), the CUDA ones the GPU variant codec_gpu_dwt()
// (transform/cuda/dwt_cuda.h GpuDwtVariant, as int); each is read once per tile, so a
// selection never reaches a hot loop. Defaults: kCpu and the GPU's "default".
// select_dwt takes a CPU name ("cpu", "cpu-convolve", "reference") or a GPU one (dwt_cuda.h
// parse_gpu_dwt_variant, in a build with CUDA); throws Error(kInvalidArgument) naming the
// choices otherwise. Set it before coding starts.
void select_dwt(const std::string& name);
// The names select_dwt takes, for messages and help: "CPU: cpu, ...; GPU: default, ...".
std::string dwt_variant_names();
DwtVariant codec_cpu_dwt();
int codec_gpu_dwt();

}  // namespace gj2k::transform
