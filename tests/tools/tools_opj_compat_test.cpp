// opj_compress / opj_decompress command lines run unchanged through gj2k encode / decode: the
// codestream parameters (gj2k info --json) and the decoded images must agree with OpenJPEG's.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cctype>
#include <cmath>
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
using test::run_shell;

nlohmann::json info_json(const fs::path& file) {
  const auto r = run_gj2k("info --json " + q(file));
  EXPECT_EQ(r.status, 0) << r.err;
  return nlohmann::json::parse(r.out, nullptr, /*allow_exceptions=*/false);
}

double psnr(const Image& a, const Image& b) {
  double sse = 0;
  size_t n = 0;
  for (size_t c = 0; c < a.components.size(); ++c)
    for (size_t i = 0; i < a.components[c].samples.size(); ++i) {
      const double d = a.components[c].samples[i] - b.components[c].samples[i];
      sse += d * d;
      ++n;
    }
  return sse == 0 ? INFINITY : 10 * std::log10(255.0 * 255.0 * n / sse);
}

class OpjCompat : public ::testing::Test {
 protected:
  void SetUp() override {
    GJ2K_REQUIRE_CLI();
    if (!test::have_program("opj_compress") || !test::have_program("opj_decompress"))
      GTEST_SKIP() << "opj_compress/opj_decompress not installed (Debian libopenjp2-tools)";
    dir_ = test::scratch_dir() / "opj_compat";
    fs::create_directories(dir_);
    source_ = codec::synthetic_image(131, 97, 3, 8, 7);
    io::write_image(source_, dir_ / "in.ppm");
  }
  fs::path dir_;
  Image source_;
};

struct EncodeCase {
  const char* args;
  bool lossless;
  double min_psnr = 0;  // lossy: both decodes at least this close to the source
};

// Real opj_compress option sets; each runs through both tools with the same arguments.
const EncodeCase kEncodeCases[] = {
    {"", true},
    {"-n 3 -b 32,32", true},
    {"-n 1", true},
    {"-b 16,64 -p RLCP", true},
    {"-c [128,128],[64,64] -p RPCL", true},
    {"-c [64,64] -p PCRL -n 4", true},
    {"-c [100,90],[50,40] -n 4", true},  // rounded down to powers of two, as opj does
    {"-c [256,256],[128,128],[64,64],[32,32],[16,16],[8,8] -p CPRL", true},
    {"-t 64,64", true},
    {"-t 100,80 -T 3,7 -d 10,20", true},
    {"-SOP -EPH", true},
    {"-PLT -TLM -t 128,128", true},
    {"-TP R -t 128,128", true},
    {"-TP L -r 30,10,1", true},
    {"-TP C -t 64,64", true},  // (-t 100,100: OpenJPEG 2.5.0 writes a broken tile 2)
    {"-M 1", true},
    {"-M 5 -p CPRL", true},
    {"-M 63", true},
    {"-M 24", true},
    {"-mct 0", true},
    {"-C hello-from-opj", true},
    {"-s 2,2", true},
    {"-threads 2", true},
    {"-r 40,20,10", false, 25},
    {"-r 20 -I", false, 27},
    {"-I -r 50,25,12 -p RPCL -c [128,128]", false, 25},
    {"-q 30,38", false, 29.5},
    {"-I -q 36", false, 35.5},
};

// One opj_compress command line per test.
class OpjCompress : public OpjCompat, public ::testing::WithParamInterface<EncodeCase> {};

TEST_P(OpjCompress, SameParametersAndImages) {
  const EncodeCase& c = GetParam();
  SCOPED_TRACE(c.args);
  const std::string args = c.args;
  const bool subsampled = args.find("-s ") != std::string::npos;
  const fs::path opj = dir_ / "opj.j2k", ours = dir_ / "gj2k.j2k";
  fs::remove(opj);
  fs::remove(ours);
  const std::string in = q(dir_ / "in.ppm");
  auto r = run_shell("opj_compress -i " + in + " -o " + q(opj) + " " + args);
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  r = run_gj2k("encode --quiet -i " + in + " -o " + q(ours) + " " + args);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;

  // The codestream parameters.
  const nlohmann::json a = info_json(opj), b = info_json(ours);
  ASSERT_FALSE(a.is_discarded());
  ASSERT_FALSE(b.is_discarded());
  for (const char* key : {"image", "components", "tiles", "coding"})
    EXPECT_EQ(a[key], b[key]) << key << ":\n opj  " << a[key] << "\n gj2k " << b[key];
  EXPECT_EQ(a["quantization"]["style"], b["quantization"]["style"]);
  for (const auto& [name, v] : a["markers"].items()) {
    if (name != "com") {
      EXPECT_EQ(v, b["markers"][name]) << name;
    }
  }
  if (args.find("-C ") != std::string::npos) {
    EXPECT_EQ(a["markers"]["com"], b["markers"]["com"]);
  }

  // The decoded images: both streams by gj2k, gj2k's also by OpenJPEG (which writes no PPM
  // for subsampled components).
  const Image from_opj = decode_file(opj);
  const Image from_ours = decode_file(ours);
  ASSERT_EQ(from_ours.components.size(), source_.components.size());
  if (c.lossless) {
    EXPECT_FALSE(compare(from_opj, from_ours)) << *compare(from_opj, from_ours);
    for (size_t k = 0; k < source_.components.size(); ++k)  // -d, -s move the image on the grid
      EXPECT_EQ(from_ours.components[k].samples, source_.components[k].samples) << k;
  } else {
    EXPECT_GE(psnr(source_, from_ours), c.min_psnr);
    EXPECT_GE(psnr(source_, from_opj), c.min_psnr);
    EXPECT_GE(psnr(source_, from_ours), psnr(source_, from_opj) - 1.0) << "worse than OpenJPEG";
  }
  if (!subsampled) {
    const fs::path back = dir_ / "ours_by_opj.ppm";
    r = run_shell("opj_decompress -i " + q(ours) + " -o " + q(back));
    ASSERT_EQ(r.status, 0) << r.out << r.err;
    const Image by_opj = io::read_image(back);
    if (c.lossless)
      EXPECT_FALSE(compare(by_opj, io::read_image(dir_ / "in.ppm"))) << "OpenJPEG's decode";
    else
      EXPECT_GE(psnr(source_, by_opj), c.min_psnr) << "OpenJPEG's decode";
  }
}

INSTANTIATE_TEST_SUITE_P(CommandLines, OpjCompress, ::testing::ValuesIn(kEncodeCases),
                         [](const ::testing::TestParamInfo<EncodeCase>& info) {
                           std::string name = "case" + std::to_string(info.index);
                           for (const char* p = info.param.args; *p; ++p)
                             if (std::isalnum(static_cast<unsigned char>(*p))) name += *p;
                           return name;
                         });

// opj_decompress's options on a lossless tiled stream: both decoders write the same image.
// Component selection (-c) runs on a stream without MCT: OpenJPEG then skips the inverse
// component transform and writes the coded components, gj2k still applies it.
TEST_F(OpjCompat, DecodeCommandLinesMatchOpjDecompress) {
  const fs::path tiled = dir_ / "tiled.j2k", no_mct = dir_ / "no_mct.j2k";
  for (const auto& [stream, extra] : {std::pair{tiled, ""}, std::pair{no_mct, " -mct 0"}})
    ASSERT_EQ(run_shell("opj_compress -i " + q(dir_ / "in.ppm") + " -o " + q(stream) +
                        " -t 64,64 -r 8,4,1 -n 4" + extra)
                  .status,
              0);
  const char* cases[] = {"",
                         "-r 1",
                         "-r 2 -l 1",
                         "-l 2",
                         "-t 5",
                         "-t 0 -r 1",
                         "-d 10,20,150,100",
                         "-d 0,0,64,64 -r 1",
                         "-threads 2",
                         "-c 1 -r 1",
                         "-c 2,0"};
  for (const char* args : cases) {
    SCOPED_TRACE(args);
    const bool one = std::string(args).find("-c 1") != std::string::npos;
    const fs::path stream = std::string(args).find("-c ") != std::string::npos ? no_mct : tiled;
    const std::string ext = one                                                     ? ".pgm"
                            : std::string(args).find("-c 2,0") != std::string::npos ? ".pgx"
                                                                                    : ".ppm";
    const fs::path opj = dir_ / ("opj_dec" + ext), ours = dir_ / ("gj2k_dec" + ext);
    auto r = run_shell("opj_decompress -i " + q(stream) + " -o " + q(opj) + " " + args);
    ASSERT_EQ(r.status, 0) << r.out << r.err;
    r = run_gj2k("decode --quiet -i " + q(stream) + " -o " + q(ours) + " " + args);
    ASSERT_EQ(r.status, 0) << r.err;
    if (ext == ".pgx") {  // one file per component: name_0.pgx, name_1.pgx
      for (int k = 0; k < 2; ++k) {
        const std::string n = "_" + std::to_string(k) + ".pgx";
        const Image a = io::read_image(dir_ / ("opj_dec" + n));
        const Image b = io::read_image(dir_ / ("gj2k_dec" + n));
        EXPECT_EQ(a.components[0].samples, b.components[0].samples) << k;
      }
      continue;
    }
    const auto diff = compare(io::read_image(opj), io::read_image(ours));
    EXPECT_FALSE(diff) << *diff;
  }
}

// The batch form: -ImgDir / -OutFor in one process, then back with opj's spelling too.
TEST_F(OpjCompat, ImgDirOutForBatch) {
  const fs::path in = dir_ / "batch";
  fs::remove_all(in);
  fs::create_directories(in);
  for (int k = 0; k < 3; ++k)
    io::write_image(codec::synthetic_image(40 + k, 30, k == 1 ? 1 : 3, 8, k),
                    in / ("img" + std::to_string(k) + (k == 1 ? ".pgm" : ".ppm")));
  auto r = run_gj2k("encode -ImgDir " + q(in) + " -OutFor j2k -r 10,1 --quiet");
  ASSERT_EQ(r.status, 0) << r.err;
  const fs::path out = dir_ / "batch_out";
  fs::remove_all(out);
  r = run_gj2k("decode -ImgDir " + q(in) + " -OutFor pnm -o " + q(out));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("3 files in"), std::string::npos) << r.out;
  for (int k = 0; k < 3; ++k) {
    const std::string name = "img" + std::to_string(k);
    EXPECT_FALSE(compare(io::read_image(in / (name + (k == 1 ? ".pgm" : ".ppm"))),
                         io::read_image(out / (name + ".pnm"))))
        << name;
  }
}

}  // namespace
}  // namespace gj2k
