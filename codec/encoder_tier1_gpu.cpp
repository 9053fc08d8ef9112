// The encoder's Tier-1 on the GPU (encoder_gpu.h code_tile_gpu): the code-blocks of a tile
// coded by entropy/cuda/t1_enc_cuda.h straight from the transformer's device results, the
// written bytes and pass records compacted on the device (transform/cuda/gather_cuda.h) and
// brought back in one transfer each. The blocks are coded by the plane mapping (a thread per
// bit-plane models, a thread per block codes the decisions; entropy/t1_enc_planes.h), or with
// GJ2K_GPU_T1_ENC_MAPPING=threads by a thread per block.
#if defined(GJ2K_HAVE_CUDA)

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "codec/context.h"
#include "codec/encoder_gpu.h"
#include "codec/parallel.h"
#include "codec/trace.h"
#include "core/thread_pool.h"
#include "entropy/cuda/t1_enc_cuda.h"
#include "entropy/t1_enc_block.h"
#include "gj2k/error.h"
#include "transform/cuda/cuda_check.h"
#include "transform/cuda/cuda_memory.h"
#include "transform/cuda/gather_cuda.h"
#include "transform/cuda/resource_pool.h"
#include "transform/cuda/staging_ring.h"
#include "transform/cuda/tile_transformer.h"
#include "transform/device.h"

namespace gj2k::codec {
namespace {

namespace cu = transform::cuda;
namespace ecu = entropy::cuda;

// Device and staging memory of one call, from a process-wide pool (grown only, released with
// the other GPU pools).
struct Tier1Buffers {
  cu::StagingRing ring;
  cu::Stream down;  // the coded bytes' download, after the event `gathered` on the tile's stream
  cu::Event gathered;
  cu::DeviceBuffer jobs, out, passes, results, status, workspace, counter, ranges, bytes, records;
  // The plane mapping's (entropy/cuda/t1_enc_cuda.h PlaneBuffers).
  cu::DeviceBuffer first_item, symbol_at, nbp, symbols, plane_records, done, plane_at;
};

// The current context's pool (codec/context.h), or without one the process-wide pool, never
// destroyed. Selects the context's device for the calling thread.
cu::Pool<Tier1Buffers>& t1_pool() {
  use_context_device();
  auto make = [] {
    return new cu::Pool<Tier1Buffers>([] { return std::make_unique<Tier1Buffers>(); });
  };
  if (ContextResources* c = current_context())
    return c->gpu_object<cu::Pool<Tier1Buffers>>(GpuObject::kEncoderTier1, make);
  static cu::Pool<Tier1Buffers>* p = make();
  return *p;
}

uint64_t round16(uint64_t n) {
  return (n + 15) & ~uint64_t{15};
}

// The mapping of the Tier-1 kernel: the plane mapping unless GJ2K_GPU_T1_ENC_MAPPING=threads
// (for measurements; both code the same bytes).
bool plane_mapping() {
  const char* env = std::getenv("GJ2K_GPU_T1_ENC_MAPPING");
  return env == nullptr || std::strcmp(env, "threads") != 0;
}

// The plane mapping's launch: 8 resident thread blocks of 128 threads per SM (the fastest
// shape bench_gpu_t1 measured, docs/PERFORMANCE.md "Tenth run").
constexpr entropy::cuda::LaunchShape kPlaneLaunch{128, 8, true};

std::atomic<size_t> g_symbol_budget{0};  // set_t1_symbol_budget

// Symbol memory of the plane mapping for a tile: all of it in one chunk when half the device
// memory still free (within GJ2K_GPU_MEMORY_LIMIT) holds it, as a chunk's decisions are coded
// before the next chunk is modelled and every chunk adds that wait; else that half, or at
// least one job's; or what set_t1_symbol_budget set.
size_t symbol_budget(const std::vector<entropy::cuda::EncodeJob>& jobs) {
  if (const size_t set = g_symbol_budget.load(std::memory_order_relaxed)) return set;
  uint64_t need = 0, largest = 0;
  for (const auto& j : jobs) {
    const uint64_t n =
        entropy::t1::block_symbol_bound(uint32_t{j.w} * j.h, std::min<uint32_t>(j.mb, 31));
    need += n;
    largest = std::max(largest, n);
  }
  size_t free = 0, total = 0;
  if (cudaMemGetInfo(&free, &total) != cudaSuccess) free = 0;
  if (const size_t limit = cu::device_memory_limit()) {
    const size_t used = cu::device_memory_use().current;
    free = std::min(free, limit > used ? limit - used : 0);
  }
  return static_cast<size_t>(std::max<uint64_t>(std::min<uint64_t>(need, free / 2), largest));
}

}  // namespace

TileCoding code_tile_gpu(cu::TileTransformer& tt, const Image& image, const EncodeSetup& setup,
                         const EncodeParams& params, uint32_t t) {
  namespace t1 = entropy::t1;
  TraceStage trace_plan("gpu tier-1 plan");
  std::vector<CodeBlockJob> jobs;
  TraceStage trace_tile("gpu tier-1 plan: tile");
  TileCoding tile = plan_tile(image, setup, t, jobs);
  trace_tile.end();
  const int levels = setup.main.cod.component.levels;
  const uint8_t style = setup.main.cod.component.cblk_style;
  const int threads = std::max(1, setup.threads);
  cudaStream_t st = tt.stream(0);
  const int32_t* base = tt.device_output(0, 0);
  std::vector<uint64_t> comp_at(tile.components.size());  // each component's values in base
  for (size_t c = 0; c < comp_at.size(); ++c)
    comp_at[c] = static_cast<uint64_t>(tt.device_output(0, static_cast<int>(c)) - base);

  // One kernel job per non-empty code-block: where its values are, its byte budget and room
  // for every pass it can have.
  std::vector<ecu::EncodeJob> kj;
  std::vector<size_t> job_of;  // kj[i] codes jobs[job_of[i]]
  kj.reserve(jobs.size());
  job_of.reserve(jobs.size());
  uint64_t out_bytes = 0, records = 0;
  size_t state_words = 0;
  const uint32_t divisor = std::max<uint32_t>(1, t1_budget_divisor());
  for (size_t i = 0; i < jobs.size(); ++i) {
    const CodeBlockJob& j = jobs[i];
    if (j.rect.empty()) continue;
    const TileComponentCoding& tcc = tile.components[j.c];
    const BandLayout& bl = tcc.layout.resolutions[j.r].bands[j.b];
    const BandCoding& bc = tcc.bands[j.r][j.b];
    ecu::EncodeJob e{};
    e.in_offset = comp_at[j.c] + job_offset(tile, levels, j);
    e.out_offset = out_bytes;
    e.stride = tcc.layout.rect.width();
    e.capacity = t1::encode_budget(j.rect.width(), j.rect.height(), bc.mb) / divisor;
    e.pass_first = static_cast<uint32_t>(records);
    e.w = static_cast<uint16_t>(j.rect.width());
    e.h = static_cast<uint16_t>(j.rect.height());
    e.band = static_cast<uint8_t>(bl.band);
    e.style = style;
    e.mb = static_cast<uint8_t>(bc.mb);
    kj.push_back(e);
    job_of.push_back(i);
    out_bytes += round16(e.capacity);
    records += entropy::max_passes(bc.mb);
    state_words = std::max(state_words, t1::state_words(e.w, e.h));
    if (records > UINT32_MAX)
      throw Error(ErrorCode::kUnsupported,
                  "GPU Tier-1: tile " + std::to_string(t) + " has more than 2^32 pass records");
  }
  if (kj.empty()) return tile;
  // Launch: the plane mapping (the faster on the photo mosaics, lossless and 9/7:
  // docs/PERFORMANCE.md "Tenth run"). A thread per
  // block takes the jobs in plan order (component, resolution, band, raster), each thread the
  // next job from a counter when it finishes one: faster than the heavy-first fixed arrangement
  // the decoder uses, as neighbouring blocks of a band cost about the same.
  const int sms = std::max(1, transform::gpu_info().multiprocessors);
  ecu::LaunchShape shape;
  shape.threads_per_block = 128;
  shape.blocks_per_sm = 4;
  shape.dynamic = true;
  const size_t gpu_threads = ecu::encode_threads(static_cast<uint32_t>(kj.size()), sms, shape);
  const uint32_t count = static_cast<uint32_t>(kj.size());
  bool planes = plane_mapping();
  ecu::PlanePlan plan;
  size_t plane_words = 0;
  const auto make_plan = [&](size_t budget) {
    plan = ecu::plan_planes(kj, budget);
    plane_words = ecu::plane_workspace_words(plan, kj, sms, kPlaneLaunch);
  };
  if (planes) {
    TraceStage trace_planes("gpu tier-1 plan: planes");
    make_plan(symbol_budget(kj));
  }
  const auto block_of = [&](uint32_t k) -> const CodeBlockJob& { return jobs[job_of[k]]; };

  trace_plan.end();
  TraceStage trace_kernel("gpu transform+tier-1");
  // Shared with the coded bytes' download, which may outlast this call (below).
  const auto lease = std::make_shared<cu::Lease<Tier1Buffers>>(t1_pool());
  Tier1Buffers& b = **lease;
  lease->in_use();
  for (int attempt = 0;; ++attempt) {
    try {
      b.out.reserve(std::max<uint64_t>(out_bytes, 16));
      b.passes.reserve(std::max<uint64_t>(records, 1) * sizeof(entropy::CodedPass));
      if (planes) {
        b.workspace.reserve(std::max<size_t>(plane_words * 4, 4));
        b.symbols.reserve(std::max<uint64_t>(plan.symbol_bytes, 16));
        b.plane_records.reserve(std::max<size_t>(plan.most_items, 1) * sizeof(t1::PlaneRecord));
        b.first_item.reserve(size_t{count} * sizeof(uint32_t));
        b.symbol_at.reserve(size_t{count} * sizeof(uint64_t));
        b.done.reserve(size_t{count} * sizeof(uint32_t));
        b.plane_at.reserve(size_t{count} * 32 * sizeof(uint32_t));
        b.nbp.reserve(count);
      } else {
        b.workspace.reserve(std::max<size_t>(gpu_threads * state_words * 4, 4));
      }
      break;
    } catch (const Error& e) {
      if (!cu::out_of_memory(e)) throw;
      // The buffers do not fit the device memory beside the transform's. The plane mapping
      // tries again with its symbols in chunks of 16 MB, then a thread per block does without
      // them. Failing that, with other tiles on the device, encode_tile_gpu waits for them and
      // tries again; alone, the values come down and Tier-1 runs on the CPU (the same blocks).
      if (planes && attempt == 0 && plan.symbol_bytes > (uint64_t{16} << 20)) {
        make_plan(size_t{16} << 20);
        b.symbols = cu::DeviceBuffer();
        continue;
      }
      if (planes) {
        planes = false;
        b.symbols = cu::DeviceBuffer();
        b.plane_records = cu::DeviceBuffer();
        b.plane_at = cu::DeviceBuffer();
        b.workspace = cu::DeviceBuffer();
        continue;
      }
      if (other_gpu_tiles_active()) throw;
      lease->succeeded();
      std::vector<transform::Rect> rects;
      for (const TileComponentCoding& tcc : tile.components) rects.push_back(tcc.layout.rect);
      TileCoefficients coeffs = download_coefficients(tt, std::move(rects));
      return code_tile(coeffs, image, setup, params, t);
    }
  }
  // The jobs up, Tier-1 of them all, their results and statuses down.
  b.jobs.reserve(count * sizeof(ecu::EncodeJob));
  b.results.reserve(count * sizeof(t1::EncodeResult));
  b.status.reserve(count);
  b.counter.reserve(sizeof(uint32_t));
  b.ring.upload(b.jobs.get(), kj.data(), count * sizeof(ecu::EncodeJob), st, threads);
  if (planes) {
    b.ring.upload(b.first_item.get(), plan.first_item.data(), size_t{count} * sizeof(uint32_t), st,
                  threads);
    b.ring.upload(b.symbol_at.get(), plan.symbol_at.data(), size_t{count} * sizeof(uint64_t), st,
                  threads);
    const ecu::PlaneBuffers pb{b.jobs.as<ecu::EncodeJob>(),
                               b.first_item.as<uint32_t>(),
                               b.symbol_at.as<uint64_t>(),
                               b.nbp.as<uint8_t>(),
                               b.done.as<uint32_t>(),
                               b.plane_at.as<uint32_t>(),
                               b.symbols.as<uint8_t>(),
                               b.plane_records.as<t1::PlaneRecord>(),
                               b.workspace.as<uint32_t>(),
                               b.workspace.bytes() / 4,
                               state_words,
                               b.counter.as<uint32_t>()};
    ecu::encode_blocks_by_planes(
        plan, pb, count, base, b.out.as<uint8_t>(), b.passes.as<entropy::CodedPass>(),
        b.results.as<t1::EncodeResult>(), b.status.as<uint8_t>(), sms, st, kPlaneLaunch);
  } else {
    ecu::encode_blocks(b.jobs.as<ecu::EncodeJob>(), count, base, b.out.as<uint8_t>(),
                       b.passes.as<entropy::CodedPass>(), b.results.as<t1::EncodeResult>(),
                       b.status.as<uint8_t>(), b.workspace.as<uint32_t>(), b.workspace.bytes() / 4,
                       state_words, b.counter.as<uint32_t>(), sms, st, shape);
  }
  std::vector<t1::EncodeResult> result(count);
  std::vector<uint8_t> status(count);
  b.ring.download(result.data(), b.results.get(), count * sizeof(t1::EncodeResult), st, threads);
  b.ring.download(status.data(), b.status.get(), count, st, threads);  // waits for all
  trace_kernel.end();
  TraceStage trace_back("gpu tier-1 download");
  const auto coded = [&](uint32_t k) {
    return static_cast<t1::EncodeStatus>(status[k]) == t1::EncodeStatus::kOk;
  };

  // Blocks the device did not code (data beyond the budget; values the coder refuses) are
  // coded on the CPU from their values: the CPU path's bytes, or its error.
  std::string failure;
  std::vector<uint64_t> byte_at(count), record_at(count);
  std::vector<cu::GatherRange> ranges;
  ranges.reserve(2 * size_t{count});
  uint64_t total_bytes = 0, total_records = 0;
  for (uint32_t k = 0; k < count; ++k) {
    if (!coded(k)) {
      const ecu::EncodeJob& e = kj[k];
      std::vector<int32_t> q(size_t{e.w} * e.h);
      GJ2K_CUDA_CHECK(cudaMemcpy2D(q.data(), size_t{e.w} * 4, base + e.in_offset,
                                   size_t{e.stride} * 4, size_t{e.w} * 4, e.h,
                                   cudaMemcpyDeviceToHost));
      std::string error = code_block(q.data(), e.w, style, block_of(k), tile, true);
      if (!error.empty() && failure.empty()) failure = std::move(error);
      continue;
    }
    byte_at[k] = total_bytes;
    record_at[k] = total_records;
    ranges.push_back({kj[k].out_offset, total_bytes, result[k].bytes});
    total_bytes += result[k].bytes;
    total_records += result[k].passes;
  }
  if (!failure.empty()) throw Error(ErrorCode::kInvalidArgument, failure);
  TraceStage trace_gather("gpu tier-1 download: gather");
  const size_t byte_ranges = ranges.size();
  for (uint32_t k = 0; k < count; ++k)
    if (coded(k))
      ranges.push_back({uint64_t{kj[k].pass_first} * sizeof(entropy::CodedPass),
                        record_at[k] * sizeof(entropy::CodedPass),
                        uint64_t{result[k].passes} * sizeof(entropy::CodedPass)});

  // Only what was written comes back: compacted on the device, then one download each. The
  // pass records come down now (the rate control reads them first); the bytes, which only
  // Tier-2 reads, on a helper thread through the buffers' own stream, while this thread and
  // then the rate control go on (tile.coded_bytes_ready; wait_for_coded_bytes). The helper
  // holds the buffers until its download ends.
  // (Not zero-filled: the downloads write every byte.)
  tile.coded_bytes.resize(total_bytes);  // the blocks view it (BlockCoding::coded_at)
  tile.coded_passes.resize(total_records);
  if (ranges.empty()) {
    lease->succeeded();
  } else {
    b.ranges.reserve(ranges.size() * sizeof(cu::GatherRange));
    b.bytes.reserve(std::max<uint64_t>(total_bytes, 16));
    b.records.reserve(std::max<uint64_t>(total_records, 1) * sizeof(entropy::CodedPass));
    b.ring.upload(b.ranges.get(), ranges.data(), ranges.size() * sizeof(cu::GatherRange), st,
                  threads);
    const cu::GatherRange* d_ranges = b.ranges.as<cu::GatherRange>();
    cu::gather_ranges(b.passes.as<uint8_t>(), d_ranges + byte_ranges,
                      static_cast<uint32_t>(ranges.size() - byte_ranges), b.records.as<uint8_t>(),
                      st);
    b.gathered.record(st);  // the kernel and the ranges' upload done
    GJ2K_CUDA_CHECK(cudaStreamWaitEvent(b.down.get(), b.gathered.get(), 0));
    cu::gather_ranges(b.out.as<uint8_t>(), d_ranges, static_cast<uint32_t>(byte_ranges),
                      b.bytes.as<uint8_t>(), b.down.get());
    trace_note("gpu tier-1 download: %zu ranges, %.1f MB of bytes, %.1f MB of pass records",
               ranges.size(), double(total_bytes) / 1e6,
               double(total_records * sizeof(entropy::CodedPass)) / 1e6);
    b.ring.download(tile.coded_passes.data(), b.records.get(),
                    total_records * sizeof(entropy::CodedPass), st, threads);
    uint8_t* const dst = tile.coded_bytes.data();
    tile.coded_bytes_ready = async_in_scope([lease, dst, total_bytes, threads] {
      use_context_device();  // the caller's (async_in_scope carries its context)
      Tier1Buffers& buffers = **lease;
      buffers.ring.download(dst, buffers.bytes.get(), total_bytes, buffers.down.get(), threads);
      lease->succeeded();
    });
  }
  trace_gather.end();
  trace_back.end();
  TraceStage trace_blocks("gpu tier-1 blocks");

  // Each block's EncodedBlock, as entropy::encode_block gives it (the kernel's pass ends are
  // relative to the block's data, as encode_block's), its bytes viewed in the tile's buffer.
  std::atomic<bool> bad_end{false};
  core::parallel_for_static(
      0, count,
      [&](size_t kk) {
        const uint32_t k = static_cast<uint32_t>(kk);
        if (!coded(k)) return;  // coded on the CPU above
        const t1::EncodeResult& o = result[k];
        const CodeBlockJob& j = block_of(k);
        BandCoding& bc = tile.components[j.c].bands[j.r][j.b];
        BlockCoding& blk = bc.blocks[j.k];
        blk.enc.missing_msbs = bc.mb - o.planes;
        blk.enc.data.clear();
        blk.enc.passes.clear();
        blk.coded_at = tile.coded_bytes.data() + byte_at[k];
        blk.passes_at = tile.coded_passes.data() + record_at[k];
        blk.pass_count = o.passes;
        if ((o.passes ? blk.passes_at[o.passes - 1].end : 0) != o.bytes) bad_end = true;
      },
      threads);
  if (bad_end)  // BlockCoding::bytes() takes the block's length from its last pass
    throw Error(ErrorCode::kInternal, "gpu tier-1: a block's last pass does not end its bytes");
  report_progress(params, "tier-1", 1.0);
  return tile;
}

namespace {
std::atomic<uint32_t> g_budget_divisor{1};
}  // namespace

uint32_t t1_budget_divisor() {
  return g_budget_divisor.load(std::memory_order_relaxed);
}
void set_t1_budget_divisor(uint32_t divisor) {
  g_budget_divisor.store(std::max<uint32_t>(1, divisor), std::memory_order_relaxed);
}
void set_t1_symbol_budget(size_t bytes) {
  g_symbol_budget.store(bytes, std::memory_order_relaxed);
}

size_t release_encoder_t1_pool() {
  return t1_pool().clear();
}

}  // namespace gj2k::codec

#endif  // GJ2K_HAVE_CUDA
