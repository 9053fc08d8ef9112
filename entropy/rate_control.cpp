// PCRD-opt: convex hulls and global slope thresholds (see rate_control.h).
#include "entropy/rate_control.h"

#include <algorithm>

#include "gj2k/error.h"

namespace gj2k::entropy {

std::vector<TruncationPoint> convex_hull(const uint32_t* ends, const double* gains, size_t n) {
  // Cumulative (bytes, gain) after each pass; the hull starts at (0, 0) with no passes.
  std::vector<TruncationPoint> hull;
  std::vector<double> hull_gain;  // cumulative gain of each hull point
  double gain = 0;
  for (size_t i = 0; i < n; ++i) {
    gain += gains[i] > 0 ? gains[i] : 0;
    const uint32_t bytes = ends[i];
    // Pop points that lie on or below the chord from their predecessor to this pass.
    for (;;) {
      const uint32_t prev_bytes = hull.empty() ? 0 : hull.back().bytes;
      const double prev_gain = hull.empty() ? 0 : hull_gain.back();
      if (gain <= prev_gain) break;  // no improvement over the last hull point: skip pass i
      if (bytes <= prev_bytes) {
        // Free distortion decrease: this pass replaces the previous point (same or fewer bytes,
        // more gain), or, with no previous point, starts the hull at zero bytes; a zero-byte
        // first point gets a huge finite slope.
        if (!hull.empty()) {
          hull.pop_back();
          hull_gain.pop_back();
          continue;
        }
      }
      const double slope = bytes > prev_bytes ? (gain - prev_gain) / double(bytes - prev_bytes)
                                              : std::numeric_limits<double>::max();
      if (!hull.empty() && slope >= hull.back().slope) {
        hull.pop_back();
        hull_gain.pop_back();
        continue;
      }
      hull.push_back({static_cast<uint32_t>(i + 1), bytes, slope});
      hull_gain.push_back(gain);
      break;
    }
  }
  return hull;
}

size_t RateAllocator::add_block(const uint32_t* ends, const double* gains, size_t n) {
  return add_block(ends, gains, n, convex_hull(ends, gains, n));
}

size_t RateAllocator::add_block(const uint32_t* ends, const double* gains, size_t n,
                                const std::vector<TruncationPoint>& hull) {
  Block b;
  b.first = static_cast<uint32_t>(points_.size());
  double g = 0;
  size_t pass = 0;
  for (const auto& p : hull) {
    for (; pass < p.passes; ++pass) g += gains[pass] > 0 ? gains[pass] : 0;
    points_.push_back(p);
    point_gain_.push_back(g);
  }
  for (size_t i = 0; i < n; ++i) gain_all_ += gains[i] > 0 ? gains[i] : 0;
  b.count = static_cast<uint32_t>(hull.size());
  b.all_passes = static_cast<uint32_t>(n);
  b.all_bytes = n ? ends[n - 1] : 0;
  blocks_.push_back(b);
  sorted_ = false;
  return blocks_.size() - 1;
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

void RateAllocator::sort_steps() const {
  if (sorted_) return;
  steps_.clear();
  steps_.reserve(points_.size());
  for (size_t b = 0; b < blocks_.size(); ++b) {
    const Block& blk = blocks_[b];
    uint32_t prev_bytes = 0;
    double prev_gain = 0;
    for (uint32_t k = 0; k < blk.count; ++k) {
      const auto& p = points_[blk.first + k];
      const double g = point_gain_[blk.first + k];
      steps_.push_back(
          {p.slope, p.bytes - prev_bytes, g - prev_gain, static_cast<uint32_t>(b), blk.first + k});
      prev_bytes = p.bytes;
      prev_gain = g;
    }
  }
  // Decreasing slope; within a block its points keep their order (their slopes decrease).
  std::stable_sort(steps_.begin(), steps_.end(),
                   [](const Step& a, const Step& b) { return a.slope > b.slope; });
  sorted_ = true;
}

double RateAllocator::threshold_for_bytes(
    double budget, const std::function<double(double lambda)>& overhead) const {
  sort_steps();
  // Including a step means including every step of the same slope: candidates are the ends of
  // equal-slope groups. Cost (bytes + overhead) grows with the group end; bisect over them.
  const size_t n = steps_.size();
  std::vector<size_t> group_ends;
  std::vector<uint64_t> group_bytes;
  uint64_t bytes = 0;
  for (size_t i = 0; i < n; ++i) {
    bytes += steps_[i].delta_bytes;
    if (i + 1 == n || steps_[i + 1].slope != steps_[i].slope) {
      group_ends.push_back(i + 1);
      group_bytes.push_back(bytes);
    }
  }
  auto fits = [&](size_t g) {
    const double lambda = steps_[group_ends[g] - 1].slope;
    const double extra = overhead ? overhead(lambda) : 0.0;
    return double(group_bytes[g]) + extra <= budget;
  };
  // Largest g with fits(g); fits is monotone (true then false).
  size_t lo = 0, hi = group_ends.size();  // answer count of fitting groups in [lo, hi]
  while (lo < hi) {
    const size_t mid = lo + (hi - lo + 1) / 2;  // try mid groups
    if (fits(mid - 1))
      lo = mid;
    else
      hi = mid - 1;
  }
  if (lo == 0) return kNothing;
  return steps_[group_ends[lo - 1] - 1].slope;
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
