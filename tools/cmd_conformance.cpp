// `gj2k conformance`: runs the ISO/IEC 15444-4 decode tests listed in TOLERANCES.md.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "conformance/manifest.h"
#include "conformance/runner.h"
#include "gj2k/error.h"
#include "tools/command.h"

namespace {

struct Options {
  std::string data;
  std::string device = "auto";
  std::string filter;
  uint32_t threads = 0;
};

namespace fs = std::filesystem;

// The data folder: --data when given; else the first of $GJ2K_SHARED/conformance,
// <binary>/../share/gj2k/conformance, <checkout>/../shared/conformance (the binary in
// <checkout>/build/bin) and ../shared/conformance that holds TOLERANCES.md. Throws
// Error(kIo) listing every place looked at when none does.
fs::path find_data(const std::string& option) {
  std::vector<fs::path> candidates;
  if (!option.empty()) {
    candidates.push_back(option);
  } else {
    if (const char* env = std::getenv("GJ2K_SHARED"); env && *env)
      candidates.push_back(fs::path(env) / "conformance");
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) {
      candidates.push_back(exe.parent_path() / ".." / "share" / "gj2k" / "conformance");
      candidates.push_back(exe.parent_path() / ".." / ".." / ".." / "shared" / "conformance");
    }
    candidates.push_back(gj2k::conformance::default_data_dir());
  }
  std::string looked;
  for (const fs::path& dir : candidates) {
    std::error_code ec;
    if (fs::is_regular_file(dir / "TOLERANCES.md", ec)) return dir;
    looked += (looked.empty() ? "" : ", ") + fs::weakly_canonical(dir, ec).string();
  }
  throw gj2k::Error(gj2k::ErrorCode::kIo, "conformance data (TOLERANCES.md) not found; looked in " +
                                              looked + " (give --data DIR or set GJ2K_SHARED)");
}

int run(const Options& o) {
  using namespace gj2k::conformance;
  const fs::path dir = find_data(o.data);
  RunOptions ro;
  ro.threads = o.threads;
  ro.device = gj2k::cli::device_choice<gj2k::DecodeDevice>(o.device);
  size_t passed = 0, failed = 0, skipped = 0;
  for (const TestCase& t : load_manifest(dir)) {
    if (!o.filter.empty() && t.name.find(o.filter) == std::string::npos) continue;
    TestResult r = run_test(t, dir, ro);
    std::printf("%s\n", format_result(t, r).c_str());
    std::fflush(stdout);
    (r.outcome == Outcome::kPass ? passed : r.outcome == Outcome::kFail ? failed : skipped)++;
  }
  std::printf("%zu passed, %zu failed, %zu skipped\n", passed, failed, skipped);
  return failed == 0 ? 0 : 1;
}

const bool registered = gj2k::cli::register_command(
    {"conformance", "Run the ISO/IEC 15444-4 decode conformance tests",
     [](CLI::App& app) -> gj2k::cli::RunFn {
       auto o = std::make_shared<Options>();
       app.add_option("--data", o->data,
                      "conformance data folder (default: $GJ2K_SHARED/conformance, then "
                      "beside the binary, then ../shared/conformance)");
       gj2k::cli::add_device_option(app, o->device);
       app.add_option("--threads", o->threads, "decoder threads (0 = all)");
       app.add_option("--filter", o->filter, "run only tests whose name contains this");
       return [o] { return run(*o); };
     }});

}  // namespace
