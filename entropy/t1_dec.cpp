// Tier-1 code-block decoder (15444-1 Annex D), the mirror of t1_enc.cpp: the host-device
// decoder of t1_dec_block.h with the constexpr tables and stripe-major values on the stack,
// its statuses turned into the exceptions of t1.h's contract.
#include <algorithm>
#include <string>

#include "core/isa.h"
#include "entropy/t1.h"
#include "entropy/t1_dec_block.h"
#include "entropy/t1_v3.h"
#include "gj2k/error.h"

namespace gj2k::entropy {

uint32_t check_block(const Segment* segments, size_t num_segments, uint32_t num_bitplanes,
                     Band band, uint8_t style, uint32_t w, uint32_t h, uint64_t* decoded) {
  switch (t1::check_arguments(num_bitplanes, static_cast<uint32_t>(band), w, h)) {
    case t1::BlockStatus::kOk:
      break;
    case t1::BlockStatus::kTooManyPlanes:
      throw Error(ErrorCode::kUnsupported,
                  "Tier-1 decode: " + std::to_string(num_bitplanes) +
                      " coded bit-planes (at most 30 fit the output with one fractional bit)");
    default:
      if (static_cast<uint8_t>(band) > 3) {
        throw Error(ErrorCode::kInvalidArgument, "Tier-1 decode: band orientation out of range");
      }
      throw Error(ErrorCode::kInvalidArgument, "Tier-1 decode: code-block " + std::to_string(w) +
                                                   "x" + std::to_string(h) +
                                                   " exceeds 1024 per side or 4096 samples");
  }
  const t1::Segments list{segments};
  const uint64_t total = t1::total_passes(list, num_segments);
  *decoded = std::min<uint64_t>(total, max_passes(num_bitplanes));
  const auto ignored = static_cast<uint32_t>(std::min<uint64_t>(total - *decoded, UINT32_MAX));
  if (*decoded == 0 || w == 0 || h == 0) return ignored;
  size_t bad = 0;
  uint32_t first_pass = 0;
  switch (t1::check_segments(list, num_segments, num_bitplanes, style, &bad, &first_pass)) {
    case t1::BlockStatus::kOk:
      break;
    case t1::BlockStatus::kSegmentPasses:
      throw Error(ErrorCode::kFormat, "Tier-1 decode: codeword segment " + std::to_string(bad) +
                                          " starting at pass " + std::to_string(first_pass) +
                                          " holds " + std::to_string(segments[bad].passes) +
                                          " passes, more than the code-block style allows");
    default:
      throw Error(ErrorCode::kInvalidArgument, "Tier-1 decode: segment without data");
  }
  return ignored;
}

uint32_t decode_block(const Segment* segments, size_t num_segments, uint32_t num_bitplanes,
                      Band band, uint8_t style, int32_t* out, size_t stride, uint32_t w,
                      uint32_t h) {
  uint64_t decoded = 0;
  const uint32_t ignored =
      check_block(segments, num_segments, num_bitplanes, band, style, w, h, &decoded);
  if (decoded == 0 || w == 0 || h == 0) {
    t1::zero_output(out, stride, w, h);
    return ignored;
  }
  // Working memory for the largest block the standard allows; one instantiation per
  // orientation, whose zero-coding table is then a constant address.
  uint32_t state[t1::kMaxStateWords];
  uint32_t values[t1::kMaxValueWords];
#if GJ2K_HAVE_ISA_V3
  if (core::use_isa_v3()) {
    v3::run_block(static_cast<int>(band), segments, num_segments, num_bitplanes, style, out, stride,
                  w, h, state, values);
    return ignored;
  }
#endif
  const t1::Segments list{segments};
  auto run = [&]<int kBand>() {
    t1::run_block_in_mode<true>(t1::ConstBandTables<kBand>{}, list, num_segments, num_bitplanes,
                                style, out, stride, w, h, state, values);
  };
  switch (band) {
    case Band::kLL:
      run.template operator()<0>();
      break;
    case Band::kHL:
      run.template operator()<1>();
      break;
    case Band::kLH:
      run.template operator()<2>();
      break;
    case Band::kHH:
      run.template operator()<3>();
      break;
  }
  return ignored;
}

}  // namespace gj2k::entropy
