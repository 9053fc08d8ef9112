// Helpers and data shared by the encoder's translation units (codec/encoder*.cpp). Not public.
//
// Pipeline (docs/ARCHITECTURE.md, "Encode"): image -> tiles -> per tile-component DC shift +
// MCT -> DWT -> quantization -> code-blocks -> Tier-1 (encoder_tile.cpp) -> rate control over
// all blocks of the image -> Tier-2 packets, tile-parts, markers (encoder_stream.cpp) -> JP2
// (encoder.cpp).
#pragma once

#include <cstdint>
#include <future>
#include <span>
#include <string>
#include <vector>

#include "codec/markers/codestream.h"
#include "codec/structure.h"
#include "codec/tile_backend.h"
#include "core/small_vector.h"
#include "entropy/t1.h"
#include "gj2k/encoder.h"
#include "gj2k/error.h"
#include "gj2k/image.h"

namespace gj2k::codec {

struct InputSource;  // codec/input_buffer.h

// Where component c's samples begin on its own grid: (ceil(x0 / dx), ceil(y0 / dy)) of the
// image area (B-2). Its sample at grid point (x, y) is Component::at(x - first.x, y - first.y).
struct FirstSample {
  uint32_t x, y;
};
inline FirstSample first_sample(const Image& image, size_t c) {
  const Component& comp = image.components[c];
  return {static_cast<uint32_t>((uint64_t{image.x0} + comp.dx - 1) / comp.dx),
          static_cast<uint32_t>((uint64_t{image.y0} + comp.dy - 1) / comp.dy)};
}

// Reports progress through params.progress, when set; throws Error(kCancelled) when the
// callback asks to stop. Only for the encoding thread, outside parallel regions.
inline void report_progress(const EncodeParams& params, const char* stage, double fraction) {
  if (params.progress && !params.progress(stage, fraction))
    throw Error(ErrorCode::kCancelled, std::string("encode cancelled during ") + stage);
}

// Number of quality layers: --layers, else the number of rate targets, else 1.
int effective_layers(const EncodeParams& params);

// Whether the multi-component transform is applied: --mct 1, or auto (-1) with >= 3
// components whose first three share subsampling, precision and signedness.
bool effective_mct(const EncodeParams& params, const Image& image);

// Precinct size exponent (PPx when horizontal, else PPy) of resolution r for `levels`
// decomposition levels: 15 (maximal) without --precincts; --precincts lists sizes from the
// highest resolution down, the last repeating.
int precinct_exponent(const EncodeParams& params, int levels, int r, bool horizontal);

// log2 of a power of two.
int exponent_of(uint32_t pow2);

// One coded code-block.
struct BlockCoding {
  // The coder's output. For blocks coded on the GPU, enc.data and enc.passes are empty and
  // their bytes and pass records lie in the tile's coded_bytes and coded_passes (one download
  // each, no copy per block): coded_at and passes_at point there.
  entropy::EncodedBlock enc;
  const uint8_t* coded_at = nullptr;
  const entropy::CodedPass* passes_at = nullptr;
  uint32_t pass_count = 0;   // with passes_at
  uint32_t rc = UINT32_MAX;  // index in the rate allocator (blocks with passes)
  // Cumulative passes included after each layer (held in place for up to two layers: the
  // rate control sets them for every block in each of its rounds).
  core::SmallVector<uint32_t, 2> layer_passes;
  // The block's passes, wherever they are.
  std::span<const entropy::CodedPass> passes() const {
    if (!passes_at) return enc.passes;
    return {passes_at, pass_count};
  }
  // The block's coded bytes, all passes (the last pass's end of them).
  std::span<const uint8_t> bytes() const {
    if (!coded_at) return enc.data;
    const std::span<const entropy::CodedPass> p = passes();
    return {coded_at, p.empty() ? 0 : size_t{p.back().end}};
  }
  // Where bytes() begins, without reading the last pass record.
  const uint8_t* data() const { return coded_at ? coded_at : enc.data.data(); }
};

// One subband of one resolution of a tile-component.
struct BandCoding {
  double delta = 1;                 // quantization step (1 for reversible)
  double weight = 1;                // distortion weight: delta^2 * synthesis norm^2 * MCT norm^2
  uint32_t mb = 0;                  // M_b (E-2)
  std::vector<BlockCoding> blocks;  // raster order over the band's code-block grid
};

struct TileComponentCoding {
  TileComponentLayout layout;
  std::vector<std::vector<BandCoding>> bands;  // [r][b], parallel to layout.resolutions[r].bands
};

struct TileCoding {
  uint32_t index = 0;
  transform::Rect rect;  // on the reference grid
  std::vector<TileComponentCoding> components;
  // The bytes and pass records of the blocks coded on the GPU, one download each
  // (BlockCoding::coded_at and passes_at point in).
  std::vector<uint8_t, DefaultInitAllocator<uint8_t>> coded_bytes;
  std::vector<entropy::CodedPass, DefaultInitAllocator<entropy::CodedPass>> coded_passes;
  // When valid, coded_bytes is still being written (the GPU coder's download on a helper
  // thread): wait_for_coded_bytes before reading a block's bytes. Declared after coded_bytes,
  // so that a tile destroyed first waits for the writes (std::async's future) and then frees.
  std::future<void> coded_bytes_ready;
};

// Waits for every tile's coded_bytes (TileCoding::coded_bytes_ready) and rethrows the first
// error of their downloads.
void wait_for_coded_bytes(std::vector<TileCoding>& tiles);

// Everything the codestream stage needs besides the coded tiles.
struct EncodeSetup {
  MainHeader main;  // SIZ, COD, QCD/QCC, POC, COM (TLM is added by the stream stage)
  bool mct = false;
  int layers = 1;
  int threads = 1;
  double mct_norms[3] = {1, 1, 1};  // synthesis norms of the inverse MCT per component 0..2
  double container_bytes = 0;       // bytes the output adds around the codestream (JP2 boxes)
  bool gpu = false;                 // transform stage on the GPU (encoder_gpu.h), from --device
  // Whether rate control reads the passes' distortions: not for one lossless layer without a
  // size or quality target, which includes every pass (assemble_codestream); the CPU's Tier-1
  // then leaves them out (entropy::encode_block_within).
  bool distortion = true;
  // An image whose sample buffers the CPU forward stage of tile 0 may take as its planes and
  // transform in place (Encoder::encode(Image&&)): set only for one tile on the CPU when
  // nothing reads the samples after the forward stage (no --psnr measurement).
  Image* reuse_samples = nullptr;
  // The caller's samples when the image is a layout without them (Encoder::encode(layout,
  // InputBuffer)): the forward stages read them from here, checked (codec/input_buffer.h).
  const InputSource* input = nullptr;
};

// gj2k::validate(const Image&) in two halves: the layout (area, components, subsampling,
// sizes, precisions, and with `buffers` the sample buffers' sizes), and every sample inside its
// precision's range. Both throw Error(kInvalidArgument) naming the component (and the first bad
// sample, in raster order).
void validate_layout(const Image& image, bool buffers = true);
void validate_samples(const Image& image);
// make_image(width, height, num_components, precision) with its samples not zeroed: for a
// reader that writes every one of them.
Image make_image_for_overwrite(uint32_t width, uint32_t height, uint32_t num_components,
                               uint32_t precision);
// gj2k::validate(params, image); without `samples`, the sample ranges are left to the caller
// (the GPU encoder checks them as it stages the samples, and calls validate_samples to report);
// without `buffers`, the image is a layout whose samples lie in an input buffer
// (codec/input_buffer.h, which checks them).
void validate(const EncodeParams& params, const Image& image, bool samples, bool buffers = true);

// Builds the main header and setup from the validated params and the (origin-adjusted) image.
EncodeSetup make_setup(const EncodeParams& params, const Image& image);

// The transform stage's result for one tile: per component, its tile-component rectangle
// (B-12) and w x h int32 values (row pitch w) in the Mallat arrangement of dwt.h: the 5/3
// coefficients, or the 9/7 quantization indices q = sign(y) floor(|y| / delta_b): what
// TileBackend::forward makes.
struct TileCoefficients {
  std::vector<transform::Rect> rects;
  std::vector<Samples> data;  // not zero-filled when made: the transform writes every value
};

// Quantization step delta_b of every subband of component c (qcd_index order, 3 levels + 1),
// as the decoder derives it from the main header; all 1 for 5/3.
std::vector<double> band_deltas(const EncodeSetup& setup, uint16_t c, uint32_t precision);

// One code-block of a tile's Tier-1 work (plan_tile).
struct CodeBlockJob {
  uint32_t c, r, b, k;   // component, resolution, band index in the resolution, block index
  transform::Rect rect;  // on the band grid (an empty one codes nothing)
};

// The coding plan of tile t: layouts, per band the quantization (M_b, E-2), step and
// distortion weight with one empty BlockCoding per code-block, and `jobs` (cleared first): one
// per code-block of the non-empty bands, in component, resolution, band, raster order.
TileCoding plan_tile(const Image& image, const EncodeSetup& setup, uint32_t t,
                     std::vector<CodeBlockJob>& jobs);

// Where job's first coefficient lies in its tile-component's values (TileCoefficients: the
// Mallat arrangement of `levels` levels, packed rows of the tile-component's width).
size_t job_offset(const TileCoding& tile, int levels, const CodeBlockJob& job);

// The error of a code-block whose coefficients need more magnitude bit-planes than M_b.
std::string guard_bits_message(uint32_t c, uint32_t needed, uint32_t mb);

// Tier-1 (Annex D) of one code-block on the CPU: its values at q (row pitch `stride`) into
// tile's BlockCoding of the job, with the passes' distortions or (without `distortion`) zeros
// there. Returns an empty string, or what went wrong (the message the
// encode then throws with ErrorCode::kInvalidArgument).
std::string code_block(const int32_t* q, size_t stride, uint8_t style, const CodeBlockJob& job,
                       TileCoding& tile, bool distortion);

// Coding stage of tile t: code-block partition, distortion weights and Tier-1 (the current
// pool over the tile's code-blocks). Reads `coeffs`.
TileCoding code_tile(TileCoefficients& coeffs, const Image& image, const EncodeSetup& setup,
                     const EncodeParams& params, uint32_t t);

// The tile backend of an encode: CUDA with setup.gpu, else CPU.
const TileBackend& encode_backend(const EncodeSetup& setup);

// encode_backend(setup).encode: the forward stage (with the serial loop's pipeline, or null)
// and Tier-1.
TileCoding encode_tile(const Image& image, const EncodeSetup& setup, const EncodeParams& params,
                       uint32_t t, ForwardPipeline* pipeline = nullptr);

// The exact squared error (summed over every sample of every component) of the image a decoder
// reconstructs from the passes of layers 0..layer (layer_passes[layer]); codec/encoder_measure.cpp.
double measure_sse(const std::vector<TileCoding>& tiles, const EncodeSetup& setup,
                   const Image& image, size_t layer);

// Rate allocation and codestream assembly: fills every block's layer_passes from the targets
// and returns the codestream (SOC .. EOC). `stats` (may be null) gets layer sizes.
std::vector<uint8_t> assemble_codestream(std::vector<TileCoding>& tiles, EncodeSetup& setup,
                                         const EncodeParams& params, const Image& image,
                                         EncodeStats* stats);

}  // namespace gj2k::codec
