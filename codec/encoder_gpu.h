// The encoder's transform stage on the GPU (codec/encoder_tile_gpu.cpp). Not public.
//
// transform_tile_gpu is the CUDA backend's TileBackend::forward (tile_backend.h), with the
// CPU backend's contract: the same rectangles and the same Mallat arrangement of int32 values. 5/3:
// identical values (integer DC shift, RCT and lifting on the device). 9/7: the float DC shift +
// ICT, DWT and quantization run on the device; the DWT agrees with the CPU's within float rounding
// (dwt_cuda.h), so a quantization index may differ by 1 where y / delta lies within that
// rounding of an integer (|q_gpu - q_cpu| <= 1; tests/gpu/codec_gpu_test.cpp measures how
// often).
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
// signedness.
//
// Measured (bench_gpu_codec, H200 + 16 cores, 10240 x 6400 RGB 8-bit, one tile, 5 levels,
// median of warm runs, with pinned buffers the size of the tile): transform stage 5/3 459 ms
// CPU -> 232 ms GPU, 9/7 1287 -> 210 ms; whole encode 5/3 1563 -> 1287 ms (identical bytes),
// 9/7 2341 -> 1239 ms. The GPU stage's time is mostly host copies; Tier-1 dominates the
// encode. 9/7 indices that differed from the CPU's:
// 1 of 148803 (synthetic RGB, 5 levels), 1 of 8710 (12-bit grey, 6 levels), by 1.
// Whole `gj2k encode` processes of that image as 4 tiles of 5120 x 3200 (serial tile loop),
// measured before the second transformer waited for 8 remaining tiles and before the input
// staging was pinned at its narrow size: 5/3 2.32, 2.13 s CPU / 2.65, 2.66 s GPU (identical
// bytes), 9/7 2.82 / 2.55 s; a process pays about 0.3 s for CUDA (decoder_gpu.h) and 0.34 ms
// per MB pinned.
#pragma once

#include <cstdint>
#include <memory>

#include "codec/encoder_internal.h"
#include "codec/tile_backend.h"

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
#endif

}  // namespace gj2k::codec
