// The image model: construction, validation, comparison, description.
#include <gtest/gtest.h>

#include "gj2k/gj2k.h"

namespace gj2k {
namespace {

TEST(Image, ComponentExtentFollowsB2) {
  // ceil(x1/dx) - ceil(x0/dx), 15444-1 B-2.
  EXPECT_EQ(component_extent(0, 10, 1), 10u);
  EXPECT_EQ(component_extent(0, 10, 3), 4u);  // 0,3,6,9
  EXPECT_EQ(component_extent(1, 10, 3), 3u);  // 3,6,9
  EXPECT_EQ(component_extent(5, 6, 4), 0u);   // no multiple of 4 in [5,6)
  EXPECT_EQ(component_extent(4, 5, 4), 1u);
}

TEST(Image, MakeAndValidate) {
  Image im = make_image(7, 5, 3, 12, false, 3, 9);
  EXPECT_EQ(im.width(), 7u);
  EXPECT_EQ(im.components[2].width, 7u);
  EXPECT_EQ(im.components[2].samples.size(), 35u);
  EXPECT_NO_THROW(validate(im));
  im.components[1].at(6, 4) = 4096;  // out of range for u12
  EXPECT_THROW(validate(im), Error);
  im.components[1].at(6, 4) = 4095;
  EXPECT_NO_THROW(validate(im));
  im.components[0].dx = 2;  // size no longer matches B-2
  EXPECT_THROW(validate(im), Error);
}

TEST(Image, MakeRejectsBadArguments) {
  EXPECT_THROW(make_image(0, 5, 1, 8), Error);
  EXPECT_THROW(make_image(5, 5, 1, 0), Error);
  EXPECT_THROW(make_image(5, 5, 1, 33), Error);
  EXPECT_THROW(make_image(5, 5, 1, 8, false, UINT32_MAX - 2, 0), Error);
}

TEST(Image, CompareNamesFirstDifference) {
  Image a = make_image(4, 4, 2, 8);
  Image b = a;
  EXPECT_FALSE(compare(a, b).has_value());
  b.components[1].at(2, 3) = 9;
  auto diff = compare(a, b);
  ASSERT_TRUE(diff.has_value());
  EXPECT_NE(diff->find("component 1"), std::string::npos) << *diff;
  EXPECT_NE(diff->find("(2,3)"), std::string::npos) << *diff;
  b = a;
  b.components[0].is_signed = true;
  EXPECT_TRUE(compare(a, b).has_value());
}

TEST(Image, Describe) {
  Image a = make_image(640, 480, 3, 8);
  EXPECT_EQ(describe(a), "640x480 @(0,0), 3 components u8 [1x1 1x1 1x1], sRGB");
}

TEST(ImageLayout, MakeLayoutIsMakeImageWithoutSamples) {
  const Image image = make_image(7, 5, 3, 10, true, 2, 3);
  const Image layout = make_layout(7, 5, 3, 10, true, 2, 3);
  ASSERT_EQ(layout.components.size(), 3u);
  EXPECT_EQ(layout.x0, image.x0);
  EXPECT_EQ(layout.y1, image.y1);
  EXPECT_EQ(layout.color_space, image.color_space);
  for (size_t c = 0; c < 3; ++c) {
    EXPECT_EQ(layout.components[c].width, 7u);
    EXPECT_EQ(layout.components[c].height, 5u);
    EXPECT_EQ(layout.components[c].precision, 10u);
    EXPECT_TRUE(layout.components[c].is_signed);
    EXPECT_TRUE(layout.components[c].samples.empty());
    EXPECT_EQ(image.components[c].samples.size(), 35u);
  }
  EXPECT_THROW(make_layout(0, 5, 1, 8), Error);
  EXPECT_THROW(make_layout(5, 5, 1, 33), Error);
}

}  // namespace
}  // namespace gj2k
