// The Tier-1 code-block encoder (15444-1 Annex D, C.2), the one source of the CPU's
// entropy::encode_block (t1_enc.cpp) and the CUDA kernel (cuda/t1_enc_kernels.cu): every
// function is host-device (core/hd.h), takes its tables and working memory from the caller,
// writes into a caller-given byte buffer of fixed capacity and reports problems as a status
// instead of throwing, so that a CUDA thread can code one code-block while the CPU build of the
// same source is tested byte for byte against the spec-literal coder (t1_ref.h) in CI.
//
// Contract of encode_block_hd: as entropy::encode_block (t1.h): q holds w x h quantized indices
// (row pitch `stride`), mb the subband's Mb. On kOk, out[0, result.bytes) holds the block's
// data and passes[0, result.passes) its passes (end, distortion, terminated), exactly as
// encode_block reports them; result.planes is the coded bit-plane count (missing MSBs =
// mb - planes). `passes` needs room for max_passes(mb) records.
//
// Capacity: a GPU thread gets a fixed budget per block, encode_budget(w, h, mb) by default. A
// block whose data does not fit returns kOverflow (out's contents are then incomplete, the
// passes undefined) as soon as a pass ends past the capacity; its caller codes it again with
// more room (the CPU wrapper doubles the buffer until it fits).
//
// Distortion: a pass sums per-sample int64 factors (exact) and scales the sum once by a power
// of two times 1 or 3/4 (pass_distortion). The sum is below 2^45, so the product has at most 47
// significant bits and is exact: no rounding, so no FMA contraction or compiler can change it;
// on the device the multiply is __dmul_rn besides, so that the CPU and GPU doubles are
// bit-identical by construction.
//
// State: one 32-bit word per stripe column (t1_context.h), state_words(w, h) words.
// Values: either stripe-major scratch (kStripeValues: magnitude | sign << 31, 4 per column, the
// CPU's cache-friendly layout, value_words(w, h) words) or the input plane itself (row-major
// with its stride: a GPU thread then needs no scratch of its own for values).
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/hd.h"
#include "entropy/mq_enc.h"
#include "entropy/t1.h"
#include "entropy/t1_context.h"

#if __cplusplus >= 202002L
#include <bit>
#endif

namespace gj2k::entropy::t1 {

// The tables the encoder reads. On the CPU they point at the constexpr tables
// (host_encode_tables()); a kernel copies them into shared memory first.
struct EncodeTables {
  const uint8_t* zc;     // kZcTable: 4 x 512, Band order
  const uint8_t* sc;     // kScTable: 2048
  const MqEncState* mq;  // kMqEncStates: 94
};
inline EncodeTables host_encode_tables() {
  return {kZcTable[0].data(), kScTable.data(), kMqEncStates.data()};
}

// How BlockEncoder reaches the tables, as members zc (the band's zero-coding table), sc and mq:
// pointers (EncBandTables, a kernel's shared memory, one instantiation for all bands) or the
// constexpr tables at constant addresses (ConstEncBandTables, one instantiation per band, the
// CPU's entropy::encode_block: the pass loops then hold no table pointer in a register).
struct EncBandTables {
  const uint8_t* zc;
  const uint8_t* sc;
  const MqEncState* mq;
};
template <int kBand>
struct ConstEncBandTables {
  static constexpr const uint8_t* zc = kZcTable[kBand].data();
  static constexpr const std::array<uint8_t, 2048>& sc = kScTable;
  static constexpr const std::array<MqEncState, 94>& mq = kMqEncStates;
};

enum class EncodeStatus : uint8_t {
  kOk = 0,
  kOverflow = 1,      // the data does not fit the capacity: code the block again with more room
  kTooFewPlanes = 2,  // the magnitudes need more than mb bit-planes (result.planes: how many)
  kMinValue = 3,      // a sample is -2^31, whose magnitude has no sign-magnitude form
  kBadArgument = 4,   // mb > 31, band out of range, block beyond the standard's limits
};

struct EncodeResult {
  uint32_t bytes = 0;   // the block's data length
  uint32_t passes = 0;  // coded passes: max_passes(planes)
  uint32_t planes = 0;  // coded magnitude bit-planes
};

// Most passes a block can have (mb <= 31): the pass records a caller provides for any block.
inline constexpr uint32_t kMaxPasses = 3 * 31 - 2;

// The default byte budget of a w x h block with Mb = mb: an eighth of a byte per sample and
// bit-plane, counting one plane more for the signs, plus a quarter for the MQ coder's overhead
// on incompressible data (uniformly random samples of any depth code to at most about 0.85 of
// the budget, T1EncBlock.BudgetHoldsRandomSamples), plus the terminations (at most 5 bytes a
// pass with TERMALL) and a margin. Real coefficients code far below it; what exceeds it comes
// back as kOverflow.
GJ2K_HD_INLINE uint32_t encode_budget(uint32_t w, uint32_t h, uint32_t mb) {
  const uint64_t bits = uint64_t{w} * h * (mb + 1);
  return static_cast<uint32_t>(bits / 8 + bits / 32 + 5 * uint64_t{max_passes(mb)} + 64);
}

// Distortion of a pass at plane p from its integer factor sum d (see the file comment and
// Plane): max(0, d * 0.75 * 2^p) for significance and cleanup passes (0.25 at p = 0),
// max(0, d * 0.25 * 2^p) for refinement; exact.
GJ2K_HD_INLINE double pass_distortion(PassKind kind, uint32_t p, int64_t d) {
  const double h = static_cast<double>(int64_t{1} << p);
  const double scale = kind == PassKind::kRefinement ? 0.25 * h : p > 0 ? 0.75 * h : 0.25;
#if defined(__CUDA_ARCH__)
  const double x = __dmul_rn(static_cast<double>(d), scale);
#else
  const double x = static_cast<double>(d) * scale;
#endif
  // A pass whose refinements all land on old midpoints can lose a little: reported as 0, so
  // that cumulative distortion is monotone.
  return x > 0.0 ? x : 0.0;
}

// Distortion (15444-1 E.1.1.2 midpoint reconstruction, one fractional bit, errors e): the
// squared-error decrease of a pass at plane p, with h = 2^p and t = m mod 2^p, is exact in
// integers per sample:
//   becoming significant (m < 2h, m = h + t): (2m)^2 - (2t - h)^2 = 3h (h + 4t); 4 when p = 0
//   refinement with bit b: e_old^2 - e_new^2 = h (b ? 4t - h : 3h - 4t); (b ? 0 : 4) when p = 0
// so a pass sums the per-sample factors in int64 (< 2^45 over 4096 samples) and scales once
// (pass_distortion).
struct Plane {
  uint32_t bit, low;          // bit = 2^p, low = 2^p - 1
  int64_t sig_base;           // h (4 when p = 0)
  int64_t ref_one, ref_zero;  // h and 3h (0 and 4 when p = 0)
  GJ2K_HD_INLINE explicit Plane(uint32_t p) : bit(1u << p), low((1u << p) - 1) {
    const int64_t h = int64_t{1} << p;
    sig_base = p > 0 ? h : 4;
    ref_one = p > 0 ? h : 0;
    ref_zero = p > 0 ? 3 * h : 4;
  }
};

// A sample as the passes read it: magnitude | sign << 31 (|q| < 2^31).
GJ2K_HD_INLINE uint32_t sign_magnitude(int32_t v) {
  const uint32_t u = static_cast<uint32_t>(v);
  return v < 0 ? (0u - u) | 0x80000000u : u;
}

// Index of the lowest set bit of x != 0, and the bits x needs (0 for 0), on either side (nvcc
// compiles its host code as C++17).
GJ2K_HD_INLINE int lowest_bit(uint32_t x) {
#if defined(__CUDA_ARCH__)
  return __ffs(x) - 1;
#elif __cplusplus >= 202002L
  return std::countr_zero(x);
#else
  return __builtin_ctz(x);
#endif
}
GJ2K_HD_INLINE uint32_t bit_width(uint32_t x) {
#if defined(__CUDA_ARCH__)
  return 32 - __clz(x);
#elif __cplusplus >= 202002L
  return static_cast<uint32_t>(std::bit_width(x));
#else
  return x == 0 ? 0 : 32 - __builtin_clz(x);
#endif
}

// One code-block's coding state. kVc: vertically causal contexts (D.7). kStripeValues: the
// value layout (see the file comment). kDist: whether the passes sum their distortion factors
// (without, every pass reports distortion 0: for callers that include every pass anyway).
template <bool kVc, bool kStripeValues, class Tables, bool kDist = true>
struct BlockEncoder {
  Tables tab;
  // size_t, so that stores to the uint32_t state cannot alias them (kept in registers across
  // the pass loops).
  size_t w, h, pitch, stripes;
  uint32_t* state;      // (stripes + 2) x pitch
  const uint32_t* val;  // stripe-major magnitudes, or the input plane (int32 bits)
  size_t vstride;       // row-major values: the input's row pitch
  uint8_t ctx[kNumContexts];
  MqEncoder mq;
  RawEncoder raw;

  GJ2K_HD_INLINE void reset_contexts() {
    for (int i = 0; i < kNumContexts; ++i)
      ctx[i] = static_cast<uint8_t>(2 * initial_state_index(i));
  }
  // A bw x bh block with the tables t, its state words at st (not cleared here) and its values
  // at v (row pitch vs for values in the input plane).
  GJ2K_HD_INLINE void place(const Tables& t, uint32_t bw, uint32_t bh, uint32_t* st,
                            const uint32_t* v, size_t vs) {
    tab = t;
    w = bw;
    h = bh;
    pitch = size_t{bw} + 2;
    stripes = (size_t{bh} + 3) / 4;
    state = st;
    val = v;
    vstride = vs;
  }
  GJ2K_HD_INLINE uint32_t* col(size_t s) { return state + (s + 1) * pitch + 1; }
  GJ2K_HD_INLINE uint32_t rows(size_t s) const {
    return static_cast<uint32_t>(h - 4 * s < 4 ? h - 4 * s : 4);
  }
  // Values of stripe s's first column; vstep() to the next column; sample(v, r) reads row r.
  GJ2K_HD_INLINE const uint32_t* vcol(size_t s) const {
    return kStripeValues ? val + s * w * 4 : val + 4 * s * vstride;
  }
  GJ2K_HD_INLINE size_t vstep() const { return kStripeValues ? 4 : 1; }
  GJ2K_HD_INLINE uint32_t sample(const uint32_t* v, int r) const {
    if constexpr (kStripeValues)
      return v[r];
    else
      return sign_magnitude(static_cast<int32_t>(v[size_t(r) * vstride]));
  }

  // Sign coding (D.3.2) of a newly significant sample m of row r, then its state update;
  // returns its distortion factor (Plane). Cx: the contexts, a byte array (uint8_t*), or what
  // a recording coder takes instead (t1_enc_planes.h ContextIndex: context k is k).
  template <bool kRaw, class Coder, class Cx>
  GJ2K_HD_INLINE int64_t code_sign(Coder& c, Cx cx, uint32_t* f, uint32_t& word, int r, uint32_t m,
                                   const Plane& pl) {
    const uint32_t neg = m >> 31;
    if constexpr (kRaw) {
      c.put(neg);
    } else {
      const uint32_t v = tab.sc[sc_index(word, f[-1], f[1], r)];
      c.encode(tab.mq, cx[v & 0x1F], neg ^ (v >> 7));
    }
    word |= set_significant<kVc>(f, pitch, r, neg);
    if constexpr (!kDist) return 0;
    return pl.sig_base + 4 * int64_t{m & pl.low};
  }

  // Significance propagation pass (D.3.1); raw in bypass mode (D.6).
  template <bool kRaw, class Coder, class Cx>
  GJ2K_HD_INLINE void spp_row(Coder& c, Cx cx, uint32_t* f, uint32_t& word, int r,
                              const uint32_t* v, const Plane& pl, int64_t& d) {
    const uint32_t n = window(word, r);
    if ((n & kWindowSelf) || !(n & kWindowNeighbours)) return;  // sig, or no neighbour
    const uint32_t m = sample(v, r);
    const uint32_t bit = (m & pl.bit) != 0;
    if constexpr (kRaw) {
      c.put(bit);
    } else {
      c.encode(tab.mq, cx[tab.zc[n]], bit);
    }
    word |= visit_bit(r);
    if (bit) d += code_sign<kRaw>(c, cx, f, word, r, m, pl);
  }
  // The passes below visit the stripes column by column; a full stripe (4 rows) runs a body
  // unrolled over constant rows (kFull), the last partial stripe a loop over its rows.
  template <bool kRaw, bool kFull, class Coder, class Cx>
  GJ2K_HD_INLINE void spp_column(Coder& c, Cx cx, uint32_t* f, const uint32_t* v, const Plane& pl,
                                 int64_t& d, uint32_t nr) {
    uint32_t word = *f;
    // Nothing to code with no significant sample around, or all four significant.
    if ((word & kSigAll) == 0 || (kFull && (word & kOwnSig) == kOwnSig)) return;
    if constexpr (kFull) {
      spp_row<kRaw>(c, cx, f, word, 0, v, pl, d);
      spp_row<kRaw>(c, cx, f, word, 1, v, pl, d);
      spp_row<kRaw>(c, cx, f, word, 2, v, pl, d);
      spp_row<kRaw>(c, cx, f, word, 3, v, pl, d);
    } else {
      for (uint32_t r = 0; r < nr; ++r) spp_row<kRaw>(c, cx, f, word, int(r), v, pl, d);
    }
    *f = word;
  }

  // Magnitude refinement pass (D.3.3); raw in bypass mode.
  template <bool kRaw, class Coder, class Cx>
  GJ2K_HD_INLINE void mrp_row(Coder& c, Cx cx, uint32_t& word, int r, const uint32_t* v,
                              const Plane& pl, int64_t& d) {
    if ((word & (sig_bit(r, 0) | visit_bit(r))) != sig_bit(r, 0)) return;
    const uint32_t m = sample(v, r);
    const uint32_t bit = (m & pl.bit) != 0;
    if constexpr (kRaw) {
      c.put(bit);
    } else {
      c.encode(tab.mq, cx[mr_context(word, r)], bit);
    }
    word |= refined_bit(r);
    if constexpr (kDist) {
      const int64_t t4 = 4 * int64_t{m & pl.low};
      d += bit ? t4 - pl.ref_one : pl.ref_zero - t4;
    }
  }
  template <bool kRaw, bool kFull, class Coder, class Cx>
  GJ2K_HD_INLINE void mrp_column(Coder& c, Cx cx, uint32_t* f, const uint32_t* v, const Plane& pl,
                                 int64_t& d, uint32_t nr) {
    uint32_t word = *f;
    if ((word & kOwnSig) == 0) return;
    if constexpr (kFull) {
      mrp_row<kRaw>(c, cx, word, 0, v, pl, d);
      mrp_row<kRaw>(c, cx, word, 1, v, pl, d);
      mrp_row<kRaw>(c, cx, word, 2, v, pl, d);
      mrp_row<kRaw>(c, cx, word, 3, v, pl, d);
    } else {
      for (uint32_t r = 0; r < nr; ++r) mrp_row<kRaw>(c, cx, word, int(r), v, pl, d);
    }
    *f = word;
  }

  // Cleanup pass with run-length mode (D.3.4); clears the significance pass's visit marks.
  template <class Coder, class Cx>
  GJ2K_HD_INLINE void cup_row(Coder& c, Cx cx, uint32_t* f, uint32_t& word, int r,
                              const uint32_t* v, const Plane& pl, int64_t& d) {
    if (word & (sig_bit(r, 0) | visit_bit(r))) return;
    const uint32_t m = sample(v, r);
    const uint32_t bit = (m & pl.bit) != 0;
    c.encode(tab.mq, cx[tab.zc[window(word, r)]], bit);
    if (bit) d += code_sign<false>(c, cx, f, word, r, m, pl);
  }
  template <bool kFull, class Coder, class Cx>
  GJ2K_HD_INLINE void cup_column(Coder& c, Cx cx, uint32_t* f, const uint32_t* v, const Plane& pl,
                                 int64_t& d, uint32_t nr) {
    uint32_t word = *f;
    if constexpr (kFull) {
      if ((word & (kSigAll | kVisitAll)) == 0) {
        // Run-length mode: four insignificant samples with insignificant neighbourhoods. The
        // plane's bit (< 2^31, below the sign) of any of the four, in one test.
        const uint32_t any = (sample(v, 0) | sample(v, 1) | sample(v, 2) | sample(v, 3)) & pl.bit;
        c.encode_likely_mps(tab.mq, cx[kCtxRl], any != 0);
        if (any == 0) return;  // all four stay insignificant, no visit mark to clear
        const uint32_t bits =
            ((sample(v, 0) & pl.bit) != 0) | (((sample(v, 1) & pl.bit) != 0) << 1) |
            (((sample(v, 2) & pl.bit) != 0) << 2) | (((sample(v, 3) & pl.bit) != 0) << 3);
        const int r = lowest_bit(bits);
        c.encode(tab.mq, cx[kCtxUni], uint32_t(r) >> 1);
        c.encode(tab.mq, cx[kCtxUni], uint32_t(r) & 1);
        d += code_sign<false>(c, cx, f, word, r, sample(v, r), pl);
        switch (r) {
          case 0:
            cup_row(c, cx, f, word, 1, v, pl, d);
            [[fallthrough]];
          case 1:
            cup_row(c, cx, f, word, 2, v, pl, d);
            [[fallthrough]];
          case 2:
            cup_row(c, cx, f, word, 3, v, pl, d);
            break;
          default:
            break;
        }
      } else {
        cup_row(c, cx, f, word, 0, v, pl, d);
        cup_row(c, cx, f, word, 1, v, pl, d);
        cup_row(c, cx, f, word, 2, v, pl, d);
        cup_row(c, cx, f, word, 3, v, pl, d);
      }
    } else {
      for (uint32_t r = 0; r < nr; ++r) cup_row(c, cx, f, word, int(r), v, pl, d);
    }
    *f = word & ~kVisitAll;
  }

  template <PassKind kKind, bool kRaw, bool kFull, class Coder, class Cx>
  GJ2K_HD_INLINE void column(Coder& c, Cx cx, uint32_t* f, const uint32_t* v, const Plane& pl,
                             int64_t& d, uint32_t nr) {
    if constexpr (kKind == PassKind::kSignificance)
      spp_column<kRaw, kFull>(c, cx, f, v, pl, d, nr);
    else if constexpr (kKind == PassKind::kRefinement)
      mrp_column<kRaw, kFull>(c, cx, f, v, pl, d, nr);
    else
      cup_column<kFull>(c, cx, f, v, pl, d, nr);
  }
  // One pass of plane p over the block, stripe by stripe, column by column, with the coder c
  // and the contexts cx; returns its distortion factor sum.
  template <PassKind kKind, bool kRaw, class Coder, class Cx>
  GJ2K_HD_INLINE int64_t pass_loop(Coder& c, Cx cx, uint32_t p) {
    const Plane pl(p);
    int64_t d = 0;
    for (size_t s = 0; s < stripes; ++s) {
      const uint32_t nr = rows(s);
      uint32_t* f = col(s);
      const uint32_t* v = vcol(s);
      if (nr == 4) {
        for (uint32_t* const fe = f + w; f != fe; ++f, v += vstep())
          column<kKind, kRaw, true>(c, cx, f, v, pl, d, 4);
      } else {
        for (uint32_t* const fe = f + w; f != fe; ++f, v += vstep())
          column<kKind, kRaw, false>(c, cx, f, v, pl, d, nr);
      }
    }
    return d;
  }
  // pass_loop on local copies of the coder's registers and the contexts (written back at its
  // end): the loop then keeps them in registers, where stores to the state could otherwise
  // alias them. A kernel copies the whole MQ coder; the host leaves its output state (touched
  // once a byte) in memory, for the registers the loop needs more.
  template <PassKind kKind, bool kRaw, class Coder>
  GJ2K_HD GJ2K_NOINLINE int64_t pass(Coder& coder, uint32_t p) {
    uint8_t cx[kNumContexts];
    if constexpr (!kRaw)
      for (int k = 0; k < kNumContexts; ++k) cx[k] = ctx[k];
    int64_t d;
#if !defined(__CUDA_ARCH__)
    if constexpr (!kRaw) {
      MqEncoder::Registers c(coder);
      d = pass_loop<kKind, kRaw>(c, cx, p);
      c.store(coder);
    } else
#endif
    {
      Coder c = coder;
      d = pass_loop<kKind, kRaw>(c, cx, p);
      coder = c;
    }
    if constexpr (!kRaw)
      for (int k = 0; k < kNumContexts; ++k) ctx[k] = cx[k];
    return d;
  }

  // Pass i (plane p), raw or MQ, with the segmentation symbol after a cleanup (D.5); returns
  // its distortion factor sum.
  GJ2K_HD int64_t run_pass(PassKind kind, uint32_t p, bool is_raw, uint8_t style) {
    switch (kind) {
      case PassKind::kSignificance:
        return is_raw ? pass<PassKind::kSignificance, true>(raw, p)
                      : pass<PassKind::kSignificance, false>(mq, p);
      case PassKind::kRefinement:
        return is_raw ? pass<PassKind::kRefinement, true>(raw, p)
                      : pass<PassKind::kRefinement, false>(mq, p);
      default: {
        const int64_t d = pass<PassKind::kCleanup, false>(mq, p);
        if (style & cblk_style::kSegmentation) {  // D.5: 1010 in the UNIFORM context
          mq.encode(tab.mq, ctx[kCtxUni], 1);
          mq.encode(tab.mq, ctx[kCtxUni], 0);
          mq.encode(tab.mq, ctx[kCtxUni], 1);
          mq.encode(tab.mq, ctx[kCtxUni], 0);
        }
        return d;
      }
    }
  }
};

// The segment bookkeeping of a block's passes (run_encode, t1_enc_planes.h code_symbols): each
// segment's coder started at its first pass, each pass recorded as it ends (its distortion; its
// end, which for a pass inside a segment is resolved when the segment ends, MqEncoder::resolve),
// the contexts reset after every pass with RESET (D.4.1).
struct EncodeSegments {
  // Truncation marks of the current segment's passes before its last.
  struct Pending {
    MqMark mq;
    uint32_t raw;
  };
  Pending pending[kMaxPasses];
  uint32_t size = 0, seg_start = 0, seg_first = 0;
  bool new_segment = true;

  // Before pass i: starts a segment's coder (raw or MQ) when a segment begins there.
  template <class E>
  GJ2K_HD_INLINE void begin(E& e, uint32_t i, bool is_raw) {
    if (!new_segment) return;
    seg_start = size;
    seg_first = i;
    if (is_raw)
      e.raw.init(size);
    else
      e.mq.init(size);
    new_segment = false;
  }
  // After pass i of num_passes (kind, plane p, distortion factor sum d): its record in
  // passes[i], its segment terminated where it ends. false: the data ran past the capacity.
  template <class E>
  GJ2K_HD_INLINE bool end(E& e, uint8_t style, uint32_t i, uint32_t num_passes, PassKind kind,
                          uint32_t p, int64_t d, bool is_raw, const uint8_t* out, uint32_t capacity,
                          CodedPass* passes) {
    const bool term = segment_ends(style, i) || i + 1 == num_passes;
    passes[i].distortion = pass_distortion(kind, p, d);
    passes[i].end = 0;
    passes[i].terminated = term;
    if (term) {
      if (is_raw)
        e.raw.flush((style & cblk_style::kPredictableTerm) != 0);
      else
        e.mq.flush((style & cblk_style::kPredictableTerm) != 0);
      size = is_raw ? e.raw.size() : e.mq.size();
      if (size > capacity) return false;
      for (uint32_t k = seg_first; k < i; ++k) {
        passes[k].end = is_raw ? (pending[k].raw < size ? pending[k].raw : size)
                               : MqEncoder::resolve(pending[k].mq, out, seg_start, size);
      }
      passes[i].end = size;
      new_segment = true;
    } else {
      if ((is_raw ? e.raw.size() : e.mq.size()) > capacity) return false;
      if (is_raw)
        pending[i].raw = e.raw.mark();
      else
        pending[i].mq = e.mq.mark();
    }
    if (style & cblk_style::kReset) e.reset_contexts();
    return true;
  }
  // After the last pass: rate control needs non-decreasing ends; raising an end keeps it
  // sufficient.
  GJ2K_HD_INLINE static void finish(CodedPass* passes, uint32_t num_passes) {
    for (uint32_t i = 1; i < num_passes; ++i)
      if (passes[i].end < passes[i - 1].end) passes[i].end = passes[i - 1].end;
  }
};

// Codes the passes of a block with nbp >= 1 planes, one after the other, with the coder e (its
// mq, raw and reset_contexts(), as EncodeSegments drives them): pass(kind, p, is_raw) codes one
// pass of plane p and returns its distortion factor sum. out, capacity, passes, *bytes and the
// status as run_encode's (run_encode and t1_enc_planes.h code_symbols share this loop).
template <class E, class Pass>
GJ2K_HD_INLINE EncodeStatus code_passes(E& e, uint8_t style, uint32_t nbp, uint8_t* out,
                                        uint32_t capacity, CodedPass* passes, uint32_t* bytes,
                                        const Pass& pass) {
  const uint32_t num_passes = max_passes(nbp);
  EncodeSegments seg;
  for (uint32_t i = 0; i < num_passes; ++i) {
    const bool is_raw = raw_pass(style, i);
    seg.begin(e, i, is_raw);
    const PassKind kind = pass_kind(i);
    const uint32_t p = pass_plane(i, nbp);
    const int64_t d = pass(kind, p, is_raw);
    if (!seg.end(e, style, i, num_passes, kind, p, d, is_raw, out, capacity, passes))
      return EncodeStatus::kOverflow;
  }
  EncodeSegments::finish(passes, num_passes);
  *bytes = seg.size;
  return EncodeStatus::kOk;
}

// Codes the nbp >= 1 planes of a w x h >= 1 block whose values are in place (stripe-major
// magnitudes at `values`, or the plane q), see the file comment. Non-terminated passes get the
// conservative end of their truncation point within their segment (MqEncoder::resolve).
template <bool kVc, bool kStripeValues, class Tables, bool kDist = true>
GJ2K_HD EncodeStatus run_encode(const Tables& tables, const uint32_t* values, size_t vstride,
                                uint32_t w, uint32_t h, uint8_t style, uint32_t nbp, uint8_t* out,
                                uint32_t capacity, CodedPass* passes, uint32_t* state,
                                uint32_t* bytes) {
  BlockEncoder<kVc, kStripeValues, Tables, kDist> e;
  e.place(tables, w, h, state, values, vstride);
  for (size_t k = 0, n = state_words(w, h); k < n; ++k) state[k] = 0;
  e.reset_contexts();
  e.mq = MqEncoder(out, capacity);
  e.raw = RawEncoder(out, capacity);

  return code_passes(
      e, style, nbp, out, capacity, passes, bytes,
      [&](PassKind kind, uint32_t p, bool is_raw) { return e.run_pass(kind, p, is_raw, style); });
}

// The arguments encode_block refuses: mb > 31, band > 3, a size beyond A.6.1.
GJ2K_HD_INLINE EncodeStatus check_encode_arguments(uint32_t mb, uint32_t band, uint32_t w,
                                                   uint32_t h) {
  if (mb > 31 || band > 3 || w > kMaxBlockSide || h > kMaxBlockSide ||
      uint64_t{w} * h > kMaxBlockArea)
    return EncodeStatus::kBadArgument;
  return EncodeStatus::kOk;
}

#if GJ2K_T1_SSE2
// scan_planes<true> with SSE2: the full stripes four columns at a time (a 4 x 4 transpose of
// sign-magnitude words), the rest as scan_planes does.
inline uint32_t scan_planes_sse2(const int32_t* q, size_t stride, uint32_t w, uint32_t h,
                                 uint32_t* values) {
  const __m128i sign = _mm_set1_epi32(INT32_MIN);
  __m128i all4 = _mm_setzero_si128();
  uint32_t all = 0;
  auto store_scalar = [&](uint32_t x, uint32_t y) {
    const int32_t v = q[y * stride + x];
    const uint32_t a = v < 0 ? 0u - static_cast<uint32_t>(v) : static_cast<uint32_t>(v);
    all |= a;
    values[(y >> 2) * size_t{w} * 4 + size_t{x} * 4 + (y & 3)] = a | (v < 0 ? 0x80000000u : 0u);
  };
  for (uint32_t y0 = 0; y0 < h; y0 += 4) {
    if (h - y0 < 4) {
      for (uint32_t y = y0; y < h; ++y)
        for (uint32_t x = 0; x < w; ++x) store_scalar(x, y);
      break;
    }
    const int32_t* row = q + y0 * stride;
    uint32_t* out = values + (y0 >> 2) * size_t{w} * 4;
    uint32_t x = 0;
    for (; x + 4 <= w; x += 4) {
      __m128i m[4];
      for (int r = 0; r < 4; ++r) {
        const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(row + r * stride + x));
        const __m128i s = _mm_srai_epi32(a, 31);
        const __m128i mag = _mm_sub_epi32(_mm_xor_si128(a, s), s);
        all4 = _mm_or_si128(all4, mag);
        m[r] = _mm_or_si128(mag, _mm_and_si128(a, sign));
      }
      transpose4x4(m[0], m[1], m[2], m[3]);
      __m128i* o = reinterpret_cast<__m128i*>(out + size_t{x} * 4);
      for (int k = 0; k < 4; ++k) _mm_storeu_si128(o + k, m[k]);
    }
    for (; x < w; ++x)
      for (uint32_t y = y0; y < y0 + 4; ++y) store_scalar(x, y);
  }
  all4 = _mm_or_si128(all4, _mm_shuffle_epi32(all4, 0x4E));
  all4 = _mm_or_si128(all4, _mm_shuffle_epi32(all4, 0xB1));
  return bit_width(all | static_cast<uint32_t>(_mm_cvtsi128_si32(all4)));
}
#endif

// Bit-planes the magnitudes of the w x h samples at q need (32 when one is -2^31); with
// kStripeValues also stores them stripe-major (sign_magnitude) in `values`.
template <bool kStripeValues>
GJ2K_HD_INLINE uint32_t scan_planes(const int32_t* q, size_t stride, uint32_t w, uint32_t h,
                                    uint32_t* values) {
#if GJ2K_T1_SSE2
  if constexpr (kStripeValues) return scan_planes_sse2(q, stride, w, h, values);
#endif
  uint32_t all = 0;
  for (uint32_t y = 0; y < h; ++y) {
    const int32_t* row = q + y * stride;
    for (uint32_t x = 0; x < w; ++x) {
      const int32_t v = row[x];
      const uint32_t a = v < 0 ? 0u - static_cast<uint32_t>(v) : static_cast<uint32_t>(v);
      all |= a;
      if constexpr (kStripeValues)
        values[(y >> 2) * size_t{w} * 4 + size_t{x} * 4 + (y & 3)] = a | (v < 0 ? 0x80000000u : 0u);
    }
  }
  return bit_width(all);
}

// What a block whose magnitudes need nbp planes (scan_planes) can be coded as with Mb = mb:
// kMinValue (a -2^31 sample), kTooFewPlanes (nbp > mb), else kOk. *result (zeroed by the
// caller) receives the planes, and with kOk the passes (none for nbp = 0: nothing to code).
GJ2K_HD_INLINE EncodeStatus planes_status(uint32_t nbp, uint32_t mb, EncodeResult* result) {
  if (nbp > 31) return EncodeStatus::kMinValue;
  result->planes = nbp;
  if (nbp > mb) return EncodeStatus::kTooFewPlanes;
  if (nbp > 0) result->passes = max_passes(nbp);
  return EncodeStatus::kOk;
}

// Codes one code-block whose arguments passed check_encode_arguments, with the tables `tables`
// (EncBandTables or ConstEncBandTables of its band); see the file comment. `state`:
// state_words(w, h) words; `values`: with kStripeValues value_words(w, h) words, else unused.
template <bool kStripeValues, class Tables, bool kDist = true>
GJ2K_HD EncodeStatus encode_checked(const Tables& tables, const int32_t* q, size_t stride,
                                    uint32_t w, uint32_t h, uint8_t style, uint32_t mb,
                                    uint8_t* out, uint32_t capacity, CodedPass* passes,
                                    uint32_t* state, uint32_t* values, EncodeResult* result) {
  *result = EncodeResult{};
  const uint32_t nbp = scan_planes<kStripeValues>(q, stride, w, h, values);
  const EncodeStatus planes = planes_status(nbp, mb, result);
  if (planes != EncodeStatus::kOk || nbp == 0) return planes;  // nbp 0: nothing to code
  const uint32_t* v = kStripeValues ? values : reinterpret_cast<const uint32_t*>(q);
  const size_t vstride = kStripeValues ? 0 : stride;
  if (style & cblk_style::kVerticalCausal)
    return run_encode<true, kStripeValues, Tables, kDist>(tables, v, vstride, w, h, style, nbp, out,
                                                          capacity, passes, state, &result->bytes);
  return run_encode<false, kStripeValues, Tables, kDist>(tables, v, vstride, w, h, style, nbp, out,
                                                         capacity, passes, state, &result->bytes);
}

// Codes one code-block (see the file comment) with the tables `t`, checking its arguments first.
template <bool kStripeValues>
GJ2K_HD EncodeStatus encode_block_hd(const EncodeTables& t, const int32_t* q, size_t stride,
                                     uint32_t w, uint32_t h, uint32_t band, uint8_t style,
                                     uint32_t mb, uint8_t* out, uint32_t capacity,
                                     CodedPass* passes, uint32_t* state, uint32_t* values,
                                     EncodeResult* result) {
  *result = EncodeResult{};
  const EncodeStatus args = check_encode_arguments(mb, band, w, h);
  if (args != EncodeStatus::kOk) return args;
  const EncBandTables tables{t.zc + 512 * band, t.sc, t.mq};
  return encode_checked<kStripeValues>(tables, q, stride, w, h, style, mb, out, capacity, passes,
                                       state, values, result);
}

}  // namespace gj2k::entropy::t1
