#include "transform/device.h"

#include <algorithm>
#include <atomic>
#include <cmath>

#include "gj2k/error.h"

#if defined(GJ2K_HAVE_CUDA)
#include <cuda_runtime.h>
#endif

namespace gj2k::transform {

#if defined(GJ2K_HAVE_CUDA)
GpuInfo query_gpu_info();  // transform/cuda/device.cu
#else
static GpuInfo query_gpu_info() {
  GpuInfo info;
  info.reason = "gj2k was built without CUDA";
  return info;
}
#endif

GpuInfo gpu_info() {
  static const GpuInfo info = query_gpu_info();  // concurrent first callers wait for it
  return info;
}

namespace {
std::atomic<bool> g_opened{false};
}

bool open_gpu() {
  if (!gpu_info().available) return false;
#if defined(GJ2K_HAVE_CUDA)
  cudaFree(nullptr);  // creates the context; an error shows again at the first real call
  cudaGetLastError();
#endif
  g_opened = true;
  return true;
}

void select_gpu(int index) {
#if defined(GJ2K_HAVE_CUDA)
  const cudaError_t err = cudaSetDevice(index);
  if (err != cudaSuccess) {
    cudaGetLastError();
    throw Error(ErrorCode::kDevice, "CUDA device " + std::to_string(index) +
                                        " cannot be selected: " + cudaGetErrorString(err));
  }
#else
  (void)index;
#endif
}

bool gpu_opened() {
  return g_opened;
}

double decode_cpu_ms(unsigned long long samples, unsigned long long bytes, int threads) {
  const DecodeCosts& k = kDecodeCosts;
  return k.cpu_decode_ms +
         (double(samples) * k.cpu_ns_per_sample_thread + double(bytes) * k.cpu_ns_per_byte_thread) /
             std::max(1, threads) * 1e-6;
}

namespace {
// The GPU's cost of one decode that does not grow with its size (kDecodeCosts), at
// `bytes_per_sample`, and of each tile after the first.
double gpu_fixed_ms(double bytes_per_sample, unsigned long long tiles) {
  const DecodeCosts& k = kDecodeCosts;
  return k.gpu_decode_ms + k.gpu_chain_ms_per_byte_sample * bytes_per_sample +
         k.gpu_tile_ms * double(tiles > 1 ? tiles - 1 : 0);
}
}  // namespace

double decode_gpu_ms(unsigned long long samples, unsigned long long bytes,
                     unsigned long long tiles) {
  const DecodeCosts& k = kDecodeCosts;
  const double r = samples > 0 ? double(bytes) / double(samples) : 0.0;
  return gpu_fixed_ms(r, tiles) +
         (double(samples) * k.gpu_ns_per_sample + double(bytes) * k.gpu_ns_per_byte) * 1e-6;
}

unsigned long long decode_break_even(int threads, bool started, unsigned long long tiles,
                                     double bytes_per_sample) {
  const DecodeCosts& k = kDecodeCosts;
  const double r = std::max(0.0, bytes_per_sample);
  const double cpu =
      (k.cpu_ns_per_sample_thread + r * k.cpu_ns_per_byte_thread) / std::max(1, threads);
  const double gpu = k.gpu_ns_per_sample + r * k.gpu_ns_per_byte;
  if (cpu <= gpu) return ~0ull;  // the CPU is never slower
  const double fixed_ms =
      (started ? 0.0 : k.gpu_start_ms) + gpu_fixed_ms(r, tiles) - k.cpu_decode_ms;
  if (fixed_ms <= 0) return 0;
  const double even = std::ceil(fixed_ms * 1e6 / (cpu - gpu));
  return even >= 1.8e19 ? ~0ull : static_cast<unsigned long long>(even);
}

namespace {
// What the process's decodes kept on the CPU would have saved with CUDA up, in microseconds
// (auto_choice_decode's ski-rental rule).
std::atomic<unsigned long long> g_missed_us{0};
// Whether a recorded decode chose the GPU with CUDA's start-up to pay.
std::atomic<bool> g_start_chosen{false};
// Like decodes still to come after this thread's (DecodeLookahead).
thread_local unsigned long long t_more = 0;
}  // namespace

DecodeLookahead::DecodeLookahead(unsigned long long more) : saved_(t_more) {
  t_more = more;
}
DecodeLookahead::~DecodeLookahead() {
  t_more = saved_;
}

Device auto_choice_by_costs(double cpu_ms, double gpu_ms, unsigned long long more, bool record) {
  if (!(cpu_ms > gpu_ms) || !std::isfinite(cpu_ms - gpu_ms))
    return Device::kCpu;  // not even with CUDA up (or no figures to weigh)
  // CUDA up, or its start-up already chosen by a decode of this process (paid, or being paid:
  // decodes side by side in a batch decide before the first has opened it).
  if (gpu_opened() || g_start_chosen.load(std::memory_order_relaxed)) return Device::kAuto;
  const double start = kDecodeCosts.gpu_start_ms;
  const double saving = cpu_ms - gpu_ms;
  const auto us = static_cast<unsigned long long>(saving * 1e3);
  bool gpu = saving * (1.0 + double(more)) >= start;  // pays for the start-up
  if (!gpu) {
    const unsigned long long before = record ? g_missed_us.fetch_add(us, std::memory_order_relaxed)
                                             : g_missed_us.load(std::memory_order_relaxed);
    gpu = double(before + us) >= start * 1e3;  // would have paid for it by now
  }
  if (gpu && record) g_start_chosen.store(true, std::memory_order_relaxed);
  return gpu ? Device::kAuto : Device::kCpu;
}

Device auto_choice_decode(Device requested, unsigned long long samples, unsigned long long bytes,
                          int threads, unsigned long long tiles, bool record) {
  if (requested != Device::kAuto) return requested;
  if (samples == 0) return Device::kCpu;  // nothing to decode: nothing to gain
  return auto_choice_by_costs(decode_cpu_ms(samples, bytes, threads),
                              decode_gpu_ms(samples, bytes, tiles), t_more, record);
}

double decode_missed_ms() {
  return double(g_missed_us.load(std::memory_order_relaxed)) * 1e-3;
}

void forget_decode_missed() {
  g_missed_us.store(0, std::memory_order_relaxed);
  g_start_chosen.store(false, std::memory_order_relaxed);
}

Device resolve_device(Device requested) {
  if (requested == Device::kCpu) return Device::kCpu;
  GpuInfo info = gpu_info();
  if (requested == Device::kGpu && !info.available)
    throw Error(ErrorCode::kDevice, "--device gpu: no usable GPU (" + info.reason + ")");
  return info.available ? Device::kGpu : Device::kCpu;
}

unsigned long long encode_break_even(int threads, bool started, unsigned long long tiles) {
  const EncodeCosts& k = kEncodeCosts;
  threads = std::max(1, threads);
  const double cpu = k.cpu_ns_per_sample_thread / threads;
  if (cpu <= k.gpu_ns_per_sample) return ~0ull;  // the CPU is never slower
  // Launches one after another: every tile, or, when the encoder runs tiles side by side (two
  // tiles per thread or more), one per round of `threads` tiles.
  const unsigned long long n = std::max(1ull, tiles);
  const unsigned long long t = static_cast<unsigned long long>(threads);
  const unsigned long long rounds = threads > 1 && n >= 2 * t ? (n + t - 1) / t : n;
  const double fixed_ms = (started ? 0.0 : k.gpu_start_ms) + k.gpu_tile_ms * double(rounds);
  const double even = fixed_ms * 1e6 / (cpu - k.gpu_ns_per_sample);
  return even >= 1.8e19 ? ~0ull : static_cast<unsigned long long>(even);
}

Device auto_choice_encode(Device requested, unsigned long long samples, int threads,
                          unsigned long long tiles) {
  if (requested != Device::kAuto) return requested;
  return samples < encode_break_even(threads, gpu_opened(), tiles) ? Device::kCpu : Device::kAuto;
}

}  // namespace gj2k::transform
