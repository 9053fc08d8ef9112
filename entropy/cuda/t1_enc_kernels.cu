// The batch Tier-1 encoding kernel (entropy/cuda/t1_enc_cuda.h).
#include <algorithm>
#include <cstdint>
#include <mutex>
#include <string>

#include "entropy/cuda/job_order.h"
#include "entropy/cuda/t1_enc_cuda.h"
#include "entropy/t1_enc_block.h"
#include "gj2k/error.h"
#include "transform/cuda/cuda_check.h"

namespace gj2k::entropy::cuda {
namespace {

__device__ uint8_t g_enc_zc[4 * 512];
__device__ uint8_t g_enc_sc[2048];
__device__ MqEncState g_enc_mq[94];

// The context and MQ tables, copied to the device once per process (device 0 at the time of
// the first launch).
void upload_tables() {
  static std::once_flag once;
  std::call_once(once, [] {
    const t1::EncodeTables t = t1::host_encode_tables();
    GJ2K_CUDA_CHECK(cudaMemcpyToSymbol(g_enc_zc, t.zc, sizeof(g_enc_zc)));
    GJ2K_CUDA_CHECK(cudaMemcpyToSymbol(g_enc_sc, t.sc, sizeof(g_enc_sc)));
    GJ2K_CUDA_CHECK(cudaMemcpyToSymbol(g_enc_mq, t.mq, sizeof(g_enc_mq)));
  });
}

__global__ void encode_kernel(const EncodeJob* __restrict__ jobs, uint32_t count,
                              const int32_t* __restrict__ plane, uint8_t* bytes, CodedPass* passes,
                              t1::EncodeResult* results, uint8_t* status, uint32_t* workspace,
                              size_t state_words, uint32_t* counter, bool dynamic) {
  __shared__ uint8_t zc[4 * 512];
  __shared__ uint8_t sc[2048];
  __shared__ MqEncState mq[94];
  for (int i = threadIdx.x; i < 4 * 512; i += blockDim.x) zc[i] = g_enc_zc[i];
  for (int i = threadIdx.x; i < 2048; i += blockDim.x) sc[i] = g_enc_sc[i];
  for (int i = threadIdx.x; i < 94; i += blockDim.x) mq[i] = g_enc_mq[i];
  __syncthreads();
  const t1::EncodeTables tables{zc, sc, mq};
  uint32_t* state = workspace + (size_t(blockIdx.x) * blockDim.x + threadIdx.x) * state_words;
  const uint32_t threads = gridDim.x * blockDim.x;
  uint32_t k = dynamic ? atomicAdd(counter, 1u) : blockIdx.x * blockDim.x + threadIdx.x;
  for (; k < count; k = dynamic ? atomicAdd(counter, 1u) : k + threads) {
    const EncodeJob j = jobs[k];
    t1::EncodeResult r;
    status[k] = static_cast<uint8_t>(t1::encode_block_hd<false>(
        tables, plane + j.in_offset, j.stride, j.w, j.h, j.band, j.style, j.mb,
        bytes + j.out_offset, j.capacity, passes + j.pass_first, state, nullptr, &r));
    results[k] = r;
  }
}

}  // namespace

size_t encode_threads(uint32_t count, int multiprocessors, const LaunchShape& shape) {
  return decode_threads(count, multiprocessors, shape);
}

std::vector<size_t> arrange_encode_jobs(std::vector<EncodeJob>& jobs, size_t threads) {
  std::vector<uint64_t> cost(jobs.size());
  for (size_t k = 0; k < jobs.size(); ++k) cost[k] = uint64_t{jobs[k].w} * jobs[k].h * jobs[k].mb;
  const std::vector<size_t> placed = spread_by_cost(cost, threads);
  apply_placement(jobs, placed);
  return placed;
}

void encode_blocks(const EncodeJob* d_jobs, uint32_t count, const int32_t* d_plane,
                   uint8_t* d_bytes, CodedPass* d_passes, t1::EncodeResult* d_results,
                   uint8_t* d_status, uint32_t* d_workspace, size_t workspace_words,
                   size_t state_words_per_thread, uint32_t* d_counter, int multiprocessors,
                   cudaStream_t stream, const LaunchShape& shape) {
  if (count == 0) return;
  upload_tables();
  const size_t threads = encode_threads(count, multiprocessors, shape);
  if (threads * state_words_per_thread > workspace_words)
    throw Error(ErrorCode::kInternal,
                "Tier-1 GPU encode: workspace of " + std::to_string(workspace_words) + " words, " +
                    std::to_string(threads * state_words_per_thread) + " needed");
  GJ2K_CUDA_CHECK(cudaMemsetAsync(d_counter, 0, sizeof(uint32_t), stream));
  const int tpb = std::max(1, shape.threads_per_block);
  encode_kernel<<<static_cast<unsigned>(threads / tpb), tpb, 0, stream>>>(
      d_jobs, count, d_plane, d_bytes, d_passes, d_results, d_status, d_workspace,
      state_words_per_thread, d_counter, shape.dynamic);
  GJ2K_CUDA_CHECK_LAUNCH("Tier-1 encode kernel");
}

}  // namespace gj2k::entropy::cuda
