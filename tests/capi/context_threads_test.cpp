// A gj2k_context owns its worker threads: a context of N threads adds N - 1 threads to the
// process while it lives (made at its first encode or decode) and none after it is destroyed;
// contexts of different thread counts used from different threads at once give the same
// output as one thread; gj2k_context_create_ex checks its parameters.
#include "common/capi_round_trip.h"
#include "gj2k.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

namespace {

size_t task_count() {
  size_t n = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator("/proc/self/task")) ++n;
  return n;
}

gj2k_context* make_context(uint32_t threads) {
  gj2k_context_params p;
  gj2k_context_params_init(&p);
  p.threads = threads;
  p.device = GJ2K_DEVICE_CPU;
  return gj2k_context_create_ex(&p);
}

// An 8-bit RGB interleaved picture of w x h whose content depends on `seed`.
std::vector<uint8_t> picture(uint32_t w, uint32_t h, uint32_t seed) {
  std::vector<uint8_t> v(size_t{w} * h * 3);
  for (uint32_t y = 0; y < h; ++y)
    for (uint32_t x = 0; x < w; ++x)
      for (uint32_t c = 0; c < 3; ++c)
        v[(size_t{y} * w + x) * 3 + c] =
            static_cast<uint8_t>((x * (3 + c) + y * 5 + seed * 17 + (x ^ y) * c) & 0xFF);
  return v;
}

// Lossless or 9/7 through ctx and back, with 32x32 code-blocks (many for the threads).
gj2k::test::CapiRoundTrip round_trip(gj2k_context* ctx, const std::vector<uint8_t>& pixels,
                                     uint32_t w, uint32_t h, bool irreversible) {
  return gj2k::test::capi_round_trip(ctx, pixels, w, h, irreversible, 32);
}

TEST(CApiContext, OwnsItsThreadsAndJoinsThemOnDestroy) {
  const size_t before = task_count();
  gj2k_context* ctx = make_context(3);
  ASSERT_NE(ctx, nullptr) << gj2k_last_error();
  EXPECT_EQ(task_count(), before);  // threads start with the first call that codes
  const std::vector<uint8_t> pixels = picture(256, 192, 1);
  const gj2k::test::CapiRoundTrip r = round_trip(ctx, pixels, 256, 192, false);
  EXPECT_EQ(r.decoded, pixels);         // lossless
  EXPECT_EQ(task_count(), before + 2);  // 3 threads: the caller and 2 workers, no more
  round_trip(ctx, pixels, 256, 192, true);
  EXPECT_EQ(task_count(), before + 2);  // the same 2 again
  // A new thread count remakes the pool.
  ASSERT_EQ(gj2k_context_set_threads(ctx, 2), GJ2K_OK);
  EXPECT_EQ(task_count(), before);
  round_trip(ctx, pixels, 256, 192, false);
  EXPECT_EQ(task_count(), before + 1);
  gj2k_context_destroy(ctx);
  EXPECT_EQ(task_count(), before);  // nothing of the context outlives it
}

TEST(CApiContext, ContextsOfDifferentThreadsRunAtOnce) {
  constexpr uint32_t kW = 320, kH = 200;
  std::vector<std::vector<uint8_t>> inputs;
  std::vector<gj2k::test::CapiRoundTrip> expected;
  {
    gj2k_context* serial = make_context(1);
    ASSERT_NE(serial, nullptr);
    for (uint32_t k = 0; k < 4; ++k) {
      inputs.push_back(picture(kW, kH, k));
      expected.push_back(round_trip(serial, inputs.back(), kW, kH, k % 2 == 1));
    }
    gj2k_context_destroy(serial);
  }
  const size_t before = task_count();
  std::vector<std::string> failures(2);
  auto user = [&](uint32_t threads, size_t slot) {
    gj2k_context* ctx = make_context(threads);
    if (!ctx) {
      failures[slot] = gj2k_last_error();
      return;
    }
    for (int round = 0; round < 3; ++round)
      for (size_t k = 0; k < inputs.size(); ++k) {
        const gj2k::test::CapiRoundTrip r = round_trip(ctx, inputs[k], kW, kH, k % 2 == 1);
        if (r.stream != expected[k].stream || r.decoded != expected[k].decoded)
          failures[slot] +=
              "threads " + std::to_string(threads) + ": image " + std::to_string(k) + " differs; ";
      }
    gj2k_context_destroy(ctx);
  };
  std::thread a(user, 2, 0), b(user, 4, 1);
  a.join();
  b.join();
  EXPECT_EQ(failures[0], "");
  EXPECT_EQ(failures[1], "");
  EXPECT_EQ(task_count(), before);
}

TEST(CApiContext, CreateExChecksItsParameters) {
  gj2k_context_params p;
  gj2k_context_params_init(&p);
  EXPECT_EQ(p.struct_size, sizeof(p));
  EXPECT_EQ(p.threads, 0u);
  EXPECT_EQ(p.device, GJ2K_DEVICE_AUTO);
  EXPECT_EQ(p.device_index, 0);

  EXPECT_EQ(gj2k_context_create_ex(nullptr), nullptr);
  EXPECT_NE(std::string(gj2k_last_error()).find("params"), std::string::npos);
  gj2k_context_params bad = p;
  bad.struct_size = 4;
  EXPECT_EQ(gj2k_context_create_ex(&bad), nullptr);
  EXPECT_NE(std::string(gj2k_last_error()).find("struct_size"), std::string::npos);
  bad = p;
  bad.threads = 5000;
  EXPECT_EQ(gj2k_context_create_ex(&bad), nullptr);
  EXPECT_NE(std::string(gj2k_last_error()).find("5000"), std::string::npos);
  bad = p;
  bad.device = static_cast<gj2k_device>(9);
  EXPECT_EQ(gj2k_context_create_ex(&bad), nullptr);
  EXPECT_NE(std::string(gj2k_last_error()).find("device 9"), std::string::npos);
  bad = p;
  bad.device_index = -1;
  EXPECT_EQ(gj2k_context_create_ex(&bad), nullptr);
  EXPECT_NE(std::string(gj2k_last_error()).find("device_index -1"), std::string::npos);

  // A CPU context never selects its GPU: any device index works.
  p.threads = 2;
  p.device = GJ2K_DEVICE_CPU;
  p.device_index = 3;
  gj2k_context* ctx = gj2k_context_create_ex(&p);
  ASSERT_NE(ctx, nullptr) << gj2k_last_error();
  const std::vector<uint8_t> pixels = picture(64, 48, 7);
  EXPECT_EQ(round_trip(ctx, pixels, 64, 48, false).decoded, pixels);
  gj2k_context_destroy(ctx);
}

}  // namespace
