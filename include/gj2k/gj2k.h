// gj2k: the whole public API.
#pragma once

#include <cstddef>

#include "gj2k/decoder.h"
#include "gj2k/encoder.h"
#include "gj2k/error.h"
#include "gj2k/image.h"
#include "gj2k/version.h"

namespace gj2k {
// The library's version, "MAJOR.MINOR.PATCH" (GJ2K_VERSION is the headers' version).
GJ2K_API const char* version();

// Frees what the library keeps between calls to make the next one fast: the GPU's device
// buffers, pinned staging memory and streams (a later call that uses the GPU makes them
// again, sized for its work), of the C++ API's process-wide pools and of every live C API
// context, and the coefficient buffers the CPU decoder and encoder keep for the next tile,
// decode or encode (process-wide, owned by no object: a tile's planes that its image did not
// take; 1 GiB or a sixteenth of the memory at most, whichever is smaller). Objects in use by a call
// still running are kept and come back to the pools when it ends. Thread-safe. Returns how many
// pooled objects were freed. The C++ API's worker threads (one process pool, grown to the largest
// EncodeParams/DecodeParams::threads asked for) stay until the process exits; a gj2k_context owns
// and frees its own threads and GPU objects. The CUDA context stays for the process.
GJ2K_API size_t release_gpu_resources();
}  // namespace gj2k
