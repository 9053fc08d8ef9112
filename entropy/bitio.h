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

// Appends header bits to a growing byte vector.
class HeaderBitWriter {
 public:
  void put_bit(uint32_t bit);
  // The `count` (0..32) low bits of `value`, most significant first.
  void put_bits(uint32_t value, int count);
  // Pads the last byte with zero bits and appends 0x00 after a final 0xFF (B.10.1); returns
  // the header bytes and leaves the writer empty, ready for the next header.
  std::vector<uint8_t> finish();
  // Appends the finished header to `out` instead of returning it.
  void finish_into(std::vector<uint8_t>& out);
  // Bits written so far (stuffed bits included), for size estimates.
  size_t bit_count() const { return bytes_.size() * 8 + count_; }

 private:
  std::vector<uint8_t> bytes_;  // completed bytes
  uint32_t cur_ = 0;            // the open byte's bits so far
  int count_ = 0;               // bits in cur_
  int capacity_ = 8;            // 7 after a 0xFF (B.10.1), else 8
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
