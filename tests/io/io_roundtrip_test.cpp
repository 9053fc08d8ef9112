// Every shared image and conformance reference: read, write to TIFF, PNM (where it fits), PGX
// and raw, read back, and compare samples, precision, signedness and geometry.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "common/shared_data.h"
#include "gj2k/gj2k.h"
#include "io/image_io.h"

namespace gj2k {
namespace {

namespace fs = std::filesystem;

// Relative paths (under shared/) of the files to round-trip; empty when shared data is absent.
std::vector<std::string> shared_files() {
  std::vector<std::string> files;
  const fs::path root = test::shared_dir();
  auto scan = [&](const char* folder, std::vector<std::string> exts) {
    std::error_code ec;
    if (!fs::is_directory(root / folder, ec)) return;
    for (const auto& entry : fs::directory_iterator(root / folder, ec)) {
      const std::string ext = entry.path().extension().string();
      if (std::find(exts.begin(), exts.end(), ext) != exts.end())
        files.push_back(std::string(folder) + "/" + entry.path().filename().string());
    }
  };
  scan("images", {".tif", ".tiff", ".ppm", ".pgm", ".pnm", ".pgx"});
  scan("conformance/reference", {".pgx", ".ppm", ".pgm", ".tif"});
  std::sort(files.begin(), files.end());
  if (files.empty()) files.push_back("<none>");  // one case that skips, saying why
  return files;
}

std::string test_name(const testing::TestParamInfo<std::string>& info) {
  std::string s = info.param;
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
}

// Reads back what write_pgx wrote (one file per component) as one image.
Image read_pgx_set(const std::vector<fs::path>& paths) {
  Image image;
  for (const fs::path& p : paths) {
    Image one = io::read_pgx(p);
    if (image.components.empty()) {
      image = one;
    } else {
      image.components.push_back(one.components[0]);
    }
  }
  return image;
}

bool pnm_fits(const Image& image) {
  const size_t n = image.components.size();
  if (n != 1 && n != 3) return false;
  for (const Component& c : image.components)
    if (c.is_signed || c.precision != image.components[0].precision) return false;
  return true;
}

bool same_size(const Image& image) {
  for (const Component& c : image.components)
    if (c.width != image.components[0].width || c.height != image.components[0].height)
      return false;
  return true;
}

class IoRoundTrip : public testing::TestWithParam<std::string> {};

TEST_P(IoRoundTrip, WriteAndReadBackIdentical) {
  if (GetParam() == "<none>")
    GTEST_SKIP() << "no shared images found under " << test::shared_dir()
                 << " (set GJ2K_SHARED to the shared/ folder)";
  GJ2K_REQUIRE_SHARED(GetParam());
  const fs::path source = test::shared_dir() / GetParam();
  const Image image = io::read_image(source);
  ASSERT_NO_THROW(validate(image));
  const fs::path dir = test::scratch_dir();
  const std::string stem = "rt_" + test_name({GetParam(), 0});
  // Files written here are removed when the test ends, passed or not.
  struct Cleanup {
    fs::path dir;
    std::string stem;
    ~Cleanup() {
      std::error_code ec;
      for (const auto& entry : fs::directory_iterator(dir, ec))
        if (entry.path().filename().string().rfind(stem, 0) == 0) fs::remove(entry.path(), ec);
    }
  } cleanup{dir, stem};

  // TIFF (uncompressed and Deflate), when the components share precision and size.
  const bool tiff_fits = pnm_fits(image) || (same_size(image) && [&] {
                           for (const Component& c : image.components)
                             if (c.precision != image.components[0].precision ||
                                 c.is_signed != image.components[0].is_signed)
                               return false;
                           return true;
                         }());
  if (tiff_fits) {
    for (auto compression : {io::TiffCompression::kNone, io::TiffCompression::kDeflate}) {
      const fs::path out = dir / (stem + ".tif");
      io::WriteOptions options;
      options.tiff_compression = compression;
      io::write_image(image, out, options);
      const Image back = io::read_image(out);
      auto diff = compare(image, back);
      EXPECT_FALSE(diff) << "TIFF: " << *diff;
      ASSERT_EQ(back.components.size(), image.components.size());
      for (size_t c = 0; c < image.components.size(); ++c)
        EXPECT_EQ(back.components[c].is_alpha, image.components[c].is_alpha) << "TIFF alpha " << c;
      EXPECT_EQ(back.icc_profile, image.icc_profile) << "TIFF ICC profile";
    }
  } else {
    EXPECT_THROW(io::write_image(image, dir / (stem + ".tif")), Error);
  }

  // PNM where it fits, else refused.
  const fs::path pnm = dir / (stem + (image.components.size() == 1 ? ".pgm" : ".ppm"));
  if (pnm_fits(image)) {
    io::write_image(image, pnm);
    auto diff = compare(image, io::read_image(pnm));
    EXPECT_FALSE(diff) << "PNM: " << *diff;
  } else {
    EXPECT_THROW(io::write_image(image, pnm), Error);
  }

  // PAM: any component count, when unsigned with one precision.
  if (tiff_fits && !image.components[0].is_signed) {
    const fs::path pam = dir / (stem + ".pam");
    io::write_image(image, pam);
    const Image back = io::read_image(pam);
    auto diff = compare(image, back);
    EXPECT_FALSE(diff) << "PAM: " << *diff;
    for (size_t c = 0; c < image.components.size(); ++c)
      EXPECT_EQ(back.components[c].is_alpha, image.components[c].is_alpha) << "PAM alpha " << c;
  }

  // A PGX source in the layout our writer uses ("PG ML +|- p w h") is reproduced byte for byte.
  if (source.extension() == ".pgx") {
    const std::vector<uint8_t> bytes = io::read_file(source);
    const std::string head(bytes.begin(), bytes.begin() + std::min<size_t>(bytes.size(), 8));
    if (head == "PG ML + " || head == "PG ML - ") {
      EXPECT_EQ(io::encode_pgx(image.components[0]), bytes) << "PGX bytes differ from the source";
    }
  }

  // PGX: one file per component; both byte orders.
  for (bool little : {false, true}) {
    const auto written = io::write_pgx(image, dir / (stem + ".pgx"), little);
    ASSERT_EQ(written.size(), image.components.size());
    auto diff = compare(image, read_pgx_set(written));
    EXPECT_FALSE(diff) << "PGX " << (little ? "LM" : "ML") << ": " << *diff;
  }

  // Raw planar, when the components share precision and signedness (one geometry).
  if (tiff_fits) {
    const Component& c0 = image.components[0];
    io::ReadOptions options;
    options.raw =
        io::RawGeometry{c0.width,     c0.height,    static_cast<uint32_t>(image.components.size()),
                        c0.precision, c0.is_signed, true};
    for (const char* ext : {".raw", ".rawl"}) {
      const fs::path out = dir / (stem + ext);
      io::write_image(image, out);
      auto diff = compare(image, io::read_image(out, options));
      EXPECT_FALSE(diff) << ext << ": " << *diff;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Shared, IoRoundTrip, testing::ValuesIn(shared_files()), test_name);

// The contiguous and planar versions of the same picture decode to the same samples.
TEST(IoShared, TiffContigMatchesPlanar) {
  GJ2K_REQUIRE_SHARED("images/flower-rgb-contig-08.tif");
  for (const char* bits : {"02", "04", "08", "10", "12", "14", "16"}) {
    const fs::path dir = test::shared_dir() / "images";
    const Image contig = io::read_image(dir / (std::string("flower-rgb-contig-") + bits + ".tif"));
    const Image planar = io::read_image(dir / (std::string("flower-rgb-planar-") + bits + ".tif"));
    auto diff = compare(contig, planar);
    EXPECT_FALSE(diff) << bits << " bits: " << *diff;
  }
}

// The greyscale flower at 1..16 bits is one picture quantized to each depth: the n-bit samples
// are close to the 16-bit ones shifted down by 16-n (checks the bit unpacking at every depth).
TEST(IoShared, TiffDepthsAgree) {
  GJ2K_REQUIRE_SHARED("images/flower-minisblack-16.tif");
  const fs::path dir = test::shared_dir() / "images";
  const Image ref = io::read_image(dir / "flower-minisblack-16.tif");
  for (int bits = 1; bits <= 15; ++bits) {
    char file[64];
    std::snprintf(file, sizeof file, "flower-minisblack-%02d.tif", bits);
    const Image im = io::read_image(dir / file);
    ASSERT_EQ(im.components[0].precision, static_cast<uint32_t>(bits));
    size_t far = 0;
    const auto& a = im.components[0].samples;
    const auto& b = ref.components[0].samples;
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i)
      if (std::abs(a[i] - (b[i] >> (16 - bits))) > 1) ++far;
    EXPECT_LT(far, a.size() / 100) << bits << " bits: " << far << " samples differ by more than 1";
  }
}

}  // namespace
}  // namespace gj2k
