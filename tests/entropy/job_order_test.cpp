// The host-side order of the GPU Tier-1 kernels' jobs (entropy/cuda/job_order.h), which CI can
// test without a GPU: order_by_cost against std::stable_sort (the reference it replaced), and
// spread_by_cost's placement against its definition, on random costs with many ties, costs
// wider than one radix digit and than 32 bits, and sizes around the warp and round sizes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "entropy/cuda/job_order.h"

namespace gj2k::entropy::cuda {
namespace {

std::vector<size_t> reference_order(const std::vector<uint64_t>& cost) {
  std::vector<size_t> order(cost.size());
  for (size_t k = 0; k < order.size(); ++k) order[k] = k;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return cost[a] > cost[b]; });
  return order;
}

std::vector<uint64_t> random_costs(std::mt19937_64& rng, size_t n, uint64_t range) {
  std::vector<uint64_t> cost(n);
  for (uint64_t& c : cost) c = range == 0 ? 0 : rng() % range;
  return cost;
}

TEST(JobOrder, OrderByCostIsTheStableSortOrder) {
  std::mt19937_64 rng(20261125);
  const uint64_t ranges[] = {0, 1, 3, 2047, 2048, 90 * 4096, uint64_t{1} << 33, UINT64_MAX};
  const size_t sizes[] = {0, 1, 2, 31, 33, 1000, 48210};
  for (const uint64_t range : ranges)
    for (const size_t n : sizes) {
      const std::vector<uint64_t> cost = random_costs(rng, n, range);
      EXPECT_EQ(order_by_cost(cost), reference_order(cost)) << "n " << n << " range " << range;
    }
  // The extremes together: 0 and the largest cost, where max - cost spans every digit.
  const std::vector<uint64_t> extremes = {0, UINT64_MAX, 5, UINT64_MAX, 0, 1u << 11, 5};
  EXPECT_EQ(order_by_cost(extremes), reference_order(extremes));
}

TEST(JobOrder, SpreadByCostPlacesEachRankByItsDefinition) {
  std::mt19937_64 rng(7);
  for (const size_t n : {size_t{1}, size_t{40}, size_t{257}, size_t{5000}})
    for (const size_t threads : {size_t{10}, size_t{32}, size_t{100}, size_t{1024}}) {
      const std::vector<uint64_t> cost = random_costs(rng, n, 500);
      const std::vector<size_t> placed = spread_by_cost(cost, threads);
      // Rank r of the cost order goes, within its round of t threads, to lane r / warps of warp
      // r % warps (t rounded down to whole warps, at least one); the rest is padding.
      const size_t t = std::max<size_t>(32, threads / 32 * 32), warps = t / 32;
      const std::vector<size_t> order = reference_order(cost);
      ASSERT_EQ(placed.size(), (n + t - 1) / t * t);
      std::vector<size_t> want(placed.size(), SIZE_MAX);
      for (size_t r = 0; r < n; ++r) {
        const size_t within = r % t;
        want[r - within + (within % warps) * 32 + within / warps] = order[r];
      }
      EXPECT_EQ(placed, want) << "n " << n << " threads " << threads;
    }
}

}  // namespace
}  // namespace gj2k::entropy::cuda
