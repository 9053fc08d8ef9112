// The warp mapping of the Tier-1 decoder (entropy/t1_dec_warp.h), CPU build: warps of 32 random
// code-blocks of odd sizes (smaller than the warp's shape, in every band and style of one
// context formation, complete, truncated, with passes beyond 3 Nb - 2, with nothing to decode
// or too many planes) decoded lane by lane through the interleaved arrays, against the shared
// decoder's plain build (decode_block_hd, itself tested against t1_ref). Each lane must write
// its output only, and no word of the other lanes' interleaved state and values.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "entropy/t1.h"
#include "entropy/t1_dec_block.h"
#include "entropy/t1_dec_qe.h"
#include "entropy/t1_dec_warp.h"

namespace gj2k::entropy {
namespace {

// Lanes one after the other: nothing to meet; the contexts in the pass's local array, or in
// strided slots as the kernel keeps them in shared memory.
struct NoSync {
  void operator()(const uint32_t*, const uint32_t*) const {}
  template <class Context>
  Context* contexts(Context* local) const {
    return local;
  }
};
struct StridedSync {
  uint32_t* slots;  // this lane's first slot, kWarpLanes words apart
  void operator()(const uint32_t*, const uint32_t*) const {}
  template <class Context>
  t1::StridedContexts<t1::kWarpLanes> contexts(Context*) const {
    return {slots};
  }
};

// The lanes' tables: MqDecoder's (DecodeTables) or MqDecoderQe's, as the kernels use them.
template <class AllTables>
AllTables host_tables() {
  if constexpr (std::is_same_v<AllTables, t1::QeDecodeTables>)
    return t1::host_qe_decode_tables();
  else
    return t1::host_decode_tables();
}

struct Lane {
  uint32_t w = 0, h = 0, planes = 0, band = 0;
  uint8_t style = 0;
  uint32_t seg_first = 0, seg_count = 0;
};

// One warp: `lanes` blocks (the rest of 32 empty), vertically causal or not.
template <class Sync, class AllTables>
void check_warp(uint32_t seed, int lanes, int max_side, bool vc) {
  std::mt19937 rng(seed);
  std::vector<Lane> lane(t1::kWarpLanes);
  std::vector<t1::SegmentRef> segs;
  std::vector<uint8_t> bytes;
  for (int l = 0; l < lanes; ++l) {
    Lane& b = lane[l];
    b.w = 1 + rng() % max_side;
    b.h = 1 + rng() % max_side;
    while (b.w * b.h > 4096) b.h = b.h / 2 + 1;
    const uint32_t nbp = 1 + rng() % 16;
    b.style = static_cast<uint8_t>((rng() % 64) & ~cblk_style::kVerticalCausal);
    if (vc) b.style |= cblk_style::kVerticalCausal;
    b.band = rng() % 4;
    std::vector<int32_t> q(size_t{b.w} * b.h);
    std::geometric_distribution<int> shift(0.4);
    for (auto& v : q) {
      const uint32_t m = (rng() & ((1u << nbp) - 1)) >> std::min<int>(shift(rng), nbp);
      v = (rng() & 1) ? -int32_t(m) : int32_t(m);
    }
    const EncodedBlock enc =
        encode_block(q.data(), b.w, b.w, b.h, static_cast<Band>(b.band), b.style, nbp);
    b.planes = nbp - enc.missing_msbs;
    b.seg_first = static_cast<uint32_t>(segs.size());
    const uint32_t total = static_cast<uint32_t>(enc.passes.size());
    const uint32_t pick = rng() % 8;
    const uint32_t keep = total == 0 || pick == 0 ? 0 : pick < 3 ? 1 + rng() % total : total;
    const uint32_t base = static_cast<uint32_t>(bytes.size());
    uint32_t start = 0, first = 0;
    for (uint32_t i = 0; i < keep; ++i)
      if (enc.passes[i].terminated || i + 1 == keep) {
        segs.push_back({base + start, enc.passes[i].end - start, i - first + 1});
        start = enc.passes[i].end;
        first = i + 1;
      }
    if (keep == total && total > 0 && !(b.style & (cblk_style::kTermAll | cblk_style::kBypass)) &&
        rng() % 6 == 0)
      segs.back().passes += 3;                   // kExtraPasses
    if (pick == 7 && l % 5 == 0) b.planes = 31;  // kTooManyPlanes: writes nothing
    bytes.insert(bytes.end(), enc.data.begin(), enc.data.end());
    b.seg_count = static_cast<uint32_t>(segs.size()) - b.seg_first;
  }
  bytes.push_back(0);  // a valid pointer for empty data
  const t1::DecodeTables tables = t1::host_decode_tables();
  const AllTables lane_tables = host_tables<AllTables>();

  // Outputs side by side with guard columns; the plain decoder's first.
  constexpr int32_t kGuard = 0x5A5A5A5A;
  const size_t stride = size_t{t1::kWarpLanes} * (max_side + 3);
  const uint32_t rows = std::min<uint32_t>(max_side, 4096) + 2;
  std::vector<int32_t> want(stride * rows, kGuard), got(stride * rows, kGuard);
  auto at = [&](std::vector<int32_t>& o, int l) { return o.data() + stride + l * (max_side + 3); };
  std::vector<t1::BlockStatus> want_status(t1::kWarpLanes), got_status(t1::kWarpLanes);
  std::vector<uint32_t> state(t1::kMaxStateWords), values(t1::kMaxValueWords);
  std::vector<t1::BlockPlan> plan(t1::kWarpLanes);
  t1::WarpShape shape{0, 0, 0};
  for (uint32_t l = 0; l < t1::kWarpLanes; ++l) {
    const Lane& b = lane[l];
    want_status[l] = t1::decode_block_hd<true>(tables, bytes.data(), segs.data() + b.seg_first,
                                               b.seg_count, b.planes, b.band, b.style, at(want, l),
                                               stride, b.w, b.h, state.data(), values.data());
    plan[l] = t1::plan_block(t1::SegmentRefs{bytes.data(), segs.data() + b.seg_first}, b.seg_count,
                             b.planes, b.band, b.style, at(got, l), stride, b.w, b.h);
    got_status[l] = plan[l].status;
    if (plan[l].passes) {
      shape.w = std::max(shape.w, b.w);
      shape.h = std::max(shape.h, b.h);
    }
    shape.passes = std::max(shape.passes, plan[l].passes);
  }
  const std::string what = "seed " + std::to_string(seed);
  ASSERT_EQ(got_status, want_status) << what;
  // The warp's interleaved arrays, filled with a pattern each lane must leave alone in the
  // others' words.
  const size_t sw = t1::state_words(shape.w, shape.h), vw = t1::value_words(shape.w, shape.h);
  constexpr uint32_t kPattern = 0xC3C3C3C3u;
  std::vector<uint32_t> ws(t1::kWarpLanes * (sw + vw), kPattern);
  std::vector<uint32_t> slots(kNumContexts * t1::kWarpLanes, kPattern);
  for (uint32_t l = 0; l < t1::kWarpLanes; ++l) {
    const Lane& b = lane[l];
    const std::vector<uint32_t> before = ws;
    Sync sync{};
    if constexpr (std::is_same_v<Sync, StridedSync>) sync.slots = slots.data() + l;
    t1::decode_in_lockstep_mode<t1::kWarpLanes>(
        vc, lane_tables, bytes.data(), segs.data() + b.seg_first, b.planes, b.band, b.style, b.w,
        b.h, plan[l].passes, shape, ws.data() + l, ws.data() + t1::kWarpLanes * sw + l, at(got, l),
        stride, sync);
    for (size_t k = 0; k < ws.size(); ++k) {
      if (k % t1::kWarpLanes != l) {
        ASSERT_EQ(ws[k], before[k]) << what << ": lane " << l << " wrote word " << k;
      }
    }
  }
  for (size_t i = 0; i < got.size(); ++i)
    ASSERT_EQ(got[i], want[i]) << what << ": value " << i << " (row " << i / stride << ", column "
                               << i % stride << ", lane " << (i % stride) / (max_side + 3) << ")";
}

template <class Sync, class AllTables = t1::DecodeTables>
void check_warps() {
  uint32_t seed = 70001;
  for (int rep = 0; rep < 6; ++rep) {
    check_warp<Sync, AllTables>(seed++, 32, 64, false);
    check_warp<Sync, AllTables>(seed++, 32, 64, true);
    check_warp<Sync, AllTables>(seed++, 1 + rep * 5, 33, false);
  }
  check_warp<Sync, AllTables>(seed++, 32, 9, false);
  check_warp<Sync, AllTables>(seed++, 17, 200, true);
  check_warp<Sync, AllTables>(seed++, 4, 300, false);
  check_warp<Sync, AllTables>(seed++, 0, 64, false);
}

TEST(T1DecWarp, LockstepLanesDecodeAsTheSharedDecoder) {
  check_warps<NoSync>();
}
TEST(T1DecWarp, LockstepLanesWithStridedContexts) {
  check_warps<StridedSync>();
}
TEST(T1DecWarp, LockstepLanesWithQeContexts) {
  check_warps<NoSync, t1::QeDecodeTables>();
}
TEST(T1DecWarp, LockstepLanesWithQeStridedContexts) {
  check_warps<StridedSync, t1::QeDecodeTables>();
}

}  // namespace
}  // namespace gj2k::entropy
