// `gj2k device`: what the transform stages would run on here.
#include <CLI/CLI.hpp>

#include <cmath>
#include <cstdio>
#include <utility>

#include "codec/batch.h"
#include "core/isa.h"
#include "core/thread_pool.h"
#include "tools/command.h"
#include "transform/device.h"

namespace {

// The break-even line under a cost model: `what` ("decodes") stay on the CPU on `threads`
// threads, or go to the GPU for a one-tile image from `even` samples on; then `after`.
void print_break_even(const char* what, unsigned long long even, int threads, const char* after) {
  if (even == ~0ull) {
    std::printf("  so %s stay on the CPU on %d threads\n", what, threads);
    return;
  }
  std::printf(
      "  so %s of a one-tile image go to the GPU from %.1f Msamples on (e.g. %.0f x %.0f RGB) "
      "on %d threads; %s\n",
      what, even / 1e6, std::sqrt(even / 3.0 * 1.6), std::sqrt(even / 3.0 / 1.6), threads, after);
}

const bool registered = gj2k::cli::register_command(
    {"device", "Show whether a CUDA GPU is usable, and the figures --device auto weighs",
     [](CLI::App&) -> gj2k::cli::RunFn {
       return [] {
         namespace core = gj2k::core;
         std::printf("cpu kernels: %s\n",
                     core::use_isa_v3()
                         ? "x86-64-v3 build (AVX2, BMI1/2, LZCNT; GJ2K_ISA=base for the baseline)"
                     : core::isa_supported(core::Isa::kV3)
                         ? "baseline build (GJ2K_ISA=base; this CPU has x86-64-v3)"
                         : "baseline build");
         auto info = gj2k::transform::gpu_info();
         namespace tf = gj2k::transform;
         if (!info.available) {
           std::printf("gpu: none (%s); the CPU path will be used\n", info.reason.c_str());
           return 0;
         }
         std::printf("gpu: %s (sm_%d%d, %d SMs, %.1f GiB)\n", info.name.c_str(), info.sm_major,
                     info.sm_minor, info.multiprocessors, info.global_memory / double(1u << 30));
         const tf::DecodeCosts& k = tf::kDecodeCosts;
         const int threads = gj2k::core::max_threads();
         std::printf(
             "decode, --device auto weighs: CPU %.1f ns per decoded sample and %.0f ns per "
             "codestream byte on one thread (divided by %d threads) and %.1f ms per decode, GPU "
             "%.2f ns per sample and %.2f ns per byte and %.1f ms per decode plus %.1f ms times "
             "the bytes per sample (its Tier-1 launch lasts as long as the densest code-block), "
             "plus %.0f ms of CUDA start-up for a process's first GPU decode and %.0f ms for "
             "each tile after the first\n",
             k.cpu_ns_per_sample_thread, k.cpu_ns_per_byte_thread, threads, k.cpu_decode_ms,
             k.gpu_ns_per_sample, k.gpu_ns_per_byte, k.gpu_decode_ms,
             k.gpu_chain_ms_per_byte_sample, k.gpu_start_ms, k.gpu_tile_ms);
         // Two typical compressions of 8-bit images: lossless, and 9/7 at rate 20.
         for (const auto& [name, bytes_per_sample] :
              {std::pair{"lossless decodes (0.34 bytes per sample)", 0.34},
               std::pair{"lossy decodes (0.05 bytes per sample)", 0.05}}) {
           char warm[96];
           const unsigned long long started =
               tf::decode_break_even(threads, true, 1, bytes_per_sample);
           if (started == ~0ull)
             std::snprintf(warm, sizeof warm, "never, even once CUDA is up");
           else
             std::snprintf(warm, sizeof warm, "once CUDA is up, from %.1f Msamples", started / 1e6);
           print_break_even(name, tf::decode_break_even(threads, false, 1, bytes_per_sample),
                            threads, warm);
         }
         std::printf(
             "  a process whose decodes the GPU would win only with CUDA up starts it once what "
             "they would have saved adds up to the start-up; a batch weighs the start-up "
             "against its images still to start, on the CPU at all its threads and on the GPU "
             "at %.1f ns per sample for images decoded side by side\n",
             gj2k::codec::kBatchStealCosts.gpu_ns_per_sample);
         const gj2k::codec::BatchStealCosts& b = gj2k::codec::kBatchStealCosts;
         std::printf(
             "  a decode batch under --device auto also decodes on the idle CPU cores: an image "
             "goes to one CPU thread instead of waiting for one of the %d GPU places when its "
             "estimated CPU time (%.0f ns per sample + %.0f ns per codestream byte) is at most "
             "the GPU's time for the images still to start (%.1f ns per sample)\n",
             gj2k::codec::kBatchGpuInFlight, b.cpu_ns_per_sample, b.cpu_ns_per_byte,
             b.gpu_ns_per_sample);
         const tf::EncodeCosts& e = tf::kEncodeCosts;
         std::printf(
             "encode, --device auto: CPU %.0f ns per sample and thread (%.2f ns on %d threads), "
             "GPU %.1f ns per sample, %.0f ms CUDA start-up for the process's first GPU encode "
             "and %.0f ms for each tile's Tier-1 launch\n",
             e.cpu_ns_per_sample_thread, e.cpu_ns_per_sample_thread / threads, threads,
             e.gpu_ns_per_sample, e.gpu_start_ms, e.gpu_tile_ms);
         char warm[64];
         std::snprintf(warm, sizeof warm, "once CUDA is up, from %.1f Msamples",
                       tf::encode_break_even(threads, true) / 1e6);
         print_break_even("encodes", tf::encode_break_even(threads, false), threads, warm);
         return 0;
       };
     }});
}  // namespace
