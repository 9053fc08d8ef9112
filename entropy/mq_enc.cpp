// Fast MQ encoder terminations and truncation-length resolution (15444-1 C.2.9, D.4.2).
#include "entropy/mq_enc.h"

#include <algorithm>

namespace gj2k::entropy {

void MqEncoder::flush(bool predictable) {
  if (predictable) {
    // D.4.2: emit the 12 - CT bits that fix the code value; the low bits stay zero.
    int k = 11 - ct_ + 1;
    while (k > 0) {
      c_ <<= ct_;
      ct_ = 0;
      byteout();
      k -= ct_;
    }
  } else {
    // C.2.9 SETBITS, then two BYTEOUTs.
    const uint32_t tempc = c_ + a_;
    c_ |= 0xFFFF;
    if (c_ >= tempc) c_ -= 0x8000;
    c_ <<= ct_;
    byteout();
    c_ <<= ct_;
    byteout();
  }
  // The last byte B is kept unless it is 0xFF (the decoder supplies 0xFF past the end).
  if (b_ != 0xFF && started_) out_->push_back(b_);
  started_ = false;
}

size_t MqEncoder::resolve(const MqMark& m, const uint8_t* data, size_t seg_start, size_t seg_end) {
  // Bytes after B hold 8 pending bits each, 7 after a 0xFF.
  int64_t j = m.b_pos + 1;
  int need = m.pending_bits;
  while (need > 0) {
    const int64_t prev = j - 1;
    const bool ff = prev >= static_cast<int64_t>(seg_start) &&
                    prev < static_cast<int64_t>(seg_end) && data[prev] == 0xFF;
    need -= ff ? 7 : 8;
    ++j;
  }
  j = std::max<int64_t>(j, static_cast<int64_t>(seg_start));
  return std::min(static_cast<size_t>(j), seg_end);
}

void RawEncoder::flush(bool predictable) {
  const int full = last_ff_ ? 7 : 8;
  if (ct_ < full) {
    uint32_t bit = 0;
    while (ct_ > 0) {
      c_ |= bit << --ct_;
      bit ^= 1;
    }
    out_->push_back(static_cast<uint8_t>(c_));
  } else if (last_ff_ && predictable) {
    out_->push_back(0x2A);
  } else if (last_ff_) {
    out_->pop_back();
  }
  init();
}

}  // namespace gj2k::entropy
