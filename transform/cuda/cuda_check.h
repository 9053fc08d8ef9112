// Checked CUDA runtime calls: every call's status is tested; a failure becomes
// gj2k::Error(kDevice) naming the call, the CUDA error string and the source location.
#pragma once

#include <cuda_runtime.h>

namespace gj2k {
class Error;  // gj2k/error.h
}  // namespace gj2k

namespace gj2k::transform::cuda {

[[noreturn]] void throw_cuda_error(cudaError_t err, const char* call, const char* file, int line);

inline void check(cudaError_t err, const char* call, const char* file, int line) {
  if (err != cudaSuccess) throw_cuda_error(err, call, file, line);
}

// Whether `e` (from GJ2K_CUDA_CHECK) reports a device allocation that did not fit
// (cudaErrorMemoryAllocation: not sticky, the context stays usable).
bool out_of_memory(const Error& e);

}  // namespace gj2k::transform::cuda

#define GJ2K_CUDA_CHECK(call) ::gj2k::transform::cuda::check((call), #call, __FILE__, __LINE__)
// After a kernel launch: configuration and launch errors (not asynchronous faults).
#define GJ2K_CUDA_CHECK_LAUNCH(what) \
  ::gj2k::transform::cuda::check(cudaGetLastError(), what, __FILE__, __LINE__)
