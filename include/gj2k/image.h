// gj2k: the image model. An image is a list of components placed on the JPEG 2000 reference
// grid (ISO/IEC 15444-1 Annex B.2): the image area is [x0, x1) x [y0, y1) on the grid, and
// component c samples the grid every (dx, dy) points, so it holds the samples at grid points
// (dx*x, dy*y) for ceil(x0/dx) <= x < ceil(x1/dx), ceil(y0/dy) <= y < ceil(y1/dy) (B-2).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "gj2k/export.h"

namespace gj2k {

// The largest precision a file sample may have; internal buffers may carry up to 32 bits.
inline constexpr uint32_t kMaxFilePrecision = 16;
inline constexpr uint32_t kMaxPrecision = 32;

enum class ColorSpace {
  kUnknown,  // not stated
  kGrey,     // enumerated greyscale
  kSRGB,     // enumerated sRGB
  kSYCC,     // enumerated sYCC
  kICC,      // described by the ICC profile in Image::icc_profile
  kCMYK,     // JPX enumerated CMYK (12), as OpenJPEG reads it from JP2 files
  kCIELab,   // JPX enumerated CIELab (14)
  kESYCC,    // JPX enumerated e-sYCC (24)
};

// A hint that the whole 2 MiB pages within [p, p + bytes) be backed by huge pages (Linux
// transparent huge pages, madvise mode): a large buffer then faults in 2 MiB at a time instead
// of 4 KiB, which saves most of the kernel time of its first touch. No effect elsewhere, nor on
// a virtual machine that returns its free memory to its host (a virtio balloon with free page
// reporting): there huge pages come from memory the host must back again on their first touch.
// DefaultInitAllocator gives it every buffer of kHugePageHintBytes and more.
GJ2K_API void advise_huge_pages(void* p, size_t bytes) noexcept;
inline constexpr size_t kHugePageHintBytes = size_t{8} << 20;

// The allocator of sample buffers. Like std::allocator, except that value-initialising
// construction -- resize(n), vector(n) -- default-initialises, which leaves int32 samples
// uninitialised: a decoder that writes every sample then pays for no zero fill first (on a
// 16-core machine a serial fill of an RGB 2560x1600 image costs a third of its decode).
// assign(n, v), resize(n, v), insert and copies initialise as usual: to get zeros, say so.
template <class T>
struct DefaultInitAllocator {
  using value_type = T;
  DefaultInitAllocator() = default;
  template <class U>
  constexpr DefaultInitAllocator(const DefaultInitAllocator<U>&) noexcept {}
  T* allocate(size_t n) {
    T* p = std::allocator<T>{}.allocate(n);
    if (n * sizeof(T) >= kHugePageHintBytes) advise_huge_pages(p, n * sizeof(T));
#if defined(GJ2K_POISON_SAMPLES)  // sanitizer builds: a sample nobody writes shows up in tests
    if constexpr (std::is_trivially_copyable_v<T>)
      std::memset(static_cast<void*>(p), 0xA5, n * sizeof(T));
#endif
    return p;
  }
  void deallocate(T* p, size_t n) noexcept {
    std::allocator<T>{}.deallocate(p, n);
  }
  template <class U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
  friend bool operator==(const DefaultInitAllocator&, const DefaultInitAllocator&) {
    return true;
  }
};

// Planar int32 samples (see DefaultInitAllocator: resize(n) does not zero).
using Samples = std::vector<int32_t, DefaultInitAllocator<int32_t>>;

// One component: planar int32 samples, row-major, width * height, stride == width.
struct Component {
  uint32_t dx = 1, dy = 1;  // subsampling on the reference grid, 1..255
  uint32_t precision = 8;   // bits per sample, 1..kMaxPrecision
  bool is_signed = false;   // two's-complement range [-2^(p-1), 2^(p-1)) instead of [0, 2^p)
  bool is_alpha = false;    // opacity channel (JP2 cdef, TIFF extra sample)
  uint32_t width = 0, height = 0;
  Samples samples;

  int32_t& at(uint32_t x, uint32_t y) { return samples[static_cast<size_t>(y) * width + x]; }
  int32_t at(uint32_t x, uint32_t y) const { return samples[static_cast<size_t>(y) * width + x]; }
  int64_t min_value() const { return is_signed ? -(int64_t{1} << (precision - 1)) : 0; }
  int64_t max_value() const {
    return is_signed ? (int64_t{1} << (precision - 1)) - 1 : (int64_t{1} << precision) - 1;
  }
};

// The width of the samples of a caller's buffer (OutputBuffer in gj2k/decoder.h, InputBuffer
// in gj2k/encoder.h): uint8_t, uint16_t or int32_t for unsigned components, int8_t, int16_t or
// int32_t for signed ones.
enum class SampleType : uint8_t { k8 = 1, k16 = 2, k32 = 4 };

struct Image {
  uint32_t x0 = 0, y0 = 0;  // image origin on the reference grid
  uint32_t x1 = 0, y1 = 0;  // one past the image's last grid point
  std::vector<Component> components;
  ColorSpace color_space = ColorSpace::kUnknown;
  std::vector<uint8_t> icc_profile;  // ICC profile bytes when color_space == kICC

  uint32_t width() const { return x1 - x0; }
  uint32_t height() const { return y1 - y0; }
};

// A component's extent on its own grid for an image area and subsampling (15444-1 B-2).
GJ2K_API uint32_t component_extent(uint32_t origin, uint32_t end, uint32_t subsampling);

// Makes an image of `num_components` components of size width x height at origin (x0, y0),
// each with the given precision, signedness and subsampling 1x1, all samples zero; the colour
// space grey for one component, sRGB for three, else unknown.
// Throws Error(kInvalidArgument) for a zero size, precision outside 1..32 or an
// extent that overflows the grid.
GJ2K_API Image make_image(uint32_t width, uint32_t height, uint32_t num_components,
                          uint32_t precision, bool is_signed = false, uint32_t x0 = 0,
                          uint32_t y0 = 0);

// make_image without samples: the geometry of an image whose samples lie in a caller's buffer
// (Encoder::encode(layout, InputBuffer), gj2k/encoder.h). The same defaults and errors.
GJ2K_API Image make_layout(uint32_t width, uint32_t height, uint32_t num_components,
                           uint32_t precision, bool is_signed = false, uint32_t x0 = 0,
                           uint32_t y0 = 0);

// Fills in every component's width/height from the image area and its subsampling and sizes
// its sample buffer (zeros). Throws Error(kInvalidArgument) on bad geometry.
GJ2K_API void allocate_components(Image& image);

// Checks that an image is self-consistent: area non-empty, every component's dx, dy in 1..255,
// precision in 1..32, width/height matching B-2, sample count = width*height, and every sample
// within the component's range. Throws Error(kInvalidArgument) naming the first problem.
GJ2K_API void validate(const Image& image);

// Compares two images: geometry, component count, subsampling, precision, signedness and every
// sample. Returns nullopt when identical, otherwise a description of the first difference.
GJ2K_API std::optional<std::string> compare(const Image& a, const Image& b);

// One line describing an image: "640x480 @(0,0), 3 components u8 [1x1 1x1 1x1], sRGB".
GJ2K_API std::string describe(const Image& image);

}  // namespace gj2k
