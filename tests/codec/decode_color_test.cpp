// Colour of decoded JP2 files as OpenJPEG renders it (DecodeParams::render): sYCC (4:4:4,
// 4:2:2, 4:2:0, odd origins) and e-sYCC to RGB, channel definitions (BGR order, opacity,
// premultiplied opacity), CMYK, CIELab, ICC profiles kept. The files are made here: a gj2k
// codestream in a JP2 header written by codec::write_jp2. References: opj_decompress's output
// (it applies color.c; skipped without it) and libopenjp2 (palette and cdef).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "codec/decoder_icc_lcms.h"
#include "codec/jp2/boxes.h"
#include "codec/markers/reader.h"
#include "gj2k/decoder.h"
#include "gj2k/encoder.h"
#include "io/image_io.h"
#include "tests/codec/encode_test_util.h"
#include "tests/common/shared_data.h"

namespace gj2k {
namespace {

using Bytes = std::vector<uint8_t>;

// A JP2 file: `image` coded losslessly by gj2k (no MCT), in a header with colr `enumerated`,
// changed by `adjust`.
Bytes make_jp2(const Image& image, uint32_t enumerated,
               const std::function<void(codec::Jp2Header&)>& adjust = {}) {
  EncodeParams ep;
  ep.levels = 2;
  ep.mct = 0;
  const Bytes cs = Encoder().encode(image, ep);
  codec::Jp2Header h = codec::make_jp2_header(codec::read_main_header(cs).siz, enumerated);
  if (adjust) adjust(h);
  return codec::write_jp2(h, cs);
}

Image render(const Bytes& file, DecodeParams::Render mode,
             std::vector<std::string>* warnings = nullptr) {
  DecodeParams p;
  p.render = mode;
  if (warnings) p.on_warning = [warnings](const std::string& w) { warnings->push_back(w); };
  return decode_memory(file, p);
}

// opj_decompress's output for `file` written as `ext` (".ppm", ".tif"), read back; nullopt
// when opj_decompress is not installed.
std::optional<Image> opj_decompress(const Bytes& file, const std::string& ext) {
  if (std::system("command -v opj_decompress >/dev/null 2>&1") != 0) return std::nullopt;
  static int serial = 0;
  const auto dir = test::scratch_dir();
  const auto in = dir / ("color" + std::to_string(serial) + ".jp2");
  const auto out = dir / ("color" + std::to_string(serial++) + ext);
  io::write_file(in, file);
  const std::string cmd =
      "opj_decompress -quiet -i '" + in.string() + "' -o '" + out.string() + "' >/dev/null 2>&1";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  return io::read_image(out);
}

#define REQUIRE_OPJ_DECOMPRESS(result) \
  if (!(result)) GTEST_SKIP() << "opj_decompress not installed (libopenjp2-tools)"

void expect_same(const Image& ours, const Image& theirs) {
  const auto diff = test::compare_samples(ours, theirs);
  EXPECT_FALSE(diff) << *diff;
}

struct SyccCase {
  const char* name;
  uint32_t sx, sy, x0, y0;
};

TEST(DecodeColor, SyccToRgbLikeOpjDecompress) {
  for (const SyccCase& k :
       {SyccCase{"444", 1, 1, 0, 0}, SyccCase{"422", 2, 1, 0, 0}, SyccCase{"420", 2, 2, 0, 0},
        SyccCase{"420 odd size", 2, 2, 0, 0}, SyccCase{"420 odd origin", 2, 2, 3, 5},
        SyccCase{"422 odd origin", 2, 1, 1, 0}}) {
    SCOPED_TRACE(k.name);
    const uint32_t w = std::string(k.name) == "420 odd size" ? 37 : 36;
    const Image image = test::random_image(w, 27, 3, 8, false, 31, k.x0, k.y0,
                                           {{1, 1}, {k.sx, k.sy}, {k.sx, k.sy}});
    const Bytes file = make_jp2(image, codec::enum_cs::kSYCC);
    const Image ours = render(file, DecodeParams::Render::kRgb);
    EXPECT_EQ(ours.color_space, ColorSpace::kSRGB);
    ASSERT_EQ(ours.components.size(), 3u);
    for (const Component& c : ours.components) {
      EXPECT_EQ(c.dx, 1u);
      EXPECT_EQ(c.width, w);
    }
    const auto theirs = opj_decompress(file, ".ppm");
    REQUIRE_OPJ_DECOMPRESS(theirs);
    Image shifted = *theirs;  // PPM carries no origin
    shifted.x0 = ours.x0, shifted.y0 = ours.y0, shifted.x1 = ours.x1, shifted.y1 = ours.y1;
    expect_same(ours, shifted);
  }
}

TEST(DecodeColor, EsyccToRgbLikeOpjDecompress) {
  const Image image = test::random_image(33, 21, 3, 8, false, 32);
  const Bytes file = make_jp2(image, codec::enum_cs::kESYCC);
  const Image ours = render(file, DecodeParams::Render::kRgb);
  EXPECT_EQ(ours.color_space, ColorSpace::kSRGB);
  const auto theirs = opj_decompress(file, ".ppm");
  REQUIRE_OPJ_DECOMPRESS(theirs);
  expect_same(ours, *theirs);
}

TEST(DecodeColor, CmykLikeOpjDecompress) {
  const Image image = test::random_image(30, 20, 4, 8, false, 33);
  const Bytes file = make_jp2(image, codec::enum_cs::kCMYK);
  const Image rgb = render(file, DecodeParams::Render::kRgb);
  ASSERT_EQ(rgb.components.size(), 3u);
  // As opj_decompress writes TIFF: the four inks as they are.
  const Image inks = render(file, DecodeParams::Render::kRgbKeepCmyk);
  EXPECT_FALSE(test::compare_samples(inks, image));
  const auto theirs = opj_decompress(file, ".ppm");
  REQUIRE_OPJ_DECOMPRESS(theirs);
  expect_same(rgb, *theirs);
}

// cdef storing B, G, R: the output is R, G, B (libopenjp2 applies cdef itself).
TEST(DecodeColor, CdefBgrOrder) {
  const Image image = test::random_image(30, 20, 3, 8, false, 34);
  const Bytes file = make_jp2(image, codec::enum_cs::kSRGB, [](codec::Jp2Header& h) {
    h.cdef = {{0, 0, 3}, {1, 0, 2}, {2, 0, 1}};
  });
  const Image ours = render(file, DecodeParams::Render::kRgb);
  ASSERT_EQ(ours.components.size(), 3u);
  EXPECT_EQ(ours.components[0].samples, image.components[2].samples);
  EXPECT_EQ(ours.components[2].samples, image.components[0].samples);
#ifdef GJ2K_HAVE_OPENJPEG
  std::string error;
  const auto lib = test::opj_decode(file, error);
  ASSERT_TRUE(lib) << error;
  expect_same(ours, *lib);
#endif
  const auto theirs = opj_decompress(file, ".ppm");
  REQUIRE_OPJ_DECOMPRESS(theirs);
  expect_same(ours, *theirs);
}

// Opacity (type 1) and premultiplied opacity (type 2) stored first: the output is R, G, B, A
// with A marked alpha.
TEST(DecodeColor, CdefOpacity) {
  for (uint16_t type : {1, 2}) {
    SCOPED_TRACE(type == 1 ? "opacity" : "premultiplied opacity");
    const Image image = test::random_image(30, 20, 4, 8, false, 35);
    const Bytes file = make_jp2(image, codec::enum_cs::kSRGB, [type](codec::Jp2Header& h) {
      h.cdef = {{0, type, 0}, {1, 0, 1}, {2, 0, 2}, {3, 0, 3}};
    });
    const Image ours = render(file, DecodeParams::Render::kRgbKeepCmyk);
    ASSERT_EQ(ours.components.size(), 4u);
    EXPECT_TRUE(ours.components[3].is_alpha);
    EXPECT_FALSE(ours.components[0].is_alpha);
    EXPECT_EQ(ours.components[3].samples, image.components[0].samples);
    EXPECT_EQ(ours.components[0].samples, image.components[1].samples);
#ifdef GJ2K_HAVE_OPENJPEG
    std::string error;
    const auto lib = test::opj_decode(file, error);
    ASSERT_TRUE(lib) << error;
    expect_same(ours, *lib);
#endif
    const auto theirs = opj_decompress(file, ".tif");
    REQUIRE_OPJ_DECOMPRESS(theirs);
    expect_same(ours, *theirs);
  }
}

// A palette (pclr + cmap) expands to its columns, as libopenjp2 expands it.
TEST(DecodeColor, PaletteExpanded) {
  Image index = make_image(24, 20, 1, 8);
  for (uint32_t y = 0; y < 20; ++y)
    for (uint32_t x = 0; x < 24; ++x)
      index.components[0].at(x, y) = static_cast<int32_t>((x * 7 + y) % 200);
  const Bytes file = make_jp2(index, codec::enum_cs::kSRGB, [](codec::Jp2Header& h) {
    codec::Pclr p;
    p.entries = 200;
    p.columns = {{8, false}, {8, false}, {8, false}};
    for (int e = 0; e < 200; ++e)
      for (int k = 0; k < 3; ++k) p.values.push_back((e * (k + 3)) % 256);
    h.pclr = p;
    h.cmap = {{0, 1, 0}, {0, 1, 1}, {0, 1, 2}};
  });
  const Image ours = render(file, DecodeParams::Render::kRgb);
  ASSERT_EQ(ours.components.size(), 3u);
  EXPECT_EQ(ours.components[1].at(5, 3), ((5 * 7 + 3) % 200) * 4 % 256);
#ifdef GJ2K_HAVE_OPENJPEG
  std::string error;
  const auto lib = test::opj_decode(file, error);
  ASSERT_TRUE(lib) << error;
  expect_same(ours, *lib);
#endif
}

// CIELab to 16-bit sRGB through lcms2, as opj_decompress converts it: the default ranges
// (colr without parameters) and ranges stated in the box (RL, OL, RA, OA, RB, OB, IL).
TEST(DecodeColor, CielabToSrgbLikeOpjDecompress) {
  if (!codec::have_lcms2()) GTEST_SKIP() << "gj2k built without lcms2";
  const Image image = test::random_image(20, 20, 3, 8, false, 36);
  for (int stated = 0; stated < 2; ++stated) {
    const Bytes file = make_jp2(image, codec::enum_cs::kCIELab, [&](codec::Jp2Header& h) {
      if (stated) h.colr[0].lab = {100, 0, 255, 128, 255, 96, 0x00443530};
    });
    std::vector<std::string> warnings;
    const Image ours = render(file, DecodeParams::Render::kRgb, &warnings);
    EXPECT_EQ(ours.color_space, ColorSpace::kSRGB);
    EXPECT_TRUE(warnings.empty());
    ASSERT_EQ(ours.components.size(), 3u);
    EXPECT_EQ(ours.components[0].precision, 16u);
    const auto theirs = opj_decompress(file, ".ppm");
    REQUIRE_OPJ_DECOMPRESS(theirs);
    expect_same(ours, *theirs);
  }
}

// Without a colour rendering (PGX, or render kNone) CIELab stays as its samples.
TEST(DecodeColor, CielabSamplesWithoutRendering) {
  const Image image = test::random_image(20, 20, 3, 8, false, 37);
  const Bytes file = make_jp2(image, codec::enum_cs::kCIELab);
  const Image ours = render(file, DecodeParams::Render::kNone);
  EXPECT_EQ(ours.color_space, ColorSpace::kCIELab);
  EXPECT_FALSE(test::compare_samples(ours, image));
}

// An ICC profile (colr method 2) stays with the image and goes into a TIFF output.
TEST(DecodeColor, IccProfileKept) {
  const Image image = test::random_image(20, 16, 3, 8, false, 37);
  Bytes icc(132, 0);  // a header-only profile: what is kept is the bytes, not their meaning
  for (size_t i = 0; i < icc.size(); ++i) icc[i] = static_cast<uint8_t>(i * 13);
  const Bytes file = make_jp2(image, codec::enum_cs::kSRGB, [&](codec::Jp2Header& h) {
    h.colr[0].method = 2;
    h.colr[0].icc = icc;
  });
  const Image ours = render(file, DecodeParams::Render::kRgbKeepCmyk);
  EXPECT_EQ(ours.color_space, ColorSpace::kICC);
  EXPECT_EQ(ours.icc_profile, icc);
  EXPECT_FALSE(test::compare_samples(ours, image));
  const auto tif = test::scratch_dir() / "icc.tif";
  io::write_image(ours, tif);
  EXPECT_EQ(io::read_image(tif).icc_profile, icc);
}

}  // namespace
}  // namespace gj2k

namespace gj2k {
namespace {

// Components subsampled alike are written at their size (the image becomes their grid), as
// opj_decompress writes them; mixed subsampling is upsampled to the image grid.
TEST(DecodeColor, SubsampledComponentsForFiles) {
  const Image same = test::random_image(50, 31, 2, 8, false, 38, 3, 1, {{5, 3}, {5, 3}});
  EncodeParams ep;
  ep.levels = 2;
  ep.mct = 0;
  Image ours = render(Encoder().encode(same, ep), DecodeParams::Render::kRgbKeepCmyk);
  ASSERT_EQ(ours.components.size(), 2u);
  EXPECT_EQ(ours.components[0].dx, 1u);
  EXPECT_EQ(ours.width(), same.components[0].width);
  EXPECT_EQ(ours.height(), same.components[0].height);
  EXPECT_EQ(ours.components[1].samples, same.components[1].samples);
  EXPECT_NO_THROW(validate(ours));

  const Image mixed = test::random_image(50, 31, 2, 8, false, 39, 0, 0, {{1, 1}, {2, 3}});
  ours = render(Encoder().encode(mixed, ep), DecodeParams::Render::kRgbKeepCmyk);
  EXPECT_EQ(ours.components[1].width, 50u);
  EXPECT_EQ(ours.components[1].at(3, 4), mixed.components[1].at(1, 1));
  EXPECT_NO_THROW(validate(ours));
}

}  // namespace
}  // namespace gj2k

namespace gj2k {
namespace {

// DecodeParams::icc_to_srgb: the conformance files described by ICC profiles (RGB 8 and 16
// bits, grey) converted to sRGB exactly as opj_decompress converts them.
TEST(DecodeColor, IccToSrgbLikeOpjDecompress) {
  GJ2K_REQUIRE_SHARED("conformance/input/file5.jp2");
  if (!codec::have_lcms2()) GTEST_SKIP() << "gj2k built without lcms2";
  for (const char* name : {"file5.jp2", "file7.jp2", "file8.jp2"}) {
    SCOPED_TRACE(name);
    const Bytes file = io::read_file(test::shared_dir() / "conformance/input" / name);
    DecodeParams p;
    p.render = DecodeParams::Render::kRgbKeepCmyk;
    p.icc_to_srgb = true;
    const Image ours = decode_memory(file, p);
    EXPECT_EQ(ours.color_space, ColorSpace::kSRGB);
    EXPECT_TRUE(ours.icc_profile.empty());
    ASSERT_EQ(ours.components.size(), 3u);
    const auto theirs = opj_decompress(file, ".tif");
    REQUIRE_OPJ_DECOMPRESS(theirs);
    expect_same(ours, *theirs);
  }
}

}  // namespace
}  // namespace gj2k

namespace gj2k {
namespace {

// A subset of the components is not colour-converted: component 1 of an sYCC file is Cb.
TEST(DecodeColor, ComponentSubsetNotConverted) {
  const Image image = test::random_image(36, 27, 3, 8, false, 40, 0, 0, {{1, 1}, {2, 2}, {2, 2}});
  const Bytes file = make_jp2(image, codec::enum_cs::kSYCC);
  DecodeParams p;
  p.render = DecodeParams::Render::kRgb;
  p.components = {1};
  const Image cb = decode_memory(file, p);
  ASSERT_EQ(cb.components.size(), 1u);
  EXPECT_EQ(cb.components[0].samples, image.components[1].samples);
  EXPECT_EQ(cb.width(), image.components[1].width);
}

}  // namespace
}  // namespace gj2k
