// The Tier-1 block decoder with MqDecoderQe (t1_dec_qe.h), as the CUDA kernels run it, CPU
// build: both value layouts against the spec-literal decoder (t1_ref.h) on random blocks of
// every band and style through every segment end, on truncated and corrupt segments, and the
// statuses decode_block_hd reports. (The warp mapping with these tables: t1_dec_warp_test.)
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "entropy/t1.h"
#include "entropy/t1_dec_block.h"
#include "entropy/t1_dec_qe.h"
#include "entropy/t1_ref.h"
#include "t1_test_blocks.h"

namespace gj2k::entropy {
namespace {

using test::describe;
using test::make_block;

// Decodes with both layouts into an output with a guard band (stride w + 3, a row above and
// below) and checks the guard, the status and the values against decode_block_hd's.
void expect_like_shared(const uint8_t* bytes, const std::vector<t1::SegmentRef>& segs, uint32_t nb,
                        Band band, uint8_t style, uint32_t w, uint32_t h,
                        const std::vector<int32_t>& want, const std::string& what) {
  const t1::QeDecodeTables qe = t1::host_qe_decode_tables();
  const t1::DecodeTables old = t1::host_decode_tables();
  const size_t stride = w + 3;
  std::vector<uint32_t> state(t1::state_words(w, h) + 1, 0xDEADBEEFu);
  std::vector<uint32_t> values(t1::value_words(w, h) + 1);
  std::vector<int32_t> plain(size_t{w} * h);
  const t1::BlockStatus want_status =
      t1::decode_block_hd<false>(old, bytes, segs.data(), uint32_t(segs.size()), nb, uint32_t(band),
                                 style, plain.data(), w, w, h, state.data(), nullptr);
  // Layouts: row-major values in the output, stripe-major values, row-major values with the
  // pass's contexts in strided slots (the thread kernel's, stride 3 here: the other words of the
  // slot array must stay untouched).
  constexpr uint32_t kSlotPattern = 0xC3C3C3C3u;
  for (int layout = 0; layout < 3; ++layout) {
    constexpr int32_t kGuard = 0x5A5A5A5A;
    std::vector<int32_t> out((h + 2) * stride, kGuard);
    std::vector<uint32_t> slots(3 * kNumContexts, kSlotPattern);
    int32_t* o = out.data() + stride;
    const uint32_t n = uint32_t(segs.size());
    const t1::BlockStatus st =
        layout == 1
            ? t1::decode_block_qe_hd<true>(qe, bytes, segs.data(), n, nb, uint32_t(band), style, o,
                                           stride, w, h, state.data(), values.data())
        : layout == 0 ? t1::decode_block_qe_hd<false>(qe, bytes, segs.data(), n, nb, uint32_t(band),
                                                      style, o, stride, w, h, state.data(), nullptr)
                      : t1::decode_block_qe_hd<false>(
                            qe, t1::SlotContexts{slots.data() + 1, 3}, bytes, segs.data(), n, nb,
                            uint32_t(band), style, o, stride, w, h, state.data(), nullptr);
    for (size_t k = 0; k < slots.size(); ++k)
      if (k % 3 != 1) {
        ASSERT_EQ(slots[k], kSlotPattern) << what << ": slot word " << k;
      }
    uint32_t passes = 0;
    for (const t1::SegmentRef& r : segs) passes += r.passes;
    if (layout == 2 && passes > 0 &&
        (want_status == t1::BlockStatus::kOk || want_status == t1::BlockStatus::kExtraPasses)) {
      ASSERT_NE(slots[1], kSlotPattern) << what << ": the passes' contexts not in the slots";
    }
    ASSERT_EQ(st, want_status) << what << " layout " << layout;
    ASSERT_EQ(state.back(), 0xDEADBEEFu) << what << ": state written past state_words";
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

TEST(T1DecQe, RandomBlocksEveryStyleAndBandMatchReference) {
  uint32_t seed = 81000;
  for (int style = 0; style < 64; ++style) {
    for (int band = 0; band < 4; ++band) {
      std::mt19937 rng(++seed);
      const uint32_t w = 1 + rng() % 37, h = 1 + rng() % 37;
      const uint32_t nbp = 1 + rng() % 14;
      const auto q = make_block(rng, size_t{w} * h, nbp, rng() % 2);
      const EncodedBlock enc =
          encode_block(q.data(), w, w, h, static_cast<Band>(band), uint8_t(style), nbp);
      if (enc.passes.empty()) continue;
      const uint32_t nb = nbp - enc.missing_msbs;
      const std::string what = describe(seed, w, h, band, style, nbp);
      // Through every segment end and every fourth pass in between.
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
        decode_block_ref(s.data(), s.size(), nb, static_cast<Band>(band), uint8_t(style),
                         want.data(), w, w, h);
        if (last) {
          for (size_t k = 0; k < q.size(); ++k) ASSERT_EQ(want[k], 2 * q[k]) << what;
        }
        expect_like_shared(enc.data.data(), r, nb, static_cast<Band>(band), uint8_t(style), w, h,
                           want, what + " through pass " + std::to_string(i));
        if (HasFatalFailure()) return;
        if (enc.passes[i].terminated) {
          segs.push_back(s.back());
          refs.push_back(r.back());
          start = enc.passes[i].end;
          first = i + 1;
        }
      }
    }
  }
}

TEST(T1DecQe, TruncatedAndCorruptBlocksMatchReference) {
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
    for (const Segment& s : d->segs)
      refs.push_back({static_cast<uint32_t>(s.data - d->enc.data.data()), s.length, s.passes});
    expect_like_shared(d->enc.data.data(), refs, d->nb, d->band, d->style, d->w, d->h, want,
                       describe(seed, d->w, d->h, int(d->band), d->style, d->nb) + " passes " +
                           std::to_string(d->last + 1));
    if (HasFatalFailure()) return;
  }
}

TEST(T1DecQe, LargeThinAndDeepBlocksMatchReference) {
  const std::pair<uint32_t, uint32_t> sizes[] = {{64, 64},  {1024, 4}, {4, 1024}, {1, 1024},
                                                 {1024, 1}, {61, 67},  {2, 1021}, {3, 5}};
  uint32_t seed = 83000;
  for (const auto& [w, h] : sizes) {
    std::mt19937 rng(++seed);
    const uint32_t nbp = w * h > 2048 ? 4 + rng() % 9 : 20 + rng() % 11;
    const uint8_t style = static_cast<uint8_t>(rng() % 64);
    const Band band = static_cast<Band>(rng() % 4);
    const auto q = make_block(rng, size_t{w} * h, nbp, rng() % 2);
    const EncodedBlock enc = encode_block(q.data(), w, w, h, band, style, nbp);
    if (enc.passes.empty()) continue;
    std::vector<t1::SegmentRef> refs;
    uint32_t start = 0, first = 0;
    for (uint32_t i = 0; i < enc.passes.size(); ++i)
      if (enc.passes[i].terminated || i + 1 == enc.passes.size()) {
        refs.push_back({start, enc.passes[i].end - start, i - first + 1});
        start = enc.passes[i].end;
        first = i + 1;
      }
    std::vector<int32_t> want(q.size());
    for (size_t k = 0; k < q.size(); ++k) want[k] = 2 * q[k];
    expect_like_shared(enc.data.data(), refs, nbp - enc.missing_msbs, band, style, w, h, want,
                       describe(seed, w, h, int(band), style, nbp));
    if (HasFatalFailure()) return;
  }
}

// Statuses as decode_block_hd's: too many planes, bad arguments, segments past the style's
// passes, extra passes.
TEST(T1DecQe, StatusesAsTheSharedDecoder) {
  const t1::QeDecodeTables tables = t1::host_qe_decode_tables();
  std::vector<uint32_t> state(t1::kMaxStateWords);
  std::vector<int32_t> out(4096);
  const uint8_t byte = 0;
  const t1::SegmentRef one{0, 1, 1};
  EXPECT_EQ(t1::decode_block_qe_hd<false>(tables, &byte, &one, 1, 31, 0, 0, out.data(), 64, 64, 64,
                                          state.data(), nullptr),
            t1::BlockStatus::kTooManyPlanes);
  EXPECT_EQ(t1::decode_block_qe_hd<false>(tables, &byte, &one, 1, 5, 4, 0, out.data(), 64, 64, 64,
                                          state.data(), nullptr),
            t1::BlockStatus::kBadArgument);
  const t1::SegmentRef two{0, 1, 2};
  EXPECT_EQ(t1::decode_block_qe_hd<false>(tables, &byte, &two, 1, 5, 0, cblk_style::kTermAll,
                                          out.data(), 64, 64, 64, state.data(), nullptr),
            t1::BlockStatus::kSegmentPasses);
  const t1::SegmentRef many{0, 1, 40};
  EXPECT_EQ(t1::decode_block_qe_hd<false>(tables, &byte, &many, 1, 5, 0, 0, out.data(), 64, 64, 64,
                                          state.data(), nullptr),
            t1::BlockStatus::kExtraPasses);
}

}  // namespace
}  // namespace gj2k::entropy
