#include "core/isa.h"

#include <atomic>
#include <cstdlib>
#include <cstring>

#if GJ2K_HAVE_ISA_V3
#include <cpuid.h>
#endif

namespace gj2k::core {
namespace {

Isa initial_isa() {
  const char* env = std::getenv("GJ2K_ISA");
  if (env && std::strcmp(env, "base") == 0) return Isa::kBase;
  return isa_supported(Isa::kV3) ? Isa::kV3 : Isa::kBase;
}

std::atomic<Isa>& current() {
  static std::atomic<Isa> isa{initial_isa()};
  return isa;
}

}  // namespace

bool isa_supported(Isa isa) {
  if (isa == Isa::kBase) return true;
#if GJ2K_HAVE_ISA_V3
  static const bool v3 = [] {
    __builtin_cpu_init();
    // LZCNT (CPUID 0x80000001, ECX bit 5) by cpuid: not every compiler's
    // __builtin_cpu_supports knows it (clang 14 does not).
    unsigned a = 0, b = 0, c = 0, d = 0;
    const bool lzcnt = __get_cpuid(0x80000001u, &a, &b, &c, &d) && (c & (1u << 5)) != 0;
    return lzcnt && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi") &&
           __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("popcnt");
  }();
  return v3;
#else
  return false;
#endif
}

Isa host_isa() {
  return current().load(std::memory_order_relaxed);
}

bool set_host_isa(Isa isa) {
  if (!isa_supported(isa)) return false;
  current().store(isa, std::memory_order_relaxed);
  return true;
}

}  // namespace gj2k::core
