// Tier-1 code-block encoder (15444-1 Annex D), the mirror of t1_dec.cpp: the host-device
// coder of t1_enc_block.h with the constexpr tables and stripe-major values on the stack, its
// statuses turned into the exceptions of t1.h's contract; and the segment rules Tier-2 uses.
#include <memory>
#include <string>

#include "core/isa.h"
#include "entropy/t1.h"
#include "entropy/t1_enc_block.h"
#include "entropy/t1_v3.h"
#include "gj2k/error.h"

namespace gj2k::entropy {

using namespace t1;

uint32_t passes_in_segment(uint8_t style, uint32_t first_pass_index) {
  return segment_pass_limit(style, first_pass_index);
}

bool pass_ends_segment(uint8_t style, uint32_t pass_index) {
  return segment_ends(style, pass_index);
}

bool pass_is_raw(uint8_t style, uint32_t pass_index) {
  return raw_pass(style, pass_index);
}

std::vector<SegmentPiece> segment_pieces(const EncodedBlock& b, uint32_t first, uint32_t last) {
  if (first > last || last > b.passes.size()) {
    throw Error(ErrorCode::kInvalidArgument, "segment_pieces: pass range out of bounds");
  }
  std::vector<SegmentPiece> pieces;
  uint32_t offset = first == 0 ? 0 : b.passes[first - 1].end;
  uint32_t start = first;
  for (uint32_t i = first; i < last; ++i) {
    if (b.passes[i].terminated || i + 1 == last) {
      pieces.push_back({start, i - start + 1, offset, b.passes[i].end - offset});
      offset = b.passes[i].end;
      start = i + 1;
    }
  }
  return pieces;
}

uint32_t encode_block_within(const int32_t* q, size_t stride, uint32_t w, uint32_t h, Band band,
                             uint8_t style, uint32_t mb, EncodedBlock& out, bool distortion) {
  out.data.clear();
  out.passes.clear();
  if (mb > 31) {
    throw Error(ErrorCode::kInvalidArgument,
                "Tier-1 encode: Mb " + std::to_string(mb) + " exceeds 31 bit-planes");
  }
  if (static_cast<uint8_t>(band) > 3) {
    throw Error(ErrorCode::kInvalidArgument, "Tier-1 encode: band orientation out of range");
  }
  if (!block_size_ok(w, h)) {
    throw Error(ErrorCode::kInvalidArgument, "Tier-1 encode: code-block " + std::to_string(w) +
                                                 "x" + std::to_string(h) +
                                                 " exceeds 1024 per side or 4096 samples");
  }
  // Working memory for the largest block the standard allows; one instantiation per
  // orientation, whose zero-coding table is then a constant address. The data is coded into
  // the thread's scratch buffer (not zero-filled; kept between blocks), from the default budget
  // doubling until the block fits, and only its bytes are copied out.
  uint32_t state[kMaxStateWords];
  uint32_t values[kMaxValueWords];
  CodedPass passes[kMaxPasses];
  thread_local std::unique_ptr<uint8_t[]> scratch;
  thread_local size_t scratch_bytes = 0;
  EncodeResult result;
  EncodeStatus status = EncodeStatus::kOverflow;
  for (size_t capacity = encode_budget(w, h, mb); status == EncodeStatus::kOverflow;
       capacity *= 2) {
    if (scratch_bytes < capacity) {
      scratch = std::make_unique_for_overwrite<uint8_t[]>(capacity);
      scratch_bytes = capacity;
    }
#if GJ2K_HAVE_ISA_V3
    if (core::use_isa_v3()) {
      status = static_cast<EncodeStatus>(v3::encode_checked(
          static_cast<int>(band), distortion, q, stride, w, h, style, mb, scratch.get(),
          static_cast<uint32_t>(capacity), passes, state, values, &result));
      continue;
    }
#endif
    auto run = [&]<int kBand>() {
      auto code = [&]<bool kDist>() {
        return encode_checked<true, ConstEncBandTables<kBand>, kDist>(
            ConstEncBandTables<kBand>{}, q, stride, w, h, style, mb, scratch.get(),
            static_cast<uint32_t>(capacity), passes, state, values, &result);
      };
      return distortion ? code.template operator()<true>() : code.template operator()<false>();
    };
    switch (band) {
      case Band::kLL:
        status = run.template operator()<0>();
        break;
      case Band::kHL:
        status = run.template operator()<1>();
        break;
      case Band::kLH:
        status = run.template operator()<2>();
        break;
      case Band::kHH:
        status = run.template operator()<3>();
        break;
    }
  }
  // A magnitude of 2^31 needs 32 planes, more than any Mb.
  if (status == EncodeStatus::kMinValue) return 32;
  if (status == EncodeStatus::kTooFewPlanes) return result.planes;
  out.data.assign(scratch.get(), scratch.get() + result.bytes);
  out.passes.assign(passes, passes + result.passes);
  out.missing_msbs = mb - result.planes;
  return 0;
}

void encode_block(const int32_t* q, size_t stride, uint32_t w, uint32_t h, Band band, uint8_t style,
                  uint32_t mb, EncodedBlock& out) {
  const uint32_t planes = encode_block_within(q, stride, w, h, band, style, mb, out);
  if (planes > 31) {
    for (uint32_t y = 0; y < h; ++y)
      for (uint32_t x = 0; x < w; ++x)
        if (q[y * stride + x] == INT32_MIN)
          throw Error(ErrorCode::kInvalidArgument, "Tier-1 encode: |q| = 2^31 at (" +
                                                       std::to_string(x) + ", " +
                                                       std::to_string(y) + ")");
  }
  if (planes != 0) {
    throw Error(ErrorCode::kInvalidArgument, "Tier-1 encode: magnitudes need " +
                                                 std::to_string(planes) + " bit-planes, Mb is " +
                                                 std::to_string(mb));
  }
}

EncodedBlock encode_block(const int32_t* q, size_t stride, uint32_t w, uint32_t h, Band band,
                          uint8_t style, uint32_t mb) {
  EncodedBlock out;
  encode_block(q, stride, w, h, band, style, mb, out);
  return out;
}

}  // namespace gj2k::entropy
