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
// on (Tier-1, reconstruction, inverse transforms): per decoded sample and per codestream byte
// (Tier-1's work follows the coded bytes: a lossless 8-bit photo holds about 0.34 bytes per
// sample, a 9/7 rate-20 one 0.05), the CPU path's time on one thread and the GPU path's time
// (code-block table, transfers, kernels); what every decode costs whatever its size (on the
// CPU the serial parts and the threads' start; on the GPU the launches and synchronisations,
// and a Tier-1 launch that lasts at least as long as its densest code-block takes one GPU
// thread, which grows with the bytes per sample); the CUDA start-up that a process's first GPU
// decode waits for once its overlap with reading, parsing and Tier-2 is spent; and what each
// tile after the first adds on the GPU (each tile is its own Tier-1 launch and its own
// transfers). Fitted to in-process and whole-process decodes of the 10240 x 6400 mosaic and to
// photos decoded one at a time at three sizes on the GPU machine (docs/PERFORMANCE.md,
// "Twenty-seventh run" and "Twenty-eighth run"); `gj2k device` prints them.
struct DecodeCosts {
  double cpu_ns_per_sample_thread;
  double cpu_ns_per_byte_thread;
  double cpu_decode_ms;  // per decode, not divided by the threads
  double gpu_ns_per_sample;
  double gpu_ns_per_byte;
  double gpu_decode_ms;                 // per decode
  double gpu_chain_ms_per_byte_sample;  // per decode, times the codestream bytes per sample
  double gpu_start_ms;
  double gpu_tile_ms;
};
inline constexpr DecodeCosts kDecodeCosts{10.0, 160.0, 2.0, 0.6, 0.7, 1.5, 11.0, 250.0, 50.0};

// The estimated milliseconds of a decode of `samples` decoded samples from `bytes` codestream
// bytes: on `threads` CPU threads, and on the GPU with CUDA up, `tiles` tiles (kDecodeCosts).
double decode_cpu_ms(unsigned long long samples, unsigned long long bytes, int threads);
double decode_gpu_ms(unsigned long long samples, unsigned long long bytes,
                     unsigned long long tiles = 1);

// The decoded samples from which the GPU is expected to be faster than `threads` CPU threads
// (kDecodeCosts) for a decode of `tiles` tiles of `bytes_per_sample` codestream bytes per
// decoded sample, with or without the start-up still to pay; ~0 when never.
unsigned long long decode_break_even(int threads, bool started, unsigned long long tiles = 1,
                                     double bytes_per_sample = 0);

// --device auto for a decode (kCpu and kGpu are returned as they are): kAuto (the GPU when one
// is present) where the GPU is expected to be faster, its start-up included unless CUDA is up
// (gpu_opened); else kCpu (always for no samples). A decode that the GPU would win only with CUDA
// up still gets it once the process's decodes kept on the CPU would together have saved the
// start-up (a ski-rental rule: a process that keeps decoding large lossy images starts CUDA after a
// few, one that decodes one never pays for it; a batch counts the images after it:
// DecodeLookahead). `record`: this is the decode itself, whose missed saving counts towards that
// (the decoder's choice, a batch's placement); a probe (likely_decode_device) records nothing.
Device auto_choice_decode(Device requested, unsigned long long samples, unsigned long long bytes,
                          int threads, unsigned long long tiles = 1, bool record = false);
// auto_choice_decode's rule on estimated times (ms) of one decode on the CPU and, CUDA up, on
// the GPU, taken to be followed by `more` like it: kCpu where the GPU is not faster (or a time
// is not finite), kAuto where
// CUDA is up or a recorded decode has already chosen to start it, or the savings of this decode
// and the `more` pay for the start-up or, with those the process recorded, would have
// (`record`: add this one's, and a choice to start CUDA holds for the decodes after it).
Device auto_choice_by_costs(double cpu_ms, double gpu_ms, unsigned long long more, bool record);

// While one lives on a thread, that thread's decodes are taken to be followed by `more` like
// them (a batch's images still to start): auto_choice_decode then counts the start-up against
// what all of them would save, so that a batch of large lossy images starts CUDA at its first.
// Nests (the inner one holds until it ends).
class DecodeLookahead {
 public:
  explicit DecodeLookahead(unsigned long long more);
  ~DecodeLookahead();
  DecodeLookahead(const DecodeLookahead&) = delete;
  DecodeLookahead& operator=(const DecodeLookahead&) = delete;

 private:
  unsigned long long saved_;
};

// What the process's recorded decodes kept on the CPU would have saved with CUDA up (ms), and
// forgetting it and any recorded choice to start CUDA (for tests).
double decode_missed_ms();
void forget_decode_missed();

// Whether this process holds a CUDA context already (open_gpu succeeded): a later GPU decode
// pays no start-up.
bool gpu_opened();

}  // namespace gj2k::transform
