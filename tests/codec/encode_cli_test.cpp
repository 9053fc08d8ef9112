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

// --dwt (benchmarking) selects the DWT implementation of the tile stages: a different CPU
// variant gives a different 9/7 stream (float rounding moves some indices; 512x384 is large
// enough for that to happen), the reference variant gives the default's bytes (the same
// lifting steps), decoding takes --dwt too, and an unknown name is refused naming the choices.
TEST(EncodeCli, DwtVariantSelection) {
  if (!fs::exists(fs::path(GJ2K_BINARY_DIR) / "bin" / "gj2k")) GTEST_SKIP() << "gj2k not built";
  const fs::path dir = gj2k::test::scratch_dir();
  auto encode = [&](const std::string& dwt, const fs::path& out) {
    return run("encode --synthetic 512x384 --irreversible --levels 4 --device cpu --quiet -o " +
               out.string() + (dwt.empty() ? "" : " --dwt " + dwt));
  };
  const fs::path a = dir / "dwt_default.j2k", b = dir / "dwt_conv.j2k", c = dir / "dwt_ref.j2k";
  ASSERT_EQ(encode("", a).status, 0);
  ASSERT_EQ(encode("cpu-convolve", b).status, 0);
  ASSERT_EQ(encode("reference", c).status, 0);
  const auto bytes_a = gj2k::io::read_file(a), bytes_b = gj2k::io::read_file(b);
  EXPECT_EQ(bytes_a, gj2k::io::read_file(c));
  EXPECT_NE(bytes_a, bytes_b);
  const Result d1 = run("decode -i " + a.string() + " -o " + (dir / "dwt_a.pgm").string() +
                        " --dwt cpu-convolve --device cpu --quiet");
  ASSERT_EQ(d1.status, 0) << d1.output;
  const Result bad = encode("bogus", dir / "dwt_bad.j2k");
  EXPECT_NE(bad.status, 0);
  EXPECT_NE(bad.output.find("unknown DWT variant 'bogus'"), std::string::npos) << bad.output;
  EXPECT_NE(bad.output.find("cpu-convolve"), std::string::npos) << bad.output;
}
