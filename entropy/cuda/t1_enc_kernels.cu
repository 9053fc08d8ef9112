// The batch Tier-1 encoding kernel (entropy/cuda/t1_enc_cuda.h).
#include <cuda/atomic>

#include <algorithm>
#include <cstdint>
#include <mutex>
#include <string>

#include "entropy/cuda/job_order.h"
#include "entropy/cuda/t1_enc_cuda.h"
#include "entropy/t1_enc_block.h"
#include "entropy/t1_enc_planes.h"
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

// The tables copied into the thread block's shared memory (every thread of it must call this).
__device__ t1::EncodeTables shared_tables(uint8_t* zc, uint8_t* sc, MqEncState* mq) {
  for (int i = threadIdx.x; i < 4 * 512; i += blockDim.x) zc[i] = g_enc_zc[i];
  for (int i = threadIdx.x; i < 2048; i += blockDim.x) sc[i] = g_enc_sc[i];
  for (int i = threadIdx.x; i < 94; i += blockDim.x) mq[i] = g_enc_mq[i];
  __syncthreads();
  return {zc, sc, mq};
}

__global__ void encode_kernel(const EncodeJob* __restrict__ jobs, uint32_t count,
                              const int32_t* __restrict__ plane, uint8_t* bytes, CodedPass* passes,
                              t1::EncodeResult* results, uint8_t* status, uint32_t* workspace,
                              size_t state_words, uint32_t* counter, bool dynamic) {
  __shared__ uint8_t zc[4 * 512];
  __shared__ uint8_t sc[2048];
  __shared__ MqEncState mq[94];
  const t1::EncodeTables tables = shared_tables(zc, sc, mq);
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

// ---- The plane mapping (t1_enc_planes.h) ----------------------------------------------------

// A warp per job: its arguments checked and its planes counted (the lanes OR the magnitudes of
// its columns), as encode_block_hd begins; status[k], results[k] (planes, passes) and nbp[k]
// (0: nothing for the other kernels to do) set, and plane_at[32 k + p] where plane p's symbols
// start in the job's (plane_symbol_start, from a histogram of the magnitudes' bit counts).
__global__ void scan_kernel(const EncodeJob* __restrict__ jobs, uint32_t count,
                            const int32_t* __restrict__ plane, t1::EncodeResult* results,
                            uint8_t* status, uint8_t* nbp_out, uint32_t* plane_at) {
  constexpr unsigned kAll = 0xFFFFFFFFu;
  __shared__ uint32_t histograms[32 * 32];  // a warp's: samples per bit count 0..31
  const uint32_t lane = threadIdx.x % 32;
  uint32_t* hist = histograms + (threadIdx.x / 32) * 32;
  const size_t warps = size_t(gridDim.x) * blockDim.x / 32;
  for (size_t k = (size_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32; k < count; k += warps) {
    const EncodeJob j = jobs[k];
    t1::EncodeStatus s = t1::check_encode_arguments(j.mb, j.band, j.w, j.h);
    hist[lane] = 0;
    __syncwarp();
    uint32_t all = 0;
    if (s == t1::EncodeStatus::kOk) {
      const int32_t* q = plane + j.in_offset;
      for (uint32_t y = 0; y < j.h; ++y)
        for (uint32_t x = lane; x < j.w; x += 32) {
          const int32_t v = q[size_t{y} * j.stride + x];
          const uint32_t m = v < 0 ? 0u - static_cast<uint32_t>(v) : static_cast<uint32_t>(v);
          all |= m;
          const uint32_t bits = min(t1::bit_width(m), 31u);
          const unsigned same = __match_any_sync(__activemask(), bits);
          if (lane == uint32_t(__ffs(same) - 1)) atomicAdd(&hist[bits], uint32_t(__popc(same)));
        }
    }
    all = __reduce_or_sync(kAll, all);
    __syncwarp();
    // Lane p: the samples whose magnitude needs 1 to p bits.
    uint32_t below = 0;
    for (uint32_t b = 1; b <= lane; ++b) below += hist[b];
    const uint32_t samples = uint32_t{j.w} * j.h;
    plane_at[k * 32 + lane] = t1::plane_symbol_start(samples, lane, below);
    __syncwarp();
    if (lane != 0) continue;
    t1::EncodeResult r{};
    if (s == t1::EncodeStatus::kOk) s = t1::planes_status(t1::bit_width(all), j.mb, &r);
    results[k] = r;
    status[k] = static_cast<uint8_t>(s);
    nbp_out[k] = static_cast<uint8_t>(s == t1::EncodeStatus::kOk ? r.planes : 0);
  }
}

// A chunk's planes modelled and its jobs coded, in one launch: units [0, items) of the counter
// are the chunk's items (a plane of a job each: model_plane into the plane's symbols; item i is
// plane i - first_item[j] of the job j whose items hold it, a binary search over first_item),
// then one unit per job of the chunk (code_symbols over its planes). A job's coding waits
// (acquire) until all its items have released their records and symbols (done[job], counted
// up by each item, whether its plane is coded or not). No wait can stall the launch: the
// counter hands out every item before any job, and a thread working on an item waits for
// nothing. So early jobs are coded while later jobs' planes are still being modelled, faster
// than two launches one after the other (docs/PERFORMANCE.md, "Tenth run").
__global__ void model_code_kernel(const EncodeJob* __restrict__ jobs, PlanePlan::Chunk chunk,
                                  const uint32_t* __restrict__ first_item,
                                  const uint64_t* __restrict__ symbol_at,
                                  const uint32_t* __restrict__ plane_at,
                                  const int32_t* __restrict__ plane,
                                  const uint8_t* __restrict__ nbp, uint8_t* symbols,
                                  t1::PlaneRecord* records, uint32_t* workspace, size_t state_words,
                                  uint32_t* done, uint8_t* bytes, CodedPass* passes,
                                  t1::EncodeResult* results, uint8_t* status, uint32_t* counter) {
  __shared__ uint8_t zc[4 * 512];
  __shared__ uint8_t sc[2048];
  __shared__ MqEncState mq[94];
  const t1::EncodeTables tables = shared_tables(zc, sc, mq);
  using Done = ::cuda::atomic_ref<uint32_t, ::cuda::thread_scope_device>;
  uint32_t* state = workspace + (size_t(blockIdx.x) * blockDim.x + threadIdx.x) * state_words;
  const uint32_t items = chunk.item_end - chunk.item_begin;
  const uint32_t units = items + (chunk.job_end - chunk.job_begin);
  for (uint32_t u = atomicAdd(counter, 1u); u < units; u = atomicAdd(counter, 1u)) {
    if (u < items) {
      const uint32_t item = chunk.item_begin + u;
      uint32_t lo = chunk.job_begin, hi = chunk.job_end;  // the last job with first_item <= item
      while (hi - lo > 1) {
        const uint32_t mid = lo + (hi - lo) / 2;
        if (first_item[mid] <= item)
          lo = mid;
        else
          hi = mid;
      }
      const uint32_t p = item - first_item[lo];
      const uint32_t n = nbp[lo];
      if (p < n) {
        const EncodeJob j = jobs[lo];
        const t1::EncBandTables band{tables.zc + 512 * j.band, tables.sc, nullptr};
        const int32_t* q = plane + j.in_offset;
        uint8_t* out = symbols + symbol_at[lo] + plane_at[size_t{lo} * 32 + p];
        records[u] =
            (j.style & cblk_style::kVerticalCausal)
                ? t1::model_plane<true>(band, q, j.stride, j.w, j.h, j.style, n, p, state, out)
                : t1::model_plane<false>(band, q, j.stride, j.w, j.h, j.style, n, p, state, out);
      }
      Done(done[lo]).fetch_add(1u, ::cuda::memory_order_release);
      continue;
    }
    const uint32_t k = chunk.job_begin + (u - items);
    const uint32_t n = nbp[k];
    if (n == 0) continue;
    const EncodeJob j = jobs[k];
    // Its items, counted as the items were numbered (plan_planes).
    const uint32_t planes =
        (k + 1 < chunk.job_end ? first_item[k + 1] : chunk.item_end) - first_item[k];
    Done flag(done[k]);
    while (flag.load(::cuda::memory_order_acquire) < planes) __nanosleep(256);
    const t1::PlaneRecord* rec = records + (first_item[k] - chunk.item_begin);
    const uint8_t* sym = symbols + symbol_at[k];
    const uint32_t* at = plane_at + size_t{k} * 32;
    uint32_t coded = 0;
    const t1::EncodeStatus s = t1::code_symbols(
        tables.mq, [&](uint32_t p) { return sym + at[p]; },
        [&](uint32_t p) -> const t1::PlaneRecord& { return rec[p]; }, j.style, n,
        bytes + j.out_offset, j.capacity, passes + j.pass_first, &coded);
    status[k] = static_cast<uint8_t>(s);
    results[k].bytes = coded;
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

PlanePlan plan_planes(const std::vector<EncodeJob>& jobs, size_t symbol_budget) {
  PlanePlan plan;
  plan.first_item.resize(jobs.size());
  plan.symbol_at.resize(jobs.size());
  PlanePlan::Chunk chunk{0, 0, 0, 0};
  uint32_t items = 0;
  uint64_t used = 0;
  auto close = [&](uint32_t k) {
    chunk.job_end = k;
    chunk.item_end = items;
    plan.chunks.push_back(chunk);
    plan.most_items = std::max<size_t>(plan.most_items, chunk.item_end - chunk.item_begin);
    chunk = {k, 0, items, 0};
    used = 0;
  };
  for (size_t k = 0; k < jobs.size(); ++k) {
    const EncodeJob& j = jobs[k];
    const uint32_t planes = std::min<uint32_t>(j.mb, 31);
    const uint64_t need = t1::block_symbol_bound(uint32_t{j.w} * j.h, planes);
    if (used > 0 && used + need > symbol_budget) close(static_cast<uint32_t>(k));
    plan.first_item[k] = items;
    plan.symbol_at[k] = used;
    items += planes;
    used += need;
    plan.symbol_bytes = std::max<uint64_t>(plan.symbol_bytes, used);
  }
  if (jobs.size() > chunk.job_begin) close(static_cast<uint32_t>(jobs.size()));
  plan.items = items;
  return plan;
}

size_t plane_workspace_words(const PlanePlan& plan, const std::vector<EncodeJob>& jobs,
                             int multiprocessors, const LaunchShape& shape) {
  size_t state = 1;
  for (const EncodeJob& j : jobs) state = std::max(state, t1::state_words(j.w, j.h));
  const auto most = static_cast<uint32_t>(std::max<size_t>(plan.most_items, 1));
  return decode_threads(most, multiprocessors, shape) * state;
}

void encode_blocks_by_planes(const PlanePlan& plan, const PlaneBuffers& d, uint32_t count,
                             const int32_t* d_plane, uint8_t* d_bytes, CodedPass* d_passes,
                             t1::EncodeResult* d_results, uint8_t* d_status, int multiprocessors,
                             cudaStream_t stream, const LaunchShape& shape) {
  if (count == 0) return;
  upload_tables();
  const int tpb = std::max(1, shape.threads_per_block);
  const size_t scanners = decode_threads(count * 32, multiprocessors, {128, 8, false});
  scan_kernel<<<static_cast<unsigned>(scanners / 128), 128, 0, stream>>>(
      d.jobs, count, d_plane, d_results, d_status, d.nbp, d.plane_at);
  GJ2K_CUDA_CHECK_LAUNCH("Tier-1 encode scan kernel");
  for (const PlanePlan::Chunk& c : plan.chunks) {
    const uint32_t items = c.item_end - c.item_begin;
    const size_t threads = decode_threads(std::max<uint32_t>(items, 1), multiprocessors, shape);
    if (threads * d.state_words > d.workspace_words)
      throw Error(ErrorCode::kInternal, "Tier-1 GPU encode (planes): workspace of " +
                                            std::to_string(d.workspace_words) + " words, " +
                                            std::to_string(threads * d.state_words) + " needed");
    GJ2K_CUDA_CHECK(cudaMemsetAsync(d.counter, 0, sizeof(uint32_t), stream));
    GJ2K_CUDA_CHECK(cudaMemsetAsync(d.done + c.job_begin, 0,
                                    size_t{c.job_end - c.job_begin} * sizeof(uint32_t), stream));
    // The threads the items need (each with its state); they take the jobs after the items.
    model_code_kernel<<<static_cast<unsigned>(threads / tpb), tpb, 0, stream>>>(
        d.jobs, c, d.first_item, d.symbol_at, d.plane_at, d_plane, d.nbp, d.symbols, d.records,
        d.workspace, d.state_words, d.done, d_bytes, d_passes, d_results, d_status, d.counter);
    GJ2K_CUDA_CHECK_LAUNCH("Tier-1 encode model and code kernel");
  }
}

}  // namespace gj2k::entropy::cuda
