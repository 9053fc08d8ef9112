// The host-device Tier-1 decoder (t1_dec_block.h), CPU build: both value layouts, with
// MqDecoder's tables (decode_block_hd) and with MqDecoderQe's as the CUDA kernels run it
// (t1_dec_qe.h, also with the pass's contexts in strided slots), against the spec-literal
// decoder (t1_ref.h) on random blocks of odd sizes, every band and style, decoded through every
// segment end and at passes in between, and on truncated and corrupt segments; the passes
// beyond 3 Nb - 2 that some encoders write, ignored with a status; the statuses.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "entropy/t1.h"
#include "entropy/t1_dec_block.h"
#include "entropy/t1_dec_qe.h"
#include "entropy/t1_ref.h"
#include "gj2k/error.h"
#include "t1_test_blocks.h"

namespace gj2k::entropy {
namespace {

using test::describe;
using test::make_block;

// Decodes in seven ways into an output with a guard band (stride w + 3, a row above and below)
// and checks the guard, the status and the values against `want`: decode_block_hd with
// row-major and stripe-major values, with DecodeTables and with QeDecodeTables, and
// decode_block_qe_hd with the pass's contexts in strided slots (the thread kernel's, stride 3
// here: the slot array's other words must stay untouched), its rows unrolled
// (QeSlotBandTables), as the thread kernel codes them (kThreadKernelRowLoops) and every pass's
// in one loop.
void expect_shared_decode(const std::vector<uint8_t>& bytes,
                          const std::vector<t1::SegmentRef>& segs, uint32_t nb, Band band,
                          uint8_t style, uint32_t w, uint32_t h, const std::vector<int32_t>& want,
                          t1::BlockStatus want_status, const std::string& what) {
  const t1::DecodeTables tables = t1::host_decode_tables();
  const t1::QeDecodeTables qe = t1::host_qe_decode_tables();
  const size_t stride = w + 3;
  uint32_t passes = 0;
  for (const t1::SegmentRef& r : segs) passes += r.passes;
  for (int layout = 0; layout < 7; ++layout) {
    constexpr int32_t kGuard = 0x5A5A5A5A;
    constexpr uint32_t kSlotPattern = 0xC3C3C3C3u;
    std::vector<int32_t> out((h + 2) * stride, kGuard);
    std::vector<uint32_t> state(t1::state_words(w, h) + 1, 0xDEADBEEFu);
    std::vector<uint32_t> values(t1::value_words(w, h) + 1);
    std::vector<uint32_t> slots(3 * kNumContexts, kSlotPattern);
    int32_t* o = out.data() + stride;
    const uint8_t* data = bytes.empty() ? nullptr : bytes.data();
    const uint32_t n = uint32_t(segs.size()), b = uint32_t(band);
    t1::BlockStatus st;
    switch (layout) {
      case 0:
        st = t1::decode_block_hd<false>(tables, data, segs.data(), n, nb, b, style, o, stride, w, h,
                                        state.data(), nullptr);
        break;
      case 1:
        st = t1::decode_block_hd<true>(tables, data, segs.data(), n, nb, b, style, o, stride, w, h,
                                       state.data(), values.data());
        break;
      case 2:
        st = t1::decode_block_hd<false>(qe, data, segs.data(), n, nb, b, style, o, stride, w, h,
                                        state.data(), nullptr);
        break;
      case 3:
        st = t1::decode_block_hd<true>(qe, data, segs.data(), n, nb, b, style, o, stride, w, h,
                                       state.data(), values.data());
        break;
      case 4:
        st = t1::decode_block_qe_hd<false>(qe, t1::SlotContexts{slots.data() + 1, 3}, data,
                                           segs.data(), n, nb, b, style, o, stride, w, h,
                                           state.data(), nullptr);
        break;
      case 5:
        st = t1::decode_block_qe_hd<false, t1::QeSlotLoopTables<t1::kThreadKernelRowLoops>>(
            qe, t1::SlotContexts{slots.data() + 1, 3}, data, segs.data(), n, nb, b, style, o,
            stride, w, h, state.data(), nullptr);
        break;
      default:
        st = t1::decode_block_qe_hd<false, t1::QeSlotLoopTables<7>>(
            qe, t1::SlotContexts{slots.data() + 1, 3}, data, segs.data(), n, nb, b, style, o,
            stride, w, h, state.data(), nullptr);
        break;
    }
    ASSERT_EQ(st, want_status) << what << " layout " << layout;
    ASSERT_EQ(state.back(), 0xDEADBEEFu) << what << ": state written past state_words";
    for (size_t k = 0; k < slots.size(); ++k)
      if (k % 3 != 1) {
        ASSERT_EQ(slots[k], kSlotPattern) << what << ": slot word " << k;
      }
    if (layout >= 4 && passes > 0 &&
        (want_status == t1::BlockStatus::kOk || want_status == t1::BlockStatus::kExtraPasses)) {
      ASSERT_NE(slots[1], kSlotPattern) << what << ": the passes' contexts not in the slots";
    }
    for (uint32_t y = 0; y < h + 2; ++y)
      for (uint32_t x = 0; x < stride; ++x) {
        const int32_t v = out[y * stride + x];
        if (y == 0 || y == h + 1 || x >= w) {
          ASSERT_EQ(v, kGuard) << what << " layout " << layout << ": wrote outside at " << x << ","
                               << y;
        } else {
          ASSERT_EQ(v, want[(y - 1) * w + x])
              << what << " layout " << layout << " sample " << x << "," << y - 1;
        }
      }
  }
}

void check(const std::vector<int32_t>& q, uint32_t w, uint32_t h, Band band, uint8_t style,
           uint32_t mb, const std::string& what) {
  const EncodedBlock enc = encode_block(q.data(), w, w, h, band, style, mb);
  if (enc.passes.empty()) return;
  const uint32_t nb = mb - enc.missing_msbs;
  std::vector<Segment> segs;
  std::vector<t1::SegmentRef> refs;
  uint32_t start = 0, first = 0;
  for (uint32_t i = 0; i < enc.passes.size(); ++i) {
    const bool last = i + 1 == enc.passes.size();
    if (!enc.passes[i].terminated && !last && i % 4 != 3) continue;
    std::vector<Segment> s = segs;
    std::vector<t1::SegmentRef> r = refs;
    s.push_back({enc.data.data() + start, enc.passes[i].end - start, i - first + 1});
    r.push_back({start, enc.passes[i].end - start, i - first + 1});
    std::vector<int32_t> want(q.size());
    decode_block_ref(s.data(), s.size(), nb, band, style, want.data(), w, w, h);
    expect_shared_decode(enc.data, r, nb, band, style, w, h, want, t1::BlockStatus::kOk,
                         what + " through pass " + std::to_string(i));
    if (::testing::Test::HasFatalFailure()) return;
    // The CPU entry point runs the same source with the constexpr tables.
    std::vector<int32_t> cpu(q.size(), 0x5A5A5A5A);
    ASSERT_EQ(decode_block(s.data(), s.size(), nb, band, style, cpu.data(), w, w, h), 0u) << what;
    ASSERT_EQ(cpu, want) << what << " through pass " << i << ", entropy::decode_block";
    if (last) {
      for (size_t k = 0; k < q.size(); ++k) ASSERT_EQ(want[k], 2 * q[k]) << what;
    }
    if (enc.passes[i].terminated) {
      segs.push_back(s.back());
      refs.push_back(r.back());
      start = enc.passes[i].end;
      first = i + 1;
    }
  }
}

TEST(T1DecBlock, RandomBlocksEveryStyleAndBandMatchReference) {
  uint32_t seed = 51000;
  for (int style = 0; style < 64; ++style) {
    for (int band = 0; band < 4; ++band) {
      std::mt19937 rng(++seed);
      const uint32_t w = 1 + rng() % 37, h = 1 + rng() % 37;
      const uint32_t nbp = 1 + rng() % 14;
      const auto q = make_block(rng, size_t{w} * h, nbp, rng() % 2);
      check(q, w, h, static_cast<Band>(band), static_cast<uint8_t>(style), nbp + rng() % 3,
            describe(seed, w, h, band, style, nbp));
      if (HasFatalFailure()) return;
    }
  }
}

TEST(T1DecBlock, LargeThinAndDeepBlocksMatchReference) {
  const std::pair<uint32_t, uint32_t> sizes[] = {{64, 64},  {1024, 4}, {4, 1024}, {1, 1024},
                                                 {1024, 1}, {128, 32}, {32, 128}, {61, 67},
                                                 {1024, 3}, {2, 1021}, {3, 5}};
  uint32_t seed = 52000;
  for (const auto& [w, h] : sizes) {
    std::mt19937 rng(++seed);
    const uint32_t nbp = w * h > 2048 ? 4 + rng() % 9 : 20 + rng() % 11;
    const uint8_t style = static_cast<uint8_t>(rng() % 64);
    const int band = static_cast<int>(rng() % 4);
    const auto q = make_block(rng, size_t{w} * h, nbp, rng() % 2);
    check(q, w, h, static_cast<Band>(band), style, nbp, describe(seed, w, h, band, style, nbp));
    if (HasFatalFailure()) return;
  }
}

// Truncated and corrupt segments (test::damaged_block): every decoder reads 0xFF past a
// segment's end (C.3.4) and decodes what the spec-literal decoder does, with its status.
TEST(T1DecBlock, TruncatedAndCorruptBlocksMatchReference) {
  uint32_t seed = 82000;
  for (int trial = 0; trial < 400; ++trial) {
    std::mt19937 rng(++seed);
    const auto d = test::damaged_block(
        rng, trial, 64, 14,
        [](std::mt19937& r, size_t n, uint32_t nbp) { return make_block(r, n, nbp, r() % 2); });
    if (!d) continue;
    std::vector<int32_t> want(size_t{d->w} * d->h);
    decode_block_ref(d->segs.data(), d->segs.size(), d->nb, d->band, d->style, want.data(), d->w,
                     d->w, d->h);
    std::vector<t1::SegmentRef> refs;
    for (const Segment& sg : d->segs)
      refs.push_back({static_cast<uint32_t>(sg.data - d->enc.data.data()), sg.length, sg.passes});
    // The status as the CPU's entry point reads the damage (passes ignored: kExtraPasses).
    std::vector<int32_t> cpu(want.size());
    const uint32_t ignored = decode_block(d->segs.data(), d->segs.size(), d->nb, d->band, d->style,
                                          cpu.data(), d->w, d->w, d->h);
    ASSERT_EQ(cpu, want);
    expect_shared_decode(d->enc.data, refs, d->nb, d->band, d->style, d->w, d->h, want,
                         ignored ? t1::BlockStatus::kExtraPasses : t1::BlockStatus::kOk,
                         describe(seed, d->w, d->h, int(d->band), d->style, d->nb) + " passes " +
                             std::to_string(d->last + 1));
    if (HasFatalFailure()) return;
  }
}

// A block whose last segment claims more passes than 3 Nb - 2: the passes that fit decode as
// the whole block does, the rest is ignored and reported.
TEST(T1DecBlock, ExtraPassesAreIgnoredWithStatus) {
  std::mt19937 rng(53000);
  const uint32_t w = 29, h = 19, nbp = 7;
  const auto q = make_block(rng, size_t{w} * h, nbp, false);
  const EncodedBlock enc = encode_block(q.data(), w, w, h, Band::kHL, 0, nbp);
  const uint32_t nb = nbp - enc.missing_msbs;
  ASSERT_EQ(enc.passes.size(), max_passes(nb));
  std::vector<int32_t> want(q.size());
  for (size_t k = 0; k < q.size(); ++k) want[k] = 2 * q[k];
  const std::vector<t1::SegmentRef> segs = {
      {0, static_cast<uint32_t>(enc.data.size()), max_passes(nb) + 5}};
  expect_shared_decode(enc.data, segs, nb, Band::kHL, 0, w, h, want, t1::BlockStatus::kExtraPasses,
                       "extra passes");
}

TEST(T1DecBlock, RefusesWhatTheStandardForbids) {
  const t1::DecodeTables tables = t1::host_decode_tables();
  std::vector<uint32_t> state(t1::kMaxStateWords);
  std::vector<int32_t> out(4096);
  const uint8_t byte = 0;
  const t1::SegmentRef one{0, 1, 1};
  EXPECT_EQ(t1::decode_block_hd<false>(tables, &byte, &one, 1, 31, 0, 0, out.data(), 64, 64, 64,
                                       state.data(), nullptr),
            t1::BlockStatus::kTooManyPlanes);
  EXPECT_EQ(t1::decode_block_hd<false>(tables, &byte, &one, 1, 5, 4, 0, out.data(), 64, 64, 64,
                                       state.data(), nullptr),
            t1::BlockStatus::kBadArgument);
  EXPECT_EQ(t1::decode_block_hd<false>(tables, &byte, &one, 1, 5, 0, 0, out.data(), 128, 128, 64,
                                       state.data(), nullptr),
            t1::BlockStatus::kBadArgument);
  const t1::SegmentRef two{0, 1, 2};  // TERMALL: one pass per segment
  EXPECT_EQ(t1::decode_block_hd<false>(tables, &byte, &two, 1, 5, 0, cblk_style::kTermAll,
                                       out.data(), 64, 64, 64, state.data(), nullptr),
            t1::BlockStatus::kSegmentPasses);
  // With MqDecoderQe's tables the checks are the same.
  const t1::QeDecodeTables qe = t1::host_qe_decode_tables();
  EXPECT_EQ(t1::decode_block_hd<false>(qe, &byte, &one, 1, 31, 0, 0, out.data(), 64, 64, 64,
                                       state.data(), nullptr),
            t1::BlockStatus::kTooManyPlanes);
  EXPECT_EQ(t1::decode_block_hd<false>(qe, &byte, &one, 1, 5, 4, 0, out.data(), 64, 64, 64,
                                       state.data(), nullptr),
            t1::BlockStatus::kBadArgument);
  EXPECT_EQ(t1::decode_block_hd<false>(qe, &byte, &two, 1, 5, 0, cblk_style::kTermAll, out.data(),
                                       64, 64, 64, state.data(), nullptr),
            t1::BlockStatus::kSegmentPasses);
}

// A segment that starts at pass 3 Nb - 2 or later is never read, so neither is its pass count
// checked against the style: on the CPU (decode_block returns the passes ignored) as in the
// shared decoder (kExtraPasses).
TEST(T1DecBlock, SegmentsPastTheLastPassAreIgnoredUnchecked) {
  std::mt19937 rng(54000);
  const uint32_t w = 13, h = 11, nbp = 4;
  const auto q = make_block(rng, size_t{w} * h, nbp, true);
  const EncodedBlock enc = encode_block(q.data(), w, w, h, Band::kLH, cblk_style::kTermAll, nbp);
  const uint32_t nb = nbp - enc.missing_msbs;
  ASSERT_EQ(enc.passes.size(), max_passes(nb));
  std::vector<Segment> segs;
  std::vector<t1::SegmentRef> refs;
  uint32_t start = 0;
  for (const CodedPass& p : enc.passes) {  // TERMALL: one segment per pass
    segs.push_back({enc.data.data() + start, p.end - start, 1});
    refs.push_back({start, p.end - start, 1});
    start = p.end;
  }
  segs.push_back({enc.data.data(), 4, 3});  // 3 passes where TERMALL allows 1
  refs.push_back({0, 4, 3});
  std::vector<int32_t> want(q.size());
  for (size_t k = 0; k < q.size(); ++k) want[k] = 2 * q[k];
  expect_shared_decode(enc.data, refs, nb, Band::kLH, cblk_style::kTermAll, w, h, want,
                       t1::BlockStatus::kExtraPasses, "segment past the last pass");
  std::vector<int32_t> out(q.size());
  EXPECT_EQ(decode_block(segs.data(), segs.size(), nb, Band::kLH, cblk_style::kTermAll, out.data(),
                         w, w, h),
            3u);
  EXPECT_EQ(out, want);
  // The same segment where it is read is refused: decode_block throws, the shared decoder
  // reports it and leaves zeros.
  segs[2].passes = 3;
  try {
    decode_block(segs.data(), segs.size(), nb, Band::kLH, cblk_style::kTermAll, out.data(), w, w,
                 h);
    ADD_FAILURE() << "3 passes in a TERMALL segment decoded";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kFormat);
  }
  refs[2].passes = 3;
  const std::vector<int32_t> zeros(q.size(), 0);
  expect_shared_decode(enc.data, refs, nb, Band::kLH, cblk_style::kTermAll, w, h, zeros,
                       t1::BlockStatus::kSegmentPasses, "segment with too many passes");
}

TEST(T1DecBlock, SegmentWithBytesButNoData) {
  // No bytes: the MQ decoder reads 0xFF (C.3.4), as the reference does.
  std::vector<int32_t> out(16, 7), want(16);
  const Segment empty{nullptr, 0, 1};
  EXPECT_EQ(decode_block(&empty, 1, 3, Band::kLL, 0, out.data(), 4, 4, 4), 0u);
  decode_block_ref(&empty, 1, 3, Band::kLL, 0, want.data(), 4, 4, 4);
  EXPECT_EQ(out, want);
  const Segment missing{nullptr, 5, 1};
  try {
    decode_block(&missing, 1, 3, Band::kLL, 0, out.data(), 4, 4, 4);
    ADD_FAILURE() << "a segment of 5 bytes at nullptr decoded";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
  }
}

TEST(T1DecBlock, MaxStateWordsBoundsEveryAllowedSize) {
  size_t most = 0;
  for (uint32_t w = 1; w <= kMaxBlockSide; ++w)
    for (uint32_t h = 1; h <= kMaxBlockSide && w * h <= kMaxBlockArea; ++h)
      most = std::max(most, t1::state_words(w, h));
  EXPECT_EQ(most, t1::kMaxStateWords);
  size_t most_values = 0;
  for (uint32_t w = 1; w <= kMaxBlockSide; ++w)
    for (uint32_t h = 1; h <= kMaxBlockSide && w * h <= kMaxBlockArea; ++h)
      most_values = std::max(most_values, t1::value_words(w, h));
  EXPECT_EQ(most_values, t1::kMaxValueWords);
  EXPECT_EQ(t1::state_words(819, 5), t1::kMaxStateWords);
  // The workspace the GPU needs for ordinary 64 x 64 blocks is far smaller.
  EXPECT_EQ(t1::state_words(64, 64), 1188u);
}

}  // namespace
}  // namespace gj2k::entropy
