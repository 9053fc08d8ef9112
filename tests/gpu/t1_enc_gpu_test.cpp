// The batch Tier-1 encoding kernel (entropy/cuda/t1_enc_cuda.h) against the CPU: random blocks
// of odd sizes, depths, bands and styles at odd origins of one int32 plane (pitch wider than
// the blocks), coded into one byte buffer with guard bytes after each job's room; some jobs with
// too little room (kOverflow), one with Mb too small, one with -2^31, and padding from
// arrange_encode_jobs. The whole byte buffer, every pass record (end, termination, distortion
// bit for bit), result and status must equal the CPU build of the same coder
// (t1::encode_block_hd), and every block coded kOk must equal entropy::encode_block.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "entropy/t1.h"
#include "entropy/t1_enc_block.h"
#include "gpu_test_util.h"

#if defined(GJ2K_HAVE_CUDA)
#include "entropy/cuda/t1_enc_cuda.h"
#endif

namespace gj2k::entropy {
namespace {

#if defined(GJ2K_HAVE_CUDA)
using transform::cuda::DeviceBuffer;

constexpr uint8_t kGuard = 0xA5;
constexpr uint32_t kGuardBytes = 7;

struct Batch {
  std::vector<cuda::EncodeJob> jobs;
  std::vector<int32_t> plane;
  size_t pitch = 0;
  size_t out_bytes = 0;
  uint32_t pass_records = 0;
};

// Blocks side by side in one plane of `pitch` samples, each 1 to 4 columns after the previous
// one's end, rows of blocks separated by 1 or 2 rows of junk. alike: as a band's blocks, one
// height, Mb and context formation (vertically causal or not) for all.
Batch make_batch(uint32_t seed, int count, uint32_t pitch, int max_side, bool alike = false) {
  std::mt19937 rng(seed);
  Batch b;
  b.pitch = pitch;
  struct Placed {
    uint32_t x, y, w, h, nbp;
  };
  std::vector<Placed> placed;
  uint32_t x = 1 + rng() % 3, y = 1, row_h = 0;
  for (int n = 0; n < count; ++n) {
    uint32_t w = 1 + rng() % max_side, h = alike ? max_side : 1 + rng() % max_side;
    while (w * h > 4096) alike ? void(w = w / 2 + 1) : void(h = h / 2 + 1);
    if (x + w + 4 > pitch) {
      x = 1 + rng() % 3;
      y += row_h + 1 + rng() % 2;
      row_h = 0;
    }
    placed.push_back({x, y, w, h, static_cast<uint32_t>(1 + rng() % 20)});
    x += w + 1 + rng() % 4;
    row_h = std::max(row_h, h);
  }
  const size_t rows = y + row_h + 2;
  b.plane.resize(rows * pitch);
  for (size_t i = 0; i < b.plane.size(); ++i)  // junk outside the blocks
    b.plane[i] = static_cast<int32_t>(static_cast<uint32_t>(i) * 2654435761u);
  for (size_t n = 0; n < placed.size(); ++n) {
    const Placed& p = placed[n];
    std::geometric_distribution<int> shift(0.4);
    for (uint32_t yy = 0; yy < p.h; ++yy)
      for (uint32_t xx = 0; xx < p.w; ++xx) {
        const uint32_t m = (rng() & ((1u << p.nbp) - 1)) >> std::min<int>(shift(rng), p.nbp);
        b.plane[(p.y + yy) * pitch + p.x + xx] = (rng() & 1) ? -int32_t(m) : int32_t(m);
      }
    cuda::EncodeJob j{};
    j.in_offset = size_t{p.y} * pitch + p.x;
    j.stride = pitch;
    j.w = static_cast<uint16_t>(p.w);
    j.h = static_cast<uint16_t>(p.h);
    j.band = static_cast<uint8_t>(rng() % 4);
    j.style = static_cast<uint8_t>(rng() % 64);
    j.mb = static_cast<uint8_t>(p.nbp + rng() % 3);
    if (alike) {
      j.style = static_cast<uint8_t>((j.style & ~cblk_style::kVerticalCausal) |
                                     (seed % 2 ? cblk_style::kVerticalCausal : 0));
      j.mb = 22;
    }
    j.capacity = t1::encode_budget(p.w, p.h, j.mb);
    if (n % 17 == 5) j.capacity = 1 + rng() % 40;  // too small for most blocks: kOverflow
    if (n % 53 == 7) j.mb = static_cast<uint8_t>(p.nbp - 1);  // kTooFewPlanes (or kOk if unused)
    if (n % 97 == 11) b.plane[j.in_offset + j.stride * (p.h - 1)] = INT32_MIN;  // kMinValue
    j.out_offset = b.out_bytes;
    b.out_bytes += j.capacity + kGuardBytes;
    j.pass_first = b.pass_records;
    b.pass_records += max_passes(j.mb);
    b.jobs.push_back(j);
  }
  return b;
}

template <class T>
DeviceBuffer upload(const std::vector<T>& v) {
  DeviceBuffer d(std::max<size_t>(1, v.size() * sizeof(T)));
  if (!v.empty())
    GJ2K_CUDA_CHECK(cudaMemcpy(d.get(), v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}
template <class T>
std::vector<T> download(const DeviceBuffer& d, size_t n) {
  std::vector<T> v(n);
  if (n) GJ2K_CUDA_CHECK(cudaMemcpy(v.data(), d.get(), n * sizeof(T), cudaMemcpyDeviceToHost));
  return v;
}

bool same_pass(const CodedPass& a, const CodedPass& b) {
  return a.end == b.end && a.terminated == b.terminated &&
         std::memcmp(&a.distortion, &b.distortion, sizeof(double)) == 0;
}

// How a batch is launched: a thread per block with the jobs in order or arranged
// (arrange_encode_jobs: sorted, spread over warps, padded first), or the plane mapping
// (plan_planes, encode_blocks_by_planes) with symbol chunks of 1 MB, several per batch.
enum class Launch { kInOrder, kArranged, kPlanes };

void check_batch(uint32_t seed, int count, int max_side, const cuda::LaunchShape& shape,
                 Launch launch, bool alike = false) {
  Batch b = make_batch(seed, count, 1500, max_side, alike);
  const int sms = transform::gpu_info().multiprocessors;
  if (launch == Launch::kPlanes) {
    // Jobs the coder refuses (Mb beyond 31) and empty ones (padding) among the rest.
    for (size_t k = 5; k < b.jobs.size(); k += 37) b.jobs[k].mb = 32;
    for (size_t k = 3; k < b.jobs.size(); k += 53)
      b.jobs.insert(b.jobs.begin() + k, cuda::EncodeJob{});
  }
  if (launch == Launch::kArranged) {
    const size_t real = b.jobs.size();
    const auto placed =
        cuda::arrange_encode_jobs(b.jobs, cuda::encode_threads(uint32_t(real), sms, shape));
    size_t seen = 0;
    for (size_t p : placed) seen += p != SIZE_MAX;
    ASSERT_EQ(seen, real);
    ASSERT_EQ(b.jobs.size() % 32, 0u);
  }
  const size_t n = b.jobs.size();
  // CPU: the same coder, reading the plane as the kernel does.
  std::vector<uint8_t> want(b.out_bytes, kGuard);
  std::vector<CodedPass> want_passes(b.pass_records + 1, CodedPass{-1.0, 0xFFFFFFFFu, true});
  std::vector<t1::EncodeResult> want_results(n);
  std::vector<uint8_t> want_status(n);
  std::vector<uint32_t> state(t1::kMaxStateWords);
  const t1::EncodeTables tables = t1::host_encode_tables();
  int statuses[5] = {};
  for (size_t k = 0; k < n; ++k) {
    const cuda::EncodeJob& j = b.jobs[k];
    want_status[k] = static_cast<uint8_t>(t1::encode_block_hd<false>(
        tables, b.plane.data() + j.in_offset, j.stride, j.w, j.h, j.band, j.style, j.mb,
        want.data() + j.out_offset, j.capacity, want_passes.data() + j.pass_first, state.data(),
        nullptr, &want_results[k]));
    ++statuses[want_status[k]];
    if (want_status[k] != uint8_t(t1::EncodeStatus::kOk) || j.w == 0) continue;
    const EncodedBlock e = encode_block(b.plane.data() + j.in_offset, j.stride, j.w, j.h,
                                        static_cast<Band>(j.band), j.style, j.mb);
    const t1::EncodeResult& r = want_results[k];
    ASSERT_EQ(e.missing_msbs, j.mb - r.planes) << "job " << k;
    ASSERT_EQ(e.data.size(), r.bytes) << "job " << k;
    ASSERT_TRUE(std::equal(e.data.begin(), e.data.end(), want.begin() + j.out_offset))
        << "job " << k;
    ASSERT_EQ(e.passes.size(), r.passes) << "job " << k;
    for (uint32_t i = 0; i < r.passes; ++i)
      ASSERT_TRUE(same_pass(e.passes[i], want_passes[j.pass_first + i]))
          << "job " << k << " pass " << i;
  }
  ASSERT_GT(statuses[0], 0);
  // GPU.
  DeviceBuffer d_jobs = upload(b.jobs), d_plane = upload(b.plane);
  DeviceBuffer d_bytes = upload(std::vector<uint8_t>(b.out_bytes, kGuard));
  DeviceBuffer d_passes =
      upload(std::vector<CodedPass>(b.pass_records + 1, CodedPass{-1.0, 0xFFFFFFFFu, true}));
  DeviceBuffer d_results(n * sizeof(t1::EncodeResult)), d_status(n), d_counter(sizeof(uint32_t));
  if (launch == Launch::kPlanes) {
    const cuda::PlanePlan plan = cuda::plan_planes(b.jobs, size_t{1} << 20);
    size_t state_words = 1;
    for (const auto& j : b.jobs) state_words = std::max(state_words, t1::state_words(j.w, j.h));
    DeviceBuffer d_first = upload(plan.first_item), d_at = upload(plan.symbol_at);
    DeviceBuffer d_nbp(n + 1), d_symbols(plan.symbol_bytes + 1), d_counters(4), d_done(4 * n + 4),
        d_plane_at(4 * 32 * n + 4);
    DeviceBuffer d_records((plan.most_items + 1) * sizeof(t1::PlaneRecord));
    const size_t words = cuda::plane_workspace_words(plan, b.jobs, sms, shape);
    DeviceBuffer d_ws(words * sizeof(uint32_t));
    const cuda::PlaneBuffers pb{d_jobs.as<cuda::EncodeJob>(),
                                d_first.as<uint32_t>(),
                                d_at.as<uint64_t>(),
                                d_nbp.as<uint8_t>(),
                                d_done.as<uint32_t>(),
                                d_plane_at.as<uint32_t>(),
                                d_symbols.as<uint8_t>(),
                                d_records.as<t1::PlaneRecord>(),
                                d_ws.as<uint32_t>(),
                                words,
                                state_words,
                                d_counters.as<uint32_t>()};
    cuda::encode_blocks_by_planes(plan, pb, uint32_t(n), d_plane.as<int32_t>(),
                                  d_bytes.as<uint8_t>(), d_passes.as<CodedPass>(),
                                  d_results.as<t1::EncodeResult>(), d_status.as<uint8_t>(), sms,
                                  nullptr, shape);
    GJ2K_CUDA_CHECK(cudaDeviceSynchronize());
    if (plan.chunks.size() < 2 && n > 100) ADD_FAILURE() << "one chunk only: " << n << " jobs";
  } else {
    const size_t threads = cuda::encode_threads(uint32_t(n), sms, shape);
    size_t state_words = 0;
    for (const auto& j : b.jobs) state_words = std::max(state_words, t1::state_words(j.w, j.h));
    DeviceBuffer d_ws(threads * state_words * sizeof(uint32_t) + 4);
    cuda::encode_blocks(d_jobs.as<cuda::EncodeJob>(), uint32_t(n), d_plane.as<int32_t>(),
                        d_bytes.as<uint8_t>(), d_passes.as<CodedPass>(),
                        d_results.as<t1::EncodeResult>(), d_status.as<uint8_t>(),
                        d_ws.as<uint32_t>(), threads * state_words, state_words,
                        d_counter.as<uint32_t>(), sms, nullptr, shape);
  }
  GJ2K_CUDA_CHECK(cudaDeviceSynchronize());
  const auto got = download<uint8_t>(d_bytes, b.out_bytes);
  const auto got_passes = download<CodedPass>(d_passes, b.pass_records + 1);
  const auto got_results = download<t1::EncodeResult>(d_results, n);
  const auto got_status = download<uint8_t>(d_status, n);
  ASSERT_EQ(got_status, want_status) << "seed " << seed;
  for (size_t k = 0; k < n; ++k) {
    ASSERT_EQ(got_results[k].bytes, want_results[k].bytes) << "seed " << seed << " job " << k;
    ASSERT_EQ(got_results[k].passes, want_results[k].passes) << "seed " << seed << " job " << k;
    ASSERT_EQ(got_results[k].planes, want_results[k].planes) << "seed " << seed << " job " << k;
    if (got_status[k] != uint8_t(t1::EncodeStatus::kOk)) continue;
    for (uint32_t i = 0; i < want_results[k].passes; ++i) {
      const size_t at = b.jobs[k].pass_first + i;
      ASSERT_TRUE(same_pass(got_passes[at], want_passes[at]))
          << "seed " << seed << " job " << k << " pass " << i << ": end " << got_passes[at].end
          << " vs " << want_passes[at].end << ", distortion " << got_passes[at].distortion << " vs "
          << want_passes[at].distortion;
    }
  }
  for (size_t i = 0; i < got.size(); ++i)
    ASSERT_EQ(got[i], want[i]) << "seed " << seed << " byte " << i;
  std::printf(
      "[ info     ] seed %u: %zu jobs, %zu bytes of room; ok %d, overflow %d, too few planes %d, "
      "-2^31 %d\n",
      seed, n, b.out_bytes, statuses[0], statuses[1], statuses[2], statuses[3]);
}
#endif

TEST(T1EncGpu, RandomBatchesEqualTheCpu) {
  GJ2K_REQUIRE_GPU();
#if defined(GJ2K_HAVE_CUDA)
  check_batch(81001, 600, 70, {}, Launch::kArranged);
  check_batch(81002, 60, 1024, {64, 2, true}, Launch::kInOrder);
  check_batch(81003, 1, 64, {}, Launch::kInOrder);
  check_batch(81004, 3000, 33, {32, 1, false}, Launch::kInOrder);
  check_batch(81005, 3000, 64, {128, 2, false}, Launch::kArranged);
#endif
}

// The plane mapping: random batches (every style, overflow, too few planes, -2^31) through
// chunks of symbols.
TEST(T1EncGpu, PlaneMappingEqualsTheCpu) {
  GJ2K_REQUIRE_GPU();
#if defined(GJ2K_HAVE_CUDA)
  check_batch(83001, 600, 70, {128, 4, true}, Launch::kPlanes);
  check_batch(83002, 60, 1024, {64, 2, true}, Launch::kPlanes);
  check_batch(83003, 1, 64, {128, 4, true}, Launch::kPlanes);
  check_batch(83004, 3000, 33, {32, 1, true}, Launch::kPlanes);
  check_batch(83005, 2000, 64, {128, 8, true}, Launch::kPlanes, true);
#endif
}

}  // namespace
}  // namespace gj2k::entropy

#if defined(GJ2K_HAVE_CUDA)
namespace gj2k::entropy {
namespace {
// plan_planes (host code, no GPU needed): chunks partition the jobs in order, each within the
// budget unless one job alone exceeds it; a job's items and symbol regions follow the previous
// job's in its chunk.
TEST(T1EncPlanePlan, ChunksPartitionTheJobsWithinTheBudget) {
  std::mt19937 rng(84001);
  std::vector<cuda::EncodeJob> jobs(3000);
  for (auto& j : jobs) {
    j.w = static_cast<uint16_t>(1 + rng() % 64);
    j.h = static_cast<uint16_t>(1 + rng() % 64);
    j.mb = static_cast<uint8_t>(rng() % 33);  // 32: more planes than a block can have
  }
  for (const size_t budget : {size_t{1}, size_t{1} << 16, size_t{1} << 22, size_t{1} << 40}) {
    const cuda::PlanePlan plan = cuda::plan_planes(jobs, budget);
    ASSERT_FALSE(plan.chunks.empty());
    uint32_t job = 0, item = 0;
    size_t most = 0;
    for (const auto& c : plan.chunks) {
      ASSERT_EQ(c.job_begin, job);
      ASSERT_EQ(c.item_begin, item);
      ASSERT_GT(c.job_end, c.job_begin);
      uint64_t at = 0, largest = 0;
      for (uint32_t k = c.job_begin; k < c.job_end; ++k) {
        const uint32_t planes = std::min<uint32_t>(jobs[k].mb, 31);
        ASSERT_EQ(plan.first_item[k], item) << "job " << k;
        ASSERT_EQ(plan.symbol_at[k], at) << "job " << k;
        item += planes;
        const uint64_t need = t1::block_symbol_bound(uint32_t{jobs[k].w} * jobs[k].h, planes);
        at += need;
        largest = std::max(largest, need);
      }
      ASSERT_EQ(c.item_end, item);
      ASSERT_LE(at, plan.symbol_bytes);
      ASSERT_LE(at, std::max<uint64_t>(budget, largest));  // over only by one job alone
      most = std::max<size_t>(most, c.item_end - c.item_begin);
      job = c.job_end;
    }
    EXPECT_EQ(job, jobs.size());
    EXPECT_EQ(item, plan.items);
    EXPECT_EQ(most, plan.most_items);
    if (budget == 1) {
      EXPECT_GT(plan.chunks.size(), jobs.size() / 2);
    }
    if (budget == size_t{1} << 40) {
      EXPECT_EQ(plan.chunks.size(), 1u);
    }
  }
}
}  // namespace
}  // namespace gj2k::entropy
#endif
