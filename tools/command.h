// The gj2k CLI's subcommand registry. Each tools/cmd_*.cpp registers one subcommand with
//   static const bool registered = gj2k::cli::register_command({"name", "summary", setup});
// `setup` adds the subcommand's options to the CLI11 app it is given and returns the function
// that runs it. Commands print results to stdout and throw gj2k::Error on failure; main() prints
// the error as one line to stderr and exits non-zero.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace gj2k::cli {

using RunFn = std::function<int()>;

struct Command {
  std::string name;
  std::string summary;
  std::function<RunFn(CLI::App&)> setup;
};

bool register_command(Command command);
const std::vector<Command>& commands();

// --device auto|cpu|gpu, the same option and check for every command that codes (main.cpp).
CLI::Option* add_device_option(CLI::App& app, std::string& device);
// The checked choice as the encoder's or decoder's enum E (kAuto, kCpu, kGpu).
template <class E>
E device_choice(const std::string& device) {
  return device == "cpu" ? E::kCpu : device == "gpu" ? E::kGpu : E::kAuto;
}

}  // namespace gj2k::cli
