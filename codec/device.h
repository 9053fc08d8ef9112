// The public device choices (DecodeParams::device, EncodeParams::device) as the library's one
// device type, transform::Device. The public enums are converted here, at the API boundary,
// and nowhere else.
#pragma once

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
