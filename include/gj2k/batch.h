// gj2k: the result of one input of a batch call (decode_batch in gj2k/decoder.h, encode_batch
// in gj2k/encoder.h).
#pragma once

#include <optional>

#include "gj2k/error.h"

namespace gj2k {

// Either the value made from one input of a batch, or the error that input met: one bad input
// never loses the others. Results come in the order of the inputs.
template <class T>
struct BatchResult {
  T value{};                   // valid when ok()
  std::optional<Error> error;  // why this input failed (code and message)
  bool ok() const { return !error.has_value(); }
};

}  // namespace gj2k
