// MQ coder tests: spec-literal reference vs fast coder, round trips, truncation marks, raw.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <type_traits>
#include <vector>

#include "entropy/mq_dec.h"
#include "entropy/mq_enc.h"
#include "entropy/mq_ref.h"
#include "mq_test_data.h"

namespace gj2k::entropy {
namespace {

struct Decision {
  int cx;
  int d;
};

// Decisions over `num_ctx` contexts; p1 is the probability of a 1 (skew), per context varied.
std::vector<Decision> random_decisions(uint32_t seed, size_t n, double p1, int num_ctx) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::uniform_int_distribution<int> cx(0, num_ctx - 1);
  std::vector<Decision> v(n);
  for (auto& x : v) {
    x.cx = cx(rng);
    const double p = (x.cx % 2) ? p1 : 1.0 - p1;
    x.d = u(rng) < p ? 1 : 0;
  }
  return v;
}

std::vector<uint8_t> encode_ref(const std::vector<Decision>& v, bool predictable) {
  MqRefEncoder enc;
  for (const auto& x : v) enc.encode(x.cx, x.d);
  if (predictable) {
    enc.flush_predictable();
  } else {
    enc.flush();
  }
  return enc.bytes();
}

std::vector<uint8_t> encode_fast(const std::vector<Decision>& v, bool predictable,
                                 std::vector<MqMark>* marks = nullptr) {
  // Two bytes per decision is more than the MQ coder ever writes (at most 15 bits each).
  std::vector<uint8_t> out(2 * v.size() + 8);
  MqEncoder enc(out.data(), static_cast<uint32_t>(out.size()));
  uint8_t st[kNumContexts];
  for (int i = 0; i < kNumContexts; ++i) st[i] = 2 * initial_state_index(i);
  for (size_t i = 0; i < v.size(); ++i) {  // encode and encode_likely_mps, mixed
    const Decision& x = v[i];
    if (i % 3 == 0)
      enc.encode_likely_mps(kMqEncStates, st[x.cx], static_cast<uint32_t>(x.d));
    else
      enc.encode(kMqEncStates, st[x.cx], static_cast<uint32_t>(x.d));
    if (marks) marks->push_back(enc.mark());
  }
  enc.flush(predictable);
  out.resize(enc.size());
  return out;
}

class MqCoderRandom : public ::testing::TestWithParam<std::tuple<double, bool>> {};

TEST_P(MqCoderRandom, FastMatchesReferenceAndRoundTrips) {
  const auto [p1, predictable] = GetParam();
  for (uint32_t seed = 1; seed <= 40; ++seed) {
    const size_t n = (seed * 7919u) % 5000 + (seed % 5 == 0 ? 0 : 1);
    const auto v = random_decisions(seed, n, p1, kNumContexts);
    const auto ref = encode_ref(v, predictable);
    const auto fast = encode_fast(v, predictable);
    ASSERT_EQ(ref, fast) << "seed " << seed << " n " << n;
    if (!fast.empty()) {
      ASSERT_NE(fast.back(), 0xFF) << "seed " << seed;
    }
    MqRefDecoder rdec(fast.data(), fast.size());
    MqDecoder fdec(fast.data(), fast.size());
    uint8_t st[kNumContexts];
    for (int i = 0; i < kNumContexts; ++i) st[i] = 2 * initial_state_index(i);
    for (size_t i = 0; i < n; ++i) {
      ASSERT_EQ(rdec.decode(v[i].cx), v[i].d) << "seed " << seed << " i " << i;
      ASSERT_EQ(static_cast<int>(fdec.decode(kMqDecStates, st[v[i].cx])), v[i].d)
          << "seed " << seed << " i " << i;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Stats, MqCoderRandom,
                         ::testing::Combine(::testing::Values(0.5, 0.2, 0.03, 0.001, 0.0),
                                            ::testing::Bool()));

// Decoding the resolved prefix of a segment reproduces every decision coded before the mark.
TEST(MqCoder, TruncationMarksAreSufficient) {
  for (uint32_t seed = 100; seed < 130; ++seed) {
    const double p1 = (seed % 3 == 0) ? 0.5 : (seed % 3 == 1) ? 0.1 : 0.01;
    const auto v = random_decisions(seed, 3000, p1, 5);
    std::vector<MqMark> marks;
    const auto bytes = encode_fast(v, seed % 2 == 0, &marks);
    std::mt19937 rng(seed);
    for (int t = 0; t < 40; ++t) {
      const size_t k = std::uniform_int_distribution<size_t>(0, v.size() - 1)(rng);
      const size_t len = MqEncoder::resolve(marks[k], bytes.data(), 0, bytes.size());
      ASSERT_LE(len, bytes.size());
      const std::vector<uint8_t> prefix(bytes.begin(), bytes.begin() + len);
      MqDecoder dec(prefix.data(), prefix.size());
      uint8_t st[kNumContexts];
      for (int i = 0; i < kNumContexts; ++i) st[i] = 2 * initial_state_index(i);
      for (size_t i = 0; i <= k; ++i) {
        ASSERT_EQ(static_cast<int>(dec.decode(kMqDecStates, st[v[i].cx])), v[i].d)
            << "seed " << seed << " mark " << k << " i " << i << " len " << len;
      }
    }
  }
}

TEST(MqCoder, CorruptDataNeverReadsOutOfBounds) {
  std::mt19937 rng(7);
  for (int t = 0; t < 200; ++t) {
    std::vector<uint8_t> junk(t % 17);
    for (auto& b : junk) b = static_cast<uint8_t>(rng() % 4 == 0 ? 0xFF : rng());
    MqDecoder dec(junk.data(), junk.size());
    MqRefDecoder ref(junk.data(), junk.size());
    uint8_t st[kNumContexts];
    for (int i = 0; i < kNumContexts; ++i) st[i] = 2 * initial_state_index(i);
    for (int i = 0; i < 500; ++i) {
      const int cx = static_cast<int>(rng() % kNumContexts);
      ASSERT_EQ(static_cast<int>(dec.decode(kMqDecStates, st[cx])), ref.decode(cx))
          << "trial " << t;
    }
  }
}

// The two fast decoders (decode and decode_likely_mps mixed) against the reference on random
// bytes, 0xFF-heavy, with bytes 0x80..0x8F after 0xFF (only corrupt data has them: BYTEIN adds
// them onto the 0xFF's last bit, which MqDecoderWide must not read ahead of), and on valid
// segments of every skew.
// The state table each fast decoder reads.
template <class Decoder>
const auto& decoder_states() {
  if constexpr (std::is_same_v<Decoder, MqDecoderWide>)
    return kMqWideStates;
  else
    return kMqDecStates;
}

// Masks: MqDecoderWide's portable selects (what hosts without GJ2K_MQ_CMOV and the kernels'
// sources compile), where the default build takes the cmov ones.
template <class Decoder, bool Masks = false>
void expect_like_reference(const std::vector<uint8_t>& bytes, std::mt19937& rng, int decisions,
                           const char* what) {
  Decoder dec(bytes.data(), bytes.size());
  MqRefDecoder ref(bytes.data(), bytes.size());
  const auto& states = decoder_states<Decoder>();
  typename Decoder::Context st[kNumContexts];
  for (int i = 0; i < kNumContexts; ++i) st[i] = Decoder::context(2 * initial_state_index(i));
  for (int i = 0; i < decisions; ++i) {
    const int cx = static_cast<int>(rng() % kNumContexts);
    uint32_t d;
    if constexpr (Masks)
      d = rng() % 2 ? dec.template decode<false>(states, st[cx])
                    : dec.template decode_likely_mps<false>(states, st[cx]);
    else
      d = rng() % 2 ? dec.decode(states, st[cx]) : dec.decode_likely_mps(states, st[cx]);
    ASSERT_EQ(static_cast<int>(d), ref.decode(cx))
        << what << ", " << bytes.size() << " bytes, decision " << i;
  }
}

TEST(MqCoder, WideDecoderDecodesAsTheReference) {
  std::mt19937 rng(2026);
  for (int t = 0; t < 2000; ++t) {
    const std::vector<uint8_t> junk = test::mq_junk(rng, t % 61);
    expect_like_reference<MqDecoderWide>(junk, rng, 800, "junk");
    expect_like_reference<MqDecoderWide, true>(junk, rng, 800, "junk, masks");
    expect_like_reference<MqDecoder>(junk, rng, 800, "junk");
  }
  for (uint32_t seed = 1; seed <= 30; ++seed) {
    const double p1 = seed % 3 == 0 ? 0.5 : seed % 3 == 1 ? 0.1 : 0.005;
    const auto v = random_decisions(seed, (seed * 7919u) % 6000 + 1, p1, kNumContexts);
    const auto bytes = encode_fast(v, seed % 2 == 0);
    MqDecoderWide dec(bytes.data(), bytes.size()), masks(bytes.data(), bytes.size());
    MqDecoderWide::Context st[kNumContexts], st_masks[kNumContexts];
    for (int i = 0; i < kNumContexts; ++i)
      st[i] = st_masks[i] = MqDecoderWide::context(2 * initial_state_index(i));
    for (size_t i = 0; i < v.size(); ++i) {
      ASSERT_EQ(static_cast<int>(dec.decode(kMqWideStates, st[v[i].cx])), v[i].d)
          << "seed " << seed << " i " << i;
      ASSERT_EQ(static_cast<int>(masks.decode<false>(kMqWideStates, st_masks[v[i].cx])), v[i].d)
          << "masks, seed " << seed << " i " << i;
    }
  }
}

TEST(MqRaw, RoundTripWithStuffingAndTermination) {
  for (uint32_t seed = 1; seed <= 60; ++seed) {
    std::mt19937 rng(seed);
    const size_t n = rng() % 3000;
    const bool ones = seed % 3 == 0;  // long runs of 1s force 0xFF bytes and stuffing
    std::vector<uint32_t> bits(n);
    for (auto& b : bits) b = ones ? (rng() % 50 != 0) : (rng() & 1);
    std::vector<uint8_t> out(n / 7 + 3);
    out[0] = 0x12;  // a preceding segment
    RawEncoder enc(out.data(), static_cast<uint32_t>(out.size()));
    enc.init(1);
    std::vector<size_t> marks;
    for (auto b : bits) {
      enc.put(b);
      marks.push_back(enc.mark());
    }
    enc.flush(seed % 2 == 0);
    ASSERT_LE(enc.size(), out.size()) << "seed " << seed;
    out.resize(enc.size());
    const uint8_t* seg = out.data() + 1;
    const size_t len = out.size() - 1;
    if (len) {
      ASSERT_NE(seg[len - 1], 0xFF) << "seed " << seed;
    }
    for (size_t i = 0; i + 1 < len; ++i) {
      if (seg[i] == 0xFF) {
        ASSERT_LT(seg[i + 1], 0x80) << "seed " << seed;
      }
    }
    RawDecoder dec(seg, len);
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(dec.bit(), bits[i]) << "seed " << seed << " i " << i;
    for (int t = 0; t < 10 && n; ++t) {
      const size_t k = rng() % n;
      const size_t cut = std::min(marks[k] - 1, len);
      RawDecoder pdec(seg, cut);
      for (size_t i = 0; i <= k; ++i) {
        ASSERT_EQ(pdec.bit(), bits[i]) << "seed " << seed << " mark " << k << " i " << i;
      }
    }
  }
}

// A buffer too small: the coders count the bytes they could not store and never write past
// the capacity; what they did store is the start of the full output.
TEST(MqCoder, OverflowIsCountedNotWritten) {
  const auto v = random_decisions(77, 4000, 0.5, kNumContexts);
  const auto full = encode_fast(v, false);
  ASSERT_GT(full.size(), 100u);
  for (uint32_t cap : {0u, 1u, 50u, static_cast<uint32_t>(full.size()) - 1}) {
    std::vector<uint8_t> buf(cap + 16, 0xA5);
    MqEncoder enc(buf.data(), cap);
    uint8_t st[kNumContexts];
    for (int i = 0; i < kNumContexts; ++i) st[i] = 2 * initial_state_index(i);
    for (const auto& x : v) enc.encode(kMqEncStates, st[x.cx], static_cast<uint32_t>(x.d));
    enc.flush(false);
    EXPECT_EQ(enc.size(), full.size()) << "capacity " << cap;
    EXPECT_TRUE(std::equal(full.begin(), full.begin() + cap, buf.begin())) << "capacity " << cap;
    for (size_t i = cap; i < buf.size(); ++i) ASSERT_EQ(buf[i], 0xA5) << "capacity " << cap;
  }
  std::vector<uint8_t> raw_buf(8, 0xA5);
  RawEncoder raw(raw_buf.data(), 3);
  for (int i = 0; i < 100; ++i) raw.put(i & 1);
  raw.flush(false);
  EXPECT_EQ(raw.size(), 13u);
  for (size_t i = 3; i < raw_buf.size(); ++i) EXPECT_EQ(raw_buf[i], 0xA5);
}

}  // namespace
}  // namespace gj2k::entropy
