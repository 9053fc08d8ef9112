// Fast MQ encoder (15444-1 C.2) and raw bit coder for arithmetic coding bypass (D.6).
// Produces exactly the bytes of MqRefEncoder (mq_ref.h); contexts are one byte each
// (state = 2 * Table C.2 index + MPS, see kMqFastStates). Both are host-device (core/hd.h):
// the Tier-1 block coder (t1_enc_block.h) runs them on the CPU and in the CUDA kernel.
//
// Output: a caller-given byte buffer of fixed capacity. A coder writes its segment from a start
// position on; bytes that would land at or past the capacity are counted but not stored, so
// size() > capacity() tells the caller the buffer was too small (the data is then incomplete).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "core/hd.h"
#include "entropy/mq_tables.h"

namespace gj2k::entropy {

// The encoder's view of kMqFastStates (same state numbering), 8 bytes per entry so that
// indexing is one scaled address.
struct MqEncState {
  uint32_t qe;
  uint8_t mps, next_mps, next_lps, unused;
};
inline constexpr std::array<MqEncState, 94> make_mq_enc_states() {
  std::array<MqEncState, 94> t{};
  for (size_t i = 0; i < t.size(); ++i) {
    const MqFastState& f = kMqFastStates[i];
    t[i] = {f.qe, f.mps, f.next_mps, f.next_lps, 0};
  }
  return t;
}
inline constexpr std::array<MqEncState, 94> kMqEncStates = make_mq_enc_states();

// Where a truncation of the segment being coded may fall: the position of the byte B (or
// segment start - 1 before the first byte) and how many bits of C are still pending. Resolved
// into a byte count once the segment is complete (carries may still change B).
struct MqMark {
  int32_t b_pos;
  int32_t pending_bits;
};

// The host build codes the rare BYTEOUTs out of line, so that the pass loops that inline
// ENCODE keep their registers for A, C, CT and the context state; a kernel inlines everything.
#if defined(__GNUC__) && !defined(__CUDA_ARCH__)
#define GJ2K_MQ_COLD __attribute__((noinline, cold))
#else
#define GJ2K_MQ_COLD
#endif

// C and CT after a run of shifts (MqBytes::shift).
struct MqShift {
  uint32_t c;
  int32_t ct;
};

// The MQ encoder's output half (C.2.7): the byte B being held back for a carry, and the
// buffer the completed bytes go to.
struct MqBytes {
  uint8_t* buf = nullptr;
  uint32_t cap = 0;
  uint32_t pos = 0;
  uint8_t b = 0;
  bool started = false;

  GJ2K_HD_INLINE void put(uint8_t byte) {
    if (pos < cap) buf[pos] = byte;
    ++pos;
  }
  // BYTEOUT (C.2.7): completes B (B is held here until no carry can reach it).
  GJ2K_HD_INLINE void emit() {
    if (started) put(b);
    started = true;
  }
  GJ2K_HD_INLINE void byteout(uint32_t& c, int& ct) {
    if (b == 0xFF) {
      emit();
      b = static_cast<uint8_t>(c >> 20);
      c &= 0xFFFFF;
      ct = 7;
    } else if (c < 0x8000000) {
      emit();
      b = static_cast<uint8_t>(c >> 19);
      c &= 0x7FFFF;
      ct = 8;
    } else {
      ++b;
      if (b == 0xFF) {
        c &= 0x7FFFFFF;
        emit();
        b = static_cast<uint8_t>(c >> 20);
        c &= 0xFFFFF;
        ct = 7;
      } else {
        emit();
        b = static_cast<uint8_t>(c >> 19);
        c &= 0x7FFFF;
        ct = 8;
      }
    }
  }
  // The n >= ct shifts of C of a RENORME (C.2.6): runs of CT between BYTEOUTs.
  GJ2K_HD GJ2K_MQ_COLD MqShift shift(uint32_t c, int ct, int n) {
    do {
      c <<= ct;
      n -= ct;
      byteout(c, ct);
    } while (n >= ct);
    return {c << n, ct - n};
  }
};

// ENCODE (C.2.2..C.2.6) on the registers A, C, CT of a coder whose bytes go to `out`: codes
// decision d in the context whose state byte is `state`, with the state table `states`
// (kMqEncStates itself, host code, or a pointer to a copy of it, a kernel's shared memory).
template <class States>
GJ2K_HD_INLINE void mq_encode(const States& states, uint8_t& state, uint32_t d, uint32_t& a,
                              uint32_t& c, int& ct, MqBytes& out) {
  const MqEncState& s = states[state];
  const uint32_t qe = s.qe;
  a -= qe;
#if defined(__CUDA_ARCH__)
  // A kernel keeps the branches: a warp issues both sides of a select, and the decoder's masks
  // made its kernel slower (docs/PERFORMANCE.md, "Fifth run").
  if (d == s.mps) {
    if (a & 0x8000) {
      c += qe;
      return;
    }
    if (a < qe) {
      a = qe;
    } else {
      c += qe;
    }
    state = s.next_mps;
  } else {
    if (a < qe) {
      c += qe;
    } else {
      a = qe;
    }
    state = s.next_lps;
  }
  // RENORME (C.2.6) with 0 < A < 0x8000: A and C shift left until A's bit 15 is set, a BYTEOUT
  // each time CT runs out; the n shifts go at once.
  const int n = __clz(a) - 16;
#else
  // The host selects with masks instead: the decision is data, its branch mispredicts. The
  // upper sub-interval (C += Qe, A kept) is the MPS's unless exchanged (C.2.5, Figure C.8),
  // the LPS's when exchanged (C.2.4, Figure C.7). A state changes only with renormalisation
  // (the MPS without one, A >= 0x8000, keeps it; an LPS always renormalises).
  const uint32_t lps = 0u - static_cast<uint32_t>(d != s.mps);
  const uint32_t exch = 0u - static_cast<uint32_t>(a < qe);
  const uint32_t upper = ~(lps ^ exch);
  c += qe & upper;
  a = (a & upper) | (qe & ~upper);
  const uint32_t next = lps ? s.next_lps : s.next_mps;
  const uint32_t keep = 0u - ((a >> 15) & 1u);
  state = static_cast<uint8_t>(next ^ ((next ^ state) & keep));
  // RENORME (C.2.6): A and C shift left until A's bit 15 is set (n = 0: none), a BYTEOUT each
  // time CT runs out; the n shifts go at once.
  const int n = __builtin_clz(a) - 16;
#endif
  a <<= n;
  if (n < ct) {
    c <<= n;
    ct -= n;
    return;
  }
  const MqShift r = out.shift(c, ct, n);
  c = r.c;
  ct = r.ct;
}

// mq_encode for a decision that is nearly always the MPS (the cleanup pass's run-length
// decisions): on the host the MPS without renormalisation first, on a branch that then
// predicts (a kernel's mq_encode branches that way already).
template <class States>
GJ2K_HD_INLINE void mq_encode_likely_mps(const States& states, uint8_t& state, uint32_t d,
                                         uint32_t& a, uint32_t& c, int& ct, MqBytes& out) {
#if !defined(__CUDA_ARCH__)
  const MqEncState& s = states[state];
  if (d == s.mps && ((a - s.qe) & 0x8000)) {
    a -= s.qe;
    c += s.qe;
    return;
  }
#endif
  mq_encode(states, state, d, a, c, ct, out);
}

class MqEncoder {
 public:
  MqEncoder() = default;
  GJ2K_HD MqEncoder(uint8_t* buf, uint32_t capacity) {
    out_.buf = buf;
    out_.cap = capacity;
    init(0);
  }

  // INITENC (C.2.8): a new segment starting at byte `start` of the buffer.
  GJ2K_HD_INLINE void init(uint32_t start) {
    a_ = 0x8000;
    c_ = 0;
    ct_ = 12;
    out_.b = 0;
    out_.started = false;
    out_.pos = start;
    seg_start_ = start;
  }

  // ENCODE (mq_encode) in the context whose state byte is `state`.
  template <class States>
  GJ2K_HD_INLINE void encode(const States& states, uint8_t& state, uint32_t d) {
    mq_encode(states, state, d, a_, c_, ct_, out_);
  }
  template <class States>
  GJ2K_HD_INLINE void encode_likely_mps(const States& states, uint8_t& state, uint32_t d) {
    mq_encode_likely_mps(states, state, d, a_, c_, ct_, out_);
  }

  // FLUSH (C.2.9); predictable termination (D.4.2) when `predictable`.
  GJ2K_HD void flush(bool predictable) {
    if (predictable) {
      // D.4.2: emit the 12 - CT bits that fix the code value; the low bits stay zero.
      int k = 11 - ct_ + 1;
      while (k > 0) {
        c_ <<= ct_;
        ct_ = 0;
        out_.byteout(c_, ct_);
        k -= ct_;
      }
    } else {
      // C.2.9 SETBITS, then two BYTEOUTs.
      const uint32_t tempc = c_ + a_;
      c_ |= 0xFFFF;
      if (c_ >= tempc) c_ -= 0x8000;
      c_ <<= ct_;
      out_.byteout(c_, ct_);
      c_ <<= ct_;
      out_.byteout(c_, ct_);
    }
    // The last byte B is kept unless it is 0xFF (the decoder supplies 0xFF past the end).
    if (out_.b != 0xFF && out_.started) out_.put(out_.b);
    out_.started = false;
  }

  GJ2K_HD_INLINE MqMark mark() const {
    return {out_.started ? static_cast<int32_t>(out_.pos) : static_cast<int32_t>(seg_start_) - 1,
            27 - ct_};
  }
  // Bytes of the completed segment [seg_start, seg_end) that a decoder needs to reproduce every
  // decision coded before `m`: the byte B and the bytes holding all pending bits of C.
  GJ2K_HD static uint32_t resolve(const MqMark& m, const uint8_t* data, uint32_t seg_start,
                                  uint32_t seg_end) {
    // Bytes after B hold 8 pending bits each, 7 after a 0xFF.
    int64_t j = int64_t{m.b_pos} + 1;
    int need = m.pending_bits;
    while (need > 0) {
      const int64_t prev = j - 1;
      const bool ff = prev >= int64_t{seg_start} && prev < int64_t{seg_end} && data[prev] == 0xFF;
      need -= ff ? 7 : 8;
      ++j;
    }
    if (j < int64_t{seg_start}) j = seg_start;
    return j < int64_t{seg_end} ? static_cast<uint32_t>(j) : seg_end;
  }

  // Bytes of the buffer in use (stored or not): the end of the segment after flush().
  GJ2K_HD_INLINE uint32_t size() const { return out_.pos; }

  // The coder with its registers A, C, CT apart from its bytes, which stay where the coder is:
  // a loop that codes many decisions keeps a Registers in registers and leaves the output
  // state, touched once a byte, in memory. store() hands A, C, CT back.
  class Registers {
   public:
    GJ2K_HD_INLINE explicit Registers(MqEncoder& e)
        : a_(e.a_), c_(e.c_), ct_(e.ct_), out_(&e.out_) {}
    template <class States>
    GJ2K_HD_INLINE void encode(const States& states, uint8_t& state, uint32_t d) {
      mq_encode(states, state, d, a_, c_, ct_, *out_);
    }
    template <class States>
    GJ2K_HD_INLINE void encode_likely_mps(const States& states, uint8_t& state, uint32_t d) {
      mq_encode_likely_mps(states, state, d, a_, c_, ct_, *out_);
    }
    GJ2K_HD_INLINE void store(MqEncoder& e) const {
      e.a_ = a_;
      e.c_ = c_;
      e.ct_ = ct_;
    }

   private:
    uint32_t a_, c_;
    int ct_;
    MqBytes* out_;
  };

 private:
  uint32_t a_ = 0, c_ = 0;
  int ct_ = 0;
  MqBytes out_;
  uint32_t seg_start_ = 0;
};

// Raw (bypass) bit writer (D.6): bits MSB first; after a 0xFF byte the next byte holds 7 bits
// (its MSB is a stuffed 0). Same buffer rules as MqEncoder.
class RawEncoder {
 public:
  RawEncoder() = default;
  GJ2K_HD RawEncoder(uint8_t* buf, uint32_t capacity) : buf_(buf), cap_(capacity) { init(0); }
  // A new segment starting at byte `start` of the buffer.
  GJ2K_HD_INLINE void init(uint32_t start) {
    c_ = 0;
    ct_ = 8;
    last_ff_ = false;
    pos_ = start;
  }
  GJ2K_HD_INLINE void put(uint32_t bit) {
    c_ |= bit << --ct_;
    if (ct_ == 0) {
      put_byte(static_cast<uint8_t>(c_));
      last_ff_ = c_ == 0xFF;
      ct_ = last_ff_ ? 7 : 8;
      c_ = 0;
    }
  }
  // Terminates the segment: pads pending bits with 0,1,0,... A trailing 0xFF with nothing
  // pending is dropped (the decoder reads 0xFF past the end), except with predictable
  // termination, which completes it with 0x2A as other codecs expect.
  GJ2K_HD void flush(bool predictable) {
    const int full = last_ff_ ? 7 : 8;
    if (ct_ < full) {
      uint32_t bit = 0;
      while (ct_ > 0) {
        c_ |= bit << --ct_;
        bit ^= 1;
      }
      put_byte(static_cast<uint8_t>(c_));
    } else if (last_ff_ && predictable) {
      put_byte(0x2A);
    } else if (last_ff_) {
      --pos_;
    }
    c_ = 0;
    ct_ = 8;
    last_ff_ = false;
  }
  // Bytes needed to decode every bit written so far (capped by the caller at the segment end).
  GJ2K_HD_INLINE uint32_t mark() const { return pos_ + (ct_ < (last_ff_ ? 7 : 8) ? 1 : 0); }
  // Bytes of the buffer in use (stored or not): the end of the segment after flush().
  GJ2K_HD_INLINE uint32_t size() const { return pos_; }

 private:
  GJ2K_HD_INLINE void put_byte(uint8_t byte) {
    if (pos_ < cap_) buf_[pos_] = byte;
    ++pos_;
  }

  uint8_t* buf_ = nullptr;
  uint32_t cap_ = 0;
  uint32_t c_ = 0;
  int ct_ = 8;
  bool last_ff_ = false;
  uint32_t pos_ = 0;
};

}  // namespace gj2k::entropy
