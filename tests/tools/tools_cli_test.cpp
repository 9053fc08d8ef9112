// The gj2k command line: progress on a terminal (a pseudo-terminal here) and its absence
// elsewhere, info --json, the shared input/output rules, --raw on encode, compare on JPEG 2000,
// one-line parse errors, conformance data discovery.
#include <gtest/gtest.h>
#include <pty.h>
#include <sys/wait.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "codec/synthetic.h"
#include "core/isa.h"
#include "gj2k/gj2k.h"
#include "io/image_io.h"
#include "tests/tools/cli_run.h"

namespace gj2k {
namespace {

namespace fs = std::filesystem;
using test::q;
using test::run_gj2k;

// Runs gj2k with `args` on a new pseudo-terminal (stdout and stderr both the terminal);
// returns everything it wrote and its exit status.
std::pair<int, std::string> run_on_pty(const std::vector<std::string>& args) {
  int master = -1;
  winsize ws{};
  ws.ws_col = 120;
  ws.ws_row = 30;
  const pid_t pid = forkpty(&master, nullptr, nullptr, &ws);
  if (pid == 0) {
    std::vector<char*> argv;
    std::string bin = test::cli_binary().string();
    argv.push_back(bin.data());
    std::vector<std::string> copy = args;
    for (std::string& a : copy) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(bin.c_str(), argv.data());
    _exit(127);
  }
  std::string out;
  if (pid < 0) return {-1, out};
  char buffer[4096];
  for (;;) {
    const ssize_t n = read(master, buffer, sizeof buffer);
    if (n <= 0) break;  // EIO once the child has exited and closed the terminal
    out.append(buffer, static_cast<size_t>(n));
  }
  close(master);
  int status = 0;
  waitpid(pid, &status, 0);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

class Cli : public ::testing::Test {
 protected:
  void SetUp() override {
    GJ2K_REQUIRE_CLI();
    dir_ = test::scratch_dir() / "cli";
    fs::create_directories(dir_);
  }
  fs::path dir_;
};

TEST_F(Cli, ProgressOnATerminalOnly) {
  const std::string out = (dir_ / "p.j2k").string();
  const std::vector<std::string> encode = {"encode", "--synthetic", "640,480",   out,
                                           "-r",     "20,1",        "--threads", "2"};
  auto [status, tty] = run_on_pty(encode);
  ASSERT_EQ(status, 0) << tty;
  EXPECT_NE(tty.find("\r\x1b[Kencode: generating the scene"), std::string::npos) << tty;
  EXPECT_NE(tty.find("encode: transform + tier-1 ["), std::string::npos) << tty;
  EXPECT_NE(tty.find("encode: rate control ["), std::string::npos) << tty;
  EXPECT_NE(tty.find("%"), std::string::npos);
  EXPECT_NE(tty.find("p.j2k: 640x480"), std::string::npos) << "the summary follows";

  auto [dstatus, dtty] = run_on_pty({"decode", out, (dir_ / "p.ppm").string()});
  ASSERT_EQ(dstatus, 0) << dtty;
  EXPECT_NE(dtty.find("decode: decode [....................]   0%"), std::string::npos) << dtty;
  EXPECT_NE(dtty.find("decode: decode [####################] 100%"), std::string::npos) << dtty;
  EXPECT_NE(dtty.find("decode: writing p.ppm"), std::string::npos) << dtty;

  // --quiet on a terminal: nothing at all.
  std::vector<std::string> quiet = encode;
  quiet.push_back("--quiet");
  auto [qstatus, qtty] = run_on_pty(quiet);
  ASSERT_EQ(qstatus, 0);
  EXPECT_EQ(qtty, "");

  // Not a terminal: the summary only, no progress line.
  const auto piped = test::run_shell(q(test::cli_binary()) + " encode --synthetic 640,480 " +
                                     q(out) + " -r 20,1 --threads 2");
  ASSERT_EQ(piped.status, 0) << piped.err;
  EXPECT_EQ(piped.err, "");
  EXPECT_EQ(piped.out.find('\r'), std::string::npos);
  EXPECT_NE(piped.out.find("p.j2k: 640x480"), std::string::npos);
}

// --threads 1 bounds the whole command: reading a PPM for encode and writing one after decode
// start no helper thread (GJ2K_TRACE tells each pool growth); --threads 2 does, with the same
// bytes out.
TEST_F(Cli, OneThreadStartsNoHelperThreads) {
  const fs::path in = dir_ / "threads.ppm", one = dir_ / "threads1.j2k",
                 two = dir_ / "threads2.j2k";
  io::write_image(codec::synthetic_image(611, 403), in);
  const std::string gj2k = "GJ2K_TRACE=1 " + q(test::cli_binary());
  const char* kStarted = "thread pool:";
  test::RunResult r = test::run_shell(gj2k + " encode " + q(in) + " " + q(one) +
                                      " --threads 1 --device cpu --quiet");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err.find(kStarted), std::string::npos) << r.err;
  r = test::run_shell(gj2k + " decode " + q(one) + " " + q(dir_ / "threads1.ppm") +
                      " --threads 1 --device cpu --quiet");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err.find(kStarted), std::string::npos) << r.err;
  EXPECT_EQ(test::slurp(dir_ / "threads1.ppm"), test::slurp(in));
  r = test::run_shell(gj2k + " encode " + q(in) + " " + q(two) +
                      " --threads 2 --device cpu --quiet");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find(kStarted), std::string::npos) << r.err;
  EXPECT_EQ(test::slurp(one), test::slurp(two));
}

TEST_F(Cli, BatchProgressShowsFilesTimeAndThroughput) {
  const fs::path in = dir_ / "batch";
  fs::create_directories(in);
  for (int k = 0; k < 2; ++k)
    io::write_image(codec::synthetic_image(64, 48, 3, 8, k),
                    in / ("b" + std::to_string(k) + ".png"));
  auto [status, tty] = run_on_pty({"encode", "-ImgDir", in.string(), "-OutFor", "jp2"});
  ASSERT_EQ(status, 0) << tty;
  EXPECT_NE(tty.find("[1/2, "), std::string::npos) << tty;
  EXPECT_NE(tty.find("[2/2, "), std::string::npos) << tty;
  EXPECT_NE(tty.find(" MB/s] b1.png: reading b1.png"), std::string::npos) << tty;
  EXPECT_NE(tty.find("2 files in "), std::string::npos) << tty;
  EXPECT_TRUE(fs::exists(in / "b0.jp2"));
}

TEST_F(Cli, InfoJsonDescribesTheStream) {
  const fs::path src = dir_ / "src.png", j2k = dir_ / "info.jp2";
  io::write_image(codec::synthetic_image(100, 60, 3, 8, 3), src);
  auto r = run_gj2k("encode --quiet " + q(src) + " " + q(j2k) +
                    " -t 64,32 -n 3 -p RPCL -b 16,32 -c [32,32] -SOP -PLT -C note -r 10,1");
  ASSERT_EQ(r.status, 0) << r.err;
  r = run_gj2k("info --json " + q(j2k));
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["format"], "jp2");
  EXPECT_EQ(j["bytes"], fs::file_size(j2k));
  EXPECT_EQ(j["image"]["width"], 100);
  EXPECT_EQ(j["components"].size(), 3u);
  EXPECT_EQ(j["tiles"]["count"], 4);
  EXPECT_EQ(j["coding"]["levels"], 2);
  EXPECT_EQ(j["coding"]["layers"], 2);
  EXPECT_EQ(j["coding"]["progression"], "RPCL");
  EXPECT_EQ(j["coding"]["code_block"], nlohmann::json::array({16, 32}));
  EXPECT_EQ(j["coding"]["precincts"], nlohmann::json::parse("[[32,32],[16,16],[8,8]]"));
  EXPECT_EQ(j["coding"]["sop"], true);
  EXPECT_EQ(j["markers"]["plt"], true);
  EXPECT_EQ(j["markers"]["tlm"], false);
  EXPECT_EQ(j["markers"]["com"], nlohmann::json::array({"note"}));
  EXPECT_EQ(j["jp2"]["colr"], nlohmann::json::array({"sRGB"}));
  // The summary says the same in a few lines; --tiles lists every tile-part.
  r = run_gj2k("info " + q(j2k));
  EXPECT_NE(r.out.find("RPCL"), std::string::npos) << r.out;
  EXPECT_LT(std::count(r.out.begin(), r.out.end(), '\n'), 12) << r.out;
  r = run_gj2k("info --tiles " + q(j2k));
  EXPECT_NE(r.out.find("tile 3:"), std::string::npos) << r.out;
}

TEST_F(Cli, InputOutputRulesAreTheSameEverywhere) {
  const fs::path png = dir_ / "io.png";
  const Image src = codec::synthetic_image(40, 30, 1, 8, 4);
  io::write_image(src, png);
  for (const std::string form : {"{in} {out}", "-i {in} -o {out}", "-i {in} {out}"}) {
    SCOPED_TRACE(form);
    auto line = [&](const fs::path& in, const fs::path& out) {
      std::string s = form;
      s.replace(s.find("{in}"), 4, q(in));
      s.replace(s.find("{out}"), 5, q(out));
      return s;
    };
    fs::remove(dir_ / "io.j2k");
    ASSERT_EQ(run_gj2k("encode --quiet " + line(png, dir_ / "io.j2k")).status, 0);
    ASSERT_EQ(run_gj2k("decode --quiet " + line(dir_ / "io.j2k", dir_ / "io.pgm")).status, 0);
    ASSERT_EQ(run_gj2k("convert " + line(dir_ / "io.pgm", dir_ / "io2.png")).status, 0);
    EXPECT_FALSE(compare(src, io::read_image(dir_ / "io2.png")));
  }
  // compare reads JPEG 2000 as well.
  auto r = run_gj2k("compare " + q(dir_ / "io.j2k") + " " + q(png));
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("identical"), std::string::npos);
  // Missing or doubled files: one line, non-zero.
  for (const std::string& args : std::vector<std::string>{
           "encode --quiet " + q(png), "decode -i a.j2k -o b.pgm c.pgm", "encode -Q 3 a b"}) {
    r = run_gj2k(args);
    EXPECT_NE(r.status, 0) << args;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << args << ": " << r.err;
    EXPECT_EQ(r.err.rfind("gj2k", 0), 0u) << r.err;
  }
}

TEST_F(Cli, OpjOptionsWithoutAnEquivalent) {
  const fs::path png = dir_ / "x.png";
  io::write_image(codec::synthetic_image(40, 30, 3, 8, 6), png);
  // -x (opj's index file) is accepted with a warning, so opj scripts run.
  auto r =
      run_gj2k("encode --quiet " + q(png) + " " + q(dir_ / "x.j2k") + " -x " + q(dir_ / "x.idx"));
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("-x"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "x.idx"));
  // Options gj2k lacks are named in one line.
  for (const char* opt : {"-POC T1=0,0,1,3,3,CPRL", "-ROI c=0,U=25", "-cinema2K 24"}) {
    r = run_gj2k("encode " + q(png) + " " + q(dir_ / "y.j2k") + " " + opt);
    EXPECT_NE(r.status, 0) << opt;
    EXPECT_NE(r.err.find(std::string(opt).substr(0, std::string(opt).find(' '))), std::string::npos)
        << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
}

TEST_F(Cli, RawInputOnEncode) {
  const Image src = codec::synthetic_image(24, 16, 3, 12, 5);
  io::write_image(src, dir_ / "in.rawl");
  auto r = run_gj2k("encode --quiet " + q(dir_ / "in.rawl") + " " + q(dir_ / "raw.j2k") +
                    " --raw 24,16,3,12,u");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_FALSE(compare(src, decode_file(dir_ / "raw.j2k")));
  r = run_gj2k("encode --quiet " + q(dir_ / "in.rawl") + " " + q(dir_ / "raw2.j2k") +
               " -F 24,16,3,12,u");  // opj_compress's name
  ASSERT_EQ(r.status, 0) << r.err;
  r = run_gj2k("encode --quiet " + q(dir_ / "in.rawl") + " " + q(dir_ / "raw3.j2k") +
               " --raw 24,16,3");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find("--raw"), std::string::npos) << r.err;
}

TEST_F(Cli, ConformanceSaysWhereItLooked) {
  const auto r = test::run_shell("cd / && " + q(test::cli_binary()) +
                                 " conformance --data /nonexistent/conformance");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find("/nonexistent/conformance"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  GJ2K_REQUIRE_SHARED("conformance/TOLERANCES.md");
  // From another working directory, the data is found through the environment.
  const auto ok = test::run_shell("cd / && GJ2K_SHARED=" + q(test::shared_dir()) + " " +
                                  q(test::cli_binary()) + " conformance --filter p0_01");
  EXPECT_EQ(ok.status, 0) << ok.out << ok.err;
  EXPECT_NE(ok.out.find(" 0 failed"), std::string::npos) << ok.out;
}

// `gj2k device` names the CPU kernels' build, and GJ2K_ISA=base selects the baseline one.
TEST(CliDevice, NamesTheCpuKernelsBuild) {
  GJ2K_REQUIRE_CLI();
  const test::RunResult def = test::run_gj2k("device");
  ASSERT_EQ(def.status, 0) << def.err;
  const bool v3 = core::isa_supported(core::Isa::kV3);
  EXPECT_NE(def.out.find(v3 ? "cpu kernels: x86-64-v3 build" : "cpu kernels: baseline build"),
            std::string::npos)
      << def.out;
  const test::RunResult base =
      test::run_shell("GJ2K_ISA=base " + test::q(test::cli_binary()) + " device");
  ASSERT_EQ(base.status, 0) << base.err;
  EXPECT_NE(base.out.find("cpu kernels: baseline build"), std::string::npos) << base.out;
}

}  // namespace
}  // namespace gj2k
