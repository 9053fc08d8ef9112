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

// decode_block_hd with MqDecoderQe's tables and a pass's contexts in `slots`.
template <bool kStripeValues>
GJ2K_HD BlockStatus decode_block_qe_hd(const QeDecodeTables& t, const SlotContexts& slots,
                                       const uint8_t* bytes, const SegmentRef* segs,
                                       uint32_t num_segs, uint32_t num_bitplanes, uint32_t band,
                                       uint8_t style, int32_t* out, size_t stride, uint32_t w,
                                       uint32_t h, uint32_t* state, uint32_t* values) {
  return decode_block_with<kStripeValues>(QeSlotBandTables{band_tables(t, band & 3), slots}, bytes,
                                          segs, num_segs, num_bitplanes, band, style, out, stride,
                                          w, h, state, values);
}

}  // namespace gj2k::entropy::t1
