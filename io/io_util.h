// Internal helpers shared by the io/ readers and writers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

#include "gj2k/error.h"

namespace gj2k::io::detail {

// Throws Error(code, "<name>: <what>").
[[noreturn]] inline void fail(ErrorCode code, const std::string& name, const std::string& what) {
  throw Error(code, name + ": " + what);
}

// "at byte N".
inline std::string at_byte(size_t offset) {
  return "at byte " + std::to_string(offset);
}

// Precision in bits of the largest value `maxval` (>= 1): bits needed to write it.
inline uint32_t bits_for(uint32_t maxval) {
  uint32_t bits = 0;
  while (bits < 32 && (uint64_t{1} << bits) <= maxval) ++bits;
  return bits;
}

// a * b, saturated at UINT64_MAX (sizes computed from untrusted headers never wrap).
inline uint64_t mul_sat(uint64_t a, uint64_t b) {
  if (a != 0 && b > UINT64_MAX / a) return UINT64_MAX;
  return a * b;
}
inline uint64_t mul_sat(uint64_t a, uint64_t b, uint64_t c) {
  return mul_sat(mul_sat(a, b), c);
}
inline uint64_t mul_sat(uint64_t a, uint64_t b, uint64_t c, uint64_t d) {
  return mul_sat(mul_sat(a, b, c), d);
}

// A FILE* closed when it goes.
struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

// Sign-extends the low `bits` bits of v.
inline int32_t sign_extend(uint32_t v, uint32_t bits) {
  const uint32_t m = uint32_t{1} << (bits - 1);
  v &= (bits == 32) ? ~0u : ((uint32_t{1} << bits) - 1);
  return static_cast<int32_t>((v ^ m)) - static_cast<int32_t>(m);
}

}  // namespace gj2k::io::detail
