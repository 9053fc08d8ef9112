// Spec-literal Tier-1 coder (15444-1 Annex D). See t1_ref.h.
#include "entropy/t1_ref.h"

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <string>
#include <vector>

#include "entropy/mq_ref.h"
#include "gj2k/error.h"

namespace gj2k::entropy {

namespace {

// State of one code-block (D.3): sigma (significance), sigma' (refined once), pi (coded in the
// current SPP), the sign bits, and the magnitude known so far (decoder) or to code (encoder).
struct RefBlock {
  uint32_t w, h;
  Band band;
  bool vc;
  std::vector<uint8_t> sigma, sigma1, pi, neg;
  std::vector<uint32_t> mag;

  RefBlock(uint32_t w_, uint32_t h_, Band b, bool vc_)
      : w(w_),
        h(h_),
        band(b),
        vc(vc_),
        sigma(w_ * h_),
        sigma1(w_ * h_),
        pi(w_ * h_),
        neg(w_ * h_),
        mag(w_ * h_) {}

  // sigma of neighbour (x + dx, y + dy) as seen from (x, y): 0 outside the block, and with the
  // vertically causal mode 0 in the next stripe (D.7).
  int sig(uint32_t x, uint32_t y, int dx, int dy) const {
    const int64_t xx = int64_t{x} + dx, yy = int64_t{y} + dy;
    if (xx < 0 || yy < 0 || xx >= w || yy >= h) return 0;
    if (vc && dy == 1 && y % 4 == 3) return 0;
    return sigma[yy * w + xx];
  }
  // chi contribution of a horizontal or vertical neighbour to sign coding (Table D.2).
  int chi(uint32_t x, uint32_t y, int dx, int dy) const {
    if (!sig(x, y, dx, dy)) return 0;
    return neg[(int64_t{y} + dy) * w + (int64_t{x} + dx)] ? -1 : 1;
  }

  // Table D.1: zero-coding context.
  int zc_context(uint32_t x, uint32_t y) const {
    int hs = sig(x, y, -1, 0) + sig(x, y, 1, 0);
    int vs = sig(x, y, 0, -1) + sig(x, y, 0, 1);
    const int ds = sig(x, y, -1, -1) + sig(x, y, 1, -1) + sig(x, y, -1, 1) + sig(x, y, 1, 1);
    if (band == Band::kHH) {
      const int hv = hs + vs;
      if (ds >= 3) return 8;
      if (ds == 2) return hv >= 1 ? 7 : 6;
      if (ds == 1) return hv >= 2 ? 5 : hv == 1 ? 4 : 3;
      return hv >= 2 ? 2 : hv == 1 ? 1 : 0;
    }
    if (band == Band::kHL) std::swap(hs, vs);  // LL and LH columns with H and V exchanged
    if (hs == 2) return 8;
    if (hs == 1) return vs >= 1 ? 7 : ds >= 1 ? 6 : 5;
    if (vs == 2) return 4;
    if (vs == 1) return 3;
    return ds >= 2 ? 2 : ds == 1 ? 1 : 0;
  }
  bool any_neighbour(uint32_t x, uint32_t y) const {
    for (int dy = -1; dy <= 1; ++dy) {
      for (int dx = -1; dx <= 1; ++dx) {
        if ((dx || dy) && sig(x, y, dx, dy)) return true;
      }
    }
    return false;
  }
  // Tables D.2, D.3: sign context and XOR bit.
  void sc_context(uint32_t x, uint32_t y, int& ctx, int& xorbit) const {
    const int hc = std::clamp(chi(x, y, -1, 0) + chi(x, y, 1, 0), -1, 1);
    const int vc_ = std::clamp(chi(x, y, 0, -1) + chi(x, y, 0, 1), -1, 1);
    static const int kCtx[3][3] = {{13, 12, 11}, {10, 9, 10}, {11, 12, 13}};  // [1-H][1-V]
    ctx = kCtx[1 - hc][1 - vc_];
    xorbit = (hc < 0 || (hc == 0 && vc_ < 0)) ? 1 : 0;
  }
  // Table D.4: magnitude refinement context.
  int mr_context(uint32_t x, uint32_t y) const {
    if (sigma1[y * w + x]) return 16;
    return any_neighbour(x, y) ? 15 : 14;
  }
};

// Raw segment writer and reader (D.6): bits MSB first, a 0 bit stuffed after each 0xFF.
struct RefRawWriter {
  std::vector<uint8_t> out;
  int nbits = 0;  // bits in the current byte
  uint8_t cur = 0;
  void put(int bit) {
    const int room = (!out.empty() && out.back() == 0xFF) ? 7 : 8;
    cur = static_cast<uint8_t>((cur << 1) | bit);
    if (++nbits == room) {
      out.push_back(cur);
      cur = 0;
      nbits = 0;
    }
  }
  // Same termination as the fast coder (mq_enc.h RawEncoder::flush).
  void flush(bool predictable) {
    const int room = (!out.empty() && out.back() == 0xFF) ? 7 : 8;
    if (nbits > 0) {
      int bit = 0;
      while (nbits < room) {
        cur = static_cast<uint8_t>((cur << 1) | bit);
        bit ^= 1;
        ++nbits;
      }
      out.push_back(cur);
    } else if (!out.empty() && out.back() == 0xFF) {
      if (predictable) {
        out.push_back(0x2A);
      } else {
        out.pop_back();
      }
    }
  }
};

struct RefRawReader {
  const uint8_t* data;
  size_t length, pos = 0;
  int left = 0;
  uint32_t cur = 0;
  int bit() {
    if (left == 0) {
      const uint32_t next = pos < length ? data[pos] : 0xFF;
      if (cur == 0xFF && next > 0x8F) {  // a marker or the end: 1-bits
        cur = 0xFF;
        left = 8;
      } else {
        left = cur == 0xFF ? 7 : 8;
        cur = next;
        ++pos;
      }
    }
    return (cur >> --left) & 1;
  }
};

// One pass over the block in stripe order (D.1): calls f(x, y) for each sample.
template <typename F>
void scan(const RefBlock& b, F f) {
  for (uint32_t y0 = 0; y0 < b.h; y0 += 4) {
    for (uint32_t x = 0; x < b.w; ++x) {
      for (uint32_t y = y0; y < std::min(y0 + 4, b.h); ++y) f(x, y, y0);
    }
  }
}

int pass_type(uint32_t i) {
  return i == 0 ? 2 : static_cast<int>((i - 1) % 3);
}  // 0 SPP 1 MRP 2 CUP

// Squared error (quantized index units) with planes >= known[k] decoded, midpoint rule.
double block_error(const std::vector<uint32_t>& mag, const std::vector<int>& known) {
  double e = 0;
  for (size_t k = 0; k < mag.size(); ++k) {
    double r = 0;
    if (known[k] >= 0) {
      const uint32_t m = (mag[k] >> known[k]) << known[k];
      r = m == 0 ? 0 : m + (known[k] > 0 ? (1u << known[k]) / 2.0 : 0.0);
    }
    e += (mag[k] - r) * (mag[k] - r);
  }
  return e;
}

}  // namespace

// Spec-literal reference: written to be read against Annex D line by line, so it follows the
// standard's own flow in one function rather than being split for length.
EncodedBlock encode_block_ref(const int32_t* q, size_t stride, uint32_t w, uint32_t h, Band band,
                              uint8_t style, uint32_t mb) {
  EncodedBlock out;
  RefBlock b(w, h, band, (style & cblk_style::kVerticalCausal) != 0);
  uint32_t all = 0;
  for (uint32_t y = 0; y < h; ++y) {
    for (uint32_t x = 0; x < w; ++x) {
      const int64_t v = q[y * stride + x];
      b.mag[y * w + x] = static_cast<uint32_t>(std::llabs(v));
      b.neg[y * w + x] = v < 0;
      all |= b.mag[y * w + x];
    }
  }
  const uint32_t nbp = static_cast<uint32_t>(std::bit_width(all));
  if (nbp > mb || mb > 31) {
    throw Error(ErrorCode::kInvalidArgument, "Tier-1 reference encode: bad Mb");
  }
  out.missing_msbs = mb - nbp;
  if (nbp == 0) return out;

  MqRefEncoder mq;
  RefRawWriter raw;
  std::vector<int> known(b.mag.size(), -1);
  double err = block_error(b.mag, known);
  const bool predictable = (style & cblk_style::kPredictableTerm) != 0;
  size_t seg_first_pass = 0;
  for (uint32_t i = 0; i < max_passes(nbp); ++i) {
    const int p = static_cast<int>(i == 0 ? nbp - 1 : nbp - 2 - (i - 1) / 3);
    const bool is_raw = pass_is_raw(style, i);
    auto code = [&](int ctx, int bit) {
      if (is_raw) {
        raw.put(bit);
      } else {
        mq.encode(ctx, bit);
      }
    };
    auto bit_of = [&](uint32_t x, uint32_t y) {
      return static_cast<int>((b.mag[y * w + x] >> p) & 1);
    };
    auto become_significant = [&](uint32_t x, uint32_t y) {
      const int sign = b.neg[y * w + x];
      if (is_raw) {
        raw.put(sign);  // D.6: the sign bit is coded raw
      } else {
        int ctx, xorbit;
        b.sc_context(x, y, ctx, xorbit);
        mq.encode(ctx, sign ^ xorbit);
      }
      b.sigma[y * w + x] = 1;
    };
    switch (pass_type(i)) {
      case 0:  // D.3.1 significance propagation
        scan(b, [&](uint32_t x, uint32_t y, uint32_t) {
          if (b.sigma[y * w + x] || !b.any_neighbour(x, y)) return;
          const int bit = bit_of(x, y);
          code(b.zc_context(x, y), bit);
          b.pi[y * w + x] = 1;
          known[y * w + x] = p;
          if (bit) become_significant(x, y);
        });
        break;
      case 1:  // D.3.3 magnitude refinement
        scan(b, [&](uint32_t x, uint32_t y, uint32_t) {
          if (!b.sigma[y * w + x] || b.pi[y * w + x]) return;
          code(b.mr_context(x, y), bit_of(x, y));
          b.sigma1[y * w + x] = 1;
          known[y * w + x] = p;
        });
        break;
      case 2: {  // D.3.4 cleanup, with run-length coding over full columns of a stripe
        for (uint32_t y0 = 0; y0 < h; y0 += 4) {
          for (uint32_t x = 0; x < w; ++x) {
            uint32_t y = y0;
            bool rl = y0 + 4 <= h;
            for (uint32_t k = y0; rl && k < y0 + 4; ++k) {
              rl = !b.sigma[k * w + x] && !b.pi[k * w + x] && !b.any_neighbour(x, k);
            }
            if (rl) {
              uint32_t r = 0;
              while (r < 4 && !bit_of(x, y0 + r)) ++r;
              mq.encode(kCtxRl, r < 4);
              for (uint32_t k = y0; k < y0 + std::min(r + 1, 4u); ++k) known[k * w + x] = p;
              if (r == 4) continue;
              mq.encode(kCtxUni, static_cast<int>(r >> 1));
              mq.encode(kCtxUni, static_cast<int>(r & 1));
              become_significant(x, y0 + r);
              y = y0 + r + 1;
            }
            for (; y < std::min(y0 + 4, h); ++y) {
              if (!b.sigma[y * w + x] && !b.pi[y * w + x]) {
                const int bit = bit_of(x, y);
                mq.encode(b.zc_context(x, y), bit);
                known[y * w + x] = p;
                if (bit) become_significant(x, y);
              }
            }
          }
        }
        std::fill(b.pi.begin(), b.pi.end(), 0);
        if (style & cblk_style::kSegmentation) {  // D.5
          for (int s : {1, 0, 1, 0}) mq.encode(kCtxUni, s);
        }
        break;
      }
    }
    const double new_err = block_error(b.mag, known);
    const bool term = pass_ends_segment(style, i) || i + 1 == max_passes(nbp);
    CodedPass& cp = out.passes.emplace_back();
    cp.distortion = std::max(0.0, err - new_err);
    cp.end = 0;
    cp.terminated = term;
    err = new_err;
    if (term) {
      if (is_raw) {
        raw.flush(predictable);
        out.data.insert(out.data.end(), raw.out.begin(), raw.out.end());
        raw = RefRawWriter{};
      } else {
        if (predictable) {
          mq.flush_predictable();
        } else {
          mq.flush();
        }
        out.data.insert(out.data.end(), mq.bytes().begin(), mq.bytes().end());
        mq.initenc();
      }
      for (size_t k = seg_first_pass; k <= i; ++k) {
        out.passes[k].end = static_cast<uint32_t>(out.data.size());
      }
      seg_first_pass = i + 1;
    }
    if (style & cblk_style::kReset) mq.reset_contexts();  // D.4.1 / Table D.7
  }
  return out;
}

// Spec-literal reference (as encode_block_ref): one function, in the order of Annex D.
void decode_block_ref(const Segment* segments, size_t num_segments, uint32_t num_bitplanes,
                      Band band, uint8_t style, int32_t* out, size_t stride, uint32_t w,
                      uint32_t h) {
  if (num_bitplanes > 30) {
    throw Error(ErrorCode::kUnsupported, "Tier-1 reference decode: more than 30 bit-planes");
  }
  RefBlock b(w, h, band, (style & cblk_style::kVerticalCausal) != 0);
  std::vector<int> known(b.mag.size(), -1);
  uint32_t i = 0;
  MqRefDecoder mq(nullptr, 0);
  for (size_t s = 0; s < num_segments; ++s) {
    const Segment& seg = segments[s];
    if (seg.passes == 0) continue;
    if (seg.passes > passes_in_segment(style, i) || i + seg.passes > max_passes(num_bitplanes)) {
      throw Error(ErrorCode::kFormat, "Tier-1 reference decode: too many passes");
    }
    // The contexts survive segment boundaries (only RESET resets them): carry them over.
    MqRefDecoder next(seg.data, seg.length);
    if (i > 0) next.copy_contexts_from(mq);
    mq = next;
    RefRawReader raw{seg.data, seg.length};
    for (uint32_t k = 0; k < seg.passes; ++k, ++i) {
      const int p = static_cast<int>(i == 0 ? num_bitplanes - 1 : num_bitplanes - 2 - (i - 1) / 3);
      const bool is_raw = pass_is_raw(style, i);
      auto decode = [&](int ctx) { return is_raw ? raw.bit() : mq.decode(ctx); };
      auto become_significant = [&](uint32_t x, uint32_t y) {
        int sign;
        if (is_raw) {
          sign = raw.bit();
        } else {
          int ctx, xorbit;
          b.sc_context(x, y, ctx, xorbit);
          sign = mq.decode(ctx) ^ xorbit;
        }
        b.neg[y * w + x] = static_cast<uint8_t>(sign);
        b.sigma[y * w + x] = 1;
        b.mag[y * w + x] = 1u << p;
      };
      switch (pass_type(i)) {
        case 0:
          scan(b, [&](uint32_t x, uint32_t y, uint32_t) {
            if (b.sigma[y * w + x] || !b.any_neighbour(x, y)) return;
            b.pi[y * w + x] = 1;
            known[y * w + x] = p;
            if (decode(b.zc_context(x, y))) become_significant(x, y);
          });
          break;
        case 1:
          scan(b, [&](uint32_t x, uint32_t y, uint32_t) {
            if (!b.sigma[y * w + x] || b.pi[y * w + x]) return;
            if (decode(b.mr_context(x, y))) b.mag[y * w + x] |= 1u << p;
            b.sigma1[y * w + x] = 1;
            known[y * w + x] = p;
          });
          break;
        case 2:
          for (uint32_t y0 = 0; y0 < h; y0 += 4) {
            for (uint32_t x = 0; x < w; ++x) {
              uint32_t y = y0;
              bool rl = y0 + 4 <= h;
              for (uint32_t r = y0; rl && r < y0 + 4; ++r) {
                rl = !b.sigma[r * w + x] && !b.pi[r * w + x] && !b.any_neighbour(x, r);
              }
              if (rl) {
                if (!mq.decode(kCtxRl)) {
                  for (uint32_t r = y0; r < y0 + 4; ++r) known[r * w + x] = p;
                  continue;
                }
                uint32_t r = static_cast<uint32_t>(mq.decode(kCtxUni)) << 1;
                r |= static_cast<uint32_t>(mq.decode(kCtxUni));
                for (uint32_t k2 = y0; k2 <= y0 + r; ++k2) known[k2 * w + x] = p;
                become_significant(x, y0 + r);
                y = y0 + r + 1;
              }
              for (; y < std::min(y0 + 4, h); ++y) {
                if (!b.sigma[y * w + x] && !b.pi[y * w + x]) {
                  known[y * w + x] = p;
                  if (mq.decode(b.zc_context(x, y))) become_significant(x, y);
                }
              }
            }
          }
          std::fill(b.pi.begin(), b.pi.end(), 0);
          if (style & cblk_style::kSegmentation) {
            for (int s4 = 0; s4 < 4; ++s4) mq.decode(kCtxUni);
          }
          break;
      }
      if (style & cblk_style::kReset) mq.reset_contexts();
    }
  }
  // Reconstruction with one fractional bit, midpoint rule (E.1.1.2).
  for (uint32_t y = 0; y < h; ++y) {
    for (uint32_t x = 0; x < w; ++x) {
      const size_t k = y * w + x;
      int64_t v = 0;
      if (b.sigma[k]) {
        const int pp = known[k];
        v = 2 * int64_t{b.mag[k]} + (pp > 0 ? int64_t{1} << pp : 0);
      }
      out[y * stride + x] = static_cast<int32_t>(b.neg[k] ? -v : v);
    }
  }
}

}  // namespace gj2k::entropy
