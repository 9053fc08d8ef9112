// The batch Tier-1 decoding kernel (entropy/cuda/t1_dec_cuda.h).
#include <algorithm>
#include <cstdint>
#include <mutex>
#include <string>

#include "entropy/cuda/job_order.h"
#include "entropy/cuda/t1_dec_cuda.h"
#include "entropy/t1_dec_block.h"
#include "gj2k/error.h"
#include "transform/cuda/cuda_check.h"

namespace gj2k::entropy::cuda {
namespace {

__device__ uint8_t g_zc[t1::kZcTableBytes];
__device__ uint8_t g_sc[t1::kScTableBytes];
__device__ MqDecState g_mq[94];

// The context and MQ tables, copied to the device once per process (device 0 at the time of
// the first launch).
void upload_tables() {
  static std::once_flag once;
  std::call_once(once, [] {
    const t1::DecodeTables t = t1::host_decode_tables();
    GJ2K_CUDA_CHECK(cudaMemcpyToSymbol(g_zc, t.zc, t1::kZcTableBytes));
    GJ2K_CUDA_CHECK(cudaMemcpyToSymbol(g_sc, t.sc, t1::kScTableBytes));
    GJ2K_CUDA_CHECK(cudaMemcpyToSymbol(g_mq, t.mq, sizeof(g_mq)));
  });
}

__global__ void decode_kernel(const BlockJob* __restrict__ jobs, uint32_t count,
                              const t1::SegmentRef* __restrict__ segs,
                              const uint8_t* __restrict__ bytes, int32_t* out, uint8_t* status,
                              uint32_t* workspace, size_t state_words, uint32_t* counter,
                              bool dynamic) {
  __shared__ uint8_t zc[t1::kZcTableBytes];
  __shared__ uint8_t sc[t1::kScTableBytes];
  __shared__ MqDecState mq[94];
  for (int i = threadIdx.x; i < int(t1::kZcTableBytes); i += blockDim.x) zc[i] = g_zc[i];
  for (int i = threadIdx.x; i < int(t1::kScTableBytes); i += blockDim.x) sc[i] = g_sc[i];
  for (int i = threadIdx.x; i < 94; i += blockDim.x) mq[i] = g_mq[i];
  __syncthreads();
  const t1::DecodeTables tables{zc, sc, mq};
  uint32_t* state = workspace + (size_t(blockIdx.x) * blockDim.x + threadIdx.x) * state_words;
  const uint32_t threads = gridDim.x * blockDim.x;
  uint32_t k = dynamic ? atomicAdd(counter, 1u) : blockIdx.x * blockDim.x + threadIdx.x;
  for (; k < count; k = dynamic ? atomicAdd(counter, 1u) : k + threads) {
    const BlockJob j = jobs[k];
    status[k] = static_cast<uint8_t>(t1::decode_block_hd<false>(
        tables, bytes, segs + j.seg_first, j.seg_count, j.planes, j.band, j.style,
        out + j.out_offset, j.stride, j.w, j.h, state, nullptr));
  }
}

}  // namespace

size_t decode_threads(uint32_t count, int multiprocessors, const LaunchShape& shape) {
  const size_t tpb = static_cast<size_t>(std::max(1, shape.threads_per_block));
  const size_t most = size_t(std::max(1, multiprocessors)) * std::max(1, shape.blocks_per_sm);
  const size_t grid = std::max<size_t>(1, std::min<size_t>((count + tpb - 1) / tpb, most));
  return grid * tpb;
}

std::vector<size_t> arrange_jobs(std::vector<BlockJob>& jobs,
                                 const std::vector<t1::SegmentRef>& segs, size_t threads) {
  std::vector<uint64_t> cost(jobs.size());
  for (size_t k = 0; k < jobs.size(); ++k) {
    uint64_t passes = 0, bytes = 0;
    for (uint32_t s = 0; s < jobs[k].seg_count; ++s) {
      passes += segs[jobs[k].seg_first + s].passes;
      bytes += segs[jobs[k].seg_first + s].length;
    }
    cost[k] = decode_job_cost(passes, uint64_t{jobs[k].w} * jobs[k].h, bytes);
  }
  const std::vector<size_t> placed = spread_by_cost(cost, threads);
  apply_placement(jobs, placed);
  return placed;
}

void decode_blocks(const BlockJob* d_jobs, uint32_t count, const t1::SegmentRef* d_segs,
                   const uint8_t* d_bytes, int32_t* d_out, uint8_t* d_status, uint32_t* d_workspace,
                   size_t workspace_words, size_t state_words_per_thread, uint32_t* d_counter,
                   int multiprocessors, cudaStream_t stream, const LaunchShape& shape) {
  if (count == 0) return;
  upload_tables();
  const size_t threads = decode_threads(count, multiprocessors, shape);
  if (threads * state_words_per_thread > workspace_words)
    throw Error(ErrorCode::kInternal,
                "Tier-1 GPU decode: workspace of " + std::to_string(workspace_words) + " words, " +
                    std::to_string(threads * state_words_per_thread) + " needed");
  GJ2K_CUDA_CHECK(cudaMemsetAsync(d_counter, 0, sizeof(uint32_t), stream));
  const int tpb = std::max(1, shape.threads_per_block);
  decode_kernel<<<static_cast<unsigned>(threads / tpb), tpb, 0, stream>>>(
      d_jobs, count, d_segs, d_bytes, d_out, d_status, d_workspace, state_words_per_thread,
      d_counter, shape.dynamic);
  GJ2K_CUDA_CHECK_LAUNCH("Tier-1 decode kernel");
}

}  // namespace gj2k::entropy::cuda
