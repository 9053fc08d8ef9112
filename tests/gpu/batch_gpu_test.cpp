// Batches on the GPU (decode_batch, encode_batch; codec/batch.h): a mix of streams (lossless and
// 9/7, J2K and JP2, sizes from small to a few Msamples, 1 to 3 components, tiles) decoded as one
// batch with --device gpu and auto, several in flight at once, equals one-by-one CPU decodes
// sample for sample (the GPU decodes 5/3 and 9/7 as the CPU does); a damaged stream in the
// middle fails alone; a batch of GPU encodes writes the CPU's bytes.
#include <gtest/gtest.h>

#include <span>
#include <string>
#include <vector>

#include "codec/synthetic.h"
#include "gj2k/gj2k.h"
#include "gpu/gpu_test_util.h"

namespace gj2k {
namespace {

using Bytes = std::vector<uint8_t>;

struct Case {
  Image image;
  EncodeParams params;
  FileFormat format;
};

std::vector<Case> mixed_cases() {
  EncodeParams lossless, lossy, tiled;
  lossy.irreversible = true;
  lossy.rates = {16};
  tiled.tile_width = 256;
  tiled.tile_height = 192;
  std::vector<Case> cases;
  for (uint32_t k = 0; k < 3; ++k) {
    cases.push_back(
        {codec::synthetic_image(1201 + 64 * k, 801, 3, 8, 10 + k), lossless, FileFormat::kJ2k});
    cases.push_back(
        {codec::synthetic_image(1023, 767 + 32 * k, 3, 8, 20 + k), lossy, FileFormat::kJp2});
  }
  cases.push_back({codec::synthetic_image(97, 61, 3, 8, 1), lossless, FileFormat::kJ2k});
  cases.push_back({codec::synthetic_image(645, 480, 1, 12, 3), lossless, FileFormat::kJp2});
  cases.push_back({codec::synthetic_image(700, 500, 3, 8, 4), tiled, FileFormat::kJ2k});
  cases.push_back({codec::synthetic_image(2049, 1537, 3, 8, 5), lossy, FileFormat::kJ2k});
  return cases;
}

Image decode_cpu(std::span<const uint8_t> s) {
  DecodeParams p;
  p.device = DecodeDevice::kCpu;
  return decode_memory(s, p);
}

TEST(DecodeBatchGpu, MixedStreamsEqualOneByOneCpuDecodes) {
  GJ2K_REQUIRE_GPU();
  std::vector<Bytes> streams;
  for (const Case& c : mixed_cases()) {
    EncodeParams p = c.params;
    p.device = EncodeParams::Device::kCpu;
    streams.push_back(Encoder().encode(c.image, p, c.format));
  }
  const size_t damaged_at = 4;
  streams.insert(streams.begin() + damaged_at, Bytes(streams[0].begin(), streams[0].begin() + 40));
  const std::vector<std::span<const uint8_t>> spans(streams.begin(), streams.end());
  std::vector<Image> expected(spans.size());
  for (size_t k = 0; k < spans.size(); ++k)
    if (k != damaged_at) expected[k] = decode_cpu(spans[k]);
  for (DecodeDevice device : {DecodeDevice::kGpu, DecodeDevice::kAuto}) {
    for (uint32_t threads : {4u, 16u}) {
      SCOPED_TRACE(std::string(device == DecodeDevice::kGpu ? "gpu" : "auto") + ", threads " +
                   std::to_string(threads));
      DecodeParams params;
      params.device = device;
      params.threads = threads;
      const std::vector<BatchResult<Image>> results = decode_batch(spans, params);
      ASSERT_EQ(results.size(), spans.size());
      for (size_t k = 0; k < spans.size(); ++k) {
        SCOPED_TRACE("stream " + std::to_string(k));
        if (k == damaged_at) {
          EXPECT_FALSE(results[k].ok());
          continue;
        }
        ASSERT_TRUE(results[k].ok()) << results[k].error->what();
        const auto diff = compare(results[k].value, expected[k]);
        EXPECT_FALSE(diff) << *diff;
      }
    }
  }
}

TEST(EncodeBatchGpu, WritesTheCpuBytes) {
  GJ2K_REQUIRE_GPU();
  const std::vector<Case> cases = mixed_cases();
  std::vector<Image> images;
  for (const Case& c : cases) images.push_back(c.image);
  for (bool irreversible : {false, true}) {
    SCOPED_TRACE(irreversible ? "9/7" : "5/3");
    EncodeParams params;
    params.irreversible = irreversible;
    if (irreversible) params.rates = {16};
    params.device = EncodeParams::Device::kGpu;
    params.threads = 16;
    const auto results = encode_batch(images, params, FileFormat::kJ2k);
    ASSERT_EQ(results.size(), images.size());
    for (size_t k = 0; k < images.size(); ++k) {
      SCOPED_TRACE("image " + std::to_string(k));
      ASSERT_TRUE(results[k].ok()) << results[k].error->what();
      EncodeParams cpu = params;
      cpu.device = EncodeParams::Device::kCpu;
      EXPECT_TRUE(results[k].value == Encoder().encode(images[k], cpu, FileFormat::kJ2k));
    }
  }
}

}  // namespace
}  // namespace gj2k
