#include "transform/device.h"

#include "gj2k/error.h"

namespace gj2k::transform {

#if !defined(GJ2K_HAVE_CUDA)
GpuInfo gpu_info() {
  GpuInfo info;
  info.reason = "gj2k was built without CUDA";
  return info;
}
#endif

Device resolve_device(Device requested) {
  if (requested == Device::kCpu) return Device::kCpu;
  GpuInfo info = gpu_info();
  if (requested == Device::kGpu && !info.available)
    throw Error(ErrorCode::kDevice, "--device gpu: no usable GPU (" + info.reason + ")");
  return info.available ? Device::kGpu : Device::kCpu;
}

}  // namespace gj2k::transform
