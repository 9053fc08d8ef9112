// A process-wide pool of reusable GPU resources (streams with their pinned and device buffers)
// shared by the threads of the codec: a caller takes an object, uses it, and gives it back.
//
// Contract:
// - take() hands out a free object, or waits while objects announced by expect() are still
//   being prepared elsewhere (a warm-up thread), or else makes a new one with the factory.
// - Lease<T> holds one object for its lifetime and returns it only after succeeded() was
//   called: an object whose work failed is destroyed, since its stream may hold a sticky error.
// - A process-wide pool is made with `new` and never destroyed (static Pool<T>* p = new ...):
//   CUDA frees at static destruction may run after the CUDA runtime has shut down. Its free
//   objects are released on request (clear(); gj2k::release_gpu_resources).
// Thread-safe; the factory runs outside the lock.
#pragma once

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

namespace gj2k::transform::cuda {

template <class T>
class Pool {
 public:
  using Factory = std::function<std::unique_ptr<T>()>;
  explicit Pool(Factory factory) : factory_(std::move(factory)) {}
  Pool(const Pool&) = delete;
  Pool& operator=(const Pool&) = delete;

  std::unique_ptr<T> take() {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      cv_.wait(lock, [&] { return !free_.empty() || pending_ == 0; });
      if (!free_.empty()) {
        std::unique_ptr<T> t = std::move(free_.back());
        free_.pop_back();
        return t;
      }
    }
    return factory_();
  }

  // A free object, or null: never waits, never makes one.
  std::unique_ptr<T> try_take() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (free_.empty()) return nullptr;
    std::unique_ptr<T> t = std::move(free_.back());
    free_.pop_back();
    return t;
  }

  void give(std::unique_ptr<T> t) {
    if (!t) return;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      free_.push_back(std::move(t));
    }
    cv_.notify_all();
  }

  // Free objects now (a snapshot: other threads may take or give at once).
  size_t free_count() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return free_.size();
  }
  // Destroys the free objects (those taken stay with their takers and come back as usual);
  // returns how many. The next take() makes new ones.
  size_t clear() {
    std::vector<std::unique_ptr<T>> dropped;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      dropped.swap(free_);
    }
    return dropped.size();  // destroyed here, outside the lock
  }

  // Announces n objects that another thread is preparing; each must be settled by fulfil()
  // (with the object, or null when preparing it failed).
  void expect(int n) {
    std::lock_guard<std::mutex> lock(mutex_);
    pending_ += n;
  }
  void fulfil(std::unique_ptr<T> t) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      --pending_;
      if (t) free_.push_back(std::move(t));
    }
    cv_.notify_all();
  }

 private:
  Factory factory_;
  mutable std::mutex mutex_;
  std::condition_variable cv_;
  std::vector<std::unique_ptr<T>> free_;
  int pending_ = 0;
};

template <class T>
class Lease {
 public:
  explicit Lease(Pool<T>& pool) : pool_(pool), t_(pool.take()) {}
  // Holds `t` (taken from this pool earlier), or takes one when t is null.
  Lease(Pool<T>& pool, std::unique_ptr<T> t) : pool_(pool), t_(t ? std::move(t) : pool.take()) {}
  ~Lease() {
    if (ok_) pool_.give(std::move(t_));
  }
  Lease(const Lease&) = delete;
  Lease& operator=(const Lease&) = delete;
  T& operator*() const { return *t_; }
  T* operator->() const { return t_.get(); }
  // The object's work completed (or none is in flight): it goes back to the pool at the end of
  // the lease. in_use() takes that back while new work is enqueued.
  void succeeded() { ok_ = true; }
  void in_use() { ok_ = false; }
  // Ends the lease without returning the object: the caller keeps it.
  std::unique_ptr<T> release() {
    ok_ = false;
    return std::move(t_);
  }

 private:
  Pool<T>& pool_;
  std::unique_ptr<T> t_;
  bool ok_ = false;
};

}  // namespace gj2k::transform::cuda
