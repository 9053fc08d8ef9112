// The image model's helpers (include/gj2k/image.h).
#include "gj2k/image.h"

#include <algorithm>
#include <atomic>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "codec/api_guard.h"
#include "codec/encoder_internal.h"
#include "codec/sample_cache.h"
#include "codec/tile_backend.h"
#include "core/memory.h"
#include "core/thread_pool.h"
#include "gj2k/error.h"
#include "gj2k/gj2k.h"

namespace gj2k {

const char* version() {
  return GJ2K_VERSION;
}

size_t release_gpu_resources() {
  return codec::release_gpu_pools() + codec::release_kept_samples();
}

const char* to_string(ErrorCode code) {
  switch (code) {
    case ErrorCode::kInvalidArgument:
      return "invalid argument";
    case ErrorCode::kIo:
      return "i/o error";
    case ErrorCode::kFormat:
      return "format error";
    case ErrorCode::kTruncated:
      return "truncated input";
    case ErrorCode::kUnsupported:
      return "unsupported";
    case ErrorCode::kDevice:
      return "device error";
    case ErrorCode::kResource:
      return "out of resources";
    case ErrorCode::kInternal:
      return "internal error";
    case ErrorCode::kCancelled:
      return "cancelled";
    case ErrorCode::kBufferTooSmall:
      return "buffer too small";
  }
  return "unknown error";
}

uint32_t component_extent(uint32_t origin, uint32_t end, uint32_t subsampling) {
  const uint64_t s = subsampling;
  const uint64_t a = (uint64_t{origin} + s - 1) / s;
  const uint64_t b = (uint64_t{end} + s - 1) / s;
  return b > a ? static_cast<uint32_t>(b - a) : 0;
}

namespace {
[[noreturn]] void bad(const std::string& what) {
  throw Error(ErrorCode::kInvalidArgument, "image: " + what);
}
}  // namespace

void advise_huge_pages(void* p, size_t bytes) noexcept {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  // Whether buffers are advised: yes, but not where the guest reports its free pages
  // (core::free_pages_reported): its huge pages come from 2 MiB blocks the guest has returned,
  // which the host backs again on their first touch (docs/PERFORMANCE.md, "Nineteenth run").
  // GJ2K_HUGE_PAGES=0 leaves the kernel's default, =1 advises every buffer (for measuring what
  // the hint costs or saves).
  static const bool advise = [] {
    const char* v = std::getenv("GJ2K_HUGE_PAGES");
    if (v && v[0] != 0 && v[1] == 0 && (v[0] == '0' || v[0] == '1')) return v[0] == '1';
    try {
      return !core::free_pages_reported();
    } catch (...) {  // an unreadable /sys: advised
      return true;
    }
  }();
  if (!advise) return;
  constexpr uintptr_t kHuge = uintptr_t{2} << 20;
  const uintptr_t first = (reinterpret_cast<uintptr_t>(p) + kHuge - 1) & ~(kHuge - 1);
  const uintptr_t end = (reinterpret_cast<uintptr_t>(p) + bytes) & ~(kHuge - 1);
  if (end > first) madvise(reinterpret_cast<void*>(first), end - first, MADV_HUGEPAGE);
#else
  (void)p;
  (void)bytes;
#endif
}

namespace {

// How `allocate` leaves the samples: zeros, not initialised (for a caller that writes every
// one), or none at all (a layout).
enum class Fill { kZero, kForOverwrite, kNone };

// allocate_components with its samples as `fill` says.
void allocate(Image& image, Fill fill) {
  if (image.x1 <= image.x0 || image.y1 <= image.y0) bad("empty image area");
  if (image.components.empty()) bad("no components");
  for (size_t c = 0; c < image.components.size(); ++c) {
    Component& comp = image.components[c];
    if (comp.dx < 1 || comp.dx > 255 || comp.dy < 1 || comp.dy > 255)
      bad("component " + std::to_string(c) + ": subsampling out of 1..255");
    if (comp.precision < 1 || comp.precision > kMaxPrecision)
      bad("component " + std::to_string(c) + ": precision " + std::to_string(comp.precision) +
          " out of 1..32");
    comp.width = component_extent(image.x0, image.x1, comp.dx);
    comp.height = component_extent(image.y0, image.y1, comp.dy);
    const size_t n = static_cast<size_t>(comp.width) * comp.height;
    detail::guard("", "allocating an image", [&] {
      if (fill == Fill::kZero) {
        comp.samples.assign(n, 0);
      } else {
        Samples().swap(comp.samples);
        if (fill == Fill::kForOverwrite)
          comp.samples.resize(n);  // not zeroed (DefaultInitAllocator)
      }
    });
  }
}

Image make(uint32_t width, uint32_t height, uint32_t num_components, uint32_t precision,
           bool is_signed, uint32_t x0, uint32_t y0, Fill fill) {
  if (width == 0 || height == 0) bad("zero width or height");
  if (uint64_t{x0} + width > UINT32_MAX || uint64_t{y0} + height > UINT32_MAX)
    bad("image area exceeds the 32-bit reference grid");
  Image image;
  image.x0 = x0;
  image.y0 = y0;
  image.x1 = x0 + width;
  image.y1 = y0 + height;
  Component proto;
  proto.precision = precision;
  proto.is_signed = is_signed;
  image.components.assign(num_components, proto);
  allocate(image, fill);
  if (num_components == 1) image.color_space = ColorSpace::kGrey;
  if (num_components == 3) image.color_space = ColorSpace::kSRGB;
  return image;
}

}  // namespace

void allocate_components(Image& image) {
  allocate(image, Fill::kZero);
}

Image make_image(uint32_t width, uint32_t height, uint32_t num_components, uint32_t precision,
                 bool is_signed, uint32_t x0, uint32_t y0) {
  return make(width, height, num_components, precision, is_signed, x0, y0, Fill::kZero);
}

Image make_layout(uint32_t width, uint32_t height, uint32_t num_components, uint32_t precision,
                  bool is_signed, uint32_t x0, uint32_t y0) {
  return make(width, height, num_components, precision, is_signed, x0, y0, Fill::kNone);
}

namespace codec {

Image make_image_for_overwrite(uint32_t width, uint32_t height, uint32_t num_components,
                               uint32_t precision) {
  return make(width, height, num_components, precision, false, 0, 0, Fill::kForOverwrite);
}

void validate_layout(const Image& image, bool buffers) {
  if (image.x1 <= image.x0 || image.y1 <= image.y0) bad("empty image area");
  if (image.components.empty()) bad("no components");
  for (size_t c = 0; c < image.components.size(); ++c) {
    const Component& comp = image.components[c];
    const std::string name = "component " + std::to_string(c) + ": ";
    if (comp.dx < 1 || comp.dx > 255 || comp.dy < 1 || comp.dy > 255)
      bad(name + "subsampling out of 1..255");
    if (comp.precision < 1 || comp.precision > kMaxPrecision)
      bad(name + "precision " + std::to_string(comp.precision) + " out of 1..32");
    if (comp.width != component_extent(image.x0, image.x1, comp.dx) ||
        comp.height != component_extent(image.y0, image.y1, comp.dy))
      bad(name + "size " + std::to_string(comp.width) + "x" + std::to_string(comp.height) +
          " does not match the image area and subsampling");
    if (buffers && comp.samples.size() != static_cast<size_t>(comp.width) * comp.height)
      bad(name + "sample buffer holds " + std::to_string(comp.samples.size()) +
          " samples, expected " + std::to_string(size_t{comp.width} * comp.height));
  }
}

void validate_samples(const Image& image) {
  for (size_t c = 0; c < image.components.size(); ++c) {
    const Component& comp = image.components[c];
    const int64_t lo = comp.min_value(), hi = comp.max_value();
    // Whether any sample lies outside [lo, hi] first (one unsigned compare a sample, which
    // vectorises; threads for large images), then the first one for the message.
    const int32_t* v = comp.samples.data();
    const size_t n = comp.samples.size();
    // Samples are int32: an unsigned 32-bit component's range ends at INT32_MAX for them.
    const int64_t top = std::min<int64_t>(hi, INT32_MAX);
    const uint32_t base = static_cast<uint32_t>(lo);
    const uint32_t span = static_cast<uint32_t>(top - lo);
    std::atomic<bool> outside{false};
    core::parallel_blocks(
        n,
        [&](size_t first, size_t last) {
          uint32_t any = 0;
          for (size_t i = first; i < last; ++i)
            any |= static_cast<uint32_t>(static_cast<uint32_t>(v[i]) - base > span);
          if (any) outside.store(true, std::memory_order_relaxed);
        },
        n >= (size_t{1} << 20) ? 0 : 1);
    if (!outside.load()) continue;
    for (size_t i = 0; i < comp.samples.size(); ++i) {
      if (comp.samples[i] < lo || comp.samples[i] > hi)
        bad("component " + std::to_string(c) + ": sample " + std::to_string(comp.samples[i]) +
            " at (" + std::to_string(i % comp.width) + "," + std::to_string(i / comp.width) +
            ") outside the range of its precision");
    }
  }
}

}  // namespace codec

void validate(const Image& image) {
  codec::validate_layout(image);
  codec::validate_samples(image);
}

std::optional<std::string> compare(const Image& a, const Image& b) {
  auto rect = [](const Image& im) {
    return "[" + std::to_string(im.x0) + "," + std::to_string(im.x1) + ")x[" +
           std::to_string(im.y0) + "," + std::to_string(im.y1) + ")";
  };
  if (a.x0 != b.x0 || a.y0 != b.y0 || a.x1 != b.x1 || a.y1 != b.y1)
    return "image area " + rect(a) + " vs " + rect(b);
  if (a.components.size() != b.components.size())
    return "component count " + std::to_string(a.components.size()) + " vs " +
           std::to_string(b.components.size());
  for (size_t c = 0; c < a.components.size(); ++c) {
    const Component& p = a.components[c];
    const Component& q = b.components[c];
    const std::string name = "component " + std::to_string(c) + ": ";
    if (p.dx != q.dx || p.dy != q.dy) return name + "subsampling differs";
    if (p.precision != q.precision)
      return name + "precision " + std::to_string(p.precision) + " vs " +
             std::to_string(q.precision);
    if (p.is_signed != q.is_signed) return name + "signedness differs";
    if (p.width != q.width || p.height != q.height) return name + "size differs";
    if (p.samples.size() != q.samples.size()) return name + "sample count differs";
    for (size_t i = 0; i < p.samples.size(); ++i) {
      if (p.samples[i] != q.samples[i])
        return name + "sample at (" + std::to_string(i % p.width) + "," +
               std::to_string(i / p.width) + ") is " + std::to_string(p.samples[i]) + " vs " +
               std::to_string(q.samples[i]);
    }
  }
  return std::nullopt;
}

std::string describe(const Image& image) {
  std::string s = std::to_string(image.width()) + "x" + std::to_string(image.height()) + " @(" +
                  std::to_string(image.x0) + "," + std::to_string(image.y0) + "), " +
                  std::to_string(image.components.size()) + " component" +
                  (image.components.size() == 1 ? "" : "s");
  if (!image.components.empty()) {
    const Component& c0 = image.components[0];
    bool uniform = true;
    for (const Component& c : image.components)
      uniform = uniform && c.precision == c0.precision && c.is_signed == c0.is_signed;
    s += uniform ? std::string(" ") + (c0.is_signed ? "s" : "u") + std::to_string(c0.precision)
                 : std::string(" mixed precision");
    s += " [";
    for (size_t c = 0; c < image.components.size(); ++c) {
      if (c) s += " ";
      s += std::to_string(image.components[c].dx) + "x" + std::to_string(image.components[c].dy);
      if (image.components[c].is_alpha) s += "a";
    }
    s += "]";
  }
  switch (image.color_space) {
    case ColorSpace::kGrey:
      s += ", grey";
      break;
    case ColorSpace::kSRGB:
      s += ", sRGB";
      break;
    case ColorSpace::kSYCC:
      s += ", sYCC";
      break;
    case ColorSpace::kICC:
      s += ", ICC";
      break;
    case ColorSpace::kCMYK:
      s += ", CMYK";
      break;
    case ColorSpace::kCIELab:
      s += ", CIELab";
      break;
    case ColorSpace::kESYCC:
      s += ", e-sYCC";
      break;
    case ColorSpace::kUnknown:
      break;
  }
  return s;
}

}  // namespace gj2k
