// Tier-1 code-block coder tests: round trips and truncation after every pass, checked against
// an independent model of which bit-planes each pass carries (15444-1 D.3, E.1.1.2).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "entropy/t1.h"
#include "entropy/t2_packet.h"
#include "gj2k/error.h"

namespace gj2k::entropy {
namespace {

// Which planes each sample knows after each pass, by the pass membership rules of D.3 only
// (no entropy coding): a slow, independent statement of what truncation must reproduce.
class PlaneModel {
 public:
  PlaneModel(const std::vector<int32_t>& q, uint32_t w, uint32_t h, bool vc, uint32_t nbp)
      : q_(q),
        w_(w),
        h_(h),
        vc_(vc),
        nbp_(nbp),
        sig_(q.size(), 0),
        known_(q.size(), -1),
        fresh_(q.size(), 0) {}

  void run_pass(uint32_t i) {
    const int kind = i == 0 ? 2 : static_cast<int>((i - 1) % 3);
    const int p = static_cast<int>(i == 0 ? nbp_ - 1 : nbp_ - 2 - (i - 1) / 3);
    if (kind == 0) std::fill(fresh_.begin(), fresh_.end(), 0);
    for (uint32_t y0 = 0; y0 < h_; y0 += 4) {
      for (uint32_t x = 0; x < w_; ++x) {
        for (uint32_t y = y0; y < std::min(y0 + 4, h_); ++y) {
          const size_t k = y * w_ + x;
          const bool bit = (mag(k) >> p) & 1;
          if (kind == 0) {
            if (!sig_[k] && has_sig_neighbour(x, y)) {
              known_[k] = p;
              fresh_[k] = 1;
              if (bit) sig_[k] = 1;
            }
          } else if (kind == 1) {
            if (sig_[k] && !fresh_[k]) known_[k] = p;
          } else {
            if (!sig_[k] && !fresh_[k]) {
              known_[k] = p;
              if (bit) sig_[k] = 1;
            }
          }
        }
      }
    }
    if (kind == 2) std::fill(fresh_.begin(), fresh_.end(), 0);
  }

  // Expected decoder output (one fractional bit, midpoint rule).
  int32_t expected(size_t k) const {
    if (known_[k] < 0) return 0;
    const int p = known_[k];
    const uint32_t m = (mag(k) >> p) << p;
    if (m == 0) return 0;
    const int64_t v = 2 * static_cast<int64_t>(m) + (p > 0 ? (int64_t{1} << p) : 0);
    return static_cast<int32_t>(q_[k] < 0 ? -v : v);
  }
  double squared_error() const {
    double e = 0;
    for (size_t k = 0; k < q_.size(); ++k) {
      const double d = q_[k] - expected(k) / 2.0;
      e += d * d;
    }
    return e;
  }

 private:
  uint32_t mag(size_t k) const { return static_cast<uint32_t>(std::abs(int64_t{q_[k]})); }
  bool has_sig_neighbour(uint32_t x, uint32_t y) const {
    for (int dy = -1; dy <= 1; ++dy) {
      for (int dx = -1; dx <= 1; ++dx) {
        if (!dx && !dy) continue;
        const int64_t xx = int64_t{x} + dx, yy = int64_t{y} + dy;
        if (xx < 0 || yy < 0 || xx >= w_ || yy >= h_) continue;
        if (vc_ && dy == 1 && (y & 3) == 3) continue;  // D.7: next stripe is insignificant
        if (sig_[yy * w_ + xx]) return true;
      }
    }
    return false;
  }
  const std::vector<int32_t>& q_;
  uint32_t w_, h_;
  bool vc_;
  uint32_t nbp_;
  std::vector<uint8_t> sig_;
  std::vector<int> known_;
  std::vector<uint8_t> fresh_;
};

// Tier-2's view: the first `end` bytes of the block's data split into codeword segments for
// passes 0..last.
std::vector<Segment> segments_through(const EncodedBlock& b, uint32_t last, uint8_t style) {
  std::vector<Segment> segs;
  uint32_t start = 0, first = 0;
  for (uint32_t i = 0; i <= last; ++i) {
    if (b.passes[i].terminated || i == last) {
      segs.push_back({b.data.data() + start, b.passes[i].end - start, i - first + 1});
      EXPECT_LE(i - first + 1, passes_in_segment(style, first));
      start = b.passes[i].end;
      first = i + 1;
    }
  }
  return segs;
}

std::string describe(uint32_t seed, uint32_t w, uint32_t h, int band, int style, uint32_t nbp) {
  return "seed " + std::to_string(seed) + " size " + std::to_string(w) + "x" + std::to_string(h) +
         " band " + std::to_string(band) + " style 0x" + std::to_string(style) + " bitplanes " +
         std::to_string(nbp);
}

// Encodes q, then decodes after every pass (or only the last when !every_pass) and compares
// with the model; checks pass bookkeeping and distortions.
void check_block(const std::vector<int32_t>& q, uint32_t w, uint32_t h, Band band, uint8_t style,
                 uint32_t mb, const std::string& what, bool every_pass = true) {
  const EncodedBlock b = encode_block(q.data(), w, w, h, band, style, mb);
  uint32_t all = 0;
  for (int32_t v : q) all |= static_cast<uint32_t>(std::abs(int64_t{v}));
  const uint32_t nbp = static_cast<uint32_t>(std::bit_width(all));
  ASSERT_EQ(b.missing_msbs, mb - nbp) << what;
  ASSERT_EQ(b.passes.size(), max_passes(nbp)) << what;
  if (nbp == 0) {
    ASSERT_TRUE(b.data.empty()) << what;
    return;
  }
  ASSERT_EQ(b.passes.back().end, b.data.size()) << what;
  PlaneModel model(q, w, h, (style & cblk_style::kVerticalCausal) != 0, nbp);
  double err = model.squared_error();
  std::vector<int32_t> out(q.size() + 1, 0x5A5A5A5A);  // one guard sample past the end
  for (uint32_t i = 0; i < b.passes.size(); ++i) {
    ASSERT_EQ(b.passes[i].terminated, pass_ends_segment(style, i) || i + 1 == b.passes.size())
        << what << " pass " << i;
    if (i) {
      ASSERT_GE(b.passes[i].end, b.passes[i - 1].end) << what << " pass " << i;
    }
    model.run_pass(i);
    const double new_err = model.squared_error();
    ASSERT_NEAR(b.passes[i].distortion, std::max(0.0, err - new_err), 1e-9 * std::max(1.0, err))
        << what << " pass " << i;
    err = new_err;
    if (!every_pass && i + 1 != b.passes.size()) continue;
    const auto segs = segments_through(b, i, style);
    decode_block(segs.data(), segs.size(), nbp, band, style, out.data(), w, w, h);
    ASSERT_EQ(out.back(), 0x5A5A5A5A) << what;
    for (size_t k = 0; k < q.size(); ++k) {
      ASSERT_EQ(out[k], model.expected(k))
          << what << " pass " << i << " sample (" << k % w << ", " << k / w << ") q " << q[k];
    }
  }
  for (size_t k = 0; k < q.size(); ++k) ASSERT_EQ(out[k], 2 * q[k]) << what;
}

// Random indices with a Laplacian-like spread (many small, few large) over nbp planes.
std::vector<int32_t> random_block(std::mt19937& rng, uint32_t w, uint32_t h, uint32_t nbp) {
  std::vector<int32_t> q(static_cast<size_t>(w) * h);
  std::geometric_distribution<int> shift(0.35);
  for (auto& v : q) {
    const int s = std::min<int>(shift(rng), static_cast<int>(nbp));
    const uint32_t limit = nbp >= 31 ? 0x7FFFFFFFu : (1u << nbp) - 1;
    uint32_t m = static_cast<uint32_t>(rng()) & (limit >> s);
    if (rng() % 3 == 0) m = 0;
    v = (rng() & 1) ? -static_cast<int32_t>(m) : static_cast<int32_t>(m);
  }
  if (nbp > 0 && !q.empty()) q[rng() % q.size()] = (1 << (nbp - 1)) | 1;  // exactly nbp planes
  return q;
}

TEST(T1Coder, EveryStyleEveryBandEveryTruncation) {
  uint32_t seed = 1000;
  for (int style = 0; style < 64; ++style) {
    for (int band = 0; band < 4; ++band) {
      ++seed;
      std::mt19937 rng(seed);
      uint32_t w = 4u << (rng() % 5), h = 4u << (rng() % 5);  // 4 to 64
      if (w * h > 1024 && rng() % 2) h = 1024 / w;            // keep the suite quick
      const uint32_t nbp = 1 + rng() % 14;
      const auto q = random_block(rng, w, h, nbp);
      check_block(q, w, h, static_cast<Band>(band), static_cast<uint8_t>(style), nbp + 2,
                  describe(seed, w, h, band, style, nbp));
      if (HasFatalFailure()) return;
    }
  }
}

TEST(T1Coder, SizesAndClippedShapes) {
  const std::pair<uint32_t, uint32_t> sizes[] = {
      {4, 4},   {1024, 4}, {4, 1024}, {64, 64}, {1, 1}, {3, 7},   {7, 3},   {63, 65},
      {65, 63}, {1, 64},   {64, 1},   {2, 5},   {5, 2}, {33, 17}, {32, 128}};
  uint32_t seed = 5000;
  for (const auto& [w, h] : sizes) {
    for (int rep = 0; rep < 3; ++rep) {
      std::mt19937 rng(++seed);
      const uint32_t nbp = 1 + rng() % 16;
      const uint8_t style = static_cast<uint8_t>(rng() % 64);
      const int band = static_cast<int>(rng() % 4);
      const auto q = random_block(rng, w, h, nbp);
      check_block(q, w, h, static_cast<Band>(band), style, nbp,
                  describe(seed, w, h, band, style, nbp), w * h <= 1024);
      if (HasFatalFailure()) return;
    }
  }
}

TEST(T1Coder, OneToThirtyBitPlanes) {
  for (uint32_t nbp = 1; nbp <= 30; ++nbp) {
    const uint32_t seed = 7000 + nbp;
    std::mt19937 rng(seed);
    const uint8_t style = static_cast<uint8_t>(rng() % 64);
    const int band = static_cast<int>(rng() % 4);
    const auto q = random_block(rng, 16, 16, nbp);
    check_block(q, 16, 16, static_cast<Band>(band), style, nbp,
                describe(seed, 16, 16, band, style, nbp));
    if (HasFatalFailure()) return;
  }
}

TEST(T1Coder, AdversarialBlocks) {
  uint32_t seed = 9000;
  for (uint32_t nbp : {1u, 2u, 5u, 15u, 30u}) {
    const int32_t max = static_cast<int32_t>((uint64_t{1} << nbp) - 1);
    for (int kind = 0; kind < 6; ++kind) {
      const uint32_t w = 32, h = 32;
      std::vector<int32_t> q(w * h, 0);
      for (uint32_t y = 0; y < h; ++y) {
        for (uint32_t x = 0; x < w; ++x) {
          int32_t& v = q[y * w + x];
          switch (kind) {
            case 0:
              v = max;
              break;  // all max
            case 1:
              v = ((x + y) & 1) ? max : -max;
              break;  // checkerboard
            case 2:
              v = (x == 17 && y == 9) ? -max : 0;
              break;  // single sample
            case 3:
              v = (y % 4 == 3) ? max : 0;
              break;  // stripe edges
            case 4:
              v = ((x ^ y) & 3) ? 0 : ((x & 1) ? max : -(max - 1));
              break;
            case 5:
              v = (x + y) % 2 ? max - 1 : 1;
              break;
          }
        }
      }
      for (uint8_t style :
           {uint8_t{0}, uint8_t{0x3F}, uint8_t{cblk_style::kBypass | cblk_style::kVerticalCausal},
            uint8_t{cblk_style::kTermAll | cblk_style::kPredictableTerm}}) {
        for (int band = 0; band < 4; ++band) {
          ++seed;
          check_block(q, w, h, static_cast<Band>(band), style, nbp,
                      describe(seed, w, h, band, style, nbp) + " kind " + std::to_string(kind),
                      nbp <= 5);
          if (HasFatalFailure()) return;
        }
      }
    }
  }
  // All zero: no passes, all missing.
  std::vector<int32_t> zero(64, 0);
  const EncodedBlock b = encode_block(zero.data(), 8, 8, 8, Band::kHH, 0, 7);
  EXPECT_EQ(b.missing_msbs, 7u);
  EXPECT_TRUE(b.passes.empty());
}

TEST(T1Coder, ThirtyOneBitPlanes) {
  std::mt19937 rng(31);
  auto q = random_block(rng, 8, 8, 31);
  q[5] = INT32_MAX;
  q[6] = -INT32_MAX;
  const EncodedBlock b = encode_block(q.data(), 8, 8, 8, Band::kLH, 0, 31);
  EXPECT_EQ(b.missing_msbs, 0u);
  EXPECT_EQ(b.passes.size(), 91u);
  const Segment seg{b.data.data(), static_cast<uint32_t>(b.data.size()), 91};
  std::vector<int32_t> out(64);
  try {
    decode_block(&seg, 1, 31, Band::kLH, 0, out.data(), 8, 8, 8);
    FAIL() << "31 bit-planes decoded";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kUnsupported);
  }
  // Bad arguments.
  EXPECT_THROW(encode_block(q.data(), 8, 8, 8, Band::kLH, 0, 30), Error);
  std::vector<int32_t> big(65 * 64, 1);
  EXPECT_THROW(encode_block(big.data(), 65, 65, 64, Band::kLH, 0, 4), Error);
  EXPECT_THROW(decode_block(&seg, 1, 3, Band::kLH, 0, big.data(), 65, 65, 64), Error);
  q[0] = INT32_MIN;
  EXPECT_THROW(encode_block(q.data(), 8, 8, 8, Band::kLH, 0, 31), Error);
}

TEST(T1Coder, SegmentRules) {
  EXPECT_EQ(passes_in_segment(0, 0), UINT32_MAX);
  EXPECT_EQ(passes_in_segment(cblk_style::kTermAll, 5), 1u);
  EXPECT_EQ(passes_in_segment(cblk_style::kBypass, 0), 10u);
  EXPECT_EQ(passes_in_segment(cblk_style::kBypass, 3), 7u);
  EXPECT_EQ(passes_in_segment(cblk_style::kBypass, 10), 2u);  // raw SPP + MRP
  EXPECT_EQ(passes_in_segment(cblk_style::kBypass, 11), 1u);
  EXPECT_EQ(passes_in_segment(cblk_style::kBypass, 12), 1u);  // MQ cleanup
  EXPECT_EQ(passes_in_segment(cblk_style::kBypass, 13), 2u);
  for (uint32_t i = 0; i < 40; ++i) {
    EXPECT_EQ(pass_is_raw(cblk_style::kBypass, i), i >= 10 && (i - 1) % 3 != 2) << i;
    EXPECT_FALSE(pass_is_raw(0, i));
  }
  // Too many passes in a segment is a format error; passes past 3 Nb - 2 are ignored (the
  // block decodes as its first 3 Nb - 2 passes).
  std::vector<uint8_t> junk(16, 0x33);
  std::vector<int32_t> out(16);
  const Segment too_long{junk.data(), 16, 11};
  EXPECT_THROW(decode_block(&too_long, 1, 8, Band::kLL, cblk_style::kBypass, out.data(), 4, 4, 4),
               Error);
  const Segment too_many{junk.data(), 16, 8};
  EXPECT_EQ(decode_block(&too_many, 1, 3, Band::kLL, 0, out.data(), 4, 4, 4), 1u);
  const Segment just_enough{junk.data(), 16, 7};
  std::vector<int32_t> expect(16);
  EXPECT_EQ(decode_block(&just_enough, 1, 3, Band::kLL, 0, expect.data(), 4, 4, 4), 0u);
  EXPECT_EQ(out, expect);
}

// Tier-2 keeps its own statement of the segment rule (t2_packet.h); both must agree.
TEST(T1Coder, SegmentRulesAgreeWithTier2) {
  for (int style = 0; style < 64; ++style) {
    const SegmentStyle t2{(style & cblk_style::kBypass) != 0, (style & cblk_style::kTermAll) != 0};
    for (int pass = 0; pass < 100; ++pass) {
      ASSERT_EQ(pass_ends_segment(static_cast<uint8_t>(style), static_cast<uint32_t>(pass)),
                pass_ends_segment(t2, pass))
          << "style " << style << " pass " << pass;
    }
  }
}

// Random bytes decode without crashing or touching memory outside the block (run under ASan).
TEST(T1Coder, CorruptAndTruncatedDataIsSafe) {
  for (uint32_t seed = 1; seed <= 200; ++seed) {
    std::mt19937 rng(seed);
    const uint8_t style = static_cast<uint8_t>(rng() % 64);
    const uint32_t nbp = 1 + rng() % 30;
    const uint32_t w = 1 + rng() % 64, h = 1 + rng() % 64;
    std::vector<std::vector<uint8_t>> bufs;
    std::vector<Segment> segs;
    uint32_t pass = 0;
    while (pass < max_passes(nbp) && rng() % 8 != 0) {
      const uint32_t n = std::min<uint32_t>({passes_in_segment(style, pass), max_passes(nbp) - pass,
                                             static_cast<uint32_t>(1 + rng() % 12)});
      bufs.emplace_back(rng() % 40);
      for (auto& b : bufs.back()) b = static_cast<uint8_t>(rng() % 5 == 0 ? 0xFF : rng());
      pass += n;
    }
    pass = 0;
    for (auto& b : bufs) {
      const uint32_t n = std::min<uint32_t>({passes_in_segment(style, pass), max_passes(nbp) - pass,
                                             static_cast<uint32_t>(1 + rng() % 12)});
      segs.push_back({b.data(), static_cast<uint32_t>(b.size()), n});
      pass += n;
    }
    std::vector<int32_t> out(static_cast<size_t>(w) * h);
    ASSERT_NO_THROW(decode_block(segs.data(), segs.size(), nbp, static_cast<Band>(seed % 4), style,
                                 out.data(), w, w, h))
        << "seed " << seed;
    const int64_t bound = int64_t{3} << nbp;
    for (int32_t v : out) ASSERT_LE(std::abs(int64_t{v}), bound) << "seed " << seed;
  }
}

}  // namespace
}  // namespace gj2k::entropy

namespace gj2k::entropy {
namespace {

// Pieces for any layer split cover the layer's bytes contiguously and respect segment rules.
TEST(T1Coder, SegmentPiecesForLayers) {
  for (uint32_t seed = 1; seed <= 64; ++seed) {
    std::mt19937 rng(seed);
    const uint8_t style = static_cast<uint8_t>(seed - 1);
    const auto q = random_block(rng, 16, 16, 1 + rng() % 12);
    const auto b = encode_block(q.data(), 16, 16, 16, Band::kLL, style, 12);
    const uint32_t n = static_cast<uint32_t>(b.passes.size());
    uint32_t first = 0;
    uint32_t seg_first = 0;  // first pass of the segment being continued
    while (first < n) {
      const uint32_t last = std::min<uint32_t>(n, first + 1 + rng() % 7);
      const auto pieces = segment_pieces(b, first, last);
      uint32_t offset = first ? b.passes[first - 1].end : 0, pass = first;
      for (const auto& pc : pieces) {
        ASSERT_EQ(pc.first_pass, pass) << "seed " << seed;
        ASSERT_EQ(pc.offset, offset) << "seed " << seed;
        const uint32_t end = pc.first_pass + pc.passes;
        ASSERT_LE(end - seg_first, passes_in_segment(style, seg_first)) << "seed " << seed;
        ASSERT_EQ(pc.offset + pc.length, b.passes[end - 1].end) << "seed " << seed;
        offset += pc.length;
        pass = end;
        if (b.passes[end - 1].terminated) seg_first = end;
      }
      ASSERT_EQ(pass, last) << "seed " << seed;
      first = last;
    }
    EXPECT_THROW(segment_pieces(b, 0, n + 1), Error);
  }
}

// Blocks coded concurrently (OpenMP over blocks) give the same bytes and values as serially.
TEST(T1Coder, ConcurrentBlocksMatchSerial) {
  const uint32_t seed = 4242;
  std::mt19937 rng(seed);
  const int n = 96;
  std::vector<std::vector<int32_t>> q(n);
  std::vector<uint8_t> style(n);
  for (int i = 0; i < n; ++i) {
    q[i] = random_block(rng, 32, 32, 1 + rng() % 14);
    style[i] = static_cast<uint8_t>(rng() % 64);
  }
  std::vector<EncodedBlock> serial(n), parallel(n);
  for (int i = 0; i < n; ++i) {
    encode_block(q[i].data(), 32, 32, 32, Band::kHL, style[i], 16, serial[i]);
  }
#pragma omp parallel for schedule(dynamic) num_threads(4)
  for (int i = 0; i < n; ++i) {
    encode_block(q[i].data(), 32, 32, 32, Band::kHL, style[i], 16, parallel[i]);
  }
  std::vector<std::vector<int32_t>> out(n, std::vector<int32_t>(32 * 32));
#pragma omp parallel for schedule(dynamic) num_threads(4)
  for (int i = 0; i < n; ++i) {
    const auto segs = segments_through(
        parallel[i], static_cast<uint32_t>(parallel[i].passes.size() - 1), style[i]);
    decode_block(segs.data(), segs.size(), 16 - parallel[i].missing_msbs, Band::kHL, style[i],
                 out[i].data(), 32, 32, 32);
  }
  for (int i = 0; i < n; ++i) {
    ASSERT_EQ(serial[i].data, parallel[i].data) << "seed " << seed << " block " << i;
    ASSERT_EQ(serial[i].passes.size(), parallel[i].passes.size()) << "block " << i;
    for (size_t k = 0; k < q[i].size(); ++k) {
      ASSERT_EQ(out[i][k], 2 * q[i][k]) << "seed " << seed << " block " << i;
    }
  }
}

}  // namespace
}  // namespace gj2k::entropy
