// `gj2k decode`: output formats and partial-decoding options through the command line.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "common/shared_data.h"
#include "gj2k/decoder.h"
#include "io/image_io.h"

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

}  // namespace
