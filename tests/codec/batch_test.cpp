// decode_batch and encode_batch (gj2k/decoder.h, gj2k/encoder.h): the results of a batch equal
// those of one-by-one calls, sample for sample and byte for byte, for a mix of streams
// (lossless and 9/7, J2K and JP2, sizes, component counts, tiles); a damaged input in the
// middle reports its error while the others still decode; the thread-sharing rule of
// codec/batch.h.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "codec/batch.h"
#include "codec/synthetic.h"
#include "gj2k/gj2k.h"

namespace gj2k {
namespace {

using Bytes = std::vector<uint8_t>;

// A grey image with an alpha channel: two components of different content.
Image grey_alpha(uint32_t w, uint32_t h) {
  Image image = codec::synthetic_image(w, h, 1, 8, 5);
  Component alpha = codec::synthetic_image(w, h, 1, 8, 6).components[0];
  alpha.is_alpha = true;
  image.components.push_back(alpha);
  return image;
}

struct Case {
  Image image;
  EncodeParams params;
  FileFormat format;
};

// Lossless and 9/7, J2K and JP2, odd sizes, 1, 2 and 3 components, 8 and 12 bits, tiles.
std::vector<Case> mixed_cases() {
  std::vector<Case> cases;
  EncodeParams lossless;
  EncodeParams lossy;
  lossy.irreversible = true;
  lossy.rates = {12};
  EncodeParams tiled = lossless;
  tiled.tile_width = 64;
  tiled.tile_height = 48;
  cases.push_back({codec::synthetic_image(97, 61, 3, 8, 1), lossless, FileFormat::kJ2k});
  cases.push_back({codec::synthetic_image(130, 77, 3, 8, 2), lossy, FileFormat::kJp2});
  cases.push_back({codec::synthetic_image(45, 120, 1, 12, 3), lossless, FileFormat::kJp2});
  cases.push_back({grey_alpha(80, 50), lossy, FileFormat::kJ2k});
  cases.push_back({codec::synthetic_image(150, 100, 3, 8, 4), tiled, FileFormat::kJ2k});
  return cases;
}

std::vector<Bytes> encode_each(const std::vector<Case>& cases) {
  std::vector<Bytes> streams;
  for (const Case& c : cases) streams.push_back(Encoder().encode(c.image, c.params, c.format));
  return streams;
}

TEST(DecodeBatch, EqualsOneByOneDecodesAndKeepsGoingPastADamagedStream) {
  std::vector<Bytes> streams = encode_each(mixed_cases());
  // A stream cut inside its main header, in the middle of the batch.
  Bytes damaged(streams[0].begin(), streams[0].begin() + 30);
  streams.insert(streams.begin() + 2, damaged);
  const std::vector<std::span<const uint8_t>> spans(streams.begin(), streams.end());
  for (uint32_t threads : {1u, 2u, 3u}) {
    SCOPED_TRACE("threads " + std::to_string(threads));
    DecodeParams params;
    params.threads = threads;
    const std::vector<BatchResult<Image>> results = decode_batch(spans, params);
    ASSERT_EQ(results.size(), streams.size());
    for (size_t k = 0; k < streams.size(); ++k) {
      SCOPED_TRACE("stream " + std::to_string(k));
      if (k == 2) {
        ASSERT_FALSE(results[k].ok());
        EXPECT_EQ(results[k].error->code(), ErrorCode::kTruncated) << results[k].error->what();
        EXPECT_EQ(std::string(results[k].error->what()).rfind("stream 2: ", 0), 0u)
            << results[k].error->what();
        EXPECT_THROW(decode_memory(spans[k]), Error);
        continue;
      }
      ASSERT_TRUE(results[k].ok()) << results[k].error->what();
      const Image one = decode_memory(spans[k]);
      const auto diff = compare(results[k].value, one);
      EXPECT_FALSE(diff) << *diff;
      EXPECT_EQ(results[k].value.color_space, one.color_space);
    }
  }
}

TEST(DecodeBatch, PassesTheParametersToEveryStream) {
  std::vector<Bytes> streams = encode_each(mixed_cases());
  const std::vector<std::span<const uint8_t>> spans(streams.begin(), streams.end());
  DecodeParams params;
  params.reduce = 1;
  params.threads = 2;
  const auto results = decode_batch(spans, params);
  for (size_t k = 0; k < spans.size(); ++k) {
    ASSERT_TRUE(results[k].ok()) << results[k].error->what();
    const auto diff = compare(results[k].value, decode_memory(spans[k], params));
    EXPECT_FALSE(diff) << "stream " << k << ": " << *diff;
  }
  EXPECT_EQ(results[0].value.width(), (97u + 1) / 2);
  EXPECT_TRUE(decode_batch({}, params).empty());
}

TEST(DecodeBatch, CancelledByProgressEndsEveryUnfinishedStream) {
  std::vector<Bytes> streams = encode_each(mixed_cases());
  const std::vector<std::span<const uint8_t>> spans(streams.begin(), streams.end());
  DecodeParams params;
  params.threads = 2;
  std::atomic<int> calls{0};
  params.progress = [&](const char*, double) { return ++calls < 2; };
  const auto results = decode_batch(spans, params);
  size_t cancelled = 0;
  for (const auto& r : results)
    if (!r.ok() && r.error->code() == ErrorCode::kCancelled) ++cancelled;
  EXPECT_GE(cancelled, spans.size() - 2) << "at most the streams in flight may finish";
  EXPECT_EQ(cancelled +
                std::count_if(results.begin(), results.end(), [](const auto& r) { return r.ok(); }),
            results.size());
}

TEST(EncodeBatch, EqualsOneByOneEncodesAndKeepsGoingPastABadImage) {
  std::vector<Case> cases = mixed_cases();
  std::vector<Image> images;
  for (const Case& c : cases) images.push_back(c.image);
  Image bad = images[1];
  bad.components[0].samples.resize(7);  // fewer samples than its size
  images.insert(images.begin() + 2, bad);
  for (const FileFormat format : {FileFormat::kJ2k, FileFormat::kJp2}) {
    for (const bool lossy : {false, true}) {
      EncodeParams params;
      params.irreversible = lossy;
      if (lossy) params.rates = {20, 5};
      params.threads = 2;
      SCOPED_TRACE(std::string(lossy ? "9/7" : "5/3") +
                   (format == FileFormat::kJp2 ? " JP2" : " J2K"));
      const auto results = encode_batch(images, params, format);
      ASSERT_EQ(results.size(), images.size());
      for (size_t k = 0; k < images.size(); ++k) {
        if (k == 2) {
          ASSERT_FALSE(results[k].ok());
          EXPECT_EQ(results[k].error->code(), ErrorCode::kInvalidArgument);
          EXPECT_EQ(std::string(results[k].error->what()).rfind("image 2: ", 0), 0u)
              << results[k].error->what();
          continue;
        }
        ASSERT_TRUE(results[k].ok()) << k << ": " << results[k].error->what();
        EXPECT_EQ(results[k].value, Encoder().encode(images[k], params, format)) << "image " << k;
      }
    }
  }
}

TEST(BatchThreads, SmallImagesShareTheThreadsLargeOnesTakeThemAll) {
  using codec::batch_workers;
  EXPECT_EQ(batch_workers(2, 5), 2);
  EXPECT_EQ(batch_workers(16, 3), 3);
  EXPECT_EQ(batch_workers(8, 1), 1);
  EXPECT_EQ(batch_workers(0, 4), 1);
  EXPECT_EQ(batch_workers(4, 0), 1);
  const uint64_t small = codec::kBatchConcurrentMaxSamples - 1;
  const uint64_t large = codec::kBatchConcurrentMaxSamples;
  // An encode's share: small ones split the threads, on the GPU as many as are in flight
  // there; large ones (and a batch of one worker) run alone.
  using transform::Device;
  EXPECT_EQ(codec::batch_encode_share(Device::kCpu, small, 2, 2).threads, 1);
  EXPECT_EQ(codec::batch_encode_share(Device::kCpu, small, 16, 3).threads, 5);
  EXPECT_EQ(codec::batch_encode_share(Device::kCpu, large, 16, 3).threads, 16);
  EXPECT_EQ(codec::batch_encode_share(Device::kCpu, small, 8, 1).threads, 8);
  const codec::BatchShare enc_gpu = codec::batch_encode_share(Device::kGpu, small, 16, 16);
  EXPECT_TRUE(enc_gpu.gpu);
  EXPECT_EQ(enc_gpu.threads, 16 / codec::kBatchGpuInFlight);
  EXPECT_EQ(codec::batch_encode_share(Device::kGpu, small, 16, 4).threads, 4);
  EXPECT_FALSE(codec::batch_encode_share(Device::kCpu, small, 16, 4).gpu);
  EXPECT_EQ(codec::batch_encode_share(Device::kGpu, large, 16, 3).threads, 16);
  // Under auto, encodes follow the encode cost model (transform::auto_choice_encode) for their
  // share of the threads: below its break-even the CPU, from it the GPU.
  const uint64_t enc_even = transform::encode_break_even(2, transform::gpu_opened());
  EXPECT_TRUE(codec::batch_on_cpu(Device::kAuto, enc_even - 1, 2));
  EXPECT_FALSE(codec::batch_on_cpu(Device::kAuto, enc_even, 2));
  EXPECT_TRUE(codec::batch_on_cpu(Device::kCpu, large, 2));
  EXPECT_FALSE(codec::batch_on_cpu(Device::kGpu, 1, 2));
  // An image coded beside others is asked with its share of the threads (here 16 / 4): a
  // size the GPU wins against that share but not against all 16 threads goes to the GPU.
  const uint64_t share_even = transform::encode_break_even(4, transform::gpu_opened());
  ASSERT_LT(share_even, transform::encode_break_even(16, transform::gpu_opened()));
  ASSERT_LT(share_even, codec::kBatchConcurrentMaxSamples);
  EXPECT_TRUE(codec::batch_encode_share(Device::kAuto, share_even, 16, 4).gpu);
  EXPECT_FALSE(codec::batch_encode_share(Device::kAuto, share_even - 1, 16, 4).gpu);
  // Decodes follow the decode cost model (transform::auto_choice_decode) for their share of
  // the threads, as probes that record nothing: below its break-even for their bytes per
  // sample the CPU, from it (and under kGpu) the GPU.
  for (const double r : {0.0, 0.34}) {
    const uint64_t even = transform::decode_break_even(2, transform::gpu_opened(), 1, r);
    transform::forget_decode_missed();
    if (even > 1) {
      EXPECT_TRUE(codec::batch_decode_on_cpu(Device::kAuto, even - 1,
                                             static_cast<uint64_t>(double(even - 1) * r), 2));
    }
    if (even != ~0ull) {
      EXPECT_FALSE(codec::batch_decode_on_cpu(Device::kAuto, even,
                                              static_cast<uint64_t>(double(even) * r) + 1, 2));
    }
  }
  EXPECT_TRUE(codec::batch_decode_on_cpu(Device::kCpu, large, large, 2));
  EXPECT_FALSE(codec::batch_decode_on_cpu(Device::kGpu, 1, 0, 2));
  EXPECT_EQ(transform::decode_missed_ms(), 0.0);
  // A decode's share: small ones split the threads (on the GPU too), large ones run alone.
  const codec::BatchShare gpu_small = codec::batch_decode_share(Device::kGpu, small, 0, 16, 4);
  EXPECT_EQ(gpu_small.threads, 4);
  EXPECT_TRUE(gpu_small.gpu);
  const codec::BatchShare gpu_many = codec::batch_decode_share(Device::kGpu, small, 0, 16, 16);
  EXPECT_EQ(gpu_many.threads, 16 / codec::kBatchGpuInFlight);  // as many as are in flight
  EXPECT_TRUE(gpu_many.gpu);
  const codec::BatchShare cpu_small = codec::batch_decode_share(Device::kCpu, small, 0, 16, 3);
  EXPECT_EQ(cpu_small.threads, 5);
  EXPECT_FALSE(cpu_small.gpu);
  EXPECT_EQ(codec::batch_decode_share(Device::kCpu, large, 0, 16, 3).threads, 16);
  EXPECT_EQ(codec::batch_decode_share(Device::kGpu, large, 0, 16, 3).threads, 16);
  EXPECT_EQ(codec::batch_decode_share(Device::kCpu, small, 0, 16, 1).threads, 16);
}

TEST(BatchThreads, BudgetServesInArrivalOrder) {
  // Two threads: a small lease is held; a request for both waits for it; a small request that
  // comes after the large one waits behind it even though a thread is free.
  codec::ThreadBudget budget(2);
  budget.acquire(1);
  std::atomic<int> step{0};
  std::atomic<int> large_at{-1}, small_at{-1};
  auto wait_for_waiting = [&](size_t n) {
    while (budget.waiting() < n) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  };
  std::thread large([&] {
    budget.acquire(2);
    large_at = step++;
    budget.release(2);
  });
  wait_for_waiting(1);
  std::thread small([&] {
    budget.acquire(1);
    small_at = step++;
    budget.release(1);
  });
  wait_for_waiting(2);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(large_at.load(), -1) << "the large lease must wait for the one held";
  EXPECT_EQ(small_at.load(), -1) << "the later small lease must wait behind the large one";
  budget.release(1);
  large.join();
  small.join();
  EXPECT_EQ(large_at.load(), 0);
  EXPECT_EQ(small_at.load(), 1);
  EXPECT_EQ(budget.waiting(), 0u);
}

TEST(BatchThreads, TryAcquireNeverWaitsNorJumpsTheQueue) {
  codec::ThreadBudget budget(2);
  EXPECT_TRUE(budget.try_acquire(1));
  EXPECT_FALSE(budget.try_acquire(2));  // one is taken
  std::thread large([&] {
    budget.acquire(2);
    budget.release(2);
  });
  while (budget.waiting() < 1) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_FALSE(budget.try_acquire(1)) << "a thread is free, but the large request came first";
  budget.release(1);
  large.join();
  EXPECT_TRUE(budget.try_acquire(2));
  budget.release(2);
}

// A decode batch under kAuto decodes an image on the CPU instead of waiting for a GPU place
// while the rest of the batch keeps the GPU busy longer than that CPU decode takes
// (kBatchStealCosts); under kGpu, or near the batch's end, it waits.
// --device auto in a decode batch weighs the images as the batch runs them (the CPU's threads
// sharing the work, the GPU at the batch's throughput or, alone, its own decode) and the CUDA
// start-up against the image and those still to start: small lossy images stay on the CPU
// however many follow (the GPU is not faster for them in a batch), small lossless ones go to
// the GPU once enough follow to pay for the start-up, large lossy ones likewise; with CUDA up
// only the per-image costs count.
TEST(BatchThreads, AutoWeighsTheImagesStillToStart) {
  using transform::Device;
  const int threads = 16, workers = 16;
  const uint64_t photo = 2560ull * 1600 * 3, mosaic = 10240ull * 6400 * 3;
  auto on_gpu = [&](uint64_t samples, uint64_t bytes, size_t remaining) {
    transform::forget_decode_missed();
    codec::ThreadBudget places(codec::kBatchGpuInFlight);
    codec::BatchDecodePlace place;
    codec::place_batch_decode(place, Device::kAuto, samples, bytes, threads, workers, 1, places,
                              remaining, true);
    EXPECT_EQ(place.ahead, remaining);
    return place.share.gpu;
  };
  const bool up = transform::gpu_opened();
  // 9/7 rate 20 photos (0.05 bytes per sample): the CPU, even with 63 to follow.
  EXPECT_FALSE(on_gpu(photo, photo / 20, 0));
  EXPECT_FALSE(on_gpu(photo, photo / 20, 63));
  // Lossless photos (0.34 bytes per sample): the GPU when enough follow (or CUDA is up).
  EXPECT_EQ(on_gpu(photo, photo * 34 / 100, 2), up);
  EXPECT_TRUE(on_gpu(photo, photo * 34 / 100, 63));
  // The 9/7 mosaic, alone on all the threads: the CPU for one, the GPU for four.
  EXPECT_EQ(on_gpu(mosaic, 9830344, 0), up);
  EXPECT_TRUE(on_gpu(mosaic, 9830344, 3));
  transform::forget_decode_missed();
}

TEST(BatchThreads, AutoDecodesOnTheCpuWhenTheGpuPlacesAreTaken) {
  using transform::Device;
  transform::forget_decode_missed();
  const uint64_t small = codec::kBatchConcurrentMaxSamples - 1;
  const int threads = 16, workers = 16;
  const uint64_t bytes = small / 4;
  const codec::BatchStealCosts& k = codec::kBatchStealCosts;
  // The fewest images after it for which the GPU stays busy longer than its CPU decode.
  const size_t many = static_cast<size_t>(std::ceil(
      (small * k.cpu_ns_per_sample + bytes * k.cpu_ns_per_byte) / (small * k.gpu_ns_per_sample)));
  if (codec::batch_decode_on_cpu(Device::kAuto, small, bytes, threads / codec::kBatchGpuInFlight))
    GTEST_SKIP() << "the decode cost model puts this size on the CPU anyway";
  codec::ThreadBudget places(1);
  {
    codec::BatchDecodePlace free_place;  // a place is free: the GPU
    codec::place_batch_decode(free_place, Device::kAuto, small, bytes, threads, workers, 1, places,
                              many, true);
    EXPECT_TRUE(free_place.share.gpu);
    EXPECT_TRUE(free_place.gpu_place.has_value());
    EXPECT_EQ(free_place.share.threads, threads / codec::kBatchGpuInFlight);
    EXPECT_EQ(free_place.budget_threads(), 1);
    codec::BatchDecodePlace busy;  // the one place is taken: the CPU, one thread, no place
    codec::place_batch_decode(busy, Device::kAuto, small, bytes, threads, workers, 1, places, many,
                              true);
    EXPECT_FALSE(busy.share.gpu);
    EXPECT_FALSE(busy.gpu_place.has_value());
    EXPECT_EQ(busy.share.threads, threads / workers);
    EXPECT_EQ(busy.budget_threads(), threads / workers);
  }
  // Near the end of the batch (or under kGpu) an image waits for the place: here it is free
  // again, so it gets it at once.
  codec::BatchDecodePlace last;
  codec::place_batch_decode(last, Device::kAuto, small, bytes, threads, workers, 1, places,
                            many - 1, true);
  EXPECT_TRUE(last.share.gpu && last.gpu_place.has_value());
  last.gpu_place.reset();
  codec::BatchDecodePlace asked;
  codec::place_batch_decode(asked, Device::kGpu, small, bytes, threads, workers, 1, places, many,
                            true);
  EXPECT_TRUE(asked.share.gpu && asked.gpu_place.has_value());
  asked.gpu_place.reset();
  // While the CUDA context is being made, an image under auto decodes on the CPU though a
  // place is free, when the rest of the batch would keep the GPU busy longer; near the end, or
  // under kGpu, it takes the place (and waits for the context in its decode).
  {
    codec::BatchDecodePlace starting;
    codec::place_batch_decode(starting, Device::kAuto, small, bytes, threads, workers, 1, places,
                              many, false);
    EXPECT_FALSE(starting.share.gpu);
    EXPECT_FALSE(starting.gpu_place.has_value());
    EXPECT_EQ(starting.share.threads, threads / workers);
    starting.gpu_place.reset();  // (a wrong placement's place, so that the next can take it)
    codec::BatchDecodePlace starting_last;
    codec::place_batch_decode(starting_last, Device::kAuto, small, bytes, threads, workers, 1,
                              places, many - 1, false);
    EXPECT_TRUE(starting_last.share.gpu && starting_last.gpu_place.has_value());
    starting_last.gpu_place.reset();
    codec::BatchDecodePlace starting_gpu;
    codec::place_batch_decode(starting_gpu, Device::kGpu, small, bytes, threads, workers, 1, places,
                              many, false);
    EXPECT_TRUE(starting_gpu.share.gpu && starting_gpu.gpu_place.has_value());
  }
  // An image that runs alone on the GPU takes every thread of the budget, as on the CPU.
  codec::BatchDecodePlace large;
  codec::place_batch_decode(large, Device::kGpu, codec::kBatchConcurrentMaxSamples, bytes, threads,
                            workers, 1, places, many, true);
  EXPECT_TRUE(large.share.gpu && large.alone);
  EXPECT_EQ(large.budget_threads(), threads);
  transform::forget_decode_missed();  // the placements above chose to start CUDA
}

}  // namespace
}  // namespace gj2k
