// The batch Tier-1 decoding kernel (entropy/cuda/t1_dec_cuda.h).
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

#include "entropy/cuda/job_order.h"
#include "entropy/cuda/t1_dec_cuda.h"
#include "entropy/t1_dec_block.h"
#include "entropy/t1_dec_qe.h"
#include "entropy/t1_dec_warp.h"
#include "gj2k/error.h"
#include "transform/cuda/cuda_check.h"

namespace gj2k::entropy::cuda {
namespace {

__device__ uint8_t g_zc[t1::kZcTableBytes];
__device__ uint8_t g_sc[t1::kScTableBytes];
__device__ uint32_t g_mq_next[t1::kMqQeNextWords];

// The context and MQ tables, copied to the device once per process (device 0 at the time of
// the first launch). The kernels decode with MqDecoderQe (t1_dec_qe.h), whose contexts carry
// their Qe: a decision compares after the context's load, without a state table's.
void upload_tables() {
  static std::once_flag once;
  std::call_once(once, [] {
    const t1::QeDecodeTables t = t1::host_qe_decode_tables();
    GJ2K_CUDA_CHECK(cudaMemcpyToSymbol(g_zc, t.zc, t1::kZcTableBytes));
    GJ2K_CUDA_CHECK(cudaMemcpyToSymbol(g_sc, t.sc, t1::kScTableBytes));
    GJ2K_CUDA_CHECK(cudaMemcpyToSymbol(g_mq_next, t.next, sizeof(g_mq_next)));
  });
}

// The tables copied into the thread block's shared memory (every thread of it must call this).
__device__ t1::QeDecodeTables shared_tables(uint8_t* zc, uint8_t* sc, uint32_t* next) {
  for (int i = threadIdx.x; i < int(t1::kZcTableBytes); i += blockDim.x) zc[i] = g_zc[i];
  for (int i = threadIdx.x; i < int(t1::kScTableBytes); i += blockDim.x) sc[i] = g_sc[i];
  for (int i = threadIdx.x; i < int(t1::kMqQeNextWords); i += blockDim.x) next[i] = g_mq_next[i];
  __syncthreads();
  return {zc, sc, next};
}

// Shared memory a thread block needs for its threads' contexts during a pass, slot k of thread
// t at k * blockDim + t (one bank per thread of a warp), not in local memory: with
// MqDecoderQe's 32-bit contexts in a local array the thread kernel ran 2.3 times slower, in
// shared slots 7% faster than MqDecoder with its local bytes (docs/PERFORMANCE.md, "Fifteenth
// run").
constexpr size_t context_slot_bytes(int threads_per_block) {
  return size_t(threads_per_block) * kNumContexts * sizeof(uint32_t);
}

// SlotTables: t1::QeSlotBandTables (rows unrolled) or t1::QeSlotLoopTables (some passes' rows
// in one loop: a smaller kernel, thread_kernel()).
template <class SlotTables>
__global__ void decode_kernel(const BlockJob* __restrict__ jobs, uint32_t count,
                              const t1::SegmentRef* __restrict__ segs,
                              const uint8_t* __restrict__ bytes, int32_t* out, uint8_t* status,
                              uint32_t* workspace, size_t state_words, uint32_t* counter,
                              bool dynamic) {
  __shared__ uint8_t zc[t1::kZcTableBytes];
  __shared__ uint8_t sc[t1::kScTableBytes];
  __shared__ uint32_t mq_next[t1::kMqQeNextWords];
  const t1::QeDecodeTables tables = shared_tables(zc, sc, mq_next);
  extern __shared__ uint32_t context_slots[];  // context_slot_bytes(blockDim.x)
  const t1::SlotContexts slots{context_slots + threadIdx.x, blockDim.x};
  uint32_t* state = workspace + (size_t(blockIdx.x) * blockDim.x + threadIdx.x) * state_words;
  const uint32_t threads = gridDim.x * blockDim.x;
  uint32_t k = dynamic ? atomicAdd(counter, 1u) : blockIdx.x * blockDim.x + threadIdx.x;
  for (; k < count; k = dynamic ? atomicAdd(counter, 1u) : k + threads) {
    const BlockJob j = jobs[k];
    status[k] = static_cast<uint8_t>(t1::decode_block_qe_hd<false, SlotTables>(
        tables, slots, bytes, segs + j.seg_first, j.seg_count, j.planes, j.band, j.style,
        out + j.out_offset, j.stride, j.w, j.h, state, nullptr));
  }
}

// The thread kernel's code: its passes' rows as t1::kThreadKernelRowLoops says, or with
// GJ2K_GPU_T1_ROWS=unrolled every pass's rows unrolled, =loops every pass's in one loop
// (measurements; read at each launch).
using DecodeKernel = void (*)(const BlockJob*, uint32_t, const t1::SegmentRef*, const uint8_t*,
                              int32_t*, uint8_t*, uint32_t*, size_t, uint32_t*, bool);
DecodeKernel thread_kernel() {
  const char* rows = std::getenv("GJ2K_GPU_T1_ROWS");
  if (rows && std::strcmp(rows, "unrolled") == 0) return decode_kernel<t1::QeSlotBandTables>;
  if (rows && std::strcmp(rows, "loops") == 0) return decode_kernel<t1::QeSlotLoopTables<7>>;
  return decode_kernel<t1::QeSlotLoopTables<t1::kThreadKernelRowLoops>>;
}

// The warp mapping (t1_dec_warp.h): warp n of the launch takes the warps of jobs the counter
// hands out, 32 jobs each, lane l the job 32 k + l of warp k.
// Before each column: the lanes meet, and the state and value lines of the column two ahead
// are asked into L1 (the lanes' words of a column share one line per array row; measured:
// docs/PERFORMANCE.md, "Ninth run"). During a pass the lane's contexts live in shared memory,
// slot k of lane l at k * 32 + l (one bank per lane), not in local memory, whose lines the
// state and values evict from L1.
struct WarpSync {
  uint32_t* cx;  // this lane's first context slot
  __device__ void operator()(const uint32_t* f, const uint32_t* v) const {
    __syncwarp();
    constexpr uint32_t kL = t1::kWarpLanes;
    asm volatile("prefetch.global.L1 [%0];" ::"l"(f + 2 * kL));
    for (uint32_t r = 0; r < 4; ++r)
      asm volatile("prefetch.global.L1 [%0];" ::"l"(v + 8 * kL + r * kL));
  }
  template <class Context>
  __device__ t1::StridedContexts<t1::kWarpLanes> contexts(Context*) const {
    return {cx};
  }
};

__global__ void decode_warps_kernel(const BlockJob* __restrict__ jobs, uint32_t warps,
                                    const t1::SegmentRef* __restrict__ segs,
                                    const uint8_t* __restrict__ bytes, int32_t* out,
                                    uint8_t* status, uint32_t* workspace, size_t slot_state,
                                    size_t slot_values, uint32_t* counter) {
  __shared__ uint8_t zc[t1::kZcTableBytes];
  __shared__ uint8_t sc[t1::kScTableBytes];
  __shared__ uint32_t mq_next[t1::kMqQeNextWords];
  const t1::QeDecodeTables tables = shared_tables(zc, sc, mq_next);
  extern __shared__ uint32_t context_slots[];  // context_slot_bytes(blockDim.x)
  constexpr unsigned kAll = 0xFFFFFFFFu;
  const uint32_t lane = threadIdx.x % t1::kWarpLanes;
  uint32_t* const cx = context_slots + (threadIdx.x - lane) * kNumContexts + lane;
  const size_t warp = (size_t(blockIdx.x) * blockDim.x + threadIdx.x) / t1::kWarpLanes;
  uint32_t* slot = workspace + warp * t1::kWarpLanes * (slot_state + slot_values);
  for (;;) {
    uint32_t next = 0;
    if (lane == 0) next = atomicAdd(counter, 1u);
    next = __shfl_sync(kAll, next, 0);
    if (next >= warps) break;
    const size_t k = size_t{next} * t1::kWarpLanes + lane;
    const BlockJob j = jobs[k];
    int32_t* o = out + j.out_offset;
    const t1::SegmentRefs list{bytes, segs + j.seg_first};
    const t1::BlockPlan plan =
        t1::plan_block(list, j.seg_count, j.planes, j.band, j.style, o, j.stride, j.w, j.h);
    status[k] = static_cast<uint8_t>(plan.status);
    const bool run = plan.passes > 0;
    const bool vc = (j.style & cblk_style::kVerticalCausal) != 0;
    const t1::WarpShape shape{__reduce_max_sync(kAll, run ? j.w : 0u),
                              __reduce_max_sync(kAll, run ? j.h : 0u),
                              __reduce_max_sync(kAll, plan.passes)};
    const uint32_t with_vc = __reduce_or_sync(kAll, run && vc ? 1u : 0u);
    const uint32_t without_vc = __reduce_or_sync(kAll, run && !vc ? 1u : 0u);
    if (shape.passes == 0) continue;
    if ((with_vc && without_vc) || t1::state_words(shape.w, shape.h) > slot_state ||
        t1::value_words(shape.w, shape.h) > slot_values) {
      // A block per lane, its state in the lane's own part of the slot.
      if (!run) continue;
      if (t1::state_words(j.w, j.h) > slot_state) {
        status[k] = static_cast<uint8_t>(t1::BlockStatus::kBadArgument);
        continue;
      }
      const t1::QeSlotBandTables band{t1::band_tables(tables, j.band), {cx, t1::kWarpLanes}};
      t1::run_block_in_mode<false>(band, list, j.seg_count, j.planes, j.style, o, j.stride, j.w,
                                   j.h, slot + lane * slot_state, nullptr);
      continue;
    }
    t1::decode_in_lockstep_mode<t1::kWarpLanes>(
        with_vc != 0, tables, bytes, segs + j.seg_first, j.planes, j.band, j.style, j.w, j.h,
        plan.passes, shape, slot + lane, slot + t1::kWarpLanes * slot_state + lane, o, j.stride,
        WarpSync{cx});
  }
}

}  // namespace

LaunchShape default_decode_shape() {
  static const LaunchShape shape = [] {
    LaunchShape s;
    if (const char* v = std::getenv("GJ2K_GPU_T1_BLOCKS_PER_SM"))
      s.blocks_per_sm = std::clamp(std::atoi(v), 1, 32);
    return s;
  }();
  return shape;
}

size_t decode_threads(uint32_t count, int multiprocessors, const LaunchShape& shape) {
  const size_t tpb = static_cast<size_t>(std::max(1, shape.threads_per_block));
  const size_t most = size_t(std::max(1, multiprocessors)) * std::max(1, shape.blocks_per_sm);
  const size_t grid = std::max<size_t>(1, std::min<size_t>((count + tpb - 1) / tpb, most));
  return grid * tpb;
}

namespace {
// arrange_jobs with the jobs' keys made already (their costs, warp_keys).
std::vector<size_t> apply_threads(std::vector<BlockJob>& jobs, const std::vector<WarpKey>& keys,
                                  size_t threads) {
  std::vector<uint64_t> cost(keys.size());
  for (size_t k = 0; k < keys.size(); ++k) cost[k] = keys[k].cost;
  const std::vector<size_t> placed = spread_by_cost(cost, threads);
  apply_placement(jobs, placed);
  return placed;
}

// The thread blocks of a warp-mapping launch for `warps` warps of jobs: a thread per lane, as
// decode_threads counts them.
size_t warp_grid(uint32_t warps, int multiprocessors, const LaunchShape& shape) {
  return decode_threads(warps * t1::kWarpLanes, multiprocessors, shape) /
         static_cast<size_t>(std::max(1, shape.threads_per_block));
}
// arrange_warps with the keys and the grouped placement made already.
void apply_warps(std::vector<BlockJob>& jobs, const std::vector<WarpKey>& keys,
                 const std::vector<size_t>& placed, WarpSlot* slot) {
  WarpSlot one;  // the largest single block's needs
  for (const WarpKey& k : keys) {
    one.state_words = std::max(one.state_words, t1::state_words(k.w, k.h));
    one.value_words = std::max(one.value_words, t1::value_words(k.w, k.h));
  }
  // The warps' shapes; a slot twice the largest block's at most (a warp beyond it decodes a
  // block per lane).
  WarpSlot warp;
  for (size_t n = 0; n < placed.size(); n += t1::kWarpLanes) {
    uint32_t w = 0, h = 0;
    for (size_t l = n; l < n + t1::kWarpLanes; ++l) {
      if (placed[l] == SIZE_MAX) continue;
      w = std::max(w, keys[placed[l]].w);
      h = std::max(h, keys[placed[l]].h);
    }
    warp.state_words = std::max(warp.state_words, t1::state_words(w, h));
    warp.value_words = std::max(warp.value_words, t1::value_words(w, h));
  }
  const bool twice =
      warp.state_words <= 2 * one.state_words && warp.value_words <= 2 * one.value_words;
  *slot = twice ? warp : one;
  slot->state_words = std::max<size_t>(slot->state_words, 1);
  slot->value_words = std::max<size_t>(slot->value_words, 1);
  apply_placement(jobs, placed);
}
}  // namespace

std::vector<size_t> arrange_jobs(std::vector<BlockJob>& jobs,
                                 const std::vector<t1::SegmentRef>& segs, size_t threads) {
  return apply_threads(jobs, warp_keys(jobs, segs), threads);
}

std::vector<size_t> arrange_warps(std::vector<BlockJob>& jobs,
                                  const std::vector<t1::SegmentRef>& segs, WarpSlot* slot) {
  const std::vector<WarpKey> keys = warp_keys(jobs, segs);
  const std::vector<size_t> placed = group_warps(keys);
  apply_warps(jobs, keys, placed, slot);
  return placed;
}

DecodeMapping arrange_for_decode(std::vector<BlockJob>& jobs,
                                 const std::vector<t1::SegmentRef>& segs, int multiprocessors,
                                 DecodeMapping want, WarpSlot* slot, double share,
                                 HostShare* host) {
  if (host) host->blocks.clear();
  const std::vector<WarpKey> keys = warp_keys(jobs, segs);
  BatchCosts costs = batch_costs(keys, {});
  // The choice's view: the total of all the launches running at once.
  auto shared = [share](BatchCosts c) {
    if (share > 0 && share < 1)
      c.total = static_cast<uint64_t>(static_cast<double>(c.total) / share);
    return c;
  };
  if (want == DecodeMapping::kWarps ||
      (want == DecodeMapping::kAuto && warps_may_win(shared(costs), multiprocessors))) {
    const std::vector<size_t> placed = group_warps(keys);
    costs = batch_costs(keys, placed);
    if (want == DecodeMapping::kWarps || prefer_warps(shared(costs), multiprocessors)) {
      apply_warps(jobs, keys, placed, slot);
      return DecodeMapping::kWarps;
    }
  }
  std::vector<uint64_t> cost(keys.size());
  for (size_t k = 0; k < keys.size(); ++k) cost[k] = keys[k].cost;
  const std::vector<size_t> order = order_by_cost(cost);
  size_t first = 0;  // order[0, first): the host's
  if (host) {
    host->blocks.clear();
    first = host->forced >= 0 ? std::min<size_t>(static_cast<size_t>(host->forced), order.size())
                              : host_block_count(cost, order, host->threads, multiprocessors, share,
                                                 host->ms_per_unit);
    host->blocks.assign(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(first));
    for (size_t r = 0; r < first; ++r) costs.total -= cost[order[r]];
    if (first < order.size()) costs.top_block = cost[order[first]];
  }
  const uint64_t spread = thread_spread(costs, multiprocessors);
  const uint64_t threads = std::min<uint64_t>((jobs.size() - first) * spread, UINT32_MAX);
  apply_placement(jobs,
                  spread_in_order(order, first,
                                  decode_threads(static_cast<uint32_t>(threads), multiprocessors)));
  return DecodeMapping::kThreads;
}

namespace {
__global__ void place_kernel(const PlaceJob* __restrict__ jobs, const int32_t* __restrict__ src,
                             int32_t* out) {
  const PlaceJob j = jobs[blockIdx.x];
  const uint32_t n = uint32_t{j.w} * j.h;
  for (uint32_t i = threadIdx.x; i < n; i += blockDim.x) {
    const uint32_t y = i / j.w, x = i - y * j.w;
    out[j.out_offset + uint64_t{y} * j.stride + x] = src[j.src_offset + i];
  }
}
}  // namespace

void place_blocks(const PlaceJob* d_jobs, uint32_t count, const int32_t* d_src, int32_t* d_out,
                  cudaStream_t stream) {
  if (count == 0) return;
  place_kernel<<<count, 256, 0, stream>>>(d_jobs, d_src, d_out);
  GJ2K_CUDA_CHECK_LAUNCH("placing host-decoded code-blocks");
}

size_t warp_workspace_words(uint32_t count, int multiprocessors, const WarpSlot& slot,
                            const LaunchShape& shape) {
  // A slot per resident lane (decode_threads), plus a tail the prefetches past the last slot's
  // end may touch.
  const uint32_t whole = (count + t1::kWarpLanes - 1) / t1::kWarpLanes * t1::kWarpLanes;
  return decode_threads(whole, multiprocessors, shape) * (slot.state_words + slot.value_words) +
         16 * t1::kWarpLanes;
}

void decode_blocks_in_warps(const BlockJob* d_jobs, uint32_t count, const t1::SegmentRef* d_segs,
                            const uint8_t* d_bytes, int32_t* d_out, uint8_t* d_status,
                            uint32_t* d_workspace, size_t workspace_words, const WarpSlot& slot,
                            uint32_t* d_counter, int multiprocessors, cudaStream_t stream,
                            const LaunchShape& shape) {
  if (count == 0) return;
  if (count % t1::kWarpLanes != 0 || shape.threads_per_block % int(t1::kWarpLanes) != 0)
    throw Error(ErrorCode::kInternal,
                "Tier-1 GPU decode: the warp mapping needs whole warps of jobs and threads");
  upload_tables();
  const size_t need = warp_workspace_words(count, multiprocessors, slot, shape);
  if (need > workspace_words)
    throw Error(ErrorCode::kInternal, "Tier-1 GPU decode: workspace of " +
                                          std::to_string(workspace_words) + " words, " +
                                          std::to_string(need) + " needed");
  GJ2K_CUDA_CHECK(cudaMemsetAsync(d_counter, 0, sizeof(uint32_t), stream));
  const uint32_t warps = count / t1::kWarpLanes;
  decode_warps_kernel<<<static_cast<unsigned>(warp_grid(warps, multiprocessors, shape)),
                        shape.threads_per_block, context_slot_bytes(shape.threads_per_block),
                        stream>>>(d_jobs, warps, d_segs, d_bytes, d_out, d_status, d_workspace,
                                  slot.state_words, slot.value_words, d_counter);
  GJ2K_CUDA_CHECK_LAUNCH("Tier-1 decode kernel (warps)");
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
  const DecodeKernel kernel = thread_kernel();
  kernel<<<static_cast<unsigned>(threads / tpb), tpb, context_slot_bytes(tpb), stream>>>(
      d_jobs, count, d_segs, d_bytes, d_out, d_status, d_workspace, state_words_per_thread,
      d_counter, shape.dynamic);
  GJ2K_CUDA_CHECK_LAUNCH("Tier-1 decode kernel");
}

}  // namespace gj2k::entropy::cuda
