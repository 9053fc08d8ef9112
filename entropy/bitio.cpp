// Packet header bit I/O with bit stuffing (15444-1 B.10.1).
#include "entropy/bitio.h"

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
