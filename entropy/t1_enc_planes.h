// The Tier-1 encoder split in two (cuda/t1_enc_kernels.cu, the plane mapping): context modelling
// of each bit-plane on its own (model_plane), then the MQ and raw coding of the recorded
// decisions, plane after plane (code_symbols). Host-device, so that CI runs the CPU build of both
// halves against encode_block_hd, which is the one block coder they must equal byte for byte.
//
// Why it is exact: an encoder knows every magnitude, so the state at the start of plane p's
// significance pass (t1_context.h) is a function of the magnitudes alone: a sample is
// significant when m >> (p + 1) != 0, its sign bit set with it, and it has been refined at least
// once when m >> (p + 2) != 0; no pass has visited it yet (the cleanup of plane p + 1 cleared the
// marks). So plane p's three passes can be modelled from the magnitudes without modelling the
// planes above (init_plane_state), by the same pass loops as BlockEncoder (t1_enc_block.h), with
// a coder that records each decision instead of coding it (SymbolRecorder). Only the MQ coder's
// registers and context states carry from pass to pass; code_symbols runs that chain alone over
// the recorded decisions.
//
// Why it pays on a GPU: a thread per code-block runs a chain of every pass of every plane with
// per-block state far larger than L1 can hold for all resident threads (docs/PERFORMANCE.md,
// "Fifth run" and "Ninth run"); here each plane is a thread of its own (ten times the threads
// for a lossless image), and the serial remainder is the MQ coder's decisions alone.
//
// Symbols: one byte per decision, context << 1 | decision for an MQ pass, the bit for a raw
// (bypass) pass; a plane's SPP, MRP and cleanup symbols follow each other in its buffer. Plane p
// of a block of n samples, `fresh` of which become significant in it, records at most
// plane_symbol_bound(n, fresh) of them: a sample that stays as it was takes at most one decision
// in one pass of the plane (its bit, its refinement, or its share of a run-length decision), one
// that becomes significant two (its bit and sign, raw or not), and a run-length column adds two
// UNIFORM decisions only where one of its samples becomes significant.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/hd.h"
#include "entropy/t1_context.h"
#include "entropy/t1_enc_block.h"

namespace gj2k::entropy::t1 {

GJ2K_HD_INLINE uint32_t plane_symbol_bound(uint32_t samples, uint32_t fresh) {
  return samples + 3 * fresh + 8;
}
// The planes of a block one after the other, each at its bound: plane p starts at
// p (samples + 8) + 3 x (the samples that become significant in the planes below p, those whose
// magnitude needs 1 to p bits), and planes 0 to planes - 1 take at most block_symbol_bound.
GJ2K_HD_INLINE uint32_t plane_symbol_start(uint32_t samples, uint32_t p, uint32_t fresh_below) {
  return p * (samples + 8) + 3 * fresh_below;
}
GJ2K_HD_INLINE uint64_t block_symbol_bound(uint32_t samples, uint32_t planes) {
  return uint64_t{planes} * (samples + 8) + 3 * uint64_t{samples};
}

// What model_plane reports of one plane: its passes' symbol counts and distortion factor sums
// (Plane, t1_enc_block.h), in pass order (significance, refinement, cleanup).
struct PlaneRecord {
  uint32_t count[3];
  int64_t d[3];
};

// The coder model_plane gives the pass loops: it records each decision (see the file comment).
struct SymbolRecorder {
  uint8_t* out;
  uint32_t n;
  template <class States, class Cx>
  GJ2K_HD_INLINE void encode(const States&, const Cx& cx, uint32_t d) {
    out[n++] = static_cast<uint8_t>(cx << 1 | d);
  }
  template <class States, class Cx>
  GJ2K_HD_INLINE void encode_likely_mps(const States& s, const Cx& cx, uint32_t d) {
    encode(s, cx, d);
  }
  GJ2K_HD_INLINE void put(uint32_t bit) { out[n++] = static_cast<uint8_t>(bit); }
};
// The contexts model_plane gives the pass loops: context k is its index k.
struct ContextIndex {
  GJ2K_HD_INLINE uint32_t operator[](uint32_t k) const { return k; }
};

// The state words of a w x h block at the start of plane p's significance pass (the file
// comment), from its samples q (row pitch `stride`): state_words(w, h) words, the borders zero.
// Vertically causal (kVc): a stripe's word never holds the stripe below (D.7).
template <bool kVc>
GJ2K_HD_INLINE void init_plane_state(const int32_t* q, size_t stride, uint32_t w, uint32_t h,
                                     uint32_t p, uint32_t* state) {
  const size_t pitch = size_t{w} + 2, stripes = (size_t{h} + 3) / 4;
  for (size_t k = 0; k < pitch; ++k) state[k] = 0;
  for (size_t k = (stripes + 1) * pitch; k < (stripes + 2) * pitch; ++k) state[k] = 0;
  const uint32_t sig_at = p + 1, ref_at = p + 2;
  for (size_t s = 0; s < stripes; ++s) {
    uint32_t* f = state + (s + 1) * pitch;
    f[0] = 0;
    f[w + 1] = 0;
    // Column x's rows -1..4 (kVc: -1..3): significance bits 0..5, sign bits 8..13, refined
    // bits 16..19 (rows 0..3).
    auto column = [&](uint32_t x) -> uint32_t {
      uint32_t c = 0;
      for (int rr = 0; rr < (kVc ? 5 : 6); ++rr) {
        const int64_t y = int64_t{4} * int64_t(s) + rr - 1;
        if (y < 0 || y >= int64_t{h}) continue;
        const int32_t v = q[size_t(y) * stride + x];
        const uint32_t m = v < 0 ? 0u - static_cast<uint32_t>(v) : static_cast<uint32_t>(v);
        const uint32_t sig = sig_at < 32 && (m >> sig_at) != 0;
        c |= sig << rr | (sig & (v < 0)) << (8 + rr);
        if (rr >= 1 && rr <= 4) c |= uint32_t(ref_at < 32 && (m >> ref_at) != 0) << (15 + rr);
      }
      return c;
    };
    // Significance bits of rows -1..4 at bit 3 rr (the left column's place in a row window).
    auto spread = [](uint32_t c) {
      uint32_t o = 0;
      for (int rr = 0; rr < 6; ++rr) o |= ((c >> rr) & 1u) << (3 * rr);
      return o;
    };
    uint32_t left = 0, cur = column(0);
    for (uint32_t x = 0; x < w; ++x) {
      const uint32_t right = x + 1 < w ? column(x + 1) : 0;
      f[x + 1] = spread(left) | spread(cur) << 1 | spread(right) << 2 | ((cur >> 8) & 0x3Fu) << 18 |
                 ((cur >> 16) & 0xFu) << 28;
      left = cur;
      cur = right;
    }
  }
}

// Models plane p of a block whose nbp >= p + 1 coded planes are the magnitudes of q (row pitch
// `stride`) with cblk style `style` (kVc: vertically causal): its significance, refinement and
// cleanup passes (plane nbp - 1: the cleanup only) as encode_block_hd codes them, each decision
// recorded at `out` (plane_symbol_bound bytes) instead of coded. `state`:
// state_words(w, h) words of working memory. Returns the passes' counts and distortion sums.
template <bool kVc, class Tables>
GJ2K_HD PlaneRecord model_plane(const Tables& tables, const int32_t* q, size_t stride, uint32_t w,
                                uint32_t h, uint8_t style, uint32_t nbp, uint32_t p,
                                uint32_t* state, uint8_t* out) {
  init_plane_state<kVc>(q, stride, w, h, p, state);
  BlockEncoder<kVc, false, Tables, true> e;
  e.place(tables, w, h, state, reinterpret_cast<const uint32_t*>(q), stride);
  SymbolRecorder rec{out, 0};
  const ContextIndex cx;
  PlaneRecord r{};
  if (p + 1 < nbp) {
    const uint32_t i = 3 * (nbp - 1 - p) - 2;  // the significance pass's index
    r.d[0] = raw_pass(style, i) ? e.template pass_loop<PassKind::kSignificance, true>(rec, cx, p)
                                : e.template pass_loop<PassKind::kSignificance, false>(rec, cx, p);
    r.count[0] = rec.n;
    r.d[1] = raw_pass(style, i + 1)
                 ? e.template pass_loop<PassKind::kRefinement, true>(rec, cx, p)
                 : e.template pass_loop<PassKind::kRefinement, false>(rec, cx, p);
    r.count[1] = rec.n - r.count[0];
  }
  const uint32_t before = rec.n;
  r.d[2] = e.template pass_loop<PassKind::kCleanup, false>(rec, cx, p);
  r.count[2] = rec.n - before;
  return r;
}

// The coder's half that carries from pass to pass: what code_symbols runs the recorded
// decisions through (EncodeSegments drives its segments).
struct SymbolCoder {
  MqEncoder mq;
  RawEncoder raw;
  uint8_t ctx[kNumContexts];
  GJ2K_HD_INLINE void reset_contexts() {
    for (int i = 0; i < kNumContexts; ++i)
      ctx[i] = static_cast<uint8_t>(2 * initial_state_index(i));
  }
};

// Codes the nbp >= 1 planes of a block from model_plane's records, as run_encode codes them:
// plane p's symbols at symbols(p), its record at records(p). out, capacity, passes, *bytes and
// the status as run_encode's. mq: the MQ state table (kMqEncStates or a copy).
template <class States, class SymbolsOf, class RecordsOf>
GJ2K_HD EncodeStatus code_symbols(const States& mq, const SymbolsOf& symbols,
                                  const RecordsOf& records, uint8_t style, uint32_t nbp,
                                  uint8_t* out, uint32_t capacity, CodedPass* passes,
                                  uint32_t* bytes) {
  SymbolCoder e;
  e.reset_contexts();
  e.mq = MqEncoder(out, capacity);
  e.raw = RawEncoder(out, capacity);
  return code_passes(e, style, nbp, out, capacity, passes, bytes,
                     [&](PassKind kind, uint32_t p, bool is_raw) -> int64_t {
                       const PlaneRecord& r = records(p);
                       const uint32_t k = kind == PassKind::kSignificance ? 0
                                          : kind == PassKind::kRefinement ? 1
                                                                          : 2;
                       const uint8_t* sym =
                           symbols(p) + (k > 0 ? r.count[0] : 0) + (k > 1 ? r.count[1] : 0);
                       const uint32_t n = r.count[k];
                       if (is_raw) {
                         RawEncoder c = e.raw;
                         for (uint32_t j = 0; j < n; ++j) c.put(sym[j]);
                         e.raw = c;
                       } else {
                         MqEncoder c = e.mq;
                         for (uint32_t j = 0; j < n; ++j)
                           c.encode(mq, e.ctx[sym[j] >> 1], sym[j] & 1u);
                         if (kind == PassKind::kCleanup && (style & cblk_style::kSegmentation)) {
                           c.encode(mq, e.ctx[kCtxUni], 1);  // D.5: 1010 in the UNIFORM context
                           c.encode(mq, e.ctx[kCtxUni], 0);
                           c.encode(mq, e.ctx[kCtxUni], 1);
                           c.encode(mq, e.ctx[kCtxUni], 0);
                         }
                         e.mq = c;
                       }
                       return r.d[k];
                     });
}

}  // namespace gj2k::entropy::t1
