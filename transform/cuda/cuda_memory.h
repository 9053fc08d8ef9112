// RAII owners of CUDA resources for the codec, the tests and the benchmarks: device memory,
// pinned host memory, streams and events. Move-only; failures throw Error(kDevice).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <utility>

namespace gj2k::transform::cuda {

// Device memory held by this process's DeviceBuffers: now, and the most at once since the last
// reset_device_memory_peak().
struct DeviceMemoryUse {
  size_t current = 0, peak = 0;
};
DeviceMemoryUse device_memory_use();
void reset_device_memory_peak();
// The limit on that total from the environment, GJ2K_GPU_MEMORY_LIMIT (bytes, with an optional
// K, M or G suffix; 0 or unset: none). A DeviceBuffer beyond it fails as cudaMalloc does on a
// full device (Error(kDevice) naming cudaErrorMemoryAllocation, out_of_memory() true), so the
// paths for images larger than the GPU's memory run, and are tested, on any GPU.
size_t device_memory_limit();
// Replaces the limit (0: none), for tests.
void set_device_memory_limit(size_t bytes);

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(size_t bytes);  // cudaMalloc; 0 bytes holds nothing
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& o) noexcept { swap(o); }
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    DeviceBuffer t(std::move(o));
    swap(t);
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  void* get() const { return d_ptr_; }
  template <class T>
  T* as() const {
    return static_cast<T*>(d_ptr_);
  }
  size_t bytes() const { return bytes_; }
  // Grows to at least `bytes` (contents are lost when it grows): below 64 MiB to the next
  // power of two, so that reuse with varying sizes seldom regrows (a cudaFree synchronises the
  // device).
  void reserve(size_t bytes);

 private:
  void swap(DeviceBuffer& o) noexcept {
    std::swap(d_ptr_, o.d_ptr_);
    std::swap(bytes_, o.bytes_);
  }
  void* d_ptr_ = nullptr;
  size_t bytes_ = 0;
};

class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  explicit PinnedBuffer(size_t bytes);  // cudaMallocHost
  ~PinnedBuffer();
  PinnedBuffer(PinnedBuffer&& o) noexcept { swap(o); }
  PinnedBuffer& operator=(PinnedBuffer&& o) noexcept {
    PinnedBuffer t(std::move(o));
    swap(t);
    return *this;
  }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;

  void* get() const { return ptr_; }
  template <class T>
  T* as() const {
    return static_cast<T*>(ptr_);
  }
  size_t bytes() const { return bytes_; }

 private:
  void swap(PinnedBuffer& o) noexcept {
    std::swap(ptr_, o.ptr_);
    std::swap(bytes_, o.bytes_);
  }
  void* ptr_ = nullptr;
  size_t bytes_ = 0;
};

class Stream {
 public:
  Stream();  // a non-blocking stream
  ~Stream();
  Stream(Stream&& o) noexcept : s_(std::exchange(o.s_, nullptr)) {}
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  Stream& operator=(Stream&&) = delete;
  cudaStream_t get() const { return s_; }
  void synchronize() const;  // waits, and throws on any asynchronous fault

 private:
  cudaStream_t s_ = nullptr;
};

class Event {
 public:
  Event();
  ~Event();
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  cudaEvent_t get() const { return e_; }
  void record(cudaStream_t s);
  // Milliseconds between two recorded events (waits for `end`).
  static float elapsed_ms(const Event& begin, const Event& end);

 private:
  cudaEvent_t e_ = nullptr;
};

}  // namespace gj2k::transform::cuda
