// Element-wise kernels of Annex G (DC level shift G.1.2, RCT G.2, ICT G.3) and their
// launchers. Grid-stride loops; every sample read once and written once.
#include <algorithm>

#include "gj2k/error.h"
#include "transform/cuda/cuda_check.h"
#include "transform/cuda/mct_cuda.h"

namespace gj2k::transform::cuda {
namespace {

constexpr int kThreads = 256;

// G.3 coefficients (as transform/mct.cpp).
constexpr float kYR = 0.299f, kYG = 0.587f, kYB = 0.114f;
constexpr float kCbR = -0.16875f, kCbG = -0.33126f, kCbB = 0.5f;
constexpr float kCrR = 0.5f, kCrG = -0.41869f, kCrB = -0.08131f;
constexpr float kRCr = 1.402f, kGCb = -0.34413f, kGCr = -0.71414f, kBCb = 1.772f;

// a*x + b*y + c*z with the CPU's rounding (no contraction).
__device__ __forceinline__ float dot3(float a, float x, float b, float y, float c, float z) {
  return __fadd_rn(__fadd_rn(__fmul_rn(a, x), __fmul_rn(b, y)), __fmul_rn(c, z));
}
__device__ __forceinline__ int32_t clamp_i(int64_t v, int32_t lo, int32_t hi) {
  return static_cast<int32_t>(v < lo ? lo : (v > hi ? hi : v));
}
// Round to nearest, ties to even, after clamping (NaN becomes lo), as mct.cpp.
__device__ __forceinline__ int32_t round_clamp(double t, int32_t lo, int32_t hi) {
  t = t > lo ? t : lo;
  t = t < hi ? t : hi;
  return static_cast<int32_t>(rint(t));
}

#define GJ2K_FOR_EACH(i, n)                                               \
  for (size_t i = size_t{blockIdx.x} * blockDim.x + threadIdx.x; i < (n); \
       i += size_t{gridDim.x} * blockDim.x)

__global__ void dc_shift_kernel(int32_t* x, size_t n, int32_t add) {
  GJ2K_FOR_EACH(i, n) x[i] += add;
}
__global__ void dc_shift_inverse_clamp_kernel(int32_t* x, size_t n, int32_t offset, int32_t lo,
                                              int32_t hi) {
  GJ2K_FOR_EACH(i, n) x[i] = clamp_i(int64_t{x[i]} + offset, lo, hi);
}
__global__ void rct_forward_kernel(int32_t* c0, int32_t* c1, int32_t* c2, size_t n, Int3 o) {
  GJ2K_FOR_EACH(i, n) {
    const int32_t r = c0[i] - o.v[0], g = c1[i] - o.v[1], b = c2[i] - o.v[2];
    c0[i] = (r + 2 * g + b) >> 2;  // G-1, floor
    c1[i] = b - g;
    c2[i] = r - g;
  }
}
__global__ void rct_inverse_kernel(int32_t* c0, int32_t* c1, int32_t* c2, size_t n) {
  GJ2K_FOR_EACH(i, n) {
    const int32_t y = c0[i], u = c1[i], v = c2[i];
    const int32_t g = y - ((u + v) >> 2);  // G-2
    c0[i] = v + g;
    c1[i] = g;
    c2[i] = u + g;
  }
}
// G-2 to G-4 of one sample, DC shift and clamp: the final samples of components 0..2.
__device__ __forceinline__ void rct_inverse_sample(int32_t y, int32_t u, int32_t v, const Int3& o,
                                                   const Int3& lo, const Int3& hi, int32_t out[3]) {
  const int32_t g = y - ((u + v) >> 2);
  out[0] = clamp_i(int64_t{v} + g + o.v[0], lo.v[0], hi.v[0]);
  out[1] = clamp_i(int64_t{g} + o.v[1], lo.v[1], hi.v[1]);
  out[2] = clamp_i(int64_t{u} + g + o.v[2], lo.v[2], hi.v[2]);
}
// G-5 to G-7 of one sample (the CPU's float operations), DC shift, rounding and clamp.
__device__ __forceinline__ void ict_inverse_sample(float y, float cb, float cr, const Int3& o,
                                                   const Int3& lo, const Int3& hi, int32_t out[3]) {
  const float r = __fadd_rn(y, __fmul_rn(kRCr, cr));
  const float g = __fadd_rn(__fadd_rn(y, __fmul_rn(kGCb, cb)), __fmul_rn(kGCr, cr));
  const float b = __fadd_rn(y, __fmul_rn(kBCb, cb));
  out[0] = round_clamp(double{r} + o.v[0], lo.v[0], hi.v[0]);
  out[1] = round_clamp(double{g} + o.v[1], lo.v[1], hi.v[1]);
  out[2] = round_clamp(double{b} + o.v[2], lo.v[2], hi.v[2]);
}
__global__ void rct_inverse_dc_shift_kernel(int32_t* c0, int32_t* c1, int32_t* c2, size_t n, Int3 o,
                                            Int3 lo, Int3 hi) {
  GJ2K_FOR_EACH(i, n) {
    int32_t out[3];
    rct_inverse_sample(c0[i], c1[i], c2[i], o, lo, hi, out);
    c0[i] = out[0], c1[i] = out[1], c2[i] = out[2];
  }
}
__global__ void ict_forward_kernel(const int32_t* in0, const int32_t* in1, const int32_t* in2,
                                   float* f0, float* f1, float* f2, size_t n, Int3 o,
                                   bool from_int) {
  GJ2K_FOR_EACH(i, n) {
    float r, g, b;
    if (from_int) {
      r = static_cast<float>(in0[i] - o.v[0]);
      g = static_cast<float>(in1[i] - o.v[1]);
      b = static_cast<float>(in2[i] - o.v[2]);
    } else {
      r = f0[i], g = f1[i], b = f2[i];
    }
    f0[i] = dot3(kYR, r, kYG, g, kYB, b);
    f1[i] = dot3(kCbR, r, kCbG, g, kCbB, b);
    f2[i] = dot3(kCrR, r, kCrG, g, kCrB, b);
  }
}
__global__ void ict_inverse_kernel(float* c0, float* c1, float* c2, size_t n) {
  GJ2K_FOR_EACH(i, n) {
    const float y = c0[i], cb = c1[i], cr = c2[i];
    c0[i] = __fadd_rn(y, __fmul_rn(kRCr, cr));
    c1[i] = __fadd_rn(__fadd_rn(y, __fmul_rn(kGCb, cb)), __fmul_rn(kGCr, cr));
    c2[i] = __fadd_rn(y, __fmul_rn(kBCb, cb));
  }
}
__global__ void ict_inverse_dc_shift_kernel(const float* in0, const float* in1, const float* in2,
                                            int32_t* c0, int32_t* c1, int32_t* c2, size_t n, Int3 o,
                                            Int3 lo, Int3 hi) {
  GJ2K_FOR_EACH(i, n) {
    int32_t out[3];
    ict_inverse_sample(in0[i], in1[i], in2[i], o, lo, hi, out);
    c0[i] = out[0], c1[i] = out[1], c2[i] = out[2];
  }
}
// The same per sample over a rectangle, each result packed (pack_sample) at
// dst + y * dst_row + x * dst_pixel + at.v[c]; one thread per column x, rows by grid.y, as
// pack_kernel.
template <uint32_t kBytes, bool kBigEndian, bool kIct>
__global__ void colour_pack_kernel(const void* s0, const void* s1, const void* s2, uint8_t* dst,
                                   PackRect r, Int3 at, Int3 o, Int3 lo, Int3 hi) {
  const uint32_t x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x >= r.width) return;
  for (uint32_t y = blockIdx.y; y < r.height; y += gridDim.y) {
    const size_t i = size_t{y} * r.src_pitch + x;
    int32_t out[3];
    if constexpr (kIct)
      ict_inverse_sample(static_cast<const float*>(s0)[i], static_cast<const float*>(s1)[i],
                         static_cast<const float*>(s2)[i], o, lo, hi, out);
    else
      rct_inverse_sample(static_cast<const int32_t*>(s0)[i], static_cast<const int32_t*>(s1)[i],
                         static_cast<const int32_t*>(s2)[i], o, lo, hi, out);
    uint8_t* p = dst + size_t{y} * r.dst_row + size_t{x} * r.dst_pixel;
    for (int c = 0; c < 3; ++c) pack_sample(p + at.v[c], out[c], kBytes, kBigEndian);
  }
}
template <bool kIct>
void colour_pack(const void* s0, const void* s1, const void* s2, uint8_t* d_dst, const PackRect& r,
                 PackFormat f, Int3 at, Int3 o, Int3 lo, Int3 hi, cudaStream_t s) {
  if (r.width == 0 || r.height == 0) return;
  constexpr unsigned kThreadsX = 128;
  const dim3 grid((r.width + kThreadsX - 1) / kThreadsX, std::min<uint32_t>(r.height, 65535));
  if (f.bytes == 1)
    colour_pack_kernel<1, false, kIct>
        <<<grid, kThreadsX, 0, s>>>(s0, s1, s2, d_dst, r, at, o, lo, hi);
  else if (f.bytes == 2 && f.big_endian)
    colour_pack_kernel<2, true, kIct>
        <<<grid, kThreadsX, 0, s>>>(s0, s1, s2, d_dst, r, at, o, lo, hi);
  else if (f.bytes == 2)
    colour_pack_kernel<2, false, kIct>
        <<<grid, kThreadsX, 0, s>>>(s0, s1, s2, d_dst, r, at, o, lo, hi);
  else if (f.big_endian)
    colour_pack_kernel<4, true, kIct>
        <<<grid, kThreadsX, 0, s>>>(s0, s1, s2, d_dst, r, at, o, lo, hi);
  else
    colour_pack_kernel<4, false, kIct>
        <<<grid, kThreadsX, 0, s>>>(s0, s1, s2, d_dst, r, at, o, lo, hi);
  GJ2K_CUDA_CHECK_LAUNCH("colour_pack_kernel launch");
}
__global__ void to_float_kernel(const int32_t* in, float* out, size_t n, int32_t offset) {
  GJ2K_FOR_EACH(i, n) out[i] = static_cast<float>(in[i] - offset);
}
__global__ void to_int_kernel(const float* in, int32_t* out, size_t n, int32_t offset, int32_t lo,
                              int32_t hi) {
  GJ2K_FOR_EACH(i, n) out[i] = round_clamp(double{in[i]} + offset, lo, hi);
}

template <class S>
__global__ void widen_kernel(const S* in, int32_t* out, size_t n) {
  GJ2K_FOR_EACH(i, n) out[i] = static_cast<int32_t>(in[i]);
}

// One thread per input sample j (coalesced reads): pixel j / ncomp, component j % ncomp.
template <class S>
__global__ void widen_interleaved_kernel(const S* in, int32_t* out, size_t ncomp, size_t n) {
  GJ2K_FOR_EACH(j, n * ncomp) out[(j % ncomp) * n + j / ncomp] = static_cast<int32_t>(in[j]);
}

// Launch policy: enough blocks to fill the device a few times over, grid-stride beyond.
unsigned grid_for(size_t n) {
  static const int sms = [] {
    int dev = 0, count = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess)
      return 80;
    return count;
  }();
  const size_t want = (n + kThreads - 1) / kThreads;
  return static_cast<unsigned>(std::max<size_t>(1, std::min<size_t>(want, size_t(sms) * 16)));
}

template <class K, class... A>
void launch(const char* what, K kernel, size_t n, cudaStream_t s, A... args) {
  if (n == 0) return;
  kernel<<<grid_for(n), kThreads, 0, s>>>(args...);
  GJ2K_CUDA_CHECK_LAUNCH(what);
}

}  // namespace

void dc_shift_forward(int32_t* d_x, size_t n, int32_t offset, cudaStream_t s) {
  launch("dc_shift_forward", dc_shift_kernel, n, s, d_x, n, -offset);
}
void dc_shift_inverse(int32_t* d_x, size_t n, int32_t offset, cudaStream_t s) {
  launch("dc_shift_inverse", dc_shift_kernel, n, s, d_x, n, offset);
}
void rct_forward(int32_t* d_c0, int32_t* d_c1, int32_t* d_c2, size_t n, cudaStream_t s) {
  launch("rct_forward", rct_forward_kernel, n, s, d_c0, d_c1, d_c2, n, Int3{});
}
void rct_inverse(int32_t* d_c0, int32_t* d_c1, int32_t* d_c2, size_t n, cudaStream_t s) {
  launch("rct_inverse", rct_inverse_kernel, n, s, d_c0, d_c1, d_c2, n);
}
void ict_forward(float* d_c0, float* d_c1, float* d_c2, size_t n, cudaStream_t s) {
  launch("ict_forward", ict_forward_kernel, n, s, static_cast<const int32_t*>(nullptr),
         static_cast<const int32_t*>(nullptr), static_cast<const int32_t*>(nullptr), d_c0, d_c1,
         d_c2, n, Int3{}, false);
}
void ict_inverse(float* d_c0, float* d_c1, float* d_c2, size_t n, cudaStream_t s) {
  launch("ict_inverse", ict_inverse_kernel, n, s, d_c0, d_c1, d_c2, n);
}
void dc_shift_rct_forward(int32_t* d_c0, int32_t* d_c1, int32_t* d_c2, size_t n, Int3 offset,
                          cudaStream_t s) {
  launch("dc_shift_rct_forward", rct_forward_kernel, n, s, d_c0, d_c1, d_c2, n, offset);
}
void dc_shift_ict_forward(const int32_t* d_in0, const int32_t* d_in1, const int32_t* d_in2,
                          float* d_c0, float* d_c1, float* d_c2, size_t n, Int3 offset,
                          cudaStream_t s) {
  launch("dc_shift_ict_forward", ict_forward_kernel, n, s, d_in0, d_in1, d_in2, d_c0, d_c1, d_c2, n,
         offset, true);
}
void rct_inverse_dc_shift(int32_t* d_c0, int32_t* d_c1, int32_t* d_c2, size_t n, Int3 offset,
                          Int3 lo, Int3 hi, cudaStream_t s) {
  launch("rct_inverse_dc_shift", rct_inverse_dc_shift_kernel, n, s, d_c0, d_c1, d_c2, n, offset, lo,
         hi);
}
void ict_inverse_dc_shift(const float* d_in0, const float* d_in1, const float* d_in2, int32_t* d_c0,
                          int32_t* d_c1, int32_t* d_c2, size_t n, Int3 offset, Int3 lo, Int3 hi,
                          cudaStream_t s) {
  launch("ict_inverse_dc_shift", ict_inverse_dc_shift_kernel, n, s, d_in0, d_in1, d_in2, d_c0, d_c1,
         d_c2, n, offset, lo, hi);
}
void rct_inverse_pack(const int32_t* d_c0, const int32_t* d_c1, const int32_t* d_c2, uint8_t* d_dst,
                      const PackRect& r, PackFormat f, Int3 at, Int3 offset, Int3 lo, Int3 hi,
                      cudaStream_t s) {
  colour_pack<false>(d_c0, d_c1, d_c2, d_dst, r, f, at, offset, lo, hi, s);
}
void ict_inverse_pack(const float* d_in0, const float* d_in1, const float* d_in2, uint8_t* d_dst,
                      const PackRect& r, PackFormat f, Int3 at, Int3 offset, Int3 lo, Int3 hi,
                      cudaStream_t s) {
  colour_pack<true>(d_in0, d_in1, d_in2, d_dst, r, f, at, offset, lo, hi, s);
}
void dc_shift_to_float(const int32_t* d_in, float* d_out, size_t n, int32_t offset,
                       cudaStream_t s) {
  launch("dc_shift_to_float", to_float_kernel, n, s, d_in, d_out, n, offset);
}
void float_to_int_dc_shift(const float* d_in, int32_t* d_out, size_t n, int32_t offset, int32_t lo,
                           int32_t hi, cudaStream_t s) {
  launch("float_to_int_dc_shift", to_int_kernel, n, s, d_in, d_out, n, offset, lo, hi);
}
void dc_shift_inverse_clamp(int32_t* d_x, size_t n, int32_t offset, int32_t lo, int32_t hi,
                            cudaStream_t s) {
  launch("dc_shift_inverse_clamp", dc_shift_inverse_clamp_kernel, n, s, d_x, n, offset, lo, hi);
}

void widen_samples(const void* d_in, int bytes, bool is_signed, int32_t* d_out, size_t n,
                   cudaStream_t s) {
  if (bytes == 1 && is_signed)
    launch("widen_samples", widen_kernel<int8_t>, n, s, static_cast<const int8_t*>(d_in), d_out, n);
  else if (bytes == 1)
    launch("widen_samples", widen_kernel<uint8_t>, n, s, static_cast<const uint8_t*>(d_in), d_out,
           n);
  else if (bytes == 2 && is_signed)
    launch("widen_samples", widen_kernel<int16_t>, n, s, static_cast<const int16_t*>(d_in), d_out,
           n);
  else if (bytes == 2)
    launch("widen_samples", widen_kernel<uint16_t>, n, s, static_cast<const uint16_t*>(d_in), d_out,
           n);
  else if (n > 0)
    GJ2K_CUDA_CHECK(cudaMemcpyAsync(d_out, d_in, n * 4, cudaMemcpyDeviceToDevice, s));
}

void widen_interleaved(const void* d_in, int bytes, bool is_signed, int32_t* d_out, size_t ncomp,
                       size_t n, cudaStream_t s) {
  const size_t total = n * ncomp;
  if (bytes == 1 && is_signed)
    launch("widen_interleaved", widen_interleaved_kernel<int8_t>, total, s,
           static_cast<const int8_t*>(d_in), d_out, ncomp, n);
  else if (bytes == 1)
    launch("widen_interleaved", widen_interleaved_kernel<uint8_t>, total, s,
           static_cast<const uint8_t*>(d_in), d_out, ncomp, n);
  else if (bytes == 2 && is_signed)
    launch("widen_interleaved", widen_interleaved_kernel<int16_t>, total, s,
           static_cast<const int16_t*>(d_in), d_out, ncomp, n);
  else if (bytes == 2)
    launch("widen_interleaved", widen_interleaved_kernel<uint16_t>, total, s,
           static_cast<const uint16_t*>(d_in), d_out, ncomp, n);
  else
    throw Error(ErrorCode::kInvalidArgument, "widen_interleaved: samples of 1 or 2 bytes only");
}

}  // namespace gj2k::transform::cuda
