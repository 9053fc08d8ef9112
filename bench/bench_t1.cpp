// Tier-1 throughput: encode and decode of quantized DWT coefficients of a real photograph
// (shared/images/Bretagne1.ppm, all three components), 1 thread and all threads (OpenMP over
// code-blocks), plus the MQ coder alone, spec-literal reference vs fast.
//
// The coefficients come from a minimal 5-level integer 5/3 DWT written here (the transform
// stage is not a dependency of entropy/): "lossless" codes them as they are, "lossy" is a proxy
// for 9/7 at a moderate step (dead-zone quantization of the same coefficients, step 12).
//
// Instruction counts (stable on a loaded machine, unlike wall time): one iteration under
// callgrind, counting only inside the Tier-1 entry point, divided by the 921,600 samples:
//   valgrind --tool=callgrind --toggle-collect='gj2k::entropy::decode_block(*'
//     build/bin/bench_t1 --benchmark_filter='BM_T1Decode<false>/lossy:0/threads:1/'
//     --benchmark_min_time=0.0001   (one command line)
// (encode_block and BM_T1Encode for the encoder, lossy:1 for the lossy proxy).
//
// After the benchmarks, the whole-process table (bench_cli.h): gj2k, Grok and OpenJPEG
// command-line decoders, 1 thread and all threads, on a lossless and a 9/7 rate-20 stream
// that the gj2k CLI encodes (--device cpu) from $GJ2K_BENCH_PHOTO (any image gj2k reads) or
// its 2560x1600 --synthetic scene, cached in $GJ2K_BENCH_CACHE or the temp folder.
// --no-cli leaves the table out; --runs N: whole processes per decoder and row (default 5).
#include <benchmark/benchmark.h>
#include <omp.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "bench/bench_cli.h"
#include "entropy/mq_dec.h"
#include "entropy/mq_enc.h"
#include "entropy/mq_ref.h"
#include "entropy/t1.h"
#include "entropy/t1_ref.h"

namespace {

using namespace gj2k::entropy;

struct Block {
  std::vector<int32_t> q;
  uint32_t w, h, mb;
  Band band;
};

struct Corpus {
  std::vector<Block> blocks;
  size_t samples = 0;
  bool ok = false;
};

std::filesystem::path image_path() {
  const char* env = std::getenv("GJ2K_SHARED");
  std::filesystem::path dir = env && *env ? env : "../shared";
  return dir / "images" / "Bretagne1.ppm";
}

// Binary P6 with maxval 255; returns planes of w*h.
bool read_ppm(const std::filesystem::path& p, uint32_t& w, uint32_t& h,
              std::vector<std::vector<int32_t>>& planes) {
  std::ifstream f(p, std::ios::binary);
  if (!f) return false;
  std::string magic;
  int maxval = 0;
  f >> magic >> w >> h >> maxval;
  f.get();
  if (magic != "P6" || maxval != 255 || w == 0 || h == 0) return false;
  std::vector<uint8_t> pix(static_cast<size_t>(w) * h * 3);
  f.read(reinterpret_cast<char*>(pix.data()), static_cast<std::streamsize>(pix.size()));
  if (!f) return false;
  planes.assign(3, std::vector<int32_t>(static_cast<size_t>(w) * h));
  for (size_t i = 0; i < static_cast<size_t>(w) * h; ++i) {
    for (int c = 0; c < 3; ++c) planes[c][i] = pix[3 * i + c] - 128;  // DC level shift
  }
  return true;
}

// One level of the 5/3 reversible lifting (15444-1 F.3.8) on n samples with stride s, even
// start, whole-sample symmetric extension; then low half first.
void lift53(int32_t* x, size_t n, size_t s, std::vector<int32_t>& tmp) {
  if (n < 2) return;
  auto at = [&](ptrdiff_t i) -> int32_t& {
    if (i < 0) i = -i;
    if (i >= static_cast<ptrdiff_t>(n)) i = 2 * (static_cast<ptrdiff_t>(n) - 1) - i;
    return x[i * s];
  };
  for (ptrdiff_t i = 1; i < static_cast<ptrdiff_t>(n); i += 2) {
    at(i) -= (at(i - 1) + at(i + 1)) >> 1;
  }
  for (ptrdiff_t i = 0; i < static_cast<ptrdiff_t>(n); i += 2) {
    at(i) += (at(i - 1) + at(i + 1) + 2) >> 2;
  }
  tmp.resize(n);
  size_t k = 0;
  for (size_t i = 0; i < n; i += 2) tmp[k++] = x[i * s];
  for (size_t i = 1; i < n; i += 2) tmp[k++] = x[i * s];
  for (size_t i = 0; i < n; ++i) x[i * s] = tmp[i];
}

void add_band(Corpus& c, const std::vector<int32_t>& img, uint32_t stride, uint32_t x0, uint32_t y0,
              uint32_t bw, uint32_t bh, Band band, int step) {
  const uint32_t gain = band == Band::kLL ? 0 : band == Band::kHH ? 2 : 1;
  for (uint32_t by = 0; by < bh; by += 64) {
    for (uint32_t bx = 0; bx < bw; bx += 64) {
      Block b;
      b.w = std::min(64u, bw - bx);
      b.h = std::min(64u, bh - by);
      b.band = band;
      b.mb = 2 + 8 + gain + 5 - 1;  // guard bits 2, generous for the 5 levels' growth
      b.q.resize(static_cast<size_t>(b.w) * b.h);
      for (uint32_t y = 0; y < b.h; ++y) {
        for (uint32_t x = 0; x < b.w; ++x) {
          int32_t v = img[(y0 + by + y) * stride + x0 + bx + x];
          if (step > 1) v = v < 0 ? -(-v / step) : v / step;
          b.q[y * b.w + x] = v;
        }
      }
      c.samples += b.q.size();
      c.blocks.push_back(std::move(b));
    }
  }
}

Corpus make_corpus(int step) {
  Corpus c;
  uint32_t w, h;
  std::vector<std::vector<int32_t>> planes;
  if (!read_ppm(image_path(), w, h, planes)) return c;
  std::vector<int32_t> tmp;
  for (auto& img : planes) {
    uint32_t cw = w, ch = h;
    for (int level = 0; level < 5; ++level) {
      // 2D_SD (F.4.2): vertical lifting first, then horizontal.
      for (uint32_t x = 0; x < cw; ++x) lift53(&img[x], ch, w, tmp);
      for (uint32_t y = 0; y < ch; ++y) lift53(&img[y * w], cw, 1, tmp);
      const uint32_t lw = (cw + 1) / 2, lh = (ch + 1) / 2;
      add_band(c, img, w, lw, 0, cw - lw, lh, Band::kHL, step);
      add_band(c, img, w, 0, lh, lw, ch - lh, Band::kLH, step);
      add_band(c, img, w, lw, lh, cw - lw, ch - lh, Band::kHH, step);
      cw = lw;
      ch = lh;
    }
    add_band(c, img, w, 0, 0, cw, ch, Band::kLL, step);
  }
  c.ok = true;
  return c;
}

const Corpus& corpus(bool lossy) {
  static const Corpus lossless_c = make_corpus(1);
  static const Corpus lossy_c = make_corpus(12);
  return lossy ? lossy_c : lossless_c;
}

int threads_for(int64_t arg) {
  return arg == 0 ? omp_get_max_threads() : static_cast<int>(arg);
}

// Args: lossy (0/1), threads (0: all); the Ref variants run the spec-literal coder (t1_ref.h).
template <bool kRef>
void BM_T1Encode(benchmark::State& state) {
  const Corpus& c = corpus(state.range(0) != 0);
  if (!c.ok) {
    state.SkipWithError(("image not found: " + image_path().string()).c_str());
    return;
  }
  const int nt = threads_for(state.range(1));
  std::vector<EncodedBlock> out(c.blocks.size());
  for (auto _ : state) {
#pragma omp parallel for schedule(dynamic, 4) num_threads(nt)
    for (size_t i = 0; i < c.blocks.size(); ++i) {
      const Block& b = c.blocks[i];
      if constexpr (kRef) {
        out[i] = encode_block_ref(b.q.data(), b.w, b.w, b.h, b.band, 0, b.mb);
      } else {
        encode_block(b.q.data(), b.w, b.w, b.h, b.band, 0, b.mb, out[i]);
      }
    }
    benchmark::DoNotOptimize(out.data());
  }
  size_t bytes = 0;
  for (const auto& e : out) bytes += e.data.size();
  state.counters["threads"] = nt;
  state.counters["Msamples"] = benchmark::Counter(
      static_cast<double>(c.samples) * static_cast<double>(state.iterations()) / 1e6,
      benchmark::Counter::kIsRate);
  state.counters["bits/sample"] = 8.0 * static_cast<double>(bytes) / static_cast<double>(c.samples);
}

template <bool kRef>
void BM_T1Decode(benchmark::State& state) {
  const Corpus& c = corpus(state.range(0) != 0);
  if (!c.ok) {
    state.SkipWithError(("image not found: " + image_path().string()).c_str());
    return;
  }
  const int nt = threads_for(state.range(1));
  std::vector<EncodedBlock> enc(c.blocks.size());
  size_t bytes = 0;
  for (size_t i = 0; i < c.blocks.size(); ++i) {
    const Block& b = c.blocks[i];
    encode_block(b.q.data(), b.w, b.w, b.h, b.band, 0, b.mb, enc[i]);
    bytes += enc[i].data.size();
  }
  std::vector<std::vector<int32_t>> out(c.blocks.size());
  for (size_t i = 0; i < c.blocks.size(); ++i) out[i].resize(c.blocks[i].q.size());
  for (auto _ : state) {
#pragma omp parallel for schedule(dynamic, 4) num_threads(nt)
    for (size_t i = 0; i < c.blocks.size(); ++i) {
      const Block& b = c.blocks[i];
      const EncodedBlock& e = enc[i];
      const uint32_t nbp = b.mb - e.missing_msbs;
      const Segment seg{e.data.data(), static_cast<uint32_t>(e.data.size()),
                        static_cast<uint32_t>(e.passes.size())};
      if constexpr (kRef) {
        decode_block_ref(&seg, 1, nbp, b.band, 0, out[i].data(), b.w, b.w, b.h);
      } else {
        decode_block(&seg, 1, nbp, b.band, 0, out[i].data(), b.w, b.w, b.h);
      }
    }
    benchmark::DoNotOptimize(out.data());
  }
  for (size_t i = 0; i < c.blocks.size(); ++i) {
    for (size_t k = 0; k < out[i].size(); ++k) {
      if (out[i][k] != 2 * c.blocks[i].q[k]) {
        state.SkipWithError("decode mismatch");
        return;
      }
    }
  }
  state.counters["threads"] = nt;
  state.counters["Msamples"] = benchmark::Counter(
      static_cast<double>(c.samples) * static_cast<double>(state.iterations()) / 1e6,
      benchmark::Counter::kIsRate);
  state.counters["bits/sample"] = 8.0 * static_cast<double>(bytes) / static_cast<double>(c.samples);
}

BENCHMARK_TEMPLATE(BM_T1Encode, false)
    ->ArgNames({"lossy", "threads"})
    ->Args({0, 1})
    ->Args({0, 0})
    ->Args({1, 1})
    ->Args({1, 0})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(BM_T1Decode, false)
    ->ArgNames({"lossy", "threads"})
    ->Args({0, 1})
    ->Args({0, 0})
    ->Args({1, 1})
    ->Args({1, 0})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(BM_T1Encode, true)
    ->ArgNames({"lossy", "threads"})
    ->Args({0, 1})
    ->Args({1, 1})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(BM_T1Decode, true)
    ->ArgNames({"lossy", "threads"})
    ->Args({0, 1})
    ->Args({1, 1})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

// ---- MQ coder alone: reference vs fast on 1M skewed decisions over the 19 contexts --------

struct Decisions {
  std::vector<uint8_t> cx, d;
};
const Decisions& decisions() {
  static const Decisions v = [] {
    Decisions r;
    std::mt19937 rng(42);
    std::uniform_real_distribution<double> u(0, 1);
    for (int i = 0; i < 1 << 20; ++i) {
      const int cx = static_cast<int>(rng() % kNumContexts);
      r.cx.push_back(static_cast<uint8_t>(cx));
      r.d.push_back(u(rng) < (cx % 2 ? 0.1 : 0.9));
    }
    return r;
  }();
  return v;
}

void set_rate(benchmark::State& state) {
  state.counters["Mdecisions"] = benchmark::Counter(
      static_cast<double>(decisions().d.size()) * static_cast<double>(state.iterations()) / 1e6,
      benchmark::Counter::kIsRate);
}

void BM_MqEncodeRef(benchmark::State& state) {
  const Decisions& v = decisions();
  for (auto _ : state) {
    MqRefEncoder enc;
    for (size_t i = 0; i < v.d.size(); ++i) enc.encode(v.cx[i], v.d[i]);
    enc.flush();
    benchmark::DoNotOptimize(enc.bytes().data());
  }
  set_rate(state);
}

std::vector<uint8_t> fast_encode(const Decisions& v) {
  std::vector<uint8_t> out(2 * v.d.size() + 8);  // more than 15 bits per decision
  MqEncoder enc(out.data(), static_cast<uint32_t>(out.size()));
  uint8_t st[kNumContexts];
  for (int i = 0; i < kNumContexts; ++i) st[i] = static_cast<uint8_t>(2 * initial_state_index(i));
  for (size_t i = 0; i < v.d.size(); ++i) enc.encode(kMqEncStates, st[v.cx[i]], v.d[i]);
  enc.flush(false);
  out.resize(enc.size());
  return out;
}

void BM_MqEncodeFast(benchmark::State& state) {
  const Decisions& v = decisions();
  for (auto _ : state) {
    auto out = fast_encode(v);
    benchmark::DoNotOptimize(out.data());
  }
  set_rate(state);
}

void BM_MqDecodeRef(benchmark::State& state) {
  const Decisions& v = decisions();
  const auto bytes = fast_encode(v);
  for (auto _ : state) {
    MqRefDecoder dec(bytes.data(), bytes.size());
    uint32_t acc = 0;
    for (size_t i = 0; i < v.d.size(); ++i) acc += static_cast<uint32_t>(dec.decode(v.cx[i]));
    benchmark::DoNotOptimize(acc);
  }
  set_rate(state);
}

void BM_MqDecodeFast(benchmark::State& state) {
  const Decisions& v = decisions();
  const auto bytes = fast_encode(v);
  for (auto _ : state) {
    MqDecoder dec(bytes.data(), bytes.size());
    uint8_t st[kNumContexts];
    for (int i = 0; i < kNumContexts; ++i) st[i] = static_cast<uint8_t>(2 * initial_state_index(i));
    uint32_t acc = 0;
    for (size_t i = 0; i < v.d.size(); ++i) acc += dec.decode(kMqDecStates, st[v.cx[i]]);
    benchmark::DoNotOptimize(acc);
  }
  set_rate(state);
}

BENCHMARK(BM_MqEncodeRef)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_MqEncodeFast)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_MqDecodeRef)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_MqDecodeFast)->Unit(benchmark::kMillisecond);

// The table's streams: lossless and 9/7 rate 20, encoded once by the gj2k CLI.
std::vector<gj2k::bench::CliStream> cli_streams(const std::string& cli) {
  const char* cache = std::getenv("GJ2K_BENCH_CACHE");
  const std::filesystem::path dir =
      cache && *cache ? std::filesystem::path(cache) : std::filesystem::temp_directory_path();
  const char* photo = std::getenv("GJ2K_BENCH_PHOTO");
  const bool synthetic = !(photo && *photo);
  const std::string tag =
      synthetic ? "synthetic2560x1600" : std::filesystem::path(photo).stem().string();
  std::vector<gj2k::bench::CliStream> streams;
  for (bool lossy : {false, true}) {
    const std::string name = tag + (lossy ? "-97r20" : "-53");
    const std::filesystem::path file = dir / ("gj2k-bench-t1-" + name + ".j2k");
    if (!std::filesystem::exists(file)) {
      std::vector<std::string> argv = {cli, "encode", "--device", "cpu", "-o", file.string()};
      if (synthetic) {
        argv.insert(argv.end(), {"--synthetic", "2560,1600"});
      } else {
        argv.insert(argv.end(), {"-i", photo});
      }
      if (lossy) argv.insert(argv.end(), {"--irreversible", "--rate", "20"});
      if (!gj2k::bench::run_process(argv).ok)
        std::printf("could not encode %s with %s\n", file.string().c_str(), cli.c_str());
    }
    streams.push_back({name, file});
  }
  return streams;
}

}  // namespace

int main(int argc, char** argv) {
  bool cli_table = true;
  int runs = 5;
  std::vector<char*> args;
  for (int i = 0; i < argc; ++i) {
    if (std::string(argv[i]) == "--no-cli")
      cli_table = false;
    else if (std::string(argv[i]) == "--runs" && i + 1 < argc)
      runs = std::max(1, std::atoi(argv[++i]));
    else
      args.push_back(argv[i]);
  }
  int n = static_cast<int>(args.size());
  benchmark::Initialize(&n, args.data());
  if (benchmark::ReportUnrecognizedArguments(n, args.data())) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  if (cli_table) {
    const std::string cli = gj2k::bench::gj2k_cli(argv[0]);
    gj2k::bench::print_cli_table(cli_streams(cli), {1, omp_get_max_threads()}, cli,
                                 std::filesystem::temp_directory_path(), runs);
  }
  return 0;
}
