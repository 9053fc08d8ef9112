// The Tier-1 block decoder (t1_dec_block.h) with MqDecoderQe (mq_dec_qe.h), whose contexts
// carry their Qe: its tables (decode_block_hd takes them as it takes DecodeTables) and the
// per-block entry point with the pass's contexts in slots. The CUDA kernels
// (cuda/t1_dec_kernels.cu) decode with these; the CPU build is tested against t1_ref in CI.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/hd.h"
#include "entropy/mq_dec_qe.h"
#include "entropy/t1_dec_block.h"

namespace gj2k::entropy::t1 {

// The tables: zc and sc as DecodeTables', next MqDecoderQe's successors (kMqQeNext).
struct QeDecodeTables {
  const uint8_t* zc;     // kZcTable: 4 x 512, Band order
  const uint8_t* sc;     // kScTable: 2048
  const uint32_t* next;  // kMqQeNext: 188
};
inline QeDecodeTables host_qe_decode_tables() {
  return {kZcTable[0].data(), kScTable.data(), kMqQeNext.data()};
}
inline constexpr size_t kMqQeNextWords = kMqQeNext.size();

// BlockDecoder's tables for one band (BandTables' members; mq: the successor table).
struct QeBandTables {
  using Mq = MqDecoderQe;
  const uint8_t* zc;
  const uint8_t* sc;
  const uint32_t* mq;
};
GJ2K_HD_INLINE QeBandTables band_tables(const QeDecodeTables& t, uint32_t band) {
  return {t.zc + 512 * band, t.sc, t.next};
}

template <>
inline constexpr bool kContextsInRegisters<QeBandTables> = true;
template <>
inline constexpr bool kReadColumnsAhead<QeBandTables> = true;

// A block's contexts in strided slots during a pass, slot k at p[k * stride], instead of the
// pass's local array (BlockDecoder::pass, pass_contexts): the thread kernel keeps its threads'
// contexts in shared memory, slot k of thread t at k * blockDim + t (one bank per thread of a
// warp, whichever contexts they use).
struct SlotContexts {
  uint32_t* p;
  uint32_t stride;
  GJ2K_HD_INLINE uint32_t& operator[](uint32_t k) const { return p[k * stride]; }
};
struct QeSlotBandTables : QeBandTables {
  SlotContexts slots;
};
template <>
inline constexpr bool kContextsInRegisters<QeSlotBandTables> = true;
template <>
inline constexpr bool kReadColumnsAhead<QeSlotBandTables> = true;
template <class Context>
GJ2K_HD_INLINE SlotContexts pass_contexts(const QeSlotBandTables& t, Context*) {
  return t.slots;
}

// QeSlotBandTables whose passes kPasses (kRowLoopPasses' bits) code a stripe's rows in one
// loop. The thread kernel's lanes diverge at every stripe column; with every pass unrolled its
// hot code outgrows the SM's instruction cache and its warps wait on instruction fetch more
// than on anything else. The kernel takes kThreadKernelRowLoops: the significance pass alone
// in one loop, which measured fastest (docs/PERFORMANCE.md, "Twenty-ninth run").
template <unsigned kPasses>
struct QeSlotLoopTables : QeSlotBandTables {};
template <unsigned kPasses>
inline constexpr bool kContextsInRegisters<QeSlotLoopTables<kPasses>> = true;
template <unsigned kPasses>
inline constexpr bool kReadColumnsAhead<QeSlotLoopTables<kPasses>> = true;
template <unsigned kPasses>
inline constexpr unsigned kRowLoopPasses<QeSlotLoopTables<kPasses>> = kPasses;
template <unsigned kPasses, class Context>
GJ2K_HD_INLINE SlotContexts pass_contexts(const QeSlotLoopTables<kPasses>& t, Context*) {
  return t.slots;
}

inline constexpr unsigned kThreadKernelRowLoops = 1u << static_cast<int>(PassKind::kSignificance);

// decode_block_hd with MqDecoderQe's tables and a pass's contexts in `slots`; SlotTables:
// QeSlotBandTables or QeSlotLoopTables (the same decisions, other code).
template <bool kStripeValues, class SlotTables = QeSlotBandTables>
GJ2K_HD BlockStatus decode_block_qe_hd(const QeDecodeTables& t, const SlotContexts& slots,
                                       const uint8_t* bytes, const SegmentRef* segs,
                                       uint32_t num_segs, uint32_t num_bitplanes, uint32_t band,
                                       uint8_t style, int32_t* out, size_t stride, uint32_t w,
                                       uint32_t h, uint32_t* state, uint32_t* values) {
  SlotTables tabs;
  static_cast<QeBandTables&>(tabs) = band_tables(t, band & 3);
  tabs.slots = slots;
  return decode_block_with<kStripeValues>(tabs, bytes, segs, num_segs, num_bitplanes, band, style,
                                          out, stride, w, h, state, values);
}

}  // namespace gj2k::entropy::t1
