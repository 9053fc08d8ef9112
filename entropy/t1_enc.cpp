// Tier-1 code-block encoder (15444-1 Annex D): bit-plane coding in three passes over stripes
// of four rows, with every code-block style of Table A.19.
#include <algorithm>
#include <bit>
#include <string>

#include "entropy/mq_enc.h"
#include "entropy/t1.h"
#include "entropy/t1_context.h"
#include "gj2k/error.h"

namespace gj2k::entropy {

using namespace t1;

uint32_t passes_in_segment(uint8_t style, uint32_t first_pass_index) {
  return segment_pass_limit(style, first_pass_index);
}

bool pass_ends_segment(uint8_t style, uint32_t pass_index) {
  if (style & cblk_style::kTermAll) return true;
  if (style & cblk_style::kBypass) {
    return pass_index >= 9 && pass_kind(pass_index) != PassKind::kSignificance;
  }
  return false;
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

namespace {

// Distortion (15444-1 E.1.1.2 midpoint reconstruction, one fractional bit, errors e): the
// squared-error decrease of a pass at plane p, with h = 2^p and t = m mod 2^p, is exact in
// integers per sample:
//   becoming significant (m < 2h, m = h + t): (2m)^2 - (2t - h)^2 = 3h (h + 4t); 4 when p = 0
//   refinement with bit b: e_old^2 - e_new^2 = h (b ? 4t - h : 3h - 4t); (b ? 0 : 4) when p = 0
// so a pass sums the per-sample factors in int64 (< 2^45 over 4096 samples) and scales once.
struct Plane {
  uint32_t p, bit, low;         // bit = 2^p, low = 2^p - 1
  int64_t sig_base;             // h (4 when p = 0)
  int64_t ref_one, ref_zero;    // h and 3h (0 and 4 when p = 0)
  double sig_scale, ref_scale;  // 0.25 * 3h and 0.25 * h (0.25 when p = 0)
  explicit Plane(uint32_t plane) : p(plane), bit(1u << plane), low((1u << plane) - 1) {
    const int64_t h = int64_t{1} << p;
    sig_base = p > 0 ? h : 4;
    ref_one = p > 0 ? h : 0;
    ref_zero = p > 0 ? 3 * h : 4;
    sig_scale = p > 0 ? 0.75 * static_cast<double>(h) : 0.25;
    ref_scale = 0.25 * static_cast<double>(h);
  }
};

// kVc: vertically causal contexts (D.7), a template parameter so that the common case pays
// nothing for it. State: one word per stripe column (t1_context.h); magnitudes: four per
// stripe column, stripe-major.
template <bool kVc, int kBand>
struct Encoder {
  static constexpr const uint8_t* zc = kZcTable[kBand].data();  // a constant address
  // size_t, so that stores to the uint32_t state and values cannot alias them (kept in
  // registers across the pass loops).
  size_t w, h, pitch, stripes;
  std::vector<uint32_t> state;  // (stripes + 2) x pitch
  std::vector<uint32_t> mag;    // stripes x w x 4: magnitude, sign in bit 31
  uint8_t ctx[kNumContexts];
  double dist = 0;
  MqEncoder mq;
  RawEncoder raw;

  explicit Encoder(std::vector<uint8_t>* out) : mq(out), raw(out) {}

  void reset_contexts() {
    for (int i = 0; i < kNumContexts; ++i)
      ctx[i] = static_cast<uint8_t>(2 * initial_state_index(i));
  }
  uint32_t* col(size_t s) { return &state[(s + 1) * pitch + 1]; }
  uint32_t rows(size_t s) const { return static_cast<uint32_t>(std::min<size_t>(4, h - 4 * s)); }

  // Sign coding (D.3.2) of a newly significant sample of row r, then its state update; returns
  // its distortion factor (Plane).
  template <bool kRaw, typename Coder>
  GJ2K_ALWAYS_INLINE int64_t code_sign(Coder& c, uint8_t* cx, uint32_t* f, uint32_t& word, int r,
                                       uint32_t m, const Plane& pl) {
    const uint32_t neg = m >> 31;
    if constexpr (kRaw) {
      c.put(neg);
    } else {
      const uint32_t v = kScTable[sc_index(word, f[-1], f[1], r)];
      c.encode(cx[v & 0x1F], neg ^ (v >> 7));
    }
    word |= set_significant<kVc>(f, pitch, r, neg);
    return pl.sig_base + 4 * int64_t{m & pl.low};
  }

  // Significance propagation pass (D.3.1); raw in bypass mode (D.6). Each pass runs on local
  // copies of the coder and contexts (with_local_coder, t1_context.h).
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
                                  const uint32_t* m, const Plane& pl, int64_t& d) {
    const uint32_t n = window(word, r);
    if ((n & kWindowSelf) || !(n & kWindowNeighbours)) return;  // sig, or no neighbour
    const uint32_t bit = (m[r] & pl.bit) != 0;
    if constexpr (kRaw) {
      c.put(bit);
    } else {
      c.encode(cx[zc[n]], bit);
    }
    word |= visit_bit(r);
    if (bit) d += code_sign<kRaw>(c, cx, f, word, r, m[r], pl);
  }
  template <bool kRaw, typename Coder>
  inline void spp_impl(Coder& c, uint8_t* cx, uint32_t p) {
    const Plane pl(p);
    int64_t d = 0;
    for (size_t s = 0; s < stripes; ++s) {
      const uint32_t nr = rows(s);
      uint32_t* f = col(s);
      const uint32_t* m = &mag[s * w * 4];
      // Nothing to code with no significant sample around, or all four significant.
      if (nr == 4) {
        for (uint32_t* const fe = f + w; f != fe; ++f, m += 4) {
          uint32_t word = *f;
          if ((word & kSigAll) == 0 || (word & kOwnSig) == kOwnSig) continue;
          spp_row<kRaw>(c, cx, f, word, 0, m, pl, d);
          spp_row<kRaw>(c, cx, f, word, 1, m, pl, d);
          spp_row<kRaw>(c, cx, f, word, 2, m, pl, d);
          spp_row<kRaw>(c, cx, f, word, 3, m, pl, d);
          *f = word;
        }
      } else {
        for (uint32_t* const fe = f + w; f != fe; ++f, m += 4) {
          uint32_t word = *f;
          if ((word & kSigAll) == 0) continue;
          for (uint32_t r = 0; r < nr; ++r) spp_row<kRaw>(c, cx, f, word, int(r), m, pl, d);
          *f = word;
        }
      }
    }
    dist += pl.sig_scale * static_cast<double>(d);
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
  template <bool kRaw, typename Coder>
  GJ2K_ALWAYS_INLINE void mrp_row(Coder& c, uint8_t* cx, uint32_t& word, int r, const uint32_t* m,
                                  const Plane& pl, int64_t& d) {
    if ((word & (sig_bit(r, 0) | visit_bit(r))) != sig_bit(r, 0)) return;
    const uint32_t bit = (m[r] & pl.bit) != 0;
    if constexpr (kRaw) {
      c.put(bit);
    } else {
      c.encode(cx[mr_context(word, r)], bit);
    }
    word |= refined_bit(r);
    const int64_t t4 = 4 * int64_t{m[r] & pl.low};
    d += bit ? t4 - pl.ref_one : pl.ref_zero - t4;
  }
  template <bool kRaw, typename Coder>
  inline void mrp_impl(Coder& c, uint8_t* cx, uint32_t p) {
    const Plane pl(p);
    int64_t d = 0;
    for (size_t s = 0; s < stripes; ++s) {
      const uint32_t nr = rows(s);
      uint32_t* f = col(s);
      const uint32_t* m = &mag[s * w * 4];
      if (nr == 4) {
        for (uint32_t* const fe = f + w; f != fe; ++f, m += 4) {
          uint32_t word = *f;
          if ((word & kOwnSig) == 0) continue;
          mrp_row<kRaw>(c, cx, word, 0, m, pl, d);
          mrp_row<kRaw>(c, cx, word, 1, m, pl, d);
          mrp_row<kRaw>(c, cx, word, 2, m, pl, d);
          mrp_row<kRaw>(c, cx, word, 3, m, pl, d);
          *f = word;
        }
      } else {
        for (uint32_t* const fe = f + w; f != fe; ++f, m += 4) {
          uint32_t word = *f;
          if ((word & kOwnSig) == 0) continue;
          for (uint32_t r = 0; r < nr; ++r) mrp_row<kRaw>(c, cx, word, int(r), m, pl, d);
          *f = word;
        }
      }
    }
    dist += pl.ref_scale * static_cast<double>(d);
  }

  // Cleanup pass with run-length mode (D.3.4); clears the SPP visit marks.
  GJ2K_ALWAYS_INLINE void cup_row(MqEncoder& c, uint8_t* cx, uint32_t* f, uint32_t& word, int r,
                                  const uint32_t* m, const Plane& pl, int64_t& d) {
    if (word & (sig_bit(r, 0) | visit_bit(r))) return;
    const uint32_t bit = (m[r] & pl.bit) != 0;
    c.encode(cx[zc[window(word, r)]], bit);
    if (bit) d += code_sign<false>(c, cx, f, word, r, m[r], pl);
  }
  GJ2K_NOINLINE void cup(uint32_t p) {
    with_local_coder<true>(mq, ctx, [&](MqEncoder& c, uint8_t* cx) {
      const Plane pl(p);
      int64_t d = 0;
      for (size_t s = 0; s < stripes; ++s) {
        const uint32_t nr = rows(s);
        uint32_t* f = col(s);
        const uint32_t* m = &mag[s * w * 4];
        if (nr == 4) {
          for (uint32_t* const fe = f + w; f != fe; ++f, m += 4) {
            uint32_t word = *f;
            if ((word & (kSigAll | kVisitAll)) == 0) {
              // Run-length mode: four insignificant samples with insignificant neighbourhoods.
              const uint32_t bits = ((m[0] & pl.bit) != 0) | (((m[1] & pl.bit) != 0) << 1) |
                                    (((m[2] & pl.bit) != 0) << 2) | (((m[3] & pl.bit) != 0) << 3);
              c.encode(cx[kCtxRl], bits != 0);
              if (bits == 0) continue;
              const uint32_t r = static_cast<uint32_t>(std::countr_zero(bits));
              c.encode(cx[kCtxUni], r >> 1);
              c.encode(cx[kCtxUni], r & 1);
              d += code_sign<false>(c, cx, f, word, int(r), m[r], pl);
              switch (r) {
                case 0:
                  cup_row(c, cx, f, word, 1, m, pl, d);
                  [[fallthrough]];
                case 1:
                  cup_row(c, cx, f, word, 2, m, pl, d);
                  [[fallthrough]];
                case 2:
                  cup_row(c, cx, f, word, 3, m, pl, d);
                  break;
                default:
                  break;
              }
            } else {
              cup_row(c, cx, f, word, 0, m, pl, d);
              cup_row(c, cx, f, word, 1, m, pl, d);
              cup_row(c, cx, f, word, 2, m, pl, d);
              cup_row(c, cx, f, word, 3, m, pl, d);
            }
            *f = word & ~kVisitAll;
          }
        } else {
          for (uint32_t* const fe = f + w; f != fe; ++f, m += 4) {
            uint32_t word = *f;
            for (uint32_t r = 0; r < nr; ++r) cup_row(c, cx, f, word, int(r), m, pl, d);
            *f = word & ~kVisitAll;
          }
        }
      }
      dist += pl.sig_scale * static_cast<double>(d);
    });
  }
};

// Codes the block (arguments checked by encode_block). Hot kernel, kept as one function: the
// pass loop, segment terminations and distortion bookkeeping share the state its inner loops
// keep in registers.
template <bool kVc, int kBand>
void run_encoder(const int32_t* q, size_t stride, uint32_t w, uint32_t h, uint8_t style,
                 uint32_t mb, EncodedBlock& out) {
  Encoder<kVc, kBand> e(&out.data);
  e.w = w;
  e.h = h;
  e.pitch = w + 2;
  e.stripes = (h + 3) / 4;
  e.mag.assign(static_cast<size_t>(e.stripes) * w * 4, 0);
  uint32_t all = 0;
  for (uint32_t y = 0; y < h; ++y) {
    const int32_t* row = q + y * stride;
    uint32_t* m = e.mag.data() + (y >> 2) * w * 4 + (y & 3);
    for (uint32_t x = 0; x < w; ++x, m += 4) {
      const int32_t v = row[x];
      if (v == INT32_MIN) {
        throw Error(
            ErrorCode::kInvalidArgument,
            "Tier-1 encode: |q| = 2^31 at (" + std::to_string(x) + ", " + std::to_string(y) + ")");
      }
      const uint32_t a = static_cast<uint32_t>(v < 0 ? -v : v);
      all |= a;
      *m = a | (v < 0 ? 0x80000000u : 0u);
    }
  }
  const uint32_t nbp = static_cast<uint32_t>(std::bit_width(all));
  if (nbp > mb) {
    throw Error(ErrorCode::kInvalidArgument, "Tier-1 encode: magnitudes need " +
                                                 std::to_string(nbp) + " bit-planes, Mb is " +
                                                 std::to_string(mb));
  }
  out.missing_msbs = mb - nbp;
  if (nbp == 0 || w == 0 || h == 0) return;
  e.state.assign(static_cast<size_t>(e.stripes + 2) * e.pitch, 0);
  e.reset_contexts();

  const bool predictable = (style & cblk_style::kPredictableTerm) != 0;
  const uint32_t num_passes = max_passes(nbp);
  out.passes.reserve(num_passes);
  // Non-terminated passes of the current segment, resolved when it ends.
  struct Pending {
    uint32_t pass;
    MqMark mq;
    size_t raw;
  };
  std::vector<Pending> pending;
  size_t seg_start = 0;
  bool new_segment = true;
  for (uint32_t i = 0; i < num_passes; ++i) {
    const bool raw = pass_is_raw(style, i);
    if (new_segment) {
      seg_start = out.data.size();
      if (raw) {
        e.raw.init();
      } else {
        e.mq.init();
      }
      new_segment = false;
    }
    const uint32_t p = pass_plane(i, nbp);
    e.dist = 0;
    switch (pass_kind(i)) {
      case PassKind::kSignificance:
        raw ? e.template spp<true>(p) : e.template spp<false>(p);
        break;
      case PassKind::kRefinement:
        raw ? e.template mrp<true>(p) : e.template mrp<false>(p);
        break;
      case PassKind::kCleanup:
        e.cup(p);
        if (style & cblk_style::kSegmentation) {  // D.5: 1010 in the UNIFORM context
          e.mq.encode(e.ctx[kCtxUni], 1);
          e.mq.encode(e.ctx[kCtxUni], 0);
          e.mq.encode(e.ctx[kCtxUni], 1);
          e.mq.encode(e.ctx[kCtxUni], 0);
        }
        break;
    }
    const bool term = pass_ends_segment(style, i) || i + 1 == num_passes;
    // Exact for the pass; a pass whose refinements all land on old midpoints can lose a little,
    // reported as 0 so that cumulative distortion is monotone.
    out.passes.push_back({0, std::max(0.0, e.dist), term});
    if (term) {
      if (raw) {
        e.raw.flush(predictable);
      } else {
        e.mq.flush(predictable);
      }
      const size_t seg_end = out.data.size();
      for (const Pending& pd : pending) {
        out.passes[pd.pass].end = static_cast<uint32_t>(
            raw ? std::min(pd.raw, seg_end)
                : MqEncoder::resolve(pd.mq, out.data.data(), seg_start, seg_end));
      }
      pending.clear();
      out.passes[i].end = static_cast<uint32_t>(seg_end);
      new_segment = true;
    } else if (raw) {
      pending.push_back({i, {}, e.raw.mark()});
    } else {
      pending.push_back({i, e.mq.mark(), 0});
    }
    if (style & cblk_style::kReset) e.reset_contexts();
  }
  // Rate control needs non-decreasing ends; raising an end keeps it sufficient.
  for (size_t i = 1; i < out.passes.size(); ++i) {
    out.passes[i].end = std::max(out.passes[i].end, out.passes[i - 1].end);
  }
}

}  // namespace

void encode_block(const int32_t* q, size_t stride, uint32_t w, uint32_t h, Band band, uint8_t style,
                  uint32_t mb, EncodedBlock& out) {
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
  // One instantiation per mode and orientation (the zero-coding table is a constant).
  auto run = [&]<bool kVc>() {
    switch (band) {
      case Band::kLL:
        return run_encoder<kVc, 0>(q, stride, w, h, style, mb, out);
      case Band::kHL:
        return run_encoder<kVc, 1>(q, stride, w, h, style, mb, out);
      case Band::kLH:
        return run_encoder<kVc, 2>(q, stride, w, h, style, mb, out);
      case Band::kHH:
        return run_encoder<kVc, 3>(q, stride, w, h, style, mb, out);
    }
  };
  if (style & cblk_style::kVerticalCausal) {
    run.template operator()<true>();
  } else {
    run.template operator()<false>();
  }
}

EncodedBlock encode_block(const int32_t* q, size_t stride, uint32_t w, uint32_t h, Band band,
                          uint8_t style, uint32_t mb) {
  EncodedBlock out;
  encode_block(q, stride, w, h, band, style, mb, out);
  return out;
}

}  // namespace gj2k::entropy
