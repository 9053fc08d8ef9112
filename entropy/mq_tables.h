// MQ coder probability estimation (15444-1 Annex C, Table C.2) and the Tier-1 context set
// (Table D.7 initial states).
#pragma once

#include <array>
#include <cstdint>

// The coders' per-decision functions must inline into the Tier-1 pass loops so that their
// registers (A, C, CT) stay in machine registers (GJ2K_ALWAYS_INLINE, core/hd.h).
#include "core/hd.h"

namespace gj2k::entropy {

// One row of Table C.2: Qe value, next index after an MPS, next index after an LPS, and
// whether an LPS swaps the MPS sense.
struct MqTableRow {
  uint16_t qe;
  uint8_t nmps;
  uint8_t nlps;
  uint8_t switch_mps;
};

inline constexpr std::array<MqTableRow, 47> kMqTable = {{
    {0x5601, 1, 1, 1},   {0x3401, 2, 6, 0},   {0x1801, 3, 9, 0},   {0x0AC1, 4, 12, 0},
    {0x0521, 5, 29, 0},  {0x0221, 38, 33, 0}, {0x5601, 7, 6, 1},   {0x5401, 8, 14, 0},
    {0x4801, 9, 14, 0},  {0x3801, 10, 14, 0}, {0x3001, 11, 17, 0}, {0x2401, 12, 18, 0},
    {0x1C01, 13, 20, 0}, {0x1601, 29, 21, 0}, {0x5601, 15, 14, 1}, {0x5401, 16, 14, 0},
    {0x5101, 17, 15, 0}, {0x4801, 18, 16, 0}, {0x3801, 19, 17, 0}, {0x3401, 20, 18, 0},
    {0x3001, 21, 19, 0}, {0x2801, 22, 19, 0}, {0x2401, 23, 20, 0}, {0x2201, 24, 21, 0},
    {0x1C01, 25, 22, 0}, {0x1801, 26, 23, 0}, {0x1601, 27, 24, 0}, {0x1401, 28, 25, 0},
    {0x1201, 29, 26, 0}, {0x1101, 30, 27, 0}, {0x0AC1, 31, 28, 0}, {0x09C1, 32, 29, 0},
    {0x08A1, 33, 30, 0}, {0x0521, 34, 31, 0}, {0x0441, 35, 32, 0}, {0x02A1, 36, 33, 0},
    {0x0221, 37, 34, 0}, {0x0141, 38, 35, 0}, {0x0111, 39, 36, 0}, {0x0085, 40, 37, 0},
    {0x0049, 41, 38, 0}, {0x0025, 42, 39, 0}, {0x0015, 43, 40, 0}, {0x0009, 44, 41, 0},
    {0x0005, 45, 42, 0}, {0x0001, 45, 43, 0}, {0x5601, 46, 46, 0},
}};

// The fast coders keep a context as one byte: state = 2 * index + mps. This table gives, per
// such state, Qe, the MPS sense and the successor states (the switch already applied).
struct MqFastState {
  uint16_t qe;
  uint8_t mps;
  uint8_t next_mps;  // state after coding an MPS that renormalizes
  uint8_t next_lps;  // state after coding an LPS
};

inline constexpr std::array<MqFastState, 94> make_mq_fast_states() {
  std::array<MqFastState, 94> t{};
  for (int i = 0; i < 47; ++i) {
    for (int mps = 0; mps < 2; ++mps) {
      const MqTableRow& r = kMqTable[i];
      const int lps_mps = r.switch_mps ? 1 - mps : mps;
      t[2 * i + mps] = {r.qe, static_cast<uint8_t>(mps), static_cast<uint8_t>(2 * r.nmps + mps),
                        static_cast<uint8_t>(2 * r.nlps + lps_mps)};
    }
  }
  return t;
}
inline constexpr std::array<MqFastState, 94> kMqFastStates = make_mq_fast_states();

// Tier-1 contexts (D.3): 0..8 zero coding, 9..13 sign coding, 14..16 magnitude refinement,
// 17 run-length, 18 uniform.
inline constexpr int kNumContexts = 19;
inline constexpr int kCtxSc = 9;
inline constexpr int kCtxMr = 14;
inline constexpr int kCtxRl = 17;
inline constexpr int kCtxUni = 18;

// Initial state index of each context (Table D.7): UNIFORM 46, run-length 3, the all-zero
// zero-coding context 4, all others 0; MPS 0.
GJ2K_HD constexpr uint8_t initial_state_index(int ctx) {
  return ctx == kCtxUni ? 46 : ctx == kCtxRl ? 3 : ctx == 0 ? 4 : 0;
}

}  // namespace gj2k::entropy
