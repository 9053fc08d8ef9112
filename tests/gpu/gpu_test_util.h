// Helpers of the GPU kernel suite: skip without a GPU, seeded fills, device planes with guard
// bands (rows above and below, pitch wider than the tile-component) filled with a sentinel.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "gj2k/image.h"
#include "transform/device.h"
#include "transform/geometry.h"

#if defined(GJ2K_HAVE_CUDA)
#include "transform/cuda/cuda_check.h"
#include "transform/cuda/cuda_memory.h"
#endif

#define GJ2K_REQUIRE_GPU()                                                   \
  do {                                                                       \
    const ::gj2k::transform::GpuInfo info_ = ::gj2k::transform::gpu_info();  \
    if (!info_.available) GTEST_SKIP() << "no usable GPU: " << info_.reason; \
  } while (0)

namespace gj2k::test {

// Sets an environment variable for a scope (a test's), restoring it after.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    setenv(name, value, 1);
  }
  ~ScopedEnv() {
    if (old_)
      setenv(name_, old_->c_str(), 1);
    else
      unsetenv(name_);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

// Largest |a - b| over all samples of two images; -1 when they differ in shape.
inline int64_t peak_difference(const Image& a, const Image& b) {
  if (a.x0 != b.x0 || a.y0 != b.y0 || a.x1 != b.x1 || a.y1 != b.y1 ||
      a.components.size() != b.components.size())
    return -1;
  int64_t peak = 0;
  for (size_t c = 0; c < a.components.size(); ++c) {
    const auto& ca = a.components[c];
    const auto& cb = b.components[c];
    if (ca.width != cb.width || ca.height != cb.height || ca.samples.size() != cb.samples.size())
      return -1;
    for (size_t i = 0; i < ca.samples.size(); ++i)
      peak = std::max<int64_t>(peak, std::llabs(int64_t{ca.samples[i]} - cb.samples[i]));
  }
  return peak;
}

enum class Fill { kRandom, kZero, kOne, kMax, kMaxMinus1, kAlternate };
inline const char* to_string(Fill f) {
  switch (f) {
    case Fill::kRandom:
      return "random";
    case Fill::kZero:
      return "zero";
    case Fill::kOne:
      return "one";
    case Fill::kMax:
      return "max";
    case Fill::kMaxMinus1:
      return "max-1";
    case Fill::kAlternate:
      return "alternate";
  }
  return "?";
}

// A w x h plane with stride >= w, in a host vector with `guard` extra rows above and below.
template <class T>
struct HostPlane {
  uint32_t w = 0, h = 0, guard = 0;
  size_t stride = 0;
  std::vector<T> all;  // (h + 2 guard) rows of `stride`
  HostPlane(uint32_t w_, uint32_t h_, uint32_t pad, uint32_t guard_, T sentinel)
      : w(w_),
        h(h_),
        guard(guard_),
        stride(size_t{w_} + pad),
        all((size_t{h_} + 2 * guard_) * (size_t{w_} + pad), sentinel) {}
  T* data() { return all.data() + size_t{guard} * stride; }
  T& at(uint32_t x, uint32_t y) { return data()[size_t{y} * stride + x]; }
  // Index in `all` of the first element outside the w x h samples, or -1.
  long first_guard_mismatch(const std::vector<T>& other) const {
    for (size_t i = 0; i < all.size(); ++i) {
      const size_t row = i / stride, col = i % stride;
      const bool inside = row >= guard && row < guard + size_t{h} && col < w;
      if (!inside && std::memcmp(&all[i], &other[i], sizeof(T)) != 0) return static_cast<long>(i);
    }
    return -1;
  }
};

template <class T>
void fill(HostPlane<T>& p, Fill f, T max, std::mt19937& rng) {
  for (uint32_t y = 0; y < p.h; ++y) {
    for (uint32_t x = 0; x < p.w; ++x) {
      T v{};
      switch (f) {
        case Fill::kRandom:
          if constexpr (std::is_integral_v<T>) {
            v = static_cast<T>(std::uniform_int_distribution<int64_t>(-int64_t{max} - 1, max)(rng));
          } else {
            v = std::uniform_real_distribution<T>(-max, max)(rng);
          }
          break;
        case Fill::kZero:
          v = 0;
          break;
        case Fill::kOne:
          v = 1;
          break;
        case Fill::kMax:
          v = max;
          break;
        case Fill::kMaxMinus1:
          v = static_cast<T>(max - 1);
          break;
        case Fill::kAlternate:
          v = ((x + y) & 1) ? max : static_cast<T>(-max);
          break;
      }
      p.at(x, y) = v;
    }
  }
}

#if defined(GJ2K_HAVE_CUDA)
// The whole host plane (guards included) mirrored on the device.
template <class T>
struct DevicePlaneCopy {
  transform::cuda::DeviceBuffer buf;
  size_t stride = 0, guard = 0;
  explicit DevicePlaneCopy(const HostPlane<T>& p)
      : buf(p.all.size() * sizeof(T)), stride(p.stride), guard(p.guard) {
    GJ2K_CUDA_CHECK(
        cudaMemcpy(buf.get(), p.all.data(), p.all.size() * sizeof(T), cudaMemcpyHostToDevice));
  }
  T* data() const { return buf.as<T>() + guard * stride; }
  // Overwrites the device copy with `p` (same shape as the constructor's).
  void upload(const HostPlane<T>& p) {
    GJ2K_CUDA_CHECK(
        cudaMemcpy(buf.get(), p.all.data(), p.all.size() * sizeof(T), cudaMemcpyHostToDevice));
  }
  std::vector<T> download() const {
    std::vector<T> v(buf.bytes() / sizeof(T));
    GJ2K_CUDA_CHECK(cudaMemcpy(v.data(), buf.get(), buf.bytes(), cudaMemcpyDeviceToHost));
    return v;
  }
};
#endif

}  // namespace gj2k::test
