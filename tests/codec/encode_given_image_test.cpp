// Encoder::encode(Image&&): an image the caller gives up. Its bytes must equal those of
// encode(const Image&) for every parameter set; where the CPU's one-tile forward stage may
// take the image's buffers as its planes (one tile, no --psnr measurement), it must take them
// (the samples are gone afterwards), and otherwise leave them; the image keeps its geometry.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "gj2k/encoder.h"
#include "gj2k/error.h"
#include "gj2k/image.h"
#include "tests/codec/encode_test_util.h"

namespace gj2k {
namespace {

struct Case {
  const char* name;
  uint32_t w, h, nc, precision;
  bool is_signed;
  uint32_t x0, y0;  // image origin
  std::vector<std::pair<uint32_t, uint32_t>> sub;
  EncodeParams params;
  bool taken;  // the forward stage is expected to take the buffers
};

std::vector<uint8_t> read_bytes(const std::filesystem::path& path) {
  std::ifstream f(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

EncodeParams lossy(double rate) {
  EncodeParams p;
  p.irreversible = true;
  p.rates = {rate};
  return p;
}

std::vector<Case> cases() {
  std::vector<Case> v;
  EncodeParams p;
  p.device = EncodeParams::Device::kCpu;
  v.push_back({"rgb8 5/3 rct", 67, 45, 3, 8, false, 0, 0, {}, p, true});
  v.push_back({"grey12 5/3", 33, 71, 1, 12, false, 0, 0, {}, p, true});
  v.push_back({"signed4 5/3, origin", 40, 29, 4, 10, true, 5, 3, {}, p, true});
  v.push_back(
      {"rgb8 subsampled chroma", 65, 47, 3, 8, false, 1, 2, {{1, 1}, {2, 2}, {2, 2}}, p, true});
  EncodeParams q = lossy(12);
  q.device = EncodeParams::Device::kCpu;
  v.push_back({"rgb8 9/7 ict rate 12", 67, 45, 3, 8, false, 0, 0, {}, q, true});
  EncodeParams i = q;
  i.rates.clear();
  v.push_back({"rgba16 9/7 ict + one alone", 51, 38, 4, 16, false, 0, 0, {}, i, true});
  EncodeParams nomct = i;
  nomct.mct = 0;
  v.push_back({"rgb8 9/7 no mct", 52, 31, 3, 8, false, 0, 0, {}, nomct, true});
  EncodeParams origin = p;
  origin.set_image_origin = true;
  origin.image_x0 = 7;
  origin.image_y0 = 11;
  v.push_back({"rgb8 5/3, --image-origin", 48, 33, 3, 8, false, 0, 0, {}, origin, true});
  EncodeParams tiles = q;
  tiles.tile_width = 32;
  tiles.tile_height = 20;
  v.push_back({"rgb8 9/7, tiles", 67, 45, 3, 8, false, 0, 0, {}, tiles, false});
  EncodeParams psnr = i;
  psnr.psnr = {38};
  v.push_back({"rgb8 9/7 --psnr", 67, 45, 3, 8, false, 0, 0, {}, psnr, false});
  return v;
}

TEST(EncodeGivenImage, SameBytesAndBuffersTakenWhereAllowed) {
  uint32_t seed = 1;
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    const Image original =
        test::random_image(c.w, c.h, c.nc, c.precision, c.is_signed, seed++, c.x0, c.y0, c.sub);
    const std::vector<uint8_t> expected = Encoder().encode(original, c.params);
    Image given = original;
    const std::vector<uint8_t> got = Encoder().encode(std::move(given), c.params);
    EXPECT_EQ(got, expected);
    // The geometry stays; the samples went to the encoder exactly where it may take them.
    ASSERT_EQ(given.components.size(), original.components.size());
    EXPECT_EQ(given.x0, original.x0);
    EXPECT_EQ(given.y1, original.y1);
    for (size_t k = 0; k < given.components.size(); ++k) {
      EXPECT_EQ(given.components[k].width, original.components[k].width);
      EXPECT_EQ(given.components[k].height, original.components[k].height);
      EXPECT_EQ(given.components[k].precision, original.components[k].precision);
      EXPECT_EQ(given.components[k].samples.empty(), c.taken) << "component " << k;
    }
  }
}

TEST(EncodeGivenImage, FileEqualsTheConstOverloads) {
  const Image original = test::random_image(61, 40, 3, 8, false, 99);
  EncodeParams p;
  p.device = EncodeParams::Device::kCpu;
  const std::filesystem::path dir = testing::TempDir();
  const std::filesystem::path a = dir / "gj2k_given_a.jp2", b = dir / "gj2k_given_b.jp2";
  Encoder().encode_to_file(original, p, a);
  Image given = original;
  Encoder().encode_to_file(std::move(given), p, b);
  EXPECT_TRUE(given.components[0].samples.empty());
  EXPECT_EQ(read_bytes(a), read_bytes(b));
  std::filesystem::remove(a);
  std::filesystem::remove(b);
}

TEST(EncodeGivenImage, ABadSampleIsReportedAsForTheConstOverload) {
  Image bad = test::random_image(30, 20, 3, 8, false, 5);
  bad.components[1].at(7, 3) = 256;
  EncodeParams p;
  p.device = EncodeParams::Device::kCpu;
  std::string expected;
  try {
    Encoder().encode(bad, p);
  } catch (const Error& e) {
    expected = e.what();
  }
  ASSERT_FALSE(expected.empty());
  try {
    Encoder().encode(std::move(bad), p);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), expected);
  }
}

}  // namespace
}  // namespace gj2k
