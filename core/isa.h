// Instruction-set variants of the host's hot kernels. Not public.
//
// The library is built for baseline x86-64 (a Debian package must run on every amd64 CPU),
// where the Tier-1 coders' variable shifts and leading-zero counts compile to slower code than
// the CPUs of the last decade run. So the hot kernels are also compiled for x86-64-v3 (AVX2,
// BMI1/2, LZCNT; not FMA, so that no float operation is contracted), in files named *_v3.cpp
// that CMakeLists.txt builds with those flags, and their callers pick one by host_isa(). Both
// variants are the same source and give identical results; tests compare them (checkasm
// style) by switching with set_host_isa.
//
// A *_v3.cpp file includes the kernels' headers inside an anonymous namespace, so that none of
// the inline functions and template instantiations it compiles for v3 can be merged with the
// baseline copies other files make (the linker keeps one copy of each, and a baseline caller
// must never get v3 code); its entry points take built-in types only (entropy/t1_v3.cpp).
#pragma once

#include <cstdint>

// GJ2K_HAVE_ISA_V3 (1 or 0) comes from CMakeLists.txt, which builds the *_v3.cpp files
// where the compiler targets x86-64.
#if !defined(GJ2K_HAVE_ISA_V3)
#define GJ2K_HAVE_ISA_V3 0
#endif

namespace gj2k::core {

enum class Isa : uint8_t {
  kBase,  // the build's own target (baseline x86-64, or any other architecture)
  kV3,    // x86-64-v3 without FMA
};

// Whether this build has the variant and this CPU runs it.
bool isa_supported(Isa isa);

// The variant the kernels use: kV3 where supported, unless the environment variable GJ2K_ISA
// says "base" (read once).
Isa host_isa();

// Whether the kernels' callers take the v3 build now (host_isa() == kV3). A caller still
// guards the call with #if GJ2K_HAVE_ISA_V3: elsewhere the v3 entry points do not exist.
inline bool use_isa_v3() {
  return host_isa() == Isa::kV3;
}

// Makes the kernels use `isa` from now on (tests and benchmarks); an unsupported one is
// refused (returns false, nothing changes). Not for use while kernels run on other threads.
bool set_host_isa(Isa isa);

}  // namespace gj2k::core
