// Host-side ordering of a batch of Tier-1 jobs for a kernel that runs one code-block per thread
// with the fixed mapping (thread t takes jobs t, t + threads, ...): shared by the decoding and
// the encoding kernels (t1_dec_cuda.h, t1_enc_cuda.h).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace gj2k::entropy::cuda {

// Placement of jobs with costs `cost` for a fixed-mapping launch of `threads` threads (rounded
// down to a multiple of 32, at least 32): by cost descending, and within each round of `threads`
// jobs rank r goes to lane r / warps of warp r % warps, so that every warp starts with one of
// the heaviest blocks; padded to whole rounds. result[i] is the index of the job to put at i,
// or SIZE_MAX for padding.
inline std::vector<size_t> spread_by_cost(const std::vector<uint64_t>& cost, size_t threads) {
  std::vector<size_t> order(cost.size());
  for (size_t k = 0; k < order.size(); ++k) order[k] = k;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return cost[a] > cost[b]; });
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
