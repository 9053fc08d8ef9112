// Packet header bit I/O (ISO/IEC 15444-1 B.10.1).
// Bits are packed most significant first. After a byte equal to 0xFF the next byte carries only
// 7 bits (its most significant bit is a stuffed 0), so no 0xFF byte is ever followed by a byte
// above 0x8F and packet headers cannot imitate a marker. A header ends on a byte boundary and
// never with 0xFF: if the last byte would be 0xFF, a 0x00 byte follows it.
#pragma once

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
class HeaderBitReader {
 public:
  explicit HeaderBitReader(std::span<const uint8_t> bytes, const char* what = "packet header")
      : bytes_(bytes), what_(what) {}
  uint32_t get_bit() {
    if (bits_left_ == 0) load();
    --bits_left_;
    return (cur_ >> bits_left_) & 1u;
  }
  // `count` (0..32) bits, most significant first.
  uint32_t get_bits(int count) {
    uint32_t v = 0;
    for (int i = 0; i < count; ++i) v = (v << 1) | get_bit();
    return v;
  }
  // Skips to the end of the current byte, and past a stuffed 0x00 that follows a final 0xFF
  // (B.10.1); returns the header length in bytes from the start of the span.
  size_t align();
  size_t byte_position() const { return pos_; }

 private:
  // The next byte into cur_ (7 bits after 0xFF); throws at the end of the span.
  void load();

  std::span<const uint8_t> bytes_;
  const char* what_;
  size_t pos_ = 0;     // index of the byte that supplies the next bits
  int bits_left_ = 0;  // bits left in bytes_[pos_ - 1]; 0 when the next bit starts a new byte
  uint8_t cur_ = 0;
  bool last_ff_ = false;  // the byte last loaded was 0xFF
};

}  // namespace gj2k::entropy
