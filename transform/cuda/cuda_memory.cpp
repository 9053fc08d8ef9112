#include "transform/cuda/cuda_memory.h"

#include "transform/cuda/cuda_check.h"

namespace gj2k::transform::cuda {

DeviceBuffer::DeviceBuffer(size_t bytes) {
  if (bytes == 0) return;
  GJ2K_CUDA_CHECK(cudaMalloc(&d_ptr_, bytes));
  bytes_ = bytes;
}
DeviceBuffer::~DeviceBuffer() {
  if (d_ptr_) cudaFree(d_ptr_);
}
void DeviceBuffer::reserve(size_t bytes) {
  if (bytes > bytes_) *this = DeviceBuffer(bytes);
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
