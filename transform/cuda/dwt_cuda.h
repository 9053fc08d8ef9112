// GPU 2-D DWT of a tile-component in device memory (host API; kernels in dwt_*_kernels.cu,
// device primitives in dwt_lift.cuh).
//
// Same numerical contract as transform/dwt.h (15444-1 Annex F; Mallat arrangement of
// geometry.h band_placement; parity from absolute coordinates; any size >= 1, any origin,
// 0..32 levels): 5/3 results are identical to dwt_ops(kReference) (even for extreme int32
// inputs). 9/7: kDefault (kFusedShort forward, kFused inverse) gives exactly the floats of the
// CPU's lifting (dwt_ops(kCpu), dwt_cpu.cpp): the same unfused operations, each direction's K
// scaling where the CPU applies it (dwt_lift.cuh); the other variants agree with the reference
// within float rounding (tests/gpu: <= 2e-5 of the peak magnitude).
//
// Buffers are device pointers (d_ prefix) with a row pitch in samples. Work is enqueued on
// `stream` and not waited for; argument errors throw Error(kInvalidArgument), CUDA failures
// Error(kDevice) naming the call, kLaan rows wider than shared memory Error(kUnsupported).
// Scratch memory is the caller's: query dwt_workspace_bytes() first, allocate, and pass it in.
//
// Device memory, as multiples of the tile-component's w x h samples N (4 bytes each; the
// figures bench_gpu_dwt measured are in docs/PERFORMANCE.md):
//   single-pass variants (block*, fused*), out-of-place: src N + dst N + scratch N/4 + N/16
//     = 2.31 N. In place: the buffer is first copied into scratch (N more, one extra read and
//     write), same 2.31 N. A single pass cannot write its subbands over its own input, since
//     another thread block may not have read that part yet.
//   kLaan, in place: buffer N + scratch N/2 (half the rows of level 1) = 1.5 N. The column
//     passes run down each slab in sequence.
//   kInplace, in place: buffer N + the permutation seeds, fewer than (w + h) / 256 numbers per
//     level (Ikuzawa et al., Theorem 1 with b = 128); out of place 2 N (src + dst). Many
//     passes per level (chunk generation, rearrangement, tail fix-up, one per lifting step):
//     it trades time for memory.
//   kLattice: buffer N + scratch N (each 1-D pass is out of place) = 2 N in place; out of
//     place src + dst + N = 3 N. Each level moves the data twice: 4 N of traffic against the
//     fused kernels' 2 N.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "transform/geometry.h"

namespace gj2k::transform::cuda {

// The GPU DWT methods (docs/ARCHITECTURE.md, "Variants"; the papers are named per variant);
// every one can be forced. kDefault: kFusedShort forward, kFused inverse (the fastest correct
// ones on sm_90, docs/PERFORMANCE.md).
enum class GpuDwtVariant {
  kDefault,
  kBlock,       // block-based single pass per level, 64x32 tiles, lifting in shared memory
  kBlockWide,   // the same with 128x16 tiles
  kFused,       // single pass, 128-column windows x 32 rows: columns lifted in registers,
                // rows with warp shuffles (Kula et al. + van der Laan et al.)
  kFusedShort,  // the same with 16-row tiles
  kLaan,        // in place, two passes per level (van der Laan et al.): column slabs with a
                // sliding window in registers, rows in shared memory; scratch N/2
  kInplace,     // in place over a unified buffer (Ikuzawa et al.): chunk generation, chunk
                // rearrangement along circular permutations from precomputed seeds, in-place
                // lifting; scratch = the seeds only
  kLattice,     // separable, one lattice kernel per 1-D pass (Puchala and Stokfiszewski):
                // a thread per butterfly, stages through registers and shared memory; scratch N
};
inline constexpr GpuDwtVariant kAllGpuDwtVariants[] = {
    GpuDwtVariant::kDefault, GpuDwtVariant::kBlock,      GpuDwtVariant::kBlockWide,
    GpuDwtVariant::kFused,   GpuDwtVariant::kFusedShort, GpuDwtVariant::kLaan,
    GpuDwtVariant::kInplace, GpuDwtVariant::kLattice};
const char* to_string(GpuDwtVariant v);
// Parses "default", "block", "block-wide", "fused", "fused-short", "laan", "inplace",
// "lattice"; throws
// Error(kInvalidArgument) otherwise.
GpuDwtVariant parse_gpu_dwt_variant(const char* name);

template <class T>
struct DevicePlane {
  T* d_data = nullptr;
  size_t pitch = 0;  // samples between the starts of two rows (>= width)
};

// Bytes of device scratch that the calls below need for `tc` and `levels`. 4-byte samples.
size_t dwt_workspace_bytes(GpuDwtVariant v, const Rect& tc, int levels, bool in_place);

// Out-of-place: `src` holds the tile-component, `dst` receives its Mallat arrangement
// (forward) or the reverse. src is not modified; src and dst must not overlap.
void dwt53_forward(GpuDwtVariant v, DevicePlane<const int32_t> src, DevicePlane<int32_t> dst,
                   const Rect& tc, int levels, void* d_workspace, size_t workspace_bytes,
                   cudaStream_t stream);
void dwt53_inverse(GpuDwtVariant v, DevicePlane<const int32_t> src, DevicePlane<int32_t> dst,
                   const Rect& tc, int levels, void* d_workspace, size_t workspace_bytes,
                   cudaStream_t stream);
void dwt97_forward(GpuDwtVariant v, DevicePlane<const float> src, DevicePlane<float> dst,
                   const Rect& tc, int levels, void* d_workspace, size_t workspace_bytes,
                   cudaStream_t stream);
void dwt97_inverse(GpuDwtVariant v, DevicePlane<const float> src, DevicePlane<float> dst,
                   const Rect& tc, int levels, void* d_workspace, size_t workspace_bytes,
                   cudaStream_t stream);

// In-place, exactly the CPU contract of dwt.h: the buffer becomes its subbands (or back).
void dwt53_forward(GpuDwtVariant v, DevicePlane<int32_t> p, const Rect& tc, int levels,
                   void* d_workspace, size_t workspace_bytes, cudaStream_t stream);
void dwt53_inverse(GpuDwtVariant v, DevicePlane<int32_t> p, const Rect& tc, int levels,
                   void* d_workspace, size_t workspace_bytes, cudaStream_t stream);
void dwt97_forward(GpuDwtVariant v, DevicePlane<float> p, const Rect& tc, int levels,
                   void* d_workspace, size_t workspace_bytes, cudaStream_t stream);
void dwt97_inverse(GpuDwtVariant v, DevicePlane<float> p, const Rect& tc, int levels,
                   void* d_workspace, size_t workspace_bytes, cudaStream_t stream);

}  // namespace gj2k::transform::cuda
