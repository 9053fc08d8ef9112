#include "transform/device.h"

#include "gj2k/error.h"

#if defined(GJ2K_HAVE_CUDA)
#include <cuda_runtime.h>
#endif

namespace gj2k::transform {

#if defined(GJ2K_HAVE_CUDA)
GpuInfo query_gpu_info();  // transform/cuda/device.cu
#else
static GpuInfo query_gpu_info() {
  GpuInfo info;
  info.reason = "gj2k was built without CUDA";
  return info;
}
#endif

GpuInfo gpu_info() {
  static const GpuInfo info = query_gpu_info();  // concurrent first callers wait for it
  return info;
}

bool open_gpu() {
  if (!gpu_info().available) return false;
#if defined(GJ2K_HAVE_CUDA)
  cudaFree(nullptr);  // creates the context; an error shows again at the first real call
  cudaGetLastError();
#endif
  return true;
}

Device resolve_device(Device requested) {
  if (requested == Device::kCpu) return Device::kCpu;
  GpuInfo info = gpu_info();
  if (requested == Device::kGpu && !info.available)
    throw Error(ErrorCode::kDevice, "--device gpu: no usable GPU (" + info.reason + ")");
  return info.available ? Device::kGpu : Device::kCpu;
}

Device auto_choice(Device requested, unsigned long long samples) {
  if (requested != Device::kAuto) return requested;
  return samples < kGpuAutoMinSamples ? Device::kCpu : Device::kAuto;
}

}  // namespace gj2k::transform
