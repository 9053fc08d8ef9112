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

// A loop that device code keeps rolled (nvcc unrolls loops of few turns by itself), so that
// its body is one copy in the kernel's instructions; nothing in host code.
#if defined(__CUDA_ARCH__)
#define GJ2K_DEVICE_NO_UNROLL _Pragma("unroll 1")
#else
#define GJ2K_DEVICE_NO_UNROLL
#endif
