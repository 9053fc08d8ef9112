// The encoder's transform stage on the GPU (codec/encoder_tile_gpu.cpp). Not public.
//
// transform_tile_gpu is the CUDA backend's TileBackend::forward (tile_backend.h), with the
// CPU backend's contract: the same rectangles and the same Mallat arrangement of int32 values. 5/3:
// identical values (integer DC shift, RCT and lifting on the device). 9/7: the float DC shift +
// ICT, DWT and quantization run on the device with the CPU's float operations in the CPU's order
// (the default GPU DWT variant, dwt_cuda.h), so the indices are identical too
// (tests/gpu/codec_gpu_test.cpp).
//
// Execution: a process-wide pool of transform::cuda::TileTransformer objects (each one CUDA
// stream, a pinned staging ring, pageable input staging and device buffers;
// transform/cuda/resource_pool.h); each call takes one for the tile and gives it back, so tiles
// transformed from several threads at once (the encoder's parallel tile loop) use separate streams
// and overlap their transfers and kernels. A call given the serial tile loop's GpuLookAhead (one
// tile at a time, threads inside the tile) also stages tile t + 1 and enqueues its transform on a
// second transformer before it waits for tile t, so the next tile's transfers and kernels run while
// Tier-1 codes this one; the loop's call for t + 1 adopts it, a call for another tile gives it back
// unused. The pool keeps its buffers (sized by the largest tile seen) until the process ends.
// Samples go up narrow (1 or 2 bytes) when every component fits and all share their
// signedness. Timings of this stage and of whole encodes: docs/PERFORMANCE.md.
#pragma once

#include <cstdint>
#include <memory>

#include "codec/encoder_internal.h"
#include "codec/tile_backend.h"

namespace gj2k::transform::cuda {
class TileTransformer;  // transform/cuda/tile_transformer.h
}  // namespace gj2k::transform::cuda

namespace gj2k::codec {

#if defined(GJ2K_HAVE_CUDA)
// What a serial tile loop keeps between its transform_tile_gpu calls: the next tile's transform,
// enqueued while Tier-1 codes the current tile (double buffering on two transformers). One per
// loop over one image and setup; a call for another tile than the one ahead gives it back
// unused, and so does the destructor.
class GpuLookAhead final : public ForwardPipeline {
 public:
  GpuLookAhead();
  ~GpuLookAhead() override;
  GpuLookAhead(const GpuLookAhead&) = delete;
  GpuLookAhead& operator=(const GpuLookAhead&) = delete;
  struct Impl;
  std::unique_ptr<Impl> impl;
};

// The CUDA backend's forward stage (TileBackend::forward). ahead: the serial loop's look-ahead
// (null: none, as in the parallel tile loop).
TileCoefficients transform_tile_gpu(const Image& image, const EncodeSetup& setup, uint32_t t,
                                    GpuLookAhead* ahead = nullptr);

// The CUDA backend's TileBackend::encode: the forward stage as above, then Tier-1 of every
// code-block on the device from the transformer's results (code_tile_gpu).
TileCoding encode_tile_gpu(const Image& image, const EncodeSetup& setup, const EncodeParams& params,
                           uint32_t t, GpuLookAhead* ahead = nullptr);

// Tier-1 of tile t on the device (codec/encoder_tier1_gpu.cpp): plan_tile's code-blocks coded by
// entropy/cuda/t1_enc_cuda.h from tt's results (slot 0, its transform enqueued), the same
// EncodedBlocks as code_tile gives (the block coder is one host-device source, t1_enc_block.h);
// a block beyond the device's byte budget, or one whose values the coder refuses, is coded on
// the CPU from its values (its bytes, or the CPU path's error). Only the bytes and pass records
// written come back, compacted on the device. Throws what code_tile throws, Error(kDevice) for
// device failures.
TileCoding code_tile_gpu(transform::cuda::TileTransformer& tt, const Image& image,
                         const EncodeSetup& setup, const EncodeParams& params, uint32_t t);

// For tests: code_tile_gpu gives each block encode_budget / divisor bytes (1: the default),
// so that a divisor > 1 sends blocks through the CPU fallback of an overflow.
uint32_t t1_budget_divisor();
void set_t1_budget_divisor(uint32_t divisor);
// For tests: the plane mapping's symbol memory per chunk (0: as the device's free memory
// allows, one chunk where it fits), so that a small budget codes a tile in many chunks.
void set_t1_symbol_budget(size_t bytes);

// The transformer's results (slot 0) for tile-components of these rects, brought to the host
// (waits for the slot's work).
TileCoefficients download_coefficients(transform::cuda::TileTransformer& tt,
                                       std::vector<transform::Rect> rects);

// Destroys the idle objects of the encoder's process-wide GPU pools (the forward stage's
// transformers, the Tier-1 stage's buffers); returns how many.
// Whether tiles other than the caller's have GPU work under way in encode_tile_gpu (the caller's
// out-of-memory failure may then be retried once they end).
bool other_gpu_tiles_active();

// Tiles that encode_tile_gpu handed to the CPU backend (a tile-component empty, or buffers
// beyond the device memory) since the process started.
uint32_t gpu_path_cpu_tiles();

size_t release_encoder_gpu_pool();
size_t release_encoder_t1_pool();
#endif

}  // namespace gj2k::codec
