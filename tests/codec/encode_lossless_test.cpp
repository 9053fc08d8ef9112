// Lossless encoding decodes bit-exact with OpenJPEG: every shared image and conformance
// reference image with the defaults, and a matrix of options on small seeded images.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "codec/synthetic.h"
#include "common/shared_data.h"
#include "encode_test_util.h"
#include "gj2k/encoder.h"
#include "gj2k/error.h"
#include "io/image_io.h"

namespace {

namespace fs = std::filesystem;
using gj2k::EncodeParams;
using gj2k::Encoder;
using gj2k::FileFormat;
using gj2k::Image;

// Encodes, decodes with OpenJPEG, and checks every sample.
void expect_roundtrip(const Image& image, const EncodeParams& params, FileFormat format,
                      const std::string& what) {
#ifdef GJ2K_HAVE_OPENJPEG
  std::vector<uint8_t> bytes;
  ASSERT_NO_THROW(bytes = Encoder().encode(image, params, format)) << what;
  std::string error;
  auto decoded = gj2k::test::opj_decode(bytes, error);
  ASSERT_TRUE(decoded) << what << ": OpenJPEG refused the stream: " << error;
  auto diff = gj2k::test::compare_samples(image, *decoded);
  EXPECT_FALSE(diff) << what << ": " << *diff;
#else
  GTEST_SKIP() << "built without libopenjp2";
#endif
}

// ---- every shared image and conformance reference, default options -------------------------

std::vector<std::string> shared_images() {
  std::vector<std::string> out;
  const fs::path root = gj2k::test::shared_dir();
  for (const char* dir : {"images", "conformance/reference"}) {
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(root / dir, ec)) {
      const std::string ext = e.path().extension().string();
      if (ext == ".pgx" || ext == ".ppm" || ext == ".pgm" || ext == ".tif" || ext == ".tiff")
        out.push_back(std::string(dir) + "/" + e.path().filename().string());
    }
  }
  std::sort(out.begin(), out.end());
  if (out.empty()) out.push_back("none");
  return out;
}

class EncodeLosslessShared : public ::testing::TestWithParam<std::string> {};

TEST_P(EncodeLosslessShared, DefaultsDecodeBitExactWithOpenJpeg) {
  if (GetParam() == "none") GTEST_SKIP() << "no shared images (set GJ2K_SHARED)";
  GJ2K_REQUIRE_SHARED(GetParam());
  Image image;
  try {
    image = gj2k::io::read_image(gj2k::test::shared_dir() / GetParam());
  } catch (const gj2k::Error& e) {
    GTEST_SKIP() << "reader refuses it: " << e.what();
  }
  // JP2 for the small images folder, raw codestreams for the conformance references.
  const FileFormat format =
      GetParam().rfind("images/", 0) == 0 ? FileFormat::kJp2 : FileFormat::kJ2k;
  expect_roundtrip(image, EncodeParams{}, format, GetParam());
}

std::string file_test_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string s = info.param;
  for (char& ch : s)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return s;
}

INSTANTIATE_TEST_SUITE_P(Files, EncodeLosslessShared, ::testing::ValuesIn(shared_images()),
                         file_test_name);

// ---- option matrix on small images ----------------------------------------------------------

struct MatrixCase {
  std::string name;
  std::function<void(EncodeParams&, const Image&)> set;
};

std::vector<MatrixCase> matrix() {
  std::vector<MatrixCase> m;
  for (int levels = 0; levels <= 8; ++levels)
    m.push_back({"levels" + std::to_string(levels),
                 [levels](EncodeParams& p, const Image& im) { p.levels = levels; }});
  for (auto [w, h] : std::vector<std::pair<uint32_t, uint32_t>>{
           {4, 4}, {32, 32}, {64, 64}, {32, 128}, {1024, 4}, {4, 1024}, {8, 16}})
    m.push_back({"cblk" + std::to_string(w) + "x" + std::to_string(h),
                 [w, h](EncodeParams& p, const Image& im) {
                   p.cblk_width = w;
                   p.cblk_height = h;
                 }});
  m.push_back({"precincts16", [](EncodeParams& p, const Image& im) { p.precincts = {{16, 16}}; }});
  m.push_back({"precincts_mixed", [](EncodeParams& p, const Image& im) {
                 p.precincts = {{32, 16}, {16, 32}, {8, 8}, {4, 2}, {2, 4}};
                 p.cblk_width = 16;
                 p.cblk_height = 16;
               }});
  m.push_back({"precincts_lowest1", [](EncodeParams& p, const Image& im) {
                 p.levels = 2;
                 p.precincts = {{64, 64}, {2, 2}, {1, 1}};
               }});
  for (int o = 0; o < 5; ++o)
    for (bool prec : {false, true})
      m.push_back({"order" + std::to_string(o) + (prec ? "_precincts" : ""),
                   [o, prec](EncodeParams& p, const Image& im) {
                     p.order = static_cast<gj2k::ProgressionOrder>(o);
                     p.layers = 3;
                     if (prec) p.precincts = {{16, 16}, {8, 8}};
                   }});
  m.push_back({"tiles_odd", [](EncodeParams& p, const Image& im) {
                 p.tile_width = 23;
                 p.tile_height = 17;
               }});
  m.push_back({"tiles_odd_origin", [](EncodeParams& p, const Image& im) {
                 p.tile_width = 19;
                 p.tile_height = 29;
                 p.tile_x0 = im.x0 > 3 ? im.x0 - 3 : 0;
                 p.tile_y0 = im.y0 > 2 ? im.y0 - 2 : 0;
               }});
  m.push_back({"image_origin_odd", [](EncodeParams& p, const Image& im) {
                 p.set_image_origin = true;
                 p.image_x0 = 13;
                 p.image_y0 = 7;
                 p.tile_width = 32;
                 p.tile_height = 16;
                 p.tile_x0 = 5;
                 p.tile_y0 = 6;
               }});
  m.push_back({"tiles_3x2_levels3", [](EncodeParams& p, const Image& im) {
                 p.tile_width = 3;
                 p.tile_height = 2;
                 p.tile_x0 = im.x0;
                 p.tile_y0 = im.y0;
                 p.levels = 3;
               }});
  m.push_back({"layers5", [](EncodeParams& p, const Image& im) { p.layers = 5; }});
  m.push_back({"rates_lossless_last", [](EncodeParams& p, const Image& im) {
                 p.rates = {40, 10, 1};
               }});
  m.push_back({"sop", [](EncodeParams& p, const Image& im) { p.sop = true; }});
  m.push_back({"eph", [](EncodeParams& p, const Image& im) { p.eph = true; }});
  m.push_back({"sop_eph_layers", [](EncodeParams& p, const Image& im) {
                 p.sop = p.eph = true;
                 p.layers = 3;
               }});
  m.push_back({"tlm_plt_tiles", [](EncodeParams& p, const Image& im) {
                 p.tlm = p.plt = true;
                 p.tile_width = 32;
                 p.tile_height = 32;
               }});
  m.push_back({"tileparts_R", [](EncodeParams& p, const Image& im) {
                 p.tile_parts = gj2k::TilePartSplit::kResolution;
                 p.order = gj2k::ProgressionOrder::kRLCP;
                 p.tile_width = 40;
                 p.tile_height = 40;
                 p.tlm = true;
               }});
  m.push_back({"tileparts_L", [](EncodeParams& p, const Image& im) {
                 p.tile_parts = gj2k::TilePartSplit::kLayer;
                 p.layers = 4;
                 p.plt = true;
               }});
  m.push_back({"tileparts_C", [](EncodeParams& p, const Image& im) {
                 p.tile_parts = gj2k::TilePartSplit::kComponent;
                 p.order = gj2k::ProgressionOrder::kCPRL;
                 p.tlm = p.plt = true;
               }});
  const std::pair<const char*, uint8_t> modes[] = {{"bypass", 0x01},
                                                   {"reset", 0x02},
                                                   {"termall", 0x04},
                                                   {"vsc", 0x08},
                                                   {"pterm", 0x10},
                                                   {"segsym", 0x20},
                                                   {"bypass_termall", 0x05},
                                                   {"bypass_pterm_reset", 0x13},
                                                   {"all", 0x3F},
                                                   {"vsc_segsym_termall", 0x2C}};
  for (auto [name, style] : modes)
    m.push_back({std::string("modes_") + name, [style](EncodeParams& p, const Image& im) {
                   p.cblk_style = style;
                   p.layers = 3;
                 }});
  m.push_back({"mct_off", [](EncodeParams& p, const Image& im) { p.mct = 0; }});
  m.push_back({"guard_bits1", [](EncodeParams& p, const Image& im) { p.guard_bits = 1; }});
  m.push_back({"no_comment", [](EncodeParams& p, const Image& im) { p.no_comment = true; }});
  m.push_back({"poc", [](EncodeParams& p, const Image& im) {
                 p.layers = 2;
                 p.progression_changes = {{0, 0, 1, 2, 16384, gj2k::ProgressionOrder::kRLCP},
                                          {1, 0, 2, 33, 2, gj2k::ProgressionOrder::kCPRL}};
               }});
  return m;
}

struct MatrixImage {
  std::string name;
  std::function<Image()> make;
};

void PrintTo(const MatrixCase& c, std::ostream* os) {
  *os << c.name;
}
void PrintTo(const MatrixImage& m, std::ostream* os) {
  *os << m.name;
}

std::vector<MatrixImage> matrix_images() {
  return {
      {"rgb8", [] { return gj2k::codec::synthetic_image(67, 45, 3, 8, 3); }},
      {"grey12_origin", [] { return gj2k::test::random_image(61, 50, 1, 12, false, 11, 9, 4); }},
      {"signed9_sub",
       [] {
         return gj2k::test::random_image(38, 27, 3, 9, true, 5, 3, 1, {{1, 1}, {2, 1}, {1, 2}});
       }},
  };
}

class EncodeLosslessMatrix : public ::testing::TestWithParam<std::tuple<MatrixCase, MatrixImage>> {
};

TEST_P(EncodeLosslessMatrix, DecodesBitExactWithOpenJpeg) {
  const auto& [c, im] = GetParam();
  EncodeParams p;
  const Image image = im.make();
  c.set(p, image);
  // OpenJPEG 2.5 refuses tile-components of 1x2 / 2x1 samples with 3 levels (a subsampled
  // component in 1x1 or 2x2 tiles); the standard allows them.
  if (p.tile_width == 3 && image.components.size() > 1 && image.components[1].dx > 1)
    GTEST_SKIP() << "OpenJPEG limitation: tiny subsampled tile-components";
  Image expected = image;
  if (p.set_image_origin) {  // the decoded image sits at the new origin
    expected.x0 = p.image_x0;
    expected.y0 = p.image_y0;
    expected.x1 = p.image_x0 + image.width();
    expected.y1 = p.image_y0 + image.height();
    for (const auto& comp : image.components)
      if (comp.dx != 1 || comp.dy != 1) GTEST_SKIP() << "origin change with subsampling";
  }
#ifdef GJ2K_HAVE_OPENJPEG
  std::vector<uint8_t> bytes;
  try {
    bytes = Encoder().encode(image, p, FileFormat::kJ2k);
  } catch (const gj2k::Error& e) {
    FAIL() << c.name << " on " << im.name << ": " << e.what();
  }
  std::string error;
  auto decoded = gj2k::test::opj_decode(bytes, error);
  ASSERT_TRUE(decoded) << c.name << " on " << im.name << ": OpenJPEG refused: " << error;
  auto diff = gj2k::test::compare_samples(expected, *decoded);
  EXPECT_FALSE(diff) << c.name << " on " << im.name << ": " << *diff;
#else
  GTEST_SKIP() << "built without libopenjp2";
#endif
}

INSTANTIATE_TEST_SUITE_P(
    Options, EncodeLosslessMatrix,
    ::testing::Combine(::testing::ValuesIn(matrix()), ::testing::ValuesIn(matrix_images())),
    [](const ::testing::TestParamInfo<std::tuple<MatrixCase, MatrixImage>>& info) {
      return std::get<0>(info.param).name + "_" + std::get<1>(info.param).name;
    });

}  // namespace

namespace {

// A lossless codestream of more than 4 MB of block data, encoded on four threads, has its
// buffer prepared while Tier-2 writes the packets (encoder_stream.cpp); on one thread it has
// not. The bytes are the same, and they decode to the image.
TEST(EncodeLosslessLarge, PreparedBufferGivesTheSameBytes) {
  const Image image = gj2k::test::random_image(1200, 1000, 3, 12, false, 0, 0, 5);
  EncodeParams p;
  p.threads = 1;
  const std::vector<uint8_t> serial = Encoder().encode(image, p);
  ASSERT_GT(serial.size(), size_t{4} << 20);  // the preparation's threshold
  p.threads = 4;
  const std::vector<uint8_t> prepared = Encoder().encode(image, p);
  EXPECT_EQ(prepared, serial);
#ifdef GJ2K_HAVE_OPENJPEG
  std::string error;
  const auto decoded = gj2k::test::opj_decode(prepared, error);
  ASSERT_TRUE(decoded) << error;
  EXPECT_FALSE(gj2k::test::compare_samples(image, *decoded));
#endif
}

}  // namespace
