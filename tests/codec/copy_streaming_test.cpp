// core::copy_streaming (core/memory.h) against std::memcpy: every source and destination
// alignment modulo 16, lengths around the 16- and 64-byte steps of its loops, and the bytes
// around the destination left as they were.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "core/memory.h"

namespace gj2k::core {
namespace {

TEST(CopyStreaming, EqualsMemcpyAtEveryAlignmentAndLength) {
  std::mt19937 rng(3);
  std::vector<uint8_t> src(4096 + 64);
  for (uint8_t& b : src) b = static_cast<uint8_t>(rng());
  for (size_t n : {size_t{0}, size_t{1}, size_t{15}, size_t{16}, size_t{17}, size_t{63}, size_t{64},
                   size_t{65}, size_t{127}, size_t{200}, size_t{4096}}) {
    for (size_t so = 0; so < 16; ++so) {
      for (size_t d_off = 0; d_off < 16; ++d_off) {
        std::vector<uint8_t> got(n + 64, 0xA5), want(n + 64, 0xA5);
        copy_streaming(got.data() + 16 + d_off, src.data() + so, n);
        std::memcpy(want.data() + 16 + d_off, src.data() + so, n);
        ASSERT_EQ(got, want) << "n " << n << " source offset " << so << " destination offset "
                             << d_off;
      }
    }
  }
}

}  // namespace
}  // namespace gj2k::core
