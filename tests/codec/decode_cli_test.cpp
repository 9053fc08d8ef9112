// `gj2k decode`: output formats and partial-decoding options through the command line.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "common/shared_data.h"
#include "gj2k/decoder.h"
#include "gj2k/encoder.h"
#include "io/image_io.h"
#include "tests/codec/encode_test_util.h"

namespace {

int run(const std::string& args) {
  const std::string cmd =
      std::string(GJ2K_BINARY_DIR) + "/bin/gj2k decode --quiet " + args + " 2>/dev/null";
  return std::system(cmd.c_str());
}

TEST(DecodeCli, WritesEachFormatAndHonoursOptions) {
  GJ2K_REQUIRE_SHARED("conformance/input/p0_14.j2k");
  const auto in = gj2k::test::shared_dir() / "conformance/input/p0_14.j2k";  // 49x49 RGB, RCT
  const auto dir = gj2k::test::scratch_dir() / "decode_cli";
  std::filesystem::create_directories(dir);
  const gj2k::Image full = gj2k::decode_file(in);

  ASSERT_EQ(run("-i " + in.string() + " -o " + (dir / "a.pgx").string()), 0);
  for (int k = 0; k < 3; ++k) {
    gj2k::Image c = gj2k::io::read_image(dir / ("a_" + std::to_string(k) + ".pgx"));
    ASSERT_EQ(c.components.size(), 1u);
    EXPECT_EQ(c.components[0].samples, full.components[k].samples) << "component " << k;
  }
  for (const char* ext : {".tif", ".ppm"}) {
    ASSERT_EQ(run("-i " + in.string() + " -o " + (dir / (std::string("a") + ext)).string()), 0)
        << ext;
    gj2k::Image back = gj2k::io::read_image(dir / (std::string("a") + ext));
    ASSERT_EQ(back.components.size(), 3u) << ext;
    for (int k = 0; k < 3; ++k)
      EXPECT_EQ(back.components[k].samples, full.components[k].samples) << ext;
  }
  // --reduce 1 and --components 1 give the library's results.
  ASSERT_EQ(
      run("-i " + in.string() + " -o " + (dir / "r.pgm").string() + " --reduce 1 --components 1"),
      0);
  gj2k::DecodeParams p;
  p.reduce = 1;
  p.components = {1};
  const gj2k::Image expect = gj2k::decode_file(in, p);
  const gj2k::Image got = gj2k::io::read_image(dir / "r.pgm");
  EXPECT_EQ(got.components[0].width, 25u);
  EXPECT_EQ(got.components[0].samples, expect.components[0].samples);
  // --region crops.
  ASSERT_EQ(run("-i " + in.string() + " -o " + (dir / "g.ppm").string() + " --region 10,5,30,20"),
            0);
  const gj2k::Image region = gj2k::io::read_image(dir / "g.ppm");
  ASSERT_EQ(region.components[0].width, 20u);
  ASSERT_EQ(region.components[0].height, 15u);
  EXPECT_EQ(region.components[2].at(3, 4), full.components[2].at(13, 9));
  // Errors: bad region, missing file, reduce beyond the levels.
  EXPECT_NE(run("-i " + in.string() + " -o " + (dir / "x.ppm").string() + " --region 5,5,1,1"), 0);
  EXPECT_NE(run("-i " + (dir / "missing.j2k").string() + " -o " + (dir / "x.ppm").string()), 0);
  EXPECT_NE(run("-i " + in.string() + " -o " + (dir / "x.ppm").string() + " --reduce 9"), 0);
}

// PGM/PPM and raw outputs that the decoder writes straight into the file's bytes (decode_into)
// are the bytes encode_pnm / encode_raw make of decode()'s image: 8-bit RGB in tiles, 12-bit
// grey (2 bytes) with a region, subsampled chroma (the fallback through the image), a batch.
TEST(DecodeCli, PnmStraightFromTheDecoderEqualsTheImagePath) {
  const auto dir = gj2k::test::scratch_dir() / "decode_cli_pnm";
  std::filesystem::create_directories(dir / "batch");
  struct Case {
    std::string name, ext, options;
    gj2k::Image image;
    gj2k::EncodeParams ep;
    gj2k::DecodeParams dp;
  };
  std::vector<Case> cases(3);
  cases[0] = {"rgb", ".ppm", "", gj2k::test::random_image(90, 70, 3, 8, false, 1), {}, {}};
  cases[0].ep.tile_width = cases[0].ep.tile_height = 32;
  cases[1] = {
      "grey12", ".pgm", "--region 5,6,70,50", gj2k::test::random_image(77, 60, 1, 12, false, 2),
      {},       {}};
  cases[1].dp.region = gj2k::Region{5, 6, 70, 50};
  cases[2] = {
      "sub", ".ppm",
      "",    gj2k::test::random_image(64, 48, 3, 8, false, 3, 0, 0, {{1, 1}, {2, 2}, {2, 2}}),
      {},    {}};
  for (Case& c : cases) {
    SCOPED_TRACE(c.name);
    c.ep.device = gj2k::EncodeParams::Device::kCpu;
    const auto in = dir / (c.name + ".j2k");
    gj2k::Encoder().encode_to_file(c.image, c.ep, in);
    c.dp.render = gj2k::DecodeParams::Render::kRgb;  // as the CLI renders for PNM
    const std::vector<uint8_t> want = gj2k::io::encode_pnm(gj2k::decode_file(in, c.dp));
    const auto out = dir / (c.name + c.ext);
    ASSERT_EQ(run("-i " + in.string() + " -o " + out.string() + " " + c.options), 0);
    EXPECT_EQ(gj2k::io::read_file(out), want);
    if (c.options.empty()) {
      std::filesystem::copy_file(in, dir / "batch" / in.filename(),
                                 std::filesystem::copy_options::overwrite_existing);
      ASSERT_EQ(run("-i " + (dir / "batch").string() + " -o " + (dir / "batch").string() +
                    " --format ppm"),
                0);
      EXPECT_EQ(gj2k::io::read_file(dir / "batch" / (c.name + ".ppm")), want);
    }
    // Raw planar samples, both byte orders: the bytes encode_raw makes of the image.
    c.dp.render = gj2k::DecodeParams::Render::kNone;
    const gj2k::Image image = gj2k::decode_file(in, c.dp);
    for (const char* ext : {".raw", ".rawl"}) {
      const auto raw = dir / (c.name + ext);
      ASSERT_EQ(run("-i " + in.string() + " -o " + raw.string() + " " + c.options), 0);
      EXPECT_EQ(gj2k::io::read_file(raw),
                gj2k::io::encode_raw(image, std::string(ext) == ".raw", raw.string()))
          << ext;
    }
  }
}

}  // namespace
