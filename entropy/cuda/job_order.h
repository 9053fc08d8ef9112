// Host-side ordering of a batch of Tier-1 jobs for a kernel that runs one code-block per thread
// with the fixed mapping (thread t takes jobs t, t + threads, ...): shared by the decoding and
// the encoding kernels (t1_dec_cuda.h, t1_enc_cuda.h).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "core/thread_pool.h"
#include "entropy/t1_dec_block.h"

namespace gj2k::entropy::cuda {

// What arrange_jobs ranks a code-block to decode by: a pass scans the block's samples, and
// every code byte holds several MQ decisions, so passes x samples plus 30 per byte (the weight
// chosen by bench_gpu_t1, docs/PERFORMANCE.md "Seventh run").
inline uint64_t decode_job_cost(uint64_t passes, uint64_t samples, uint64_t bytes) {
  return passes * samples + 30 * bytes;
}

// The job indices by cost descending, equal costs in index order: std::stable_sort's order,
// by a least-significant-digit radix sort of ~cost (11-bit digits), which is linear where the
// comparison sort took milliseconds on the tens of thousands of code-blocks of a large tile, on
// the host before any launch. The keys travel with the indices (each pass reads them in order),
// and a digit that every key shares is skipped (as the high digits of small costs, or the fields
// of group_warps' packed keys that all blocks share).
inline std::vector<size_t> order_by_cost(const std::vector<uint64_t>& cost) {
  const size_t n = cost.size();
  std::vector<size_t> order(n);
  for (size_t k = 0; k < n; ++k) order[k] = k;
  if (n < 2) return order;
  std::vector<uint64_t> key(n), next_key(n);
  std::vector<size_t> next(n);
  uint64_t any = 0, every = ~uint64_t{0};
  for (size_t k = 0; k < n; ++k) {
    key[k] = ~cost[k];  // ascending ~cost is descending cost
    any |= key[k];
    every &= key[k];
  }
  const uint64_t varying = any ^ every;  // the bits some keys have and others not
  constexpr int kDigitBits = 11;
  constexpr size_t kBuckets = size_t{1} << kDigitBits;
  std::vector<size_t> start(kBuckets);
  for (int shift = 0; shift < 64 && (varying >> shift) != 0; shift += kDigitBits) {
    if (((varying >> shift) & (kBuckets - 1)) == 0) continue;
    std::fill(start.begin(), start.end(), size_t{0});
    for (size_t i = 0; i < n; ++i) ++start[(key[i] >> shift) & (kBuckets - 1)];
    size_t at = 0;
    for (size_t& s : start) at += std::exchange(s, at);
    for (size_t i = 0; i < n; ++i) {
      const size_t to = start[(key[i] >> shift) & (kBuckets - 1)]++;
      next[to] = order[i];
      next_key[to] = key[i];
    }
    order.swap(next);
    key.swap(next_key);
  }
  return order;
}

// Placement of jobs with costs `cost` for a fixed-mapping launch of `threads` threads (rounded
// down to a multiple of 32, at least 32): by cost descending, and within each round of `threads`
// jobs rank r goes to lane r / warps of warp r % warps, so that every warp starts with one of
// the heaviest blocks; padded to whole rounds. result[i] is the index of the job to put at i,
// or SIZE_MAX for padding.
inline std::vector<size_t> spread_by_cost(const std::vector<uint64_t>& cost, size_t threads);
// The same with the order made already (order_by_cost), placing only order[first, end): the
// jobs before `first` are left out (decoded elsewhere, host_block_count).
inline std::vector<size_t> spread_in_order(const std::vector<size_t>& order, size_t first,
                                           size_t threads) {
  threads = std::max<size_t>(32, threads / 32 * 32);
  const size_t warps = threads / 32;
  const size_t n = order.size() - std::min(first, order.size());
  const size_t rounds = (n + threads - 1) / threads;
  std::vector<size_t> placed(rounds * threads, SIZE_MAX);
  for (size_t r = 0; r < n; ++r) {
    const size_t within = r % threads;
    placed[r - within + (within % warps) * 32 + within / warps] = order[first + r];
  }
  return placed;
}
inline std::vector<size_t> spread_by_cost(const std::vector<uint64_t>& cost, size_t threads) {
  return spread_in_order(order_by_cost(cost), 0, threads);
}

// What group_warps groups a code-block to decode by (the warp mapping, t1_dec_warp.h): its
// context formation (a warp's lanes share one), its size and the passes it decodes (a warp runs
// its largest block's columns and its most passes on every lane), and decode_job_cost.
struct WarpKey {
  bool vc;          // vertically causal contexts
  uint32_t w, h;    // size
  uint32_t passes;  // passes to decode
  uint64_t cost;    // decode_job_cost
};

// The cost of a warp of the jobs lanes[0, n) (SIZE_MAX: padding), as group_warps ranks warps.
inline uint64_t warp_cost_of(const std::vector<WarpKey>& keys, const size_t* lanes, size_t n) {
  uint32_t w = 0, h = 0, passes = 0;
  uint64_t bytes_cost = 0;
  for (size_t l = 0; l < n; ++l) {
    if (lanes[l] == SIZE_MAX) continue;
    const WarpKey& k = keys[lanes[l]];
    w = std::max(w, k.w);
    h = std::max(h, k.h);
    passes = std::max(passes, k.passes);
    const uint64_t scan = uint64_t{k.passes} * k.w * k.h;
    bytes_cost = std::max(bytes_cost, k.cost > scan ? k.cost - scan : 0);
  }
  return uint64_t{passes} * w * h + bytes_cost;
}
// Placement of jobs with keys `keys` for the warp mapping: warps of 32 consecutive places, each
// holding blocks of one context formation, size and pass count (a lockstep warp runs its largest
// block's columns and its most passes on every lane, so a block of more passes than the rest of
// its warp would set the warp's length); within one group the blocks go by cost descending, 32
// at a time, the last warp of each group padded; the warps then go by their cost descending (the
// lanes' largest passes x height x width, plus 30 per byte of the lane with the most: the lanes'
// decisions issue together), so that a kernel taking warps in order starts the longest first.
// result[i] is the index of the job to put at i, or SIZE_MAX for padding.
inline std::vector<size_t> group_warps(const std::vector<WarpKey>& keys) {
  constexpr size_t kLanes = 32;
  // The order as one descending radix sort (order_by_cost) of a packed key: not vertically
  // causal first, then height, width (11 bits each: at most 1024), passes (7 bits: at most 91)
  // and cost (34 bits, saturated).
  std::vector<uint64_t> packed(keys.size());
  for (size_t k = 0; k < keys.size(); ++k) {
    const WarpKey& x = keys[k];
    const uint64_t cost = std::min<uint64_t>(x.cost, (uint64_t{1} << 34) - 1);
    packed[k] = uint64_t{!x.vc} << 63 | uint64_t{std::min(x.h, 2047u)} << 52 |
                uint64_t{std::min(x.w, 2047u)} << 41 | uint64_t{std::min(x.passes, 127u)} << 34 |
                cost;
  }
  const std::vector<size_t> order = order_by_cost(packed);
  // The warps as runs of `order`: 32 consecutive jobs of one formation, size and pass count,
  // the last run of each group shorter.
  struct Run {
    size_t first, count;
  };
  auto same_group = [](const WarpKey& a, const WarpKey& b) {
    return a.vc == b.vc && a.w == b.w && a.h == b.h && a.passes == b.passes;
  };
  std::vector<Run> warps;
  warps.reserve(order.size() / kLanes + 2);
  for (size_t i = 0; i < order.size();) {
    // One group: order[i, end).
    size_t end = i;
    while (end < order.size() && same_group(keys[order[end]], keys[order[i]])) ++end;
    for (size_t first = i; first < end; first += kLanes)
      warps.push_back({first, std::min(kLanes, end - first)});
    i = end;
  }
  std::vector<uint64_t> warp_cost(warps.size());
  for (size_t w = 0; w < warps.size(); ++w)
    warp_cost[w] = warp_cost_of(keys, order.data() + warps[w].first, warps[w].count);
  const std::vector<size_t> by_cost = order_by_cost(warp_cost);
  std::vector<size_t> placed(warps.size() * kLanes, SIZE_MAX);
  for (size_t n = 0; n < by_cost.size(); ++n) {
    const Run& lanes = warps[by_cost[n]];
    std::copy_n(order.begin() + static_cast<std::ptrdiff_t>(lanes.first), lanes.count,
                placed.begin() + static_cast<std::ptrdiff_t>(n * kLanes));
  }
  return placed;
}

// The warp keys of decode jobs (t1_dec_cuda.h's BlockJob, or any type with its fields) whose
// segments are `segs`: the passes each decodes (at most max_passes of its planes), its cost
// (decode_job_cost), its size (zero for a size check_arguments refuses).
template <class Job, class Seg>
std::vector<WarpKey> warp_keys(const std::vector<Job>& jobs, const std::vector<Seg>& segs) {
  std::vector<WarpKey> keys(jobs.size());
  // In runs of jobs on the current pool's threads (core/thread_pool.h).
  core::parallel_blocks(jobs.size(), [&](size_t first, size_t last) {
    for (size_t k = first; k < last; ++k) {
      const Job& j = jobs[k];
      uint64_t passes = 0, bytes = 0;
      for (uint32_t s = 0; s < j.seg_count; ++s) {
        passes += segs[j.seg_first + s].passes;
        bytes += segs[j.seg_first + s].length;
      }
      passes = std::min<uint64_t>(passes, max_passes(j.planes));
      const bool valid = t1::check_arguments(j.planes, j.band, j.w, j.h) == t1::BlockStatus::kOk;
      keys[k] = {(j.style & cblk_style::kVerticalCausal) != 0, valid ? uint32_t{j.w} : 0u,
                 valid ? uint32_t{j.h} : 0u, static_cast<uint32_t>(passes),
                 decode_job_cost(passes, uint64_t{j.w} * j.h, bytes)};
    }
  });
  return keys;
}

// What a batch's costs say about the two decode mappings: the sum of its blocks' costs, the
// costliest block's, and the costliest warp's of group_warps.
struct BatchCosts {
  uint64_t total = 0, top_block = 0, top_warp = 0;
};
inline BatchCosts batch_costs(const std::vector<WarpKey>& keys,
                              const std::vector<size_t>& grouped) {
  BatchCosts c;
  for (const WarpKey& k : keys) {
    c.total += k.cost;
    c.top_block = std::max(c.top_block, k.cost);
  }
  for (size_t n = 0; n + 32 <= grouped.size(); n += 32)
    c.top_warp = std::max(c.top_warp, warp_cost_of(keys, grouped.data() + n, 32));
  return c;
}

// The model the two decode mappings are chosen by, fitted with bench_gpu_t1 on an H100
// (docs/PERFORMANCE.md, "Ninth run"): the warp mapping lasts about as long as its costliest
// warp (all warps run at once), kWarpMs per unit of cost (decode_job_cost); the thread mapping
// as its costliest block, kChainMs per unit (sharing its warp with other lanes), or as its
// total cost spread over the SMs, kIssueMs per unit per SM, whichever is longer.
inline constexpr double kWarpMs = 2.7e-4, kChainMs = 1.26e-4, kIssueMs = 2.04e-6;
// The thread mapping's two bounds in that model, ms.
inline double chain_ms(const BatchCosts& c) {
  return kChainMs * static_cast<double>(c.top_block);
}
inline double issue_ms(const BatchCosts& c, int multiprocessors) {
  return kIssueMs * static_cast<double>(c.total) / std::max(1, multiprocessors);
}

// Whether the thread mapping of a batch with costs `c` is bound by its costliest block's chain
// rather than by its total (the model above).
inline bool chain_bound(const BatchCosts& c, int multiprocessors) {
  return chain_ms(c) > issue_ms(c, multiprocessors);
}

// Whether a batch decodes faster with the warp mapping than with a thread per block, on a GPU
// with `multiprocessors` SMs, by the model above. Lossless images, whose blocks all hold many
// passes, come out on the warp side; lossy ones, with a few costly blocks among many light
// ones, on the thread side.
inline bool prefer_warps(const BatchCosts& c, int multiprocessors) {
  return kWarpMs * static_cast<double>(c.top_warp) <
         std::max(chain_ms(c), issue_ms(c, multiprocessors));
}

// Whether the warp mapping could win for a batch whose costs hold its total and costliest
// block only (top_warp unset): a warp costs at least its costliest block, so where even that
// loses to the thread mapping, grouping the warps (group_warps) to find out is not needed.
inline bool warps_may_win(const BatchCosts& c, int multiprocessors) {
  BatchCosts lowest = c;
  lowest.top_warp = c.top_block;
  return prefer_warps(lowest, multiprocessors);
}

// Threads per job that a thread-per-block launch of a batch with costs `c` asks for
// (decode_threads caps them at what the SMs hold): spread_by_cost then deals the jobs over
// more warps, about 32 / kChainSpread a warp, the other lanes padding, so that fewer of the
// costliest blocks share a warp's issue. Only where the batch is chain-bound: where its total
// bounds it, the padding lanes cost more than they give (measured, docs/PERFORMANCE.md,
// "Fifteenth run": 9/7 31.5 -> 28.5 ms, lossless a thread per block 71.2 -> 73.7 ms).
inline constexpr uint32_t kChainSpread = 4;
inline uint32_t thread_spread(const BatchCosts& c, int multiprocessors) {
  return chain_bound(c, multiprocessors) ? kChainSpread : 1;
}

// The host's share of a thread-per-block launch. A CPU core runs one block's MQ chain some 100
// times faster than a GPU thread, so a launch bound by its costliest chains ends sooner when
// the host's idle cores decode the costliest blocks meanwhile (the lowest resolutions of a
// lossy tile, whose blocks carry every pass). The host's time in the same model: kHostMs per
// unit of cost on one of its threads while all are busy (entropy::decode_block and
// reconstruct_block; fitted on an H200 host's 16 Xeon threads decoding the costliest blocks of
// the 10240 x 6400 mosaic's 9/7 stream beside Tier-2: 3.2e-6 to 5.7e-6; one dev machine core
// alone: 1.47e-6), over its threads, plus kHostFixedMs for the values' upload and placement.
inline constexpr double kHostMs = 3.5e-6, kHostFixedMs = 1.0;
// How many of the costliest jobs (order: order_by_cost of `cost`) the host decodes beside a
// thread-mapping launch: the count K that minimises max(host time of order[0, K) on
// host_threads threads, launch time of the rest: the chain of order[K] (chain_ms) or the rest's
// total over the SMs (issue_ms, the total weighed as `share` of what runs at once, as
// arrange_for_decode does)); 0 where the host cannot shorten the launch. `host_ms_per_unit`
// replaces kHostMs where > 0 (measurements).
inline size_t host_block_count(const std::vector<uint64_t>& cost, const std::vector<size_t>& order,
                               int host_threads, int multiprocessors, double share = 1,
                               double host_ms_per_unit = 0) {
  if (order.empty() || host_threads < 1) return 0;
  const double unit = host_ms_per_unit > 0 ? host_ms_per_unit : kHostMs;
  const double weigh = share > 0 && share < 1 ? 1 / share : 1;
  double total = 0;
  for (const uint64_t c : cost) total += static_cast<double>(c);
  auto launch_ms = [&](size_t k, double rest) {
    if (k == order.size()) return 0.0;
    return std::max(kChainMs * static_cast<double>(cost[order[k]]),
                    kIssueMs * rest * weigh / std::max(1, multiprocessors));
  };
  size_t best = 0;
  double best_ms = launch_ms(0, total), host = 0, rest = total;
  for (size_t k = 1; k <= order.size(); ++k) {
    const double c = static_cast<double>(cost[order[k - 1]]);
    host += c;
    rest -= c;
    const double host_ms = kHostFixedMs + unit * host / host_threads;
    if (host_ms >= best_ms) break;  // the host's time only grows from here
    const double ms = std::max(host_ms, launch_ms(k, rest));
    if (ms < best_ms) best_ms = ms, best = k;
  }
  return best;
}

// Applies a placement from spread_by_cost to `jobs`: padding becomes a default job (Job{},
// which the kernels treat as an empty block).
template <class Job>
void apply_placement(std::vector<Job>& jobs, const std::vector<size_t>& placed) {
  std::vector<Job> out(placed.size());
  core::parallel_blocks(placed.size(), [&](size_t first, size_t last) {
    for (size_t i = first; i < last; ++i) out[i] = placed[i] != SIZE_MAX ? jobs[placed[i]] : Job{};
  });
  jobs.swap(out);
}

}  // namespace gj2k::entropy::cuda
