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

// Makes CUDA device `index` the calling thread's current device (cudaSetDevice), for a
// context's GPU work (codec/context.h). Throws Error(kDevice) when the device cannot be
// selected. Without CUDA: nothing to select.
void select_gpu(int index);

// Resolves kAuto to kGpu when a GPU is present, else kCpu. kGpu without a GPU throws
// Error(kDevice) with the reason.
Device resolve_device(Device requested);

// What --device auto weighs (kEncodeCosts, kDecodeCosts below): per sample, the CPU path's
// time on one thread and the GPU path's; the CUDA start-up; the fixed cost of each tile's
// Tier-1 launch on the GPU.
struct DeviceCosts {
  double cpu_ns_per_sample_thread;
  double gpu_ns_per_sample;
  double gpu_start_ms;
  double gpu_tile_ms;
};

// What --device auto weighs for an encode, where the GPU runs the transform stage and Tier-1:
// per sample (all components), the CPU path's time on one thread and the GPU path's time; the
// CUDA start-up that a process's first GPU encode waits for after reading its image; and the
// latency of each tile's Tier-1 launch, which lasts as long as its slowest code-block (one GPU
// thread codes a block), so that small images are faster on the CPU even with CUDA up.
// Measured on the GPU machine (docs/PERFORMANCE.md, "Choosing the device for an encode");
// `gj2k device` prints them.
using EncodeCosts = DeviceCosts;
inline constexpr EncodeCosts kEncodeCosts{125.0, 1.0, 300.0, 50.0};

// The samples from which the GPU is expected to encode faster than `threads` CPU threads
// (kEncodeCosts), for `tiles` tiles (one launch each; tiles side by side when there are at
// least two per thread), with or without the start-up still to pay. ~0 when never.
unsigned long long encode_break_even(int threads, bool started, unsigned long long tiles = 1);

// --device auto for an encode of `samples` samples in `tiles` tiles on `threads` CPU threads:
// kCpu below encode_break_even(threads, gpu_opened(), tiles), else kAuto (the GPU when one is
// present; resolve_device). kCpu and kGpu are returned as they are.
Device auto_choice_encode(Device requested, unsigned long long samples, int threads,
                          unsigned long long tiles = 1);

// What --device auto weighs for a decode, where the GPU runs everything from the code-blocks
// on (Tier-1, reconstruction, inverse transforms): per decoded sample, the CPU path's time on
// one thread and the GPU path's time (code-block table, transfers, kernels), and the CUDA
// start-up that a process's first GPU decode waits for once its overlap with reading,
// parsing and Tier-2 is spent, and what each tile after the first adds on the GPU (each tile
// is its own Tier-1 launch, which lasts as long as its slowest code-block, and its own
// transfers). Measured on the GPU machine (docs/PERFORMANCE.md, "GPU decode from the
// code-blocks"); `gj2k device` prints them.
using DecodeCosts = DeviceCosts;
inline constexpr DecodeCosts kDecodeCosts{86.0, 1.0, 250.0, 50.0};

// The decoded samples from which the GPU is expected to be faster than `threads` CPU threads
// (kDecodeCosts) for a decode of `tiles` tiles, with or without the start-up still to pay.
unsigned long long decode_break_even(int threads, bool started, unsigned long long tiles = 1);

// --device auto for a decode of `samples` samples in `tiles` tiles on `threads` CPU threads:
// kCpu below decode_break_even(threads, gpu_opened(), tiles), else kAuto (the GPU when one is
// present). kCpu and kGpu are returned as they are.
Device auto_choice_decode(Device requested, unsigned long long samples, int threads,
                          unsigned long long tiles = 1);

// Whether this process holds a CUDA context already (open_gpu succeeded): a later GPU decode
// pays no start-up.
bool gpu_opened();

}  // namespace gj2k::transform
