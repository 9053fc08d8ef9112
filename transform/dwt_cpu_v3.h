// The fast CPU DWT's 1-D passes compiled for x86-64-v3 (core/isa.h), which dwt_cpu.cpp calls
// when core::host_isa() is kV3. Built only where GJ2K_HAVE_ISA_V3.
#pragma once

#include <cstddef>
#include <cstdint>

namespace gj2k::transform::cpu::v3 {

// kernels::fused_row<Kern53 / Kern97, forward> (dwt_cpu_kernels.h).
void row53(bool forward, int32_t* x, size_t n, int p, int32_t* tmp);
void row97(bool forward, float* x, size_t n, int p, float* tmp);
// kernels::fused_pass<Kern53 / Kern97, forward> on a strip of `lanes` columns (a fixed lane
// count where lanes is one of kStripWidths: kernels::with_fixed_lanes).
void strip53(bool forward, int32_t* x, size_t along, size_t n, int p, size_t lanes, int32_t* tmp,
             size_t tp);
void strip97(bool forward, float* x, size_t along, size_t n, int p, size_t lanes, float* tmp,
             size_t tp);

// kernels::band_inverse<Kern53 / Kern97>.
void band53(const int32_t* plane, size_t stride, size_t w, int px, size_t l0, size_t nl, size_t h0,
            size_t nh, int py, int32_t* band, int32_t* tmp);
void band97(const float* plane, size_t stride, size_t w, int px, size_t l0, size_t nl, size_t h0,
            size_t nh, int py, float* band, float* tmp);
}  // namespace gj2k::transform::cpu::v3
