// gj2k: command-line front end. Subcommands live in tools/cmd_*.cpp and register themselves.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "codec/trace.h"
#include "gj2k/gj2k.h"
#include "tools/cli_common.h"
#include "tools/command.h"
#include "transform/dwt.h"

namespace gj2k::cli {

static std::vector<Command>& registry() {
  static std::vector<Command> r;
  return r;
}

bool register_command(Command command) {
  registry().push_back(std::move(command));
  return true;
}

const std::vector<Command>& commands() {
  return registry();
}

CLI::Option* add_device_option(CLI::App& app, std::string& device) {
  // Benchmarking: which DWT implementation the tile stages use (transform/dwt.h select_dwt).
  app.add_option_function<std::string>(
         "--dwt", [](const std::string& name) { transform::select_dwt(name); },
         "benchmarking: the DWT variant (" + transform::dwt_variant_names() + ")")
      ->type_name("VARIANT");
  return app.add_option("--device", device, "auto|cpu|gpu (default auto: the GPU when present)")
      ->check(CLI::IsMember({"auto", "cpu", "gpu"}));
}

}  // namespace gj2k::cli

// A finished command leaves at once: outputs are closed and renamed, stdio is flushed here, and
// what static destructors and the CUDA runtime's exit handlers would release (the process-wide
// GPU pools, the CUDA context) the operating system releases faster with the process.
// Sanitizer builds exit normally, so that their leak and race reports run.
static void quick_exit_after_success(int rc) {
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
  std::fflush(nullptr);
  std::_Exit(rc);
#else
  (void)rc;
#endif
}

int main(int argc, char** argv) {
  CLI::App app{"gj2k: JPEG 2000 (ISO/IEC 15444-1) encoder, decoder and image converter"};
  app.set_version_flag("--version", std::string("gj2k ") + gj2k::version());
  app.require_subcommand(1);
  auto cmds = gj2k::cli::commands();
  std::sort(cmds.begin(), cmds.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  std::map<CLI::App*, gj2k::cli::RunFn> runs;
  for (const auto& cmd : cmds) {
    CLI::App* sub = app.add_subcommand(cmd.name, cmd.summary);
    runs[sub] = cmd.setup(*sub);
  }
  // opj-style arguments are rewritten first (tools/cli_common.h); CLI11 takes them reversed.
  // A parse error is one line on stderr; --help and --version print as CLI11 does.
  try {
    std::vector<std::string> args = gj2k::cli::translate_args(argc, argv);
    args.erase(args.begin());
    std::reverse(args.begin(), args.end());
    app.parse(args);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::string sub;
    for (const CLI::App* s : app.get_subcommands()) sub = " " + s->get_name();
    std::fprintf(stderr, "gj2k%s: %s (see gj2k%s --help)\n", sub.c_str(), e.what(), sub.c_str());
    return e.get_exit_code();
  } catch (const gj2k::Error& e) {
    std::fprintf(stderr, "gj2k: %s\n", e.what());
    return 2;
  }
  try {
    gj2k::codec::TraceStage trace("command");  // GJ2K_TRACE: the command, without exit
    for (auto& [sub, run] : runs)
      if (sub->parsed()) {
        const int rc = run();
        trace.end();
        quick_exit_after_success(rc);
        return rc;
      }
  } catch (const gj2k::Error& e) {
    std::fprintf(stderr, "gj2k: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gj2k: internal error: %s\n", e.what());
    return 2;
  }
  return 1;
}
