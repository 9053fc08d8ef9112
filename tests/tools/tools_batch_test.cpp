// Batches on the command line: gj2k decode/encode with -i repeated, -i of a folder, -o OUTDIR
// and --format; each output equals the one-file command's; two inputs of one stem are refused
// before any work; a failing file is reported, the others are written, the status is non-zero.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

#include "codec/synthetic.h"
#include "gj2k/gj2k.h"
#include "io/image_io.h"
#include "tests/tools/cli_run.h"

namespace gj2k {
namespace {

namespace fs = std::filesystem;
using test::q;
using test::run_gj2k;
using test::slurp;

class CliBatch : public ::testing::Test {
 protected:
  void SetUp() override {
    GJ2K_REQUIRE_CLI();
    dir_ = test::scratch_dir() /
           ("cli_batch_" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "in");
  }
  // A mix of inputs for the decoder: lossless J2K RGB, 9/7 JP2 RGB, a 12-bit grey J2K and a
  // tiled RGB JP2, made by our encoder; returns their paths.
  std::vector<fs::path> make_streams() {
    struct Item {
      const char* name;
      Image image;
      std::string options;
    };
    const std::vector<Item> items = {
        {"a.j2k", codec::synthetic_image(97, 61, 3, 8, 1), ""},
        {"b.jp2", codec::synthetic_image(130, 77, 3, 8, 2), "-I -r 12"},
        {"c.j2k", codec::synthetic_image(45, 90, 1, 12, 3), ""},
        {"d.jp2", codec::synthetic_image(150, 100, 3, 8, 4), "-t 64,48"}};
    std::vector<fs::path> paths;
    for (const Item& item : items) {
      const fs::path src = dir_ / (std::string(item.name) + ".src.tif");
      io::write_image(item.image, src);
      paths.push_back(dir_ / "in" / item.name);
      const auto r =
          run_gj2k("encode --quiet " + q(src) + " " + q(paths.back()) + " " + item.options);
      EXPECT_EQ(r.status, 0) << r.err;
    }
    return paths;
  }
  // The bytes `gj2k decode IN OUT` writes, through a one-file run.
  std::string decode_one(const fs::path& in, const std::string& ext) {
    const fs::path out = dir_ / ("one_" + in.stem().string() + "." + ext);
    const auto r = run_gj2k("decode --quiet " + q(in) + " " + q(out));
    EXPECT_EQ(r.status, 0) << r.err;
    return slurp(out);
  }
  fs::path dir_;
};

TEST_F(CliBatch, DecodeRepeatedInputsToAFolder) {
  const std::vector<fs::path> in = make_streams();
  const fs::path out = dir_ / "out";  // made by the batch
  const auto r = run_gj2k("decode -i " + q(in[0]) + " -i " + q(in[1]) + " -i " + q(in[2]) + " -o " +
                          q(out) + " --format tif --threads 2");
  ASSERT_EQ(r.status, 0) << r.err;
  for (int k = 0; k < 3; ++k) {
    const fs::path written = out / (in[k].stem().string() + ".tif");
    ASSERT_TRUE(fs::exists(written)) << written;
    EXPECT_EQ(slurp(written), decode_one(in[k], "tif")) << written;
    EXPECT_NE(r.out.find(in[k].string() + " -> " + written.string() + ": "), std::string::npos)
        << r.out;
  }
  EXPECT_NE(r.out.find("3 files in "), std::string::npos) << r.out;
}

TEST_F(CliBatch, DecodeFolderAndFilesMixed) {
  const std::vector<fs::path> in = make_streams();
  const fs::path extra = dir_ / "e.j2k";
  fs::copy_file(in[0], extra);
  fs::path out = dir_ / "out";
  const auto r = run_gj2k("decode --quiet -i " + q(dir_ / "in") + " -i " + q(extra) + " -o " +
                          q(out) + " -OutFor ppm");
  ASSERT_EQ(r.status, 0) << r.err;
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(out)) names.push_back(e.path().filename());
  std::sort(names.begin(), names.end());
  // The 12-bit grey stream is written as a PGM under the name asked for.
  EXPECT_EQ(names, (std::vector<std::string>{"a.ppm", "b.ppm", "c.ppm", "d.ppm", "e.ppm"}));
  // Each as the one-file command writes it (a batch's one-tile CPU decodes go through
  // decode_into, a one-file command's through decode()).
  for (const fs::path& p : in)
    EXPECT_EQ(slurp(out / (p.stem().string() + ".ppm")), decode_one(p, "ppm")) << p;
  EXPECT_EQ(slurp(out / "e.ppm"), slurp(out / "a.ppm"));
}

TEST_F(CliBatch, SameStemIsRefusedBeforeAnyWork) {
  const std::vector<fs::path> in = make_streams();
  fs::create_directories(dir_ / "other");
  const fs::path twin = dir_ / "other" / "a.jp2";
  fs::copy_file(in[1], twin);
  const fs::path out = dir_ / "out";
  const auto r = run_gj2k("decode -i " + q(in[2]) + " -i " + q(in[0]) + " -i " + q(twin) + " -o " +
                          q(out) + " --format png");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find(in[0].string()), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(twin.string()), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_FALSE(fs::exists(out / "c.png")) << "nothing decoded before the refusal";
  // The same for the encoder.
  const fs::path png = dir_ / "a.png", ppm = dir_ / "other" / "a.ppm";
  io::write_image(codec::synthetic_image(20, 10, 3, 8, 1), png);
  io::write_image(codec::synthetic_image(20, 10, 3, 8, 2), ppm);
  const auto e =
      run_gj2k("encode -i " + q(png) + " -i " + q(ppm) + " -o " + q(out) + " --format jp2");
  EXPECT_NE(e.status, 0);
  EXPECT_NE(e.err.find("would both write"), std::string::npos) << e.err;
  EXPECT_FALSE(fs::exists(out / "a.jp2"));
  // A batch without --format or -o says what is missing.
  auto m = run_gj2k("decode -i " + q(in[0]) + " -i " + q(in[1]) + " -o " + q(out));
  EXPECT_NE(m.status, 0);
  EXPECT_NE(m.err.find("--format"), std::string::npos) << m.err;
  m = run_gj2k("decode -i " + q(in[0]) + " -i " + q(in[1]) + " --format tif");
  EXPECT_NE(m.status, 0);
  EXPECT_NE(m.err.find("-o"), std::string::npos) << m.err;
}

TEST_F(CliBatch, AFailingFileDoesNotStopTheBatch) {
  const std::vector<fs::path> in = make_streams();
  // A stream whose tile data is cut short, between two good ones.
  const fs::path bad = dir_ / "in" / "bad.j2k";
  std::string bytes = slurp(in[0]);
  bytes.resize(bytes.size() / 2);
  { std::ofstream(bad, std::ios::binary) << bytes; }
  const fs::path out = dir_ / "out";
  const auto r = run_gj2k("decode -i " + q(in[0]) + " -i " + q(bad) + " -i " + q(in[1]) + " -i " +
                          q(dir_ / "missing.j2k") + " -o " + q(out) + " --format pgx");
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.err.find("gj2k: " + bad.string() + ": "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("missing.j2k"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("2 of 4 files failed"), std::string::npos) << r.err;
  EXPECT_TRUE(fs::exists(out / "a_0.pgx"));
  EXPECT_TRUE(fs::exists(out / "b_2.pgx"));
  EXPECT_FALSE(fs::exists(out / "bad_0.pgx"));
  EXPECT_NE(r.out.find("2 files in "), std::string::npos) << r.out;
  // allow_partial decodes the cut stream as well.
  const auto p = run_gj2k("decode --quiet --allow-partial -i " + q(bad) + " -i " + q(in[1]) +
                          " -o " + q(out) + " --format pgx");
  EXPECT_EQ(p.status, 0) << p.err;
  EXPECT_TRUE(fs::exists(out / "bad_0.pgx"));
}

TEST_F(CliBatch, EncodeRepeatedInputsEqualsOneByOne) {
  const std::vector<fs::path> in = {dir_ / "in" / "p.png", dir_ / "in" / "q.ppm",
                                    dir_ / "in" / "r.pgm", dir_ / "in" / "s.tif"};
  io::write_image(codec::synthetic_image(97, 61, 3, 8, 1), in[0]);
  io::write_image(codec::synthetic_image(64, 64, 3, 8, 2), in[1]);
  io::write_image(codec::synthetic_image(33, 70, 1, 8, 3), in[2]);
  io::write_image(codec::synthetic_image(120, 80, 3, 16, 4), in[3]);
  { std::ofstream(dir_ / "in" / "t.ppm") << "P6 not an image"; }
  const std::vector<std::pair<std::string, std::string>> variants = {{"", "jp2"},
                                                                     {"-I -r 20,5", "j2k"}};
  for (const auto& [options, ext] : variants) {
    SCOPED_TRACE(options + " " + ext);
    const fs::path out = dir_ / ("out_" + ext + std::to_string(options.size()));
    const auto r = run_gj2k("encode -i " + q(dir_ / "in") + " -o " + q(out) + " --format " + ext +
                            " --threads 2 " + options);
    EXPECT_EQ(r.status, 1) << "t.ppm is not an image: " << r.err;
    EXPECT_NE(r.err.find("t.ppm"), std::string::npos) << r.err;
    EXPECT_NE(r.out.find("4 files in "), std::string::npos) << r.out;
    for (const fs::path& p : in) {
      const fs::path batch = out / (p.stem().string() + "." + ext);
      const fs::path one = dir_ / ("one." + ext);
      const auto o = run_gj2k("encode --quiet " + q(p) + " " + q(one) + " " + options);
      ASSERT_EQ(o.status, 0) << o.err;
      ASSERT_TRUE(fs::exists(batch)) << batch;
      EXPECT_EQ(slurp(batch), slurp(one)) << batch;
    }
  }
}

}  // namespace
}  // namespace gj2k
