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

// What kAuto resolves to for transform work of `samples` samples (all components) on `threads`
// CPU threads: the device expected to finish the whole process first, from measured costs
// (H200 host, 16 cores, 10240 x 6400 RGB):
// - A process that has not used the GPU yet pays about 0.8 s for it: CUDA start-up (0.15 s),
//   pinned staging (cudaMallocHost of 786 MB: 0.27 s) and teardown at exit. Whole `gj2k
//   decode` processes took 1.46-1.53 s on the CPU and 2.26-2.60 s with --device gpu; encode
//   2.30 s and 2.90 s. The CPU's transform stages run at about 100 Msamples/s per thread, so
//   a cold GPU pays only from kGpuColdSamplesPerThread samples per CPU thread.
// - Once the GPU path has run in this process (gpu_started()), it is faster in the same
//   process: decode 1.10 s against 1.18 s (5/3), 1.04 s against 1.17 s (9/7); encode 1.60 s
//   against 1.74 s (5/3), 1.36 s against 2.57 s (9/7). Then kAuto takes it from
//   kGpuAutoMinSamples up.
// Below kGpuAutoMinSamples, kAuto is always the CPU (a 5 KB stream: 0.006 s on the CPU, 0.3 s
// with the GPU). kCpu and kGpu are returned as they are; kAuto comes back as kCpu or kAuto
// (then resolve_device picks the GPU when one is present).
inline constexpr unsigned long long kGpuAutoMinSamples = 1ull << 24;         // 16 Msamples
inline constexpr unsigned long long kGpuColdSamplesPerThread = 80000000ull;  // 0.8 s x 100 MS/s
Device auto_choice(Device requested, unsigned long long samples, int threads);

// Whether this process has run the codec's GPU path (its fixed costs are paid), and the call
// that records it (the encoder and decoder, after a GPU run).
bool gpu_started();
void note_gpu_started();

}  // namespace gj2k::transform
