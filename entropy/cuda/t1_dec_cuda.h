// Tier-1 decoding of a batch of code-blocks on the GPU with the host-device decoder of
// entropy/t1_dec_block.h (the same source the CPU build tests against t1_ref), writing the
// values (one fractional bit, t1.h's decode_block contract) straight into the batch's output
// plane(s).
//
// The MQ decoder is a serial chain per code-block (each decision renormalises the interval the
// next one reads), so the parallelism is across code-blocks: a 10240 x 6400 RGB image holds
// about 48,000 64 x 64 blocks. Two mappings, chosen by measurement (bench_gpu_t1; figures in
// docs/PERFORMANCE.md):
// - a thread per code-block (decode_blocks). One GPU thread runs the chain much slower than a
//   CPU core, and the 32 lanes of a warp, each on its own block, diverge; so a launch lasts as
//   long as its slowest warp. arrange_jobs() therefore starts the most expensive blocks first
//   and puts them in different warps (and SMs), and the kernel's default is the fixed mapping
//   it prepares (thread t decodes jobs t, t + threads, ...). Each thread keeps its
//   stripe-column state (t1_context.h) in a slice of the workspace.
// - a warp per 32 code-blocks in lockstep (decode_blocks_in_warps, entropy/t1_dec_warp.h):
//   the lanes visit the same column of their blocks together, their state and values
//   interleaved so that a column is one cache line per array row for the whole warp. A launch
//   lasts about as long as its costliest warp of 32 like blocks: faster where all blocks carry
//   many passes (lossless), slower where a few costly blocks stand among many light ones.
// arrange_for_decode() picks one per batch by the blocks' costs (job_order.h, prefer_warps).
// Both decode with MqDecoderQe (entropy/t1_dec_qe.h: the contexts carry their Qe). The context
// tables and, during a pass, each thread's contexts (19 words) live in shared memory, which
// bounds a thread block to 512 threads. LaunchShape is exposed so that benchmarks can measure
// the alternatives.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "entropy/cuda/job_order.h"
#include "entropy/t1_dec_block.h"

namespace gj2k::entropy::cuda {

// One code-block of a batch.
struct BlockJob {
  uint64_t out_offset;  // its first value in the batch's output (int32 elements)
  uint32_t stride;      // the output's row pitch (elements)
  uint32_t seg_first;   // its first segment in the batch's segment table
  uint16_t seg_count;
  uint16_t w, h;   // at most 1024 per side, 4096 samples (A.6.1)
  uint8_t planes;  // coded magnitude bit-planes (Mb + ROI shift - missing MSBs)
  uint8_t band;    // Band
  uint8_t style;   // cblk_style bits (entropy/t1.h)
};

struct LaunchShape {
  int threads_per_block = 128;  // a multiple of 32
  int blocks_per_sm = 4;        // resident thread blocks asked for per multiprocessor
  // Jobs from an atomic counter (a thread takes the next job when it finishes one), or fixed
  // (thread t decodes jobs t, t + threads, ...), the order arrange_jobs() prepares.
  bool dynamic = false;
};

// The thread kernel's shape where a caller names none: LaunchShape{}, or with
// GJ2K_GPU_T1_BLOCKS_PER_SM=n that many blocks per SM (measurements; read once).
LaunchShape default_decode_shape();

// Threads a launch for `count` jobs runs on a device with `multiprocessors` SMs.
size_t decode_threads(uint32_t count, int multiprocessors,
                      const LaunchShape& shape = default_decode_shape());

// Reorders jobs for a fixed-mapping launch of `threads` threads (a multiple of 32): by cost
// (decode_job_cost, job_order.h) descending, and within each round of `threads` jobs rank r goes to
// lane r / warps of warp r % warps, so that every warp starts with one of the heaviest blocks;
// padded with empty jobs (w = h = 0) to whole rounds. Returns the permutation: result[i] is the
// index in `jobs` of the job now at i, or SIZE_MAX for padding. Host code.
std::vector<size_t> arrange_jobs(std::vector<BlockJob>& jobs,
                                 const std::vector<t1::SegmentRef>& segs, size_t threads);

// Decodes jobs[0, count) (device arrays; segment offsets index d_bytes) into d_out; status[k]
// receives job k's t1::BlockStatus. d_workspace holds `state_words_per_thread` words for each
// of decode_threads(...) threads; state_words_per_thread must be at least t1::state_words(w, h)
// of every job (t1::kMaxStateWords covers all). d_counter: one word of device memory. Enqueued
// on `stream`; throws Error(kDevice) on a launch failure or a workspace too small.
void decode_blocks(const BlockJob* d_jobs, uint32_t count, const t1::SegmentRef* d_segs,
                   const uint8_t* d_bytes, int32_t* d_out, uint8_t* d_status, uint32_t* d_workspace,
                   size_t workspace_words, size_t state_words_per_thread, uint32_t* d_counter,
                   int multiprocessors, cudaStream_t stream,
                   const LaunchShape& shape = default_decode_shape());

// ---- The warp mapping (entropy/t1_dec_warp.h): a warp's 32 lanes decode 32 blocks in lockstep.

// Words per lane of a warp's interleaved working arrays (state, stripe-major values).
struct WarpSlot {
  size_t state_words = 0, value_words = 0;
};

// Reorders jobs into warps of 32 places (group_warps, job_order.h: one context formation, shape
// and number of passes per warp, the costliest warps first,
// padded with empty jobs) and returns the placement as arrange_jobs does; *slot receives the
// words per lane the warps' shapes need. Host code.
std::vector<size_t> arrange_warps(std::vector<BlockJob>& jobs,
                                  const std::vector<t1::SegmentRef>& segs, WarpSlot* slot);

// The two mappings of the decoding kernel, and the choice between them by the batch's costs.
enum class DecodeMapping : uint8_t { kAuto, kThreads, kWarps };

// Arranges jobs for the mapping `want` names, or with kAuto for the one prefer_warps
// (job_order.h) favours on a GPU with `multiprocessors` SMs: as arrange_jobs for
// decode_threads(jobs.size() * thread_spread(...), multiprocessors) threads (padded: a launch
// takes decode_threads(jobs.size(), ...) threads after it), or as arrange_warps (*slot set).
// `share` (0 < share <= 1): the batch is that share of the code-blocks of launches that will
// run at once (a tile decoded in parts): the choice weighs the thread mapping's total as if
// the batch held all of their work (its total / share), since the others take the same SMs.
// `host` (optional): with the thread mapping, the costliest jobs the host's threads should
// decode meanwhile (host_block_count, job_order.h) are left out of the arrangement and their
// indices in the given `jobs` returned in host->blocks, costliest first (empty otherwise).
// Returns the mapping taken (never kAuto). Host code.
struct HostShare {
  int threads = 0;             // the host's threads for it (< 1: none)
  int64_t forced = -1;         // >= 0: exactly this many jobs (tests, measurements)
  double ms_per_unit = 0;      // > 0: replaces kHostMs (measurements)
  std::vector<size_t> blocks;  // out
};
DecodeMapping arrange_for_decode(std::vector<BlockJob>& jobs,
                                 const std::vector<t1::SegmentRef>& segs, int multiprocessors,
                                 DecodeMapping want, WarpSlot* slot, double share = 1.0,
                                 HostShare* host = nullptr);

// Values decoded elsewhere (HostShare) put into place: job k's w x h values, packed at
// d_src + src_offset (row pitch w), go to d_out + out_offset with row pitch `stride`, as
// place_blocks_ref does. Jobs must not overlap.
struct PlaceJob {
  uint64_t out_offset;
  uint64_t src_offset;
  uint32_t stride;
  uint16_t w, h;
};
void place_blocks(const PlaceJob* d_jobs, uint32_t count, const int32_t* d_src, int32_t* d_out,
                  cudaStream_t stream);
// The CPU reference of place_blocks (host arrays).
inline void place_blocks_ref(const PlaceJob* jobs, uint32_t count, const int32_t* src,
                             int32_t* out) {
  for (uint32_t k = 0; k < count; ++k)
    for (uint32_t y = 0; y < jobs[k].h; ++y)
      for (uint32_t x = 0; x < jobs[k].w; ++x)
        out[jobs[k].out_offset + uint64_t{y} * jobs[k].stride + x] =
            src[jobs[k].src_offset + uint64_t{y} * jobs[k].w + x];
}

// The warp mapping's default launch: 4 warps a thread block, 2 blocks per SM. Eight resident
// warps per SM decode as fast as sixteen (bench_gpu_t1) with half the workspace (each warp
// holds 32 blocks' state and values: about 0.7 MB for 64 x 64 blocks).
inline constexpr LaunchShape kWarpLaunch{128, 2, false};

// Words of workspace a warp-mapping launch for `count` jobs (a multiple of 32) needs.
size_t warp_workspace_words(uint32_t count, int multiprocessors, const WarpSlot& slot,
                            const LaunchShape& shape = kWarpLaunch);

// As decode_blocks, with the warp mapping, over jobs placed by arrange_warps (count a multiple of
// 32) and a workspace of warp_workspace_words(count, ...) words for `slot`. A warp whose
// blocks do not fit the slot, or mix context formations, decodes a block per lane as
// decode_blocks does. Warps are taken in order from d_counter; shape.dynamic is ignored.
void decode_blocks_in_warps(const BlockJob* d_jobs, uint32_t count, const t1::SegmentRef* d_segs,
                            const uint8_t* d_bytes, int32_t* d_out, uint8_t* d_status,
                            uint32_t* d_workspace, size_t workspace_words, const WarpSlot& slot,
                            uint32_t* d_counter, int multiprocessors, cudaStream_t stream,
                            const LaunchShape& shape = kWarpLaunch);

}  // namespace gj2k::entropy::cuda
