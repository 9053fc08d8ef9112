// PCRD-opt allocator (entropy/rate_control.h) against brute force on random blocks.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "entropy/rate_control.h"

namespace {

using gj2k::entropy::convex_hull;
using gj2k::entropy::RateAllocator;

struct RandomBlock {
  std::vector<uint32_t> ends;
  std::vector<double> gains;
};

// Passes with non-decreasing ends (some repeated), gains mostly decreasing with noise, some 0.
RandomBlock random_block(std::mt19937& rng) {
  RandomBlock b;
  const int n = std::uniform_int_distribution<int>(0, 40)(rng);
  uint32_t end = 0;
  double scale = std::uniform_real_distribution<double>(10, 1e6)(rng);
  for (int i = 0; i < n; ++i) {
    end += std::uniform_int_distribution<uint32_t>(0, 3)(rng) == 0
               ? 0
               : std::uniform_int_distribution<uint32_t>(1, 200)(rng);
    b.ends.push_back(end);
    const bool zero = std::uniform_int_distribution<int>(0, 9)(rng) == 0;
    b.gains.push_back(zero ? 0.0 : scale * std::uniform_real_distribution<double>(0.05, 1)(rng));
    scale *= std::uniform_real_distribution<double>(0.3, 1.1)(rng);
  }
  return b;
}

// The value the allocator maximises per block: gain - lambda * bytes over all prefixes.
double objective(const RandomBlock& b, uint32_t passes, double lambda) {
  double g = 0;
  for (uint32_t i = 0; i < passes; ++i) g += b.gains[i];
  return g - lambda * (passes ? b.ends[passes - 1] : 0);
}

TEST(EncodeRateControl, HullSlopesDecreaseAndPointsAreOptimal) {
  const uint32_t seed = 12345;
  std::mt19937 rng(seed);
  for (int t = 0; t < 500; ++t) {
    RandomBlock b = random_block(rng);
    auto hull = convex_hull(b.ends.data(), b.gains.data(), b.ends.size());
    for (size_t k = 1; k < hull.size(); ++k) {
      ASSERT_LT(hull[k].slope, hull[k - 1].slope) << "seed " << seed << " block " << t;
      ASSERT_GT(hull[k].passes, hull[k - 1].passes);
      ASSERT_GE(hull[k].bytes, hull[k - 1].bytes);
    }
    for (const auto& p : hull) ASSERT_GT(p.slope, 0);
    RateAllocator ra;
    ra.add_block(b.ends.data(), b.gains.data(), b.ends.size());
    // For any threshold, the chosen point is a best prefix for gain - lambda * bytes.
    for (int q = 0; q < 30; ++q) {
      const double lambda = std::exp(std::uniform_real_distribution<double>(-8, 12)(rng));
      const uint32_t chosen = ra.passes_at(0, lambda);
      double best = 0;
      for (uint32_t p = 0; p <= b.ends.size(); ++p) best = std::max(best, objective(b, p, lambda));
      ASSERT_NEAR(objective(b, chosen, lambda), best, 1e-9 * std::max(1.0, std::abs(best)))
          << "seed " << seed << " block " << t << " lambda " << lambda;
      ASSERT_EQ(ra.bytes_at(0, lambda), chosen ? b.ends[chosen - 1] : 0u);
    }
    ASSERT_EQ(ra.passes_at(0, RateAllocator::kAllPasses), b.ends.size());
    ASSERT_EQ(ra.passes_at(0, RateAllocator::kNothing), 0u);
  }
}

TEST(EncodeRateControl, ThresholdForBytesIsTheLargestFit) {
  const uint32_t seed = 777;
  std::mt19937 rng(seed);
  for (int t = 0; t < 40; ++t) {
    std::vector<RandomBlock> blocks(std::uniform_int_distribution<int>(1, 60)(rng));
    RateAllocator ra;
    std::set<double> slopes;
    for (auto& b : blocks) {
      b = random_block(rng);
      ra.add_block(b.ends.data(), b.gains.data(), b.ends.size());
      for (const auto& p : convex_hull(b.ends.data(), b.gains.data(), b.ends.size()))
        slopes.insert(p.slope);
    }
    const uint64_t all = ra.total_bytes(1e-300);
    const double per_block = std::uniform_real_distribution<double>(0, 5)(rng);
    auto overhead = [&](double lambda) {
      uint32_t included = 0;
      for (size_t i = 0; i < blocks.size(); ++i) included += ra.passes_at(i, lambda) > 0;
      return per_block * included;
    };
    for (int q = 0; q < 20; ++q) {
      const double budget = std::uniform_real_distribution<double>(0, 1.1)(rng) * all;
      const double lambda = ra.threshold_for_bytes(budget, overhead);
      // Brute force over all distinct slopes, from the largest: the last one that fits.
      double expect = RateAllocator::kNothing;
      for (auto it = slopes.rbegin(); it != slopes.rend(); ++it) {
        if (ra.total_bytes(*it) + overhead(*it) <= budget)
          expect = *it;
        else
          break;
      }
      ASSERT_EQ(lambda, expect) << "seed " << seed << " case " << t << " budget " << budget;
      if (lambda != RateAllocator::kNothing) {
        ASSERT_LE(ra.total_bytes(lambda), budget);
      }
    }
  }
}

TEST(EncodeRateControl, ThresholdForGainReachesTarget) {
  const uint32_t seed = 4242;
  std::mt19937 rng(seed);
  for (int t = 0; t < 40; ++t) {
    RateAllocator ra;
    std::set<double> slopes;
    const int n = std::uniform_int_distribution<int>(1, 40)(rng);
    for (int i = 0; i < n; ++i) {
      RandomBlock b = random_block(rng);
      ra.add_block(b.ends.data(), b.gains.data(), b.ends.size());
      for (const auto& p : convex_hull(b.ends.data(), b.gains.data(), b.ends.size()))
        slopes.insert(p.slope);
    }
    const double hull_gain = ra.total_gain(1e-300);
    ASSERT_LE(hull_gain, ra.total_gain_all() * (1 + 1e-12));
    for (int q = 0; q < 20; ++q) {
      const double target = std::uniform_real_distribution<double>(0, 1)(rng) * hull_gain;
      const double lambda = ra.threshold_for_gain(target);
      ASSERT_GE(ra.total_gain(lambda), target * (1 - 1e-12)) << "seed " << seed;
      // The next larger slope (less data) would not reach it.
      auto it = slopes.upper_bound(lambda);
      if (it != slopes.end()) {
        ASSERT_LT(ra.total_gain(*it), target) << "seed " << seed;
      }
    }
  }
}

TEST(EncodeRateControl, FillStaysInBudgetAndExtendsTheThreshold) {
  const uint32_t seed = 9001;
  std::mt19937 rng(seed);
  for (int t = 0; t < 40; ++t) {
    std::vector<RandomBlock> blocks(std::uniform_int_distribution<int>(1, 50)(rng));
    RateAllocator ra;
    for (auto& b : blocks) {
      b = random_block(rng);
      ra.add_block(b.ends.data(), b.gains.data(), b.ends.size());
    }
    const uint64_t all = ra.total_bytes(1e-300);
    for (int q = 0; q < 20; ++q) {
      const double budget = std::uniform_real_distribution<double>(0, 1.05)(rng) * all;
      const double lambda = ra.threshold_for_bytes(budget);
      const std::vector<uint32_t> passes = ra.fill(lambda, budget);
      ASSERT_EQ(passes.size(), blocks.size());
      uint64_t used = 0;
      for (size_t i = 0; i < blocks.size(); ++i) {
        // Never less than the threshold gives, and always a hull point (or nothing).
        ASSERT_GE(passes[i], ra.passes_at(i, lambda)) << "seed " << seed;
        const auto hull =
            convex_hull(blocks[i].ends.data(), blocks[i].gains.data(), blocks[i].ends.size());
        bool on_hull = passes[i] == 0;
        for (const auto& p : hull) on_hull |= p.passes == passes[i];
        ASSERT_TRUE(on_hull) << "seed " << seed << " block " << i;
        used += passes[i] ? blocks[i].ends[passes[i] - 1] : 0;
      }
      ASSERT_LE(double(used), budget) << "seed " << seed;
      ASSERT_GE(used, ra.total_bytes(lambda)) << "seed " << seed;
    }
  }
}

}  // namespace

// prepare() with threads builds the same slope order as the lazy one-thread sort: every query
// answers the same, on enough blocks for the parallel sample sort (2^16 points and more), with
// many equal slopes across blocks (their order is block order).
TEST(EncodeRateControl, ParallelOrderEqualsSerialOrder) {
  const uint32_t seed = 777;
  std::mt19937 rng(seed);
  std::vector<RandomBlock> blocks;
  size_t points = 0;
  while (points < (size_t{1} << 17)) {
    RandomBlock b = random_block(rng);
    if (blocks.size() % 3 == 0 && !blocks.empty()) b = blocks[blocks.size() / 2];  // equal slopes
    points += b.ends.size();
    blocks.push_back(std::move(b));
  }
  RateAllocator serial, parallel;
  for (const RandomBlock& b : blocks) {
    serial.add_block(b.ends.data(), b.gains.data(), b.ends.size());
    parallel.add_block(b.ends.data(), b.gains.data(), b.ends.size());
  }
  int calls = 0;
  parallel.prepare([&calls](int64_t n, const std::function<void(int64_t)>& body) {
    ++calls;
    std::vector<int64_t> order(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) order[static_cast<size_t>(i)] = n - 1 - i;  // any order
    for (int64_t i : order) body(i);
  });
  EXPECT_GT(calls, 0) << "the sample sort did not run";
  // fill()'s documented order, literally: every hull point as a step in block order, then a
  // stable sort by decreasing slope; steps that fit the budget are taken in that order.
  struct Step {
    double slope;
    uint32_t bytes, block, passes;
    double gain;  // over the block's previous hull point
  };
  std::vector<Step> steps;
  for (size_t k = 0; k < blocks.size(); ++k) {
    const RandomBlock& b = blocks[k];
    const size_t n = b.ends.size();
    std::vector<gj2k::entropy::TruncationPoint> hull(n);
    std::vector<double> hull_gain(n);
    hull.resize(convex_hull(b.ends.data(), b.gains.data(), n, hull.data(), hull_gain.data()));
    uint32_t prev = 0;
    double prev_gain = 0;
    for (size_t i = 0; i < hull.size(); ++i) {
      const auto& p = hull[i];
      steps.push_back(
          {p.slope, p.bytes - prev, static_cast<uint32_t>(k), p.passes, hull_gain[i] - prev_gain});
      prev = p.bytes;
      prev_gain = hull_gain[i];
    }
  }
  std::stable_sort(steps.begin(), steps.end(),
                   [](const Step& a, const Step& b) { return a.slope > b.slope; });
  auto reference_fill = [&](double lambda, double budget) {
    std::vector<uint32_t> passes(blocks.size(), 0);
    std::vector<bool> closed(blocks.size(), false);
    double used = 0;
    for (const Step& st : steps) {
      if (closed[st.block]) continue;
      if (st.slope < lambda && used + st.bytes > budget) {
        closed[st.block] = true;
        continue;
      }
      used += st.bytes;
      passes[st.block] = st.passes;
    }
    return passes;
  };
  // threshold_for_gain's documented answer, literally: the slope ending the run of equal slopes
  // where the summed gain first reaches the target.
  auto reference_gain_threshold = [&](double gain) {
    double sum = 0;
    for (size_t i = 0; i < steps.size(); ++i) {
      sum += steps[i].gain;
      if (sum >= gain) {
        size_t k = i + 1;
        while (k < steps.size() && steps[k].slope == steps[i].slope) ++k;
        return steps[k - 1].slope;
      }
    }
    return RateAllocator::kAllPasses;
  };
  const double all = double(serial.total_bytes(RateAllocator::kAllPasses));
  for (double f : {0.0, 0.001, 0.05, 0.3, 0.77, 1.0, 2.0}) {
    SCOPED_TRACE("seed " + std::to_string(seed) + ", budget fraction " + std::to_string(f));
    const double lambda = serial.threshold_for_bytes(all * f);
    ASSERT_EQ(lambda, parallel.threshold_for_bytes(all * f));
    const std::vector<uint32_t> filled = parallel.fill(lambda, all * f * 1.01);
    ASSERT_EQ(filled, serial.fill(lambda, all * f * 1.01));
    ASSERT_EQ(filled, reference_fill(lambda, all * f * 1.01));
    const double gain = serial.total_gain_all() * f / 2;
    ASSERT_EQ(serial.threshold_for_gain(gain), parallel.threshold_for_gain(gain));
    ASSERT_EQ(parallel.threshold_for_gain(gain), reference_gain_threshold(gain));
    // Thresholds that no budget chose: above every slope, below every slope, between slopes.
    for (const double other : {RateAllocator::kNothing, RateAllocator::kAllPasses, lambda * 3,
                               lambda / 7, steps[steps.size() / 3].slope}) {
      ASSERT_EQ(parallel.fill(other, all * f), reference_fill(other, all * f)) << other;
      ASSERT_EQ(serial.fill(other, all * f), reference_fill(other, all * f)) << other;
    }
  }
}

namespace {

// add_blocks (one call, hulls made on several threads) builds the allocator add_block builds
// one block at a time: the same passes, bytes and thresholds at every query, the same total
// gain to the bit.
TEST(EncodeRateControl, AddBlocksAtOnceEqualsOneByOne) {
  const uint32_t seed = 4242;
  std::mt19937 rng(seed);
  std::vector<RandomBlock> blocks(40000);  // many pieces of 2^10 blocks
  for (auto& b : blocks) b = random_block(rng);
  RateAllocator one, all;
  // Blocks already held before the bulk call keep their indices.
  for (size_t i = 0; i < 5; ++i) {
    one.add_block(blocks[i].ends.data(), blocks[i].gains.data(), blocks[i].ends.size());
    all.add_block(blocks[i].ends.data(), blocks[i].gains.data(), blocks[i].ends.size());
  }
  for (size_t i = 5; i < blocks.size(); ++i)
    ASSERT_EQ(one.add_block(blocks[i].ends.data(), blocks[i].gains.data(), blocks[i].ends.size()),
              i);
  std::vector<uint32_t> passes;
  for (size_t i = 5; i < blocks.size(); ++i)
    passes.push_back(static_cast<uint32_t>(blocks[i].ends.size()));
  // A scheduler that runs the pieces in reverse order, as threads might.
  const gj2k::entropy::ParallelFor reverse = [](int64_t n,
                                                const std::function<void(int64_t)>& body) {
    for (int64_t i = n - 1; i >= 0; --i) body(i);
  };
  const size_t first = all.add_blocks(
      passes.size(), passes.data(),
      [&](size_t k, uint32_t* ends, double* gains) {
        const RandomBlock& b = blocks[5 + k];
        std::copy(b.ends.begin(), b.ends.end(), ends);
        std::copy(b.gains.begin(), b.gains.end(), gains);
      },
      reverse);
  ASSERT_EQ(first, 5u);
  ASSERT_EQ(all.num_blocks(), one.num_blocks());
  EXPECT_EQ(all.total_gain_all(), one.total_gain_all());
  for (int q = 0; q < 12; ++q) {
    const double lambda = std::exp(std::uniform_real_distribution<double>(-8, 12)(rng));
    for (size_t b = 0; b < blocks.size(); ++b) {
      ASSERT_EQ(all.passes_at(b, lambda), one.passes_at(b, lambda)) << "block " << b;
      ASSERT_EQ(all.bytes_at(b, lambda), one.bytes_at(b, lambda)) << "block " << b;
    }
    EXPECT_EQ(all.total_gain(lambda), one.total_gain(lambda));
    const double budget =
        std::uniform_real_distribution<double>(0, 1.0)(rng) * double(one.total_bytes(1e-300));
    EXPECT_EQ(all.threshold_for_bytes(budget), one.threshold_for_bytes(budget));
    EXPECT_EQ(all.fill(lambda, budget), one.fill(lambda, budget));
  }
  ASSERT_EQ(all.passes_at(0, RateAllocator::kAllPasses), blocks[0].ends.size());
  // Without the gain sum (byte targets): the same hulls, the sum NaN.
  RateAllocator unsummed;
  unsummed.add_blocks(
      passes.size(), passes.data(),
      [&](size_t k, uint32_t* ends, double* gains) {
        const RandomBlock& b = blocks[5 + k];
        std::copy(b.ends.begin(), b.ends.end(), ends);
        std::copy(b.gains.begin(), b.gains.end(), gains);
      },
      reverse, false);
  EXPECT_TRUE(std::isnan(unsummed.total_gain_all()));
  for (const double lambda : {1e-3, 1.0, 1e3}) {
    for (size_t k = 0; k < passes.size(); ++k)
      ASSERT_EQ(unsummed.bytes_at(k, lambda), all.bytes_at(5 + k, lambda)) << "block " << k;
  }
}

}  // namespace
