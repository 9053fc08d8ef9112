// The API boundary's device conversion (codec/device.h): every public choice of DecodeParams
// and EncodeParams maps to the transform::Device of the same meaning; likely_decode_device
// judges a file by the headers in its first megabyte as the decoder judges it.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>

#include "codec/device.h"
#include "codec/synthetic.h"
#include "gj2k/encoder.h"

namespace gj2k::codec {
namespace {

TEST(DeviceBoundary, DecodeDeviceMapsToTheSameChoice) {
  EXPECT_EQ(to_transform(DecodeDevice::kAuto), transform::Device::kAuto);
  EXPECT_EQ(to_transform(DecodeDevice::kCpu), transform::Device::kCpu);
  EXPECT_EQ(to_transform(DecodeDevice::kGpu), transform::Device::kGpu);
}

TEST(DeviceBoundary, EncodeDeviceMapsToTheSameChoice) {
  EXPECT_EQ(to_transform(EncodeParams::Device::kAuto), transform::Device::kAuto);
  EXPECT_EQ(to_transform(EncodeParams::Device::kCpu), transform::Device::kCpu);
  EXPECT_EQ(to_transform(EncodeParams::Device::kGpu), transform::Device::kGpu);
}

// What a decode weighs for its device: the samples at the decoded resolution (two levels off:
// a sixteenth), a region's own samples and the tiles it meets, the bytes in proportion to the
// samples; subsampled components count at their own size.
TEST(DeviceBoundary, DecodeExtentFollowsWhatIsDecoded) {
  HeaderInfo h;
  h.x0 = 0;
  h.y0 = 0;
  h.x1 = 1024;
  h.y1 = 512;
  h.tile_width = 256;
  h.tile_height = 256;
  h.components.resize(3);
  h.components[1].dx = h.components[2].dx = 2;  // 4:2:2
  const uint64_t full = 1024 * 512 + 2 * 512 * 512;
  DecodeParams p;
  DecodeExtent e = decode_extent(p, h, 1000000);
  EXPECT_EQ(e.samples, full);
  EXPECT_EQ(e.bytes, 1000000u);
  EXPECT_EQ(e.tiles, 8u);
  p.reduce = 2;
  e = decode_extent(p, h, 1000000);
  EXPECT_EQ(e.samples, full / 16);
  EXPECT_EQ(e.bytes, 1000000u / 16);
  EXPECT_EQ(e.tiles, 8u);
  p.reduce = 0;
  p.region = Region{300, 10, 600, 200};  // tiles 1 and 2 of the first row
  e = decode_extent(p, h, 1000000);
  EXPECT_EQ(e.samples, uint64_t{300} * 190 + 2 * uint64_t{150} * 190);
  EXPECT_EQ(e.tiles, 2u);
  EXPECT_NEAR(double(e.bytes), 1e6 * double(e.samples) / double(full), 1.0);
  p.region = Region{2000, 0, 3000, 10};  // outside the image: nothing
  e = decode_extent(p, h, 1000000);
  EXPECT_EQ(e.samples, 0u);
  EXPECT_EQ(e.bytes, 0u);
  p.region.reset();
  p.tile = 3;
  EXPECT_EQ(decode_extent(p, h, 1000000).tiles, 1u);
}

void write(const std::filesystem::path& path, const std::vector<uint8_t>& bytes) {
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()),
             static_cast<std::streamsize>(bytes.size()));
}

TEST(DeviceBoundary, LikelyDecodeDeviceReadsTheHeadersOnly) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("gj2k_likely_" + std::to_string(std::random_device{}()));
  std::filesystem::create_directories(dir);
  // A JP2 larger than the 1 MB the probe reads (noise: it barely compresses), a small .j2k,
  // and bytes that are no codestream.
  Image big = synthetic_image(1200, 1000, 3, 8, 5);
  std::mt19937 rng(5);
  for (Component& c : big.components)
    for (int32_t& v : c.samples) v = static_cast<int32_t>(rng() & 255);
  const std::vector<uint8_t> jp2 = Encoder().encode(big, EncodeParams{}, FileFormat::kJp2);
  ASSERT_GT(jp2.size(), size_t{1} << 20);
  write(dir / "big.jp2", jp2);
  write(dir / "small.j2k", Encoder().encode(synthetic_image(64, 48, 3, 8, 6), EncodeParams{}));
  write(dir / "junk.j2k", std::vector<uint8_t>(100, 0x42));
  DecodeParams p;
  p.device = DecodeDevice::kGpu;
  EXPECT_EQ(likely_decode_device(dir / "big.jp2", p), transform::Device::kGpu);
  EXPECT_EQ(likely_decode_device(dir / "small.j2k", p), transform::Device::kGpu);
  EXPECT_EQ(likely_decode_device(dir / "junk.j2k", p), transform::Device::kCpu);
  EXPECT_EQ(likely_decode_device(dir / "missing.j2k", p), transform::Device::kCpu);
  p.device = DecodeDevice::kCpu;
  EXPECT_EQ(likely_decode_device(dir / "big.jp2", p), transform::Device::kCpu);
  // auto: a small image stays on the CPU; the 1200x1000 one as the cost model says (no decode
  // of this process having chosen to start CUDA: the probe records nothing).
  transform::forget_decode_missed();
  p.device = DecodeDevice::kAuto;
  p.threads = 1;
  EXPECT_EQ(likely_decode_device(dir / "small.j2k", p), transform::Device::kCpu);
  EXPECT_EQ(likely_decode_device(dir / "big.jp2", p),
            transform::auto_choice_decode(transform::Device::kAuto, 1200 * 1000 * 3,
                                          std::filesystem::file_size(dir / "big.jp2"), 1, 1));
  // The first file of a batch: the device asked for, or under auto the batch's placement for
  // it, the files after it sharing the start-up. The 1200x1000 noise image (about a byte per
  // sample) on 16 threads: the GPU would save less than the start-up for one such file, more
  // for 64 of them; a 64x48 image never. Probes record nothing.
  p.threads = 0;
  p.device = DecodeDevice::kGpu;
  EXPECT_EQ(likely_batch_decode_device(dir / "small.j2k", p, 16, 16, 1), transform::Device::kGpu);
  p.device = DecodeDevice::kCpu;
  EXPECT_EQ(likely_batch_decode_device(dir / "big.jp2", p, 16, 16, 64), transform::Device::kCpu);
  p.device = DecodeDevice::kAuto;
  EXPECT_EQ(likely_batch_decode_device(dir / "junk.j2k", p, 16, 16, 64), transform::Device::kCpu);
  EXPECT_EQ(likely_batch_decode_device(dir / "small.j2k", p, 16, 16, 1000),
            transform::Device::kCpu);
  if (!transform::gpu_opened()) {
    EXPECT_EQ(likely_batch_decode_device(dir / "big.jp2", p, 16, 16, 1), transform::Device::kCpu);
  }
  EXPECT_EQ(likely_batch_decode_device(dir / "big.jp2", p, 16, 16, 64), transform::Device::kAuto);
  EXPECT_EQ(transform::decode_missed_ms(), 0.0);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace gj2k::codec
