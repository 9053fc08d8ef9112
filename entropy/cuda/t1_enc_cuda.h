// Tier-1 encoding of a batch of code-blocks on the GPU with the host-device coder of
// entropy/t1_enc_block.h (the same source as the CPU's entropy::encode_block, tested against it
// and t1_ref in CI), reading the blocks' quantized indices straight from the batch's device
// plane(s) and writing their bytes, pass records and results into the batch's device buffers.
// Only those need to come back to the host, where rate allocation and Tier-2 run.
//
// The MQ coder is a serial chain per code-block (each decision renormalises the interval the
// next one codes), through every pass of every plane. Two mappings:
// - the plane mapping (encode_blocks_by_planes, entropy/t1_enc_planes.h), the encoder's: the
//   decisions of each bit-plane are modelled on a thread of their own from the magnitudes (ten
//   times the threads, each with a tenth of the chain), then a thread per block runs the MQ
//   chain alone over them, in the same launch; it costs symbol memory of a few bytes a sample
//   and plane (chosen by measurement: docs/PERFORMANCE.md, "Tenth run").
// - a thread per code-block (encode_blocks), as the decoder's: the parallelism is across
//   code-blocks only (a 10240 x 6400 RGB image holds about 48,000 64 x 64 blocks). Jobs in plan
//   order from a counter (the encoder's fallback when the symbols do not fit the device), or
//   arranged by arrange_encode_jobs() (the most expensive blocks first, spread over the warps).
//   Each thread keeps its stripe-column state (t1_context.h) in a slice of the workspace and
//   reads the samples from the plane itself.
// The context and MQ tables live in shared memory.
//
// Capacity: each job gets `capacity` bytes at `out_offset` (t1::encode_budget(w, h, mb) is a
// safe default for any real data: incompressible samples use at most about 0.85 of it). A block
// that does not fit reports t1::EncodeStatus::kOverflow; its caller codes it again on the CPU
// (entropy::encode_block, which grows its buffer until it fits), so no block is ever lost.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "entropy/cuda/t1_dec_cuda.h"
#include "entropy/t1_enc_block.h"
#include "entropy/t1_enc_planes.h"

namespace gj2k::entropy::cuda {

// One code-block of a batch. A default job (w = h = 0) is empty: it writes nothing but its
// result and status (kOk, no bytes, no passes).
struct EncodeJob {
  uint64_t in_offset;   // its first sample in the batch's input plane (int32 elements)
  uint64_t out_offset;  // its first byte in the batch's output buffer
  uint32_t stride;      // the input's row pitch (elements)
  uint32_t capacity;    // bytes of room at out_offset
  uint32_t pass_first;  // its first record in the batch's pass array (room for max_passes(mb))
  uint16_t w, h;        // at most 1024 per side, 4096 samples (A.6.1)
  uint8_t band;         // Band
  uint8_t style;        // cblk_style bits (entropy/t1.h)
  uint8_t mb;           // the subband's Mb (E-2), at most 31
};

// Threads a launch for `count` jobs runs on a device with `multiprocessors` SMs (the decoder's
// rule, decode_threads).
size_t encode_threads(uint32_t count, int multiprocessors, const LaunchShape& shape = {});

// Reorders jobs for a fixed-mapping launch of `threads` threads (a multiple of 32) by cost
// (w x h x mb, descending), the heaviest spread over the warps, padded with empty jobs to whole
// rounds (spread_by_cost, job_order.h). Returns the permutation: result[i] is the index in
// `jobs` of the job now at i, or SIZE_MAX for padding. Host code.
std::vector<size_t> arrange_encode_jobs(std::vector<EncodeJob>& jobs, size_t threads);

// Codes jobs[0, count) (device arrays) from the samples of d_plane (job offsets index it) into
// d_bytes (at each job's out_offset, within its capacity) and d_passes (at each job's
// pass_first: max_passes(planes) records, each end relative to the job's out_offset, exactly
// encode_block's CodedPass values). results[k] and status[k] (a t1::EncodeStatus) receive job
// k's outcome; bytes and passes are meaningful for kOk only. d_workspace holds
// `state_words_per_thread` words for each of encode_threads(...) threads; it must be at least
// t1::state_words(w, h) of every job (t1::kMaxStateWords covers all). d_counter: one word of
// device memory (dynamic mapping). Enqueued on `stream`; throws Error on a launch failure or
// a workspace too small.
void encode_blocks(const EncodeJob* d_jobs, uint32_t count, const int32_t* d_plane,
                   uint8_t* d_bytes, CodedPass* d_passes, t1::EncodeResult* d_results,
                   uint8_t* d_status, uint32_t* d_workspace, size_t workspace_words,
                   size_t state_words_per_thread, uint32_t* d_counter, int multiprocessors,
                   cudaStream_t stream, const LaunchShape& shape = {});

// ---- The plane mapping (entropy/t1_enc_planes.h): a thread models one bit-plane of a block,
// then a thread per block codes its planes' decisions.

// The host's plan of a batch for the plane mapping: an item per job and plane below its Mb (a
// thread of the model kernel; planes at or above the job's coded planes do nothing), numbered
// in job order; chunks of consecutive jobs whose symbols fit the budget, modelled and coded one
// after the other through one symbol buffer. A job's planes record their symbols from
// symbol_at[job] of its chunk's buffer on, t1::block_symbol_bound bytes for its Mb planes (plane p
// at t1::plane_symbol_start, which the kernels find from the job's magnitudes).
struct PlanePlan {
  struct Chunk {
    uint32_t job_begin, job_end, item_begin, item_end;
  };
  std::vector<uint32_t> first_item;  // per job: its plane 0's item
  std::vector<uint64_t> symbol_at;   // per job: its symbols' first byte in its chunk's buffer
  std::vector<Chunk> chunks;
  uint32_t items = 0;         // in all
  size_t most_items = 0;      // the largest chunk's
  uint64_t symbol_bytes = 0;  // the largest chunk's
};
PlanePlan plan_planes(const std::vector<EncodeJob>& jobs, size_t symbol_budget);

// Device memory of a plane-mapping launch: jobs, first_item and symbol_at as planned (uploaded);
// nbp and done: a byte and a word per job; plane_at: 32 words per job; symbols:
// plan.symbol_bytes; records: plan.most_items
// PlaneRecords; workspace: plane_workspace_words words, state_words per thread (the largest
// job's state_words); counter: one word.
struct PlaneBuffers {
  const EncodeJob* jobs;
  const uint32_t* first_item;
  const uint64_t* symbol_at;
  uint8_t* nbp;
  uint32_t* done;
  uint32_t* plane_at;
  uint8_t* symbols;
  t1::PlaneRecord* records;
  uint32_t* workspace;
  size_t workspace_words, state_words;
  uint32_t* counter;
};
size_t plane_workspace_words(const PlanePlan& plan, const std::vector<EncodeJob>& jobs,
                             int multiprocessors, const LaunchShape& shape = {128, 4, true});

// As encode_blocks, with the plane mapping: every job's planes counted (a warp per job), then
// per chunk, in one launch, its planes modelled (a thread per item) and its jobs coded (a
// thread per job, each as soon as its planes are).
void encode_blocks_by_planes(const PlanePlan& plan, const PlaneBuffers& d, uint32_t count,
                             const int32_t* d_plane, uint8_t* d_bytes, CodedPass* d_passes,
                             t1::EncodeResult* d_results, uint8_t* d_status, int multiprocessors,
                             cudaStream_t stream, const LaunchShape& shape = {128, 4, true});

}  // namespace gj2k::entropy::cuda
