// Packet header bit I/O with bit stuffing (15444-1 B.10.1).
#include "entropy/bitio.h"

#include <string>

#include "gj2k/error.h"

namespace gj2k::entropy {

void HeaderBitWriter::put_bit(uint32_t bit) {
  cur_ = (cur_ << 1) | (bit & 1u);
  if (++count_ == capacity_) {
    bytes_.push_back(static_cast<uint8_t>(cur_));
    capacity_ = cur_ == 0xFF ? 7 : 8;
    cur_ = 0;
    count_ = 0;
  }
}

void HeaderBitWriter::put_bits(uint32_t value, int count) {
  for (int i = count - 1; i >= 0; --i) put_bit((value >> i) & 1u);
}

void HeaderBitWriter::finish_into(std::vector<uint8_t>& out) {
  if (count_ > 0) {
    // Pad with zeros; a 7-bit byte after 0xFF keeps its stuffed zero MSB.
    bytes_.push_back(static_cast<uint8_t>(cur_ << (capacity_ - count_)));
  }
  if (!bytes_.empty() && bytes_.back() == 0xFF) bytes_.push_back(0x00);
  out.insert(out.end(), bytes_.begin(), bytes_.end());
  bytes_.clear();
  cur_ = 0;
  count_ = 0;
  capacity_ = 8;
}

std::vector<uint8_t> HeaderBitWriter::finish() {
  std::vector<uint8_t> out;
  finish_into(out);
  return out;
}

void HeaderBitReader::load() {
  if (pos_ >= bytes_.size()) {
    throw Error(ErrorCode::kTruncated, std::string(what_) + ": ends at byte " +
                                           std::to_string(pos_) + " in the middle of its bits");
  }
  cur_ = bytes_[pos_++];
  bits_left_ = last_ff_ ? 7 : 8;
  last_ff_ = cur_ == 0xFF;
}

size_t HeaderBitReader::align() {
  bits_left_ = 0;
  if (last_ff_) {
    // A header never ends on 0xFF: the byte after it belongs to the header (B.10.1).
    if (pos_ >= bytes_.size()) {
      throw Error(ErrorCode::kTruncated, std::string(what_) + ": ends with 0xFF at byte " +
                                             std::to_string(pos_ - 1) +
                                             " without the stuffed byte that must follow");
    }
    ++pos_;
    last_ff_ = false;
  }
  return pos_;
}

}  // namespace gj2k::entropy
