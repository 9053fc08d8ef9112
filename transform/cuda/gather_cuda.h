// Gathering byte ranges of one device buffer into another: the compaction step after a kernel
// that gave each work item a fixed-capacity slot (the GPU Tier-1 encoder's code-block data and
// pass records), so that only the bytes written come back to the host. Host API; the kernel is
// in gather_kernels.cu, the reference gather_ranges_ref below.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace gj2k::transform::cuda {

// Copy `length` bytes from src + src_offset to dst + dst_offset.
struct GatherRange {
  uint64_t src_offset;
  uint64_t dst_offset;
  uint64_t length;
};

// d_dst[r.dst_offset, + r.length) = d_src[r.src_offset, + r.length) for every range of
// d_ranges[0, count) (device arrays); destination ranges must not overlap each other nor the
// source ranges. Enqueued on `stream`; throws Error(kDevice) on a launch failure.
void gather_ranges(const uint8_t* d_src, const GatherRange* d_ranges, uint32_t count,
                   uint8_t* d_dst, cudaStream_t stream);

// The reference with the same contract, on host memory.
inline void gather_ranges_ref(const uint8_t* src, const GatherRange* ranges, uint32_t count,
                              uint8_t* dst) {
  for (uint32_t k = 0; k < count; ++k)
    if (ranges[k].length)
      std::memcpy(dst + ranges[k].dst_offset, src + ranges[k].src_offset, ranges[k].length);
}

}  // namespace gj2k::transform::cuda
