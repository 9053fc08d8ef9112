// PCRD-opt: convex hulls and global slope thresholds (see rate_control.h).
#include "entropy/rate_control.h"

#include <algorithm>
#include <utility>

#include "gj2k/error.h"
#include "gj2k/image.h"

namespace gj2k::entropy {

size_t convex_hull(const uint32_t* ends, const double* gains, size_t n, TruncationPoint* hull,
                   double* hull_gain) {
  // Cumulative (bytes, gain) after each pass; the hull starts at (0, 0) with no passes.
  size_t k = 0;  // hull points so far
  double gain = 0;
  for (size_t i = 0; i < n; ++i) {
    gain += gains[i] > 0 ? gains[i] : 0;
    const uint32_t bytes = ends[i];
    // Pop points that lie on or below the chord from their predecessor to this pass.
    for (;;) {
      const uint32_t prev_bytes = k == 0 ? 0 : hull[k - 1].bytes;
      const double prev_gain = k == 0 ? 0 : hull_gain[k - 1];
      if (gain <= prev_gain) break;  // no improvement over the last hull point: skip pass i
      if (bytes <= prev_bytes) {
        // Free distortion decrease: this pass replaces the previous point (same or fewer bytes,
        // more gain), or, with no previous point, starts the hull at zero bytes; a zero-byte
        // first point gets a huge finite slope.
        if (k > 0) {
          --k;
          continue;
        }
      }
      const double slope = bytes > prev_bytes ? (gain - prev_gain) / double(bytes - prev_bytes)
                                              : std::numeric_limits<double>::max();
      if (k > 0 && slope >= hull[k - 1].slope) {
        --k;
        continue;
      }
      hull[k] = {static_cast<uint32_t>(i + 1), bytes, slope};
      hull_gain[k] = gain;
      ++k;
      break;
    }
  }
  return k;
}

std::vector<TruncationPoint> convex_hull(const uint32_t* ends, const double* gains, size_t n) {
  std::vector<TruncationPoint> hull(n);
  std::vector<double> hull_gain(n);
  hull.resize(convex_hull(ends, gains, n, hull.data(), hull_gain.data()));
  return hull;
}

size_t RateAllocator::add_block(const uint32_t* ends, const double* gains, size_t n) {
  const uint32_t passes = static_cast<uint32_t>(n);
  return add_blocks(1, &passes, [&](size_t, uint32_t* e, double* g) {
    std::copy_n(ends, n, e);
    std::copy_n(gains, n, g);
  });
}

namespace {
// Calls fn(first, last) over [0, n) in pieces of `piece` through `run` (or at once without
// one). Hull points go 2^14 a piece; blocks, each with tens of passes, 2^10, so that the
// 50,000 blocks of a large image make enough pieces for every core (2^14 made 3).
constexpr size_t kPointPiece = size_t{1} << 14, kBlockPiece = size_t{1} << 10;
template <class Fn>
void in_pieces(size_t n, const ParallelFor& run, const Fn& fn, size_t piece) {
  if (!run || n <= piece) {
    fn(size_t{0}, n);
    return;
  }
  run(static_cast<int64_t>((n + piece - 1) / piece), [&](int64_t k) {
    const size_t first = static_cast<size_t>(k) * piece;
    fn(first, std::min(n, first + piece));
  });
}
}  // namespace

size_t RateAllocator::add_blocks(size_t count, const uint32_t* passes, const BlockPasses& fill,
                                 const ParallelFor& run, bool sum_gains) {
  const size_t first_block = blocks_.size();
  // A block's passes and hull in scratch of the calling thread, reused from block to block:
  // the hulls are made twice (once for their sizes, once into their places) instead of kept in
  // arrays of every block's passes and hull, fresh memory whose first touch by many threads at
  // once waits on the kernel.
  struct Scratch {
    std::vector<uint32_t> ends;
    std::vector<double> gains, hull_gain;
    std::vector<TruncationPoint> hull;
    // Block k's n passes, as `fill` gives them.
    void passes_of(const BlockPasses& fill, size_t k, size_t n) {
      if (ends.size() < n) {
        ends.resize(n);
        gains.resize(n);
        hull_gain.resize(n);
        hull.resize(n);
      }
      fill(k, ends.data(), gains.data());
    }
    // Block k's n passes and their hull; returns its points.
    size_t hull_of(const BlockPasses& fill, size_t k, size_t n) {
      passes_of(fill, k, n);
      return convex_hull(ends.data(), gains.data(), n, hull.data(), hull_gain.data());
    }
  };
  thread_local Scratch scratch;
  std::vector<uint32_t> hull_size(count);
  in_pieces(
      count, run,
      [&](size_t first, size_t last) {
        for (size_t k = first; k < last; ++k)
          hull_size[k] = static_cast<uint32_t>(scratch.hull_of(fill, k, passes[k]));
      },
      kBlockPiece);
  // The blocks in order, their points packed after those already held.
  std::vector<size_t> point_at(count + 1, points_.size());
  for (size_t k = 0; k < count; ++k) point_at[k + 1] = point_at[k] + hull_size[k];
  points_.resize(point_at[count]);
  point_gain_.resize(point_at[count]);
  blocks_.resize(first_block + count);
  in_pieces(
      count, run,
      [&](size_t first, size_t last) {
        Scratch& t = scratch;
        for (size_t k = first; k < last; ++k) {
          // Into the scratch (a hull may hold more points on its way than at its end), then
          // its points into their place.
          t.hull_of(fill, k, passes[k]);
          std::copy_n(t.hull.data(), hull_size[k], points_.data() + point_at[k]);
          std::copy_n(t.hull_gain.data(), hull_size[k], point_gain_.data() + point_at[k]);
          Block& b = blocks_[first_block + k];
          b.first = static_cast<uint32_t>(point_at[k]);
          b.count = hull_size[k];
          b.all_passes = passes[k];
          b.all_bytes = passes[k] ? t.ends[passes[k] - 1] : 0;
        }
      },
      kBlockPiece);
  // In pass order (floating-point sums depend on their order), as blocks added one by one do.
  if (sum_gains) {
    Scratch& t = scratch;
    for (size_t k = 0; k < count; ++k) {
      t.passes_of(fill, k, passes[k]);
      for (size_t i = 0; i < passes[k]; ++i) gain_all_ += t.gains[i] > 0 ? t.gains[i] : 0;
    }
  } else {
    gain_all_ = std::numeric_limits<double>::quiet_NaN();
  }
  sorted_ = false;
  return first_block;
}

namespace {
// Index one past the last hull point with slope >= lambda (slopes strictly decrease).
uint32_t hull_count(const TruncationPoint* p, uint32_t count, double lambda) {
  uint32_t lo = 0, hi = count;
  while (lo < hi) {
    const uint32_t mid = (lo + hi) / 2;
    if (p[mid].slope >= lambda)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}
}  // namespace

uint32_t RateAllocator::passes_at(size_t b, double lambda) const {
  const Block& blk = blocks_.at(b);
  if (lambda <= 0) return blk.all_passes;
  const uint32_t k = hull_count(points_.data() + blk.first, blk.count, lambda);
  return k ? points_[blk.first + k - 1].passes : 0;
}

uint32_t RateAllocator::bytes_at(size_t b, double lambda) const {
  const Block& blk = blocks_.at(b);
  if (lambda <= 0) return blk.all_bytes;
  const uint32_t k = hull_count(points_.data() + blk.first, blk.count, lambda);
  return k ? points_[blk.first + k - 1].bytes : 0;
}

uint64_t RateAllocator::total_bytes(double lambda) const {
  uint64_t sum = 0;
  for (size_t b = 0; b < blocks_.size(); ++b) sum += bytes_at(b, lambda);
  return sum;
}

double RateAllocator::total_gain(double lambda) const {
  if (lambda <= 0) return gain_all_;
  double sum = 0;
  for (const Block& blk : blocks_) {
    const uint32_t k = hull_count(points_.data() + blk.first, blk.count, lambda);
    if (k) sum += point_gain_[blk.first + k - 1];
  }
  return sum;
}

namespace {

// A hull point's place in the global order: decreasing slope, then increasing point index
// (points_ holds the blocks in order, each block's points in order). A total order, so any
// correct sort gives the one result.
struct SlopeKey {
  double slope;
  uint32_t point;
  uint32_t block;  // the point's block (not part of the order)
};
struct Before {
  bool operator()(const SlopeKey& a, const SlopeKey& b) const {
    return a.slope > b.slope || (a.slope == b.slope && a.point < b.point);
  }
};
constexpr Before before;
// Filled before they are read: not zeroed first.
using Keys = std::vector<SlopeKey, DefaultInitAllocator<SlopeKey>>;

// Sorts keys by `before`. With a scheduler and many keys, a sample sort: kBuckets - 1
// splitters from a regular sample, every key's bucket found in parallel over kChunks chunks,
// the keys scattered bucket by bucket (counts and offsets per chunk), then the buckets sorted
// in parallel. Bucket and chunk counts are constants, so the work does not depend on the
// thread count (and the result never does: the order is total).
void sort_keys(Keys& keys, const ParallelFor& run) {
  constexpr size_t kBuckets = 64, kChunks = 64, kOversample = 32;
  const size_t n = keys.size();
  if (!run || n < (size_t{1} << 16)) {
    std::sort(keys.begin(), keys.end(), before);
    return;
  }
  std::vector<SlopeKey> sample(kBuckets * kOversample);
  for (size_t i = 0; i < sample.size(); ++i) sample[i] = keys[i * (n / sample.size())];
  std::sort(sample.begin(), sample.end(), before);
  std::vector<SlopeKey> splitters(kBuckets - 1);
  for (size_t b = 0; b + 1 < kBuckets; ++b) splitters[b] = sample[(b + 1) * kOversample - 1];
  std::vector<uint8_t> bucket(n);
  std::vector<size_t> count(kChunks * kBuckets, 0);  // [chunk][bucket], then offsets
  auto chunk_range = [n](size_t c) { return std::pair(c * n / kChunks, (c + 1) * n / kChunks); };
  run(kChunks, [&](int64_t c) {
    const auto [lo, hi] = chunk_range(static_cast<size_t>(c));
    size_t* cnt = count.data() + static_cast<size_t>(c) * kBuckets;
    for (size_t i = lo; i < hi; ++i) {
      const size_t b = static_cast<size_t>(
          std::upper_bound(splitters.begin(), splitters.end(), keys[i], before) -
          splitters.begin());
      bucket[i] = static_cast<uint8_t>(b);
      ++cnt[b];
    }
  });
  std::vector<size_t> bucket_start(kBuckets + 1, 0);
  size_t at = 0;
  for (size_t b = 0; b < kBuckets; ++b) {
    bucket_start[b] = at;
    for (size_t c = 0; c < kChunks; ++c) {
      const size_t k = count[c * kBuckets + b];
      count[c * kBuckets + b] = at;
      at += k;
    }
  }
  bucket_start[kBuckets] = at;
  Keys out(n);
  run(kChunks, [&](int64_t c) {
    const auto [lo, hi] = chunk_range(static_cast<size_t>(c));
    size_t* next = count.data() + static_cast<size_t>(c) * kBuckets;
    for (size_t i = lo; i < hi; ++i) out[next[bucket[i]]++] = keys[i];
  });
  run(kBuckets, [&](int64_t b) {
    std::sort(out.begin() + static_cast<ptrdiff_t>(bucket_start[static_cast<size_t>(b)]),
              out.begin() + static_cast<ptrdiff_t>(bucket_start[static_cast<size_t>(b) + 1]),
              before);
  });
  keys.swap(out);
}

}  // namespace

void RateAllocator::prepare(const ParallelFor& run) const {
  sort_steps(run);
}

void RateAllocator::sort_steps(const ParallelFor& run) const {
  if (sorted_) return;
  const size_t n = points_.size();
  Keys keys(n);
  in_pieces(
      blocks_.size(), run,
      [&](size_t first, size_t last) {
        for (size_t b = first; b < last; ++b)
          for (uint32_t k = 0; k < blocks_[b].count; ++k) {
            const uint32_t i = blocks_[b].first + k;
            keys[i] = {points_[i].slope, i, static_cast<uint32_t>(b)};
          }
      },
      kBlockPiece);
  sort_keys(keys, run);
  // Each step: its point's increments over the block's previous hull point (or over zero).
  steps_.resize(n);
  in_pieces(
      n, run,
      [&](size_t first, size_t last) {
        for (size_t s = first; s < last; ++s) {
          const SlopeKey& key = keys[s];
          const uint32_t i = key.point;
          const bool head = i == blocks_[key.block].first;
          const uint32_t prev_bytes = head ? 0 : points_[i - 1].bytes;
          const double prev_gain = head ? 0 : point_gain_[i - 1];
          steps_[s] = {key.slope, points_[i].bytes - prev_bytes, point_gain_[i] - prev_gain,
                       key.block, i};
        }
      },
      kPointPiece);
  // Including a step means including every step of the same slope: the candidate thresholds
  // are the ends of equal-slope runs.
  group_ends_.clear();
  group_bytes_.clear();
  uint64_t bytes = 0;
  for (size_t i = 0; i < n; ++i) {
    bytes += steps_[i].delta_bytes;
    if (i + 1 == n || steps_[i + 1].slope != steps_[i].slope) {
      group_ends_.push_back(i + 1);
      group_bytes_.push_back(bytes);
    }
  }
  sorted_ = true;
}

double RateAllocator::threshold_for_bytes(
    double budget, const std::function<double(double lambda)>& overhead) const {
  sort_steps();
  // Cost (bytes + overhead) grows with the group end; bisect over the groups.
  auto fits = [&](size_t g) {
    const double lambda = steps_[group_ends_[g] - 1].slope;
    const double extra = overhead ? overhead(lambda) : 0.0;
    return double(group_bytes_[g]) + extra <= budget;
  };
  // Largest g with fits(g); fits is monotone (true then false).
  size_t lo = 0, hi = group_ends_.size();  // answer count of fitting groups in [lo, hi]
  while (lo < hi) {
    const size_t mid = lo + (hi - lo + 1) / 2;  // try mid groups
    if (fits(mid - 1))
      lo = mid;
    else
      hi = mid - 1;
  }
  if (lo == 0) return kNothing;
  return steps_[group_ends_[lo - 1] - 1].slope;
}

std::vector<uint32_t> RateAllocator::fill(double lambda, double budget) const {
  sort_steps();
  std::vector<uint32_t> passes(blocks_.size(), 0);
  std::vector<uint8_t> closed(blocks_.size(), 0);
  double used = 0;
  for (const Step& st : steps_) {
    if (closed[st.block]) continue;
    if (st.slope < lambda && used + st.delta_bytes > budget) {
      closed[st.block] = 1;
      continue;
    }
    used += st.delta_bytes;
    passes[st.block] = points_[st.point].passes;
  }
  return passes;
}

double RateAllocator::threshold_for_gain(double gain) const {
  sort_steps();
  double sum = 0;
  for (size_t i = 0; i < steps_.size(); ++i) {
    sum += steps_[i].delta_gain;
    if (sum >= gain) {
      size_t k = i + 1;
      while (k < steps_.size() && steps_[k].slope == steps_[i].slope) ++k;
      return steps_[k - 1].slope;
    }
  }
  return kAllPasses;
}

}  // namespace gj2k::entropy
