// Encoder::encode(layout, InputBuffer): the caller's samples read from their own buffer give the
// bytes of encode() of the same image, for every sample type, layout, stride, byte order and
// parameter set of the cases; and what a bad buffer gets (errors naming what and where).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "gj2k/encoder.h"
#include "gj2k/error.h"
#include "gj2k/image.h"
#include "tests/codec/encode_input_cases.h"

namespace gj2k {
namespace {

TEST(EncodeInputBuffer, SameBytesAsTheImage) {
  test::expect_input_cases_match(EncodeParams::Device::kCpu);
}

TEST(EncodeInputBuffer, JP2EqualsTheImagesJP2) {
  Image image = test::random_image(50, 30, 3, 8, false, 7);
  image.color_space = ColorSpace::kSRGB;
  EncodeParams p;
  p.device = EncodeParams::Device::kCpu;
  InputBuffer in = test::buffer(SampleType::k8, true);
  const std::vector<uint8_t> bytes = test::pack_input(image, in);
  in.data = bytes.data();
  EXPECT_EQ(Encoder().encode(test::layout_of(image), in, p, FileFormat::kJp2),
            Encoder().encode(image, p, FileFormat::kJp2));
}

// The error of encode(layout, in) on the CPU: its code and message.
std::pair<ErrorCode, std::string> error_of(const Image& layout, const InputBuffer& in) {
  EncodeParams p;
  p.device = EncodeParams::Device::kCpu;
  try {
    Encoder().encode(layout, in, p);
  } catch (const Error& e) {
    return {e.code(), e.what()};
  }
  return {ErrorCode::kInternal, "no error"};
}

TEST(EncodeInputBuffer, BadBuffersAreRefusedSayingWhy) {
  const Image image = test::random_image(30, 20, 3, 12, false, 5);
  InputBuffer in = test::buffer(SampleType::k16, true);
  std::vector<uint8_t> bytes = test::pack_input(image, in);
  in.data = bytes.data();
  const Image layout = test::layout_of(image);

  auto [code, what] = error_of(image, in);  // samples given twice
  EXPECT_EQ(code, ErrorCode::kInvalidArgument);
  EXPECT_NE(what.find("has samples"), std::string::npos) << what;

  InputBuffer null = in;
  null.data = nullptr;
  std::tie(code, what) = error_of(layout, null);
  EXPECT_EQ(code, ErrorCode::kInvalidArgument);
  EXPECT_NE(what.find("data is NULL"), std::string::npos) << what;

  InputBuffer small = in;
  small.size = in.size - 1;
  std::tie(code, what) = error_of(layout, small);
  EXPECT_EQ(code, ErrorCode::kBufferTooSmall);
  EXPECT_NE(what.find(std::to_string(in.size)), std::string::npos) << what;

  InputBuffer narrow = in;  // 12-bit samples in 8-bit ones
  narrow.type = SampleType::k8;
  std::tie(code, what) = error_of(layout, narrow);
  EXPECT_EQ(code, ErrorCode::kInvalidArgument);
  EXPECT_NE(what.find("does not fit 8-bit"), std::string::npos) << what;

  InputBuffer short_rows = in;
  short_rows.row_stride = 30 * 6 - 1;
  std::tie(code, what) = error_of(layout, short_rows);
  EXPECT_EQ(code, ErrorCode::kInvalidArgument);
  EXPECT_NE(what.find("row_stride"), std::string::npos) << what;

  // A sample outside its 12 bits: component 1 at (3, 2), little-endian 16-bit interleaved.
  const size_t at = (2 * 30 + 3) * 3 * 2 + 1 * 2;
  bytes[at] = 0x88;
  bytes[at + 1] = 0x13;  // 5000
  std::tie(code, what) = error_of(layout, in);
  EXPECT_EQ(code, ErrorCode::kInvalidArgument);
  EXPECT_NE(what.find("component 1: sample 5000 at (3,2)"), std::string::npos) << what;
}

TEST(EncodeInputBuffer, SubsampledComponentsCannotInterleave) {
  const Image image = test::random_image(20, 10, 3, 8, false, 3, 0, 0, {{1, 1}, {2, 2}, {2, 2}});
  InputBuffer in = test::buffer(SampleType::k8, true);
  std::vector<uint8_t> bytes(20 * 10 * 3);
  in.data = bytes.data();
  in.size = bytes.size();
  auto [code, what] = error_of(test::layout_of(image), in);
  EXPECT_EQ(code, ErrorCode::kInvalidArgument);
  EXPECT_NE(what.find("components of one size"), std::string::npos) << what;
}

TEST(EncodeInputBuffer, Signed32BitSamplesOfAnUnsignedComponentAreRangeChecked) {
  const Image image = test::random_image(16, 9, 1, 8, false, 9);
  InputBuffer in = test::buffer(SampleType::k32, false);
  std::vector<uint8_t> bytes = test::pack_input(image, in);
  const int32_t minus_one = -1;
  std::memcpy(bytes.data() + (4 * 16 + 5) * 4, &minus_one, 4);
  in.data = bytes.data();
  auto [code, what] = error_of(test::layout_of(image), in);
  EXPECT_EQ(code, ErrorCode::kInvalidArgument);
  EXPECT_NE(what.find("component 0: sample -1 at (5,4)"), std::string::npos) << what;
}

TEST(EncodeInputBuffer, InputBytesFollowTheLayout) {
  const Image image = test::random_image(20, 10, 3, 8, false, 3, 0, 0, {{1, 1}, {2, 2}, {2, 2}});
  // Planar, packed rows of the widest component, planes of the tallest: 3 * 20 * 10.
  EXPECT_EQ(input_bytes(image, test::buffer(SampleType::k8, false)), 600u);
  // The last plane ends after its last sample: 2 * 512 + 9 * 40 + 20 * 2.
  EXPECT_EQ(input_bytes(image, test::buffer(SampleType::k16, false, false, 40, 512)), 1424u);
  EXPECT_THROW(input_bytes(image, test::buffer(SampleType::k8, true)), Error);
}

}  // namespace
}  // namespace gj2k
