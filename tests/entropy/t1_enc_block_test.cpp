// The host-device Tier-1 encoder (t1_enc_block.h), CPU build: both value layouts (stripe-major
// scratch, as entropy::encode_block runs it; the input plane itself, as the CUDA kernel runs it)
// against entropy::encode_block and the spec-literal coder (t1_ref.h), byte for byte and pass
// for pass (ends, terminations, distortions bit for bit), on random blocks of odd sizes and bit
// depths in every band and style; decoded back by decode_block; the capacity and its overflow
// status; the statuses of what the standard forbids.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "entropy/t1.h"
#include "entropy/t1_enc_block.h"
#include "entropy/t1_ref.h"
#include "gj2k/error.h"
#include "t1_test_blocks.h"

namespace gj2k::entropy {
namespace {

using test::describe;
using test::make_block;

bool same_double(double a, double b) {
  return std::memcmp(&a, &b, sizeof(double)) == 0;
}

// The shared coder's output for one layout, with `capacity` bytes of room (a guard of 0xA5
// bytes after them must stay untouched).
struct HdOutput {
  t1::EncodeStatus status;
  t1::EncodeResult result;
  std::vector<uint8_t> data;
  std::vector<CodedPass> passes;
};
HdOutput encode_hd(bool stripe_values, const int32_t* q, size_t stride, uint32_t w, uint32_t h,
                   Band band, uint8_t style, uint32_t mb, uint32_t capacity,
                   const std::string& what) {
  constexpr uint8_t kGuard = 0xA5;
  HdOutput o;
  std::vector<uint8_t> buf(size_t{capacity} + 64, kGuard);
  std::vector<CodedPass> passes(t1::kMaxPasses + 1);
  std::vector<uint32_t> state(t1::state_words(w, h) + 1, 0xDEADBEEFu);
  std::vector<uint32_t> values(t1::value_words(w, h) + 1, 0xDEADBEEFu);
  const t1::EncodeTables tables = t1::host_encode_tables();
  o.status = stripe_values
                 ? t1::encode_block_hd<true>(tables, q, stride, w, h, uint32_t(band), style, mb,
                                             buf.data(), capacity, passes.data(), state.data(),
                                             values.data(), &o.result)
                 : t1::encode_block_hd<false>(tables, q, stride, w, h, uint32_t(band), style, mb,
                                              buf.data(), capacity, passes.data(), state.data(),
                                              nullptr, &o.result);
  EXPECT_EQ(state.back(), 0xDEADBEEFu) << what << ": state written past state_words";
  EXPECT_EQ(values.back(), 0xDEADBEEFu) << what << ": values written past value_words";
  for (size_t i = capacity; i < buf.size(); ++i)
    if (buf[i] != kGuard) {
      ADD_FAILURE() << what << ": byte " << i << " written past the capacity " << capacity;
      break;
    }
  if (o.status == t1::EncodeStatus::kOk) {
    o.data.assign(buf.begin(), buf.begin() + o.result.bytes);
    o.passes.assign(passes.begin(), passes.begin() + o.result.passes);
  }
  return o;
}

// Both layouts of the shared coder equal encode_block; encode_block equals the reference (data,
// terminations, distortions; the reference puts every pass end at its segment's end) and its
// pass ends decode (decode_block) to what the reference decodes. The block sits in a plane with
// stride w + 5.
void check(const std::vector<int32_t>& block, uint32_t w, uint32_t h, Band band, uint8_t style,
           uint32_t mb, const std::string& what) {
  const size_t stride = size_t{w} + 5;
  std::vector<int32_t> plane(stride * h + 5, 0x7EADBEEF);
  for (uint32_t y = 0; y < h; ++y)
    for (uint32_t x = 0; x < w; ++x) plane[y * stride + x] = block[size_t{y} * w + x];
  const EncodedBlock want = encode_block(plane.data(), stride, w, h, band, style, mb);
  const uint32_t nb = mb - want.missing_msbs;
  // Without distortions: the same bytes and passes, every distortion 0.
  EncodedBlock plain;
  ASSERT_EQ(encode_block_within(plane.data(), stride, w, h, band, style, mb, plain, false), 0u)
      << what;
  ASSERT_EQ(plain.missing_msbs, want.missing_msbs) << what;
  ASSERT_EQ(plain.data, want.data) << what;
  ASSERT_EQ(plain.passes.size(), want.passes.size()) << what;
  for (size_t i = 0; i < want.passes.size(); ++i) {
    ASSERT_EQ(plain.passes[i].end, want.passes[i].end) << what << " pass " << i;
    ASSERT_EQ(plain.passes[i].terminated, want.passes[i].terminated) << what << " pass " << i;
    ASSERT_EQ(plain.passes[i].distortion, 0.0) << what << " pass " << i;
  }
  // Too few planes: their count comes back, not an exception.
  if (nb > 1) {
    EncodedBlock few;
    ASSERT_EQ(encode_block_within(plane.data(), stride, w, h, band, style, nb - 1, few), nb)
        << what;
  }
  for (int layout = 0; layout < 2; ++layout) {
    const std::string where = what + " layout " + std::to_string(layout);
    const HdOutput got = encode_hd(layout == 1, plane.data(), stride, w, h, band, style, mb,
                                   t1::encode_budget(w, h, mb), where);
    ASSERT_EQ(got.status, t1::EncodeStatus::kOk) << where;
    ASSERT_EQ(got.result.planes, nb) << where;
    ASSERT_EQ(got.data, want.data) << where;
    ASSERT_EQ(got.passes.size(), want.passes.size()) << where;
    for (size_t i = 0; i < want.passes.size(); ++i) {
      ASSERT_EQ(got.passes[i].end, want.passes[i].end) << where << " pass " << i;
      ASSERT_EQ(got.passes[i].terminated, want.passes[i].terminated) << where << " pass " << i;
      ASSERT_TRUE(same_double(got.passes[i].distortion, want.passes[i].distortion))
          << where << " pass " << i << ": " << got.passes[i].distortion << " vs "
          << want.passes[i].distortion;
    }
  }
  const EncodedBlock ref = encode_block_ref(block.data(), w, w, h, band, style, mb);
  ASSERT_EQ(ref.missing_msbs, want.missing_msbs) << what;
  ASSERT_EQ(ref.data, want.data) << what;
  ASSERT_EQ(ref.passes.size(), want.passes.size()) << what;
  for (size_t i = 0; i < want.passes.size(); ++i) {
    ASSERT_EQ(ref.passes[i].terminated, want.passes[i].terminated) << what << " pass " << i;
    // The reference sums the squared errors in double: equal to a relative 1e-12.
    ASSERT_NEAR(ref.passes[i].distortion, want.passes[i].distortion,
                1e-12 * (1.0 + want.passes[i].distortion))
        << what << " pass " << i;
    if (want.passes[i].terminated) {
      ASSERT_EQ(ref.passes[i].end, want.passes[i].end) << what;
    }
  }
  if (nb > 30) return;  // decode_block's output has room for 30 planes
  // Round trip: every pass's end decodes as the reference decodes that many passes; all of
  // them give back 2q.
  std::vector<Segment> segs;
  uint32_t start = 0, first = 0;
  for (uint32_t i = 0; i < want.passes.size(); ++i) {
    if (i % 3 != 0 && i + 1 != want.passes.size() && !want.passes[i].terminated) continue;
    std::vector<Segment> s = segs;
    s.push_back({want.data.data() + start, want.passes[i].end - start, i - first + 1});
    std::vector<int32_t> got(block.size()), expect(block.size());
    decode_block(s.data(), s.size(), nb, band, style, got.data(), w, w, h);
    decode_block_ref(s.data(), s.size(), nb, band, style, expect.data(), w, w, h);
    ASSERT_EQ(got, expect) << what << " decoded through pass " << i;
    if (i + 1 == want.passes.size()) {
      for (size_t k = 0; k < block.size(); ++k) ASSERT_EQ(got[k], 2 * block[k]) << what;
    }
    if (want.passes[i].terminated) {
      segs.push_back(s.back());
      start = want.passes[i].end;
      first = i + 1;
    }
  }
}

TEST(T1EncBlock, EveryStyleAndBandMatchesEncodeBlockAndReference) {
  uint32_t seed = 71000;
  for (int style = 0; style < 64; ++style) {
    for (int band = 0; band < 4; ++band) {
      std::mt19937 rng(++seed);
      const uint32_t w = 1 + rng() % 37, h = 1 + rng() % 37;
      const uint32_t nbp = 1 + rng() % 16;
      const auto q = make_block(rng, size_t{w} * h, nbp, rng() % 2);
      check(q, w, h, static_cast<Band>(band), static_cast<uint8_t>(style), nbp + rng() % 3,
            describe(seed, w, h, band, style, nbp));
      if (HasFatalFailure()) return;
    }
  }
}

TEST(T1EncBlock, OddSizesAndDepthsMatch) {
  const std::pair<uint32_t, uint32_t> sizes[] = {{1, 1},    {3, 5},    {17, 9},   {64, 64},
                                                 {4, 1024}, {1024, 4}, {32, 128}, {1, 1024},
                                                 {1024, 1}, {2, 1021}, {61, 67}};
  // Styles that cover every bit and their interactions: bypass with termall, reset, pterm and
  // segmark; vertically causal with each.
  const uint8_t styles[] = {0x00, 0x01, 0x05, 0x13, 0x08, 0x2A, 0x3F, 0x1D, 0x36, 0x21};
  uint32_t seed = 72000;
  for (const auto& [w, h] : sizes) {
    for (const uint8_t style : styles) {
      std::mt19937 rng(++seed);
      const uint32_t nbp = 1 + rng() % (w * h >= 4096 ? 12 : 30);
      const int band = static_cast<int>(rng() % 4);
      const auto q = make_block(rng, size_t{w} * h, nbp, rng() % 2);
      check(q, w, h, static_cast<Band>(band), style, nbp, describe(seed, w, h, band, style, nbp));
      if (HasFatalFailure()) return;
    }
  }
}

TEST(T1EncBlock, DeepPlanesMatch) {
  // 30 and 31 coded bit-planes (31: |q| up to 2^31 - 1, the most encode_block accepts).
  uint32_t seed = 73000;
  for (const uint32_t nbp : {29u, 30u, 31u}) {
    for (const uint8_t style : {uint8_t{0}, uint8_t{0x3F}, uint8_t{0x01}}) {
      std::mt19937 rng(++seed);
      const uint32_t w = 13, h = 9;
      auto q = make_block(rng, size_t{w} * h, nbp, true);
      q[5] = nbp == 31 ? INT32_MAX : -((1 << (nbp - 1)) | 1);  // make the top plane used
      check(q, w, h, Band::kHH, style, nbp, describe(seed, w, h, 3, style, nbp));
      if (HasFatalFailure()) return;
    }
  }
}

TEST(T1EncBlock, ZeroBlockHasNoPasses) {
  const std::vector<int32_t> zeros(64 * 64, 0);
  for (int layout = 0; layout < 2; ++layout) {
    const HdOutput o =
        encode_hd(layout == 1, zeros.data(), 64, 64, 64, Band::kLH, 0x3F, 9, 0, "zero block");
    EXPECT_EQ(o.status, t1::EncodeStatus::kOk);
    EXPECT_EQ(o.result.bytes, 0u);
    EXPECT_EQ(o.result.passes, 0u);
    EXPECT_EQ(o.result.planes, 0u);
  }
  const EncodedBlock e = encode_block(zeros.data(), 64, 64, 64, Band::kLH, 0x3F, 9);
  EXPECT_EQ(e.missing_msbs, 9u);
  EXPECT_TRUE(e.data.empty());
  EXPECT_TRUE(e.passes.empty());
  check(zeros, 64, 64, Band::kLL, 0, 5, "zero block");
}

// Every capacity below the data length overflows and writes nothing past it; the exact length
// suffices. encode_block, which starts at encode_budget, grows until the block fits.
TEST(T1EncBlock, CapacityOverflowIsReported) {
  std::mt19937 rng(74000);
  const uint32_t w = 23, h = 19, nbp = 9;
  const auto q = make_block(rng, size_t{w} * h, nbp, true);
  for (const uint8_t style : {uint8_t{0}, uint8_t{0x04}, uint8_t{0x01}, uint8_t{0x15}}) {
    const EncodedBlock want = encode_block(q.data(), w, w, h, Band::kHL, style, nbp);
    const uint32_t len = static_cast<uint32_t>(want.data.size());
    ASSERT_GT(len, 100u);
    for (int layout = 0; layout < 2; ++layout) {
      for (uint32_t cap : {0u, 1u, len / 3, len / 2, len - 2, len - 1}) {
        const std::string what = "style " + std::to_string(style) + " layout " +
                                 std::to_string(layout) + " capacity " + std::to_string(cap);
        const HdOutput o =
            encode_hd(layout == 1, q.data(), w, w, h, Band::kHL, style, nbp, cap, what);
        EXPECT_EQ(o.status, t1::EncodeStatus::kOverflow) << what;
      }
      const HdOutput o =
          encode_hd(layout == 1, q.data(), w, w, h, Band::kHL, style, nbp, len, "exact capacity");
      ASSERT_EQ(o.status, t1::EncodeStatus::kOk);
      EXPECT_EQ(o.data, want.data);
    }
  }
  // Incompressible data at a budget deliberately too small: encode_block still succeeds (and
  // matches the reference), growing its buffer.
  std::vector<int32_t> noisy(64 * 64);
  for (auto& v : noisy) v = static_cast<int32_t>(rng() % 2047) - 1023;
  const EncodedBlock big = encode_block(noisy.data(), 64, 64, 64, Band::kHH, 0, 10);
  EXPECT_EQ(big.data, encode_block_ref(noisy.data(), 64, 64, 64, Band::kHH, 0, 10).data);
  const HdOutput small = encode_hd(false, noisy.data(), 64, 64, 64, Band::kHH, 0, 10,
                                   static_cast<uint32_t>(big.data.size()) / 2, "half the data");
  EXPECT_EQ(small.status, t1::EncodeStatus::kOverflow);
}

// The default budget holds incompressible data: uniformly random samples of every depth, the
// worst case of real coefficients, in every style.
TEST(T1EncBlock, BudgetHoldsRandomSamples) {
  std::mt19937 rng(75000);
  double worst = 0;
  for (uint32_t nbp = 1; nbp <= 30; ++nbp) {
    for (const uint8_t style :
         {uint8_t{0}, uint8_t{0x01}, uint8_t{0x04}, uint8_t{0x3F}, uint8_t{0x14}, uint8_t{0x22}}) {
      const uint32_t w = nbp % 2 ? 64 : 32, h = nbp % 2 ? 64 : 16;
      std::vector<int32_t> q(size_t{w} * h);
      const uint32_t mask = (1u << nbp) - 1;
      for (auto& v : q) {
        const int32_t m = static_cast<int32_t>(rng() & mask);
        v = rng() & 1 ? -m : m;
      }
      const EncodedBlock e = encode_block(q.data(), w, w, h, Band::kLL, style, nbp);
      const uint32_t budget = t1::encode_budget(w, h, nbp);
      EXPECT_LE(e.data.size(), budget) << "nbp " << nbp << " style " << int(style);
      worst = std::max(worst, double(e.data.size()) / budget);
    }
  }
  std::printf("[ info     ] largest data / budget: %.3f\n", worst);
}

TEST(T1EncBlock, RefusesWhatTheStandardForbids) {
  std::vector<int32_t> q(64 * 64, 3);
  auto status = [&](uint32_t w, uint32_t h, uint32_t band, uint32_t mb) {
    t1::EncodeResult r;
    std::vector<uint8_t> out(1 << 16);
    std::vector<CodedPass> passes(t1::kMaxPasses);
    std::vector<uint32_t> state(t1::kMaxStateWords);
    return t1::encode_block_hd<false>(t1::host_encode_tables(), q.data(), w, w, h, band, 0, mb,
                                      out.data(), uint32_t(out.size()), passes.data(), state.data(),
                                      nullptr, &r);
  };
  EXPECT_EQ(status(64, 64, 0, 32), t1::EncodeStatus::kBadArgument);
  EXPECT_EQ(status(64, 64, 4, 5), t1::EncodeStatus::kBadArgument);
  EXPECT_EQ(status(2048, 2, 0, 5), t1::EncodeStatus::kBadArgument);
  EXPECT_EQ(status(128, 64, 0, 5), t1::EncodeStatus::kBadArgument);
  EXPECT_EQ(status(64, 64, 0, 1), t1::EncodeStatus::kTooFewPlanes);
  EXPECT_EQ(status(64, 64, 0, 2), t1::EncodeStatus::kOk);
  q[77] = INT32_MIN;
  EXPECT_EQ(status(64, 64, 0, 31), t1::EncodeStatus::kMinValue);
  try {
    encode_block(q.data(), 64, 64, 64, Band::kLL, 0, 31);
    ADD_FAILURE() << "-2^31 encoded";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
    EXPECT_NE(std::string(e.what()).find("(13, 1)"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace gj2k::entropy
