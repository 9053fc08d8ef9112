// Robustness: conformance codestreams truncated at many points and with flipped bytes either
// decode or throw gj2k::Error (never crash, hang or throw anything else); with allow_partial a
// stream cut inside its tile data still decodes to the full geometry.
#include <gtest/gtest.h>

#include <fstream>
#include <random>

#include "common/shared_data.h"
#include "gj2k/decoder.h"

namespace {

std::vector<uint8_t> read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Decodes and reports "ok", "error" (a gj2k::Error), or fails the test for anything else.
void decode_or_error(const std::vector<uint8_t>& bytes, const std::string& what, bool partial) {
  try {
    gj2k::DecodeParams p;
    p.allow_partial = partial;
    p.threads = 1;
    p.max_samples = uint64_t{1} << 24;  // corrupted sizes must not allocate gigabytes
    gj2k::Image img = gj2k::decode_memory(bytes, p);
    gj2k::validate(img);  // whatever comes back is a consistent image
  } catch (const gj2k::Error& e) {
    EXPECT_NE(std::string(e.what()), "") << what;
  } catch (const std::exception& e) {
    ADD_FAILURE() << what << ": threw a non-gj2k exception: " << e.what();
  }
}

class DecodeRobust : public ::testing::TestWithParam<const char*> {};

TEST_P(DecodeRobust, TruncatedAndCorruptedStreams) {
  const std::string name = GetParam();
  GJ2K_REQUIRE_SHARED("conformance/input/" + name);
  const auto bytes = read_file(gj2k::test::shared_dir() / "conformance/input" / name);
  ASSERT_GT(bytes.size(), 100u);
  const uint32_t seed = 20261122;
  std::mt19937 rng(seed);
  // Truncations: every byte of the first 64 (the main header), then spread over the rest.
  std::vector<size_t> cuts;
  for (size_t i = 0; i < 64; i += 3) cuts.push_back(i);
  for (int i = 0; i < 24; ++i) cuts.push_back(64 + rng() % (bytes.size() - 64));
  for (size_t cut : cuts) {
    std::vector<uint8_t> t(bytes.begin(), bytes.begin() + cut);
    decode_or_error(
        t, name + " cut at " + std::to_string(cut) + " (seed " + std::to_string(seed) + ")", false);
    decode_or_error(t, name + " cut at " + std::to_string(cut) + " partial", true);
  }
  // Corruptions: 1..4 random bytes replaced.
  for (int i = 0; i < 30; ++i) {
    std::vector<uint8_t> t = bytes;
    std::string where;
    for (int k = 0, n = 1 + rng() % 4; k < n; ++k) {
      size_t at = rng() % t.size();
      t[at] = static_cast<uint8_t>(rng());
      where += " " + std::to_string(at);
    }
    decode_or_error(t, name + " bytes changed at" + where + " (seed " + std::to_string(seed) + ")",
                    i % 2);
  }
}

INSTANTIATE_TEST_SUITE_P(Conformance, DecodeRobust,
                         ::testing::Values("p0_01.j2k", "p0_03.j2k", "p0_09.j2k", "p0_11.j2k",
                                           "p0_12.j2k", "p0_13.j2k", "p0_14.j2k", "p1_01.j2k",
                                           "p1_06.j2k", "p1_07.j2k", "p0_02.j2k", "p0_10.j2k",
                                           "file9.jp2"),
                         [](const auto& info) {
                           std::string s = info.param;
                           return s.substr(0, s.find('.'));
                         });

// A stream cut inside its tile data decodes with allow_partial to the full geometry, and
// fails with kTruncated (naming the tile) without it.
TEST(DecodeRobust, AllowPartialDecodesTruncatedTileData) {
  GJ2K_REQUIRE_SHARED("conformance/input/p0_01.j2k");
  auto bytes = read_file(gj2k::test::shared_dir() / "conformance/input/p0_01.j2k");
  const gj2k::Image full = gj2k::decode_memory(bytes);
  bytes.resize(bytes.size() * 2 / 3);
  gj2k::DecodeParams p;
  p.allow_partial = true;
  const gj2k::Image part = gj2k::decode_memory(bytes, p);
  ASSERT_EQ(part.width(), full.width());
  ASSERT_EQ(part.height(), full.height());
  EXPECT_NE(part.components[0].samples, full.components[0].samples);
  try {
    gj2k::decode_memory(bytes);
    ADD_FAILURE() << "a truncated stream decoded without allow_partial";
  } catch (const gj2k::Error& e) {
    EXPECT_EQ(e.code(), gj2k::ErrorCode::kTruncated) << e.what();
    EXPECT_NE(std::string(e.what()).find("tile"), std::string::npos) << e.what();
  }
}

// Errors from bad arguments name the argument.
TEST(DecodeApi, RejectsBadParameters) {
  GJ2K_REQUIRE_SHARED("conformance/input/p0_01.j2k");
  gj2k::Decoder dec(gj2k::test::shared_dir() / "conformance/input/p0_01.j2k");
  const auto info = dec.read_header();
  EXPECT_EQ(info.x1 - info.x0, 128u);
  EXPECT_EQ(info.components.size(), 1u);
  gj2k::DecodeParams p;
  p.reduce = info.min_levels + 1;
  EXPECT_THROW(dec.decode(p), gj2k::Error);
  p = {};
  p.components = {5};
  EXPECT_THROW(dec.decode(p), gj2k::Error);
  p = {};
  p.tile = 99;
  EXPECT_THROW(dec.decode(p), gj2k::Error);
  p = {};
  p.region = gj2k::Region{500, 500, 600, 600};
  EXPECT_THROW(dec.decode(p), gj2k::Error);
  EXPECT_THROW(gj2k::Decoder("/nonexistent/file.j2k"), gj2k::Error);
  EXPECT_THROW(gj2k::decode_memory(std::vector<uint8_t>{0xFF, 0x4F, 0xFF}), gj2k::Error);
}

}  // namespace
