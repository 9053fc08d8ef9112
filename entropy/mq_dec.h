// Fast MQ decoder (15444-1 C.3) and raw bit reader for arithmetic coding bypass (D.6).
// Decodes exactly as MqRefDecoder (mq_ref.h). Both read 0xFF past the end of the segment
// (C.3.4), so truncated or corrupt data decodes to something, never out of bounds. Both are
// host-device (core/hd.h): the Tier-1 decoder (t1_dec_block.h) runs them on the CPU and in
// the CUDA kernel.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "core/hd.h"
#include "entropy/mq_tables.h"

namespace gj2k::entropy {

// The decoder's view of kMqFastStates (same state numbering): Qe << 16, and 8 bytes per entry
// so that indexing is one scaled address.
struct MqDecState {
  uint32_t qe16;
  uint8_t mps, next_mps, next_lps, unused;
};
inline constexpr std::array<MqDecState, 94> make_mq_dec_states() {
  std::array<MqDecState, 94> t{};
  for (size_t i = 0; i < t.size(); ++i) {
    const MqFastState& f = kMqFastStates[i];
    t[i] = {static_cast<uint32_t>(f.qe) << 16, f.mps, f.next_mps, f.next_lps, 0};
  }
  return t;
}
inline constexpr std::array<MqDecState, 94> kMqDecStates = make_mq_dec_states();

// MqDecoderWide's selects as cmov (x86-64 hosts, GCC and Clang): GCC otherwise makes them
// chains of setb, neg and masks, or branches, each longer than one cmov.
#ifndef GJ2K_MQ_CMOV
#if defined(__GNUC__) && defined(__x86_64__) && !defined(__CUDA_ARCH__)
#define GJ2K_MQ_CMOV 1
#else
#define GJ2K_MQ_CMOV 0
#endif
#endif

// Leading zero bits of x != 0.
GJ2K_HD_INLINE int count_leading_zeros(uint32_t x) {
#if defined(__CUDA_ARCH__)
  return __clz(static_cast<int>(x));
#elif defined(__GNUC__)
  return __builtin_clz(x);
#else
  int n = 0;
  while (!(x & 0x80000000u)) x <<= 1, ++n;
  return n;
#endif
}

// What MqDecoder and MqDecoderQe (mq_dec_qe.h) share: C.3's registers, with A held shifted left
// by 16 (aligned with C's high half, so that C compares with and subtracts Qe << 16 directly),
// INITDEC, BYTEIN and RENORMD.
class MqDecoderCore {
 public:
  // INITDEC (C.3.5).
  GJ2K_HD_INLINE void init(const uint8_t* data, size_t length) {
    p_ = data;
    end_ = data + length;
    c_ = static_cast<uint32_t>(byte(0)) << 16;
    bytein();
    c_ <<= 7;
    ct_ -= 7;
    a_ = 0x8000u << 16;
  }

 protected:
  GJ2K_HD_INLINE uint32_t byte(size_t i) const { return p_ + i < end_ ? p_[i] : 0xFFu; }
  // BYTEIN (C.3.4); p_ points at the current byte B.
  GJ2K_HD_INLINE void bytein() {
    if (byte(0) == 0xFF) {
      if (byte(1) > 0x8F) {
        c_ += 0xFF00;
        ct_ = 8;
      } else {
        ++p_;
        c_ += byte(0) << 9;
        ct_ = 7;
      }
    } else {
      ++p_;
      c_ += byte(0) << 8;
      ct_ = 8;
    }
  }
  // RENORMD (C.3.3): A and C shift left until A's top bit is set, a BYTEIN each time CT has
  // run out before a shift. The n shifts go in runs of up to CT bits, not one at a time, so
  // that a lane loops at most twice, not n times (a GPU lane's decisions are one chain of
  // dependent instructions: docs/PERFORMANCE.md, "Twenty-third run").
  GJ2K_HD_INLINE void renormalize() {
    int n = count_leading_zeros(a_);
    while (n > ct_) {
      a_ <<= ct_;
      c_ <<= ct_;
      n -= ct_;
      bytein();
    }
    a_ <<= n;
    c_ <<= n;
    ct_ -= n;
  }

  const uint8_t* p_ = nullptr;
  const uint8_t* end_ = nullptr;
  uint32_t a_ = 0, c_ = 0;  // A << 16 and C
  int ct_ = 0;
};

class MqDecoder : public MqDecoderCore {
 public:
  // A context as this decoder keeps it: its state byte (2 * index + MPS, kMqFastStates'
  // numbering), with the tables kMqDecStates.
  using Context = uint8_t;
  GJ2K_HD_INLINE static constexpr Context context(uint8_t state) { return state; }

  MqDecoder() = default;
  GJ2K_HD MqDecoder(const uint8_t* data, size_t length) { init(data, length); }

  // decode() for a decision that is nearly always the MPS (MqDecoderWide has a branch for it).
  template <class States, class State>
  GJ2K_HD_INLINE uint32_t decode_likely_mps(const States& states, State& state) {
    return decode(states, state);
  }

  // DECODE (C.3.2): the decision in the context whose state byte is `state`, with the state
  // table `states`: kMqDecStates itself (host code: indexing the array, the compiler keeps its
  // address in a register) or a pointer to a copy of it (a kernel's, in shared memory).
  // State: the context's state byte (uint8_t), or a wider integer holding it.
  template <class States, class State>
  GJ2K_HD_INLINE uint32_t decode(const States& states, State& state) {
    const MqDecState& s = states[state];
    const uint32_t qe = s.qe16;
    a_ -= qe;
    uint32_t d;
    if (c_ < qe) {
      // LPS_EXCHANGE (Figure C.17).
      if (a_ < qe) {
        d = s.mps;
        state = s.next_mps;
      } else {
        d = s.mps ^ 1;
        state = s.next_lps;
      }
      a_ = qe;
    } else {
      c_ -= qe;
      if (a_ & 0x80000000u) return s.mps;
      // MPS_EXCHANGE (Figure C.16).
      if (a_ < qe) {
        d = s.mps ^ 1;
        state = s.next_lps;
      } else {
        d = s.mps;
        state = s.next_mps;
      }
    }
    renormalize();
    return d;
  }
};

// The same decoder for 64-bit hosts, with fewer branches: C is held in 64 bits (C's 32-bit
// register of C.3 in the high half), with up to 47 code bits read ahead below it, so that a
// decision renormalises in one shift by the leading zeros of A instead of a loop that tests CT
// per bit, and the interval and exchange tests of Figures C.16/C.17 become selects. Decodes
// exactly as MqDecoder, truncated and corrupt data included:
// - bytes read ahead are added below every bit C.3's decoder holds at that point, so the
//   compared high half is the same;
// - the one byte whose addition overlaps held bits (a byte 0x80..0x8F after 0xFF, whose top
//   bit BYTEIN adds onto the 0xFF's last bit: only corrupt data has it) is not read ahead: it
//   is added when CT reaches 0, as C.3 does.
// The CPU's Tier-1 decoder (t1_dec.cpp) uses this one: its decisions are data, and a branch on
// them mispredicts. The CUDA kernels keep branches (MqDecoderQe, mq_dec_qe.h): a warp issues
// both sides of every select, and a lane's decisions are one chain of dependent instructions,
// which selects lengthen (docs/PERFORMANCE.md, "Fifth run", "Twenty-third run").
class MqDecoderWide {
 public:
  // A context as this decoder keeps it: Qe << 16 of its state in the high half, the state
  // byte (2 * index + MPS) in the low byte, so that a decision's Qe and MPS come from the
  // context itself; the table kMqWideStates gives the contexts that follow a decision.
  using Context = uint32_t;
  static constexpr Context context(uint8_t state) {
    return (static_cast<uint32_t>(kMqFastStates[state].qe) << 16) | state;
  }

  MqDecoderWide() = default;
  GJ2K_HD MqDecoderWide(const uint8_t* data, size_t length) { init(data, length); }

  // INITDEC (C.3.5): C = B << 16, BYTEIN, C <<= 7, CT -= 7.
  GJ2K_HD_INLINE void init(const uint8_t* data, size_t length) {
    p_ = data;
    end_ = data + length;
    c_ = uint64_t{byte(0)} << 48;
    ct_ = 0;
    a_ = 0;
    shift_slowly(7);
    a_ = 0x8000u << 16;
    fill();
  }

  // decode() with a branch for the MPS without renormalisation first: for decisions that are
  // nearly always that (the cleanup pass's run-length decisions), where the branch predicts.
  // Cmov: the selects as cmov (GJ2K_MQ_CMOV builds) or as masks (everywhere; tests run both).
  template <bool Cmov = GJ2K_MQ_CMOV != 0, class States>
  GJ2K_HD_INLINE uint32_t decode_likely_mps(const States& states, Context& cx) {
    const uint32_t qe = cx & 0xFFFF0000u;
    const uint32_t a = a_ - qe;
    if (static_cast<uint32_t>(c_ >> 32) >= qe && (a & 0x80000000u)) {
      c_ -= uint64_t{qe} << 32;
      a_ = a;
      return cx & 1u;
    }
    return decode<Cmov>(states, cx);
  }

  // DECODE (C.3.2) and RENORMD (C.3.3), as MqDecoder::decode, in the context cx with the
  // successor table `states` (kMqWideStates). Qe comes from the context, not from a table:
  // the chain from one decision of a context to its next is one load shorter.
  template <bool Cmov = GJ2K_MQ_CMOV != 0, class States>
  GJ2K_HD_INLINE uint32_t decode(const States& states, Context& cx) {
    static_assert(!Cmov || GJ2K_MQ_CMOV, "the cmov selects need an x86-64 host build");
    const uint32_t ctx = cx;
    const uint32_t qe = ctx & 0xFFFF0000u;
    const uint64_t qe64 = uint64_t{qe} << 32;
    const uint64_t next2 = states[ctx & 0xFFu];  // both successors, loaded before the decision
    const uint32_t a = a_ - qe;
    // Selects instead of branches: lower is all ones in the LPS sub-interval (Figure C.17: C's
    // high half below Qe, i.e. C << 32 below Qe << 32), zero in the MPS one (C.16); exchange:
    // A - Qe below Qe. With renormalisation (A below 0x8000) the context becomes the successor
    // after an MPS or an LPS, without it stays.
    uint32_t lower, na = a, next, flip32;
    if constexpr (Cmov) {
#if GJ2K_MQ_CMOV
      const uint64_t mps_c = c_ - qe64;
      __asm__(
          "cmpq %[qe64], %[c]\n\t"
          "cmovaeq %[mps_c], %[c]\n\t"
          "cmovbl %[qe], %[na]\n\t"
          "sbbl %[lower], %[lower]"
          : [c] "+r"(c_), [na] "+r"(na), [lower] "=r"(lower)
          : [qe64] "r"(qe64), [mps_c] "r"(mps_c), [qe] "r"(qe)
          : "cc");
      flip32 = (lower ^ (0u - static_cast<uint32_t>(a < qe))) & 32u;  // LPS: 32
      next = static_cast<uint32_t>(next2 >> flip32);
      __asm__(
          "testl %[na], %[na]\n\t"
          "cmovsl %[ctx], %[next]"
          : [next] "+r"(next)
          : [na] "r"(na), [ctx] "r"(ctx)
          : "cc");
#endif
    } else {
      lower = 0u - static_cast<uint32_t>(c_ < qe64);
      na = a ^ ((a ^ qe) & lower);
      c_ -= uint64_t{qe & ~lower} << 32;
      flip32 = (lower ^ (0u - static_cast<uint32_t>(a < qe))) & 32u;  // LPS: 32
      next = static_cast<uint32_t>(next2 >> flip32);
      const uint32_t keep = static_cast<uint32_t>(static_cast<int32_t>(na) >> 31);
      next ^= (next ^ ctx) & keep;
    }
    cx = next;
    const int n = count_leading_zeros(na);
    if (n > ct_) {
      a_ = na;
      shift_slowly(n);
    } else {
      a_ = na << n;
      c_ <<= n;
      ct_ -= n;
    }
    if (ct_ < 16) fill();
    return (ctx & 1u) ^ (flip32 >> 5);
  }

 private:
  GJ2K_HD_INLINE uint32_t byte(size_t i) const {
    return p_ + i < end_ ? p_[i] : 0xFFu;
  }
  // BYTEIN (C.3.4) of the byte after B (p_), added below the ct_ bits C holds ahead; false
  // (nothing added) for the overlapping byte while bits are still held ahead of it.
  GJ2K_HD_INLINE bool bytein() {
    if (byte(0) == 0xFF) {
      const uint32_t next = byte(1);
      if (next > 0x8F) {  // a marker, or the end: 1-bits from here on
        c_ += uint64_t{0xFF} << (40 - ct_);
        ct_ += 8;
        return true;
      }
      if (next > 0x7F && ct_ > 0) return false;
      ++p_;
      c_ += uint64_t{next} << (41 - ct_);
      ct_ += 7;
      return true;
    }
    ++p_;
    c_ += uint64_t{byte(0)} << (40 - ct_);
    ct_ += 8;
    return true;
  }
  // Reads ahead to more than 32 held bits, or up to an overlapping byte. Below 16 held bits,
  // four bytes at once where B and the three after it are not 0xFF (each BYTEIN then adds
  // its byte whole, 8 bits on) and the fourth is inside the segment.
  GJ2K_HD_INLINE void fill() {
    if (ct_ < 16 && end_ - p_ > 4) {
      uint32_t x;
      memcpy(&x, p_, 4);  // B..B+3 in any byte order: only tested for a 0xFF byte
      if ((((~x - 0x01010101u) & x) & 0x80808080u) == 0) {
        const uint32_t y = uint32_t{p_[1]} << 24 | uint32_t{p_[2]} << 16 | uint32_t{p_[3]} << 8 |
                           p_[4];  // B+1..B+4, the bytes the four BYTEINs add
        c_ += uint64_t{y} << (16 - ct_);
        ct_ += 32;
        p_ += 4;
        return;
      }
    }
    while (ct_ <= 32 && bytein()) {
    }
  }
  // n shifts of RENORMD, one at a time, BYTEIN when CT reaches 0 (C.3.3); A is shifted too.
  GJ2K_HD void shift_slowly(int n) {
    for (; n > 0; --n) {
      if (ct_ == 0) bytein();
      a_ <<= 1;
      c_ <<= 1;
      --ct_;
    }
  }

  const uint8_t* p_ = nullptr;
  const uint8_t* end_ = nullptr;
  uint64_t c_ = 0;  // C << 32, and the bits read ahead below it
  uint32_t a_ = 0;  // A << 16
  int ct_ = 0;      // bits held below C's 32: CT of C.3, plus those read ahead
};

// MqDecoderWide's successor table: per state byte, the context after an MPS that
// renormalises (low half) and after an LPS (high half).
inline constexpr std::array<uint64_t, 94> make_mq_wide_states() {
  std::array<uint64_t, 94> t{};
  for (size_t i = 0; i < t.size(); ++i) {
    const MqFastState& f = kMqFastStates[i];
    t[i] = MqDecoderWide::context(f.next_mps) | uint64_t{MqDecoderWide::context(f.next_lps)} << 32;
  }
  return t;
}
inline constexpr std::array<uint64_t, 94> kMqWideStates = make_mq_wide_states();

// Raw (bypass) bit reader (D.6): after 0xFF the next byte holds 7 bits; a 0xFF followed by a
// byte > 0x8F (or the end of the data) yields 1-bits.
class RawDecoder {
 public:
  RawDecoder() = default;
  GJ2K_HD RawDecoder(const uint8_t* data, size_t length) { init(data, length); }
  GJ2K_HD_INLINE void init(const uint8_t* data, size_t length) {
    p_ = data;
    end_ = data + length;
    c_ = 0;
    ct_ = 0;
  }
  GJ2K_HD_INLINE uint32_t bit() {
    if (ct_ == 0) {
      if (c_ == 0xFF) {
        const uint32_t next = p_ < end_ ? *p_ : 0xFFu;
        if (next > 0x8F) {
          c_ = 0xFF;
          ct_ = 8;
        } else {
          c_ = next;
          ++p_;
          ct_ = 7;
        }
      } else {
        c_ = p_ < end_ ? *p_ : 0xFFu;
        if (p_ < end_) ++p_;
        ct_ = 8;
      }
    }
    --ct_;
    return (c_ >> ct_) & 1;
  }

 private:
  const uint8_t* p_ = nullptr;
  const uint8_t* end_ = nullptr;
  uint32_t c_ = 0;
  int ct_ = 0;
};

}  // namespace gj2k::entropy
