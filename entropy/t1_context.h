// Tier-1 internals shared by the encoder and decoder: per-sample state bits and the context
// tables of 15444-1 D.3 (zero coding Table D.1, sign coding Tables D.2/D.3, magnitude
// refinement Table D.4).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "entropy/mq_tables.h"

namespace gj2k::entropy::t1 {

// Per-sample state word. The state array has a one-sample border on every side, so updating
// the eight neighbours of any sample stays in bounds.
inline constexpr uint32_t kNW = 1u << 0, kN = 1u << 1, kNE = 1u << 2, kW = 1u << 3, kE = 1u << 4,
                          kSW = 1u << 5, kS = 1u << 6, kSE = 1u << 7;
inline constexpr uint32_t kNeighbours = 0xFF;  // significance of the 8 neighbours
inline constexpr uint32_t kNNeg = 1u << 8, kSNeg = 1u << 9, kWNeg = 1u << 10, kENeg = 1u << 11;
inline constexpr uint32_t kSig = 1u << 12;      // sigma: significant
inline constexpr uint32_t kVisit = 1u << 13;    // pi: coded in this bit-plane's SPP
inline constexpr uint32_t kRefined = 1u << 14;  // sigma': refined at least once
inline constexpr uint32_t kNeg = 1u << 15;      // the sample's own sign (1: negative)
// Vertically causal mode (D.7): for the last row of a stripe, the next stripe counts as
// insignificant.
inline constexpr uint32_t kSouth = kSW | kS | kSE | kSNeg;

// Marks sample `f` (in a state array of row pitch `pitch`) significant with sign `neg`.
GJ2K_ALWAYS_INLINE void set_significant(uint32_t* f, size_t pitch, uint32_t neg) {
  f[-static_cast<ptrdiff_t>(pitch) - 1] |= kSE;
  f[-static_cast<ptrdiff_t>(pitch)] |= kS | (neg ? kSNeg : 0);
  f[-static_cast<ptrdiff_t>(pitch) + 1] |= kSW;
  f[-1] |= kE | (neg ? kENeg : 0);
  f[0] |= kSig | (neg ? kNeg : 0);
  f[1] |= kW | (neg ? kWNeg : 0);
  f[pitch - 1] |= kNE;
  f[pitch] |= kN | (neg ? kNNeg : 0);
  f[pitch + 1] |= kNW;
}

// Zero-coding context (Table D.1) per orientation (BandKind numbering) and neighbour mask.
inline constexpr std::array<std::array<uint8_t, 256>, 4> make_zc_table() {
  std::array<std::array<uint8_t, 256>, 4> t{};
  for (int band = 0; band < 4; ++band) {
    for (int n = 0; n < 256; ++n) {
      int h = ((n & kW) ? 1 : 0) + ((n & kE) ? 1 : 0);
      int v = ((n & kN) ? 1 : 0) + ((n & kS) ? 1 : 0);
      const int d =
          ((n & kNW) ? 1 : 0) + ((n & kNE) ? 1 : 0) + ((n & kSW) ? 1 : 0) + ((n & kSE) ? 1 : 0);
      int ctx;
      if (band == 3) {  // HH
        const int hv = h + v;
        if (d >= 3) {
          ctx = 8;
        } else if (d == 2) {
          ctx = hv >= 1 ? 7 : 6;
        } else if (d == 1) {
          ctx = hv >= 2 ? 5 : hv == 1 ? 4 : 3;
        } else {
          ctx = hv >= 2 ? 2 : hv == 1 ? 1 : 0;
        }
      } else {
        if (band == 1) {  // HL: the LL/LH table with H and V exchanged
          const int tmp = h;
          h = v;
          v = tmp;
        }
        if (h == 2) {
          ctx = 8;
        } else if (h == 1) {
          ctx = v >= 1 ? 7 : d >= 1 ? 6 : 5;
        } else if (v == 2) {
          ctx = 4;
        } else if (v == 1) {
          ctx = 3;
        } else {
          ctx = d >= 2 ? 2 : d == 1 ? 1 : 0;
        }
      }
      t[band][n] = static_cast<uint8_t>(ctx);
    }
  }
  return t;
}
inline constexpr auto kZcTable = make_zc_table();

// Sign coding (Tables D.2, D.3): index from the four direct neighbours' significance and
// signs; value = context (9..13) | XOR bit << 7.
inline uint32_t sc_index(uint32_t f) {
  return ((f >> 1) & 1) | ((f >> 5) & 2) | ((f >> 1) & 0xC) | ((f >> 4) & 0xF0);
}
inline constexpr std::array<uint8_t, 256> make_sc_table() {
  std::array<uint8_t, 256> t{};
  for (int i = 0; i < 256; ++i) {
    auto contrib = [i](int sig_bit, int neg_bit) {
      return (i & sig_bit) ? ((i & neg_bit) ? -1 : 1) : 0;
    };
    int v = contrib(1, 16) + contrib(2, 32);   // N, S
    int h = contrib(4, 64) + contrib(8, 128);  // W, E
    v = v < -1 ? -1 : v > 1 ? 1 : v;
    h = h < -1 ? -1 : h > 1 ? 1 : h;
    int ctx, x = 0;
    if (h == 0 && v == 0) {
      ctx = 9;
    } else if (h == 0) {
      ctx = 10;
      x = v < 0;
    } else {
      ctx = h * v > 0 ? 13 : h * v < 0 ? 11 : 12;
      x = h < 0;
    }
    t[i] = static_cast<uint8_t>(ctx | (x << 7));
  }
  return t;
}
inline constexpr auto kScTable = make_sc_table();

// Magnitude refinement context (Table D.4) from the (masked) state word.
inline uint32_t mr_context(uint32_t f) {
  return (f & kRefined) ? 16 : (f & kNeighbours) ? 15 : 14;
}

// Pass kinds in coding order; pass 0 is a cleanup.
enum class PassKind { kSignificance, kRefinement, kCleanup };
inline PassKind pass_kind(uint32_t i) {
  return i == 0 ? PassKind::kCleanup : static_cast<PassKind>((i - 1) % 3);
}
// Bit-plane (counted from the least significant coded plane 0) of pass i with n coded planes.
inline uint32_t pass_plane(uint32_t i, uint32_t n) {
  return i == 0 ? n - 1 : n - 2 - (i - 1) / 3;
}

}  // namespace gj2k::entropy::t1
