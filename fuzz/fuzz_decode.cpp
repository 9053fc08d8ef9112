// libFuzzer target: any input either decodes or throws gj2k::Error; any other exception, a
// crash, hang, leak or sanitizer report is a finding (another exception aborts, so libFuzzer
// keeps the input). The decode runs as `gj2k decode` would: the CLI's default sample limit
// (gj2k::default_max_samples(), capped at 2^26 so that a valid but huge image stays inside
// -rss_limit_mb=2048; GJ2K_FUZZ_MAX_SAMPLES overrides) and 1 to 4 threads by the input's size,
// strict and lenient (allow_partial) by its parity; a third of the inputs (size % 3 == 0) go
// through Decoder::decode_into a buffer of the decode's shape (8, 16 or 32 bits by the widest
// precision, interleaved or planar by size / 3), where direct_output knows it, so that the
// packing paths meet hostile streams too. Seeds: $GJ2K_SHARED/conformance/input.
//   cmake -S . -B build-fuzz -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_C_COMPILER=clang \
//     -DGJ2K_FUZZ=ON -DGJ2K_SANITIZE=ON -DGJ2K_CUDA=OFF -DGJ2K_TESTS=OFF -DGJ2K_BENCH=OFF
//   cmake --build build-fuzz --target fuzz_decode
//   build-fuzz/bin/fuzz_decode -max_len=300000 -rss_limit_mb=2048 \
//     corpus/ ../shared/conformance/input
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <optional>
#include <span>
#include <vector>

#include "gj2k/decoder.h"

namespace {

uint64_t max_samples() {
  static const uint64_t value = [] {
    if (const char* env = std::getenv("GJ2K_FUZZ_MAX_SAMPLES"))
      return static_cast<uint64_t>(std::strtoull(env, nullptr, 10));
    return std::min<uint64_t>(gj2k::default_max_samples(), uint64_t{1} << 26);
  }();
  return value;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    gj2k::Decoder decoder(std::span<const uint8_t>(data, size));
    decoder.read_header();
    gj2k::DecodeParams p;
    p.threads = 1 + static_cast<uint32_t>(size / 2 % 4);
    p.device = gj2k::DecodeDevice::kCpu;
    p.max_samples = max_samples();
    p.allow_partial = size % 2 == 0;  // both the strict and the lenient paths
    if (size % 3 == 0) {
      if (const std::optional<gj2k::Image> shape = decoder.direct_output(p)) {
        uint32_t precision = 0;
        for (const gj2k::Component& c : shape->components)
          precision = std::max(precision, c.precision);
        gj2k::OutputBuffer out;
        out.type = precision <= 8    ? gj2k::SampleType::k8
                   : precision <= 16 ? gj2k::SampleType::k16
                                     : gj2k::SampleType::k32;
        out.interleaved = size / 3 % 2 == 0;
        std::vector<uint8_t> buffer(gj2k::output_bytes(*shape, out));
        out.data = buffer.data();
        out.size = buffer.size();
        decoder.decode_into(p, out);
        return 0;
      }
    }
    decoder.decode(p);
  } catch (const gj2k::Error&) {
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fuzz_decode: non-gj2k exception: %s\n", e.what());
    std::abort();
  } catch (...) {
    std::fprintf(stderr, "fuzz_decode: unknown exception\n");
    std::abort();
  }
  return 0;
}
