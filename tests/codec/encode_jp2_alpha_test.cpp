// JP2 files of images with an opacity channel (an RGBA or grey + alpha PNG, say) carry channel
// definitions (cdef, I.5.3.6): gj2k and OpenJPEG both read the alpha channel back as alpha, and
// a colour image keeps its colours in order.
#include <gtest/gtest.h>

#include "codec/jp2/boxes.h"
#include "gj2k/decoder.h"
#include "gj2k/encoder.h"
#include "tests/codec/encode_test_util.h"

#if defined(GJ2K_HAVE_OPENJPEG)
#include "tests/codec/decode_opj.h"
#endif

namespace gj2k {
namespace {

void check_alpha(uint32_t components, ColorSpace space) {
  Image image = test::random_image(19, 13, components, 8, false, 70 + components);
  image.color_space = space;
  image.components.back().is_alpha = true;
  const std::vector<uint8_t> file = Encoder().encode(image, {}, FileFormat::kJp2);
  const codec::Jp2Header h = codec::read_jp2(file);
  ASSERT_EQ(h.cdef.size(), components);
  EXPECT_EQ(h.cdef.back().type, 1u);
  EXPECT_EQ(h.cdef.back().association, 0u);
  for (uint32_t c = 0; c + 1 < components; ++c) {
    EXPECT_EQ(h.cdef[c].type, 0u);
    EXPECT_EQ(h.cdef[c].association, c + 1);
  }
  const Image ours = decode_memory(file);
  ASSERT_EQ(ours.components.size(), components);
  EXPECT_TRUE(ours.components.back().is_alpha);
  EXPECT_FALSE(ours.components.front().is_alpha);
  EXPECT_FALSE(test::compare_samples(ours, image));
#if defined(GJ2K_HAVE_OPENJPEG)
  const auto theirs = test::opj::decode(file);
  ASSERT_TRUE(theirs);
  EXPECT_TRUE(theirs->components.back().is_alpha);
  EXPECT_FALSE(theirs->components.front().is_alpha);
  EXPECT_FALSE(test::compare_samples(*theirs, image));
#endif
}

TEST(EncodeJp2Alpha, RgbaWritesChannelDefinitions) {
  check_alpha(4, ColorSpace::kSRGB);
}
TEST(EncodeJp2Alpha, GreyAlphaWritesChannelDefinitions) {
  check_alpha(2, ColorSpace::kGrey);
}

TEST(EncodeJp2Alpha, NoAlphaNoChannelDefinitions) {
  const Image image = test::random_image(9, 7, 3, 8, false, 79);
  const codec::Jp2Header h = codec::read_jp2(Encoder().encode(image, {}, FileFormat::kJp2));
  EXPECT_TRUE(h.cdef.empty());
}

}  // namespace
}  // namespace gj2k
