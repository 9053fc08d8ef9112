// The batch Tier-1 decoding kernel (entropy/cuda/t1_dec_cuda.h) against the CPU build of the
// same decoder (t1_dec_block.h, itself tested against t1_ref): random blocks of odd sizes in
// every band and style, complete and truncated after random passes, decoded into one output
// plane with guard columns between blocks and guard rows around; values, statuses and guards
// must be identical.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <random>
#include <vector>

#include "entropy/t1.h"
#include "entropy/t1_dec_block.h"
#include "gpu_test_util.h"

#if defined(GJ2K_HAVE_CUDA)
#include "entropy/cuda/t1_dec_cuda.h"
#endif

namespace gj2k::entropy {
namespace {

#if defined(GJ2K_HAVE_CUDA)
using transform::cuda::DeviceBuffer;

struct Batch {
  std::vector<cuda::BlockJob> jobs;
  std::vector<t1::SegmentRef> segs;
  std::vector<uint8_t> bytes;
  size_t out_size = 0;
};

// Blocks side by side in one plane of `pitch` values: each block starts 3 columns after the
// previous one's end, rows of blocks separated by one guard row.
Batch make_batch(uint32_t seed, int count, uint32_t pitch, int max_side) {
  std::mt19937 rng(seed);
  Batch b;
  uint32_t x = 0, y = 1, row_h = 0;
  for (int n = 0; n < count; ++n) {
    uint32_t w = 1 + rng() % max_side, h = 1 + rng() % max_side;
    while (w * h > 4096) h = h / 2 + 1;
    const uint32_t nbp = 1 + rng() % 16;
    const uint8_t style = static_cast<uint8_t>(rng() % 64);
    const auto band = static_cast<Band>(rng() % 4);
    std::vector<int32_t> q(size_t{w} * h);
    std::geometric_distribution<int> shift(0.4);
    for (auto& v : q) {
      const uint32_t m = (rng() & ((1u << nbp) - 1)) >> std::min<int>(shift(rng), nbp);
      v = (rng() & 1) ? -int32_t(m) : int32_t(m);
    }
    const EncodedBlock enc = encode_block(q.data(), w, w, h, band, style, nbp);
    if (x + w + 3 > pitch) {
      x = 0;
      y += row_h + 1;
      row_h = 0;
    }
    cuda::BlockJob j{};
    j.out_offset = size_t{y} * pitch + x;
    j.stride = pitch;
    j.seg_first = static_cast<uint32_t>(b.segs.size());
    j.w = static_cast<uint16_t>(w);
    j.h = static_cast<uint16_t>(h);
    j.planes = static_cast<uint8_t>(nbp - enc.missing_msbs);
    j.band = static_cast<uint8_t>(band);
    j.style = style;
    // All passes, or the first k of them (truncated at a random pass), as Tier-2 would split
    // them into segments at terminated passes; sometimes passes beyond 3 Nb - 2 are claimed.
    const uint32_t total = static_cast<uint32_t>(enc.passes.size());
    const uint32_t keep = total == 0 || rng() % 3 ? total : 1 + rng() % total;
    const uint32_t base = static_cast<uint32_t>(b.bytes.size());
    uint32_t start = 0, first = 0;
    for (uint32_t i = 0; i < keep; ++i)
      if (enc.passes[i].terminated || i + 1 == keep) {
        b.segs.push_back({base + start, enc.passes[i].end - start, i - first + 1});
        start = enc.passes[i].end;
        first = i + 1;
      }
    if (keep == total && total > 0 && !(style & (cblk_style::kTermAll | cblk_style::kBypass)) &&
        rng() % 8 == 0)
      b.segs.back().passes += 3;  // extra passes: kExtraPasses, the rest decodes
    b.bytes.insert(b.bytes.end(), enc.data.begin(), enc.data.end());
    j.seg_count = static_cast<uint16_t>(b.segs.size() - j.seg_first);
    b.jobs.push_back(j);
    x += w + 3;
    row_h = std::max(row_h, h);
  }
  b.out_size = size_t{y + row_h + 1} * pitch;
  return b;
}

template <class T>
DeviceBuffer upload(const std::vector<T>& v) {
  DeviceBuffer d(std::max<size_t>(1, v.size() * sizeof(T)));
  if (!v.empty())
    GJ2K_CUDA_CHECK(cudaMemcpy(d.get(), v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}

// arrange: the jobs go through arrange_jobs (sorted, spread over warps, padded) first.
// warps: the warp mapping (arrange_warps, decode_blocks_in_warps) instead.
void check_batch(uint32_t seed, int count, int max_side, const cuda::LaunchShape& shape,
                 bool arrange, bool warps = false) {
  Batch b = make_batch(seed, count, 2048, max_side);
  const int sms = transform::gpu_info().multiprocessors;
  cuda::WarpSlot slot;
  if (warps) {
    const size_t real = b.jobs.size();
    const auto placed = cuda::arrange_warps(b.jobs, b.segs, &slot);
    size_t seen = 0;
    for (size_t i = 0; i < placed.size(); ++i) seen += placed[i] != SIZE_MAX;
    ASSERT_EQ(seen, real);
    ASSERT_EQ(b.jobs.size() % 32, 0u);
    if (max_side > 512) {
      // The largest single block's needs only: warps of mixed shapes then exceed the slot
      // and decode a block per lane.
      slot = {};
      for (const cuda::BlockJob& j : b.jobs) {
        slot.state_words = std::max(slot.state_words, t1::state_words(j.w, j.h));
        slot.value_words = std::max(slot.value_words, t1::value_words(j.w, j.h));
      }
    }
  } else if (arrange) {
    const size_t real = b.jobs.size();
    const auto placed =
        cuda::arrange_jobs(b.jobs, b.segs, cuda::decode_threads(uint32_t(real), sms, shape));
    size_t seen = 0;
    for (size_t i = 0; i < placed.size(); ++i) seen += placed[i] != SIZE_MAX;
    ASSERT_EQ(seen, real);
    ASSERT_EQ(b.jobs.size() % 32, 0u);
  }
  constexpr int32_t kGuard = 0x5A5A5A5A;
  // CPU: the same decoder, stripe-major values.
  std::vector<int32_t> want(b.out_size, kGuard);
  std::vector<uint8_t> want_status(b.jobs.size());
  std::vector<uint32_t> state(t1::kMaxStateWords), values(4 * 4096 + 4 * 1024);
  const t1::DecodeTables tables = t1::host_decode_tables();
  for (size_t k = 0; k < b.jobs.size(); ++k) {
    const cuda::BlockJob& j = b.jobs[k];
    want_status[k] = static_cast<uint8_t>(t1::decode_block_hd<true>(
        tables, b.bytes.data(), b.segs.data() + j.seg_first, j.seg_count, j.planes, j.band, j.style,
        want.data() + j.out_offset, j.stride, j.w, j.h, state.data(), values.data()));
  }
  // GPU.
  DeviceBuffer d_jobs = upload(b.jobs), d_segs = upload(b.segs), d_bytes = upload(b.bytes);
  DeviceBuffer d_out = upload(std::vector<int32_t>(b.out_size, kGuard));
  DeviceBuffer d_status(b.jobs.size()), d_counter(sizeof(uint32_t));
  const size_t words =
      warps ? cuda::warp_workspace_words(uint32_t(b.jobs.size()), sms, slot, shape)
            : cuda::decode_threads(uint32_t(b.jobs.size()), sms, shape) * t1::kMaxStateWords;
  DeviceBuffer d_ws(std::max<size_t>(words, 1) * sizeof(uint32_t));
  if (warps)
    cuda::decode_blocks_in_warps(d_jobs.as<cuda::BlockJob>(), uint32_t(b.jobs.size()),
                                 d_segs.as<t1::SegmentRef>(), d_bytes.as<uint8_t>(),
                                 d_out.as<int32_t>(), d_status.as<uint8_t>(), d_ws.as<uint32_t>(),
                                 words, slot, d_counter.as<uint32_t>(), sms, nullptr, shape);
  else
    cuda::decode_blocks(d_jobs.as<cuda::BlockJob>(), uint32_t(b.jobs.size()),
                        d_segs.as<t1::SegmentRef>(), d_bytes.as<uint8_t>(), d_out.as<int32_t>(),
                        d_status.as<uint8_t>(), d_ws.as<uint32_t>(), words, t1::kMaxStateWords,
                        d_counter.as<uint32_t>(), sms, nullptr, shape);
  GJ2K_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<int32_t> got(b.out_size);
  std::vector<uint8_t> got_status(b.jobs.size());
  GJ2K_CUDA_CHECK(cudaMemcpy(got.data(), d_out.get(), got.size() * 4, cudaMemcpyDeviceToHost));
  GJ2K_CUDA_CHECK(
      cudaMemcpy(got_status.data(), d_status.get(), got_status.size(), cudaMemcpyDeviceToHost));
  ASSERT_EQ(got_status, want_status) << "seed " << seed;
  int extra = 0;
  for (uint8_t s : want_status) extra += s == uint8_t(t1::BlockStatus::kExtraPasses);
  for (size_t i = 0; i < got.size(); ++i)
    ASSERT_EQ(got[i], want[i]) << "seed " << seed << " value " << i << " (row " << i / 2048
                               << ", column " << i % 2048 << ")";
  std::printf("[ info     ] seed %u: %zu blocks, %zu segments, %zu bytes, %d with extra passes\n",
              seed, b.jobs.size(), b.segs.size(), b.bytes.size(), extra);
}
#endif

TEST(T1DecGpu, RandomBatchesEqualTheCpuBuild) {
  GJ2K_REQUIRE_GPU();
#if defined(GJ2K_HAVE_CUDA)
  check_batch(61001, 600, 70, {}, true);
  check_batch(61002, 200, 1024, {64, 2, true}, false);
  check_batch(61003, 1, 64, {}, false);
  check_batch(61004, 3000, 33, {32, 1, false}, false);
  check_batch(61005, 5000, 64, {128, 2, false}, true);
#endif
}

// The thread kernel's other builds of the same decoder (GJ2K_GPU_T1_ROWS: every pass's rows
// unrolled, every pass's in one loop; measurement switches, read at each launch).
TEST(T1DecGpu, ThreadKernelRowBuildsEqualTheCpuBuild) {
  GJ2K_REQUIRE_GPU();
#if defined(GJ2K_HAVE_CUDA)
  struct Unset {
    ~Unset() { unsetenv("GJ2K_GPU_T1_ROWS"); }
  } unset;
  for (const char* rows : {"unrolled", "loops"}) {
    SCOPED_TRACE(rows);
    setenv("GJ2K_GPU_T1_ROWS", rows, 1);
    check_batch(61011, 600, 70, {}, true);
    check_batch(61012, 3000, 33, {32, 1, false}, false);
  }
#endif
}

// The warp mapping: blocks of mixed sizes, styles (both context formations) and truncations,
// a warp too large for its slot (a block per lane), one block, many small ones.
TEST(T1DecGpu, WarpMappingEqualsTheCpuBuild) {
  GJ2K_REQUIRE_GPU();
#if defined(GJ2K_HAVE_CUDA)
  check_batch(62001, 600, 70, {}, false, true);
  check_batch(62002, 200, 1024, {64, 2}, false, true);
  check_batch(62003, 1, 64, {}, false, true);
  check_batch(62004, 3000, 33, {32, 1}, false, true);
  check_batch(62005, 5000, 64, {128, 4}, false, true);
#endif
}

// place_blocks (host-decoded blocks into the device's planes) against place_blocks_ref: blocks
// of odd sizes at odd places of a plane of odd pitch, around a guard value, one block, none.
TEST(T1DecGpu, PlaceBlocksEqualsItsReference) {
  GJ2K_REQUIRE_GPU();
#if defined(GJ2K_HAVE_CUDA)
  std::mt19937 rng(63001);
  constexpr int32_t kGuard = 0x5A5A5A5A;
  for (const uint32_t count : {0u, 1u, 7u, 300u}) {
    const uint32_t pitch = 1237, rows = 911;
    std::vector<cuda::PlaceJob> jobs;
    uint64_t at = 0;
    // Disjoint blocks: one per cell of a 37 x 29 grid, at an odd place within the cell.
    for (uint32_t k = 0; k < count; ++k) {
      const uint32_t cell_x = (k % 33) * 37, cell_y = (k / 33) * 29;
      const uint16_t w = static_cast<uint16_t>(1 + rng() % 33);
      const uint16_t h = static_cast<uint16_t>(1 + rng() % 25);
      const uint32_t x = cell_x + rng() % (37 - w + 1), y = cell_y + rng() % (29 - h + 1);
      jobs.push_back({uint64_t{y} * pitch + x, at, pitch, w, h});
      at += uint64_t{w} * h;
    }
    std::vector<int32_t> src(std::max<uint64_t>(at, 1));
    for (int32_t& v : src) v = static_cast<int32_t>(rng());
    std::vector<int32_t> want(size_t{pitch} * rows, kGuard);
    place_blocks_ref(jobs.data(), count, src.data(), want.data());
    DeviceBuffer d_jobs = upload(jobs), d_src = upload(src),
                 d_out = upload(std::vector<int32_t>(want.size(), kGuard));
    cuda::place_blocks(jobs.empty() ? nullptr : d_jobs.as<cuda::PlaceJob>(), count,
                       d_src.as<int32_t>(), d_out.as<int32_t>(), nullptr);
    std::vector<int32_t> got(want.size());
    GJ2K_CUDA_CHECK(cudaMemcpy(got.data(), d_out.get(), got.size() * 4, cudaMemcpyDeviceToHost));
    EXPECT_EQ(got, want) << count << " blocks";
  }
#endif
}

}  // namespace
}  // namespace gj2k::entropy
