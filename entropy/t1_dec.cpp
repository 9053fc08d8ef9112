// Tier-1 code-block decoder (15444-1 Annex D), the mirror of t1_enc.cpp. Reconstructs with one
// fractional bit and the midpoint rule (E.1.1.2) for planes not decoded.
#include <algorithm>
#include <string>

#include "entropy/mq_dec.h"
#include "entropy/t1.h"
#include "entropy/t1_context.h"
#include "gj2k/error.h"

namespace gj2k::entropy {

using namespace t1;

namespace {

// Value (one fractional bit) of a sample that becomes significant at plane p: 2 * 2^p plus the
// midpoint 2^p of the p planes below, when there are any.
inline uint32_t first_value(uint32_t p) {
  return p > 0 ? 3u << p : 2u;
}

// kVc: vertically causal contexts (D.7), a template parameter so that the common case pays
// nothing for it.
template <bool kVc>
struct Decoder {
  uint32_t w, h, pitch;
  const uint8_t* zc;
  std::vector<uint32_t> state;  // (h + 2) x pitch
  std::vector<uint32_t> val;    // w x h magnitudes, one fractional bit
  uint8_t ctx[kNumContexts];
  MqDecoder mq;
  RawDecoder raw;

  void reset_contexts() {
    for (int i = 0; i < kNumContexts; ++i)
      ctx[i] = static_cast<uint8_t>(2 * initial_state_index(i));
  }
  uint32_t* st(uint32_t x, uint32_t y) { return &state[(y + 1) * pitch + x + 1]; }
  uint32_t row_mask(uint32_t y) const { return (kVc && (y & 3) == 3) ? ~kSouth : ~0u; }

  template <bool kRaw, typename Coder>
  GJ2K_ALWAYS_INLINE void decode_sign(Coder& c, uint8_t* cx, uint32_t* f, uint32_t y, uint32_t* v,
                                      uint32_t p) {
    uint32_t neg;
    if constexpr (kRaw) {
      neg = c.bit();
    } else {
      const uint32_t sc = kScTable[sc_index(*f & row_mask(y))];
      neg = c.decode(cx[sc & 0x1F]) ^ (sc >> 7);
    }
    set_significant(f, pitch, neg);
    *v = first_value(p);
  }

  // The coder and contexts are copied to locals for each pass so that they stay in registers
  // (stores to the state array and to contexts could otherwise alias them).

  // Significance propagation pass (D.3.1); raw in bypass mode (D.6).
  template <bool kRaw>
  void spp(uint32_t p) {
    if constexpr (kRaw) {
      RawDecoder c = raw;
      spp_impl<true>(c, ctx, p);
      raw = c;
    } else {
      MqDecoder c = mq;
      uint8_t cx[kNumContexts];
      std::copy_n(ctx, kNumContexts, cx);
      spp_impl<false>(c, cx, p);
      mq = c;
      std::copy_n(cx, kNumContexts, ctx);
    }
  }
  template <bool kRaw, typename Coder>
  inline void spp_impl(Coder& c, uint8_t* cx, uint32_t p) {
    for (uint32_t y0 = 0; y0 < h; y0 += 4) {
      const uint32_t y1 = std::min(y0 + 4, h);
      for (uint32_t x = 0; x < w; ++x) {
        uint32_t* f = st(x, y0);
        if (y1 - y0 == 4) {
          // Nothing to code in a column with no significant neighbour, or all significant.
          const uint32_t any = f[0] | f[pitch] | f[2 * pitch] | f[3 * pitch];
          const uint32_t all = f[0] & f[pitch] & f[2 * pitch] & f[3 * pitch];
          if (any == 0 || (all & kSig)) continue;
        }
        uint32_t* v = &val[y0 * w + x];
        for (uint32_t y = y0; y < y1; ++y, f += pitch, v += w) {
          const uint32_t fm = *f & row_mask(y);
          if ((fm & (kSig | kNeighbours)) - 1u >= kNeighbours) continue;  // sig, or no neighbour
          uint32_t bit;
          if constexpr (kRaw) {
            bit = c.bit();
          } else {
            bit = c.decode(cx[zc[fm & kNeighbours]]);
          }
          *f |= kVisit;
          if (bit) decode_sign<kRaw>(c, cx, f, y, v, p);
        }
      }
    }
  }

  // Magnitude refinement pass (D.3.3); raw in bypass mode.
  template <bool kRaw>
  void mrp(uint32_t p) {
    if constexpr (kRaw) {
      RawDecoder c = raw;
      mrp_impl<true>(c, ctx, p);
      raw = c;
    } else {
      MqDecoder c = mq;
      uint8_t cx[kNumContexts];
      std::copy_n(ctx, kNumContexts, cx);
      mrp_impl<false>(c, cx, p);
      mq = c;
      std::copy_n(cx, kNumContexts, ctx);
    }
  }
  template <bool kRaw, typename Coder>
  inline void mrp_impl(Coder& c, uint8_t* cx, uint32_t p) {
    // out' = out - 2^(p+1) (bit 0) or out (bit 1), plus the new midpoint 2^p when p > 0.
    const uint32_t half = p > 0 ? 1u << p : 0u;
    const uint32_t drop = 2u << p;
    for (uint32_t y0 = 0; y0 < h; y0 += 4) {
      const uint32_t y1 = std::min(y0 + 4, h);
      for (uint32_t x = 0; x < w; ++x) {
        uint32_t* f = st(x, y0);
        if (y1 - y0 == 4 && ((f[0] | f[pitch] | f[2 * pitch] | f[3 * pitch]) & kSig) == 0) continue;
        uint32_t* v = &val[y0 * w + x];
        for (uint32_t y = y0; y < y1; ++y, f += pitch, v += w) {
          if ((*f & (kSig | kVisit)) != kSig) continue;
          uint32_t bit;
          if constexpr (kRaw) {
            bit = c.bit();
          } else {
            bit = c.decode(cx[mr_context(*f & row_mask(y))]);
          }
          *f |= kRefined;
          *v = *v - (bit ? 0 : drop) + half;
        }
      }
    }
  }

  // Cleanup pass with run-length mode (D.3.4); clears the SPP visit marks.
  void cup(uint32_t p) {
    MqDecoder c = mq;
    uint8_t cx[kNumContexts];
    std::copy_n(ctx, kNumContexts, cx);
    for (uint32_t y0 = 0; y0 < h; y0 += 4) {
      const uint32_t y1 = std::min(y0 + 4, h);
      for (uint32_t x = 0; x < w; ++x) {
        uint32_t* f = st(x, y0);
        uint32_t* v = &val[y0 * w + x];
        uint32_t y = y0;
        if (y1 - y0 == 4 && ((f[0] | f[pitch] | f[2 * pitch] | (f[3 * pitch] & row_mask(y0 + 3))) &
                             (kSig | kVisit | kNeighbours)) == 0) {
          if (!c.decode(cx[kCtxRl])) continue;
          uint32_t r = c.decode(cx[kCtxUni]) << 1;
          r |= c.decode(cx[kCtxUni]);
          f += r * pitch;
          v += r * w;
          y += r;
          decode_sign<false>(c, cx, f, y, v, p);
          f += pitch;
          v += w;
          ++y;
        }
        for (; y < y1; ++y, f += pitch, v += w) {
          const uint32_t fm = *f & row_mask(y);
          if (!(fm & (kSig | kVisit))) {
            if (c.decode(cx[zc[fm & kNeighbours]])) decode_sign<false>(c, cx, f, y, v, p);
          }
          *f &= ~kVisit;
        }
      }
    }
    mq = c;
    std::copy_n(cx, kNumContexts, ctx);
  }
};

// The pass loop over the segments (arguments checked by decode_block).
template <bool kVc>
void run_decoder(const Segment* segments, size_t num_segments, uint32_t num_bitplanes,
                 BandKind band, uint8_t style, int32_t* out, size_t stride, uint32_t w,
                 uint32_t h) {
  Decoder<kVc> d;
  d.w = w;
  d.h = h;
  d.pitch = w + 2;
  d.zc = kZcTable[static_cast<uint8_t>(band)].data();
  d.state.assign(static_cast<size_t>(h + 2) * d.pitch, 0);
  d.val.assign(static_cast<size_t>(w) * h, 0);
  d.reset_contexts();

  uint32_t i = 0;
  for (size_t s = 0; s < num_segments; ++s) {
    const Segment& seg = segments[s];
    if (seg.passes == 0) continue;
    if (seg.passes > passes_in_segment(style, i)) {
      throw Error(ErrorCode::kFormat, "Tier-1 decode: codeword segment " + std::to_string(s) +
                                          " starting at pass " + std::to_string(i) + " holds " +
                                          std::to_string(seg.passes) +
                                          " passes, more than the code-block style allows");
    }
    if (seg.length > 0 && seg.data == nullptr) {
      throw Error(ErrorCode::kInvalidArgument, "Tier-1 decode: segment without data");
    }
    const bool raw = pass_is_raw(style, i);
    if (raw) {
      d.raw.init(seg.data, seg.length);
    } else {
      d.mq.init(seg.data, seg.length);
    }
    for (uint32_t k = 0; k < seg.passes; ++k, ++i) {
      const uint32_t p = pass_plane(i, num_bitplanes);
      switch (pass_kind(i)) {
        case PassKind::kSignificance:
          raw ? d.template spp<true>(p) : d.template spp<false>(p);
          break;
        case PassKind::kRefinement:
          raw ? d.template mrp<true>(p) : d.template mrp<false>(p);
          break;
        case PassKind::kCleanup:
          d.cup(p);
          if (style & kSegmentationSymbols) {
            // D.5: the symbol 1010; a mismatch would flag an error for concealment, which
            // this decoder does not attempt.
            for (int b = 0; b < 4; ++b) d.mq.decode(d.ctx[kCtxUni]);
          }
          break;
      }
      if (style & kResetProbabilities) d.reset_contexts();
    }
  }

  for (uint32_t y = 0; y < h; ++y) {
    const uint32_t* f = d.st(0, y);
    const uint32_t* v = &d.val[y * w];
    int32_t* o = out + y * stride;
    for (uint32_t x = 0; x < w; ++x) {
      const int32_t m = static_cast<int32_t>(v[x]);
      o[x] = (f[x] & kNeg) ? -m : m;
    }
  }
}

}  // namespace

void decode_block(const Segment* segments, size_t num_segments, uint32_t num_bitplanes,
                  BandKind band, uint8_t style, int32_t* out, size_t stride, uint32_t w,
                  uint32_t h) {
  if (num_bitplanes > 30) {
    throw Error(ErrorCode::kUnsupported,
                "Tier-1 decode: " + std::to_string(num_bitplanes) +
                    " coded bit-planes (at most 30 fit the output with one fractional bit)");
  }
  if (static_cast<uint8_t>(band) > 3) {
    throw Error(ErrorCode::kInvalidArgument, "Tier-1 decode: band orientation out of range");
  }
  if (!block_size_ok(w, h)) {
    throw Error(ErrorCode::kInvalidArgument, "Tier-1 decode: code-block " + std::to_string(w) +
                                                 "x" + std::to_string(h) +
                                                 " exceeds 1024 per side or 4096 samples");
  }
  uint64_t total = 0;
  for (size_t s = 0; s < num_segments; ++s) total += segments[s].passes;
  if (total > max_passes(num_bitplanes)) {
    throw Error(ErrorCode::kFormat, "Tier-1 decode: " + std::to_string(total) +
                                        " coding passes for " + std::to_string(num_bitplanes) +
                                        " bit-planes (at most " +
                                        std::to_string(max_passes(num_bitplanes)) + ")");
  }
  for (uint32_t y = 0; y < h; ++y) std::fill_n(out + y * stride, w, 0);
  if (total == 0 || w == 0 || h == 0) return;

  if (style & kVerticallyCausal) {
    run_decoder<true>(segments, num_segments, num_bitplanes, band, style, out, stride, w, h);
  } else {
    run_decoder<false>(segments, num_segments, num_bitplanes, band, style, out, stride, w, h);
  }
}

}  // namespace gj2k::entropy
