// transform/narrow.h: narrow_row (streaming stores on x86-64) against narrow_row_ref, for every
// destination width, on random rows of odd lengths at every destination alignment, with values
// in range (the bytes must be equal) and with one value out of range at the head, in the body
// or in the tail (the answer must be false).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "transform/narrow.h"

namespace gj2k::transform {
namespace {

template <class T>
void check_type(int64_t lo, int64_t hi) {
  std::mt19937_64 rng(sizeof(T) * 7 + (lo < 0));
  std::uniform_int_distribution<int64_t> in(lo, hi);
  for (size_t n : {size_t{0}, size_t{1}, size_t{3}, size_t{15}, size_t{16}, size_t{17}, size_t{31},
                   size_t{64}, size_t{100}, size_t{1027}}) {
    for (size_t offset = 0; offset < 16 / sizeof(T) + 1; ++offset) {
      std::vector<int32_t> src(n);
      for (int32_t& v : src) v = static_cast<int32_t>(in(rng));
      // The destinations at `offset` elements past the (16-byte aligned) allocation.
      std::vector<T> got(n + 64 / sizeof(T) + offset), want(got.size());
      T* g = got.data() + offset;
      T* w = want.data() + offset;
      ASSERT_TRUE(narrow_row_ref(src.data(), n, w, lo, hi));
      ASSERT_TRUE(narrow_row(src.data(), n, g, lo, hi)) << "n " << n << " offset " << offset;
      ASSERT_EQ(std::memcmp(g, w, n * sizeof(T)), 0) << "n " << n << " offset " << offset;
      // One value out of range, at every place the loops split the row.
      for (size_t at : {size_t{0}, n / 2, n - 1}) {
        if (n == 0) break;
        std::vector<int32_t> bad = src;
        for (const int64_t out : {lo - 1, hi + 1}) {
          if (out < std::numeric_limits<int32_t>::min() ||
              out > std::numeric_limits<int32_t>::max())
            continue;
          bad[at] = static_cast<int32_t>(out);
          EXPECT_FALSE(narrow_row(bad.data(), n, g, lo, hi))
              << "n " << n << " offset " << offset << " at " << at << " value " << out;
          EXPECT_FALSE(narrow_row_ref(bad.data(), n, w, lo, hi));
        }
      }
    }
  }
}

TEST(Narrow, EveryWidthEqualsTheReferenceAndFindsValuesOutOfRange) {
  check_type<uint8_t>(0, 255);
  check_type<uint8_t>(0, 31);  // a 5-bit component uploaded at 8 bits
  check_type<int8_t>(-128, 127);
  check_type<uint16_t>(0, 65535);
  check_type<uint16_t>(0, 4095);
  check_type<int16_t>(-32768, 32767);
  check_type<int32_t>(-(int64_t{1} << 30), (int64_t{1} << 30) - 1);
  check_type<int32_t>(std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max());
}

// A range wider than int32 (a 32-bit unsigned component) excludes only what int32 cannot hold.
TEST(Narrow, BoundsBeyondInt32) {
  std::vector<int32_t> src = {
      0, 1, std::numeric_limits<int32_t>::max(), 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18};
  std::vector<int32_t> dst(src.size());
  EXPECT_TRUE(narrow_row(src.data(), src.size(), dst.data(), 0, (int64_t{1} << 32) - 1));
  EXPECT_EQ(dst, src);
  src[9] = -1;
  EXPECT_FALSE(narrow_row(src.data(), src.size(), dst.data(), 0, (int64_t{1} << 32) - 1));
}

}  // namespace
}  // namespace gj2k::transform
