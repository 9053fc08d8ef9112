// Fast MQ decoder (15444-1 C.3) and raw bit reader for arithmetic coding bypass (D.6).
// Decodes exactly as MqRefDecoder (mq_ref.h). Both read 0xFF past the end of the segment
// (C.3.4), so truncated or corrupt data decodes to something, never out of bounds. Both are
// host-device (core/hd.h): the Tier-1 decoder (t1_dec_block.h) runs them on the CPU and in
// the CUDA kernel.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

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

class MqDecoder {
 public:
  MqDecoder() = default;
  GJ2K_HD MqDecoder(const uint8_t* data, size_t length) { init(data, length); }

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

  // DECODE (C.3.2): the decision in the context whose state byte is `state`, with the state
  // table `states`: kMqDecStates itself (host code: indexing the array, the compiler keeps its
  // address in a register) or a pointer to a copy of it (a kernel's, in shared memory).
  // A and Qe are held shifted left by 16, aligned with C's high half, so that C compares with
  // and subtracts Qe directly.
  template <class States>
  GJ2K_HD_INLINE uint32_t decode(const States& states, uint8_t& state) {
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
    // RENORMD (C.3.3).
    do {
      if (ct_ == 0) bytein();
      a_ <<= 1;
      c_ <<= 1;
      --ct_;
    } while ((a_ & 0x80000000u) == 0);
    return d;
  }

 private:
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

  const uint8_t* p_ = nullptr;
  const uint8_t* end_ = nullptr;
  uint32_t a_ = 0, c_ = 0;  // A << 16 and C
  int ct_ = 0;
};

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
