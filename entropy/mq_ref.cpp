// Spec-literal MQ coder, following the flow charts of 15444-1 Annex C.
#include "entropy/mq_ref.h"

namespace gj2k::entropy {

// ---- encoder --------------------------------------------------------------------------------

MqRefEncoder::MqRefEncoder() {
  reset_contexts();
  initenc();
}

void MqRefEncoder::reset_contexts() {
  for (int cx = 0; cx < kNumContexts; ++cx) set_context(cx, initial_state_index(cx), 0);
}

void MqRefEncoder::set_context(int cx, uint8_t index, uint8_t mps) {
  index_[cx] = index;
  mps_[cx] = mps;
}

// C.2.8 INITENC: A = 0x8000, C = 0, BP = BPST - 1, CT = 12. The byte before the segment is
// never 0xFF here (each segment is coded on its own), so CT stays 12.
void MqRefEncoder::initenc() {
  a_ = 0x8000;
  c_ = 0;
  ct_ = 12;
  b_ = 0;
  b_is_start_ = true;
  out_.clear();
}

// C.2.2 ENCODE: D = 0 -> CODE0, D = 1 -> CODE1; CODE0/CODE1 pick CODEMPS or CODELPS.
void MqRefEncoder::encode(int cx, int d) {
  if (d == mps_[cx]) {
    codemps(cx);
  } else {
    codelps(cx);
  }
}

// C.2.4 CODELPS (Figure C.5).
void MqRefEncoder::codelps(int cx) {
  const uint32_t qe = kMqTable[index_[cx]].qe;
  a_ -= qe;
  if (a_ < qe) {
    c_ += qe;
  } else {
    a_ = qe;
  }
  if (kMqTable[index_[cx]].switch_mps == 1) mps_[cx] = 1 - mps_[cx];
  index_[cx] = kMqTable[index_[cx]].nlps;
  renorme();
}

// C.2.5 CODEMPS (Figure C.6).
void MqRefEncoder::codemps(int cx) {
  const uint32_t qe = kMqTable[index_[cx]].qe;
  a_ -= qe;
  if ((a_ & 0x8000) == 0) {
    if (a_ < qe) {
      a_ = qe;
    } else {
      c_ += qe;
    }
    index_[cx] = kMqTable[index_[cx]].nmps;
    renorme();
  } else {
    c_ += qe;
  }
}

// C.2.6 RENORME (Figure C.7).
void MqRefEncoder::renorme() {
  do {
    a_ <<= 1;
    c_ <<= 1;
    ct_ -= 1;
    if (ct_ == 0) byteout();
  } while ((a_ & 0x8000) == 0);
}

// C.2.7 BYTEOUT (Figure C.8) with bit stuffing after 0xFF. "BP = BP + 1" completes the byte B
// (appending it to the segment, except the byte before BPST), then B takes the new byte.
void MqRefEncoder::byteout() {
  auto advance = [this]() {
    if (!b_is_start_) out_.push_back(b_);
    b_is_start_ = false;
  };
  if (b_ == 0xFF) {
    advance();
    b_ = static_cast<uint8_t>(c_ >> 20);
    c_ &= 0xFFFFF;
    ct_ = 7;
  } else if (c_ < 0x8000000) {
    advance();
    b_ = static_cast<uint8_t>(c_ >> 19);
    c_ &= 0x7FFFF;
    ct_ = 8;
  } else {
    b_ = static_cast<uint8_t>(b_ + 1);
    if (b_ == 0xFF) {
      c_ &= 0x7FFFFFF;
      advance();
      b_ = static_cast<uint8_t>(c_ >> 20);
      c_ &= 0xFFFFF;
      ct_ = 7;
    } else {
      advance();
      b_ = static_cast<uint8_t>(c_ >> 19);
      c_ &= 0x7FFFF;
      ct_ = 8;
    }
  }
}

// C.2.9 SETBITS (Figure C.12).
void MqRefEncoder::setbits() {
  const uint32_t tempc = c_ + a_;
  c_ |= 0xFFFF;
  if (c_ >= tempc) c_ -= 0x8000;
}

// C.2.9 FLUSH (Figure C.11): SETBITS, two BYTEOUTs; a final 0xFF byte is discarded (the decoder
// reads 0xFF past the end anyway).
void MqRefEncoder::flush() {
  setbits();
  c_ <<= ct_;
  byteout();
  c_ <<= ct_;
  byteout();
  if (b_ != 0xFF && !b_is_start_) out_.push_back(b_);
  b_is_start_ = true;
}

// D.4.2 predictable termination: push out the k = 12 - CT bits that fix the code value
// (shifting by CT and emitting whole bytes until k is used up), then complete the byte B
// unless it is 0xFF. The remaining low bits are zero, which a decoder can check.
void MqRefEncoder::flush_predictable() {
  int k = 11 - ct_ + 1;
  while (k > 0) {
    c_ <<= ct_;
    ct_ = 0;
    byteout();
    k -= ct_;
  }
  if (b_ != 0xFF && !b_is_start_) out_.push_back(b_);
  b_is_start_ = true;
}

// ---- decoder --------------------------------------------------------------------------------

MqRefDecoder::MqRefDecoder(const uint8_t* data, size_t length) : data_(data), length_(length) {
  reset_contexts();
  initdec();
}

void MqRefDecoder::reset_contexts() {
  for (int cx = 0; cx < kNumContexts; ++cx) set_context(cx, initial_state_index(cx), 0);
}

void MqRefDecoder::set_context(int cx, uint8_t index, uint8_t mps) {
  index_[cx] = index;
  mps_[cx] = mps;
}

void MqRefDecoder::copy_contexts_from(const MqRefDecoder& other) {
  for (int cx = 0; cx < kNumContexts; ++cx) set_context(cx, other.index_[cx], other.mps_[cx]);
}

// C.3.5 INITDEC (Figure C.20): BP = BPST, C = B << 16, BYTEIN, C <<= 7, CT -= 7, A = 0x8000.
void MqRefDecoder::initdec() {
  bp_ = 0;
  c_ = static_cast<uint32_t>(byte_at(bp_)) << 16;
  bytein();
  c_ <<= 7;
  ct_ -= 7;
  a_ = 0x8000;
}

// C.3.4 BYTEIN (Figure C.19): a 0xFF followed by a byte > 0x8F is a marker (or the end of the
// data): feed 1-bits without advancing. After a plain 0xFF, the next byte carries 7 bits.
void MqRefDecoder::bytein() {
  if (byte_at(bp_) == 0xFF) {
    if (byte_at(bp_ + 1) > 0x8F) {
      c_ += 0xFF00;
      ct_ = 8;
    } else {
      bp_ += 1;
      c_ += static_cast<uint32_t>(byte_at(bp_)) << 9;
      ct_ = 7;
    }
  } else {
    bp_ += 1;
    c_ += static_cast<uint32_t>(byte_at(bp_)) << 8;
    ct_ = 8;
  }
}

// C.3.2 DECODE (Figure C.15); Chigh is the upper 16 bits of C.
int MqRefDecoder::decode(int cx) {
  const uint32_t qe = kMqTable[index_[cx]].qe;
  a_ -= qe;
  int d;
  if ((c_ >> 16) < qe) {
    d = lps_exchange(cx);
    renormd();
  } else {
    c_ -= qe << 16;
    if ((a_ & 0x8000) == 0) {
      d = mps_exchange(cx);
      renormd();
    } else {
      d = mps_[cx];
    }
  }
  return d;
}

// Figure C.16 MPS_EXCHANGE.
int MqRefDecoder::mps_exchange(int cx) {
  const MqTableRow& row = kMqTable[index_[cx]];
  int d;
  if (a_ < row.qe) {
    d = 1 - mps_[cx];
    if (row.switch_mps == 1) mps_[cx] = 1 - mps_[cx];
    index_[cx] = row.nlps;
  } else {
    d = mps_[cx];
    index_[cx] = row.nmps;
  }
  return d;
}

// Figure C.17 LPS_EXCHANGE.
int MqRefDecoder::lps_exchange(int cx) {
  const MqTableRow& row = kMqTable[index_[cx]];
  int d;
  if (a_ < row.qe) {
    a_ = row.qe;
    d = mps_[cx];
    index_[cx] = row.nmps;
  } else {
    a_ = row.qe;
    d = 1 - mps_[cx];
    if (row.switch_mps == 1) mps_[cx] = 1 - mps_[cx];
    index_[cx] = row.nlps;
  }
  return d;
}

// C.3.3 RENORMD (Figure C.18).
void MqRefDecoder::renormd() {
  do {
    if (ct_ == 0) bytein();
    a_ <<= 1;
    c_ <<= 1;
    ct_ -= 1;
  } while ((a_ & 0x8000) == 0);
}

}  // namespace gj2k::entropy
