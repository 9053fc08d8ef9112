// EncodeParams::progress and DecodeParams::progress: stages reported in order with fractions in
// [0, 1], the decoder once per tile, and a false return cancelling with Error(kCancelled).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "codec/synthetic.h"
#include "gj2k/gj2k.h"

namespace gj2k {
namespace {

TEST(Progress, EncoderAndDecoderReportAndCancel) {
  const Image image = codec::synthetic_image(256, 192, 3, 8, 2);
  EncodeParams ep;
  ep.tile_width = ep.tile_height = 64;  // 12 tiles
  ep.rates = {20, 1};
  ep.threads = 1;
  std::vector<std::string> stages;
  ep.progress = [&](const char* stage, double f) {
    EXPECT_GE(f, 0.0);
    EXPECT_LE(f, 1.0);
    if (stages.empty() || stages.back() != stage) stages.push_back(stage);
    return true;
  };
  const auto bytes = Encoder().encode(image, ep);
  ASSERT_FALSE(stages.empty());
  EXPECT_EQ(stages.back(), "rate control");

  DecodeParams dp;
  dp.threads = 1;
  std::vector<double> fractions;
  dp.progress = [&](const char* stage, double f) {
    EXPECT_STREQ(stage, "decode");
    fractions.push_back(f);
    return true;
  };
  EXPECT_FALSE(compare(image, decode_memory(bytes, dp)));
  ASSERT_EQ(fractions.size(), 12u);
  for (size_t i = 0; i < fractions.size(); ++i) EXPECT_DOUBLE_EQ(fractions[i], (i + 1) / 12.0);

  int calls = 0;
  dp.progress = [&](const char*, double) { return ++calls < 3; };
  try {
    decode_memory(bytes, dp);
    FAIL() << "the decode was not cancelled";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kCancelled) << e.what();
  }
  EXPECT_EQ(calls, 3);

  ep.progress = [](const char*, double) { return false; };
  try {
    Encoder().encode(image, ep);
    FAIL() << "the encode was not cancelled";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kCancelled) << e.what();
    EXPECT_STREQ(to_string(e.code()), "cancelled");
  }
}

}  // namespace
}  // namespace gj2k
