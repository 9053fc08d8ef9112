// StagingRing (staging_ring.h): chunked pinned staging with host copies overlapping the DMA.
#include "transform/cuda/staging_ring.h"

#include <algorithm>
#include <bit>
#include <cstring>

#include "core/memory.h"
#include "core/thread_pool.h"
#include "gj2k/error.h"
#include "transform/cuda/cuda_check.h"

namespace gj2k::transform::cuda {
namespace {

// Host copy of one chunk, split into pieces for the threads (small copies stay serial). The
// pieces of a threaded copy stream past the caches (core::copy_streaming): a chunk going up
// is read next by the DMA, one coming down lands in a large buffer this thread does not read
// next; measured in docs/PERFORMANCE.md ("Thirteenth run").
void copy(char* dst, const char* src, size_t bytes, int threads) {
  constexpr size_t kPiece = size_t{256} << 10;
  const int64_t pieces = static_cast<int64_t>((bytes + kPiece - 1) / kPiece);
  if (threads <= 1 || pieces < 4) {
    std::memcpy(dst, src, bytes);
    return;
  }
  core::parallel_for_static(
      0, static_cast<size_t>(pieces),
      [&](size_t k) {
        const size_t at = static_cast<size_t>(k) * kPiece;
        core::copy_streaming(dst + at, src + at, std::min(kPiece, bytes - at));
      },
      threads);
}

}  // namespace

StagingRing::StagingRing(size_t max_chunk_bytes, int chunks)
    : max_chunk_bytes_(max_chunk_bytes), chunks_(static_cast<size_t>(std::max(chunks, 0))) {
  if (max_chunk_bytes == 0 || chunks < 2)
    throw Error(ErrorCode::kInvalidArgument, "StagingRing: needs 2 or more chunks of > 0 bytes");
  for (size_t i = 0; i < chunks_; ++i) events_.push_back(std::make_unique<Event>());
}

void StagingRing::reserve(size_t bytes) {
  constexpr size_t kGrain = size_t{64} << 10;
  const size_t per_chunk = (bytes + chunks_ - 1) / chunks_;
  // A power of two (from 64 KB): inputs of varying sizes seldom regrow it (re-pinning waits
  // for the whole device).
  const size_t want = std::min(max_chunk_bytes_, std::bit_ceil(std::max(per_chunk, kGrain)));
  if (want <= chunk_bytes_) return;
  for (const auto& e : events_) GJ2K_CUDA_CHECK(cudaEventSynchronize(e->get()));
  buffer_ = PinnedBuffer();  // unpin first: the two need not be held at once
  chunk_bytes_ = 0;
  buffer_ = PinnedBuffer(want * chunks_);
  chunk_bytes_ = want;
  next_ = 0;
}

void StagingRing::wait_chunk(size_t i) {
  GJ2K_CUDA_CHECK(cudaEventSynchronize(events_[i]->get()));
}

void StagingRing::enqueue_up(void* dst, size_t i, size_t len, cudaStream_t s) {
  GJ2K_CUDA_CHECK(cudaMemcpyAsync(dst, chunk(i), len, cudaMemcpyHostToDevice, s));
  events_[i]->record(s);
}

void StagingRing::upload(void* dst, const void* src, size_t bytes, cudaStream_t s, int threads) {
  const char* from = static_cast<const char*>(src);
  upload_with(dst, bytes, s, [&](size_t at, void* chunk, size_t len) {
    copy(static_cast<char*>(chunk), from + at, len, threads);
    return true;
  });
}

template <class CopyOut>
void StagingRing::download_with(const void* src, size_t bytes, cudaStream_t s, CopyOut&& copy_out) {
  if (bytes == 0) return;
  reserve(bytes);
  const char* from = static_cast<const char*>(src);
  const size_t pieces = (bytes + chunk_bytes_ - 1) / chunk_bytes_;
  // Chunk k of the transfer goes through ring chunk (first + k) % chunks_; up to chunks_ DMAs
  // are in flight while the host copies out the oldest.
  const size_t first = next_;
  auto slot = [&](size_t k) { return (first + k) % chunks_; };
  auto enqueue = [&](size_t k) {
    const size_t i = slot(k), at = k * chunk_bytes_;
    GJ2K_CUDA_CHECK(cudaEventSynchronize(events_[i]->get()));
    GJ2K_CUDA_CHECK(cudaMemcpyAsync(chunk(i), from + at, std::min(chunk_bytes_, bytes - at),
                                    cudaMemcpyDeviceToHost, s));
    events_[i]->record(s);
  };
  for (size_t k = 0; k < std::min(pieces, chunks_); ++k) enqueue(k);
  for (size_t k = 0; k < pieces; ++k) {
    const size_t i = slot(k), at = k * chunk_bytes_;
    GJ2K_CUDA_CHECK(cudaEventSynchronize(events_[i]->get()));
    copy_out(at, chunk(i), std::min(chunk_bytes_, bytes - at));
    if (k + chunks_ < pieces) enqueue(k + chunks_);
  }
  next_ = slot(pieces);
}

void StagingRing::download(void* dst, const void* src, size_t bytes, cudaStream_t s, int threads) {
  char* to = static_cast<char*>(dst);
  // Several threads copying into neighbouring pieces of a fresh buffer would fault the same
  // huge page at once (the kernel clears one per racing thread); faulted in first, each 2 MiB
  // by one thread, it is cleared once. Resident pages cost a page-table walk.
  if (threads > 1) core::prefault(dst, bytes);
  download_with(src, bytes, s, [&](size_t at, const char* from, size_t len) {
    copy(to + at, from, len, threads);
  });
}

void StagingRing::download_rows(void* dst, size_t dst_pitch, const void* src, size_t row_bytes,
                                size_t rows, cudaStream_t s, int threads) {
  if (row_bytes == 0 || rows == 0) return;
  if (dst_pitch == row_bytes) return download(dst, src, row_bytes * rows, s, threads);
  char* to = static_cast<char*>(dst);
  // Bytes [at, at + len) of the transfer: a row's tail, whole rows, a row's head.
  download_with(src, row_bytes * rows, s, [&](size_t at, const char* from, size_t len) {
    const size_t end = at + len;
    size_t y = at / row_bytes, x = at % row_bytes;
    if (x != 0) {
      const size_t n = std::min(row_bytes - x, len);
      std::memcpy(to + y * dst_pitch + x, from, n);
      from += n;
      at += n;
      ++y;
    }
    const auto whole = static_cast<int64_t>((end - at) / row_bytes);
    core::parallel_for_static(
        0, static_cast<size_t>(whole),
        [&](size_t r) {
          core::copy_streaming(to + (y + r) * dst_pitch, from + r * row_bytes, row_bytes);
        },
        threads > 1 && whole > 16 ? threads : 1);
    at += whole * row_bytes;
    if (at < end) std::memcpy(to + (y + whole) * dst_pitch, from + whole * row_bytes, end - at);
  });
}

}  // namespace gj2k::transform::cuda
