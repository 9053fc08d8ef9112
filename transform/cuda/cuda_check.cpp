#include "transform/cuda/cuda_check.h"

#include <string>

#include "gj2k/error.h"

namespace gj2k::transform::cuda {

void throw_cuda_error(cudaError_t err, const char* call, const char* file, int line) {
  throw Error(ErrorCode::kDevice, std::string("CUDA error in ") + call + ": " +
                                      cudaGetErrorName(err) + " (" + cudaGetErrorString(err) +
                                      ") at " + file + ":" + std::to_string(line));
}

}  // namespace gj2k::transform::cuda
