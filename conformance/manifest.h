// The ISO/IEC 15444-4 decode tests, read at run time from the data directory's TOLERANCES.md
// (the shared file is the source of truth; nothing here is a copy of its numbers).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace gj2k::conformance {

// How a test compares the decode with its references.
enum class CompareKind {
  kPerComponent,  // class 1: component k against <ref>_k.pgx, geometry exact
  kClass0,        // class 0: first component, scaled to the reference precision
  kRgb8,          // JP2 file tests: rendered 8-bit RGB against a TIFF
  kUpsampled,     // further codestreams: every component upsampled to the image grid against
                  // one .ppm/.pgm (channels) or one .pgm per component
};

struct TestCase {
  std::string name;     // unique and ctest-safe: c1p0_01, c1p1_03, c0p0_03_r1, jp2_file1, e_a1_mono
  std::string section;  // "A", "B", "C", "D", "E"
  std::string input;    // file name under input/
  uint32_t reduce = 0;
  CompareKind kind = CompareKind::kPerComponent;
  // Reference files under reference/: for kPerComponent one per compared component; for
  // kClass0 and kRgb8 one file; for kUpsampled one multi-channel file or one per component.
  std::vector<std::string> refs;
  uint32_t ncomp = 0;        // components compared (0: as many as the reference has)
  std::vector<double> peak;  // per compared component (a single value applies to all)
  std::vector<double> mse;
  std::string geometry;  // the reference geometry as TOLERANCES.md states it
  std::string notes;     // what the stream exercises
  std::string skip;      // non-empty: why the test cannot run here (files missing)

  double peak_limit(size_t c) const {
    return peak.empty() ? 0 : peak[std::min(c, peak.size() - 1)];
  }
  double mse_limit(size_t c) const { return mse.empty() ? 0 : mse[std::min(c, mse.size() - 1)]; }
};

// Parses `data_dir`/TOLERANCES.md and marks tests whose files are absent under
// `data_dir`/input or `data_dir`/reference as skipped (with the missing path). Throws
// Error(kIo) when the file cannot be read and Error(kFormat) naming the line when a table row
// does not parse.
std::vector<TestCase> load_manifest(const std::filesystem::path& data_dir);

// The default data directory: $GJ2K_SHARED/conformance when set, else ../shared/conformance.
std::filesystem::path default_data_dir();

}  // namespace gj2k::conformance
