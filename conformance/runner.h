// Runs one ISO/IEC 15444-4 decode test: decode with gj2k::Decoder, read the references,
// compare per component against the limits of the manifest.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "conformance/manifest.h"
#include "gj2k/decoder.h"

namespace gj2k::conformance {

enum class Outcome { kPass, kFail, kSkip };

struct ComponentResult {
  double peak = 0, mse = 0;
  double peak_limit = 0, mse_limit = 0;
  bool pass = false;
};

struct TestResult {
  Outcome outcome = Outcome::kFail;
  std::string message;  // why it failed or was skipped (empty on pass)
  std::vector<ComponentResult> components;
  double seconds = 0;  // decode time
};

struct RunOptions {
  DecodeDevice device = DecodeDevice::kAuto;
  uint32_t threads = 0;
};

// Never throws for a failing decode: a gj2k::Error becomes a kFail result with its message.
TestResult run_test(const TestCase& test, const std::filesystem::path& data_dir,
                    const RunOptions& options = {});

// One line: "c1p0_04  r0  c0 5/5 0.71/0.776  c1 ...  PASS" (peak/limit mse/limit).
std::string format_result(const TestCase& test, const TestResult& result);

}  // namespace gj2k::conformance
