// GPU DC level shift and multiple-component transforms (15444-1 Annex G): device mirrors of
// transform/mct.h, same signatures plus device pointers (d_ prefix) and a stream. Results:
// integer paths (DC shift, RCT, clamps) identical to the CPU functions; ICT float paths use
// the same products and sums without FMA contraction (__fmul_rn/__fadd_rn), so they agree
// with the CPU code to float rounding of the last operation (tests/gpu states the bound).
// Work is enqueued on `stream`; launch errors throw Error(kDevice).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "transform/pack.h"

namespace gj2k::transform::cuda {

// Three per-component values (offsets, clamp bounds), passed by value to the kernels.
struct Int3 {
  int32_t v[3] = {0, 0, 0};
};
inline Int3 int3_of(const int32_t a[3]) {
  return Int3{{a[0], a[1], a[2]}};
}

void dc_shift_forward(int32_t* d_x, size_t n, int32_t offset, cudaStream_t stream);
void dc_shift_inverse(int32_t* d_x, size_t n, int32_t offset, cudaStream_t stream);

void rct_forward(int32_t* d_c0, int32_t* d_c1, int32_t* d_c2, size_t n, cudaStream_t stream);
void rct_inverse(int32_t* d_c0, int32_t* d_c1, int32_t* d_c2, size_t n, cudaStream_t stream);
void ict_forward(float* d_c0, float* d_c1, float* d_c2, size_t n, cudaStream_t stream);
void ict_inverse(float* d_c0, float* d_c1, float* d_c2, size_t n, cudaStream_t stream);

void dc_shift_rct_forward(int32_t* d_c0, int32_t* d_c1, int32_t* d_c2, size_t n, Int3 offset,
                          cudaStream_t stream);
void dc_shift_ict_forward(const int32_t* d_in0, const int32_t* d_in1, const int32_t* d_in2,
                          float* d_c0, float* d_c1, float* d_c2, size_t n, Int3 offset,
                          cudaStream_t stream);
void rct_inverse_dc_shift(int32_t* d_c0, int32_t* d_c1, int32_t* d_c2, size_t n, Int3 offset,
                          Int3 lo, Int3 hi, cudaStream_t stream);
void ict_inverse_dc_shift(const float* d_in0, const float* d_in1, const float* d_in2, int32_t* d_c0,
                          int32_t* d_c1, int32_t* d_c2, size_t n, Int3 offset, Int3 lo, Int3 hi,
                          cudaStream_t stream);

// rct_inverse_dc_shift / ict_inverse_dc_shift over the rectangle r of the sources (pitch
// r.src_pitch samples), each final sample of component c packed by transform::pack_sample
// (format f) at d_dst + y * r.dst_row + x * r.dst_pixel + at.v[c] instead of stored as int32:
// the bytes of the colour kernel followed by pack_rect of each component (transform/pack.h),
// in one pass, for interleaved output (Decoder::decode_into).
void rct_inverse_pack(const int32_t* d_c0, const int32_t* d_c1, const int32_t* d_c2, uint8_t* d_dst,
                      const PackRect& r, PackFormat f, Int3 at, Int3 offset, Int3 lo, Int3 hi,
                      cudaStream_t stream);
void ict_inverse_pack(const float* d_in0, const float* d_in1, const float* d_in2, uint8_t* d_dst,
                      const PackRect& r, PackFormat f, Int3 at, Int3 offset, Int3 lo, Int3 hi,
                      cudaStream_t stream);

void dc_shift_to_float(const int32_t* d_in, float* d_out, size_t n, int32_t offset,
                       cudaStream_t stream);
void float_to_int_dc_shift(const float* d_in, int32_t* d_out, size_t n, int32_t offset, int32_t lo,
                           int32_t hi, cudaStream_t stream);
void dc_shift_inverse_clamp(int32_t* d_x, size_t n, int32_t offset, int32_t lo, int32_t hi,
                            cudaStream_t stream);

// int32 samples from packed 1- or 2-byte samples (signed or unsigned); bytes 4 copies.
void widen_samples(const void* d_in, int bytes, bool is_signed, int32_t* d_out, size_t n,
                   cudaStream_t stream);
// The same for pixel-interleaved input: d_out[c * n + i] = d_in[i * ncomp + c] for n pixels of
// ncomp components (bytes 1 or 2), i.e. planes back to back.
void widen_interleaved(const void* d_in, int bytes, bool is_signed, int32_t* d_out, size_t ncomp,
                       size_t n, cudaStream_t stream);

}  // namespace gj2k::transform::cuda
