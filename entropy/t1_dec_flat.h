// The Tier-1 block decoder of t1_dec_block.h as one loop with one MQ decision per turn, for
// the GPU's flat mapping (cuda/t1_dec_kernels.cu): a thread per code-block, where every turn of
// a lane's loop finds its block's next decision (find), decodes it and applies it (step), and
// a lane whose block ends takes the next job inside the same loop (decode_flat).
//
// Why: a warp of the thread mapping, 32 lanes on 32 blocks, diverges at every stripe column
// (skip, run-length, a decision on one row or another, a pass of another kind), and the
// decisions are inlined in a dozen places, so the warp issues each lane's path on its own and
// costs about the sum of its lanes (docs/PERFORMANCE.md, "Seventh run": 3.5 active threads per
// warp instruction). Here every decision of every pass kind goes through one call of the MQ
// decoder at one place, so the lanes meet there each turn; only the search for the next
// decision (a candidate mask per stripe column, the same code for every pass kind but the
// mask's formula) and the short update after it diverge.
//
// Contract of decode_flat: every block the source hands out is decoded as decode_block_hd
// decodes it (row-major values, kStripeValues = false): the same status, the same samples,
// bypass passes and every code-block style included (the bypass passes run through
// BlockDecoder's raw passes). CPU build tested against decode_block_hd and t1_ref in CI
// (tests/entropy/t1_dec_block_test.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>

#include "core/hd.h"
#include "entropy/t1_dec_block.h"

namespace gj2k::entropy::t1 {

// One block for decode_flat: decode_block_hd's arguments.
struct FlatBlock {
  const uint8_t* bytes;
  const SegmentRef* segs;
  uint32_t num_segs;
  uint32_t planes, band;
  uint8_t style;
  int32_t* out;
  size_t stride;
  uint32_t w, h;
};

// Trailing zero bits of x != 0.
GJ2K_HD_INLINE uint32_t count_trailing_zeros(uint32_t x) {
#if defined(__CUDA_ARCH__)
  return static_cast<uint32_t>(__ffs(static_cast<int>(x)) - 1);
#elif defined(__GNUC__)
  return static_cast<uint32_t>(__builtin_ctz(x));
#else
  uint32_t n = 0;
  while (!(x & 1)) x >>= 1, ++n;
  return n;
#endif
}

// The state word's rows as a mask with row r at bit 3 r (r = 0..3), the form in which the
// decoder marks the rows of a stripe column that still need a decision.
inline constexpr uint32_t kRowBits = 0x249;
// The rows below row r: those at bits above 3 r.
GJ2K_HD_INLINE uint32_t rows_after(uint32_t r) {
  return kRowBits & (~0u << (3 * r + 3));
}

// One lane's decoder. BandTabs: a band's tables (BandTables, QeBandTables or the kernel's
// QeSlotBandTables, whose contexts live in shared-memory slots for the whole block).
template <class BandTabs>
class FlatDecoder {
 public:
  using Mq = typename BandTabs::Mq;
  using Context = typename Mq::Context;

  // Starts block b with the band's tables `tab` and `state` (state_words(w, h) words): checks
  // it as decode_block_hd does (plan_block) and returns the status. With passes to decode the
  // decoder is busy afterwards (find), otherwise the output is as plan_block leaves it.
  GJ2K_HD BlockStatus start(const BandTabs& tab, const FlatBlock& b, uint32_t* state) {
    busy_ = false;
    const SegmentRefs list{b.bytes, b.segs};
    const BlockPlan plan =
        plan_block(list, b.num_segs, b.planes, b.band, b.style, b.out, b.stride, b.w, b.h);
    if (plan.passes == 0) return plan.status;
    tab_ = tab;
    cx_ = pass_contexts(tab_, local_);
    blk_ = b;
    pitch_ = b.w + 2;
    stripes_ = (b.h + 3) / 4;
    state_ = state;
    for (size_t k = 0, n = state_words(b.w, b.h); k < n; ++k) state[k] = 0;
    // Row-major values in the output: zeroed, as decode_block_hd's layout without scratch.
    zero_output(b.out, b.stride, b.w, b.h);
    reset_contexts();
    limit_ = max_passes(b.planes);
    i_ = 0;
    seg_ = 0;
    busy_ = true;
    open_segment();
    return plan.status;
  }

  // Finds the block's next decision; false when there is none (no block, or the block has
  // ended: its output is then written).
  GJ2K_HD bool find() {
    if (!busy_) return false;
    for (;;) {
      if (kind_ == kCup && allowed_ == kRowBits && (word_ & (kSigAll | kVisitAll)) == 0) {
        // Run-length mode (D.3.4): four insignificant samples with insignificant neighbours.
        dk_ = kRl;
        k_ = kCtxRl;
        return true;
      }
      const uint32_t cand = candidates() & allowed_;
      if (cand) {
        r_ = (count_trailing_zeros(cand) * 11) >> 5;  // bit 3 r -> r
        if (kind_ == kMrp) {
          dk_ = kMr;
          k_ = mr_context(word_, int(r_));
        } else {
          dk_ = kZc;
          k_ = tab_.zc[window(word_, int(r_))];
        }
        return true;
      }
      // The column is done: the cleanup clears the significance pass's marks (D.3.4).
      *f_ = kind_ == kCup ? word_ & ~kVisitAll : word_;
      ++f_;
      ++v_;
      if (f_ != fe_) {
        word_ = *f_;
        allowed_ = rowmask_;
      } else if (!next_stripe()) {
        return false;
      }
    }
  }

  // Decodes the decision find() found and applies it.
  GJ2K_HD_INLINE void step() {
    const uint32_t bit = mq_.decode(tab_.mq, cx_[k_]) ^ xr_;
    xr_ = 0;
    switch (dk_) {
      case kZc:
        if (kind_ == kSpp) word_ |= visit_bit(int(r_));
        if (bit) {
          sign_next();
          return;
        }
        break;
      case kSign:
        word_ |= set_significant_rt(bit);
        v_[r_ * blk_.stride] = pv_.first;
        break;
      case kMr:
        word_ |= refined_bit(int(r_));
        v_[r_ * blk_.stride] += bit ? pv_.up : pv_.down;
        break;
      case kRl:
        if (bit) {
          dk_ = kUni1;
          k_ = kCtxUni;
          pending_ = true;
          return;
        }
        allowed_ = 0;  // all four stay insignificant
        pending_ = false;
        return;
      case kUni1:
        r_ = bit << 1;
        dk_ = kUni2;
        pending_ = true;
        return;
      default:  // kUni2: the first significant row; its sign follows
        r_ |= bit;
        sign_next();
        return;
    }
    allowed_ = rows_after(r_) & rowmask_;
    pending_ = false;
  }

  // Whether step() has a decision waiting without a find() (the second of a pair: a sign after
  // its significance, the uniform decisions after a run-length one).
  GJ2K_HD_INLINE bool pending() const { return pending_; }

 private:
  enum : uint32_t { kSpp = 0, kMrp = 1, kCup = 2 };  // PassKind's order
  enum : uint32_t { kZc, kSign, kMr, kRl, kUni1, kUni2 };

  // The rows of the column (bit 3 r) that the current pass decides on, from the column's word:
  // the significance pass those insignificant with a significant neighbour (D.3.1; the
  // sample's own bit may count, it is zero), the refinement pass those significant and not
  // just found so (D.3.3), the cleanup pass those neither significant nor visited (D.3.4).
  GJ2K_HD_INLINE uint32_t candidates() const {
    const uint32_t own = (word_ >> 4) & kRowBits;
    if (kind_ == kSpp) {
      const uint32_t sig = word_ & kSigAll;
      const uint32_t any = (sig | (sig >> 1) | (sig >> 2)) & 0x9249;  // each of six rows
      return (any | (any >> 3) | (any >> 6)) & ~own;
    }
    const uint32_t vv = word_ >> 24;
    const uint32_t vis = (vv & 1) | ((vv & 2) << 2) | ((vv & 4) << 4) | ((vv & 8) << 6);
    return kind_ == kMrp ? own & ~vis : ~(own | vis);
  }

  // The sign decision (D.3.2) of row r_ next.
  GJ2K_HD_INLINE void sign_next() {
    const uint32_t s = tab_.sc[sc_index(word_, f_[-1], f_[1], int(r_))];
    k_ = s & 0x1F;
    xr_ = s >> 7;
    dk_ = kSign;
    pending_ = true;
  }

  // set_significant for row r_ (at run time) and the block's context formation.
  GJ2K_HD_INLINE uint32_t set_significant_rt(uint32_t neg) {
    uint32_t* const f = f_;
    const int r = int(r_);
    f[-1] |= sig_bit(r, 1);
    f[1] |= sig_bit(r, -1);
    if (r == 0 && !(blk_.style & cblk_style::kVerticalCausal)) {
      uint32_t* a = f - pitch_;
      a[-1] |= sig_bit(4, 1);
      a[0] |= sig_bit(4, 0) | (neg << 23);
      a[1] |= sig_bit(4, -1);
    } else if (r == 3) {
      uint32_t* b = f + pitch_;
      b[-1] |= sig_bit(-1, 1);
      b[0] |= sig_bit(-1, 0) | (neg << 18);
      b[1] |= sig_bit(-1, -1);
    }
    return sig_bit(r, 0) | (neg << (19 + r));
  }

  GJ2K_HD_INLINE void reset_contexts() {
    for (int i = 0; i < kNumContexts; ++i)
      cx_[i] = Mq::context(static_cast<uint8_t>(2 * initial_state_index(i)));
  }

  // Stripe s_ of the current pass, from its first column.
  GJ2K_HD_INLINE void begin_stripe() {
    f_ = state_ + (s_ + 1) * pitch_ + 1;
    fe_ = f_ + blk_.w;
    v_ = reinterpret_cast<uint32_t*>(blk_.out) + size_t{4} * s_ * blk_.stride;
    const uint32_t nr = blk_.h - 4 * s_ < 4 ? blk_.h - 4 * s_ : 4;
    rowmask_ = kRowBits >> (3 * (4 - nr));
    word_ = *f_;
    allowed_ = rowmask_;
  }
  // Pass i_ from its first column.
  GJ2K_HD void begin_pass() {
    kind_ = static_cast<uint32_t>(pass_kind(i_));
    pv_ = BlockDecoder<false, false, BandTabs>::plane_values(pass_plane(i_, blk_.planes));
    s_ = 0;
    begin_stripe();
  }
  // After a stripe's last column: the next stripe, pass or segment; false when the block has
  // ended (its output written).
  GJ2K_HD bool next_stripe() {
    if (++s_ < stripes_) {
      begin_stripe();
      return true;
    }
    // The pass has ended (end_pass: D.5's segmentation symbol, D.4.1's reset).
    if (kind_ == kCup && (blk_.style & cblk_style::kSegmentation))
      for (int b = 0; b < 4; ++b) mq_.decode(tab_.mq, cx_[kCtxUni]);
    if (blk_.style & cblk_style::kReset) reset_contexts();
    if (++i_ < pass_end_) {
      begin_pass();
      return true;
    }
    return open_segment();
  }

  // BlockDecoder with this block's fields and contexts, for what the loop leaves to it.
  template <bool kVc>
  GJ2K_HD_INLINE void block_decoder(BlockDecoder<kVc, false, BandTabs>& d) const {
    d.tab = tab_;
    d.w = blk_.w;
    d.h = blk_.h;
    d.pitch = pitch_;
    d.vpitch = blk_.w;
    d.stripes = stripes_;
    d.state = state_;
    d.val = reinterpret_cast<uint32_t*>(blk_.out);
    d.vstride = blk_.stride;
    for (int k = 0; k < kNumContexts; ++k) d.ctx[k] = cx_[k];
    d.mq = mq_;
  }
  // Raw (bypass, D.6) passes [i_, end) of a segment: BlockDecoder's run_pass, with this
  // decoder's contexts and MQ decoder (a cleanup pass in a raw segment decodes with it, as
  // run_block does).
  template <bool kVc>
  GJ2K_HD void raw_passes(uint32_t end) {
    BlockDecoder<kVc, false, BandTabs> d;
    block_decoder(d);
    const SegmentRefs list{blk_.bytes, blk_.segs};
    d.raw.init(list.data(seg_), list.length(seg_));
    for (; i_ < end; ++i_) d.run_pass(i_, pass_plane(i_, blk_.planes), true, blk_.style);
    for (int k = 0; k < kNumContexts; ++k) cx_[k] = d.ctx[k];
    mq_ = d.mq;
  }
  // The next segment with passes, as run_block reads them: raw ones decoded at once, an MQ
  // one started at its first pass; false when the block has ended (its output written).
  GJ2K_HD bool open_segment() {
    const SegmentRefs list{blk_.bytes, blk_.segs};
    for (; seg_ < blk_.num_segs && i_ < limit_; ++seg_) {
      const uint32_t passes = list.passes(seg_);
      if (passes == 0) continue;
      const uint32_t end = passes < limit_ - i_ ? i_ + passes : limit_;
      if (raw_pass(blk_.style, i_)) {
        if (blk_.style & cblk_style::kVerticalCausal)
          raw_passes<true>(end);
        else
          raw_passes<false>(end);
        continue;
      }
      mq_.init(list.data(seg_), list.length(seg_));
      pass_end_ = end;
      ++seg_;
      begin_pass();
      return true;
    }
    finish();
    return false;
  }
  // The signs applied to the row-major values (BlockDecoder::write_out).
  GJ2K_HD void finish() {
    BlockDecoder<false, false, BandTabs> d;
    d.w = blk_.w;
    d.h = blk_.h;
    d.pitch = pitch_;
    d.vpitch = blk_.w;
    d.stripes = stripes_;
    d.state = state_;
    d.val = reinterpret_cast<uint32_t*>(blk_.out);
    d.vstride = blk_.stride;
    d.write_out(blk_.out, blk_.stride);
    busy_ = false;
  }

  BandTabs tab_;
  Context local_[kNumContexts];  // the contexts, where BandTabs keeps none of its own
  decltype(pass_contexts(std::declval<const BandTabs&>(), static_cast<Context*>(nullptr))) cx_;
  Mq mq_;
  FlatBlock blk_;
  uint32_t* state_ = nullptr;
  uint32_t pitch_ = 0, stripes_ = 0, limit_ = 0;
  uint32_t i_ = 0, pass_end_ = 0, seg_ = 0;  // pass, end of the segment's passes, next segment
  uint32_t kind_ = 0;
  typename BlockDecoder<false, false, BandTabs>::PlaneValues pv_{};
  uint32_t s_ = 0, rowmask_ = 0;  // stripe, its rows
  uint32_t* f_ = nullptr;         // the column's state word
  uint32_t* fe_ = nullptr;        // past the stripe's last column
  uint32_t* v_ = nullptr;         // the column's value in the stripe's first row
  uint32_t word_ = 0, allowed_ = 0;  // the column's word, its rows still to visit (bit 3 r)
  uint32_t dk_ = 0, k_ = 0, xr_ = 0, r_ = 0;  // the decision: kind, context, sign XOR, row
  bool busy_ = false, pending_ = false;
};

// Decodes the blocks `source` hands out: source.next(&block, &tab) gives the next block and
// its band's tables (false: none left), source.report(status) records the status of the block
// it gave last. `state`: state_words of the largest block. One loop: each turn either finds
// the next decision (starting blocks until one has one) or has one pending, then decodes it.
template <class BandTabs, class Source>
GJ2K_HD void decode_flat(Source& source, uint32_t* state) {
  FlatDecoder<BandTabs> d;
  for (;;) {
    if (!d.pending()) {
      while (!d.find()) {
        FlatBlock b;
        BandTabs tab;
        if (!source.next(&b, &tab)) return;
        source.report(d.start(tab, b, state));
      }
    }
    d.step();
  }
}

}  // namespace gj2k::entropy::t1
