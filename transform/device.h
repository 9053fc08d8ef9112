// Where the transform stages run. The CUDA path is optional at build time (GJ2K_HAVE_CUDA) and
// at run time (a GPU may be absent); these queries never throw, except resolve_device(kGpu)
// without a GPU.
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

// Device 0, queried once per process (the first call initialises the CUDA driver; callers
// meanwhile wait for it, later calls return the same answer).
GpuInfo gpu_info();

// Whether a GPU is usable; when it is, also creates the CUDA context. For warm-up threads.
bool open_gpu();

// Resolves kAuto to kGpu when a GPU is present, else kCpu. kGpu without a GPU throws
// Error(kDevice) with the reason.
Device resolve_device(Device requested);

// --device auto: the GPU when one is present (resolve_device), for transform work of
// kGpuAutoMinSamples samples (all components, at the decoded resolution) or more; below that
// the CPU, since CUDA start-up alone costs a process more than the whole CPU transform of
// smaller inputs (the start-up and whole-process figures behind the threshold are in
// docs/PERFORMANCE.md). Start-up runs on a background thread where it can (codec::GpuWarmUp,
// codec/gpu_warm_up.h); no buffer the size of the data is pinned (cuda/staging_ring.h). kCpu and
// kGpu are returned as they are; kAuto comes back as kCpu or kAuto (then resolve_device picks
// the GPU when one is present).
inline constexpr unsigned long long kGpuAutoMinSamples = 1ull << 24;  // 16 Msamples
Device auto_choice(Device requested, unsigned long long samples);

}  // namespace gj2k::transform
