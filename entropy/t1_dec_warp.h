// The Tier-1 decoder's warp mapping (cuda/t1_dec_kernels.cu): the 32 lanes of a warp decode 32
// code-blocks in lockstep, host-device like the decoder it drives (t1_dec_block.h), so that the
// CPU build runs the same loops, one lane after the other, in CI.
//
// Why: a GPU thread per code-block, each lane free to run its own block at its own pace, keeps
// no two lanes at the same step: a warp then costs about the sum of its lanes' work
// (docs/PERFORMANCE.md, "Fifth run" and "Seventh run"), and every access to a lane's state is a
// cache line of its own. Here every lane runs the same loops (pass i of the warp's most, stripe
// s and column x of the warp's largest block, WarpShape) whether its own block has that pass,
// stripe or column or not, and calls sync(f, v) before each column (the kernel's __syncwarp; f
// and v the column's state and values; sync also says where the lane's contexts live during a
// pass, lockstep_pass). So the lanes of a warp are at the same column of their blocks at the
// same time, the MQ decisions of all lanes that code there issue together, and the blocks' state
// and stripe-major values, interleaved word by word over the lanes (BlockDecoder's kL), are read
// and written a cache line for the whole warp. The host groups blocks of one shape and number
// of passes into a warp (job_order.h, group_warps), so that few lanes idle. A warp
// then costs about six times its costliest block alone: less than a block per lane where all
// blocks carry many passes (lossless), more where they do not (docs/PERFORMANCE.md, "Ninth
// run"); the host picks per batch (t1_dec_cuda.h, arrange_for_decode).
//
// Contract of decode_in_lockstep: as decode_block_hd with kStripeValues, for a block whose
// plan_block gave `passes` > 0 (a lane with passes = 0 only keeps step), in a warp whose blocks
// fit `shape`; `state` and `values` are this lane's first words of the warp's interleaved
// arrays, state_words(shape.w, shape.h) and value_words(shape.w, shape.h) words kL apart.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/hd.h"
#include "entropy/t1_dec_block.h"

namespace gj2k::entropy::t1 {

inline constexpr uint32_t kWarpLanes = 32;

// The largest block of a warp (width, height) and the most passes any of its lanes decodes.
struct WarpShape {
  uint32_t w, h, passes;
};

// A lane's contexts in strided slots, one word each: slot k at p[k * kStride] (a kernel keeps
// its lanes' contexts in shared memory, slot k of lane l at k * 32 + l: one bank per lane).
template <uint32_t kStride>
struct StridedContexts {
  uint32_t* p;
  GJ2K_HD_INLINE uint32_t& operator[](uint32_t k) const { return p[size_t{k} * kStride]; }
};

// One pass of kind kKind over the warp's shape: every lane visits every column of `stripes`
// stripes of `width` columns, coding those of its own block when `on` (its block has this
// pass). raw: the lane's segment is a raw one (D.6). As BlockDecoder::pass, the pass works on
// local copies of the coders and the contexts, written back at its end: the block's decoder
// then stays in registers, where a context array indexed by data would keep all of it in
// local memory. The contexts' copy is sync.contexts(local): `local` itself (a Context*), or the
// lane's slots elsewhere (StridedContexts).
template <PassKind kKind, class D, class Sync>
GJ2K_HD_INLINE void lockstep_pass(D& d, bool on, bool raw, const typename D::PlaneValues& pv,
                                  uint32_t stripes, uint32_t width, const Sync& sync) {
  auto mq = d.mq;
  auto rd = d.raw;
  typename D::Context local[kNumContexts];
  const auto cx = sync.contexts(local);
  d.load_contexts(cx);
  for (uint32_t s = 0; s < stripes; ++s) {
    const uint32_t nr = on && s < d.stripes ? d.rows(s) : 0;
    uint32_t* f = d.col(s);
    uint32_t* v = d.vcol(s);
    const uint32_t cols = nr ? d.w : 0;
    for (uint32_t x = 0; x < width; ++x, f += D::kLanes, v += d.vstep()) {
      sync(f, v);
      if (x >= cols) continue;
      if constexpr (kKind == PassKind::kCleanup) {
        if (nr == 4)
          d.template column<kKind, false, true>(mq, cx, f, v, pv, 4);
        else
          d.template column<kKind, false, false>(mq, cx, f, v, pv, nr);
      } else if (raw) {
        if (nr == 4)
          d.template column<kKind, true, true>(rd, cx, f, v, pv, 4);
        else
          d.template column<kKind, true, false>(rd, cx, f, v, pv, nr);
      } else {
        if (nr == 4)
          d.template column<kKind, false, true>(mq, cx, f, v, pv, 4);
        else
          d.template column<kKind, false, false>(mq, cx, f, v, pv, nr);
      }
    }
  }
  d.mq = mq;
  d.raw = rd;
  d.store_contexts(cx);
}

// Decodes this lane's block (see the file comment). t: the tables of all bands (DecodeTables,
// or any with a band_tables(t, band)); segs: the block's segments (offsets into `bytes`); band,
// style, planes, w, h: its job; passes: plan_block's.
template <bool kVc, uint32_t kL, class AllTables, class Sync>
GJ2K_HD void decode_in_lockstep(const AllTables& t, const uint8_t* bytes, const SegmentRef* segs,
                                uint32_t planes, uint32_t band, uint8_t style, uint32_t w,
                                uint32_t h, uint32_t passes, const WarpShape& shape,
                                uint32_t* state, uint32_t* values, int32_t* out, size_t stride,
                                const Sync& sync) {
  using D = BlockDecoder<kVc, true, decltype(band_tables(t, 0u)), kL>;
  D d;
  d.tab = band_tables(t, band & 3);
  const bool run = passes > 0;
  d.w = run ? w : 0;
  d.h = run ? h : 0;
  d.pitch = shape.w + 2;
  d.vpitch = shape.w;
  d.stripes = (d.h + 3) / 4;
  d.state = state;
  d.val = values;
  d.vstride = 0;
  for (size_t k = 0, n = state_words(shape.w, shape.h); k < n; ++k) state[k * kL] = 0;
  d.reset_contexts();
  const uint32_t stripes = (shape.h + 3) / 4;
  uint32_t seg = 0, left = 0;
  bool raw = false;
  for (uint32_t i = 0; i < shape.passes; ++i) {
    const bool on = i < passes;
    if (on && left == 0) {
      // The next segment with passes: there is one, plan_block counted them (run_block's order).
      while (segs[seg].passes == 0) ++seg;
      left = segs[seg].passes;
      raw = raw_pass(style, i);
      if (raw)
        d.raw.init(bytes + segs[seg].offset, segs[seg].length);
      else
        d.mq.init(bytes + segs[seg].offset, segs[seg].length);
      ++seg;
    }
    const typename D::PlaneValues pv = D::plane_values(on ? pass_plane(i, planes) : 0);
    switch (pass_kind(i)) {
      case PassKind::kSignificance:
        lockstep_pass<PassKind::kSignificance>(d, on, raw, pv, stripes, shape.w, sync);
        break;
      case PassKind::kRefinement:
        lockstep_pass<PassKind::kRefinement>(d, on, raw, pv, stripes, shape.w, sync);
        break;
      case PassKind::kCleanup:
        lockstep_pass<PassKind::kCleanup>(d, on, raw, pv, stripes, shape.w, sync);
        break;
    }
    if (on) {
      d.end_pass(i, style);
      --left;
    }
  }
  if (run) d.write_out(out, stride);
}

// decode_in_lockstep in the style's context formation (D.7); every lane of a warp must take
// the same one.
template <uint32_t kL, class AllTables, class Sync>
GJ2K_HD void decode_in_lockstep_mode(bool vc, const AllTables& t, const uint8_t* bytes,
                                     const SegmentRef* segs, uint32_t planes, uint32_t band,
                                     uint8_t style, uint32_t w, uint32_t h, uint32_t passes,
                                     const WarpShape& shape, uint32_t* state, uint32_t* values,
                                     int32_t* out, size_t stride, const Sync& sync) {
  if (vc)
    decode_in_lockstep<true, kL>(t, bytes, segs, planes, band, style, w, h, passes, shape, state,
                                 values, out, stride, sync);
  else
    decode_in_lockstep<false, kL>(t, bytes, segs, planes, band, style, w, h, passes, shape, state,
                                  values, out, stride, sync);
}

}  // namespace gj2k::entropy::t1
