// libFuzzer target: any input either decodes or throws gj2k::Error; crashes, hangs, leaks and
// sanitizer reports are bugs. Seeds: $GJ2K_SHARED/conformance/input.
//   cmake -S . -B build-fuzz -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_C_COMPILER=clang \
//     -DGJ2K_FUZZ=ON -DGJ2K_SANITIZE=ON -DGJ2K_CUDA=OFF -DGJ2K_TESTS=OFF -DGJ2K_BENCH=OFF
//   cmake --build build-fuzz --target fuzz_decode
//   build-fuzz/bin/fuzz_decode -max_len=200000 -rss_limit_mb=4096 corpus/
//   ../shared/conformance/input
#include <cstddef>
#include <cstdint>
#include <span>

#include "gj2k/decoder.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    gj2k::DecodeParams p;
    p.threads = 1;
    p.max_samples = uint64_t{1} << 24;
    p.allow_partial = size % 2 == 0;  // both the strict and the lenient paths
    gj2k::decode_memory(std::span<const uint8_t>(data, size), p);
  } catch (const gj2k::Error&) {
  }
  return 0;
}
