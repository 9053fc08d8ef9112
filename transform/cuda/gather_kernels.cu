// gather_ranges (gather_cuda.h): one thread block per range, 16-byte words where source and
// destination share their alignment, bytes otherwise and at the ends.
#include <algorithm>

#include "transform/cuda/cuda_check.h"
#include "transform/cuda/gather_cuda.h"

namespace gj2k::transform::cuda {
namespace {

constexpr int kThreads = 128;

__global__ void __launch_bounds__(kThreads)
    gather_kernel(const uint8_t* src, const GatherRange* ranges, uint32_t count, uint8_t* dst) {
  for (uint32_t k = blockIdx.x; k < count; k += gridDim.x) {
    const GatherRange r = ranges[k];
    const uint8_t* s = src + r.src_offset;
    uint8_t* d = dst + r.dst_offset;
    uint64_t n = r.length;
    uint64_t head = 0;
    if (((reinterpret_cast<uintptr_t>(s) ^ reinterpret_cast<uintptr_t>(d)) & 15) == 0) {
      head = (16 - (reinterpret_cast<uintptr_t>(d) & 15)) & 15;
      if (head > n) head = n;
      const uint64_t words = (n - head) / 16;
      const uint4* s4 = reinterpret_cast<const uint4*>(s + head);
      uint4* d4 = reinterpret_cast<uint4*>(d + head);
      for (uint64_t i = threadIdx.x; i < words; i += kThreads) d4[i] = s4[i];
      for (uint64_t i = threadIdx.x; i < head; i += kThreads) d[i] = s[i];
      head += words * 16;
    }
    for (uint64_t i = head + threadIdx.x; i < n; i += kThreads) d[i] = s[i];
  }
}

}  // namespace

void gather_ranges(const uint8_t* d_src, const GatherRange* d_ranges, uint32_t count,
                   uint8_t* d_dst, cudaStream_t stream) {
  if (count == 0) return;
  const unsigned blocks = std::min<uint32_t>(count, 65535u * 4);
  gather_kernel<<<blocks, kThreads, 0, stream>>>(d_src, d_ranges, count, d_dst);
  GJ2K_CUDA_CHECK_LAUNCH("gather_kernel launch");
}

}  // namespace gj2k::transform::cuda
