// Helpers for the transform tests: seeded random fills, adversarial fills, and buffers with
// guard bands (stride > width, sentinel samples around the tile-component) that catch any
// write outside the contract's rows x width region.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "transform/dwt.h"

namespace gj2k::xtest {

// The seed of every randomised test: GJ2K_SEED from the environment, else a fixed default,
// so that failures are reproducible; tests print it on failure (SCOPED_TRACE).
inline uint64_t base_seed() {
  if (const char* s = std::getenv("GJ2K_SEED"); s && *s) return std::strtoull(s, nullptr, 10);
  return 20261122;
}

enum class Fill { kRandom, kZero, kMax, kMin, kAlternating, kCheckerboard };
inline const char* fill_name(Fill f) {
  switch (f) {
    case Fill::kRandom:
      return "random";
    case Fill::kZero:
      return "zero";
    case Fill::kMax:
      return "max";
    case Fill::kMin:
      return "min";
    case Fill::kAlternating:
      return "alternating";
    case Fill::kCheckerboard:
      return "checkerboard";
  }
  return "?";
}
inline constexpr Fill kAllFills[] = {Fill::kRandom, Fill::kZero,        Fill::kMax,
                                     Fill::kMin,    Fill::kAlternating, Fill::kCheckerboard};

// A tile-component buffer with `guard` sentinel samples on every side and a stride larger than
// the width.
template <class T>
struct Guarded {
  static constexpr uint32_t kGuard = 7;
  uint32_t w, h;
  size_t stride;
  std::vector<T> mem;
  T sentinel;
  Guarded(uint32_t w_, uint32_t h_, T sentinel_)
      : w(w_),
        h(h_),
        stride(size_t{w_} + 2 * kGuard + 3),
        mem((size_t{h_} + 2 * kGuard) * stride + 2 * kGuard, sentinel_),
        sentinel(sentinel_) {}
  T* data() { return mem.data() + kGuard * stride + kGuard; }
  T& at(uint32_t x, uint32_t y) { return data()[y * stride + x]; }
  transform::Plane<T> plane() { return {data(), stride}; }
  // True when every sample outside the w x h region still holds the sentinel.
  bool guards_intact() const {
    const T* base = mem.data() + kGuard * stride + kGuard;
    for (size_t i = 0; i < mem.size(); ++i) {
      const std::ptrdiff_t off = static_cast<std::ptrdiff_t>(i) - (base - mem.data());
      bool inside = false;
      if (off >= 0) {
        const size_t y = static_cast<size_t>(off) / stride, x = static_cast<size_t>(off) % stride;
        inside = y < h && x < w;
      }
      if (!inside && !(mem[i] == sentinel)) return false;
    }
    return true;
  }
  std::vector<T> region() const {
    std::vector<T> out;
    out.reserve(size_t{w} * h);
    const T* base = mem.data() + kGuard * stride + kGuard;
    for (uint32_t y = 0; y < h; ++y)
      for (uint32_t x = 0; x < w; ++x) out.push_back(base[y * stride + x]);
    return out;
  }
};

// `stride` x `h` coefficients, each an integer drawn from [-2000, 2000] (as T), for the
// whole-plane transforms' tests (window, rows) that compare against a copy.
template <class T>
std::vector<T> random_coefficients(size_t stride, uint32_t h, std::mt19937_64& rng) {
  std::vector<T> v(stride * h);
  std::uniform_int_distribution<int32_t> d(-2000, 2000);
  for (auto& x : v) x = static_cast<T>(d(rng));
  return v;
}

// Fills a w x h region with values in [lo, hi] per `fill`.
template <class T>
void fill_region(Guarded<T>& g, Fill fill, T lo, T hi, std::mt19937_64& rng) {
  for (uint32_t y = 0; y < g.h; ++y)
    for (uint32_t x = 0; x < g.w; ++x) {
      T v{};
      switch (fill) {
        case Fill::kRandom:
          if constexpr (std::is_integral_v<T>)
            v = std::uniform_int_distribution<T>(lo, hi)(rng);
          else
            v = std::uniform_real_distribution<T>(lo, hi)(rng);
          break;
        case Fill::kZero:
          v = T{0};
          break;
        case Fill::kMax:
          v = hi;
          break;
        case Fill::kMin:
          v = lo;
          break;
        case Fill::kAlternating:
          v = (x & 1) ? lo : hi;
          break;
        case Fill::kCheckerboard:
          v = ((x ^ y) & 1) ? lo : hi;
          break;
      }
      g.at(x, y) = v;
    }
}

inline std::string rect_str(const transform::Rect& r) {
  return "[" + std::to_string(r.x0) + "," + std::to_string(r.x1) + ")x[" + std::to_string(r.y0) +
         "," + std::to_string(r.y1) + ")";
}

}  // namespace gj2k::xtest
