// Post-compression rate-distortion optimisation (PCRD-opt; Taubman, "High performance scalable
// image compression with EBCOT", IEEE TIP 2000, sec. III-B; 15444-1 Annex J.14 describes the
// same idea informatively).
//
// Each code-block offers truncation points after each of its coding passes: (cumulative bytes,
// cumulative distortion decrease). Only points on the block's upper convex hull are useful: for
// them the slope (distortion decrease per byte) strictly decreases from one to the next. A
// global threshold lambda picks, in every block, the last hull point whose slope is >= lambda;
// this allocation is optimal for its total size. The threshold for a byte budget or for a
// distortion target is found exactly over the sorted list of all hull slopes.
//
// The allocator knows nothing of the codestream: callers pass an overhead estimate (packet
// headers, markers) and refine the budget against the final size themselves.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <vector>

#include "gj2k/image.h"

namespace gj2k::entropy {

// A feasible truncation point: keep the first `passes` passes, `bytes` bytes of block data.
// `slope` is the distortion decrease per byte from the previous hull point (or from zero).
struct TruncationPoint {
  uint32_t passes = 0;
  uint32_t bytes = 0;
  double slope = 0;
};

// The upper convex hull of a block's passes. ends[i]: cumulative bytes after pass i (as
// EncodedBlock passes[i].end), gains[i]: the (weighted) distortion decrease of pass i alone.
// Passes that decrease nothing or lie below the hull are skipped; the slopes of the result
// strictly decrease and are > 0. A pass that adds no bytes but decreases distortion merges
// into the previous point (infinite slope is never produced: it is folded forward).
std::vector<TruncationPoint> convex_hull(const uint32_t* ends, const double* gains, size_t n);
// The same into caller memory: the hull's points into out[0, k) and the cumulative gain at each
// into out_gain[0, k) (both with room for n); returns k.
size_t convex_hull(const uint32_t* ends, const double* gains, size_t n, TruncationPoint* out,
                   double* out_gain);

// Runs body(i) for every i in [0, n), in any order, possibly on several threads at once (calls
// for different i touch disjoint data). The allocator has no threads of its own: the caller
// passes its scheduler. An empty ParallelFor means one thread.
using ParallelFor = std::function<void(int64_t n, const std::function<void(int64_t i)>& body)>;

// A block's passes for RateAllocator::add_blocks: writes its n pass ends and gains (as
// add_block takes them) into ends[0, n) and gains[0, n), n the count it was given.
using BlockPasses = std::function<void(size_t block, uint32_t* ends, double* gains)>;

class RateAllocator {
 public:
  // A threshold that selects every pass of every block (lossless).
  static constexpr double kAllPasses = 0.0;
  // A threshold that selects nothing.
  static constexpr double kNothing = std::numeric_limits<double>::infinity();

  // Adds a block and returns its index (0, 1, ...). Not thread-safe; blocks are added after
  // Tier-1 has run, in any fixed order.
  size_t add_block(const uint32_t* ends, const double* gains, size_t n);
  size_t num_blocks() const { return blocks_.size(); }
  // Adds count blocks at once, as add_block would one by one in order: block k (0-based within
  // the call) has passes[k] passes, which `fill` writes (possibly several at once, from `run`'s
  // threads); their hulls are made with `run`'s threads. Returns the first one's index.
  // sum_gains false leaves out the one serial sum over every pass: total_gain_all() and
  // total_gain(lambda <= 0) are then NaN (for callers that never ask them, byte targets).
  size_t add_blocks(size_t count, const uint32_t* passes, const BlockPasses& fill,
                    const ParallelFor& run = {}, bool sum_gains = true);

  // Passes of block b included at threshold lambda: those up to the last hull point with
  // slope >= lambda. lambda <= 0 (kAllPasses) includes every pass, even those off the hull.
  uint32_t passes_at(size_t b, double lambda) const;
  uint32_t bytes_at(size_t b, double lambda) const;

  // Sums over every block at threshold lambda: data bytes and distortion decrease.
  uint64_t total_bytes(double lambda) const;
  double total_gain(double lambda) const;
  // The distortion decrease of all passes of all blocks (the energy the code-blocks carry).
  double total_gain_all() const { return gain_all_; }

  // The smallest threshold (most data) whose data bytes plus overhead(lambda) fit in `budget`
  // bytes; thresholds are hull slopes. Returns kNothing when not even the first slope fits.
  // `overhead` must not decrease as lambda decreases (more data, more headers); may be empty.
  double threshold_for_bytes(double budget,
                             const std::function<double(double lambda)>& overhead = {}) const;

  // Passes per block (indexed by block) for a byte budget: every hull point with slope >=
  // lambda, then, in decreasing slope order, each further hull point that still fits into
  // `budget` data bytes; a block whose next point does not fit gets no more points (its later
  // points depend on it). Lets a size target be met to within a small step, where a pure
  // threshold can only stop before a large step.
  std::vector<uint32_t> fill(double lambda, double budget) const;

  // The largest threshold (least data) whose included distortion decrease reaches `gain`;
  // kAllPasses when even all hull points do not reach it.
  double threshold_for_gain(double gain) const;

  // Builds the global order of all hull points by decreasing slope, which the threshold
  // queries above otherwise build on their first call (on one thread), with `run`'s threads.
  // The order is the same either way: decreasing slope, ties in block order then point order.
  void prepare(const ParallelFor& run) const;

 private:
  struct Block {
    uint32_t first = 0, count = 0;  // hull points in points_
    uint32_t all_passes = 0, all_bytes = 0;
  };
  // One hull point in the global order (decreasing slope, ties in point order). A block's
  // points appear in its own order, so a walk over the order knows each step's point by
  // counting its block's steps before it.
  struct Step {
    double slope;
    uint32_t block;
    uint32_t bytes;  // data bytes over its block's previous hull point (or over zero); while
                     // sort_steps orders them, the point's index in points_
  };
  void sort_steps(const ParallelFor& run = {}) const;
  // The number of leading steps that threshold lambda includes (slope not below lambda).
  size_t steps_included(double lambda) const;

  std::vector<Block> blocks_;
  // Filled in parallel after they grow (not zeroed first).
  std::vector<TruncationPoint, DefaultInitAllocator<TruncationPoint>> points_;
  std::vector<double, DefaultInitAllocator<double>> point_gain_;  // cumulative gain at each point
  double gain_all_ = 0;
  // The order of all hull points, and the data bytes of steps [0, s) for s in [0, n], built
  // lazily (filled before read: not zeroed first).
  mutable std::vector<Step, DefaultInitAllocator<Step>> steps_;
  mutable std::vector<uint64_t, DefaultInitAllocator<uint64_t>> step_bytes_;
  mutable bool sorted_ = false;
};

}  // namespace gj2k::entropy
