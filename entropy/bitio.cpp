// Packet header bit I/O with bit stuffing (15444-1 B.10.1).
#include "entropy/bitio.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <string>

#include "gj2k/error.h"

namespace gj2k::entropy {

void HeaderBitWriter::pack_header(std::span<const HeaderBitWriter* const> parts,
                                  std::vector<uint8_t>& out) {
  size_t bits = 0;
  for (const HeaderBitWriter* p : parts) bits += p->bit_count();
  out.reserve(out.size() + bits / 7 + 2);
  // The low `have` bits of acc come next (have < 8 between feeds, so at most 39 are held).
  uint64_t acc = 0;
  int have = 0;
  bool after_ff = false;  // the last byte was 0xFF: the next one carries 7 bits
  bool any = false;
  const auto feed = [&](uint64_t v, int n) {  // n <= 32 bits, right-aligned in v
    acc = (acc << n) | v;
    have += n;
    for (int cap = after_ff ? 7 : 8; have >= cap; cap = after_ff ? 7 : 8) {
      have -= cap;
      const uint8_t byte = static_cast<uint8_t>((acc >> have) & ((1u << cap) - 1));
      out.push_back(byte);
      after_ff = byte == 0xFF;
      any = true;
    }
  };
  for (const HeaderBitWriter* p : parts) {
    for (const uint64_t w : p->words_) {
      feed(w >> 32, 32);
      feed(w & 0xFFFFFFFFu, 32);
    }
    if (p->held_ > 32) {
      feed(p->open_ >> 32, p->held_ - 32);
      feed(p->open_ & 0xFFFFFFFFu, 32);
    } else if (p->held_ > 0) {
      feed(p->open_, p->held_);
    }
  }
  if (have > 0) {  // padded with zeros; a 7-bit byte after 0xFF keeps its stuffed zero MSB
    const int cap = after_ff ? 7 : 8;
    const uint8_t byte = static_cast<uint8_t>((acc << (cap - have)) & ((1u << cap) - 1));
    out.push_back(byte);
    after_ff = false;  // a padded byte ends with a zero bit
    any = true;
  }
  if (any && after_ff) out.push_back(0x00);
}

void HeaderBitWriter::finish_into(std::vector<uint8_t>& out) {
  const HeaderBitWriter* self = this;
  pack_header({&self, 1}, out);
  clear();
}

std::vector<uint8_t> HeaderBitWriter::finish() {
  std::vector<uint8_t> out;
  finish_into(out);
  return out;
}

void HeaderBitReader::refill() {
  const size_t size = bytes_.size();
  // Eight bytes at once when none is 0xFF (and the last one unstuffed was not): no byte then
  // loses its top bit, and the whole ones that fit go in as they are.
  if (!fill_ff_ && size - fill_pos_ >= 8) {
    const int n = (64 - count_) >> 3;
    if (n == 0) return;
    uint64_t w;
    std::memcpy(&w, bytes_.data() + fill_pos_, 8);
    if constexpr (std::endian::native == std::endian::little) w = __builtin_bswap64(w);
    const uint64_t x = ~w;  // a 0xFF byte of w is a zero byte of x
    if (((x - 0x0101010101010101u) & ~x & 0x8080808080808080u) == 0) {
      buf_ |= (n == 8 ? w : w & ~(~uint64_t{0} >> (8 * n))) >> count_;
      count_ += 8 * n;
      fill_pos_ += static_cast<size_t>(n);
      return;
    }
  }
  while (count_ <= 56 && fill_pos_ < size) {
    const uint8_t byte = bytes_[fill_pos_++];
    const int w = fill_ff_ ? 7 : 8;
    buf_ |= uint64_t{static_cast<uint8_t>(fill_ff_ ? byte & 0x7F : byte)} << (64 - count_ - w);
    count_ += w;
    fill_ff_ = byte == 0xFF;
  }
}

void HeaderBitReader::fill(int count) {
  refill();
  // refill leaves fewer than 57 bits only at the end of the span, where a reader of one bit
  // at a time would stop too: past the last byte, having read every bit before it.
  if (count_ < count) {
    skip_bits(count_);
    throw Error(ErrorCode::kTruncated, std::string(what_) + ": ends at byte " +
                                           std::to_string(bytes_.size()) +
                                           " in the middle of its bits");
  }
}

int32_t HeaderBitReader::get_long_run(int32_t max, uint64_t flip) {
  int32_t n = 0;
  while (n < max) {
    if (count_ == 0) fill(1);
    const int run = std::min(std::countl_zero(buf_ ^ flip), count_);
    const int32_t room = max - n;
    if (run < room && run < count_) {  // the run ends inside the buffer
      skip_bits(run + 1);
      return n + run;
    }
    if (room <= count_) {  // `room` equal bits reach max
      skip_bits(static_cast<int>(room));
      return max;
    }
    n += count_;  // all the buffer, and more may follow
    skip_bits(count_);
  }
  return n;  // max <= 0: nothing read
}

size_t HeaderBitReader::byte_position() const {
  // The bytes whose bits are all still in the buffer are not read yet.
  size_t pos = fill_pos_;
  for (int rest = count_; pos > base_ && width(pos - 1) <= rest; --pos) rest -= width(pos - 1);
  return pos;
}

size_t HeaderBitReader::align() {
  size_t pos = byte_position();
  if (pos > base_ && bytes_[pos - 1] == 0xFF) {
    // A header never ends on 0xFF: the byte after it belongs to the header (B.10.1).
    if (pos >= bytes_.size()) {
      skip_bits(count_);  // the rest of that last byte, as a header that ended there
      throw Error(ErrorCode::kTruncated, std::string(what_) + ": ends with 0xFF at byte " +
                                             std::to_string(pos - 1) +
                                             " without the stuffed byte that must follow");
    }
    ++pos;
  }
  buf_ = 0;
  count_ = 0;
  fill_pos_ = base_ = pos;
  fill_ff_ = false;
  return pos;
}

}  // namespace gj2k::entropy
