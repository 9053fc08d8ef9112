// One ctest test per ISO/IEC 15444-4 decode test listed in $GJ2K_SHARED/conformance/
// TOLERANCES.md: decode, compare with the references, pass within the listed limits.
#include <gtest/gtest.h>

#include <fstream>
#include <set>

#include "common/shared_data.h"
#include "conformance/manifest.h"
#include "conformance/runner.h"

namespace gj2k::conformance {
// Test names instead of bytes in gtest's messages.
void PrintTo(const TestCase& t, std::ostream* os) {
  *os << t.name << " (" << t.input << ", reduce " << t.reduce << ")";
}
}  // namespace gj2k::conformance

namespace {

using gj2k::conformance::TestCase;

std::filesystem::path data_dir() {
  return gj2k::test::shared_dir() / "conformance";
}

// The manifest, or one placeholder entry (skipped with the reason) when it cannot be read.
std::vector<TestCase> manifest() {
  try {
    return gj2k::conformance::load_manifest(data_dir());
  } catch (const std::exception& e) {
    TestCase t;
    t.name = "manifest_unavailable";
    t.skip = e.what();
    return {t};
  }
}

class Conformance : public ::testing::TestWithParam<TestCase> {};

TEST_P(Conformance, DecodesWithinLimits) {
  const TestCase& t = GetParam();
  if (!t.skip.empty()) GTEST_SKIP() << t.name << ": " << t.skip;
  auto r = gj2k::conformance::run_test(t, data_dir());
  std::string line = gj2k::conformance::format_result(t, r);
  EXPECT_EQ(r.outcome, gj2k::conformance::Outcome::kPass) << line;
  ASSERT_FALSE(r.components.empty()) << line;
  // Every compared component has a score and a limit from the manifest.
  for (const auto& c : r.components) {
    EXPECT_LE(c.peak, c.peak_limit) << line;
    EXPECT_LE(c.mse, c.mse_limit * (1 + 1e-9) + 1e-12) << line;
  }
}

INSTANTIATE_TEST_SUITE_P(Iso15444_4, Conformance, ::testing::ValuesIn(manifest()),
                         [](const ::testing::TestParamInfo<TestCase>& info) {
                           return info.param.name;
                         });

// The manifest parser on the shared file: every section is present and names are unique.
TEST(ConformanceManifest, ParsesEverySection) {
  GJ2K_REQUIRE_SHARED("conformance/TOLERANCES.md");
  auto tests = gj2k::conformance::load_manifest(data_dir());
  std::set<std::string> names, sections;
  for (const auto& t : tests) {
    EXPECT_TRUE(names.insert(t.name).second) << "duplicate test name " << t.name;
    sections.insert(t.section);
    EXPECT_FALSE(t.peak.empty()) << t.name;
    EXPECT_FALSE(t.refs.empty()) << t.name;
  }
  EXPECT_EQ(sections, (std::set<std::string>{"A", "B", "C", "D", "E"}));
}

// A manifest written here exercises the parser's rules independently of the shared file.
TEST(ConformanceManifest, ParsesSyntheticFile) {
  auto dir = gj2k::test::scratch_dir() / "manifest";
  std::filesystem::create_directories(dir / "input");
  std::filesystem::create_directories(dir / "reference");
  std::ofstream(dir / "TOLERANCES.md")
      << "# t\n\n## A. Class 1\n```\n"
         "input,reduce,refs,ncomp,peak,mse,ref_geometry,stream_notes\n"
         "x.j2k,1,cx,2,3:4,0.5:0.25,u8 1x1,a, b\n```\n"
         "## C. Class 0\n```\ninput,reduce,peak,mse,ref_geometry\n"
         "x.j2k,0 and 2,7,1.5,u8 1x1\n```\n"
         "## E. Further (peak 4, MSE 1\nunless noted)\n```\n"
         "g1_c.j2c PPM | g2_c..g3_c.j2c x (peak 5, MSE 2)\n```\n";
  std::ofstream(dir / "input" / "x.j2k") << "x";
  auto tests = gj2k::conformance::load_manifest(dir);
  ASSERT_EQ(tests.size(), 6u);
  EXPECT_EQ(tests[0].name, "c1x");
  EXPECT_EQ(tests[0].reduce, 1u);
  EXPECT_EQ(tests[0].refs, (std::vector<std::string>{"cx_0.pgx", "cx_1.pgx"}));
  EXPECT_DOUBLE_EQ(tests[0].peak_limit(1), 4);
  EXPECT_DOUBLE_EQ(tests[0].mse_limit(1), 0.25);
  EXPECT_EQ(tests[0].notes, "a, b");
  EXPECT_NE(tests[0].skip.find("cx_0.pgx"), std::string::npos);  // reference absent
  EXPECT_EQ(tests[1].name, "c0x_r0");
  EXPECT_EQ(tests[2].refs, (std::vector<std::string>{"c0xr2.pgx"}));
  EXPECT_EQ(tests[2].reduce, 2u);
  EXPECT_EQ(tests[3].input, "g1_c.j2c");
  EXPECT_DOUBLE_EQ(tests[3].peak_limit(0), 4);
  EXPECT_EQ(tests[5].input, "g3_c.j2c");
  EXPECT_DOUBLE_EQ(tests[5].peak_limit(0), 5);
  EXPECT_DOUBLE_EQ(tests[5].mse_limit(0), 2);
}

}  // namespace
