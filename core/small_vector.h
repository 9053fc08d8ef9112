// SmallVector: a vector of trivially copyable values that holds its first N in itself and
// only past N allocates. Not public.
//
// For per-item lists that nearly always have one or two entries and exist by the ten
// thousand (a code-block's codeword segments): a std::vector allocates for the first entry
// of every one. The interface is the part of std::vector such lists use.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <type_traits>
#include <utility>
#include <vector>

namespace gj2k::core {

template <class T, size_t N>
class SmallVector {
  static_assert(std::is_trivially_copyable_v<T> && N > 0);

 public:
  SmallVector() = default;
  SmallVector(std::initializer_list<T> values) {
    for (const T& v : values) push_back(v);
  }
  SmallVector(const SmallVector&) = default;
  SmallVector& operator=(const SmallVector&) = default;
  // A moved-from SmallVector is empty.
  SmallVector(SmallVector&& o) noexcept { *this = std::move(o); }
  SmallVector& operator=(SmallVector&& o) noexcept {
    if (this != &o) {
      size_ = o.size_;
      for (size_t i = 0; i < N; ++i) inline_[i] = o.inline_[i];
      heap_ = std::move(o.heap_);
      o.heap_.clear();
      o.size_ = 0;
    }
    return *this;
  }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T* data() { return heap_.empty() ? inline_ : heap_.data(); }
  const T* data() const { return heap_.empty() ? inline_ : heap_.data(); }
  T* begin() { return data(); }
  T* end() { return data() + size_; }
  const T* begin() const { return data(); }
  const T* end() const { return data() + size_; }
  T& operator[](size_t i) { return data()[i]; }
  const T& operator[](size_t i) const { return data()[i]; }
  T& back() { return data()[size_ - 1]; }
  const T& back() const { return data()[size_ - 1]; }

  // Past N values, all of them move to the heap (heap_ then holds every value).
  void push_back(const T& v) {
    if (heap_.empty() && size_ < N) {
      inline_[size_++] = v;
      return;
    }
    if (heap_.empty()) heap_.assign(inline_, inline_ + size_);
    heap_.push_back(v);
    ++size_;
  }
  void clear() {
    heap_.clear();
    size_ = 0;
  }
  // n copies of v, as std::vector::assign (no allocation while n <= N).
  void assign(size_t n, const T& v) {
    heap_.clear();
    if (n <= N) {
      for (size_t i = 0; i < n; ++i) inline_[i] = v;
    } else {
      heap_.assign(n, v);
    }
    size_ = n;
  }

 private:
  size_t size_ = 0;
  T inline_[N] = {};
  std::vector<T> heap_;  // empty while size_ <= N
};

}  // namespace gj2k::core
