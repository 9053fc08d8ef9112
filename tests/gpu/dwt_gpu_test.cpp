// GPU DWT kernel suite (checkasm style, docs/ARCHITECTURE.md "Testing"): every GPU variant against
// the Annex F reference (dwt_ops(kReference)) on seeded random data and adversarial fills, sizes 1,
// 2, 3, 63, 65, 4097 (4097 only as a thin strip), odd and even origins, 0 to beyond the maximum
// useful number of levels, in pitched buffers with guard rows and columns.
//   5/3: identical.   9/7: |gpu - ref| <= kTol97 * max(1, peak |sample|) per sample.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>
#include <vector>

#include "gj2k/error.h"
#include "gpu_test_util.h"
#include "transform/dwt.h"

#if defined(GJ2K_HAVE_CUDA)
#include "transform/cuda/dwt_cuda.h"
#endif

namespace gj2k::test {
namespace {

using transform::DwtVariant;
using transform::Plane;
using transform::Rect;

// 9/7 tolerance relative to the peak magnitude: float32 lifting differs only in rounding
// order (FMA contraction, folded K scaling); observed errors are ~1e-7 relative.
constexpr double kTol97 = 2e-5;

#if defined(GJ2K_HAVE_CUDA)
namespace gc = transform::cuda;

const gc::GpuDwtVariant kVariants[] = {gc::GpuDwtVariant::kBlock,  gc::GpuDwtVariant::kBlockWide,
                                       gc::GpuDwtVariant::kFused,  gc::GpuDwtVariant::kFusedShort,
                                       gc::GpuDwtVariant::kLaan,   gc::GpuDwtVariant::kInplace,
                                       gc::GpuDwtVariant::kLattice};

struct Size {
  uint32_t w, h;
};
const Size kSizes[] = {{1, 1},  {2, 1},   {1, 2},   {2, 2},    {3, 3},    {1, 65},   {65, 1},
                       {2, 63}, {63, 65}, {65, 63}, {3, 4097}, {4097, 3}, {4097, 1}, {1, 4097}};
const uint32_t kOrigins[][2] = {{0, 0}, {1, 0}, {0, 1}, {1, 1}, {1023, 77}};

// Levels up to where every resolution is 1 x 1, plus two more (empty-level handling).
int max_levels(uint32_t w, uint32_t h) {
  int n = 0;
  while ((uint64_t{1} << n) < std::max(w, h)) ++n;
  return n + 2;
}

template <class T>
struct Kernel;
template <>
struct Kernel<int32_t> {
  static constexpr const char* name = "5/3";
  static void ref(bool fwd, Plane<int32_t> p, const Rect& tc, int levels, DwtVariant rv) {
    const auto& ops = transform::dwt_ops(rv);
    (fwd ? ops.forward53 : ops.inverse53)(p, tc, levels);
  }
  static void gpu(bool fwd, gc::GpuDwtVariant v, int32_t* d, size_t pitch, const Rect& tc,
                  int levels, void* ws, size_t wsb) {
    gc::DevicePlane<int32_t> p{d, pitch};
    if (fwd)
      gc::dwt53_forward(v, p, tc, levels, ws, wsb, nullptr);
    else
      gc::dwt53_inverse(v, p, tc, levels, ws, wsb, nullptr);
  }
  static int32_t random_max() { return 1 << 20; }
  static int32_t adversarial_max() { return std::numeric_limits<int32_t>::max(); }
};
template <>
struct Kernel<float> {
  static constexpr const char* name = "9/7";
  static void ref(bool fwd, Plane<float> p, const Rect& tc, int levels, DwtVariant rv) {
    const auto& ops = transform::dwt_ops(rv);
    (fwd ? ops.forward97 : ops.inverse97)(p, tc, levels);
  }
  static void gpu(bool fwd, gc::GpuDwtVariant v, float* d, size_t pitch, const Rect& tc, int levels,
                  void* ws, size_t wsb) {
    gc::DevicePlane<float> p{d, pitch};
    if (fwd)
      gc::dwt97_forward(v, p, tc, levels, ws, wsb, nullptr);
    else
      gc::dwt97_inverse(v, p, tc, levels, ws, wsb, nullptr);
  }
  static float random_max() { return 255.0f; }
  static float adversarial_max() { return 65535.0f; }
};

// Runs one case; returns an empty string on success, else what went wrong. exact: against the
// CPU variant the codec uses (kCpu), bit for bit (9/7 floats included); else against the
// Annex F reference, 9/7 within kTol97.
template <class T>
std::string run_case(gc::GpuDwtVariant v, bool fwd, const Rect& tc, int levels, Fill f,
                     uint32_t seed, double* worst_rel, bool exact = false) {
  std::mt19937 rng(seed);
  const T sentinel = static_cast<T>(-12345);
  HostPlane<T> in(tc.width(), tc.height(), 3, 2, sentinel);
  fill(in, f, f == Fill::kRandom ? Kernel<T>::random_max() : Kernel<T>::adversarial_max(), rng);
  HostPlane<T> ref = in;
  Kernel<T>::ref(fwd, Plane<T>{ref.data(), ref.stride}, tc, levels,
                 exact ? DwtVariant::kCpu : DwtVariant::kReference);

  DevicePlaneCopy<T> d(in);
  const size_t wsb = gc::dwt_workspace_bytes(v, tc, levels, true);
  gc::DeviceBuffer ws(wsb);
  Kernel<T>::gpu(fwd, v, d.data(), d.stride, tc, levels, ws.get(), wsb);
  GJ2K_CUDA_CHECK(cudaDeviceSynchronize());
  const std::vector<T> got = d.download();

  std::ostringstream what;
  what << Kernel<T>::name << (fwd ? " forward" : " inverse") << " variant " << gc::to_string(v)
       << " tc (" << tc.x0 << "," << tc.y0 << ")-(" << tc.x1 << "," << tc.y1 << ") levels "
       << levels << " fill " << to_string(f) << " seed " << seed << ": ";
  if (const long g = in.first_guard_mismatch(got); g >= 0) {
    what << "wrote outside the tile-component at buffer element " << g;
    return what.str();
  }
  double peak = 1.0;
  for (uint32_t y = 0; y < tc.height(); ++y)
    for (uint32_t x = 0; x < tc.width(); ++x)
      peak = std::max({peak, std::abs(double(ref.at(x, y))), std::abs(double(in.at(x, y)))});
  for (uint32_t y = 0; y < tc.height(); ++y) {
    for (uint32_t x = 0; x < tc.width(); ++x) {
      const T r = ref.at(x, y);
      const T g = got[(y + in.guard) * in.stride + x];
      if (std::is_integral_v<T> || exact) {
        if (std::memcmp(&r, &g, sizeof(T)) != 0) {
          what << "sample (" << x << "," << y << ") gpu " << g << " reference " << r;
          return what.str();
        }
      } else {
        const double rel = std::abs(double(g) - double(r)) / peak;
        if (!(rel <= kTol97)) {  // NaN fails too
          what << "sample (" << x << "," << y << ") gpu " << g << " reference " << r
               << " relative error " << rel;
          return what.str();
        }
        *worst_rel = std::max(*worst_rel, rel);
      }
    }
  }
  return {};
}

template <class T>
void sweep(bool fwd) {
  int failures = 0;
  double worst = 0;
  uint32_t seed = 20261122u + (fwd ? 0 : 7777) + (std::is_integral_v<T> ? 0 : 99);
  for (gc::GpuDwtVariant v : kVariants) {
    for (const Size& s : kSizes) {
      for (const auto& o : kOrigins) {
        const Rect tc{o[0], o[1], o[0] + s.w, o[1] + s.h};
        const int lmax = max_levels(s.w, s.h);
        for (int levels = 0; levels <= lmax; ++levels) {
          std::vector<Fill> fills{Fill::kRandom};
          if (levels == 1 || levels == lmax)
            fills.insert(fills.end(),
                         {Fill::kZero, Fill::kOne, Fill::kMax, Fill::kMaxMinus1, Fill::kAlternate});
          for (Fill f : fills) {
            const std::string err = run_case<T>(v, fwd, tc, levels, f, ++seed, &worst);
            if (!err.empty()) {
              ADD_FAILURE() << err;
              if (++failures >= 5) return;
            }
          }
        }
      }
    }
  }
  if (!std::is_integral_v<T>) std::printf("[ info ] worst 9/7 relative error %.3g\n", worst);
}

TEST(GpuDwt, Forward53MatchesReference) {
  GJ2K_REQUIRE_GPU();
  sweep<int32_t>(true);
}
TEST(GpuDwt, Inverse53MatchesReference) {
  GJ2K_REQUIRE_GPU();
  sweep<int32_t>(false);
}
TEST(GpuDwt, Forward97WithinTolerance) {
  GJ2K_REQUIRE_GPU();
  sweep<float>(true);
}
TEST(GpuDwt, Inverse97WithinTolerance) {
  GJ2K_REQUIRE_GPU();
  sweep<float>(false);
}

// The variant the codec uses (kDefault: fused-short forward, fused inverse) computes the 9/7
// exactly as the CPU's lifting (dwt_cpu.cpp): the same float operations, unfused, with the K
// scaling of each direction where the CPU applies it. So the GPU encoder's quantization indices
// and the GPU decoder's samples equal the CPU's.
TEST(GpuDwt, Default97BitIdenticalToCpu) {
  GJ2K_REQUIRE_GPU();
  int failures = 0;
  uint32_t seed = 4242;
  double worst = 0;
  for (const Size& s : kSizes) {
    for (const auto& o : kOrigins) {
      const Rect tc{o[0], o[1], o[0] + s.w, o[1] + s.h};
      for (int levels = 0; levels <= max_levels(s.w, s.h); ++levels) {
        for (bool fwd : {true, false}) {
          const std::string e = run_case<float>(gc::GpuDwtVariant::kDefault, fwd, tc, levels,
                                                Fill::kRandom, ++seed, &worst, true);
          if (!e.empty()) {
            ADD_FAILURE() << e;
            if (++failures >= 5) return;
          }
        }
      }
    }
  }
  for (const Rect& tc : {Rect{5, 3, 5 + 517, 3 + 389}, Rect{0, 0, 1280, 720}}) {
    for (int levels : {1, 5}) {
      for (bool fwd : {true, false}) {
        const std::string e = run_case<float>(gc::GpuDwtVariant::kDefault, fwd, tc, levels,
                                              Fill::kRandom, ++seed, &worst, true);
        EXPECT_TRUE(e.empty()) << e;
      }
    }
  }
}

// Many tiles in both directions at odd origins: 2-D blocks, halos across tile seams.
TEST(GpuDwt, LargeOddOriginMatchesReference) {
  GJ2K_REQUIRE_GPU();
  double worst = 0;
  for (gc::GpuDwtVariant v : kVariants) {
    for (const Rect& tc : {Rect{5, 3, 5 + 517, 3 + 389}, Rect{0, 0, 640, 480}}) {
      for (int levels : {1, 3, 6}) {
        for (bool fwd : {true, false}) {
          std::string e =
              run_case<int32_t>(v, fwd, tc, levels, Fill::kRandom, 42u + levels, &worst);
          EXPECT_TRUE(e.empty()) << e;
          e = run_case<float>(v, fwd, tc, levels, Fill::kRandom, 43u + levels, &worst);
          EXPECT_TRUE(e.empty()) << e;
        }
      }
    }
  }
}

// Long lines for the unified-buffer variant: many chunk cycles (2900 samples: q = 11 segments
// of 2b = 256, cycles of lengths 6, 3, 6, 2, 3 mod 21; 1101: q = 4) and partial last segments
// at odd and even origins (the tail fix-up), in both directions; the lattice variant too.
TEST(GpuDwt, LongLinesMatchReference) {
  GJ2K_REQUIRE_GPU();
  double worst = 0;
  for (gc::GpuDwtVariant v : {gc::GpuDwtVariant::kInplace, gc::GpuDwtVariant::kLattice}) {
    for (const Rect& tc : {Rect{1, 3, 1 + 2900, 3 + 41}, Rect{2, 1, 2 + 37, 1 + 1101},
                           Rect{0, 0, 1024, 1024}, Rect{0, 1, 512 + 127, 1 + 513}}) {
      for (int levels : {1, 4}) {
        for (bool fwd : {true, false}) {
          std::string e =
              run_case<int32_t>(v, fwd, tc, levels, Fill::kRandom, 57u + levels, &worst);
          EXPECT_TRUE(e.empty()) << e;
          e = run_case<float>(v, fwd, tc, levels, Fill::kRandom, 58u + levels, &worst);
          EXPECT_TRUE(e.empty()) << e;
        }
      }
    }
  }
}

// The point of the unified-buffer method: its scratch is the permutation seeds only, a tiny
// fraction of the data (8192^2, 5 levels: under 0.1 % of N; Ikuzawa et al., Theorem 1), while
// the lattice passes need one level-1 plane (N) and laan half of one.
TEST(GpuDwt, InplaceWorkspaceIsTiny) {
  const Rect tc{0, 0, 8192, 8192};
  const size_t n_bytes = size_t{8192} * 8192 * 4;
  const size_t inplace = gc::dwt_workspace_bytes(gc::GpuDwtVariant::kInplace, tc, 5, true);
  EXPECT_LT(inplace, n_bytes / 1000);
  EXPECT_GT(inplace, 0u);  // 8192 samples: q = 32 segments, so there are seeds to store
  EXPECT_EQ(gc::dwt_workspace_bytes(gc::GpuDwtVariant::kLattice, tc, 5, true), n_bytes);
  EXPECT_LT(gc::dwt_workspace_bytes(gc::GpuDwtVariant::kLaan, tc, 5, true), n_bytes);
  EXPECT_EQ(gc::parse_gpu_dwt_variant("inplace"), gc::GpuDwtVariant::kInplace);
  EXPECT_EQ(gc::parse_gpu_dwt_variant("lattice"), gc::GpuDwtVariant::kLattice);
  EXPECT_STREQ(gc::to_string(gc::GpuDwtVariant::kLattice), "lattice");
}

// Every variant gives the same 5/3 result as the others, forward and inverse, including sizes
// that span several tiles and a grid taller than one launch row (independent of the reference).
TEST(GpuDwt, VariantsAgree) {
  GJ2K_REQUIRE_GPU();
  const uint32_t seed = 31337;
  for (const Rect& tc : {Rect{7, 9, 7 + 1000, 9 + 700}, Rect{2, 1, 2 + 129, 1 + 2050}}) {
    for (bool fwd : {true, false}) {
      std::mt19937 rng(seed);
      HostPlane<int32_t> in(tc.width(), tc.height(), 1, 1, 5);
      fill(in, Fill::kRandom, 1 << 18, rng);
      std::vector<int32_t> first;
      for (gc::GpuDwtVariant v : kVariants) {
        DevicePlaneCopy<int32_t> d(in);
        const size_t wsb = gc::dwt_workspace_bytes(v, tc, 6, true);
        gc::DeviceBuffer ws(wsb);
        Kernel<int32_t>::gpu(fwd, v, d.data(), d.stride, tc, 6, ws.get(), wsb);
        GJ2K_CUDA_CHECK(cudaDeviceSynchronize());
        const std::vector<int32_t> got = d.download();
        EXPECT_EQ(in.first_guard_mismatch(got), -1) << gc::to_string(v);
        if (first.empty())
          first = got;
        else
          EXPECT_TRUE(first == got)
              << gc::to_string(v) << (fwd ? " forward" : " inverse") << " differs from "
              << gc::to_string(kVariants[0]) << ", seed " << seed;
      }
    }
  }
}

// 5/3 forward then inverse on the GPU gives back the input exactly.
TEST(GpuDwt, PerfectReconstruction53) {
  GJ2K_REQUIRE_GPU();
  const uint32_t seed = 777;
  std::mt19937 rng(seed);
  const Rect tc{3, 1, 3 + 301, 1 + 257};
  HostPlane<int32_t> in(tc.width(), tc.height(), 5, 1, -7);
  fill(in, Fill::kRandom, 1 << 16, rng);
  DevicePlaneCopy<int32_t> d(in);
  const size_t wsb = gc::dwt_workspace_bytes(gc::GpuDwtVariant::kDefault, tc, 5, true);
  gc::DeviceBuffer ws(wsb);
  gc::DevicePlane<int32_t> p{d.data(), d.stride};
  gc::dwt53_forward(gc::GpuDwtVariant::kDefault, p, tc, 5, ws.get(), wsb, nullptr);
  gc::dwt53_inverse(gc::GpuDwtVariant::kDefault, p, tc, 5, ws.get(), wsb, nullptr);
  GJ2K_CUDA_CHECK(cudaDeviceSynchronize());
  EXPECT_EQ(d.download(), in.all) << "seed " << seed;
}

// The out-of-place entry points leave src alone and give the in-place result.
TEST(GpuDwt, OutOfPlaceMatchesInPlace) {
  GJ2K_REQUIRE_GPU();
  const uint32_t seed = 99;
  std::mt19937 rng(seed);
  const Rect tc{1, 2, 1 + 300, 2 + 131};
  const int levels = 4;
  HostPlane<float> in(tc.width(), tc.height(), 0, 0, 0.0f);
  fill(in, Fill::kRandom, 100.0f, rng);
  for (gc::GpuDwtVariant v : {gc::GpuDwtVariant::kDefault, gc::GpuDwtVariant::kInplace,
                              gc::GpuDwtVariant::kLattice, gc::GpuDwtVariant::kLaan}) {
    DevicePlaneCopy<float> a(in), b(in), c(in);
    const size_t ws_in = gc::dwt_workspace_bytes(v, tc, levels, true);
    const size_t ws_out = gc::dwt_workspace_bytes(v, tc, levels, false);
    if (v == gc::GpuDwtVariant::kDefault) {
      EXPECT_LT(ws_out, ws_in);
    }
    gc::DeviceBuffer ws(std::max(ws_in, ws_out));
    for (bool fwd : {true, false}) {
      gc::DevicePlane<float> pa{a.data(), a.stride}, pc{c.data(), c.stride};
      gc::DevicePlane<const float> pb{b.data(), b.stride};
      if (fwd) {
        gc::dwt97_forward(v, pa, tc, levels, ws.get(), ws_in, nullptr);
        gc::dwt97_forward(v, pb, pc, tc, levels, ws.get(), ws_out, nullptr);
      } else {
        gc::dwt97_inverse(v, pa, tc, levels, ws.get(), ws_in, nullptr);
        gc::dwt97_inverse(v, pb, pc, tc, levels, ws.get(), ws_out, nullptr);
      }
      GJ2K_CUDA_CHECK(cudaDeviceSynchronize());
      EXPECT_EQ(b.download(), in.all) << gc::to_string(v) << " src modified, seed " << seed;
      EXPECT_EQ(c.download(), a.download())
          << gc::to_string(v) << (fwd ? " forward" : " inverse") << ", seed " << seed;
      a.upload(in), c.upload(in);  // the inverse starts again from the input
    }
  }
}

TEST(GpuDwt, RejectsBadArguments) {
  GJ2K_REQUIRE_GPU();
  const Rect tc{0, 0, 64, 64};
  gc::DeviceBuffer buf(64 * 64 * 4);
  gc::DevicePlane<int32_t> p{buf.as<int32_t>(), 64};
  const auto v = gc::GpuDwtVariant::kDefault;
  const size_t need = gc::dwt_workspace_bytes(v, tc, 3, true);
  gc::DeviceBuffer ws(need);
  auto code = [&](auto&& fn) {
    try {
      fn();
    } catch (const Error& e) {
      return e.code();
    }
    return ErrorCode::kInternal;
  };
  EXPECT_EQ(code([&] { gc::dwt53_forward(v, p, tc, 33, ws.get(), need, nullptr); }),
            ErrorCode::kInvalidArgument);
  EXPECT_EQ(code([&] { gc::dwt53_forward(v, p, tc, 3, ws.get(), need - 1, nullptr); }),
            ErrorCode::kInvalidArgument);
  EXPECT_EQ(code([&] {
              gc::dwt53_forward(v, gc::DevicePlane<int32_t>{p.d_data, 63}, tc, 3, ws.get(), need,
                                nullptr);
            }),
            ErrorCode::kInvalidArgument);
  EXPECT_THROW(gc::parse_gpu_dwt_variant("nope"), Error);
  EXPECT_EQ(gc::parse_gpu_dwt_variant("block-wide"), gc::GpuDwtVariant::kBlockWide);
}

#else
TEST(GpuDwt, SkippedWithoutCuda) {
  GTEST_SKIP() << transform::gpu_info().reason;
}
#endif

}  // namespace
}  // namespace gj2k::test
