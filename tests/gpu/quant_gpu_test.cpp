// GPU quantization (transform/cuda/quant_cuda.h) against transform/quant.h: the 1-D mirror and
// the whole-Mallat-arrangement entry point, which must apply each subband's own step (found
// here independently through band_placement and qcd_index), and the per-code-block
// reconstruction of the GPU decode against transform::reconstruct_block. Results identical.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
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
      std::vector<float> deltas(nb);
      for (int i = 0; i < nb; ++i) deltas[i] = 0.25f + 0.5f * i;  // a wrong band shows
      // CPU: each subband separately, located by band_placement.
      std::vector<int32_t> q(pitch * h, 0);
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
        }
      });
      gc::DeviceBuffer dy = upload(y), dq = upload(std::vector<int32_t>(pitch * h, 0));
      gc::quantize_bands(dy.as<float>(), pitch, dq.as<int32_t>(), pitch, tc, levels, deltas.data(),
                         nullptr);
      ASSERT_EQ(download<int32_t>(dq, pitch * h), q);
    }
  }
}

// reconstruct_blocks against reconstruct_block on random Tier-1 outputs: blocks of odd sizes
// at odd places of one plane, 5/3 and 9/7, with and without ROI shifts, with all, some or
// the last plane's passes decoded.
TEST(GpuQuant, ReconstructBlocksIdentical) {
  GJ2K_REQUIRE_GPU();
  const uint32_t seed = 77;
  std::mt19937 rng(seed);
  const size_t pitch = 301, rows = 257;
  std::vector<int32_t> plane(pitch * rows);
  for (auto& v : plane) v = int32_t(rng() % 4001) - 2000;
  for (int k = 0; k < 40; ++k) plane[rng() % plane.size()] = (k % 2 ? -1 : 1) * int32_t(rng() >> 2);
  std::vector<gc::ReconstructJob> jobs;
  std::vector<uint32_t> ws = {1, 3, 17, 32, 64, 65}, hs = {1, 2, 5, 31, 64};
  uint32_t x = 0, y = 0, row_h = 0;
  for (int k = 0; y < rows; ++k) {
    const uint32_t w = ws[rng() % ws.size()], h = hs[rng() % hs.size()];
    if (x + w > pitch) {
      x = 0;
      y += row_h + 1;  // a gap row: untouched samples between blocks
      row_h = 0;
      continue;
    }
    if (y + h > rows) break;
    gc::ReconstructJob j{};
    j.offset = uint64_t{y} * pitch + x;
    j.stride = pitch;
    j.w = uint16_t(w);
    j.h = uint16_t(h);
    j.q.reversible = k % 2 == 0;
    j.q.roi_shift = k % 3 == 0 ? int(rng() % 12) : 0;
    j.q.delta = 0.125f + float(rng() % 1000) / 97.0f;
    j.q.all_passes = 3 * (1 + rng() % 20) - 2;
    const uint32_t choice = rng() % 3;
    j.q.passes = choice == 0   ? j.q.all_passes
                 : choice == 1 ? j.q.all_passes - std::min<uint32_t>(j.q.all_passes, 1 + rng() % 2)
                               : rng() % (j.q.all_passes + 1);
    jobs.push_back(j);
    x += w + 1;
    row_h = std::max(row_h, h);
  }
  ASSERT_GT(jobs.size(), 20u);
  std::vector<int32_t> want = plane;
  for (const auto& j : jobs) {
    std::vector<float> f(size_t{j.w} * j.h);
    transform::reconstruct_block(want.data() + j.offset, j.stride, j.w, j.h, j.q, f.data(), j.w);
    if (!j.q.reversible)
      for (uint32_t yy = 0; yy < j.h; ++yy)
        for (uint32_t xx = 0; xx < j.w; ++xx)
          std::memcpy(&want[j.offset + size_t{yy} * j.stride + xx], &f[size_t{yy} * j.w + xx], 4);
  }
  gc::DeviceBuffer dp = upload(plane), dj = upload(jobs);
  gc::reconstruct_blocks(dj.as<gc::ReconstructJob>(), uint32_t(jobs.size()), dp.as<int32_t>(),
                         nullptr);
  const std::vector<int32_t> got = download<int32_t>(dp, plane.size());
  for (size_t i = 0; i < got.size(); ++i)
    ASSERT_EQ(got[i], want[i]) << "sample " << i % pitch << "," << i / pitch << " seed " << seed;
}

#else
TEST(GpuQuant, SkippedWithoutCuda) {
  GTEST_SKIP() << transform::gpu_info().reason;
}
#endif

}  // namespace
}  // namespace gj2k::test
