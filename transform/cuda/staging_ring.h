// StagingRing: transfers between pageable host memory and the device through a few small
// pinned chunks, so that no buffer the size of the data has to be pinned.
//
// Why: pinning is slow and a one-shot process pays it in full, while a ring of a few small
// chunks moves data as fast as one big pinned buffer (bench_gpu_dwt's staging table; figures
// in docs/PERFORMANCE.md).
//
// Contract:
// - upload(dst, src, bytes, s): host threads copy src into a free chunk, its DMA to dst is
//   enqueued on s, and the next chunk is filled while it runs. Returns once src has been read
//   whole (src may then be overwritten); the last transfers may still be in flight on s, and
//   work enqueued on s afterwards sees dst complete.
// - upload_with(dst, bytes, s, fill): as upload, the bytes written by fill(at, chunk, len)
//   straight into each pinned chunk (bytes [at, at + len) of the transfer; `at` and `len` are
//   multiples of 64 KB but for the last piece), so a producer (the encoder's sample staging)
//   writes no host copy of the whole transfer first. Returns false, leaving the rest of the
//   transfer undone, as soon as fill does.
// - download(dst, src, bytes, s): after the work already enqueued on s, copies src into host
//   memory dst; returns when dst holds all of it. The host threads copy pieces of the chunks
//   as each lands, and the DMA that reuses a chunk is enqueued as soon as its last piece is
//   out (no wake-up of the threads per chunk).
// - A chunk is reused only after the transfer that last used it has ended (one event per
//   chunk), whatever stream it ran on, so several streams may share one ring; one host
//   thread at a time.
// - Pinned on demand: a transfer of B bytes makes the chunks at least B / chunks (rounded up
//   to a power of two from 64 KB) and at most max_chunk_bytes, so the slots of a decode or encode
//   of small tiles pin little; growing waits for every transfer in flight. reserve(B) does it
//   ahead.
// - `threads`: threads of the current pool for the host copies of a chunk (1: the calling
//   thread alone).
// Failures throw Error(kDevice).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

#include "transform/cuda/cuda_memory.h"

namespace gj2k::transform::cuda {

class StagingRing {
 public:
  static constexpr size_t kDefaultChunkBytes = size_t{8} << 20;  // the most per chunk
  static constexpr int kDefaultChunks = 4;
  // The codec's ring: kDefaultChunks x kDefaultChunkBytes, or the shape GJ2K_STAGING_RING
  // names ("CxM": C chunks of at most M MiB; a measurement switch, read at construction).
  StagingRing();
  StagingRing(size_t max_chunk_bytes, int chunks);
  StagingRing(const StagingRing&) = delete;
  StagingRing& operator=(const StagingRing&) = delete;

  void upload(void* dst, const void* src, size_t bytes, cudaStream_t s, int threads);
  template <class Fill>
  bool upload_with(void* dst, size_t bytes, cudaStream_t s, Fill&& fill);
  void download(void* dst, const void* src, size_t bytes, cudaStream_t s, int threads);
  // download of `rows` rows of row_bytes each, back to back at src, into host rows dst_pitch
  // bytes apart (a rectangle of a larger host image).
  void download_rows(void* dst, size_t dst_pitch, const void* src, size_t row_bytes, size_t rows,
                     cudaStream_t s, int threads);

  // Pins chunks for transfers of up to `bytes` (see above).
  void reserve(size_t bytes);
  size_t pinned_bytes() const { return buffer_.bytes(); }

 private:
  // (max_chunk_bytes, chunks), as GJ2K_STAGING_RING names them (the default constructor's).
  explicit StagingRing(std::pair<size_t, int> shape) : StagingRing(shape.first, shape.second) {}
  // download's pipeline; copy_out(at, from, len, streaming) moves bytes [at, at + len) of the
  // transfer from a pinned chunk to their host place: one piece of a chunk, on one of
  // `threads` threads that copy pieces at once (`streaming`: past the caches; false where the
  // calling thread copies a small transfer alone).
  template <class CopyOut>
  void download_with(const void* src, size_t bytes, cudaStream_t s, int threads,
                     CopyOut&& copy_out);
  char* chunk(size_t i) const { return buffer_.as<char>() + i * chunk_bytes_; }
  void wait_chunk(size_t i);                                         // its last transfer ended
  void enqueue_up(void* dst, size_t i, size_t len, cudaStream_t s);  // chunk i's DMA up
  size_t max_chunk_bytes_;
  size_t chunk_bytes_ = 0;  // current chunk size (0: nothing pinned yet)
  size_t chunks_;
  size_t next_ = 0;  // the chunk the next transfer takes (round robin)
  PinnedBuffer buffer_;
  std::vector<std::unique_ptr<Event>> events_;  // the last transfer through each chunk
};

template <class Fill>
bool StagingRing::upload_with(void* dst, size_t bytes, cudaStream_t s, Fill&& fill) {
  if (bytes == 0) return true;
  reserve(bytes);
  char* to = static_cast<char*>(dst);
  for (size_t at = 0; at < bytes; at += chunk_bytes_) {
    const size_t len = std::min(chunk_bytes_, bytes - at);
    const size_t i = next_;
    next_ = (next_ + 1) % chunks_;
    wait_chunk(i);  // the chunk's last DMA ended
    if (!fill(at, static_cast<void*>(chunk(i)), len)) return false;
    enqueue_up(to + at, i, len, s);
  }
  return true;
}

}  // namespace gj2k::transform::cuda
