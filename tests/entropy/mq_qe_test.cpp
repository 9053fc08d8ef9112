// MqDecoderQe (mq_dec_qe.h), the CUDA kernels' MQ decoder, CPU build: decision for decision
// as MqRefDecoder and MqDecoder on valid segments of every skew, on segments cut at random
// lengths, and on random bytes heavy in 0xFF (with 0x80..0x8F after 0xFF, which only corrupt
// data has); its contexts and successor table against kMqFastStates.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "entropy/mq_dec.h"
#include "entropy/mq_dec_qe.h"
#include "entropy/mq_enc.h"
#include "entropy/mq_ref.h"
#include "mq_test_data.h"

namespace gj2k::entropy {
namespace {

TEST(MqDecoderQe, ContextsAndSuccessorsFollowTheStateTable) {
  for (uint32_t s = 0; s < 94; ++s) {
    const MqFastState& f = kMqFastStates[s];
    const uint32_t cx = MqDecoderQe::context(static_cast<uint8_t>(s));
    EXPECT_EQ(cx >> 16, f.qe) << "state " << s;
    EXPECT_EQ(cx & 0xFFFFu, s) << "state " << s;
    EXPECT_EQ(kMqQeNext[2 * s], MqDecoderQe::context(f.next_mps)) << "state " << s;
    EXPECT_EQ(kMqQeNext[2 * s + 1], MqDecoderQe::context(f.next_lps)) << "state " << s;
    EXPECT_EQ(cx, MqDecoderWide::context(static_cast<uint8_t>(s))) << "state " << s;
  }
}

// Decodes `decisions` decisions in random contexts with MqDecoderQe (decode and
// decode_likely_mps mixed), MqDecoder and MqRefDecoder, all three alike, and their contexts'
// states alike after each.
void expect_like_reference(const std::vector<uint8_t>& bytes, std::mt19937& rng, int decisions,
                           const std::string& what) {
  MqDecoderQe qe(bytes.data(), bytes.size());
  MqDecoder fast(bytes.data(), bytes.size());
  MqRefDecoder ref(bytes.data(), bytes.size());
  MqDecoderQe::Context cq[kNumContexts];
  uint8_t cf[kNumContexts];
  for (int i = 0; i < kNumContexts; ++i) {
    cf[i] = static_cast<uint8_t>(2 * initial_state_index(i));
    cq[i] = MqDecoderQe::context(cf[i]);
  }
  for (int i = 0; i < decisions; ++i) {
    const int cx = static_cast<int>(rng() % kNumContexts);
    const uint32_t d =
        rng() % 2 ? qe.decode(kMqQeNext, cq[cx]) : qe.decode_likely_mps(kMqQeNext, cq[cx]);
    const int want = ref.decode(cx);
    ASSERT_EQ(static_cast<int>(d), want)
        << what << ", " << bytes.size() << " bytes, decision " << i;
    ASSERT_EQ(static_cast<int>(fast.decode(kMqDecStates, cf[cx])), want)
        << what << ", decision " << i;
    ASSERT_EQ(cq[cx], MqDecoderQe::context(cf[cx])) << what << ", decision " << i;
  }
}

std::vector<uint8_t> encode(std::mt19937& rng, size_t n, double p1, bool predictable) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<uint8_t> out(2 * n + 8);
  MqEncoder enc(out.data(), static_cast<uint32_t>(out.size()));
  uint8_t st[kNumContexts];
  for (int i = 0; i < kNumContexts; ++i) st[i] = static_cast<uint8_t>(2 * initial_state_index(i));
  for (size_t i = 0; i < n; ++i) {
    const int cx = static_cast<int>(rng() % kNumContexts);
    const double p = cx % 2 ? p1 : 1.0 - p1;
    enc.encode(kMqEncStates, st[cx], u(rng) < p ? 1u : 0u);
  }
  enc.flush(predictable);
  out.resize(enc.size());
  return out;
}

TEST(MqDecoderQe, DecodesAsTheReferenceOnValidAndTruncatedSegments) {
  for (uint32_t seed = 1; seed <= 60; ++seed) {
    std::mt19937 rng(seed);
    const double p1 = seed % 4 == 0 ? 0.5 : seed % 4 == 1 ? 0.1 : seed % 4 == 2 ? 0.01 : 0.0;
    const size_t n = (seed * 7919u) % 6000 + 1;
    const std::vector<uint8_t> bytes = encode(rng, n, p1, seed % 2 == 0);
    // The whole segment, and decisions past its end (0xFF, C.3.4).
    expect_like_reference(bytes, rng, static_cast<int>(n) + 500, "seed " + std::to_string(seed));
    if (HasFatalFailure()) return;
    for (int t = 0; t < 4 && !bytes.empty(); ++t) {
      const std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + rng() % bytes.size());
      expect_like_reference(cut, rng, static_cast<int>(n),
                            "seed " + std::to_string(seed) + " cut " + std::to_string(cut.size()));
      if (HasFatalFailure()) return;
    }
  }
}

TEST(MqDecoderQe, DecodesAsTheReferenceOnCorruptData) {
  std::mt19937 rng(2027);
  for (int t = 0; t < 2000; ++t) {
    const std::vector<uint8_t> junk = test::mq_junk(rng, t % 61);
    expect_like_reference(junk, rng, 800, "junk " + std::to_string(t));
    if (HasFatalFailure()) return;
  }
}

}  // namespace
}  // namespace gj2k::entropy
