// The host-side order of the GPU Tier-1 kernels' jobs (entropy/cuda/job_order.h), which CI can
// test without a GPU: order_by_cost against std::stable_sort (the reference it replaced), and
// spread_by_cost's placement against its definition, on random costs with many ties, costs
// wider than one radix digit and than 32 bits, and sizes around the warp and round sizes;
// group_warps' warps (one context formation, size and pass count each, lanes by cost, the
// costliest warps first).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <tuple>
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
  // The extremes together: 0 and the largest cost, where ~cost spans every digit.
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

TEST(JobOrder, GroupWarpsKeepsGroupsApartAndRunsTheCostliestWarpsFirst) {
  std::mt19937_64 rng(11);
  for (const size_t n : {size_t{1}, size_t{31}, size_t{33}, size_t{700}, size_t{3000}}) {
    std::vector<WarpKey> keys(n);
    for (WarpKey& k : keys) {
      k.vc = rng() % 5 == 0;
      k.w = rng() % 3 ? 64 : uint32_t(1 + rng() % 64);
      k.h = rng() % 3 ? 64 : uint32_t(1 + rng() % 64);
      k.passes = uint32_t(rng() % 40);
      k.cost = uint64_t{k.passes} * k.w * k.h + 30 * (rng() % 5000);
    }
    const std::vector<size_t> placed = group_warps(keys);
    ASSERT_EQ(placed.size() % 32, 0u);
    // Every job exactly once; padding only at the end of a warp.
    std::vector<int> seen(n);
    std::vector<uint64_t> warp_cost;
    for (size_t w = 0; w < placed.size(); w += 32) {
      bool padded = false;
      uint32_t mw = 0, mh = 0, mp = 0;
      uint64_t bytes = 0;
      for (size_t l = w; l < w + 32; ++l) {
        if (placed[l] == SIZE_MAX) {
          padded = true;
          continue;
        }
        ASSERT_FALSE(padded) << "a job after padding in warp " << w / 32;
        ASSERT_LT(placed[l], n);
        ++seen[placed[l]];
        const WarpKey& k = keys[placed[l]];
        const WarpKey& first = keys[placed[w]];
        ASSERT_EQ(k.vc, first.vc) << "warp " << w / 32 << " mixes formations";
        ASSERT_TRUE(k.w == first.w && k.h == first.h && k.passes == first.passes)
            << "warp " << w / 32 << " mixes sizes or pass counts";
        if (l > w) {
          const WarpKey& p = keys[placed[l - 1]];
          const auto key = [](const WarpKey& x) { return std::tuple(x.h, x.w, x.passes, x.cost); };
          ASSERT_GE(key(p), key(k)) << "lanes out of order in warp " << w / 32;
        }
        mw = std::max(mw, k.w), mh = std::max(mh, k.h), mp = std::max(mp, k.passes);
        bytes = std::max(bytes, k.cost - uint64_t{k.passes} * k.w * k.h);
      }
      ASSERT_NE(placed[w], SIZE_MAX) << "an empty warp";
      warp_cost.push_back(uint64_t{mp} * mw * mh + bytes);
    }
    for (size_t k = 0; k < n; ++k) ASSERT_EQ(seen[k], 1) << "job " << k;
    for (size_t k = 1; k < warp_cost.size(); ++k)
      ASSERT_GE(warp_cost[k - 1], warp_cost[k]) << "warp " << k << " of " << n << " jobs";
    // At most one padded warp per group (formation, size, passes), and no more warps than
    // whole ones need.
    size_t padded = 0;
    for (size_t w = 0; w < placed.size(); w += 32) padded += placed[w + 31] == SIZE_MAX;
    std::map<std::tuple<bool, uint32_t, uint32_t, uint32_t>, size_t> groups;
    for (const WarpKey& k : keys) ++groups[std::tuple(k.vc, k.w, k.h, k.passes)];
    size_t whole = 0;
    for (const auto& [key, count] : groups) whole += (count + 31) / 32;
    EXPECT_EQ(placed.size() / 32, whole);
    EXPECT_LE(padded, groups.size());
    // batch_costs: the sums and maxima by their definitions.
    const BatchCosts c = batch_costs(keys, placed);
    uint64_t total = 0, top = 0;
    for (const WarpKey& k : keys) total += k.cost, top = std::max(top, k.cost);
    EXPECT_EQ(c.total, total);
    EXPECT_EQ(c.top_block, top);
    EXPECT_EQ(c.top_warp, warp_cost.empty() ? 0 : warp_cost.front());
  }
}

// The mapping choice on the two batches it was fitted on (bench_gpu_t1's 10240x6400 photo
// mosaic, 132 SMs) and at its edges.
TEST(JobOrder, PreferWarpsFollowsItsModel) {
  // Lossless: total 4.551e9, costliest block 1.962e5, costliest grouped warp 2.085e5 (measured
  // 57.7 ms in warps against 70.5 ms in threads).
  EXPECT_TRUE(prefer_warps({4'551'000'000, 196'200, 208'500}, 132));
  // 9/7 rate 20: 1.156e9, 2.507e5, 2.507e5 (64.4 ms against 31.7 ms).
  EXPECT_FALSE(prefer_warps({1'156'000'000, 250'700, 250'700}, 132));
  // Fewer SMs: the same lossless batch takes longer in threads still.
  EXPECT_TRUE(prefer_warps({4'551'000'000, 196'200, 208'500}, 16));
  // A single block: threads.
  EXPECT_FALSE(prefer_warps({1000, 1000, 1000}, 132));
  EXPECT_FALSE(prefer_warps({}, 132));
}

// The thread mapping spreads a batch over more threads only where its costliest block's chain
// bounds it (the same model, the same two batches; measured on an H100: the 9/7 batch 31.5 ->
// 28.5 ms spread, the lossless one 71.2 -> 73.7 ms).
TEST(JobOrder, ThreadSpreadOnlyWhereTheChainBounds) {
  // 9/7: chain 1.26e-4 x 2.507e5 = 31.6 ms against 2.04e-6 x 1.156e9 / 132 = 17.9 ms.
  EXPECT_TRUE(chain_bound({1'156'000'000, 250'700, 250'700}, 132));
  EXPECT_EQ(thread_spread({1'156'000'000, 250'700, 250'700}, 132), kChainSpread);
  // Lossless: 24.7 ms against 70.3 ms.
  EXPECT_FALSE(chain_bound({4'551'000'000, 196'200, 208'500}, 132));
  EXPECT_EQ(thread_spread({4'551'000'000, 196'200, 208'500}, 132), 1u);
  // The 9/7 batch on 16 SMs: its total bounds it (148 ms).
  EXPECT_EQ(thread_spread({1'156'000'000, 250'700, 250'700}, 16), 1u);
  // A single block: its own chain.
  EXPECT_EQ(thread_spread({1000, 1000, 1000}, 132), kChainSpread);
  // Nothing to decode: nothing to spread.
  EXPECT_EQ(thread_spread({}, 132), 1u);
}

// The grouping is skipped only where no warp could win: where a warp as costly as the costliest
// block alone already loses.
TEST(JobOrder, WarpsMayWinBoundsPreferWarps) {
  // 9/7: 2.7e-4 x 2.507e5 = 67.7 ms in warps at best, against 31.6 ms in threads.
  EXPECT_FALSE(warps_may_win({1'156'000'000, 250'700, 0}, 132));
  // Lossless: 53.0 ms at best against 70.3 ms.
  EXPECT_TRUE(warps_may_win({4'551'000'000, 196'200, 0}, 132));
  // Whenever prefer_warps takes warps with some costliest warp (never below the costliest
  // block), the bound does too: over batches around both edges.
  for (uint64_t total : {1'000'000'000ull, 4'551'000'000ull, 20'000'000'000ull}) {
    for (uint64_t block : {50'000ull, 196'200ull, 250'700ull, 600'000ull}) {
      for (uint64_t warp = block; warp < 4 * block; warp += block / 4) {
        if (prefer_warps({total, block, warp}, 132)) {
          EXPECT_TRUE(warps_may_win({total, block, 0}, 132)) << total << " " << block;
        }
      }
    }
  }
}

// spread_in_order leaves the first jobs of the order out and places the rest as spread_by_cost
// places a batch of only them.
TEST(JobOrder, SpreadInOrderPlacesTheRestAsABatchOfThem) {
  std::mt19937_64 rng(3);
  for (const size_t n : {size_t{1}, size_t{70}, size_t{3000}})
    for (const size_t first : {size_t{0}, size_t{1}, size_t{33}, n}) {
      if (first > n) continue;
      const std::vector<uint64_t> cost = random_costs(rng, n, 900);
      const std::vector<size_t> order = order_by_cost(cost);
      const std::vector<size_t> placed = spread_in_order(order, first, 128);
      // The batch of the rest alone: its costs in order, indices mapped back.
      std::vector<uint64_t> rest_cost;
      for (size_t r = first; r < n; ++r) rest_cost.push_back(cost[order[r]]);
      std::vector<size_t> want = spread_by_cost(rest_cost, 128);
      for (size_t& i : want)
        if (i != SIZE_MAX) i = order[first + i];
      EXPECT_EQ(placed, want) << "n " << n << " first " << first;
    }
}

// host_block_count is the count that minimises its model's time (ties: the smallest), by
// exhaustive search on random batches, and 0 where the host cannot help.
TEST(JobOrder, HostBlockCountMinimisesItsModel) {
  auto model_ms = [](const std::vector<uint64_t>& cost, const std::vector<size_t>& order, size_t k,
                     int threads, int sms, double share) {
    double host = 0, rest = 0;
    for (size_t r = 0; r < order.size(); ++r) (r < k ? host : rest) += double(cost[order[r]]);
    const double host_ms = k == 0 ? 0 : kHostFixedMs + kHostMs * host / threads;
    const double launch = k == order.size() ? 0
                                            : std::max(kChainMs * double(cost[order[k]]),
                                                       kIssueMs * rest / share / sms);
    return std::max(host_ms, launch);
  };
  std::mt19937_64 rng(29);
  for (int trial = 0; trial < 60; ++trial) {
    const size_t n = 1 + rng() % 400;
    std::vector<uint64_t> cost = random_costs(rng, n, 300'000);
    for (size_t i = 0; i < n / 10; ++i) cost[rng() % n] = 200'000 + rng() % 60'000;  // a tail
    const std::vector<size_t> order = order_by_cost(cost);
    const int threads = 1 + int(rng() % 16);
    const int sms = trial % 3 == 0 ? 8 : 132;
    const double share = trial % 2 ? 1.0 : 0.4;
    size_t best = 0;
    for (size_t k = 1; k <= n; ++k)
      if (model_ms(cost, order, k, threads, sms, share) <
          model_ms(cost, order, best, threads, sms, share))
        best = k;
    EXPECT_EQ(host_block_count(cost, order, threads, sms, share), best) << "trial " << trial;
  }
  // The mosaic's 9/7 first part (costs of its top ranks, bench_tier2's stream): a chain of
  // 31.6 ms; 8 host threads take hundreds of blocks and both end near 13 ms.
  std::vector<uint64_t> part(10808);
  for (size_t r = 0; r < part.size(); ++r)
    part[r] = r < 512 ? 250'664 - r * 258 : r < 2048 ? 117'932 - (r - 512) * 22 : 40'000;
  const std::vector<size_t> order = order_by_cost(part);
  const size_t k = host_block_count(part, order, 8, 132, 0.42);
  EXPECT_GT(k, 200u);
  EXPECT_LT(k, 2048u);
  // Light blocks only (chains below the fixed cost), no host thread, or nothing: none.
  EXPECT_EQ(host_block_count(std::vector<uint64_t>(5000, 4000),
                             order_by_cost(std::vector<uint64_t>(5000, 4000)), 8, 132),
            0u);
  EXPECT_EQ(host_block_count(part, order, 0, 132), 0u);
  EXPECT_EQ(host_block_count({}, {}, 8, 132), 0u);
}

}  // namespace
}  // namespace gj2k::entropy::cuda
