// Where the transform stages run. The CUDA path is optional at build time (GJ2K_HAVE_CUDA) and
// at run time (a GPU may be absent); these queries never throw, except resolve_device(kGpu)
// without a GPU.
#pragma once

#include <future>
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

// Device 0, queried once per process (the first call initialises the CUDA driver: 0.1 to
// 0.3 s on an H200 host; callers meanwhile wait for it, later calls return the same answer).
GpuInfo gpu_info();

// Whether a GPU is usable; when it is, also creates the CUDA context. For warm-up threads.
bool open_gpu();

// Resolves kAuto to kGpu when a GPU is present, else kCpu. kGpu without a GPU throws
// Error(kDevice) with the reason.
Device resolve_device(Device requested);

// --device auto: the GPU when one is present (resolve_device), for transform work of
// kGpuAutoMinSamples samples (all components, at the decoded resolution) or more; below that
// the CPU, since CUDA start-up alone costs a process more than the whole CPU transform (a 5 KB
// stream decodes in 0.006 s on the CPU and 0.3 s with the GPU; 16 Msamples are about 10 ms of
// 5/3 on 16 cores). What a one-shot process pays for the GPU (H200 host, 2026-11-23): driver
// start 0.10 s (0.22 s the first time after boot), context 0.11 s, allocation and first
// kernel 0.015 s, all on a background thread (GpuStartAhead, the decoder's warm-up), and
// 0.11 s of teardown at exit (the same with _exit or cudaDeviceReset). No buffer the size of
// the data is pinned (cuda/staging_ring.h). Whole processes, CPU / GPU: 10240 x 6400 RGB
// decode lossless 1.46 / 1.55 s, 9/7 encode 1.55 / 1.41 s; 4096 x 3072 RGB decode lossless
// 0.32 / 0.55 s. kCpu and kGpu are returned as they are; kAuto comes back as kCpu or kAuto
// (then resolve_device picks the GPU when one is present).
inline constexpr unsigned long long kGpuAutoMinSamples = 1ull << 24;  // 16 Msamples
Device auto_choice(Device requested, unsigned long long samples);

// Starts gpu_info() and the CUDA context on a background thread, so that they overlap what
// the caller does meanwhile (the CLI: reading the input image); the encoder's or decoder's own
// query then waits for it instead of starting again. The destructor waits for the thread.
// Built without CUDA: answers at once.
class GpuStartAhead {
 public:
  GpuStartAhead();
  ~GpuStartAhead();
  GpuStartAhead(const GpuStartAhead&) = delete;
  GpuStartAhead& operator=(const GpuStartAhead&) = delete;

 private:
  std::future<void> done_;
};

}  // namespace gj2k::transform
