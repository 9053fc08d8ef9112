// CPU DWT throughput: forward and inverse 5-level 2-D DWT (5/3 and 9/7) of square images,
// reference vs fast lifting vs (9/7) filter-bank convolution, on 1 thread and on all threads.
// Prints Google Benchmark's report, then a summary table in Msamples/s and GB/s, where GB/s
// counts the bytes a transform must move at least: every sample of each level's input read
// once and written once (8 bytes per sample per level for int32/float32). Single-thread rows
// use CPU time, multi-thread rows real time. A memcpy row gives the copy bandwidth.
//
// Usage: bench_transform [--gj2k_sizes=4096,8192] [--gj2k_no_ref] [benchmark flags]
// (the default sizes are 4096 and 8192; the reference is slow, it runs one iteration).
#include <benchmark/benchmark.h>
#include <omp.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "transform/dwt.h"

namespace {

using gj2k::transform::DwtOps;
using gj2k::transform::DwtVariant;
using gj2k::transform::Plane;
using gj2k::transform::Rect;

constexpr int kLevels = 5;

// Bytes that a multi-level transform must at least move: 8 per sample per level.
double ideal_bytes(uint32_t size, int levels) {
  double b = 0;
  for (int n = 0; n < levels; ++n) {
    const double s = gj2k::transform::ceil_div_pow2(size, n);
    b += 8.0 * s * s;
  }
  return b;
}

template <class T>
void run(benchmark::State& state, DwtVariant var, bool is53, bool forward, uint32_t size,
         int threads) {
  omp_set_num_threads(threads);
  const size_t n = size_t{size} * size;
  std::vector<T> input(n), work(n);
  std::mt19937 rng(1234);
  for (auto& v : input) v = static_cast<T>(static_cast<int>(rng() % 256) - 128);
  const Rect tc{0, 0, size, size};
  const DwtOps& ops = gj2k::transform::dwt_ops(var);
  if (!forward) {  // inverse benchmarks start from real coefficients
    if constexpr (std::is_same_v<T, int32_t>)
      ops.forward53({input.data(), size}, tc, kLevels);
    else
      ops.forward97({input.data(), size}, tc, kLevels);
  }
  for (auto _ : state) {
    state.PauseTiming();
    std::memcpy(work.data(), input.data(), n * sizeof(T));
    state.ResumeTiming();
    Plane<T> p{work.data(), size};
    if constexpr (std::is_same_v<T, int32_t>)
      (forward ? ops.forward53 : ops.inverse53)(p, tc, kLevels);
    else
      (forward ? ops.forward97 : ops.inverse97)(p, tc, kLevels);
    benchmark::DoNotOptimize(work.data());
    benchmark::ClobberMemory();
  }
  (void)is53;
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * n));
  state.counters["GB/s"] = benchmark::Counter(ideal_bytes(size, kLevels) * state.iterations(),
                                              benchmark::Counter::kIsRate);
  state.counters["threads"] = threads;
}

// Collects items_per_second and GB/s of every run for the summary table.
class TableReporter : public benchmark::ConsoleReporter {
 public:
  struct Row {
    double msps = 0, gbps = 0;
  };
  std::map<std::string, Row> rows;
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& r : runs) {
      if (r.error_occurred) continue;
      Row row;
      if (auto it = r.counters.find("items_per_second"); it != r.counters.end())
        row.msps = it->second.value / 1e6;
      if (auto it = r.counters.find("GB/s"); it != r.counters.end())
        row.gbps = it->second.value / 1e9;
      rows[r.run_name.function_name] = row;
    }
  }
};

std::vector<uint32_t> parse_sizes(const char* s) {
  std::vector<uint32_t> out;
  while (*s) {
    out.push_back(static_cast<uint32_t>(std::strtoul(s, const_cast<char**>(&s), 10)));
    if (*s == ',')
      ++s;
    else if (*s)
      break;
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<uint32_t> sizes{4096, 8192};
  bool with_ref = true;
  std::vector<char*> args;
  for (int i = 0; i < argc; ++i) {
    if (std::strncmp(argv[i], "--gj2k_sizes=", 13) == 0)
      sizes = parse_sizes(argv[i] + 13);
    else if (std::strcmp(argv[i], "--gj2k_no_ref") == 0)
      with_ref = false;
    else
      args.push_back(argv[i]);
  }
  int nargs = static_cast<int>(args.size());
  const int all = omp_get_num_procs();

  struct Var {
    DwtVariant v;
    const char* name;
  };
  const Var vars[] = {{DwtVariant::kReference, "ref"},
                      {DwtVariant::kCpu, "cpu"},
                      {DwtVariant::kCpuConvolve, "conv"}};
  std::vector<std::string> order;
  for (uint32_t size : sizes)
    for (bool is53 : {true, false})
      for (bool fwd : {true, false})
        for (const Var& var : vars) {
          if (var.v == DwtVariant::kReference && !with_ref) continue;
          if (var.v == DwtVariant::kCpuConvolve && is53) continue;  // same as cpu for 5/3
          for (int t : {1, all}) {
            if (var.v == DwtVariant::kReference && t != 1) continue;  // single-threaded code
            const std::string name = std::string(is53 ? "dwt53" : "dwt97") + "/" +
                                     (fwd ? "fwd" : "inv") + "/" + var.name + "/" +
                                     std::to_string(size) + "/threads:" + std::to_string(t);
            auto* b = benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& st) {
              if (is53)
                run<int32_t>(st, var.v, true, fwd, size, t);
              else
                run<float>(st, var.v, false, fwd, size, t);
            });
            b->Unit(benchmark::kMillisecond);
            if (t > 1) b->UseRealTime();  // 1 thread: CPU time, robust on a shared machine
            if (var.v == DwtVariant::kReference) b->Iterations(1);
            order.push_back(name);
            if (t == all && all == 1) break;
          }
        }
  // The machine's copy bandwidth, for comparison: memcpy of one int32 image, read + write.
  for (uint32_t size : sizes) {
    const std::string name = "copy/" + std::to_string(size) + "/threads:1";
    benchmark::RegisterBenchmark(name.c_str(), [size](benchmark::State& st) {
      const size_t n = size_t{size} * size;
      std::vector<int32_t> a(n, 1), b(n, 2);
      for (auto _ : st) {
        std::memcpy(b.data(), a.data(), n * sizeof(int32_t));
        benchmark::DoNotOptimize(b.data());
        benchmark::ClobberMemory();
      }
      st.SetItemsProcessed(static_cast<int64_t>(st.iterations() * n));
      st.counters["GB/s"] =
          benchmark::Counter(8.0 * n * st.iterations(), benchmark::Counter::kIsRate);
    })->Unit(benchmark::kMillisecond);
    order.push_back(name);
  }
  benchmark::Initialize(&nargs, args.data());
  TableReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);

  std::printf(
      "\nSummary: 5-level 2-D DWT, Msamples/s (GB/s of ideal traffic), %d hardware "
      "threads\n",
      all);
  std::printf("%-40s %12s %10s\n", "benchmark", "Msamples/s", "GB/s");
  for (const std::string& name : order) {
    auto it = reporter.rows.find(name);
    if (it == reporter.rows.end()) continue;
    std::printf("%-40s %12.1f %10.2f\n", name.c_str(), it->second.msps, it->second.gbps);
  }
  benchmark::Shutdown();
  return 0;
}
