// Every ISO/IEC 15444-4 conformance input (../shared/conformance/input) decoded by gj2k and by
// libopenjp2: the same components, sizes and samples (9/7 streams within a peak error of 1, the
// two inverse transforms round differently), except the differences listed with their reasons.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "gj2k/decoder.h"
#include "io/image_io.h"
#include "tests/codec/decode_opj.h"
#include "tests/common/shared_data.h"

#ifdef GJ2K_HAVE_OPENJPEG
namespace gj2k {
namespace {

// The largest |a - b| over all samples, or -1 when the geometry differs (described in `why`).
int64_t peak_difference(const Image& a, const Image& b, std::string& why) {
  if (a.components.size() != b.components.size()) {
    why = std::to_string(a.components.size()) + " vs " + std::to_string(b.components.size()) +
          " components";
    return -1;
  }
  int64_t peak = 0;
  for (size_t c = 0; c < a.components.size(); ++c) {
    const Component &x = a.components[c], &y = b.components[c];
    if (x.width != y.width || x.height != y.height || x.precision != y.precision ||
        x.is_signed != y.is_signed) {
      why = "component " + std::to_string(c) + ": " + std::to_string(x.width) + "x" +
            std::to_string(x.height) + " " + std::to_string(x.precision) + " bits vs " +
            std::to_string(y.width) + "x" + std::to_string(y.height) + " " +
            std::to_string(y.precision) + " bits";
      return -1;
    }
    for (size_t i = 0; i < x.samples.size(); ++i)
      peak = std::max<int64_t>(peak, std::abs(int64_t{x.samples[i]} - y.samples[i]));
  }
  return peak;
}

// Peak differences allowed beyond 1 (see the comment in the test).
const std::map<std::string, int64_t> kKnown = {{"p0_06.j2k", 635}};

// The conformance inputs, by file name (none when the shared data is absent).
std::vector<std::string> inputs() {
  std::vector<std::string> names;
  const auto dir = test::shared_dir() / "conformance/input";
  if (!std::filesystem::is_directory(dir)) return names;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    const auto ext = e.path().extension();
    if (ext == ".j2k" || ext == ".j2c" || ext == ".jp2") names.push_back(e.path().filename());
  }
  std::sort(names.begin(), names.end());
  return names;
}

class DecodeConformanceOpj : public ::testing::TestWithParam<std::string> {};

TEST_P(DecodeConformanceOpj, LikeOpenJpeg) {
  GJ2K_REQUIRE_SHARED("conformance/input");
  const std::string name = GetParam();
  const std::vector<uint8_t> bytes = io::read_file(test::shared_dir() / "conformance/input" / name);
  std::string error;
  const auto theirs = test::opj::decode(bytes, {}, &error);
  Image ours;
  std::string our_error;
  try {
    ours = decode_memory(bytes);
  } catch (const Error& e) {
    our_error = e.what();
  }
  std::string why;
  ASSERT_TRUE(theirs) << name << ": OpenJPEG fails: " << error;
  ASSERT_TRUE(our_error.empty()) << name << ": gj2k fails: " << our_error;
  const int64_t peak = peak_difference(ours, *theirs, why);
  EXPECT_GE(peak, 0) << name << ": " << why;
  // p0_06 (9/7 with an ROI, 12 bits): the decoders reconstruct the ROI's coefficients
  // differently; both stay within its 15444-4 limits (gj2k nearer the reference: peak 352
  // vs OpenJPEG's 367 on component 0).
  const auto known = kKnown.find(name);
  const int64_t limit = known != kKnown.end() ? known->second : 1;
  EXPECT_LE(peak, limit) << name;
  std::printf("| %s | %s |\n", name.c_str(),
              peak == 0 ? "identical" : ("peak error " + std::to_string(peak)).c_str());
}

INSTANTIATE_TEST_SUITE_P(Inputs, DecodeConformanceOpj, ::testing::ValuesIn(inputs()),
                         [](const auto& info) {
                           std::string n = info.param;
                           std::replace(n.begin(), n.end(), '.', '_');
                           return n;
                         });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(DecodeConformanceOpj);

}  // namespace
}  // namespace gj2k
#endif
