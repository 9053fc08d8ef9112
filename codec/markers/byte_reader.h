// A bounds-checked big-endian reader over a window [begin, end) of a byte buffer. Offsets are
// absolute positions in the whole buffer (the codestream or file), so errors can name them.
// Every read past `end` throws Error(kTruncated) naming the context ("COD at offset 123 in
// tile 4") and the offset; fail() throws with the same prefix.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>

#include "gj2k/error.h"

namespace gj2k::codec {

class ByteReader {
 public:
  ByteReader(std::span<const uint8_t> data, size_t begin, size_t end, std::string context)
      : data_(data),
        pos_(begin),
        end_(end < data.size() ? end : data.size()),
        context_(std::move(context)) {
    if (pos_ > end_) pos_ = end_;
  }
  explicit ByteReader(std::span<const uint8_t> data, std::string context = "data")
      : ByteReader(data, 0, data.size(), std::move(context)) {}

  size_t pos() const { return pos_; }
  size_t end() const { return end_; }
  size_t remaining() const { return end_ - pos_; }
  bool at_end() const { return pos_ >= end_; }
  const std::string& context() const { return context_; }
  std::span<const uint8_t> data() const { return data_; }

  uint8_t u8() {
    need(1, "1 byte");
    return data_[pos_++];
  }
  uint16_t u16() {
    need(2, "2 bytes");
    const uint16_t v = static_cast<uint16_t>((data_[pos_] << 8) | data_[pos_ + 1]);
    pos_ += 2;
    return v;
  }
  uint32_t u32() {
    need(4, "4 bytes");
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v = (v << 8) | data_[pos_ + i];
    pos_ += 4;
    return v;
  }
  uint64_t u64() {
    need(8, "8 bytes");
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v = (v << 8) | data_[pos_ + i];
    pos_ += 8;
    return v;
  }
  // n bytes as a view into the buffer.
  std::span<const uint8_t> bytes(size_t n) {
    need(n, std::to_string(n) + " bytes");
    auto s = data_.subspan(pos_, n);
    pos_ += n;
    return s;
  }
  void skip(size_t n) {
    need(n, std::to_string(n) + " bytes");
    pos_ += n;
  }
  // The big-endian 16-bit value at pos() without consuming it.
  uint16_t peek_u16() const {
    if (remaining() < 2) fail(ErrorCode::kTruncated, "data ends before a marker");
    return static_cast<uint16_t>((data_[pos_] << 8) | data_[pos_ + 1]);
  }

  [[noreturn]] void fail(ErrorCode code, const std::string& what) const {
    throw Error(code, context_ + ": " + what + " (byte offset " + std::to_string(pos_) + ")");
  }

 private:
  void need(size_t n, const std::string& what) const {
    if (remaining() < n)
      fail(ErrorCode::kTruncated,
           "needs " + what + " but only " + std::to_string(remaining()) + " remain");
  }

  std::span<const uint8_t> data_;
  size_t pos_;
  size_t end_;
  std::string context_;
};

}  // namespace gj2k::codec
