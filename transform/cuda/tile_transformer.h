// TileTransformer: the encoder's transform stage on the GPU, tile after tile, with the
// transfers of one tile overlapping the kernels of another (one CUDA stream, a pinned staging
// ring and device buffers per slot; 1 or more slots).
//
// Encode a tile: the caller writes each component's samples (packed rows, width of that
// component) into input(slot, c), calls encode(slot, spec); output(slot, c, dst) then waits and
// copies out the Mallat arrangement (dwt.h, packed rows) of int32 values: the 5/3
// coefficients, or the 9/7 quantization indices (dead-zone quantizer, step per subband).
//   5/3: DC shift (+ RCT on components 0..2) -> 5/3 DWT.
//   9/7: DC shift (+ ICT) -> 9/7 DWT -> quantize_bands.
// (The inverse direction is the CUDA tile backend, codec/tile_backend.h.)
//
// Results equal the CPU functions of transform/ (mct.h, dwt.h, quant.h) as the GPU kernels'
// own contracts state (5/3 path identical). Memory per slot: device 2 x 4 bytes per sample of
// the tile plus the DWT workspace (~N/3 of the largest component); host sample_bytes per
// sample of pageable input staging when input() is used (not with a SampleFill); pinned only a
// StagingRing of at most 32 MB (staging_ring.h).
// Slots keep their buffers and grow them only.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "transform/cuda/cuda_memory.h"
#include "transform/cuda/dwt_cuda.h"
#include "transform/geometry.h"

namespace gj2k::transform::cuda {

struct TileComponentSpec {
  Rect rect;                  // the tile-component on its component's grid (B-12)
  int32_t dc_offset = 0;      // transform::dc_offset(precision, signed)
  std::vector<float> deltas;  // 9/7: step per subband, qcd_index order (3 levels + 1)
};

struct TileSpec {
  std::vector<TileComponentSpec> comps;
  int levels = 5;
  bool reversible = true;  // 5/3 + RCT, else 9/7 + ICT
  bool mct = false;        // RCT/ICT on components 0..2 (they must have equal sizes)
  // Encode input samples: 4 = int32; 1 or 2 = (u)int8 / (u)int16, uploaded narrow and widened
  // on the device (a quarter or half of the PCIe traffic for 8- or 16-bit images).
  int sample_bytes = 4;
  bool sample_signed = false;
  // The encode input's layout: false, the components back to back (each its rect in rows);
  // true, rows of whole pixels, component c of pixel i at i * comps.size() + c (a caller's
  // interleaved buffer as it lies). Interleaved input needs sample_bytes 1 or 2 and components
  // of one rect size; the device unpacks it into the planar layout (widen_interleaved).
  bool interleaved = false;
};

class TileTransformer {
 public:
  explicit TileTransformer(int slots = 2, GpuDwtVariant variant = GpuDwtVariant::kDefault);
  ~TileTransformer();
  TileTransformer(const TileTransformer&) = delete;
  TileTransformer& operator=(const TileTransformer&) = delete;

  int slots() const { return static_cast<int>(slots_.size()); }
  // Makes room in `slot` for a tile of `spec` (waits for that slot's previous work) and returns
  // the host input buffer of component c: rect.width() x rect.height() int32 samples, not
  // initialised. (spec.sample_bytes must be 4; input_raw gives the buffer for any sample size.)
  int32_t* input(int slot, const TileSpec& spec, int c);
  void* input_raw(int slot, const TileSpec& spec, int c);
  // Upload the tile in `slot` (its inputs written; they are read whole when this returns) and
  // enqueue its transform.
  void encode(int slot, const TileSpec& spec);
  // The same without input(): fill(first, n, dst) writes samples [first, first + n) of the tile
  // (components back to back in spec order, each rect.width() x rect.height() in rows, or
  // whole pixels in rows when spec.interleaved) at dst,
  // spec.sample_bytes each, straight into the pinned staging chunks as they go up, so no host
  // copy of the tile is made. When fill returns false (the caller's sample check failed) the
  // upload stops, nothing is enqueued after it, and encode returns false.
  using SampleFill = std::function<bool(size_t first, size_t n, void* dst)>;
  bool encode(int slot, const TileSpec& spec, const SampleFill& fill);
  // Waits for the slot's work and copies component c's result (packed rows) into dst; may be
  // called for each component, in any order, until the slot's next input call. Host copies
  // use core::max_threads() threads.
  void output(int slot, int c, int32_t* dst);
  // Component c's result in device memory (packed rows, rect.width() apart) and the stream its
  // kernels run on: for later device stages (the GPU Tier-1), enqueued on that stream. Valid
  // until the slot's next input call.
  const int32_t* device_output(int slot, int c) const;
  cudaStream_t stream(int slot) const;
  void synchronize();  // waits for every slot

 private:
  struct Slot;
  void prepare(Slot& s, const TileSpec& spec);  // layout and buffers; waits for its last work
  static void* upload_target(Slot& s, const TileSpec& spec);
  void enqueue_transform(Slot& s, const TileSpec& spec);  // after the upload
  GpuDwtVariant variant_;
  std::vector<std::unique_ptr<Slot>> slots_;
};

}  // namespace gj2k::transform::cuda
