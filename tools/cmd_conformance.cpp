// `gj2k conformance`: runs the ISO/IEC 15444-4 decode tests listed in TOLERANCES.md.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <memory>
#include <string>

#include "conformance/manifest.h"
#include "conformance/runner.h"
#include "tools/command.h"

namespace {

struct Options {
  std::string data;
  std::string device = "auto";
  std::string filter;
  uint32_t threads = 0;
};

int run(const Options& o) {
  using namespace gj2k::conformance;
  std::filesystem::path dir = o.data.empty() ? default_data_dir() : std::filesystem::path(o.data);
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
                      "conformance data folder (default $GJ2K_SHARED/conformance, else "
                      "../shared/conformance)");
       gj2k::cli::add_device_option(app, o->device);
       app.add_option("--threads", o->threads, "decoder threads (0 = all)");
       app.add_option("--filter", o->filter, "run only tests whose name contains this");
       return [o] { return run(*o); };
     }});

}  // namespace
