// Where tests find ../shared (test images, conformance files): $GJ2K_SHARED, else ../shared
// relative to the source tree. Tests that need it call GJ2K_REQUIRE_SHARED(path) and skip,
// saying why, when it is absent.
#pragma once

#include <gtest/gtest.h>

#include <unistd.h>
#include <cstdlib>
#include <filesystem>
#include <string>

namespace gj2k::test {

inline std::filesystem::path shared_dir() {
  if (const char* env = std::getenv("GJ2K_SHARED"); env && *env) return env;
  return std::filesystem::path(GJ2K_SOURCE_DIR) / ".." / "shared";
}

// A scratch directory unique to this test process, removed at exit by the OS's tmp cleaning.
inline std::filesystem::path scratch_dir() {
  static const std::filesystem::path dir = [] {
    auto d = std::filesystem::temp_directory_path() /
             ("gj2k-test-" + std::to_string(static_cast<long>(::getpid())));
    std::filesystem::create_directories(d);
    return d;
  }();
  return dir;
}

}  // namespace gj2k::test

// Skips the current test, naming the missing path, when shared data is absent.
#define GJ2K_REQUIRE_SHARED(rel)                                                        \
  do {                                                                                  \
    if (!std::filesystem::exists(::gj2k::test::shared_dir() / (rel)))                   \
      GTEST_SKIP() << "shared data not found: " << (::gj2k::test::shared_dir() / (rel)) \
                   << " (set GJ2K_SHARED to the shared/ folder)";                       \
  } while (0)
