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
// nothing for it. State: one word per stripe column (t1_context.h); values: four per stripe
// column, stripe-major, one fractional bit.
template <bool kVc, int kBand>
struct Decoder {
  static constexpr const uint8_t* zc = kZcTable[kBand].data();  // a constant address
  uint32_t w, h, pitch, stripes;
  std::vector<uint32_t> state;  // (stripes + 2) x pitch
  std::vector<uint32_t> val;    // stripes x w x 4 magnitudes
  uint8_t ctx[kNumContexts];
  MqDecoder mq;
  RawDecoder raw;

  void reset_contexts() {
    for (int i = 0; i < kNumContexts; ++i)
      ctx[i] = static_cast<uint8_t>(2 * initial_state_index(i));
  }
  uint32_t* col(size_t s) { return &state[(s + 1) * pitch + 1]; }
  uint32_t rows(size_t s) const { return static_cast<uint32_t>(std::min<size_t>(4, h - 4 * s)); }

  // Sign decoding (D.3.2) of a sample of row r found significant, then its state update.
  template <bool kRaw, typename Coder>
  GJ2K_ALWAYS_INLINE void decode_sign(Coder& c, uint8_t* cx, uint32_t* f, uint32_t& word, int r,
                                      uint32_t* v, uint32_t first) {
    uint32_t neg;
    if constexpr (kRaw) {
      neg = c.bit();
    } else {
      const uint32_t sc = kScTable[sc_index(word, f[-1], f[1], r)];
      neg = c.decode(cx[sc & 0x1F]) ^ (sc >> 7);
    }
    word |= set_significant<kVc>(f, pitch, r, neg);
    v[r] = first;
  }

  // Each pass runs on local copies of the coder and contexts (with_local_coder, t1_context.h).

  // Significance propagation pass (D.3.1); raw in bypass mode (D.6).
  template <bool kRaw>
  GJ2K_NOINLINE void spp(uint32_t p) {
    const auto pass = [&](auto& c, uint8_t* cx) { spp_impl<kRaw>(c, cx, p); };
    if constexpr (kRaw)
      with_local_coder<false>(raw, ctx, pass);
    else
      with_local_coder<true>(mq, ctx, pass);
  }
  template <bool kRaw, typename Coder>
  GJ2K_ALWAYS_INLINE void spp_row(Coder& c, uint8_t* cx, uint32_t* f, uint32_t& word, int r,
                                  uint32_t* v, uint32_t first) {
    const uint32_t n = window(word, r);
    if ((n & kWindowSelf) || !(n & kWindowNeighbours)) return;  // sig, or no neighbour
    uint32_t bit;
    if constexpr (kRaw) {
      bit = c.bit();
    } else {
      bit = c.decode(cx[zc[n]]);
    }
    word |= visit_bit(r);
    if (bit) decode_sign<kRaw>(c, cx, f, word, r, v, first);
  }
  template <bool kRaw, typename Coder>
  inline void spp_impl(Coder& c, uint8_t* cx, uint32_t p) {
    const uint32_t first = first_value(p);
    for (size_t s = 0; s < stripes; ++s) {
      const uint32_t nr = rows(s);
      uint32_t* f = col(s);
      uint32_t* v = &val[s * w * 4];
      // Nothing to code with no significant sample around, or all four significant.
      if (nr == 4) {
        for (uint32_t* const fe = f + w; f != fe; ++f, v += 4) {
          uint32_t word = *f;
          if ((word & kSigAll) == 0 || (word & kOwnSig) == kOwnSig) continue;
          spp_row<kRaw>(c, cx, f, word, 0, v, first);
          spp_row<kRaw>(c, cx, f, word, 1, v, first);
          spp_row<kRaw>(c, cx, f, word, 2, v, first);
          spp_row<kRaw>(c, cx, f, word, 3, v, first);
          *f = word;
        }
      } else {
        for (uint32_t* const fe = f + w; f != fe; ++f, v += 4) {
          uint32_t word = *f;
          if ((word & kSigAll) == 0) continue;
          for (uint32_t r = 0; r < nr; ++r) spp_row<kRaw>(c, cx, f, word, int(r), v, first);
          *f = word;
        }
      }
    }
  }

  // Magnitude refinement pass (D.3.3); raw in bypass mode.
  template <bool kRaw>
  GJ2K_NOINLINE void mrp(uint32_t p) {
    const auto pass = [&](auto& c, uint8_t* cx) { mrp_impl<kRaw>(c, cx, p); };
    if constexpr (kRaw)
      with_local_coder<false>(raw, ctx, pass);
    else
      with_local_coder<true>(mq, ctx, pass);
  }
  // out' = out - 2^(p+1) (bit 0) or out (bit 1), plus the new midpoint 2^p when p > 0.
  template <bool kRaw, typename Coder>
  GJ2K_ALWAYS_INLINE void mrp_row(Coder& c, uint8_t* cx, uint32_t& word, int r, uint32_t* v,
                                  uint32_t up, uint32_t down) {
    if ((word & (sig_bit(r, 0) | visit_bit(r))) != sig_bit(r, 0)) return;
    uint32_t bit;
    if constexpr (kRaw) {
      bit = c.bit();
    } else {
      bit = c.decode(cx[mr_context(word, r)]);
    }
    word |= refined_bit(r);
    v[r] += bit ? up : down;
  }
  template <bool kRaw, typename Coder>
  inline void mrp_impl(Coder& c, uint8_t* cx, uint32_t p) {
    const uint32_t half = p > 0 ? 1u << p : 0u;
    const uint32_t drop = 2u << p;
    const uint32_t up = half, down = half - drop;  // mod 2^32: the result is never negative
    for (size_t s = 0; s < stripes; ++s) {
      const uint32_t nr = rows(s);
      uint32_t* f = col(s);
      uint32_t* v = &val[s * w * 4];
      if (nr == 4) {
        for (uint32_t* const fe = f + w; f != fe; ++f, v += 4) {
          uint32_t word = *f;
          if ((word & kOwnSig) == 0) continue;
          mrp_row<kRaw>(c, cx, word, 0, v, up, down);
          mrp_row<kRaw>(c, cx, word, 1, v, up, down);
          mrp_row<kRaw>(c, cx, word, 2, v, up, down);
          mrp_row<kRaw>(c, cx, word, 3, v, up, down);
          *f = word;
        }
      } else {
        for (uint32_t* const fe = f + w; f != fe; ++f, v += 4) {
          uint32_t word = *f;
          if ((word & kOwnSig) == 0) continue;
          for (uint32_t r = 0; r < nr; ++r) mrp_row<kRaw>(c, cx, word, int(r), v, up, down);
          *f = word;
        }
      }
    }
  }

  // Cleanup pass with run-length mode (D.3.4); clears the SPP visit marks.
  GJ2K_ALWAYS_INLINE void cup_row(MqDecoder& c, uint8_t* cx, uint32_t* f, uint32_t& word, int r,
                                  uint32_t* v, uint32_t first) {
    if (word & (sig_bit(r, 0) | visit_bit(r))) return;
    if (c.decode(cx[zc[window(word, r)]])) decode_sign<false>(c, cx, f, word, r, v, first);
  }
  GJ2K_NOINLINE void cup(uint32_t p) {
    const uint32_t first = first_value(p);
    with_local_coder<true>(mq, ctx, [&](MqDecoder& c, uint8_t* cx) {
      for (size_t s = 0; s < stripes; ++s) {
        const uint32_t nr = rows(s);
        uint32_t* f = col(s);
        uint32_t* v = &val[s * w * 4];
        if (nr == 4) {
          for (uint32_t* const fe = f + w; f != fe; ++f, v += 4) {
            uint32_t word = *f;
            if ((word & (kSigAll | kVisitAll)) == 0) {
              // Run-length mode: four insignificant samples with insignificant neighbourhoods.
              if (!c.decode(cx[kCtxRl])) continue;
              uint32_t r = c.decode(cx[kCtxUni]) << 1;
              r |= c.decode(cx[kCtxUni]);
              decode_sign<false>(c, cx, f, word, int(r), v, first);
              switch (r) {
                case 0:
                  cup_row(c, cx, f, word, 1, v, first);
                  [[fallthrough]];
                case 1:
                  cup_row(c, cx, f, word, 2, v, first);
                  [[fallthrough]];
                case 2:
                  cup_row(c, cx, f, word, 3, v, first);
                  break;
                default:
                  break;
              }
            } else {
              cup_row(c, cx, f, word, 0, v, first);
              cup_row(c, cx, f, word, 1, v, first);
              cup_row(c, cx, f, word, 2, v, first);
              cup_row(c, cx, f, word, 3, v, first);
            }
            *f = word & ~kVisitAll;
          }
        } else {
          for (uint32_t* const fe = f + w; f != fe; ++f, v += 4) {
            uint32_t word = *f;
            for (uint32_t r = 0; r < nr; ++r) cup_row(c, cx, f, word, int(r), v, first);
            *f = word & ~kVisitAll;
          }
        }
      }
    });
  }
};

// The pass loop over the segments (arguments checked by decode_block).
template <bool kVc, int kBand>
void run_decoder(const Segment* segments, size_t num_segments, uint32_t num_bitplanes,
                 uint8_t style, int32_t* out, size_t stride, uint32_t w, uint32_t h) {
  const uint32_t limit = max_passes(num_bitplanes);  // passes past it are ignored
  Decoder<kVc, kBand> d;
  d.w = w;
  d.h = h;
  d.pitch = w + 2;
  d.stripes = (h + 3) / 4;
  d.state.assign(static_cast<size_t>(d.stripes + 2) * d.pitch, 0);
  d.val.assign(static_cast<size_t>(d.stripes) * w * 4, 0);
  d.reset_contexts();

  uint32_t i = 0;
  for (size_t s = 0; s < num_segments && i < limit; ++s) {
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
    for (uint32_t k = 0; k < seg.passes && i < limit; ++k, ++i) {
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
          if (style & cblk_style::kSegmentation) {
            // D.5: the symbol 1010; a mismatch would flag an error for concealment, which
            // this decoder does not attempt.
            for (int b = 0; b < 4; ++b) d.mq.decode(d.ctx[kCtxUni]);
          }
          break;
      }
      if (style & cblk_style::kReset) d.reset_contexts();
    }
  }

  // Signed output, row by row of each stripe.
  for (size_t s = 0; s < d.stripes; ++s) {
    const uint32_t nr = d.rows(s);
    const uint32_t* f = d.col(s);
    const uint32_t* v = &d.val[s * w * 4];
    int32_t* o = out + 4 * s * stride;
    for (uint32_t r = 0; r < nr; ++r, o += stride) {
      const int sh = 19 + static_cast<int>(r);
      for (size_t x = 0; x < w; ++x) {
        const int32_t m = static_cast<int32_t>(v[4 * x + r]);
        const int32_t neg = -static_cast<int32_t>((f[x] >> sh) & 1);
        o[x] = (m ^ neg) - neg;
      }
    }
  }
}

}  // namespace

uint32_t decode_block(const Segment* segments, size_t num_segments, uint32_t num_bitplanes,
                      Band band, uint8_t style, int32_t* out, size_t stride, uint32_t w,
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
  const uint64_t decoded = std::min<uint64_t>(total, max_passes(num_bitplanes));
  const auto ignored = static_cast<uint32_t>(std::min<uint64_t>(total - decoded, UINT32_MAX));
  if (decoded == 0 || w == 0 || h == 0) {
    for (uint32_t y = 0; y < h; ++y) std::fill_n(out + y * stride, w, 0);
    return ignored;
  }

  // One instantiation per mode and orientation (the zero-coding table is a constant).
  auto run = [&]<bool kVc>() {
    switch (band) {
      case Band::kLL:
        return run_decoder<kVc, 0>(segments, num_segments, num_bitplanes, style, out, stride, w, h);
      case Band::kHL:
        return run_decoder<kVc, 1>(segments, num_segments, num_bitplanes, style, out, stride, w, h);
      case Band::kLH:
        return run_decoder<kVc, 2>(segments, num_segments, num_bitplanes, style, out, stride, w, h);
      case Band::kHH:
        return run_decoder<kVc, 3>(segments, num_segments, num_bitplanes, style, out, stride, w, h);
    }
  };
  if (style & cblk_style::kVerticalCausal) {
    run.template operator()<true>();
  } else {
    run.template operator()<false>();
  }
  return ignored;
}

}  // namespace gj2k::entropy
