// Memory helpers of the library's large buffers. Not public.
#pragma once

#include <cstddef>
#include <filesystem>

namespace gj2k::core {

// Makes the pages of [p, p + bytes) resident and writable, faulted in by the current pool's
// threads in parallel (Linux MADV_POPULATE_WRITE, 5.14 and later), so that a serial first
// write -- std::vector's zero fill of a fresh codestream buffer -- does not also pay for the
// kernel zeroing every page on one thread. The contents are unchanged (pages already present
// stay as they are). Does nothing for small ranges, elsewhere, or where the kernel refuses it:
// a hint, never an error.
void prefault(void* p, size_t bytes);

// std::memcpy(dst, src, bytes) whose stores bypass the caches where the host has them (SSE2
// streaming stores on x86-64; memcpy elsewhere), fenced before it returns: for large copies whose
// destination this core does not read next (a pinned chunk a DMA reads, a caller's output
// buffer), which then cost no read of each destination line before its write. Any alignment;
// the ranges must not overlap.
void copy_streaming(void* dst, const void* src, size_t bytes);

// Whether this Linux guest hands its free memory back to its hypervisor: a virtio balloon
// device bound to `driver` with free page reporting (VIRTIO_BALLOON_F_REPORTING, feature bit 5;
// sysfs lists the features bit 0 first). There a huge page taken from a 2 MiB block already
// returned to the host waits on its first touch for the host to back it again, so the buffers
// of a large image cost more kernel time as huge pages than as small ones
// (gj2k::advise_huge_pages; docs/PERFORMANCE.md, twelfth and thirteenth runs). False where
// the folder or a file cannot be read.
bool free_pages_reported(
    const std::filesystem::path& driver = "/sys/bus/virtio/drivers/virtio_balloon");

// Below this size prefault does nothing: the faults of a few MiB cost less than waking threads.
inline constexpr size_t kPrefaultMinBytes = size_t{4} << 20;

}  // namespace gj2k::core
