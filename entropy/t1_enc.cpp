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
  if (style & kTermAll) return 1;
  if (style & kBypass) {
    if (first_pass_index < 10) return 10 - first_pass_index;
    return pass_kind(first_pass_index) == PassKind::kSignificance ? 2 : 1;
  }
  return UINT32_MAX;
}

bool pass_ends_segment(uint8_t style, uint32_t pass_index) {
  if (style & kTermAll) return true;
  if (style & kBypass) {
    return pass_index >= 9 && pass_kind(pass_index) != PassKind::kSignificance;
  }
  return false;
}

bool pass_is_raw(uint8_t style, uint32_t pass_index) {
  return (style & kBypass) && pass_index >= 10 && pass_kind(pass_index) != PassKind::kCleanup;
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

// Midpoint reconstruction (E.1.1.2) of magnitude m known down to plane p, times 2 (exact in
// integers: one fractional bit).
inline int64_t recon2(uint32_t m, uint32_t p) {
  return 2 * static_cast<int64_t>((m >> p) << p) + (p > 0 ? int64_t{1} << p : 0);
}
// Squared-error decrease (quantized index units) when m's reconstruction goes from r_old2/2 to
// r_new2/2.
inline double gain(uint32_t m, int64_t r_old2, int64_t r_new2) {
  const double e_old = static_cast<double>(2 * static_cast<int64_t>(m) - r_old2);
  const double e_new = static_cast<double>(2 * static_cast<int64_t>(m) - r_new2);
  return 0.25 * (e_old * e_old - e_new * e_new);
}

// kVc: vertically causal contexts (D.7), a template parameter so that the common case pays
// nothing for it.
template <bool kVc>
struct Encoder {
  uint32_t w, h, pitch;
  const uint8_t* zc;            // zero-coding table for this orientation
  std::vector<uint32_t> state;  // (h + 2) x pitch
  std::vector<uint32_t> mag;    // w x h: magnitude, sign in bit 31
  uint8_t ctx[kNumContexts];
  double dist = 0;
  MqEncoder mq;
  RawEncoder raw;

  explicit Encoder(std::vector<uint8_t>* out) : mq(out), raw(out) {}

  void reset_contexts() {
    for (int i = 0; i < kNumContexts; ++i)
      ctx[i] = static_cast<uint8_t>(2 * initial_state_index(i));
  }
  uint32_t* st(uint32_t x, uint32_t y) { return &state[(y + 1) * pitch + x + 1]; }
  uint32_t row_mask(uint32_t y) const { return (kVc && (y & 3) == 3) ? ~kSouth : ~0u; }

  // Sign coding (D.3.2) of a newly significant sample, then its state update.
  template <bool kRaw, typename Coder>
  GJ2K_ALWAYS_INLINE void code_sign(Coder& c, uint8_t* cx, uint32_t* f, uint32_t y, uint32_t neg) {
    if constexpr (kRaw) {
      c.put(neg);
    } else {
      const uint32_t v = kScTable[sc_index(*f & row_mask(y))];
      c.encode(cx[v & 0x1F], neg ^ (v >> 7));
    }
    set_significant(f, pitch, neg);
  }

  // Significance propagation pass (D.3.1); raw in bypass mode (D.6).
  // The coder and contexts are copied to locals for each pass so that they stay in registers
  // (stores to the state array and to contexts could otherwise alias them).
  template <bool kRaw>
  void spp(uint32_t p) {
    if constexpr (kRaw) {
      RawEncoder c = raw;
      spp_impl<true>(c, ctx, p);
      raw = c;
    } else {
      MqEncoder c = mq;
      uint8_t cx[kNumContexts];
      std::copy_n(ctx, kNumContexts, cx);
      spp_impl<false>(c, cx, p);
      mq = c;
      std::copy_n(cx, kNumContexts, ctx);
    }
  }
  template <bool kRaw, typename Coder>
  inline void spp_impl(Coder& c, uint8_t* cx, uint32_t p) {
    double d = 0;
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
        const uint32_t* m = &mag[y0 * w + x];
        for (uint32_t y = y0; y < y1; ++y, f += pitch, m += w) {
          const uint32_t fm = *f & row_mask(y);
          if ((fm & (kSig | kNeighbours)) - 1u >= kNeighbours) continue;  // sig, or no neighbour
          const uint32_t bit = (*m >> p) & 1;
          if constexpr (kRaw) {
            c.put(bit);
          } else {
            c.encode(cx[zc[fm & kNeighbours]], bit);
          }
          *f |= kVisit;
          if (bit) {
            code_sign<kRaw>(c, cx, f, y, *m >> 31);
            const uint32_t mm = *m & 0x7FFFFFFF;
            d += gain(mm, 0, recon2(mm, p));
          }
        }
      }
    }
    dist += d;
  }

  // Magnitude refinement pass (D.3.3); raw in bypass mode.
  template <bool kRaw>
  void mrp(uint32_t p) {
    if constexpr (kRaw) {
      RawEncoder c = raw;
      mrp_impl<true>(c, ctx, p);
      raw = c;
    } else {
      MqEncoder c = mq;
      uint8_t cx[kNumContexts];
      std::copy_n(ctx, kNumContexts, cx);
      mrp_impl<false>(c, cx, p);
      mq = c;
      std::copy_n(cx, kNumContexts, ctx);
    }
  }
  template <bool kRaw, typename Coder>
  inline void mrp_impl(Coder& c, uint8_t* cx, uint32_t p) {
    // Refining plane p moves the error (one fractional bit) from 2 (m mod 2^(p+1)) - 2^(p+1)
    // to 2 (m mod 2^p) - (p > 0 ? 2^p : 0): both below 2^31 in magnitude, so the difference of
    // their squares is exact in int64.
    const uint32_t mask_old = (2u << p) - 1, mask_new = (1u << p) - 1;
    const int64_t mid_old = int64_t{2} << p, mid_new = p > 0 ? int64_t{1} << p : 0;
    double d = 0;
    for (uint32_t y0 = 0; y0 < h; y0 += 4) {
      const uint32_t y1 = std::min(y0 + 4, h);
      for (uint32_t x = 0; x < w; ++x) {
        uint32_t* f = st(x, y0);
        if (y1 - y0 == 4 && ((f[0] | f[pitch] | f[2 * pitch] | f[3 * pitch]) & kSig) == 0) continue;
        const uint32_t* m = &mag[y0 * w + x];
        for (uint32_t y = y0; y < y1; ++y, f += pitch, m += w) {
          if ((*f & (kSig | kVisit)) != kSig) continue;
          const uint32_t bit = (*m >> p) & 1;
          if constexpr (kRaw) {
            c.put(bit);
          } else {
            c.encode(cx[mr_context(*f & row_mask(y))], bit);
          }
          *f |= kRefined;
          const int64_t e_old = 2 * int64_t{*m & mask_old} - mid_old;
          const int64_t e_new = 2 * int64_t{*m & mask_new} - mid_new;
          d += static_cast<double>(e_old * e_old - e_new * e_new);
        }
      }
    }
    dist += 0.25 * d;
  }

  // Cleanup pass with run-length mode (D.3.4); clears the SPP visit marks.
  void cup(uint32_t p) {
    MqEncoder c = mq;
    uint8_t cx[kNumContexts];
    std::copy_n(ctx, kNumContexts, cx);
    double d = 0;
    for (uint32_t y0 = 0; y0 < h; y0 += 4) {
      const uint32_t y1 = std::min(y0 + 4, h);
      for (uint32_t x = 0; x < w; ++x) {
        uint32_t* f = st(x, y0);
        const uint32_t* m = &mag[y0 * w + x];
        uint32_t y = y0;
        if (y1 - y0 == 4 && ((f[0] | f[pitch] | f[2 * pitch] | (f[3 * pitch] & row_mask(y0 + 3))) &
                             (kSig | kVisit | kNeighbours)) == 0) {
          uint32_t r = 0;
          while (r < 4 && !((m[r * w] >> p) & 1)) ++r;
          c.encode(cx[kCtxRl], r < 4);
          if (r == 4) continue;
          c.encode(cx[kCtxUni], r >> 1);
          c.encode(cx[kCtxUni], r & 1);
          f += r * pitch;
          m += r * w;
          y += r;
          code_sign<false>(c, cx, f, y, *m >> 31);
          const uint32_t mm = *m & 0x7FFFFFFF;
          d += gain(mm, 0, recon2(mm, p));
          f += pitch;
          m += w;
          ++y;
        }
        for (; y < y1; ++y, f += pitch, m += w) {
          const uint32_t fm = *f & row_mask(y);
          if (!(fm & (kSig | kVisit))) {
            const uint32_t bit = (*m >> p) & 1;
            c.encode(cx[zc[fm & kNeighbours]], bit);
            if (bit) {
              code_sign<false>(c, cx, f, y, *m >> 31);
              const uint32_t mm = *m & 0x7FFFFFFF;
              d += gain(mm, 0, recon2(mm, p));
            }
          }
          *f &= ~kVisit;
        }
      }
    }
    dist += d;
    mq = c;
    std::copy_n(cx, kNumContexts, ctx);
  }
};

// Codes the block (arguments checked by encode_block).
template <bool kVc>
void run_encoder(const int32_t* q, size_t stride, uint32_t w, uint32_t h, BandKind band,
                 uint8_t style, uint32_t mb, EncodedBlock& out) {
  Encoder<kVc> e(&out.data);
  e.w = w;
  e.h = h;
  e.pitch = w + 2;
  e.zc = kZcTable[static_cast<uint8_t>(band)].data();
  e.mag.resize(static_cast<size_t>(w) * h);
  uint32_t all = 0;
  for (uint32_t y = 0; y < h; ++y) {
    for (uint32_t x = 0; x < w; ++x) {
      const int32_t v = q[y * stride + x];
      if (v == INT32_MIN) {
        throw Error(
            ErrorCode::kInvalidArgument,
            "Tier-1 encode: |q| = 2^31 at (" + std::to_string(x) + ", " + std::to_string(y) + ")");
      }
      const uint32_t m = static_cast<uint32_t>(v < 0 ? -v : v);
      all |= m;
      e.mag[y * w + x] = m | (v < 0 ? 0x80000000u : 0u);
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
  e.state.assign(static_cast<size_t>(h + 2) * e.pitch, 0);
  e.reset_contexts();

  const bool predictable = (style & kPredictableTermination) != 0;
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
        if (style & kSegmentationSymbols) {  // D.5: 1010 in the UNIFORM context
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
    if (style & kResetProbabilities) e.reset_contexts();
  }
  // Rate control needs non-decreasing ends; raising an end keeps it sufficient.
  for (size_t i = 1; i < out.passes.size(); ++i) {
    out.passes[i].end = std::max(out.passes[i].end, out.passes[i - 1].end);
  }
}

}  // namespace

void encode_block(const int32_t* q, size_t stride, uint32_t w, uint32_t h, BandKind band,
                  uint8_t style, uint32_t mb, EncodedBlock& out) {
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
  if (style & kVerticallyCausal) {
    run_encoder<true>(q, stride, w, h, band, style, mb, out);
  } else {
    run_encoder<false>(q, stride, w, h, band, style, mb, out);
  }
}

EncodedBlock encode_block(const int32_t* q, size_t stride, uint32_t w, uint32_t h, BandKind band,
                          uint8_t style, uint32_t mb) {
  EncodedBlock out;
  encode_block(q, stride, w, h, band, style, mb, out);
  return out;
}

}  // namespace gj2k::entropy
