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

}  // namespace gj2k::transform
