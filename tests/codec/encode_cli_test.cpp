// `gj2k encode` end to end: options reach the encoder, the output decodes with OpenJPEG, and
// refused options exit non-zero with a message naming the option.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <string>

#include "common/shared_data.h"
#include "encode_test_util.h"
#include "io/image_io.h"

namespace {

namespace fs = std::filesystem;

struct Result {
  int status = -1;
  std::string output;
};

Result run(const std::string& args) {
  const std::string cmd = std::string(GJ2K_BINARY_DIR) + "/bin/gj2k " + args + " 2>&1";
  Result r;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.output.append(buf.data(), n);
  r.status = pclose(p);
  return r;
}

TEST(EncodeCli, SyntheticWithOptionsDecodesWithOpenJpeg) {
  if (!fs::exists(fs::path(GJ2K_BINARY_DIR) / "bin" / "gj2k")) GTEST_SKIP() << "gj2k not built";
  const fs::path dir = gj2k::test::scratch_dir();
  const fs::path in = dir / "cli_in.ppm", out = dir / "cli_out.jp2";
  const Result r =
      run("encode --synthetic 150x100 --save-input " + in.string() + " -o " + out.string() +
          " --levels 3 --cblk 32x16 --precincts 64x64,32x32 --order RPCL "
          "--layers 3 --tile 64x48 --tile-origin 0,0 --mct 1 "
          "--modes bypass,reset,termall,vsc,pterm,segsym --sop --eph --tlm --plt "
          "--tile-parts R --guard-bits 3 --comment hello --threads 2 --device cpu");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("cli_out.jp2"), std::string::npos) << r.output;  // the summary line
#ifdef GJ2K_HAVE_OPENJPEG
  const gj2k::Image input = gj2k::io::read_image(in);
  std::string error;
  auto decoded = gj2k::test::opj_decode(gj2k::io::read_file(out), error);
  ASSERT_TRUE(decoded) << error;
  EXPECT_FALSE(gj2k::test::compare_samples(input, *decoded));
#endif
}

TEST(EncodeCli, QuietPrintsNothing) {
  if (!fs::exists(fs::path(GJ2K_BINARY_DIR) / "bin" / "gj2k")) GTEST_SKIP() << "gj2k not built";
  const fs::path out = gj2k::test::scratch_dir() / "quiet.j2k";
  const Result r = run("encode --synthetic 40x30 --quiet -o " + out.string());
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.output, "");
  EXPECT_TRUE(fs::exists(out));
}

TEST(EncodeCli, RefusedOptionsNameTheOption) {
  if (!fs::exists(fs::path(GJ2K_BINARY_DIR) / "bin" / "gj2k")) GTEST_SKIP() << "gj2k not built";
  const std::string out = (gj2k::test::scratch_dir() / "bad.j2k").string();
  const std::pair<std::string, std::string> cases[] = {
      {"--cblk 48x48", "--cblk"},          {"--order XYZW", "--order"},
      {"--modes fast", "--modes"},         {"--rate 10 --bpp 1", "--rate"},
      {"--tile-parts Q", "--tile-parts"},  {"--device tpu", "--device"},
      {"--precincts 33x32", "--precincts"}};
  for (const auto& [args, option] : cases) {
    const Result r = run("encode --synthetic 40x30 -o " + out + " " + args);
    EXPECT_NE(r.status, 0) << args;
    EXPECT_NE(r.output.find(option), std::string::npos) << args << ": " << r.output;
  }
  const Result r =
      run("encode --synthetic 40x30 -o " + (gj2k::test::scratch_dir() / "x.png").string());
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.output.find(".jp2"), std::string::npos) << r.output;
}

}  // namespace
