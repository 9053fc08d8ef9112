// gj2k's own encoder -> gj2k's decoder: lossless streams round-trip bit-exact for bit depths
// 1..16, signed and unsigned, 1..4 components, tiles, odd origins and the encoder's options;
// 9/7 streams decode as OpenJPEG decodes them (peak error <= 1).
#include <gtest/gtest.h>

#if __has_include("gj2k/encoder.h")
#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <string>

#include "gj2k/decoder.h"
#include "gj2k/encoder.h"
#include "tests/codec/decode_opj.h"

namespace {

gj2k::Image random_image(uint32_t w, uint32_t h, uint32_t ncomp, uint32_t precision, bool is_signed,
                         uint32_t x0, uint32_t y0, uint32_t seed) {
  gj2k::Image img = gj2k::make_image(w, h, ncomp, precision, is_signed, x0, y0);
  std::mt19937 rng(seed);
  for (auto& c : img.components) {
    const int64_t lo = c.min_value(), hi = c.max_value();
    // Smooth field plus noise, so that every bit-plane and pass type occurs.
    for (uint32_t y = 0; y < c.height; ++y)
      for (uint32_t x = 0; x < c.width; ++x) {
        const double t = 0.5 + 0.4 * std::sin(0.11 * x) * std::cos(0.07 * y);
        int64_t v =
            lo + static_cast<int64_t>(t * double(hi - lo)) + static_cast<int64_t>(rng() % 7) - 3;
        c.at(x, y) = static_cast<int32_t>(std::clamp(v, lo, hi));
      }
  }
  return img;
}

struct RoundTrip {
  std::string name;
  uint32_t w, h, ncomp, precision;
  bool is_signed;
  uint32_t x0, y0;
  std::function<void(gj2k::EncodeParams&)> adjust;
};

void PrintTo(const RoundTrip& r, std::ostream* os) {
  *os << r.name;
}

std::vector<RoundTrip> roundtrips() {
  std::vector<RoundTrip> v;
  for (uint32_t bits : {1u, 2u, 5u, 8u, 10u, 12u, 16u}) {
    v.push_back({"", 45, 33, 1, bits, false, 0, 0, [](auto&) {}});
    v.push_back({"", 45, 33, 3, bits, true, 3, 1, [](auto&) {}});
  }
  for (auto& r : v)
    r.name = (r.is_signed ? "Signed" : "Unsigned") + std::to_string(r.precision) + "Bits" +
             std::to_string(r.ncomp) + "Comps";
  v.push_back({"TilesOddOrigin", 97, 70, 3, 8, false, 7, 5, [](gj2k::EncodeParams& p) {
                 p.tile_width = 32;
                 p.tile_height = 24;
                 p.tile_x0 = 3;
                 p.tile_y0 = 2;
                 p.levels = 3;
               }});
  v.push_back({"FourComponentsPrecincts", 80, 64, 4, 8, false, 0, 0, [](gj2k::EncodeParams& p) {
                 p.precincts = {{32, 32}, {16, 16}};
                 p.order = gj2k::ProgressionOrder::kRPCL;
                 p.cblk_width = p.cblk_height = 8;
               }});
  v.push_back({"AllModesSopEph", 64, 48, 1, 8, false, 1, 1, [](gj2k::EncodeParams& p) {
                 p.cblk_style = 0x3F;
                 p.sop = p.eph = true;
                 p.tlm = p.plt = true;
               }});
  v.push_back({"Levels0", 33, 17, 1, 8, false, 0, 0, [](gj2k::EncodeParams& p) { p.levels = 0; }});
  v.push_back({"LayersCprl", 64, 64, 3, 8, false, 0, 0, [](gj2k::EncodeParams& p) {
                 p.rates = {40, 10, 1};  // the last layer lossless
                 p.order = gj2k::ProgressionOrder::kCPRL;
               }});
  return v;
}

class DecodeRoundTrip : public ::testing::TestWithParam<RoundTrip> {};

TEST_P(DecodeRoundTrip, LosslessIsBitExact) {
  const RoundTrip& r = GetParam();
  const uint32_t seed = 77;
  const gj2k::Image src =
      random_image(r.w, r.h, r.ncomp, r.precision, r.is_signed, r.x0, r.y0, seed);
  gj2k::EncodeParams p;
  r.adjust(p);
  std::vector<uint8_t> bytes;
  try {
    bytes = gj2k::Encoder().encode(src, p);
  } catch (const gj2k::Error& e) {
    GTEST_SKIP() << r.name << ": the encoder refuses these parameters: " << e.what();
  }
  const gj2k::Image back = gj2k::decode_memory(bytes);
  EXPECT_EQ(gj2k::compare(back, src), std::nullopt) << r.name << " (seed " << seed << ")";
}

INSTANTIATE_TEST_SUITE_P(Gj2kStreams, DecodeRoundTrip, ::testing::ValuesIn(roundtrips()),
                         [](const auto& info) { return info.param.name; });

#ifdef GJ2K_HAVE_OPENJPEG
TEST(DecodeRoundTrip, IrreversibleMatchesOpenJpeg) {
  for (double bpp : {0.5, 2.0}) {
    const gj2k::Image src = random_image(120, 90, 3, 8, false, 0, 0, 5);
    gj2k::EncodeParams p;
    p.irreversible = true;
    p.bpp = {bpp};
    const auto bytes = gj2k::Encoder().encode(src, p);
    const gj2k::Image ours = gj2k::decode_memory(bytes);
    const auto theirs = gj2k::test::opj::decode(bytes);
    ASSERT_TRUE(theirs) << "OpenJPEG cannot decode gj2k's 9/7 stream at " << bpp << " bpp";
    for (size_t c = 0; c < 3; ++c)
      for (size_t i = 0; i < ours.components[c].samples.size(); ++i)
        ASSERT_LE(std::abs(ours.components[c].samples[i] - theirs->components[c].samples[i]), 1)
            << "bpp " << bpp << " component " << c << " sample " << i;
  }
}
#endif

}  // namespace
#endif
