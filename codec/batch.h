// How a batch of images shares the threads (decode_batch, encode_batch and the CLI's batches).
// Not public.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>

#include "transform/device.h"

namespace gj2k {
struct DecodeParams;
}

namespace gj2k::codec {

// Images of fewer samples than this (all components) are coded several at once in a batch,
// each on a share of the threads; larger ones one at a time on all of them.
inline constexpr uint64_t kBatchConcurrentMaxSamples = uint64_t{1} << 24;

// The threads of a batch: `requested`, or (<= 0) the current scope's (core::max_threads).
int batch_threads(int requested);

// How many images of a batch of `items` are coded at once on `threads` threads (>= 1).
int batch_workers(int threads, size_t items);

// Whether an encode of `samples` samples in `tiles` tiles runs on the CPU under `requested`
// (transform::auto_choice_encode), asked with the share of the threads it would get there.
bool batch_on_cpu(transform::Device requested, uint64_t samples, int threads, uint64_t tiles = 1);
// Whether a decode of `samples` samples from `bytes` codestream bytes in `tiles` tiles on
// `threads` threads runs on the CPU under `requested` (transform::auto_choice_decode, as a
// probe), asked with the share of the threads it would get.
bool batch_decode_on_cpu(transform::Device requested, uint64_t samples, uint64_t bytes, int threads,
                         uint64_t tiles = 1);

// GPU decodes of a batch in flight at once. A small image's GPU decode is short kernels (its
// Tier-1 launch lasts as long as its slowest code-block) between serial CPU parts (Tier-2, the
// code-block table, the copies); several in flight on their own streams and tile slots
// overlap those. Each holds a slot (device memory about 8 bytes per sample plus the Tier-1
// state) and a pinned ring.
inline constexpr int kBatchGpuInFlight = 8;

// How one image of a batch is coded: on how many threads, and whether on the GPU (then it also
// takes one of the kBatchGpuInFlight places: a small image's GPU work is short kernels between
// serial host parts, which several in flight overlap). Below kBatchConcurrentMaxSamples it
// gets threads / workers on the CPU, or threads / min(workers, kBatchGpuInFlight) on the GPU
// (as many are in flight there); from it, all the threads (it runs alone).
struct BatchShare {
  int threads = 1;
  bool gpu = false;
};
// An encode's share, on the device batch_on_cpu picks.
BatchShare batch_encode_share(transform::Device requested, uint64_t samples, int threads,
                              int workers);
// A decode's share, on the device batch_decode_on_cpu picks for threads / workers. `tiles`:
// the image's tiles (the cost model's per-tile term).
BatchShare batch_decode_share(transform::Device requested, uint64_t samples, uint64_t bytes,
                              int threads, int workers, uint64_t tiles = 1);

// A count of threads handed out in arrival order: acquire(n) waits until every earlier caller
// has been served and n threads are free, so an image that needs all of them waits for the
// ones in flight, and later small images wait behind it.
class ThreadBudget {
 public:
  explicit ThreadBudget(int threads) : free_(threads), total_(threads) {}
  void acquire(int n);
  // acquire(n) only when it would not wait (no earlier caller waiting, n free); whether it did.
  bool try_acquire(int n);
  void release(int n);
  // Callers waiting in acquire().
  size_t waiting() const;

  // acquire on construction, release on destruction.
  class Lease {
   public:
    Lease(ThreadBudget& budget, int n) : budget_(budget), n_(n) { budget_.acquire(n_); }
    // Holds n threads the caller acquired already (try_acquire).
    Lease(ThreadBudget& budget, int n, std::adopt_lock_t) : budget_(budget), n_(n) {}
    ~Lease() { budget_.release(n_); }
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;

   private:
    ThreadBudget& budget_;
    int n_;
  };

 private:
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  int free_, total_;
  uint64_t next_ticket_ = 0, serving_ = 0;
};

// A batch decode under --device auto uses the CPU cores that its GPU decodes leave idle: an
// image whose share is on the GPU decodes on the CPU (one share of the threads) instead of
// waiting when every GPU place is taken and the images still to start after it would keep the
// GPU busy at least as long as its CPU decode takes (so the GPU does not wait for the CPU at
// the end). Its CPU time is estimated from its samples and its codestream bytes (Tier-1 time
// follows the coded bytes: a lossless photo takes about 2.9 times a 9/7 rate-20 one), the GPU's
// from its samples at the GPU's batch throughput; fitted to the batch benchmark's CPU and GPU
// rows on the GPU machine (16 cores all busy, 2560x1600 photos; docs/PERFORMANCE.md).
struct BatchStealCosts {
  double cpu_ns_per_sample;  // one thread, the other cores busy
  double cpu_ns_per_byte;
  double gpu_ns_per_sample;  // a batch's throughput with kBatchGpuInFlight in flight
};
inline constexpr BatchStealCosts kBatchStealCosts{9.5, 270.0, 1.85};

// How one image of a decode batch runs: its share (batch_decode_share, or under --device auto
// batch_auto_likely_gpu's rule; moved to the CPU when it does not wait for a GPU place) and the GPU
// place it holds while it decodes.
struct BatchDecodePlace {
  BatchShare share;
  bool alone = false;  // it runs alone on all the threads (kBatchConcurrentMaxSamples)
  // The batch's images still to start after it: the decode runs under a
  // transform::DecodeLookahead of them, so that under auto its own choice counts the start-up
  // against all of them as the placement did.
  uint64_t ahead = 0;
  std::optional<ThreadBudget::Lease> gpu_place;
  // The threads it takes from the batch's ThreadBudget: a GPU decode that shares the GPU
  // waits on the device most of its time, so it counts one; one that runs alone takes all.
  int budget_threads() const { return share.gpu && !alone ? 1 : share.threads; }
  // p's threads and device as placed: under auto, an image placed on the CPU decodes there
  // (the decoder would otherwise weigh the devices again, for its share of the threads).
  void apply(DecodeParams& p) const;
};
// Places an image of `samples` samples, `tiles` tiles and `bytes` codestream bytes of a batch
// of `workers` on `threads` threads, taking its GPU place from `gpu_places`; `remaining`: the
// images still to start after it (kBatchStealCosts). `gpu_open`: whether the process's CUDA
// context exists (transform::gpu_opened()); while it is being made (about 0.2 s), an image
// under auto that may take the CPU does, as when every GPU place is taken.
void place_batch_decode(BatchDecodePlace& place, transform::Device requested, uint64_t samples,
                        uint64_t bytes, int threads, int workers, uint64_t tiles,
                        ThreadBudget& gpu_places, size_t remaining, bool gpu_open);
// Whether place_batch_decode would put such an image on the GPU under --device auto (its
// share's device, before any GPU place is taken), recording nothing: for starting CUDA while a
// batch's first file is read.
bool batch_auto_likely_gpu(uint64_t samples, uint64_t bytes, int threads, int workers,
                           uint64_t tiles, size_t remaining);

}  // namespace gj2k::codec
