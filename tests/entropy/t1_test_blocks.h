// Random code-block coefficients and trace strings shared by the Tier-1 tests.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
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

// A damaged code-block as the decoder tests feed it to two decoders: a random block of at most
// max_side samples per side and max_planes bit-planes (its coefficients from make(rng, n, nbp)),
// encoded, corrupted in every third trial, then its segments through a random last pass, some
// cut short (random_segments; they point into enc.data). Empty when it had nothing to code.
struct DamagedBlock {
  uint8_t style = 0;
  Band band = Band::kLL;
  uint32_t w = 0, h = 0;
  uint32_t nb = 0;    // coded bit-planes
  uint32_t last = 0;  // the last pass the segments hold
  EncodedBlock enc;
  std::vector<Segment> segs;
};
template <class Make>
std::optional<DamagedBlock> damaged_block(std::mt19937& rng, int trial, uint32_t max_side,
                                          uint32_t max_planes, const Make& make) {
  DamagedBlock d;
  d.style = static_cast<uint8_t>(rng() % 64);
  d.band = static_cast<Band>(rng() % 4);
  d.w = 1 + rng() % max_side;
  d.h = 1 + rng() % max_side;
  const uint32_t nbp = 1 + rng() % max_planes;
  const std::vector<int32_t> q = make(rng, size_t{d.w} * d.h, nbp);
  d.enc = encode_block(q.data(), d.w, d.w, d.h, d.band, d.style, nbp);
  if (d.enc.passes.empty()) return std::nullopt;
  if (trial % 3 == 0) corrupt(rng, d.enc.data);
  d.segs = random_segments(rng, d.enc, d.last);
  d.nb = nbp - d.enc.missing_msbs;
  return d;  // moving enc.data keeps the segments' pointers valid
}

}  // namespace gj2k::entropy::test
