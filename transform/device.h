// Where the transform stages run. The CUDA path is optional at build time (GJ2K_HAVE_CUDA) and
// at run time (a GPU may be absent); these queries never throw.
#pragma once

#include <string>

namespace gj2k::transform {

enum class Device { kAuto, kCpu, kGpu };

struct GpuInfo {
  bool available = false;
  std::string reason;  // why not, when !available ("built without CUDA", "no CUDA device: ...")
  std::string name;    // e.g. "NVIDIA H100 80GB HBM3"
  int sm_major = 0, sm_minor = 0;
  size_t global_memory = 0;  // bytes
  int multiprocessors = 0;
};

// Queries device 0 once per call. Cheap enough to call at start-up; not for hot paths.
GpuInfo gpu_info();

// Resolves kAuto to kGpu when a GPU is present, else kCpu. kGpu without a GPU throws
// Error(kDevice) with the reason.
Device resolve_device(Device requested);

// kAuto takes the GPU only for work of at least this many samples (all components): a
// process pays about 0.3 s for CUDA start-up and teardown, and the GPU saves the CPU's
// transform stages, a few ms per Msample on 16 cores (a 5 KB stream decoded in 0.006 s on the
// CPU and 0.3 s with the GPU, H200). Below it the codec makes no CUDA call at all.
inline constexpr unsigned long long kGpuAutoMinSamples = 1ull << 24;  // 16 Msamples, ~2400^2 RGB

// requested, with kAuto turned into kCpu for work of fewer than kGpuAutoMinSamples samples.
inline Device auto_by_size(Device requested, unsigned long long samples) {
  return requested == Device::kAuto && samples < kGpuAutoMinSamples ? Device::kCpu : requested;
}

}  // namespace gj2k::transform
