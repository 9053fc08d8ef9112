// GPU DC level shift, RCT and ICT (transform/cuda/mct_cuda.h) against the CPU functions of
// transform/mct.h on seeded random samples of several precisions and adversarial fills.
// Integer results identical; float results within kTolIct of the peak magnitude; rounded
// integer outputs of the ICT within 1 (a float tie may round either way).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "gpu_test_util.h"
#include "transform/mct.h"

#if defined(GJ2K_HAVE_CUDA)
#include "transform/cuda/mct_cuda.h"
#endif

namespace gj2k::test {
namespace {

#if defined(GJ2K_HAVE_CUDA)
namespace gc = transform::cuda;

constexpr double kTolIct = 1e-6;
const size_t kCounts[] = {1, 3, 1000, (size_t{1} << 16) + 3};

template <class T>
struct Dev {
  gc::DeviceBuffer buf;
  size_t n;
  explicit Dev(const std::vector<T>& h)
      : buf(std::max<size_t>(1, h.size()) * sizeof(T)), n(h.size()) {
    GJ2K_CUDA_CHECK(cudaMemcpy(buf.get(), h.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  }
  explicit Dev(size_t n_) : buf(std::max<size_t>(1, n_) * sizeof(T)), n(n_) {}
  T* get() const { return buf.as<T>(); }
  std::vector<T> get_host() const {
    GJ2K_CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<T> h(n);
    GJ2K_CUDA_CHECK(cudaMemcpy(h.data(), buf.get(), n * sizeof(T), cudaMemcpyDeviceToHost));
    return h;
  }
};

// Samples of an unsigned `precision`-bit component (or signed, as two's complement range).
std::vector<int32_t> samples(size_t n, int precision, bool is_signed, int fill, std::mt19937& rng) {
  const int32_t lo = is_signed ? -(1 << (precision - 1)) : 0;
  const int32_t hi = is_signed ? (1 << (precision - 1)) - 1 : (1 << precision) - 1;
  std::vector<int32_t> v(n);
  std::uniform_int_distribution<int32_t> d(lo, hi);
  for (size_t i = 0; i < n; ++i) {
    switch (fill) {
      case 0:
        v[i] = d(rng);
        break;
      case 1:
        v[i] = hi;
        break;
      case 2:
        v[i] = lo;
        break;
      default:
        v[i] = (i & 1) ? hi : lo;
        break;
    }
  }
  return v;
}

struct Params {
  int precision;
  bool is_signed;
};
const Params kParams[] = {{1, false}, {8, false}, {8, true}, {12, false}, {16, false}, {16, true}};

TEST(GpuMct, DcShiftAndRctIdentical) {
  GJ2K_REQUIRE_GPU();
  uint32_t seed = 1234;
  for (const Params& p : kParams) {
    for (size_t n : kCounts) {
      for (int f = 0; f < 4; ++f) {
        std::mt19937 rng(++seed);
        SCOPED_TRACE(testing::Message() << "precision " << p.precision << " signed " << p.is_signed
                                        << " n " << n << " fill " << f << " seed " << seed);
        const int32_t off = transform::dc_offset(p.precision, p.is_signed);
        const int32_t offs[3] = {off, off, off};
        const int32_t lo = p.is_signed ? -(1 << (p.precision - 1)) : 0;
        const int32_t hi = p.is_signed ? (1 << (p.precision - 1)) - 1 : (1 << p.precision) - 1;
        const int32_t los[3] = {lo, lo, lo}, his[3] = {hi, hi, hi};
        std::vector<int32_t> c[3];
        for (auto& x : c) x = samples(n, p.precision, p.is_signed, f, rng);

        // Fused DC shift + RCT forward, then inverse with clamping.
        std::vector<int32_t> r[3] = {c[0], c[1], c[2]};
        Dev<int32_t> d0(c[0]), d1(c[1]), d2(c[2]);
        transform::dc_shift_rct_forward(r[0].data(), r[1].data(), r[2].data(), n, offs);
        gc::dc_shift_rct_forward(d0.get(), d1.get(), d2.get(), n, gc::int3_of(offs), nullptr);
        ASSERT_EQ(d0.get_host(), r[0]);
        ASSERT_EQ(d1.get_host(), r[1]);
        ASSERT_EQ(d2.get_host(), r[2]);
        transform::rct_inverse_dc_shift(r[0].data(), r[1].data(), r[2].data(), n, offs, los, his);
        gc::rct_inverse_dc_shift(d0.get(), d1.get(), d2.get(), n, gc::int3_of(offs),
                                 gc::int3_of(los), gc::int3_of(his), nullptr);
        ASSERT_EQ(d0.get_host(), r[0]);
        ASSERT_EQ(r[0], c[0]) << "RCT round trip";

        // Unfused RCT and DC shift.
        transform::rct_forward(r[0].data(), r[1].data(), r[2].data(), n);
        gc::rct_forward(d0.get(), d1.get(), d2.get(), n, nullptr);
        ASSERT_EQ(d1.get_host(), r[1]);
        transform::rct_inverse(r[0].data(), r[1].data(), r[2].data(), n);
        gc::rct_inverse(d0.get(), d1.get(), d2.get(), n, nullptr);
        ASSERT_EQ(d2.get_host(), r[2]);
        transform::dc_shift_forward(r[0].data(), n, off);
        gc::dc_shift_forward(d0.get(), n, off, nullptr);
        ASSERT_EQ(d0.get_host(), r[0]);
        transform::dc_shift_inverse(r[0].data(), n, off);
        gc::dc_shift_inverse(d0.get(), n, off, nullptr);
        ASSERT_EQ(d0.get_host(), r[0]);
        // Out-of-range values get clamped.
        for (auto& x : r[1]) x = x * 3 - off;
        Dev<int32_t> e1(r[1]);
        transform::dc_shift_inverse_clamp(r[1].data(), n, off, lo, hi);
        gc::dc_shift_inverse_clamp(e1.get(), n, off, lo, hi, nullptr);
        ASSERT_EQ(e1.get_host(), r[1]);
      }
    }
  }
}

double max_rel(const std::vector<float>& a, const std::vector<float>& b) {
  double peak = 1, err = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    peak = std::max(peak, std::abs(double(b[i])));
    err = std::max(err, std::isnan(a[i]) ? 1e30 : std::abs(double(a[i]) - double(b[i])));
  }
  return err / peak;
}
int max_abs_diff(const std::vector<int32_t>& a, const std::vector<int32_t>& b) {
  int64_t m = 0;
  for (size_t i = 0; i < a.size(); ++i) m = std::max<int64_t>(m, std::llabs(int64_t{a[i]} - b[i]));
  return static_cast<int>(std::min<int64_t>(m, 1 << 30));
}

TEST(GpuMct, IctWithinTolerance) {
  GJ2K_REQUIRE_GPU();
  uint32_t seed = 4321;
  for (const Params& p : kParams) {
    for (size_t n : kCounts) {
      for (int f = 0; f < 4; ++f) {
        std::mt19937 rng(++seed);
        SCOPED_TRACE(testing::Message() << "precision " << p.precision << " signed " << p.is_signed
                                        << " n " << n << " fill " << f << " seed " << seed);
        const int32_t off = transform::dc_offset(p.precision, p.is_signed);
        const int32_t offs[3] = {off, off, off};
        const int32_t lo = p.is_signed ? -(1 << (p.precision - 1)) : 0;
        const int32_t hi = p.is_signed ? (1 << (p.precision - 1)) - 1 : (1 << p.precision) - 1;
        const int32_t los[3] = {lo, lo, lo}, his[3] = {hi, hi, hi};
        std::vector<int32_t> c[3];
        for (auto& x : c) x = samples(n, p.precision, p.is_signed, f, rng);
        std::vector<float> y[3];
        for (auto& x : y) x.resize(n);
        transform::dc_shift_ict_forward(c[0].data(), c[1].data(), c[2].data(), y[0].data(),
                                        y[1].data(), y[2].data(), n, offs);
        Dev<int32_t> i0(c[0]), i1(c[1]), i2(c[2]);
        Dev<float> f0(n), f1(n), f2(n);
        gc::dc_shift_ict_forward(i0.get(), i1.get(), i2.get(), f0.get(), f1.get(), f2.get(), n,
                                 gc::int3_of(offs), nullptr);
        for (int k = 0; k < 3; ++k) {
          const auto got = (k == 0 ? f0 : k == 1 ? f1 : f2).get_host();
          EXPECT_LE(max_rel(got, y[k]), kTolIct) << "component " << k;
        }
        // Inverse from the same (CPU) coefficients: rounded and clamped integers.
        Dev<float> g0(y[0]), g1(y[1]), g2(y[2]);
        std::vector<int32_t> back[3];
        for (auto& x : back) x.resize(n);
        transform::ict_inverse_dc_shift(y[0].data(), y[1].data(), y[2].data(), back[0].data(),
                                        back[1].data(), back[2].data(), n, offs, los, his);
        gc::ict_inverse_dc_shift(g0.get(), g1.get(), g2.get(), i0.get(), i1.get(), i2.get(), n,
                                 gc::int3_of(offs), gc::int3_of(los), gc::int3_of(his), nullptr);
        EXPECT_LE(max_abs_diff(i0.get_host(), back[0]), 1);
        EXPECT_LE(max_abs_diff(i1.get_host(), back[1]), 1);
        EXPECT_LE(max_abs_diff(i2.get_host(), back[2]), 1);
        // Unfused float ICT.
        std::vector<float> z[3] = {y[0], y[1], y[2]};
        transform::ict_inverse(z[0].data(), z[1].data(), z[2].data(), n);
        gc::ict_inverse(g0.get(), g1.get(), g2.get(), n, nullptr);
        EXPECT_LE(max_rel(g1.get_host(), z[1]), kTolIct);
        transform::ict_forward(z[0].data(), z[1].data(), z[2].data(), n);
        gc::ict_forward(g0.get(), g1.get(), g2.get(), n, nullptr);
        EXPECT_LE(max_rel(g2.get_host(), z[2]), kTolIct);
        // Single-component float conversions.
        std::vector<float> fl(n);
        transform::dc_shift_to_float(c[0].data(), fl.data(), n, off);
        gc::dc_shift_to_float(i0.get(), f0.get(), n, off, nullptr);
        EXPECT_EQ(f0.get_host(), fl);
        for (auto& x : fl) x = x * 1.37f + 0.5f;
        Dev<float> h0(fl);
        std::vector<int32_t> ints(n);
        transform::float_to_int_dc_shift(fl.data(), ints.data(), n, off, lo, hi);
        gc::float_to_int_dc_shift(h0.get(), i1.get(), n, off, lo, hi, nullptr);
        EXPECT_EQ(i1.get_host(), ints);
      }
    }
  }
}

#else
TEST(GpuMct, SkippedWithoutCuda) {
  GTEST_SKIP() << transform::gpu_info().reason;
}
#endif

}  // namespace
}  // namespace gj2k::test
