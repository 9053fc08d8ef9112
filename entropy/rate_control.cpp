// PCRD-opt: convex hulls and global slope thresholds (see rate_control.h).
#include "entropy/rate_control.h"

#include <algorithm>
#include <cstring>
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
// one). Hull points go 2^12 a piece; blocks, each with tens of passes, 2^8, so that the
// 50,000 blocks and 400,000 points of a large image make several pieces for each of 16 cores
// (pieces of 2^10 blocks and 2^14 points made 47 and 23: docs/PERFORMANCE.md).
constexpr size_t kPointPiece = size_t{1} << 12, kBlockPiece = size_t{1} << 8;
// Every call covers one whole piece [k * piece, min(n, (k + 1) * piece)), so callers may keep
// per-piece results; without a scheduler (or with one piece) the pieces run in order here.
template <class Fn>
void in_pieces(size_t n, const ParallelFor& run, const Fn& fn, size_t piece) {
  const size_t pieces = (n + piece - 1) / piece;
  const auto one = [&](int64_t k) {
    const size_t first = static_cast<size_t>(k) * piece;
    fn(first, std::min(n, first + piece));
  };
  if (run && pieces > 1)
    run(static_cast<int64_t>(pieces), one);
  else
    for (size_t k = 0; k < pieces; ++k) one(static_cast<int64_t>(k));
}
}  // namespace

size_t RateAllocator::add_blocks(size_t count, const uint32_t* passes, const BlockPasses& fill,
                                 const ParallelFor& run, bool sum_gains) {
  const size_t first_block = blocks_.size();
  // A block's passes and hull in scratch of the piece of blocks, reused from block to block:
  // the hulls are made twice (once for their sizes, once into their places) instead of kept in
  // arrays of every block's passes and hull, fresh memory whose first touch by many threads at
  // once waits on the kernel. (Not thread_local: LeakSanitizer reported the scratch of the
  // pool's threads as leaked at exit.)
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
  std::vector<uint32_t> hull_size(count);
  in_pieces(
      count, run,
      [&](size_t first, size_t last) {
        Scratch scratch;
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
        Scratch t;
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
    Scratch t;
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

// Two steps in the global order, while sort_steps orders them (`bytes` holds the point's
// index): decreasing slope, then increasing point index (points_ holds the blocks in order,
// each block's points in order). A total order, so any correct sort gives the one result.
template <class Step>
struct Before {
  bool operator()(const Step& a, const Step& b) const {
    return a.slope > b.slope || (a.slope == b.slope && a.bytes < b.bytes);
  }
};

// The points of blocks [first, last) in points_ (packed in block order).
template <class Block>
std::pair<size_t, size_t> points_of(const std::vector<Block>& blocks, size_t n, size_t first,
                                    size_t last) {
  return {first < blocks.size() ? blocks[first].first : n,
          last < blocks.size() ? blocks[last].first : n};
}

// The steps' order as an unsigned key: increasing key is decreasing slope. Hull slopes are
// positive and finite, whose IEEE-754 bit patterns increase with their value.
inline uint64_t descending_key(double slope) {
  uint64_t bits;
  std::memcpy(&bits, &slope, sizeof bits);
  return ~bits;
}

// Sorts a[0, n) by `Before` with a stable least-significant-digit radix sort on the slope's
// key, a byte at a time (bytes that all keys share are skipped); stability keeps the points of
// equal slopes in their order, which must be increasing on entry. tmp: room for n.
template <class Step>
void radix_sort_steps(Step* a, size_t n, Step* tmp) {
  size_t hist[8][256] = {};
  for (size_t i = 0; i < n; ++i) {
    const uint64_t k = descending_key(a[i].slope);
    for (int d = 0; d < 8; ++d) ++hist[d][(k >> (8 * d)) & 0xFF];
  }
  Step* from = a;
  Step* to = tmp;
  for (int d = 0; d < 8; ++d) {
    size_t* h = hist[d];
    if (n == 0 || h[(descending_key(a[0].slope) >> (8 * d)) & 0xFF] == n) continue;
    size_t at = 0;
    for (size_t v = 0; v < 256; ++v) {
      const size_t c = h[v];
      h[v] = at;
      at += c;
    }
    for (size_t i = 0; i < n; ++i)
      to[h[(descending_key(from[i].slope) >> (8 * d)) & 0xFF]++] = from[i];
    std::swap(from, to);
  }
  if (from != a) std::copy_n(from, n, a);
}

}  // namespace

void RateAllocator::prepare(const ParallelFor& run) const {
  sort_steps(run);
}

// Orders every hull point into steps_, straight from points_ (no copy of them in point order
// first: the sort's fresh memory is steps_, one byte a point and the prefix sums). With a
// scheduler and many points, a sample sort: kBuckets - 1 splitters from a regular sample,
// every point's bucket found in parallel over kChunks chunks of blocks, the points scattered
// bucket by bucket (counts and offsets per chunk), then the buckets sorted in parallel. Bucket
// and chunk counts are constants, so the work does not depend on the thread count (and the
// result never does: the order is total). Then each step's bytes over its block's previous
// point, and the prefix sums of those.
void RateAllocator::sort_steps(const ParallelFor& run) const {
  if (sorted_) return;
  constexpr size_t kBuckets = 64, kChunks = 64, kOversample = 32;
  const Before<Step> before;
  const size_t n = points_.size(), nb = blocks_.size();
  steps_.resize(n);
  const auto key = [&](size_t i, size_t b) {
    return Step{points_[i].slope, static_cast<uint32_t>(b), static_cast<uint32_t>(i)};
  };
  if (!run || n < (size_t{1} << 16)) {
    for (size_t b = 0; b < nb; ++b)
      for (uint32_t k = 0; k < blocks_[b].count; ++k)
        steps_[blocks_[b].first + k] = key(blocks_[b].first + k, b);
    std::vector<Step> tmp(n);
    radix_sort_steps(steps_.data(), n, tmp.data());
  } else {
    std::vector<Step> sample(kBuckets * kOversample);
    for (size_t i = 0; i < sample.size(); ++i) sample[i] = key(i * (n / sample.size()), 0);
    std::sort(sample.begin(), sample.end(), before);
    std::vector<Step> splitters(kBuckets - 1);
    for (size_t b = 0; b + 1 < kBuckets; ++b) splitters[b] = sample[(b + 1) * kOversample - 1];
    const auto bucket_of = [&](const Step& s) {
      return static_cast<size_t>(std::upper_bound(splitters.begin(), splitters.end(), s, before) -
                                 splitters.begin());
    };
    std::vector<uint8_t> bucket(n);                    // each point's
    std::vector<size_t> count(kChunks * kBuckets, 0);  // [chunk][bucket], then offsets
    const auto chunk_blocks = [nb](size_t c) {
      return std::pair(c * nb / kChunks, (c + 1) * nb / kChunks);
    };
    run(kChunks, [&](int64_t c) {
      const auto [lo, hi] = chunk_blocks(static_cast<size_t>(c));
      const auto [p0, p1] = points_of(blocks_, n, lo, hi);
      size_t* cnt = count.data() + static_cast<size_t>(c) * kBuckets;
      for (size_t i = p0; i < p1; ++i) {
        const size_t b = bucket_of(key(i, 0));
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
    run(kChunks, [&](int64_t c) {
      const auto [lo, hi] = chunk_blocks(static_cast<size_t>(c));
      size_t* next = count.data() + static_cast<size_t>(c) * kBuckets;
      for (size_t b = lo; b < hi; ++b)
        for (uint32_t k = 0; k < blocks_[b].count; ++k) {
          const size_t i = blocks_[b].first + k;
          steps_[next[bucket[i]]++] = key(i, b);
        }
    });
    run(kBuckets, [&](int64_t b) {
      thread_local std::vector<Step> tmp;
      const size_t lo = bucket_start[static_cast<size_t>(b)];
      const size_t size = bucket_start[static_cast<size_t>(b) + 1] - lo;
      if (tmp.size() < size) tmp.resize(size);
      radix_sort_steps(steps_.data() + lo, size, tmp.data());
    });
  }
  // Each step's bytes over its block's previous hull point (or over zero), with the sum of
  // each piece of kPointPiece steps; then the prefix sums, each piece from its offset.
  const size_t pieces = (n + kPointPiece - 1) / kPointPiece;
  std::vector<uint64_t> piece_bytes(pieces + 1, 0);
  in_pieces(
      n, run,
      [&](size_t first, size_t last) {
        uint64_t sum = 0;
        for (size_t s = first; s < last; ++s) {
          Step& st = steps_[s];
          const uint32_t i = st.bytes;
          const uint32_t prev = i == blocks_[st.block].first ? 0 : points_[i - 1].bytes;
          st.bytes = points_[i].bytes - prev;
          sum += st.bytes;
        }
        piece_bytes[first / kPointPiece + 1] = sum;
      },
      kPointPiece);
  for (size_t k = 0; k < pieces; ++k) piece_bytes[k + 1] += piece_bytes[k];
  step_bytes_.resize(n + 1);
  step_bytes_[0] = 0;
  in_pieces(
      n, run,
      [&](size_t first, size_t last) {
        uint64_t sum = piece_bytes[first / kPointPiece];
        for (size_t s = first; s < last; ++s) step_bytes_[s + 1] = sum += steps_[s].bytes;
      },
      kPointPiece);
  sorted_ = true;
}

size_t RateAllocator::steps_included(double lambda) const {
  // Slopes decrease along the order: the steps below lambda are a suffix.
  return static_cast<size_t>(
      std::partition_point(steps_.begin(), steps_.end(),
                           [lambda](const Step& s) { return !(s.slope < lambda); }) -
      steps_.begin());
}

double RateAllocator::threshold_for_bytes(
    double budget, const std::function<double(double lambda)>& overhead) const {
  sort_steps();
  // Including a step means including every step of the same slope: the candidates are the
  // ends of runs of equal slope. Cost (bytes + overhead) grows with the end; bisect over the
  // step counts e, each standing for the end of the run that step e - 1 belongs to.
  const size_t n = steps_.size();
  const auto run_end = [&](size_t e) {
    while (e < n && steps_[e].slope == steps_[e - 1].slope) ++e;
    return e;
  };
  const auto fits = [&](size_t e) {
    const double lambda = steps_[e - 1].slope;
    const double extra = overhead ? overhead(lambda) : 0.0;
    return double(step_bytes_[e]) + extra <= budget;
  };
  // The largest e in [1, n] whose run fits (monotone: true then false); it is a run's end.
  size_t lo = 0, hi = n;
  while (lo < hi) {
    const size_t mid = lo + (hi - lo + 1) / 2;
    if (fits(run_end(mid)))
      lo = mid;
    else
      hi = mid - 1;
  }
  if (lo == 0) return kNothing;
  return steps_[lo - 1].slope;
}

std::vector<uint32_t> RateAllocator::fill(double lambda, double budget) const {
  sort_steps();
  // The steps of slope >= lambda first, whatever the budget: in each block, its points up to
  // the threshold's (counted as steps_included counts, for any lambda).
  const size_t nb = blocks_.size(), n = steps_.size();
  std::vector<uint32_t> passes(nb, 0), taken(nb);
  for (size_t b = 0; b < nb; ++b) {
    const TruncationPoint* p = points_.data() + blocks_[b].first;
    const uint32_t k = static_cast<uint32_t>(
        std::partition_point(p, p + blocks_[b].count,
                             [lambda](const TruncationPoint& q) { return !(q.slope < lambda); }) -
        p);
    taken[b] = k;
    if (k) passes[b] = p[k - 1].passes;
  }
  size_t s = steps_included(lambda);
  double used = double(step_bytes_[s]);
  // Then each further step in order while it fits; a block whose step does not fit takes no
  // more (its later points depend on it).
  std::vector<uint8_t> closed(nb, 0);
  for (; s < n; ++s) {
    const Step& st = steps_[s];
    if (closed[st.block]) continue;
    if (used + st.bytes > budget) {
      closed[st.block] = 1;
      continue;
    }
    used += st.bytes;
    passes[st.block] = points_[blocks_[st.block].first + taken[st.block]++].passes;
  }
  return passes;
}

double RateAllocator::threshold_for_gain(double gain) const {
  sort_steps();
  std::vector<uint32_t> taken(blocks_.size(), 0);  // each block's steps so far
  double sum = 0;
  const size_t n = steps_.size();
  for (size_t s = 0; s < n; ++s) {
    const uint32_t k = taken[steps_[s].block]++;
    const size_t i = blocks_[steps_[s].block].first + k;
    sum += point_gain_[i] - (k ? point_gain_[i - 1] : 0);
    if (sum >= gain) {
      size_t e = s + 1;
      while (e < n && steps_[e].slope == steps_[s].slope) ++e;
      return steps_[e - 1].slope;
    }
  }
  return kAllPasses;
}

}  // namespace gj2k::entropy
