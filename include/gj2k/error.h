// gj2k: the one exception type of the public API.
#pragma once

#include <stdexcept>
#include <string>

#include "gj2k/export.h"

namespace gj2k {

// What kind of failure an Error reports. Messages say what was wrong and where
// (file, marker or box, byte offset, tile); the code lets callers branch without parsing text.
enum class ErrorCode {
  kInvalidArgument,  // a parameter or option the caller gave is out of range or inconsistent
  kIo,               // a file could not be opened, read or written
  kFormat,           // the input violates its format (bad magic, header lie, bad marker)
  kTruncated,        // the input ended before the data its headers promise
  kUnsupported,      // valid input that gj2k does not handle (said explicitly, never guessed)
  kDevice,           // the GPU is absent, failed, or ran out of memory
  kResource,         // host memory ran out, or the input needs more than a limit allows
                     // (DecodeParams::max_samples): raise the limit or free memory
  kInternal,         // a broken invariant inside gj2k: a bug
  kCancelled,        // a progress callback asked to stop
  kBufferTooSmall,   // a caller's buffer cannot hold the output (gj2k::copy_to, decode_into)
};

GJ2K_API const char* to_string(ErrorCode code);

class GJ2K_API Error : public std::runtime_error {
 public:
  Error(ErrorCode code, const std::string& message) : std::runtime_error(message), code_(code) {}
  ErrorCode code() const noexcept { return code_; }

 private:
  ErrorCode code_;
};

}  // namespace gj2k
