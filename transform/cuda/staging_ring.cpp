// StagingRing (staging_ring.h): chunked pinned staging with host copies overlapping the DMA.
#include "transform/cuda/staging_ring.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <utility>

#include "core/memory.h"
#include "core/thread_pool.h"
#include "gj2k/error.h"
#include "transform/cuda/cuda_check.h"

namespace gj2k::transform::cuda {
namespace {

// The pieces a threaded copy splits a chunk into: two per thread (256 KB for an 8 MB chunk on
// 16 threads), at least 64 KB each; a copy on one thread takes the chunk whole.
size_t copy_piece_bytes(size_t chunk_bytes, int threads) {
  if (threads <= 1) return chunk_bytes;
  constexpr size_t kMinPiece = size_t{64} << 10;
  const size_t per = chunk_bytes / (2 * static_cast<size_t>(threads));
  return std::max(kMinPiece, (per + 4095) & ~size_t{4095});
}

// Host copy of one piece. Threaded copies stream past the caches (core::copy_streaming): a
// chunk going up is read next by the DMA, one coming down lands in a large buffer this thread
// does not read next; measured in docs/PERFORMANCE.md ("Thirteenth run").
void copy_piece(char* dst, const char* src, size_t bytes, bool streaming) {
  if (streaming)
    core::copy_streaming(dst, src, bytes);
  else
    std::memcpy(dst, src, bytes);
}

// Host copy of one chunk, split into pieces for the threads (small copies stay serial).
void copy(char* dst, const char* src, size_t bytes, int threads) {
  const size_t piece = copy_piece_bytes(bytes, threads);
  const size_t pieces = (bytes + piece - 1) / piece;
  if (pieces < 4) {
    std::memcpy(dst, src, bytes);
    return;
  }
  core::parallel_for_static(
      0, pieces,
      [&](size_t k) {
        const size_t at = k * piece;
        copy_piece(dst + at, src + at, std::min(piece, bytes - at), true);
      },
      threads);
}

// GJ2K_STAGING_RING's shape ("CxM"), or the defaults where it is unset or malformed.
std::pair<size_t, int> ring_shape() {
  const char* v = std::getenv("GJ2K_STAGING_RING");
  unsigned chunks = 0, mib = 0;
  char x = 0;
  if (v && std::sscanf(v, "%u%c%u", &chunks, &x, &mib) == 3 && x == 'x' && chunks >= 2 &&
      chunks <= 64 && mib >= 1 && mib <= 256)
    return {size_t{mib} << 20, static_cast<int>(chunks)};
  return {StagingRing::kDefaultChunkBytes, StagingRing::kDefaultChunks};
}

}  // namespace

StagingRing::StagingRing() : StagingRing(ring_shape()) {}

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
void StagingRing::download_with(const void* src, size_t bytes, cudaStream_t s, int threads,
                                CopyOut&& copy_out) {
  if (bytes == 0) return;
  reserve(bytes);
  const char* from = static_cast<const char*>(src);
  const size_t chunks = (bytes + chunk_bytes_ - 1) / chunk_bytes_;
  // Chunk k of the transfer goes through ring chunk (first + k) % chunks_; up to chunks_ DMAs
  // are in flight while the host copies out the oldest.
  const size_t first = next_;
  auto slot = [&](size_t k) { return (first + k) % chunks_; };
  // ready[k]: chunk k's DMA and its event are enqueued (its slot's event then stands for it).
  std::unique_ptr<std::atomic<bool>[]> ready(new std::atomic<bool>[chunks]);
  for (size_t k = 0; k < chunks; ++k) ready[k].store(false, std::memory_order_relaxed);
  auto enqueue = [&](size_t k) {
    const size_t i = slot(k), at = k * chunk_bytes_, len = std::min(chunk_bytes_, bytes - at);
    GJ2K_CUDA_CHECK(cudaMemcpyAsync(chunk(i), from + at, len, cudaMemcpyDeviceToHost, s));
    events_[i]->record(s);
    ready[k].store(true, std::memory_order_release);
    ready[k].notify_all();
  };
  for (size_t k = 0; k < std::min(chunks, chunks_); ++k) {
    wait_chunk(slot(k));  // earlier transfers
    enqueue(k);
  }
  // Pieces of the transfer's largest chunk (the ring's chunk may be larger than the transfer).
  const size_t span = std::min(bytes, chunk_bytes_);
  const size_t piece = copy_piece_bytes(span, threads);
  const size_t per_chunk = (span + piece - 1) / piece;
  // Fewer than four items (chunks x pieces per chunk): the calling thread copies them (plain
  // copies: the caller reads a small result next), as a loop on one thread would.
  const bool alone = threads <= 1 || chunks * per_chunk < 4;
  auto pieces_of = [&](size_t k) {
    return (std::min(chunk_bytes_, bytes - k * chunk_bytes_) + piece - 1) / piece;
  };
  // Piece p of chunk k: bytes [at, at + len) of the transfer.
  auto copy_piece_of = [&](size_t k, size_t p) {
    const size_t len_k = std::min(chunk_bytes_, bytes - k * chunk_bytes_);
    const size_t off = p * piece, at = k * chunk_bytes_ + off;
    copy_out(at, chunk(slot(k)) + off, std::min(piece, len_k - off), !alone);
  };
  // The host's copies as items (chunk k, piece p), handed out in that order (parallel_for's
  // dynamic chunks go in increasing order): the thread that takes a chunk's first piece waits
  // for its DMA and tells the others (`landed`), and whichever copies a chunk's last piece
  // enqueues the DMA that reuses its slot. No thread is woken per chunk by the pool, one waits
  // on the driver, and a DMA is enqueued as soon as its slot is free. An item waits only for
  // items handed out before it, so fewer threads (one included) finish too. Once an item has
  // thrown, `failed` is set and every flag raised, so that no thread waits for ever.
  std::unique_ptr<std::atomic<size_t>[]> copied(new std::atomic<size_t>[chunks]);
  std::unique_ptr<std::atomic<bool>[]> landed(new std::atomic<bool>[chunks]);
  for (size_t k = 0; k < chunks; ++k) {
    copied[k].store(0, std::memory_order_relaxed);
    landed[k].store(false, std::memory_order_relaxed);
  }
  std::atomic<bool> failed{false};
  int device = 0;
  GJ2K_CUDA_CHECK(cudaGetDevice(&device));
  // A pool thread's CUDA calls on the caller's device, its own device restored after them
  // (codec::use_context_device caches what each thread has selected).
  auto on_device = [&](auto&& fn) {
    int current = device;
    GJ2K_CUDA_CHECK(cudaGetDevice(&current));
    if (current == device) return fn();
    GJ2K_CUDA_CHECK(cudaSetDevice(device));
    struct Restore {
      int to;
      ~Restore() { cudaSetDevice(to); }
    } restore{current};
    fn();
  };
  auto item = [&](size_t n) {
    const size_t k = n / per_chunk, p = n % per_chunk, pieces_k = pieces_of(k);
    if (p >= pieces_k) return;  // the last chunk's missing pieces
    try {
      if (p == 0) {
        ready[k].wait(false, std::memory_order_acquire);
        if (failed.load()) return;
        on_device([&] { wait_chunk(slot(k)); });
        landed[k].store(true, std::memory_order_release);
        landed[k].notify_all();
      } else {
        landed[k].wait(false, std::memory_order_acquire);
        if (failed.load()) return;
      }
      copy_piece_of(k, p);
      if (copied[k].fetch_add(1, std::memory_order_acq_rel) + 1 == pieces_k && k + chunks_ < chunks)
        on_device([&] { enqueue(k + chunks_); });
    } catch (...) {
      failed.store(true);
      for (size_t j = 0; j < chunks; ++j) {
        ready[j].store(true);
        ready[j].notify_all();
        landed[j].store(true);
        landed[j].notify_all();
      }
      throw;
    }
  };
  if (alone) {
    for (size_t n = 0; n < chunks * per_chunk; ++n) item(n);
  } else {
    // The pool's threads join once the first chunk has landed, not while the work before the
    // download still runs on the device.
    wait_chunk(slot(0));
    core::parallel_for(0, chunks * per_chunk, 1, item, threads);
  }
  next_ = slot(chunks);
}

void StagingRing::download(void* dst, const void* src, size_t bytes, cudaStream_t s, int threads) {
  char* to = static_cast<char*>(dst);
  // Several threads copying into neighbouring pieces of a fresh buffer would fault the same
  // huge page at once (the kernel clears one per racing thread); faulted in first, each 2 MiB
  // by one thread, it is cleared once. Resident pages cost a page-table walk.
  if (threads > 1) core::prefault(dst, bytes);
  download_with(src, bytes, s, threads,
                [&](size_t at, const char* from, size_t len, bool streaming) {
                  copy_piece(to + at, from, len, streaming);
                });
}

void StagingRing::download_rows(void* dst, size_t dst_pitch, const void* src, size_t row_bytes,
                                size_t rows, cudaStream_t s, int threads) {
  if (row_bytes == 0 || rows == 0) return;
  if (dst_pitch == row_bytes) return download(dst, src, row_bytes * rows, s, threads);
  char* to = static_cast<char*>(dst);
  // As download: the rows' span faulted in first (the bytes between rows are the caller's
  // too; populating their pages changes none of them).
  if (threads > 1) core::prefault(dst, (rows - 1) * dst_pitch + row_bytes);
  // Bytes [at, at + len) of the transfer: a row's tail, whole rows, a row's head.
  download_with(src, row_bytes * rows, s, threads,
                [&](size_t at, const char* from, size_t len, bool streaming) {
                  const size_t end = at + len;
                  while (at < end) {
                    const size_t y = at / row_bytes, x = at % row_bytes;
                    const size_t n = std::min(row_bytes - x, end - at);
                    copy_piece(to + y * dst_pitch + x, from, n, streaming);
                    from += n;
                    at += n;
                  }
                });
}

}  // namespace gj2k::transform::cuda
