// Tier-1 internals shared by the encoder and decoder: the per-stripe-column state word and the
// context tables of 15444-1 D.3 (zero coding Table D.1, sign coding Tables D.2/D.3, magnitude
// refinement Table D.4).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "entropy/mq_tables.h"
#include "entropy/t1.h"

// On the CPU each coding pass is one function of its own, so that its loop gets the registers;
// a kernel (device code) inlines them all.
#if defined(__GNUC__) && !defined(__CUDA_ARCH__)
#define GJ2K_NOINLINE __attribute__((noinline))
#else
#define GJ2K_NOINLINE
#endif

// The CPU build (not nvcc's passes) moves values between rows and stripe-major columns with
// SSE2: the encoder's scan_planes_sse2, the decoder's write_stripe_sse2.
#if defined(__SSE2__) && !defined(__CUDACC__)
#include <emmintrin.h>
#define GJ2K_T1_SSE2 1
#endif

namespace gj2k::entropy::t1 {

#if GJ2K_T1_SSE2
// A 4 x 4 block of 32-bit words transposed in registers: a..d hold its rows before and its
// columns after.
inline void transpose4x4(__m128i& a, __m128i& b, __m128i& c, __m128i& d) {
  const __m128i t0 = _mm_unpacklo_epi32(a, b), t1 = _mm_unpacklo_epi32(c, d);
  const __m128i t2 = _mm_unpackhi_epi32(a, b), t3 = _mm_unpackhi_epi32(c, d);
  a = _mm_unpacklo_epi64(t0, t1);
  b = _mm_unpackhi_epi64(t0, t1);
  c = _mm_unpacklo_epi64(t2, t3);
  d = _mm_unpackhi_epi64(t2, t3);
}
#endif

// ---- State: one 32-bit word per column of a stripe (4 rows, D.3) ---------------------------
// Row r of the stripe is 0..3; r = -1 is the last row of the stripe above and r = 4 the first
// row of the stripe below. The word of column x holds:
//   bits 0..17   significance of (x + dx, r) for r = -1..4, dx = -1..1, at bit 3 (r + 1) + dx + 1;
//                so (word >> 3 r) & 0x1FF is the 3x3 neighbourhood of row r, row-major from
//                its north-west corner, the sample itself at bit 4
//   bits 18..23  sign (1: negative) of (x, r) for r = -1..4, at bit 19 + r
//   bits 24..27  pi: (x, r) was coded in this bit-plane's significance pass, at bit 24 + r
//   bits 28..31  sigma': (x, r) was refined at least once, at bit 28 + r
// The state array has a border column left and right and a border stripe above and below, so
// the updates of a newly significant sample never leave it. Vertically causal mode (D.7)
// never records the stripe below (rows r = 4 stay zero), which is exactly what it asks.
GJ2K_HD constexpr uint32_t sig_bit(int r, int dx) {
  return 1u << (3 * (r + 1) + dx + 1);
}
GJ2K_HD constexpr uint32_t neg_bit(int r) {
  return 1u << (19 + r);
}
GJ2K_HD constexpr uint32_t visit_bit(int r) {
  return 1u << (24 + r);
}
GJ2K_HD constexpr uint32_t refined_bit(int r) {
  return 1u << (28 + r);
}
inline constexpr uint32_t kSigAll = 0x3FFFF;          // every significance bit
inline constexpr uint32_t kOwnSig = 0x2490;           // sig_bit(r, 0), r = 0..3
inline constexpr uint32_t kVisitAll = 0xFu << 24;     // visit_bit(r), r = 0..3
inline constexpr uint32_t kWindowSelf = 0x10;         // the sample in a row window
inline constexpr uint32_t kWindowNeighbours = 0x1EF;  // its 8 neighbours

// Row r's 3x3 window (bit 4 the sample, bits 0..8 row-major).
GJ2K_HD_INLINE uint32_t window(uint32_t word, int r) {
  return (word >> (3 * r)) & 0x1FF;
}

// Marks row r of the stripe column at f significant with sign neg (0/1): updates the left and
// right columns' words and, for rows 0 and 3, the adjacent stripe's (kVc: not the stripe
// above's view of this one, D.7). Returns the bits to OR into the column's own word, which the
// caller keeps in a register. pitch: words from a column to the one below it in the state
// array; kL: words from a column to the next one (1, or the lanes of an interleaved layout).
// set_significant_vertical: the same without the left and right columns' words, which
// mark_sides marks (the decoder may hold them in registers instead).
template <ptrdiff_t kL = 1>
GJ2K_HD_INLINE void mark_sides(uint32_t* f, int r) {
  f[-kL] |= sig_bit(r, 1);
  f[kL] |= sig_bit(r, -1);
}
template <bool kVc, ptrdiff_t kL = 1>
GJ2K_HD_INLINE uint32_t set_significant_vertical(uint32_t* f, size_t pitch, int r, uint32_t neg) {
  if (r == 0 && !kVc) {
    uint32_t* a = f - pitch;
    a[-kL] |= sig_bit(4, 1);
    a[0] |= sig_bit(4, 0) | (neg << 23);
    a[kL] |= sig_bit(4, -1);
  } else if (r == 3) {
    uint32_t* b = f + pitch;
    b[-kL] |= sig_bit(-1, 1);
    b[0] |= sig_bit(-1, 0) | (neg << 18);
    b[kL] |= sig_bit(-1, -1);
  }
  return sig_bit(r, 0) | (neg << (19 + r));
}
template <bool kVc, ptrdiff_t kL = 1>
GJ2K_HD_INLINE uint32_t set_significant(uint32_t* f, size_t pitch, int r, uint32_t neg) {
  mark_sides<kL>(f, r);
  return set_significant_vertical<kVc, kL>(f, pitch, r, neg);
}

// Zero-coding context (Table D.1) per orientation (Band numbering), indexed by a row window
// (the sample's own bit is ignored).
inline constexpr std::array<std::array<uint8_t, 512>, 4> make_zc_table() {
  std::array<std::array<uint8_t, 512>, 4> t{};
  for (int band = 0; band < 4; ++band) {
    for (int n = 0; n < 512; ++n) {
      auto bit = [n](int i) { return (n >> i) & 1; };
      int h = bit(3) + bit(5);
      int v = bit(1) + bit(7);
      const int d = bit(0) + bit(2) + bit(6) + bit(8);
      int ctx = 0;
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

// Sign coding (Tables D.2, D.3) of row r of the column with word `word`, between the columns
// with words `left` and `right`: the index into kScTable has the significance of N, W, E, S at
// bits 0, 2, 4, 6 and their signs at bits 7, 8, 10, 9 (a sign is only ever set with its
// significance), gathered with few shifts.
GJ2K_HD_INLINE uint32_t sc_index(uint32_t word, uint32_t left, uint32_t right, int r) {
  return ((word >> (3 * r + 1)) & 0x55) | ((word >> (11 + r)) & 0x280) |
         ((left >> (11 + r)) & 0x100) | ((right >> (9 + r)) & 0x400);
}
// Value: context (9..13) | XOR bit << 7.
inline constexpr std::array<uint8_t, 2048> make_sc_table() {
  std::array<uint8_t, 2048> t{};
  for (int i = 0; i < 2048; ++i) {
    auto contrib = [i](int sig_bit, int neg_bit) {
      return (i & sig_bit) ? ((i & neg_bit) ? -1 : 1) : 0;
    };
    int v = contrib(0x01, 0x80) + contrib(0x40, 0x200);   // N, S
    int h = contrib(0x04, 0x100) + contrib(0x10, 0x400);  // W, E
    v = v < -1 ? -1 : v > 1 ? 1 : v;
    h = h < -1 ? -1 : h > 1 ? 1 : h;
    int ctx = 0, x = 0;
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

// Magnitude refinement context (Table D.4) of row r.
GJ2K_HD_INLINE uint32_t mr_context(uint32_t word, int r) {
  // Without branches: (refined, near) = (0, 0) 14, (0, 1) 15, (1, x) 16, as nibbles of 0x2210.
  const uint32_t refined = (word & refined_bit(r)) != 0;
  const uint32_t near = (window(word, r) & kWindowNeighbours) != 0;
  return 14 + ((0x2210u >> (4 * (2 * refined + near))) & 0xFu);
}

// Pass kinds in coding order; pass 0 is a cleanup.
enum class PassKind { kSignificance, kRefinement, kCleanup };
GJ2K_HD_INLINE PassKind pass_kind(uint32_t i) {
  return i == 0 ? PassKind::kCleanup : static_cast<PassKind>((i - 1) % 3);
}
// Bit-plane (counted from the least significant coded plane 0) of pass i with n coded planes.
GJ2K_HD_INLINE uint32_t pass_plane(uint32_t i, uint32_t n) {
  return i == 0 ? n - 1 : n - 2 - (i - 1) / 3;
}

// Segment rules (Table D.9, D.6) behind passes_in_segment and pass_is_raw (t1.h), for host and
// device code: most passes a segment starting at pass `first` may hold (UINT32_MAX: no limit),
// and whether pass i is coded raw.
GJ2K_HD_INLINE uint32_t segment_pass_limit(uint8_t style, uint32_t first) {
  if (style & cblk_style::kTermAll) return 1;
  if (style & cblk_style::kBypass) {
    if (first < 10) return 10 - first;
    return pass_kind(first) == PassKind::kSignificance ? 2 : 1;
  }
  return 0xFFFFFFFFu;
}
GJ2K_HD_INLINE bool raw_pass(uint8_t style, uint32_t i) {
  return (style & cblk_style::kBypass) && i >= 10 && pass_kind(i) != PassKind::kCleanup;
}

// Whether a segment ends after pass i (besides the block's last pass, which always ends one):
// every pass with TERMALL; with BYPASS, each MQ cleanup from pass 9 on and each raw run
// (SPP + MRP) at its MRP.
GJ2K_HD_INLINE bool segment_ends(uint8_t style, uint32_t i) {
  if (style & cblk_style::kTermAll) return true;
  if (style & cblk_style::kBypass) return i >= 9 && pass_kind(i) != PassKind::kSignificance;
  return false;
}

// ---- Working memory of the block coders (t1_enc_block.h, t1_dec_block.h) -------------------
// Words of stripe-column state (see above) for a w x h block: a border column each side, a
// border stripe above and below.
GJ2K_HD constexpr size_t state_words(uint32_t w, uint32_t h) {
  return static_cast<size_t>((h + 3) / 4 + 2) * (w + 2);
}
// Words of stripe-major values (4 per stripe column) for a w x h block.
GJ2K_HD constexpr size_t value_words(uint32_t w, uint32_t h) {
  return size_t{4} * ((h + 3) / 4) * w;
}
// The most words `words(w, h)` takes for any block within the standard's limits (w, h <= 1024,
// w * h <= 4096); the widest block of each height is the largest.
constexpr size_t most_words(size_t (*words)(uint32_t, uint32_t)) {
  size_t most = 0;
  for (uint32_t h = 1; h <= kMaxBlockSide; ++h) {
    const uint32_t w = kMaxBlockArea / h < kMaxBlockSide ? kMaxBlockArea / h : kMaxBlockSide;
    const size_t n = words(w, h);
    most = n > most ? n : most;
  }
  return most;
}
// 3284 state words, at 819 x 5 (a clipped 1024 x 8 nominal block cannot be that wide, but the
// coders accept any size within the limits); 6552 value words, at the same size.
inline constexpr size_t kMaxStateWords = most_words(state_words);
inline constexpr size_t kMaxValueWords = most_words(value_words);

}  // namespace gj2k::entropy::t1
