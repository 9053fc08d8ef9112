// The fast CPU DWT's 1-D passes for x86-64-v3 (dwt_cpu_v3.h, core/isa.h). CMakeLists.txt
// compiles this file with the v3 flags (AVX2, BMI1/2, LZCNT, POPCNT; not FMA: the 9/7 float
// operations are the baseline's, bit for bit).
//
// As entropy/t1_v3.cpp: the kernels' header is included inside an anonymous namespace (named
// by v3_copy), so that every function and template instantiation compiled here for v3 has
// internal linkage; the standard headers come first, outside; the entry points below are the
// only names this file exports (tests/install/isa_symbols_test.sh checks it).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "transform/dwt_cpu_v3.h"

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
namespace v3_copy {
namespace {
#include "transform/dwt_cpu.h"  // kStripWidths
#include "transform/dwt_cpu_kernels.h"
}  // namespace
}  // namespace v3_copy
#pragma GCC diagnostic pop

namespace gj2k::transform::cpu::v3 {
namespace {

namespace k = ::v3_copy::gj2k::transform::cpu::kernels;

template <class K, class T>
void row(bool forward, T* x, size_t n, int p, T* tmp) {
  if (forward)
    k::fused_row<K, true>(x, n, p, tmp);
  else
    k::fused_row<K, false>(x, n, p, tmp);
}

template <class K, class T>
void strip(bool forward, T* x, size_t along, size_t n, int p, size_t lanes, T* tmp, size_t tp) {
  k::with_fixed_lanes(lanes, [&](auto l) {
    if (forward)
      k::fused_pass<K, true>(x, along, n, p, l, tmp, tp);
    else
      k::fused_pass<K, false>(x, along, n, p, l, tmp, tp);
  });
}

}  // namespace

void row53(bool forward, int32_t* x, size_t n, int p, int32_t* tmp) {
  row<k::Kern53>(forward, x, n, p, tmp);
}
void row97(bool forward, float* x, size_t n, int p, float* tmp) {
  row<k::Kern97>(forward, x, n, p, tmp);
}
void strip53(bool forward, int32_t* x, size_t along, size_t n, int p, size_t lanes, int32_t* tmp,
             size_t tp) {
  strip<k::Kern53>(forward, x, along, n, p, lanes, tmp, tp);
}
void strip97(bool forward, float* x, size_t along, size_t n, int p, size_t lanes, float* tmp,
             size_t tp) {
  strip<k::Kern97>(forward, x, along, n, p, lanes, tmp, tp);
}

void band53(const int32_t* plane, size_t stride, size_t w, int px, size_t l0, size_t nl, size_t h0,
            size_t nh, int py, int32_t* band, int32_t* tmp) {
  k::band_inverse<k::Kern53>(plane, stride, w, px, l0, nl, h0, nh, py, band, tmp);
}
void band97(const float* plane, size_t stride, size_t w, int px, size_t l0, size_t nl, size_t h0,
            size_t nh, int py, float* band, float* tmp) {
  k::band_inverse<k::Kern97>(plane, stride, w, px, l0, nl, h0, nh, py, band, tmp);
}
}  // namespace gj2k::transform::cpu::v3
