// The decoder's host stages before Tier-1: Tier-2 (packet headers into codeword segments,
// codec/tier2.h read_tile_packets) and the code-block table the GPU decode uploads
// (codec/decoder_tile.h tile_block_table: Tier-2, then the table), and in CUDA builds the
// GPU decode's jobs and their arrangement for the kernel (entropy/cuda/t1_dec_cuda.h
// arrange_for_decode, for 132 SMs; host code, no GPU needed), on the CPU, for every tile of
// three streams our encoder writes of a photo mosaic (bench_images.h):
//   lossless     5/3, one tile, 64x64 code-blocks, one layer
//   97           9/7, one tile, 64x64 code-blocks, one layer at rate 20 (bench_gpu_codec's)
//   97-layers    9/7, one tile, 64x64 code-blocks, 4 layers (rates 160, 80, 40, 20)
//   tiled        5/3, 2048x2048 tiles split into tile-parts by resolution, 128x128 precincts,
//                3 layers (rates 40, 10, lossless), SOP and EPH
// The streams are cached in $GJ2K_BENCH_CACHE or the temp folder (gj2k-bench-t2-*.j2k).
//
//   bench_tier2 [--size WxH] [google-benchmark flags]     (default 10240x6400)
// Prints a summary (ms per stream: Tier-2 alone, Tier-2 + table, the table by difference, and
// the jobs with their arrangement).
#include <benchmark/benchmark.h>
#include <omp.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "bench/bench_images.h"
#include "codec/decoder_tile.h"
#include "codec/markers/reader.h"
#include "codec/structure.h"
#include "codec/tier2.h"
#include "gj2k/encoder.h"
#if defined(GJ2K_HAVE_CUDA)
#include "entropy/cuda/t1_dec_cuda.h"
#endif

namespace {
namespace fs = std::filesystem;

uint32_t g_width = 10240, g_height = 6400;

fs::path cache_dir() {
  if (const char* e = std::getenv("GJ2K_BENCH_CACHE"); e && *e) return e;
  return fs::temp_directory_path();
}

gj2k::EncodeParams params_of(const std::string& kind) {
  gj2k::EncodeParams p;
  p.cblk_width = p.cblk_height = 64;
  if (kind == "97") {
    p.irreversible = true;
    p.rates = {20};
  } else if (kind == "97-layers") {
    p.irreversible = true;
    p.rates = {160, 80, 40, 20};
  } else if (kind == "tiled") {
    p.tile_width = p.tile_height = 2048;
    p.tile_parts = gj2k::TilePartSplit::kResolution;
    p.precincts = {{128, 128}};
    p.rates = {40, 10, 1};
    p.sop = p.eph = true;
  }
  return p;
}

const std::vector<uint8_t>& stream_bytes(const std::string& kind) {
  static std::map<std::string, std::vector<uint8_t>> cache;
  auto it = cache.find(kind);
  if (it != cache.end()) return it->second;
  const fs::path file = cache_dir() / ("gj2k-bench-t2-" + kind + "-" + std::to_string(g_width) +
                                       "x" + std::to_string(g_height) + ".j2k");
  std::vector<uint8_t> bytes;
  if (fs::exists(file)) {
    std::ifstream in(file, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  } else {
    std::fprintf(stderr, "encoding %s ...\n", file.c_str());
    bytes = gj2k::Encoder().encode(gj2k::bench::photo_mosaic(g_width, g_height), params_of(kind));
    std::ofstream(file, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  }
  return cache.emplace(kind, std::move(bytes)).first->second;
}

std::map<std::string, double>& summary() {
  static std::map<std::string, double> s;
  return s;
}

// Tier-2 of every tile, every component and resolution kept.
void run_tier2(benchmark::State& state, const std::string& kind) {
  const auto& bytes = stream_bytes(kind);
  const gj2k::codec::Codestream code = gj2k::codec::read_codestream(bytes);
  std::vector<gj2k::codec::TileLayout> layouts;
  for (uint32_t t = 0; t < code.tiles.size(); ++t)
    layouts.push_back(gj2k::codec::make_tile_layout(code.main, &code.tiles[t].header, t));
  size_t blocks = 0;
  for (auto _ : state) {
    blocks = 0;
    for (uint32_t t = 0; t < code.tiles.size(); ++t) {
      gj2k::codec::PacketReadOptions o;
      for (const auto& c : layouts[t].components) o.components.push_back({&c, int(c.levels)});
      const auto got = gj2k::codec::read_tile_packets(bytes, code, t, o);
      for (const auto& m : got.blocks) blocks += m.size();
    }
  }
  state.counters["blocks"] = double(blocks);
  state.counters["MB"] = double(bytes.size()) / 1e6;
}

// Tier-2 and the code-block table of every tile (tile_block_table), on `threads` threads.
void run_table(benchmark::State& state, const std::string& kind, int threads) {
  const auto& bytes = stream_bytes(kind);
  const gj2k::codec::Codestream code = gj2k::codec::read_codestream(bytes);
  gj2k::codec::TileDecodeOptions o;
  o.components.assign(code.main.siz.components.size(), true);
  o.threads = threads;
  size_t blocks = 0;
  for (auto _ : state) {
    blocks = 0;
    for (uint32_t t = 0; t < code.tiles.size(); ++t) {
      const auto got = gj2k::codec::tile_block_table(bytes, code, t, o);
      blocks += got.table.blocks.size();
    }
  }
  state.counters["blocks"] = double(blocks);
}

#if defined(GJ2K_HAVE_CUDA)
// The GPU decode's jobs of every tile's table (as the CUDA backend makes them: each block's
// place in its component's plane, the planes back to back) and their arrangement for a GPU of
// 132 SMs (arrange_for_decode, the mapping it picks), on the calling thread.
void run_arrange(benchmark::State& state, const std::string& kind) {
  namespace ecu = gj2k::entropy::cuda;
  const auto& bytes = stream_bytes(kind);
  const gj2k::codec::Codestream code = gj2k::codec::read_codestream(bytes);
  gj2k::codec::TileDecodeOptions o;
  o.components.assign(code.main.siz.components.size(), true);
  std::vector<gj2k::codec::TileBlockTable> tables;
  for (uint32_t t = 0; t < code.tiles.size(); ++t)
    tables.push_back(gj2k::codec::tile_block_table(bytes, code, t, o));
  size_t warps = 0;
  for (auto _ : state) {
    warps = 0;
    for (const auto& tb : tables) {
      std::vector<uint64_t> offset;
      uint64_t total = 0;
      for (const auto& p : tb.planes) {
        offset.push_back(total);
        total += uint64_t{p.rect.width()} * p.rect.height();
      }
      std::vector<ecu::BlockJob> jobs;
      jobs.reserve(tb.table.blocks.size());
      for (const auto& b : tb.table.blocks) {
        const uint32_t w = tb.planes[b.component].rect.width();
        jobs.push_back({offset[b.component] + uint64_t{b.y} * w + b.x, w, b.seg_first, b.seg_count,
                        b.w, b.h, b.planes, b.band, b.style});
      }
      ecu::WarpSlot slot;
      warps += ecu::arrange_for_decode(jobs, tb.table.segments, 132, ecu::DecodeMapping::kAuto,
                                       &slot) == ecu::DecodeMapping::kWarps;
      benchmark::DoNotOptimize(jobs.data());
    }
  }
  state.counters["warp tiles"] = double(warps);
}
#endif

class SummaryReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const auto& r : runs)
      if (!r.error_occurred && r.iterations > 0 &&
          (r.run_type == Run::RT_Aggregate ? r.aggregate_name == "median" : r.repetitions <= 1))
        summary()[r.run_name.function_name] = r.GetAdjustedRealTime();
  }
};

}  // namespace

int main(int argc, char** argv) {
  std::vector<char*> args;
  for (int i = 0; i < argc; ++i) {
    if (std::strcmp(argv[i], "--size") == 0 && i + 1 < argc &&
        std::sscanf(argv[i + 1], "%ux%u", &g_width, &g_height) == 2)
      ++i;
    else
      args.push_back(argv[i]);
  }
  const int all = omp_get_max_threads();
  const char* kinds[] = {"lossless", "97", "97-layers", "tiled"};
  for (const char* k : kinds) {
    const std::string kind = k;
    benchmark::RegisterBenchmark(("tier2/" + kind).c_str(),
                                 [=](benchmark::State& s) { run_tier2(s, kind); })
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
    for (int threads : {1, 4, all}) {
      if (threads > all || (threads == all && threads == 4)) continue;
      benchmark::RegisterBenchmark(
          ("tier2+table/" + kind + "/threads:" + std::to_string(threads)).c_str(),
          [=](benchmark::State& s) { run_table(s, kind, threads); })
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
    }
#if defined(GJ2K_HAVE_CUDA)
    benchmark::RegisterBenchmark(("gpu jobs+arrange/" + kind).c_str(),
                                 [=](benchmark::State& s) { run_arrange(s, kind); })
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
#endif
  }
  int n = static_cast<int>(args.size());
  benchmark::Initialize(&n, args.data());
  SummaryReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  std::printf("\n%-12s %10s %12s %12s %12s %12s\n", "stream", "tier-2 ms", "+table 1t ms",
              "table 1t ms", "table all ms", "arrange ms");
  for (const char* k : kinds) {
    const std::string kind = k;
    auto get = [&](const std::string& name) {
      auto it = summary().find(name);
      return it == summary().end() ? 0.0 : it->second;
    };
    const double t2 = get("tier2/" + kind);
    const double one = get("tier2+table/" + kind + "/threads:1");
    const double many = get("tier2+table/" + kind + "/threads:" + std::to_string(all));
    std::printf("%-12s %10.1f %12.1f %12.1f %12.1f %12.1f\n", k, t2, one, one - t2, many - t2,
                get("gpu jobs+arrange/" + kind));
  }
  return 0;
}
