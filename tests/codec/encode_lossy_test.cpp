// Lossy (9/7) encoding: rate targets hit the requested size within 1%, OpenJPEG decodes the
// result, and the quality behaves (PSNR grows with the rate; PSNR targets are met).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "codec/synthetic.h"
#include "common/shared_data.h"
#include "encode_test_util.h"
#include "gj2k/encoder.h"
#include "gj2k/error.h"
#include "io/image_io.h"

namespace {

using gj2k::EncodeParams;
using gj2k::Encoder;
using gj2k::FileFormat;
using gj2k::Image;

double psnr(const Image& a, const Image& b) {
  double sse = 0, peak = 0;
  uint64_t n = 0;
  for (size_t c = 0; c < a.components.size(); ++c) {
    const auto& x = a.components[c].samples;
    const auto& y = b.components[c].samples;
    for (size_t i = 0; i < x.size(); ++i) sse += double(x[i] - y[i]) * double(x[i] - y[i]);
    n += x.size();
    peak = std::max(peak, double(a.components[c].max_value() - a.components[c].min_value()));
  }
  return sse > 0 ? 10 * std::log10(peak * peak * n / sse) : 999;
}

struct Decoded {
  size_t bytes = 0;
  double psnr = 0;
};

Decoded encode_decode(const Image& image, const EncodeParams& p, FileFormat format,
                      const std::string& what) {
  Decoded out;
#ifdef GJ2K_HAVE_OPENJPEG
  std::vector<uint8_t> bytes;
  EXPECT_NO_THROW(bytes = Encoder().encode(image, p, format)) << what;
  out.bytes = bytes.size();
  std::string error;
  auto decoded = gj2k::test::opj_decode(bytes, error);
  EXPECT_TRUE(decoded) << what << ": OpenJPEG refused: " << error;
  if (!decoded) return out;
  EXPECT_EQ(decoded->components.size(), image.components.size()) << what;
  if (decoded->components.size() != image.components.size()) return out;
  for (size_t c = 0; c < image.components.size(); ++c) {
    EXPECT_EQ(decoded->components[c].width, image.components[c].width) << what;
    EXPECT_EQ(decoded->components[c].height, image.components[c].height) << what;
    if (decoded->components[c].samples.size() != image.components[c].samples.size()) return out;
  }
  out.psnr = psnr(image, *decoded);
#endif
  return out;
}

class EncodeLossyPhoto : public ::testing::TestWithParam<std::string> {};

TEST_P(EncodeLossyPhoto, BppTargetsWithinOnePercentAndQualityGrows) {
#ifndef GJ2K_HAVE_OPENJPEG
  GTEST_SKIP() << "built without libopenjp2";
#endif
  GJ2K_REQUIRE_SHARED("images/" + GetParam());
  const Image image = gj2k::io::read_image(gj2k::test::shared_dir() / "images" / GetParam());
  const double pixels = double(image.width()) * image.height();
  double last_psnr = 0;
  for (double bpp : {0.25, 0.5, 1.0, 2.0}) {
    for (FileFormat format : {FileFormat::kJ2k, FileFormat::kJp2}) {
      if (format == FileFormat::kJp2 && bpp != 1.0) continue;
      EncodeParams p;
      p.irreversible = true;
      p.bpp = {bpp};
      const std::string what = GetParam() + " at " + std::to_string(bpp) + " bpp" +
                               (format == FileFormat::kJp2 ? " (JP2)" : "");
      const Decoded d = encode_decode(image, p, format, what);
      const double target = bpp * pixels / 8;
      EXPECT_LE(std::abs(double(d.bytes) - target), 0.01 * target)
          << what << ": " << d.bytes << " bytes for a target of " << target;
      if (format == FileFormat::kJ2k) {
        EXPECT_GT(d.psnr, last_psnr + 1.0) << what << ": PSNR " << d.psnr;
        last_psnr = d.psnr;
      }
    }
  }
  EXPECT_GT(last_psnr, 30) << GetParam() << " at 2 bpp";
}

INSTANTIATE_TEST_SUITE_P(Photos, EncodeLossyPhoto,
                         ::testing::Values("Bretagne1.ppm", "Cevennes2.ppm"), [](const auto& info) {
                           std::string s = info.param;
                           return s.substr(0, s.find('.'));
                         });

TEST(EncodeLossy, RatioLayersHitTheirTargets) {
  const Image image = gj2k::codec::synthetic_image(320, 240, 3, 8, 9);
  EncodeParams p;
  p.irreversible = true;
  p.rates = {80, 40, 20};
  gj2k::EncodeStats stats;
  const std::vector<uint8_t> bytes = Encoder().encode(image, p, FileFormat::kJ2k, &stats);
  const double raw = 320.0 * 240 * 3;
  ASSERT_EQ(stats.layer_bytes.size(), 3u);
  EXPECT_LE(std::abs(double(bytes.size()) - raw / 20), 0.01 * raw / 20);
  // Lower layers: at most their target, and not far below it.
  EXPECT_LE(double(stats.layer_bytes[0]), raw / 80 * 1.01);
  EXPECT_GT(double(stats.layer_bytes[0]), raw / 80 * 0.9);
  EXPECT_LE(double(stats.layer_bytes[1]), raw / 40 * 1.01);
  EXPECT_GT(double(stats.layer_bytes[1]), raw / 40 * 0.9);
  const Decoded d = encode_decode(image, p, FileFormat::kJ2k, "rates 80,40,20");
  EXPECT_EQ(d.bytes, bytes.size());
}

TEST(EncodeLossy, PsnrTargetIsMet) {
  const Image image = gj2k::codec::synthetic_image(256, 192, 3, 8, 4);
  for (double target : {30.0, 36.0, 42.0}) {
    for (bool irreversible : {true, false}) {
      EncodeParams p;
      p.irreversible = irreversible;
      p.psnr = {target};
      const Decoded d = encode_decode(image, p, FileFormat::kJ2k, "psnr " + std::to_string(target));
      // The encoder measures the reconstruction error itself (as a decoder rounds it): the
      // target is met within 0.1 dB, and not overshot by much.
      EXPECT_GT(d.psnr, target - 0.1) << "target " << target;
      EXPECT_LT(d.psnr, target + 0.5) << "target " << target;
    }
  }
}

TEST(EncodeLossy, ReversibleWithRateIsLossyButDecodes) {
  const Image image = gj2k::codec::synthetic_image(200, 150, 1, 8, 2);
  EncodeParams p;
  p.bpp = {1.0};
  const Decoded d = encode_decode(image, p, FileFormat::kJ2k, "5/3 at 1 bpp");
  EXPECT_LE(std::abs(double(d.bytes) - 200 * 150 / 8.0), 0.01 * 200 * 150 / 8.0);
  EXPECT_GT(d.psnr, 25);
}

}  // namespace
