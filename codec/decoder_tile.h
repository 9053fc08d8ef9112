// Decoding one tile of a parsed codestream (ISO/IEC 15444-1 Annexes B to G, backwards):
// Tier-2 packets in progression order -> codeword segments per code-block -> Tier-1 ->
// ROI max-shift undo (H.1) -> dequantization (E.1) -> inverse DWT (F.4) -> inverse MCT (G.2,
// G.3) -> inverse DC level shift (G.1.2) -> clipping to the component's range.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "codec/markers/codestream.h"
#include "codec/tile_backend.h"
#include "gj2k/image.h"
#include "transform/geometry.h"

namespace gj2k::codec {

class GpuWarmUp;

struct TileDecodeOptions {
  uint32_t reduce = 0;      // resolution levels discarded (<= every decoded component's NL)
  uint32_t max_layers = 0;  // 0: all
  // Only code-blocks whose wavelet support reaches this area of the reference grid
  // (full-resolution coordinates) are decoded; samples outside it are unspecified.
  std::optional<transform::Rect> region;
  std::vector<bool> components;  // Csiz entries: which components to return
  bool allow_partial = false;    // stop at damaged or missing data instead of throwing
  bool skip_mct = false;         // leave components 0..2 without the inverse RCT/ICT
  // Set when the GPU may be used (--device auto or gpu): decode_tile asks it, once Tier-2 has
  // read the tile, whether the rest (Tier-1, reconstruction, inverse DWT, MCT, DC shift) runs
  // on the GPU (cuda_decode_tile, tile_backend.h; gpu_warm_up.h); or, when the process has
  // started the GPU already, before Tier-2, for a large tile of one tile-part, which is then
  // decoded in parts (GpuTileDecode: Tier-1 of the resolutions Tier-2 has finished starts
  // while it reads the rest).
  const GpuWarmUp* gpu = nullptr;
  // Set by Decoder::decode_into: the GPU path packs the wanted components' final samples
  // straight into this buffer (their TileComponentSamples come back `packed`, without
  // samples); the CPU path returns samples as usual and the decoder packs them.
  const PackTarget* pack = nullptr;
  int threads = 1;
};

// Decodes tile `t` of `code` (parsed from `cs`). Returns one entry per component (Csiz).
// Throws gj2k::Error naming the tile and what was wrong; with allow_partial, damaged packet
// data ends the tile's packet sequence and what was read is decoded. `warnings` (optional)
// receives one line per quirk accepted or piece of data skipped.
std::vector<TileComponentSamples> decode_tile(std::span<const uint8_t> cs, const Codestream& code,
                                              uint32_t t, const TileDecodeOptions& options,
                                              std::vector<std::string>* warnings = nullptr);

// What the GPU decode of tile `t` starts from, built on the host as decode_tile builds it for
// cuda_decode_tile (Tier-2, then the code-block table), on any machine: for tests that decode
// the table on the host and for benchmarks. `planes` give the geometry (no coefficient
// buffers). The table's source is a span of `cs` or, for a tile of several tile-parts, of
// `joined` (moving the result keeps it valid).
struct TileBlockTable {
  std::vector<CoefficientPlane> planes;
  CodeBlockTable table;
  bool mct = false;  // the inverse MCT applies to components 0..2
  std::vector<uint8_t> joined;
};
TileBlockTable tile_block_table(std::span<const uint8_t> cs, const Codestream& code, uint32_t t,
                                const TileDecodeOptions& options,
                                std::vector<std::string>* warnings = nullptr);

// The code-block tables of tile `t` in the parts of decode_tile's GPU decode of a large tile, on
// any machine, for tests: up to `parts` (0: the decoder's number, 2 unless GJ2K_GPU_T2_PARTS
// says; at most 3). The early ones (none when no complete resolutions held a fifth of the
// code-blocks before Tier-2's end; a second when those completed after held another tenth) are
// built from inside Tier-2 from the resolutions it has finished, the last after it from the
// rest; together they list the blocks of tile_block_table, each once, with the same errors and
// warnings. The sources are spans of `cs` or of `joined`.
struct TileBlockParts {
  std::vector<CodeBlockTable> tables;
  std::vector<uint8_t> joined;
};
TileBlockParts tile_block_parts(std::span<const uint8_t> cs, const Codestream& code, uint32_t t,
                                const TileDecodeOptions& options,
                                std::vector<std::string>* warnings = nullptr, size_t parts = 0);

// A bound on the coefficient buffers decode_tile would allocate (samples), to refuse absurd
// headers before allocating.
uint64_t tile_samples(const Codestream& code, uint32_t t, const TileDecodeOptions& options);

}  // namespace gj2k::codec
