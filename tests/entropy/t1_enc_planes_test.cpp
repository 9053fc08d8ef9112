// The Tier-1 encoder in two halves (entropy/t1_enc_planes.h), CPU build: every plane of a block
// modelled on its own from the magnitudes (model_plane), then the recorded decisions coded
// plane after plane (code_symbols), against the one block coder (encode_block_hd, itself tested
// against entropy::encode_block and t1_ref): the same bytes, pass ends, terminations and
// distortions bit for bit, on random blocks of odd sizes and depths in every band and style.
// Each plane's symbols must stay within plane_symbol_bound (a guard after it), and too little
// room for the bytes must give kOverflow.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "entropy/t1.h"
#include "entropy/t1_enc_block.h"
#include "entropy/t1_enc_planes.h"
#include "t1_test_blocks.h"

namespace gj2k::entropy {
namespace {

using test::describe;
using test::make_block;

void check(const std::vector<int32_t>& samples, uint32_t w, uint32_t h, uint32_t band,
           uint8_t style, uint32_t mb, const std::string& what) {
  const t1::EncodeTables tables = t1::host_encode_tables();
  const uint32_t capacity = t1::encode_budget(w, h, mb);
  // The block inside a wider plane (row pitch w + 3, junk around), as a band holds it.
  const size_t stride = size_t{w} + 3;
  std::vector<int32_t> plane(stride * h + 3, INT32_MIN);
  for (uint32_t y = 0; y < h; ++y)
    std::copy_n(samples.data() + size_t{y} * w, w, plane.data() + 1 + y * stride);
  const int32_t* q = plane.data() + 1;
  // The one block coder.
  std::vector<uint8_t> want(capacity + 1);
  std::vector<CodedPass> want_passes(t1::kMaxPasses);
  std::vector<uint32_t> state(t1::state_words(w, h));
  t1::EncodeResult want_result;
  const t1::EncodeStatus want_status =
      t1::encode_block_hd<false>(tables, q, stride, w, h, band, style, mb, want.data(), capacity,
                                 want_passes.data(), state.data(), nullptr, &want_result);
  ASSERT_EQ(want_status, t1::EncodeStatus::kOk) << what;
  const uint32_t nbp = want_result.planes;
  if (nbp == 0) return;
  // Every plane on its own, each in room for its bound (a guard after it): plane p's bound
  // counts the samples whose magnitude needs p + 1 bits.
  std::vector<uint32_t> fresh(33, 0);
  for (uint32_t y = 0; y < h; ++y)
    for (uint32_t x = 0; x < w; ++x) {
      const int32_t v = q[size_t{y} * stride + x];
      ++fresh[t1::bit_width(v < 0 ? 0u - static_cast<uint32_t>(v) : static_cast<uint32_t>(v))];
    }
  constexpr uint8_t kGuard = 0x5C;
  std::vector<std::vector<uint8_t>> symbols(nbp);
  std::vector<t1::PlaneRecord> records(nbp);
  const t1::EncBandTables bt{tables.zc + 512 * band, tables.sc, tables.mq};
  const bool vc = (style & cblk_style::kVerticalCausal) != 0;
  uint64_t below = 0;
  for (uint32_t p = 0; p < nbp; ++p) {
    const uint32_t bound = t1::plane_symbol_bound(w * h, fresh[p + 1]);
    below += fresh[p + 1];
    // Room for any plane (2 decisions a sample, 2 more a run-length column), so that a plane
    // past its bound shows as written guard bytes.
    symbols[p].assign(std::max<size_t>(bound, 2 * w * h + 2 * w * (h / 4)) + 16, kGuard);
    std::fill(state.begin(), state.end(), 0xDEADBEEFu);
    records[p] = vc ? t1::model_plane<true>(bt, q, stride, w, h, style, nbp, p, state.data(),
                                            symbols[p].data())
                    : t1::model_plane<false>(bt, q, stride, w, h, style, nbp, p, state.data(),
                                             symbols[p].data());
    const t1::PlaneRecord& r = records[p];
    ASSERT_LE(uint64_t{r.count[0]} + r.count[1] + r.count[2], bound) << what << ", plane " << p;
    for (size_t i = bound; i < symbols[p].size(); ++i)
      ASSERT_EQ(symbols[p][i], kGuard) << what << ", plane " << p << ": past the bound";
  }
  ASSERT_LE(uint64_t{nbp} * (w * h + 8) + 3 * below, t1::block_symbol_bound(w * h, nbp));
  std::vector<uint8_t> got(capacity + 1);
  std::vector<CodedPass> got_passes(t1::kMaxPasses);
  uint32_t bytes = 0;
  const t1::EncodeStatus status = t1::code_symbols(
      tables.mq, [&](uint32_t p) { return symbols[p].data(); },
      [&](uint32_t p) -> const t1::PlaneRecord& { return records[p]; }, style, nbp, got.data(),
      capacity, got_passes.data(), &bytes);
  ASSERT_EQ(status, t1::EncodeStatus::kOk) << what;
  ASSERT_EQ(bytes, want_result.bytes) << what;
  ASSERT_EQ(0, std::memcmp(got.data(), want.data(), bytes)) << what;
  for (uint32_t i = 0; i < want_result.passes; ++i) {
    ASSERT_EQ(got_passes[i].end, want_passes[i].end) << what << ", pass " << i;
    ASSERT_EQ(got_passes[i].terminated, want_passes[i].terminated) << what << ", pass " << i;
    ASSERT_EQ(0, std::memcmp(&got_passes[i].distortion, &want_passes[i].distortion, sizeof(double)))
        << what << ", pass " << i;
  }
  // Too little room: the overflow the one coder reports.
  if (bytes > 8) {
    uint32_t small = 0;
    const t1::EncodeStatus over = t1::code_symbols(
        tables.mq, [&](uint32_t p) { return symbols[p].data(); },
        [&](uint32_t p) -> const t1::PlaneRecord& { return records[p]; }, style, nbp, got.data(),
        bytes / 2, got_passes.data(), &small);
    EXPECT_EQ(over, t1::EncodeStatus::kOverflow) << what;
  }
}

TEST(T1EncPlanes, EveryStyleAndBandMatchesTheBlockCoder) {
  uint32_t seed = 91000;
  for (int style = 0; style < 64; ++style) {
    for (uint32_t band = 0; band < 4; ++band) {
      std::mt19937 rng(++seed);
      const uint32_t w = 1 + rng() % 37, h = 1 + rng() % 37;
      const uint32_t nbp = 1 + rng() % 16;
      const auto q = make_block(rng, size_t{w} * h, nbp, rng() % 2);
      check(q, w, h, band, static_cast<uint8_t>(style), nbp + rng() % 3,
            describe(seed, w, h, int(band), style, nbp));
      if (HasFatalFailure()) return;
    }
  }
}

TEST(T1EncPlanes, OddSizesAndDepthsMatch) {
  const std::pair<uint32_t, uint32_t> sizes[] = {{1, 1},    {3, 5},    {17, 9},   {64, 64},
                                                 {4, 1024}, {1024, 4}, {32, 128}, {1, 1024},
                                                 {1024, 1}, {2, 1021}, {61, 67}};
  const uint8_t styles[] = {0x00, 0x01, 0x05, 0x13, 0x08, 0x2A, 0x3F, 0x1D, 0x36, 0x21};
  uint32_t seed = 92000;
  for (const auto& [w, h] : sizes) {
    for (const uint8_t style : styles) {
      std::mt19937 rng(++seed);
      const uint32_t nbp = 1 + rng() % (w * h >= 4096 ? 12 : 30);
      const uint32_t band = rng() % 4;
      const auto q = make_block(rng, size_t{w} * h, nbp, rng() % 2);
      check(q, w, h, band, style, nbp, describe(seed, w, h, int(band), style, nbp));
      if (HasFatalFailure()) return;
    }
  }
}

TEST(T1EncPlanes, DeepPlanesMatch) {
  uint32_t seed = 93000;
  for (const uint32_t nbp : {29u, 30u, 31u}) {
    for (const uint8_t style : {uint8_t{0}, uint8_t{0x3F}, uint8_t{0x08}}) {
      std::mt19937 rng(++seed);
      const uint32_t w = 13, h = 9;
      auto q = make_block(rng, size_t{w} * h, nbp, true);
      q[5] = nbp == 31 ? INT32_MAX : -((1 << (nbp - 1)) | 1);  // the top plane used
      check(q, w, h, 3, style, nbp, describe(seed, w, h, 3, style, nbp));
      if (HasFatalFailure()) return;
    }
  }
}

// The symbol bound under stress: columns of samples with every bit set between all-zero
// columns, a block that meets the bound exactly, and dense random blocks; every plane within
// its bound.
TEST(T1EncPlanes, DenseBlocksStayWithinTheSymbolBound) {
  std::mt19937 rng(94001);
  for (const uint32_t w : {64u, 5u, 1u, 2u}) {
    const uint32_t h = std::min<uint32_t>(4096 / w, 1024);
    std::vector<int32_t> q(size_t{w} * h);
    for (uint32_t y = 0; y < h; ++y)
      for (uint32_t x = 0; x < w; ++x) q[size_t{y} * w + x] = x % 2 ? 0 : (y % 2 ? -0xFFF : 0xFFF);
    for (const uint8_t style : {uint8_t{0}, uint8_t{0x01}, uint8_t{0x08}}) {
      check(q, w, h, 0, style, 12, "columns " + std::to_string(w) + "x" + std::to_string(h));
      if (HasFatalFailure()) return;
    }
    // The bound exactly: the first row of each stripe set in every other column, so that each
    // such column's cleanup takes 7 decisions in run-length mode (run-length, 2 UNIFORM, sign,
    // 3 zeros) for 4 samples, one of them becoming significant: 4 + 3 x 1.
    std::vector<int32_t> sparse(size_t{w} * h, 0);
    for (uint32_t y = 0; y < h; y += 4)
      for (uint32_t x = 0; x < w; x += 2) sparse[size_t{y} * w + x] = (x / 2) % 2 ? -0xFFF : 0xFFF;
    check(sparse, w, h, 1, 0, 12, "sparse " + std::to_string(w) + "x" + std::to_string(h));
    if (HasFatalFailure()) return;
    const auto dense = make_block(rng, size_t{w} * h, 12, true);
    check(dense, w, h, 3, 0x01, 12, "dense " + std::to_string(w) + "x" + std::to_string(h));
    if (HasFatalFailure()) return;
  }
}

}  // namespace
}  // namespace gj2k::entropy
