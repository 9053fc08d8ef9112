// Tier-1 decoding alone, GPU against CPU, on the code-blocks of a real encode: a photo mosaic
// (the shared photos Bretagne1 and Cevennes2, mirrored tile by tile; the synthetic scene when
// the shared images are absent) of GJ2K_BENCH_T1_SIZE (default 10240x6400) RGB 8-bit, one tile,
// 5 levels, 64x64 code-blocks, encoded by gj2k lossless (5/3) and 9/7 at rate 20 (the passes
// the rate allocator kept). Every code-block with passes is decoded into the tile-component
// planes at its place in the Mallat arrangement, as the decoder does:
//   cpu t1_dec      entropy::decode_block (the CPU path today), all threads, OpenMP dynamic
//   cpu shared      t1::decode_block_hd<true> (the host-device source), all threads
//   gpu             entropy::cuda::decode_blocks, kernel time (CUDA events), per launch shape,
//                   jobs in stream order, sorted by cost (passes x samples, descending), and
//                   arranged (arrange_jobs: sorted, the heaviest spread over the warps);
//                   the warp mapping (arrange_warps, decode_blocks_in_warps) per launch shape;
//                   GJ2K_BENCH_T1_DECODE_ROWS (a comma list of shapes, spread, warps) keeps
//                   only the rows it names; GJ2K_BENCH_T1_LONE=s also times every s-th block
//                   by cost alone on one GPU thread
// GJ2K_BENCH_T1_STREAMS (a comma list of "lossless" and "9/7"; both when unset) keeps only the
// streams it names (a profiler's launch count then starts at the stream's first launch).
// Msamples/s count the samples of the decoded blocks. The GPU output is checked identical to
// the CPU's. Also printed: the copies a decode needs (code-block bytes and tables up, the
// int32 planes down), pageable, and the device's device-to-device copy bandwidth.
//
// Encode mode (Tier-1 encoding alone, every code-block of the same quantized coefficients,
// all passes, as the encoder codes them before rate allocation):
//   cpu encode      entropy::encode_block, all threads (OpenMP dynamic) and 1 thread
//   gpu encode      entropy::cuda::encode_blocks, kernel time (CUDA events), per launch shape,
//                   jobs in stream order and arranged (arrange_encode_jobs), each with
//                   t1::encode_budget bytes of room; bytes and pass records checked identical
//                   to the CPU's (blocks that overflow are counted: the encoder re-codes them on
//                   the CPU)
// Encode mappings, GJ2K_BENCH_T1_MAPPINGS (default "threads,planes"): a thread per block
// (encode_blocks) and the plane mapping (encode_blocks_by_planes, with the symbol budgets of
// GJ2K_BENCH_T1_PLANE_BUDGETS_MB, default "1024,8192").
// Modes: argument "decode", "encode" or none (both). GJ2K_BENCH_T1_ONE_THREAD=0 leaves out
// the one-thread CPU rows (a minute on the 10240x6400 mosaic; bench_t1 has per-core figures).
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bench/bench_images.h"
#include "codec/encoder_internal.h"
#include "codec/synthetic.h"
#include "entropy/cuda/job_order.h"
#include "entropy/t1.h"
#include "entropy/t1_dec_block.h"
#include "entropy/t1_enc_block.h"
#include "gj2k/encoder.h"
#include "gj2k/error.h"
#include "transform/device.h"
#include "transform/geometry.h"

#if defined(GJ2K_HAVE_CUDA)
#include <cuda_runtime.h>

#include "entropy/cuda/t1_dec_cuda.h"
#include "entropy/cuda/t1_enc_cuda.h"
#include "transform/cuda/cuda_check.h"
#include "transform/cuda/cuda_memory.h"
#endif

namespace {

using namespace gj2k;

double now_ms() {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

using bench::photo_mosaic;

struct Job {
  uint64_t out_offset;
  uint32_t stride, seg_first, seg_count, w, h, planes, band, style;
  uint64_t cost;
};

struct Batch {
  std::vector<Job> jobs;
  std::vector<entropy::t1::SegmentRef> segs;
  std::vector<uint8_t> bytes;
  size_t out_size = 0;
  uint64_t samples = 0;
};

// The batch's job indices by cost descending, equal costs in index order (job_order.h).
std::vector<size_t> by_cost(const Batch& b) {
  std::vector<uint64_t> cost(b.jobs.size());
  for (size_t k = 0; k < cost.size(); ++k) cost[k] = b.jobs[k].cost;
  return entropy::cuda::order_by_cost(cost);
}

// What the decode mappings' choice reads (job_order.h batch_costs).
entropy::cuda::BatchCosts costs_of(const Batch& b) {
  const std::vector<entropy::cuda::WarpKey> keys = entropy::cuda::warp_keys(b.jobs, b.segs);
  return entropy::cuda::batch_costs(keys, entropy::cuda::group_warps(keys));
}

// Every code-block of the tile to encode: its quantized indices in `plane` (the
// tile-components' coefficient planes one after the other, Mallat arrangement), and what the
// CPU encoder made of it.
struct EncJob {
  uint64_t in_offset;
  uint32_t stride, w, h, band, style, mb;
};
struct EncodeBatch {
  std::vector<int32_t> plane;
  std::vector<EncJob> jobs;
  std::vector<const entropy::EncodedBlock*> cpu;  // job k's CPU result (in the tiles below)
  std::vector<codec::TileCoding> tiles;
  uint64_t samples = 0;
};

// Encodes the image (one tile) and gathers its code-blocks with the passes the rate
// allocator kept, segmented as Tier-2 delivers them; with `enc`, also every code-block as an
// encode job.
Batch encode_batch(const Image& image, const EncodeParams& params, EncodeBatch* enc = nullptr) {
  codec::EncodeSetup setup = codec::make_setup(params, image);
  codec::TileCoefficients coeffs = codec::cpu_backend().forward(image, setup, 0, nullptr);
  if (enc) {
    enc->plane.clear();
    for (const auto& d : coeffs.data) enc->plane.insert(enc->plane.end(), d.begin(), d.end());
  }
  std::vector<codec::TileCoding> tiles;
  tiles.push_back(codec::code_tile(coeffs, image, setup, params, 0));
  codec::assemble_codestream(tiles, setup, params, image, nullptr);
  Batch b;
  size_t base = 0;
  for (const auto& tc : tiles[0].components) {
    const transform::Rect& rect = tc.layout.rect;
    const int levels = tc.layout.levels;
    for (size_t r = 0; r < tc.layout.resolutions.size(); ++r) {
      const auto& res = tc.layout.resolutions[r];
      for (size_t bi = 0; bi < res.bands.size(); ++bi) {
        const auto& band = res.bands[bi];
        const auto& bc = tc.bands[r][bi];
        const auto place =
            transform::band_placement(rect, levels, levels == 0 ? 0 : band.level, band.band);
        for (size_t k = 0; k < bc.blocks.size(); ++k) {
          const auto& blk = bc.blocks[k];
          const transform::Rect cb =
              band.code_block(uint32_t(k % band.blocks_x), uint32_t(k / band.blocks_x));
          if (enc && cb.width() > 0 && cb.height() > 0) {
            EncJob e{};
            e.in_offset = base + size_t{place.y_off + cb.y0 - band.rect.y0} * rect.width() +
                          place.x_off + (cb.x0 - band.rect.x0);
            e.stride = rect.width();
            e.w = cb.width();
            e.h = cb.height();
            e.band = uint32_t(band.band);
            e.style = params.cblk_style;
            e.mb = bc.mb;
            enc->jobs.push_back(e);
            enc->cpu.push_back(&blk.enc);
            enc->samples += uint64_t{e.w} * e.h;
          }
          const uint32_t passes = blk.layer_passes.empty() ? 0 : blk.layer_passes.back();
          if (passes == 0) continue;
          Job j{};
          j.out_offset = base + size_t{place.y_off + cb.y0 - band.rect.y0} * rect.width() +
                         place.x_off + (cb.x0 - band.rect.x0);
          j.stride = rect.width();
          j.seg_first = uint32_t(b.segs.size());
          j.w = cb.width();
          j.h = cb.height();
          j.planes = bc.mb - blk.enc.missing_msbs;
          j.band = uint32_t(band.band);
          j.style = params.cblk_style;
          const uint32_t at = uint32_t(b.bytes.size());
          uint32_t start = 0, first = 0;
          for (uint32_t i = 0; i < passes; ++i)
            if (blk.passes()[i].terminated || i + 1 == passes) {
              b.segs.push_back({at + start, blk.passes()[i].end - start, i - first + 1});
              start = blk.passes()[i].end;
              first = i + 1;
            }
          b.bytes.insert(b.bytes.end(), blk.bytes().begin(), blk.bytes().begin() + start);
          j.seg_count = uint32_t(b.segs.size()) - j.seg_first;
          j.cost = uint64_t{passes} * j.w * j.h;
          b.samples += uint64_t{j.w} * j.h;
          b.jobs.push_back(j);
        }
      }
    }
    base += size_t{rect.width()} * rect.height();
  }
  b.out_size = base;
  if (enc) enc->tiles = std::move(tiles);  // keeps the CPU results `cpu` points at
  return b;
}

template <class Fn>
double best_ms(int reps, const Fn& fn) {
  double best = 1e30;
  for (int i = 0; i < reps; ++i) {
    const double t0 = now_ms();
    fn();
    best = std::min(best, now_ms() - t0);
  }
  return best;
}

void cpu_decode(const Batch& b, std::vector<int32_t>& out, bool shared) {
  const entropy::t1::DecodeTables tables = entropy::t1::host_decode_tables();
#pragma omp parallel
  {
    std::vector<uint32_t> state(entropy::t1::kMaxStateWords), values(4 * 4096 + 4096);
    std::vector<entropy::Segment> segs;
#pragma omp for schedule(dynamic, 8)
    for (size_t k = 0; k < b.jobs.size(); ++k) {
      const Job& j = b.jobs[k];
      int32_t* o = out.data() + j.out_offset;
      if (shared) {
        entropy::t1::decode_block_hd<true>(tables, b.bytes.data(), b.segs.data() + j.seg_first,
                                           j.seg_count, j.planes, j.band, uint8_t(j.style), o,
                                           j.stride, j.w, j.h, state.data(), values.data());
      } else {
        segs.clear();
        for (uint32_t s = 0; s < j.seg_count; ++s) {
          const auto& r = b.segs[j.seg_first + s];
          segs.push_back({b.bytes.data() + r.offset, r.length, r.passes});
        }
        entropy::decode_block(segs.data(), segs.size(), j.planes,
                              static_cast<entropy::Band>(j.band), uint8_t(j.style), o, j.stride,
                              j.w, j.h);
      }
    }
  }
}

// entropy::encode_block over every job, OpenMP dynamic; out[k]: job k's result.
void cpu_encode(const EncodeBatch& b, std::vector<entropy::EncodedBlock>& out) {
  out.resize(b.jobs.size());
#pragma omp parallel for schedule(dynamic, 8)
  for (size_t k = 0; k < b.jobs.size(); ++k) {
    const EncJob& j = b.jobs[k];
    entropy::encode_block(b.plane.data() + j.in_offset, j.stride, j.w, j.h,
                          static_cast<entropy::Band>(j.band), uint8_t(j.style), j.mb, out[k]);
  }
}

#if defined(GJ2K_HAVE_CUDA)
using transform::cuda::DeviceBuffer;

double d2d_bandwidth_gbs() {
  const size_t bytes = size_t{1} << 30;
  DeviceBuffer a(bytes), c(bytes);
  GJ2K_CUDA_CHECK(cudaMemset(a.get(), 1, bytes));
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  float best = 1e30f;
  for (int i = 0; i < 5; ++i) {
    cudaEventRecord(e0);
    cudaMemcpy(c.get(), a.get(), bytes, cudaMemcpyDeviceToDevice);
    cudaEventRecord(e1);
    cudaEventSynchronize(e1);
    float ms = 0;
    cudaEventElapsedTime(&ms, e0, e1);
    best = std::min(best, ms);
  }
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  return 2.0 * bytes / (best * 1e-3) / 1e9;  // read + write
}

// Whether the environment variable `var` (a comma list) names `name`; true when unset.
bool env_names(const char* var, const char* name) {
  const char* env = std::getenv(var);
  return !env || std::string(",").append(env).append(",").find(std::string(",") + name + ",") !=
                     std::string::npos;
}

// Whether GJ2K_BENCH_T1_DECODE_ROWS (a comma list of shapes, spread, warps) names the decode
// rows `name` (all when unset).
bool decode_rows(const char* name) {
  return env_names("GJ2K_BENCH_T1_DECODE_ROWS", name);
}

void gpu_rows(const char* name, const Batch& b, const std::vector<int32_t>& want) {
  using entropy::cuda::BlockJob;
  const int sms = transform::gpu_info().multiprocessors;
  // 0: stream order; 1: sorted by cost, descending; 2: arrange_jobs (the default).
  auto to_jobs = [&](int mode, size_t threads = 0) {
    std::vector<BlockJob> jobs;
    for (const Job& j : b.jobs) {
      BlockJob g{};
      g.out_offset = j.out_offset;
      g.stride = j.stride;
      g.seg_first = j.seg_first;
      g.seg_count = uint16_t(j.seg_count);
      g.w = uint16_t(j.w);
      g.h = uint16_t(j.h);
      g.planes = uint8_t(j.planes);
      g.band = uint8_t(j.band);
      g.style = uint8_t(j.style);
      jobs.push_back(g);
    }
    if (mode == 1) {
      std::vector<BlockJob> sorted;
      for (size_t k : by_cost(b)) sorted.push_back(jobs[k]);
      jobs.swap(sorted);
    }
    if (mode == 2) entropy::cuda::arrange_jobs(jobs, b.segs, threads);
    return jobs;
  };
  size_t max_state = 0;
  for (const Job& j : b.jobs) max_state = std::max(max_state, entropy::t1::state_words(j.w, j.h));
  DeviceBuffer d_segs(b.segs.size() * sizeof(b.segs[0])), d_bytes(b.bytes.size() + 1);
  const size_t most_jobs = b.jobs.size() + size_t{2048} * sms;  // room for padding
  DeviceBuffer d_jobs(most_jobs * sizeof(BlockJob)), d_status(most_jobs);
  DeviceBuffer d_out(b.out_size * 4), d_counter(4);
  const double up = best_ms(3, [&] {
    GJ2K_CUDA_CHECK(
        cudaMemcpy(d_bytes.get(), b.bytes.data(), b.bytes.size(), cudaMemcpyHostToDevice));
    GJ2K_CUDA_CHECK(cudaMemcpy(d_segs.get(), b.segs.data(), b.segs.size() * sizeof(b.segs[0]),
                               cudaMemcpyHostToDevice));
  });
  std::vector<int32_t> got(b.out_size);
  const double down = best_ms(3, [&] {
    GJ2K_CUDA_CHECK(cudaMemcpy(got.data(), d_out.get(), b.out_size * 4, cudaMemcpyDeviceToHost));
  });
  std::printf(
      "%s: %zu blocks, %.1f Msamples, %.1f MB of code-block bytes, state %zu words per "
      "thread; copies (pageable): up %.1f ms, down %.1f ms\n",
      name, b.jobs.size(), b.samples / 1e6, b.bytes.size() / 1e6, max_state, up, down);
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  // The best of 3 timed launches after one warm-up, ms; then the rows of the output that differ
  // from the CPU's.
  auto time_launch = [&](const auto& launch) {
    float best = 1e30f;
    for (int rep = 0; rep < 4; ++rep) {
      cudaEventRecord(e0);
      launch();
      cudaEventRecord(e1);
      GJ2K_CUDA_CHECK(cudaEventSynchronize(e1));
      float ms = 0;
      cudaEventElapsedTime(&ms, e0, e1);
      if (rep > 0) best = std::min(best, ms);
    }
    return best;
  };
  auto differing_rows = [&] {
    GJ2K_CUDA_CHECK(cudaMemcpy(got.data(), d_out.get(), b.out_size * 4, cudaMemcpyDeviceToHost));
    size_t diff = 0;
    for (const Job& j : b.jobs)
      for (uint32_t y = 0; y < j.h; ++y)
        diff += std::memcmp(got.data() + j.out_offset + size_t{y} * j.stride,
                            want.data() + j.out_offset + size_t{y} * j.stride, j.w * 4) != 0;
    return diff;
  };
  // One thread-per-block launch of `jobs` with `shape`, timed: prints `label`, the time and
  // whether the output is the CPU's.
  struct Launched {
    float ms;
    size_t words;
    bool identical;
  };
  auto launch_threads = [&](const std::vector<BlockJob>& jobs,
                            const entropy::cuda::LaunchShape& shape) {
    GJ2K_CUDA_CHECK(cudaMemcpy(d_jobs.get(), jobs.data(), jobs.size() * sizeof(BlockJob),
                               cudaMemcpyHostToDevice));
    const size_t words =
        entropy::cuda::decode_threads(uint32_t(jobs.size()), sms, shape) * max_state;
    DeviceBuffer d_ws(words * 4);
    const float best = time_launch([&] {
      entropy::cuda::decode_blocks(
          d_jobs.as<BlockJob>(), uint32_t(jobs.size()), d_segs.as<entropy::t1::SegmentRef>(),
          d_bytes.as<uint8_t>(), d_out.as<int32_t>(), d_status.as<uint8_t>(), d_ws.as<uint32_t>(),
          words, max_state, d_counter.as<uint32_t>(), sms, nullptr, shape);
    });
    return Launched{best, words, differing_rows() == 0};
  };
  auto print_row = [&](const std::string& label, const entropy::cuda::LaunchShape& shape,
                       const Launched& l) {
    std::printf("  gpu %s %4d threads x %2d blocks/SM: %8.2f ms %9.1f Msamples/s  %s, "
                "workspace %.0f MB\n",
                label.c_str(), shape.threads_per_block, shape.blocks_per_sm, l.ms,
                b.samples / (l.ms * 1e3), l.identical ? "identical" : "DIFFERENT",
                l.words * 4 / 1e6);
  };
  const entropy::cuda::LaunchShape shapes[] = {{32, 1, true},   {32, 2, true},   {64, 1, true},
                                               {64, 2, true},   {64, 4, true},   {128, 4, true},
                                               {256, 2, true},  {64, 4, false},  {128, 4, false},
                                               {256, 2, false}, {256, 4, false}, {512, 2, false}};
  for (int mode = 0; mode < 3 && decode_rows("shapes"); ++mode) {
    for (const auto& shape : shapes) {
      if (mode == 2 && shape.dynamic) continue;  // arranged for the fixed mapping
      const std::vector<BlockJob> jobs =
          to_jobs(mode, entropy::cuda::decode_threads(uint32_t(b.jobs.size()), sms, shape));
      char label[32];
      std::snprintf(label, sizeof label, "%-9s %-7s",
                    mode == 0   ? "in order"
                    : mode == 1 ? "sorted"
                                : "arranged",
                    shape.dynamic ? "dynamic" : "fixed");
      print_row(label, shape, launch_threads(jobs, shape));
    }
  }
  // The arranged jobs over more threads than jobs (spread s: about 32 / s jobs a warp, the
  // rest of each warp's lanes padding, as many threads as the SMs hold at most), so that fewer
  // of the heaviest blocks share a warp's issue.
  const entropy::cuda::LaunchShape spread_shapes[] = {
      {128, 4, false}, {128, 6, false}, {128, 8, false}, {256, 4, false}};
  for (int spread : {2, 3, 4}) {
    if (!decode_rows("spread")) break;
    for (const auto& shape : spread_shapes) {
      const std::vector<BlockJob> jobs = to_jobs(
          2, entropy::cuda::decode_threads(uint32_t(b.jobs.size() * spread), sms, shape));
      if (jobs.size() > most_jobs) continue;
      print_row("arranged spread " + std::to_string(spread) + ": " +
                    std::to_string(jobs.size()) + " threads, ",
                shape, launch_threads(jobs, shape));
    }
  }
  // The warp mapping (t1_dec_warp.h): arrange_warps' grouping, per launch shape; and the
  // mapping the decoder picks for this batch (arrange_for_decode with kAuto).
  std::printf("  the decoder's choice for %d SMs: %s\n", sms,
              entropy::cuda::prefer_warps(costs_of(b), sms) ? "warps" : "threads");
  {
    // The decoder's own arrangement (arrange_for_decode, kAuto) and launch, where it takes a
    // thread per block (its warp rows follow).
    std::vector<BlockJob> jobs = to_jobs(0);
    entropy::cuda::WarpSlot slot;
    if (entropy::cuda::arrange_for_decode(jobs, b.segs, sms, entropy::cuda::DecodeMapping::kAuto,
                                          &slot) == entropy::cuda::DecodeMapping::kThreads &&
        jobs.size() <= most_jobs) {
      print_row("decoder's choice: a thread per block, " + std::to_string(jobs.size()) +
                    " threads for " + std::to_string(b.jobs.size()) + " blocks,",
                entropy::cuda::default_decode_shape(),
                launch_threads(jobs, entropy::cuda::default_decode_shape()));
    }
  }
  const entropy::cuda::LaunchShape warp_shapes[] = {{32, 8},  {64, 4},  {128, 2},
                                                    {128, 4}, {256, 2}, {128, 8}};
  for (const auto& shape : warp_shapes) {
    if (!decode_rows("warps")) break;
    std::vector<BlockJob> jobs = to_jobs(0);
    entropy::cuda::WarpSlot slot;
    entropy::cuda::arrange_warps(jobs, b.segs, &slot);
    GJ2K_CUDA_CHECK(cudaMemcpy(d_jobs.get(), jobs.data(), jobs.size() * sizeof(BlockJob),
                               cudaMemcpyHostToDevice));
    const size_t words =
        entropy::cuda::warp_workspace_words(uint32_t(jobs.size()), sms, slot, shape);
    DeviceBuffer d_ws(words * 4);
    const float best = time_launch([&] {
      entropy::cuda::decode_blocks_in_warps(
          d_jobs.as<BlockJob>(), uint32_t(jobs.size()), d_segs.as<entropy::t1::SegmentRef>(),
          d_bytes.as<uint8_t>(), d_out.as<int32_t>(), d_status.as<uint8_t>(), d_ws.as<uint32_t>(),
          words, slot, d_counter.as<uint32_t>(), sms, nullptr, shape);
    });
    const size_t diff = differing_rows();
    std::printf(
        "  gpu warps     lockstep %4d threads x %2d blocks/SM: %8.2f ms %9.1f Msamples/s  %s, "
        "workspace %.0f MB\n",
        shape.threads_per_block, shape.blocks_per_sm, best, b.samples / (best * 1e3),
        diff ? "DIFFERENT" : "identical", words * 4 / 1e6);
  }
  // The critical path of a launch: the most expensive block alone, on one GPU thread and on
  // one CPU thread.
  size_t top = 0;
  for (size_t k = 1; k < b.jobs.size(); ++k)
    if (b.jobs[k].cost > b.jobs[top].cost) top = k;
  const std::vector<BlockJob> all = to_jobs(0);
  DeviceBuffer d_ws1(max_state * 4 * 64);
  // Job k alone on one GPU thread: the best of `reps` launches, ms.
  auto lone_gpu_ms = [&](size_t k, int reps) {
    GJ2K_CUDA_CHECK(cudaMemcpy(d_jobs.get(), &all[k], sizeof(BlockJob), cudaMemcpyHostToDevice));
    float best = 1e30f;
    for (int rep = 0; rep < reps; ++rep) {
      cudaEventRecord(e0);
      entropy::cuda::decode_blocks(
          d_jobs.as<BlockJob>(), 1, d_segs.as<entropy::t1::SegmentRef>(), d_bytes.as<uint8_t>(),
          d_out.as<int32_t>(), d_status.as<uint8_t>(), d_ws1.as<uint32_t>(), max_state * 64,
          max_state, d_counter.as<uint32_t>(), sms, nullptr, {32, 1, true});
      cudaEventRecord(e1);
      GJ2K_CUDA_CHECK(cudaEventSynchronize(e1));
      float ms = 0;
      cudaEventElapsedTime(&ms, e0, e1);
      best = std::min(best, ms);
    }
    return best;
  };
  const float alone = lone_gpu_ms(top, 3);
  std::vector<int32_t> scratch(b.out_size);
  Batch one;
  one.jobs = {b.jobs[top]};
  one.segs = b.segs;
  one.bytes = b.bytes;
  omp_set_num_threads(1);
  const double cpu_alone = best_ms(3, [&] { cpu_decode(one, scratch, false); });
  omp_set_num_threads(omp_get_num_procs());
  std::printf(
      "  the most expensive block (%ux%u, %u passes x samples) alone: GPU thread %.2f ms, "
      "CPU thread %.2f ms\n",
      b.jobs[top].w, b.jobs[top].h, unsigned(b.jobs[top].cost), alone, cpu_alone);
  // GJ2K_BENCH_T1_LONE=s: every s-th block by cost (passes x samples), alone on one GPU thread,
  // a line each: what a lane's chain costs per block (docs/PERFORMANCE.md, "Twenty-fourth run").
  if (const char* sample = std::getenv("GJ2K_BENCH_T1_LONE")) {
    const size_t step = std::max<size_t>(1, std::strtoul(sample, nullptr, 10));
    const std::vector<size_t> order = by_cost(b);
    for (size_t r = 0; r < order.size(); r += step) {
      const size_t k = order[r];
      const float best = lone_gpu_ms(k, 2);
      uint64_t bytes = 0;
      for (uint32_t q = 0; q < b.jobs[k].seg_count; ++q)
        bytes += b.segs[b.jobs[k].seg_first + q].length;
      std::printf("  lone block %zu: %ux%u, band %u, %llu bytes, %llu passes x samples: %.4f ms\n",
                  k, b.jobs[k].w, b.jobs[k].h, b.jobs[k].band, (unsigned long long)bytes,
                  (unsigned long long)b.jobs[k].cost, best);
    }
  }
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
}

// Whether GJ2K_BENCH_T1_MAPPINGS names `name` (all when unset).
bool mapping_on(const char* name) {
  return env_names("GJ2K_BENCH_T1_MAPPINGS", name);
}

// The symbol budgets (MB) of the plane mapping's rows, GJ2K_BENCH_T1_PLANE_BUDGETS_MB.
std::vector<size_t> plane_budgets() {
  const char* env = std::getenv("GJ2K_BENCH_T1_PLANE_BUDGETS_MB");
  std::vector<size_t> out;
  for (const char* p = env ? env : "1024,8192"; *p;) {
    char* end = nullptr;
    const unsigned long v = std::strtoul(p, &end, 10);
    if (end == p) break;
    out.push_back(size_t{v} << 20);
    p = *end == ',' ? end + 1 : end;
  }
  return out;
}

// The encode kernel over every code-block of `b`, per launch shape, in stream order and
// arranged; the output checked against the CPU's (`want`, job order).
void gpu_encode_rows(const char* name, const EncodeBatch& b,
                     const std::vector<entropy::EncodedBlock>& want) {
  using entropy::cuda::EncodeJob;
  const int sms = transform::gpu_info().multiprocessors;
  // Room: each job's budget, and its pass records, at offsets in job order.
  std::vector<EncodeJob> base;
  size_t room = 0, records = 0, max_state = 0;
  for (const EncJob& e : b.jobs) {
    EncodeJob j{};
    j.in_offset = e.in_offset;
    j.stride = e.stride;
    j.w = uint16_t(e.w);
    j.h = uint16_t(e.h);
    j.band = uint8_t(e.band);
    j.style = uint8_t(e.style);
    j.mb = uint8_t(e.mb);
    j.capacity = entropy::t1::encode_budget(j.w, j.h, j.mb);
    j.out_offset = room;
    j.pass_first = uint32_t(records);
    room += j.capacity;
    records += entropy::max_passes(j.mb);
    max_state = std::max(max_state, entropy::t1::state_words(j.w, j.h));
    base.push_back(j);
  }
  size_t coded = 0;
  for (const auto& e : want) coded += e.data.size();
  DeviceBuffer d_plane(b.plane.size() * 4), d_bytes(room + 1);
  DeviceBuffer d_passes(records * sizeof(entropy::CodedPass) + 1);
  const size_t most_jobs = base.size() + size_t{2048} * sms;  // room for padding
  DeviceBuffer d_jobs(most_jobs * sizeof(EncodeJob)), d_status(most_jobs);
  DeviceBuffer d_results(most_jobs * sizeof(entropy::t1::EncodeResult)), d_counter(4);
  const double up = best_ms(3, [&] {
    GJ2K_CUDA_CHECK(
        cudaMemcpy(d_plane.get(), b.plane.data(), b.plane.size() * 4, cudaMemcpyHostToDevice));
  });
  std::vector<uint8_t> bytes(room);
  const double down = best_ms(3, [&] {
    GJ2K_CUDA_CHECK(cudaMemcpy(bytes.data(), d_bytes.get(), room, cudaMemcpyDeviceToHost));
  });
  std::printf(
      "%s encode: %zu blocks, %.1f Msamples, %.1f MB coded in %.1f MB of room, %.1f MB of pass "
      "records, state %zu words per thread; copies (pageable): plane up %.1f ms, room down "
      "%.1f ms\n",
      name, base.size(), b.samples / 1e6, coded / 1e6, room / 1e6,
      records * sizeof(entropy::CodedPass) / 1e6, max_state, up, down);
  // The kernel's output for jobs placed by `placed` against the CPU's: {different, overflowed}.
  auto compare = [&](const std::vector<EncodeJob>& jobs, const std::vector<size_t>& placed) {
    std::vector<entropy::CodedPass> passes(records);
    std::vector<entropy::t1::EncodeResult> results(jobs.size());
    std::vector<uint8_t> status(jobs.size());
    GJ2K_CUDA_CHECK(cudaMemcpy(bytes.data(), d_bytes.get(), room, cudaMemcpyDeviceToHost));
    GJ2K_CUDA_CHECK(cudaMemcpy(passes.data(), d_passes.get(), records * sizeof(entropy::CodedPass),
                               cudaMemcpyDeviceToHost));
    GJ2K_CUDA_CHECK(cudaMemcpy(results.data(), d_results.get(),
                               jobs.size() * sizeof(entropy::t1::EncodeResult),
                               cudaMemcpyDeviceToHost));
    GJ2K_CUDA_CHECK(cudaMemcpy(status.data(), d_status.get(), jobs.size(), cudaMemcpyDeviceToHost));
    size_t diff = 0, overflow = 0;
    for (size_t i = 0; i < jobs.size(); ++i) {
      if (placed[i] == SIZE_MAX) continue;
      if (status[i] == uint8_t(entropy::t1::EncodeStatus::kOverflow)) {
        ++overflow;
        continue;
      }
      const EncodeJob& j = jobs[i];
      const entropy::EncodedBlock& e = want[placed[i]];
      bool same = status[i] == 0 && results[i].bytes == e.data.size() &&
                  results[i].passes == e.passes.size() &&
                  std::memcmp(bytes.data() + j.out_offset, e.data.data(), e.data.size()) == 0;
      for (size_t p = 0; same && p < e.passes.size(); ++p) {
        const entropy::CodedPass& g = passes[j.pass_first + p];
        same = g.end == e.passes[p].end && g.terminated == e.passes[p].terminated &&
               std::memcmp(&g.distortion, &e.passes[p].distortion, sizeof(double)) == 0;
      }
      diff += !same;
    }
    return std::pair<size_t, size_t>(diff, overflow);
  };
  // Before each row: the outputs cleared, so that every row's check sees its own kernel's.
  auto clear = [&] {
    GJ2K_CUDA_CHECK(cudaMemset(d_bytes.get(), 0, room));
    GJ2K_CUDA_CHECK(cudaMemset(d_passes.get(), 0, records * sizeof(entropy::CodedPass)));
    GJ2K_CUDA_CHECK(cudaMemset(d_status.get(), 0xFF, most_jobs));
  };
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  const entropy::cuda::LaunchShape shapes[] = {
      {32, 1, true},  {32, 2, true},  {64, 1, true},   {64, 2, true},   {64, 4, true},
      {128, 4, true}, {64, 4, false}, {128, 4, false}, {256, 2, false}, {256, 4, false}};
  for (int arranged = 0; arranged < 2 && mapping_on("threads"); ++arranged) {
    for (const auto& shape : shapes) {
      if (arranged && shape.dynamic) continue;  // arranged for the fixed mapping
      std::vector<EncodeJob> jobs = base;
      std::vector<size_t> placed(jobs.size());
      for (size_t k = 0; k < placed.size(); ++k) placed[k] = k;
      if (arranged)
        placed = entropy::cuda::arrange_encode_jobs(
            jobs, entropy::cuda::encode_threads(uint32_t(jobs.size()), sms, shape));
      GJ2K_CUDA_CHECK(cudaMemcpy(d_jobs.get(), jobs.data(), jobs.size() * sizeof(EncodeJob),
                                 cudaMemcpyHostToDevice));
      const size_t words =
          entropy::cuda::encode_threads(uint32_t(jobs.size()), sms, shape) * max_state;
      DeviceBuffer d_ws(words * 4);
      clear();
      float best = 1e30f;
      for (int rep = 0; rep < 4; ++rep) {
        cudaEventRecord(e0);
        entropy::cuda::encode_blocks(
            d_jobs.as<EncodeJob>(), uint32_t(jobs.size()), d_plane.as<int32_t>(),
            d_bytes.as<uint8_t>(), d_passes.as<entropy::CodedPass>(),
            d_results.as<entropy::t1::EncodeResult>(), d_status.as<uint8_t>(), d_ws.as<uint32_t>(),
            words, max_state, d_counter.as<uint32_t>(), sms, nullptr, shape);
        cudaEventRecord(e1);
        GJ2K_CUDA_CHECK(cudaEventSynchronize(e1));
        float ms = 0;
        cudaEventElapsedTime(&ms, e0, e1);
        if (rep > 0) best = std::min(best, ms);
      }
      const auto [diff, overflow] = compare(jobs, placed);
      std::printf(
          "  gpu encode %-9s %-7s %4d threads x %2d blocks/SM: %8.2f ms %9.1f Msamples/s  %s, "
          "%zu overflowed, workspace %.0f MB\n",
          arranged ? "arranged" : "in order", shape.dynamic ? "dynamic" : "fixed",
          shape.threads_per_block, shape.blocks_per_sm, best, b.samples / (best * 1e3),
          diff ? "DIFFERENT" : "identical", overflow, words * 4 / 1e6);
    }
  }
  // The plane mapping (plan_planes, encode_blocks_by_planes): a thread per plane models, a
  // thread per block codes; the symbols in chunks of at most `budget` bytes.
  const entropy::cuda::LaunchShape plane_shapes[] = {
      {128, 4, true}, {128, 8, true}, {256, 4, true}, {64, 8, true}};
  for (const size_t budget : plane_budgets()) {
    if (!mapping_on("planes")) break;
    for (const auto& shape : plane_shapes) {
      const entropy::cuda::PlanePlan plan = entropy::cuda::plan_planes(base, budget);
      GJ2K_CUDA_CHECK(cudaMemcpy(d_jobs.get(), base.data(), base.size() * sizeof(EncodeJob),
                                 cudaMemcpyHostToDevice));
      DeviceBuffer d_first(base.size() * 4 + 1), d_at(base.size() * 8 + 1);
      DeviceBuffer d_nbp(base.size() + 1), d_counters(4), d_done(base.size() * 4 + 4);
      DeviceBuffer d_plane_at(base.size() * 32 * 4 + 4);
      DeviceBuffer d_symbols(plan.symbol_bytes + 1);
      DeviceBuffer d_records((plan.most_items + 1) * sizeof(entropy::t1::PlaneRecord));
      const size_t words = entropy::cuda::plane_workspace_words(plan, base, sms, shape);
      DeviceBuffer d_ws(words * 4);
      GJ2K_CUDA_CHECK(
          cudaMemcpy(d_at.get(), plan.symbol_at.data(), base.size() * 8, cudaMemcpyHostToDevice));
      GJ2K_CUDA_CHECK(cudaMemcpy(d_first.get(), plan.first_item.data(), base.size() * 4,
                                 cudaMemcpyHostToDevice));
      const entropy::cuda::PlaneBuffers pb{d_jobs.as<EncodeJob>(),
                                           d_first.as<uint32_t>(),
                                           d_at.as<uint64_t>(),
                                           d_nbp.as<uint8_t>(),
                                           d_done.as<uint32_t>(),
                                           d_plane_at.as<uint32_t>(),
                                           d_symbols.as<uint8_t>(),
                                           d_records.as<entropy::t1::PlaneRecord>(),
                                           d_ws.as<uint32_t>(),
                                           words,
                                           max_state,
                                           d_counters.as<uint32_t>()};
      clear();
      float best = 1e30f;
      for (int rep = 0; rep < 4; ++rep) {
        cudaEventRecord(e0);
        entropy::cuda::encode_blocks_by_planes(
            plan, pb, uint32_t(base.size()), d_plane.as<int32_t>(), d_bytes.as<uint8_t>(),
            d_passes.as<entropy::CodedPass>(), d_results.as<entropy::t1::EncodeResult>(),
            d_status.as<uint8_t>(), sms, nullptr, shape);
        cudaEventRecord(e1);
        GJ2K_CUDA_CHECK(cudaEventSynchronize(e1));
        float ms = 0;
        cudaEventElapsedTime(&ms, e0, e1);
        if (rep > 0) best = std::min(best, ms);
      }
      std::vector<size_t> placed(base.size());
      for (size_t k = 0; k < placed.size(); ++k) placed[k] = k;
      const auto [diff, overflow] = compare(base, placed);
      std::printf(
          "  gpu encode planes   %4zu MB  %4d threads x %2d blocks/SM: %8.2f ms %9.1f Msamples/s  "
          "%s, %zu overflowed, %zu items in %zu chunks, symbols %.0f MB, workspace %.0f MB\n",
          budget >> 20, shape.threads_per_block, shape.blocks_per_sm, best,
          b.samples / (best * 1e3), diff ? "DIFFERENT" : "identical", overflow, size_t{plan.items},
          plan.chunks.size(), plan.symbol_bytes / 1e6, words * 4 / 1e6);
    }
  }
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
}
#endif

}  // namespace

int main(int argc, char** argv) {
  const std::string only = argc > 1 ? argv[1] : "";
  const bool decode = only.empty() || only == "decode", encode = only.empty() || only == "encode";
  const char* size_env = std::getenv("GJ2K_BENCH_T1_SIZE");
  const char* one_env = std::getenv("GJ2K_BENCH_T1_ONE_THREAD");
  const bool one_thread = !one_env || std::string(one_env) != "0";
  uint32_t w = 10240, h = 6400;
  if (size_env) std::sscanf(size_env, "%ux%u", &w, &h);
  const double t0 = now_ms();
  const Image image = photo_mosaic(w, h);
  std::printf(
      "Tier-1 benchmark: %ux%u RGB 8-bit photo mosaic (%.0f ms to build), %d "
      "CPU threads\n",
      w, h, now_ms() - t0, omp_get_max_threads());
#if defined(GJ2K_HAVE_CUDA)
  const transform::GpuInfo gpu = transform::gpu_info();
  if (gpu.available)
    std::printf("GPU: %s, %d SMs; device-to-device copy %.0f GB/s\n", gpu.name.c_str(),
                gpu.multiprocessors, d2d_bandwidth_gbs());
  else
    std::printf("GPU: none (%s)\n", gpu.reason.c_str());
#endif
  for (int mode = 0; mode < 2; ++mode) {
    EncodeParams params;
    params.irreversible = mode == 1;
    if (mode == 1) params.rates = {20.0};
    const char* name = mode == 0 ? "lossless 5/3" : "9/7 rate 20";
    if (!env_names("GJ2K_BENCH_T1_STREAMS", mode == 0 ? "lossless" : "9/7")) continue;
    const double e0 = now_ms();
    EncodeBatch eb;
    const Batch b = encode_batch(image, params, encode ? &eb : nullptr);
    std::printf("\n== %s (encoded in %.0f ms)\n", name, now_ms() - e0);
    if (encode) {
      std::vector<entropy::EncodedBlock> enc;
      const double all = best_ms(3, [&] { cpu_encode(eb, enc); });
      size_t same = 0;
      for (size_t k = 0; k < enc.size(); ++k)
        same += enc[k].data == eb.cpu[k]->data && enc[k].passes.size() == eb.cpu[k]->passes.size();
      std::printf(
          "  cpu encode  %2d threads: %8.2f ms %9.1f Msamples/s  (%zu blocks, %s the encoder's)\n",
          omp_get_max_threads(), all, eb.samples / (all * 1e3), enc.size(),
          same == enc.size() ? "identical to" : "DIFFERENT from");
      if (one_thread) {
        omp_set_num_threads(1);
        std::vector<entropy::EncodedBlock> one_enc;
        const double one = best_ms(1, [&] { cpu_encode(eb, one_enc); });
        omp_set_num_threads(omp_get_num_procs());
        std::printf("  cpu encode   1 thread:  %8.2f ms %9.1f Msamples/s\n", one,
                    eb.samples / (one * 1e3));
      }
#if defined(GJ2K_HAVE_CUDA)
      if (gpu.available) gpu_encode_rows(name, eb, enc);
#endif
    }
    if (!decode) continue;
    const entropy::cuda::BatchCosts c = costs_of(b);
    std::printf("  costs: total %.4g, costliest block %.4g, costliest grouped warp %.4g\n",
                double(c.total), double(c.top_block), double(c.top_warp));
    std::vector<int32_t> want(b.out_size, 0), shared(b.out_size, 0);
    const double cpu = best_ms(3, [&] { cpu_decode(b, want, false); });
    const double hd = best_ms(3, [&] { cpu_decode(b, shared, true); });
    std::printf("  cpu t1_dec  %2d threads: %8.2f ms %9.1f Msamples/s\n", omp_get_max_threads(),
                cpu, b.samples / (cpu * 1e3));
    std::printf("  cpu shared  %2d threads: %8.2f ms %9.1f Msamples/s  %s\n", omp_get_max_threads(),
                hd, b.samples / (hd * 1e3), want == shared ? "identical" : "DIFFERENT");
    if (one_thread) {
      omp_set_num_threads(1);
      const double one = best_ms(1, [&] { cpu_decode(b, shared, false); });
      const double one_hd = best_ms(1, [&] { cpu_decode(b, shared, true); });
      omp_set_num_threads(omp_get_num_procs());
      std::printf("  cpu t1_dec   1 thread:  %8.2f ms %9.1f Msamples/s\n", one,
                  b.samples / (one * 1e3));
      std::printf("  cpu shared   1 thread:  %8.2f ms %9.1f Msamples/s\n", one_hd,
                  b.samples / (one_hd * 1e3));
    }
#if defined(GJ2K_HAVE_CUDA)
    if (gpu.available) gpu_rows(name, b, want);
#endif
  }
  return 0;
}
