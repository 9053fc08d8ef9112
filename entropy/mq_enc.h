// Fast MQ encoder (15444-1 C.2) and raw bit coder for arithmetic coding bypass (D.6).
// Produces exactly the bytes of MqRefEncoder (mq_ref.h); contexts are one byte each
// (state = 2 * Table C.2 index + MPS, see kMqFastStates).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "entropy/mq_tables.h"

namespace gj2k::entropy {

// Where a truncation of the segment being coded may fall: the position of the byte B (or
// segment start - 1 before the first byte) and how many bits of C are still pending. Resolved
// into a byte count once the segment is complete (carries may still change B).
struct MqMark {
  int64_t b_pos;
  int pending_bits;
};

class MqEncoder {
 public:
  // Appends each segment to *out; init() starts a new segment at out->size().
  explicit MqEncoder(std::vector<uint8_t>* out) : out_(out) { init(); }

  // INITENC (C.2.8).
  void init() {
    a_ = 0x8000;
    c_ = 0;
    ct_ = 12;
    b_ = 0;
    started_ = false;
    seg_start_ = out_->size();
  }

  // ENCODE (C.2.2..C.2.6): codes decision d in the context whose state byte is `state`.
  GJ2K_ALWAYS_INLINE void encode(uint8_t& state, uint32_t d) {
    const MqFastState& s = kMqFastStates[state];
    const uint32_t qe = s.qe;
    a_ -= qe;
    if (d == s.mps) {
      if (a_ & 0x8000) {
        c_ += qe;
        return;
      }
      if (a_ < qe) {
        a_ = qe;
      } else {
        c_ += qe;
      }
      state = s.next_mps;
    } else {
      if (a_ < qe) {
        c_ += qe;
      } else {
        a_ = qe;
      }
      state = s.next_lps;
    }
    do {
      a_ <<= 1;
      c_ <<= 1;
      if (--ct_ == 0) byteout();
    } while ((a_ & 0x8000) == 0);
  }

  // FLUSH (C.2.9); predictable termination (D.4.2) when `predictable`.
  void flush(bool predictable);

  MqMark mark() const {
    return {started_ ? static_cast<int64_t>(out_->size()) : static_cast<int64_t>(seg_start_) - 1,
            27 - ct_};
  }
  // Bytes of the completed segment [seg_start, seg_end) that a decoder needs to reproduce every
  // decision coded before `m`: the byte B and the bytes holding all pending bits of C.
  static size_t resolve(const MqMark& m, const uint8_t* data, size_t seg_start, size_t seg_end);

 private:
  // BYTEOUT (C.2.7): completes B (B is held here until no carry can reach it).
  GJ2K_ALWAYS_INLINE void emit() {
    if (started_) out_->push_back(b_);
    started_ = true;
  }
  GJ2K_ALWAYS_INLINE void byteout() {
    if (b_ == 0xFF) {
      emit();
      b_ = static_cast<uint8_t>(c_ >> 20);
      c_ &= 0xFFFFF;
      ct_ = 7;
    } else if (c_ < 0x8000000) {
      emit();
      b_ = static_cast<uint8_t>(c_ >> 19);
      c_ &= 0x7FFFF;
      ct_ = 8;
    } else {
      ++b_;
      if (b_ == 0xFF) {
        c_ &= 0x7FFFFFF;
        emit();
        b_ = static_cast<uint8_t>(c_ >> 20);
        c_ &= 0xFFFFF;
        ct_ = 7;
      } else {
        emit();
        b_ = static_cast<uint8_t>(c_ >> 19);
        c_ &= 0x7FFFF;
        ct_ = 8;
      }
    }
  }

  std::vector<uint8_t>* out_;
  uint32_t a_, c_;
  int ct_;
  uint8_t b_;
  bool started_;
  size_t seg_start_;
};

// Raw (bypass) bit writer (D.6): bits MSB first; after a 0xFF byte the next byte holds 7 bits
// (its MSB is a stuffed 0).
class RawEncoder {
 public:
  explicit RawEncoder(std::vector<uint8_t>* out) : out_(out) { init(); }
  void init() {
    c_ = 0;
    ct_ = 8;
    last_ff_ = false;
  }
  GJ2K_ALWAYS_INLINE void put(uint32_t bit) {
    c_ |= bit << --ct_;
    if (ct_ == 0) {
      out_->push_back(static_cast<uint8_t>(c_));
      last_ff_ = c_ == 0xFF;
      ct_ = last_ff_ ? 7 : 8;
      c_ = 0;
    }
  }
  // Terminates the segment: pads pending bits with 0,1,0,... A trailing 0xFF with nothing
  // pending is dropped (the decoder reads 0xFF past the end), except with predictable
  // termination, which completes it with 0x2A as other codecs expect.
  void flush(bool predictable);
  // Bytes needed to decode every bit written so far (capped by the caller at the segment end).
  size_t mark() const { return out_->size() + (ct_ < (last_ff_ ? 7 : 8) ? 1 : 0); }

 private:
  std::vector<uint8_t>* out_;
  uint32_t c_;
  int ct_;
  bool last_ff_;
};

}  // namespace gj2k::entropy
