// Decode speed: gj2k next to OpenJPEG (libopenjp2, same process, same thread count) on
// lossless (5/3) and 9/7 (about 1 bit/pixel) codestreams of a 2560x1600 photograph and a
// 10240x6400 image, both made from the shared photographs. The streams are written by
// OpenJPEG once and cached in $GJ2K_BENCH_CACHE or the temp folder (gj2k-bench-*.j2k).
//
//   bench_decode [--big] [--runs N] [google-benchmark flags]
// --big adds the 10240x6400 image; --runs: whole processes per decoder and row (default 5).
// Prints a summary table (seconds and Mpixel/s per decoder; the median of 3 repetitions for
// the photo, each after 0.3 s of warm-up) after the benchmarks. gj2k runs with --device cpu.
// Then the whole-process table (bench_cli.h): the gj2k, Grok and OpenJPEG command-line
// decoders on the same stream files, 1 thread and all threads.
#include <benchmark/benchmark.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/bench_cli.h"
#include "gj2k/decoder.h"
#include "io/image_io.h"

#ifdef GJ2K_HAVE_OPENJPEG
#include <openjpeg.h>

#include "tests/codec/decode_opj.h"
#endif

namespace {
namespace fs = std::filesystem;

fs::path shared_dir() {
  if (const char* e = std::getenv("GJ2K_SHARED"); e && *e) return e;
  return fs::path(__FILE__).parent_path().parent_path() / ".." / "shared";
}

// Bilinear upscale of an RGB photo to w x h, then mirrored tiling when it must grow further.
// A 640x480 photo: the shared Bretagne1.ppm, or (where ../shared is absent) a synthetic scene
// with gradients, edges, texture and noise.
gj2k::Image source_photo() {
  const fs::path file = shared_dir() / "images" / "Bretagne1.ppm";
  if (fs::exists(file)) return gj2k::io::read_image(file);
  gj2k::Image img = gj2k::make_image(640, 480, 3, 8);
  uint32_t state = 12345;
  for (int c = 0; c < 3; ++c)
    for (uint32_t y = 0; y < 480; ++y)
      for (uint32_t x = 0; x < 640; ++x) {
        state = state * 1664525u + 1013904223u;
        double v = 90 + 60 * std::sin(x * 0.02 + c) * std::cos(y * 0.015) + (x > 320 ? 40 : 0) +
                   25 * ((x / 7 + y / 5) % 2) + double(state >> 28);
        img.components[c].at(x, y) = std::clamp(static_cast<int32_t>(v), 0, 255);
      }
  return img;
}

fs::path cache_dir() {
  if (const char* e = std::getenv("GJ2K_BENCH_CACHE"); e && *e) return e;
  return fs::temp_directory_path();
}

gj2k::Image make_photo(uint32_t w, uint32_t h) {
  // The large image mirrors the 2560x1600 photo; reuse its cached lossless stream if any.
  const fs::path base_stream = cache_dir() / "gj2k-bench-photo2560x1600-53.j2k";
  if (w > 2560 && fs::exists(base_stream)) {
    const gj2k::Image base = gj2k::decode_file(base_stream);
    gj2k::Image img = gj2k::make_image(w, h, 3, 8);
    for (int c = 0; c < 3; ++c)
      for (uint32_t y = 0; y < h; ++y)
        for (uint32_t x = 0; x < w; ++x) {
          uint32_t tx = x % 5120, ty = y % 3200;
          if (tx >= 2560) tx = 5119 - tx;
          if (ty >= 1600) ty = 3199 - ty;
          img.components[c].at(x, y) = base.components[c].at(tx, ty);
        }
    return img;
  }
  const gj2k::Image src = source_photo();
  const uint32_t bw = std::min(w, 2560u), bh = std::min(h, 1600u);
  gj2k::Image base = gj2k::make_image(bw, bh, 3, 8);
  for (int c = 0; c < 3; ++c) {
    const auto& s = src.components[c];
    for (uint32_t y = 0; y < bh; ++y)
      for (uint32_t x = 0; x < bw; ++x) {
        const double fx = (x + 0.5) * s.width / bw - 0.5, fy = (y + 0.5) * s.height / bh - 0.5;
        const int x0 = std::clamp(int(fx), 0, int(s.width) - 1),
                  y0 = std::clamp(int(fy), 0, int(s.height) - 1);
        const int x1 = std::min(x0 + 1, int(s.width) - 1), y1 = std::min(y0 + 1, int(s.height) - 1);
        const double ax = std::clamp(fx - x0, 0.0, 1.0), ay = std::clamp(fy - y0, 0.0, 1.0);
        const double v = (s.at(x0, y0) * (1 - ax) + s.at(x1, y0) * ax) * (1 - ay) +
                         (s.at(x0, y1) * (1 - ax) + s.at(x1, y1) * ax) * ay;
        base.components[c].at(x, y) = static_cast<int32_t>(v + 0.5);
      }
  }
  if (bw == w && bh == h) return base;
  gj2k::Image img = gj2k::make_image(w, h, 3, 8);
  for (int c = 0; c < 3; ++c)
    for (uint32_t y = 0; y < h; ++y)
      for (uint32_t x = 0; x < w; ++x) {
        uint32_t tx = x % (2 * bw), ty = y % (2 * bh);
        if (tx >= bw) tx = 2 * bw - 1 - tx;
        if (ty >= bh) ty = 2 * bh - 1 - ty;
        img.components[c].at(x, y) = base.components[c].at(tx, ty);
      }
  return img;
}

#ifdef GJ2K_HAVE_OPENJPEG
using MemStream = gj2k::test::opj::Buffer;
opj_stream_t* stream(MemStream& m, bool input) {
  return gj2k::test::opj::make_stream(m, input, size_t{1} << 20);
}
using gj2k::test::opj::quiet;

// The benchmark's streams: OpenJPEG's defaults, one layer, lossless or 24:1 (1 bit/pixel) 9/7.
std::vector<uint8_t> openjpeg_encode(const gj2k::Image& img, bool lossy) {
  return gj2k::test::opj::encode(
      img,
      [&](opj_cparameters_t& p) {
        p.tcp_rates[0] = lossy ? 24.0f : 0.0f;
        p.irreversible = lossy;
      },
      {}, omp_get_max_threads());
}

bool openjpeg_decode(const std::vector<uint8_t>& bytes, int threads) {
  MemStream in{bytes, 0};
  opj_stream_t* s = stream(in, true);
  opj_codec_t* codec = opj_create_decompress(OPJ_CODEC_J2K);
  opj_set_error_handler(codec, quiet, nullptr);
  opj_set_warning_handler(codec, quiet, nullptr);
  opj_dparameters_t p;
  opj_set_default_decoder_parameters(&p);
  opj_image_t* im = nullptr;
  bool ok = opj_setup_decoder(codec, &p) && opj_codec_set_threads(codec, threads) &&
            opj_read_header(s, codec, &im) && opj_decode(codec, s, im) &&
            opj_end_decompress(codec, s);
  if (im) opj_image_destroy(im);
  opj_stream_destroy(s);
  opj_destroy_codec(codec);
  return ok;
}
#endif

struct Stream {
  std::string name;
  uint32_t w, h;
  bool lossy;
  std::vector<uint8_t> bytes;
};

const std::vector<uint8_t>& stream_bytes(const std::string& name, uint32_t w, uint32_t h,
                                         bool lossy) {
  static std::map<std::string, std::vector<uint8_t>> cache;
  auto it = cache.find(name);
  if (it != cache.end()) return it->second;
  const fs::path file = cache_dir() / ("gj2k-bench-" + name + ".j2k");
  std::vector<uint8_t> bytes;
  if (fs::exists(file)) {
    std::ifstream in(file, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  } else {
#ifdef GJ2K_HAVE_OPENJPEG
    bytes = openjpeg_encode(make_photo(w, h), lossy);
    std::ofstream(file, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), bytes.size());
#endif
  }
  return cache.emplace(name, std::move(bytes)).first->second;
}

struct Row {
  double seconds = 0;
  double mpix = 0;
};
std::map<std::string, Row>& table() {
  static std::map<std::string, Row> t;
  return t;
}

void run(benchmark::State& state, const std::string& name, uint32_t w, uint32_t h, bool lossy,
         bool ours, int threads) {
  const auto& bytes = stream_bytes(name, w, h, lossy);
  if (bytes.empty()) {
    state.SkipWithError("no stream (OpenJPEG not linked)");
    return;
  }
  for (auto _ : state) {
    if (ours) {
      gj2k::DecodeParams p;
      p.threads = threads;
      p.device = gj2k::DecodeDevice::kCpu;  // CPU against CPU (the GPU: bench_gpu_codec)
      gj2k::Image img = gj2k::decode_memory(bytes, p);
      benchmark::DoNotOptimize(img.components[0].samples.data());
    } else {
#ifdef GJ2K_HAVE_OPENJPEG
      if (!openjpeg_decode(bytes, threads)) state.SkipWithError("OpenJPEG decode failed");
#endif
    }
  }
  const double pixels = double(w) * h;
  state.counters["Mpix/s"] =
      benchmark::Counter(pixels / 1e6, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["MB"] = bytes.size() / 1e6;
}

void register_all(bool big) {
  const int all = omp_get_max_threads();
  struct Img {
    const char* name;
    uint32_t w, h;
  };
  std::vector<Img> imgs = {{"photo2560x1600", 2560, 1600}};
  if (big) imgs.push_back({"big10240x6400", 10240, 6400});
  for (const Img& im : imgs)
    for (bool lossy : {false, true})
      for (int threads : {1, all})
        for (bool ours : {true, false}) {
          const std::string stream = std::string(im.name) + (lossy ? "-97" : "-53");
          const std::string bm = std::string(ours ? "gj2k/" : "openjpeg/") + stream +
                                 "/threads:" + std::to_string(threads);
          benchmark::RegisterBenchmark(
              bm.c_str(),
              [=](benchmark::State& s) { run(s, stream, im.w, im.h, lossy, ours, threads); })
              ->Unit(benchmark::kMillisecond)
              ->UseRealTime()
              ->MinWarmUpTime(0.3)  // first-touch page faults and clock ramp-up stay out
              ->MinTime(im.w > 4096 ? 0.5 : 1.0)
              ->Repetitions(im.w > 4096 ? 1 : 3);  // the table takes the median
        }
}

class TableReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const auto& r : runs)
      if (!r.error_occurred && r.iterations > 0 &&
          (r.run_type == Run::RT_Aggregate ? r.aggregate_name == "median" : r.repetitions <= 1)) {
        Row row;
        row.seconds = r.GetAdjustedRealTime() / 1e3;
        auto it = r.counters.find("Mpix/s");
        row.mpix = it != r.counters.end() ? double(it->second) : 0;
        table()[r.run_name.str()] = row;
      }
  }
};

}  // namespace

int main(int argc, char** argv) {
  bool big = false;
  int runs = 5;  // whole processes per decoder and row
  std::vector<char*> args;
  for (int i = 0; i < argc; ++i) {
    if (std::strcmp(argv[i], "--big") == 0)
      big = true;
    else if (std::strcmp(argv[i], "--runs") == 0 && i + 1 < argc)
      runs = std::max(1, std::atoi(argv[++i]));
    else
      args.push_back(argv[i]);
  }
  int n = static_cast<int>(args.size());
  register_all(big);
  const std::string cli = gj2k::bench::gj2k_cli(argv[0]);
  benchmark::Initialize(&n, args.data());
  TableReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  std::printf("\n%-40s %10s %10s %10s %10s %8s\n", "stream / threads", "gj2k s", "gj2k Mp/s",
              "opj s", "opj Mp/s", "speedup");
  for (const auto& [name, row] : table()) {
    if (name.rfind("gj2k/", 0) != 0) continue;
    const std::string key = name.substr(5);
    auto it = table().find("openjpeg/" + key);
    const Row o = it != table().end() ? it->second : Row{};
    std::printf("%-40s %10.3f %10.1f %10.3f %10.1f %8.2f\n", key.c_str(), row.seconds, row.mpix,
                o.seconds, o.mpix, o.seconds > 0 ? o.seconds / row.seconds : 0.0);
  }
  std::vector<gj2k::bench::CliStream> streams;
  for (const char* im : {"photo2560x1600", "big10240x6400"}) {
    if (!big && std::string(im) != "photo2560x1600") continue;
    for (const char* kind : {"-53", "-97"}) {
      const std::string name = std::string(im) + kind;
      streams.push_back({name, cache_dir() / ("gj2k-bench-" + name + ".j2k")});
    }
  }
  gj2k::bench::print_cli_table(streams, {1, omp_get_max_threads()}, cli, cache_dir(), runs);
  return 0;
}
