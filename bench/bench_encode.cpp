// Whole-process encode, side by side: the gj2k CLI against Grok (grk_compress) and OpenJPEG
// (opj_compress), lossless (5/3) and 9/7 at rate 20, on 1 thread and on all threads, each the
// median of a few runs, the codecs in turns (bench_cli.h), with its wall, user and system time
// (the processes' rusage). A codec whose CLI is not on PATH is skipped, with a line saying so.
//
// Inputs: a 2560x1600 RGB photo (--photo FILE, any format gj2k reads; default the shared
// photos' mosaic of bench_images.h at that size) and with --big the 10240x6400 mosaic, written
// to a temporary PPM that every CLI reads.
//   build/bin/bench_encode [--photo X.ppm] [--big] [--runs N]
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "bench/bench_cli.h"
#include "bench_images.h"
#include "io/image_io.h"

namespace {

namespace fs = std::filesystem;

bool on_path(const std::string& name) {
  if (name.find('/') != std::string::npos) return fs::exists(name);
  const char* path = std::getenv("PATH");
  std::string p = path ? path : "";
  for (size_t at = 0; at <= p.size();) {
    const size_t end = std::min(p.find(':', at), p.size());
    if (end > at && fs::exists(fs::path(p.substr(at, end - at)) / name)) return true;
    at = end + 1;
  }
  return false;
}

// The gj2k CLI: next to this program (build/bin), else on PATH.
std::string gj2k_cli(const char* argv0) {
  const fs::path here = fs::path(argv0).parent_path() / "gj2k";
  return fs::exists(here) ? here.string() : "gj2k";
}

struct Codec {
  const char* name;
  std::string exe;
  // The command line for input, output, lossy (9/7 rate 20) or lossless, threads.
  std::vector<std::string> (*args)(const std::string& exe, const std::string& in,
                                   const std::string& out, bool lossy, int threads);
};

std::vector<std::string> gj2k_args(const std::string& exe, const std::string& in,
                                   const std::string& out, bool lossy, int threads) {
  std::vector<std::string> a = {
      exe, "encode", "--device", "cpu", "--threads", std::to_string(threads), "-i", in, "-o", out};
  if (lossy) a.insert(a.end(), {"--irreversible", "--rate", "20"});
  return a;
}
std::vector<std::string> grk_args(const std::string& exe, const std::string& in,
                                  const std::string& out, bool lossy, int threads) {
  std::vector<std::string> a = {exe, "-H", std::to_string(threads), "-i", in, "-o", out};
  if (lossy) a.insert(a.end(), {"-I", "-r", "20"});
  return a;
}
std::vector<std::string> opj_args(const std::string& exe, const std::string& in,
                                  const std::string& out, bool lossy, int threads) {
  std::vector<std::string> a = {exe, "-threads", std::to_string(threads), "-i", in, "-o", out};
  if (lossy) a.insert(a.end(), {"-I", "-r", "20"});
  return a;
}

}  // namespace

int main(int argc, char** argv) {
  std::string photo;
  bool big = false;
  int runs = 5;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--photo") == 0 && i + 1 < argc)
      photo = argv[++i];
    else if (std::strcmp(argv[i], "--big") == 0)
      big = true;
    else if (std::strcmp(argv[i], "--runs") == 0 && i + 1 < argc)
      runs = std::max(1, std::atoi(argv[++i]));
    else {
      std::fprintf(stderr, "usage: %s [--photo FILE] [--big] [--runs N]\n", argv[0]);
      return 2;
    }
  }
  const fs::path dir = fs::temp_directory_path() / ("bench_encode_" + std::to_string(getpid()));
  fs::create_directories(dir);
  struct Input {
    std::string name, path;
  };
  std::vector<Input> inputs;
  try {
    const gj2k::Image im =
        photo.empty() ? gj2k::bench::photo_mosaic(2560, 1600) : gj2k::io::read_image(photo);
    inputs.push_back({photo.empty() ? "mosaic 2560x1600" : fs::path(photo).filename().string(),
                      (dir / "photo.ppm").string()});
    gj2k::io::write_image(im, inputs.back().path);
    if (big) {
      gj2k::io::write_image(gj2k::bench::photo_mosaic(10240, 6400), (dir / "big.ppm").string());
      inputs.push_back({"mosaic 10240x6400", (dir / "big.ppm").string()});
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_encode: %s\n", e.what());
    return 1;
  }
  std::vector<Codec> codecs = {{"gj2k", gj2k_cli(argv[0]), gj2k_args},
                               {"grok", "grk_compress", grk_args},
                               {"openjpeg", "opj_compress", opj_args}};
  std::vector<Codec> present;
  for (const Codec& c : codecs) {
    if (on_path(c.exe))
      present.push_back(c);
    else
      std::printf("%s: %s not found, skipped\n", c.name, c.exe.c_str());
  }
  const int all = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::printf(
      "whole-process encode, medians of %d runs (each column its own), the codecs in turns: wall / "
      "user / sys seconds;\n"
      "x: the codec's wall time over gj2k's (above 1: gj2k faster)\nhost: %s; %s\n\n",
      runs, gj2k::bench::host_description().c_str(),
      gj2k::bench::pin_note(gj2k::bench::pin_cpu()).c_str());
  std::printf("%-20s %-9s %3s  %-9s %7s %7s %7s %6s\n", "input", "mode", "thr", "codec", "wall",
              "user", "sys", "x");
  for (const Input& in : inputs)
    for (const bool lossy : {false, true})
      for (const int threads : {1, all}) {
        std::vector<std::vector<std::string>> argvs;
        for (const Codec& c : present)
          argvs.push_back(c.args(c.exe, in.path, (dir / (std::string(c.name) + ".j2k")).string(),
                                 lossy, threads));
        const std::vector<gj2k::bench::ProcessTime> times =
            gj2k::bench::time_in_turns(argvs, runs, gj2k::bench::pin_for(threads));
        double gj2k_wall = 0;
        for (size_t k = 0; k < present.size(); ++k)
          if (present[k].name == std::string("gj2k")) gj2k_wall = times[k].wall;
        for (size_t k = 0; k < present.size(); ++k) {
          const gj2k::bench::ProcessTime& t = times[k];
          const Codec& c = present[k];
          if (!t.ok) {
            std::printf("%-20s %-9s %3d  %-9s failed\n", in.name.c_str(),
                        lossy ? "9/7 r20" : "lossless", threads, c.name);
            continue;
          }
          std::printf("%-20s %-9s %3d  %-9s %7.3f %7.3f %7.3f %6.2f\n", in.name.c_str(),
                      lossy ? "9/7 r20" : "lossless", threads, c.name, t.wall, t.user, t.sys,
                      gj2k_wall > 0 ? t.wall / gj2k_wall : 0.0);
        }
        std::fflush(stdout);
      }
  std::error_code ec;
  fs::remove_all(dir, ec);
  return 0;
}
