// Test data shared by the MQ decoder tests (mq_test.cpp, mq_qe_test.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace gj2k::entropy::test {

// n or n + 1 bytes of junk for an MQ decoder: random bytes, runs of 0xFF, bytes above 0x8F (a
// marker after 0xFF) and 0xFF followed by 0x80..0x8F (a carry into the 0xFF, which only corrupt
// data has, C.3.4).
inline std::vector<uint8_t> mq_junk(std::mt19937& rng, size_t n) {
  std::vector<uint8_t> junk;
  while (junk.size() < n) {
    const uint32_t kind = rng() % 6;
    if (kind < 2) {
      junk.push_back(0xFF);
      junk.push_back(static_cast<uint8_t>(0x80 + rng() % 16));
    } else {
      junk.push_back(static_cast<uint8_t>(kind == 2   ? 0xFF
                                          : kind == 3 ? 0x90 + rng() % 0x6F
                                                      : rng()));
    }
  }
  return junk;
}

}  // namespace gj2k::entropy::test
