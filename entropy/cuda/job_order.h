// Host-side ordering of a batch of Tier-1 jobs for a kernel that runs one code-block per thread
// with the fixed mapping (thread t takes jobs t, t + threads, ...): shared by the decoding and
// the encoding kernels (t1_dec_cuda.h, t1_enc_cuda.h).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace gj2k::entropy::cuda {

// What arrange_jobs ranks a code-block to decode by: a pass scans the block's samples, and
// every code byte holds several MQ decisions, so passes x samples plus 30 per byte (the weight
// chosen by bench_gpu_t1, docs/PERFORMANCE.md "Seventh run").
inline uint64_t decode_job_cost(uint64_t passes, uint64_t samples, uint64_t bytes) {
  return passes * samples + 30 * bytes;
}

// The job indices by cost descending, equal costs in index order: std::stable_sort's order,
// by a least-significant-digit radix sort of max - cost (11-bit digits, as many passes as the
// largest cost needs), which is linear where the comparison sort took milliseconds on the
// tens of thousands of code-blocks of a large tile, on the host before any launch.
inline std::vector<size_t> order_by_cost(const std::vector<uint64_t>& cost) {
  const size_t n = cost.size();
  std::vector<size_t> order(n), next(n);
  for (size_t k = 0; k < n; ++k) order[k] = k;
  if (n < 2) return order;
  const uint64_t top = *std::max_element(cost.begin(), cost.end());
  constexpr int kDigitBits = 11;
  constexpr size_t kBuckets = size_t{1} << kDigitBits;
  std::vector<size_t> start(kBuckets);
  for (int shift = 0; shift < 64 && (top >> shift) != 0; shift += kDigitBits) {
    auto digit = [&](size_t k) { return ((top - cost[k]) >> shift) & (kBuckets - 1); };
    std::fill(start.begin(), start.end(), size_t{0});
    for (size_t k = 0; k < n; ++k) ++start[digit(k)];
    size_t at = 0;
    for (size_t& s : start) at += std::exchange(s, at);
    for (size_t i = 0; i < n; ++i) next[start[digit(order[i])]++] = order[i];
    order.swap(next);
  }
  return order;
}

// Placement of jobs with costs `cost` for a fixed-mapping launch of `threads` threads (rounded
// down to a multiple of 32, at least 32): by cost descending, and within each round of `threads`
// jobs rank r goes to lane r / warps of warp r % warps, so that every warp starts with one of
// the heaviest blocks; padded to whole rounds. result[i] is the index of the job to put at i,
// or SIZE_MAX for padding.
inline std::vector<size_t> spread_by_cost(const std::vector<uint64_t>& cost, size_t threads) {
  const std::vector<size_t> order = order_by_cost(cost);
  threads = std::max<size_t>(32, threads / 32 * 32);
  const size_t warps = threads / 32;
  const size_t rounds = (order.size() + threads - 1) / threads;
  std::vector<size_t> placed(rounds * threads, SIZE_MAX);
  for (size_t r = 0; r < order.size(); ++r) {
    const size_t within = r % threads;
    placed[r - within + (within % warps) * 32 + within / warps] = order[r];
  }
  return placed;
}

// Applies a placement from spread_by_cost to `jobs`: padding becomes a default job (Job{},
// which the kernels treat as an empty block).
template <class Job>
void apply_placement(std::vector<Job>& jobs, const std::vector<size_t>& placed) {
  std::vector<Job> out(placed.size(), Job{});
  for (size_t i = 0; i < placed.size(); ++i)
    if (placed[i] != SIZE_MAX) out[i] = jobs[placed[i]];
  jobs.swap(out);
}

}  // namespace gj2k::entropy::cuda
