// The Tier-1 code-block decoder (15444-1 Annex D, C.3), the one source of the CPU's
// entropy::decode_block (t1_dec.cpp) and the CUDA kernel (cuda/t1_dec_kernels.cu): every
// function is host-device (core/hd.h), takes its tables and working memory from the caller
// and reports problems as a status instead of throwing, so that a CUDA thread can run it on
// one code-block while the CPU build of the same source is tested bit-exactly against the
// spec-literal decoder (t1_ref.h) in CI, where there is no GPU.
//
// Contract of decode_block_hd: as entropy::decode_block (t1.h): segments in order, each with
// its passes; num_bitplanes coded magnitude planes; output w x h values with ONE fractional
// bit, out = sign * (2m + (m != 0 && p > 0 ? 2^p : 0)) (midpoint reconstruction, E.1.1.2),
// every sample written. Passes beyond 3 * num_bitplanes - 2 (written by some encoders) are not
// decoded and reported as kExtraPasses, with the output of the passes that fit.
//
// State: one 32-bit word per stripe column (t1_context.h), (stripes + 2) x (w + 2) words.
// Values: either stripe-major scratch (kStripeValues: 4 per column, the CPU's cache-friendly
// layout) or the output plane itself (row-major with the output stride: a GPU thread then
// needs no scratch of its own for values; they are signed as they are decoded).
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "core/hd.h"
#include "entropy/mq_dec.h"
#include "entropy/t1.h"
#include "entropy/t1_context.h"

namespace gj2k::entropy::t1 {

// The tables the decoder reads. On the CPU they point at the constexpr tables
// (host_decode_tables()); a kernel copies them into shared memory first.
struct DecodeTables {
  const uint8_t* zc;     // kZcTable: 4 x 512, Band order
  const uint8_t* sc;     // kScTable: 2048
  const MqDecState* mq;  // kMqDecStates: 94
};
inline DecodeTables host_decode_tables() {
  return {kZcTable[0].data(), kScTable.data(), kMqDecStates.data()};
}
inline constexpr size_t kZcTableBytes = 4 * 512;
inline constexpr size_t kScTableBytes = 2048;

// How BlockDecoder reaches the tables, as members zc (the band's zero-coding table), sc and mq.
// BandTables: pointers, for tables in a kernel's shared memory (one instantiation for all
// bands). ConstBandTables: the constexpr tables themselves, at constant addresses, one
// instantiation per band (the CPU's entropy::decode_block): the pass loops then hold no table
// pointer in a register. Mq: the MQ decoder (mq_dec.h) each uses, mq its state table; both
// decode the same.
struct BandTables {
  using Mq = MqDecoder;
  const uint8_t* zc;
  const uint8_t* sc;
  const MqDecState* mq;
};
// Band b's tables of a DecodeTables; t1_dec_qe.h has the overload for MqDecoderQe's tables.
GJ2K_HD_INLINE BandTables band_tables(const DecodeTables& t, uint32_t band) {
  return {t.zc + 512 * band, t.sc, t.mq};
}
template <int kBand>
struct ConstBandTables {
  using Mq = MqDecoderWide;
  static constexpr const uint8_t* zc = kZcTable[kBand].data();
  static constexpr const std::array<uint8_t, 2048>& sc = kScTable;
  static constexpr const std::array<uint64_t, 94>& mq = kMqWideStates;
};

enum class BlockStatus : uint8_t {
  kOk = 0,
  kExtraPasses = 1,    // more passes than 3 * num_bitplanes - 2: the extra ones were ignored
  kSegmentPasses = 2,  // a segment holds more passes than the code-block style allows
  kTooManyPlanes = 3,  // num_bitplanes > 30
  kBadArgument = 4,    // block size beyond the standard's limits, band out of range, a segment
                       // with bytes but no data
};

// A codeword segment as an offset into a byte buffer shared by many code-blocks.
struct SegmentRef {
  uint32_t offset, length, passes;
};

// A block's segments as the decoder reads them: data(k), length(k), passes(k).
// SegmentRefs: offsets into one buffer (the kernel's jobs); Segments: t1.h's Segment.
struct SegmentRefs {
  const uint8_t* bytes;
  const SegmentRef* refs;
  GJ2K_HD_INLINE const uint8_t* data(size_t k) const { return bytes + refs[k].offset; }
  GJ2K_HD_INLINE uint32_t length(size_t k) const { return refs[k].length; }
  GJ2K_HD_INLINE uint32_t passes(size_t k) const { return refs[k].passes; }
};
struct Segments {
  const Segment* segs;
  GJ2K_HD_INLINE const uint8_t* data(size_t k) const { return segs[k].data; }
  GJ2K_HD_INLINE uint32_t length(size_t k) const { return segs[k].length; }
  GJ2K_HD_INLINE uint32_t passes(size_t k) const { return segs[k].passes; }
};

// Where a pass keeps its working copy of the contexts (BlockDecoder::pass): its own array
// `local`, unless the tables' type has an overload that says otherwise (t1_dec_qe.h's
// QeSlotBandTables: a CUDA thread's slots in shared memory).
template <class Tables, class Context>
GJ2K_HD_INLINE Context* pass_contexts(const Tables&, Context* local) {
  return local;
}

// The magnitude refinement pass's three contexts (Table D.4: 14, 15, 16) held as values for
// the pass rather than where the pass keeps the others (pass_contexts): consecutive refinement
// decisions mostly share one context, and a context in memory puts a store and a load between
// a decision and the next. Tables types whose decoder gains from it say so
// (kContextsInRegisters, which also holds the cleanup pass's CleanupContexts: t1_dec_qe.h's,
// for the CUDA thread kernel, whose 9/7 decode it made 3-4% faster on an H100, the cleanup part
// 1-3% more, docs/PERFORMANCE.md "Fifteenth run"; the CPU's ConstBandTables measured no gain).
template <class Tables>
inline constexpr bool kContextsInRegisters = false;
// Whether the pass loops read a column's right neighbour's word before the column is coded
// and hold both neighbours' words in registers (BlockDecoder::next_column, RegisterSides): the
// kernels' tables types say so (t1_dec_qe.h).
template <class Tables>
inline constexpr bool kReadColumnsAhead = false;
// The passes whose loops code a full stripe's four rows with the loop of a partial stripe's
// (one copy of each row's code, the cleanup pass's run-length mode checked at run time)
// rather than unrolled over constant rows (kFull), bit k for PassKind k: a tables type says so
// for a kernel whose lanes wait on instruction fetch more than on the rows' constant shifts
// and masks.
template <class Tables>
inline constexpr unsigned kRowLoopPasses = 0;
template <class Tables, PassKind kKind>
inline constexpr bool kRowLoops = ((kRowLoopPasses<Tables> >> static_cast<int>(kKind)) & 1) != 0;
template <class Context>
struct RefinementContexts {
  Context c14, c15, c16;
  // The refinement decision of row r of the stripe column whose state word is `word`.
  template <class Coder, class States>
  GJ2K_HD_INLINE uint32_t decode(Coder& c, const States& states, uint32_t word, int r) {
    const bool refined = (word & refined_bit(r)) != 0;
    const bool near = (window(word, r) & kWindowNeighbours) != 0;
    Context cur = refined ? c16 : near ? c15 : c14;
    const uint32_t bit = c.decode(states, cur);
    c16 = refined ? cur : c16;
    c15 = !refined && near ? cur : c15;
    c14 = !refined && !near ? cur : c14;
    return bit;
  }
};
// The refinement decision of row r with the pass's contexts cx: cx[mr_context(word, r)], or
// RefinementContexts' own.
template <class Coder, class States, class Cx>
GJ2K_HD_INLINE uint32_t refinement_decision(Coder& c, const States& states, Cx& cx, uint32_t word,
                                            int r) {
  return c.decode(states, cx[mr_context(word, r)]);
}
template <class Coder, class States, class Context>
GJ2K_HD_INLINE uint32_t refinement_decision(Coder& c, const States& states,
                                            RefinementContexts<Context>& cx, uint32_t word, int r) {
  return cx.decode(c, states, word, r);
}

// The cleanup pass's run-length and uniform contexts (17, 18) held as values for the pass, the
// others where the pass keeps them (`base`), for the same tables types and the same reason as
// RefinementContexts: a stripe column of four insignificant samples codes a run-length
// decision, and most columns of a sparse block are such columns, one after the other.
template <class Cx, class Context>
struct CleanupContexts {
  Cx base;
  Context rl, uni;
  GJ2K_HD_INLINE auto& operator[](uint32_t k) const { return base[k]; }
};
// A pass's run-length and uniform contexts, wherever it keeps them.
template <class Cx>
GJ2K_HD_INLINE auto& rl_context(Cx& cx) {
  return cx[kCtxRl];
}
template <class Cx, class Context>
GJ2K_HD_INLINE Context& rl_context(CleanupContexts<Cx, Context>& cx) {
  return cx.rl;
}
template <class Cx>
GJ2K_HD_INLINE auto& uni_context(Cx& cx) {
  return cx[kCtxUni];
}
template <class Cx, class Context>
GJ2K_HD_INLINE Context& uni_context(CleanupContexts<Cx, Context>& cx) {
  return cx.uni;
}

// One code-block's decoding state. kVc: vertically causal contexts (D.7). kStripeValues: the
// value layout (see the file comment). kL: the distance in words between consecutive words of
// the block's state and stripe-major values: 1, or the 32 lanes of a warp whose blocks'
// arrays are interleaved word by word (t1_dec_warp.h), so that lanes at the same column of
// their blocks read one cache line.
template <bool kVc, bool kStripeValues, class Tables, uint32_t kL = 1>
struct BlockDecoder {
  static constexpr uint32_t kLanes = kL;
  Tables tab;
  uint32_t w, h, pitch, stripes;
  uint32_t vpitch;  // stripe-major values: columns per stripe (w, or more: t1_dec_warp.h)
  uint32_t* state;  // (stripes + 2) x pitch columns
  uint32_t* val;    // magnitudes with one fractional bit
  size_t vstride;   // row-major values: the output's row pitch
  using Context = typename Tables::Mq::Context;
  Context ctx[kNumContexts];
  typename Tables::Mq mq;
  RawDecoder raw;

  GJ2K_HD_INLINE void reset_contexts() {
    for (int i = 0; i < kNumContexts; ++i)
      ctx[i] = Tables::Mq::context(static_cast<uint8_t>(2 * initial_state_index(i)));
  }
  GJ2K_HD_INLINE uint32_t* col(uint32_t s) {
    if constexpr (kL == 1) return state + (s + 1) * pitch + 1;
    return state + ((s + 1) * pitch + 1) * kL;
  }
  GJ2K_HD_INLINE uint32_t rows(uint32_t s) const { return h - 4 * s < 4 ? h - 4 * s : 4; }
  // Values of stripe s's first column; vstep() to the next column, vrow(r) to row r.
  GJ2K_HD_INLINE uint32_t* vcol(uint32_t s) const {
    // (kL = 1: the block's own width, which run_block gives vpitch, read from w.)
    const uint32_t vp = kL == 1 ? w : vpitch;
    return kStripeValues ? val + size_t{s} * vp * 4 * kL : val + size_t{4} * s * vstride;
  }
  GJ2K_HD_INLINE size_t vstep() const { return kStripeValues ? 4 * kL : 1; }
  GJ2K_HD_INLINE size_t vrow(int r) const {
    return kStripeValues ? size_t(r) * kL : size_t(r) * vstride;
  }

  // Row-major values carry their sign from the start (a sample's value is written when it
  // becomes significant and each refinement adds to it with its sign), so that write_out has
  // nothing left to do: a GPU thread makes no pass over the block to apply them
  // (docs/PERFORMANCE.md, "Twenty-third run").
  // Stripe-major values stay magnitudes, which write_out signs as it transposes them.
  // with_sign(m, neg): m, or -m for neg = 1 (mod 2^32).
  GJ2K_HD_INLINE static uint32_t with_sign(uint32_t m, uint32_t neg) {
    return (m ^ (0u - neg)) + neg;
  }

  // A column's left and right neighbours' words as decode_sign reads and marks them: in memory
  // at f[-kL] and f[kL] (MemorySides), or held by the pass loop (RegisterSides, with
  // kReadColumnsAhead), which then stores what it marks without reading it back first and
  // reads no neighbour for a sign's context (a GPU thread would wait for each such load).
  struct MemorySides {
    GJ2K_HD_INLINE static uint32_t left(const uint32_t* f) { return f[-ptrdiff_t{kL}]; }
    GJ2K_HD_INLINE static uint32_t right(const uint32_t* f) { return f[kL]; }
    GJ2K_HD_INLINE static void mark(uint32_t* f, int r) { mark_sides<kL>(f, r); }
  };
  struct RegisterSides {
    uint32_t l, rt;  // the words at f[-kL] and f[kL]
    GJ2K_HD_INLINE uint32_t left(const uint32_t*) const { return l; }
    GJ2K_HD_INLINE uint32_t right(const uint32_t*) const { return rt; }
    GJ2K_HD_INLINE void mark(uint32_t* f, int r) {
      f[-ptrdiff_t{kL}] = l |= sig_bit(r, 1);
      f[kL] = rt |= sig_bit(r, -1);
    }
  };

  // Sign decoding (D.3.2) of a sample of row r found significant, then its state update
  // (set_significant, with the sides' words marked through sd).
  template <bool kRaw, class Coder, class Cx, class Sides>
  GJ2K_HD_INLINE void decode_sign(Coder& c, Cx cx, uint32_t* f, Sides& sd, uint32_t& word, int r,
                                  uint32_t* v, uint32_t first) {
    uint32_t neg;
    if constexpr (kRaw) {
      neg = c.bit();
    } else {
      const uint32_t s = tab.sc[sc_index(word, sd.left(f), sd.right(f), r)];
      neg = c.decode(tab.mq, cx[s & 0x1F]) ^ (s >> 7);
    }
    sd.mark(f, r);
    word |= set_significant_vertical<kVc, kL>(f, size_t{pitch} * kL, r, neg);
    v[vrow(r)] = kStripeValues ? first : with_sign(first, neg);
  }

  // Significance propagation pass (D.3.1); raw in bypass mode (D.6).
  template <bool kRaw, class Coder, class Cx, class Sides>
  GJ2K_HD_INLINE void spp_row(Coder& c, Cx cx, uint32_t* f, Sides& sd, uint32_t& word, int r,
                              uint32_t* v, uint32_t first) {
    const uint32_t n = window(word, r);
    if ((n & kWindowSelf) || !(n & kWindowNeighbours)) return;  // significant, or no neighbour
    uint32_t bit;
    if constexpr (kRaw) {
      bit = c.bit();
    } else {
      bit = c.decode(tab.mq, cx[tab.zc[n]]);
    }
    word |= visit_bit(r);
    if (bit) decode_sign<kRaw>(c, cx, f, sd, word, r, v, first);
  }
  // The passes below visit the stripes column by column; a full stripe (4 rows) runs a body
  // unrolled over constant rows (kFull), so that the row's shifts and masks fold into
  // constants, the last partial stripe a loop over its rows (every stripe, in the passes that
  // kRowLoopPasses names: one copy of the row's code). Each pass works on local copies
  // of the coder and the contexts (written back at its end): the pass loop then keeps them in
  // registers, where stores to the state could otherwise alias them.
  template <bool kRaw, bool kFull, class Coder, class Cx, class Sides>
  GJ2K_HD_INLINE uint32_t spp_column(Coder& c, Cx cx, uint32_t* f, uint32_t* v, uint32_t first,
                                     uint32_t nr, uint32_t word, Sides& sd) {
    // Nothing to code with no significant sample around, or all four significant.
    if (((word & kSigAll) == 0) | (kFull && (word & kOwnSig) == kOwnSig)) return word;
    if constexpr (kFull) {
      spp_row<kRaw>(c, cx, f, sd, word, 0, v, first);
      spp_row<kRaw>(c, cx, f, sd, word, 1, v, first);
      spp_row<kRaw>(c, cx, f, sd, word, 2, v, first);
      spp_row<kRaw>(c, cx, f, sd, word, 3, v, first);
    } else {
      GJ2K_DEVICE_NO_UNROLL
      for (uint32_t r = 0; r < nr; ++r) spp_row<kRaw>(c, cx, f, sd, word, int(r), v, first);
    }
    *f = word;
    return word;
  }

  // Magnitude refinement pass (D.3.3); raw in bypass mode. v' = v - 2^(p+1) (bit 0) or v
  // (bit 1), plus the new midpoint 2^p when p > 0.
  template <bool kRaw, class Coder, class Cx>
  GJ2K_HD_INLINE void mrp_row(Coder& c, Cx& cx, uint32_t& word, int r, uint32_t* v, uint32_t up,
                              uint32_t down) {
    if ((word & (sig_bit(r, 0) | visit_bit(r))) != sig_bit(r, 0)) return;
    // The value read before the decision, so that its load is not waited for after it (a GPU
    // thread issues in order).
    const uint32_t old = v[vrow(r)];
    uint32_t bit;
    if constexpr (kRaw) {
      bit = c.bit();
    } else {
      bit = refinement_decision(c, tab.mq, cx, word, r);
    }
    word |= refined_bit(r);
    const uint32_t add = bit ? up : down;
    v[vrow(r)] = old + (kStripeValues ? add : with_sign(add, (word >> (19 + r)) & 1));
  }
  template <bool kRaw, bool kFull, class Coder, class Cx>
  GJ2K_HD_INLINE uint32_t mrp_column(Coder& c, Cx& cx, uint32_t* f, uint32_t* v, uint32_t up,
                                     uint32_t down, uint32_t nr, uint32_t word) {
    if ((word & kOwnSig) == 0) return word;
    if constexpr (kFull) {
      mrp_row<kRaw>(c, cx, word, 0, v, up, down);
      mrp_row<kRaw>(c, cx, word, 1, v, up, down);
      mrp_row<kRaw>(c, cx, word, 2, v, up, down);
      mrp_row<kRaw>(c, cx, word, 3, v, up, down);
    } else {
      GJ2K_DEVICE_NO_UNROLL
      for (uint32_t r = 0; r < nr; ++r) mrp_row<kRaw>(c, cx, word, int(r), v, up, down);
    }
    *f = word;
    return word;
  }

  // Cleanup pass with run-length mode (D.3.4); clears the significance-pass visit marks.
  // A run-length decision of 1 (D.3.4): the row of the column's first significant sample, two
  // decisions in the uniform context, and its sign; returns the row.
  template <class Cx, class Sides>
  GJ2K_HD_INLINE uint32_t run_interruption(typename Tables::Mq& c, Cx& cx, uint32_t* f, Sides& sd,
                                           uint32_t& word, uint32_t* v, uint32_t first) {
    uint32_t r = c.decode(tab.mq, uni_context(cx)) << 1;
    r |= c.decode(tab.mq, uni_context(cx));
    decode_sign<false>(c, cx, f, sd, word, int(r), v, first);
    return r;
  }
  template <class Cx, class Sides>
  GJ2K_HD_INLINE void cup_row(typename Tables::Mq& c, Cx cx, uint32_t* f, Sides& sd, uint32_t& word,
                              int r, uint32_t* v, uint32_t first) {
    if (word & (sig_bit(r, 0) | visit_bit(r))) return;
    if (c.decode(tab.mq, cx[tab.zc[window(word, r)]]))
      decode_sign<false>(c, cx, f, sd, word, r, v, first);
  }
  template <bool kFull, class Cx, class Sides>
  GJ2K_HD_INLINE uint32_t cup_column(typename Tables::Mq& c, Cx& cx, uint32_t* f, uint32_t* v,
                                     uint32_t first, uint32_t nr, uint32_t word, Sides& sd) {
    if constexpr (kFull) {
      if ((word & (kSigAll | kVisitAll)) == 0) {
        // Run-length mode: four insignificant samples with insignificant neighbourhoods; a 0
        // leaves all four insignificant.
        if (!c.decode_likely_mps(tab.mq, rl_context(cx))) return word;
        switch (run_interruption(c, cx, f, sd, word, v, first)) {
          case 0:
            cup_row(c, cx, f, sd, word, 1, v, first);
            [[fallthrough]];
          case 1:
            cup_row(c, cx, f, sd, word, 2, v, first);
            [[fallthrough]];
          case 2:
            cup_row(c, cx, f, sd, word, 3, v, first);
            break;
          default:
            break;
        }
      } else {
        cup_row(c, cx, f, sd, word, 0, v, first);
        cup_row(c, cx, f, sd, word, 1, v, first);
        cup_row(c, cx, f, sd, word, 2, v, first);
        cup_row(c, cx, f, sd, word, 3, v, first);
      }
    } else {
      uint32_t r = 0;
      if constexpr (kRowLoops<Tables, PassKind::kCleanup>) {
        if (nr == 4 && (word & (kSigAll | kVisitAll)) == 0) {  // run-length mode, as above
          if (!c.decode_likely_mps(tab.mq, rl_context(cx))) return word;
          r = run_interruption(c, cx, f, sd, word, v, first) + 1;
        }
      }
      GJ2K_DEVICE_NO_UNROLL
      for (; r < nr; ++r) cup_row(c, cx, f, sd, word, int(r), v, first);
    }
    *f = word & ~kVisitAll;
    return word & ~kVisitAll;
  }
  // Per-pass constants of plane p: `first`, the value of a sample found significant (2 * 2^p
  // plus the midpoint 2^p of the p planes below, when there are any); `up` and `down`, what
  // a refinement bit of 1 or 0 adds (mod 2^32: never negative in the end).
  struct PlaneValues {
    uint32_t first, up, down;
  };
  GJ2K_HD_INLINE static PlaneValues plane_values(uint32_t p) {
    const uint32_t half = p > 0 ? 1u << p : 0u;
    return {p > 0 ? 3u << p : 2u, half, half - (2u << p)};
  }
  // cx: the contexts (Context*, or t1_dec_warp.h's strided slots of state bytes).
  // The column's state word `word` (*f, read ahead by the caller) and its sides' words sd;
  // returns the word as the pass leaves it (stored at f where it changed).
  template <PassKind kKind, bool kRaw, bool kFull, class Coder, class Cx, class Sides>
  GJ2K_HD_INLINE uint32_t column(Coder& c, Cx& cx, uint32_t* f, uint32_t* v, const PlaneValues& pv,
                                 uint32_t nr, uint32_t word, Sides& sd) {
    if constexpr (kKind == PassKind::kSignificance)
      return spp_column<kRaw, kFull>(c, cx, f, v, pv.first, nr, word, sd);
    else if constexpr (kKind == PassKind::kRefinement)
      return mrp_column<kRaw, kFull>(c, cx, f, v, pv.up, pv.down, nr, word);
    else
      return cup_column<kFull>(c, cx, f, v, pv.first, nr, word, sd);
  }
  // The same with the column's words in memory (t1_dec_warp.h's lockstep loops).
  template <PassKind kKind, bool kRaw, bool kFull, class Coder, class Cx>
  GJ2K_HD_INLINE void column(Coder& c, Cx& cx, uint32_t* f, uint32_t* v, const PlaneValues& pv,
                             uint32_t nr) {
    MemorySides sd;
    column<kKind, kRaw, kFull>(c, cx, f, v, pv, nr, *f, sd);
  }
  // One pass of plane p over the block, stripe by stripe, column by column (see above).
  template <PassKind kKind, bool kRaw, class Coder>
  GJ2K_HD void pass(Coder& coder, uint32_t p) {
    Coder c = coder;
    Context local[kNumContexts];
    const auto cx = pass_contexts(tab, local);
    load_contexts(cx);
    const PlaneValues pv = plane_values(p);
    if constexpr (kKind == PassKind::kRefinement && !kRaw && kContextsInRegisters<Tables>) {
      RefinementContexts<Context> rc{cx[kCtxMr], cx[kCtxMr + 1], cx[kCtxMr + 2]};
      pass_columns<kKind, kRaw>(c, rc, pv);
      cx[kCtxMr] = rc.c14;
      cx[kCtxMr + 1] = rc.c15;
      cx[kCtxMr + 2] = rc.c16;
    } else if constexpr (kKind == PassKind::kCleanup && kContextsInRegisters<Tables>) {
      CleanupContexts<std::remove_cv_t<decltype(cx)>, Context> cc{cx, cx[kCtxRl], cx[kCtxUni]};
      pass_columns<kKind, kRaw>(c, cc, pv);
      cx[kCtxRl] = cc.rl;
      cx[kCtxUni] = cc.uni;
    } else {
      pass_columns<kKind, kRaw>(c, cx, pv);
    }
    coder = c;
    store_contexts(cx);
  }
  // Codes the column at f whose word is `word`, its left neighbour's `left`, and returns the
  // next column's word. With kReadColumnsAhead<Tables> the right neighbour's word is read
  // before the column is coded (the border column past a stripe's last one is there to read)
  // and both sides are held in registers (RegisterSides), so that a GPU thread, which issues
  // in order, waits for no state word inside a column; otherwise each is read where needed
  // (the CPU's tables: faster so, docs/PERFORMANCE.md, "Twenty-third run"). `left` becomes
  // the column's word as the pass leaves it.
  template <PassKind kKind, bool kRaw, bool kFull, class Coder, class Cx>
  GJ2K_HD_INLINE uint32_t next_column(Coder& c, Cx& cx, uint32_t* f, uint32_t* v,
                                      const PlaneValues& pv, uint32_t nr, uint32_t word,
                                      uint32_t& left) {
    if constexpr (kReadColumnsAhead<Tables>) {
      RegisterSides sd{left, f[kL]};
      left = column<kKind, kRaw, kFull>(c, cx, f, v, pv, nr, word, sd);
      return sd.rt;
    } else {
      MemorySides sd;
      column<kKind, kRaw, kFull>(c, cx, f, v, pv, nr, word, sd);
      return f[kL];
    }
  }
  // pass's loop over the stripes and columns, with the contexts cx.
  template <PassKind kKind, bool kRaw, class Coder, class Cx>
  GJ2K_HD_INLINE void pass_columns(Coder& c, Cx& cx, const PlaneValues& pv) {
    for (uint32_t s = 0; s < stripes; ++s) {
      const uint32_t nr = rows(s);
      uint32_t* f = col(s);
      uint32_t* v = vcol(s);
      uint32_t word = *f;
      uint32_t left = kReadColumnsAhead<Tables> ? f[-ptrdiff_t{kL}] : 0;
      if (!kRowLoops<Tables, kKind> && nr == 4) {
        for (uint32_t* const fe = f + w * kL; f != fe; f += kL, v += vstep())
          word = next_column<kKind, kRaw, true>(c, cx, f, v, pv, 4, word, left);
      } else {
        for (uint32_t* const fe = f + w * kL; f != fe; f += kL, v += vstep())
          word = next_column<kKind, kRaw, false>(c, cx, f, v, pv, nr, word, left);
      }
    }
  }

  // The contexts copied to and from a pass's working copy cx (column's Cx).
  template <class Cx>
  GJ2K_HD_INLINE void load_contexts(Cx cx) const {
    for (int k = 0; k < kNumContexts; ++k) cx[k] = ctx[k];
  }
  template <class Cx>
  GJ2K_HD_INLINE void store_contexts(const Cx& cx) {
    for (int k = 0; k < kNumContexts; ++k) ctx[k] = static_cast<Context>(cx[k]);
  }

  // What ends pass i: the segmentation symbol after a cleanup (D.5; a mismatch would flag an
  // error for concealment, which this decoder does not attempt), the context reset of RESET
  // mode (D.4.1).
  GJ2K_HD_INLINE void end_pass(uint32_t i, uint8_t style) {
    if (pass_kind(i) == PassKind::kCleanup && (style & cblk_style::kSegmentation))
      for (int b = 0; b < 4; ++b) mq.decode(tab.mq, ctx[kCtxUni]);
    if (style & cblk_style::kReset) reset_contexts();
  }

  // Pass i (plane p), raw or MQ, then end_pass.
  GJ2K_HD void run_pass(uint32_t i, uint32_t p, bool is_raw, uint8_t style) {
    switch (pass_kind(i)) {
      case PassKind::kSignificance:
        if (is_raw)
          pass<PassKind::kSignificance, true>(raw, p);
        else
          pass<PassKind::kSignificance, false>(mq, p);
        break;
      case PassKind::kRefinement:
        if (is_raw)
          pass<PassKind::kRefinement, true>(raw, p);
        else
          pass<PassKind::kRefinement, false>(mq, p);
        break;
      case PassKind::kCleanup:
        pass<PassKind::kCleanup, false>(mq, p);
        break;
    }
    end_pass(i, style);
  }

  // Sample r of a stripe column with state word `word` and value m, signed: zero where not
  // significant (stripe-major values are not zeroed first, an insignificant sample's is
  // stale).
  GJ2K_HD_INLINE static int32_t signed_value(uint32_t word, uint32_t m, int r) {
    const int32_t kept = static_cast<int32_t>(m) & -static_cast<int32_t>((word >> (4 + 3 * r)) & 1);
    const int32_t neg = -static_cast<int32_t>((word >> (19 + r)) & 1);
    return (kept ^ neg) - neg;
  }
#if GJ2K_T1_SSE2
  // write_out of a full stripe's columns four at a time (a 4 x 4 transpose of their values,
  // then signed_value's masks and sign on four samples of a row at once); returns the columns
  // done (w rounded down to a multiple of 4), the rest left to the scalar loop.
  uint32_t write_stripe_sse2(int32_t* o, size_t stride, const uint32_t* f,
                             const uint32_t* v) const {
    uint32_t x = 0;
    for (; x + 4 <= w; x += 4) {
      const __m128i* c = reinterpret_cast<const __m128i*>(v + size_t{4} * x);
      __m128i r0 = _mm_loadu_si128(c), r1 = _mm_loadu_si128(c + 1);  // columns, then rows
      __m128i r2 = _mm_loadu_si128(c + 2), r3 = _mm_loadu_si128(c + 3);
      transpose4x4(r0, r1, r2, r3);
      const __m128i words = _mm_loadu_si128(reinterpret_cast<const __m128i*>(f + x));
      // Row r: the significance bit 4 + 3r and the sign bit 19 + r moved to bit 31, then
      // spread over the word.
      auto row = [&](__m128i m, int r, __m128i sig, __m128i neg) {
        const __m128i kept = _mm_and_si128(m, _mm_srai_epi32(sig, 31));
        const __m128i n = _mm_srai_epi32(neg, 31);
        _mm_storeu_si128(reinterpret_cast<__m128i*>(o + r * stride + x),
                         _mm_sub_epi32(_mm_xor_si128(kept, n), n));
      };
      row(r0, 0, _mm_slli_epi32(words, 27), _mm_slli_epi32(words, 12));
      row(r1, 1, _mm_slli_epi32(words, 24), _mm_slli_epi32(words, 11));
      row(r2, 2, _mm_slli_epi32(words, 21), _mm_slli_epi32(words, 10));
      row(r3, 3, _mm_slli_epi32(words, 18), _mm_slli_epi32(words, 9));
    }
    return x;
  }
#endif
  // Signs applied: stripe-major values to the row-major output column by column (one state
  // word and four adjacent values per column); row-major values carry theirs already.
  GJ2K_HD void write_out(int32_t* out, size_t stride) {
    if constexpr (kStripeValues) {
      for (uint32_t s = 0; s < stripes; ++s) {
        const uint32_t nr = rows(s);
        const uint32_t* f = col(s);
        const uint32_t* v = vcol(s);
        int32_t* o = out + size_t{4} * s * stride;
        if (nr == 4) {
          uint32_t x = 0;
#if GJ2K_T1_SSE2
          if constexpr (kL == 1) {
            x = write_stripe_sse2(o, stride, f, v);
            v += size_t{4} * x;
          }
#endif
          for (; x < w; ++x, v += 4 * kL) {
            const uint32_t word = f[x * kL];
            o[x] = signed_value(word, v[0], 0);
            o[stride + x] = signed_value(word, v[kL], 1);
            o[2 * stride + x] = signed_value(word, v[2 * kL], 2);
            o[3 * stride + x] = signed_value(word, v[3 * kL], 3);
          }
        } else {
          for (uint32_t x = 0; x < w; ++x, v += 4 * kL)
            for (uint32_t r = 0; r < nr; ++r)
              o[r * stride + x] = signed_value(f[x * kL], v[r * kL], int(r));
        }
      }
    }
  }
};

// Zeroes the w x h output: a block with nothing to decode.
GJ2K_HD_INLINE void zero_output(int32_t* out, size_t stride, uint32_t w, uint32_t h) {
  for (uint32_t y = 0; y < h; ++y)
    for (uint32_t x = 0; x < w; ++x) out[y * stride + x] = 0;
}

// A block's arguments, checked in this order: num_bitplanes <= 30 (kTooManyPlanes), then the
// band and the size (kBadArgument).
GJ2K_HD_INLINE BlockStatus check_arguments(uint32_t num_bitplanes, uint32_t band, uint32_t w,
                                           uint32_t h) {
  if (num_bitplanes > 30) return BlockStatus::kTooManyPlanes;
  if (band > 3 || w > kMaxBlockSide || h > kMaxBlockSide || uint64_t{w} * h > kMaxBlockArea)
    return BlockStatus::kBadArgument;
  return BlockStatus::kOk;
}

template <class Segs>
GJ2K_HD_INLINE uint64_t total_passes(const Segs& segs, size_t num_segs) {
  uint64_t total = 0;
  for (size_t k = 0; k < num_segs; ++k) total += segs.passes(k);
  return total;
}

// The segments run_block will read (those that start below pass max_passes(num_bitplanes)),
// checked in order: kSegmentPasses for one holding more passes than the style allows from its
// first pass on (Table D.9), kBadArgument for one with bytes but no data, else kOk. *bad and
// *first_pass: the segment checked last and the index of its first pass.
template <class Segs>
GJ2K_HD BlockStatus check_segments(const Segs& segs, size_t num_segs, uint32_t num_bitplanes,
                                   uint8_t style, size_t* bad, uint32_t* first_pass) {
  const uint32_t limit = max_passes(num_bitplanes);
  uint32_t i = 0;
  for (size_t k = 0; k < num_segs && i < limit; ++k) {
    const uint32_t passes = segs.passes(k);
    if (passes == 0) continue;
    *bad = k;
    *first_pass = i;
    if (passes > segment_pass_limit(style, i)) return BlockStatus::kSegmentPasses;
    if (segs.length(k) > 0 && segs.data(k) == nullptr) return BlockStatus::kBadArgument;
    i = passes < limit - i ? i + passes : limit;
  }
  return BlockStatus::kOk;
}

// Decodes one block whose arguments and segments passed check_arguments and check_segments,
// with at least one pass to decode: passes from max_passes(num_bitplanes) on are ignored.
// Writes every sample of the w x h output. `state`: state_words(w, h) words; `values`: with
// kStripeValues value_words(w, h) words, else unused (the output holds them).
template <bool kVc, bool kStripeValues, class Tables, class Segs>
GJ2K_HD void run_block(const Tables& tables, const Segs& segs, size_t num_segs,
                       uint32_t num_bitplanes, uint8_t style, int32_t* out, size_t stride,
                       uint32_t w, uint32_t h, uint32_t* state, uint32_t* values) {
  BlockDecoder<kVc, kStripeValues, Tables> d;
  d.tab = tables;
  d.w = w;
  d.h = h;
  d.pitch = w + 2;
  d.vpitch = w;
  d.stripes = (h + 3) / 4;
  d.state = state;
  for (size_t k = 0, n = state_words(w, h); k < n; ++k) state[k] = 0;
  if constexpr (kStripeValues) {
    // Not zeroed: a value is written when its sample becomes significant, and write_out
    // reads only those of significant samples.
    d.val = values;
    d.vstride = 0;
  } else {
    d.val = reinterpret_cast<uint32_t*>(out);
    d.vstride = stride;
    zero_output(out, stride, w, h);
  }
  d.reset_contexts();

  const uint32_t limit = max_passes(num_bitplanes);
  uint32_t i = 0;
  for (size_t k = 0; k < num_segs && i < limit; ++k) {
    const uint32_t passes = segs.passes(k);
    if (passes == 0) continue;
    const bool is_raw = raw_pass(style, i);
    if (is_raw)
      d.raw.init(segs.data(k), segs.length(k));
    else
      d.mq.init(segs.data(k), segs.length(k));
    for (uint32_t n = 0; n < passes && i < limit; ++n, ++i)
      d.run_pass(i, pass_plane(i, num_bitplanes), is_raw, style);
  }
  d.write_out(out, stride);
}
// run_block in the style's context formation (D.7).
template <bool kStripeValues, class Tables, class Segs>
GJ2K_HD void run_block_in_mode(const Tables& tables, const Segs& segs, size_t num_segs,
                               uint32_t num_bitplanes, uint8_t style, int32_t* out, size_t stride,
                               uint32_t w, uint32_t h, uint32_t* state, uint32_t* values) {
  if (style & cblk_style::kVerticalCausal)
    run_block<true, kStripeValues>(tables, segs, num_segs, num_bitplanes, style, out, stride, w, h,
                                   state, values);
  else
    run_block<false, kStripeValues>(tables, segs, num_segs, num_bitplanes, style, out, stride, w, h,
                                    state, values);
}

// What decode_block_hd checks before decoding a block, in its order: the status to report and
// the passes to decode (0: none; the output is then written already, zeroed, except for
// kTooManyPlanes and kBadArgument, which write nothing).
struct BlockPlan {
  BlockStatus status;
  uint32_t passes;
};
GJ2K_HD_INLINE BlockPlan plan_block(const SegmentRefs& list, uint32_t num_segs,
                                    uint32_t num_bitplanes, uint32_t band, uint8_t style,
                                    int32_t* out, size_t stride, uint32_t w, uint32_t h) {
  const BlockStatus args = check_arguments(num_bitplanes, band, w, h);
  if (args != BlockStatus::kOk) return {args, 0};
  const uint32_t limit = max_passes(num_bitplanes);
  const uint64_t total = total_passes(list, num_segs);
  const BlockStatus extra = total > limit ? BlockStatus::kExtraPasses : BlockStatus::kOk;
  if (total == 0 || limit == 0 || w == 0 || h == 0) {
    zero_output(out, stride, w, h);
    return {extra, 0};
  }
  size_t bad = 0;
  uint32_t first_pass = 0;
  const BlockStatus segments =
      check_segments(list, num_segs, num_bitplanes, style, &bad, &first_pass);
  if (segments != BlockStatus::kOk) {
    zero_output(out, stride, w, h);
    return {segments, 0};
  }
  return {extra, total < limit ? static_cast<uint32_t>(total) : limit};
}

// decode_block_hd with the band's tables `tabs` already chosen (BandTables, or another tables
// type: t1_dec_qe.h's).
template <bool kStripeValues, class BandTabs>
GJ2K_HD BlockStatus decode_block_with(const BandTabs& tabs, const uint8_t* bytes,
                                      const SegmentRef* segs, uint32_t num_segs,
                                      uint32_t num_bitplanes, uint32_t band, uint8_t style,
                                      int32_t* out, size_t stride, uint32_t w, uint32_t h,
                                      uint32_t* state, uint32_t* values) {
  const SegmentRefs list{bytes, segs};
  const BlockPlan plan = plan_block(list, num_segs, num_bitplanes, band, style, out, stride, w, h);
  if (plan.passes == 0) return plan.status;
  run_block_in_mode<kStripeValues>(tabs, list, num_segs, num_bitplanes, style, out, stride, w, h,
                                   state, values);
  return plan.status;
}

// Decodes one code-block (see the file comment) of the segments `segs` (offsets into `bytes`)
// with the tables `t` (DecodeTables, or t1_dec_qe.h's QeDecodeTables: any with a
// band_tables(t, band)), checking its arguments first (plan_block): kTooManyPlanes and
// kBadArgument write nothing, kSegmentPasses decodes nothing and zeroes the output. `state`:
// state_words(w, h) words; `values`: with kStripeValues value_words(w, h) words, else unused (the
// output holds them).
template <bool kStripeValues, class AllTables>
GJ2K_HD BlockStatus decode_block_hd(const AllTables& t, const uint8_t* bytes,
                                    const SegmentRef* segs, uint32_t num_segs,
                                    uint32_t num_bitplanes, uint32_t band, uint8_t style,
                                    int32_t* out, size_t stride, uint32_t w, uint32_t h,
                                    uint32_t* state, uint32_t* values) {
  return decode_block_with<kStripeValues>(band_tables(t, band & 3), bytes, segs, num_segs,
                                          num_bitplanes, band, style, out, stride, w, h, state,
                                          values);
}

}  // namespace gj2k::entropy::t1
