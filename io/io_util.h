// Internal helpers shared by the io/ readers and writers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>

#if defined(__unix__)
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

#include "gj2k/error.h"

namespace gj2k::io::detail {

// A regular file mapped read-only (POSIX), for readers that parse it in place: no buffer to
// zero-fill and no copy. valid() is false where mapping is not possible (not a regular file,
// empty, no mmap): the caller then reads the file (read_file), which also reports errors. The
// file must not shrink while mapped.
class MappedFile {
 public:
  explicit MappedFile(const std::filesystem::path& path) {
#if defined(__unix__)
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    struct stat st {};
    if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
      void* p = ::mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ,
                       MAP_PRIVATE | MAP_POPULATE, fd, 0);
      if (p != MAP_FAILED) {
        data_ = static_cast<const uint8_t*>(p);
        size_ = static_cast<size_t>(st.st_size);
      }
    }
    ::close(fd);
#else
    (void)path;
#endif
  }
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile() {
#if defined(__unix__)
    if (data_) ::munmap(const_cast<uint8_t*>(data_), size_);
#endif
  }
  bool valid() const {
    return data_ != nullptr;
  }
  std::span<const uint8_t> bytes() const {
    return {data_, size_};
  }

 private:
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

// Throws Error(code, "<name>: <what>").
[[noreturn]] inline void fail(ErrorCode code, const std::string& name, const std::string& what) {
  throw Error(code, name + ": " + what);
}

// "at byte N".
inline std::string at_byte(size_t offset) {
  return "at byte " + std::to_string(offset);
}

// Precision in bits of the largest value `maxval` (>= 1): bits needed to write it.
inline uint32_t bits_for(uint32_t maxval) {
  uint32_t bits = 0;
  while (bits < 32 && (uint64_t{1} << bits) <= maxval) ++bits;
  return bits;
}

// a * b, saturated at UINT64_MAX (sizes computed from untrusted headers never wrap).
inline uint64_t mul_sat(uint64_t a, uint64_t b) {
  if (a != 0 && b > UINT64_MAX / a) return UINT64_MAX;
  return a * b;
}
inline uint64_t mul_sat(uint64_t a, uint64_t b, uint64_t c) {
  return mul_sat(mul_sat(a, b), c);
}
inline uint64_t mul_sat(uint64_t a, uint64_t b, uint64_t c, uint64_t d) {
  return mul_sat(mul_sat(a, b, c), d);
}

// Sign-extends the low `bits` bits of v.
inline int32_t sign_extend(uint32_t v, uint32_t bits) {
  const uint32_t m = uint32_t{1} << (bits - 1);
  v &= (bits == 32) ? ~0u : ((uint32_t{1} << bits) - 1);
  return static_cast<int32_t>((v ^ m)) - static_cast<int32_t>(m);
}

}  // namespace gj2k::io::detail
