// Tier-1 code-block coder (15444-1 Annex D): the contract between entropy/ and codec/.
// Encoding turns one code-block of quantized indices into coding passes; decoding turns the
// codeword segments Tier-2 delivers back into reconstructed values. Both are reentrant: no
// shared mutable state, so callers may run them over blocks in parallel.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/band.h"
#include "core/hd.h"

namespace gj2k::entropy {

// SPcod/SPcoc code-block style bits (15444-1 Table A.19), as the markers code them; the one
// definition for Tier-1, Tier-2 and the COD/COC reader and writer.
namespace cblk_style {
inline constexpr uint8_t kBypass = 0x01;           // selective arithmetic coding bypass (D.6)
inline constexpr uint8_t kReset = 0x02;            // reset contexts after each pass (D.4.1)
inline constexpr uint8_t kTermAll = 0x04;          // terminate after each pass (D.4.1)
inline constexpr uint8_t kVerticalCausal = 0x08;   // vertically causal context formation (D.7)
inline constexpr uint8_t kPredictableTerm = 0x10;  // predictable termination (D.4.2)
inline constexpr uint8_t kSegmentation = 0x20;     // segmentation symbol after each cleanup (D.5)
inline constexpr uint8_t kAll = 0x3F;              // every Part 1 bit
}  // namespace cblk_style

// Subband orientation (B-15), shared with transform/: core/band.h.
using core::Band;

// (16 bytes: the GPU encoder brings one back per coded pass.)
struct CodedPass {
  double distortion;  // decrease in squared error of the coefficients (in units of the quantized
                      // index, unweighted, midpoint reconstruction) that this pass achieves
  uint32_t end;       // cumulative bytes of the block's data needed to decode through this pass
  bool terminated;    // the MQ/raw codeword segment ends after this pass (TERMALL, bypass...)
};

// Largest code-block the standard allows (A.6.1: width and height <= 1024, w * h <= 4096).
// encode_block and decode_block throw Error kInvalidArgument beyond it.
inline constexpr uint32_t kMaxBlockSide = 1024;
inline constexpr uint32_t kMaxBlockArea = 4096;
inline bool block_size_ok(uint32_t w, uint32_t h) {
  return w <= kMaxBlockSide && h <= kMaxBlockSide && uint64_t{w} * h <= kMaxBlockArea;
}

struct EncodedBlock {
  uint32_t missing_msbs = 0;      // Mb - number of magnitude bit-planes actually coded
  std::vector<uint8_t> data;      // all passes' bytes, concatenated
  std::vector<CodedPass> passes;  // 3*bitplanes - 2 passes at most
};

// Encodes one code-block. q: quantized indices, two's complement, |q| < 2^31, w x h at q with
// row pitch `stride` (elements). mb: the subband's Mb (E-2), >= the magnitude bit count of
// max|q| (kInvalidArgument otherwise), at most 31. style: cblk_style bits.
// Pass ends of non-terminated passes are conservative: decoding the first `end` bytes (Tier-2
// splitting them into segments by passes_in_segment) reproduces exactly that pass's result.
// Pass ends are non-decreasing; the last pass's end is data.size().
EncodedBlock encode_block(const int32_t* q, size_t stride, uint32_t w, uint32_t h, Band band,
                          uint8_t style, uint32_t mb);
// The same, reusing `out`'s storage (for loops over many blocks).
void encode_block(const int32_t* q, size_t stride, uint32_t w, uint32_t h, Band band, uint8_t style,
                  uint32_t mb, EncodedBlock& out);
// The same, except for magnitudes that need more than mb bit-planes: not an error here, it
// returns how many they need (> mb; `out` is then unspecified). Returns 0 when coded. Without
// `distortion` every pass reports distortion 0 (for a caller that includes every pass anyway):
// the same bytes, a little faster.
uint32_t encode_block_within(const int32_t* q, size_t stride, uint32_t w, uint32_t h, Band band,
                             uint8_t style, uint32_t mb, EncodedBlock& out, bool distortion = true);

struct Segment {
  const uint8_t* data;
  uint32_t length;
  uint32_t passes;
};

// Decodes `segments` (codeword segments in order, as Tier-2 delivered them, each with the number
// of passes it holds) of a block with num_bitplanes = mb - missing_msbs coded magnitude
// bit-planes. Output (w x h, row pitch stride): reconstructed values with ONE fractional bit:
//   out = sign * (2*m + (m != 0 && p > 0 ? 2^p : 0))
// where m is the magnitude with its p undecoded low bit-planes zero (midpoint reconstruction,
// r = 1/2, E.1.1.2). Lossless full decode gives out = 2*q. Every sample of the w x h output is
// written. num_bitplanes must be <= 30 (31 would overflow the output: throws Error kUnsupported).
// A segment holding more passes than passes_in_segment allows throws Error kFormat. Passes
// past max_passes(num_bitplanes) (written by some encoders) are ignored, as OpenJPEG does:
// returns how many were, 0 for a conforming block. Truncated/corrupt data never crashes nor
// reads out of bounds: the MQ decoder feeds 0xFF past a segment's end (C.3.4).
uint32_t decode_block(const Segment* segments, size_t num_segments, uint32_t num_bitplanes,
                      Band band, uint8_t style, int32_t* out, size_t stride, uint32_t w,
                      uint32_t h);
// decode_block's checks without decoding (for the GPU decode's table, which lists only blocks
// that pass): throws what decode_block throws, returns the passes it would ignore, and sets
// *decoded to the passes it would decode (0: it would only write zeros).
uint32_t check_block(const Segment* segments, size_t num_segments, uint32_t num_bitplanes,
                     Band band, uint8_t style, uint32_t w, uint32_t h, uint64_t* decoded);

// ---- Segment rules for Tier-2 (15444-1 D.4, D.6, Table D.9) --------------------------------
// Passes are indexed from 0 (the cleanup pass of the most significant coded bit-plane), then
// SPP, MRP, CUP for each following bit-plane.

// Most passes a codeword segment starting at pass `first_pass_index` may hold: 1 with TERMALL;
// with BYPASS alone, up to pass 9 (the 4th bit-plane's cleanup) for the first segment, then
// 2 (raw SPP+MRP) or 1 (raw MRP, MQ cleanup); otherwise unlimited (UINT32_MAX).
uint32_t passes_in_segment(uint8_t style, uint32_t first_pass_index);

// True when a segment ends after pass `pass_index` (regardless of the block's last pass, which
// always ends one).
bool pass_ends_segment(uint8_t style, uint32_t pass_index);

// True when pass `pass_index` is coded raw (bypass) rather than with the MQ coder.
bool pass_is_raw(uint8_t style, uint32_t pass_index);

// What Tier-2 codes for the passes [first, last) of an encoded block that one packet includes
// (B.10.7.2): one piece per codeword segment touched, each with its passes and the byte range
// of the block's data it adds (offset, length). Pieces end at segment ends or at `last`; a
// later packet continues an unfinished segment with a new piece. Requires
// first <= last <= b.passes.size().
struct SegmentPiece {
  uint32_t first_pass;
  uint32_t passes;
  uint32_t offset;
  uint32_t length;
};
std::vector<SegmentPiece> segment_pieces(const EncodedBlock& b, uint32_t first, uint32_t last);

// Most passes a block with `num_bitplanes` coded bit-planes has: 3*n - 2 (0 for n = 0).
GJ2K_HD_INLINE uint32_t max_passes(uint32_t num_bitplanes) {
  return num_bitplanes == 0 ? 0 : 3 * num_bitplanes - 2;
}

}  // namespace gj2k::entropy
