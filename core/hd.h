// Host-device annotations for code compiled both by the C++ compiler (the CPU path, and CI's
// tests of it) and by nvcc (the CUDA kernels): the per-code-block Tier-1 logic is written once.
#pragma once

#if defined(__GNUC__)
#define GJ2K_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define GJ2K_ALWAYS_INLINE inline
#endif

#if defined(__CUDACC__)
#define GJ2K_HD __host__ __device__
#define GJ2K_HD_INLINE __host__ __device__ __forceinline__
#else
#define GJ2K_HD
#define GJ2K_HD_INLINE GJ2K_ALWAYS_INLINE
#endif
