// Tag trees (15444-1 B.10.2) and packet header bit I/O (B.10.1).
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "entropy/bitio.h"
#include "entropy/tagtree.h"
#include "gj2k/error.h"

namespace gj2k::entropy {
namespace {

// The bits of a finished header as a '0'/'1' string (no stuffing in these short examples).
std::string bits_of(const std::vector<uint8_t>& bytes, size_t count) {
  std::string s;
  for (size_t i = 0; i < count; ++i) s += ((bytes[i / 8] >> (7 - i % 8)) & 1) ? '1' : '0';
  return s;
}

TEST(TagTree, StandardExampleFigureB12) {
  // The 6 x 3 array of Figure B.12; coding q3(0,0), q3(1,0), q3(2,0) in full gives, by hand
  // from B.10.2: 01111 (root 0 then 1, level 1 and 2 nodes 1, leaf 1), 001, 101.
  const int32_t v[18] = {1, 3, 2, 3, 2, 3, 2, 2, 1, 4, 3, 2, 2, 2, 2, 2, 1, 2};
  TagTree enc(6, 3);
  for (uint32_t i = 0; i < 18; ++i) enc.set_value(i, v[i]);
  HeaderBitWriter w;
  enc.encode_value(w, 0);
  EXPECT_EQ(w.bit_count(), 5u);
  enc.encode_value(w, 1);
  EXPECT_EQ(w.bit_count(), 8u);
  enc.encode_value(w, 2);
  EXPECT_EQ(w.bit_count(), 11u);
  const std::vector<uint8_t> bytes = w.finish();
  ASSERT_EQ(bytes.size(), 2u);
  EXPECT_EQ(bits_of(bytes, 11),
            "01111"
            "001"
            "101");

  TagTree dec(6, 3);
  HeaderBitReader r(bytes);
  for (uint32_t i = 0; i < 3; ++i) EXPECT_EQ(dec.decode_value(r, i, 100), v[i]) << i;
  EXPECT_EQ(r.align(), 2u);
}

// Codes every leaf against rising thresholds as the inclusion tree is used (values set when
// reached), and with the whole-value coding of the zero bit-plane tree, then decodes.
TEST(TagTree, RandomRoundTrip) {
  for (uint32_t seed = 1; seed <= 300; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    const uint32_t w = 1 + rng() % 17, h = 1 + rng() % 17;
    const int32_t maxv = 1 + static_cast<int32_t>(rng() % 12);
    std::vector<int32_t> v(size_t{w} * h);
    for (auto& x : v) x = static_cast<int32_t>(rng() % (maxv + 1));

    // Inclusion style: at "layer" t, leaves not yet below are coded against t + 1, and the
    // encoder only learns a leaf's value when t reaches it.
    TagTree enc(w, h), dec(w, h);
    HeaderBitWriter bw;
    std::vector<bool> enc_found(v.size()), dec_found(v.size());
    for (int32_t t = 0; t <= maxv; ++t) {
      for (uint32_t i = 0; i < v.size(); ++i) {
        if (v[i] == t) enc.set_value(i, t);
      }
      for (uint32_t i = 0; i < v.size(); ++i) {
        if (enc_found[i]) continue;
        enc.encode(bw, i, t + 1);
        enc_found[i] = v[i] == t;
      }
    }
    // Whole values in a random leaf order on a second tree.
    TagTree venc(w, h), vdec(w, h);
    for (uint32_t i = 0; i < v.size(); ++i) venc.set_value(i, v[i]);
    std::vector<uint32_t> order(v.size());
    for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
    std::shuffle(order.begin(), order.end(), rng);
    for (uint32_t i : order) venc.encode_value(bw, i);
    const std::vector<uint8_t> bytes = bw.finish();

    HeaderBitReader br(bytes);
    for (int32_t t = 0; t <= maxv; ++t) {
      for (uint32_t i = 0; i < v.size(); ++i) {
        if (dec_found[i]) continue;
        dec_found[i] = dec.decode(br, i, t + 1);
        ASSERT_EQ(dec_found[i], v[i] == t) << "leaf " << i << " layer " << t;
        if (dec_found[i]) {
          ASSERT_EQ(dec.value(i), t);
        }
      }
    }
    for (uint32_t i : order) ASSERT_EQ(vdec.decode_value(br, i, 64), v[i]) << "leaf " << i;
    EXPECT_EQ(br.align(), bytes.size());

    // Reset restores the initial state: coding again gives the same bytes.
    venc.reset();
    for (uint32_t i = 0; i < v.size(); ++i) venc.set_value(i, v[i]);
    HeaderBitWriter bw2;
    TagTree fresh(w, h);
    for (uint32_t i = 0; i < v.size(); ++i) fresh.set_value(i, v[i]);
    HeaderBitWriter bw3;
    for (uint32_t i : order) {
      venc.encode_value(bw2, i);
      fresh.encode_value(bw3, i);
    }
    EXPECT_EQ(bw2.finish(), bw3.finish());
  }
}

TEST(TagTree, TruncatedInputThrows) {
  TagTree enc(5, 4);
  for (uint32_t i = 0; i < 20; ++i) enc.set_value(i, static_cast<int32_t>(10 + i % 3));
  HeaderBitWriter w;
  for (uint32_t i = 0; i < 20; ++i) enc.encode_value(w, i);
  std::vector<uint8_t> bytes = w.finish();
  ASSERT_GT(bytes.size(), 2u);
  bytes.resize(bytes.size() / 2);
  TagTree dec(5, 4);
  HeaderBitReader r(bytes);
  try {
    for (uint32_t i = 0; i < 20; ++i) dec.decode_value(r, i, 100);
    FAIL() << "decoding past the end did not throw";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kTruncated);
  }
}

TEST(TagTree, ValueLimitThrows) {
  TagTree enc(1, 1);
  enc.set_value(0, 50);
  HeaderBitWriter w;
  enc.encode_value(w, 0);
  const std::vector<uint8_t> bytes = w.finish();
  TagTree dec(1, 1);
  HeaderBitReader r(bytes);
  EXPECT_THROW(dec.decode_value(r, 0, 20), Error);
}

TEST(TagTree, EmptyTree) {
  TagTree t(0, 7);
  EXPECT_EQ(t.leaf_count(), 0u);
  HeaderBitWriter w;
  EXPECT_THROW(t.encode(w, 0, 1), Error);
}

TEST(HeaderBits, RandomRoundTripWithStuffing) {
  for (uint32_t seed = 1; seed <= 200; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    // Runs of ones make many 0xFF bytes.
    std::vector<uint32_t> bits(1 + rng() % 400);
    const uint32_t ones = rng() % 4;
    for (auto& b : bits) b = (rng() % 4) < 1 + ones ? 1 : 0;
    HeaderBitWriter w;
    for (uint32_t b : bits) w.put_bit(b);
    const std::vector<uint8_t> bytes = w.finish();
    ASSERT_FALSE(bytes.empty());
    EXPECT_NE(bytes.back(), 0xFF);
    for (size_t i = 0; i + 1 < bytes.size(); ++i) {
      if (bytes[i] == 0xFF) {
        ASSERT_LT(bytes[i + 1], 0x80) << "byte " << i + 1;
      }
    }
    HeaderBitReader r(bytes);
    for (size_t i = 0; i < bits.size(); ++i) ASSERT_EQ(r.get_bit(), bits[i]) << "bit " << i;
    EXPECT_EQ(r.align(), bytes.size());
  }
}

TEST(HeaderBits, StuffingByHand) {
  HeaderBitWriter w;
  w.put_bits(0xFF, 8);   // 0xFF, then a 7-bit byte
  w.put_bits(0x7F, 7);   // 0x7F
  w.put_bits(0b101, 3);  // 101 padded: 0xA0
  EXPECT_EQ(w.finish(), (std::vector<uint8_t>{0xFF, 0x7F, 0xA0}));
  w.put_bits(0xFF, 8);  // ends on 0xFF: a 0x00 follows
  EXPECT_EQ(w.finish(), (std::vector<uint8_t>{0xFF, 0x00}));
  w.put_bits(0xFF, 8);
  w.put_bits(0b1, 1);  // 1 of 7 bits: 0x40
  EXPECT_EQ(w.finish(), (std::vector<uint8_t>{0xFF, 0x40}));

  const std::vector<uint8_t> in{0xFF, 0x00, 0x12};
  HeaderBitReader r(in);
  EXPECT_EQ(r.get_bits(8), 0xFFu);
  EXPECT_EQ(r.align(), 2u);  // the stuffed byte after a final 0xFF belongs to the header
  const std::vector<uint8_t> cut{0xFF};
  HeaderBitReader r2(cut);
  EXPECT_EQ(r2.get_bits(8), 0xFFu);
  EXPECT_THROW(r2.align(), Error);
  EXPECT_THROW(r2.get_bit(), Error);
}

// decode_value walks the path once; B.10.5 states it as decode against thresholds 1, 2, ...
// until the value is below one. On random bits (any tree state, inclusion thresholds mixed
// in, values past the limit, data running out) both read the same bits and give the same
// values and errors.
// The decoding walk of B.10.2 as the standard states it, from the root every time: the
// reference for TagTree::decode, which starts lower on the leaf's path.
class RootWalkTagTree {
 public:
  RootWalkTagTree(uint32_t w, uint32_t h) {
    for (;;) {
      widths_.push_back(w);
      value_.emplace_back(size_t{w} * h, TagTree::kInfinity);
      low_.emplace_back(size_t{w} * h, 0);
      if (w == 1 && h == 1) break;
      w = (w + 1) / 2;
      h = (h + 1) / 2;
    }
  }
  bool decode(HeaderBitReader& in, uint32_t x, uint32_t y, int32_t threshold) {
    int32_t low = 0;
    for (int k = int(widths_.size()) - 1; k >= 0; --k) {
      const size_t i = size_t{y >> k} * widths_[k] + (x >> k);
      low = std::max(low, low_[k][i]);
      while (low < threshold && low < value_[k][i]) {
        if (in.get_bit())
          value_[k][i] = low;
        else
          ++low;
      }
      low_[k][i] = low;
    }
    return value_[0][size_t{y} * widths_[0] + x] < threshold;
  }
  int32_t value(uint32_t x, uint32_t y) const { return value_[0][size_t{y} * widths_[0] + x]; }

 private:
  std::vector<uint32_t> widths_;
  std::vector<std::vector<int32_t>> value_, low_;
};

TEST(TagTree, DecodeReadsWhatTheWalkFromTheRootReads) {
  std::mt19937 rng(1125);
  for (int iter = 0; iter < 400; ++iter) {
    const uint32_t w = rng() % 23 + 1, h = rng() % 23 + 1;
    std::vector<uint8_t> bytes(64);
    const uint32_t density = rng() % 256;  // the share of 1 bits
    for (uint8_t& b : bytes) {
      b = 0;
      for (int k = 0; k < 8; ++k) b = uint8_t(b << 1 | (rng() % 256 < density ? 1 : 0));
      if (b == 0xFF) b = 0xFE;  // no bit stuffing to follow: the two read the same bits anyway
    }
    TagTree tree(w, h);
    RootWalkTagTree ref(w, h);
    HeaderBitReader got_in(bytes), want_in(bytes);
    // Thresholds rise in most streams (layers) but not always here, and leaves come in any
    // order, so that the walk starts at every level.
    for (int step = 0; step < 200; ++step) {
      const uint32_t x = rng() % w, y = rng() % h;
      const int32_t threshold = int32_t(rng() % 9);
      const bool got = tree.decode(got_in, y * w + x, threshold);
      const bool want = ref.decode(want_in, x, y, threshold);
      ASSERT_EQ(got, want) << "iteration " << iter << " step " << step;
      ASSERT_EQ(tree.value(y * w + x), ref.value(x, y)) << "iteration " << iter;
      ASSERT_EQ(got_in.byte_position(), want_in.byte_position()) << "iteration " << iter;
      if (got_in.byte_position() + 2 >= bytes.size()) break;
    }
    EXPECT_EQ(got_in.get_bits(16), want_in.get_bits(16)) << "iteration " << iter;
  }
}

TEST(TagTree, DecodeValueEqualsThresholdsOneByOne) {
  std::mt19937 rng(515);
  int values = 0, errors = 0;
  for (int iter = 0; iter < 300; ++iter) {
    const uint32_t w = rng() % 9 + 1, h = rng() % 9 + 1;
    std::vector<uint8_t> bytes(rng() % 24 + 1);
    const uint32_t density = rng() % 256;  // bias towards 0 bits, so values grow
    for (uint8_t& b : bytes) {
      b = 0;
      for (int k = 0; k < 8; ++k) b = uint8_t(b << 1 | (rng() % 256 > density ? 0 : 1));
    }
    const int32_t limit = int32_t(rng() % 12);
    TagTree fast(w, h), slow(w, h);
    HeaderBitReader rf(bytes), rs(bytes);
    for (int step = 0; step < 40; ++step) {
      const uint32_t leaf = rng() % (w * h);
      std::string got, want;
      if (rng() % 4 == 0) {  // an inclusion-style query in between
        const int32_t t = int32_t(rng() % 4 + 1);
        try {
          got = std::to_string(fast.decode(rf, leaf, t));
        } catch (const Error& e) {
          got = e.what();
        }
        try {
          want = std::to_string(slow.decode(rs, leaf, t));
        } catch (const Error& e) {
          want = e.what();
        }
      } else {
        try {
          got = std::to_string(fast.decode_value(rf, leaf, limit));
        } catch (const Error& e) {
          got = e.what();
        }
        try {
          for (int32_t t = 1;; ++t) {
            if (slow.decode(rs, leaf, t)) {
              want = std::to_string(slow.value(leaf));
              break;
            }
            if (t > limit)
              throw Error(ErrorCode::kFormat, "tag tree: value above " + std::to_string(limit) +
                                                  " at header byte " +
                                                  std::to_string(rs.byte_position()));
          }
        } catch (const Error& e) {
          want = e.what();
        }
      }
      ASSERT_EQ(got, want) << "iteration " << iter << " step " << step;
      ASSERT_EQ(rf.byte_position(), rs.byte_position()) << "iteration " << iter;
      if (got.find_first_not_of("0123456789") != std::string::npos) {
        ++errors;
        break;  // an error: the trees' state is unspecified from here
      }
      ++values;
    }
  }
  EXPECT_GT(values, 1000);  // both kinds of outcome were compared
  EXPECT_GT(errors, 50);
}

}  // namespace
}  // namespace gj2k::entropy
