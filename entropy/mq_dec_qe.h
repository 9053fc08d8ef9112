// MQ decoder (15444-1 C.3) for the CUDA Tier-1 kernels whose context word carries its Qe:
// MqDecoder's branches and 32-bit C, with MqDecoderWide's contexts. Decodes exactly as
// MqDecoder and MqRefDecoder (mq_ref.h), truncated and corrupt data included (0xFF past the
// end, C.3.4). Host-device (core/hd.h): the CPU build is tested in CI.
//
// Why: with MqDecoder a decision's chain is context byte -> state table entry (Qe, MPS) ->
// comparison, one load after the other. Here the context word holds Qe << 16 and the state
// byte (2 * index + MPS), so the comparison follows the context's load directly; the table,
// kMqQeNext, is read only when the context changes (renormalisation), for the word that
// follows, which nothing in the decision waits for.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "core/hd.h"
#include "entropy/mq_dec.h"
#include "entropy/mq_tables.h"

namespace gj2k::entropy {

class MqDecoderQe : public MqDecoderCore {
 public:
  // A context: Qe << 16 of its state in the high half, the state byte (2 * index + MPS,
  // kMqFastStates' numbering) in the low byte (MqDecoderWide::Context's layout).
  using Context = uint32_t;
  // Qe of state index i (Table C.2; the same as kMqTable[i].qe, checked below): a function,
  // not kMqTable, so that device code can call it.
  GJ2K_HD_INLINE static constexpr uint32_t qe_of_index(uint32_t i) {
    constexpr uint16_t kQe[47] = {0x5601, 0x3401, 0x1801, 0x0AC1, 0x0521, 0x0221, 0x5601, 0x5401,
                                  0x4801, 0x3801, 0x3001, 0x2401, 0x1C01, 0x1601, 0x5601, 0x5401,
                                  0x5101, 0x4801, 0x3801, 0x3401, 0x3001, 0x2801, 0x2401, 0x2201,
                                  0x1C01, 0x1801, 0x1601, 0x1401, 0x1201, 0x1101, 0x0AC1, 0x09C1,
                                  0x08A1, 0x0521, 0x0441, 0x02A1, 0x0221, 0x0141, 0x0111, 0x0085,
                                  0x0049, 0x0025, 0x0015, 0x0009, 0x0005, 0x0001, 0x5601};
    return kQe[i];
  }
  GJ2K_HD_INLINE static constexpr Context context(uint8_t state) {
    return (qe_of_index(state >> 1) << 16) | state;
  }

  MqDecoderQe() = default;
  GJ2K_HD MqDecoderQe(const uint8_t* data, size_t length) { init(data, length); }

  template <class Next>
  GJ2K_HD_INLINE uint32_t decode_likely_mps(const Next& next, Context& cx) {
    return decode(next, cx);
  }

  // DECODE (C.3.2) in context cx; `next`: kMqQeNext or a copy of it (a kernel's, in shared
  // memory). A and Qe are held shifted left by 16 (MqDecoderCore). After the decision's
  // branches (the MPS without renormalisation returns at once), one flag says LPS (Figures
  // C.16/C.17: the lower sub-interval unless exchanged, the upper one when exchanged), and the
  // context becomes next[2 * state + lps]. The MPS without renormalisation, most decisions,
  // is taken behind one branch on both of its conditions (C not below Qe, A - Qe keeping its
  // top bit), not two one after the other: a GPU lane waits for each branch to resolve
  // (docs/PERFORMANCE.md, "Twenty-third run").
  template <class Next>
  GJ2K_HD_INLINE uint32_t decode(const Next& next, Context& cx) {
    const uint32_t ctx = cx;
    const uint32_t qe = ctx & 0xFFFF0000u;
    const uint32_t a = a_ - qe;
    if ((c_ >= qe) & ((a & 0x80000000u) != 0)) {
      a_ = a;
      c_ -= qe;
      return ctx & 1u;
    }
    uint32_t lps;
    if (c_ < qe) {
      lps = a < qe ? 0u : 1u;  // LPS_EXCHANGE
      a_ = qe;
    } else {
      c_ -= qe;
      a_ = a;
      lps = a < qe ? 1u : 0u;  // MPS_EXCHANGE
    }
    cx = next[((ctx & 0xFFu) << 1) | lps];
    renormalize();
    return (ctx & 1u) ^ lps;
  }
};

// MqDecoderQe's successor table: entry 2 * state the context after an MPS that
// renormalises, 2 * state + 1 the context after an LPS.
inline constexpr std::array<uint32_t, 188> make_mq_qe_next() {
  std::array<uint32_t, 188> t{};
  for (size_t s = 0; s < 94; ++s) {
    t[2 * s] = MqDecoderQe::context(kMqFastStates[s].next_mps);
    t[2 * s + 1] = MqDecoderQe::context(kMqFastStates[s].next_lps);
  }
  return t;
}
inline constexpr std::array<uint32_t, 188> kMqQeNext = make_mq_qe_next();

inline constexpr bool mq_qe_matches_table() {
  for (uint32_t i = 0; i < kMqTable.size(); ++i)
    if (MqDecoderQe::qe_of_index(i) != kMqTable[i].qe) return false;
  return true;
}
static_assert(mq_qe_matches_table(), "MqDecoderQe::qe_of_index differs from Table C.2");

}  // namespace gj2k::entropy
