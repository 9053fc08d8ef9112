// GPU dead-zone scalar quantization (15444-1 Annex E): the device mirror of quantize in
// transform/quant.h (identical results: IEEE division), a whole-tile-component entry point
// that treats every subband of the Mallat arrangement (dwt.h) in one launch, and the decoder's
// per-code-block reconstruction (transform/quant_block.h). Work is enqueued on `stream`.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "transform/quant_block.h"

namespace gj2k::transform {
struct Rect;  // geometry.h (C++20), declared here so that nvcc (C++17) can include this
}  // namespace gj2k::transform

namespace gj2k::transform::cuda {

// q = sign(y) floor(|y| / delta), saturated to int32 (as transform::quantize).
void quantize(const float* d_in, int32_t* d_out, size_t n, float delta, cudaStream_t stream);

// The whole Mallat arrangement of tile-component `tc` after `levels` decompositions: the sample
// of subband (n, band) uses deltas[qcd_index(levels, n, band)]; 3 levels + 1 entries, read on
// the host. In and out are different buffers.
void quantize_bands(const float* d_in, size_t in_pitch, int32_t* d_out, size_t out_pitch,
                    const Rect& tc, int levels, const float* deltas, cudaStream_t stream);

// One code-block of reconstruct_blocks: where its w x h values start in the buffer (elements),
// their row pitch, and the block's reconstruction (quant_block.h).
struct ReconstructJob {
  uint64_t offset;
  uint32_t stride;
  uint16_t w, h;
  BlockReconstruction q;
};

// In place on d_base, every job's block of Tier-1 values (decode_block's half units, entropy/
// t1.h) becomes coefficients, as transform::reconstruct_block computes them (identical
// values): 5/3 int32 integers; 9/7 the bits of the float coefficients, which the buffer then
// holds as floats. Jobs must not overlap; blocks with w or h 0 are skipped.
void reconstruct_blocks(const ReconstructJob* d_jobs, uint32_t count, int32_t* d_base,
                        cudaStream_t stream);

}  // namespace gj2k::transform::cuda
