// `gj2k info` runs on every conformance file with exit status 0, and fails with a one-line
// message (exit status 1) on a damaged file.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "common/shared_data.h"

namespace {

std::filesystem::path cli() {
  return std::filesystem::path(GJ2K_BINARY_DIR) / "bin" / "gj2k";
}

int run(const std::string& args, const std::filesystem::path& out) {
  const std::string cmd = cli().string() + " " + args + " >" + out.string() + " 2>&1";
  const int rc = std::system(cmd.c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST(MarkersCliInfo, EveryConformanceFile) {
  GJ2K_REQUIRE_SHARED("conformance/input");
  if (!std::filesystem::exists(cli())) GTEST_SKIP() << "CLI not built: " << cli();
  const auto out = gj2k::test::scratch_dir() / "info.txt";
  int files = 0;
  for (const auto& e :
       std::filesystem::directory_iterator(gj2k::test::shared_dir() / "conformance/input")) {
    const std::string ext = e.path().extension().string();
    if (ext != ".j2k" && ext != ".j2c" && ext != ".jp2") continue;
    ++files;
    EXPECT_EQ(run("info --tiles '" + e.path().string() + "'", out), 0) << e.path() << "\n"
                                                                       << slurp(out);
    const std::string text = slurp(out);
    EXPECT_EQ(run("info --json '" + e.path().string() + "'", out), 0) << e.path() << "\n"
                                                                      << slurp(out);
    EXPECT_NE(slurp(out).find("\"coding\""), std::string::npos) << e.path();
    EXPECT_NE(text.find("SIZ:"), std::string::npos) << e.path();
    EXPECT_NE(text.find("tile-parts:"), std::string::npos) << e.path();
    if (ext == ".jp2") {
      EXPECT_NE(text.find("ihdr:"), std::string::npos) << e.path();
    }
  }
  EXPECT_GE(files, 50);
}

TEST(MarkersCliInfo, DamagedFileFailsWithMessage) {
  GJ2K_REQUIRE_SHARED("conformance/input/p0_01.j2k");
  if (!std::filesystem::exists(cli())) GTEST_SKIP() << "CLI not built: " << cli();
  std::ifstream in(gj2k::test::shared_dir() / "conformance/input/p0_01.j2k", std::ios::binary);
  std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  data.resize(60);  // inside COD
  const auto bad = gj2k::test::scratch_dir() / "cut.j2k";
  std::ofstream(bad, std::ios::binary) << data;
  const auto out = gj2k::test::scratch_dir() / "info_bad.txt";
  EXPECT_EQ(run("info '" + bad.string() + "'", out), 1);
  const std::string text = slurp(out);
  EXPECT_NE(text.find("gj2k: "), std::string::npos) << text;
  EXPECT_NE(text.find("offset"), std::string::npos) << text;
  EXPECT_EQ(run("info '" + (gj2k::test::scratch_dir() / "missing.j2k").string() + "'", out), 1);
}

}  // namespace
