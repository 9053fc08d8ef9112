#include "transform/cuda/cuda_check.h"

#include <string>
#include <string_view>

#include "gj2k/error.h"

namespace gj2k::transform::cuda {

void throw_cuda_error(cudaError_t err, const char* call, const char* file, int line) {
  throw Error(ErrorCode::kDevice, std::string("CUDA error in ") + call + ": " +
                                      cudaGetErrorName(err) + " (" + cudaGetErrorString(err) +
                                      ") at " + file + ":" + std::to_string(line));
}

bool out_of_memory(const Error& e) {
  return e.code() == ErrorCode::kDevice &&
         std::string_view(e.what()).find("cudaErrorMemoryAllocation") != std::string_view::npos;
}

}  // namespace gj2k::transform::cuda
