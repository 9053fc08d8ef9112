// Packet header bit reading (15444-1 B.10.1): HeaderBitReader, which unstuffs bits ahead into
// a 64-bit buffer and reads runs and fields in one step, against a reader of one bit at a time
// written from the clause. Both must give the same bits, the same errors (code and message)
// and the same byte positions.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "entropy/bitio.h"
#include "entropy/tagtree.h"
#include "gj2k/error.h"

namespace gj2k::entropy {
namespace {

// B.10.1 as written: bytes one after the other, most significant bit first; a byte after 0xFF
// holds 7 bits (its top bit is the stuffed 0). Reading past the end throws; align() skips the
// rest of the byte and the byte that follows a final 0xFF.
class SpecBitReader {
 public:
  explicit SpecBitReader(std::span<const uint8_t> bytes) : bytes_(bytes) {}
  uint32_t get_bit() {
    if (bits_left_ == 0) {
      if (pos_ >= bytes_.size()) {
        throw Error(ErrorCode::kTruncated, "packet header: ends at byte " + std::to_string(pos_) +
                                               " in the middle of its bits");
      }
      cur_ = bytes_[pos_++];
      bits_left_ = last_ff_ ? 7 : 8;
      last_ff_ = cur_ == 0xFF;
    }
    --bits_left_;
    return (cur_ >> bits_left_) & 1u;
  }
  uint32_t get_bits(int count) {
    uint32_t v = 0;
    for (int i = 0; i < count; ++i) v = (v << 1) | get_bit();
    return v;
  }
  int32_t get_run(int32_t max, uint32_t bit) {
    int32_t n = 0;
    while (n < max && get_bit() == bit) ++n;
    return n;
  }
  size_t align() {
    bits_left_ = 0;
    if (last_ff_) {
      if (pos_ >= bytes_.size()) {
        throw Error(ErrorCode::kTruncated, "packet header: ends with 0xFF at byte " +
                                               std::to_string(pos_ - 1) +
                                               " without the stuffed byte that must follow");
      }
      ++pos_;
      last_ff_ = false;
    }
    return pos_;
  }
  size_t byte_position() const { return pos_; }

 private:
  std::span<const uint8_t> bytes_;
  size_t pos_ = 0;
  int bits_left_ = 0;
  uint8_t cur_ = 0;
  bool last_ff_ = false;
};

// What a call gave: its value, or its error's code and message.
template <class F>
std::string outcome(F&& f) {
  try {
    return std::to_string(f());
  } catch (const Error& e) {
    return "error " + std::to_string(static_cast<int>(e.code())) + ": " + e.what();
  }
}

// Bytes with long runs of 0 and 1 bits and many 0xFF bytes (valid stuffing or not).
std::vector<uint8_t> random_bytes(std::mt19937& rng) {
  std::vector<uint8_t> bytes(rng() % 40);
  const uint32_t kind = rng() % 4;
  for (uint8_t& b : bytes) {
    const uint32_t pick = rng() % 8;
    if (kind == 0) {
      b = static_cast<uint8_t>(rng());
    } else if (pick < 3) {
      b = 0x00;
    } else if (pick < 6) {
      b = 0xFF;
    } else if (pick == 6) {
      b = 0x7F;
    } else {
      b = static_cast<uint8_t>(1u << (rng() % 8));
    }
  }
  return bytes;
}

// A run's longest allowed length: short, around the buffer's 57 to 64 bits, or unbounded.
int32_t random_max(std::mt19937& rng) {
  switch (rng() % 5) {
    case 0:
      return static_cast<int32_t>(rng() % 4);
    case 1:
      return static_cast<int32_t>(rng() % 20);
    case 2:
      return static_cast<int32_t>(50 + rng() % 30);
    case 3:
      return static_cast<int32_t>(rng() % 400);
    default:
      return INT32_MAX - static_cast<int32_t>(rng() % 3);
  }
}

TEST(HeaderBitReader, MatchesTheBitByBitReaderOnRandomBytes) {
  int errors = 0, reads = 0;
  for (uint32_t seed = 1; seed <= 3000; ++seed) {
    std::mt19937 rng(seed);
    const std::vector<uint8_t> bytes = random_bytes(rng);
    HeaderBitReader got(bytes);
    SpecBitReader want(bytes);
    for (int step = 0; step < 60; ++step) {
      std::string g, w;
      const uint32_t op = rng() % 8;
      if (op == 0) {
        g = outcome([&] { return got.get_bit(); });
        w = outcome([&] { return want.get_bit(); });
      } else if (op == 1) {
        const int n = static_cast<int>(rng() % 33);
        g = outcome([&] { return got.get_bits(n); });
        w = outcome([&] { return want.get_bits(n); });
      } else if (op == 2 || op == 3) {
        const int32_t max = random_max(rng);
        g = outcome([&] { return got.get_zeros_then_one(max); });
        w = outcome([&] { return want.get_run(max, 0); });
      } else if (op == 4) {
        const int32_t max = random_max(rng);
        g = outcome([&] { return got.get_ones_then_zero(max); });
        w = outcome([&] { return want.get_run(max, 1); });
      } else if (op == 5) {
        // A look ahead, then reading part of it (as the pass count codewords are read).
        const int n = 1 + static_cast<int>(rng() % 32);
        SpecBitReader ahead = want;
        w = outcome([&] { return ahead.get_bits(n); });
        if (got.prefetch(n)) {
          g = std::to_string(got.peek_bits(n));
          const int k = static_cast<int>(rng() % (n + 1));
          got.skip_bits(k);
          want.get_bits(k);
        } else {
          // Fewer than n bits are left: reading n fails where the bit-by-bit reader does.
          ASSERT_NE(w.find("error"), std::string::npos) << "seed " << seed << " step " << step;
          g = w = "-";
        }
      } else if (op == 6) {
        g = outcome([&] { return got.align(); });
        w = outcome([&] { return want.align(); });
      } else {
        g = std::to_string(got.byte_position());
        w = std::to_string(want.byte_position());
      }
      ASSERT_EQ(g, w) << "seed " << seed << " step " << step << " op " << op;
      ASSERT_EQ(got.byte_position(), want.byte_position()) << "seed " << seed << " step " << step;
      if (g.find("error") != std::string::npos) {
        ++errors;  // both read every bit up to the end: the next reads fail alike
        if (rng() % 2) break;
      }
      ++reads;
    }
  }
  EXPECT_GT(errors, 1000);  // most sequences run into the end of their bytes
  EXPECT_GT(reads, 20000);
}

TEST(HeaderBitReader, RunsAcrossStuffedBytes) {
  // 1111 1111 | (0)000 0000 | 0100 0000: eight 1 bits, a 0, then seven 0 bits and a 1, the
  // run of 0 bits crossing from the 7-bit byte after 0xFF into the next.
  const std::vector<uint8_t> bytes{0xFF, 0x00, 0x40};
  HeaderBitReader r(bytes);
  EXPECT_EQ(r.get_ones_then_zero(100), 8);
  EXPECT_EQ(r.byte_position(), 2u);
  EXPECT_EQ(r.get_zeros_then_one(100), 7);
  EXPECT_EQ(r.byte_position(), 3u);
  EXPECT_EQ(r.align(), 3u);

  // A run of 1 bits through 0xFF, 0x7F (7 bits), 0xFF: 8 + 7 + 8 ones, then the 7-bit byte
  // 0x3F gives a 0 and six 1 bits.
  const std::vector<uint8_t> ones{0xFF, 0x7F, 0xFF, 0x3F};
  HeaderBitReader r2(ones);
  EXPECT_EQ(r2.get_ones_then_zero(1000), 23);
  EXPECT_EQ(r2.get_ones_then_zero(6), 6);  // the last six: up to the limit, no 0 needed
  EXPECT_EQ(r2.align(), 4u);
}

TEST(HeaderBitReader, RunsLongerThanTheBuffer) {
  // 200 bytes of 0 bits, then a 1: 1600 zeros in one call, over many refills.
  std::vector<uint8_t> bytes(200, 0x00);
  bytes.push_back(0x80);
  HeaderBitReader r(bytes);
  EXPECT_EQ(r.get_zeros_then_one(INT32_MAX), 1600);
  EXPECT_EQ(r.byte_position(), 201u);
  // A limit inside the run stops there, at the right byte.
  HeaderBitReader r2(bytes);
  EXPECT_EQ(r2.get_zeros_then_one(1000), 1000);
  EXPECT_EQ(r2.byte_position(), 125u);
  EXPECT_EQ(r2.get_zeros_then_one(600), 600);
  EXPECT_EQ(r2.byte_position(), 200u);  // the last 0 bit ends byte 199
  EXPECT_EQ(r2.get_bit(), 1u);
  EXPECT_EQ(r2.byte_position(), 201u);
  EXPECT_EQ(r2.get_zeros_then_one(0), 0);  // a limit of 0 reads nothing
  EXPECT_EQ(r2.get_zeros_then_one(-5), 0);
}

TEST(HeaderBitReader, TruncatedInsideARun) {
  const std::vector<uint8_t> zeros(9, 0x00);
  for (const int32_t max : {73, 1000, INT32_MAX}) {
    HeaderBitReader r(zeros);
    try {
      r.get_zeros_then_one(max);
      ADD_FAILURE() << "no error for max " << max;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::kTruncated);
      EXPECT_STREQ(e.what(), "packet header: ends at byte 9 in the middle of its bits");
    }
  }
  HeaderBitReader exact(zeros);
  EXPECT_EQ(exact.get_zeros_then_one(72), 72);  // the run ends with the bytes: no error
  EXPECT_EQ(exact.align(), 9u);

  // 1 bits up to the end, the last byte a 0xFF: align() wants the stuffed byte after it.
  const std::vector<uint8_t> ones{0xFF, 0x7F, 0xFF};
  HeaderBitReader r(ones);
  EXPECT_THROW(r.get_ones_then_zero(100), Error);
  HeaderBitReader r2(ones);
  EXPECT_EQ(r2.get_ones_then_zero(23), 23);
  try {
    r2.align();
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kTruncated);
    EXPECT_STREQ(e.what(),
                 "packet header: ends with 0xFF at byte 2 without the stuffed byte that must "
                 "follow");
  }
}

TEST(HeaderBitReader, ReadsOnAfterAlign) {
  // A header ending on 0xFF and its stuffed byte, then a second header: the second reads its
  // first byte as 8 bits whatever the byte before it was.
  const std::vector<uint8_t> bytes{0xFF, 0xFF, 0xFF, 0x7F};
  HeaderBitReader r(bytes);
  SpecBitReader s(bytes);
  EXPECT_EQ(r.get_bits(8), s.get_bits(8));
  EXPECT_EQ(r.align(), s.align());  // 2: the byte after 0xFF belongs to the first header
  EXPECT_EQ(r.get_bits(8), 0xFFu);
  EXPECT_EQ(s.get_bits(8), 0xFFu);
  EXPECT_EQ(r.get_bits(7), s.get_bits(7));
  EXPECT_EQ(r.byte_position(), 4u);
  EXPECT_EQ(r.align(), s.align());
}

TEST(TagTree, ThresholdsNearTheLargestValue) {
  // decode_value's limit INT32_MAX reads up to INT32_MAX zeros for a node: on a stream of 0
  // bits it fails at the end of the bytes, as reading bit by bit does.
  const std::vector<uint8_t> zeros(16, 0x00);
  for (const int32_t limit : {INT32_MAX, INT32_MAX - 1, 1 << 30}) {
    TagTree tree(3, 2);
    HeaderBitReader r(zeros);
    try {
      tree.decode_value(r, 4, limit);
      ADD_FAILURE() << "no error for limit " << limit;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::kTruncated) << e.what();
      EXPECT_STREQ(e.what(), "packet header: ends at byte 16 in the middle of its bits");
    }
  }
  // 100 zeros then a 1 at the root, a 1 for each node below: the value 100.
  std::vector<uint8_t> bytes(12, 0x00);  // 96 zeros
  bytes.push_back(0x0F);                 // 4 zeros, then 1 bits
  bytes.push_back(0xE0);
  TagTree tree(3, 2);  // levels: 3x2, 2x1, 1x1
  HeaderBitReader r(bytes);
  EXPECT_EQ(tree.decode_value(r, 4, INT32_MAX), 100);
  EXPECT_TRUE(tree.decode(r, 4, INT32_MAX));
  EXPECT_EQ(r.byte_position(), 13u);
  // The leaf beside it at threshold INT32_MAX: its nodes above are known, its own bits follow.
  EXPECT_TRUE(tree.decode(r, 5, INT32_MAX));
  EXPECT_EQ(tree.value(5), 100);
}

}  // namespace
}  // namespace gj2k::entropy
