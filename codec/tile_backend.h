// The per-tile stages behind one interface, so that every direction and device runs the same
// code: a backend is one implementation of TileBackend (docs/ARCHITECTURE.md, "Adding a
// backend"). Not public.
//
// Inverse: from coefficients (Tier-1 output already turned into coefficients per code-block
// by transform::reconstruct_block: ROI undo, E-6 reconstruction) to samples: inverse DWT
// (15444-1 F.3.1 / F.4), inverse RCT or ICT on components 0..2 (G.2 / G.3), inverse DC level
// shift (G.1.2), rounding of the irreversible path and clipping to each component's range.
// The decoder (CPU or GPU), and the encoder's distortion measurement behind --psnr (which must
// see what a decoder reconstructs), all run it.
//
// Forward: from one tile's samples to what Tier-1 codes: DC level shift (G.1.2), forward RCT
// or ICT (G.2 / G.3), forward DWT (F.4), and for 9/7 the dead-zone quantization (E.1): int32
// values in the Mallat arrangement of each tile-component (TileCoefficients,
// encoder_internal.h). The encoder's tile loop runs it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <new>
#include <optional>
#include <span>
#include <vector>

#include "entropy/t1_dec_block.h"
#include "gj2k/error.h"
#include "gj2k/image.h"
#include "transform/geometry.h"
#include "transform/pack.h"
#include "transform/quant_block.h"

namespace gj2k {
struct EncodeParams;  // gj2k/encoder.h
}  // namespace gj2k

namespace gj2k::codec {

struct EncodeSetup;       // encoder_internal.h
struct TileCoefficients;  // encoder_internal.h
struct TileCoding;        // encoder_internal.h

// The result for one tile-component.
struct TileComponentSamples {
  // The tile-component at the decoded resolution, on its component grid divided by 2^reduce
  // (B-14 with r = NL - reduce); empty when not requested.
  transform::Rect rect;
  Samples samples;      // rect.width() * rect.height(), final clipped values
  bool packed = false;  // the samples went into the PackTarget instead (samples empty)
};

// A caller's buffer that tiles' final samples go into (Decoder::decode_into), as
// transform/pack.h stores them: sample (x, y) of output component k, on its grid at the
// decoded resolution, at data + k * comp_step + (y - area.y0) * row_stride +
// (x - area.x0) * pixel_step, for (x, y) in its area.
struct PackTarget {
  struct Component {
    int32_t k = -1;        // output index; -1: not an output
    transform::Rect area;  // the output component on its reduced grid
  };
  uint8_t* data = nullptr;
  transform::PackFormat format;
  size_t row_stride = 0, pixel_step = 0, comp_step = 0;
  bool interleaved = false;
  std::vector<Component> components;  // by codestream component

  // Where the samples of codestream component c over `rect` go: `cut` (rect within the area,
  // empty when they meet nowhere) and its first sample's byte in the buffer.
  uint8_t* place(size_t c, const transform::Rect& rect, transform::Rect& cut) const {
    const Component& o = components[c];
    cut = {std::max(rect.x0, o.area.x0), std::max(rect.y0, o.area.y0), std::min(rect.x1, o.area.x1),
           std::min(rect.y1, o.area.y1)};
    if (cut.x1 <= cut.x0 || cut.y1 <= cut.y0) {
      cut = {};
      return nullptr;
    }
    return data + static_cast<size_t>(o.k) * comp_step + size_t{cut.y0 - o.area.y0} * row_stride +
           size_t{cut.x0 - o.area.x0} * pixel_step;
  }
};

// One tile-component's coefficients in the Mallat arrangement (transform/dwt.h) of `levels`
// decomposition levels over `rect`, packed rows (pitch rect.width()).
struct CoefficientPlane {
  transform::Rect rect;    // the tile-component at the decoded resolution (empty: nothing)
  int levels = 0;          // inverse DWT levels (NL - reduce)
  bool decode = false;     // has coefficients (decoded, or needed by the MCT)
  bool wanted = false;     // its samples are returned
  bool reversible = true;  // 5/3: integers; 9/7: floats, in the same storage
  int32_t offset = 0, lo = 0, hi = 0;  // DC level shift (G.1.2) and the sample range
  // The coefficients: 5/3 integers, or the 9/7 floats in the same words (allocate() begins
  // the floats' lifetime, floats() views them; OpenJPEG keeps its 9/7 data so too), which the
  // inverse colour stage or DC shift turns into integers in place. Either way `ints` becomes
  // the samples: one buffer per component.
  Samples ints;
  float* floats() { return std::launder(reinterpret_cast<float*>(ints.data())); }
  const float* floats() const { return std::launder(reinterpret_cast<const float*>(ints.data())); }
  // Storage for n coefficients, not zeroed (floats() begins the floats' lifetime for 9/7): a
  // buffer kept from an earlier tile or decode (codec/sample_cache.h), or a new one; returns
  // whether it is new (its pages not yet touched).
  bool allocate(size_t n);
  // Only these positions of rect (relative to rect's origin) are needed: a backend may leave
  // the other samples unspecified and read only the coefficients that reach the window
  // (the CPU's windowed inverse DWT, transform/dwt_cpu.h). nullopt: all of them.
  std::optional<transform::Rect> window;
};

// The offset and range of a component of `precision` bits (1..38), signed or not.
void set_sample_range(CoefficientPlane& plane, int precision, bool is_signed);

// One tile's Tier-1 work as Tier-2 delivers it (the GPU decode's one upload per tile): every
// code-block with passes to decode and its codeword segments. The builder (the decoder) checks
// each block as entropy::decode_block would (t1::check_arguments, t1::check_segments) and
// lists only those that pass, with at least one pass; code-blocks not listed have zero
// coefficients.
//
// The segments' bytes: `source` followed by `bytes`, one buffer of source.size() +
// bytes.size() (< 4 GB) bytes as the device receives it, segment k being [offset, offset +
// length) of it. `source` is a span of the tile's data, not copied (it must outlive the
// table): every segment that lies whole in one packet body (the usual case, one layer) is
// referenced there. `bytes` holds copies of the others (continued over several packets:
// layers). No segment crosses from one into the other. The bytes around a segment in `source`
// (packet headers, other blocks' segments) are never read: Tier-1 reads [offset, offset +
// length) only and feeds 0xFF past its end (entropy/mq_dec.h).
struct CodeBlockTable {
  struct Block {
    uint32_t component = 0;  // index of its plane
    uint32_t x = 0, y = 0;   // its first sample in the plane (Mallat arrangement)
    uint16_t w = 0, h = 0;
    uint32_t seg_first = 0;  // its segments: segments[seg_first, seg_first + seg_count)
    uint16_t seg_count = 0;
    uint8_t planes = 0;  // coded magnitude bit-planes (Mb + ROI shift - missing MSBs), 1..30
    uint8_t band = 0;    // core::Band
    uint8_t style = 0;   // entropy::cblk_style bits
    transform::BlockReconstruction q;  // what reconstruct_block does with its values
  };
  std::span<const uint8_t> source;
  std::vector<uint8_t, DefaultInitAllocator<uint8_t>> bytes;
  std::vector<entropy::t1::SegmentRef> segments;  // offsets into source, then bytes
  std::vector<Block> blocks;
};

// What a backend keeps between the forward calls of one serial tile loop (the CUDA backend
// transforms tile t + 1 while Tier-1 codes tile t). Made by TileBackend::forward_pipeline.
class ForwardPipeline {
 public:
  virtual ~ForwardPipeline() = default;
};

class TileBackend {
 public:
  virtual ~TileBackend() = default;
  virtual const char* name() const = 0;

  // The forward stage of tile t of `image` (origin-adjusted, validated) under `setup`. 5/3:
  // identical values on every backend (integer DC shift, RCT and lifting); 9/7: identical with the
  // default GPU DWT variant (the CPU's float operations in its order), within float rounding
  // (an index off by 1) with the others. `pipeline`: the serial tile loop's, from
  // forward_pipeline() (null: none, as in the parallel tile loop). Throws gj2k::Error (kDevice for
  // device failures).
  virtual TileCoefficients forward(const Image& image, const EncodeSetup& setup, uint32_t t,
                                   ForwardPipeline* pipeline) const = 0;
  // The serial tile loop's pipeline state, or null when the backend keeps none.
  virtual std::unique_ptr<ForwardPipeline> forward_pipeline() const { return nullptr; }
  // The forward stage and Tier-1 of tile t: what the encoder's tile loop calls. The default
  // (encoder_tile.cpp): forward(), then code_tile (Tier-1 on the CPU, the thread pool over
  // the code-blocks). The CUDA backend codes the code-blocks on the device from its results
  // (encoder_gpu.h encode_tile_gpu). Every backend gives the CPU backend's EncodedBlocks
  // (the 9/7 too: the GPU's forward stage computes the CPU's floats).
  virtual TileCoding encode(const Image& image, const EncodeSetup& setup,
                            const EncodeParams& params, uint32_t t,
                            ForwardPipeline* pipeline) const;

  // The inverse tail of one tile. mct: components 0..2 (decoded, equal rects) go through the
  // inverse RCT when all three are reversible, else the ICT (a 5/3 one taken to float first).
  // out (resized to the components) receives the rect and final samples of every wanted
  // component; the others are left as they are. A plane's buffers may be consumed (moved into
  // out) and are unspecified afterwards. `threads` bounds the host threads used (0: the current
  // scope's, core::max_threads). Results: 5/3 identical on every backend (integer lifting F.3.8,
  // integer RCT); 9/7 identical with the default GPU DWT variant, within 1 with the others. Throws
  // Error(kInternal) for inconsistent planes, Error(kDevice) for device failures.
  virtual void inverse(std::span<CoefficientPlane> planes, bool mct, int threads,
                       std::vector<TileComponentSamples>& out) const = 0;
};

// The CPU backend (codec/tile_backend_cpu.cpp): the thread pool over rows and chunks.
const TileBackend& cpu_backend();
// cpu_backend().inverse with `pack` (Decoder::decode_into; nullptr: none): where components
// 0..2 go through the inverse RCT / ICT and are outputs of an interleaved target whose outputs
// all have the tile's rect, their colour transform, DC shift, clipping and packing run in one
// pass into the caller's buffer (their entries `packed`, no int32 samples); the other wanted
// components come out as samples. The bytes are those of inverse then transform::pack_rect.
void cpu_inverse(std::span<CoefficientPlane> planes, bool mct, int threads,
                 std::vector<TileComponentSamples>& out, const PackTarget* pack);

// The whole decode of one tile on the GPU, from Tier-2's output to samples: the table up (one
// upload), Tier-1 of every block (entropy/cuda/t1_dec_cuda.h) into the device coefficient
// planes, transform::cuda::reconstruct_blocks (reconstruct_block's values), then the inverse
// tail of cuda_backend(), one download of the final samples. `planes` give geometry, wanted
// components and sample ranges (their coefficient buffers are not read). Results as
// TileBackend::inverse on coefficients that CPU Tier-1 and reconstruct_block produce: 5/3
// and 9/7 identical (with the default GPU DWT variant). Throws Error(kDevice) for device failures
// (and when built without CUDA).
// With `pack`, the wanted components that are outputs are packed on the device
// (transform/cuda/pack_cuda.h) and only their packed bytes come down, into the caller's buffer
// (their entries `packed`); an interleaved tile whose outputs differ in geometry comes down as
// int32 samples instead.
// Where Tier-1 takes a thread per block, the costliest blocks may be decoded on the host's
// threads meanwhile (entropy::cuda::HostShare; entropy::decode_block and reconstruct_block,
// identical values) and placed on the device before the inverse DWT: `threads` bounds them.
void cuda_decode_tile(std::span<CoefficientPlane> planes, const CodeBlockTable& table, bool mct,
                      int threads, std::vector<TileComponentSamples>& out,
                      const PackTarget* pack = nullptr);

// cuda_decode_tile with the table in parts, for a host that reads the tile while the device
// decodes: the constructor takes a slot (waiting for one) and lays out the planes; decode()
// enqueues Tier-1 and reconstruction of one table's blocks at once (at most three tables, whose
// blocks must be disjoint, each kept alive until finish returns); finish() waits for the
// parts, runs the inverse tail and downloads, as cuda_decode_tile. The planes are those
// cuda_decode_tile takes and must outlive the object. Destroyed without finish (an error on
// the host), its slot is dropped once the device is done with it. Same errors as
// cuda_decode_tile.
class GpuTileDecode {
 public:
  GpuTileDecode(std::span<CoefficientPlane> planes, bool mct, int threads,
                const PackTarget* pack = nullptr);
  ~GpuTileDecode();
  GpuTileDecode(const GpuTileDecode&) = delete;
  GpuTileDecode& operator=(const GpuTileDecode&) = delete;
  // share: the table's part of the tile's code-blocks (the first part's Tier-1 mapping is
  // chosen for all parts running at once: arrange_for_decode). host_threads: the fraction of
  // the decode's threads that the host's share of this part's blocks is modelled on and starts
  // with (HostShare).
  void decode(const CodeBlockTable& table, double share = 1.0, double host_threads = 0.5);
  void finish(std::vector<TileComponentSamples>& out);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Code-blocks the host has decoded beside the GPU's Tier-1 (HostShare) in this process so far
// (tests). 0 when built without CUDA.
uint64_t gpu_decode_host_blocks();

// Whether `e` is a device allocation failure (a full device or GJ2K_GPU_MEMORY_LIMIT), which
// the caller may answer by doing the work on the CPU. False when built without CUDA.
bool device_out_of_memory(const Error& e);

// Destroys the idle objects of the process-wide GPU pools (the decoder's tile slots with their
// device buffers, pinned rings and streams; the encoder's transformers): what
// gj2k::release_gpu_resources does. Returns how many; 0 when built without CUDA.
size_t release_gpu_pools();

// The CUDA backend (codec/tile_backend_cuda.cpp; its forward stage in encoder_tile_gpu.cpp):
// per-component streams, a pinned staging ring and device buffers from process-wide pools
// (gpu_warm_up.h warms the inverse one up). Built without CUDA, its stages throw
// Error(kDevice).
const TileBackend& cuda_backend();

}  // namespace gj2k::codec
