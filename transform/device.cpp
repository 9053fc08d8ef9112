#include "transform/device.h"

#include <algorithm>
#include <atomic>

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

unsigned long long decode_break_even(int threads, bool started, unsigned long long tiles) {
  const DecodeCosts& k = kDecodeCosts;
  const double cpu = k.cpu_ns_per_sample_thread / std::max(1, threads);
  if (cpu <= k.gpu_ns_per_sample) return ~0ull;  // the CPU is never slower
  const double fixed_ms = (started ? 0.0 : k.gpu_start_ms) +
                          k.gpu_tile_ms * static_cast<double>(tiles > 1 ? tiles - 1 : 0);
  const double even = fixed_ms * 1e6 / (cpu - k.gpu_ns_per_sample);
  return even >= 1.8e19 ? ~0ull : static_cast<unsigned long long>(even);
}

Device auto_choice_decode(Device requested, unsigned long long samples, int threads,
                          unsigned long long tiles) {
  if (requested != Device::kAuto) return requested;
  return samples < decode_break_even(threads, gpu_opened(), tiles) ? Device::kCpu : Device::kAuto;
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
