// The public device choices (DecodeParams::device, EncodeParams::device) as the library's one
// device type, transform::Device. The public enums are converted here, at the API boundary,
// and nowhere else.
#pragma once

#include <filesystem>

#include "gj2k/decoder.h"
#include "gj2k/encoder.h"
#include "transform/device.h"

namespace gj2k::codec {

inline transform::Device to_transform(DecodeDevice d) {
  switch (d) {
    case DecodeDevice::kCpu:
      return transform::Device::kCpu;
    case DecodeDevice::kGpu:
      return transform::Device::kGpu;
    case DecodeDevice::kAuto:
      break;
  }
  return transform::Device::kAuto;
}

// The device a decode of the file at `path` under `p` would pick (DecodeParams::device's
// rule), judged from the headers in the file's first bytes, for callers that start CUDA
// (codec::GpuWarmUp) while the file is read: kGpu/kAuto where the decode would go to the GPU,
// kCpu where it would not, or where the headers do not fit the first 1 MB or do not parse (the
// decode itself then decides and reports). Never throws.
transform::Device likely_decode_device(const std::filesystem::path& path, const DecodeParams& p);

// What a decode under `p` of a codestream of `bytes` bytes whose headers read `h` weighs for its
// device (--device auto): the samples at the decoded resolution (a region counts by its own
// area: on the CPU only its windows are transformed), the codestream bytes they take (in
// proportion to the samples decoded) and the tiles it meets (B.3), or the one asked for.
struct DecodeExtent {
  uint64_t samples = 0, bytes = 0, tiles = 1;
};
DecodeExtent decode_extent(const DecodeParams& p, const HeaderInfo& h, uint64_t bytes);
// The same for the first file of a decode batch of `files` files, `workers` of them decoded at
// once on `threads` threads: under --device auto place_batch_decode's rule for it (the files
// after it sharing CUDA's start-up; batch_auto_likely_gpu), else the device asked for.
transform::Device likely_batch_decode_device(const std::filesystem::path& path,
                                             const DecodeParams& p, int threads, int workers,
                                             size_t files);

inline transform::Device to_transform(EncodeParams::Device d) {
  switch (d) {
    case EncodeParams::Device::kCpu:
      return transform::Device::kCpu;
    case EncodeParams::Device::kGpu:
      return transform::Device::kGpu;
    case EncodeParams::Device::kAuto:
      break;
  }
  return transform::Device::kAuto;
}

}  // namespace gj2k::codec
