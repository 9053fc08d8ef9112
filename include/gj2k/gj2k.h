// gj2k: the whole public API.
#pragma once

#include "gj2k/decoder.h"
#include "gj2k/encoder.h"
#include "gj2k/error.h"
#include "gj2k/image.h"
#include "gj2k/version.h"

namespace gj2k {
// The library's version, "MAJOR.MINOR.PATCH" (GJ2K_VERSION is the headers' version).
GJ2K_API const char* version();
}  // namespace gj2k
