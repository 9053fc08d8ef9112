// Sample buffers kept between tiles, decodes and encodes. A tile's coefficient planes that do
// not become the caller's image -- tiles copied into it, every plane of a decode into the
// caller's buffer (Decoder::decode_into), an encoded tile's coefficients -- come back here, and
// the next tile, decode or encode of the process takes them instead of fresh memory, whose
// first touch (page faults, the kernel clearing each page) costs a large tile a sixth of its
// decode (docs/PERFORMANCE.md, "Twenty-sixth run"). The store is process-wide: no Decoder,
// Encoder or C API context owns it, and it lasts until gj2k::release_gpu_resources or the
// process's end. Thread-safe. Not public.
#pragma once

#include <cstddef>

#include "gj2k/image.h"

namespace gj2k::codec {

// The most bytes kept: 1 GiB or a sixteenth of the memory (the machine's, or the process's
// cgroup limit when lower), whichever is smaller.
size_t kept_samples_limit();

// A buffer of n samples, contents unspecified: the smallest kept one that holds n and is at
// most twice n, or a new one (then *fresh, when given, is true: its pages are not yet
// touched); n = 0: an empty one. In AddressSanitizer builds a kept buffer is poisoned but for
// the n samples handed out.
Samples take_samples(size_t n, bool* fresh = nullptr);

// Keeps s's buffer for take_samples and leaves s empty. Within kept_samples_limit() in all: the
// buffers kept longest ago are freed first, and one above the limit is freed at once.
void keep_samples(Samples& s);

// Frees every kept buffer (gj2k::release_gpu_resources calls it); returns how many.
size_t release_kept_samples();

}  // namespace gj2k::codec
