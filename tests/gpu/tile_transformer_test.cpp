// TileTransformer (the GPU transform stage of the codec) against the CPU functions of
// transform/: 5/3 + RCT identical (and a lossless round trip through the CUDA tile backend); 9/7 +
// ICT + quantization within one quantization step (float rounding may move an index across a step
// boundary) for nearly every sample. Several tiles through 2 slots, overlapping.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <vector>

#include "codec/tile_backend.h"
#include "gpu_test_util.h"
#include "transform/dwt.h"
#include "transform/mct.h"
#include "transform/quant.h"

#if defined(GJ2K_HAVE_CUDA)
#include "transform/cuda/tile_transformer.h"
#endif

namespace gj2k::test {
namespace {

#if defined(GJ2K_HAVE_CUDA)
namespace gc = transform::cuda;
using transform::Band;
using transform::Rect;

// Component c's result in `slot`, n values, with a sentinel after them that output() must
// leave alone.
std::vector<int32_t> result(gc::TileTransformer& tt, int slot, int c, size_t n) {
  constexpr int32_t kSentinel = 0x5a5a5a5a;
  std::vector<int32_t> v(n + 1, kSentinel);
  tt.output(slot, c, v.data());
  EXPECT_EQ(v[n], kSentinel) << "output wrote past component " << c;
  v.pop_back();
  return v;
}

gc::TileSpec make_spec(const Rect& tc, int ncomp, bool reversible, bool mct, int levels) {
  gc::TileSpec spec;
  spec.levels = levels;
  spec.reversible = reversible;
  spec.mct = mct;
  for (int c = 0; c < ncomp; ++c) {
    gc::TileComponentSpec comp;
    comp.rect = tc;
    comp.dc_offset = 128;
    for (int i = 0; i < 3 * levels + 1; ++i) comp.deltas.push_back(0.75f + 0.25f * i);
    spec.comps.push_back(comp);
  }
  return spec;
}

// CPU pipeline of the encoder: the expected outputs.
std::vector<std::vector<int32_t>> cpu_encode(const gc::TileSpec& spec,
                                             std::vector<std::vector<int32_t>> in) {
  const Rect tc = spec.comps[0].rect;
  const size_t n = size_t{tc.width()} * tc.height();
  const int32_t off[3] = {128, 128, 128};
  const auto& ref = transform::dwt_ops(transform::DwtVariant::kReference);
  std::vector<std::vector<int32_t>> out(in.size(), std::vector<int32_t>(n));
  if (spec.reversible) {
    transform::dc_shift_rct_forward(in[0].data(), in[1].data(), in[2].data(), n, off);
    for (size_t c = 0; c < in.size(); ++c) {
      ref.forward53({in[c].data(), tc.width()}, tc, spec.levels);
      out[c] = in[c];
    }
    return out;
  }
  std::vector<std::vector<float>> f(in.size(), std::vector<float>(n));
  transform::dc_shift_ict_forward(in[0].data(), in[1].data(), in[2].data(), f[0].data(),
                                  f[1].data(), f[2].data(), n, off);
  for (size_t c = 0; c < in.size(); ++c) {
    ref.forward97({f[c].data(), tc.width()}, tc, spec.levels);
    auto band = [&](int lvl, Band b) {
      const auto pl = transform::band_placement(tc, spec.levels, lvl, b);
      const float d = spec.comps[c].deltas[transform::qcd_index(spec.levels, lvl, b)];
      for (uint32_t r = 0; r < pl.rect.height(); ++r) {
        const size_t at = size_t{pl.y_off + r} * tc.width() + pl.x_off;
        transform::quantize(&f[c][at], &out[c][at], pl.rect.width(), d);
      }
    };
    band(spec.levels, Band::kLL);
    for (int lvl = spec.levels; lvl >= 1; --lvl)
      for (Band b : {Band::kHL, Band::kLH, Band::kHH}) band(lvl, b);
  }
  return out;
}

TEST(GpuTileTransformer, EncodeMatchesCpuAndRoundTrips) {
  GJ2K_REQUIRE_GPU();
  gc::TileTransformer tt(2);
  const Rect tiles[] = {
      {5, 3, 5 + 67, 3 + 45}, {0, 0, 128, 64}, {1, 1, 1 + 33, 1 + 97}, {64, 32, 64 + 100, 32 + 1}};
  for (bool reversible : {true, false}) {
    const int levels = 3;
    std::vector<std::vector<std::vector<int32_t>>> inputs;
    // Enqueue every tile before reading any result: slots are reused while others run.
    std::vector<std::vector<std::vector<int32_t>>> got(std::size(tiles));
    uint32_t seed = reversible ? 11 : 12;
    for (size_t t = 0; t < std::size(tiles); ++t) {
      const gc::TileSpec spec = make_spec(tiles[t], 3, reversible, true, levels);
      const int slot = static_cast<int>(t % 2);
      if (t >= 2) {  // collect the result that this slot still holds
        for (int c = 0; c < 3; ++c)
          got[t - 2].push_back(result(tt, slot, c, inputs[t - 2][c].size()));
      }
      std::mt19937 rng(++seed);
      inputs.emplace_back();
      for (int c = 0; c < 3; ++c) {
        int32_t* in = tt.input(slot, spec, c);
        std::vector<int32_t> v(size_t{tiles[t].width()} * tiles[t].height());
        for (auto& x : v) x = static_cast<int32_t>(rng() & 0xff);
        std::copy(v.begin(), v.end(), in);
        inputs.back().push_back(v);
      }
      tt.encode(slot, spec);
    }
    for (size_t t = std::size(tiles) - 2; t < std::size(tiles); ++t)
      for (int c = 0; c < 3; ++c)
        got[t].push_back(result(tt, static_cast<int>(t % 2), c, inputs[t][c].size()));
    for (size_t t = 0; t < std::size(tiles); ++t) {
      SCOPED_TRACE(testing::Message() << (reversible ? "5/3" : "9/7") << " tile " << t << " seed "
                                      << (reversible ? 11 : 12) + t + 1);
      const gc::TileSpec spec = make_spec(tiles[t], 3, reversible, true, levels);
      const auto want = cpu_encode(spec, inputs[t]);
      for (int c = 0; c < 3; ++c) {
        if (reversible) {
          ASSERT_EQ(got[t][c], want[c]) << "component " << c;
        } else {
          size_t off_by_one = 0;
          for (size_t i = 0; i < want[c].size(); ++i) {
            ASSERT_LE(std::abs(got[t][c][i] - want[c][i]), 1) << "component " << c << " at " << i;
            off_by_one += got[t][c][i] != want[c][i];
          }
          EXPECT_LE(off_by_one, want[c].size() / 100 + 1) << "component " << c;
        }
      }
      // 5/3: the CUDA tile backend (the decoder's tail) gives the input back exactly.
      if (!reversible) continue;
      std::vector<codec::CoefficientPlane> planes(3);
      for (int c = 0; c < 3; ++c) {
        planes[c].rect = tiles[t];
        planes[c].levels = levels;
        planes[c].decode = planes[c].wanted = true;
        codec::set_sample_range(planes[c], 8, false);
        planes[c].ints.assign(got[t][c].begin(), got[t][c].end());
      }
      std::vector<codec::TileComponentSamples> back;
      codec::cuda_backend().inverse(planes, true, 2, back);
      for (int c = 0; c < 3; ++c)
        ASSERT_TRUE(std::equal(back[c].samples.begin(), back[c].samples.end(), inputs[t][c].begin(),
                               inputs[t][c].end()))
            << "component " << c;
    }
  }
}

// 8- and 16-bit samples uploaded narrow give the same result as int32 samples.
TEST(GpuTileTransformer, NarrowUploadMatchesInt32) {
  GJ2K_REQUIRE_GPU();
  gc::TileTransformer tt(1);
  const Rect tc{3, 2, 3 + 77, 2 + 41};
  const size_t n = size_t{tc.width()} * tc.height();
  const uint32_t seed = 99;
  for (int bytes : {1, 2}) {
    for (bool is_signed : {false, true}) {
      std::mt19937 rng(seed + bytes * 2 + is_signed);
      gc::TileSpec spec = make_spec(tc, 3, true, true, 4);
      std::vector<std::vector<int32_t>> v(3, std::vector<int32_t>(n));
      for (auto& comp : v)
        for (auto& x : comp) {
          const int32_t u = static_cast<int32_t>(rng() & (bytes == 1 ? 0xff : 0xffff));
          x = is_signed ? (bytes == 1 ? int32_t(int8_t(u)) : int32_t(int16_t(u))) : u;
        }
      for (int c = 0; c < 3; ++c) std::copy(v[c].begin(), v[c].end(), tt.input(0, spec, c));
      tt.encode(0, spec);
      std::vector<std::vector<int32_t>> wide;
      for (int c = 0; c < 3; ++c) wide.push_back(result(tt, 0, c, n));
      spec.sample_bytes = bytes;
      spec.sample_signed = is_signed;
      for (int c = 0; c < 3; ++c) {
        void* raw = tt.input_raw(0, spec, c);
        for (size_t i = 0; i < n; ++i) {
          if (bytes == 1)
            static_cast<uint8_t*>(raw)[i] = static_cast<uint8_t>(v[c][i]);
          else
            static_cast<uint16_t*>(raw)[i] = static_cast<uint16_t>(v[c][i]);
        }
      }
      tt.encode(0, spec);
      for (int c = 0; c < 3; ++c) {
        const std::vector<int32_t> narrow = result(tt, 0, c, n);
        EXPECT_EQ(narrow, wide[c]) << bytes << "-byte " << (is_signed ? "signed" : "unsigned")
                                   << " component " << c << " seed " << seed;
      }
    }
  }
}

#else
TEST(GpuTileTransformer, SkippedWithoutCuda) {
  GTEST_SKIP() << transform::gpu_info().reason;
}
#endif

}  // namespace
}  // namespace gj2k::test
