// EncodeParams validation: every refused combination names the option and says why; the
// accepted defaults encode.
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "codec/synthetic.h"
#include "encode_test_util.h"
#include "gj2k/encoder.h"
#include "gj2k/error.h"

namespace {

using gj2k::EncodeParams;
using gj2k::Image;

struct Bad {
  const char* option;  // must appear in the message
  std::function<void(EncodeParams&)> set;
};

TEST(EncodeParamsValidation, RefusesWithTheOptionName) {
  const Image image = gj2k::codec::synthetic_image(64, 48, 3, 8, 1);
  const Bad cases[] = {
      {"--levels", [](EncodeParams& p) { p.levels = 33; }},
      {"--levels", [](EncodeParams& p) { p.levels = -1; }},
      {"--cblk", [](EncodeParams& p) { p.cblk_width = 48; }},
      {"--cblk", [](EncodeParams& p) { p.cblk_width = 2; }},
      {"--cblk", [](EncodeParams& p) { p.cblk_width = 2048; }},
      {"--cblk", [](EncodeParams& p) { p.cblk_width = p.cblk_height = 128; }},
      {"--precincts",
       [](EncodeParams& p) {
         p.precincts = {{48, 32}};
       }},
      {"--precincts",
       [](EncodeParams& p) {
         p.precincts = {{1, 1}};
       }},
      {"--guard-bits", [](EncodeParams& p) { p.guard_bits = 8; }},
      {"--rate", [](EncodeParams& p) { p.rates = {10}, p.bpp = {1}; }},
      {"--rate",
       [](EncodeParams& p) {
         p.rates = {10, 20};
       }},
      {"--rate",
       [](EncodeParams& p) {
         p.rates = {1, 10};
       }},
      {"--bpp",
       [](EncodeParams& p) {
         p.bpp = {2, 1};
       }},
      {"--bpp", [](EncodeParams& p) { p.bpp = {0}; }},
      {"--psnr",
       [](EncodeParams& p) {
         p.psnr = {40, 30};
       }},
      {"--layers",
       [](EncodeParams& p) {
         p.layers = 3, p.bpp = {1, 2};
       }},
      {"--layers", [](EncodeParams& p) { p.layers = 70000; }},
      {"--mct", [](EncodeParams& p) { p.mct = 2; }},
      {"--tile", [](EncodeParams& p) { p.tile_width = 16; }},
      {"--tile-origin", [](EncodeParams& p) { p.tile_x0 = 5; }},
      {"--tile", [](EncodeParams& p) { p.tile_width = p.tile_height = 1; }},  // 3072 tiles ok
      {"--threads", [](EncodeParams& p) { p.threads = -2; }},
      {"--tile-parts",
       [](EncodeParams& p) {
         p.tile_parts = gj2k::TilePartSplit::kLayer;
         p.layers = 300;
       }},
  };
  int checked = 0;
  for (const Bad& b : cases) {
    EncodeParams p;
    b.set(p);
    if (std::string(b.option) == "--tile" && p.tile_width == 1) {
      EXPECT_NO_THROW(gj2k::validate(p, image));  // many tiles are fine below 65535
      continue;
    }
    try {
      gj2k::validate(p, image);
      ADD_FAILURE() << "accepted a bad " << b.option;
    } catch (const gj2k::Error& e) {
      EXPECT_EQ(e.code(), gj2k::ErrorCode::kInvalidArgument) << e.what();
      EXPECT_NE(std::string(e.what()).find(b.option), std::string::npos)
          << "message does not name " << b.option << ": " << e.what();
      ++checked;
    }
  }
  EXPECT_EQ(checked, int(std::size(cases)) - 1);
}

TEST(EncodeParamsValidation, MctNeedsThreeCompatibleComponents) {
  EncodeParams p;
  p.mct = 1;
  const Image grey = gj2k::codec::synthetic_image(16, 16, 1, 8, 1);
  EXPECT_THROW(gj2k::validate(p, grey), gj2k::Error);
  const Image sub =
      gj2k::test::random_image(16, 16, 3, 8, false, 1, 0, 0, {{1, 1}, {2, 2}, {2, 2}});
  try {
    gj2k::validate(p, sub);
    ADD_FAILURE() << "mct on subsampled chroma accepted";
  } catch (const gj2k::Error& e) {
    EXPECT_NE(std::string(e.what()).find("--mct"), std::string::npos) << e.what();
  }
  p.mct = -1;  // auto: off for this image, accepted
  EXPECT_NO_THROW(gj2k::validate(p, sub));
}

TEST(EncodeParamsValidation, OutputFormatFromExtension) {
  EXPECT_EQ(gj2k::format_from_extension("a.jp2"), gj2k::FileFormat::kJp2);
  EXPECT_EQ(gj2k::format_from_extension("a.J2K"), gj2k::FileFormat::kJ2k);
  EXPECT_EQ(gj2k::format_from_extension("dir/a.j2c"), gj2k::FileFormat::kJ2k);
  EXPECT_THROW(gj2k::format_from_extension("a.png"), gj2k::Error);
}

TEST(EncodeParamsValidation, TooFewGuardBitsIsReportedNotCrashed) {
  // Full-range noise: the 5/3 HH band needs more bit-planes than 0 guard bits leave.
  Image image = gj2k::test::random_image(64, 64, 1, 8, false, 3);
  for (size_t i = 0; i < image.components[0].samples.size(); ++i)
    image.components[0].samples[i] = (i % 2) ^ ((i / 64) % 2) ? 255 : 0;
  EncodeParams p;
  p.guard_bits = 0;
  std::vector<uint8_t> bytes;
  try {
    bytes = gj2k::Encoder().encode(image, p);
  } catch (const gj2k::Error& e) {
    EXPECT_NE(std::string(e.what()).find("--guard-bits"), std::string::npos) << e.what();
    return;
  }
  // Accepted: then it must be right.
#ifdef GJ2K_HAVE_OPENJPEG
  std::string error;
  auto decoded = gj2k::test::opj_decode(bytes, error);
  ASSERT_TRUE(decoded) << error;
  EXPECT_FALSE(gj2k::test::compare_samples(image, *decoded));
#endif
}

}  // namespace
