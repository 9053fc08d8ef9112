// Batch decode throughput in memory: every codestream of a folder read into memory first, then
// decoded by `c` concurrent callers (each takes the next stream; Decoder::decode_into into its
// own reused 8-bit buffer, so no page faults and no file I/O count), for c = 1, 2, 4, 8, 16 and
// each device asked for, with threads / c decode threads per caller; and decode_batch (the
// library's batch of codestreams in memory, int32 images) on all threads. Prints images/s and
// ms per image. Isolates the decoder and the device from the CLI's reading and writing.
//
// Usage: bench_batch DIR [cpu|gpu|auto|both|all] [THREADS]   (DIR: .j2k/.jp2 files; default
// both: cpu and gpu; all: the three; auto: --device auto, whose rows show what its choice costs
// against the forced devices; all threads). GJ2K_BENCH_ITERS: rounds per row (default 2, the best
// one printed).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "gj2k/decoder.h"
#include "io/image_io.h"
#if defined(GJ2K_HAVE_CUDA)
#include <cuda_runtime.h>

#include "transform/cuda/cuda_memory.h"
#endif

namespace {

using Bytes = std::vector<uint8_t>;

std::vector<Bytes> load(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> paths;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    const std::string ext = e.path().extension().string();
    if (ext == ".j2k" || ext == ".jp2" || ext == ".j2c") paths.push_back(e.path());
  }
  std::sort(paths.begin(), paths.end());
  std::vector<Bytes> out;
  for (const auto& p : paths) out.push_back(gj2k::io::read_file(p));
  return out;
}

double now_ms() {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// One round: `callers` threads decode all streams; returns the wall ms.
double round_ms(const std::vector<Bytes>& streams, int callers, int threads,
                gj2k::DecodeDevice device) {
  std::atomic<size_t> next{0};
  auto work = [&] {
    std::vector<uint8_t> buffer;
    gj2k::DecodeParams p;
    p.device = device;
    p.threads = static_cast<uint32_t>(std::max(1, threads / callers));
    for (size_t k = next++; k < streams.size(); k = next++) {
      gj2k::Decoder d{std::span<const uint8_t>(streams[k])};
      const std::optional<gj2k::Image> shape = d.direct_output(p);
      if (!shape) {
        (void)d.decode(p);
        continue;
      }
      gj2k::OutputBuffer out;
      out.interleaved = true;
      out.type = shape->components[0].precision > 8 ? gj2k::SampleType::k16 : gj2k::SampleType::k8;
      out.size = gj2k::output_bytes(*shape, out);
      if (buffer.size() < out.size) buffer.resize(out.size);
      out.data = buffer.data();
      d.decode_into(p, out);
    }
  };
  const double t0 = now_ms();
  std::vector<std::jthread> pool;
  for (int c = 1; c < callers; ++c) pool.emplace_back(work);
  work();
  pool.clear();
  return now_ms() - t0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: bench_batch DIR [cpu|gpu|auto|both|all] [THREADS]\n");
    return 2;
  }
  const std::vector<Bytes> streams = load(argv[1]);
  if (streams.empty()) {
    std::fprintf(stderr, "bench_batch: no .j2k/.jp2 files in %s\n", argv[1]);
    return 2;
  }
  const std::string which = argc > 2 ? argv[2] : "both";
  const int threads = argc > 3
                          ? std::atoi(argv[3])
                          : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  int iters = 2;
  if (const char* s = std::getenv("GJ2K_BENCH_ITERS")) iters = std::max(1, std::atoi(s));
  std::printf("%zu codestreams from %s, %d threads, best of %d rounds\n", streams.size(), argv[1],
              threads, iters);
  std::printf("%-6s %8s %10s %12s\n", "device", "callers", "images/s", "ms/image");
  for (const std::string dev : {"cpu", "gpu", "auto"}) {
    if (which != dev && !(which == "both" && dev != "auto") && which != "all") continue;
    const gj2k::DecodeDevice device = dev == "cpu"   ? gj2k::DecodeDevice::kCpu
                                      : dev == "gpu" ? gj2k::DecodeDevice::kGpu
                                                     : gj2k::DecodeDevice::kAuto;
    {  // warm-up: CUDA start, pools
      std::vector<Bytes> first(streams.begin(), streams.begin() + 1);
      round_ms(first, 1, threads, device);
    }
    for (int callers : {1, 2, 4, 8, 12, 16}) {
      double best = 1e300;
      for (int i = 0; i < iters; ++i)
        best = std::min(best, round_ms(streams, callers, threads, device));
      std::printf("%-6s %8d %10.2f %12.2f", dev.c_str(), callers, streams.size() * 1000.0 / best,
                  best / streams.size());
#if defined(GJ2K_HAVE_CUDA)
      if (device == gj2k::DecodeDevice::kGpu) {
        size_t free_b = 0, total_b = 0;
        cudaMemGetInfo(&free_b, &total_b);
        std::printf("  device memory: buffers peak %.0f MB, device in use %.0f MB",
                    gj2k::transform::cuda::device_memory_use().peak / 1e6,
                    (total_b - free_b) / 1e6);
      }
#endif
      std::printf("\n");
      std::fflush(stdout);
    }
    std::vector<std::span<const uint8_t>> spans(streams.begin(), streams.end());
    gj2k::DecodeParams p;
    p.device = device;
    p.threads = static_cast<uint32_t>(threads);
    double best = 1e300;
    for (int i = 0; i < iters; ++i) {
      const double t0 = now_ms();
      const auto results = gj2k::decode_batch(spans, p);
      best = std::min(best, now_ms() - t0);
    }
    std::printf("%-6s %8s %10.2f %12.2f  (decode_batch, int32 images)\n", dev.c_str(), "batch",
                streams.size() * 1000.0 / best, best / streams.size());
  }
  return 0;
}
