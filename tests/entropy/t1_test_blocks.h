// Random code-block coefficients and trace strings shared by the Tier-1 tests.
#pragma once

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "entropy/t1.h"

namespace gj2k::entropy::test {

// n quantized coefficients of at most nbp magnitude bits (0..32), signs random; `dense` makes
// most of them use the top bit-planes, otherwise magnitudes fall off geometrically.
inline std::vector<int32_t> make_block(std::mt19937& rng, size_t n, uint32_t nbp, bool dense) {
  std::vector<int32_t> q(n);
  std::geometric_distribution<int> shift(dense ? 0.9 : 0.3);
  const uint32_t limit = nbp >= 32 ? 0xFFFFFFFFu : (uint32_t{1} << nbp) - 1;
  for (auto& v : q) {
    const uint32_t m = static_cast<uint32_t>(rng()) & (limit >> std::min<int>(shift(rng), nbp));
    v = (rng() & 1) ? -static_cast<int32_t>(m) : static_cast<int32_t>(m);
  }
  return q;
}

inline std::string describe(uint32_t seed, uint32_t w, uint32_t h, int band, int style,
                            uint32_t nbp) {
  return "seed " + std::to_string(seed) + " " + std::to_string(w) + "x" + std::to_string(h) +
         " band " + std::to_string(band) + " style " + std::to_string(style) + " nbp " +
         std::to_string(nbp);
}

// Codeword segments of enc's passes [0, last] for a random `last` (set), as Tier-2 would
// deliver them, a quarter of them cut short at a random length: truncated data.
inline std::vector<Segment> random_segments(std::mt19937& rng, const EncodedBlock& enc,
                                            uint32_t& last) {
  last = static_cast<uint32_t>(rng() % enc.passes.size());
  std::vector<Segment> segs;
  uint32_t start = 0, first = 0;
  for (uint32_t i = 0; i <= last; ++i) {
    if (enc.passes[i].terminated || i == last) {
      uint32_t len = enc.passes[i].end - start;
      if (rng() % 4 == 0) len = static_cast<uint32_t>(rng() % (len + 1));
      segs.push_back({enc.data.data() + start, len, i - first + 1});
      start = enc.passes[i].end;
      first = i + 1;
    }
  }
  return segs;
}

// Replaces about one byte in 16 of `data` with a random one.
inline void corrupt(std::mt19937& rng, std::vector<uint8_t>& data) {
  for (auto& b : data)
    if (rng() % 16 == 0) b = static_cast<uint8_t>(rng());
}

}  // namespace gj2k::entropy::test
