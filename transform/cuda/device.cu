// GPU presence and properties through the CUDA runtime (see transform/device.h).
#include <cuda_runtime.h>

#include "transform/device.h"

namespace gj2k::transform {

GpuInfo query_gpu_info() {
  GpuInfo info;
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    info.reason = std::string("no CUDA device: ") + cudaGetErrorString(err);
    cudaGetLastError();  // clear the sticky-free error state
    return info;
  }
  if (count == 0) {
    info.reason = "no CUDA device present";
    return info;
  }
  cudaDeviceProp prop{};
  err = cudaGetDeviceProperties(&prop, 0);
  if (err != cudaSuccess) {
    info.reason = std::string("cudaGetDeviceProperties: ") + cudaGetErrorString(err);
    return info;
  }
  info.available = true;
  info.name = prop.name;
  info.sm_major = prop.major;
  info.sm_minor = prop.minor;
  info.global_memory = prop.totalGlobalMem;
  info.multiprocessors = prop.multiProcessorCount;
  return info;
}

}  // namespace gj2k::transform
