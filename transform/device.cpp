#include "transform/device.h"

#include <atomic>

#include "gj2k/error.h"

namespace gj2k::transform {

#if !defined(GJ2K_HAVE_CUDA)
GpuInfo gpu_info() {
  GpuInfo info;
  info.reason = "gj2k was built without CUDA";
  return info;
}
#endif

Device resolve_device(Device requested) {
  if (requested == Device::kCpu) return Device::kCpu;
  GpuInfo info = gpu_info();
  if (requested == Device::kGpu && !info.available)
    throw Error(ErrorCode::kDevice, "--device gpu: no usable GPU (" + info.reason + ")");
  return info.available ? Device::kGpu : Device::kCpu;
}

namespace {
std::atomic<bool> g_gpu_started{false};
}  // namespace

bool gpu_started() {
  return g_gpu_started.load(std::memory_order_relaxed);
}
void note_gpu_started() {
  g_gpu_started.store(true, std::memory_order_relaxed);
}

Device auto_choice(Device requested, unsigned long long samples, int threads) {
  if (requested != Device::kAuto) return requested;
  if (samples < kGpuAutoMinSamples) return Device::kCpu;
  const unsigned long long cpu_threads = threads > 1 ? static_cast<unsigned long long>(threads) : 1;
  if (!gpu_started() && samples / cpu_threads < kGpuColdSamplesPerThread) return Device::kCpu;
  return Device::kAuto;
}

}  // namespace gj2k::transform
