#include "transform/cuda/cuda_memory.h"

#include <atomic>
#include <bit>
#include <cctype>
#include <cstdlib>

#include "transform/cuda/cuda_check.h"

namespace gj2k::transform::cuda {
namespace {

std::atomic<size_t> g_current{0}, g_peak{0};

size_t parse_limit(const char* v) {
  if (!v || !*v) return 0;
  char* end = nullptr;
  const double n = std::strtod(v, &end);
  double scale = 1;
  switch (end && *end ? std::toupper(static_cast<unsigned char>(*end)) : 0) {
    case 'K':
      scale = 1024.0;
      break;
    case 'M':
      scale = 1024.0 * 1024;
      break;
    case 'G':
      scale = 1024.0 * 1024 * 1024;
      break;
    default:
      break;
  }
  return n > 0 ? static_cast<size_t>(n * scale) : 0;
}

}  // namespace

DeviceMemoryUse device_memory_use() {
  return {g_current.load(), g_peak.load()};
}
void reset_device_memory_peak() {
  g_peak.store(g_current.load());
}
namespace {
std::atomic<size_t>& limit_value() {
  static std::atomic<size_t> limit{parse_limit(std::getenv("GJ2K_GPU_MEMORY_LIMIT"))};
  return limit;
}
}  // namespace

size_t device_memory_limit() {
  return limit_value().load();
}
void set_device_memory_limit(size_t bytes) {
  limit_value().store(bytes);
}

DeviceBuffer::DeviceBuffer(size_t bytes) {
  if (bytes == 0) return;
  const size_t limit = device_memory_limit();
  const size_t now = g_current.fetch_add(bytes) + bytes;
  if (limit && now > limit) {
    g_current.fetch_sub(bytes);
    throw_cuda_error(cudaErrorMemoryAllocation, "cudaMalloc (beyond GJ2K_GPU_MEMORY_LIMIT)",
                     __FILE__, __LINE__);
  }
  const cudaError_t err = cudaMalloc(&d_ptr_, bytes);
  if (err != cudaSuccess) {
    g_current.fetch_sub(bytes);
    d_ptr_ = nullptr;
    (void)cudaGetLastError();  // not left for a later launch check to find
    throw_cuda_error(err, "cudaMalloc(&d_ptr_, bytes)", __FILE__, __LINE__);
  }
  bytes_ = bytes;
  for (size_t peak = g_peak.load(); now > peak && !g_peak.compare_exchange_weak(peak, now);) {
  }
}
DeviceBuffer::~DeviceBuffer() {
  if (!d_ptr_) return;
  cudaFree(d_ptr_);
  g_current.fetch_sub(bytes_);
}
void DeviceBuffer::reserve(size_t bytes) {
  if (bytes <= bytes_) return;
  // Below 64 MiB, grow to a power of two: buffers reused for inputs of varying sizes (a batch's
  // code-block bytes and tables) then regrow rarely, and each regrowth's cudaFree waits for
  // the whole device, every stream's work in flight.
  constexpr size_t kRoundBelow = size_t{64} << 20;
  *this = DeviceBuffer(bytes < kRoundBelow ? std::bit_ceil(bytes) : bytes);
}

PinnedBuffer::PinnedBuffer(size_t bytes) {
  if (bytes == 0) return;
  GJ2K_CUDA_CHECK(cudaMallocHost(&ptr_, bytes));
  bytes_ = bytes;
}
PinnedBuffer::~PinnedBuffer() {
  if (ptr_) cudaFreeHost(ptr_);
}

Stream::Stream() {
  GJ2K_CUDA_CHECK(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking));
}
Stream::~Stream() {
  if (s_) cudaStreamDestroy(s_);
}
void Stream::synchronize() const {
  GJ2K_CUDA_CHECK(cudaStreamSynchronize(s_));
}

Event::Event() {
  GJ2K_CUDA_CHECK(cudaEventCreate(&e_));
}
Event::~Event() {
  if (e_) cudaEventDestroy(e_);
}
void Event::record(cudaStream_t s) {
  GJ2K_CUDA_CHECK(cudaEventRecord(e_, s));
}
float Event::elapsed_ms(const Event& begin, const Event& end) {
  GJ2K_CUDA_CHECK(cudaEventSynchronize(end.e_));
  float ms = 0;
  GJ2K_CUDA_CHECK(cudaEventElapsedTime(&ms, begin.e_, end.e_));
  return ms;
}

}  // namespace gj2k::transform::cuda
