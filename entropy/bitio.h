// Packet header bit I/O (ISO/IEC 15444-1 B.10.1).
// Bits are packed most significant first. After a byte equal to 0xFF the next byte carries only
// 7 bits (its most significant bit is a stuffed 0), so no 0xFF byte is ever followed by a byte
// above 0x8F and packet headers cannot imitate a marker. A header ends on a byte boundary and
// never with 0xFF: if the last byte would be 0xFF, a 0x00 byte follows it.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace gj2k::entropy {

// Collects header bits, most significant first, and packs them into header bytes with the
// stuffing of B.10.1 when finished. The bits are kept unstuffed until then, so that several
// writers' bits (a packet's bands, coded on different threads) pack into one header exactly
// as one writer holding all of them would (pack_header).
class HeaderBitWriter {
 public:
  void put_bit(uint32_t bit) { put_bits(bit & 1u, 1); }
  // The `count` (0..32) low bits of `value`, most significant first.
  void put_bits(uint32_t value, int count) {
    if (count <= 0) return;
    const uint64_t v = count == 32 ? value : value & ((uint32_t{1} << count) - 1);
    const int room = 64 - held_;  // at least 1: a full word is stored at once
    if (count < room) {
      open_ = (open_ << count) | v;
      held_ += count;
      return;
    }
    const int rest = count - room;  // bits that start the next word (held_ >= 32 here)
    words_.push_back((open_ << room) | (v >> rest));
    open_ = rest ? v & ((uint64_t{1} << rest) - 1) : 0;
    held_ = rest;
  }
  // Pads the last byte with zero bits and appends 0x00 after a final 0xFF (B.10.1); returns
  // the header bytes and leaves the writer empty, ready for the next header.
  std::vector<uint8_t> finish();
  // Appends the finished header to `out` instead of returning it.
  void finish_into(std::vector<uint8_t>& out);
  // Bits written so far (before stuffing).
  size_t bit_count() const { return words_.size() * 64 + static_cast<size_t>(held_); }
  // Empties the writer (its memory is kept).
  void clear() {
    words_.clear();
    open_ = 0;
    held_ = 0;
  }

  // Appends to `out` one header made of the bits of `parts` in order, stuffed and ended as
  // finish_into ends one writer's; the parts are left as they are.
  static void pack_header(std::span<const HeaderBitWriter* const> parts, std::vector<uint8_t>& out);

 private:
  std::vector<uint64_t> words_;  // full words of 64 bits, first bit in the top one
  uint64_t open_ = 0;            // the next bits, right-aligned
  int held_ = 0;                 // bits in open_ (0..63)
};

// Reads header bits from a bounded buffer. Reading past its end throws
// Error(kTruncated) naming `what` and the byte offset; it never reads outside the span.
//
// The bits of several bytes are unstuffed ahead into a 64-bit buffer, so that a field or a
// run of equal bits is taken in one step; every read gives the bits, the errors and the byte
// positions that reading the header one bit at a time, as B.10.1 describes, gives.
class HeaderBitReader {
 public:
  explicit HeaderBitReader(std::span<const uint8_t> bytes, const char* what = "packet header")
      : bytes_(bytes), what_(what) {}
  uint32_t get_bit() {
    if (count_ == 0) fill(1);
    const auto bit = static_cast<uint32_t>(buf_ >> 63);
    buf_ <<= 1;
    --count_;
    return bit;
  }
  // `count` (0..32) bits, most significant first.
  uint32_t get_bits(int count) {
    if (count <= 0) return 0;
    if (count_ < count) fill(count);
    const auto v = static_cast<uint32_t>(buf_ >> (64 - count));
    skip_bits(count);
    return v;
  }
  // Reads 0 bits until a 1 bit or until `max` 0 bits have been read, and the 1 bit; returns
  // the number of 0 bits (`max` when no 1 came). A tag tree node's bits (B.10.2).
  int32_t get_zeros_then_one(int32_t max) { return get_run(max, 0); }
  // The same with 1 bits ended by a 0 bit (the Lblock increment, B.10.7.1).
  int32_t get_ones_then_zero(int32_t max) { return get_run(max, ~uint64_t{0}); }

  // Makes `count` (0..57) bits readable by peek_bits without reading past the span; false
  // when the span ends first (then the bits up to its end are readable).
  bool prefetch(int count) {
    if (count_ < count) refill();
    return count_ >= count;
  }
  // The next `count` (1..32) bits, which prefetch made readable, without reading them.
  uint32_t peek_bits(int count) const { return static_cast<uint32_t>(buf_ >> (64 - count)); }
  // Reads `count` (0..64) readable bits.
  void skip_bits(int count) {
    buf_ = count < 64 ? buf_ << count : 0;
    count_ -= count;
  }

  // Skips to the end of the current byte, and past a stuffed 0x00 that follows a final 0xFF
  // (B.10.1); returns the header length in bytes from the start of the span.
  size_t align();
  // The bytes of the span that bits were read from so far, a byte counting from its first bit
  // on (bytes only buffered ahead do not count).
  size_t byte_position() const;

 private:
  // Unstuffs whole bytes into buf_ while they fit; stops at the end of the span.
  void refill();
  // refill(), and throws Error(kTruncated) when fewer than `count` bits remain.
  void fill(int count);
  // A run of bits equal to the top bit of `flip` (0 or all ones), at most `max`, and the bit
  // after it when the run is shorter.
  int32_t get_run(int32_t max, uint64_t flip) {
    // The bits below count_ are 0, so a run that ends inside the buffer ends before count_
    // (a run of 1 bits stops at count_ at the latest).
    const int run = std::countl_zero(buf_ ^ flip);
    if (run < count_ && run < max) {
      skip_bits(run + 1);
      return run;
    }
    return get_long_run(max, flip);
  }
  // get_run past the buffer's bits (or with max <= 0).
  int32_t get_long_run(int32_t max, uint64_t flip);
  // Bits byte k holds: 7 after a 0xFF byte of this header, else 8 (B.10.1).
  int width(size_t k) const { return k > base_ && bytes_[k - 1] == 0xFF ? 7 : 8; }

  std::span<const uint8_t> bytes_;
  const char* what_;
  uint64_t buf_ = 0;      // the next count_ bits from the top; the bits below are 0
  int count_ = 0;         // 0..64
  size_t fill_pos_ = 0;   // the next byte to unstuff into buf_
  size_t base_ = 0;       // where the header (after align, the next) starts: 8 bits
  bool fill_ff_ = false;  // bytes_[fill_pos_ - 1] was 0xFF (and fill_pos_ > base_)
};

}  // namespace gj2k::entropy
