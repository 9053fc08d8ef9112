// Spec-literal MQ arithmetic coder (15444-1 Annex C), kept as plain as the flow charts so that
// the fast coder (mq_enc.h, mq_dec.h) can be checked against it byte for byte. Not for speed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "entropy/mq_tables.h"

namespace gj2k::entropy {

// Encoder (C.2). Contexts CX = 0..kNumContexts-1 hold I(CX) and MPS(CX).
class MqRefEncoder {
 public:
  MqRefEncoder();
  // INITENC (C.2.8, Figure C.10); contexts are set by set_context / reset_contexts.
  void initenc();
  // Table D.7 initial states for all contexts.
  void reset_contexts();
  void set_context(int cx, uint8_t index, uint8_t mps);
  // ENCODE (C.2.2, Figure C.3): codes decision d (0 or 1) in context cx.
  void encode(int cx, int d);
  // FLUSH (C.2.9, Figure C.11): default termination.
  void flush();
  // Predictable termination (D.4.2): as few bits as fix the code value, padded so that a
  // decoder can check them.
  void flush_predictable();
  // The codeword segment written since initenc (complete after a flush).
  const std::vector<uint8_t>& bytes() const { return out_; }

 private:
  void codemps(int cx);  // C.2.5, Figure C.6
  void codelps(int cx);  // C.2.4, Figure C.5
  void renorme();        // C.2.6, Figure C.7
  void byteout();        // C.2.7, Figure C.8
  void setbits();        // C.2.9, Figure C.12

  uint32_t a_ = 0, c_ = 0;
  int ct_ = 0;
  uint8_t b_ = 0;           // the byte at BP (not yet in out_ while it may still take a carry)
  bool b_is_start_ = true;  // BP = BPST - 1: B is the byte before the segment, never written
  uint8_t index_[kNumContexts] = {};
  uint8_t mps_[kNumContexts] = {};
  std::vector<uint8_t> out_;
};

// Decoder (C.3). Reads 0xFF past the end of the segment (C.3.4).
class MqRefDecoder {
 public:
  MqRefDecoder(const uint8_t* data, size_t length);
  void reset_contexts();
  void set_context(int cx, uint8_t index, uint8_t mps);
  // Takes over another decoder's context states (contexts persist across codeword segments).
  void copy_contexts_from(const MqRefDecoder& other);
  // DECODE (C.3.2, Figure C.15).
  int decode(int cx);

 private:
  void initdec();            // C.3.5, Figure C.20
  int mps_exchange(int cx);  // Figure C.16
  int lps_exchange(int cx);  // Figure C.17
  void renormd();            // C.3.3, Figure C.18
  void bytein();             // C.3.4, Figure C.19
  uint8_t byte_at(size_t i) const { return i < length_ ? data_[i] : 0xFF; }

  const uint8_t* data_;
  size_t length_;
  size_t bp_ = 0;
  uint32_t a_ = 0, c_ = 0;
  int ct_ = 0;
  uint8_t index_[kNumContexts] = {};
  uint8_t mps_[kNumContexts] = {};
};

}  // namespace gj2k::entropy
