// GPU quantization (transform/cuda/quant_cuda.h) against transform/quant.h: the 1-D mirrors and
// the whole-Mallat-arrangement entry points, which must apply each subband's own step (found
// here independently through band_placement and qcd_index). Results identical.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "gpu_test_util.h"
#include "transform/quant.h"

#if defined(GJ2K_HAVE_CUDA)
#include "transform/cuda/quant_cuda.h"
#endif

namespace gj2k::test {
namespace {

#if defined(GJ2K_HAVE_CUDA)
namespace gc = transform::cuda;
using transform::Band;
using transform::Rect;

template <class T>
gc::DeviceBuffer upload(const std::vector<T>& h) {
  gc::DeviceBuffer d(std::max<size_t>(1, h.size()) * sizeof(T));
  GJ2K_CUDA_CHECK(cudaMemcpy(d.get(), h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}
template <class T>
std::vector<T> download(const gc::DeviceBuffer& d, size_t n) {
  GJ2K_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<T> h(n);
  GJ2K_CUDA_CHECK(cudaMemcpy(h.data(), d.get(), n * sizeof(T), cudaMemcpyDeviceToHost));
  return h;
}

TEST(GpuQuant, OneDimensionalIdentical) {
  GJ2K_REQUIRE_GPU();
  const uint32_t seed = 2024;
  std::mt19937 rng(seed);
  const size_t n = 100003;
  std::vector<float> y(n);
  std::uniform_real_distribution<float> d(-5000.f, 5000.f);
  for (auto& v : y) v = d(rng);
  y[0] = 0.0f, y[1] = -0.0f, y[2] = 3e38f, y[3] = -3e38f;  // saturation
  for (float delta : {0.37f, 1.0f, 17.5f}) {
    std::vector<int32_t> q(n);
    transform::quantize(y.data(), q.data(), n, delta);
    gc::DeviceBuffer dy = upload(y), dq(n * 4);
    gc::quantize(dy.as<float>(), dq.as<int32_t>(), n, delta, nullptr);
    ASSERT_EQ(download<int32_t>(dq, n), q) << "delta " << delta << " seed " << seed;
    std::vector<float> back(n);
    transform::dequantize(q.data(), back.data(), n, delta, 0.5f);
    gc::DeviceBuffer db(n * 4);
    gc::dequantize(dq.as<int32_t>(), db.as<float>(), n, delta, 0.5f, nullptr);
    ASSERT_EQ(download<float>(db, n), back) << "delta " << delta << " seed " << seed;
  }
}

TEST(GpuQuant, PerSubbandStepsIdentical) {
  GJ2K_REQUIRE_GPU();
  uint32_t seed = 555;
  for (const Rect& tc : {Rect{0, 0, 97, 61}, Rect{3, 5, 3 + 130, 5 + 1}, Rect{1, 1, 2, 2},
                         Rect{7, 2, 7 + 64, 2 + 65}}) {
    for (int levels : {0, 1, 3, 7}) {
      std::mt19937 rng(++seed);
      SCOPED_TRACE(testing::Message()
                   << "tc " << tc.width() << "x" << tc.height() << " at (" << tc.x0 << "," << tc.y0
                   << ") levels " << levels << " seed " << seed);
      const uint32_t w = tc.width(), h = tc.height();
      const size_t pitch = w + 3;
      std::vector<float> y(pitch * h);
      std::uniform_real_distribution<float> d(-300.f, 300.f);
      for (auto& v : y) v = d(rng);
      const int nb = 3 * levels + 1;
      std::vector<float> deltas(nb), offsets(nb);
      for (int i = 0; i < nb; ++i) {
        deltas[i] = 0.25f + 0.5f * i;  // distinct per band: a wrong band shows
        offsets[i] = 0.125f * (i % 5);
      }
      // CPU: each subband separately, located by band_placement.
      std::vector<int32_t> q(pitch * h, 0);
      std::vector<float> back(pitch * h, 0.0f);
      auto each_band = [&](auto&& fn) {
        fn(levels, Band::kLL);
        for (int n = levels; n >= 1; --n)
          for (Band b : {Band::kHL, Band::kLH, Band::kHH}) fn(n, b);
      };
      each_band([&](int n, Band b) {
        const auto pl = transform::band_placement(tc, levels, n, b);
        const int qi = transform::qcd_index(levels, n, b);
        for (uint32_t r = 0; r < pl.rect.height(); ++r) {
          const size_t at = size_t{pl.y_off + r} * pitch + pl.x_off;
          transform::quantize(&y[at], &q[at], pl.rect.width(), deltas[qi]);
          transform::dequantize(&q[at], &back[at], pl.rect.width(), deltas[qi], offsets[qi]);
        }
      });
      gc::DeviceBuffer dy = upload(y), dq = upload(std::vector<int32_t>(pitch * h, 0)),
                       db = upload(std::vector<float>(pitch * h, 0.0f));
      gc::quantize_bands(dy.as<float>(), pitch, dq.as<int32_t>(), pitch, tc, levels, deltas.data(),
                         nullptr);
      ASSERT_EQ(download<int32_t>(dq, pitch * h), q);
      gc::dequantize_bands(dq.as<int32_t>(), pitch, db.as<float>(), pitch, tc, levels,
                           deltas.data(), offsets.data(), nullptr);
      ASSERT_EQ(download<float>(db, pitch * h), back);
    }
  }
}

#else
TEST(GpuQuant, SkippedWithoutCuda) {
  GTEST_SKIP() << transform::gpu_info().reason;
}
#endif

}  // namespace
}  // namespace gj2k::test
