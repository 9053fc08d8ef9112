// core::SmallVector (core/small_vector.h): values in order across the move from its inline room
// to the heap, copies independent of the original, clear() back to inline.
#include <gtest/gtest.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "core/small_vector.h"

namespace gj2k::core {
namespace {

struct Pair {
  uint64_t a;
  uint32_t b;
};

template <class V>
std::vector<uint64_t> firsts(const V& v) {
  std::vector<uint64_t> out;
  for (const Pair& p : v) out.push_back(p.a);
  return out;
}

TEST(SmallVector, KeepsOrderAcrossTheMoveToTheHeap) {
  SmallVector<Pair, 2> v;
  EXPECT_TRUE(v.empty());
  std::vector<uint64_t> want;
  for (uint64_t i = 0; i < 40; ++i) {
    v.push_back({i * 7, static_cast<uint32_t>(i)});
    want.push_back(i * 7);
    ASSERT_EQ(v.size(), i + 1);
    ASSERT_EQ(v.back().b, i);
    ASSERT_EQ(firsts(v), want);
  }
  v[3].a = 99;
  EXPECT_EQ(v[3].a, 99u);
}

TEST(SmallVector, CopiesAreIndependentAndClearReturnsInline) {
  for (size_t n : {1u, 2u, 5u}) {
    SmallVector<Pair, 2> v;
    for (uint64_t i = 0; i < n; ++i) v.push_back({i, 0});
    SmallVector<Pair, 2> c = v;
    c.push_back({100, 0});
    c[0].a = 50;
    EXPECT_EQ(v.size(), n);
    EXPECT_EQ(v[0].a, 0u);
    EXPECT_EQ(c.size(), n + 1);
    EXPECT_EQ(c.back().a, 100u);
    SmallVector<Pair, 2> m = std::move(c);
    EXPECT_EQ(m.size(), n + 1);
    EXPECT_EQ(m[0].a, 50u);
    EXPECT_TRUE(c.empty());  // NOLINT(bugprone-use-after-move): moved-from is empty
    m.clear();
    EXPECT_TRUE(m.empty());
    m.push_back({8, 1});
    EXPECT_EQ(firsts(m), std::vector<uint64_t>{8});
  }
  const SmallVector<Pair, 1> init{{1, 0}, {2, 0}, {3, 0}};
  EXPECT_EQ(firsts(init), (std::vector<uint64_t>{1, 2, 3}));
}

// assign(n, v) as std::vector's, from inline to heap sizes and back, on a reused vector (as
// the rate control's rounds reuse a block's layer passes).
TEST(SmallVector, AssignLikeStdVector) {
  SmallVector<uint32_t, 2> v;
  for (size_t n : {1u, 0u, 2u, 5u, 1u, 3u, 2u, 0u, 7u}) {
    const uint32_t value = static_cast<uint32_t>(10 + n);
    v.assign(n, value);
    const std::vector<uint32_t> want(n, value);
    ASSERT_EQ(v.size(), n);
    EXPECT_EQ(std::vector<uint32_t>(v.begin(), v.end()), want);
    v.push_back(1);
    EXPECT_EQ(v.size(), n + 1);
    EXPECT_EQ(v.back(), 1u);
    if (n) {
      EXPECT_EQ(v[0], value);
    }
  }
}

}  // namespace
}  // namespace gj2k::core
