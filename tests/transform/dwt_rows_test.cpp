// cpu::inverse53_rows / inverse97_rows (dwt_cpu.h): the finest level in bands of rows, after
// the coarser levels, gives bit for bit the rows of the spec-literal whole inverse (dwt_ref.h),
// on random coefficients, odd and even origins, sizes from 1 to a few hundred, 1 to 6 levels,
// and bands of every height (one row, the edges, the whole tile-component), taken in any order.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <vector>

#include "core/isa.h"
#include "gj2k/error.h"
#include "transform/dwt_cpu.h"
#include "transform/dwt_ref.h"
#include "xform_test_util.h"

namespace gj2k::transform {
namespace {

template <class T, class Ref, class Coarse, class Rows>
void check(const char* name, Ref ref, Coarse coarse, Rows rows_of, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<T> scratch;
  for (int trial = 0; trial < 300; ++trial) {
    const uint32_t x0 = rng() % 9, y0 = rng() % 9;
    const uint32_t w = trial % 10 == 0 ? 1 + rng() % 6 : 1 + rng() % 300;
    const uint32_t h = trial % 10 == 1 ? 1 + rng() % 6 : 1 + rng() % 200;
    const Rect tc{x0, y0, x0 + w, y0 + h};
    const int levels = 1 + static_cast<int>(rng() % 6);
    const size_t stride = w + rng() % 5;
    const std::vector<T> base = xtest::random_coefficients<T>(stride, h, rng);
    std::vector<T> want = base, have = base;
    ref(Plane<T>{want.data(), stride}, tc, levels);
    coarse(Plane<T>{have.data(), stride}, subband_rect(tc, 1, Band::kLL), levels - 1);
    const std::vector<T> coarse_done = have;
    // Bands of random heights, visited in a random order.
    const size_t most = trial % 4 == 0 ? 1 : 1 + rng() % (h + 2);
    std::vector<std::pair<size_t, size_t>> bands;
    for (size_t at = 0; at < h;) {
      const size_t n = std::min<size_t>(h - at, 1 + rng() % most);
      bands.emplace_back(at, at + n);
      at += n;
    }
    std::shuffle(bands.begin(), bands.end(), rng);
    std::vector<T*> rows(h);
    for (const auto& [a, b] : bands) {
      rows_of(Plane<T>{have.data(), stride}, tc, a, b, scratch, rows.data());
      for (size_t i = a; i < b; ++i)
        ASSERT_EQ(0, std::memcmp(rows[i - a], &want[i * stride], w * sizeof(T)))
            << name << " seed " << seed << " trial " << trial << " tc " << x0 << "," << y0 << " "
            << w << "x" << h << " levels " << levels << " band " << a << ".." << b << " row " << i;
    }
    ASSERT_EQ(0, std::memcmp(have.data(), coarse_done.data(), have.size() * sizeof(T)))
        << name << " trial " << trial << ": the plane was written";
  }
}

// Each instruction-set build of the kernels the host runs (core/isa.h).
template <class F>
void for_each_isa(F f) {
  const core::Isa saved = core::host_isa();
  for (core::Isa isa : {core::Isa::kBase, core::Isa::kV3}) {
    if (!core::set_host_isa(isa)) continue;
    SCOPED_TRACE(isa == core::Isa::kBase ? "baseline build" : "x86-64-v3 build");
    f();
  }
  core::set_host_isa(saved);
}

TEST(XformDwtRows, Inverse53RowsMatchReference) {
  for_each_isa([] {
    check<int32_t>("5/3", ref::inverse53, cpu::inverse53, cpu::inverse53_rows,
                   xtest::base_seed() + 47);
  });
}

TEST(XformDwtRows, Inverse97RowsMatchReference) {
  for_each_isa([] {
    check<float>("9/7", ref::inverse97, cpu::inverse97, cpu::inverse97_rows,
                 xtest::base_seed() + 53);
  });
}

TEST(XformDwtRows, ZeroWidthGivesNullRows) {
  std::vector<int32_t> plane(8), scratch;
  std::vector<int32_t*> rows(3, plane.data());
  cpu::inverse53_rows({plane.data(), 1}, Rect{4, 0, 4, 8}, 2, 5, scratch, rows.data());
  for (int32_t* r : rows) EXPECT_EQ(r, nullptr);
}

TEST(XformDwtRows, RowsOutsideTheAreaAreRefused) {
  std::vector<int32_t> plane(16 * 8), scratch;
  std::vector<int32_t*> rows(8);
  const Rect tc{0, 0, 16, 8};
  EXPECT_THROW(cpu::inverse53_rows({plane.data(), 16}, tc, 4, 9, scratch, rows.data()), Error);
  EXPECT_THROW(cpu::inverse53_rows({plane.data(), 16}, tc, 3, 3, scratch, rows.data()), Error);
}

}  // namespace
}  // namespace gj2k::transform
